# Guest half of TIMING=1 tests/bench/eth.sh: one guest in timing mode
# (tools/vm --timing: one clock for both ends, docs/timing.md).  Each NIC
# type has two ports on a wire (hub) of its own: snic's two ports, and the
# two ports of each --nic (e1000e, virtio-net).  The second port of each
# pair goes into a network namespace, so traffic between the two crosses
# the wire instead of the kernel's loopback.  Per NIC: ping round trip and
# iperf3 TCP throughput, with insn-meter marks around each; prints BENCH
# lines; every time is virtual (instruction-counted) time.
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/iperf.inc
. /opt/d2d/tests/snic_eth.inc

modprobe snic
modprobe e1000e
modprobe virtio_net
modprobe virtio_pci
sleep 1
# netdevs DRIVER: this driver's interfaces, in name order
netdevs() {
	local n
	for n in /sys/class/net/*; do
		[ "$(basename "$(readlink -f "$n/device/driver" 2>/dev/null)")" = "$1" ] &&
			basename "$n"
	done
}
PINGS=${PINGS:-20}
SECS=${SECS:-3}
n=1
mark=10
for drv in snic e1000e virtio_net; do
	set -- $(netdevs "$drv")
	[ $# -ge 2 ] || { echo "BENCH-ERROR want two $drv ports, found: $*"; exit 1; }
	a=$1 b=$2 ns=p$n
	ip netns add $ns
	ip link set "$b" netns $ns
	ip addr add 10.0.$n.1/24 dev "$a" && ip link set "$a" up
	ip -n $ns addr add 10.0.$n.2/24 dev "$b"
	ip -n $ns link set "$b" up
	ip -n $ns link set lo up
	wait_carrier "$a" 10 > /dev/null
	wait_ping 10.0.$n.2 30 > /dev/null || { echo "BENCH-ERROR no path over $drv"; exit 1; }
	ip netns exec $ns iperf3 -s -1 -p 5201 > /dev/null 2>&1 &
	srv=$!
	insn-mark $mark
	# adaptive: the next ping as soon as the reply is in, so the marks
	# count the pings' work, not an idle interval; busybox's summary
	# "round-trip min/avg/max = 0.031/0.045/0.050 ms"
	rtt=$(ping -A -c "$PINGS" 10.0.$n.2 | sed -n 's|.*= \([0-9.]*\)/\([0-9.]*\)/\([0-9.]*\)[/ ].*|\1 \2 \3|p')
	insn-mark $((mark + 1))
	out=""
	for i in $(seq 1 20); do
		insn-mark $((mark + 2))
		out=$(iperf3 -c 10.0.$n.2 -p 5201 -t "$SECS" -f m 2>&1) && break
		sleep 0.5
	done
	insn-mark $((mark + 3))
	wait $srv
	us=$(echo "${rtt:-0 0 0}" | awk '{printf "ping_min_us=%.1f ping_us=%.1f ping_max_us=%.1f", $1 * 1000, $2 * 1000, $3 * 1000}')
	echo "BENCH nic=$drv mark=$mark pings=$PINGS $us $(iperf3_sender "$out")"
	n=$((n + 1))
	mark=$((mark + 10))
done
exit 0
