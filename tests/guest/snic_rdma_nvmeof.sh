# NVMe over Fabrics on the snic RoCEv2 device: guest 1 exports a
# file-backed namespace with nvmet-rdma, guest 2 connects with nvme-rdma
# (rdma_cm address/route resolution, CM MADs on the GSI QP, RC QPs with
# fast registration and remote invalidation), writes random data, reads it
# back and compares checksums, then disconnects; both unload everything.
# vm-args: --guests 2
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma.inc

NQN=d2d-snic-nvmeof

# no_rc_qps: the connection's RC QPs are destroyed (within 10 s).
no_rc_qps() {
	local i
	for i in $(seq 1 100); do
		rdma resource show qp link "$ibdev/1" | grep -q 'type RC' || return 0
		sleep 0.1
	done
	echo "RC QPs left: $(rdma resource show qp link "$ibdev/1" | grep -c 'type RC')"
	return 1
}
rdma_setup
check gid_ready wait_gid "$ibdev" "$(v4_gid "10.0.0.$me")" 10
cfs=/sys/kernel/config

if [ "$me" = 1 ]; then
	check modprobe_nvmet modprobe nvmet-rdma
	grep -q configfs /proc/mounts || mount -t configfs none $cfs
	# tmpfs has no O_DIRECT: the namespace uses buffered I/O.
	dd if=/dev/zero of=/tmp/ns.img bs=1M count=32 2>/dev/null
	s=$cfs/nvmet/subsystems/$NQN
	mkdir -p $s/namespaces/1
	echo 1 > $s/attr_allow_any_host
	echo /tmp/ns.img > $s/namespaces/1/device_path
	echo 1 > $s/namespaces/1/buffered_io
	check ns_enable sh -c "echo 1 > $s/namespaces/1/enable"
	port=$cfs/nvmet/ports/1
	mkdir -p $port
	echo rdma > $port/addr_trtype
	echo ipv4 > $port/addr_adrfam
	echo 10.0.0.1 > $port/addr_traddr
	echo 4420 > $port/addr_trsvcid
	check port_listen ln -s $s $port/subsystems/$NQN
	check barrier_target barrier 1
	# Guest 2 connects, does its I/O and disconnects.
	check barrier_done barrier 2
	check no_rc_qp_left no_rc_qps
	rm -f $port/subsystems/$NQN
	echo 0 > $s/namespaces/1/enable
	rmdir $s/namespaces/1 $s $port
	check rmmod_nvmet sh -c "rmmod nvmet_rdma nvmet"
else
	check modprobe_nvme_rdma modprobe nvme-rdma
	check barrier_target barrier 1
	check connect sh -c "nvme connect -t rdma -a 10.0.0.1 -s 4420 -n $NQN -q hostnqn-g2 2>&1"
	dev=""
	for i in $(seq 1 100); do
		# The only NVMe controller of this guest is the fabrics one; with
		# native multipath its namespace is /dev/nvmeXnY, not under it.
		for c in /sys/class/nvme/nvme*; do
			[ "$(cat "$c/transport" 2>/dev/null)" = rdma ] || continue
			n=$(ls /sys/block | grep -E '^nvme[0-9]+n1$' | head -1)
			[ -n "$n" ] && dev=/dev/$n
		done
		[ -n "$dev" ] && [ -b "$dev" ] && break
		sleep 0.1
	done
	if [ -z "$dev" ] || [ ! -b "$dev" ]; then
		fail namespace "no rdma namespace block device ($(ls /sys/class/nvme 2>/dev/null))"
	else
		pass namespace
		check size_32m sh -c "[ \$(blockdev --getsize64 $dev) = 33554432 ]"
		# 8 MiB of random data in 128 KiB direct writes (fast-registered
		# MRs, RDMA READ by the target), then read back (RDMA WRITE).
		dd if=/dev/urandom of=/tmp/data bs=1M count=8 2>/dev/null
		want=$(md5sum < /tmp/data)
		check write dd if=/tmp/data of="$dev" bs=128k oflag=direct
		check read dd if="$dev" of=/tmp/back bs=128k count=64 iflag=direct
		check data_equal sh -c "[ \"\$(md5sum < /tmp/back)\" = '$want' ]"
		# Small unaligned-size I/O (4 KiB, inline data / single page).
		dd if=/dev/urandom of=/tmp/small bs=4k count=16 2>/dev/null
		check write_4k dd if=/tmp/small of="$dev" bs=4k seek=3000 oflag=direct
		check read_4k sh -c "dd if=$dev bs=4k skip=3000 count=16 iflag=direct 2>/dev/null |
			cmp - /tmp/small"
		check data_still_equal sh -c "dd if=$dev bs=128k count=64 iflag=direct 2>/dev/null |
			md5sum | grep -q '${want%% *}'"
	fi
	check disconnect sh -c "nvme disconnect -n $NQN 2>&1 | grep -q 'disconnected 1'"
	check no_ctrl_left sh -c "[ -z \"\$(ls /sys/class/nvme 2>/dev/null)\" ]"
	check no_rc_qp_left no_rc_qps
	check rmmod_nvme_rdma sh -c "rmmod nvme_rdma nvme_fabrics"
	check barrier_done barrier 2
fi
check rmmod_snic rmmod snic
check dmesg_clean dmesg_clean
finish
