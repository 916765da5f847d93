#!/bin/bash
# tools/report.py: a page rendered from known bench lines has each figure
# drawn from them (a PNG that is a PNG; the congestion control bench's
# BENCH cc series plotted, not listed), the FLD plot's paper model at the
# values section 6's parameters give, a figure without lines says so, and
# every bench line is in the table.  Needs Debian's python3-matplotlib
# (tools/deps.sh).
cd "$(dirname "$0")/../.."
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t=unit/report
if ! "$py" -c 'import matplotlib' 2> /dev/null; then
	echo "SKIP $t/all: python3-matplotlib is not installed (tools/deps.sh)"
	exit 0
fi
cat > "$tmp/bench-a.log" <<'X'
[bench] logs in /tmp/x
bench: rdma-write-bw-64KiB-MBps: snic 77.53 vs rxe 5.54 = 13.99 (goal >= 5)
bench: rdma-write-bw-4KiB-MBps: snic 20.5 vs rxe 2.1 = 9.76
bench: eth-tcp-mbps: snic 900 vs e1000e 300 = 3.00
bench: spin-empty-64B: insns/pkt 1.0, cycles/pkt 10.0 (handlers 2 + runtime overhead 8; paper overhead 8), modeled 100.0 Gbit/s at 32 HPUs x 1 GHz = 0.250 of 400 Gbit/s (device sat_mbps 1.0 Gbit/s), packets 9
bench: spin-empty-1024B: insns/pkt 1.0, cycles/pkt 10.0 (handlers 2 + runtime overhead 8; paper overhead 8), modeled 300.0 Gbit/s at 32 HPUs x 1 GHz = 0.750 of 400 Gbit/s (device sat_mbps 1.0 Gbit/s), packets 9
bench: fld-pcie-tlp-bytes-per-packet-64: nic<->fld 572 vs frame 64 = 8.94 (rx 1 + tx 2 bytes / 3 packets)
bench: fld-pcie-tlp-bytes-per-packet-1500: nic<->fld 3712 vs frame 1500 = 2.47 (rx 1 + tx 2 bytes / 3 packets)
bench: hdc-copy-insns-per-MiB: d2d-copy 1000 vs cp 50000 = 0.02
bench: hdc-sha256-insns-per-MiB: d2d-sha256 2000 vs sha256sum 90000 = 0.02
bench: rdma-snic-write-go-back-n: retx=1 timeouts=0 seq_naks=0 (client requester)
bench: rdma-timed-write-bw-64KiB-MBps: snic 10616.48 vs rxe 21.49 = 494.02 (modeled time)
bench: PASS rdma-timed-calibration: snic 64 KiB WRITE stream 5846 ns/msg vs model 5664 ns/msg at MTU 1024 (within 5%)
bench: hdc-net-4096-cpu-vs-sw-p2p: d2d 100 vs sw-p2p 372 insns = 0.269 (DCS-ctrl: 0.48)
bench: hdc-net-65536-latency-vs-sw-p2p: d2d 1.4 vs sw-p2p 1.0 s, emulated = 1.424 (DCS-ctrl: 0.58)
X
cat > "$tmp/bench-b.log" <<'X'
bench: eth-timed-tcp-mbps: snic 2000 vs e1000e 500 = 4.00 (modeled time; e1000e's device work is free in modeled time (no cost model), which favours it)
bench: eth-timed-ping-us: snic 40.0 vs e1000e 80.0 = 0.50 (modeled time; e1000e's device work is free in modeled time (no cost model), which favours it; round trip, lower is better)
bench: eth-timed-tcp-mbps: snic 2000 vs virtio_net 1000 = 2.00 (modeled time; virtio_net's device work is free in modeled time (no cost model), which favours it)
bench: eth-timed-guest-insns-per-MiB-sent: snic 100 vs virtio_net 200 = 0.50 (both ends, one guest; lower is better)
bench: flexins-ssq-write-bw-64B-1qp-MBps: pipe 72.06 vs doorbell 82.42 = 0.87 (modeled time; paper: 2.4x)
bench: flexins-pipe-qp-write-bw-64B-1qp-MBps: pipe-qp 61.89 vs doorbell 82.42 = 0.75 (modeled time; paper: 2.4x)
bench: flexins-ssq-write-bw-64B-1000qp-MBps: pipe 52.28 vs doorbell 50 = 1.05 (modeled time; 1000 QPs per port, 2000 in the system; paper: 2.4x)
bench: flexins-pipe-qp-write-bw-64B-1000qp-MBps: pipe-qp 9.80 vs doorbell 50 = 0.20 (modeled time; 1000 QPs per port, 2000 in the system; paper: 2.4x)
bench: flexins-ssq-mmio-writes-per-wqe-1qp: pipe 0.02 vs doorbell 1.01 (client port, all MMIO; QP doorbells: pipe 0 vs doorbell 4000)
bench: flexins-offload-batched-read-4-lat-us: offload 2.00 vs reads 5.00 = 2.50 (paper: 3.5x)
bench: flexins-offload-batched-read-4-guest-insns: offload 100 vs reads 400 = 4.00
bench: flexins-offload-batched-read-4-lat-plus-hpu-us: offload 2.50 vs reads 5.00 = 2.00 (paper: 3.5x; latency + handler cycles, serial: an upper bound)
bench: flexins-offload-list-walk-4-lat-us: offload 4.00 vs chain 12.00 = 3.00 (paper: 1.7x)
bench: flexins-offload-list-walk-4-lat-plus-hpu-us: offload 6.00 vs chain 12.00 = 2.00 (paper: 1.7x; latency + handler cycles, serial: an upper bound)
BENCH cc mode=dcqcn flows=4 t_us=250 f0=90.5 f1=0.00 f2=0.00 f3=0.00 q=0 marks=0 cnps=0 drops=0 r0=100.00 r1=100.00 r2=100.00 r3=100.00
BENCH cc mode=dcqcn flows=4 t_us=500 f0=24.5 f1=25 f2=26 f3=23.5 q=1000 marks=2 cnps=2 drops=0 r0=25.00 r1=25.00 r2=26.00 r3=24.00
BENCH cc mode=aimd flows=4 t_us=250 f0=50 f1=40 f2=5 f3=1 q=900000 marks=700 cnps=12 drops=3 w0=200 w1=150 w2=20 w3=16
BENCH cc mode=dcqcn flows=2 t_us=250 f0=50 f1=48 q=0 marks=0 cnps=0 drops=0 r0=50.00 r1=49.00
bench: flexins-cc-jain-4flows: dcqcn 0.999 vs aimd 0.843 = 1.185 (Jain index over the steady state, device harness, modeled time; FlexiNS states none)
X
fails=0
check() {	# check NAME COND...
	local n=$1
	shift
	if "$@"; then echo "PASS $t/$n"; else echo "FAIL $t/$n: $*"; fails=$((fails + 1)); fi
}
out=$("$py" tools/report.py render --out "$tmp/docs" "$tmp/bench-a.log" "$tmp/bench-b.log" 2>&1)
check render [ $? -eq 0 ]
md=$tmp/docs/results.md
png_ok() { [ "$(head -c 8 "$tmp/docs/results/$1.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
for f in rdma-bw eth-tcp-mbps spin-throughput fld-pcie hdc-insns rdma-timed-write-bw-64KiB-MBps hdc-net \
	eth-timed-tcp-mbps eth-timed-ping-us flexins-pipe-bw flexins-offload flexins-cc-dcqcn flexins-cc-aimd; do
	check "png_$f" png_ok "$f"
	check "linked_$f" grep -q "(results/$f.png)" "$md"
done
check no_ping_figure [ ! -e "$tmp/docs/results/eth-ping-ms.png" ]
check ping_says_missing grep -q 'No bench line of this run feeds this figure' "$md"
check table_rows [ "$(grep -c '^| rdma-\|^| eth-\|^| spin-\|^| fld-\|^| hdc-\|^| flexins-' "$md")" -eq 29 ]
check series_not_listed [ "$(grep -c 'mode=dcqcn' "$md")" -eq 0 ]
check verdict_kept grep -q '^| rdma-timed-calibration | PASS: snic 64 KiB WRITE stream' "$md"
check commit_named grep -q "^- commit: $(git rev-parse --short HEAD)" "$md"
# section 6 model: 64 B: rx 64+24+5.5, tx 108+24+20+64+5.5 = 315;
# 1500 B: rx 1500+6*24+5.5, tx 108+3*24+6*20+1500+5.5 = 3455
m=$("$py" -c 'import sys; sys.path.insert(0, "tools"); import report; print(report.fld_paper_pcie_bytes(64), report.fld_paper_pcie_bytes(1500))')
check fld_model [ "$m" = "315.0 3455.0" ]
# the figures' series, as parsed from the lines above: the timed Ethernet
# bars (snic, e1000e, virtio_net), pipe vs doorbell bandwidth by QP count
# with the paper's 2.4x over doorbells, and the offload engine's latency
# speedup (baseline / offload) beside the paper's
series() {	# series FIGURE: "label: (x, y) ..." lines, sorted
	"$py" - "$1" "$tmp/bench-a.log" "$tmp/bench-b.log" <<'P'
import sys
sys.path.insert(0, 'tools')
import report
lines = []
for p in sys.argv[2:]:
    lines += open(p).read().splitlines()
for fid, _, _, s, _ in report.figures(report.parse(lines),
                                      report.parse_series(lines)):
    if fid == sys.argv[1]:
        for k in sorted(s):
            print('%s: %s' % (k, ' '.join('(%s, %g)' % (str(x).replace('\n', ' '), y)
                                          for x, y in sorted(s[k]))))
P
}
check eth_timed_series [ "$(series eth-timed-tcp-mbps)" = "$(printf '%s\n' \
	'e1000e: (0, 500)' 'snic: (0, 2000)' 'virtio_net: (0, 1000)')" ]
check eth_timed_ping_series [ "$(series eth-timed-ping-us)" = "$(printf '%s\n' \
	'e1000e: (0, 80)' 'snic: (0, 40)')" ]
check flexins_pipe_series [ "$(series flexins-pipe-bw)" = "$(printf '%s\n' \
	'a send pipe per QP: (1, 61.89) (1000, 9.8)' \
	'doorbell: (1, 82.42) (1000, 50)' \
	'paper: 2.4x doorbell: (1, 197.808) (1000, 120)' \
	'pipe QPs over shared send queues: (1, 72.06) (1000, 52.28)')" ]
check flexins_offload_series [ "$(series flexins-offload)" = "$(printf '%s\n' \
	'ours (modeled time): (batched-read-4 vs reads, 2.5) (list-walk-4 vs chain, 3)' \
	'ours, latency + HPU cycles: (batched-read-4 vs reads, 2) (list-walk-4 vs chain, 2)' \
	'paper: (batched-read-4 vs reads, 3.5) (list-walk-4 vs chain, 1.7)')" ]
# the congestion control series: 4 flows' rates over time (ms), one
# figure per mode; the 2-flow run is not drawn
check flexins_cc_series [ "$(series flexins-cc-dcqcn)" = "$(printf '%s\n' \
	'flow 0: (0.25, 90.5) (0.5, 24.5)' 'flow 1: (0.25, 0) (0.5, 25)' \
	'flow 2: (0.25, 0) (0.5, 26)' 'flow 3: (0.25, 0) (0.5, 23.5)')" ]
check flexins_cc_aimd_series [ "$(series flexins-cc-aimd)" = "$(printf '%s\n' \
	'flow 0: (0.25, 50)' 'flow 1: (0.25, 40)' 'flow 2: (0.25, 5)' 'flow 3: (0.25, 1)')" ]
"$py" tools/report.py render --out "$tmp/none" /dev/null > /dev/null 2>&1
check no_lines_fails [ $? -ne 0 ]
exit $((fails > 0))
