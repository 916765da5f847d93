# Guest half of TIMING=1 tests/bench/hdc-net.sh: one guest in timing mode
# (tools/vm --timing --hdc: one clock for both endpoints, the SSD behind
# the d2d-delay filter; docs/timing.md).  snic's first port (10.0.0.1)
# sends: the HDC engine's NIC side ('d2d raw --dst-udp', SSD -> NIC, and
# with --func 2 SSD -> MD5 -> NIC) and the software-controlled P2P
# baseline ('d2d raw --sw-p2p': the driver runs each 64 KiB chunk); the
# second port, in network namespace p (10.0.0.2), sinks UDP port 9000.
# Each run: REPS requests of SIZE bytes of the 100 MiB file, one after the
# other, timed on the guest's clock (the virtual clock under icount), the
# d2d tool's start included.  Lines: "BENCH name=... size=... reps=...
# ns=...".
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/hdc.inc

PORT=9000
snic_pair_netns > /tmp/up.log 2>&1 ||
	{ echo "BENCH-ERROR snic: $(tail -1 /tmp/up.log)"; exit 1; }
sysctl -qw net.core.rmem_max=33554432
ip netns exec p socat -u UDP-RECV:$PORT,rcvbuf=33554432 OPEN:/dev/null &
hdc_setup > /tmp/setup.log 2>&1 || { echo "BENCH-ERROR setup: $(cat /tmp/setup.log)"; exit 1; }
F=$T_DIR/big
# ns of the guest's monotonic clock (busybox date has no %N)
now() {
	sed -n 's/^now at \([0-9]*\) nsecs.*/\1/p' /proc/timer_list | head -1
}
[ -n "$(now)" ] || { echo "BENCH-ERROR no clock in /proc/timer_list"; exit 1; }

# run NAME SIZE REPS CMD: CMD REPS times, the modeled ns they took.
run() {
	local name=$1 size=$2 reps=$3 t0 t1 rc=0 k
	shift 3
	t0=$(now)
	for k in $(seq 1 "$reps"); do
		sh -c "$1" > /dev/null 2>/tmp/bench.err || rc=$?
	done
	t1=$(now)
	[ $rc = 0 ] || echo "BENCH-ERROR $name/$size: status $rc: $(tail -1 /tmp/bench.err)"
	echo "BENCH name=$name size=$size reps=$reps ns=$((t1 - t0)) rc=$rc"
}

# the d2d tool's own start and one query of the engine, to subtract
run start 0 4 "d2d stat"
for size in 65536 1048576 4194304; do
	reps=4
	run d2d "$size" $reps "d2d raw --length $size --dst-udp 10.0.0.2:$PORT $F"
	run sw-p2p "$size" $reps "d2d raw --sw-p2p --length $size --dst-udp 10.0.0.2:$PORT $F"
	run d2d-md5 "$size" $reps "d2d raw --func 2 --length $size --dst-udp 10.0.0.2:$PORT $F"
done
echo "BENCH-DONE"
