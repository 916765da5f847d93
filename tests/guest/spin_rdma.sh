# sPIN on an RDMA RC QP between two guests: guest 1 serves ibv_rc_pingpong
# (4096-byte SENDs at path MTU 1024: 4 packets per message) and runs the
# rdma_reduce example (spinctl --qp) on the server's QP, found with
# "rdma resource show qp"; guest 2 is the client.  A second context cannot
# take the same QP.  Every packet passes, so the pingpong completes as
# without sPIN; one completion handler per received message, four payload
# handlers each, and every per-message sum equals the reference
# (ibv_rc_pingpong's buffers are 0x7b bytes).
# vm-args: --guests 2
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc
. /opt/d2d/tests/spin.inc

N=20
rdma_user_two_guests
check ping wait_ping "$peer" 60

if [ "$me" = 1 ]; then
	[ -c "$SPIN_DEV" ] && pass spin_dev || fail spin_dev "no $SPIN_DEV"
	timeout 150 ibv_rc_pingpong -d "$dev" -g "$gid" -s 4096 -n $N > /tmp/pp 2>&1 &
	spid=$!
	check rc_pingpong_listen wait_listen 18515
	qpn=$(rdma resource show qp 2>/dev/null | awk '/ibv_rc_pingpong/ {
		for (i = 1; i < NF; i++) if ($i == "lqpn") print $(i + 1) }' | head -1)
	check spin_attach_qp spin_start rr --qp "${qpn:-none}" -r 4096 \
		-o 0:/tmp/rr.bin --peek rdma_reduce_stats:3 "$H/rdma_reduce.elf"
	# a second context cannot take the same QP
	if spinctl run --qp "${qpn:-0}" -t 1 "$H/rdma_reduce.elf" > /tmp/rr2.out 2> /tmp/rr2.err; then
		fail spin_attach_qp_busy "a second context attached to QP $qpn"
	else
		grep -q 'another context has it' /tmp/rr2.err && pass spin_attach_qp_busy ||
			fail spin_attach_qp_busy "$(tail -1 /tmp/rr2.err)"
	fi
	check barrier_1 barrier 1
	wait $spid && pass rc_pingpong_server || fail rc_pingpong_server "$(tail -1 /tmp/pp)"
	check barrier_2 barrier 2
	check spin_stop spin_stop rr
	expect spin_completions "$(spin_field rr handler invocations kind=completion)" $N
	expect spin_payloads "$(spin_field rr handler invocations kind=payload)" $((4 * N))
	expect spin_headers "$(spin_field rr handler invocations kind=header)" 0
	expect spin_pass "$(spin_field rr stats pass pass=)" $((4 * N))
	expect spin_peek "$(grep '^peek rdma_reduce_stats' /tmp/rr.out | cut -d= -f2)" \
		" $N $((4 * N)) $((4096 * N))"
	ref=$(awk 'BEGIN { printf "%.0f", (1024 * 2071690107) % 4294967296 }')
	got=$(spin-udp u32 /tmp/rr.bin | head -$N | sort -u | tr '\n' ' ')
	expect spin_sums "$got" "$ref "
else
	check barrier_1 barrier 1
	check rc_pingpong_client timeout 150 ibv_rc_pingpong -d "$dev" -g "$gid" \
		-s 4096 -n $N 10.0.0.1
	check barrier_2 barrier 2
fi
check dmesg_clean dmesg_clean
finish
