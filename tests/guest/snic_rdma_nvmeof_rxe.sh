# Soft-RoCE interop in the kernel: guest 1's snic (nvme-rdma host) against
# guest 2's rdma_rxe on a virtio-net port of the same wire (nvmet-rdma
# target).  rdma_cm, CM MADs, RC SEND / RDMA READ / WRITE / remote
# invalidation cross between the two RoCEv2 implementations; data written
# through snic is read back and compared.
# vm-args: --guests 2 --rxe-peer
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma.inc

NQN=d2d-snic-rxe
if [ "$D2D_GUEST" = 1 ]; then
	rdma_setup
	check gid_ready wait_gid "$ibdev" "$(v4_gid 10.0.0.1)" 10
	check barrier_target barrier 1
	nvme_host_io 10.0.0.2 $NQN
	check no_rc_qp_left no_rc_qps "$ibdev"
	check barrier_done barrier 2
	hc=/sys/class/infiniband/$ibdev/ports/1/hw_counters
	check roce_traffic sh -c "[ \$(cat $hc/rx_pkts) -gt 1000 ] && [ \$(cat $hc/rx_icrc_errors) = 0 ]"
	check rmmod_snic snic_rmmod
else
	me=2
	modprobe virtio_net; modprobe virtio_pci
	if=""
	for i in $(seq 1 50); do
		if=$(netdev_by_driver virtio_net) && break
		sleep 0.1
	done
	[ -n "$if" ] || { fail setup "no virtio-net port"; finish; }
	ip addr add 10.0.0.2/24 dev "$if"
	ip link set "$if" up
	check setup wait_carrier "$if" 10
	# rdma_rxe's ICRC needs the crypto API's crc32.
	check modprobe_rxe sh -c "modprobe crc32_generic; modprobe rdma_rxe"
	check rxe_link rdma link add rxe0 type rxe netdev "$if"
	check rxe_gid wait_gid rxe0 "$(v4_gid 10.0.0.2)" 10
	nvmet_target_up 10.0.0.2 $NQN
	check barrier_target barrier 1
	check barrier_done barrier 2
	check no_rc_qp_left no_rc_qps rxe0
	nvmet_target_down $NQN
	check rxe_del rdma link delete rxe0
fi
check dmesg_clean dmesg_clean
finish
