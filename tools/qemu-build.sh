#!/bin/bash
# Build qemu-system-x86_64 7.2 (Debian's source package, Debian patches
# applied) with the d2d devices from qemu-devices/, plus the insn-meter TCG
# plugin.  Output: $D2D_CACHE/qemu/<key>/build/qemu-system-x86_64.
#
# The key hashes the configure line, the integration edits and our fixes to
# QEMU itself (QEMU_KEY_INPUTS below).  Device sources are not in the key:
# hw/d2d is a copy of this clone's qemu-devices/, so a device change is an
# incremental ninja build of a few files.
#
# Our fixes to QEMU are qemu-devices/patches/*.patch (patch -p1 against the
# QEMU tree, each with a header saying what it fixes), applied in name order
# after Debian's series.  Their content is in the key, so a new or changed
# patch gives a fresh tree with all of them applied.
#
# tools/qemu-build.sh --asan builds the same tree with AddressSanitizer and
# UndefinedBehaviorSanitizer (its own key, so its own cached tree) and
# records it in $D2D_CACHE/qemu/current-asan; make check-asan runs the device
# tier on it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

variant=""
case "${1:-}" in
"") ;;
--asan) variant=asan ;;
*) die "usage: tools/qemu-build.sh [--asan]" ;;
esac

