# Guest half of tests/bench/flexins-cc.sh: one guest in timing mode with
# three snic ports on one hub, 10.0.0.1 (the receiver) and 10.0.0.2,
# 10.0.0.3 (the senders; with two ports, one sender).  For FLOWS flows (in
# turn 2 and 4), flow i is an ib_write_bw (64 KiB messages) from sender
# port 1 + i % senders to the receiver: two senders at line rate into one
# port, so the switch queue in front of the receiver fills.  Prints BENCH
# lines: each flow's bandwidth (modeled time) and the receiver's ECN
# marks and CNPs.
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_modules || { echo "BENCH-ERROR modprobe"; exit 1; }
set -- $(snic_netdevs)
[ $# -ge 2 ] || { echo "BENCH-ERROR need two snic ports, found: $*"; exit 1; }
# the receiver and one or two senders
if [ $# -ge 3 ]; then ifs="$1 $2 $3" nsend=2; else ifs="$1 $2" nsend=1; fi
i=0
for f in $ifs; do
	i=$((i + 1))
	ip addr add 10.0.0.$i/24 dev "$f" && ip link set "$f" up
done
for f in $ifs; do wait_carrier "$f" 10 >/dev/null; done
# every address is local: static neighbours (see rdma_user_one_guest)
for f in $ifs; do
	i=0
	for g in $ifs; do
		i=$((i + 1))
		[ "$f" = "$g" ] || ip neigh replace 10.0.0.$i dev "$f" nud permanent \
			lladdr "$(cat "/sys/class/net/$g/address")"
	done
done
i=0
for f in $ifs; do
	d=$(ibdev_of "$f") && g=$(roce_v2_gid "$d") ||
		{ echo "BENCH-ERROR no RDMA device or GID on $f"; exit 1; }
	eval "dev$i=$d gid$i=$g"
	i=$((i + 1))
done
hc() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; }

# 256 messages of 64 KiB outstanding per flow (16 MiB queued at the NIC,
# more than a millisecond of line rate).  The clients busy-poll on the one
# vCPU of a timed guest: a waker (a loop of short sleeps) makes the
# scheduler switch between them well within a flow, or each would run its
# flow alone for a time slice.
ITERS=${ITERS:-300}
SZ=65536
port=19000
for flows in 2 4; do
	m0=$(hc "$dev0" ecn_marked) c0=$(hc "$dev0" cnp_sent)
	pids=""
	for f in $(seq 1 "$flows"); do
		timeout 1500 ib_write_bw -d "$dev0" -x "$gid0" -p $((port + f)) \
			-s $SZ -t 256 -n "$ITERS" -F > "/tmp/cc.s$f" 2>&1 &
		pids="$pids $!"
	done
	for f in $(seq 1 "$flows"); do wait_listen $((port + f)); done
	while :; do sleep 0.0002; done &
	waker=$!
	cpids=""
	for f in $(seq 1 "$flows"); do
		s=$((1 + f % nsend))
		eval "d=\$dev$s g=\$gid$s"
		timeout 1500 ib_write_bw -d "$d" -x "$g" -p $((port + f)) \
			-s $SZ -t 256 -n "$ITERS" -F 10.0.0.1 > "/tmp/cc.c$f" 2>&1 &
		cpids="$cpids $!"
	done
	rc=0
	for p in $pids $cpids; do wait "$p" || rc=1; done
	kill "$waker"; wait "$waker" 2>/dev/null
	[ $rc = 0 ] || { echo "BENCH-ERROR ib_write_bw failed with $flows flows";
		for f in /tmp/cc.c*; do sed "s|^|  ${f##*/}: |" "$f"; done; exit 1; }
	line="BENCH flows=$flows"
	for f in $(seq 1 "$flows"); do
		bw=$(awk -v s=$SZ '$1 == s && NF >= 5 {print $4}' "/tmp/cc.c$f" | tail -1)
		line="$line bw$f=${bw:-0}"
	done
	echo "$line marked=$(( $(hc "$dev0" ecn_marked) - m0 )) cnps=$(( $(hc "$dev0" cnp_sent) - c0 ))"
	port=$((port + 10))
done
exit 0
