# Guest half of tests/bench/rdma.sh.  Each guest: snic port 10.0.1.N,
# virtio-net port 10.0.2.N with an rdma_rxe device on it.  Guest 2 runs the
# perftest servers, guest 1 the clients, snic first, then rxe.
. /opt/d2d/tests/lib.sh

modprobe snic
modprobe virtio_net
modprobe virtio_pci
modprobe rdma_rxe
modprobe ib_uverbs
sleep 2
me=$D2D_GUEST
sif=$(netdev_by_driver snic)
vif=$(netdev_by_driver virtio_net) || vif=$(netdev_by_driver virtio-pci)
[ -n "$sif" ] && [ -n "$vif" ] || { echo "BENCH-ERROR missing NICs ($sif/$vif)"; exit 1; }
# Both NICs share one wire: without these, either port may answer ARP for
# the other's address, and RoCE frames (whose MACs come from the neighbour
# table) then go to the wrong NIC and are never acknowledged.
echo 1 > /proc/sys/net/ipv4/conf/all/arp_ignore
echo 2 > /proc/sys/net/ipv4/conf/all/arp_announce
ip link set "$sif" up
ip addr add 10.0.1.$me/24 dev "$sif"
ip link set "$vif" up
ip addr add 10.0.2.$me/24 dev "$vif"
rdma link add rxe0 type rxe netdev "$vif" || { echo "BENCH-ERROR rxe"; exit 1; }
sleep 2

