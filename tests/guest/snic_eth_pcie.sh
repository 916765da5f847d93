# snic netdev selective signalling: pktgen sends bursts of 16 frames
# (xmit_more on all but the last of each), and the driver asks for one TX
# CQE per doorbell batch (and one in 16 WQEs) instead of one per frame:
# the TX CQEs (ethtool -S txN_cqes) are at most a quarter of the frames,
# every frame reaches the other port, and the queue still completes
# (ping afterwards).
# vm-args: --guests 1
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

N=320

snic_pair_netns

check modprobe_pktgen modprobe pktgen
pg() {	# pg FILE COMMAND...: one pktgen command
	local f=/proc/net/pktgen/$1
	shift
	echo "$*" > "$f"
}
mac1=$(ip netns exec p cat "/sys/class/net/$if1/address")
p0=$(ethsum "$if0" 'tx[0-9]+_packets')
c0=$(ethsum "$if0" 'tx[0-9]+_cqes')
r0=$(ip netns exec p sh -c ". /opt/d2d/tests/snic_eth.inc; ethstat $if1 port_rx_packets")
check pktgen_setup sh -c "
	echo rem_device_all > /proc/net/pktgen/kpktgend_0 &&
	echo 'add_device $if0' > /proc/net/pktgen/kpktgend_0"
check pktgen_params sh -c "
	for c in 'count $N' 'burst 16' 'pkt_size 60' 'dst 10.0.0.2' \
		'dst_mac $mac1' 'udp_dst_min 9' 'udp_dst_max 9'; do
		echo \"\$c\" > /proc/net/pktgen/$if0 || exit 1
	done"
check pktgen_run pg pgctrl start
sleep 1
p1=$(ethsum "$if0" 'tx[0-9]+_packets')
c1=$(ethsum "$if0" 'tx[0-9]+_cqes')
r1=$(ip netns exec p sh -c ". /opt/d2d/tests/snic_eth.inc; ethstat $if1 port_rx_packets")
echo "# pktgen: $((p1 - p0)) frames sent, $((c1 - c0)) TX CQEs, $((r1 - r0)) frames received"
check frames_sent test $((p1 - p0)) -ge $N
check cqes_per_batch test $(((c1 - c0) * 4)) -le $((p1 - p0))
check frames_received test $((r1 - r0)) -ge $N
check ping_after wait_ping 10.0.0.2 10
finish
