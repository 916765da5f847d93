#!/bin/bash
# make report: run every benchmark once, one after another, keep their
# output in $D2D_CACHE/report/<date-time>/, then write docs/results.md and
# its plots (docs/results/*.png) from the "bench:" lines of that run
# (tools/report.py).  A name ending in -timed runs that bench in timing
# mode (TIMING=1, docs/timing.md); flexins runs in timing mode where it
# reports time, whatever TIMING says.  D2D_BENCHES="rdma spin" runs a subset;
# D2D_REPORT_LOGS=DIR re-renders the page from an earlier run's logs.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$D2D_ROOT"
py=/usr/bin/python3	# Debian's, which has python3-matplotlib (tools/deps.sh)

if [ -n "${D2D_REPORT_LOGS:-}" ]; then
	exec "$py" tools/report.py render "$D2D_REPORT_LOGS"/bench-*.log
fi
dir="$D2D_CACHE/report/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$dir"
benches=${D2D_BENCHES:-rdma rdma-timed eth eth-timed spin spin-timed fld fld-timed hdc hdc-timed hdc-net hdc-net-timed flexins}
set -- $benches
n=$# k=0 start=$(date +%s) failed=0
for b in $benches; do
	k=$((k + 1))
	log "report: bench $k/$n $b ($(( $(date +%s) - start ))s; log: $dir/bench-$b.log)"
	timing=0
	case $b in *-timed) timing=1 ;; esac
	if ! TIMING=$timing tests/bench/${b%-timed}.sh > "$dir/bench-$b.log" 2>&1; then
		failed=$((failed + 1))
		log "report: bench-$b failed (its lines are kept; see $dir/bench-$b.log)"
	fi
	grep '^bench:' "$dir/bench-$b.log" >&2
done
"$py" tools/report.py render "$dir"/bench-*.log || exit 1
log "report: $n benches in $(( $(date +%s) - start ))s, $failed failed; logs in $dir"
[ "$failed" -eq 0 ]
