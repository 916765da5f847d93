# snic AF_XDP in zero-copy mode, with snic-xsk (libxdp's xskmap program in
# native mode): one guest, both snic ports on the hub, the second
# (10.0.0.2) in network namespace p, one channel on the first:
#   zc_rx*     snic-xsk -z on queue 0 takes the peer port's echo requests:
#              as many as the peer sent, with their bytes, and the
#              driver's rx0_xsk_* counters agree (zc_rx_wakeup: the same
#              with need_wakeup)
#   zc_tx*     snic-xsk -z --tx sends UDP frames from the UMEM to the
#              peer: the peer's stack counts every one (UDP NoPorts),
#              tx0_xsk_* count them, all come back on the completion ring;
#              frames longer than MTU + 18 are refused, counted and
#              completed
#   copy_*     copy mode still receives and sends, counted the same way
#   zc_rx_queue1  zero-copy on queue 1 of two channels (RSS to it only)
#   nobody     AF_XDP refused without CAP_NET_RAW
#   mtu        a zero-copy bind whose UMEM frames cannot take the MTU is
#              refused, and so is such an MTU while bound
#   td_*       teardown with a socket bound and the peer flooding: ifdown
#              and up (the socket goes on receiving), XDP detach (frames
#              then XDP_PASS, copied into skbs), rmmod snic (the socket
#              gets ENETDOWN), and no warning in the kernel log
# vm-args: --guests 1
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

snic_pair_netns
check one_channel ethtool -L "$if0" combined 1
check carrier_one_channel wait_carrier "$if0" 10
mac0=$(cat "/sys/class/net/$if0/address")
mac1=$(ip -n p link show "$if1" | awk '/link\/ether/ { print $2 }')
# The socket takes every frame of queue 0, ARP replies too.
ip -n p neigh replace 10.0.0.1 lladdr "$mac0" dev "$if1" nud permanent

NOBODY="setpriv --reuid nobody --regid nogroup --clear-groups"
SIZE=200		# ICMP payload: 242-byte frames
FRAME=$((SIZE + 42))
N=20
Q=0			# the queue rx_counted binds to

xs() { ethsum "$if0" "$1[0-9]+_xsk_$2"; }
peer_tx() { ip netns exec p ethtool -S "$if1" | awk '$1 ~ /^tx[0-9]+_packets:$/ { s += $2 } END { print s + 0 }'; }
udp_noports() { ip netns exec p cat /proc/net/snmp | awk '/^Udp:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "NoPorts") c = i; h = 1 } else print $c }'; }
eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "$2 != $3"; fi; }
ge() { if [ "$2" -ge "$3" ]; then pass "$1"; else fail "$1" "$2 < $3"; fi; }

# start_xsk OUT ARGS...: snic-xsk ARGS in the background (pid in xsk),
# until it printed "bound" or ended.
start_xsk() {
	local out=$1 i
	shift
	snic-xsk "$@" > "$out" 2>&1 &
	xsk=$!
	for i in $(seq 1 300); do
		grep -q '^bound' "$out" && return 0
		running $xsk || break
		sleep 0.2
	done
	cat "$out"
	return 1
}

