#!/bin/bash
# make bench-hdc-net: the HDC engine's NIC side (d2d send: SSD -> NIC and
# SSD -> MD5 -> NIC) against the host CPU sending the same bytes over UDP
# (read + send, sendfile(2), md5sum + read + send), at 4 KiB .. 4 MiB per
# request, side by side in one two-guest run (tools/vm --guests 2 --hdc,
# insn-meter plugin).  The primary figure is guest instructions: per
# request and per MiB (the CPU cost DCS-ctrl cuts).  Seconds are printed
# too, but they are emulated (TCG) time, not a model of the hardware:
# labelled "emulated", comparable only within one run.  The software-
# controlled peer-to-peer baseline of DCS-ctrl is d2d send --sw-p2p (the
# driver runs each 64 KiB chunk: SSD to the engine's device buffer, an
# interrupt, the buffer to the NIC, an interrupt).  The MD5 variant of
# that baseline is not built (--sw-p2p takes no functions): md5sum + send
# stands in for it.
#
# DCS-ctrl's figures beside ours: -42% latency against software-controlled
# P2P (-72% with MD5), -52% host CPU against it.
#
# TIMING=1: timing mode (docs/timing.md) - one guest on instruction-counted
# time, the sink on the second snic port in a network namespace: time per
# request of d2d send, d2d send --md5 and the software-controlled P2P
# baseline at 64 KiB .. 4 MiB in modeled time (each request from its
# ioctl to its return, 'd2d raw --time': no tool start in it), beside
# DCS-ctrl's ratios.
#
# NIC -> CRC32C -> SSD: 'd2d recv --crc32c' (the engine receives, its
# crc32c unit computes the CRC, it writes the SSD) against a CPU receiver
# ('udprecv --crc32c': recv + pwrite + CRC32C (SSE4.2) + fsync), guest 2
# sending with 'udpsend --d2d'; guest instructions of guest 1 per MiB
# from the receiver being ready to its exit, side by side, and whether
# each CRC matched the CPU's CRC32C of the file written.  DCS-ctrl: -52%
# CPU.  No time is printed for these (the bench is not in timing mode).
# And 'd2d send --tcp' vs 'udpsend --tcp --sendfile' to guest 2: the
# sender's guest instructions alone (no time printed).
#
# TCP (tests/bench/hdc-tcp-guest.sh), a second run in timing mode (one
# guest, its two snic ports on a hub, the peer in a network namespace;
# every time is modeled): d2d send --tcp vs the kernel's sendfile(2) vs
# read + send on a TCP connection, guest instructions per MiB and modeled
# microseconds per request; nginx through libd2d-sendfile.so vs stock
# nginx (sendfile on), requests/s (modeled) and guest instructions per
# request (wget, the client, runs in the same guest and is counted too);
# TCP receive, NIC -> CRC32C -> SSD: 'd2d recv --tcp --crc32c' vs
# 'udprecv --tcp --crc32c' (read + write + CRC32C in software + fsync)
# into a file on the SSD, guest instructions per MiB and modeled
# microseconds per request (p's sending is in both counts), beside
# DCS-ctrl's -52% CPU (its NIC -> CRC32C -> SSD against software P2P).
# HDC_NET_PART=udp or tcp runs one part; with TIMING=1 the UDP part is
# the timed run above.
set -uo pipefail
cd "$(dirname "$0")/../.."
timed() {
	local out rc disk size d s m st
	out=$(mktemp -d /tmp/d2d-bench-hdc-net-timed.XXXXXX)
	echo "[bench] logs in $out"
	echo "[bench] timing mode (icount shift=0: one instruction per ns)"
	disk=$(tools/mkdisk.sh) || { echo "bench: hdc-net-timed: tools/mkdisk.sh failed"; exit 1; }
	tools/vm --quiet --timing --timeout 1800 --log-dir "$out" --hdc "$disk" \
		tests/bench/hdc-net-timed-guest.sh
	rc=$?
	tr -d '\r' < "$out/guest1.log" | grep '^BENCH' > "$out/results"
	grep '^BENCH-ERROR' "$out/results"
	if [ $rc -ne 0 ] || ! grep -q '^BENCH-DONE' "$out/results"; then
		echo "bench: hdc-net-timed: run failed (status $rc, see $out)"
		exit 1
	fi
	tus() {	# tus NAME SIZE: modeled us per request
		sed -n "s/^BENCH name=$1 size=$2 reps=\([0-9]*\) ns=\([0-9]*\).*/\2 \1/p" "$out/results" |
			awk '{if ($2 > 0) printf "%.1f", $1 / $2 / 1000; else print 0}'
	}
	r() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.3f", a / b; else print "n/a"}'; }
	for size in 65536 1048576 4194304; do
		d=$(tus d2d "$size") s=$(tus sw-p2p "$size") m=$(tus d2d-md5 "$size")
		echo "bench: hdc-net-timed-$size-latency-us: d2d ${d:-0} vs sw-p2p ${s:-0} = $(r "${d:-0}" "${s:-0}") (modeled time per request, from its ioctl to its return; DCS-ctrl: 0.58)"
		echo "bench: hdc-net-timed-$size-md5-latency-us: d2d-md5 ${m:-0} vs sw-p2p ${s:-0} = $(r "${m:-0}" "${s:-0}") (modeled time; DCS-ctrl with MD5: 0.28 against sw-p2p with MD5, which is not built: here sw-p2p without it)"
	done
	return 0
}
part=${HDC_NET_PART:-all}
disk=$(tools/mkdisk.sh) || { echo "bench: hdc-net: tools/mkdisk.sh failed"; exit 1; }
# boot NAME VM-OPTIONS... SCRIPT: the run's logs in a new $out, guest 1's
# BENCH lines in $out/results; a failed run ends the bench.
boot() {
	local name=$1 rc
	shift
	out=$(mktemp -d "/tmp/d2d-bench-$name.XXXXXX")
	echo "[bench] logs in $out"
	tools/vm --quiet --log-dir "$out" --hdc "$disk" --insn-count "$out/insn" "$@"
	rc=$?
	tr -d '\r' < "$out/guest1.log" | grep '^BENCH' > "$out/results"
	grep '^BENCH-ERROR' "$out/results"
	if [ $rc -ne 0 ] || ! grep -q '^BENCH-DONE' "$out/results"; then
		echo "bench: $name: run failed (status $rc, see $out)"
		exit 1
	fi
}
field() {	# field NAME SIZE KEY
	sed -n "s/^BENCH name=$1 size=$2 .*$3=\([0-9.]*\).*/\1/p" "$out/results"
}
insns() {	# guest instructions of guest 1 between the run's marks
	local mark a b
	mark=$(field "$1" "$2" mark)
	a=$(awk -v m="$mark" '$1=="mark" && $2==m {print $3}' "$out/insn.1" | tail -1)
	b=$(awk -v m="$((mark + 1))" '$1=="mark" && $2==m {print $3}' "$out/insn.1" | tail -1)
	awk -v a="$a" -v b="$b" 'BEGIN {if (b > a) print b - a; else print 0}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.3f", a / b; else print "n/a"}'; }
