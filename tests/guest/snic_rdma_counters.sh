# Per-QP counters through ib_core's counter API (rdma statistic qp ...) on
# snic's counter sets (docs/snic-ib.md "Counters"), one guest with two
# snic ports on a hub.  Auto mode binds each RC QP of the port to a counter
# while it lives; a bound QP's traffic shows in its counter; each packet is
# counted once in the port's hw_counters whether or not a counter holds
# it (port 0's tx_pkts grow by exactly what port 1 receives); manual
# bind and unbind of a live QP; an unprivileged user may not change the
# mode.
# vm-args: --guests 1
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_one_guest
port_hw() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; }

# counted_once NAME PORT: a 4 KiB ping-pong of 200 iterations; port 0's
# tx_pkts grow by what port 1 accepted (rx_pkts), its rx_pkts by what
# port 1 sent.
counted_once() {
	local t0 r0 t1 r1
	t0=$(port_hw "$dev0" tx_pkts) r1=$(port_hw "$dev1" rx_pkts)
	r0=$(port_hw "$dev0" rx_pkts) t1=$(port_hw "$dev1" tx_pkts)
	pair "$1_pingpong" "$2" \
		"ibv_rc_pingpong -d $dev0 -g $gid0 -p $2 -s 4096 -n 200" \
		"ibv_rc_pingpong -d $dev1 -g $gid1 -p $2 -s 4096 -n 200 127.0.0.1"
	sleep 1
	t0=$(( $(port_hw "$dev0" tx_pkts) - t0 )) r1=$(( $(port_hw "$dev1" rx_pkts) - r1 ))
	r0=$(( $(port_hw "$dev0" rx_pkts) - r0 )) t1=$(( $(port_hw "$dev1" tx_pkts) - t1 ))
	check "$1_counted_once" sh -c "[ $t0 -gt 0 ] && [ $t0 = $r1 ] && [ $r0 = $t1 ] ||
		{ echo 'port 0 sent $t0, port 1 took $r1; port 1 sent $t1, port 0 took $r0'; false; }"
}

# bw_bg PORT [SECONDS]: ib_write_bw between the ports for SECONDS (8),
# in the background.
bw_bg() {
	ib_write_bw -d "$dev1" -x "$gid1" -p "$1" -s 4096 -D "${2:-8}" > /tmp/bw.s 2>&1 &
	bws=$!
	wait_listen "$1"
	ib_write_bw -d "$dev0" -x "$gid0" -p "$1" -s 4096 -D "${2:-8}" 127.0.0.1 > /tmp/bw.c 2>&1 &
	bwc=$!
	# until the client's RC QP exists (a debug kernel takes its time)
	for i in $(seq 1 120); do
		rdma resource show qp link "$dev0/1" | grep 'type RC' | grep -q ib_write_bw && break
		sleep 0.5
	done
	sleep 1
}

# counter_tx: tx_pkts of the first counter of port 0, empty if none.
counter_tx() {
	rdma statistic qp show link "$dev0/1" | tr -s ' \n' '  ' |
		sed -n 's/.*cntn [0-9][0-9]*.* tx_pkts \([0-9][0-9]*\).*/\1/p'
}

counted_once off 18600

check nobody_cannot_set_auto sh -c "! setpriv --reuid=nobody --regid=nogroup --clear-groups \
	rdma statistic qp set link $dev0/1 auto type on 2>/dev/null"
check auto_type_on rdma statistic qp set link "$dev0/1" auto type on
bw_bg 18601
rdma statistic qp show link "$dev0/1" > /tmp/qpstat 2>&1
tx=$(counter_tx)
check auto_binds_rc_qp sh -c "grep -q 'cntn [0-9]' /tmp/qpstat && grep -q 'qp-type RC' /tmp/qpstat ||
	{ cat /tmp/qpstat; false; }"
check auto_counter_counts sh -c "[ -n '$tx' ] && [ '$tx' -gt 0 ] || { tr -s ' \\n' '  ' < /tmp/qpstat; echo; false; }"
wait "$bws"; wait "$bwc"
check write_bw_ran sh -c "grep -q 'MsgRate\\|BW average' /tmp/bw.c || { tail -5 /tmp/bw.c; false; }"
counted_once auto 18602
check auto_off rdma statistic qp set link "$dev0/1" auto off

# manual: bind the client's live QP, see it count, unbind it, then stop
# the run (the QP must outlive all that, however slow the guest: with a
# fixed duration, a debug-kernel guest sharing the host with others saw
# it destroyed before the unbind)
bw_bg 18603 600
q=$(rdma resource show qp link "$dev0/1" | grep 'type RC' | grep ib_write_bw |
	sed -n 's/.*lqpn \([0-9][0-9]*\).*/\1/p' | head -1)
check manual_bind sh -c "[ -n '$q' ] && rdma statistic qp bind link $dev0/1 lqpn $q"
# until the bound QP's counter has counted (up to 10 s)
for i in $(seq 1 20); do
	tx=$(counter_tx)
	[ -n "$tx" ] && [ "$tx" -gt 0 ] && break
	sleep 0.5
done
rdma statistic qp show link "$dev0/1" > /tmp/qpstat 2>&1
c=$(tr -s ' \n' '  ' < /tmp/qpstat | sed -n 's/.*cntn \([0-9][0-9]*\).*/\1/p')
check manual_counter_counts sh -c "[ -n '$tx' ] && [ '$tx' -gt 0 ] || { tr -s ' \\n' '  ' < /tmp/qpstat; echo; false; }"
check manual_unbind sh -c "[ -n '$c' ] && rdma statistic qp unbind link $dev0/1 cntn $c lqpn $q ||
	{ rdma resource show qp link $dev0/1 | tr -s ' \\n' '  '; tr -s ' \\n' '  ' < /tmp/qpstat; echo; false; }"
kill "$bwc" "$bws" 2>/dev/null
wait "$bws"; wait "$bwc"
dmesg_clean
finish
