# Who may do what with /dev/snic-spinN (docs/snic-spin.md, "Permissions"):
# anyone may open it, but steering a UDP port needs CAP_NET_ADMIN, raw
# sends (spinctl --send) CAP_NET_RAW, another process's RDMA QP
# CAP_NET_ADMIN, and a kernel QP is never attached.  Unprivileged runs are
# as nobody (setpriv, no capabilities); root still works; every refusal is
# counted (spinctl info perm_denied).
# vm-args: --guests 1
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc
. /opt/d2d/tests/spin.inc	# asnobody, refused

spin_one_guest

denied() { spinctl -d "$SPIN" info | sed -n 's/.*perm_denied=\([0-9]*\).*/\1/p'; }

d0=$(denied)
check nobody_udp_eperm refused udp asnobody spinctl -d "$SPIN" run -p 9700 -t 1 "$H/empty.elf"
check nobody_send_eperm refused send asnobody spinctl -d "$SPIN" run --send -t 1 "$H/empty.elf"
check nobody_plain_ok sh -c "setpriv --reuid 65534 --regid 65534 --clear-groups \
	spinctl -d $SPIN run -t 1 $H/empty.elf | grep -q '^ready '"
check root_udp_ok sh -c "spinctl -d $SPIN run -p 9700 -t 1 $H/empty.elf | grep -q '^ready '"
check root_send_ok sh -c "spinctl -d $SPIN run --send -t 1 $H/empty.elf | grep -q '^ready '"

# an RC QP of another process (ibv_rc_pingpong's, waiting for its client)
timeout 60 ibv_rc_pingpong -d "$dev0" -g "$gid0" -p 18700 -n 1 > /tmp/pp.out 2>&1 &
pp=$!
check pp_listen wait_listen 18700
qpn=$(rdma resource show qp 2>/dev/null | awk '/ibv_rc_pingpong/ {
	for (i = 1; i < NF; i++) if ($i == "lqpn") print $(i + 1) }' | head -1)
check nobody_other_qp_eperm refused qp asnobody spinctl -d "$SPIN" run --qp "${qpn:-none}" -t 1 "$H/empty.elf"
check root_other_qp_ok sh -c "spinctl -d $SPIN run --qp ${qpn:-none} -t 1 $H/empty.elf | grep -q '^ready '"
kill $pp 2>/dev/null; wait $pp 2>/dev/null
# the GSI QP (1) belongs to the kernel: never, not even for root
check root_kernel_qp_eperm refused kqp spinctl -d "$SPIN" run --qp 1 -t 1 "$H/empty.elf"
d1=$(denied)
check perm_denied_counted sh -c "[ '${d1:-0}' -ge $(( ${d0:-0} + 4 )) ] || { echo 'perm_denied $d0 -> $d1'; false; }"
check perm_logged sh -c "dmesg | grep -q 'sPIN: UDP port steering (no CAP_NET_ADMIN) refused to uid 65534'"
check dmesg_clean dmesg_clean
finish
