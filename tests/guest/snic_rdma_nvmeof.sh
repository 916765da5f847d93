# NVMe over Fabrics on the snic RoCEv2 device: guest 1 exports a
# file-backed namespace with nvmet-rdma, guest 2 connects with nvme-rdma
# (rdma_cm address/route resolution, CM MADs on the GSI QP, RC QPs with
# fast registration and remote invalidation; SRQs on the target), writes
# random data, reads it back and compares checksums, then disconnects; both
# unload everything and no RC QP is left on either device.
# vm-args: --guests 2
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma.inc

rdma_setup
# The target's receive buffers live in shared receive queues.
nvmeof_pair d2d-snic-nvmeof use_srq=1
[ "$me" = 1 ] && check target_used_srq grep -Eq 'srq [1-9]' /tmp/res.log
check roce_traffic sh -c "[ \$(cat /sys/class/infiniband/$ibdev/ports/1/hw_counters/rx_pkts) -gt 1000 ]"
check rmmod_snic snic_rmmod
check dmesg_clean dmesg_clean
finish
