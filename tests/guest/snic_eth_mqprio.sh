# tc mqprio with hardware offload on snic's per-queue rate limiters: one
# guest, both snic ports on the hub, the second in network namespace p.
# Two channels; class 0 (priority 0) on queue 0 with max_rate 20Mbit,
# class 1 on queue 1 with 2Gbit.  The limiters are programmed (tx_maxrate
# of both queues), iperf3 in class 0 stays under 25 Mbit/s with the
# device's rate limiter pausing the queue (port_tx_rate_delays), min_rate
# is refused, and deleting the qdisc clears the limits.
# vm-args: --guests 1
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

snic_pair_netns
check two_channels ethtool -L "$if0" combined 2
check carrier_two_channels wait_carrier "$if0" 10
check ping_two_channels wait_ping 10.0.0.2 20
q=/sys/class/net/$if0/queues

check min_rate_refused sh -c "! tc qdisc add dev $if0 root mqprio num_tc 2 \
	map 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 queues 1@0 1@1 hw 1 mode channel \
	shaper bw_rlimit min_rate 10Mbit 10Mbit max_rate 20Mbit 2Gbit 2>/dev/null"
check mqprio_hw tc qdisc add dev "$if0" root mqprio num_tc 2 \
	map 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 queues 1@0 1@1 hw 1 mode channel \
	shaper bw_rlimit max_rate 20Mbit 2Gbit
check mqprio_shown sh -c "tc qdisc show dev $if0 | grep -q 'mqprio.*tc 2'"
check rate_q0_programmed test "$(cat "$q/tx-0/tx_maxrate")" = 20
check rate_q1_programmed test "$(cat "$q/tx-1/tx_maxrate")" = 2000
check channels_fixed sh -c "! ethtool -L $if0 combined 1 2>/dev/null"

ip netns exec p iperf3 -s -1 -D
sleep 1
d0=$(ethstat "$if0" port_tx_rate_delays)
out=$(timeout 40 iperf3 -c 10.0.0.2 -t 4 -f m 2>&1)
# The receiver's count: the sender's includes what still sat in its
# socket buffer at the end.
rate=$(echo "$out" | awk '/receiver$/ { for (i = 1; i < NF; i++) if ($(i + 1) == "Mbits/sec") r = $i } END { print r }')
echo "mqprio class 0 (max_rate 20Mbit): iperf3 receiver $rate Mbit/s"
check iperf_ran test -n "$rate"
# Unlimited, the port carries over 100 Mbit/s here: 25 is a loose bound.
check class0_limited awk -v r="${rate:-99999}" 'BEGIN { exit !(r > 0 && r <= 25) }'
check limiter_engaged test "$(ethstat "$if0" port_tx_rate_delays)" -gt "$d0"

check mqprio_del tc qdisc del dev "$if0" root
check rate_q0_cleared test "$(cat "$q/tx-0/tx_maxrate")" = 0
check rate_q1_cleared test "$(cat "$q/tx-1/tx_maxrate")" = 0
check channels_free ethtool -L "$if0" combined 1
check ping_after wait_ping 10.0.0.2 20
check dmesg_clean dmesg_clean
finish
