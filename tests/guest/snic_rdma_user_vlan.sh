# RoCE over a VLAN between two guests (one snic port each): a stock
# 802.1Q interface on top of the snic netdev (ip link ... type vlan id
# 100, 10.100.0.N/24); ib_core publishes a RoCE v2 GID for its address,
# and QPs using that GID send 802.1Q-tagged frames with VLAN 100, which
# the peer takes for its own VLAN GIDs only.  Stock ibv_rc_pingpong with
# the VLAN GID's index (its data over RoCE, the exchange over the plain
# port's TCP) and rping over the VLAN addresses (rdma_cm, its MADs on the
# GSI QP tagged too).  Each guest checks that its port took tagged RoCE
# packets (hw_counters rx_vlan_pkts) and dropped none as from a bad
# source.  Guest 1 serves.
# vm-args: --guests 2
# timeout: 420
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_two_guests
check ping wait_ping "$peer" 60
check modprobe_8021q modprobe 8021q
check vlan_add ip link add link "$if" name "$if.100" type vlan id 100
ip addr add "10.100.0.$me/24" dev "$if.100"
ip link set "$if.100" up
if vgid=$(roce_v2_gid_of "$dev" "10.100.0.$me"); then
	pass vlan_gid
else
	fail vlan_gid "no RoCE v2 GID for 10.100.0.$me: $(cat /sys/class/infiniband/$dev/ports/1/gids/* | sort -u | tr '\n' ' ')"
	finish
fi
check ping_vlan wait_ping "10.100.0.$((3 - me))" 30
vl0=$(hw rx_vlan_pkts 2>/dev/null) bad0=$(hw rx_bad_src)

check barrier_1 barrier 1
p=18990
cmd="ibv_rc_pingpong -d $dev -g $vgid -p $p -s 4096 -n 50 -c"
xpair vlan_rc_pingpong "$p" 1 "$cmd" "$cmd 10.0.0.1"
check barrier_2 barrier 2

if [ "$me" = 1 ]; then
	timeout 150 rping -s -a 10.100.0.1 -C 10 -v > /tmp/rpingv 2>&1 &
	spid=$!
	sleep 2
	check barrier_3 barrier 3
	wait $spid && pass vlan_rping_server ||
		fail vlan_rping_server "rc $?: $(pair_why /tmp/rpingv)"
else
	check barrier_3 barrier 3
	timeout 150 rping -c -a 10.100.0.1 -C 10 -v > /tmp/rpingv 2>&1
	rc=$?
	n=$(grep -c 'ping data: rdma-ping-' /tmp/rpingv)
	if [ $rc = 0 ] && [ "$n" = 10 ]; then
		pass vlan_rping_10
	else
		fail vlan_rping_10 "rc $rc, $n of 10 pings: $(pair_why /tmp/rpingv)"
		sed 's/^/  /' /tmp/rpingv
	fi
fi
check barrier_4 barrier 4
vl1=$(hw rx_vlan_pkts 2>/dev/null)
if [ -n "$vl0" ] && [ -n "$vl1" ] && [ "$vl1" -gt "$vl0" ]; then
	pass vlan_tagged_rx
else
	fail vlan_tagged_rx "rx_vlan_pkts ${vl0:-missing} -> ${vl1:-missing}: no tagged RoCE packets counted"
fi
check vlan_from_path test "$(hw rx_bad_src)" = "$bad0"
check dmesg_clean dmesg_clean
finish
