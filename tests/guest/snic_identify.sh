# snic.ko binds both snic functions of the one-guest topology, brings up the
# admin queue and exposes what IDENTIFY returned.
# vm-args: --guests 1
. /opt/d2d/tests/lib.sh

check modprobe modprobe snic
n=$(snic_devices | wc -l)
[ "$n" = 2 ] && pass bound_two_ports || fail bound_two_ports "$n devices bound"
check lspci_ids sh -c '[ "$(lspci -n -d 1234:d201 | wc -l)" = 2 ]'
i=0
for d in $(snic_devices); do
	check "fw_version_$i" test "$(cat "$d/fw_version")" = "d2d-snic 0.1.0"
	check "hw_version_$i" test "$(cat "$d/hw_version")" = "0.1"
	check "serial_$i" test "$(cat "$d/serial")" = "SNIC-1-$i"
	check "caps_$i" sh -c "[ \$(( \$(cat $d/caps) & 1 )) = 1 ]"
	check "admin_cmds_$i" sh -c "grep -q '^cmds [1-9]' $d/admin_stats"
	check "admin_no_errors_$i" grep -q '^errors 0' "$d/admin_stats"
	i=$((i + 1))
done
check admin_irq_delivered sh -c "awk '/snic-admin/ {for (i = 2; i <= 3; i++) s += \$i} END {exit !(s >= 2)}' /proc/interrupts"
check probe_message sh -c 'dmesg | grep -q "snic 0000:00:0[12].0: d2d-snic 0.1.0, caps 0x[0-9a-f]"'
check dmesg_clean dmesg_clean
finish