QEMU_DSC_PKG=qemu
QEMU_CONFIGURE=(
	--meson=/usr/bin/meson
	--target-list=x86_64-softmmu
	--without-default-features
	--enable-tcg --enable-kvm --enable-slirp --enable-fdt=system
	--enable-plugins --enable-gnutls --enable-nettle
	--disable-install-blobs --disable-docs --disable-werror
	--disable-debug-info
)
[ "$variant" = asan ] && QEMU_CONFIGURE+=(--enable-sanitizers)
# Bump QEMU_INTEGRATION when the edits to the unpacked tree below change.
QEMU_INTEGRATION=2
QEMU_PATCHES=("$D2D_ROOT"/qemu-devices/patches/*.patch)
[ -e "${QEMU_PATCHES[0]}" ] || QEMU_PATCHES=()
patches_sum=$( (for p in "${QEMU_PATCHES[@]}"; do basename "$p"; cat "$p"; done) | sha256sum | cut -c1-12)
QEMU_KEY_INPUTS="7.2 ${QEMU_CONFIGURE[*]} integration=$QEMU_INTEGRATION patches=$patches_sum"
key=$(echo "$QEMU_KEY_INPUTS" | sha256sum | cut -c1-12)
top="$D2D_CACHE/qemu/$key"
src="$top/src"
build="$top/build"
mkdir -p "$top"
exec 9>"$top/.lock"
flock 9

if [ ! -f "$src/.d2d-prepared" ]; then
	log "qemu: fetching Debian source package ($QEMU_DSC_PKG 7.2)"
	dl="$D2D_CACHE/src"
	mkdir -p "$dl"
	chmod 755 "$dl"
	if ! ls "$dl"/qemu_7.2*.dsc >/dev/null 2>&1; then
		d2d_apt_src update >/dev/null
		(cd "$dl" && d2d_apt_src source --download-only "$QEMU_DSC_PKG") ||
			die "apt-get source qemu failed"
	fi
	dsc=$(ls "$dl"/qemu_7.2*.dsc | sort -V | tail -1)
	rm -rf "$src"
	log "qemu: unpacking $(basename "$dsc") with Debian's patch series"
	dpkg-source --no-check -x "$dsc" "$src" >/dev/null
	grep -q '^7\.2' "$src/VERSION" || die "unexpected QEMU version $(cat "$src/VERSION")"
	for p in "${QEMU_PATCHES[@]}"; do
		log "qemu: applying $(basename "$p")"
		patch -d "$src" -p1 --batch --forward --quiet < "$p" ||
			die "qemu: $(basename "$p") does not apply"
	done
	# The dfsg tarball has no edk2 blobs: do not try to unpack them.
	sed -i 's/unpack_edk2_blobs = bzip2.found()/unpack_edk2_blobs = false/' "$src/meson.build"
	echo "subdir('d2d')" >> "$src/hw/meson.build"
	echo 'source d2d/Kconfig' >> "$src/hw/Kconfig"
	# hw/d2d/trace-events: tracetool makes trace/trace-hw_d2d.h, which
	# hw/d2d/trace.h includes.  The list is read by subdir('trace'), before
	# hw/ is entered, so the directory goes in just before that line.
	sed -i "s|^subdir('trace')\$|trace_events_subdirs += [ 'hw/d2d' ]\\n&|" "$src/meson.build"
	grep -q "trace_events_subdirs += \[ 'hw/d2d' \]" "$src/meson.build" ||
		die "qemu: could not add hw/d2d to trace_events_subdirs"
	touch "$src/.d2d-prepared"
fi

# Mirror this clone's device sources into the tree: hw/d2d is qemu-devices/
# (without patches/, applied above),
# hw/d2d/uapi is kernel/include/uapi (the user ABI) and hw/d2d/ifc/d2d the
# device-interface headers kernel/include/d2d/*_ifc.h (the one definition
# of each register map).  Only files whose content changed are rewritten,
# so ninja rebuilds just those, also after switching to a fresh clone.
sync_tree() {	# sync_tree FROM TO [NAME-GLOB]
	local from=$1 to=$2 name=${3:-*} f
	mkdir -p "$to"
	(cd "$from" && find . -type f -name "$name" ! -name '*.o' ! -path './patches/*') | while read -r f; do
		if ! cmp -s "$from/$f" "$to/$f"; then
			mkdir -p "$(dirname "$to/$f")"
			cp "$from/$f" "$to/$f"
		fi
	done
	(cd "$to" && find . -type f) | while read -r f; do
		case "$f" in ./uapi/* | ./ifc/*) [ "$to" = "$src/hw/d2d" ] && continue ;; esac
		[ -e "$from/$f" ] || rm -f "$to/$f"
	done
}
[ -L "$src/hw/d2d" ] && rm -f "$src/hw/d2d"
sync_tree "$D2D_ROOT/qemu-devices" "$src/hw/d2d"
sync_tree "$D2D_ROOT/kernel/include/uapi" "$src/hw/d2d/uapi"
sync_tree "$D2D_ROOT/kernel/include/d2d" "$src/hw/d2d/ifc/d2d" '*_ifc.h'

if [ ! -f "$build/build.ninja" ]; then
	log "qemu: configuring (x86_64-softmmu: TCG, KVM, slirp, fdt, plugins, gnutls)"
	rm -rf "$build"
	mkdir -p "$build"
	(cd "$build" && PATH=/usr/bin:/bin:$PATH "$src/configure" "${QEMU_CONFIGURE[@]}") > "$top/configure.log" 2>&1 ||
		{ tail -30 "$top/configure.log"; die "qemu configure failed (log: $top/configure.log)"; }
fi

log "qemu: building (log: $top/build.log)"
start=$(date +%s)
ninja -C "$build" qemu-system-x86_64 > "$top/build.log" 2>&1 ||
	{ grep -E 'error|Error' -A3 "$top/build.log" | head -40; die "qemu build failed (log: $top/build.log)"; }
# Our device models build warning-free (-Werror for hw/d2d only: QEMU's own
# sources are Debian's and built as Debian builds them).  A warning fails the
# build and removes the device objects, so the next build compiles them and
# reports it again instead of linking the stale objects silently.
if grep -qE '(^|/)hw/d2d/[^:]*:[0-9]+:[0-9]+: (warning|error):' "$top/build.log"; then
	grep -E '(^|/)hw/d2d/[^:]*:[0-9]+:[0-9]+: (warning|error):' -A3 "$top/build.log" | head -40
	find "$build" -name 'hw_d2d_*.o' -delete
	die "qemu: warnings in the d2d device models (-Werror; log: $top/build.log)"
fi

# The TCG plugin that meters guest instructions (tools/insn-meter).
plugin_src="$D2D_ROOT/tools/insn-meter/insn-meter.c"
if [ "$plugin_src" -nt "$build/libinsn-meter.so" ] || [ ! -f "$build/libinsn-meter.so" ]; then
	cc -shared -fPIC -O2 -Wall -Wextra -Werror -Wno-unused-parameter -I"$src/include/qemu" \
		$(pkg-config --cflags glib-2.0) -o "$build/libinsn-meter.so" "$plugin_src"
fi
log "qemu: ready in $(( $(date +%s) - start ))s: $build/qemu-system-x86_64"
echo "$build" > "$D2D_CACHE/qemu/current${variant:+-$variant}"
