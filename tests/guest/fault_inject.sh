# Allocation failures injected (failslab and fail_page_alloc, task filter:
# only the processes below fail) while user space creates and destroys
# snic RDMA objects (snic-aq-stress: MRs, CQs, QPs), sPIN memory, contexts
# and host regions (spin-ioctl-test) and hdc requests (d2d digest, copy).
# Each failure must be a clean error: no oops, WARN, BUG, and no leaked
# object of our modules (kmemleak scan); with injection off everything
# works again and the modules unload.  Needs a kernel with fault injection
# (make check-debug's debug kernel); SKIP on the stock kernel.
# vm-args: --hdc @DISK@
# timeout: 600
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/hdc.inc
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

DBG=/sys/kernel/debug
FS=$DBG/failslab
FP=$DBG/fail_page_alloc
mountpoint -q $DBG || mount -t debugfs none $DBG 2>/dev/null
if [ ! -d $FS ] || [ ! -d $FP ]; then
	skip fault_inject "kernel without CONFIG_FAILSLAB and CONFIG_FAIL_PAGE_ALLOC"
	finish
fi

# inject PERCENT: fail PERCENT % of the allocations of tasks that asked
# for it (make-it-fail), sleeping ones included; 0: off.
inject() {
	local d
	for d in $FS $FP; do
		echo Y > $d/task-filter
		echo N > $d/ignore-gfp-wait
		echo 1 > $d/interval
		echo -1 > $d/times
		echo 1 > $d/verbose	# one line per failure, no stack
		echo "$1" > $d/probability
	done
	echo N > $FP/ignore-gfp-highmem
	echo 0 > $FP/min-order
}
# faulty CMD...: CMD and its children under injection; its outcome is not
# judged (any errno is fine), only what the kernel does.
faulty() {
	sh -c 'echo 1 > /proc/self/make-it-fail && exec "$@"' sh "$@" \
		> /dev/null 2>&1
	return 0
}

check hdc_setup hdc_setup
spin_one_guest
cd "$T_DIR" || exit 1

inject 10
for round in 1 2 3 4; do
	faulty snic-aq-stress -d "$dev0" -n 2 -t 4 -P x
	faulty spin-ioctl-test x "$SPIN"
	# runs until killed when nothing fails
	faulty timeout 3 spinctl -d "$SPIN" run -p 9990 -r 8192 /usr/local/share/spin/empty.elf
	faulty d2d digest --md5 65549
	faulty d2d copy 65549 "$OUT/fi"
	faulty d2d raw --src-user 65549 --dst "$OUT/fi2" 65549
done
inject 0
check failures_injected sh -c "dmesg | grep -q 'FAULT_INJECTION: forcing a failure'"

# Everything works again.
check rdma_after snic-aq-stress -d "$dev0" -n 2 -t 3 -P "guest/$T/after"
spin-ioctl-test "guest/$T/after" "$SPIN" || D2D_FAILED=1
check hdc_after sh -c "[ \"\$(d2d digest --md5 65549)\" = \"\$(md5sum 65549)\" ]"
cd /
umount /mnt
check rmmod_hdc rmmod hdc
# snic_ib uses ib_uverbs: our modules go first
check rmmod_snic snic_rmmod
check rmmod_verbs rmmod rdma_ucm ib_uverbs
if [ -w $DBG/kmemleak ]; then
	echo scan > $DBG/kmemleak
	check no_leak_of_ours sh -c "! grep -A20 unreferenced $DBG/kmemleak | grep -E '\\[(snic|hdc)\\]'"
else
	skip no_leak_of_ours "no kmemleak"
fi
# (injected page allocation failures print their stack: not a report)
check dmesg_clean sh -c "! dmesg | grep -E 'WARNING:|BUG:|UBSAN:|Oops|general protection|list_(add|del) corruption|INFO: possible'"
finish
