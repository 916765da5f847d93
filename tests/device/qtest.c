/*
 * A small qtest client (see qtest.h).  The protocol is QEMU's: one command
 * per line, answered by "OK [value]" or "FAIL"/"ERR"; asynchronous
 * "IRQ ..." lines are skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "qtest.h"

#define QT_REPLY_TIMEOUT_MS 20000

struct qt {
	pid_t pid;
	int fd;
	bool dead;
	char buf[65536 * 2 + 64];
	size_t len;
	char path[108];
	/* QMP monitor, connected on first use */
	char qmp_path[108];
	int qmp_fd;
	char qmp_buf[65536];
	size_t qmp_len;
	/* guest-RAM allocator (qt_alloc) */
	uint64_t heap, heap_end;
};

/*
 * The next '\n'-terminated line from socket @fd into @out (at least @cap
 * bytes), keeping what was read beyond it in @buf/@len.  NULL on timeout,
 * end of file or a line longer than @buf.
 */
static char *next_line(int fd, char *buf, size_t cap, size_t *len, char *out)
{
	for (;;) {
		char *nl = memchr(buf, '\n', *len);
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (nl) {
			size_t l = nl - buf;

			memcpy(out, buf, l);
			out[l] = 0;
			memmove(buf, nl + 1, *len - l - 1);
			*len -= l + 1;
			return out;
		}
		if (*len >= cap - 1 || poll(&p, 1, QT_REPLY_TIMEOUT_MS) != 1)
			return NULL;
		r = read(fd, buf + *len, cap - *len - 1);
		if (r <= 0)
			return NULL;
		*len += r;
	}
}

/*
 * The QEMU under test: $D2D_QEMU, else the one tools/qemu-build.sh recorded
 * in $D2D_CACHE/qemu/current.  No QEMU is a clear error at once, not a
 * connection time-out per test.
 */
static const char *qt_qemu(void)
{
	static char path[4096];
	const char *env = getenv("D2D_QEMU");
	const char *cache = getenv("D2D_CACHE");
	char cur[4096];
	FILE *f;

	if (env) {
		snprintf(path, sizeof(path), "%s", env);
	} else if (!cache) {
		fprintf(stderr, "qtest: neither D2D_QEMU nor D2D_CACHE is set; "
			"run the tests through tests/run-tier or make check\n");
		exit(2);
	} else {
		snprintf(cur, sizeof(cur), "%s/qemu/current", cache);
		f = fopen(cur, "r");
		if (!f || !fgets(path, sizeof(path) - 32, f)) {
			if (f)
				fclose(f);
			fprintf(stderr, "qtest: no QEMU built in %s (run make qemu)\n",
				cache);
			exit(2);
		}
		fclose(f);
		path[strcspn(path, "\n")] = 0;
		strcat(path, "/qemu-system-x86_64");
	}
	if (access(path, X_OK)) {
		fprintf(stderr, "qtest: %s: %s (run make qemu)\n", path,
			strerror(errno));
		exit(2);
	}
	return path;
}

