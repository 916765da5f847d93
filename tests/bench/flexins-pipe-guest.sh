# Guest half of tests/bench/flexins-pipe.sh: one guest in timing mode
# (tools/vm --timing), snic's two ports on one hub (10.0.0.1 serves,
# 10.0.0.2 is the client).  For each QP mode (SNIC_QP_MODE: doorbell;
# pipe, whose QPs send through shared send queues; pipe-qp, a send pipe
# per QP) and QP count: ib_write_bw of 64-byte WRITEs over N QPs, with the
# client port's counters around it (ethtool: pcie_mmio_writes, pcie_tlps;
# hw_counters: mmio_doorbells, pipe_sqes, ssq_sqes, pipe_polls); then ib_read_lat at 64 bytes on
# one QP (READ: only the client polls, so the one vCPU is not shared by
# two busy-polling programs, as in tests/bench/rdma-timed-guest.sh); then
# snic-llq-test's SEND ping-pong with a low-latency ring vs CQ polling.
# Prints BENCH lines; every time is virtual (instruction-counted) time.
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_one_guest
hc=/sys/class/infiniband/$dev1/ports/1/hw_counters
est() { ethtool -S "$if1" | awk -v k="$1:" '$1 == k {print $2}'; }
QPS=${PIPE_QPS:-1 16 256 1000}
WQES=${PIPE_WQES:-4000}		# WRITEs per run, over all QPs
LAT_ITERS=${LAT_ITERS:-300}
MODES=${PIPE_MODES:-doorbell pipe pipe-qp}
p=18900
for mode in $MODES; do
	export SNIC_QP_MODE=$mode
	for q in $QPS; do
		n=$((WQES / q))
		[ "$n" -lt 5 ] && n=5
		m0=$(est pcie_mmio_writes) t0=$(est pcie_tlps)
		d0=$(cat "$hc/mmio_doorbells") s0=$(cat "$hc/pipe_sqes")
		o0=$(cat "$hc/pipe_polls") q0=$(cat "$hc/ssq_sqes")
		pair "$mode-bw-$q" $p \
			"ib_write_bw -d $dev0 -x $gid0 -p $p -s 64 -q $q -t 16 -n $n -F" \
			"ib_write_bw -d $dev1 -x $gid1 -p $p -s 64 -q $q -t 16 -n $n -F 10.0.0.1"
		m1=$(est pcie_mmio_writes) t1=$(est pcie_tlps)
		d1=$(cat "$hc/mmio_doorbells") s1=$(cat "$hc/pipe_sqes")
		o1=$(cat "$hc/pipe_polls") q1=$(cat "$hc/ssq_sqes")
		mbs=$(awk '$1 == 64 && NF >= 5 {print $4}' "/tmp/pair.$mode-bw-$q.c" | tail -1)
		echo "BENCH mode=$mode qps=$q wqes=$((n * q)) bw_mbs=${mbs:-0}" \
			"mmio=$((m1 - m0)) tlps=$((t1 - t0)) doorbells=$((d1 - d0))" \
			"pipe_sqes=$((s1 - s0)) ssq_sqes=$((q1 - q0))" \
			"pipe_polls=$((o1 - o0))"
		p=$((p + 1))
	done
	pair "$mode-lat" $p \
		"ib_read_lat -d $dev0 -x $gid0 -p $p -s 64 -n $LAT_ITERS -F" \
		"ib_read_lat -d $dev1 -x $gid1 -p $p -s 64 -n $LAT_ITERS -F 10.0.0.1"
	us=$(awk '$1 == 64 && NF >= 6 {print $6}' "/tmp/pair.$mode-lat.c" | tail -1)
	echo "BENCH mode=$mode lat_us=${us:-0}"
	p=$((p + 1))
done
# Low-latency QPs: snic-llq-test's 32-byte SEND ping-pong, the receiver
# polling its slot ring (llq) or its CQ with posted receives (cq); both
# programs share the guest's CPU, so an empty poll yields it (-y).
for m in llq cq; do
	pair "llq-$m" $p \
		"snic-llq-test -d $dev0 -p $p -m $m -y -n ${LLQ_ITERS:-300}" \
		"snic-llq-test -d $dev1 -p $p -m $m -y -n ${LLQ_ITERS:-300} 10.0.0.1"
	ns=$(sed -n 's/^LAT .*avg_ns=\([0-9]*\).*/\1/p' "/tmp/pair.llq-$m.c" | tail -1)
	echo "BENCH mode=$m lat_ns=${ns:-0}"
	p=$((p + 1))
done
exit 0
