# snic netdev CQE compression: ethtool --set-priv-flags IF rx_cqe_compress
# on makes the RX CQs of IF mini-CQE CQs (its channels are rebuilt).  With
# it on: a 4 MiB TCP transfer into IF arrives intact (sha256), UDP from
# the peer port (iperf3) and a ping get through, the device verified the checksums
# (rxN_csum_ok grows), the device wrote mini-CQE lines (port_rx_mini_cqes,
# port_rx_mini_lines) and the driver parsed them (rxN_mini_cqes,
# rxN_mini_lines).  Off again: no more lines, traffic still flows.  Only
# root may change it: nobody gets EPERM.
# vm-args: --guests 1
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

NOBODY="setpriv --reuid nobody --regid nogroup --clear-groups"

snic_pair_netns

# flag IF: the rx_cqe_compress line of --show-priv-flags ("on"/"off")
flag() {
	ethtool --show-priv-flags "$1" 2>/dev/null |
		awk -F: '$1 ~ /rx_cqe_compress/ { gsub(/ /, "", $2); print $2 }'
}

# xfer NAME: 4 MiB from the peer namespace into if0 over TCP, compared
# by sha256.
dd if=/dev/urandom of=/tmp/cqe.src bs=64k count=64 2>/dev/null
want=$(sha256sum < /tmp/cqe.src)
xfer() {
	rm -f /tmp/cqe.dst
	timeout 60 socat -u TCP-LISTEN:5301,reuseaddr OPEN:/tmp/cqe.dst,creat,trunc &
	sleep 0.5
	ip netns exec p timeout 60 socat -u OPEN:/tmp/cqe.src TCP:10.0.0.1:5301,retry=20
	wait
	[ "$(sha256sum < /tmp/cqe.dst)" = "$want" ] || { echo "data differs"; return 1; }
}

# traffic NAME: the transfer, 2 s of UDP from the peer (iperf3) and a
# ping.
iperf3 -s -D > /dev/null 2>&1
traffic() {
	check "${1}_xfer" xfer
	check "${1}_udp" sh -c "ip netns exec p timeout 30 iperf3 -c 10.0.0.1 -u -b 10M -l 1000 -t 2 --connect-timeout 5000 | grep -q receiver"
	check "${1}_ping" wait_ping 10.0.0.2 10
}

check default_off test "$(flag "$if0")" = off
out=$($NOBODY ethtool --set-priv-flags "$if0" rx_cqe_compress on 2>&1)
check nobody_eperm sh -c "echo '$out' | grep -q 'Operation not permitted'"
check nobody_unchanged test "$(flag "$if0")" = off

check set_on ethtool --set-priv-flags "$if0" rx_cqe_compress on
check shown_on test "$(flag "$if0")" = on
check carrier_on wait_carrier "$if0" 10
pm0=$(ethstat "$if0" port_rx_mini_cqes)
pl0=$(ethstat "$if0" port_rx_mini_lines)
dm0=$(ethsum "$if0" 'rx[0-9]+_mini_cqes')
dl0=$(ethsum "$if0" 'rx[0-9]+_mini_lines')
ck0=$(ethsum "$if0" 'rx[0-9]+_csum_ok')
er0=$(ethsum "$if0" 'rx[0-9]+_errors')
traffic on
# The driver consumes a line with its last entry, and a NAPI budget may
# end inside one (on the debug kernel the rest waited in ksoftirqd while
# the counters were read: device 5236 mini-CQEs, driver 5235, lines
# equal): give it up to 5 s to parse every entry the device wrote.
for i in $(seq 1 50); do
	[ $(($(ethsum "$if0" 'rx[0-9]+_mini_cqes') - dm0)) -eq \
		$(($(ethstat "$if0" port_rx_mini_cqes) - pm0)) ] && break
	sleep 0.1
done
pm1=$(ethstat "$if0" port_rx_mini_cqes)
pl1=$(ethstat "$if0" port_rx_mini_lines)
dm1=$(ethsum "$if0" 'rx[0-9]+_mini_cqes')
dl1=$(ethsum "$if0" 'rx[0-9]+_mini_lines')
ck1=$(ethsum "$if0" 'rx[0-9]+_csum_ok')
er1=$(ethsum "$if0" 'rx[0-9]+_errors')
echo "# on: device $((pm1 - pm0)) mini-CQEs in $((pl1 - pl0)) lines; driver $((dm1 - dm0)) in $((dl1 - dl0)); csum_ok +$((ck1 - ck0))"
check on_port_mini_cqes test $((pm1 - pm0)) -ge 1000
check on_port_mini_lines test $((pl1 - pl0)) -ge 1
check on_lines_pack test $((pm1 - pm0)) -gt $((pl1 - pl0))
check on_driver_lines test $((dl1 - dl0)) -eq $((pl1 - pl0))
check on_driver_cqes test $((dm1 - dm0)) -eq $((pm1 - pm0))
check on_csum_ok test $((ck1 - ck0)) -ge 1000
check on_no_errors test "$er1" -eq "$er0"

check set_off ethtool --set-priv-flags "$if0" rx_cqe_compress off
check shown_off test "$(flag "$if0")" = off
check carrier_off wait_carrier "$if0" 10
traffic off
pm2=$(ethstat "$if0" port_rx_mini_cqes)
check off_no_mini test "$pm2" -eq "$pm1"
check dmesg dmesg_clean
finish
