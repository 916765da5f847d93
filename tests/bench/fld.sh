#!/bin/bash
# make bench-fld: FlexDriver side by side in one run of two guests
# (tools/vm --guests 2, an fld in each, the insn-meter plugin):
#  - FLD-E echo (the FLD's echo accelerator answering over peer-to-peer
#    PCIe) against a host CPU echo program (fld-udp echo) on the same
#    snic: packets per second seen by the sender, and guest instructions
#    per packet on the echoing guest;
#  - PCIe TLP bytes per packet between the NIC and the FLD (snic's
#    counters of the FLD-E queues) for 64..9000-byte frames, and the
#    control bytes per echoed packet (less the frame both ways) with
#    fld.ko's PCIe knobs (its defaults) and without them (reloaded with
#    tx_signal=1 mmio_wqe=0 mini_cqe=0), beside the FLD paper's PCIe model
#    (§6, Figure 7a; tests/device/bench_pcie_model.c);
#  - the memory table (FLD vs a conventional driver);
#  - zuc: 512-byte 128-EEA3 requests answered by the FLD's zuc accelerator
#    against the host CPU running the same ZUC code, in a second boot with
#    accel=zuc: FLD-R (RDMA SENDs on FLD-owned RC QPs) against an RDMA
#    server on the host CPU (fld-zuc rdma-serve), and FLD-E (UDP) against
#    a UDP server (fld-zuc serve).
# Prints "bench: <name>: <ours> vs <baseline> = <ratio>".  A benchmark, not
# a timed test: numbers under TCG are only comparable within one run.
#
# TIMING=1: timing mode (docs/timing.md) - one guest on instruction-counted
# time with the sender's snic port in a network namespace: FLD-E echo
# against the host CPU echo, round trip (mean and 99.9th percentile, one
# datagram in flight) and packet rate (16 in flight) of 64-byte frames,
# in modeled time beside the FlexDriver paper's Table 6; in a second boot
# (accel=zuc) zuc over UDP and FLD-R's latency against load over RDMA
# (Figure 7c); in a third (accel=defrag) VXLAN-carried IPv4 fragments
# reassembled by the FLD against the guest's own stack.  First, on the
# device harness (tests/device/bench_fld_timed.c, no guest): FLD-E echo
# throughput against frame size, 64 frames back to back at the port,
# beside the paper's PCIe model of Figure 7a and the line rate.
set -uo pipefail
cd "$(dirname "$0")/../.."
# timed_boot DIR NAME [ACCEL]: one guest in timing mode with an fld (ACCEL,
# default echo; FLD_BENCH=ACCEL to the guest) running fld-timed-guest.sh;
# its BENCH lines in DIR/results.  A failed run prints "bench: NAME: run
# failed" and returns 1.
timed_boot() {
	local rc

	mkdir -p "$1"
	tools/vm --quiet --timing --timeout 1800 --log-dir "$1" \
		--qemu-arg -device --qemu-arg "fld,id=fld0${3:+,accel=$3}" \
		${3:+--env FLD_BENCH=$3} tests/bench/fld-timed-guest.sh
	rc=$?
	tr -d '\r' < "$1/guest1.log" | grep '^BENCH' > "$1/results"
	grep '^BENCH-ERROR' "$1/results"
	if [ $rc -ne 0 ] || ! grep -q '^BENCH-DONE' "$1/results"; then
		echo "bench: $2: run failed (status $rc, see $1)"
		return 1
	fi
}
timed() {
	local out f c
	out=$(mktemp -d /tmp/d2d-bench-fld-timed.XXXXXX)
	echo "[bench] logs in $out"
	echo "[bench] timing mode (icount shift=0: one instruction per ns)"
	tput "$out"
	timed_boot "$out" fld-timed || exit 1
	v() { sed -n "s/^BENCH run=$1 .* $2 \([0-9.]*\).*/\1/p" "$out/results"; }
	r() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.3f", a / b; else print "n/a"}'; }
	f=$(v fld-rtt rtt_us_mean) c=$(v cpu-rtt rtt_us_mean)
	echo "bench: fld-timed-echo-rtt-us: fld-e ${f:-0} vs cpu-echo ${c:-0} = $(r "${f:-0}" "${c:-0}") (modeled time, lower is better; paper Table 6: 2.78 vs 2.36 us)"
	f=$(v fld-rtt rtt_us_p999) c=$(v cpu-rtt rtt_us_p999)
	echo "bench: fld-timed-echo-rtt-p99.9-us: fld-e ${f:-0} vs cpu-echo ${c:-0} = $(r "${f:-0}" "${c:-0}") (modeled time, lower is better)"
	f=$(v fld-rate pps) c=$(v cpu-rate pps)
	f=$(awk -v p="${f:-0}" 'BEGIN {printf "%.3f", p / 1e6}')
	c=$(awk -v p="${c:-0}" 'BEGIN {printf "%.3f", p / 1e6}')
	echo "bench: fld-timed-echo-Mpps: fld-e $f vs cpu-echo $c = $(r "$f" "$c") (modeled time, 16 in flight, one sender on the guest's one vCPU; paper: 12.7 vs 9.6 Mpps)"
	# second boot: the FLD runs the zuc accelerator
	out=$out/zuc
	timed_boot "$out" fld-timed-zuc zuc || exit 1
	# 512-byte requests: rps x 4096 bits
	f=$(v fld-zuc rps) c=$(v cpu-zuc rps)
	f=$(awk -v p="${f:-0}" 'BEGIN {printf "%.3f", p * 4096 / 1e9}')
	c=$(awk -v p="${c:-0}" 'BEGIN {printf "%.3f", p * 4096 / 1e9}')
	echo "bench: fld-timed-zuc-512B-Gbps: fld-e $f vs cpu-zuc $c = $(r "$f" "$c") (modeled time, UDP, 8 in flight, one sender on the guest's one vCPU; paper Figure 8: the FLD's ZUC at line rate, 25 Gbit/s)"
	# FLD-R latency against load (closed loop: latency = in flight / rate)
	for k in 1 2 4 8 16; do
		f=$(v "fldr-k$k" rps) c=$(v "cpur-k$k" rps)
		fl=$(awk -v k=$k -v p="${f:-0}" 'BEGIN {if (p > 0) printf "%.1f", k * 1e6 / p; else print 0}')
		cl=$(awk -v k=$k -v p="${c:-0}" 'BEGIN {if (p > 0) printf "%.1f", k * 1e6 / p; else print 0}')
		echo "bench: fld-timed-fldr-latency-k$k-us: fld-r $fl vs cpu-rdma $cl = $(r "$fl" "$cl") (modeled time, lower is better; 512 B ZUC requests over RDMA, $k in flight, closed loop: latency = $k / rate; load fld-r ${f:-0} vs cpu-rdma ${c:-0} requests/s; one sender on the guest's one vCPU; paper Figure 7c: FLD-R latency against load)"
	done
	defrag_timed "$out/defrag"
	exit 0
}
# defrag_timed DIR: third boot, accel=defrag: VXLAN-carried IPv4 fragments
# reassembled by the FLD against this guest's own stack (vxlan + ip_defrag).
defrag_timed() {
	local out=$1 n s f c fo fr cr
	timed_boot "$out" fld-timed-defrag defrag || return
	# ns from the sender's start to the receiver's last datagram (the
	# sender-only run: to the sender's end)
	el() { awk -v r="run=$1" '$2 == r { for (i = 3; i < NF; i++) { if ($i == "start_ns") a = $(i + 1); if ($i == "end_ns" || $i == "last_ns") b = $(i + 1) } } END { if (b > a) print b - a; else print 0 }' "$out/results"; }
	n=$(sed -n 's/^BENCH run=df-cpu .* ok \([0-9]*\).*/\1/p' "$out/results")
	fo=$(sed -n 's/^BENCH run=df-fld .* ok \([0-9]*\).*/\1/p' "$out/results")
	fr=$(sed -n 's/^BENCH run=df-fld .* reasm \([0-9]*\).*/\1/p' "$out/results")
	cr=$(sed -n 's/^BENCH run=df-cpu .* reasm \([0-9]*\).*/\1/p' "$out/results")
	s=$(el df-send-only) c=$(el df-cpu) f=$(el df-fld)
	# datagrams per second of modeled time, sender and receiver together
	dps() { awk -v k="${1:-0}" -v t="$2" 'BEGIN {if (t > 0) printf "%.0f", k * 1e9 / t; else print 0}'; }
	echo "bench: fld-timed-defrag-3000B-datagrams-per-s: fld ${fo:-0} in $(dps "$fo" "$f") vs cpu ${n:-0} in $(dps "$n" "$c") = $(r "$(dps "$fo" "$f")" "$(dps "$n" "$c")") (modeled time, higher is better; 3000-byte UDP datagrams as four IPv4 fragments of at most 1000 bytes in VXLAN frames, sent back to back from the other port, every byte checked by the receiver; the sender shares the guest's one vCPU, so its cost, the same in both, is in both figures; the stack's IP reassembly requests: fld ${fr:-?} vs cpu ${cr:-?}; paper: 7x with the FLD)"
	# the receive side alone: minus the sender-only run (fragments dropped in the NIC)
	rx() { awk -v t="$1" -v s="$s" -v k="${2:-0}" 'BEGIN {if (k > 0 && t > s) printf "%.0f", (t - s) / k; else print 0}'; }
	echo "bench: fld-timed-defrag-rx-ns-per-datagram: fld $(rx "$f" "$fo") vs cpu $(rx "$c" "$n") = $(r "$(rx "$f" "$fo")" "$(rx "$c" "$n")") (modeled time, lower is better: each run's time less the sender-only run's $s ns, per datagram delivered; paper: 7x with the FLD)"
}
# tput DIR: FLD-E echo throughput against frame size (device harness).
tput() {
	local l
	if ! make -s -C tests build/device/bench_fld_timed > "$1/tput.build" 2>&1; then
		echo "bench: fld-timed-tput: tests/build/device/bench_fld_timed did not build (see $1/tput.build)"
		return
	fi
	tests/build/device/bench_fld_timed > "$1/tput.log" 2> "$1/tput.err"
	grep '^BENCH-ERROR' "$1/tput.log"
	grep -q '^BENCH-DONE' "$1/tput.log" ||
		echo "bench: fld-timed-tput: run failed (see $1/tput.log, $1/tput.err)"
	sed -n 's/^BENCH fld-tput //p' "$1/tput.log" | while read -r l; do
		eval "$(echo "$l" | tr ' ' '\n' | sed 's/^/t_/')"
		echo "bench: fld-timed-tput-${t_size}B-Gbps: fld-e $t_gbps vs pcie-model $t_model = $(awk -v a="$t_gbps" -v b="$t_model" 'BEGIN {printf "%.3f", a / b}') (modeled time, device harness: $t_answered of $t_frames frames back to back at the port echoed; FLD on PCIe Gen4 x8, the paper's PCIe model of Figure 7a on that link; the 100 Gbit/s wire allows $t_wire)"
	done
}
[ "${TIMING:-0}" = 1 ] && timed
out=$(mktemp -d /tmp/d2d-bench-fld.XXXXXX)
echo "[bench] logs in $out"
tools/vm --quiet --timeout 900 --guests 2 --log-dir "$out" \
	--qemu-arg -device --qemu-arg fld,id=fld0 \
	--insn-count "$out/insn" tests/bench/fld-guest.sh
