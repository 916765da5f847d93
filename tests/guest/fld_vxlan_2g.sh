# FLD defrag over a real VXLAN path, two guests.  Guest 2 sends through a
# Linux vxlan device (VNI 42, remote guest 1, MTU 1450 - smaller than its
# datagrams, so its stack fragments the inner IPv4 datagrams and
# encapsulates every fragment).  Guest 1's snic decapsulates VNI 42 to FLD
# (fldctl flow vxlan 42), the defrag accelerator reassembles and, with
# fld.ko loopback=1, re-injects each whole datagram into guest 1's own
# snic receive path (snic local loopback: steering, checksum verdict,
# RSS), so guest 1's stack and applications get whole datagrams: a
# byte-checked UDP flow (3000 and 8000 bytes), iperf3 UDP (3000-byte
# datagrams) and iperf3 TCP.  Guest 1's stack reassembles nothing
# (ReasmReqds unchanged) and its driver counts the datagrams rx_csum_ok.
# fld-frag's overlapping fragments are still dropped and counted.
# Guest 1 answers guest 2 directly on the underlay (no vxlan device on
# guest 1: its snic decapsulates).
# vm-args: --guests 2 --qemu-arg -device --qemu-arg fld,id=fld0,accel=defrag
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

snic_eth_setup
reasm() {
	awk '/^Ip:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "ReasmReqds") c = i; h = 1 } else print $c }' /proc/net/snmp
}

if [ "$D2D_GUEST" = 1 ]; then
	# Whole datagrams re-enter this port's receive path: jumbo MTU.
	check mtu_9000 ip link set "$if" mtu 9000
	ip addr add 192.168.42.1/24 dev "$if"
	check modprobe_fld modprobe fld snic="$if" udp_port=0 loopback=1
	check flde_loopback sh -c "fldctl show | grep -q 'flde loopback'"
	check flow_vxlan fldctl flow vxlan 42
	r0=$(reasm) c0=$(ethsum "$if" 'rx[0-9]+_csum_ok') l0=$(ethstat "$if" port_tx_loopback)
	fld-frag recv 192.168.42.1 5001 200 3000 100 > /tmp/r3000 2>&1 &
	p1=$!
	fld-frag recv 192.168.42.1 5002 30 8000 100 > /tmp/r8000 2>&1 &
	p2=$!
	iperf3 -s -p 5201 > /tmp/iperf-s 2>&1 &
	ps=$!
	check barrier_1 barrier 1
	check barrier_2 barrier 2	# guest 2 sends meanwhile
	wait $p1 $p2
	echo "# 3000 B: $(cat /tmp/r3000); 8000 B: $(cat /tmp/r8000)"
	check udp_3000_all_intact grep -q "ok 200\$" /tmp/r3000
	check udp_8000_all_intact grep -q "ok 30\$" /tmp/r8000
	fldctl stats | grep -E '^(df_|accel_)' | sed 's/^/# /'
	echo "# ReasmReqds $r0 -> $(reasm); rx_csum_ok $c0 -> $(ethsum "$if" 'rx[0-9]+_csum_ok'); tx_loopback $l0 -> $(ethstat "$if" port_tx_loopback); rx_loop_drops $(ethstat "$if" port_rx_loop_drops)"
	check reassembled test "$(fldctl get df_reassembled)" -ge 230
	check stack_no_reassembly test "$(reasm)" -eq "$r0"
	check csum_ok_grew test $(($(ethsum "$if" 'rx[0-9]+_csum_ok') - c0)) -ge 230
	check reinjected_by_loopback test $(($(ethstat "$if" port_tx_loopback) - l0)) -ge 230
	check overlaps_dropped test "$(fldctl get df_overlaps)" -eq 20
	check no_device_errors sh -c "fldctl errors | grep -q '^count 0 '"
	kill $ps 2>/dev/null
	check barrier_3 barrier 3
	check rmmod_fld rmmod fld
else
	check ping_peer wait_ping "$peer" 30
	mac1=$(ip neigh show "$peer" | awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1) }')
	check modprobe_vxlan modprobe vxlan
	check vxlan_dev ip link add vx42 type vxlan id 42 remote "$peer" \
		dstport 4789 dev "$if"
	ip addr add 192.168.42.2/24 dev vx42
	ip link set vx42 up
	check vxlan_mtu_1450 test "$(cat /sys/class/net/vx42/mtu)" -eq 1450
	# guest 1 has no vxlan device: its snic's own MAC is the inner target
	check neigh ip neigh replace 192.168.42.1 lladdr "$mac1" dev vx42 \
		nud permanent
	# answers come back on the underlay, not through vx42
	sysctl -qw net.ipv4.conf.all.rp_filter=0 "net.ipv4.conf.$if.rp_filter=0"
	check barrier_1 barrier 1
	check send_3000 fld-frag sock 192.168.42.1 5001 200 3000 3000
	check send_8000 fld-frag sock 192.168.42.1 5002 30 8000 10000
	iperf3 -c 192.168.42.1 -p 5201 -u -b 2M -l 3000 -t 4 > /tmp/iu 2>&1
	sed 's/^/# /' /tmp/iu | tail -4
	loss=$(awk '/receiver/ { for (i = 1; i <= NF; i++) if ($i ~ /^\([0-9.]+%\)$/) { gsub(/[()%]/, "", $i); print $i } }' /tmp/iu)
	check iperf3_udp_loss_below_5 awk -v l="${loss:-100}" 'BEGIN { exit !(l < 5) }'
	iperf3 -c 192.168.42.1 -p 5201 -t 3 > /tmp/it 2>&1
	sed 's/^/# /' /tmp/it | tail -3
	check iperf3_tcp grep -q receiver /tmp/it
	check send_overlap fld-frag send "$peer" 42 "$mac1" 192.168.42.1 5003 \
		20 3000 1000 overlap
	check barrier_2 barrier 2
	check barrier_3 barrier 3
	ip link del vx42
fi
check dmesg_clean dmesg_clean
finish
