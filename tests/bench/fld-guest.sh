# Guest half of tests/bench/fld.sh.  Two guests on one wire; guest 1 has
# the FLD (fld.ko, FLD-E on UDP port 7) and the host CPU echo program
# (fld-udp echo on UDP port 9) on the same snic; guest 2 sends.  Guest 1
# marks instruction counts around each phase (barriers over the wire);
# guest 2 prints the rates.  Lines: "BENCH ...".
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

N=${FLD_BENCH_N:-3000}
SIZES="64 256 1024 1500 4096 9000"	# Ethernet frame bytes
snic_eth_up > /tmp/up.log 2>&1 || { echo "BENCH-ERROR setup: $(tail -1 /tmp/up.log)"; exit 1; }
ip link set "$if" mtu 9000
for i in $(seq 1 30); do ping -c 1 -W 1 "$peer" >/dev/null 2>&1 && break; done

# FLD_BENCH=zuc (the FLD runs accel=zuc): 512-byte EEA3 requests answered
# by the FLD and by the host CPU with the same code, over RDMA - FLD-R
# (fld.ko's rdma_cm port 7471) against fld-zuc rdma-serve (port 7472,
# libsnic verbs, 32 receives, sleeping on its CQ's completion channel) - and over UDP -
# FLD-E (UDP 7) against fld-zuc serve (UDP 9).
if [ "${FLD_BENCH:-echo}" = zuc ]; then
	Z=${FLD_BENCH_ZUC_N:-600}
	modprobe ib_uverbs && modprobe rdma_ucm ||
		{ echo "BENCH-ERROR modprobe rdma"; exit 1; }
	if [ "$D2D_GUEST" = 1 ]; then
		modprobe fld snic="$if" udp_port=7 rdma_port=7471 ||
			{ echo "BENCH-ERROR modprobe fld"; exit 1; }
		fld-zuc serve 9 &
		fld-zuc rdma-serve 7472 32 > /tmp/rserve.log 2>&1 &
		barrier 1 || exit 1
		insn-mark 40; barrier 2; barrier 3; insn-mark 41	# FLD-E zuc
		insn-mark 50; barrier 4; barrier 5; insn-mark 51	# CPU zuc (UDP)
		insn-mark 60; barrier 6; barrier 7; insn-mark 61	# FLD-R zuc
		insn-mark 70; barrier 8; barrier 9; insn-mark 71	# CPU zuc (RDMA)
		echo "BENCH fld accel_tx=$(fldctl get accel_tx) qp_sends=$(fldctl get qp_sends) errors=$(fldctl errors | cut -d' ' -f2)"
		barrier 99
		echo BENCH-DONE
		exit 0
	fi
	barrier 1 || exit 1
	barrier 2
	echo "BENCH run=fld-zuc $(fld-zuc load "$peer" 7 "$Z" 4096 8)"
	barrier 3
	barrier 4
	echo "BENCH run=cpu-zuc $(fld-zuc load "$peer" 9 "$Z" 4096 8)"
	barrier 5
	barrier 6
	echo "BENCH run=fldr-zuc $(fld-zuc rdma-load "$peer:7471" "$Z" 4096 8 2>&1 | tail -1)"
	barrier 7
	barrier 8
	echo "BENCH run=cpu-rdma-zuc $(fld-zuc rdma-load "$peer:7472" "$Z" 4096 8 2>&1 | tail -1)"
	barrier 9
	barrier 99
	echo BENCH-DONE
	exit 0
fi

# tlp_sizes KNOBS MARK (guest 1): snic's counters of FLD-E's queues around
# guest 2's echoes of each size (barriers MARK, MARK + 1, ...): one "BENCH
# tlp" line per size, with the SQ's and RQ's DMA and MMIO counters that
# tests/bench/fld.sh breaks the control bytes down by.
tlp_sizes() {
	local knobs=$1 mark=$2 s
	for s in $SIZES; do
		fldctl nic > /tmp/nic.0
		barrier $mark; barrier $((mark + 1))
		fldctl nic > /tmp/nic.1
		awk -v s="$s" -v k="$knobs" '
			FNR == NR { for (i = 2; i < NF; i += 2) a[$1 "." $i] = $(i + 1); next }
			{ for (i = 2; i < NF; i += 2) d[$1 "." $i] = $(i + 1) - a[$1 "." $i] }
			END { printf "BENCH tlp knobs=%s size=%d packets=%d sq_tlp_bytes=%d rq_tlp_bytes=%d sq_tlps=%d rq_tlps=%d",
				k, s, d["rq.packets"], d["sq.tlp_bytes"], d["rq.tlp_bytes"], d["sq.tlps"], d["rq.tlps"]
				n = split("dma_reads dma_read_bytes dma_writes dma_write_bytes mmio_writes mmio_write_bytes", f, " ")
				for (i = 1; i <= n; i++)
					printf " sq_%s=%d rq_%s=%d", f[i], d["sq." f[i]], f[i], d["rq." f[i]]
				printf "\n" }' \
			/tmp/nic.0 /tmp/nic.1
		mark=$((mark + 2))
	done
}
# size_pings KNOBS MARK (guest 2): 200 echoes of each size between the
# barriers tlp_sizes waits at.
size_pings() {
	local knobs=$1 mark=$2 s r
	for s in $SIZES; do
		barrier $mark
		r=$(fld-udp ping "$peer" 7 200 $((s - 42)) 8)
		echo "BENCH run=size-$knobs-$s $r"
		barrier $((mark + 1))
		mark=$((mark + 2))
	done
}

if [ "$D2D_GUEST" = 1 ]; then
	modprobe fld snic="$if" udp_port=7 || { echo "BENCH-ERROR modprobe fld"; exit 1; }
	fld-udp echo 9 &
	barrier 1 || exit 1
	insn-mark 10; barrier 2; barrier 3; insn-mark 11	# FLD-E echo
	insn-mark 20; barrier 4; barrier 5; insn-mark 21	# CPU echo
	# PCIe bytes with fld.ko's knobs (its defaults), then without them
	tlp_sizes on 30
	fldctl show | grep '^flde_pcie' | sed 's/^/BENCH-KNOBS on /'
	rmmod fld && modprobe fld snic="$if" udp_port=7 tx_signal=1 mmio_wqe=0 mini_cqe=0 ||
		{ echo "BENCH-ERROR modprobe fld without the PCIe knobs"; exit 1; }
	fldctl show | grep '^flde_pcie' | sed 's/^/BENCH-KNOBS off /'
	tlp_sizes off 60
	fldctl mem | sed 's/^/BENCH-MEM /'
	echo "BENCH fld accel_tx=$(fldctl get accel_tx) errors=$(fldctl errors | cut -d' ' -f2)"
	barrier 99
	echo BENCH-DONE
	exit 0
fi

barrier 1 || exit 1
barrier 2
r=$(fld-udp ping "$peer" 7 "$N" 64 16)
echo "BENCH run=fld-echo $r"
barrier 3
barrier 4
r=$(fld-udp ping "$peer" 9 "$N" 64 16)
echo "BENCH run=cpu-echo $r"
barrier 5
size_pings on 30
size_pings off 60
barrier 99
echo BENCH-DONE
