# Guest half of tests/bench/hdc-net.sh, in both guests of 'tools/vm
# --guests 2 --hdc'.  Guest 2 sinks UDP port 9000 (socat to /dev/null);
# guest 1 sends the first SIZE bytes of the 100 MiB file REPS times per
# method, each run between insn-mark points, from a warm page cache
# (the SSD read is the engine's for d2d and the page cache's for the CPU
# baselines, as a file server's would be): 'd2d send' (d2d raw --length,
# one request per repetition), the software-controlled P2P baseline
# (d2d raw --sw-p2p: the driver runs each 64 KiB chunk, SSD to the
# engine's device buffer, then to the NIC), 'd2d send --md5', udpsend (read + send per
# datagram), 'udpsend --sendfile', and md5sum + udpsend.  Prints one
# "BENCH name=... size=... reps=... mark=... secs=..." line per run.
# Then 'd2d send --tcp' and 'udpsend --tcp --sendfile' to guest 2 (a TCP
# sink) at 64 KiB .. 4 MiB: the sender's instructions alone.
# Then NIC -> CRC32C -> SSD: guest 2 sends SIZE random bytes with
# 'udpsend --d2d' to guest 1, which receives them with 'd2d recv
# --crc32c' (the engine) or 'udprecv --crc32c' (recv + pwrite + CRC32C
# on the CPU + fsync), each counted from the moment the receiver is ready
# (the engine's steering rule in, the CPU's socket bound) to its exit:
# "BENCH name=recv-d2d|recv-cpu size=... reps=1 mark=... crc=ok|bad".
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/hdc.inc

PORT=9000
TPORT=9001
snic_eth_up > /tmp/setup.log 2>&1 || { echo "BENCH-ERROR snic: $(cat /tmp/setup.log)"; exit 1; }
RPORT=9200
RSIZES="4096 65536 1048576 4194304"
if [ "$D2D_GUEST" = 2 ]; then
	sysctl -qw net.core.rmem_max=33554432
	socat -u UDP-RECV:$PORT,rcvbuf=33554432 OPEN:/dev/null &
	socat -u TCP-LISTEN:$TPORT,reuseaddr,fork OPEN:/dev/null &
	barrier 1
	barrier 2
	n=3
	for size in $RSIZES; do
		head -c "$size" /dev/urandom > /tmp/src
		for m in d2d cpu; do
			barrier $n
			udpsend --d2d /tmp/src 10.0.0.1 $RPORT
			barrier $((n + 1))
			n=$((n + 2))
		done
	done
	exit 0
fi
hdc_setup > /tmp/setup.log 2>&1 || { echo "BENCH-ERROR setup: $(cat /tmp/setup.log)"; exit 1; }
wait_ping "$peer" 30 > /dev/null || { echo "BENCH-ERROR no ping"; exit 1; }
barrier 1 || { echo "BENCH-ERROR barrier"; exit 1; }
now() { cut -d' ' -f1 /proc/uptime; }
F=$T_DIR/big
cat $F > /dev/null	# warm page cache for the CPU baselines

# run NAME SIZE REPS MARK CMD: CMD REPS times between MARK and MARK+1.
run() {
	local name=$1 size=$2 reps=$3 mark=$4 t0 t1 rc=0 k
	shift 4
	t0=$(now)
	insn-mark "$mark"
	for k in $(seq 1 "$reps"); do
		sh -c "$1" > /dev/null 2>/tmp/bench.err || rc=$?
	done
	insn-mark $((mark + 1))
	t1=$(now)
	[ $rc = 0 ] || echo "BENCH-ERROR $name/$size: status $rc: $(tail -1 /tmp/bench.err)"
	echo "BENCH name=$name size=$size reps=$reps mark=$mark secs=$(echo "$t1 $t0" | awk '{printf "%.3f", $1 - $2}') rc=$rc"
}

mark=100
for size in 4096 65536 1048576 4194304; do
	reps=$((size >= 1048576 ? 2 : 8))
	run d2d "$size" $reps $mark "d2d raw --length $size --dst-udp $peer:$PORT $F"
	run sw-p2p "$size" $reps $((mark + 10)) "d2d raw --sw-p2p --length $size --dst-udp $peer:$PORT $F"
	run d2d-md5 "$size" $reps $((mark + 2)) "d2d raw --func 2 --length $size --dst-udp $peer:$PORT $F"
	run read-send "$size" $reps $((mark + 4)) "udpsend --length $size $F $peer $PORT"
	run sendfile "$size" $reps $((mark + 6)) "udpsend --sendfile --length $size $F $peer $PORT"
	run md5-read-send "$size" $reps $((mark + 8)) "head -c $size $F | md5sum && udpsend --length $size $F $peer $PORT"
	mark=$((mark + 20))
done
# TCP, counted here (the peer's receiving is guest 2's, not counted; the
# timed TCP part of hdc-net.sh has the peer in the same guest)
mark=20
for size in 65536 1048576 4194304; do
	reps=$((size >= 4194304 ? 2 : 4))
	run d2d-tcp "$size" $reps $mark "d2d send --tcp --length $size $F $peer:$TPORT"
	run sendfile-tcp "$size" $reps $((mark + 2)) "udpsend --tcp --sendfile --length $size $F $peer $TPORT"
	mark=$((mark + 10))
done
barrier 2

# recv_run NAME SIZE MARK: one receive of SIZE bytes between MARK and
# MARK+1, from the receiver being ready to its end; guest 2 sends between
# barriers N and N+1.
sysctl -qw net.core.rmem_max=33554432
recv_run() {
	local name=$1 size=$2 mark=$3 i rc crc want
	rm -f /tmp/ready $OUT/bench.rx
	if [ "$name" = recv-d2d ]; then
		d2d recv 10.0.0.1:$RPORT $OUT/bench.rx --bytes "$size" --crc32c --timeout 120 > /tmp/recv.out 2> /tmp/recv.err &
	else
		udprecv --crc32c --ready /tmp/ready 10.0.0.1 $RPORT $OUT/bench.rx "$size" > /tmp/recv.out 2> /tmp/recv.err &
	fi
	pid=$!
	for i in $(seq 1 200); do
		if [ "$name" = recv-d2d ]; then
			[ "$(cat $SYS/nic_rx_port)" = $RPORT ] && break
		else
			[ -e /tmp/ready ] && break
		fi
		sleep 0.05
	done
	insn-mark "$mark"
	barrier $n
	wait $pid
	rc=$?
	insn-mark $((mark + 1))
	barrier $((n + 1))
	n=$((n + 2))
	crc=$(cut -d' ' -f1 /tmp/recv.out)
	want=$(crc32c $OUT/bench.rx | cut -d' ' -f1)
	[ $rc = 0 ] || echo "BENCH-ERROR $name/$size: status $rc: $(tail -1 /tmp/recv.err)"
	echo "BENCH name=$name size=$size reps=1 mark=$mark rc=$rc crc=$([ -n "$crc" ] && [ "$crc" = "$want" ] && echo ok || echo bad)"
}
n=3
mark=200	# insn-mark IDs are 0..255
for size in $RSIZES; do
	recv_run recv-d2d "$size" $mark
	recv_run recv-cpu "$size" $((mark + 2))
	mark=$((mark + 10))
done
echo "BENCH-DONE"
