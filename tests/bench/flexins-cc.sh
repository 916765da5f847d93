#!/bin/bash
# make bench-flexins, part cc: congestion control (FlexiNS section 3.1,
# 5.7) - DCQCN vs the AIMD window with 2 and 4 flows sharing one
# 100 Gbit/s port, on the device harness in modeled time
# (tests/device/bench_snic_cc.c, docs/timing.md "The congestion control
# bench"; no guest, no wall clock).
#
# Topology: one QEMU in timing mode with three snics on one hub.  snic0
# receives; the flows (RC QP pairs, each kept busy with 16 RDMA WRITEs of
# 64 KiB) alternate between the sender ports snic1 and snic2, so two
# senders at line rate feed one port and the switch queue in front of it
# builds and marks ECN.  Flow k starts at k x 1 ms; each run lasts 100 ms
# of modeled time, the steady state is its second half.  One run per mode
# (cc=dcqcn, cc=aimd) and flow count.
#
# Prints the per-bucket series as "BENCH cc ..." lines (make report plots
# them), each flow's steady-state goodput, the Jain fairness index
# (sum x)^2 / (n sum x^2) over it, and the convergence time (from the last
# flow's start until every flow stays within 20% of an even split of the
# steady-state total).  FlexiNS (section 5.7) shows its DCQCN converging
# for flows sharing a port; it states no fairness index or convergence
# time, so no paper figure is printed beside ours.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tools/lib.sh
make -s -C tests build/device/bench_snic_cc || { echo "bench: flexins-cc: tests/build/device/bench_snic_cc did not build"; exit 1; }
D2D_QEMU=$(d2d_qemu)
[ -n "$D2D_QEMU" ] || { echo "bench: flexins-cc: no QEMU built (make qemu)"; exit 1; }
export D2D_QEMU
out=$(mktemp -d /tmp/d2d-bench-flexins-cc.XXXXXX)
echo "[bench] logs in $out"
MS=${CC_MS:-100}
runs=""
for n in 2 4; do
	for mode in dcqcn aimd; do runs="$runs $mode $n 1000 $MS"; done
done
# shellcheck disable=SC2086
tests/build/device/bench_snic_cc $runs > "$out/results" 2> "$out/err"
rc=$?
grep '^BENCH cc ' "$out/results"
if [ $rc -ne 0 ] || ! grep -q '^BENCH-DONE' "$out/results" ||
	[ "$(grep -c '^BENCH cc-summary ' "$out/results")" -ne 4 ]; then
	echo "bench: flexins-cc: run failed (status $rc, see $out)"
	grep -h 'BENCH-ERROR' "$out/results"
	exit 1
fi

# sum MODE FLOWS KEY: a field of that run's summary line
sum() { sed -n "s/^BENCH cc-summary mode=$1 flows=$2 .* $3=\([^ ]*\).*/\1/p" "$out/results"; }
flows() { sed -n "s/^BENCH cc-summary mode=$1 flows=$2 //p" "$out/results" | tr ' ' '\n' | sed -n 's/^f[0-9]*=//p' | paste -sd' '; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.3f", a / b; else print "n/a"}'; }
steady=$(sum dcqcn 2 steady_us)
for n in 2 4; do
	for mode in dcqcn aimd; do
		echo "bench: flexins-cc-flows-${n}-$mode-Gbps: $(flows $mode $n) (per flow, total $(sum $mode $n total); goodput over ${steady} us, modeled time)"
	done
done
for n in 4 2; do
	d=$(sum dcqcn $n jain) a=$(sum aimd $n jain)
	echo "bench: flexins-cc-jain-${n}flows: dcqcn $d vs aimd $a = $(ratio "$d" "$a") (Jain index over the steady state, device harness, modeled time; FlexiNS states none)"
done
for n in 4 2; do
	d=$(sum dcqcn $n converge_us) a=$(sum aimd $n converge_us)
	[ "$d" = never ] || d="$d us"
	[ "$a" = never ] || a="$a us"
	echo "bench: flexins-cc-converge-${n}flows: dcqcn $d vs aimd $a (from the last flow's start, flows 1 ms apart, until every flow stays within 20% of an even share; device harness, modeled time; FlexiNS states none)"
done
