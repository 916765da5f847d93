# sPIN on an RDMA RC QP between two guests: guest 1 serves ibv_rc_pingpong
# (4096-byte SENDs at path MTU 1024: 4 packets per message) and runs the
# rdma_reduce example (spinctl --qp) on the server's QP, found with
# "rdma resource show qp"; guest 2 is the client.  A second context cannot
# take the same QP.  Round "pass": every packet passes, so the pingpong
# completes as without sPIN; round "drop": every packet is dropped and
# the pingpong still completes (the transport acknowledges dropped
# packets).  Either way one completion handler per received message, four
# payload handlers each, and every per-message sum equals the reference
# (ibv_rc_pingpong's buffers are 0x7b bytes).
# vm-args: --guests 2
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc
. /opt/d2d/tests/spin.inc

N=20
rdma_user_two_guests
check ping wait_ping "$peer" 60

# round NAME BARRIER PASS_EACH [SPINCTL ARGS]: one ibv_rc_pingpong of $N
# 4096-byte messages with rdma_reduce on the server's QP; PASS_EACH 1 if
# the handlers pass packets, 0 if they drop them (the pingpong completes
# either way: dropped packets are still acknowledged).
round() {
	local n=$1 b=$2 each=$3 spid qpn ref got
	shift 3
	if [ "$me" = 1 ]; then
		timeout 150 ibv_rc_pingpong -d "$dev" -g "$gid" -s 4096 -n $N > /tmp/pp.$n 2>&1 &
		spid=$!
		check ${n}_listen wait_listen 18515
		qpn=$(rdma resource show qp 2>/dev/null | awk '/ibv_rc_pingpong/ {
			for (i = 1; i < NF; i++) if ($i == "lqpn") print $(i + 1) }' | head -1)
		check ${n}_attach_qp spin_start $n --qp "${qpn:-none}" -r 4096 \
			-o 0:/tmp/$n.bin --peek rdma_reduce_stats:3 "$@" "$H/rdma_reduce.elf"
		# a second context cannot take the same QP
		if spinctl run --qp "${qpn:-0}" -t 1 "$H/rdma_reduce.elf" > /tmp/$n.2.out 2> /tmp/$n.2.err; then
			fail ${n}_attach_qp_busy "a second context attached to QP $qpn"
		else
			grep -q 'another context has it' /tmp/$n.2.err && pass ${n}_attach_qp_busy ||
				fail ${n}_attach_qp_busy "$(tail -1 /tmp/$n.2.err)"
		fi
		check barrier_$b barrier $b
		wait $spid && pass ${n}_pingpong_server || fail ${n}_pingpong_server "$(tail -1 /tmp/pp.$n)"
		check barrier_$((b + 1)) barrier $((b + 1))
		check ${n}_stop spin_stop $n
		expect ${n}_completions "$(spin_field $n handler invocations kind=completion)" $N
		expect ${n}_payloads "$(spin_field $n handler invocations kind=payload)" $((4 * N))
		expect ${n}_headers "$(spin_field $n handler invocations kind=header)" 0
		expect ${n}_pass "$(spin_field $n stats pass pass=)" $((4 * N * each))
		expect ${n}_drop "$(spin_field $n stats drop drop=)" $((4 * N * (1 - each)))
		expect ${n}_peek "$(grep '^peek rdma_reduce_stats' /tmp/$n.out | cut -d= -f2)" \
			" $N $((4 * N)) $((4096 * N))"
		ref=$(awk 'BEGIN { printf "%.0f", (1024 * 2071690107) % 4294967296 }')
		got=$(spin-udp u32 /tmp/$n.bin | head -$N | sort -u | tr '\n' ' ')
		expect ${n}_sums "$got" "$ref "
	else
		check barrier_$b barrier $b
		check ${n}_pingpong_client timeout 150 ibv_rc_pingpong -d "$dev" -g "$gid" \
			-s 4096 -n $N 10.0.0.1
		check barrier_$((b + 1)) barrier $((b + 1))
	fi
}

if [ "$me" = 1 ]; then
	[ -c "$SPIN_DEV" ] && pass spin_dev || fail spin_dev "no $SPIN_DEV"
fi
round pass 1 1
round drop 3 0 --poke rdma_reduce_drop=1
check dmesg_clean dmesg_clean
finish
