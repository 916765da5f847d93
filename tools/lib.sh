# Shared helpers for tools/*.sh (sourced, not run).
# Build outputs live outside the clone so that a fresh clone reuses them.
D2D_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
D2D_CACHE=${D2D_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/d2d}
export D2D_CACHE
mkdir -p "$D2D_CACHE"

log() { printf '[d2d] %s\n' "$*" >&2; }
die() { printf '[d2d] error: %s\n' "$*" >&2; exit 1; }

# Kernel ABI of the guest: the one linux-headers-amd64 points at.
d2d_kver() {
	local dep
	dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null) ||
		die "linux-headers-amd64 is not installed (run tools/deps.sh)"
	dep=${dep%% *}
	echo "${dep#linux-headers-}"
}

d2d_kernel_dir() { echo "$D2D_CACHE/kernel/$(d2d_kver)"; }

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
	echo "$D2D_CACHE/image/overlay-$(echo "$D2D_ROOT" | sha256sum | cut -c1-8).cpio"
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
