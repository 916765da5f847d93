# Guest half of TIMING=1 tests/bench/fld.sh: one guest in timing mode
# (tools/vm --timing: one clock for both endpoints, docs/timing.md).
# snic's first port (10.0.0.1) has the FLD (fld.ko, FLD-E on UDP port 7,
# echo accelerator) and the host CPU echo program (fld-udp echo, UDP port
# 9); the second port, in network namespace p (10.0.0.2), sends.  Every
# time is virtual (instruction-counted) time: the guest's clock under
# icount.  Lines: "BENCH ...".
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
