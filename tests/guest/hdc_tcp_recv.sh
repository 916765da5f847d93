# The engine's TCP receiver between two guests: guest 1 (HDC engine, its
# SSD, a snic port) runs 'd2d recv --tcp --then MSG 10.0.0.2:PORT FILE
# --bytes N --crc32c': the driver hands the connected socket's receive
# side over to the engine, which takes the segments from its striding
# receive queue, acknowledges them and writes the bytes into FILE on its
# SSD, then hands the state back; the socket then carries MSG out and the
# peer's answer in.  Guest 2 is stock Linux TCP (socat sending a random
# file, then answering 'got MSG'); it serves the file again over another
# connection so guest 1 compares md5sums.  Sizes 1 B, 4 KiB, 1 MiB + 7
# and 16 MiB; the peer's FIN before N bytes (FILE as long as what came);
# guest 2's egress losing 3% of its packets and reordering (netem, TSO/GSO
# off: a packet is a segment): segments come out of order
# (stats/tcp_rx_ooo), the engine answers them with duplicate ACKs (more
# ACKs than segments placed), guest 2 sends the lost ones again (its Tcp
# RetransSegs); the peer resetting mid-transfer
# (ECONNRESET, nothing kept in FILE); without CAP_NET_RAW EPERM.  The
# engine's TCP counters in sysfs (stats/tcp_rx_segs, tcp_rx_acks,
# tcp_recvs, tcp_resets ...) move and are all readable after the transfers.
# vm-args: --guests 2 --hdc @DISK@
# timeout: 900
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/hdc.inc

PORT=9300	# + 1 FIN, + 2 loss, + 3 reset, + 4 nobody
MSG="after-the-engine"
CASES="1 4096 1048583 16777216"
LOSS_LEN=4194304

# reset_when_sent PID: once /tmp/sent names the sending shell (it wrote
# its bytes), SIGKILL it and socat PID: the socket, with SO_LINGER 0,
# closes with an RST and no FIN
reset_when_sent() {
	for i in $(seq 1 1200); do
		if [ -s /tmp/sent ]; then
			kill -9 "$(cat /tmp/sent)" "$1"
			return 0
		fi
		sleep 0.1
	done
	echo "the sender never wrote its bytes"
	return 1
}

snic_eth_setup

if [ "$D2D_GUEST" = 1 ]; then
	check hdc_setup hdc_setup
	check ping_peer wait_ping "$peer" 30
	n=0
	for c in $CASES; do
		n=$((n + 2))
		check "barrier_${c}_a" barrier $((n - 1))
		rx0=$(cat $SYS/stats/tcp_rx_segs)
		ack0=$(cat $SYS/stats/tcp_rx_acks)
		check "recv_$c" sh -c "d2d recv --tcp --then $MSG $peer:$PORT $OUT/r$c --bytes $c --crc32c > $OUT/r$c.reply 2> $OUT/r$c.err"
		cat $OUT/r$c.err
		check "socket_both_ways_$c" test "$(tail -n 1 $OUT/r$c.reply)" = "got $MSG"
		check "size_$c" test "$(stat -c %s $OUT/r$c)" = $c
		check "crc32c_$c" sh -c "[ \"\$(head -n 1 $OUT/r$c.reply | cut -d' ' -f1)\" = \"\$(crc32c $OUT/r$c | cut -d' ' -f1)\" ]"
		check "barrier_${c}_b" barrier $n
		check "fetch_$c" fetch r$c
		check "md5_$c" same_md5 $OUT/r$c $OUT/r$c.back
		rx1=$(cat $SYS/stats/tcp_rx_segs)
		ack1=$(cat $SYS/stats/tcp_rx_acks)
		# (what the socket had taken in before the hand-over needs no ACK)
		echo "# $c: engine placed $((rx1 - rx0)) segments, sent $((ack1 - ack0)) ACKs"
	done

	# the peer closes after 4 KiB of the 8 KiB asked for
	check barrier_fin barrier 21
	check fin_recv sh -c "d2d recv --tcp $peer:$((PORT + 1)) $OUT/fin --bytes 8192 2> $OUT/fin.err"
	cat $OUT/fin.err
	check fin_size test "$(stat -c %s $OUT/fin)" = 4096
	check barrier_fin_served barrier 22
	check fin_fetch fetch fin
	check fin_md5 same_md5 $OUT/fin $OUT/fin.back

	# every 100th segment lost
	check barrier_loss barrier 23
	ooo0=$(cat $SYS/stats/tcp_rx_ooo)
	acks0=$(cat $SYS/stats/tcp_rx_acks)
	segs0=$(cat $SYS/stats/tcp_rx_segs)
	check loss_recv sh -c "d2d recv --tcp --then $MSG $peer:$((PORT + 2)) $OUT/loss --bytes $LOSS_LEN > $OUT/loss.reply"
	check loss_reply test "$(cat $OUT/loss.reply)" = "got $MSG"
	ooo1=$(cat $SYS/stats/tcp_rx_ooo)
	acks1=$(cat $SYS/stats/tcp_rx_acks)
	segs1=$(cat $SYS/stats/tcp_rx_segs)
	echo "# loss: $((ooo1 - ooo0)) segments out of order dropped, $((segs1 - segs0)) placed, $((acks1 - acks0)) ACKs"
	# the segments after each lost one came out of order: dropped, each
	# answered by a duplicate ACK (at most 3 a pass): ACKs beyond one per
	# segment placed
	check loss_ooo test $((ooo1 - ooo0)) -gt 0
	check loss_dupacks test $((acks1 - acks0)) -gt $((segs1 - segs0))
	check barrier_loss_served barrier 24
	check loss_fetch fetch loss
	check loss_md5 same_md5 $OUT/loss $OUT/loss.back

	# the peer resets after 300000 bytes: nothing kept
	check barrier_reset barrier 25
	resets0=$(cat $SYS/stats/tcp_resets)
	check peer_reset expect_errno ECONNRESET d2d recv --tcp $peer:$((PORT + 3)) $OUT/reset --bytes 4194304
	check reset_nothing_kept test "$(stat -c %s $OUT/reset)" = 0
	check stats_reset test $(($(cat $SYS/stats/tcp_resets) - resets0)) = 1

	# no CAP_NET_RAW
	check barrier_nobody barrier 26
	check nobody_needs_cap_net_raw expect_errno EPERM as_nobody d2d recv --tcp $peer:$((PORT + 4)) /tmp/nobody --bytes 10
	check nothing_in_flight sh -c "[ \$(cat $SYS/stats/inflight) = 0 ]"
	# every TCP statistic, read after the transfers
	for s in tcp_sends tcp_recvs tcp_resets nic_tx nic_errs tcp_acks \
		tcp_rexmit tcp_rto tcp_dupacks tcp_rx_segs tcp_rx_ooo tcp_rx_acks; do
		echo "# stats/$s $(cat $SYS/stats/$s)"
	done
	check stats_recvs sh -c "[ \$(cat $SYS/stats/tcp_recvs) -ge 7 ]"
	check stats_segs_acks sh -c "[ \$(cat $SYS/stats/tcp_rx_segs) -ge 700 ] && [ \$(cat $SYS/stats/tcp_rx_acks) -ge 700 ]"
	check no_rule_left sh -c "[ \$(cat $SYS/nic_rx_port) = 0 ]"
