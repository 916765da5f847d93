# The engine's TCP sender between two guests: guest 1 (HDC engine, its
# SSD, a snic port) runs 'd2d send --tcp --then MSG FILE 10.0.0.2:PORT':
# the driver hands the connected socket over to the engine, which sends
# FILE as the connection's TCP segments (ACKs steered to its own receive
# queue), then takes the state back; the socket then carries MSG out and
# the peer's answer in.  Guest 2 is stock Linux TCP (socat): it keeps
# what it received and answers 'got N'; it serves the bytes back over
# another connection, which guest 1 compares with FILE + MSG.  Sizes
# 1 B, 4097 B, 65549 B, 1 MiB + 1 and 8 MiB.  The host stack sends
# almost nothing while the snic port sends the segments; the engine gets
# one command per send (stats/cmds), the transfer.
# vm-args: --guests 2 --hdc @DISK@
# timeout: 600
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/hdc.inc

PORT=9100
MSG="after-the-engine"
CASES="one 4097 65549 1m1 8m"

# tcp_out: TCP segments the host stack sent so far.
tcp_out() {
	awk '$1 == "Tcp:" && $2 ~ /^[0-9]+$/ { print $12 }' /proc/net/snmp
}

snic_eth_setup

if [ "$D2D_GUEST" = 1 ]; then
	check hdc_setup hdc_setup
	check ping_peer wait_ping "$peer" 30
	check caps_tcp sh -c 'd2d stat | grep -q " tcp"'
	check make_8m sh -c "head -c 8388608 $T_DIR/big > $OUT/8m && sync"
	n=0
	for c in $CASES; do
		n=$((n + 2))
		f=$T_DIR/$c
		[ $c = 8m ] && f=$OUT/8m
		size=$(stat -c %s "$f")
		check "barrier_${c}_a" barrier $((n - 1))
		tx0=$(cat /sys/class/net/$if/statistics/tx_packets)
		port0=$(ethstat "$if" port_tx_packets)
		tcp0=$(tcp_out)
		cmds0=$(cat $SYS/stats/cmds)
		check "send_$c" sh -c "d2d send --tcp --then $MSG $f $peer:$PORT > $OUT/$c.reply"
		tx1=$(cat /sys/class/net/$if/statistics/tx_packets)
		port1=$(ethstat "$if" port_tx_packets)
		tcp1=$(tcp_out)
		# one command for the engine: the transfer (the request ends in
		# the driver, no NOP after it)
		cmds=$(($(cat $SYS/stats/cmds) - cmds0))
		check "one_engine_command_$c" test $cmds = 1
		echo "# $c: netdev tx +$((tx1 - tx0)), port tx +$((port1 - port0)), tcp out +$((tcp1 - tcp0)), engine commands +$cmds, reply '$(cat $OUT/$c.reply)'"
		check "socket_both_ways_$c" test "$(cat $OUT/$c.reply)" = "got $((size + ${#MSG}))"
		check "segments_by_engine_$c" test $((port1 - port0)) -ge $((size / 1448))
		# the host stack sends the set-up and the hand-back (about a
		# dozen segments), not the data: at most 1 in 100 of the
		# engine's segments on top (an 8 MiB send under load took 20)
		check "host_stack_quiet_$c" test $((tcp1 - tcp0)) -lt $((20 + size / 1448 / 100))
		check "barrier_${c}_b" barrier $n
		check "received_$c" sh -c "for i in \$(seq 1 60); do nc $peer 7300 > $OUT/$c.back 2>/dev/null && [ -s $OUT/$c.back ] && break; sleep 0.5; done; { cat $f; printf %s $MSG; } | cmp - $OUT/$c.back"
	done
	check nobody_needs_cap_net_raw expect_errno EPERM as_nobody d2d raw --dst-tcp $T_DIR/4k
	check tcp_not_connected expect_errno ENOTCONN d2d raw --dst-tcp $T_DIR/4k
	check tcp_no_functions expect_errno EINVAL d2d raw --func 2 --dst-tcp $T_DIR/4k
	check nothing_in_flight sh -c "[ \$(cat $SYS/stats/inflight) = 0 ]"
else
	check ping_peer wait_ping "$peer" 30
	n=0
	for c in $CASES; do
		n=$((n + 2))
		rm -f /tmp/recv
		# -t 30: the answer comes after our EOF; socat's default
		# 0.5 s after it could close first on a slow (debug) kernel
		socat -t 30 TCP-LISTEN:$PORT,reuseaddr \
			SYSTEM:'cat > /tmp/recv; echo got $(stat -c %s /tmp/recv)' &
		pid=$!
		sleep 0.5
		check "barrier_${c}_a" barrier $((n - 1))
		check "barrier_${c}_b" barrier $n
		wait $pid
		serve /tmp/recv
	done
fi
check dmesg_clean dmesg_clean
finish
