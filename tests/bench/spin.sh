#!/bin/bash
# make bench-spin: the sPIN engine's cost per packet from its own cycle
# model, for every example at 64, 512 and 1024 B frames, next to the PsPIN
# paper's figures; and ping-pong answered by the NIC against the same echo
# done by a host UDP program (round-trip time, guest-1 instructions per
# packet from the insn-meter plugin), as ratios.  Two guests (tools/vm
# --guests 2): guest 1 runs the handlers, guest 2 sends.  Prints
# "bench: ..." lines.  A benchmark, not a timed test: the cycle figures are
# the model's (deterministic), the RTTs are TCG wall time on a shared host.
#
# Per example and size:
#   insns/pkt     handler instructions (header + payload + completion)
#   cycles/pkt    HPU busy cycles (dispatch, instructions, memory costs,
#                 command waits: snic_spin_ctx_stats.busy_cycles)
#   overhead/pkt  what the engine and runtime add per handler invocation,
#                 measured with the "empty" example (handlers that return
#                 at once: dispatch + entry/return), times this example's
#                 invocations per packet (paper: 8 cycles per packet)
#   modeled Gbit/s at 32 HPUs x 1 GHz = 32e9 / cycles_per_pkt * frame * 8,
#                 as a fraction of 400 Gbit/s (the HPUs' rate: above 1 the
#                 HPUs outpace a 400 Gbit/s link, which then limits)
#
# TIMING=1: timing mode (docs/timing.md) - one guest on instruction-counted
# time, the sender on the second snic port in a network namespace: the
# engine's own throughput figure (sat_mbps: HPU cycles, the 512 Gbit/s
# interconnect, L2 banks) per packet size for pingpong and the empty
# handler beside PsPIN's Figure 12, the runtime overhead, and the
# ping-pong round trip (NIC vs host echo) in modeled time.
set -uo pipefail
cd "$(dirname "$0")/../.."
timed() {
	local out rc ovh nr hr k
	out=$(mktemp -d /tmp/d2d-bench-spin-timed.XXXXXX)
	echo "[bench] logs in $out"
	echo "[bench] timing mode (icount shift=0: one instruction per ns)"
	tools/vm --quiet --timing --timeout 1800 --log-dir "$out" \
		tests/bench/spin-timed-guest.sh
	rc=$?
	tr -d '\r' < "$out/guest1.log" | grep '^BENCH' > "$out/results"
	grep '^BENCH-ERROR' "$out/results"
	if [ $rc -ne 0 ] || ! grep -q '^BENCH-DONE' "$out/results"; then
		echo "bench: spin-timed: run failed (status $rc, see $out)"
		exit 1
	fi
	ovh=$(sed -n 's/^BENCH ex=empty size=64 //p' "$out/results" | tr ' ' '\n' |
		awk -F= '{ v[$1] = $2 } END { n = v["hn"] + v["pn"] + v["cn"]; if (n) printf "%.2f", v["busy"] / n; else print 0 }')
	echo "bench: spin-timed-runtime-overhead-cycles-per-invocation: ours $ovh vs paper 8 = $(awk -v a="$ovh" 'BEGIN { printf "%.2f", a / 8 }')"
	# PsPIN's Figure 12: about 400 Gbit/s from 512 B on for most use cases
	grep '^BENCH ex=' "$out/results" | sed 's/^BENCH //' | awk '
function v(k,   i, a) { for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == k) return a[2] + 0 } return 0 }
{
	split($1, e, "="); ex = e[2]; size = v("size")
	g = v("sat_mbps") / 1000
	printf "bench: spin-timed-%s-%dB-Gbps: device %.1f vs paper 400 = %.3f (the engine'"'"'s cycle account, every HPU busy; packets %d)\n", ex, size, g, g / 400, v("packets")
}'
	for k in avg min; do
		nr=$(sed -n "s/^BENCH-RTT nic .*rtt_us_$k=\([0-9.]*\).*/\1/p" "$out/results")
		hr=$(sed -n "s/^BENCH-RTT host .*rtt_us_$k=\([0-9.]*\).*/\1/p" "$out/results")
		echo "bench: spin-timed-pingpong-rtt-us-$k: nic ${nr:-0} vs host ${hr:-0} = $(awk -v a="${nr:-0}" -v b="${hr:-0}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }') (modeled time, lower is better)"
	done
	exit 0
}
[ "${TIMING:-0}" = 1 ] && timed
out=$(mktemp -d /tmp/d2d-bench-spin.XXXXXX)
echo "[bench] logs in $out"
tools/vm --quiet --guests 2 --timeout 900 --log-dir "$out" \
	--insn-count "$out/insn" tests/bench/spin-guest.sh