# ib device bound to netdev $1
ibdev_of() {
	local d
	for d in /sys/class/infiniband/*; do
		[ -e "$d/ports/1/gid_attrs/ndevs/0" ] || continue
		grep -qx "$1" "$d"/ports/1/gid_attrs/ndevs/* 2>/dev/null &&
			{ basename "$d"; return 0; }
	done
	return 1
}
# RoCE v2 GID index of IPv4 address $2 on device $1
gid_index() {
	local d=/sys/class/infiniband/$1/ports/1 f i want
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' $(echo "$2" | tr . ' '))
	for f in "$d"/gids/*; do
		i=$(basename "$f")
		[ "$(cat "$f")" = "$want" ] || continue
		[ "$(cat "$d/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] && { echo "$i"; return 0; }
	done
	return 1
}
wait_gid() {	# until the IPv4-mapped GID shows up
	local i
	for i in $(seq 1 50); do
		gid_index "$1" "$2" && return 0
		sleep 0.2
	done
	return 1
}

sdev=$(ibdev_of "$sif") || { echo "BENCH-ERROR no ib device on $sif"; exit 1; }
sgid=$(wait_gid "$sdev" 10.0.1.$me) || { echo "BENCH-ERROR no RoCE v2 GID on $sdev"; exit 1; }
rgid=$(wait_gid rxe0 10.0.2.$me) || { echo "BENCH-ERROR no RoCE v2 GID on rxe0"; exit 1; }
for i in $(seq 1 30); do ping -c 1 -W 1 10.0.1.$((3 - me)) >/dev/null 2>&1 && break; done
for i in $(seq 1 30); do ping -c 1 -W 1 10.0.2.$((3 - me)) >/dev/null 2>&1 && break; done

BW_ITERS=${BW_ITERS:-300}
LAT_ITERS=${LAT_ITERS:-500}
# Each test has its own TCP port, so that a client never meets the server
# of another test (a failed or early attempt must not shift the pairing).
port_of() {	# port_of KIND TEST
	case $1-$2 in
	snic-bw) echo 18601 ;; snic-lat) echo 18602 ;;
	rxe-bw) echo 18603 ;; rxe-lat) echo 18604 ;;
	snic-sw4096) echo 18611 ;; snic-sw1048576) echo 18612 ;;
	rxe-sw4096) echo 18613 ;; rxe-sw1048576) echo 18614 ;;
	esac
}
# The bandwidth sweep beside the 64 KiB run: message size and iterations
# (about the same bytes each).
SWEEP=${SWEEP:-"4096:1000 1048576:20"}
if [ "$me" = 2 ]; then
	for kind in snic rxe; do
		if [ $kind = snic ]; then d=$sdev g=$sgid; else d=rxe0 g=$rgid; fi
		# Servers' output on the console (indented: not result lines).
		ib_write_bw -d "$d" -x "$g" -s 65536 -n "$BW_ITERS" -F \
			-p "$(port_of $kind bw)" 2>&1 | sed 's/^/  /'
		ib_send_lat -d "$d" -x "$g" -s 64 -n "$LAT_ITERS" -F \
			-p "$(port_of $kind lat)" 2>&1 | sed 's/^/  /'
		for sw in $SWEEP; do
			ib_write_bw -d "$d" -x "$g" -s "${sw%:*}" -n "${sw#*:}" -F \
				-p "$(port_of $kind "sw${sw%:*}")" 2>&1 | sed 's/^/  /'
		done
	done
	exit 0
fi

# client: retry while the server does not listen yet
run() {
	local i o
	for i in $(seq 1 60); do
		o=$("$@" 2>&1) && { echo "$o"; return 0; }
		echo "$o" | grep -q "Couldn't connect" || break
		sleep 1
	done
	echo "$o" | sed 's/^/  client: /' >&2
	return 1
}
# snic transport counter $1 (hw_counters) of the client's port
hwc() { cat "/sys/class/infiniband/$sdev/ports/1/hw_counters/$1" 2>/dev/null || echo 0; }
mark=10
for kind in snic rxe; do
	if [ $kind = snic ]; then d=$sdev g=$sgid ip=10.0.1.2; else d=rxe0 g=$rgid ip=10.0.2.2; fi
	t0=$(ethtool -S "$sif" | awk '$1 == "pcie_tlps:" {print $2}')
	r0=$(hwc retransmits) o0=$(hwc timeouts) n0=$(hwc seq_naks_rcvd)
	insn-mark $mark
	bw=$(run ib_write_bw -d "$d" -x "$g" -s 65536 -n "$BW_ITERS" -F \
		-p "$(port_of $kind bw)" "$ip")
	insn-mark $((mark + 1))
	t1=$(ethtool -S "$sif" | awk '$1 == "pcie_tlps:" {print $2}')
	# go-back-N during the snic write (packets lost on the host's wire)
	gbn="retx=$(($(hwc retransmits) - r0)) timeouts=$(($(hwc timeouts) - o0)) seq_naks=$(($(hwc seq_naks_rcvd) - n0))"
	# "#bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]"
	mbs=$(echo "$bw" | awk '$1 == 65536 && NF >= 5 {print $4}' | tail -1)
	sleep 2
	lat=$(run ib_send_lat -d "$d" -x "$g" -s 64 -n "$LAT_ITERS" -F \
		-p "$(port_of $kind lat)" "$ip")
	# "#bytes #iterations t_min t_max t_typical t_avg ..."
	us=$(echo "$lat" | awk '$1 == 64 && NF >= 6 {print $6}' | tail -1)
	tlps=$(awk -v a="${t0:-0}" -v b="${t1:-0}" -v n="$BW_ITERS" 'BEGIN {printf "%.1f", (b - a) / n}')
	echo "BENCH dev=$kind mark=$mark bw_mbs=${mbs:-0} lat_us=${us:-0} bytes=$((65536 * BW_ITERS)) tlps_per_msg=$tlps $gbn"
	mark=$((mark + 10))
	sleep 2
	for sw in $SWEEP; do
		bw=$(run ib_write_bw -d "$d" -x "$g" -s "${sw%:*}" -n "${sw#*:}" -F \
			-p "$(port_of $kind "sw${sw%:*}")" "$ip")
		mbs=$(echo "$bw" | awk -v s="${sw%:*}" '$1 == s && NF >= 5 {print $4}' | tail -1)
		echo "BENCH-SWEEP dev=$kind size=${sw%:*} bw_mbs=${mbs:-0}"
		sleep 2
	done
done
