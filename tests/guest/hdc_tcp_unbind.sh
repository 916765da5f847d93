# The engine's TCP transfers while the driver goes, between two guests
# (guest 2 is stock Linux TCP).  Each case catches a transfer in flight
# deterministically: guest 2 sends 1 MiB of a 2 MiB file and then waits
# for guest 1's word (a barrier), or takes a connection and never reads.
# - rmmod hdc during a 'd2d recv --tcp': refused (the module is in use
#   while /dev/hdc is open), the receive then completes, md5 equal;
# - the hdc device unbound from its driver during a 'd2d recv --tcp':
#   the receive fails with ENODEV (the removal ends it: the engine is not
#   left to the drain timeout and reset under it, as was EIO),
#   the file is left empty (nothing the engine did not receive), the
#   socket is reset (guest 2's next segments get an RST: its Tcp
#   EstabResets moves);
# - the same during a 'd2d send --tcp' to a peer that does not read:
#   ENODEV, as above;
# - bound again, a TCP receive and send work (md5 equal).
# No oops, no WARN.
# vm-args: --guests 2 --hdc @DISK@
# timeout: 900
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/hdc.inc

PORT=9400	# + 0 rmmod, 1 unbind recv, 2 unbind send, 3 recv again
HALF=1048576
LEN=2097152

# placed N: wait until the engine placed N more segments than $seg0
placed() {
	for i in $(seq 1 1200); do
		[ $(($(cat $SYS/stats/tcp_rx_segs) - seg0)) -ge "$1" ] && return 0
		sleep 0.1
	done
	echo "the engine placed $(($(cat $SYS/stats/tcp_rx_segs) - seg0)) segments"
	return 1
}

# serve_halves PORT: send the first half of /tmp/src, wait for /tmp/go,
# then the rest
serve_halves() {
	rm -f /tmp/go
	timeout 300 socat TCP-LISTEN:$1,reuseaddr \
		SYSTEM:"head -c $HALF /tmp/src; while [ ! -e /tmp/go ]; do sleep 0.1; done; tail -c +$((HALF + 1)) /tmp/src" &
}

# reset_after N: wait until this stack saw a connection reset (Tcp
# EstabResets above N: an RST answered the rest it sent)
reset_after() {
	for i in $(seq 1 600); do
		[ "$(tcpsnmp EstabResets)" -gt "$1" ] && return 0
		sleep 0.1
	done
	echo "no connection reset: EstabResets $(tcpsnmp EstabResets)"
	return 1
}

snic_eth_setup

