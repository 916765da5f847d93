# snic native XDP, with the stock tools (ip link xdpdrv, bpftool) and the
# programs of userspace/xdp: one guest, both snic ports on the hub, the
# second (10.0.0.2) in network namespace p pinging the first (10.0.0.1):
#   drop      drop_icmp.bpf drops the echo requests: no reply, rx xdp_drop
#   tx        echo_tx.bpf answers them with XDP_TX: replies come back to
#             the peer port, the stack's InEchos does not move
#   redirect  echo_redirect.bpf answers through a devmap holding the port
#             itself: XDP_REDIRECT, then ndo_xdp_xmit (tx xdp_xmit)
#   xsk       snic-xsk receives the requests on an AF_XDP socket in copy
#             mode (zero-copy: snic_eth_xsk)
# Also: native (not generic) mode, the MTU bound while a program is on,
# and the port as before once the program is off.
# vm-args: --guests 1
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

X=/usr/local/share/xdp
snic_pair_netns
# One channel: every frame reaches queue 0 (the AF_XDP socket's).
check one_channel ethtool -L "$if0" combined 1
check carrier_one_channel wait_carrier "$if0" 10
grep -q ' /sys/fs/bpf bpf ' /proc/mounts || mount -t bpf bpf /sys/fs/bpf

# peer_ping N: N pings from the peer port; prints how many were answered.
peer_ping() {
	ip netns exec p ping -c "$1" -W 1 -i 0.3 10.0.0.1 2>/dev/null |
		sed -n 's/.*transmitted, \([0-9]*\) .*received.*/\1/p'
}
rxx() { ethsum "$if0" "rx[0-9]+_xdp_$1"; }
txx() { ethsum "$if0" "tx[0-9]+_xdp_$1"; }
in_echos() { awk '/^Icmp:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "InEchos") c = i; h = 1 } else print $c }' /proc/net/snmp; }
native_on() { ip link show dev "$if0" | head -1 | grep -qw xdp; }
# ge NAME A B: PASS if A >= B.
ge() { if [ "$2" -ge "$3" ]; then pass "$1"; else fail "$1" "$2 < $3"; fi; }

check stats_named sh -c "ethtool -S $if0 | grep -q 'rx0_xdp_drop:' &&
	ethtool -S $if0 | grep -q 'tx0_xdp_xmit:'"

# --- XDP_DROP ---
check drop_attach ip link set dev "$if0" xdpdrv obj "$X/drop_icmp.bpf" sec xdp
check drop_native native_on
d0=$(rxx drop)
n=$(peer_ping 3)
check drop_no_reply test "$n" = 0
ge drop_counted "$(rxx drop)" $((d0 + 3))
check mtu_bound_refused sh -c "! ip link set $if0 mtu 9000 2>/dev/null"
ip link set "$if0" mtu 1500	# in case it was not refused
check drop_detach ip link set dev "$if0" xdpdrv off
check ping_after_drop wait_ping 10.0.0.2 10

# --- XDP_TX ---
check tx_attach ip link set dev "$if0" xdpdrv obj "$X/echo_tx.bpf" sec xdp
t0=$(rxx tx) x0=$(txx xmit) e0=$(in_echos)
n=$(peer_ping 5)
ge tx_replies "${n:-0}" 3
ge tx_counted "$(rxx tx)" $((t0 + ${n:-1}))
ge tx_xmit_counted "$(txx xmit)" $((x0 + ${n:-1}))
check tx_bypassed_stack test "$(in_echos)" = "$e0"
check tx_detach ip link set dev "$if0" xdpdrv off

# --- XDP_REDIRECT through a devmap to the port itself ---
rm -rf /sys/fs/bpf/snic_redir /sys/fs/bpf/snic_redir_maps
idx=$(cat "/sys/class/net/$if0/ifindex")
check redirect_load bpftool prog load "$X/echo_redirect.bpf" /sys/fs/bpf/snic_redir \
	type xdp pinmaps /sys/fs/bpf/snic_redir_maps
check redirect_devmap bpftool map update pinned /sys/fs/bpf/snic_redir_maps/tx_port \
	key 0 0 0 0 value $((idx & 255)) $((idx >> 8 & 255)) 0 0
check redirect_attach ip link set dev "$if0" xdpdrv pinned /sys/fs/bpf/snic_redir
r0=$(rxx redirect) x0=$(txx xmit) e0=$(in_echos)
n=$(peer_ping 5)
ge redirect_replies "${n:-0}" 3
ge redirect_counted "$(rxx redirect)" $((r0 + ${n:-1}))
ge redirect_xmit_counted "$(txx xmit)" $((x0 + ${n:-1}))
check redirect_bypassed_stack test "$(in_echos)" = "$e0"
check redirect_detach ip link set dev "$if0" xdpdrv off
rm -rf /sys/fs/bpf/snic_redir /sys/fs/bpf/snic_redir_maps

# --- AF_XDP, copy mode: libxdp's xskmap program in native mode ---
snic-xsk "$if0" 0 3 60 > /tmp/xsk.out 2>&1 &
xsk=$!
for i in $(seq 1 100); do
	grep -q '^bound' /tmp/xsk.out && break
	kill -0 $xsk 2>/dev/null || break
	sleep 0.2
done
check xsk_bound grep -q '^bound copy' /tmp/xsk.out
check xsk_native native_on
for i in $(seq 1 10); do
	kill -0 $xsk 2>/dev/null || break
	peer_ping 3 >/dev/null
done
wait $xsk
check xsk_received sh -c "grep -q '^rx' /tmp/xsk.out && [ \$(sed -n 's/^rx .* icmp \([0-9]*\) .*/\1/p' /tmp/xsk.out) -ge 3 ] || { cat /tmp/xsk.out; false; }"
check xsk_detached sh -c "! ip link show dev $if0 | head -1 | grep -qw xdp"
check ping_after_xdp wait_ping 10.0.0.2 10
check dmesg_clean dmesg_clean
finish
