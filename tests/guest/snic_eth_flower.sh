# tc flower skip_sw on snic's steering table: one guest, both snic ports
# on the hub, the second (10.0.0.2) in network namespace p sending UDP to
# the first.  A drop rule for UDP port 9999 is in hardware (tc shows
# in_hw), the device drops the datagrams (port_rx_rule_drop) and tc -s
# shows the rule's device counters, other ports still get through;
# with mqprio classes, hw_tc 1 steers port 9997 (eight flows) to queue 1;
# deleting a
# rule removes it from the device; matches the table does not have are
# refused.
# vm-args: --guests 1
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

snic_pair_netns
check hw_tc_on sh -c "ethtool -k $if0 | grep -q '^hw-tc-offload: on'"
check ingress_qdisc tc qdisc add dev "$if0" ingress

# rx_on PORT N: N datagrams from the peer to 10.0.0.1:PORT (spin-udp);
# prints how many a listener on PORT received.
rx_on() {
	spin-udp recv "$1" -n "$2" -t 4 > /tmp/rx.$1 2>&1 &
	sleep 0.5
	ip netns exec p spin-udp send 10.0.0.1 "$1" -n "$2" -s 64 -g 20000 >/dev/null 2>&1
	wait $!
	sed -n 's/^received=\([0-9]*\).*/\1/p' /tmp/rx.$1
}

check drop_rule tc filter add dev "$if0" ingress pref 10 protocol ip flower \
	skip_sw ip_proto udp dst_port 9999 action drop
check drop_rule_in_hw sh -c "tc filter show dev $if0 ingress | grep -q in_hw &&
	tc filter show dev $if0 ingress | grep -q skip_sw"
d0=$(ethstat "$if0" port_rx_rule_drop)
n=$(rx_on 9999 5)
check drop_9999 test "$n" = 0
check drop_counted test $(($(ethstat "$if0" port_rx_rule_drop) - d0)) -ge 5
check drop_tc_stats sh -c "tc -s filter show dev $if0 ingress | grep -Eq 'Sent [1-9][0-9]* bytes [5-9] pkt|Sent [1-9][0-9]* bytes [1-9][0-9]+ pkt'"
n=$(rx_on 9998 3)
check other_port_passes test "$n" -ge 1

# hw_tc: with two mqprio classes, port 9997 to class 1 = queue 1.
ethtool -L "$if0" combined 2
wait_carrier "$if0" 10 >/dev/null
check mqprio tc qdisc add dev "$if0" root mqprio num_tc 2 \
	map 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 queues 1@0 1@1 hw 1 mode channel
check hw_tc_rule tc filter add dev "$if0" ingress pref 20 protocol ip flower \
	skip_sw ip_proto udp dst_port 9997 hw_tc 1
# Eight flows (source ports) that RSS alone would spread over both queues.
q1=$(ethstat "$if0" rx1_packets)
spin-udp recv 9997 -n 8 -t 6 > /tmp/rx.9997 2>&1 &
sleep 0.5
for sp in 40001 40002 40003 40004 40005 40006 40007 40008; do
	ip netns exec p spin-udp send 10.0.0.1 9997 -n 1 -s 64 -p $sp >/dev/null 2>&1
done
wait $!
check hw_tc_delivered grep -q '^received=8' /tmp/rx.9997
check hw_tc_on_queue_1 test $(($(ethstat "$if0" rx1_packets) - q1)) -ge 8

check refused_src_mac sh -c "! tc filter add dev $if0 ingress pref 30 protocol ip \
	flower skip_sw src_mac 52:54:00:00:00:99 action drop 2>/dev/null"
check refused_hw_tc_no_class sh -c "! tc filter add dev $if0 ingress pref 31 protocol ip \
	flower skip_sw ip_proto udp dst_port 9996 hw_tc 5 2>/dev/null"

check drop_rule_del tc filter del dev "$if0" ingress pref 10
d1=$(ethstat "$if0" port_rx_rule_drop)
n=$(rx_on 9999 3)
check rule_gone_9999_passes test "$n" -ge 1
check rule_gone_not_counted test "$(ethstat "$if0" port_rx_rule_drop)" = "$d1"
check qdiscs_del sh -c "tc qdisc del dev $if0 ingress && tc qdisc del dev $if0 root"
check ping_after wait_ping 10.0.0.2 20
check dmesg_clean dmesg_clean
finish
