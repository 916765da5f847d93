# snic RDMA device, kernel side, between two guests: the ib_device is bound
# to the snic netdev (RoCE v2 only, GIDs from the netdev's IPv4 addresses),
# its port follows the link, ib_core's GSI QP and objects exist on it, and
# the snic module unloads and reloads while an in-kernel RDMA user (an
# nvmet-rdma port listening on the device) is present.
# vm-args: --guests 2
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma.inc

rdma_setup
p=/sys/class/infiniband/$ibdev/ports/1
gid=$(v4_gid "10.0.0.$me")
check bound_netdev sh -c "grep -qx '$if' $p/gid_attrs/ndevs/0"
check link_layer_eth sh -c "grep -qx Ethernet $p/link_layer"
check port_active sh -c "for i in \$(seq 50); do grep -q ACTIVE $p/state && exit 0; sleep 0.1; done; cat $p/state; exit 1"
check roce_v2_gid wait_gid "$ibdev" "$gid" 10
check only_roce_v2 sh -c "! grep -l 'RoCE v1' $p/gid_attrs/types/* 2>/dev/null | grep -q ."
check node_type sh -c "grep -q '^1: CA' /sys/class/infiniband/$ibdev/node_type"
# node GUID = EUI-64 of the port's MAC (xx:xx:xx:ff:fe:xx:xx:xx).
mac=$(tr -d : < "/sys/class/net/$if/address")
guid=$(tr -d : < "/sys/class/infiniband/$ibdev/node_guid")
check node_guid_from_mac sh -c "[ '$(echo "$guid" | cut -c7-10)' = fffe ] &&
	[ '$(echo "$guid" | cut -c11-16)' = '$(echo "$mac" | cut -c7-12)' ]"

# A second address gets its GID; deleting it removes the GID.
gid2=$(v4_gid "10.0.1.$me")
ip addr add "10.0.1.$me/24" dev "$if"
check gid_follows_addr wait_gid "$ibdev" "$gid2" 10
ip addr del "10.0.1.$me/24" dev "$if"
check gid_removed_with_addr wait_no_gid "$ibdev" "$gid2" 10

if command -v rdma >/dev/null; then
	check rdma_link sh -c "rdma link show $ibdev/1 | grep -q 'state ACTIVE.*netdev $if'"
	# ib_mad's GSI QP (qpn 1), its PD and CQ live on the device.
	check rdma_res_gsi_qp sh -c "rdma resource show qp link $ibdev/1 | grep -q 'lqpn 1 .*type GSI'"
	check rdma_res_pd_cq sh -c "rdma resource show $ibdev | grep -Eq 'pd [1-9].*' &&
		rdma resource show $ibdev | grep -Eq 'cq [1-9]'"
else
	skip rdma_link "iproute2 rdma tool not in the image"
fi

# Link down on guest 1: both ports go down, then up again.
check barrier_1 barrier 1
if [ "$me" = 1 ]; then
	ip link set "$if" down
	check port_down_with_link sh -c "for i in \$(seq 50); do grep -q DOWN $p/state && exit 0; sleep 0.1; done; exit 1"
	ip link set "$if" up
	check carrier_back wait_carrier "$if" 10
	check port_active_again sh -c "for i in \$(seq 50); do grep -q ACTIVE $p/state && exit 0; sleep 0.1; done; exit 1"
fi
check barrier_2 barrier 2

# Unload with an RDMA user present: an nvmet-rdma port listening on this
# guest's address holds an rdma_cm id bound to the device.
cfs=/sys/kernel/config
if modprobe nvmet-rdma 2>/dev/null; then
	grep -q configfs /proc/mounts || mount -t configfs none $cfs
	port=$cfs/nvmet/ports/1
	mkdir -p $port
	echo rdma > $port/addr_trtype
	echo ipv4 > $port/addr_adrfam
	echo "10.0.0.$me" > $port/addr_traddr
	echo 4420 > $port/addr_trsvcid
	mkdir -p $cfs/nvmet/subsystems/reload
	echo 1 > $cfs/nvmet/subsystems/reload/attr_allow_any_host
	check nvmet_listen ln -s $cfs/nvmet/subsystems/reload $port/subsystems/reload
	check listener_on_dev sh -c "rdma resource show cm_id | grep -q 'link $ibdev/1 .*state LISTEN' ||
		{ rdma resource show cm_id | tr '\n' ' '; exit 1; }"
	check rmmod_with_user snic_rmmod
	check ibdev_gone sh -c "! ls /sys/class/infiniband 2>/dev/null | grep -q snic"
	check modprobe_again modprobe snic
	if2=$(netdev_by_driver snic)
	ip addr add "10.0.0.$me/24" dev "$if2"
	ip link set "$if2" up
	check ibdev_back snic_ibdev 10
	rm -f $port/subsystems/reload
	rmdir $cfs/nvmet/subsystems/reload $port
	check rmmod_nvmet sh -c "rmmod nvmet_rdma nvmet"
else
	skip rmmod_with_user "nvmet-rdma not in the image"
fi
check rmmod_snic snic_rmmod
check dmesg_clean dmesg_clean
finish