us() { awk -v s="$1" -v n="$2" 'BEGIN {if (n > 0) printf "%.0f", s * 1e6 / n; else print 0}'; }
per() { awk -v a="$1" -v n="$2" 'BEGIN {if (n > 0) printf "%.0f", a / n; else print 0}'; }
tcp() {
	local size reps mib m i t
	boot hdc-tcp --timing --timeout 2400 tests/bench/hdc-tcp-guest.sh
	for size in 65536 1048576 4194304; do
		reps=$(field d2d-tcp "$size" reps)
		mib=$(awk -v s="$size" -v r="$reps" 'BEGIN {print s * r / 1048576}')
		for m in d2d-tcp sendfile-tcp read-send-tcp; do
			i=$(insns "$m" "$size") t=$(field "$m" "$size" secs)
			eval "i_${m//-/_}=$i t_${m//-/_}=$t"
			echo "bench: hdc-tcp-$size-$m: $(per "$i" "$reps") insns/request, $(per "$i" "$mib") insns/MiB, $(us "$t" "$reps") us/request (modeled)"
		done
		echo "bench: hdc-tcp-$size-cpu-vs-sendfile: d2d $i_d2d_tcp vs sendfile $i_sendfile_tcp insns = $(ratio "$i_d2d_tcp" "$i_sendfile_tcp") (DCS-ctrl: -52% CPU against software-controlled P2P; none for TCP)"
		echo "bench: hdc-tcp-$size-cpu-vs-read-send: d2d $i_d2d_tcp vs read+send $i_read_send_tcp insns = $(ratio "$i_d2d_tcp" "$i_read_send_tcp")"
		echo "bench: hdc-tcp-$size-latency-vs-sendfile: d2d $t_d2d_tcp vs sendfile $t_sendfile_tcp s, modeled = $(ratio "$t_d2d_tcp" "$t_sendfile_tcp") (DCS-ctrl: -42% latency against software-controlled P2P; none for TCP)"
	done
	for size in 65536 1048576 4194304; do
		reps=$(field d2d-recv-tcp "$size" reps)
		mib=$(awk -v s="$size" -v r="$reps" 'BEGIN {print s * r / 1048576}')
		for m in d2d-recv-tcp cpu-recv-tcp; do
			i=$(insns "$m" "$size") t=$(field "$m" "$size" secs)
			eval "i_${m//-/_}=$i t_${m//-/_}=$t"
			echo "bench: hdc-tcp-recv-$size-$m: $(per "$i" "$reps") insns/request, $(per "$i" "$mib") insns/MiB, $(us "$t" "$reps") us/request (modeled)"
		done
		echo "bench: hdc-tcp-recv-$size-insns-per-MiB: d2d-recv-tcp $(per "$i_d2d_recv_tcp" "$mib") vs recv+write+crc32c $(per "$i_cpu_recv_tcp" "$mib") = $(ratio "$i_d2d_recv_tcp" "$i_cpu_recv_tcp") (DCS-ctrl NIC->CRC32C->SSD: 0.48 CPU against software P2P)"
		echo "bench: hdc-tcp-recv-$size-latency-us: d2d-recv-tcp $(us "$t_d2d_recv_tcp" "$reps") vs recv+write+crc32c $(us "$t_cpu_recv_tcp" "$reps") = $(ratio "$t_d2d_recv_tcp" "$t_cpu_recv_tcp") (modeled time per request, connect to exit; no DCS-ctrl figure)"
	done
	reps=$(field nginx-d2d 1048577 reps)
	for m in nginx-d2d nginx-stock; do
		i=$(insns "$m" 1048577) t=$(field "$m" 1048577 secs)
		eval "i_${m//-/_}=$i r_${m//-/_}=$(awk -v t="$t" -v n="$reps" 'BEGIN {if (t > 0) printf "%.1f", n / t; else print 0}')"
	done
	echo "bench: hdc-tcp-nginx-1MiB-requests-per-s: preload $r_nginx_d2d vs stock $r_nginx_stock = $(ratio "$r_nginx_d2d" "$r_nginx_stock") (modeled)"
	echo "bench: hdc-tcp-nginx-1MiB-insns-per-request: preload $(per "$i_nginx_d2d" "$reps") vs stock $(per "$i_nginx_stock" "$reps") = $(ratio "$i_nginx_d2d" "$i_nginx_stock") (server and wget in one guest)"
	grep '^BENCH-INFO' "$out/results" | sed 's/^BENCH-INFO /bench: hdc-tcp-/'
}
if [ "$part" = tcp ]; then
	tcp
	exit 0
