# snic-verbs-test between the two snic ports of one guest, through the
# libsnic provider: payload bytes, immediate data, atomics' results, UD,
# SRQ, completion events, unsignaled completions and every error path
# (wrong rkey, out-of-bounds RDMA, bad lkey, flush).  One line per check.
# vm-args: --guests 1
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_one_guest
verbs_pair verbs 18600 "$dev0" "$dev1"
check dmesg_clean dmesg_clean
finish
