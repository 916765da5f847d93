#!/bin/bash
# Install every Debian package d2d needs, idempotently.
# Never edits the system's apt sources: source packages are fetched through a
# private apt configuration (see tools/lib.sh: d2d_apt_src).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Host build: QEMU, kernel modules, userspace, sPIN handler toolchain.
HOST_PKGS=(
	build-essential pkg-config meson ninja-build python3 dpkg-dev
	libglib2.0-dev libpixman-1-dev libslirp-dev libfdt-dev zlib1g-dev
	libgnutls28-dev nettle-dev
	linux-headers-amd64 linux-source-6.1 kmod cpio xz-utils zstd
	libibverbs-dev librdmacm-dev
	clang-14 lld-14
	# snic XDP tests: BPF programs (bpf_helpers.h), AF_XDP (libxdp)
	libbpf-dev libxdp-dev
	# style tier: sparse over the kernel modules (C=1); make lint: cppcheck
	sparse cppcheck
	# make report: plots (Debian's python3, not a virtualenv's)
	python3-matplotlib
	# tools/intree-check.sh: a kernel tree needs these to prepare
	flex bison bc libelf-dev libssl-dev
)
# Guest userland (copied into the initramfs) and firmware for -kernel boot.
GUEST_PKGS=(
	busybox-static ibverbs-utils ibverbs-providers rdmacm-utils perftest
	iperf3 nvme-cli iproute2 ethtool pciutils e2fsprogs
	qemu-system-data seabios ipxe-qemu
	tcpdump infiniband-diags bpftool xdp-tools util-linux socat
)

missing=()
for p in "${HOST_PKGS[@]}" "${GUEST_PKGS[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	log "deps: all ${#HOST_PKGS[@]} host and ${#GUEST_PKGS[@]} guest packages present"
else
	log "deps: installing ${#missing[@]} package(s): ${missing[*]}"
	if [ "$(id -u)" -ne 0 ]; then
		die "deps: need root to install packages (run: sudo $0)"
	fi
	if [ -z "$(find /var/lib/apt/lists -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
		apt-get update -q
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The guest kernel: the same ABI as linux-headers-amd64, unpacked into the cache
# (not installed on the host, so /boot and the host's initramfs are untouched).
# (Debian's, even with D2D_KERNEL=debug: tools/debug-kernel.sh builds that.)
export D2D_KERNEL=debian
d2d_guest_kernel_fetch
log "deps: guest kernel $(d2d_kver) at $(d2d_kernel_dir)"
