#!/bin/bash
# FlexiNS bench part "pipe" (make bench-flexins): DMA-only notification
# pipes vs doorbell QPs on snic, in timing mode (docs/timing.md): one guest
# with snic's two ports, stock perftest in three QP modes (SNIC_QP_MODE):
# doorbell, pipe (pipe QPs sending through shared send queues: "ssq"
# lines) and pipe-qp (a send pipe per QP: "pipe-qp" lines).
# For 1, 16, 256 and 1000 QPs: 64-byte ib_write_bw throughput (modeled
# time) and, from the client port's counters, MMIO writes and PCIe TLPs
# per WQE (the whole perftest run: setup, stream and teardown, so the
# pipe figures include the device's empty polls of idle pipes); ib_read_lat
# at 64 bytes on one QP (the paper's figure is for sends; with one vCPU a
# send ping-pong measures its scheduling, so READ: only the client polls).  A snic has at most
# SNIC_MAX_QPS (1024) QPs, so 1000 QPs per port (2000 in the system) is the
# largest point.  Then a 32-byte SEND ping-pong (snic-llq-test) with the
# receivers polling low-latency rings vs posting receives and polling
# CQs.  Prints "bench: flexins-{ssq,pipe-qp}-<name>: MODE X vs
# doorbell Y = R (paper: ...)".  A benchmark, not a test.
set -uo pipefail
cd "$(dirname "$0")/../.."
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "n/a"}'; }
per() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "n/a"}'; }
# get MODE QPS FIELD: a field of the BENCH line of MODE (and QPS, or "-")
get() {
	local sel="mode=$1 "
	[ "$2" != - ] && sel="mode=$1 qps=$2 "
	grep "^BENCH $sel" "$out/results" | tail -1 |
		sed -n "s/.* $3=\([0-9.]*\).*/\1/p"
}

# PIPE_QPS="1 16", PIPE_WQES=N, LAT_ITERS=N, PIPE_MODES="doorbell pipe":
# a shorter run
envs=()
for v in PIPE_QPS PIPE_WQES LAT_ITERS PIPE_MODES LLQ_ITERS; do
	[ -n "${!v:-}" ] && envs+=(--env "$v=${!v}")
done
out=$(mktemp -d /tmp/d2d-bench-flexins-pipe.XXXXXX)
echo "[bench] flexins-pipe: timing mode, logs in $out"
tools/vm --quiet --timing --mem 2048 --timeout 3000 --log-dir "$out" \
	"${envs[@]}" tests/bench/flexins-pipe-guest.sh
rc=$?
grep -h '^BENCH' "$out/guest1.log" | tr -d '\r' > "$out/results"
if [ $rc -ne 0 ] || ! grep -q '^BENCH mode=cq lat_ns' "$out/results"; then
	echo "bench: flexins-pipe: run failed (status $rc, see $out)"
	cat "$out/results"
	exit 1
fi
# ours: pipe QPs over shared send queues (SNIC_QP_MODE=pipe) and per-QP
# send pipes (pipe-qp), each against doorbell QPs
line() { # line MODE LABEL Q
	local m=$1 l=$2 q=$3 w dw pm dm pt dt pb db
	pb=$(get "$m" "$q" bw_mbs) db=$(get doorbell "$q" bw_mbs)
	echo "bench: flexins-$l-write-bw-64B-${q}qp-MBps: $m $pb vs doorbell $db = $(ratio "$pb" "$db") (modeled time;$4 paper: 2.4x)"
	w=$(get "$m" "$q" wqes) dw=$(get doorbell "$q" wqes)
	pm=$(per "$(get "$m" "$q" mmio)" "$w") dm=$(per "$(get doorbell "$q" mmio)" "$dw")
	echo "bench: flexins-$l-mmio-writes-per-wqe-${q}qp: $m $pm vs doorbell $dm (client port, all MMIO; QP doorbells: $m $(get "$m" "$q" doorbells) vs doorbell $(get doorbell "$q" doorbells))"
	pt=$(per "$(get "$m" "$q" tlps)" "$w") dt=$(per "$(get doorbell "$q" tlps)" "$dw")
	echo "bench: flexins-$l-pcie-tlps-per-wqe-${q}qp: $m $pt vs doorbell $dt = $(ratio "$pt" "$dt") (client port, lower is better; send pipe/SSQ reads: $(per "$(get "$m" "$q" pipe_polls)" "$w") per WQE; SQEs from SSQs: $(get "$m" "$q" ssq_sqes), from QP pipes: $(get "$m" "$q" pipe_sqes))"
}
for q in $(sed -n 's/^BENCH mode=doorbell qps=\([0-9]*\).*/\1/p' "$out/results"); do
	note=""
	[ "$q" -ge 1000 ] && note=" $q QPs per port, $((2 * q)) in the system;"
	grep -q "^BENCH mode=pipe qps=$q " "$out/results" && line pipe ssq "$q" "$note"
	grep -q "^BENCH mode=pipe-qp qps=$q " "$out/results" && line pipe-qp pipe-qp "$q" "$note"
done
dl=$(get doorbell - lat_us)
for m in pipe pipe-qp; do
	l=ssq
	[ "$m" = pipe-qp ] && l=pipe-qp
	pl=$(get "$m" - lat_us)
	[ -n "$pl" ] && echo "bench: flexins-$l-read-lat-64B-us: $m $pl vs doorbell $dl = $(ratio "$pl" "$dl") (modeled time, lower is better; paper, send latency: 2.6x lower)"
done
ll=$(get llq - lat_ns) cl=$(get cq - lat_ns)
[ -n "$ll" ] && echo "bench: flexins-llq-send-pingpong-32B-ns: llq $ll vs send/recv+CQ $cl = $(ratio "$ll" "$cl") (modeled time, round trip, lower is better; both ends share one guest and yield on empty polls; paper: 2.6x lower latency)"
exit 0
