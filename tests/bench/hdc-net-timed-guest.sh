# Guest half of TIMING=1 tests/bench/hdc-net.sh: one guest in timing mode
# (tools/vm --timing --hdc: one clock for both endpoints, the SSD behind
# the d2d-delay filter; docs/timing.md).  snic's first port (10.0.0.1)
# sends: the HDC engine's NIC side ('d2d raw --dst-udp', SSD -> NIC, and
# with --func 2 SSD -> MD5 -> NIC) and the software-controlled P2P
# baseline ('d2d raw --sw-p2p': the driver runs each 64 KiB chunk); the
# second port, in network namespace p (10.0.0.2), sinks UDP port 9000.
# Each run: REPS requests of SIZE bytes of the 100 MiB file, one after the
# other, each timed by 'd2d raw --time' on the guest's clock (the virtual
# clock under icount) from the request's ioctl to its return: the
# request's own time, without the tool's start.  Lines: "BENCH name=...
# size=... reps=... ns=..." (the sum over the REPS requests).
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
# run NAME SIZE REPS CMD: CMD ('d2d raw --time ...') REPS times, the
# modeled ns its requests took (the ns= of each 'ok' line, summed).
run() {
	local name=$1 size=$2 reps=$3 ns=0 t rc=0 k
	shift 3
	for k in $(seq 1 "$reps"); do
		sh -c "$1" > /tmp/bench.out 2>/tmp/bench.err || rc=$?
		t=$(sed -n 's/^ok .* ns=\([0-9]*\).*/\1/p' /tmp/bench.out)
		if [ -z "$t" ]; then
			[ $rc = 0 ] && rc=1
			t=0
		fi
		ns=$((ns + t))
	done
	[ $rc = 0 ] || echo "BENCH-ERROR $name/$size: status $rc: $(tail -1 /tmp/bench.err) $(tail -1 /tmp/bench.out)"
	echo "BENCH name=$name size=$size reps=$reps ns=$ns rc=$rc"
}

for size in 65536 1048576 4194304; do
	reps=4
	run d2d "$size" $reps "d2d raw --time --length $size --dst-udp 10.0.0.2:$PORT $F"
	run sw-p2p "$size" $reps "d2d raw --time --sw-p2p --length $size --dst-udp 10.0.0.2:$PORT $F"
	run d2d-md5 "$size" $reps "d2d raw --time --func 2 --length $size --dst-udp 10.0.0.2:$PORT $F"
done
echo "BENCH-DONE"
