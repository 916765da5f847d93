# FLD-R between two guests: guest 1 has the FLD with the zuc accelerator
# (fld.ko listens with rdma_cm on port 7471 and connects each client to an
# RC QP whose queues live in the FLD); guest 2 is the client (fld-zuc over
# librdmacm): the 3GPP EEA3/EIA3 test sets, a file encrypted and decrypted
# through the accelerator and checked against the local computation, EIA3
# MACs of its blocks, a short header answered with FLD_ZUC_EHDR and
# counted, a message too large for FLD's receive buffers (the QP fails,
# counted and reported, the next connection is served), then 500
# requests while guest 1's snic interrupts stay still.
# vm-args: --guests 2 --qemu-arg -device --qemu-arg fld,id=fld0,accel=zuc
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_two_guests
host_irqs() { awk '/snic|'"$if"'/ { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' /proc/interrupts; }
key=00112233445566778899aabbccddeeff
srv=10.0.0.1:7471

if [ "$me" = 1 ]; then
	check modprobe_fld modprobe fld snic="$if" udp_port=0 rdma_port=7471
	check fldr_listening sh -c "fldctl show | grep -q 'fldr rdma_port 7471'"
	check ping_peer wait_ping "$peer" 30
	check barrier_1 barrier 1
	check barrier_2 barrier 2	# guest 2's functional checks
	check short_header_counted test "$(fldctl get qp_bad_msgs)" -eq 1
	check oversize_counted test "$(fldctl get qp_err_cqes)" -ge 1
	check oversize_reported sh -c "fldctl errors | grep -q '^count [1-9]'"
	check accepts sh -c "fldctl show | grep -q 'accepts [7-9]'"
	irq0=$(host_irqs) recv0=$(fldctl get qp_recvs)
	nerr=$(fldctl errors | awk '/^count/ { print $2 }')
	check barrier_3 barrier 3
	check barrier_4 barrier 4	# guest 2 sends 500 requests meanwhile
	irq1=$(host_irqs) recv1=$(fldctl get qp_recvs)
	echo "# FLD-R served $((recv1 - recv0)) requests; snic irqs +$((irq1 - irq0))"
	check served_500 test $((recv1 - recv0)) -eq 500
	check answered_all test "$(fldctl get qp_sends)" -eq "$(fldctl get qp_recvs)"
	# rdma_cm's MADs of one connection and the barriers' TCP: a few
	check host_no_per_request_irq test $((irq1 - irq0)) -lt 60
	check queues_empty sh -c "! fldctl show | grep -q '^fldr_qp'"
	fsys=$(ls -d /sys/bus/pci/drivers/fld/0000:* | head -1)
	check rdma_port_off sh -c "echo 0 > $fsys/rdma_port && fldctl show | grep -q 'fldr down'"
	check rdma_port_on sh -c "echo 7471 > $fsys/rdma_port && fldctl show | grep -q 'fldr rdma_port 7471'"
	check no_new_device_errors sh -c "fldctl errors | grep -q '^count $nerr '"
	check rmmod_fld rmmod fld
else
	check ping_peer wait_ping "$peer" 30
	check barrier_1 barrier 1
	check test_vectors fld-zuc test-vectors --rdma "$srv"
	dd if=/dev/urandom of=/tmp/f bs=1000 count=100 2>/dev/null
	check encrypt sh -c "fld-zuc encrypt --rdma $srv --key $key --count 7 --bearer 3 /tmp/f > /tmp/f.enc"
	check encrypt_local sh -c "fld-zuc encrypt --local --key $key --count 7 --bearer 3 /tmp/f > /tmp/f.loc"
	check encrypt_matches_local cmp /tmp/f.enc /tmp/f.loc
	check ciphertext_differs sh -c "! cmp -s /tmp/f /tmp/f.enc"
	check decrypt sh -c "fld-zuc decrypt --rdma $srv --key $key --count 7 --bearer 3 /tmp/f.enc > /tmp/f.dec"
	check round_trip cmp /tmp/f /tmp/f.dec
	check auth sh -c "fld-zuc auth --rdma $srv --key $key --dir 1 /tmp/f > /tmp/f.mac"
	check auth_local sh -c "fld-zuc auth --local --key $key --dir 1 /tmp/f > /tmp/f.macl"
	check auth_matches_local sh -c "[ \$(wc -l < /tmp/f.mac) = 13 ] && cmp /tmp/f.mac /tmp/f.macl"
	check short_header_ehdr sh -c "fld-zuc bad-header --rdma $srv | grep -q '^status 4$'"
	# a message larger than FLD's receive buffer: the QP fails, is torn
	# down at the disconnect, and the next connection is served
	check oversize_fails fld-zuc oversize --rdma "$srv"
	check vectors_after_error fld-zuc test-vectors --rdma "$srv"
	check barrier_2 barrier 2
	check barrier_3 barrier 3
	check load_500 fld-zuc rdma-load "$srv" 500 4096 8
	check barrier_4 barrier 4
fi
check dmesg_clean dmesg_clean
finish
