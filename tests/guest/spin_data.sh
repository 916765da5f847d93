# sPIN data examples, each on its own context and UDP port of guest 1, fed
# by guest 2; every result is checked against a reference guest 1 computes
# from the same deterministic data:
#   reduce    (9001) per-message sums written to host memory by completion
#   aggregate (9002) 64-bit running sum, packet and byte counts
#   histogram (9003) 256-bin histogram DMAed to host memory
#   strided   (9004) byte-exact 256 B blocks at a 512 B stride in host memory
# vm-args: --guests 2
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/spin.inc

# The data, the same on both guests.
awk 'BEGIN { srand(11); for (m = 0; m < 32; m++) { printf "%d\n", m
	for (i = 0; i < 31; i++) printf "%.0f\n", int(rand() * 4294967296) } }' > /tmp/reduce.ints
gen_ints 12 2560 > /tmp/agg.ints
gen_ints 13 4096 100000 > /tmp/hist.ints
seq 100000 | head -c 8192 > /tmp/strided.data

spin_setup
if [ "$me" = 1 ]; then
	check start_reduce spin_start reduce -p 9001 -r 4096 -o 0:/tmp/reduce.bin \
		--peek reduce_stats:2 "$H/reduce.elf"
	check start_aggregate spin_start agg -p 9002 -r 4096 -o 0:/tmp/agg.bin "$H/aggregate.elf"
	check start_histogram spin_start hist -p 9003 -r 4096 -o 0:/tmp/hist.bin "$H/histogram.elf"
	check start_strided spin_start strided -p 9004 -r 16384 -o 0:/tmp/strided.bin \
		--peek strided_stats:4 "$H/strided.elf"
	check barrier_1 barrier 1
	check barrier_2 barrier 2
	for n in reduce agg hist strided; do spin_stop $n; done

	# reduce: slot m holds the sum (mod 2^32) of message m's integers
	awk '{ if (NR % 32 == 1) { slot = $1; s = 0 } else s += $1
		if (NR % 32 == 0) printf "%.0f\n", s - int(s / 4294967296) * 4294967296 }' \
		/tmp/reduce.ints > /tmp/reduce.ref
	spin-udp u32 /tmp/reduce.bin | head -32 > /tmp/reduce.got
	check reduce_sums cmp /tmp/reduce.ref /tmp/reduce.got
	expect reduce_completions "$(spin_field reduce handler invocations kind=completion)" 32
	expect reduce_stats "$(grep '^peek reduce_stats' /tmp/reduce.out | cut -d= -f2)" " 32 0"

	# aggregate: { sum_lo, sum_hi, packets, bytes }
	ref=$(awk '{ s += $1 } END { printf "%.0f %.0f %d %d", s - int(s / 4294967296) * 4294967296, int(s / 4294967296), 40, NR * 4 }' /tmp/agg.ints)
	got=$(spin-udp u32 /tmp/agg.bin | head -4 | tr '\n' ' ' | sed 's/ $//')
	expect aggregate_totals "$got" "$ref"
	expect aggregate_payload_handlers "$(spin_field agg handler invocations kind=payload)" 40

	# histogram: 256 bins of value % 256
	awk '{ c[$1 % 256]++ } END { for (i = 0; i < 256; i++) printf "%d\n", c[i] + 0 }' \
		/tmp/hist.ints > /tmp/hist.ref
	spin-udp u32 /tmp/hist.bin | head -256 > /tmp/hist.got
	check histogram_bins cmp /tmp/hist.ref /tmp/hist.got
	expect histogram_dmas "$(spin_field hist stats cmd_dma_bytes cmd_dma_bytes=)" $((16 * 1024))

	# strided: stream byte p at (p / 256) * 512 + p % 256, zeros between
	dd if=/dev/zero of=/tmp/strided.ref bs=16384 count=1 2>/dev/null
	for i in $(seq 0 31); do
		dd if=/tmp/strided.data of=/tmp/strided.ref bs=256 skip=$i seek=$((2 * i)) \
			count=1 conv=notrunc 2>/dev/null
	done
	check strided_layout cmp /tmp/strided.ref /tmp/strided.bin
	expect strided_stats "$(grep '^peek strided_stats' /tmp/strided.out | cut -d= -f2)" " 8 32 8192 0"
	for n in reduce agg hist strided; do
		expect "${n}_no_aborts" "$(spin_field $n stats aborts)" 0
	done
else
	check barrier_1 barrier 1
	check send_reduce spin-udp send 10.0.0.1 9001 -i /tmp/reduce.ints -s 128 -g 2000
	check send_aggregate spin-udp send 10.0.0.1 9002 -i /tmp/agg.ints -s 256 -g 2000
	check send_histogram spin-udp send 10.0.0.1 9003 -i /tmp/hist.ints -s 1024 -g 2000
	check send_strided spin-udp send 10.0.0.1 9004 -f /tmp/strided.data -O -s 1028 -g 2000
	sleep 1
	check barrier_2 barrier 2
fi
check dmesg_clean dmesg_clean
finish
