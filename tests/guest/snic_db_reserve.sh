# Doorbell pages: an unprivileged user (nobody) opens RDMA contexts on one
# snic until the kernel refuses one (snic-ctx-hog); each takes a doorbell
# page, but the driver keeps SNIC_DB_KERNEL_RESERVE of them for its own
# queues, so while the contexts are held, growing the net_device to all
# its channels (one kernel doorbell page each) still works, and the
# refusal is counted in sysfs db_pages.  The refusal must leave nothing
# behind: a process without libsnic (uverbs write commands) still gets a
# context, without a doorbell page, that refuses CQs with ENOSPC; and 40
# refused opens leave no task_struct behind (Linux 6.1's ib_core leaks
# the opener's task when alloc_ucontext fails, so the driver must not).
# vm-args: --guests 1
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_one_guest
sys=/sys/class/infiniband/$dev0/device
max=$(ethtool -l "$if0" | awk '/^Combined:/ { print $2; exit }')
rm -f /tmp/hog.in; mkfifo /tmp/hog.in
setpriv --reuid 65534 --regid 65534 --clear-groups \
	snic-ctx-hog -d "$dev0" -r < /tmp/hog.in > /tmp/hog.out 2>&1 &
hog=$!
exec 3> /tmp/hog.in
for i in $(seq 1 300); do
	grep -q '^held' /tmp/hog.out && break
	sleep 0.1
done
check hog_refused sh -c "grep -q '^held [0-9]* (No space left on device)' /tmp/hog.out ||
	{ cat /tmp/hog.out; false; }"
check raw_no_db sh -c "grep -q '^raw: no_db 28 create_cq No space left on device' /tmp/hog.out ||
	{ cat /tmp/hog.out; false; }"
# task_structs in use, after SLUB gives back its per-CPU slabs
tasks() {
	echo 1 > /sys/kernel/slab/task_struct/shrink
	awk '$1 == "task_struct" { print $2 }' /proc/slabinfo
}
t0=$(tasks)
for i in $(seq 1 40); do
	setpriv --reuid 65534 --regid 65534 --clear-groups \
		snic-ctx-hog -d "$dev0" -m 1 < /dev/null > /tmp/hog1.out 2>&1
done
t1=$(tasks)
echo "task_struct in use: $t0 before 40 refused opens, $t1 after"
check refused_no_leak sh -c "grep -q '^held 0 (No space left on device)' /tmp/hog1.out &&
	test $((t1 - t0)) -lt 20 || { cat /tmp/hog1.out; echo task_struct $t0 '->' $t1; false; }"
check channels_grow ethtool -L "$if0" combined "${max:-30}"
check counted sh -c "grep -q '^user_refused [1-9]' $sys/db_pages || { cat $sys/db_pages; false; }"
exec 3>&-
wait $hog
check hog_released grep -q '^released' /tmp/hog.out
check channels_back ethtool -L "$if0" combined 2
check dmesg_clean dmesg_clean
finish
