#!/bin/bash
# Build the guest initramfs in two layers, both under $D2D_CACHE/image
# ($D2D_CACHE/image-debug with D2D_KERNEL=debug, see tools/debug-kernel.sh):
#   base-<key>.cpio   Debian userland + guest kernel modules (cached; key =
#                     this script, tools/lib.sh, tools/guest/, the kernel ABI
#                     and directory: a rebuilt debug kernel gets a new one)
#   overlay-<clone>.cpio  this clone's modules and userspace (rebuilt each
#                     time, it takes a second; one per clone, see d2d_overlay)
# tools/vm concatenates them with a per-run layer holding the guest script.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KVER=$(d2d_kver)
KROOT=$(d2d_kernel_dir)
IMG=$(d2d_image_dir)
MODS=$(d2d_modules_dir)
mkdir -p "$IMG"
LIBDIR=/usr/lib/x86_64-linux-gnu
# Host binaries copied with the shared libraries they need.
GUEST_BINS=(
	/usr/bin/ibv_devinfo /usr/bin/ibv_devices
	/usr/bin/ibv_rc_pingpong /usr/bin/ibv_ud_pingpong
	/usr/bin/ibv_srq_pingpong /usr/bin/ibv_uc_pingpong
	/usr/bin/ibv_xsrq_pingpong /usr/bin/ibv_asyncwatch
	/usr/bin/ib_send_bw /usr/bin/ib_send_lat /usr/bin/ib_write_bw
	/usr/bin/ib_write_lat /usr/bin/ib_read_bw /usr/bin/ib_read_lat
	/usr/bin/ib_atomic_bw /usr/bin/ib_atomic_lat
	/usr/bin/rping /usr/bin/ucmatose /usr/bin/udaddy /usr/bin/rdma_server
	/usr/bin/rdma_client /usr/bin/mckey /usr/bin/rstream /usr/bin/riostream
	/usr/bin/rcopy /usr/bin/cmtime
	/usr/sbin/ibstat /usr/sbin/ibstatus /usr/sbin/ibaddr
	/usr/bin/tcpdump /usr/sbin/bpftool
	/usr/sbin/xdp-loader /usr/sbin/xdp-filter /usr/sbin/xdpdump
	/usr/bin/setpriv
	/usr/bin/iperf3 /usr/sbin/nvme /usr/bin/lspci /usr/bin/setpci
	/usr/sbin/ethtool /usr/bin/ip /usr/bin/rdma /usr/sbin/tc
	/usr/sbin/mkfs.ext4 /usr/sbin/mke2fs /usr/bin/kmod
	/usr/sbin/filefrag /usr/sbin/debugfs /usr/bin/dash /usr/bin/socat
)

base_key=$( (cat "$0" "$D2D_ROOT/tools/lib.sh"; find "$D2D_ROOT/tools/guest" -type f | sort | xargs cat; echo "$KVER $KROOT") |
	sha256sum | cut -c1-12)
BASE="$IMG/base-$base_key.cpio"

