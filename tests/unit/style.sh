#!/bin/bash
# Style gates: kernel checkpatch, QEMU checkpatch on our device models, and
# a W=1 kernel build checked by sparse (C=1: address spaces, __le/__be
# endianness, locking annotations) with no warnings.  One line per check.
cd "$(dirname "$0")/../.."
. tools/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if tools/checkpatch.sh > "$tmp/cp.out" 2>&1; then
	echo "PASS unit/style/kernel_checkpatch"
else
	echo "FAIL unit/style/kernel_checkpatch: $(grep -m1 -E 'ERROR|WARNING|CHECK' "$tmp/cp.out")"
fi

qsrc="$(cat "$D2D_CACHE/qemu/current" 2>/dev/null)/../src"
if [ -f "$qsrc/scripts/checkpatch.pl" ]; then
	files=$(find qemu-devices -name '*.[ch]' | sort)
	# shellcheck disable=SC2086
	if perl "$qsrc/scripts/checkpatch.pl" --no-tree -q -f $files > "$tmp/qcp.out" 2>&1; then
		echo "PASS unit/style/qemu_checkpatch"
	else
		echo "FAIL unit/style/qemu_checkpatch: $(grep -m1 -A2 -E '^(ERROR|WARNING)' "$tmp/qcp.out" | tr '\n' ' ')"
	fi
else
	echo "SKIP unit/style/qemu_checkpatch: QEMU source not prepared (make qemu)"
fi

# Fresh out-of-tree copy so every file is compiled and every warning shows.
KVER=$(d2d_kver)
cp -r Kbuild Kconfig kernel "$tmp/"
if ! command -v sparse > /dev/null; then
	echo "FAIL unit/style/kernel_w1_sparse: sparse is not installed (tools/deps.sh)"
elif make -C "/usr/src/linux-headers-$KVER" M="$tmp" $(tools/kconfig-symbols.sh --make) W=1 C=1 modules > "$tmp/build.out" 2>&1; then
	if grep -q 'warning:\|error:' "$tmp/build.out"; then
		echo "FAIL unit/style/kernel_w1_sparse: $(grep -m1 'warning:\|error:' "$tmp/build.out")"
	elif ! grep -q '^  CHECK ' "$tmp/build.out"; then
		echo "FAIL unit/style/kernel_w1_sparse: sparse did not run"
	else
		echo "PASS unit/style/kernel_w1_sparse"
	fi
else
	echo "FAIL unit/style/kernel_w1_sparse: build failed: $(grep -m1 'error' "$tmp/build.out")"
fi
