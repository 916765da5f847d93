#!/bin/bash
# make bench-eth: snic vs e1000e and virtio-net, side by side in one run of
# two guests (each NIC type on a wire of its own): iperf3 TCP throughput,
# ping latency, and guest instructions per MiB sent (insn-meter plugin).
# Prints "bench: <name>: <ours> vs <baseline> = <ratio>".  A benchmark, not
# a timed test: numbers under TCG on a shared host are only comparable
# within one run.
#
# TIMING=1: timing mode (docs/timing.md) - one guest on instruction-counted
# time with both ends of each pair (snic's two ports, two e1000e ports on a
# wire of their own, two virtio-net ports on another; one port of each pair
# in a network namespace): TCP throughput and ping round trip in modeled
# time, guest instructions per MiB sent and per ping (both ends: one
# guest).  Only snic has a device cost model: e1000e's and virtio-net's
# device work (DMA, wire, interrupts) takes no modeled time, which favours
# the baselines; every timed line says so.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d /tmp/d2d-bench-eth.XXXXXX)
echo "[bench] logs in $out"
field() { sed -n "s/.*nic=$1 .*$2=\([0-9.]*\).*/\1/p" "$out/results" | tail -1; }
marks() {	# marks A B: guest-1 instructions between insn-mark A and B
	local a b
	a=$(awk -v m="$1" '$1=="mark" && $2==m {print $3}' "$out/insn.1" | tail -1)
	b=$(awk -v m="$2" '$1=="mark" && $2==m {print $3}' "$out/insn.1" | tail -1)
	awk -v a="${a:-0}" -v b="${b:-0}" 'BEGIN {print (b > a) ? b - a : 0}'
}
# per NUM DEN: NUM / DEN, rounded; 0 without a denominator
per() { awk -v n="$1" -v d="$2" 'BEGIN {if (d > 0 && n > 0) printf "%.0f", n / d; else print 0}'; }
insns_per_mib() {	# insns_per_mib NIC FIRST-MARK: between FIRST and FIRST+1
	local m
	m=$(field "$1" mark)
	per "$(marks "$((m + $2))" "$((m + $2 + 1))")" \
		"$(awk -v n="$(field "$1" bytes)" 'BEGIN {print n / 1048576}')"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "n/a"}'; }
# run VM-OPTIONS... SCRIPT: boot, keep guest 1's BENCH lines in
# $out/results; a failed run or one without the three NICs' lines ends
# the bench.
run() {
	local rc
	tools/vm --quiet --log-dir "$out" --insn-count "$out/insn" \
		--nic e1000e --nic virtio-net-pci "$@"
	rc=$?
	grep -h '^BENCH' "$out/guest1.log" | tr -d '\r' > "$out/results"
	if [ $rc -ne 0 ] || [ "$(grep -c 'nic=' "$out/results")" -lt 3 ]; then
		echo "bench: eth: run failed (status $rc, see $out)"
		cat "$out/results"
		exit 1
	fi
}

timed() {
	local free base s b si sp m
	echo "[bench] timing mode (icount shift=0: one instruction per ns)"
	run --timing --timeout 1800 tests/bench/eth-timed-guest.sh
	si=$(insns_per_mib snic 2)
	sp=$(per "$(marks "$(field snic mark)" "$(($(field snic mark) + 1))")" "$(field snic pings)")
	for base in e1000e virtio_net; do
		free="modeled time; $base's device work is free in modeled time (no cost model), which favours it"
		s=$(field snic tcp_mbps) b=$(field $base tcp_mbps)
		echo "bench: eth-timed-tcp-mbps: snic $s vs $base $b = $(ratio "$s" "$b") ($free)"
		s=$(field snic ping_us) b=$(field $base ping_us)
		echo "bench: eth-timed-ping-us: snic $s vs $base $b = $(ratio "$s" "$b") ($free; round trip, lower is better)"
		s=$(field snic ping_min_us) b=$(field $base ping_min_us)
		echo "bench: eth-timed-ping-min-us: snic $s vs $base $b = $(ratio "$s" "$b") ($free; round trip, lower is better)"
		b=$(insns_per_mib $base 2)
		echo "bench: eth-timed-guest-insns-per-MiB-sent: snic $si vs $base $b = $(ratio "$si" "$b") (both ends, one guest; lower is better)"
		m=$(field $base mark)
		b=$(per "$(marks "$m" "$((m + 1))")" "$(field $base pings)")
		echo "bench: eth-timed-guest-insns-per-ping: snic $sp vs $base $b = $(ratio "$sp" "$b") (both ends, one guest; lower is better)"
	done
	exit
}
[ "${TIMING:-0}" = 1 ] && timed

run --guests 2 --timeout 400 tests/bench/eth-guest.sh
for base in e1000e virtio_net; do
	s=$(field snic tcp_mbps) b=$(field $base tcp_mbps)
	echo "bench: eth-tcp-mbps: snic $s vs $base $b = $(ratio "$s" "$b")"
done
for base in e1000e virtio_net; do
	s=$(field snic ping_ms) b=$(field $base ping_ms)
	echo "bench: eth-ping-ms: snic $s vs $base $b = $(ratio "$s" "$b") (lower is better)"
done
si=$(insns_per_mib snic 0)
for base in e1000e virtio_net; do
	b=$(insns_per_mib $base 0)
	echo "bench: eth-guest-insns-per-MiB-sent: snic $si vs $base $b = $(ratio "$si" "$b") (lower is better)"
done
