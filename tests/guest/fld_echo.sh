# FLD-E echo: fld.ko creates snic #0's queues for FLD through snic's
# peer-queue API - send ring, completion ring, doorbell records and
# receive buffers in the FLD's BAR - and steers UDP port 7 to them.  The
# other snic port, in its own network namespace (the "other host"), sends
# datagrams to port 7 and gets every one back from the FLD's echo
# accelerator.  The host CPU does no per-packet work for them: snic #0's
# interrupts and driver receive counters do not move.  Then fldctl: the
# memory table, a flow change, bad arguments; unload and reload.
# vm-args: --guests 1 --qemu-arg -device --qemu-arg fld,id=fld0
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

N=2000

snic_pair_netns

# tx_signal=1: every sent frame is completed, so the pool drains to 0 when
# idle (with the default 1 in 16, up to 15 sent frames keep their buffers
# until a later completion: docs/fld.md "PCIe efficiency").
check modprobe_fld modprobe fld snic="$if0" udp_port=7 tx_signal=1
check fld_bound sh -c "ls -d /sys/bus/pci/drivers/fld/0000:* >/dev/null"
check flde_up sh -c "fldctl show | grep -q 'flde snic_cq'"
check accel_echo sh -c "fldctl show | grep -q 'accel echo'"
fldctl show | sed 's/^/# /'

# Host-side per-packet work on snic #0: its channel interrupts and its
# driver's receive counters.
irq0=$(host_irqs "$if0")
rx0=$(ethsum "$if0" 'rx[0-9]+_packets')
tx0=$(ethsum "$if0" 'tx[0-9]+_packets')
e0=$(fldctl get accel_tx)

check echo_${N}x200 ip netns exec p fld-udp ping 10.0.0.1 7 $N 200 16
check echo_64B ip netns exec p fld-udp ping 10.0.0.1 7 200 18 8
check echo_1400B ip netns exec p fld-udp ping 10.0.0.1 7 200 1400 8

irq1=$(host_irqs "$if0")
rx1=$(ethsum "$if0" 'rx[0-9]+_packets')
tx1=$(ethsum "$if0" 'tx[0-9]+_packets')
e1=$(fldctl get accel_tx)
echo "# fld echoed $((e1 - e0)); host $if0: irqs +$((irq1 - irq0)) rx +$((rx1 - rx0)) tx +$((tx1 - tx0))"
check fld_echoed_all test $((e1 - e0)) -eq $((N + 400))
# a few ARP/neighbour frames may reach the host; never one per packet
check host_no_per_packet_rx test $((rx1 - rx0)) -lt 20
check host_no_per_packet_tx test $((tx1 - tx0)) -lt 20
check host_no_per_packet_irq test $((irq1 - irq0)) -lt 20
check no_device_errors sh -c "fldctl errors | grep -q '^count 0 '"
# snic's own counters of FLD-E's queues (what bench-fld reads): named sq
# and rq, every echoed frame sent on the SQ, its PCIe traffic counted
nic_sq() { fldctl nic | awk -v f="$1" '$1 == "sq" { for (i = 2; i < NF; i += 2) if ($i == f) print $(i + 1) }'; }
check nic_sq_packets test "$(nic_sq packets)" -ge $((N + 400))
check nic_sq_tlp_bytes test "$(nic_sq tlp_bytes)" -gt "$(nic_sq bytes)"
check pool_drained sh -c "fldctl show | grep -q 'pool_descs 2048 in_use 0'"
# idle again: the SQ has all its credits back (64 ring slots, the pool)
check credits_restored sh -c "fldctl show | grep -q '^flde_credits tenant 0 descs 64 bytes 1048576$'"

# The memory table: the paper's configuration, FLD vs conventional, x105.
fldctl mem | sed 's/^/# /'
check mem_ratio sh -c "fldctl mem | grep -q 'ratio conventional/fld: x105'"
check mem_total sh -c "fldctl mem | grep -q '^total .*832.7 KiB.*85.4 MiB'"

# Flow changes: port 9 to FLD, port 7 back to the host stack.
check flow_udp_9 fldctl flow udp 9
check echo_port_9 ip netns exec p fld-udp ping 10.0.0.1 9 50 100 4
check port_7_not_fld sh -c "! ip netns exec p fld-udp ping 10.0.0.1 7 3 100 3"
check flow_bad_port sh -c "! fldctl flow udp 70000"
check sysfs_bad_value sh -c "! sh -c 'echo junk > /sys/bus/pci/drivers/fld/*/udp_port' 2>/dev/null"
check flow_udp_7 fldctl flow udp 7

# Unload (queues and rule go) and load again.
check rmmod_fld rmmod fld
check port_7_after_rmmod sh -c "! ip netns exec p fld-udp ping 10.0.0.1 7 2 100 2"
check reload_fld modprobe fld snic="$if0" udp_port=7
check echo_after_reload ip netns exec p fld-udp ping 10.0.0.1 7 100 300 8
check rmmod_fld_again rmmod fld
ip netns del p
check rmmod_snic snic_rmmod
check dmesg_clean dmesg_clean
finish
