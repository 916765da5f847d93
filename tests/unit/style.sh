#!/bin/bash
# Style gates: kernel checkpatch, QEMU checkpatch on our device models,
# sparse's byte-order check of the device models (tools/sparse-models.sh),
# and a W=1 kernel build checked by sparse (C=1: address spaces, __le/__be
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

# uapi is the user ABI only: no uapi header includes a device-interface
# header (kernel/include/d2d/*_ifc.h) or defines a register offset or an
# admin command (SNIC_REG_*, SNIC_AQ_*, FLD_REG_*, HDC_REG_*, ...).
bad=$(grep -HnE '^#include <d2d/[a-z_]+_ifc?\.h>|^#define [A-Z0-9]+_(REG|AQ)_[A-Z0-9_]+[[:space:]]' \
	kernel/include/uapi/d2d/*.h | head -1)
if [ -z "$bad" ]; then
	echo "PASS unit/style/uapi_user_abi_only"
else
	echo "FAIL unit/style/uapi_user_abi_only: device interface in uapi: $bad"
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

# Byte order in the device models: sparse with typed conversions against
# the __le/__be fields of the device-interface headers.
tools/sparse-models.sh > "$tmp/sm.out" 2>&1
case $? in
0) echo "PASS unit/style/qemu_sparse_endian" ;;
2) echo "SKIP unit/style/qemu_sparse_endian: $(tail -1 "$tmp/sm.out")" ;;
*) echo "FAIL unit/style/qemu_sparse_endian: $(grep -m1 -A2 -E 'warning|error' "$tmp/sm.out" | tr '\n' ' ')" ;;
esac

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
