#!/bin/bash
# make bench-flexins: FlexiNS's mechanisms on snic, one part after another.
# Each part is tests/bench/flexins-<part>.sh (a bench of its own that boots
# its guests, in timing mode where it reports time, and prints
# "bench: flexins-<part>-<name>: <ours> vs <baseline> = <ratio> (paper ...)").
# Parts, in order: pipe (DMA-only notification pipes and shared send
# queues), pcie (PCIe efficiency knobs), offload (the programmable offload
# engine), cc (ECN, DCQCN, multipath).  A part that fails ends with a
# "bench: flexins-<part>: run failed" line; the bench then fails.
set -uo pipefail
cd "$(dirname "$0")/../.."
rc=0 ran=0
for part in pipe pcie offload cc; do
	s=tests/bench/flexins-$part.sh
	[ -f "$s" ] || continue
	echo "[bench] flexins part $part"
	ran=$((ran + 1))
	bash "$s" || { echo "bench: flexins-$part: run failed"; rc=1; }
done
[ $ran -gt 0 ] || { echo "bench: flexins: no part is built yet"; exit 1; }
exit $rc
