#!/bin/bash
# tools/report.py: a page rendered from known bench lines has each figure
# drawn from them (a PNG that is a PNG), the FLD plot's paper model at the
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
bench: hdc-net-4096-cpu-vs-sw-p2p: d2d 100 vs sw-p2p 372 insns = 0.269 (DCS-ctrl: 0.48)
bench: hdc-net-65536-latency-vs-sw-p2p: d2d 1.4 vs sw-p2p 1.0 s, emulated = 1.424 (DCS-ctrl: 0.58)
X
fails=0
check() {	# check NAME COND...
	local n=$1
	shift
	if "$@"; then echo "PASS $t/$n"; else echo "FAIL $t/$n: $*"; fails=$((fails + 1)); fi
}
out=$("$py" tools/report.py render --out "$tmp/docs" "$tmp/bench-a.log" 2>&1)
check render [ $? -eq 0 ]
md=$tmp/docs/results.md
png_ok() { [ "$(head -c 8 "$tmp/docs/results/$1.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
for f in rdma-bw eth-tcp-mbps spin-throughput fld-pcie hdc-insns rdma-timed-write-bw-64KiB-MBps hdc-net; do
	check "png_$f" png_ok "$f"
	check "linked_$f" grep -q "(results/$f.png)" "$md"
done
check no_ping_figure [ ! -e "$tmp/docs/results/eth-ping-ms.png" ]
check ping_says_missing grep -q 'No bench line of this run feeds this figure' "$md"
check table_rows [ "$(grep -c '^| rdma-\|^| eth-\|^| spin-\|^| fld-\|^| hdc-' "$md")" -eq 13 ]
check commit_named grep -q "^- commit: $(git rev-parse --short HEAD)" "$md"
# section 6 model: 64 B: rx 64+24+5.5, tx 108+24+20+64+5.5 = 315;
# 1500 B: rx 1500+6*24+5.5, tx 108+3*24+6*20+1500+5.5 = 3455
m=$("$py" -c 'import sys; sys.path.insert(0, "tools"); import report; print(report.fld_paper_pcie_bytes(64), report.fld_paper_pcie_bytes(1500))')
check fld_model [ "$m" = "315.0 3455.0" ]
"$py" tools/report.py render --out "$tmp/none" /dev/null > /dev/null 2>&1
check no_lines_fails [ $? -ne 0 ]
exit $((fails > 0))