rc=$?
for g in 1 2; do tr -d '\r' < "$out/guest$g.log" | grep '^BENCH'; done > "$out/results"
grep '^BENCH-ERROR' "$out/results"
if [ $rc -ne 0 ] || [ "$(grep -c '^BENCH-DONE' "$out/results")" -ne 2 ]; then
	echo "bench: fld: run failed (status $rc, see $out)"
	exit 1
fi
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.3f", a / b; else print "n/a"}'; }
pps() { sed -n "s/^BENCH run=$1 .* pps \([0-9]*\).*/\1/p" "$out/results"; }
pkts() { sed -n "s/^BENCH run=$1 sent [0-9]* received \([0-9]*\).*/\1/p" "$out/results"; }
insns() {	# guest 1 instructions per packet between marks $1 and $1+1
	local a b
	a=$(awk -v m="$1" '$1=="mark" && $2==m {print $3}' "$out/insn.1" | tail -1)
	b=$(awk -v m="$(($1 + 1))" '$1=="mark" && $2==m {print $3}' "$out/insn.1" | tail -1)
	awk -v a="$a" -v b="$b" -v n="$2" 'BEGIN {if (n > 0 && b > a) printf "%.0f", (b - a) / n; else print 0}'
}
fp=$(pps fld-echo) cp=$(pps cpu-echo)
echo "bench: fld-echo-pps: fld-e ${fp:-0} vs cpu-echo ${cp:-0} = $(ratio "${fp:-0}" "${cp:-0}") (higher is better)"
fi=$(insns 10 "$(pkts fld-echo)") ci=$(insns 20 "$(pkts cpu-echo)")
echo "bench: fld-echo-guest-insns-per-packet: fld-e $fi vs cpu-echo $ci = $(ratio "$fi" "$ci") (lower is better)"
sed -n 's/^BENCH tlp knobs=on //p' "$out/results" | while read -r l; do
	eval "$(echo "$l" | tr ' ' '\n' | sed 's/^/t_/')"
	if [ "$t_packets" = 0 ]; then
		# the FLD-E queues' snic counters did not move: a broken read-out
		echo "bench: fld-pcie-tlp-bytes-per-packet-$t_size: no packets counted on FLD-E's snic queues (fldctl nic)" >&2
		continue
	fi
	per=$(awk -v s="$t_sq_tlp_bytes" -v r="$t_rq_tlp_bytes" -v n="$t_packets" \
		'BEGIN {if (n > 0) printf "%.0f", (s + r) / n; else print 0}')
	echo "bench: fld-pcie-tlp-bytes-per-packet-$t_size: nic<->fld $per vs frame $t_size = $(ratio "$per" "$t_size") (rx $t_rq_tlp_bytes + tx $t_sq_tlp_bytes bytes / $t_packets packets)"
