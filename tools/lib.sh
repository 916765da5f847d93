# Shared helpers for tools/*.sh (sourced, not run).
# Build outputs live outside the clone so that a fresh clone reuses them.
D2D_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
D2D_CACHE=${D2D_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/d2d}
export D2D_CACHE
mkdir -p "$D2D_CACHE"

log() { printf '[d2d] %s\n' "$*" >&2; }
die() { printf '[d2d] error: %s\n' "$*" >&2; exit 1; }

# Guest kernel modules that tools/mkimage.sh puts in the image (with their
# dependencies); tools/debug-kernel.sh checks the debug kernel has them all.
D2D_GUEST_MODULES=(
	ib_core ib_uverbs ib_umad ib_cm iw_cm rdma_cm rdma_ucm rdma_rxe
	nvme nvme-core nvme-rdma nvmet nvmet-rdma nvme-fabrics null_blk configfs
	ext4 crc32c_generic crc32_generic libcrc32c
	virtio_net virtio_pci virtio_blk e1000e
	uio uio_pci_generic
	vxlan udp_tunnel ip6_udp_tunnel veth
	8021q sch_mqprio sch_ingress sch_fq sch_netem cls_flower act_gact
	pktgen
)

# The module files (KROOT/...ko) of D2D_GUEST_MODULES and their
# dependencies, one a line; dies naming a module the kernel lacks.
d2d_guest_module_files() {	# d2d_guest_module_files KROOT KVER
	local m deps
	for m in "${D2D_GUEST_MODULES[@]}"; do
		deps=$(modprobe -d "$1" -S "$2" --show-depends "$m" 2>&1) ||
			die "guest module $m not in kernel $2 ($deps)"
		awk '$1=="insmod"{print $2}' <<<"$deps"
	done | sort -u
}

# D2D_KERNEL selects the guest kernel: unset (or "debian") for Debian's
# linux-image, "debug" for the debug build of tools/debug-kernel.sh
# (KASAN, lockdep, kmemleak, UBSAN, fault injection; make check-debug).
d2d_debug() {
	case "${D2D_KERNEL:-debian}" in
	debian) return 1 ;;
	debug) return 0 ;;
	*) die "D2D_KERNEL='$D2D_KERNEL': expected 'debian' or 'debug'" ;;
	esac
}

# The debug kernel's cache directory: its key is the config fragment and
# the version of the kernel source package, so either change rebuilds it.
d2d_debug_dir() {
	local ver key
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
		die "linux-source-6.1 is not installed (apt-get install linux-source-6.1)"
	key=$( (cat "$D2D_ROOT/tools/debug-kernel.config"; echo "$ver") |
		sha256sum | cut -c1-12)
	echo "$D2D_CACHE/debug-kernel/$key"
}

# Kernel ABI of the guest: the one linux-headers-amd64 points at, or the
# debug kernel's release when D2D_KERNEL=debug.
d2d_kver() {
	local dep
	if d2d_debug; then
		cat "$(d2d_debug_dir)/kver" 2>/dev/null ||
			die "debug kernel not built (run: make debug-kernel)"
		return 0
	fi
	dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null) ||
		die "linux-headers-amd64 is not installed (run tools/deps.sh)"
	dep=${dep%% *}
	echo "${dep#linux-headers-}"
}

# Where the guest kernel is unpacked: boot/vmlinuz-KVER, lib/modules/KVER.
d2d_kernel_dir() {
	if d2d_debug; then
		echo "$(d2d_debug_dir)/root"
	else
		echo "$D2D_CACHE/kernel/$(d2d_kver)"
	fi
}

# The guest image directory (vmlinuz, base.cpio, overlays): the debug
# kernel's image lives apart, so it never replaces the normal one.
d2d_image_dir() {
	if d2d_debug; then
		echo "$D2D_CACHE/image-debug"
	else
		echo "$D2D_CACHE/image"
	fi
}

# Short name of this clone, for per-clone outputs in the shared cache.
d2d_clone_id() { echo "$D2D_ROOT" | sha256sum | cut -c1-8; }