struct qt *qt_start(const char *args)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct qt *qt = calloc(1, sizeof(*qt));
	char cmd[8192];
	const char *logdir = getenv("D2D_QT_LOGDIR");
	int lfd, fd;
	struct pollfd p;
	static int seq;

	/*
	 * A QEMU that exits (a test of bad properties, a crash) closes the
	 * socket: writing to it must fail with EPIPE and read as "no reply",
	 * not kill the test program with SIGPIPE.
	 */
	signal(SIGPIPE, SIG_IGN);
	snprintf(qt->path, sizeof(qt->path), "/tmp/d2d-qt-%d-%d.sock",
		 getpid(), seq);
	snprintf(qt->qmp_path, sizeof(qt->qmp_path), "/tmp/d2d-qt-%d-%d.qmp",
		 getpid(), seq++);
	qt->qmp_fd = -1;
	unlink(qt->path);
	unlink(qt->qmp_path);
	strcpy(sa.sun_path, qt->path);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (void *)&sa, sizeof(sa)) || listen(lfd, 1)) {
		perror("qtest socket");
		exit(1);
	}
	snprintf(cmd, sizeof(cmd),
		 "exec %s -machine q35 -accel qtest -qtest unix:%s "
		 "-qtest-log /dev/null -display none -nodefaults -m 256M "
		 "-qmp unix:%s,server=on,wait=off "
		 "-L /usr/share/seabios -L /usr/share/qemu %s >>%s/qemu-%d.log 2>&1",
		 qt_qemu(), qt->path, qt->qmp_path, args,
		 logdir ? logdir : "/tmp", getpid());
	qt->pid = fork();
	if (qt->pid == 0) {
		close(lfd);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	p.fd = lfd;
	p.events = POLLIN;
	if (poll(&p, 1, 30000) != 1) {
		fprintf(stderr, "qtest: QEMU did not connect: %s\n", cmd);
		qt->dead = true;
		qt->fd = -1;
		close(lfd);
		return qt;
	}
	fd = accept(lfd, NULL, NULL);
	close(lfd);
	unlink(qt->path);
	qt->fd = fd;
	return qt;
}

void qt_quit(struct qt *qt)
{
	int status;

	if (!qt)
		return;
	if (qt->fd >= 0)
		close(qt->fd);
	if (qt->qmp_fd >= 0)
		close(qt->qmp_fd);
	unlink(qt->qmp_path);
	kill(qt->pid, SIGTERM);
	waitpid(qt->pid, &status, 0);
	free(qt);
}

static uint64_t qt_val(const char *r);

/* Send one command, return the reply's value part ("" for plain OK). */
static const char *qt_cmd(struct qt *qt, const char *fmt, ...)
{
	static char reply[sizeof(((struct qt *)0)->buf)];
	char line[sizeof(reply)];
	va_list ap;
	int n;

	if (qt->dead)
		return NULL;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (write(qt->fd, line, n) != n) {
		qt->dead = true;
		return NULL;
	}
	for (;;) {
		if (!next_line(qt->fd, qt->buf, sizeof(qt->buf), &qt->len, reply)) {
			fprintf(stderr, "qtest: no reply to '%.*s'\n", n - 1, line);
			qt->dead = true;
			return NULL;
		}
		if (!strncmp(reply, "IRQ", 3))
			continue;
		if (!strncmp(reply, "OK", 2))
			return reply[2] == ' ' ? reply + 3 : "";
		fprintf(stderr, "qtest: '%.*s' -> '%s'\n", n - 1, line, reply);
		return NULL;
	}
}

bool qt_alive(struct qt *qt)
{
	return qt_cmd(qt, "readl 0x0\n") != NULL;
}

static uint64_t qt_val(const char *r)
{
	return r ? strtoull(r, NULL, 0) : ~0ull;
}

uint32_t qt_readl(struct qt *qt, uint64_t addr)
{
	return qt_val(qt_cmd(qt, "readl 0x%llx\n", (unsigned long long)addr));
}

uint64_t qt_readq(struct qt *qt, uint64_t addr)
{
	return qt_val(qt_cmd(qt, "readq 0x%llx\n", (unsigned long long)addr));
}

void qt_writel(struct qt *qt, uint64_t addr, uint32_t val)
{
	qt_cmd(qt, "writel 0x%llx 0x%x\n", (unsigned long long)addr, val);
}

void qt_outl(struct qt *qt, uint16_t port, uint32_t val)
{
	qt_cmd(qt, "outl 0x%x 0x%x\n", port, val);
}

uint32_t qt_inl(struct qt *qt, uint16_t port)
{
	return qt_val(qt_cmd(qt, "inl 0x%x\n", port));
}

void qt_clock_step(struct qt *qt, uint64_t ns)
{
	qt_cmd(qt, "clock_step %llu\n", (unsigned long long)ns);
}

uint64_t qt_clock_now(struct qt *qt)
{
	return qt_val(qt_cmd(qt, "clock_step 0\n"));
}

uint64_t qt_clock_step_next(struct qt *qt)
{
	return qt_val(qt_cmd(qt, "clock_step\n"));
}

