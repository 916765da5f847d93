#!/bin/bash
# tools/debug-kernel.sh - the debug guest kernel of make check-debug.
#
#   tools/debug-kernel.sh            build it (once per config and source)
#   tools/debug-kernel.sh --modules  build this clone's modules against it
#   tools/debug-kernel.sh --dir      print its cache directory
#
# Debian's linux-source-6.1 is unpacked into $D2D_CACHE/debug-kernel/<key>
# (key: tools/debug-kernel.config and the source package version),
# configured as x86_64_defconfig plus that fragment (the guest's drivers as
# modules, KASAN, lockdep, kmemleak, UBSAN, DEBUG_LIST, fault injection) and
# built there.  The result has the layout of Debian's linux-image package:
#   <key>/root/boot/vmlinuz-KVER, <key>/root/lib/modules/KVER, <key>/kver
# and the unpacked source stays as the build tree for out-of-tree modules.
# --modules copies the module sources (Kbuild, Kconfig, kernel/) to
# <key>/d2d-<clone>/ and builds them there, never in the clone.
# D2D_KJOBS sets make's -j (default 2); the build runs under nice -n 19.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DIR=$(d2d_debug_dir)
SRC="$DIR/linux-source-6.1"
FRAG="$D2D_ROOT/tools/debug-kernel.config"
TARBALL=/usr/src/linux-source-6.1.tar.xz

kmake() { nice -n 19 make -C "$SRC" -j"${D2D_KJOBS:-2}" "$@"; }

# Every symbol of the fragment must have the value it asks for.
check_config() {
	local line sym bad=0
	while read -r line; do
		case "$line" in
		"# CONFIG_"*" is not set")
			sym=${line#\# }; sym=${sym%% *}
			grep -q "^$sym=" "$SRC/.config" || continue
			;;
		CONFIG_*)
			grep -qxF "$line" "$SRC/.config" && continue
			;;
		*) continue ;;
		esac
		log "debug-kernel: '$line' did not take (a dependency is missing)"
		bad=1
	done < "$FRAG"
	[ "$bad" = 0 ] || die "debug-kernel: fix tools/debug-kernel.config"
}

build_kernel() {
	local kver start
	[ -f "$DIR/.done" ] && return 0
	[ -f "$TARBALL" ] || die "$TARBALL missing (apt-get install linux-source-6.1)"
	mkdir -p "$DIR"
	start=$(date +%s)
	if [ ! -f "$SRC/.unpacked" ]; then
		log "debug-kernel: unpacking $TARBALL into $DIR"
		rm -rf "$SRC"
		tar -C "$DIR" -xJf "$TARBALL"
		touch "$SRC/.unpacked"
	fi
	if [ ! -f "$SRC/.config" ] || [ "$FRAG" -nt "$SRC/.config" ]; then
		kmake -s x86_64_defconfig
		"$SRC/scripts/kconfig/merge_config.sh" -m -O "$SRC" "$SRC/.config" "$FRAG" > /dev/null
		kmake -s olddefconfig
	fi
	check_config
	log "debug-kernel: building in $SRC (this takes long; log on stdout)"
	kmake bzImage modules
	kver=$(kmake -s kernelrelease)
	rm -rf "$DIR/root"
	mkdir -p "$DIR/root/boot"
	kmake -s INSTALL_MOD_PATH="$DIR/root" INSTALL_MOD_STRIP=1 modules_install
	cp "$SRC/arch/x86/boot/bzImage" "$DIR/root/boot/vmlinuz-$kver"
	cp "$SRC/.config" "$DIR/root/boot/config-$kver"
	cp "$SRC/System.map" "$DIR/root/boot/System.map-$kver"
	# Every module the guest image loads must exist (or be built in).
	d2d_guest_module_files "$DIR/root" "$kver" > /dev/null
	echo "$kver" > "$DIR/kver"
	touch "$DIR/.done"
	log "debug-kernel: $kver built in $(( ($(date +%s) - start) / 60 )) min ($DIR)"
}

build_modules() {
	local out
	[ -f "$DIR/.done" ] || die "debug kernel not built (run: make debug-kernel)"
	out=$(D2D_KERNEL=debug d2d_modules_dir)
	mkdir -p "$out"
	# Sources only; tar keeps their times, so the build is incremental.
	(cd "$D2D_ROOT" && tar -cf - --exclude='*.o' --exclude='*.ko' \
		--exclude='*.mod' --exclude='*.mod.c' --exclude='.*.cmd' \
		--exclude=modules.order --exclude=Module.symvers \
		Kbuild Kconfig kernel) | tar -C "$out" -xf -
	# shellcheck disable=SC2046
	make -C "$SRC" M="$out" $("$D2D_ROOT/tools/kconfig-symbols.sh" --make) \
		W=1 modules
}

case "${1:-}" in
"") build_kernel ;;
--modules) build_modules ;;
--dir) echo "$DIR" ;;
*) echo "usage: tools/debug-kernel.sh [--modules|--dir]" >&2; exit 2 ;;
esac
