# Guest half of tests/bench/eth.sh: the same measurements over snic,
# e1000e and virtio-net, each on its own wire, in one boot.
# Guest 2 serves iperf3 on every NIC; guest 1 measures.
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/iperf.inc

modprobe snic
modprobe e1000e
modprobe virtio_net
modprobe virtio_pci
sleep 2
me=$D2D_GUEST
peer=$((3 - me))
n=1
for drv in snic e1000e virtio_net; do
	if=$(netdev_by_driver $drv) || if=$(netdev_by_driver virtio-pci)
	[ -n "$if" ] || { echo "BENCH-ERROR no $drv interface"; exit 1; }
	ip link set "$if" up
	ip addr add 10.0.$n.$me/24 dev "$if"
	eval "ip_$drv=10.0.$n.$peer"
	n=$((n + 1))
done
sleep 2

if [ "$me" = 2 ]; then
	p=5201
	for drv in snic e1000e virtio_net; do
		iperf3 -s -1 -p $p >/dev/null 2>&1 &
		p=$((p + 1))
	done
	wait
	exit 0
fi

p=5201
mark=10
for drv in snic e1000e virtio_net; do
	eval "peer_ip=\$ip_$drv"
	# Wait for the path and the server.
	for i in $(seq 1 30); do ping -c 1 -W 1 "$peer_ip" >/dev/null 2>&1 && break; done
	lat=$(ping -c 20 -i 0.1 "$peer_ip" | sed -n 's|.*= [0-9.]*/\([0-9.]*\)/.*|\1|p')
	out=""
	for i in $(seq 1 20); do
		insn-mark $mark
		out=$(iperf3 -c "$peer_ip" -p $p -t 5 -f m 2>&1) && break
		sleep 0.5
	done
	insn-mark $((mark + 1))
	echo "BENCH nic=$drv mark=$mark ping_ms=${lat:-0} $(iperf3_sender "$out")"
	p=$((p + 1))
	mark=$((mark + 10))
done
