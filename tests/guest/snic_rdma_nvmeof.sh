# NVMe over Fabrics on the snic RoCEv2 device: guest 1 exports a
# file-backed namespace with nvmet-rdma, guest 2 connects with nvme-rdma
# (rdma_cm address/route resolution, CM MADs on the GSI QP, RC QPs with
# fast registration and remote invalidation), writes random data, reads it
# back and compares checksums, then disconnects; both unload everything and
# no RC QP is left on either device.
# vm-args: --guests 2
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma.inc

NQN=d2d-snic-nvmeof
rdma_setup
check gid_ready wait_gid "$ibdev" "$(v4_gid "10.0.0.$me")" 10

if [ "$me" = 1 ]; then
	nvmet_target_up 10.0.0.1 $NQN
	check barrier_target barrier 1
	# Guest 2 connects, does its I/O and disconnects.
	check barrier_done barrier 2
	check no_rc_qp_left no_rc_qps "$ibdev"
	nvmet_target_down $NQN
else
	check barrier_target barrier 1
	nvme_host_io 10.0.0.1 $NQN
	check no_rc_qp_left no_rc_qps "$ibdev"
	check barrier_done barrier 2
fi
hc=/sys/class/infiniband/$ibdev/ports/1/hw_counters
check roce_traffic sh -c "[ \$(cat $hc/rx_pkts) -gt 1000 ] && [ \$(cat $hc/tx_pkts) -gt 1000 ]"
check rmmod_snic rmmod snic
check dmesg_clean dmesg_clean
finish
