# FLD-E echo between two guests: guest 1 has the FLD (fld.ko, FLD-E on UDP
# port 7 of its snic); guest 2 sends datagrams over the wire and gets every
# one back from the FLD's echo accelerator, while guest 1's snic channels
# see no interrupts and its driver no packets for them.
# vm-args: --guests 2 --qemu-arg -device --qemu-arg fld,id=fld0
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

snic_eth_setup

if [ "$D2D_GUEST" = 1 ]; then
	check modprobe_fld modprobe fld snic="$if" udp_port=7
	check flde_up sh -c "fldctl show | grep -q 'flde snic_cq'"
	check ping_peer wait_ping "$peer" 30
	irq0=$(host_irqs "$if") rx0=$(ethsum "$if" 'rx[0-9]+_packets')
	check barrier_1 barrier 1
	check barrier_2 barrier 2	# guest 2 sends meanwhile
	irq1=$(host_irqs "$if") rx1=$(ethsum "$if" 'rx[0-9]+_packets')
	echo "# fld echoed $(fldctl get accel_tx); host irqs +$((irq1 - irq0)) rx +$((rx1 - rx0))"
	check fld_echoed_1000 test "$(fldctl get accel_tx)" -eq 1000
	# the barriers' own TCP connections reach the host: a few frames
	check host_no_per_packet_rx test $((rx1 - rx0)) -lt 50
	check host_no_per_packet_irq test $((irq1 - irq0)) -lt 50
	check no_device_errors sh -c "fldctl errors | grep -q '^count 0 '"
	check rmmod_fld rmmod fld
else
	check ping_peer wait_ping "$peer" 30
	check barrier_1 barrier 1
	check echo_1000_from_guest_2 fld-udp ping "$peer" 7 1000 256 16
	check barrier_2 barrier 2
fi
check dmesg_clean dmesg_clean
finish