done
# Control bytes per echoed packet (every NIC<->FLD TLP byte less the frame
# both ways) with fld.ko's PCIe knobs and without, beside the FLD paper's
# PCIe model (bench_pcie_model: pcie-tlp.c's d2d_pcie_fld_model_ctrl).
sed -n 's/^BENCH-KNOBS //p' "$out/results" | sed 's/^/bench: fld-pcie-knobs: /'
ctrl() {	# ctrl KNOBS SIZE: control bytes per packet of that run
	sed -n "s/^BENCH tlp knobs=$1 size=$2 //p" "$out/results" | tr ' ' '\n' |
		awk -F= -v f="$2" '{ v[$1] = $2 } END { if (v["packets"] > 0) printf "%.1f", (v["sq_tlp_bytes"] + v["rq_tlp_bytes"]) / v["packets"] - 2 * f; else print 0 }'
}
if make -s -C tests build/device/bench_pcie_model > "$out/model.build" 2>&1; then
	tests/build/device/bench_pcie_model $(sed -n 's/^BENCH tlp knobs=on size=\([0-9]*\) .*/\1/p' "$out/results") > "$out/model"
else
	echo "bench: fld-pcie-ctrl: tests/build/device/bench_pcie_model did not build (see $out/model.build)"
fi
while read -r l; do
	eval "$(echo "$l" | tr ' ' '\n' | sed 's/^/m_/')"
	on=$(ctrl on "$m_size") off=$(ctrl off "$m_size")
	echo "bench: fld-pcie-ctrl-bytes-per-packet-$m_size: knobs $on vs no-knobs $off = $(ratio "$on" "$off") (lower is better; WQE-by-MMIO, TX CQE 1/16, mini-CQE lines; paper PCIe model (§6, Fig 7a): $m_model)"
