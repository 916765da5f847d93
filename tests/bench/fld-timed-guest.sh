# Guest half of TIMING=1 tests/bench/fld.sh: one guest in timing mode
# (tools/vm --timing: one clock for both endpoints, docs/timing.md).
# snic's first port (10.0.0.1) has the FLD (fld.ko, FLD-E on UDP port 7,
# echo accelerator) and the host CPU echo program (fld-udp echo, UDP port
# 9); the second port, in network namespace p (10.0.0.2), sends.  Every
# time is virtual (instruction-counted) time: the guest's clock under
# icount.  Lines: "BENCH ...".  FLD_BENCH=zuc and FLD_BENCH=defrag: below.
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

N=${FLD_BENCH_N:-2000}
PL=22		# UDP payload: 64-byte Ethernet frames (without FCS)
snic_pair_netns > /tmp/up.log 2>&1 ||
	{ echo "BENCH-ERROR setup: $(tail -1 /tmp/up.log)"; exit 1; }
# FLD_BENCH=zuc (the FLD runs accel=zuc): 512-byte 128-EEA3 requests,
# 8 in flight, answered by the FLD (UDP 7) and by the host CPU running the
# same ZUC code (fld-zuc serve, UDP 9); then over RDMA, FLD-R (fld.ko's
# rdma_cm port 7471) against the host CPU as an RDMA server (fld-zuc
# rdma-serve, port 7472), closed loop with 1 .. 16 requests in flight:
# requests per second at each (latency = in flight / rate).
if [ "${FLD_BENCH:-echo}" = zuc ]; then
	Z=${FLD_BENCH_ZUC_N:-600}
	L=${FLD_BENCH_LAT_N:-200}
	modprobe ib_uverbs && modprobe rdma_ucm ||
		{ echo "BENCH-ERROR modprobe rdma"; exit 1; }
	modprobe fld snic="$if0" udp_port=7 rdma_port=7471 ||
		{ echo "BENCH-ERROR modprobe fld"; exit 1; }
	fld-zuc serve 9 &
	fld-zuc rdma-serve 7472 32 > /tmp/rserve.log 2>&1 &
	sleep 1
	echo "BENCH run=fld-zuc $(ip netns exec p fld-zuc load 10.0.0.1 7 "$Z" 4096 8)"
	echo "BENCH run=cpu-zuc $(ip netns exec p fld-zuc load 10.0.0.1 9 "$Z" 4096 8)"
	for k in 1 2 4 8 16; do
		echo "BENCH run=fldr-k$k $(ip netns exec p fld-zuc rdma-load 10.0.0.1:7471 "$L" 4096 $k 2>&1 | tail -1)"
		echo "BENCH run=cpur-k$k $(ip netns exec p fld-zuc rdma-load 10.0.0.1:7472 "$L" 4096 $k 2>&1 | tail -1)"
	done
	echo BENCH-DONE
	exit 0
fi
# FLD_BENCH=defrag (the FLD runs accel=defrag): D UDP datagrams of 3000
# bytes, each cut into four IPv4 fragments of at most 1000 bytes carried
# in VXLAN (VNI 42) frames, sent back to back by fld-frag in namespace p
# to this port; a receiver here (fld-frag recv, 10.9.0.2:5001) checks
# every byte.
#  df-send-only: a drop rule on this port (ethtool -N ... action -1) drops
#    the fragments in the NIC: what the sender alone costs;
#  df-cpu: this guest's stack decapsulates (a vxlan device) and reassembles
#    (ip_defrag: ReasmReqds grows);
#  df-fld: the NIC steers VNI 42 to the FLD (fldctl flow vxlan 42), whose
#    defrag accelerator reassembles and re-injects whole datagrams into this
#    port's receive path (fld.ko loopback=1): the stack reassembles nothing.
# Each run prints the sender's start_ns and end_ns and the receiver's
# last_ns: one clock, the guest's, in modeled time.
if [ "${FLD_BENCH:-echo}" = defrag ]; then
	D=${FLD_BENCH_DF_N:-1000}
	reasm() {
		awk '/^Ip:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "ReasmReqds") c = i; h = 1 } else print $c }' /proc/net/snmp
	}
	sysctl -qw net.core.rmem_max=16777216 net.ipv4.conf.all.rp_filter=0 \
		net.ipv4.conf.default.rp_filter=0 "net.ipv4.conf.$if0.rp_filter=0"
	ip link set "$if0" mtu 9000
	mac0=$(cat "/sys/class/net/$if0/address")
	ip -n p neigh replace 10.0.0.1 lladdr "$mac0" dev "$if1" nud permanent
	send() { ip netns exec p fld-frag send 10.0.0.1 42 "$1" 10.9.0.2 5001 "$D" 3000 1000 normal 0; }
	# df_run NAME INNER_DMAC
	df_run() {
		local r0 rp
		r0=$(reasm)
		fld-frag recv 10.9.0.2 5001 "$D" 3000 900 > "/tmp/df.$1" 2>&1 &
		rp=$!
		sleep 0.5
		send "$2" > "/tmp/dfs.$1" || echo "BENCH-ERROR $1: sender failed"
		wait $rp
		echo "BENCH run=$1 $(cat "/tmp/dfs.$1") $(tr '\n' ' ' < "/tmp/df.$1")reasm $(($(reasm) - r0))"
	}
	ethtool -N "$if0" flow-type udp4 dst-port 4789 action -1 loc 1 ||
		{ echo "BENCH-ERROR drop rule"; exit 1; }
	echo "BENCH run=df-send-only $(send "$mac0" || echo "BENCH-ERROR df-send-only: sender failed")"
	ethtool -N "$if0" delete 1
	modprobe vxlan || { echo "BENCH-ERROR modprobe vxlan"; exit 1; }
	ip link add vx42 type vxlan id 42 local 10.0.0.1 dstport 4789 dev "$if0" &&
		ip addr add 10.9.0.2/24 dev vx42 && ip link set vx42 up ||
		{ echo "BENCH-ERROR vxlan device"; exit 1; }
	df_run df-cpu "$(cat /sys/class/net/vx42/address)"
	ip link del vx42
	modprobe fld snic="$if0" udp_port=0 loopback=1 && fldctl flow vxlan 42 ||
		{ echo "BENCH-ERROR fld"; exit 1; }
	ip addr add 10.9.0.2/32 dev "$if0"
	df_run df-fld "$mac0"
	echo "BENCH run=df-fld-stats reassembled $(fldctl get df_reassembled) dropped $(fldctl get df_dropped) evicted $(fldctl get df_evicted)"
	echo BENCH-DONE
	exit 0
fi
modprobe fld snic="$if0" udp_port=7 || { echo "BENCH-ERROR modprobe fld"; exit 1; }
fld-udp echo 9 &
sleep 1
# round trips: one datagram in flight; rates: 16 in flight
echo "BENCH run=fld-rtt $(ip netns exec p fld-udp ping 10.0.0.1 7 "$N" $PL 1)"
echo "BENCH run=cpu-rtt $(ip netns exec p fld-udp ping 10.0.0.1 9 "$N" $PL 1)"
echo "BENCH run=fld-rate $(ip netns exec p fld-udp ping 10.0.0.1 7 "$N" $PL 16)"
echo "BENCH run=cpu-rate $(ip netns exec p fld-udp ping 10.0.0.1 9 "$N" $PL 16)"
echo "BENCH fld accel_tx=$(fldctl get accel_tx) errors=$(fldctl errors | cut -d' ' -f2)"
echo BENCH-DONE
