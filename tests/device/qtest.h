/*
 * A small qtest client: starts qemu-system-x86_64 with the qtest
 * accelerator and drives it over the qtest text protocol (port I/O, MMIO,
 * guest memory), with PCI configuration helpers on top.
 */
#ifndef D2D_QTEST_H
#define D2D_QTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct qt;

/* Start QEMU: q35, 256 MiB, qtest accelerator, plus @args (e.g. "-device snic"). */
struct qt *qt_start(const char *args);
void qt_quit(struct qt *qt);
/* True if QEMU still answers. */
bool qt_alive(struct qt *qt);

uint32_t qt_readl(struct qt *qt, uint64_t addr);
void qt_writel(struct qt *qt, uint64_t addr, uint32_t val);
uint64_t qt_readq(struct qt *qt, uint64_t addr);
/* Guest memory of any length (moved in pieces the protocol can carry). */
void qt_memread(struct qt *qt, uint64_t addr, void *buf, size_t len);
void qt_memwrite(struct qt *qt, uint64_t addr, const void *buf, size_t len);
void qt_memset(struct qt *qt, uint64_t addr, uint8_t val, size_t len);
void qt_outl(struct qt *qt, uint16_t port, uint32_t val);
uint32_t qt_inl(struct qt *qt, uint16_t port);
/*
 * Guest-RAM allocator (a bump heap, as libqos' guest allocator is used by
 * QEMU's qtests): zeroed memory from [@base, @end), all of it given back
 * by the next qt_alloc_init.  Running out ends the program with a message.
 */
void qt_alloc_init(struct qt *qt, uint64_t base, uint64_t end);
uint64_t qt_alloc(struct qt *qt, size_t size, size_t align);
/* The first address qt_alloc has not handed out. */
uint64_t qt_alloc_top(struct qt *qt);
/* Advance the virtual clock by @ns (timers run only when told to). */
void qt_clock_step(struct qt *qt, uint64_t ns);
/* The virtual clock (ns). */
uint64_t qt_clock_now(struct qt *qt);
/* Advance the virtual clock to the next timer deadline; the new time. */
uint64_t qt_clock_step_next(struct qt *qt);

/* PCI on bus 0 through ports 0xcf8/0xcfc. */
int qt_pci_find(struct qt *qt, uint16_t vendor, uint16_t device, int nth);
uint32_t qt_pci_cfg_read(struct qt *qt, int devfn, int off, int size);
void qt_pci_cfg_write(struct qt *qt, int devfn, int off, int size,
		      uint32_t val);
/* Program BAR @bar at @addr (64-bit BARs take two slots); returns size. */
uint64_t qt_pci_map_bar(struct qt *qt, int devfn, int bar, uint64_t addr);
/* Enable memory decoding and bus mastering. */
void qt_pci_enable(struct qt *qt, int devfn);
/* Offset of capability @id in config space, or 0. */
int qt_pci_find_cap(struct qt *qt, int devfn, int id);
/*
 * Enable MSI-X with table in BAR @table_addr, vector @vec pointing at guest
 * RAM @msg_addr with data @data: a delivered interrupt is a write there.
 */
void qt_pci_msix_setup(struct qt *qt, int devfn, uint64_t table_addr, int vec,
		       uint64_t msg_addr, uint32_t data);

/*
 * QMP: every QEMU started by qt_start has a QMP monitor, connected (and
 * capabilities negotiated) on first use.  qt_qmp sends one JSON command
 * and returns its reply line (events skipped), NULL on failure.
 */
const char *qt_qmp(struct qt *qt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* qom-get of an integer / string property of the object at @path. */
bool qt_qom_get_u64(struct qt *qt, const char *path, const char *prop,
		    uint64_t *val);
bool qt_qom_get_str(struct qt *qt, const char *path, const char *prop,
		    char *buf, size_t len);
/* qom-set of an integer property. */
/*
 * A connected pair of UDP sockets on loopback: *qemu_fd goes to QEMU
 * (-netdev dgram with local.type=fd), *test_fd stays with the test to
 * inject and capture frames.  rcvbuf: SO_RCVBUF of *test_fd, 0 = default.
 */
bool qt_udp_pair(int *qemu_fd, int *test_fd, int rcvbuf);
/* At *test_fd: the next datagram within @ms (its length), or -1. */
int qt_udp_recv(int fd, void *buf, size_t len, int ms);
/* At *test_fd: drop every datagram queued. */
void qt_udp_drain(int fd);

bool qt_qom_set_u64(struct qt *qt, const char *path, const char *prop,
		    uint64_t val);
/* set_link: carrier of net client @name (a netdev or NIC id). */
bool qt_set_link(struct qt *qt, const char *name, bool up);

/* True if the file at @path (e.g. QEMU's -D trace log) holds @needle. */
bool qt_file_has(const char *path, const char *needle);

#endif
