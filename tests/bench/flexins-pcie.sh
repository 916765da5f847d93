#!/bin/bash
# make bench-flexins, part pcie: snic's PCIe efficiency knobs, counted at
# the device (qtest programs of the device tier in print mode; TLP and
# byte counts are the same in either timing mode, no time is reported):
#  - per Ethernet WQE: MMIO writes, TLPs and TLP bytes on the SQ with
#    WQE-by-MMIO against a doorbell (test_snic_eth_pcie);
#  - receive CQE bytes per packet with mini-CQE lines against one CQE per
#    packet (test_snic_eth_pcie);
#  - fld's NIC<->FLD control bytes per echoed packet with the knobs on
#    against the FLD paper's PCIe model at 64..9000 B (test_fld_pcie);
#  - per RDMA send WQE: MMIO writes, TLPs and TLP bytes with WQE-by-MMIO
#    against a doorbell (test_snic_rdma_mmio), and the send latency of a
#    64-byte RC SEND both ways in modeled time (bench_snic_qp_mmio, timing
#    mode).
# Prints "bench: flexins-pcie-<name>: <ours> vs <baseline> = <ratio> (...)".
set -uo pipefail
cd "$(dirname "$0")/../.."
. tools/lib.sh
make -s -C tests device || { echo "bench: flexins-pcie: tests did not build"; exit 1; }
D2D_QEMU=$(d2d_qemu)
[ -n "$D2D_QEMU" ] || { echo "bench: flexins-pcie: no QEMU built (make qemu)"; exit 1; }
export D2D_QEMU
out=$(mktemp -d /tmp/d2d-bench-flexins-pcie.XXXXXX)
echo "[bench] logs in $out"
SNIC_PCIE_PRINT=1 tests/build/device/test_snic_eth_pcie > "$out/snic" 2> "$out/snic.err"
FLD_PCIE_PRINT=1 tests/build/device/test_fld_pcie > "$out/fld" 2> "$out/fld.err"
SNIC_PCIE_PRINT=1 tests/build/device/test_snic_rdma_mmio > "$out/qp" 2> "$out/qp.err"
tests/build/device/bench_snic_qp_mmio > "$out/qplat" 2> "$out/qplat.err"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.3f", a / b; else print "n/a"}'; }
field() { sed -n "s/^snic-pcie $1 .*$2=\([0-9.]*\).*/\1/p" "$out/snic" | head -1; }
fail=0
for k in mmio_writes tlps tlp_bytes dma_reads; do
	m=$(sed -n "s/^snic-pcie wqe mode=mmio .*$k=\([0-9.]*\).*/\1/p" "$out/snic")
	d=$(sed -n "s/^snic-pcie wqe mode=doorbell .*$k=\([0-9.]*\).*/\1/p" "$out/snic")
	[ -n "$m" ] && [ -n "$d" ] || { fail=1; continue; }
	echo "bench: flexins-pcie-sq-$k-per-wqe: mmio-wqe $m vs doorbell $d = $(ratio "$m" "$d") (lower is better; one 120-byte frame per WQE, its data read included)"
done
n=$(field rx-cqe packets) l=$(field rx-cqe mini_lines)
if [ -n "$n" ] && [ -n "$l" ]; then
	# a CQ entry is one 64-byte write: 24 + 64 TLP bytes (docs/pcie-accounting.md)
	m=$(awk -v l="$l" -v n="$n" 'BEGIN {printf "%.1f", l * 88 / n}')
	echo "bench: flexins-pcie-rx-cqe-bytes-per-packet: mini-cqe $m vs full-cqe 88.0 = $(ratio "$m" 88) (lower is better; $n frames, $l lines)"
else
	fail=1
fi
while read -r _ size packets ctrl model; do
	s=${size#size=} c=${ctrl#ctrl=} m=${model#model=}
	echo "bench: flexins-pcie-fld-ctrl-bytes-${s}B: d2d $c vs paper-model $m = $(ratio "$c" "$m") (lower is better; ${packets#packets=} echoed packets, FLD paper section 6 / Figure 7a model)"
done < <(grep '^fld-pcie size=' "$out/fld")
grep -q '^fld-pcie size=9000' "$out/fld" || fail=1
for k in mmio_writes tlps tlp_bytes dma_reads; do
	m=$(sed -n "s/^snic-pcie qp-wqe mode=mmio .*$k=\([0-9.]*\).*/\1/p" "$out/qp")
	d=$(sed -n "s/^snic-pcie qp-wqe mode=doorbell .*$k=\([0-9.]*\).*/\1/p" "$out/qp")
	[ -n "$m" ] && [ -n "$d" ] || { fail=1; continue; }
	echo "bench: flexins-pcie-qp-$k-per-wqe: mmio-wqe $m vs doorbell $d = $(ratio "$m" "$d") (lower is better; one 64-byte RC SEND per WQE, its data read and ACK included; ConnectX BlueFlame has no published figure here)"
done
m=$(sed -n 's/^snic-qp-lat mode=mmio .*ns_mean=\([0-9.]*\).*/\1/p' "$out/qplat")
d=$(sed -n 's/^snic-qp-lat mode=doorbell .*ns_mean=\([0-9.]*\).*/\1/p' "$out/qplat")
if [ -n "$m" ] && [ -n "$d" ]; then
	echo "bench: flexins-pcie-qp-send-latency-ns: mmio-wqe $m vs doorbell $d = $(ratio "$m" "$d") (modeled time, lower is better; post to send CQE of a 64-byte RC SEND, one at a time, device harness)"
else
	fail=1
fi
if [ $fail -ne 0 ]; then
	echo "bench: flexins-pcie: run failed (see $out)"
	exit 1
fi
