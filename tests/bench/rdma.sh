#!/bin/bash
# make bench-rdma: snic's RoCEv2 transport vs Linux Soft-RoCE (rdma_rxe)
# over virtio-net, side by side in one boot of two guests that have both
# NICs on the same wire: ib_write_bw at 64 KiB (and a sweep: 4 KiB, 1 MiB),
# ib_send_lat at 64 B, guest
# instructions per MiB moved (insn-meter plugin, guest 1 = the client), and
# snic's PCIe TLPs per message.  Prints "bench: <name>: <ours> vs <baseline>
# = <ratio>".  A benchmark, not a timed test: numbers under TCG on a shared
# host are only comparable within one run.
#
# TIMING=1: timing mode (docs/timing.md) - one guest on instruction-counted
# time with both ends of each pair (snic's two ports, two virtio-net ports
# with rdma_rxe), every figure modeled virtual time, and a calibration
# line: snic's 64 KiB WRITE stream against the cost model's prediction.
set -uo pipefail
cd "$(dirname "$0")/../.."
field() { sed -n "s/^BENCH dev=$1 .*$2=\([0-9.]*\).*/\1/p" "$out/results" | tail -1; }
marks() {	# marks A B: guest-1 instructions between insn-mark A and B
	local a b
	a=$(awk -v m="$1" '$1=="mark" && $2==m {print $3}' "$out/insn.1" | tail -1)
	b=$(awk -v m="$2" '$1=="mark" && $2==m {print $3}' "$out/insn.1" | tail -1)
	awk -v a="${a:-0}" -v b="${b:-0}" 'BEGIN {print (b > a) ? b - a : 0}'
}
per_mib() {	# per_mib DEV: guest-1 instructions per MiB written by ib_write_bw
	local m bytes n
	m=$(field "$1" mark)
	bytes=$(field "$1" bytes)
	n=$(marks "$m" "$((m + 1))")
	awk -v n="$n" -v b="$bytes" 'BEGIN {if (b > 0) printf "%.0f", n / (b / 1048576); else print 0}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "n/a"}'; }


# boot NAME VM-OPTIONS... SCRIPT: run the guests with their logs in a new
# $out, keep guest 1's BENCH lines in $out/results; a failed run or one
# without both devices' lines ends the bench.
boot() {
	local name=$1 rc
	shift
	out=$(mktemp -d "/tmp/d2d-bench-$name.XXXXXX")
	echo "[bench] logs in $out"
	tools/vm --quiet --log-dir "$out" --insn-count "$out/insn" "$@"
	rc=$?
	grep -h '^BENCH' "$out/guest1.log" | tr -d '\r' > "$out/results"
	if [ $rc -ne 0 ] || [ "$(grep -c 'dev=' "$out/results")" -lt 2 ]; then
		echo "bench: $name: run failed (status $rc, see $out)"
		cat "$out/results"
		exit 1
	fi
}

# the model's figures (shared with the timed guest test)
. tests/guest/timing.inc
timed() {
	echo "[bench] timing mode (icount shift=0: one instruction per ns)"
	boot rdma-timed --timing --nic virtio-net-pci --timeout 1800 \
		tests/bench/rdma-timed-guest.sh
	s=$(field snic bw_mbs) r=$(field rxe bw_mbs)
	echo "bench: rdma-timed-write-bw-64KiB-MBps: snic $s vs rxe $r = $(ratio "$s" "$r") (modeled time)"
	s=$(field snic lat_us) r=$(field rxe lat_us)
	echo "bench: rdma-timed-read-lat-64B-us: snic $s vs rxe $r = $(ratio "$s" "$r") (modeled time, lower is better)"
	s=$(per_mib snic) r=$(per_mib rxe)
	echo "bench: rdma-timed-guest-insns-per-MiB-written: snic $s vs rxe $r = $(ratio "$s" "$r") (lower is better)"
	mtu=$(field snic mtu) bw=$(field snic bw_mbs)
	want=$(timing_write_stream_ns "${mtu:-1024}")
	got=$(awk -v b="$bw" 'BEGIN {if (b > 0) printf "%.0f", 65536 / (b * 1048576) * 1e9; else print 0}')
	if awk -v g="$got" -v w="$want" 'BEGIN {d = g - w; if (d < 0) d = -d; exit !(g > 0 && d * 100 <= w * 5)}'; then
		v=PASS
	else
		v=FAIL
	fi
	echo "bench: $v rdma-timed-calibration: snic 64 KiB WRITE stream ${got} ns/msg vs model ${want} ns/msg at MTU ${mtu:-?} (within 5%)"
	[ $v = PASS ]
	exit
}
[ "${TIMING:-0}" = 1 ] && timed

boot rdma --guests 2 --virtio --timeout 900 tests/bench/rdma-guest.sh
# A run of either side that gave no figure: say so, with perftest's own
# error line, and let the bench fail (its other lines are kept).
why() {
	awk -v v="$2" 'BEGIN {exit !(v + 0 > 0)}' && return
	printf '; the %s run gave no figure: %s' "$1" \
		"$(grep -h -m1 -e 'Failed status' -e "Couldn't" -e 'Unable' \
			"$out"/guest*.log | tr -d '\r' | sed 's/^ *//')"
}
s=$(field snic bw_mbs) r=$(field rxe bw_mbs)
echo "bench: rdma-write-bw-64KiB-MBps: snic $s vs rxe $r = $(ratio "$s" "$r") (goal >= 5$(why snic "$s")$(why rxe "$r"))"
s=$(field snic lat_us) r=$(field rxe lat_us)
echo "bench: rdma-send-lat-64B-us: snic $s vs rxe $r = $(ratio "$s" "$r") (lower is better, goal <= 0.5$(why snic "$s")$(why rxe "$r"))"
s=$(per_mib snic) r=$(per_mib rxe)
echo "bench: rdma-guest-insns-per-MiB-written: snic $s vs rxe $r = $(ratio "$s" "$r") (lower is better)"
# The sweep: ib_write_bw at other sizes, same pairing.
sweep() { sed -n "s/^BENCH-SWEEP dev=$1 size=$2 bw_mbs=\([0-9.]*\).*/\1/p" "$out/results" | tail -1; }
for size in $(sed -n 's/^BENCH-SWEEP dev=snic size=\([0-9]*\).*/\1/p' "$out/results"); do
	s=$(sweep snic "$size") r=$(sweep rxe "$size")
	if [ "$size" -ge 1048576 ]; then label=$((size / 1048576))MiB; else label=$((size / 1024))KiB; fi
	echo "bench: rdma-write-bw-$label-MBps: snic ${s:-0} vs rxe ${r:-0} = $(ratio "${s:-0}" "${r:-0}")$(why snic "${s:-0}" | sed 's/^; / (/; s/$/)/')$(why rxe "${r:-0}" | sed 's/^; / (/; s/$/)/')"
done
t=$(field snic tlps_per_msg)
echo "bench: rdma-snic-pcie-tlps-per-64KiB-write: $t (client side, all queues)"
g=$(sed -n 's/.*dev=snic .*\(retx=[0-9]* timeouts=[0-9]* seq_naks=[0-9]*\).*/\1/p' "$out/results" | tail -1)
echo "bench: rdma-snic-write-go-back-n: ${g:-n/a} (client requester)"
# a figure of 0: that run failed (said above)
! grep -qE '(bw_mbs|lat_us)=0([^.0-9]|$)' "$out/results"
