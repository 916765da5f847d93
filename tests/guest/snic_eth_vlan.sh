# snic 802.1Q offloads with the stock tools (ip link type vlan, ethtool,
# tcpdump): one guest, both snic ports on the hub, the second in network
# namespace p.  VLAN 5 on both ports, guest side with egress-qos-map 0:3:
# traffic flows, the device inserts the tag (port_tx_vlan_inserted) with
# PCP 3 (tcpdump on the peer), strips it on receive
# (port_rx_vlan_stripped); the peer's VLAN 7, not configured here, is
# filtered by the device (port_rx_vlan_filtered), and so is VLAN 5 once
# its interface is gone; rx-vlan-filter off lets VLAN 7 through to the
# stack, rxvlan off leaves the untagging to the stack.
# vm-args: --guests 1
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

snic_pair_netns
check offloads_on sh -c "k=\$(ethtool -k $if0);
	echo \"\$k\" | grep -q '^rx-vlan-offload: on' &&
	echo \"\$k\" | grep -q '^tx-vlan-offload: on' &&
	echo \"\$k\" | grep -q '^rx-vlan-filter: on'"
check modprobe_8021q modprobe 8021q
check vlan5_add ip link add link "$if0" name v5 type vlan id 5 egress-qos-map 0:3
ip addr add 10.5.0.1/24 dev v5
ip link set v5 up
check vlan5_peer ip -n p link add link "$if1" name v5 type vlan id 5
ip -n p addr add 10.5.0.2/24 dev v5
ip -n p link set v5 up
ip -n p link add link "$if1" name v7 type vlan id 7
ip -n p addr add 10.7.0.2/24 dev v7
ip -n p link set v7 up

ins0=$(ethstat "$if0" port_tx_vlan_inserted)
str0=$(ethstat "$if0" port_rx_vlan_stripped)
check ping_vlan5 wait_ping 10.5.0.2 20
ip netns exec p timeout 30 tcpdump -l -c 3 -nn -e -i "$if1" \
	'vlan 5 and icmp' > /tmp/vlan.td 2>/dev/null &
td=$!
sleep 2
check ping_vlan5_3 ping -c 3 -W 2 10.5.0.2
wait $td
check tag_pcp_on_wire sh -c "grep -q 'vlan 5, p 3,.*ICMP echo request' /tmp/vlan.td || { cat /tmp/vlan.td; false; }"
ins=$(ethstat "$if0" port_tx_vlan_inserted)
str=$(ethstat "$if0" port_rx_vlan_stripped)
check tx_tag_inserted test $((ins - ins0)) -ge 3
check rx_tag_stripped test $((str - str0)) -ge 3
# TCP with checksum offload and TSO through the VLAN interface.
ip netns exec p iperf3 -s -1 -D
sleep 1
tso0=$(ethsum "$if0" "tx[0-9]+_tso_packets")
check tcp_over_vlan timeout 30 iperf3 -c 10.5.0.2 -n 4M
check tso_over_vlan test "$(ethsum "$if0" "tx[0-9]+_tso_packets")" -gt "$tso0"

# VLAN 7 exists only on the peer: its frames are filtered by the device.
f0=$(ethstat "$if0" port_rx_vlan_filtered)
ip netns exec p ping -c 3 -W 1 10.7.0.1 >/dev/null 2>&1
f1=$(ethstat "$if0" port_rx_vlan_filtered)
check vlan7_filtered test $((f1 - f0)) -ge 3

# VLAN 5 gone here: now filtered as well.
check vlan5_del ip link del v5
ip netns exec p ping -c 3 -W 1 10.5.0.1 >/dev/null 2>&1
f2=$(ethstat "$if0" port_rx_vlan_filtered)
check vlan5_filtered_after_del test $((f2 - f1)) -ge 3

# rx-vlan-filter off: the device lets VLAN 7 through (the stack drops it).
check filter_off ethtool -K "$if0" rx-vlan-filter off
ip netns exec p ping -c 3 -W 1 10.7.0.1 >/dev/null 2>&1
check vlan7_not_filtered test "$(ethstat "$if0" port_rx_vlan_filtered)" = "$f2"
check filter_on ethtool -K "$if0" rx-vlan-filter on

# rxvlan off: VLAN 5 again, untagged by the stack, not by the device.
ip link add link "$if0" name v5 type vlan id 5
ip addr add 10.5.0.1/24 dev v5
ip link set v5 up
check rxvlan_off ethtool -K "$if0" rxvlan off
s0=$(ethstat "$if0" port_rx_vlan_stripped)
check ping_vlan5_sw_strip wait_ping 10.5.0.2 20
check not_stripped_by_device test "$(ethstat "$if0" port_rx_vlan_stripped)" = "$s0"
check rxvlan_on ethtool -K "$if0" rxvlan on
check ping_vlan5_hw_strip wait_ping 10.5.0.2 20
check dmesg_clean dmesg_clean
finish