if [ "$D2D_GUEST" = 1 ]; then
	check hdc_setup hdc_setup
	check ping_peer wait_ping "$peer" 30

	# rmmod during a receive: refused, the receive goes on
	check barrier_rmmod barrier 1
	seg0=$(cat $SYS/stats/tcp_rx_segs)
	d2d recv --tcp $peer:$PORT $OUT/rm --bytes $LEN > $OUT/rm.out 2>&1 &
	pid=$!
	check rmmod_in_flight placed 100
	check rmmod_refused sh -c "! rmmod hdc 2> $OUT/rmmod.err && grep -q 'in use' $OUT/rmmod.err"
	cat $OUT/rmmod.err
	check rmmod_still_loaded test -c /dev/hdc
	check barrier_rmmod_go barrier 2
	wait $pid
	rc=$?
	cat $OUT/rm.out
	check rmmod_recv_done test $rc = 0
	check barrier_rmmod_served barrier 3
	check rmmod_fetch fetch rm
	check rmmod_md5 same_md5 $OUT/rm $OUT/rm.back

	# unbind during a receive
	check barrier_unbind_rx barrier 4
	seg0=$(cat $SYS/stats/tcp_rx_segs)
	d2d recv --tcp $peer:$((PORT + 1)) $OUT/ub --bytes $LEN > $OUT/ub.out 2>&1 &
	pid=$!
	check unbind_rx_in_flight placed 100
	echo $HDC_BDF > /sys/bus/pci/drivers/hdc/unbind
	check unbind_rx_returns exits_within 5 $pid
	wait $pid
	rc=$?
	cat $OUT/ub.out
	# the removal ended the transfer; the engine was not reset under it
	check unbind_rx_no_drain sh -c "! dmesg | grep 'engine did not finish'"
	check unbind_rx_enodev sh -c "[ $rc = 1 ] && grep -q ENODEV $OUT/ub.out"
	check unbind_rx_file_empty test "$(stat -c %s $OUT/ub)" = 0
	check unbound_rx sh -c '[ ! -e /dev/hdc ]'
	check barrier_unbind_rx_go barrier 5
	check barrier_unbind_rx_served barrier 6
	check bind_after_rx sh -c "echo $HDC_BDF > /sys/bus/pci/drivers/hdc/bind && [ -c /dev/hdc ]"

	# unbind during a send to a peer that does not read
	check barrier_unbind_tx barrier 7
	p0=$(ethstat "$if" port_tx_packets)
	d2d send --tcp $T_DIR/big $peer:$((PORT + 2)) > $OUT/us.out 2>&1 &
	pid=$!
	for i in $(seq 1 1200); do
		[ $(($(ethstat "$if" port_tx_packets) - p0)) -gt 40 ] && break
		sleep 0.1
	done
	echo $HDC_BDF > /sys/bus/pci/drivers/hdc/unbind
	check unbind_tx_returns exits_within 5 $pid
	wait $pid
	rc=$?
	cat $OUT/us.out
	# the removal ended the transfer; the engine was not reset under it
	check unbind_tx_no_drain sh -c "! dmesg | grep 'engine did not finish'"
	check unbind_tx_enodev sh -c "[ $rc = 1 ] && grep -q ENODEV $OUT/us.out"
	check bind_after_tx sh -c "echo $HDC_BDF > /sys/bus/pci/drivers/hdc/bind && [ -c /dev/hdc ]"
	check barrier_unbind_tx_done barrier 8

	# bound again: a receive works
	check barrier_again barrier 9
	check again_recv sh -c "d2d recv --tcp $peer:$((PORT + 3)) $OUT/again --bytes $LEN 2> $OUT/again.err"
	cat $OUT/again.err
	check barrier_again_served barrier 10
	check again_fetch fetch again
	check again_md5 same_md5 $OUT/again $OUT/again.back
	check nothing_in_flight sh -c "[ \$(cat $SYS/stats/inflight) = 0 ]"
else
	check ping_peer wait_ping "$peer" 30
	head -c $LEN /dev/urandom > /tmp/src

	serve_halves $PORT
	pid=$!
	sleep 0.5
	check barrier_rmmod barrier 1
	r0=$(tcpsnmp EstabResets)
	check barrier_rmmod_go barrier 2
	touch /tmp/go
	wait $pid
	check rmmod_peer_sent test $? = 0
	check rmmod_no_reset test "$(tcpsnmp EstabResets)" = "$r0"
	check barrier_rmmod_served barrier 3
	serve /tmp/src

	serve_halves $((PORT + 1))
	pid=$!
	sleep 0.5
	check barrier_unbind_rx barrier 4
	r0=$(tcpsnmp EstabResets)
	check barrier_unbind_rx_go barrier 5
	touch /tmp/go
	# the connection was reset: guest 1's stack answers the rest with an RST
	check unbind_rx_peer_reset reset_after "$r0"
	kill $pid 2>/dev/null
	wait $pid
	check barrier_unbind_rx_served barrier 6

	timeout 300 socat -u TCP-LISTEN:$((PORT + 2)),reuseaddr,rcvbuf=65536 SYSTEM:'sleep 290' &
	stall=$!
	sleep 0.5
	check barrier_unbind_tx barrier 7
	check barrier_unbind_tx_done barrier 8
	kill $stall 2>/dev/null

	socat -u OPEN:/tmp/src TCP-LISTEN:$((PORT + 3)),reuseaddr &
	pid=$!
	sleep 0.5
	check barrier_again barrier 9
	wait $pid
	check barrier_again_served barrier 10
	serve /tmp/src
fi
check dmesg_clean dmesg_clean
finish
