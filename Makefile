# d2d top-level Makefile.  The two commands a user needs:
#   make demo    install what is missing, build, boot a guest, show snic
#   make check   unit, device and guest test tiers
# Build outputs (QEMU, guest image) are cached in $(D2D_CACHE).

SHELL := /bin/bash
D2D_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/d2d
export D2D_CACHE
# KVER and KDIR are expanded when a recipe runs, not when this file is read:
# on a fresh machine tools/deps.sh (the deps prerequisite) installs
# linux-headers-amd64 first, so parse time would see no headers.
KVER = $(shell dpkg-query -W -f='$${Depends}' linux-headers-amd64 2>/dev/null | sed 's/^linux-headers-//; s/ .*//')
KDIR ?= /usr/src/linux-headers-$(KVER)
KCONFIG := $(shell tools/kconfig-symbols.sh --make)

.PHONY: all deps qemu qemu-asan modules userspace image demo check check-unit \
	check-device check-asan check-guest lint clean checkpatch help bench-eth bench-hdc \
	bench-rdma bench-spin bench-fld bench-hdc-net bench-flexins report debug-kernel modules-debug image-debug \
	check-debug

all: qemu modules userspace

help:
	@echo "make demo          install deps, build, boot a guest: all four systems at work"
	@echo "make check         run unit, device and guest tests"
	@echo "make check-unit | check-device | check-guest   one tier"
	@echo "make deps | qemu | modules | userspace | image"
	@echo "make check-asan    device tier on an ASan+UBSan build of QEMU"
	@echo "make check-debug   guest tier on a KASAN/lockdep/kmemleak/UBSAN kernel"
	@echo "                   (builds the kernel once, ~45 min; not in make check)"
	@echo "make lint          gcc -fanalyzer (device models), cppcheck (userspace)"
	@echo "make checkpatch    kernel style check"
	@echo "make bench-eth     snic vs e1000e and virtio-net (ratios; TIMING=1: modeled time)"
	@echo "make bench-hdc     HDC engine (d2d) vs CPU copies and digests (ratios)"
	@echo "make bench-hdc-net HDC engine sending a file over UDP (d2d send) vs"
	@echo "                   the host CPU (read+send, sendfile), and receiving"
	@echo "                   (d2d recv --crc32c vs recv+write+crc32c); instructions;"
	@echo "                   TCP (d2d send --tcp, nginx with libd2d-sendfile.so)"
	@echo "                   in timing mode (HDC_NET_PART=udp|tcp: one part)"
	@echo "make bench-rdma    snic RoCEv2 vs rdma_rxe over virtio-net (ratios)"
	@echo "make bench-spin    sPIN examples: cycles per packet, modeled throughput;"
	@echo "                   NIC ping-pong vs host UDP echo (ratios)"
	@echo "make bench-fld     FlexDriver echo vs host CPU echo, TLP bytes, memory (ratios)"
	@echo "make bench-flexins FlexiNS on snic: pipes vs doorbells, PCIe knobs, offload"
	@echo "                   engine vs verbs, DCQCN vs AIMD (timing mode; paper figures)"
	@echo "make report        every bench once, then docs/results.md with plots"

deps:
	@tools/deps.sh

qemu: deps
	@tools/qemu-build.sh

modules: deps
	@[ -n "$(KVER)" ] && [ -d "$(KDIR)" ] || { echo "[d2d] error: no kernel headers at '$(KDIR)' (tools/deps.sh installs linux-headers-amd64)" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(KCONFIG) W=1 modules

userspace: deps
	$(MAKE) -C userspace

image: modules userspace
	@tools/mkimage.sh

# One guest with two snic ports, an FLD and the HDC engine with its SSD;
# tests/guest/demo.sh prints a PASS/FAIL line per system.
demo: qemu image
	@log=$$(mktemp -d /tmp/d2d-demo.XXXXXX) && disk=$$(tools/mkdisk.sh) && \
	echo "[d2d] demo: one guest, console log $$log/guest1.log" && \
	tools/vm --quiet --timeout 300 --log-dir "$$log" --hdc "$$disk" \
		--qemu-arg -device --qemu-arg fld,id=fld0 \
		--env "D2D_DEMO_LOG=$$log/guest1.log" tests/guest/demo.sh > "$$log/vm.out" 2>&1; \
	rc=$$?; tr -d '\r' < "$$log/guest1.log" | sed -n '/^== d2d demo/,$$p' | \
		grep -E '^(==|   |PASS|FAIL|  \|)'; \
	[ $$rc = 0 ] || echo "[d2d] demo failed (status $$rc): $$log"; exit $$rc

check: qemu qemu-asan image
	@tests/run-all

check-unit: deps
	@tests/run-tier unit

check-device: qemu
	@tests/run-tier device

check-guest: qemu image
	@tests/run-tier guest

# The device tier on QEMU built with AddressSanitizer + UBSan (own cache).
qemu-asan: deps
	@tools/qemu-build.sh --asan

check-asan: qemu-asan
	@tests/run-tier asan

# The guest tier on the debug kernel (tools/debug-kernel.sh): Debian's kernel
# source with KASAN, lockdep, kmemleak, UBSAN, fault injection, built once
# into $(D2D_CACHE)/debug-kernel; our modules are built against it in that
# cache, never in the clone; the image is $(D2D_CACHE)/image-debug.
debug-kernel: deps
	@tools/debug-kernel.sh

modules-debug: debug-kernel
	@tools/debug-kernel.sh --modules

image-debug: modules-debug userspace
	@D2D_KERNEL=debug tools/mkimage.sh

check-debug: qemu image-debug
	@tools/check-debug.sh

# gcc -fanalyzer over the device models, cppcheck over userspace.
lint: qemu
	@tools/lint.sh

bench-eth: qemu image
	@tests/bench/eth.sh

bench-hdc: qemu image
	@tests/bench/hdc.sh

bench-hdc-net: qemu image
	@tests/bench/hdc-net.sh

bench-rdma: qemu image
	@tests/bench/rdma.sh

bench-spin: qemu image
	@tests/bench/spin.sh

bench-fld: qemu image
	@tests/bench/fld.sh

bench-flexins: qemu image
	@tests/bench/flexins.sh

# Every bench once, then docs/results.md with plots (tools/report.sh).
report: qemu image
	@tools/report.sh

checkpatch:
	@tools/checkpatch.sh

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(KCONFIG) clean
	$(MAKE) -C userspace clean
