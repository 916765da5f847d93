# The engine's TCP sender under faults, between two guests (guest 2 is
# stock Linux TCP): 1% of the data segments dropped at guest 2 (tc
# ingress gact, every 100th) - the engine sends segments again
# (stats/tcp_rexmit), after 3 duplicate ACKs (stats/tcp_dupacks) fast,
# and the bytes still arrive whole and in order;
# the peer resets the connection mid-transfer - ECONNRESET; the peer stops
# reading (its window closes) - ETIMEDOUT after the zero-window probes;
# the file truncated during the transfer - what arrives is a prefix of
# the file as it was; the snic unbound during a transfer - ENETDOWN.
# No oops, no WARN.
# vm-args: --guests 2 --hdc @DISK@
# timeout: 900
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/hdc.inc

PORT=9200	# + 0 loss, 1 reset, 2 stall, 3 truncate, 4 unbind
MSG="after-loss"
LOSS_LEN=4194304
TRUNC_LEN=16777216

snic_eth_setup

if [ "$D2D_GUEST" = 1 ]; then
	check hdc_setup hdc_setup
	check ping_peer wait_ping "$peer" 30
	check make_files sh -c "head -c $LOSS_LEN $T_DIR/big > $OUT/loss && head -c $TRUNC_LEN $T_DIR/big > $OUT/trunc && sync"

	# 1% loss
	check barrier_loss barrier 1
	rexmit0=$(cat $SYS/stats/tcp_rexmit)
	dup0=$(cat $SYS/stats/tcp_dupacks)
	check loss_send sh -c "d2d send --tcp --then $MSG $OUT/loss $peer:$PORT > $OUT/loss.reply"
	rexmit=$(($(cat $SYS/stats/tcp_rexmit) - rexmit0))
	dup=$(($(cat $SYS/stats/tcp_dupacks) - dup0))
	echo "# loss: $rexmit segments sent again, $dup duplicate ACKs, $(cat $SYS/stats/tcp_rto) timeouts in all"
	check loss_rexmit test $rexmit -gt 0
	# three duplicate ACKs start a fast retransmit
	check loss_fast_retransmit test $dup -ge 3
	check loss_reply test "$(cat $OUT/loss.reply)" = "got $((LOSS_LEN + ${#MSG}))"
	check barrier_loss_served barrier 2
	check loss_bytes sh -c "for i in \$(seq 1 60); do nc $peer 7300 > $OUT/loss.back 2>/dev/null && [ -s $OUT/loss.back ] && break; sleep 0.5; done; { cat $OUT/loss; printf %s $MSG; } | cmp - $OUT/loss.back"

	# the peer resets
	check barrier_reset barrier 3
	check peer_reset expect_errno ECONNRESET d2d send --tcp $T_DIR/big $peer:$((PORT + 1))

	# the peer stops reading
	check barrier_stall barrier 4
	check peer_stops_reading expect_errno ETIMEDOUT d2d send --tcp $T_DIR/big $peer:$((PORT + 2))

	# truncated during the transfer
	check barrier_trunc barrier 5
	p0=$(ethstat "$if" port_tx_packets)
	d2d send --tcp $OUT/trunc $peer:$((PORT + 3)) > $OUT/trunc.out 2>&1 &
	pid=$!
	for i in $(seq 1 1200); do
		[ $(($(ethstat "$if" port_tx_packets) - p0)) -gt 200 ] && break
		sleep 0.1
	done
	truncate -s 4096 $OUT/trunc
	wait $pid
	echo "# truncate: d2d send exit $?: $(cat $OUT/trunc.out)"
	check barrier_trunc_served barrier 6
	check trunc_prefix sh -c "for i in \$(seq 1 60); do nc $peer 7300 > $OUT/trunc.back 2>/dev/null && break; sleep 0.5; done; n=\$(stat -c %s $OUT/trunc.back); echo \"# received \$n\"; head -c $TRUNC_LEN $T_DIR/big | head -c \$n | cmp - $OUT/trunc.back"

	# the snic goes during a transfer (last: the network goes with it)
	check barrier_unbind barrier 7
	bdf=$(basename "$(readlink -f /sys/class/net/$if/device)")
	p0=$(ethstat "$if" port_tx_packets)
	d2d send --tcp $T_DIR/big $peer:$((PORT + 4)) > $OUT/unbind.out 2>&1 &
	pid=$!
	# unbind once the engine's segments flow (the port counts them)
	for i in $(seq 1 1200); do
		[ $(($(ethstat "$if" port_tx_packets) - p0)) -gt 200 ] && break
		sleep 0.1
	done
	echo "$bdf" > /sys/bus/pci/drivers/snic/unbind
	wait $pid
	rc=$?
	echo "# unbind: d2d send exit $rc: $(cat $OUT/unbind.out)"
	check unbind_enetdown sh -c "[ $rc = 1 ] && grep -q 'ENETDOWN\|ECONNRESET' $OUT/unbind.out"
	check queues_removed sh -c "dmesg | grep -q 'NIC queues on .* removed with the snic'"
	check nothing_in_flight sh -c "[ \$(cat $SYS/stats/inflight) = 0 ]"
	echo "$bdf" > /sys/bus/pci/drivers/snic/bind
else
	check ping_peer wait_ping "$peer" 30
	check loss_filter sh -c "tc qdisc add dev $if ingress && tc filter add dev $if ingress protocol ip flower skip_hw ip_proto tcp dst_port $PORT action gact ok random determ drop 100"
	socat -t 30 TCP-LISTEN:$PORT,reuseaddr \
		SYSTEM:'cat > /tmp/recv; echo got $(stat -c %s /tmp/recv)' &
	pid=$!
	sleep 0.5
	check barrier_loss barrier 1
	wait $pid
	tc -s filter show dev $if ingress
	check loss_dropped sh -c "tc -s filter show dev $if ingress | grep -q 'dropped [1-9]'"
	tc qdisc del dev $if ingress
	check barrier_loss_served barrier 2
	serve /tmp/recv

	# reset: read 100000 bytes, close with data unread (an RST)
	socat TCP-LISTEN:$((PORT + 1)),reuseaddr SYSTEM:'head -c 100000 > /dev/null' &
	sleep 0.5
	check barrier_reset barrier 3

	# stall: take the connection, never read it (until the end)
	timeout 300 socat -u TCP-LISTEN:$((PORT + 2)),reuseaddr,rcvbuf=65536 SYSTEM:'sleep 290' &
	stall=$!
	sleep 0.5
	check barrier_stall barrier 4

	# truncate: keep what arrives
	rm -f /tmp/recv
	timeout 120 socat -u TCP-LISTEN:$((PORT + 3)),reuseaddr OPEN:/tmp/recv,creat,trunc &
	pid=$!
	sleep 0.5
	check barrier_trunc barrier 5
	wait $pid
	check barrier_trunc_served barrier 6
	serve /tmp/recv

	# unbind: sink, and stay up until guest 1's transfer took it (its
	# network goes with the snic, so no barrier after this one)
	timeout 120 socat -u TCP-LISTEN:$((PORT + 4)),reuseaddr OPEN:/dev/null &
	sink=$!
	sleep 0.5
	check barrier_unbind barrier 7
	wait $sink
	kill $stall 2>/dev/null
fi
check dmesg_clean dmesg_clean
finish
