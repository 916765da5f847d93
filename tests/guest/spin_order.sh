# sPIN ordering: for every message the header handler ends before the
# payload handler starts and the completion handler runs last.  The
# "order" handlers take tickets from an atomic counter in handler memory
# and read the HPU cycle counter; each completion writes its message's
# record to host memory (see userspace/spin/testhandlers/order.c), which
# guest 1 checks for all 64 messages guest 2 sends back to back.
# vm-args: --guests 2
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/spin.inc

spin_setup
if [ "$me" = 1 ]; then
	check start spin_start order -p 9400 -r 2048 -s 64 -o 0:/tmp/order.bin \
		--peek order_violations:1 "$H/order.elf"
	check barrier_1 barrier 1
	check barrier_2 barrier 2
	spin_stop order
	spin-udp u32 /tmp/order.bin | paste -d' ' - - - - - - - - > /tmp/order.rec
	expect records "$(awk '$1 > 0' /tmp/order.rec | wc -l)" 64
	# msg+1, h_start, h_end, p_start, p_end, c_start, bad, cycles_ok
	expect ticket_order "$(awk '$1 > 0 && !($2 < $3 && $3 < $4 && $4 < $5 && $5 < $6)' /tmp/order.rec | wc -l)" 0
	expect cycle_order "$(awk '$1 > 0 && $8 != 1' /tmp/order.rec | wc -l)" 0
	expect self_checks "$(awk '$1 > 0 && $7 != 0' /tmp/order.rec | wc -l)" 0
	expect violations "$(grep '^peek order_violations' /tmp/order.out | cut -d= -f2)" " 0"
	expect completions "$(spin_field order handler invocations kind=completion)" 64
	expect messages_done "$(spin_field order stats messages_done)" 64
else
	check barrier_1 barrier 1
	check send spin-udp send 10.0.0.1 9400 -n 64 -s 200
	sleep 1
	check barrier_2 barrier 2
fi
check dmesg_clean dmesg_clean
finish
