# Timing mode with the SSD (docs/timing.md, "NVMe media"): the same HDC
# transfer run twice takes the same modeled time within 1%, whatever the
# host's own I/O took.  The SSD is modeled much faster than the host's
# file I/O (no latency, 1 TB/s), so every request's host I/O is still in
# flight at its modeled completion time: the d2d-delay filter must hold
# the virtual clock there until the host is done, not let icount's
# sleep=off jump it to the guest's next timer.  Each figure is virtual
# time on the guest's clock, never the host's wall clock:
#  - the engine digesting the 100 MiB file (d2d digest --md5: 1600 NVMe
#    reads by its own controller), within 1%;
#  - the host reading 32 MiB with O_DIRECT through its NVMe driver, within
#    5%: QEMU's NVMe controller takes a doorbell from a bottom half, and a
#    vCPU that runs on meanwhile moves each request's arrival by a few us;
#  - writes: the engine copying the file (its controller reads and writes
#    the SSD), then the CPU copying it (cp, the page cache written back by
#    sync), each within 5%.  With the clock held, a completion whose
#    wake-up is lost would stop the guest for good: these must finish.
# One warm-up run of each first (page cache of the tools, the file's
# extents), then two measured runs.
# vm-args: --timing --hdc @DISK@ --ssd-delay read-latency-ns=0,write-latency-ns=0,read-mbps=1000000,write-mbps=1000000
# timeout: 600
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/hdc.inc
. /opt/d2d/tests/timing.inc

timing_env
check setup hdc_setup
cd "$T_DIR" || exit 1

# ns of the guest's monotonic clock (busybox date has no %N)
now() {
	sed -n 's/^now at \([0-9]*\) nsecs.*/\1/p' /proc/timer_list | head -1
}

# took CMD: the modeled ns CMD took (empty if it failed)
took() {
	local t0 t1
	t0=$(now)
	sh -c "$1" > /dev/null 2>/tmp/took.err || { tail -1 /tmp/took.err; return 1; }
	t1=$(now)
	echo $((t1 - t0))
}

# same NAME PCT CMD: CMD once to warm up, then twice; the two modeled
# times within PCT% of each other.
same() {
	local a b
	took "$3" > /dev/null
	a=$(took "$3") || { fail "$1" "$a"; return; }
	b=$(took "$3") || { fail "$1" "$b"; return; }
	if awk -v a="$a" -v b="$b" -v p="$2" 'BEGIN {d = a - b; if (d < 0) d = -d; m = a > b ? a : b; exit !(m > 0 && d * 100 <= m * p)}'; then
		pass "$1"
	else
		fail "$1" "modeled times $a and $b ns differ by more than $2%"
	fi
	echo "  $1: $a and $b ns"
}

same engine_digest_repeats 1 "d2d digest --md5 big"
same host_read_repeats 5 "dd if=big of=/dev/null bs=1048576 count=32 iflag=direct"
same engine_copy_repeats 5 "rm -f $OUT/c && sync && d2d copy big $OUT/c && sync"
check engine_copy_intact cmp big "$OUT/c"
same cpu_copy_repeats 5 "rm -f $OUT/p && sync && cp big $OUT/p && sync"
check cpu_copy_intact cmp big "$OUT/p"
check dmesg_clean dmesg_clean
finish
