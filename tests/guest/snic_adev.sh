# snic.ko's roles are auxiliary devices: each function gets snic.eth.N,
# snic.rdma.N (RDMA capability), one peer device per peer-queue user
# (snic.peer_fld.N, snic.peer_hdc.N, snic.peer_test.N: bound by that
# user's driver when it is loaded) and snic.spin.N (sPIN capability),
# each bound by its driver.  Unbinding snic.eth.N takes the
# net_device and the roles on top of it (RDMA, peer, sPIN) away; binding
# it again brings them back; rmmod leaves no auxiliary device behind.
# vm-args: --guests 1
. /opt/d2d/tests/lib.sh

aux=/sys/bus/auxiliary
count() { ls -d "$aux/devices/$1".* 2>/dev/null | wc -l; }
netdevs() {
	local d n=0
	for d in /sys/class/net/*; do
		[ "$(readlink -f "$d/device/driver")" = /sys/bus/pci/drivers/snic ] &&
			n=$((n + 1))
	done
	echo $n
}
ibdevs() { ls /sys/class/infiniband 2>/dev/null | grep -c '^snic_'; }

check modprobe modprobe snic
check eth_devices test "$(count snic.eth)" = 2
for u in fld hdc test; do
	check "peer_${u}_devices" test "$(count snic.peer_$u)" = 2
done
check peer_unbound_without_user sh -c "! ls -d $aux/drivers/*/snic.peer_* 2>/dev/null"
check rdma_devices test "$(count snic.rdma)" = 2
check spin_devices test "$(count snic.spin)" = 2
# snic.rdma's driver is snic_ib.ko's (modprobe snic loads it too).
for r in snic.eth snic_ib.rdma snic.spin; do
	check "bound_${r#*.}" sh -c "[ \$(ls -d $aux/drivers/$r/snic.${r#*.}.* | wc -l) = 2 ]"
done
check parent_is_pci sh -c "readlink -f $aux/devices/snic.eth.0 | grep -q '/0000:00:0[12].0/snic.eth.0$'"
check two_netdevs test "$(netdevs)" = 2
check two_ibdevs test "$(ibdevs)" = 2

# The roles on top of the net_device follow it.
check unbind_eth sh -c "echo snic.eth.0 > $aux/drivers/snic.eth/unbind"
check unbind_one_netdev test "$(netdevs)" = 1
check unbind_one_ibdev test "$(ibdevs)" = 1
check unbind_rdma_gone test "$(count snic.rdma)" = 1
check unbind_peer_gone test "$(count snic.peer_fld)" = 1
check unbind_spin_gone test "$(count snic.spin)" = 1
check bind_eth sh -c "echo snic.eth.0 > $aux/drivers/snic.eth/bind"
check bind_two_netdevs test "$(netdevs)" = 2
check bind_two_ibdevs test "$(ibdevs)" = 2
check bind_roles_back sh -c "[ $(count snic.rdma)$(count snic.peer_fld)$(count snic.spin) = 222 ]"

check rmmod snic_rmmod
check none_left test "$(count snic)" = 0
check dmesg_clean dmesg_clean
finish
