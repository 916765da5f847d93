#!/bin/bash
# FlexiNS part "offload" (make bench-flexins): the programmable offload
# engine (docs/snic-spin.md "Offload engine") against verbs-only clients,
# in timing mode (every time is modeled, docs/timing.md): one custom
# request gathering N buffers (batched_read) vs N RDMA READs (N = 4, 16),
# and a server-side list walk (list_walk) vs a client chain of READs
# (depth 4, 16); latency per request and guest instructions per request
# (the client's guest, insn-meter marks; the server's handlers run on the
# NIC).  Prints "bench: flexins-offload-<name>: offload X vs <baseline> Y
# = R (paper: ...)", R = baseline / offload (higher is better).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d /tmp/d2d-bench-flexins-offload.XXXXXX)
echo "[bench] logs in $out"
tools/vm --quiet --timing --log-dir "$out" --insn-count "$out/insn" \
	--timeout 1800 tests/bench/flexins-offload-guest.sh
rc=$?
grep -h '^BENCH' "$out/guest1.log" | tr -d '\r' > "$out/results"
if [ $rc -ne 0 ] || grep -q BENCH-ERROR "$out/results" ||
	[ "$(grep -c '^BENCH op=' "$out/results")" -lt 16 ]; then
	echo "bench: flexins-offload: run failed (status $rc, see $out)"
	cat "$out/results"
	exit 1
fi
# us OP A ITERS: time per request of the run with ITERS requests
us() { sed -n "s/^BENCH op=$1 a=$2 .* us=\([0-9.]*\) .*iters=$3\$/\1/p" "$out/results" | tail -1; }
hpu() { sed -n "s/^BENCH op=$1 a=$2 .* hpu=\([0-9.]*\) .*iters=$3\$/\1/p" "$out/results" | tail -1; }
mark() { sed -n "s/^BENCH op=$1 a=$2 .* mark=\([0-9]*\) iters=$3\$/\1/p" "$out/results" | tail -1; }
insns() {	# insns M: guest instructions between insn-mark M and M + 1
	awk -v a="$1" -v b="$(($1 + 1))" '$1 == "mark" && $2 == a {x = $3}
		$1 == "mark" && $2 == b {y = $3} END {print y - x}' "$out/insn.1"
}
per_req() {	# per_req OP A: instructions per request (long run - short run)
	local m1 mn
	m1=$(mark "$1" "$2" 1)
	mn=$(sed -n "s/^BENCH op=$1 a=$2 .* mark=\([0-9]*\) iters=\([0-9]*\)\$/\1 \2/p" "$out/results" |
		awk '$2 > 1' | tail -1)
	set -- $mn "$(insns "$m1")"
	awk -v l="$(insns "$1")" -v s="$3" -v n="$2" 'BEGIN {printf "%.0f", (l - s) / (n - 1)}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a > 0) printf "%.2f", b / a; else print "n/a"}'; }
iters=$(sed -n 's/^BENCH op=batch a=4 .* iters=\([0-9]*\)$/\1/p' "$out/results" | sort -n | tail -1)

for n in 4 16; do
	o=$(us batch $n "$iters") b=$(us reads $n "$iters")
	echo "bench: flexins-offload-batched-read-$n-lat-us: offload $o vs reads $b = $(ratio "$o" "$b") (paper: 3.5x)"
	o=$(per_req batch $n) b=$(per_req reads $n)
	echo "bench: flexins-offload-batched-read-$n-guest-insns: offload $o vs reads $b = $(ratio "$o" "$b")"
	echo "bench: flexins-offload-batched-read-$n-hpu-cycles: $(hpu batch $n "$iters") per request (the handler's HPU time, 1 GHz; not on the virtual clock yet, so not in the latency)"
done
for d in 4 16; do
	o=$(us walk $d "$iters") b=$(us chain $d "$iters")
	echo "bench: flexins-offload-list-walk-$d-lat-us: offload $o vs chain $b = $(ratio "$o" "$b") (paper: 1.7x)"
	o=$(per_req walk $d) b=$(per_req chain $d)
	echo "bench: flexins-offload-list-walk-$d-guest-insns: offload $o vs chain $b = $(ratio "$o" "$b")"
	echo "bench: flexins-offload-list-walk-$d-hpu-cycles: $(hpu walk $d "$iters") per request (the handler's HPU time, 1 GHz; not on the virtual clock yet, so not in the latency)"
done
