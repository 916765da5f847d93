# Doorbell pages: an unprivileged user (nobody) opens RDMA contexts on one
# snic until the kernel refuses one (snic-ctx-hog); each takes a doorbell
# page, but the driver keeps SNIC_DB_KERNEL_RESERVE of them for its own
# queues, so while the contexts are held, growing the net_device to all
# its channels (one kernel doorbell page each) still works, and the
# refusal is counted in sysfs db_pages.
# vm-args: --guests 1
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_one_guest
sys=/sys/class/infiniband/$dev0/device
max=$(ethtool -l "$if0" | awk '/^Combined:/ { print $2; exit }')
rm -f /tmp/hog.in; mkfifo /tmp/hog.in
setpriv --reuid 65534 --regid 65534 --clear-groups \
	snic-ctx-hog -d "$dev0" < /tmp/hog.in > /tmp/hog.out 2>&1 &
hog=$!
exec 3> /tmp/hog.in
for i in $(seq 1 300); do
	grep -q '^held' /tmp/hog.out && break
	sleep 0.1
done
check hog_refused sh -c "grep -q '^held [0-9]* (No space left on device)' /tmp/hog.out ||
	{ cat /tmp/hog.out; false; }"
check channels_grow ethtool -L "$if0" combined "${max:-30}"
check counted sh -c "grep -q '^user_refused [1-9]' $sys/db_pages || { cat $sys/db_pages; false; }"
exec 3>&-
wait $hog
check hog_released grep -q '^released' /tmp/hog.out
check channels_back ethtool -L "$if0" combined 2
check dmesg_clean dmesg_clean
finish