done < "$out/model"
# The control bytes per packet by kind (docs/fld.md "Benchmark"), from the
# FLD-E queues' DMA and MMIO counters and the TLP model
# (docs/pcie-accounting.md): a CQE is one 64-byte write (24 + 64), a read
# of up to 256 bytes one request and one completion (24 + 20).
sed -n 's/^BENCH tlp //p' "$out/results" | tr ' ' '\n' | awk -F= '
	$1 == "knobs" && n { out() }
	{ v[$1] = $2; n++ }
	END { if (n) out() }
	function out(   p, f, w, txh, tx, rx, rqr, rxh) {
		p = v["packets"]; f = v["size"]
		if (p > 0) {
			w = v["sq_dma_reads"] - p		# WQE reads: one frame read a packet
			tx = 88 * v["sq_dma_writes"]		# TX CQEs
			txh = v["sq_tlp_bytes"] - 24 * v["sq_mmio_writes"] - v["sq_mmio_write_bytes"] - tx - v["sq_dma_read_bytes"] - 44 * w
			rx = 88 * (v["rq_dma_writes"] - p)	# RX CQEs, lines and fillers
			rqr = 44 * v["rq_dma_reads"] + v["rq_dma_read_bytes"]
			rxh = v["rq_tlp_bytes"] - rx - rqr - (v["rq_dma_write_bytes"] - 64 * (v["rq_dma_writes"] - p))
			printf "fld-pcie-breakdown knobs=%s size=%d: doorbells/WQE lines %.1f, WQE reads %.1f, TX frame read headers %.1f, TX CQEs %.1f, RX frame write headers %.1f, RX CQEs %.1f (%.2f a packet), RQ descriptor and record reads %.1f, frame bytes inline %.1f: control %.1f bytes a packet\n",
				v["knobs"], f, (24 * v["sq_mmio_writes"] + v["sq_mmio_write_bytes"]) / p, 108 * w / p, txh / p, tx / p, rxh / p, rx / p, (v["rq_dma_writes"] - p) / p, rqr / p,
				(v["sq_dma_read_bytes"] - 64 * w - f * p) / p, (v["sq_tlp_bytes"] + v["rq_tlp_bytes"]) / p - 2 * f
		}
		delete v; n = 0
	}'

