# RoCEv2 over IPv6 between two guests (one snic port each): ib_core
# publishes the port's fe80 link-local address as a RoCE v2 GID, and the
# global address this test adds (fd00::N/64) as another.  With those GID
# indexes the stock tools run RC and UC QPs over IPv6: ibv_rc_pingpong
# (with --chk) over the link-local and the global GID, ibv_uc_pingpong,
# and perftest ib_send_bw over the link-local GID.  Each guest checks that
# its port took RoCE packets and dropped none as not from a QP's path.
# UD and rdma_cm over IPv6: snic_rdma_user_ud6.
# vm-args: --guests 2
# timeout: 420
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_two_guests
check ping wait_ping "$peer" 60
ip -6 addr add "fd00::$me/64" dev "$if" nodad
if ll=$(roce_v2_gid6 "$dev" fe80) && gl=$(roce_v2_gid6 "$dev" fd00); then
	pass ipv6_gids
else
	fail ipv6_gids "no RoCE v2 IPv6 GIDs: $(cat /sys/class/infiniband/$dev/ports/1/gids/* | sort -u | tr '\n' ' ')"
	finish
fi
# ib_core takes a user QP's destination MAC from the neighbour table: the
# peer's link-local and global addresses are resolved before the first QP
# needs them (a first ND under load outlasted its address resolution).
check ping6_global wait_ping "fd00::$((3 - me))" 30
ping -6 -c 3 -W 5 -I "$if" ff02::1 > /dev/null 2>&1	# link-local neighbours
pk0=$(hw rx_pkts) bad0=$(hw rx_bad_src)

b=1
p=18790
for t in rc_pingpong_ll rc_pingpong_global uc_pingpong_ll send_bw_ll; do
	case $t in
	rc_pingpong_ll) cmd="ibv_rc_pingpong -d $dev -g $ll -p $p -s 4096 -n 50 -c" ;;
	rc_pingpong_global) cmd="ibv_rc_pingpong -d $dev -g $gl -p $p -s 4096 -n 50 -c" ;;
	uc_pingpong_ll) cmd="ibv_uc_pingpong -d $dev -g $ll -p $p -s 4096 -n 50 -c" ;;
	send_bw_ll) cmd="ib_send_bw -d $dev -x $ll -p $p -s 4096 -n 200 -F" ;;
	esac
	check "barrier_$b" barrier "$b"
	b=$((b + 1))
	xpair "ipv6_$t" "$p" 1 "$cmd" "$cmd 10.0.0.1"
	p=$((p + 1))
done
check "barrier_$b" barrier "$b"
check ipv6_traffic test "$(hw rx_pkts)" -gt "$pk0"
check ipv6_from_path test "$(hw rx_bad_src)" = "$bad0"
check dmesg_clean dmesg_clean
finish
