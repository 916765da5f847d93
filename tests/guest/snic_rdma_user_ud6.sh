# UD and GSI QPs over IPv6 between two guests (one snic port each): with
# the port's global IPv6 address (fd00::N/64, a RoCE v2 GID) the stock
# tools run datagrams over RoCEv2/IPv6: ibv_ud_pingpong and perftest
# ib_send_bw -c UD with that GID's index, and rdma_cm over IPv6 addresses
# (its MADs go through the GSI QP, QP1): rping (10 pings, verbose) and
# ucmatose.  Each guest checks that its port took RoCE packets and
# dropped none as from a bad source.  Guest 1 serves.
# vm-args: --guests 2
# timeout: 480
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_two_guests
check ping wait_ping "$peer" 60
ip -6 addr add "fd00::$me/64" dev "$if" nodad
if gl=$(roce_v2_gid6 "$dev" fd00); then
	pass ipv6_gid
else
	fail ipv6_gid "no RoCE v2 global IPv6 GID: $(cat /sys/class/infiniband/$dev/ports/1/gids/* | sort -u | tr '\n' ' ')"
	finish
fi
# The peer's neighbour entry before the first AH needs it.
check ping6_global wait_ping "fd00::$((3 - me))" 30
pk0=$(hw rx_pkts) bad0=$(hw rx_bad_src) tbad0=$(hw tx_bad_src)

b=1
p=18890
for t in ud_pingpong ud_send_bw; do
	case $t in
	ud_pingpong) cmd="ibv_ud_pingpong -d $dev -g $gl -p $p -s 1024 -n 50" ;;
	ud_send_bw) cmd="ib_send_bw -d $dev -x $gl -c UD -p $p -s 1024 -n 200 -F" ;;
	esac
	check "barrier_$b" barrier "$b"
	b=$((b + 1))
	xpair "ipv6_$t" "$p" 1 "$cmd" "$cmd 10.0.0.1"
	p=$((p + 1))
done
check "barrier_$b" barrier "$b"
b=$((b + 1))

# rdma_cm over IPv6: address and route resolution, then the CM's MADs on
# QP1 over RoCEv2/IPv6, then an RC connection (rping) or several (ucmatose).
if [ "$me" = 1 ]; then
	timeout 150 rping -s -a fd00::1 -C 10 -v > /tmp/rping6 2>&1 &
	spid=$!
	sleep 2
	check "barrier_$b" barrier "$b"
	wait $spid && pass ipv6_rping_server ||
		fail ipv6_rping_server "rc $?: $(pair_why /tmp/rping6)"
else
	check "barrier_$b" barrier "$b"
	timeout 150 rping -c -a fd00::1 -C 10 -v > /tmp/rping6 2>&1
	rc=$?
	n=$(grep -c 'ping data: rdma-ping-' /tmp/rping6)
	if [ $rc = 0 ] && [ "$n" = 10 ]; then
		pass ipv6_rping_10
	else
		fail ipv6_rping_10 "rc $rc, $n of 10 pings: $(pair_why /tmp/rping6)"
		sed 's/^/  /' /tmp/rping6
	fi
fi
b=$((b + 1))
check "barrier_$b" barrier "$b"
b=$((b + 1))

if [ "$me" = 1 ]; then
	timeout 150 ucmatose -b fd00::1 -c 2 -C 10 > /tmp/ucm6 2>&1 &
	spid=$!
	sleep 2
	check "barrier_$b" barrier "$b"
	wait $spid && pass ipv6_ucmatose_server ||
		{ fail ipv6_ucmatose_server "rc $?: $(pair_why /tmp/ucm6)"; sed 's/^/  /' /tmp/ucm6; }
else
	check "barrier_$b" barrier "$b"
	timeout 150 ucmatose -s fd00::1 -c 2 -C 10 > /tmp/ucm6 2>&1 &&
		grep -q 'test complete' /tmp/ucm6 && pass ipv6_ucmatose ||
		{ fail ipv6_ucmatose "$(pair_why /tmp/ucm6)"; sed 's/^/  /' /tmp/ucm6; }
fi
b=$((b + 1))
check "barrier_$b" barrier "$b"
check ipv6_traffic test "$(hw rx_pkts)" -gt "$pk0"
check ipv6_rx_src_ok test "$(hw rx_bad_src)" = "$bad0"
check ipv6_tx_src_ok test "$(hw tx_bad_src)" = "$tbad0"
check dmesg_clean dmesg_clean
finish