sed -n 's/^BENCH-MEM //p' "$out/results" | sed 's/^/bench: fld-mem: /'
ft=$(sed -n 's/^BENCH-MEM total *\([0-9.]*\) KiB.*/\1/p' "$out/results")
ct=$(sed -n 's/^BENCH-MEM total *[0-9.]* KiB *\([0-9.]*\) MiB.*/\1/p' "$out/results")
echo "bench: fld-memory-KiB: fld ${ft:-0} vs conventional $(awk -v c="${ct:-0}" 'BEGIN {printf "%.1f", c * 1024}') = $(ratio "${ft:-0}" "$(awk -v c="${ct:-0}" 'BEGIN {print c * 1024}')") (paper: 832.7 KiB vs 85.3 MiB, x105)"

# Second boot: the FLD runs the zuc accelerator.
tlp_results=$out/results
zout="$out/zuc"
mkdir -p "$zout"
tools/vm --quiet --timeout 900 --guests 2 --log-dir "$zout" \
	--qemu-arg -device --qemu-arg fld,id=fld0,accel=zuc --env FLD_BENCH=zuc \
	--insn-count "$zout/insn" tests/bench/fld-guest.sh
rc=$?
for g in 1 2; do tr -d '\r' < "$zout/guest$g.log" | grep '^BENCH'; done > "$zout/results"
grep '^BENCH-ERROR' "$zout/results"
if [ $rc -ne 0 ] || [ "$(grep -c '^BENCH-DONE' "$zout/results")" -ne 2 ]; then
	echo "bench: fld-zuc: run failed (status $rc, see $zout)"
	exit 1
fi
out=$zout
rps() { sed -n "s/^BENCH run=$1 .* rps \([0-9]*\).*/\1/p" "$out/results"; }
reqs() { sed -n "s/^BENCH run=$1 sent [0-9]* answered \([0-9]*\).*/\1/p" "$out/results"; }
fr=$(rps fldr-zuc) cr=$(rps cpu-rdma-zuc)
echo "bench: fld-zuc-rdma-requests-per-sec: fld-r ${fr:-0} vs cpu-rdma-zuc ${cr:-0} = $(ratio "${fr:-0}" "${cr:-0}") (higher is better; RDMA SENDs, 8 in flight)"
fi=$(insns 60 "$(reqs fldr-zuc)") ci=$(insns 70 "$(reqs cpu-rdma-zuc)")
echo "bench: fld-zuc-rdma-guest-insns-per-request: fld-r $fi vs cpu-rdma-zuc $ci = $(ratio "$fi" "$ci") (lower is better)"
fr=$(rps fld-zuc) cr=$(rps cpu-zuc)
echo "bench: fld-zuc-udp-requests-per-sec: fld-e ${fr:-0} vs cpu-zuc ${cr:-0} = $(ratio "${fr:-0}" "${cr:-0}") (higher is better; UDP)"
fi=$(insns 40 "$(reqs fld-zuc)") ci=$(insns 50 "$(reqs cpu-zuc)")
echo "bench: fld-zuc-udp-guest-insns-per-request: fld-e $fi vs cpu-zuc $ci = $(ratio "$fi" "$ci") (lower is better)"
# A TLP row with no packets means the counters were not read: fail loudly.
if grep -q '^BENCH tlp .* packets=0 ' "$tlp_results"; then
	echo "bench-fld: FLD-E's snic queue counters did not move (see above)" >&2
	exit 1
fi