rc=$?
cat "$out/guest1.log" "$out/guest2.log" | tr -d '\r' | grep '^BENCH' > "$out/results"
grep '^BENCH-ERROR' "$out/results"
if [ $rc -ne 0 ] || ! grep -q '^BENCH-DONE' "$out/results"; then
	echo "bench: spin: run failed (status $rc, see $out)"
	exit 1
fi

# Cycles per invocation of a handler that does nothing (empty example).
ovh=$(sed -n 's/^BENCH ex=empty size=64 //p' "$out/results" | tr ' ' '\n' |
	awk -F= '{ v[$1] = $2 } END { n = v["hn"] + v["pn"] + v["cn"]; if (n) printf "%.2f", v["busy"] / n; else print 0 }')
echo "bench: spin-runtime-overhead-cycles-per-invocation: ours $ovh vs paper 8 = $(awk -v a="$ovh" 'BEGIN { printf "%.2f", a / 8 }')"
grep '^BENCH ex=' "$out/results" | sed 's/^BENCH //' | awk -v ovh="$ovh" '
function v(k,   i, a) { for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == k) return a[2] + 0 } return 0 }
{
	split($1, e, "="); ex = e[2]; size = v("size"); n = v("packets")
	if (n == 0) { printf "bench: spin-%s-%dB: no packets counted\n", ex, size; next }
	insns = (v("hi") + v("pi") + v("ci")) / n
	inv = (v("hn") + v("pn") + v("cn")) / n
	cyc = v("busy") / n
	over = inv * ovh
	gbps = 32e9 / cyc * size * 8 / 1e9
	printf "bench: spin-%s-%dB: insns/pkt %.1f, cycles/pkt %.1f (handlers %.1f + runtime overhead %.1f; paper overhead 8), modeled %.1f Gbit/s at 32 HPUs x 1 GHz = %.3f of 400 Gbit/s (device sat_mbps %.1f Gbit/s), packets %d\n", \
		ex, size, insns, cyc, cyc - over, over, gbps, gbps / 400, v("sat_mbps") / 1000, n
	if (ex == "pingpong" && size == 64)
		printf "bench: spin-pingpong-handler-insns: ours %d vs paper 27 = %.2f\n", v("himax"), v("himax") / 27
}'

rtt() { sed -n "s/^BENCH-RTT $1 .*rtt_us_$2=\([0-9.]*\).*/\1/p" "$out/results"; }
got() { sed -n "s/^BENCH-RTT $1 .*replies=\([0-9]*\).*/\1/p" "$out/results"; }
mark() { awk -v m="$1" '$1 == "mark" && $2 == m { print $3 }' "$out/insn.1" | tail -1; }
pings=$(sed -n 's/^BENCH-RTT nic sent=\([0-9]*\).*/\1/p' "$out/results")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
per() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { if (n > 0 && b > a) printf "%.0f", (b - a) / n; else print 0 }'; }
# The mean moves with the load on the host's CPUs; the minimum much less.
for k in avg min; do
	nr=$(rtt nic $k) hr=$(rtt host $k)
	echo "bench: spin-pingpong-rtt-us-$k: nic $nr vs host $hr = $(ratio "$nr" "$hr") (lower is better; replies $(got nic)/$(got host) of $pings)"
done
ni=$(per "$(mark 10)" "$(mark 11)" "$pings") hi=$(per "$(mark 20)" "$(mark 21)" "$pings")
echo "bench: spin-pingpong-guest1-insns-per-pkt: nic $ni vs host $hi = $(ratio "$ni" "$hi") (lower is better)"
