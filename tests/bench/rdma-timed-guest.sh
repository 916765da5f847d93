# Guest half of TIMING=1 tests/bench/rdma.sh: one guest in timing mode
# (tools/vm --timing: one clock for both endpoints, docs/timing.md).
# snic: its two ports on one hub, 10.0.0.1 and 10.0.0.2.  rdma_rxe: two
# virtio-net ports on a hub of their own, 10.0.3.1 (rxe0) and 10.0.3.2
# (rxe1); policy routing sends locally generated traffic between the two
# addresses out of the other port, so RoCE frames cross the wire as they
# would between two hosts instead of the kernel's loopback.  Prints BENCH
# lines; every time is virtual (instruction-counted) time.
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_one_guest
modprobe virtio_net; modprobe virtio_pci; modprobe rdma_rxe
sleep 1
set -- $(for n in /sys/class/net/*; do
	[ "$(basename "$(readlink -f "$n/device/driver" 2>/dev/null)")" = virtio_net ] &&
		basename "$n"
done)
[ $# -ge 2 ] || { echo "BENCH-ERROR need two virtio-net ports, found: $*"; exit 1; }
v0=$1 v1=$2
for f in all default "$v0" "$v1"; do
	echo 0 > "/proc/sys/net/ipv4/conf/$f/rp_filter"
	echo 1 > "/proc/sys/net/ipv4/conf/$f/accept_local"
done
ip addr add 10.0.3.1/32 dev "$v0" && ip link set "$v0" up
ip addr add 10.0.3.2/32 dev "$v1" && ip link set "$v1" up
wait_carrier "$v0" 10 >/dev/null; wait_carrier "$v1" 10 >/dev/null
ip neigh replace 10.0.3.2 dev "$v0" nud permanent lladdr "$(cat "/sys/class/net/$v1/address")"
ip neigh replace 10.0.3.1 dev "$v1" nud permanent lladdr "$(cat "/sys/class/net/$v0/address")"
ip route add 10.0.3.2/32 dev "$v0" src 10.0.3.1 table 100
ip route add 10.0.3.1/32 dev "$v1" src 10.0.3.2 table 101
# locally generated (iif lo) only: arriving frames stay local deliveries
ip rule add pref 10 iif lo from 10.0.3.1 to 10.0.3.2 lookup 100
ip rule add pref 11 iif lo from 10.0.3.2 to 10.0.3.1 lookup 101
ip rule add pref 100 lookup local && ip rule del pref 0 lookup local
rdma link add rxe0 type rxe netdev "$v0" && rdma link add rxe1 type rxe netdev "$v1" ||
	{ echo "BENCH-ERROR rxe"; exit 1; }
r0=$(roce_v2_gid rxe0) && r1=$(roce_v2_gid rxe1) ||
	{ echo "BENCH-ERROR no RoCE v2 GID on rxe0/rxe1"; exit 1; }
# active MTU of snic's path: the calibration's packet size
mtu=$(ibv_devinfo -d "$dev0" | awk '$1 == "active_mtu:" {print $2; exit}')

BW_ITERS=${BW_ITERS:-300}
LAT_ITERS=${LAT_ITERS:-300}
mark=10
for kind in snic rxe; do
	if [ $kind = snic ]; then
		ds=$dev0 gs=$gid0 dc=$dev1 gc=$gid1 ip=10.0.0.1
	else
		ds=rxe1 gs=$r1 dc=rxe0 gc=$r0 ip=10.0.3.2
	fi
	p=$((18800 + mark))
	insn-mark $mark
	pair "$kind-bw" $p "ib_write_bw -d $ds -x $gs -p $p -s 65536 -n $BW_ITERS -F" \
		"ib_write_bw -d $dc -x $gc -p $p -s 65536 -n $BW_ITERS -F $ip"
	insn-mark $((mark + 1))
	mbs=$(awk '$1 == 65536 && NF >= 5 {print $4}' "/tmp/pair.$kind-bw.c" | tail -1)
	p=$((p + 1))
	# READ: only the client polls, the one vCPU is not shared by two
	# busy-polling programs
	pair "$kind-lat" $p "ib_read_lat -d $ds -x $gs -p $p -s 64 -n $LAT_ITERS -F" \
		"ib_read_lat -d $dc -x $gc -p $p -s 64 -n $LAT_ITERS -F $ip"
	us=$(awk '$1 == 64 && NF >= 6 {print $6}' "/tmp/pair.$kind-lat.c" | tail -1)
	echo "BENCH dev=$kind mark=$mark bw_mbs=${mbs:-0} lat_us=${us:-0} bytes=$((65536 * BW_ITERS)) mtu=${mtu:-0}"
	mark=$((mark + 10))
done
exit 0