fi
if [ "${TIMING:-0}" = 1 ]; then
	timed
	[ "$part" = udp ] || tcp
	exit 0
fi

boot hdc-net --guests 2 --timeout 1200 tests/bench/hdc-net-guest.sh
for size in 4096 65536 1048576 4194304; do
	reps=$(field d2d "$size" reps)
	mib=$(awk -v s="$size" -v r="$reps" 'BEGIN {print s * r / 1048576}')
	for m in d2d sw-p2p d2d-md5 read-send sendfile md5-read-send; do
		i=$(insns "$m" "$size")
		eval "i_${m//-/_}=$i"
		echo "bench: hdc-net-$size-$m: $(per "$i" "$reps") insns/request, $(per "$i" "$mib") insns/MiB, $(us "$(field "$m" "$size" secs)" "$reps") us/request (emulated)"
	done
	best=$i_sendfile
	[ "$i_read_send" -lt "$best" ] && best=$i_read_send
	t_d2d=$(field d2d "$size" secs) t_sw=$(field sw-p2p "$size" secs)
	echo "bench: hdc-net-$size-cpu-vs-sw-p2p: d2d $i_d2d vs sw-p2p $i_sw_p2p insns = $(ratio "$i_d2d" "$i_sw_p2p") (DCS-ctrl: 0.48)"
	echo "bench: hdc-net-$size-latency-vs-sw-p2p: d2d $t_d2d vs sw-p2p $t_sw s, emulated = $(ratio "$t_d2d" "$t_sw") (DCS-ctrl: 0.58)"
	echo "bench: hdc-net-$size-cpu-vs-cpu-send: d2d $i_d2d vs best CPU send $best insns = $(ratio "$i_d2d" "$best")"
	echo "bench: hdc-net-$size-md5-cpu: d2d-md5 $i_d2d_md5 vs md5sum+send $i_md5_read_send insns = $(ratio "$i_d2d_md5" "$i_md5_read_send") (DCS-ctrl latency with MD5 against sw-p2p: 0.28; no sw-p2p MD5 here)"
