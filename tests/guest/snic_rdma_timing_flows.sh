# Concurrent RDMA flows in timing mode, again and again: four ib_write_bw
# flows (64 KiB messages, 64 outstanding) between the two ports of one
# guest, two from each port, run together three times over, each round
# to its end (perftest exits 0) with the kernel log clean.  Timing mode
# completes the device's DMA writes, completions and interrupts on the
# virtual clock after their modeled delay, while the flows' QPs, MRs and
# CQs are created and destroyed round after round (the device side of
# that is tests/device/test_snic_timing.c teardown_in_flight).
# vm-args: --guests 1 --timing
# timeout: 900
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc
. /opt/d2d/tests/timing.inc

timing_env
rdma_user_one_guest
# the clients busy-poll on the one vCPU: a waker lets the scheduler
# switch between them within a flow
while :; do sleep 0.0002; done &
waker=$!
port=19100
for round in 1 2 3; do
	pids=""
	for f in 1 2 3 4; do
		if [ $((f % 2)) = 0 ]; then s=$dev0 sg=$gid0 c=$dev1 cg=$gid1 ip=10.0.0.1
		else s=$dev1 sg=$gid1 c=$dev0 cg=$gid0 ip=10.0.0.2; fi
		timeout 300 ib_write_bw -d "$s" -x "$sg" -p $((port + f)) -s 65536 \
			-t 64 -n 100 -F > "/tmp/fl.s$f" 2>&1 &
		pids="$pids $!"
		wait_listen $((port + f))
		timeout 300 ib_write_bw -d "$c" -x "$cg" -p $((port + f)) -s 65536 \
			-t 64 -n 100 -F "$ip" > "/tmp/fl.c$f" 2>&1 &
		pids="$pids $!"
	done
	rc=0
	for p in $pids; do wait "$p" || rc=1; done
	if [ $rc = 0 ]; then
		pass "round$round"
	else
		fail "round$round" "an ib_write_bw failed: $(tail -1 /tmp/fl.c1)"
	fi
	check "round${round}_dmesg_clean" dmesg_clean
	port=$((port + 10))
done
kill "$waker"
wait "$waker" 2>/dev/null
finish
