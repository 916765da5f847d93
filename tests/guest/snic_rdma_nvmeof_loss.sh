# NVMe over Fabrics on snic with RoCE packet loss: every snic drops 1% of
# the RoCE packets it transmits (loss-ppm), so CM MADs are retried and RC
# data recovers by sequence NAKs and retransmission under nvme-rdma's I/O.
# The data still reads back identical and the devices count the
# retransmissions.
# vm-args: --guests 2 --snic-opts loss-ppm=10000,loss-seed=7
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma.inc

rdma_setup
nvmeof_pair d2d-snic-loss
check loss_injected sh -c "[ \$(cat /sys/class/infiniband/$ibdev/ports/1/hw_counters/loss_injected) -gt 0 ]"
check retransmitted sh -c "[ \$(cat /sys/class/infiniband/$ibdev/ports/1/hw_counters/retransmits) -gt 0 ]"
for c in tx_pkts rx_pkts loss_injected retransmits timeouts seq_naks_sent seq_naks_rcvd dup_requests; do
	echo "g$me $c $(hw_counter $c)"
done
check rmmod_snic snic_rmmod
check dmesg_clean dmesg_clean
finish
