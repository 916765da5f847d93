# DMA-only notification pipes between two guests (one snic port each):
# stock ibv_rc_pingpong (with --chk: the received data is verified),
# perftest ib_write_bw, ib_send_lat and ib_read_lat with
# SNIC_QP_MODE=pipe-qp (each QP polls a send pipe of its own; plain
# "pipe" sends through shared send queues: snic_ssq.sh), then ib_send_lat in doorbell mode.  The port's
# hw_counters show that the pipe runs rang no QP doorbell at all
# (mmio_doorbells) while the device took SQEs and RQEs from the pipes,
# and that the doorbell run did ring.  Guest 1 serves, guest 2 is the
# client; each guest checks its own counters.  First, in each guest,
# snic-dv-test: snicdv_create_qp / snicdv_qp_mode (snicdv.h).
# vm-args: --guests 2
# timeout: 420
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_two_guests
check ping wait_ping "$peer" 60
# the direct verbs, in each guest on its own device
snic-dv-test -d "$dev" -P "guest/$T/dv" > /tmp/dv 2>&1
tool_lines dv /tmp/dv
db0=$(hw mmio_doorbells) sq0=$(hw pipe_sqes) rq0=$(hw pipe_rqes)

export SNIC_QP_MODE=pipe-qp
b=1
p=18760
for t in rc_pingpong write_bw send_lat read_lat; do
	case $t in
	rc_pingpong) cmd="ibv_rc_pingpong -d $dev -g $gid -p $p -s 4096 -n 100 -c" ;;
	write_bw) cmd="ib_write_bw -d $dev -x $gid -p $p -s 4096 -n 200 -F" ;;
	*) cmd="ib_$t -d $dev -x $gid -p $p -n 100 -F" ;;
	esac
	check "barrier_$b" barrier "$b"
	b=$((b + 1))
	xpair "pipe_$t" "$p" 1 "$cmd" "$cmd 10.0.0.1"
	p=$((p + 1))
done
check "barrier_$b" barrier "$b"
b=$((b + 1))
db1=$(hw mmio_doorbells) sq1=$(hw pipe_sqes) rq1=$(hw pipe_rqes)
check pipe_no_doorbells test "$db1" = "$db0"
check pipe_sqes_taken test "$sq1" -gt "$sq0"
check pipe_rqes_taken test "$rq1" -gt "$rq0"

# The same counter in doorbell mode: the doorbells are there.
export SNIC_QP_MODE=doorbell
cmd="ib_send_lat -d $dev -x $gid -p $p -n 50 -F"
check "barrier_$b" barrier "$b"
xpair doorbell_send_lat "$p" 1 "$cmd" "$cmd 10.0.0.1"
check doorbells_counted test "$(hw mmio_doorbells)" -gt "$db1"
check pipe_idle_in_doorbell_mode test "$(hw pipe_sqes)" = "$sq1"
check dmesg_clean dmesg_clean
finish