copy_libs() {	# copy_libs ROOT FILE: the host's shared libraries FILE needs
	local root=$1 f=$2 lib
	{ ldd "$f" 2>/dev/null || true; } | awk '/=> \//{print $3} /^\t\/lib/{print $1}' |
	while read -r lib; do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

copy_with_libs() {	# copy_with_libs ROOT FILE...
	local root=$1 f
	shift
	for f in "$@"; do
		[ -e "$f" ] || die "mkimage: $f missing (run tools/deps.sh)"
		mkdir -p "$root$(dirname "$f")"
		cp -L "$f" "$root$f"
		copy_libs "$root" "$f"
	done
}

# copy_from_deb ROOT PKG FILE: FILE of Debian package PKG (not installed on
# the host: d2d_deb_root fetches it), with the host libraries it needs.
copy_from_deb() {
	local root=$1 src
	src=$(d2d_deb_root "$2")/$3
	[ -e "$src" ] || die "mkimage: $3 not in package $2"
	mkdir -p "$root$(dirname "$3")"
	cp -L "$src" "$root$3"
	copy_libs "$root" "$src"
}

build_base() {
	local root
	root=$(mktemp -d)
	log "image: building base layer (kernel $KVER)"
	mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,run,root,mnt,var/log,usr/share/misc}
	ln -s usr/lib "$root/lib"
	ln -s usr/lib "$root/lib64"
	mkdir -p "$root/usr/lib"

	cp /bin/busybox "$root/bin/busybox"
	for a in $("$root/bin/busybox" --list); do
		[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
	done

	copy_with_libs "$root" "${GUEST_BINS[@]}"
	# Stock nginx (Debian's, run by tests/guest/hdc_nginx.sh with its own
	# configuration) for the sendfile(2) preload library.
	copy_from_deb "$root" nginx /usr/sbin/nginx
	# The real tools win over busybox applets of the same name (setpriv).
	for f in "${GUEST_BINS[@]}"; do
		[ "$(readlink "$root/bin/${f##*/}")" = busybox ] && rm -f "$root/bin/${f##*/}"
	done
	# Debian's busybox sh prefers its own applets over PATH (so "ip" would
	# be busybox's, not iproute2's): scripts run under dash instead.
	ln -sf /usr/bin/dash "$root/bin/sh"
	# libibverbs loads its providers at run time.
	copy_with_libs "$root" "$LIBDIR"/libibverbs/*.so
	mkdir -p "$root/etc/libibverbs.d"
	cp /etc/libibverbs.d/*.driver "$root/etc/libibverbs.d/"
	# rsockets (rstream, riostream, rcopy) preload librspreload; xdp-loader
	# loads its dispatcher program from the bpf directory.
	copy_with_libs "$root" "$LIBDIR"/rsocket/librspreload.so*
	mkdir -p "$root$LIBDIR/bpf"
	cp "$LIBDIR"/bpf/*.o "$root$LIBDIR/bpf/"
	cp /usr/share/misc/pci.ids "$root/usr/share/misc/" 2>/dev/null || true
	for t in modprobe insmod rmmod lsmod depmod modinfo; do
		ln -sf /usr/bin/kmod "$root/sbin/$t"
		rm -f "$root/bin/$t"
	done

	# Kernel modules with their dependencies.
	[ -f "$KROOT/lib/modules/$KVER/modules.dep" ] ||
		depmod -b "$KROOT" "$KVER"
	local mods m
	mods=$(d2d_guest_module_files "$KROOT" "$KVER")
	for m in $mods; do
		mkdir -p "$root$(dirname "${m#"$KROOT"}")"
		cp "$m" "$root${m#"$KROOT"}"
	done
	cp "$KROOT/lib/modules/$KVER"/modules.{order,builtin,builtin.modinfo} \
		"$root/lib/modules/$KVER/"

	cp -r "$D2D_ROOT/tools/guest/etc/." "$root/etc/"
	install -m 755 "$D2D_ROOT/tools/guest/init" "$root/init"

	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) > "$BASE.tmp"
	mv "$BASE.tmp" "$BASE"
	rm -rf "$root"
	log "image: base layer $(du -h "$BASE" | cut -f1)"
}

build_overlay() {
	local root
	root=$(mktemp -d)
	# /lib is a link to usr/lib in the base layer; a "lib" directory here
	# would replace it when the kernel unpacks the layers.
	mkdir -p "$root/usr/lib/modules/$KVER/extra" "$root/usr/local/bin"
	find "$MODS/kernel" -name '*.ko' -exec cp {} "$root/usr/lib/modules/$KVER/extra/" \;
	if [ -d "$D2D_ROOT/userspace/build/bin" ]; then
		cp -r "$D2D_ROOT/userspace/build/bin/." "$root/usr/local/bin/"
	fi
	# Files staged at their guest paths by 'make userspace', e.g. the
	# libsnic provider: usr/lib/<multiarch>/libibverbs/libsnic-rdmav34.so
	# and etc/libibverbs.d/snic.driver.  Only /usr and /etc: a top-level
	# lib directory would replace the base layer's lib -> usr/lib link.
	if [ -d "$D2D_ROOT/userspace/build/root" ]; then
		local d
		for d in usr etc; do
			[ -d "$D2D_ROOT/userspace/build/root/$d" ] &&
				cp -r "$D2D_ROOT/userspace/build/root/$d" "$root/"
		done
	fi
	# Data files (e.g. sPIN handler ELFs in share/spin).
	if [ -d "$D2D_ROOT/userspace/build/share" ]; then
		mkdir -p "$root/usr/local/share"
		cp -r "$D2D_ROOT/userspace/build/share/." "$root/usr/local/share/"
		find "$root/usr/local/share" -name '*.o' -delete
	fi
	mkdir -p "$root/opt/d2d"
	cp -r "$D2D_ROOT/tests/guest" "$root/opt/d2d/tests"
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) > "$(d2d_overlay).tmp"
	mv "$(d2d_overlay).tmp" "$(d2d_overlay)"
	rm -rf "$root"
}

[ -f "$BASE" ] || build_base
ln -sfn "$(basename "$BASE")" "$IMG/base.cpio"
build_overlay
ln -sfn "$KROOT/boot/vmlinuz-$KVER" "$IMG/vmlinuz"
log "image: ready ($IMG: vmlinuz, base.cpio, $(basename "$(d2d_overlay)"))"