else
	check ping_peer wait_ping "$peer" 30
	n=0
	for c in $CASES; do
		n=$((n + 2))
		head -c $c /dev/urandom > /tmp/src
		socat -t 30 TCP-LISTEN:$PORT,reuseaddr \
			SYSTEM:'cat /tmp/src; l=$(cat); echo "got $l"' &
		pid=$!
		sleep 0.5
		check "barrier_${c}_a" barrier $((n - 1))
		wait $pid
		check "barrier_${c}_b" barrier $n
		serve /tmp/src
	done

	head -c 4096 /dev/urandom > /tmp/src
	socat TCP-LISTEN:$((PORT + 1)),reuseaddr SYSTEM:'cat /tmp/src' &
	pid=$!
	sleep 0.5
	check barrier_fin barrier 21
	wait $pid
	check barrier_fin_served barrier 22
	serve /tmp/src

	head -c $LOSS_LEN /dev/urandom > /tmp/src
	# Lost on the wire: netem loses after TCP sent (a tc drop at egress
	# is reported back to TCP, which sends the segment again at once, in
	# order: nothing would reach the engine out of order), and reorders;
	# one segment per packet (TSO/GSO off), not 64 KiB bursts.
	check loss_no_tso ethtool -K "$if" tso off gso off
	check loss_netem tc qdisc add dev $if root netem delay 2ms reorder 25% gap 5 loss 3%
	socat -t 30 TCP-LISTEN:$((PORT + 2)),reuseaddr \
		SYSTEM:'cat /tmp/src; l=$(cat); echo "got $l"' &
	pid=$!
	re0=$(tcpsnmp RetransSegs) fr0=$(tcpext TCPFastRetrans)
	lp0=$(tcpext TCPLossProbes) to0=$(tcpext TCPTimeouts)
	sleep 0.5
	check barrier_loss barrier 23
	wait $pid
	# this stack sent the lost segments again (by its loss probes and
	# timeouts: the connection has SACK, the engine sends no SACK
	# blocks, and with SACK Linux does not count plain duplicate ACKs)
	echo "# loss: $(($(tcpsnmp RetransSegs) - re0)) segments sent again; fast retransmits $(($(tcpext TCPFastRetrans) - fr0)), loss probes $(($(tcpext TCPLossProbes) - lp0)), timeouts $(($(tcpext TCPTimeouts) - to0))"
	check loss_peer_retransmits test $(($(tcpsnmp RetransSegs) - re0)) -gt 0
	tc -s qdisc show dev $if root
	check loss_dropped sh -c "tc -s qdisc show dev $if root | grep -q 'dropped [1-9]'"
	tc qdisc del dev $if root
	ethtool -K "$if" tso on gso on
	check barrier_loss_served barrier 24
	serve /tmp/src

	# reset: send 300000 bytes, then abort the connection (an RST)
	rm -f /tmp/sent
	socat TCP-LISTEN:$((PORT + 3)),reuseaddr,linger=0 \
		SYSTEM:'head -c 300000 /tmp/src; echo $$ > /tmp/sent; exec sleep 120' &
	pid=$!
	sleep 0.5
	check barrier_reset barrier 25
	check reset_sent reset_when_sent $pid
	wait $pid

	socat TCP-LISTEN:$((PORT + 4)),reuseaddr SYSTEM:'cat /tmp/src' &
	pid=$!
	sleep 0.5
	check barrier_nobody barrier 26
	wait $pid
fi
check dmesg_clean dmesg_clean
finish