/* qtest lines are limited: one read or write command moves at most this. */
#define QT_MEM_CHUNK	16384

static void qt_memread1(struct qt *qt, uint64_t addr, uint8_t *b, size_t len)
{
	const char *r = qt_cmd(qt, "read 0x%llx 0x%zx\n",
			       (unsigned long long)addr, len);
	size_t i;

	memset(b, 0xff, len);
	if (!r || strncmp(r, "0x", 2))
		return;
	r += 2;
	for (i = 0; i < len && r[2 * i] && r[2 * i + 1]; i++) {
		char hex[3] = { r[2 * i], r[2 * i + 1], 0 };

		b[i] = strtoul(hex, NULL, 16);
	}
}

void qt_memread(struct qt *qt, uint64_t addr, void *buf, size_t len)
{
	size_t off, n;

	for (off = 0; off < len; off += n) {
		n = len - off > QT_MEM_CHUNK ? QT_MEM_CHUNK : len - off;
		qt_memread1(qt, addr + off, (uint8_t *)buf + off, n);
	}
}

static void qt_memwrite1(struct qt *qt, uint64_t addr, const uint8_t *b,
			 size_t len)
{
	char hex[2 * QT_MEM_CHUNK + 1];
	size_t i;

	for (i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", b[i]);
	hex[2 * len] = 0;
	qt_cmd(qt, "write 0x%llx 0x%zx 0x%s\n", (unsigned long long)addr, len,
	       hex);
}

void qt_memwrite(struct qt *qt, uint64_t addr, const void *buf, size_t len)
{
	size_t off, n;

	for (off = 0; off < len; off += n) {
		n = len - off > QT_MEM_CHUNK ? QT_MEM_CHUNK : len - off;
		qt_memwrite1(qt, addr + off, (const uint8_t *)buf + off, n);
	}
}

void qt_memset(struct qt *qt, uint64_t addr, uint8_t val, size_t len)
{
	qt_cmd(qt, "memset 0x%llx 0x%zx 0x%02x\n", (unsigned long long)addr,
	       len, val);
}

void qt_alloc_init(struct qt *qt, uint64_t base, uint64_t end)
{
	qt->heap = base;
	qt->heap_end = end;
}

uint64_t qt_alloc(struct qt *qt, size_t size, size_t align)
{
	uint64_t a = (qt->heap + align - 1) & ~(uint64_t)(align - 1);

	if (a + size > qt->heap_end) {
		fprintf(stderr, "test heap exhausted\n");
		exit(1);
	}
	qt->heap = a + size;
	qt_memset(qt, a, 0, size);
	return a;
}

uint64_t qt_alloc_top(struct qt *qt)
{
	return qt->heap;
}

static uint32_t cfg_addr(int devfn, int off)
{
	return 0x80000000u | (devfn << 8) | (off & 0xfc);
}

uint32_t qt_pci_cfg_read(struct qt *qt, int devfn, int off, int size)
{
	uint32_t v;

	qt_outl(qt, 0xcf8, cfg_addr(devfn, off));
	v = qt_inl(qt, 0xcfc) >> ((off & 3) * 8);
	return size == 4 ? v : v & ((1u << (size * 8)) - 1);
}

void qt_pci_cfg_write(struct qt *qt, int devfn, int off, int size,
		      uint32_t val)
{
	uint32_t v, mask, shift = (off & 3) * 8;

	if (size == 4) {
		qt_outl(qt, 0xcf8, cfg_addr(devfn, off));
		qt_outl(qt, 0xcfc, val);
		return;
	}
	mask = ((1u << (size * 8)) - 1) << shift;
	qt_outl(qt, 0xcf8, cfg_addr(devfn, off));
	v = qt_inl(qt, 0xcfc);
	v = (v & ~mask) | ((val << shift) & mask);
	qt_outl(qt, 0xcf8, cfg_addr(devfn, off));
	qt_outl(qt, 0xcfc, v);
}

int qt_pci_find(struct qt *qt, uint16_t vendor, uint16_t device, int nth)
{
	uint32_t want = ((uint32_t)device << 16) | vendor;
	int devfn;

	for (devfn = 0; devfn < 256; devfn += 8)
		if (qt_pci_cfg_read(qt, devfn, 0, 4) == want && nth-- == 0)
			return devfn;
	return -1;
}

uint64_t qt_pci_map_bar(struct qt *qt, int devfn, int bar, uint64_t addr)
{
	int off = 0x10 + 4 * bar;
	uint32_t orig = qt_pci_cfg_read(qt, devfn, off, 4);
	bool is64 = (orig & 0x6) == 0x4;
	uint64_t size;

	qt_pci_cfg_write(qt, devfn, off, 4, 0xffffffff);
	size = qt_pci_cfg_read(qt, devfn, off, 4) & ~0xfull;
	if (is64) {
		qt_pci_cfg_write(qt, devfn, off + 4, 4, 0xffffffff);
		size |= (uint64_t)qt_pci_cfg_read(qt, devfn, off + 4, 4) << 32;
	} else {
		size |= 0xffffffff00000000ull;
	}
	size = ~size + 1;
	qt_pci_cfg_write(qt, devfn, off, 4, (uint32_t)addr);
	if (is64)
		qt_pci_cfg_write(qt, devfn, off + 4, 4, addr >> 32);
	return size;
}

void qt_pci_enable(struct qt *qt, int devfn)
{
	/* PCI_COMMAND: memory space + bus master */
	qt_pci_cfg_write(qt, devfn, 0x04, 2, 0x0006);
}

int qt_pci_find_cap(struct qt *qt, int devfn, int id)
{
	int off = qt_pci_cfg_read(qt, devfn, 0x34, 1);
	int guard = 48;

	while (off && guard--) {
		if ((int)qt_pci_cfg_read(qt, devfn, off, 1) == id)
			return off;
		off = qt_pci_cfg_read(qt, devfn, off + 1, 1);
	}
	return 0;
}

void qt_pci_msix_setup(struct qt *qt, int devfn, uint64_t table_addr, int vec,
		       uint64_t msg_addr, uint32_t data)
{
	int cap = qt_pci_find_cap(qt, devfn, 0x11);
	uint64_t e = table_addr + 16 * vec;

	qt_writel(qt, e + 0, (uint32_t)msg_addr);
	qt_writel(qt, e + 4, msg_addr >> 32);
	qt_writel(qt, e + 8, data);
	qt_writel(qt, e + 12, 0);	/* unmasked */
	/* Message Control: MSI-X enable */
	qt_pci_cfg_write(qt, devfn, cap + 2, 2, 0x8000);
}

/* ---- QMP ---- */

/* Read one line from the QMP socket that is not an asynchronous event. */
static const char *qmp_line(struct qt *qt)
{
	static char reply[sizeof(((struct qt *)0)->qmp_buf)];

	/* Skip asynchronous events; return replies. */
	while (next_line(qt->qmp_fd, qt->qmp_buf, sizeof(qt->qmp_buf),
			 &qt->qmp_len, reply)) {
		if (!strstr(reply, "\"event\"") || strstr(reply, "\"return\""))
			return reply;
	}
	return NULL;
}

static bool qmp_connect(struct qt *qt)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static const char caps[] = "{\"execute\": \"qmp_capabilities\"}\n";
	const char *r;
	int i;

	if (qt->qmp_fd >= 0)
		return true;
	if (qt->dead)
		return false;
	strcpy(sa.sun_path, qt->qmp_path);
	qt->qmp_fd = socket(AF_UNIX, SOCK_STREAM, 0);
	for (i = 0; i < 100; i++) {
		if (!connect(qt->qmp_fd, (void *)&sa, sizeof(sa)))
			break;
		usleep(10000);
	}
	if (i == 100)
		goto fail;
	r = qmp_line(qt);		/* greeting */
	if (!r || !strstr(r, "QMP"))
		goto fail;
	if (write(qt->qmp_fd, caps, sizeof(caps) - 1) != sizeof(caps) - 1)
		goto fail;
	r = qmp_line(qt);
	if (!r || !strstr(r, "\"return\""))
		goto fail;
	return true;
fail:
	fprintf(stderr, "qtest: QMP connect to %s failed\n", qt->qmp_path);
	close(qt->qmp_fd);
	qt->qmp_fd = -1;
	return false;
}

