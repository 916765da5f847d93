# Admin queue under concurrency: 12 processes create and destroy MRs and
# RC QPs on one snic for 20 s (snic-aq-stress: every key and QPN handed
# back must be in range and live nowhere else at the same time; every
# destroy must succeed), with the test-only module parameter
# aq_test_delay_us making one caller in eight sleep 20 ms between its
# command's completion and reading the result, while the others cycle
# the 64-entry admin queue many times over.  Then once more without the
# delay, and a clean kernel log (no timeout, no stale completion).
# vm-args: --guests 1
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_one_guest
P=/sys/module/snic/parameters/aq_test_delay_us
check delay_param sh -c "echo 20000 > $P"
snic-aq-stress -d "$dev0" -n 12 -t 20 -P "guest/$T/delayed" || D2D_FAILED=1
echo 0 > $P
snic-aq-stress -d "$dev0" -n 12 -t 10 -P "guest/$T/plain" || D2D_FAILED=1
check no_stale sh -c "! dmesg | grep -E 'stale admin completion|timed out|failed: -'"
check dmesg_clean dmesg_clean
finish
