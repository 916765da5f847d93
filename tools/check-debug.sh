#!/bin/bash
# tools/check-debug.sh - make check-debug: the guest tier on the debug kernel
# (tools/debug-kernel.sh: KASAN, lockdep, kmemleak, UBSAN, DEBUG_LIST,
# panic_on_warn).  Build first: make qemu image-debug.
#
# Every guest script runs as in the guest tier, one at a time by default
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
tests/run-tier guest
rc=$?
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
