# Scalable shared send queues between two guests (one snic port each):
# with SNIC_QP_MODE=pipe, libsnic's pipe QPs send through the context's
# shared send queues (snic.ko makes one per NIC core).  Stock
# ibv_rc_pingpong (--chk: the received data is verified), then perftest
# ib_write_bw of 1024-byte WRITEs over 1, 16 and 256 QPs (256 QPs of 128
# WQEs each overfill the SSQs, so libsnic waits for the device's consumer
# record).  Guest 1 serves, guest 2 is the client; each guest checks its
# own port's hw_counters: every WRITE went through an SSQ (ssq_sqes grows
# by exactly QPs x iterations on the client), no per-QP send pipe was
# read (pipe_sqes), no QP doorbell was rung (mmio_doorbells), and
# perftest reports every iteration at the right size.
# vm-args: --guests 2
# timeout: 600
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_two_guests
check ping wait_ping "$peer" 60
db0=$(hw mmio_doorbells) ps0=$(hw pipe_sqes) ss0=$(hw ssq_sqes)

export SNIC_QP_MODE=pipe
b=1
p=18960
check "barrier_$b" barrier "$b"
b=$((b + 1))
cmd="ibv_rc_pingpong -d $dev -g $gid -p $p -s 4096 -n 100 -c"
xpair ssq_rc_pingpong "$p" 1 "$cmd" "$cmd 10.0.0.1"
p=$((p + 1))
# 100 SENDs each way (the client also sends its first one)
check ssq_pingpong_sqes test "$(hw ssq_sqes)" -ge $((ss0 + 100))

for q in 1 16 256; do
	n=$((2000 / q))
	[ "$n" -lt 20 ] && n=20
	check "barrier_$b" barrier "$b"
	b=$((b + 1))
	s0=$(hw ssq_sqes)
	cmd="ib_write_bw -d $dev -x $gid -p $p -s 1024 -q $q -n $n -F"
	xpair "ssq_write_bw_${q}qp" "$p" 1 "$cmd" "$cmd 10.0.0.1"
	if [ "$me" = 2 ]; then
		is "ssq_write_bw_${q}qp_sqes" $(($(hw ssq_sqes) - s0)) $((q * n))
		# perftest's result line: #bytes #iterations (all QPs) BW...
		r=$(awk '$1 == 1024 && NF >= 5' "/tmp/xpair.ssq_write_bw_${q}qp" | tail -1)
		echo "  result: $r"
		is "ssq_write_bw_${q}qp_iters" "$(echo "$r" | awk '{print $2}')" $((q * n))
	fi
	p=$((p + 1))
done
check "barrier_$b" barrier "$b"
is ssq_no_doorbells "$(hw mmio_doorbells)" "$db0"
is ssq_no_qp_send_pipes "$(hw pipe_sqes)" "$ps0"
check dmesg_clean dmesg_clean
finish
