# snic RoCEv2 model against Linux rdma_rxe with every 10th RoCE packet the
# snic sends dropped (loss injection): rxe's sequence NAKs and timeouts
# against the snic's go-back-N, the snic's NAKs against rxe's retransmits.
# vm-args: --snic-opts loss-every=10
# timeout: 200
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_rxe.inc

rxe_interop_setup
rxe_interop 100 4096
check dmesg_clean dmesg_clean
finish
