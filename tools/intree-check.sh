#!/bin/bash
# Prove that the kernel side builds in-tree as drivers/d2d: unpack Debian's
# linux-source-6.1 into the cache, drop this tree in as drivers/d2d, hook it
# into drivers/Kconfig and drivers/Makefile, enable CONFIG_D2D*=m and build
# that directory.  Takes a few minutes the first time (kernel prepare).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ksrc="$D2D_CACHE/linux-source-6.1"
if [ ! -f "$ksrc/.unpacked" ]; then
	tarball=$(ls /usr/src/linux-source-6.1*.tar.xz | head -1)
	log "intree: unpacking $(basename "$tarball")"
	rm -rf "$ksrc"
	mkdir -p "$ksrc"
	tar -xJf "$tarball" -C "$ksrc" --strip-components=1
	touch "$ksrc/.unpacked"
fi
cd "$ksrc"
rm -rf drivers/d2d
mkdir -p drivers/d2d
cp -r "$D2D_ROOT/Kconfig" "$D2D_ROOT/Kbuild" "$D2D_ROOT/kernel" drivers/d2d/
find drivers/d2d -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' | xargs rm -f
grep -q 'drivers/d2d/Kconfig' drivers/Kconfig ||
	sed -i 's|^endmenu|source "drivers/d2d/Kconfig"\n\nendmenu|' drivers/Kconfig
grep -q 'CONFIG_D2D' drivers/Makefile ||
	echo 'obj-$(CONFIG_D2D)		+= d2d/' >> drivers/Makefile
if [ ! -f .config ]; then
	cp "$(d2d_kernel_dir)/boot/config-$(d2d_kver)" .config
	# Debian's signing and BTF settings need keys and pahole we do not need.
	scripts/config --disable MODULE_SIG --disable DEBUG_INFO_BTF \
		--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS ""
fi
# shellcheck disable=SC2046
scripts/config $(printf -- '--module %s ' $("$D2D_ROOT/tools/kconfig-symbols.sh"))
make -s olddefconfig
grep -q '^CONFIG_D2D_SNIC=m' .config || die "intree: CONFIG_D2D_SNIC not enabled"
grep -q '^CONFIG_D2D_SNIC_IB=m' .config || die "intree: CONFIG_D2D_SNIC_IB not enabled"
log "intree: building drivers/d2d/ (log: $ksrc/intree.log)"
make -j"$(nproc)" drivers/d2d/ > intree.log 2>&1 || { tail -20 intree.log; die "intree build failed"; }
ls drivers/d2d/kernel/snic/snic.o drivers/d2d/kernel/snic/snic_ib.o \
	drivers/d2d/kernel/snic/test/snic_peer_test.o drivers/d2d/kernel/fld/fld.o \
	drivers/d2d/kernel/hdc/hdc.o >/dev/null
log "intree: drivers/d2d built in-tree"
