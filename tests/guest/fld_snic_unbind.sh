# fld.ko binds its snic through the bus: it is the auxiliary driver of the
# snic's peer device.  Unbinding the snic's PCI function while FLD-E runs
# tears fld's queues and rules down in fld's remove callback (snic finds
# none left over, FLD-E shows down); binding the function again brings
# FLD-E back on it and the echo works, without reloading fld.  No oops.
# vm-args: --guests 1 --qemu-arg -device --qemu-arg fld,id=fld0
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

snic_pair_netns
check modprobe_fld modprobe fld snic="$if0" udp_port=7
check flde_up sh -c "fldctl show | grep -q 'flde snic_cq'"
check echo_before ip netns exec p fld-udp ping 10.0.0.1 7 50 100 4

dev0=$(basename "$(readlink -f "/sys/class/net/$if0/device")")
check unbind_snic sh -c "echo $dev0 > /sys/bus/pci/drivers/snic/unbind"
check flde_down_after_unbind sh -c "fldctl show | grep -q '^flde down'"
check no_peer_queues_left sh -c "! dmesg | grep 'peer queues/rules still existed at removal'"
check fld_stays test -d /sys/module/fld

check bind_snic sh -c "echo $dev0 > /sys/bus/pci/drivers/snic/bind"
check same_name sh -c "sleep 1; ls /sys/bus/pci/devices/$dev0/net | grep -qx '$if0'"
ip addr add 10.0.0.1/24 dev "$if0"
ip link set "$if0" up
check carrier_after_bind wait_carrier "$if0" 10
check flde_up_after_bind sh -c "fldctl show | grep -q 'flde snic_cq'"
check echo_after_bind ip netns exec p fld-udp ping 10.0.0.1 7 50 100 4

check rmmod_fld rmmod fld
ip netns del p
check rmmod_snic snic_rmmod
check dmesg_clean dmesg_clean
finish
