#!/bin/bash
# make bench-eth: snic vs e1000e and virtio-net, side by side in one run of
# two guests (each NIC type on a wire of its own): iperf3 TCP throughput,
# ping latency, and guest instructions per MiB sent (insn-meter plugin).
# Prints "bench: <name>: <ours> vs <baseline> = <ratio>".  A benchmark, not
# a timed test: numbers under TCG on a shared host are only comparable
# within one run.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d /tmp/d2d-bench-eth.XXXXXX)
echo "[bench] logs in $out"
tools/vm --quiet --guests 2 --timeout 400 --log-dir "$out" \
	--nic e1000e --nic virtio-net-pci --insn-count "$out/insn" \
	tests/bench/eth-guest.sh
rc=$?
grep -h '^BENCH' "$out/guest1.log" | tr -d '\r' > "$out/results"
if [ $rc -ne 0 ] || [ "$(wc -l < "$out/results")" -lt 3 ]; then
	echo "bench: eth: run failed (status $rc, see $out)"
	exit 1
fi
field() { sed -n "s/.*nic=$1 .*$2=\([0-9.]*\).*/\1/p" "$out/results"; }
insns_per_mib() {	# guest-1 instructions between the iperf3 marks / MiB
	local mark bytes a b
	mark=$(field "$1" mark)
	bytes=$(field "$1" bytes)
	a=$(awk -v m="$mark" '$1=="mark" && $2==m {print $3}' "$out/insn.1" | tail -1)
	b=$(awk -v m="$((mark + 1))" '$1=="mark" && $2==m {print $3}' "$out/insn.1" | tail -1)
	awk -v a="$a" -v b="$b" -v n="$bytes" 'BEGIN {if (n > 0 && b > a) printf "%.0f", (b - a) / (n / 1048576); else print 0}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "n/a"}'; }
for base in e1000e virtio_net; do
	s=$(field snic tcp_mbps) b=$(field $base tcp_mbps)
	echo "bench: eth-tcp-mbps: snic $s vs $base $b = $(ratio "$s" "$b")"
done
for base in e1000e virtio_net; do
	s=$(field snic ping_ms) b=$(field $base ping_ms)
	echo "bench: eth-ping-ms: snic $s vs $base $b = $(ratio "$s" "$b") (lower is better)"
done
si=$(insns_per_mib snic)
for base in e1000e virtio_net; do
	b=$(insns_per_mib $base)
	echo "bench: eth-guest-insns-per-MiB-sent: snic $si vs $base $b = $(ratio "$si" "$b") (lower is better)"
done
