# DCQCN on snic (docs/snic-rdma.md "Congestion control"): two ib_write_bw
# flows between the two snic ports of one guest at once, with every 8th
# ECN-capable RoCE packet marked CE at the receiving port (ecn-mark-every,
# outside timing mode): the receiver counts the marks and sends CNPs, the
# sender takes them and cuts its DCQCN rate; snic-verbs-test's data checks
# pass under the same marks.
# vm-args: --guests 1 --snic-opts cc=dcqcn,ecn-mark-every=8
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_one_guest
hc0=/sys/class/infiniband/$dev0/ports/1/hw_counters
hc1=/sys/class/infiniband/$dev1/ports/1/hw_counters
ctr() { cat "$1/$2" 2>/dev/null || echo -1; }
for c in ecn_marked cnp_sent cnp_rcvd cc_rate_decreases; do
	eval "b0_$c=$(ctr "$hc0" $c) b1_$c=$(ctr "$hc1" $c)"
done

# two flows at once: servers on dev0, clients (the writers) on dev1
args="-n 300 -F -s 65536"
timeout 200 ib_write_bw -d "$dev0" -x "$gid0" -p 18800 $args > /tmp/cc.s1 2>&1 &
s1=$!
timeout 200 ib_write_bw -d "$dev0" -x "$gid0" -p 18801 $args > /tmp/cc.s2 2>&1 &
s2=$!
wait_listen 18800
wait_listen 18801
timeout 200 ib_write_bw -d "$dev1" -x "$gid1" -p 18800 $args 127.0.0.1 > /tmp/cc.c1 2>&1 &
c1=$!
timeout 200 ib_write_bw -d "$dev1" -x "$gid1" -p 18801 $args 127.0.0.1 > /tmp/cc.c2 2>&1 &
c2=$!
rc=0
for p in $s1 $s2 $c1 $c2; do
	wait "$p" || rc=$?
done
if [ $rc = 0 ]; then
	pass two_flows
else
	fail two_flows "an ib_write_bw failed (status $rc)"
	for f in /tmp/cc.s1 /tmp/cc.s2 /tmp/cc.c1 /tmp/cc.c2; do
		sed "s|^|  ${f##*/}: |" "$f"
	done
fi

# the data under the same marks
verbs_pair verbs_dcqcn 18802 "$dev0" "$dev1"

# the receiver (dev0) marked and notified, the sender (dev1) cut its rate
moved() { [ "$(ctr "$1" "$2")" -gt "$3" ] || { echo "$2: $(ctr "$1" "$2") (was $3)"; return 1; }; }
check ecn_marked moved "$hc0" ecn_marked "$b0_ecn_marked"
check cnp_sent moved "$hc0" cnp_sent "$b0_cnp_sent"
check cnp_rcvd moved "$hc1" cnp_rcvd "$b1_cnp_rcvd"
check rate_cut moved "$hc1" cc_rate_decreases "$b1_cc_rate_decreases"
check dmesg_clean dmesg_clean
finish