const char *qt_qmp(struct qt *qt, const char *fmt, ...)
{
	char line[4096];
	va_list ap;
	int n;

	if (!qmp_connect(qt))
		return NULL;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	line[n++] = '\n';
	if (write(qt->qmp_fd, line, n) != n)
		return NULL;
	return qmp_line(qt);
}

bool qt_qom_get_u64(struct qt *qt, const char *path, const char *prop,
		    uint64_t *val)
{
	const char *r = qt_qmp(qt, "{\"execute\": \"qom-get\", \"arguments\": "
			       "{\"path\": \"%s\", \"property\": \"%s\"}}",
			       path, prop);
	const char *v;
	char *end;

	if (!r || !(v = strstr(r, "\"return\":")))
		return false;
	v += strlen("\"return\":");
	while (*v == ' ')
		v++;
	*val = strtoull(v, &end, 10);
	return end != v;
}

bool qt_qom_get_str(struct qt *qt, const char *path, const char *prop,
		    char *buf, size_t len)
{
	const char *r = qt_qmp(qt, "{\"execute\": \"qom-get\", \"arguments\": "
			       "{\"path\": \"%s\", \"property\": \"%s\"}}",
			       path, prop);
	const char *v;
	size_t n = 0;

	if (!r || !(v = strstr(r, "\"return\":")))
		return false;
	v += strlen("\"return\":");
	while (*v == ' ')
		v++;
	if (*v++ != '"')
		return false;
	/* Undo the JSON escapes that matter for a text dump. */
	while (*v && *v != '"' && n + 1 < len) {
		if (*v == '\\' && v[1]) {
			v++;
			buf[n++] = *v == 'n' ? '\n' : *v == 't' ? '\t' : *v;
			v++;
			continue;
		}
		buf[n++] = *v++;
	}
	buf[n] = 0;
	return true;
}

