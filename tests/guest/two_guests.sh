# Two guests on one wire (loopback dgram sockets): each has a snic, a
# virtio-net port on the same wire and an NVMe disk.  Both identify their
# snic and reach each other over the wire.
# vm-args: --guests 2 --virtio --nvme 64M
. /opt/d2d/tests/lib.sh

me=$D2D_GUEST
peer=$((3 - me))
check modprobe modprobe snic
check snic_serial test "$(cat "$(snic_devices)/serial")" = "SNIC-$me-0"
modprobe virtio_net; modprobe virtio_pci
sleep 1
if=$(netdev_by_driver virtio-pci) || if=$(netdev_by_driver virtio_net) || if=""
if [ -z "$if" ]; then
	fail virtio_port "no virtio-net interface"
else
	ip addr add 10.0.0.$me/24 dev "$if"
	ip link set "$if" up
	# Both guests boot at once; allow the peer time to come up.
	ok=0
	for i in $(seq 1 30); do
		ping -c 1 -W 1 10.0.0.$peer >/dev/null 2>&1 && { ok=1; break; }
	done
	[ $ok = 1 ] && pass ping_peer_over_wire || fail ping_peer_over_wire "no reply from 10.0.0.$peer"
	# Stay up until the peer has had its chance to ping us.
	for i in $(seq 1 10); do ping -c 1 -W 1 10.0.0.$peer >/dev/null 2>&1; done
fi
modprobe nvme
sleep 1
check nvme_disk test -b /dev/nvme0n1
check dmesg_clean dmesg_clean
finish
