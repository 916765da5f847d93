# snic peer-queue API: snic_peer_test.ko puts an SQ, an RQ and their CQs
# (rings, doorbell records, buffers) inside an ivshmem BAR, creates them on
# snic #0, sends frames from that SQ to the other hub port and receives
# frames steered to that RQ.  The module is the driver of snic.peer_test.N.
# Then snic #0 is unbound while the test module holds its queues: its
# remove callback destroys them while the snic still works.
# vm-args: --guests 1 --ivshmem 1M
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

check modprobe modprobe snic
set -- $(snic_netdevs)
if0=${1:-} if1=${2:-}
if [ -z "$if0" ] || [ -z "$if1" ]; then
	fail netdevs "want two snic interfaces, have '$*'"
	finish
fi
check ivshmem_present sh -c "lspci -n -d 1af4:1110 | grep -q ."
ip link set "$if0" up
ip link set "$if1" up
check carrier_0 wait_carrier "$if0" 10
check carrier_1 wait_carrier "$if1" 10

# kmsg_results: the module's PASS/FAIL lines as test lines.
kmsg_results() {
	dmesg | sed -n 's/.*snic_peer_test: \(PASS .*\)/\1/p; s/.*snic_peer_test: \(FAIL .*\)/\1/p' > /tmp/peer.res
	while read -r st rest; do
		case "$st" in
		PASS) pass "$1$rest" ;;
		FAIL) fail "$1${rest%%:*}" "${rest#*: }" ;;
		esac
	done < /tmp/peer.res
}

check load_test modprobe snic_peer_test if0="$if0" if1="$if1" frames=24 hold=1
kmsg_results ""
check all_passed sh -c "dmesg | grep -q 'snic_peer_test: DONE [1-9][0-9]* passed, 0 failed'"
dmesg | grep 'snic_peer_test: BAR' | sed 's/^\[[ 0-9.]*\] //'

# The netdev still works next to the peer queues.
ip netns add p
ip link set "$if1" netns p
ip addr add 10.0.0.1/24 dev "$if0"
ip netns exec p ip addr add 10.0.0.2/24 dev "$if1"
ip netns exec p ip link set "$if1" up
check ping_beside_peer wait_ping 10.0.0.2 20

# Unbind snic #0 while the test module still holds queues on it: its
# remove callback destroys them (snic finds none left), nothing oopses.
dev0=$(basename "$(readlink -f "/sys/class/net/$if0/device")")
check unbind_held sh -c "echo $dev0 > /sys/bus/pci/drivers/snic/unbind"
check unbound sh -c "[ ! -e /sys/bus/pci/drivers/snic/$dev0 ]"
check removed_by_bus sh -c "dmesg | grep -q 'snic_peer_test: REMOVE destroy_sq 0'"
check none_left_at_removal sh -c "! dmesg | grep 'peer queues/rules still existed at removal'"
check rmmod_test rmmod snic_peer_test
check rebind sh -c "echo $dev0 > /sys/bus/pci/drivers/snic/bind"
check rebound sh -c "[ -e /sys/bus/pci/drivers/snic/$dev0 ]"
ip netns del p
check rmmod_snic snic_rmmod
check dmesg_clean dmesg_clean
finish
