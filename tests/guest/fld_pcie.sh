# fld.ko's PCIe knobs (docs/fld.md "PCIe efficiency"): loaded with the
# defaults, FLD-E's send queue on snic #0 is rung with WQE-by-MMIO lines
# (snic's port_tx_mmio_wqe, port_tx_wqe_fetch_saved), asks for one TX CQE
# in 16 WQEs (the SQ's CQE writes, dma_writes, are at most a quarter of
# its frames) and its CQ writes mini-CQE lines (port_rx_mini_cqes,
# port_rx_mini_lines); fldctl show names the knobs.  Reloaded with
# tx_signal=1 mmio_wqe=0 mini_cqe=0: none of these counters moves, every
# frame gets its TX CQE, and the echo still works.  In both, the striding
# RQ's buffers of 256 strides hold many frames: snic's reads on the RQ
# (descriptors and FLD's RQ record) are at most one in 32 frames.
# vm-args: --guests 1 --qemu-arg -device --qemu-arg fld,id=fld0
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

N=400

snic_pair_netns

# nic_q QUEUE FIELD: snic's counter FIELD of FLD-E's queue QUEUE (sq, rq)
nic_q() { fldctl nic | awk -v q="$1" -v f="$2" '$1 == q { for (i = 2; i < NF; i += 2) if ($i == f) print $(i + 1) }'; }
# snap: the counters this test compares, as "name=value ..."
snap() {
	echo "mmio=$(ethstat "$if0" port_tx_mmio_wqe)" \
		"saved=$(ethstat "$if0" port_tx_wqe_fetch_saved)" \
		"mini=$(ethstat "$if0" port_rx_mini_cqes)" \
		"lines=$(ethstat "$if0" port_rx_mini_lines)" \
		"cqes=$(nic_q sq dma_writes)" "pkts=$(nic_q sq packets)" \
		"rqreads=$(nic_q rq dma_reads)"
}
# run NAME: N echoes of 200 bytes, 16 in flight; sets d_* to the deltas.
run() {
	local a b k
	a=$(snap)
	check "${1}_echo" ip netns exec p fld-udp ping 10.0.0.1 7 $N 200 16
	b=$(snap)
	for k in mmio saved mini lines cqes pkts rqreads; do
		eval "d_$k=\$((\$(echo \"$b\" | tr ' ' '\n' | sed -n \"s/^$k=//p\") - \$(echo \"$a\" | tr ' ' '\n' | sed -n \"s/^$k=//p\")))"
	done
	echo "# $1: frames $d_pkts, TX CQEs $d_cqes, mmio lines $d_mmio (fetch saved $d_saved), mini-CQEs $d_mini in $d_lines lines, RQ reads $d_rqreads"
}

check modprobe_fld modprobe fld snic="$if0" udp_port=7
check knobs_on_shown sh -c "fldctl show | grep -qx 'flde_pcie tx_signal 16 mmio_wqe 1 mini_cqe 1'"
run on
check on_frames test "$d_pkts" -ge $N
check on_mmio_lines test "$d_mmio" -ge $N
check on_fetch_saved test "$d_saved" -ge 1
check on_tx_cqes_1_in_4 test $((d_cqes * 4)) -le "$d_pkts"
check on_mini_cqes test "$d_mini" -ge $N
check on_mini_lines_pack test "$d_lines" -lt "$d_mini"
check on_rq_reads_1_in_32 test $((d_rqreads * 32)) -le "$d_pkts"

check rmmod_fld rmmod fld
check modprobe_fld_off modprobe fld snic="$if0" udp_port=7 tx_signal=1 mmio_wqe=0 mini_cqe=0
check knobs_off_shown sh -c "fldctl show | grep -qx 'flde_pcie tx_signal 1 mmio_wqe 0 mini_cqe 0'"
run off
check off_frames test "$d_pkts" -ge $N
check off_no_mmio test "$d_mmio" -eq 0
check off_no_mini test "$d_mini" -eq 0
check off_tx_cqe_each test "$d_cqes" -eq "$d_pkts"
check off_rq_reads_1_in_32 test $((d_rqreads * 32)) -le "$d_pkts"
check no_device_errors sh -c "fldctl errors | grep -q '^count 0 '"
check rmmod_fld_again rmmod fld
ip netns del p
check dmesg_clean dmesg_clean
finish
