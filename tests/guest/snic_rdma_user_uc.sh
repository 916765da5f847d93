# Unreliable connected (UC) QPs between two guests (one snic port each)
# with the stock tools: ibv_uc_pingpong (with --chk: the received data is
# verified; once more with DMA-only pipe QPs, SNIC_QP_MODE=pipe) and
# perftest ib_send_bw, ib_write_bw, ib_send_lat and ib_write_lat with
# -c UC.  UC has no acknowledgements: each guest checks that its port sent
# and received no ACK during the runs, and that its responder dropped no
# message (the wire loses nothing).  Guest 1 serves, guest 2 is the
# client.
# vm-args: --guests 2
# timeout: 420
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_two_guests
check ping wait_ping "$peer" 60
tx0=$(hw tx_acks) rx0=$(hw rx_acks) pk0=$(hw rx_pkts)

b=1
p=18780
for t in pingpong pipe_pingpong send_bw write_bw send_lat write_lat; do
	case $t in
	pingpong) cmd="ibv_uc_pingpong -d $dev -g $gid -p $p -s 4096 -n 100 -c" ;;
	pipe_pingpong) cmd="SNIC_QP_MODE=pipe ibv_uc_pingpong -d $dev -g $gid -p $p -s 4096 -n 100 -c" ;;
	*_bw) cmd="ib_$t -c UC -d $dev -x $gid -p $p -s 4096 -n 200 -F" ;;
	*) cmd="ib_$t -c UC -d $dev -x $gid -p $p -n 100 -F" ;;
	esac
	check "barrier_$b" barrier "$b"
	b=$((b + 1))
	xpair "uc_$t" "$p" 1 "$cmd" "$cmd 10.0.0.1"
	p=$((p + 1))
done
check "barrier_$b" barrier "$b"
check uc_traffic test "$(hw rx_pkts)" -gt "$pk0"
check uc_no_acks_sent test "$(hw tx_acks)" = "$tx0"
check uc_no_acks_received test "$(hw rx_acks)" = "$rx0"
check uc_nothing_dropped test "$(hw uc_dropped)" = 0
check dmesg_clean dmesg_clean
finish
