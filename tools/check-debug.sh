#!/bin/bash
# tools/check-debug.sh - make check-debug: the guest tier on the debug kernel
# (tools/debug-kernel.sh: KASAN, lockdep, kmemleak, UBSAN, DEBUG_LIST,
# panic_on_warn).  Build first: make qemu image-debug.
#
# First tests/debug/kernel_features.sh checks the kernel: KASAN, UBSAN,
# lockdep, kmemleak, failslab and fail_page_alloc are there, our modules
# load, and a report it writes to the kernel log is caught.  Then every
# guest script runs as in the guest tier, one at a time by default
# (D2D_JOBS; each debug guest has 2 GB) with its timeout multiplied by
# D2D_TIMEOUT_SCALE (tools/vm, default 4).  tools/vm's own test
# (vm_runner.hosttest) is left out: it times tools/vm's --timeout, which
# the scale stretches; it runs in the guest tier.  After the tier, any
# kernel report in a guest console (KASAN, UBSAN, lockdep, list corruption,
# WARNING, BUG, a kmemleak leak; see d2d_kernel_reports in tools/lib.sh)
# fails the run, one line per report with its console log.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. tools/lib.sh

export D2D_KERNEL=debug
export D2D_JOBS=${D2D_JOBS:-1}
export D2D_ONLY=${D2D_ONLY:-[a-uw-z]*}
D2D_KERNEL_REPORTS=$(mktemp /tmp/d2d-debug-reports.XXXXXX)
export D2D_KERNEL_REPORTS

log "check-debug: kernel $(d2d_kver), image $(d2d_image_dir)"

# First the kernel itself (tests/debug/kernel_features.sh): its checkers
# are on, and a report on its console is caught (tools/vm status 123).
st=$(mktemp -d /tmp/d2d-debug-selftest.XXXXXX)
D2D_KERNEL_REPORTS='' tools/vm --quiet --timeout 120 --log-dir "$st" \
	tests/debug/kernel_features.sh > "$st/vm.out" 2>&1
vrc=$?
tr -d '\r' < "$st/guest1.log" | grep -E '^(PASS|FAIL|SKIP) '
rc=0
if [ $vrc = 123 ] && grep -q 'BUG: d2d-selftest report' "$st/vm.out"; then
	echo "PASS debug/report_caught"
else
	echo "FAIL debug/report_caught: tools/vm status $vrc, want 123 and the report (logs: $st)"
	rc=1
fi
grep -q '^FAIL ' "$st/guest1.log" && rc=1
[ $rc = 0 ] && rm -rf "$st"

tests/run-tier guest || rc=1
n=$(wc -l < "$D2D_KERNEL_REPORTS")
if [ "$n" -gt 0 ]; then
	echo "FAIL debug/kernel_reports: $n report line(s) in guest consoles:"
	sed 's/^/  /' "$D2D_KERNEL_REPORTS"
	rc=1
else
	echo "PASS debug/kernel_reports: no kernel report, no kmemleak leak"
fi
rm -f "$D2D_KERNEL_REPORTS"
exit $rc
