# insmod/rmmod snic ten times with both ports up and traffic running
# between them (the second port in a network namespace, so frames cross
# the hub): every cycle brings the ports and their channels up, and rmmod
# tears everything down under load without warnings, leaks or stray IRQs.
# vm-args: --guests 1
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

# LEFT: lists the interfaces (of the namespace it runs in) with a device
# behind them; a kernel's own fallback tunnels (sit0 on the debug kernel,
# in every namespace) have none and stay.
LEFT='for n in /sys/class/net/*; do [ -e "$n/device" ] && echo "${n##*/}"; done; true'

ip netns add p
bad=""
for i in $(seq 1 10); do
	modprobe snic || { bad="modprobe failed in cycle $i"; break; }
	set -- $(snic_netdevs)
	[ $# = 2 ] || { bad="cycle $i: interfaces '$*'"; break; }
	ip link set "$2" netns p
	ip addr add 10.0.0.1/24 dev "$1"
	ip link set "$1" up
	ip netns exec p ip addr add 10.0.0.2/24 dev "$2"
	ip netns exec p ip link set "$2" up
	wait_ping 10.0.0.2 20 >/dev/null || { bad="cycle $i: no ping"; break; }
	# Unload in the middle of a stream of pings both ways.
	ping -i 0.05 -c 100 10.0.0.2 >/dev/null 2>&1 &
	ip netns exec p ping -i 0.05 -c 100 -s 1400 10.0.0.1 >/dev/null 2>&1 &
	sleep 0.5
	snic_rmmod || { bad="rmmod failed in cycle $i"; break; }
	wait
	grep -q -e snic-admin -e -ch0 /proc/interrupts && { bad="cycle $i: IRQ left after rmmod"; break; }
	left=$(sh -c "$LEFT")
	[ -z "$left" ] || { bad="cycle $i: interface left: $left"; break; }
	left=$(ip netns exec p sh -c "$LEFT")
	[ -z "$left" ] || { bad="cycle $i: interface left in netns: $left"; break; }
done
[ -z "$bad" ] && pass ten_cycles_up || fail ten_cycles_up "$bad"
check no_module_left sh -c '! lsmod | grep -q "^snic "'
check probe_count sh -c '[ "$(dmesg | grep -c "snic 0000:00:0[12].0 eth[0-9]*: 2 of")" -ge 20 ]'
check dmesg_clean dmesg_clean
finish