bool qt_qom_set_u64(struct qt *qt, const char *path, const char *prop,
		    uint64_t val)
{
	const char *r = qt_qmp(qt, "{\"execute\": \"qom-set\", \"arguments\": "
			       "{\"path\": \"%s\", \"property\": \"%s\", "
			       "\"value\": %llu}}", path, prop,
			       (unsigned long long)val);

	return r && strstr(r, "\"return\"");
}

bool qt_set_link(struct qt *qt, const char *name, bool up)
{
	const char *r = qt_qmp(qt, "{\"execute\": \"set_link\", \"arguments\": "
			       "{\"name\": \"%s\", \"up\": %s}}",
			       name, up ? "true" : "false");

	return r && strstr(r, "\"return\"");
}

bool qt_udp_pair(int *qemu_fd, int *test_fd, int rcvbuf)
{
	struct sockaddr_in a = { .sin_family = AF_INET }, b;
	socklen_t l = sizeof(b);
	int q, t;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	q = socket(AF_INET, SOCK_DGRAM, 0);
	t = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (q < 0 || t < 0 || bind(q, (void *)&a, sizeof(a)) ||
	    bind(t, (void *)&a, sizeof(a)))
		return false;
	if (getsockname(t, (void *)&b, &l) || connect(q, (void *)&b, l))
		return false;
	l = sizeof(b);
	if (getsockname(q, (void *)&b, &l) || connect(t, (void *)&b, l))
		return false;
	if (rcvbuf)
		setsockopt(t, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	*test_fd = t;
	*qemu_fd = q;
	return true;
}

int qt_udp_recv(int fd, void *buf, size_t len, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, ms) != 1)
		return -1;
	return recv(fd, buf, len, MSG_DONTWAIT);
}

void qt_udp_drain(int fd)
{
	static uint8_t buf[65536];

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

bool qt_file_has(const char *path, const char *needle)
{
	static char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return false;
	buf[n] = 0;
	return strstr(buf, needle) != NULL;
}
