# snic receive hardware time stamps: every snic CQE carries its completion
# time (ns of the device's clock, QEMU's virtual clock; docs/timing.md);
# with SIOCSHWTSTAMP rx_filter ALL the driver puts it on every received
# skb as its hardware stamp (and, with tx_type ON, on transmitted skbs
# that ask for one).  ethtool -T reports hardware-receive, -transmit and
# -raw-clock, filters none and all, modes off and on, no PHC; tcpdump's
# adapter_unsynced stamps (SOF_TIMESTAMPING_RAW_HARDWARE) of pings from
# the namespace are the device clock's - seconds since QEMU started, far
# below the guest's wall clock - and increasing.  One guest, the second
# port in namespace p.
# vm-args: --guests 1
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

snic_pair_netns

check ts_hw_receive sh -c "ethtool -T $if0 | grep -q hardware-receive &&
	ethtool -T $if0 | grep -q hardware-transmit &&
	ethtool -T $if0 | grep -q hardware-raw-clock"
check ts_tx_modes sh -c "ethtool -T $if0 | grep -A2 'Transmit Timestamp' | grep -Eq '^[[:space:]]+on'"
check ts_filters sh -c "ethtool -T $if0 | grep -A3 'Receive Filter' | grep -Eq '^[[:space:]]+all'"
check ts_no_phc sh -c "ethtool -T $if0 | grep -Eq 'PTP Hardware Clock: (none|-1)'"
check ts_adapter_listed sh -c "tcpdump -J -i $if0 2>&1 | grep -q adapter_unsynced"

# three pings, stamped by the device
tcpdump -i "$if0" -j adapter_unsynced --time-stamp-precision=nano -tt -n \
	-c 3 icmp and dst host 10.0.0.1 > /tmp/ts.out 2>/tmp/ts.err &
tpid=$!
sleep 1
ip netns exec p ping -c 3 -i 0.2 -W 2 10.0.0.1 > /dev/null
wait $tpid
sed 's/^/# /' /tmp/ts.out
sed 's/^/# tcpdump: /' /tmp/ts.err
ethtool -T "$if0" | sed 's/^/# /'
wall=$(date +%s)
check ts_three test "$(wc -l < /tmp/ts.out)" = 3
# device clock: seconds since QEMU started, not the wall clock's
check ts_device_clock awk -v w="$wall" '{ if ($1 + 0 <= 0 || $1 + 0 > w / 2) bad = 1 } END { exit bad }' /tmp/ts.out
check ts_increasing awk '{ if (NR > 1 && $1 + 0 <= p) bad = 1; p = $1 + 0 } END { exit bad }' /tmp/ts.out

ip netns del p
check rmmod_snic snic_rmmod
check dmesg_clean dmesg_clean
finish
