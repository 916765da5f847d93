# snic RoCEv2 model against Linux rdma_rxe (see snic_rdma_rxe.inc): RC
# ping-pongs of 4096 bytes (4 packets at MTU 1024) and of 1 byte, and a UD
# ping-pong of 1000 bytes.
# timeout: 200
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_rxe.inc

rxe_interop_setup
rxe_interop 200 4096
rxe_interop 50 1
rxe_interop 50 1000 ud
check dmesg_clean dmesg_clean
finish
