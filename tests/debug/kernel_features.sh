# The debug kernel of make check-debug (run by tools/check-debug.sh before
# the guest tier, not by tests/run-tier): the checkers are on, the fault
# injection knobs exist, our modules load, and a report reaches the
# console, where tools/vm must find it (it then exits with status 123).
# vm-args: --guests 1
. /opt/d2d/tests/lib.sh
T=debug/kernel

check kasan grep -q ' kasan_report$' /proc/kallsyms
check ubsan grep -q ' __ubsan_handle_out_of_bounds$' /proc/kallsyms
check lockdep test -f /proc/lockdep
check kmemleak test -w /sys/kernel/debug/kmemleak
check failslab test -d /sys/kernel/debug/failslab
check fail_page_alloc test -d /sys/kernel/debug/fail_page_alloc
check panic_on_warn test "$(cat /proc/sys/kernel/panic_on_warn)" = 1
check modprobe_snic modprobe snic
check modprobe_hdc modprobe hdc
check rmmod snic_rmmod
# A line that looks like a kernel report, for tools/vm to catch.
echo "BUG: d2d-selftest report" > /dev/kmsg
finish
