# snic's ethtool settings a ConnectX user reaches for, on one guest with
# the second port in namespace p: -g/-G ring sizes (rounded to a power of
# two, 64..8192, traffic flows after a resize, up or down), -c/-C interrupt
# coalescing (the device's CQ moderation), -T time stamping, and
# -n/-N rx-flow-hash (IPv4 addresses with or without TCP/UDP ports, which
# decides whether flows between two hosts spread over the RX queues).
# vm-args: --guests 1
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

snic_pair_netns
iperf3 -s -D > /dev/null 2>&1
sleep 0.5

# traffic NAME: TCP for 2 s from p to us, and a ping burst, both complete.
traffic() {
	check "${1}_tcp" ip netns exec p iperf3 -c 10.0.0.1 -t 2 --connect-timeout 5000
	check "${1}_ping" ip netns exec p ping -c 20 -i 0.05 -s 1400 -W 2 10.0.0.1
}
ring() { ethtool -g "$if0" | awk -v k="$1:" '$1 == k { v = $2 } END { print v }'; }
coal() { ethtool -c "$if0" | awk -v k="$1:" '$1 == k { print $2 }'; }

# ---- ring sizes ----
check ring_default sh -c "[ $(ring RX) = 1024 ] && [ $(ring TX) = 512 ]"
check ring_max sh -c "ethtool -g $if0 | sed -n '/maximums/,/Current/p' | grep -q 'RX:[[:space:]]*8192'"
check ring_set ethtool -G "$if0" rx 256 tx 128
check ring_is_set sh -c "[ $(ring RX) = 256 ] && [ $(ring TX) = 128 ]"
traffic ring_256
check ring_round_up ethtool -G "$if0" rx 100
check ring_rounded test "$(ring RX)" = 128
check ring_too_small sh -c "! ethtool -G $if0 rx 16 2>/dev/null"
check ring_too_big sh -c "! ethtool -G $if0 tx 16384 2>/dev/null"
check ring_unchanged_after_refusal test "$(ring RX)" = 128
ip link set "$if0" down
check ring_set_down ethtool -G "$if0" rx 2048 tx 1024
ip link set "$if0" up
check carrier_again wait_carrier "$if0" 10
check ring_after_up sh -c "[ $(ring RX) = 2048 ] && [ $(ring TX) = 1024 ]"
traffic ring_2048

# ---- coalescing ----
check coal_default sh -c "[ $(coal rx-usecs) = 0 ] && [ $(coal rx-frames) = 0 ]"
check coal_set ethtool -C "$if0" rx-usecs 50 rx-frames 16 tx-usecs 20 tx-frames 8
check coal_is_set sh -c "[ $(coal rx-usecs) = 50 ] && [ $(coal rx-frames) = 16 ] &&
	[ $(coal tx-usecs) = 20 ] && [ $(coal tx-frames) = 8 ]"
traffic coal_16
check coal_too_big sh -c "! ethtool -C $if0 rx-usecs 70000 2>/dev/null"
check coal_unsupported sh -c "! ethtool -C $if0 adaptive-rx on 2>/dev/null"
check coal_kept_after_channels sh -c "ethtool -L $if0 combined 1 && [ $(coal rx-frames) = 16 ]"
traffic coal_1ch
ethtool -L "$if0" combined 2 > /dev/null 2>&1
check coal_off ethtool -C "$if0" rx-usecs 0 rx-frames 0 tx-usecs 0 tx-frames 0

# ---- time stamping ----
check ts_info sh -c "ethtool -T $if0 | grep -q software-transmit &&
	ethtool -T $if0 | grep -q software-receive"

# ---- rx-flow-hash ----
check rxfh_default sh -c "ethtool -n $if0 rx-flow-hash udp4 | grep -q 'L4 bytes 0 & 1'"
# spread CHANNELS: 8 UDP flows (client ports 6100..6107) reach how many
# RX queues; prints the count.
spread() {
	local before after q n=0
	before=$(ethtool -S "$if0" | awk '/^ *rx[0-9]+_packets:/ { printf "%s ", $2 }')
	ip netns exec p iperf3 -c 10.0.0.1 -u -b 2M -l 500 -t 1 -P 8 --cport 6100 --connect-timeout 5000 > /dev/null 2>&1
	after=$(ethtool -S "$if0" | awk '/^ *rx[0-9]+_packets:/ { printf "%s ", $2 }')
	set -- $before
	for q in $after; do
		[ $((q - $1)) -ge 100 ] && n=$((n + 1))
		shift
	done
	echo $n
}
check rxfh_two_channels sh -c "ethtool -l $if0 | grep -q 'Combined:[[:space:]]*2'"
check rxfh_test_key ethtool -X "$if0" hkey "$RSS_TEST_KEY"
n4=$(spread)
check rxfh_ports_spread test "$n4" -ge 2
check rxfh_set_ip_only ethtool -N "$if0" rx-flow-hash udp4 sd
check rxfh_ip_only_udp sh -c "! ethtool -n $if0 rx-flow-hash udp4 | grep -q 'L4 bytes'"
check rxfh_ip_only_tcp sh -c "! ethtool -n $if0 rx-flow-hash tcp4 | grep -q 'L4 bytes'"
n2=$(spread)
echo "# rx queues used by 8 UDP flows: $n4 with ports hashed, $n2 without"
check rxfh_ip_only_one_queue test "$n2" -eq 1
check rxfh_set_back ethtool -N "$if0" rx-flow-hash udp4 sdfn
# ethtool 6.1 exits 0 when the driver refuses rx-flow-hash: its message
# and the unchanged fields tell.
check rxfh_bad_fields sh -c "ethtool -N $if0 rx-flow-hash udp4 m 2>&1 | grep -q 'Invalid argument'"
check rxfh_udp6_unsupported sh -c "ethtool -N $if0 rx-flow-hash udp6 sd 2>&1 | grep -q 'not supported'"
check rxfh_back sh -c "ethtool -n $if0 rx-flow-hash tcp4 | grep -q 'L4 bytes 0 & 1'"

ip netns del p
check rmmod_snic snic_rmmod
check dmesg_clean dmesg_clean
finish
