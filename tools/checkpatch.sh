#!/bin/bash
# Run the kernel's checkpatch.pl (from Debian's linux-source-6.1) over the
# kernel/ tree.  Prints checkpatch's report; exits non-zero on any warning
# or error.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cp_dir="$D2D_CACHE/checkpatch"
if [ ! -x "$cp_dir/scripts/checkpatch.pl" ]; then
	tarball=$(ls /usr/src/linux-source-6.1*.tar.xz 2>/dev/null | head -1)
	[ -n "$tarball" ] || die "linux-source-6.1 not installed (run tools/deps.sh)"
	log "checkpatch: extracting from $(basename "$tarball")"
	rm -rf "$cp_dir"
	mkdir -p "$cp_dir"
	top=$(basename "$tarball" .tar.xz)
	tar -xJf "$tarball" -C "$cp_dir" --strip-components=1 \
		"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch"
fi
cd "$D2D_ROOT"
run_cp() { perl "$cp_dir/scripts/checkpatch.pl" --no-tree --quiet --terse \
	--show-types --ignore FILE_PATH_CHANGES "$@"; }
rc=0
# Driver code: --strict.  uapi headers and the device-interface headers
# (*_ifc.h, shared with the QEMU models and user space) cannot use BIT():
# default level; their X-macro lists (FLD_STATS in fld_ifc.h,
# SNIC_PORT_STATS and SNIC_RDMA_STATS in the snic headers: the enum, the
# struct and every name table from one list) are not expressions, and the
# helper that makes a struct field of an entry ends in its semicolon, so
# COMPLEX_MACRO and TRAILING_SEMICOLON are off there.
drv=$(find kernel -name '*.[ch]' ! -name '*.mod.c' ! -path '*/uapi/*' ! -name '*_ifc.h' | sort)
uapi=$(find kernel \( -path '*/uapi/*' -o -name '*_ifc.h' \) -name '*.h' | sort)
run_cp --strict -f $drv || rc=1
run_cp --ignore COMPLEX_MACRO,TRAILING_SEMICOLON -f $uapi || rc=1
exit $rc