# Where this clone's built modules (*.ko) are: the clone itself, or for the
# debug kernel a copy of the module sources under the debug kernel's cache
# (tools/debug-kernel.sh --modules), so that debug-built modules never land
# in the clone where the normal image would pick them up.
d2d_modules_dir() {
	if d2d_debug; then
		echo "$(d2d_debug_dir)/d2d-$(d2d_clone_id)"
	else
		echo "$D2D_ROOT"
	fi
}

# The qemu-system-x86_64 that tools/qemu-build.sh built last (D2D_QEMU
# overrides it); empty when there is none.
d2d_qemu() {
	local build
	if [ -n "${D2D_QEMU:-}" ]; then
		[ -x "$D2D_QEMU" ] && echo "$D2D_QEMU"
		return 0
	fi
	build=$(cat "$D2D_CACHE/qemu/current" 2>/dev/null) || return 0
	[ -x "$build/qemu-system-x86_64" ] && echo "$build/qemu-system-x86_64"
	return 0
}

# The image layer holding this clone's modules and tools: one per clone, so
# clones (a CI run, a developer's tree) never boot each other's modules.
d2d_overlay() {
	echo "$(d2d_image_dir)/overlay-$(d2d_clone_id).cpio"
}

# Unpack the guest kernel package (vmlinuz + modules) into the cache.
d2d_guest_kernel_fetch() {
	local kver dir tmp
	kver=$(d2d_kver)
	dir=$(d2d_kernel_dir)
	[ -f "$dir/.done" ] && return 0
	log "fetching guest kernel linux-image-$kver"
	tmp=$(mktemp -d); chmod 755 "$tmp"
	(cd "$tmp" && apt-get download -q "linux-image-$kver") ||
		die "apt-get download linux-image-$kver failed"
	rm -rf "$dir"
	mkdir -p "$dir"
	dpkg-deb -x "$tmp"/linux-image-*.deb "$dir"
	rm -rf "$tmp"
	touch "$dir/.done"
}

# d2d_deb_root PKG: PKG's Debian package (this system's version), fetched
# with 'apt-get download' into $D2D_CACHE/apt/debs once and unpacked
# there; prints the directory it is unpacked in.  For guest programs the
# host does not have installed (nginx).
d2d_deb_root() {
	local pkg=$1 dir="$D2D_CACHE/apt/debs/$1"
	if [ ! -f "$dir/.done" ]; then
		rm -rf "$dir"
		mkdir -p "$dir/root"
		(cd "$dir" && apt-get download -q "$pkg" >/dev/null 2>&1) ||
			die "apt-get download $pkg failed"
		dpkg-deb -x "$dir"/"$pkg"_*.deb "$dir/root"
		touch "$dir/.done"
	fi
	echo "$dir/root"
}

# apt-get with a private configuration that adds deb-src entries mirroring the
# system's binary sources.  The system's apt sources are read, never edited.
d2d_apt_src() {
	local d="$D2D_CACHE/apt" f
	mkdir -p "$d/sources.list.d" "$d/lists/partial" "$d/cache/archives/partial"
	rm -f "$d/sources.list.d/"*
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		sed -e 's/^Types:.*/Types: deb-src/' "$f" > "$d/sources.list.d/$(basename "$f")"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -n -e 's/^deb /deb-src /p' "$f" > "$d/sources.list.d/$(basename "$f")"
	done
	apt-get -q -o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$d/sources.list.d" \
		-o Dir::State::Lists="$d/lists" \
		-o Dir::Cache="$d/cache" "$@"
}

# Hash of files/dirs' contents (paths relative to the repo), for cache keys.
d2d_hash() {
	(cd "$D2D_ROOT" && find "$@" -type f ! -name '*.o' -print0 2>/dev/null |
		sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-16
}

# The kernel reports in guest console logs, one line each: sanitizer and
# lockdep reports, list corruption, WARN/BUG/oops/panic (timestamped kernel
# lines, so a script's own output never matches) and the leaks of the
# kmemleak report that the debug guest's init prints.
d2d_kernel_reports() {	# d2d_kernel_reports LOG...
	local k='\[ *[0-9]+\.[0-9]+\] '
	cat "$@" | tr -d '\r' | grep -E -e "$k.*(BUG: |WARNING: |UBSAN: |kernel BUG at |Kernel panic|list_(add|del) corruption|general protection fault|Oops: |INFO: possible|INFO: trying to register|kmemleak: .*disabled)" \
		-e '^unreferenced object 0x' || true
}
