# User-level RDMA between two guests (one snic port each, point-to-point
# wire) through the libsnic provider: snic-verbs-test, ibv_rc_pingpong and
# rping (rdma_cm over the kernel's GSI QP).  Guest 1 serves, guest 2 runs
# the clients and prints the check lines.
# vm-args: --guests 2
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_two_guests
check ping wait_ping "$peer" 60

verbs_xguest 200
check barrier_1 barrier 1

if [ "$me" = 1 ]; then
	timeout 120 ibv_rc_pingpong -d "$dev" -g "$gid" -s 4096 -n 50 > /tmp/pp 2>&1 &
	spid=$!
	check rc_pingpong_listen wait_listen 18515
	check barrier_2 barrier 2
	wait $spid && pass rc_pingpong_server || fail rc_pingpong_server "$(tail -1 /tmp/pp)"
else
	check barrier_2 barrier 2
	check rc_pingpong_4096 timeout 120 ibv_rc_pingpong -d "$dev" -g "$gid" -s 4096 -n 50 10.0.0.1
fi
check barrier_3 barrier 3

if [ "$me" = 1 ]; then
	timeout 120 rping -s -a 10.0.0.1 -C 10 -v > /tmp/rping 2>&1 &
	spid=$!
	sleep 2
	check barrier_4 barrier 4
	wait $spid && pass rping_server || fail rping_server "$(tail -1 /tmp/rping)"
else
	check barrier_4 barrier 4
	timeout 120 rping -c -a 10.0.0.1 -C 10 -v > /tmp/rping 2>&1
	rc=$?
	n=$(grep -c 'ping data: rdma-ping-' /tmp/rping)
	if [ $rc = 0 ] && [ "$n" = 10 ]; then
		pass rping_10
	else
		fail rping_10 "rc $rc, $n of 10 pings: $(tail -1 /tmp/rping)"
	fi
fi
check barrier_5 barrier 5
check dmesg_clean dmesg_clean
finish
