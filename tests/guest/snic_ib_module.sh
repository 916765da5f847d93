# snic_ib.ko is a module of its own, the driver of snic.rdma.N: snic.ko
# alone gives the net_devices (Ethernet works) and leaves snic.rdma.N
# unbound, no ib_device; loading snic_ib binds them and the ib_devices
# appear; unloading snic_ib alone takes them away and leaves the
# net_devices up and working.  modprobe snic loads both (softdep).
# vm-args: --guests 1
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

aux=/sys/bus/auxiliary
ibdevs() { ls /sys/class/infiniband 2>/dev/null | grep -c '^snic_'; }
rdma_bound() { ls -d $aux/drivers/*.rdma/snic.rdma.* 2>/dev/null | wc -l; }

check insmod_snic_alone insmod "$(modinfo -n snic)"
check alone_no_snic_ib test ! -d /sys/module/snic_ib
snic_pair_netns
check alone_rdma_devices test "$(ls -d $aux/devices/snic.rdma.* | wc -l)" = 2
check alone_rdma_unbound test "$(rdma_bound)" = 0
check alone_no_ibdev test "$(ibdevs)" = 0
check alone_ping ping -c 2 -W 2 10.0.0.2

check modprobe_snic_ib modprobe snic_ib
check ib_rdma_bound sh -c "[ \$(ls -d $aux/drivers/snic_ib.rdma/snic.rdma.* | wc -l) = 2 ]"
check ib_two_ibdevs test "$(ibdevs)" = 2

check rmmod_snic_ib rmmod snic_ib
check rmmod_ib_no_ibdev test "$(ibdevs)" = 0
check rmmod_ib_snic_stays test -d /sys/module/snic
check rmmod_ib_netdev_up sh -c "ip link show $if0 | grep -q 'state UP'"
check rmmod_ib_ping ping -c 2 -W 2 10.0.0.2
ip netns del p

check snic_rmmod snic_rmmod
check modprobe_loads_ib modprobe snic
check softdep_snic_ib sh -c "sleep 1; test -d /sys/module/snic_ib"
check softdep_two_ibdevs test "$(ibdevs)" = 2
check snic_rmmod_again snic_rmmod
check none_left test ! -d /sys/module/snic
check dmesg_clean dmesg_clean
finish
