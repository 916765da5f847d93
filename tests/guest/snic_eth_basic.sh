# snic Ethernet between two guests: carrier, driver info, ping at MTU 1500,
# MTU 9000 on both ends (unfragmented jumbo pings) and back, and a link
# down/up with ip link on guest 1.
# vm-args: --guests 2
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

snic_eth_setup
check drvinfo sh -c "ethtool -i $if | grep -q '^driver: snic\$' &&
	ethtool -i $if | grep -q '^firmware-version: d2d-snic'"
check link_speed sh -c "ethtool $if | grep -q 'Speed: 100000Mb/s'"
check offloads_on sh -c "k=\$(ethtool -k $if);
	echo \"\$k\" | grep -q '^tcp-segmentation-offload: on' &&
	echo \"\$k\" | grep -q '^rx-checksumming: on' &&
	echo \"\$k\" | grep -q 'tx-checksum-ipv4: on' &&
	echo \"\$k\" | grep -q '^receive-hashing: on' &&
	echo \"\$k\" | grep -q '^ntuple-filters: on'"
check channels_per_cpu sh -c "ethtool -l $if | tail -1 | grep -q \"Combined:.*$(nproc)\""
check ping wait_ping "$peer" 60
check ping_1472 ping -c 3 -W 2 -s 1472 "$peer"
check barrier_1 barrier 1

check mtu_9000 ip link set "$if" mtu 9000
check mtu_reads_9000 test "$(cat "/sys/class/net/$if/mtu")" = 9000
check carrier_after_mtu wait_carrier "$if" 10
check barrier_2 barrier 2
check ping_8972 wait_ping "$peer" 10 8972
# Five 9014-byte replies are five frames, not 35 fragments.
before=$(ethstat "$if" port_rx_packets)
ping -c 5 -W 2 -s 8972 "$peer" >/dev/null 2>&1
after=$(ethstat "$if" port_rx_packets)
check jumbo_unfragmented sh -c "[ $((after - before)) -ge 5 ] && [ $((after - before)) -lt 15 ]"
check ping_4000 ping -c 2 -W 2 -s 4000 "$peer"
check no_rx_oversize test "$(ethstat "$if" port_rx_oversize)" = 0
check barrier_3 barrier 3

check mtu_1500 ip link set "$if" mtu 1500
check barrier_4 barrier 4
check ping_after_mtu wait_ping "$peer" 10 1472
check ping_fragmented_8000 ping -c 2 -W 2 -s 8000 "$peer"
check barrier_5 barrier 5

if [ "$me" = 1 ]; then
	check link_down ip link set "$if" down
	check operstate_down test "$(cat "/sys/class/net/$if/operstate")" = down
	check no_ping_while_down sh -c "! ping -c 2 -W 1 $peer >/dev/null 2>&1"
	check link_up ip link set "$if" up
	check carrier_back wait_carrier "$if" 10
	check ping_after_up wait_ping "$peer" 30
fi
# Guest 2 reaches this only once guest 1's port is back.
check barrier_6 barrier 6
check dmesg_clean dmesg_clean
finish
