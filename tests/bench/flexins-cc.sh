#!/bin/bash
# make bench-flexins, part cc: congestion control (FlexiNS section 3.1,
# 5.7) - DCQCN vs the AIMD window with 2 and 4 flows sharing one port, in
# timing mode (docs/timing.md: modeled time, one clock).
#
# Topology: one guest, three snic ports on one QEMU hub (the two of
# tools/vm plus one added here).  Port 0 receives; flows alternate between
# the sender ports 1 and 2, so two senders at line rate (100 Gbit/s) feed
# one 100 Gbit/s port and the switch queue in front of it fills (it marks
# ECN past timing-ecn-kmin).  Each flow is ib_write_bw of 64 KiB messages, 256 outstanding.  One
# boot per mode (cc=dcqcn, cc=aimd) runs 2 and then 4 flows.
#
# Prints per flow throughput, the Jain fairness index (sum x)^2 / (n sum
# x^2), and the receiver's ECN marks and CNPs.  FlexiNS (section 5.7) shows its
# DCQCN converging for flows sharing a port; it states no fairness index,
# so no paper figure is printed beside ours.
set -uo pipefail
cd "$(dirname "$0")/../.."

# boot MODE: run the guest with cc=MODE on every snic; BENCH lines in $out.
boot() {
	local mode=$1 rc
	out=$(mktemp -d "/tmp/d2d-bench-flexins-cc-$mode.XXXXXX")
	echo "[bench] cc=$mode: logs in $out"
	tools/vm --quiet --timing --timeout 1800 --log-dir "$out" \
		--snic-opts "cc=$mode" \
		--qemu-arg -netdev --qemu-arg hubport,id=p3,hubid=0 \
		--qemu-arg -device \
		--qemu-arg "snic,netdev=p3,mac=52:54:00:d2:01:04,serial=SNIC-1-2,cc=$mode" \
		--env "ITERS=${ITERS:-300}" tests/bench/flexins-cc-guest.sh
	rc=$?
	grep -h '^BENCH' "$out/guest1.log" | tr -d '\r' > "$out/results"
	if [ $rc -ne 0 ] || [ "$(grep -c '^BENCH flows=' "$out/results")" -lt 2 ]; then
		echo "bench: flexins-cc-$mode: run failed (status $rc, see $out)"
		grep -h 'BENCH-ERROR' "$out/results"
		exit 1
	fi
	eval "res_$mode=\$out/results"
}

# bw FILE FLOWS: the flows' MB/s, one a line
bw() { sed -n "s/^BENCH flows=$2 //p" "$1" | tr ' ' '\n' | sed -n 's/^bw[0-9]*=//p'; }
jain() { awk '{s += $1; q += $1 * $1; n++} END {if (q > 0) printf "%.3f", s * s / (n * q); else print 0}'; }
field() { sed -n "s/^BENCH flows=$2 .*$3=\([0-9]*\).*/\1/p" "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.3f", a / b; else print "n/a"}'; }

boot dcqcn
boot aimd
for n in 2 4; do
	for mode in dcqcn aimd; do
		eval "f=\$res_$mode"
		echo "bench: flexins-cc-flows-${n}-$mode-MBps: $(bw "$f" $n | paste -sd' ') (per flow, modeled time)"
		echo "bench: flexins-cc-queue-${n}flows-$mode: $(field "$f" $n marked) ECN marks, $(field "$f" $n cnps) CNPs at the receiver"
	done
	d=$(bw "$res_dcqcn" $n | jain) a=$(bw "$res_aimd" $n | jain)
	note="Jain index, 1 = fair; FlexiNS states none"
	# no marks: the queue never built, the flows ran one after another
	[ "$(field "$res_dcqcn" $n marked)" != 0 ] && [ "$(field "$res_aimd" $n marked)" != 0 ] ||
		note="$note; INVALID: no ECN marks, the flows did not overlap"
	echo "bench: flexins-cc-jain-${n}flows: dcqcn $d vs aimd $a = $(ratio "$d" "$a") ($note)"
done
