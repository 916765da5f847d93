# The engine's NIC side, SSD -> NIC over UDP, between two guests: guest 1
# (HDC engine, its SSD, a snic port) runs 'd2d send FILE 10.0.0.2:PORT';
# guest 2 (a snic port) receives with socat and serves what it got back
# over TCP, which guest 1 compares byte for byte with the file; the
# digest 'd2d send --sha256' prints is sha256sum's.  The host is off the
# data path: guest 1's netdev counts no transmitted datagrams (its UDP
# OutDatagrams do not move) while its snic port does.  A socket that is
# not connected is refused with ENOTCONN,
# a caller without CAP_NET_RAW with EPERM (an unconnected TCP socket:
# ENOTCONN; TCP is hdc_tcp.sh).
# 'd2d send --sw-p2p' (the software-controlled P2P baseline: the driver
# runs each 64 KiB chunk, SSD to device buffer, then device buffer to
# NIC) moves the same bytes.
# vm-args: --guests 2 --hdc @DISK@
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/hdc.inc

PORT=9000
SIZE_65549=65549
SIZE_1M1=1048577
# datagrams of at most 1472 payload bytes (MTU 1500)
NDG_65549=45
NDG_1M1=713


# udp_out: the host stack's UDP datagrams sent so far.
udp_out() {
	awk '$1 == "Udp:" && $2 ~ /^[0-9]+$/ { print $5 }' /proc/net/snmp
}

snic_eth_setup

if [ "$D2D_GUEST" = 1 ]; then
	check hdc_setup hdc_setup
	check ping_peer wait_ping "$peer" 30
	check caps_nic sh -c 'd2d stat | grep -q " nic"'
	n=0
	for c in 65549 1m1 sw; do
		n=$((n + 2))
		# case sw: 1m1 by the software-controlled P2P baseline
		f=${c#sw} opt="--sha256"
		[ $c = sw ] && f=1m1 opt=--sw-p2p
		check "barrier_${c}_a" barrier $((n - 1))
		tx0=$(cat /sys/class/net/$if/statistics/tx_packets)
		port0=$(ethstat "$if" port_tx_packets)
		udp0=$(udp_out)
		check "send_$c" sh -c "d2d send $T_DIR/$f $peer:$PORT $opt > $OUT/$c.sum"
		tx1=$(cat /sys/class/net/$if/statistics/tx_packets)
		port1=$(ethstat "$if" port_tx_packets)
		udp1=$(udp_out)
		echo "# $c: netdev tx +$((tx1 - tx0)), port tx +$((port1 - port0)), udp out +$((udp1 - udp0))"
		[ $c = sw ] ||
			check "digest_$c" sh -c "[ \"\$(cat $OUT/$c.sum)\" = \"\$(cd $T_DIR && sha256sum $f | sed 's|  $f|  $T_DIR/$f|')\" ]"
		check "host_udp_untouched_$c" test $((udp1 - udp0)) -eq 0
		check "netdev_no_per_datagram_tx_$c" test $((tx1 - tx0)) -lt 20
		[ $f = 1m1 ] && ndg=$NDG_1M1 || ndg=$NDG_65549
		check "port_sent_datagrams_$c" test $((port1 - port0)) -ge $ndg
		check "barrier_${c}_b" barrier $n
		check "received_$c" sh -c "for i in \$(seq 1 60); do nc $peer 7300 > $OUT/$c.back 2>/dev/null && [ -s $OUT/$c.back ] && break; sleep 0.5; done; cmp $OUT/$c.back $T_DIR/$f"
	done
	check nobody_needs_cap_net_raw expect_errno EPERM as_nobody d2d raw --dst-udp $peer:$PORT $T_DIR/4k
	check sw_p2p_no_functions sh -c "d2d send --sw-p2p $T_DIR/4k $peer:$PORT --md5; [ \$? = 2 ]"
	check sw_p2p_needs_socket expect_errno EINVAL d2d raw --dst $OUT/x $T_DIR/4k --sw-p2p
	check not_connected expect_errno ENOTCONN d2d raw --dst-udp-unconnected $T_DIR/4k
	check tcp_not_connected expect_errno ENOTCONN d2d raw --dst-tcp $T_DIR/4k
	check bad_host sh -c "d2d send $T_DIR/4k nohost:1; [ \$? = 1 ]"
	check usage_host_port sh -c "d2d send $T_DIR/4k 10.0.0.2; [ \$? = 2 ]"
	check nic_queues_logged sh -c "dmesg | grep -q 'hdc 0000:00:11.0: NIC queues on $if'"
	check nothing_in_flight sh -c "[ \$(cat $SYS/stats/inflight) = 0 ]"
else
	check ping_peer wait_ping "$peer" 30
	sysctl -qw net.core.rmem_max=33554432
	n=0
	for f in 65549 1m1 sw; do
		n=$((n + 2))
		rm -f /tmp/recv
		socat -u UDP-RECV:$PORT,rcvbuf=33554432 OPEN:/tmp/recv,creat,trunc &
		pid=$!
		sleep 0.5
		check "barrier_${f}_a" barrier $((n - 1))
		check "barrier_${f}_b" barrier $n
		[ $f = 65549 ] && want=$SIZE_65549 || want=$SIZE_1M1
		for i in $(seq 1 100); do
			[ "$(stat -c %s /tmp/recv 2>/dev/null)" = "$want" ] && break
			sleep 0.1
		done
		check "size_$f" test "$(stat -c %s /tmp/recv)" = "$want"
		kill $pid 2>/dev/null
		wait $pid 2>/dev/null
		serve /tmp/recv
	done
fi
check dmesg_clean dmesg_clean
finish
