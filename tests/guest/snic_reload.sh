# insmod/rmmod snic.ko 20 times: every cycle binds both ports again, and the
# kernel log stays free of warnings, oopses and leak reports.
# vm-args: --guests 1
. /opt/d2d/tests/lib.sh

bad=""
for i in $(seq 1 20); do
	modprobe snic || { bad="modprobe failed in cycle $i"; break; }
	n=$(snic_devices | wc -l)
	[ "$n" = 2 ] || { bad="cycle $i: $n devices bound"; break; }
	snic_rmmod || { bad="rmmod failed in cycle $i"; break; }
	grep -q snic-admin /proc/interrupts && { bad="cycle $i: IRQ left after rmmod"; break; }
done
[ -z "$bad" ] && pass twenty_cycles || fail twenty_cycles "$bad"
check no_module_left sh -c '! lsmod | grep -q "^snic "'
check probe_count sh -c '[ "$(dmesg | grep -c "d2d-snic 0.1.0, caps")" = 40 ]'
check dmesg_clean dmesg_clean
finish
