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
	[ "$(grep -c '^BENCH op=' "$out/results")" -lt 8 ]; then
	echo "bench: flexins-offload: run failed (status $rc, see $out)"
	cat "$out/results"
	exit 1
fi
# us / hpu / per_req OP A: time, handler cycles, guest instructions per
# request
field() { sed -n "s/^BENCH op=$1 a=$2 .* $3=\([0-9.]*\) .*/\1/p" "$out/results" | tail -1; }
us() { field "$1" "$2" us; }
hpu() { field "$1" "$2" hpu; }
per_req() {
	local m n
	m=$(sed -n "s/^BENCH op=$1 a=$2 .* mark=\([0-9]*\) .*/\1/p" "$out/results" | tail -1)
	n=$(sed -n "s/^BENCH op=$1 a=$2 .* iters=\([0-9]*\)\$/\1/p" "$out/results" | tail -1)
	awk -v a="${m:-0}" -v b="$((${m:-0} + 1))" -v n="${n:-0}" '
		$1 == "mark" && $2 == a {x = $3}
		$1 == "mark" && $2 == b {y = $3}
		END {if (n > 0 && y > x) printf "%.0f", (y - x) / n; else print 0}' "$out/insn.1"
}
# plus OP A: latency + the handler's cycles at 1 GHz (us)
plus() { awk -v u="$(us "$1" "$2")" -v c="$(hpu "$1" "$2")" 'BEGIN {printf "%.2f", u + c / 1000}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a > 0) printf "%.2f", b / a; else print "n/a"}'; }

for n in 4 16; do
	o=$(us batch $n) b=$(us reads $n)
	echo "bench: flexins-offload-batched-read-$n-lat-us: offload $o vs reads $b = $(ratio "$o" "$b") (paper: 3.5x)"
	o=$(per_req batch $n) b=$(per_req reads $n)
	echo "bench: flexins-offload-batched-read-$n-guest-insns: offload $o vs reads $b = $(ratio "$o" "$b")"
	echo "bench: flexins-offload-batched-read-$n-hpu-cycles: $(hpu batch $n) per request (the handler's HPU time, 1 GHz; not on the virtual clock yet, so not in the latency)"
	o=$(plus batch $n) b=$(us reads $n)
	echo "bench: flexins-offload-batched-read-$n-lat-plus-hpu-us: offload $o vs reads $b = $(ratio "$o" "$b") (paper: 3.5x; latency + handler cycles, serial: an upper bound)"
done
for d in 4 16; do
	o=$(us walk $d) b=$(us chain $d)
	echo "bench: flexins-offload-list-walk-$d-lat-us: offload $o vs chain $b = $(ratio "$o" "$b") (paper: 1.7x)"
	o=$(per_req walk $d) b=$(per_req chain $d)
	echo "bench: flexins-offload-list-walk-$d-guest-insns: offload $o vs chain $b = $(ratio "$o" "$b")"
	echo "bench: flexins-offload-list-walk-$d-hpu-cycles: $(hpu walk $d) per request (the handler's HPU time, 1 GHz; not on the virtual clock yet, so not in the latency)"
	o=$(plus walk $d) b=$(us chain $d)
	echo "bench: flexins-offload-list-walk-$d-lat-plus-hpu-us: offload $o vs chain $b = $(ratio "$o" "$b") (paper: 1.7x; latency + handler cycles, serial: an upper bound)"
done
