# FLD defrag: an fld instance with the defrag accelerator on snic #0; the
# NIC decapsulates VXLAN VNI 42 (fldctl flow vxlan 42) and steers the
# inner frames to FLD-E, which reassembles fragmented inner IPv4 datagrams
# and transmits them whole on the wire.  The other snic port, in network
# namespace p, sends UDP datagrams of 3000 and 8000 bytes cut into
# 1000-byte fragments, each fragment in its own VXLAN frame (fld-frag:
# the guest image has no vxlan module, so the sender builds the VXLAN
# frames itself); the same port receives the reassembled datagrams
# (addressed to 10.9.0.2 on it) and checks every byte.  The receiver's
# stack sees whole packets (no reassembly: ReasmReqds unchanged) with the
# NIC's checksum verdict (rx_csum_ok).  Duplicates are dropped alone,
# overlaps and incomplete datagrams are dropped and counted.
# vm-args: --guests 1 --qemu-arg -device --qemu-arg fld,id=fld0,accel=defrag
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

snic_pair_netns 9000
ip -n p addr add 10.9.0.2/32 dev "$if1"
mac1=$(ip -n p link show "$if1" | awk '/link\/ether/ { print $2 }')

check modprobe_fld modprobe fld snic="$if0" udp_port=0
check accel_defrag sh -c "fldctl show | grep -q 'accel defrag'"
check flow_vxlan fldctl flow vxlan 42
check flow_vxlan_bad sh -c "! fldctl flow vxlan 16777216"
check vni_shown test "$(cat /sys/bus/pci/drivers/fld/*/vxlan_vni)" = 42

inp() { ip netns exec p "$@"; }
# the receiving namespace's IP reassembly requests (/proc/net/snmp)
reasm() {
	inp awk '/^Ip:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "ReasmReqds") c = i; h = 1 } else print $c }' /proc/net/snmp
}
# the receiver's driver: packets handed up as CHECKSUM_UNNECESSARY
csum_ok() { inp ethtool -S "$if1" | awk '$1 ~ /^rx[0-9]+_csum_ok:$/ { s += $2 } END { print s + 0 }'; }
# round NAME COUNT SIZE MODE WANT: send, expect WANT datagrams intact.
round() {
	inp fld-frag recv 10.9.0.2 5001 "$5" "$3" 40 > /tmp/frag.out 2>&1 &
	rpid=$!
	sleep 0.5
	check "send_$1" inp fld-frag send 10.0.0.1 42 "$mac1" 10.9.0.2 5001 \
		"$2" "$3" 1000 "$4"
	wait $rpid
	echo "# $1: $(cat /tmp/frag.out)"
	check "delivered_$1" grep -q "ok $5\$" /tmp/frag.out
}

r0=$(reasm) c0=$(csum_ok)
round 3000B 200 3000 normal 200
round 8000B 50 8000 normal 50
check reassembled_250 test "$(fldctl get df_reassembled)" -eq 250
check receiver_no_reassembly test "$(reasm)" -eq "$r0"
echo "# rx_csum_ok $c0 -> $(csum_ok); ReasmReqds $r0 -> $(reasm)"
check receiver_csum_ok test $(($(csum_ok) - c0)) -ge 250

round dup 20 3000 dup 20
check duplicates_20 test "$(fldctl get df_duplicates)" -eq 20
round overlap 20 3000 overlap 0
check overlaps_20 test "$(fldctl get df_overlaps)" -eq 20
round incomplete 10 3000 incomplete 0
sleep 3			# past the 2 s reassembly timeout
round after_timeout 10 3000 normal 10
check timeouts_counted test "$(fldctl get df_timeouts)" -ge 10
fldctl stats | grep -E '^(df_|accel_)' | sed 's/^/# /'
check no_device_errors sh -c "fldctl errors | grep -q '^count 0 '"
check rmmod_fld rmmod fld
ip netns del p
check rmmod_snic snic_rmmod
check dmesg_clean dmesg_clean
finish
