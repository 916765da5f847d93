# snic-verbs-test between two guests while both snics drop 2% of the RoCE
# packets they send (loss injection, seeded): go-back-N retransmission and
# duplicate handling must keep every check's payload, immediate data,
# atomic result and error status exact.  Guest 2 prints the check lines.
# Then ib_write_bw and ib_read_bw (64 KiB) complete under the same loss.
# vm-args: --guests 2 --snic-opts loss-ppm=20000,loss-seed=7
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_two_guests
check ping wait_ping "$peer" 60
# -R: a remote error's NAK may be lost (then RETRY_EXC_ERR).
verbs_xguest 240 -R
# perftest under the same loss: every WRITE and READ completes.
xpair write_bw_loss 18620 1 \
	"ib_write_bw -d $dev -x $gid -p 18620 -s 65536 -n 100 -F" \
	"ib_write_bw -d $dev -x $gid -p 18620 -s 65536 -n 100 -F 10.0.0.1"
xpair read_bw_loss 18621 1 \
	"ib_read_bw -d $dev -x $gid -p 18621 -s 65536 -n 100 -F" \
	"ib_read_bw -d $dev -x $gid -p 18621 -s 65536 -n 100 -F 10.0.0.1"
# The loss really happened (and, on the requester, was repaired).
hw=/sys/class/infiniband/$dev/ports/1/hw_counters
echo "  loss_injected $(cat $hw/loss_injected) retransmits $(cat $hw/retransmits)" \
	"timeouts $(cat $hw/timeouts) seq_naks_rcvd $(cat $hw/seq_naks_rcvd)"
check loss_injected test "$(cat $hw/loss_injected)" -gt 0
[ "$me" = 2 ] && check retransmitted test "$(cat $hw/retransmits)" -gt 0
check dmesg_clean dmesg_clean
finish