done
# TCP send, the sender's guest alone (guest 2, the peer, is not counted)
for size in 65536 1048576 4194304; do
	reps=$(field d2d-tcp "$size" reps)
	mib=$(awk -v s="$size" -v r="$reps" 'BEGIN {print s * r / 1048576}')
	i_d=$(insns d2d-tcp "$size") i_s=$(insns sendfile-tcp "$size")
	echo "bench: hdc-net-tcp-$size-sender-insns-per-MiB: d2d-tcp $(per "$i_d" "$mib") vs sendfile $(per "$i_s" "$mib") = $(ratio "$i_d" "$i_s") (the sender's guest only, the peer in guest 2; $(per "$i_d" "$reps") vs $(per "$i_s" "$reps") insns/request; no DCS-ctrl figure for TCP)"
done
crc() { sed -n "s/^BENCH name=$1 size=$2 .*crc=\([a-z]*\).*/\1/p" "$out/results"; }
for size in 4096 65536 1048576 4194304; do
	mib=$(awk -v s="$size" 'BEGIN {print s / 1048576}')
	i_d=$(insns recv-d2d "$size")
	i_c=$(insns recv-cpu "$size")
	echo "bench: hdc-net-recv-$size: d2d recv --crc32c $(per "$i_d" 1) insns ($(per "$i_d" "$mib") insns/MiB, crc $(crc recv-d2d "$size")), CPU recv+write+crc32c $(per "$i_c" 1) insns ($(per "$i_c" "$mib") insns/MiB, crc $(crc recv-cpu "$size"))"
	echo "bench: hdc-net-recv-$size-cpu: d2d recv $(per "$i_d" "$mib") vs CPU recv+write+crc32c $(per "$i_c" "$mib") insns/MiB = $(ratio "$i_d" "$i_c") (DCS-ctrl NIC->CRC32C->SSD: 0.48)"
done
[ "$part" = udp ] || tcp