# rx_counted NAME MODE OPTS...: N echo requests of the peer reach a socket
# bound in MODE (zerocopy|copy) with OPTS: the socket's count and bytes
# equal what the peer sent.
rx_counted() {
	local name=$1 mode=$2 p0 x0 b0 sent st
	shift 2
	if ! start_xsk /tmp/$name.out "$@" "$if0" $Q $N 120; then
		fail ${name}_bound "$(tail -1 /tmp/$name.out)"
		return
	fi
	check ${name}_bound grep -q "^bound $mode" /tmp/$name.out
	p0=$(peer_tx) x0=$(xs rx packets) b0=$(xs rx bytes)
	sent=$(ip netns exec p ping -c $N -i 0.2 -W 1 -s $SIZE 10.0.0.1 2>/dev/null |
		sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p')
	wait $xsk
	st=$?
	eq ${name}_peer_sent "${sent:-0}" $N
	ge ${name}_peer_port "$(peer_tx)" $((p0 + N))
	check ${name}_exit test $st = 0
	eq ${name}_frames "$(sed -n 's/^rx .* icmp \([0-9]*\) .*/\1/p' /tmp/$name.out)" $N
	eq ${name}_bytes "$(sed -n 's/.*icmp_bytes //p' /tmp/$name.out)" $((N * FRAME))
	if [ "$mode" = zerocopy ]; then
		ge ${name}_counted "$(xs rx packets)" $((x0 + N))
		ge ${name}_counted_bytes "$(xs rx bytes)" $((b0 + N * FRAME))
	fi
}

# tx_counted NAME MODE OPTS...: N UDP frames of 300 bytes from the UMEM of
# a socket bound in MODE (zerocopy|copy) reach the peer's stack; only
# zero-copy frames are the driver's tx0_xsk_* (copy mode sends skbs).
tx_counted() {
	local name=$1 mode=$2 u0 x0 b0 n=$N
	shift 2
	u0=$(udp_noports) x0=$(xs tx xmit) b0=$(xs tx bytes)
	check ${name}_sent snic-xsk "$@" --tx --dst-mac "$mac1" --size 300 \
		"$if0" 0 $N 120
	eq ${name}_peer_got "$(udp_noports)" $((u0 + N))
	[ "$mode" = zerocopy ] || n=0
	eq ${name}_counted "$(xs tx xmit)" $((x0 + n))
	eq ${name}_counted_bytes "$(xs tx bytes)" $((b0 + n * 300))
}

check stats_named sh -c "ethtool -S $if0 | grep -q 'rx0_xsk_packets:' &&
	ethtool -S $if0 | grep -q 'tx0_xsk_xmit:'"
check help snic-xsk --help
rx_counted zc_rx zerocopy --zero-copy
rx_counted zc_rx_wakeup zerocopy --zero-copy --need-wakeup
tx_counted zc_tx zerocopy --zero-copy
tx_counted zc_tx_wakeup zerocopy --zero-copy --need-wakeup
# Frames over MTU + 18 are refused, counted, and still completed.
u0=$(udp_noports) e0=$(xs tx err)
check zc_tx_too_long_completed snic-xsk --zero-copy --tx --dst-mac "$mac1" \
	--size 1600 "$if0" 0 $N 120
eq zc_tx_too_long_not_sent "$(udp_noports)" "$u0"
eq zc_tx_too_long_counted "$(xs tx err)" $((e0 + N))
rx_counted copy_rx copy --copy
tx_counted copy_tx copy --copy
# Queue 1 of two channels, every frame steered there (RSS weights 0 1).
check two_channels ethtool -L "$if0" combined 2
check carrier_two_channels wait_carrier "$if0" 10
check rss_to_queue1 ethtool -X "$if0" weight 0 1
Q=1
rx_counted zc_rx_queue1 zerocopy --zero-copy
Q=0
check rss_default ethtool -X "$if0" default
check one_channel_again ethtool -L "$if0" combined 1
check carrier_one_channel_again wait_carrier "$if0" 10
check xdp_gone sh -c "! ip link show dev $if0 | head -1 | grep -qw xdp"

# AF_XDP needs CAP_NET_RAW.
$NOBODY snic-xsk --zero-copy "$if0" 0 1 1 > /tmp/nobody.out 2>&1
st=$?
check nobody_refused test $st = 2
check nobody_eperm grep -q 'Operation not permitted' /tmp/nobody.out

# 2 KiB UMEM frames take 1792 bytes after the headroom: MTU 1774 at most
# (the XDP program alone would allow 3502).
ip link set "$if0" mtu 2000
r0=$(xs rx refused)
snic-xsk --zero-copy --frame-size 2048 "$if0" 0 1 5 > /tmp/mtu.out 2>&1
st=$?
check mtu_bind_refused sh -c "[ $st = 2 ] && grep -q 'Invalid argument' /tmp/mtu.out"
ip link set "$if0" mtu 1500
check mtu_carrier wait_carrier "$if0" 10
if start_xsk /tmp/mtu.out --zero-copy --frame-size 2048 "$if0" 0 1000000 120; then
	check mtu_fits ip link set "$if0" mtu 1774
	check mtu_too_big_refused sh -c "! ip link set $if0 mtu 1800 2>/dev/null"
	eq mtu_refusals_counted "$(xs rx refused)" $((r0 + 2))
	kill $xsk
	wait $xsk
	ip link set "$if0" mtu 1500
	check mtu_carrier_after wait_carrier "$if0" 10
else
	fail mtu_bound "$(tail -1 /tmp/mtu.out)"
fi

# --- teardown with the socket bound and the peer flooding ---
if ! start_xsk /tmp/td.out --zero-copy --need-wakeup "$if0" 0 100000000 600; then
	fail td_bound "$(tail -1 /tmp/td.out)"
	finish
fi
ip netns exec p ping -i 0.01 -s $SIZE 10.0.0.1 > /dev/null 2>&1 &
flood=$!
# wait_more NAME COUNTER: the xsk counter COUNTER moves (up to 30 s).
wait_more() {
	local c0 i
	c0=$(xs rx "$2")
	for i in $(seq 1 150); do
		[ "$(xs rx "$2")" -gt "$c0" ] && { pass "$1"; return; }
		sleep 0.2
	done
	fail "$1" "rx0_xsk_$2 stayed at $c0"
}
wait_more td_rx packets
check td_ifdown ip link set "$if0" down
check td_ifup ip link set "$if0" up
check td_carrier wait_carrier "$if0" 10
wait_more td_rx_after_ifup packets
check td_xdp_detach ip link set dev "$if0" xdpdrv off
wait_more td_pass_copied pass_copy
check td_rmmod snic_rmmod
check td_socket_exits exits_within 30 $xsk
wait $xsk
st=$?
kill $flood 2>/dev/null
wait $flood 2>/dev/null
check td_socket_down sh -c "[ $st = 1 ] && grep -q 'Network is down' /tmp/td.out || { cat /tmp/td.out; false; }"
check dmesg_clean dmesg_clean
finish
