# Low-latency QPs between two guests (one snic port each): snic-llq-test,
# a 32-byte SEND ping-pong over one RC QP whose receiver polls the last
# byte of the next slot of its low-latency ring (snicdv_create_llq_qp: no
# receive WQE, no CQE), then the same with receives and CQ polling.  The
# client checks every answer, that no receive CQE came in llq mode, and
# that a message one byte over a slot's payload takes the server's
# receive queue; each guest checks its port's llq_msgs counter (every
# message it received went into the ring) and that llq_full stayed 0.
# vm-args: --guests 2
# timeout: 420
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_two_guests
check ping wait_ping "$peer" 60
n=300
b=1
p=18770
for m in llq cq; do
	check "barrier_$b" barrier "$b"
	b=$((b + 1))
	l0=$(hw llq_msgs)
	if [ "$me" = 1 ]; then
		timeout 150 snic-llq-test -d "$dev" -p $p -m $m -n $n > /tmp/llq.s 2>&1 ||
			fail "${m}_server" "$(tail -1 /tmp/llq.s)"
	else
		timeout 150 snic-llq-test -d "$dev" -p $p -m $m -n $n \
			-P "guest/$T/$m" 10.0.0.1 > /tmp/llq.c 2>&1
		tool_lines "$m" /tmp/llq.c
	fi
	got=$(($(hw llq_msgs) - l0))
	# llq: the server takes n + 0 messages in its ring (the fallback goes
	# to the receive queue), the client n answers + 1
	if [ $m = llq ]; then
		is "${m}_ring_msgs" "$got" $((n + me - 1))
	else
		is "${m}_ring_msgs" "$got" 0
	fi
	p=$((p + 1))
done
is llq_never_full "$(hw llq_full)" 0
check dmesg_clean dmesg_clean
finish
