# fld.ko binds its snic through the bus: it is the auxiliary driver of the
# snic's peer device.  Unbinding the snic's PCI function while FLD-E runs
# tears fld's queues and rules down in fld's remove callback (snic finds
# none left over, FLD-E shows down); binding the function again brings
# FLD-E back on it and the echo works, without reloading fld.  No oops.
# Before that, another user of snic's peer-queue API (snic_peer_test.ko,
# through its own handle) cannot reach fld's queues and rule by number:
# every call is -ENOENT, and the echo still works afterwards.
# vm-args: --guests 1 --qemu-arg -device --qemu-arg fld,id=fld0
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

snic_pair_netns
check modprobe_fld modprobe fld snic="$if0" udp_port=7
check flde_up sh -c "fldctl show | grep -q 'flde snic_cq'"
check echo_before ip netns exec p fld-udp ping 10.0.0.1 7 50 100 4

# "flde snic_cq C snic_sq S snic_rq R rule U ..."
set -- $(fldctl show | sed -n 's/^flde snic_cq \([0-9]*\) snic_sq \([0-9]*\) snic_rq \([0-9]*\) rule \([0-9]*\) .*/\1 \2 \3 \4/p' | head -n 1)
check fld_objects_named test "$#" -eq 4
check foreign_load modprobe snic_peer_test if0="$if0" foreign_cq="$1" \
	foreign_sq="$2" foreign_rq="$3" foreign_rule="$4"
dmesg | sed -n 's/.*snic_peer_test: FAIL \(.*\)/# foreign: FAIL \1/p'
check foreign_all_refused sh -c "dmesg | grep -q 'snic_peer_test: DONE 10 passed, 0 failed'"
check foreign_unload rmmod snic_peer_test
check echo_after_foreign ip netns exec p fld-udp ping 10.0.0.1 7 50 100 4

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
