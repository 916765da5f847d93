#!/bin/bash
# libsnic's named DMA barriers (userspace/libsnic/snic_barrier.h) compiled
# for each architecture they cover: every barrier is that architecture's
# device-ordering instruction (on arm64 a dsb, not the "dmb ish" a C11
# fence gives), and an architecture without barriers does not build.
# One line per architecture; clang-14 (tools/deps.sh) cross-compiles.
cd "$(dirname "$0")/../.."
hdr=userspace/libsnic/snic_barrier.h
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v clang-14 > /dev/null; then
	echo "SKIP unit/libsnic_barrier/all: clang-14 is not installed (tools/deps.sh)"
	exit 0
fi
cat > "$tmp/b.c" <<'X'
#include "snic_barrier.h"
void to_device(void) { udma_to_device_barrier(); }
void from_device(void) { udma_from_device_barrier(); }
void flush_writes(void) { mmio_flush_writes(); }
void wc_start(void) { mmio_wc_start(); }
X

body() {	# body ASM FUNCTION: its instructions, one a line, spaces squeezed
	awk -v f="$2:" '$1 == f { on = 1; next }
		on && /^[a-z_]+:/ { on = 0 }
		on && $1 !~ /^[.#\/@]/ && NF { $1 = $1; print }' "$1" |
		grep -v -E '^(ret|blr|retq)$'
}

# arch TARGET TO FROM FLUSH: the three barriers' instructions ("" = none).
arch() {
	local t=$1 name=${1%%-*} f got want why=""
	if [ ! -f "$hdr" ]; then
		echo "FAIL unit/libsnic_barrier/$name: no $hdr"
		return
	fi
	if ! clang-14 --target="$t" -ffreestanding -O2 -S -I"$(dirname "$hdr")" \
		-o "$tmp/$name.s" "$tmp/b.c" 2> "$tmp/$name.err"; then
		echo "FAIL unit/libsnic_barrier/$name: does not build: $(grep -m1 error "$tmp/$name.err")"
		return
	fi
	for f in to_device from_device flush_writes wc_start; do
		case $f in
		to_device) want=$2 ;;
		from_device) want=$3 ;;
		*) want=$4 ;;	# mmio_wc_start is mmio_flush_writes
		esac
		got=$(body "$tmp/$name.s" "$f" | tr '\n' ';')
		got=${got%;}
		[ "$got" = "$want" ] || why="$why $f is '$got', want '$want';"
	done
	if [ -z "$why" ]; then
		echo "PASS unit/libsnic_barrier/$name"
	else
		echo "FAIL unit/libsnic_barrier/$name:$why"
	fi
}

arch x86_64-linux-gnu "" "" "sfence"
arch aarch64-linux-gnu "dsb st" "dsb ld" "dsb st"
arch powerpc64le-linux-gnu "sync" "lwsync" "sync"
arch riscv64-linux-gnu "fence ow, ow" "fence ir, iorw" "fence ow, ow"

# Anything else must stop the build, not fall back to a CPU-only fence.
if clang-14 --target=mips64-linux-gnu -ffreestanding -O2 -S -I"$(dirname "$hdr")" \
	-o "$tmp/mips.s" "$tmp/b.c" 2> "$tmp/mips.err"; then
	echo "FAIL unit/libsnic_barrier/unknown_arch_refused: builds for mips64: $(body "$tmp/mips.s" to_device | tr '\n' ';')"
elif grep -q 'no device memory barriers' "$tmp/mips.err"; then
	echo "PASS unit/libsnic_barrier/unknown_arch_refused"
else
	echo "FAIL unit/libsnic_barrier/unknown_arch_refused: $(grep -m1 error "$tmp/mips.err")"
fi
