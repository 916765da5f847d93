/*
 * spinctl: run sPIN handlers on a snic (see usage() and docs/snic-spin.md,
 * "Host interface").
 *
 * A context belongs to the open /dev/snic-spinN file that created it and
 * dies when that file is closed, so "spinctl run" stays in the foreground
 * for as long as the handler should run: it loads the ELF, creates and
 * attaches the context, prints "ready ...", reports events as they arrive
 * (it sleeps in poll() on the device, which the driver wakes from the
 * event interrupt) and, on SIGINT/SIGTERM or after --time, prints the final statistics,
 * writes the host regions out and exits (which detaches and destroys).
 * "spinctl stats CTX" reads any context's counters from another shell.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <d2d/snic_spin_ifc.h>	/* device geometry: memories, contexts */
#include <d2d/snic_spin_ioctl.h>
#include <d2d/snic_rdma_ifc.h>	/* custom RoCE opcodes */
#include "spin_elf.h"

#define MAX_OPCODES	(SNIC_CUSTOM_OP_LAST - SNIC_CUSTOM_OP_FIRST + 1)

#define DEFAULT_DEV	"/dev/" SNIC_SPIN_DEV_PREFIX "0"
#define MAX_PORTS	SNIC_SPIN_MAX_ATTACH
#define MAX_POKES	32
#define MAX_DUMPS	16

static const char *prog = "spinctl";

static void usage(FILE *f)
{
	fprintf(f,
"usage: spinctl [-d DEV] info\n"
"       spinctl elf FILE\n"
"       spinctl [-d DEV] run [OPTIONS] FILE\n"
"       spinctl [-d DEV] stats CTX|dev\n"
"\n"
"Load sPIN packet handlers (an ELF built with the SDK, userspace/spin/sdk)\n"
"into a snic and run them on the UDP traffic of chosen ports or on the\n"
"RDMA SEND/WRITE requests arriving on an RC QP.\n"
"\n"
"Commands:\n"
"  info        the engine: HPUs, clock, free program and handler memory\n"
"  elf FILE    check FILE as a handler image and list its segments and\n"
"              entry points (no device needed)\n"
"  run FILE    load FILE, create a context, register host regions, attach\n"
"              the context to the --port(s) / --qp, keep it running until\n"
"              SIGINT/SIGTERM or --time; events are printed as they arrive,\n"
"              statistics at the end.  The context lives as long as this\n"
"              process: it is destroyed when spinctl exits.\n"
"  stats CTX   counters of context CTX (any owner), or of the engine (dev)\n"
"\n"
"Options of run:\n"
"  -p, --port PORT          attach to UDP destination port PORT (repeatable,\n"
"                           up to %d); without any the context only loads\n"
"  -Q, --qp QPN             attach to RDMA RC QP number QPN of this snic (its\n"
"                           SEND/WRITE requests become multi-packet messages)\n"
"  -O, --opcode OP          custom RoCE opcode OP (0xc0..0xdf) on the --qp runs\n"
"                           the image's SPIN_CUSTOM_HANDLER (repeatable;\n"
"                           needs CAP_NET_ADMIN)\n"
"  -c, --copy BYTES         packet bytes copied to L1 before a handler runs\n"
"                           (default 1536: whole standard frames)\n"
"  -s, --scratch BYTES      per-message scratch (default 64)\n"
"  -m, --hmem BYTES         handler memory (default: what the image needs,\n"
"                           at least 4096)\n"
"  -w, --watchdog CYCLES    cycles per invocation (default: the device's)\n"
"  -T, --timeout USEC       message inactivity timeout\n"
"  -r, --region SIZE[:r|w|rw]  a host region handlers may DMA to / from\n"
"                           (repeatable; index = order given; default rw)\n"
"  -i, --init N:FILE        fill region N from FILE before attaching\n"
"  -o, --dump N:FILE        write region N to FILE at exit\n"
"  -P, --poke SYM[+OFF]=V[,V...]  store 32-bit words at symbol SYM of the\n"
"                           image's handler memory before attaching; V is a\n"
"                           number or a dotted IPv4 address (stored in\n"
"                           packet byte order)\n"
"  -R, --peek SYM[+OFF]:N   print N 32-bit words at SYM at exit\n"
"  -S, --send               handlers may send raw frames (SPIN_CMD_SEND;\n"
"                           needs CAP_NET_RAW)\n"
"  -t, --time SEC           detach after SEC seconds (default: at a signal)\n"
"  -q, --quiet              no per-event lines\n"
"\n"
"Output of run (stdout, one record per line, key=value fields):\n"
"  ready ctx=N dev=DEV ports=P,... [qp=N] [opcodes=OP,...]  attached\n"
"  event ctx=N type=T handler=H msg=M pc=X addr=X info=X insns=N cycles=N\n"
"  evpoll ctx=N wakeups=N event_ioctls=N notifies=N  at exit: poll() wakeups,\n"
"                           EVENTS ioctls, event interrupts the driver saw\n"
"  stats ..., handler ..., peek ...     at exit\n"
"\n"
"Exit status: 0 ok, 1 device or ioctl error, 2 usage or bad image.\n",
		MAX_PORTS);
}

static void die(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

static unsigned long num(const char *s, const char *what, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v > max)
		die(2, "%s: '%s' is not a number in 0..%lu", what, s, max);
	return v;
}

static int open_dev(const char *dev)
{
	int fd = open(dev, O_RDWR);

	if (fd < 0)
		die(1, "%s: %s%s", dev, strerror(errno),
		    errno == ENOENT ? " (is snic.ko loaded on a snic with sPIN?)" : "");
	return fd;
}

static void xioctl(int fd, unsigned long req, void *arg, const char *what)
{
	if (ioctl(fd, req, arg))
		die(1, "%s: %s", what, strerror(errno));
}

/* ---- info, stats ---- */

static int cmd_info(const char *dev)
{
	struct snic_spin_info i;
	int fd = open_dev(dev);

	xioctl(fd, SNIC_SPIN_IOC_INFO, &i, "INFO");
	printf("dev=%s clusters=%u hpus_per_cluster=%u hpus=%u clock_mhz=%u max_ctxs=%u\n",
	       dev, i.clusters, i.hpus_per_cluster,
	       i.clusters * i.hpus_per_cluster, i.clock_mhz, i.max_ctxs);
	printf("pmem_size=%u pmem_free=%u l2h_size=%u l2h_free=%u max_regions=%u max_region_size=%u\n",
	       i.pmem_size, i.pmem_free, i.l2h_size, i.l2h_free,
	       i.max_regions, i.max_region_size);
	printf("ev_irqs=%llu ev_eqes=%llu perm_denied=%u\n", (unsigned long long)i.ev_irqs,
	       (unsigned long long)i.ev_eqes, i.perm_denied);
	close(fd);
	return 0;
}

static const char *const ev_names[SNIC_SPIN_EV_MAX] = {
	[SNIC_SPIN_EV_WATCHDOG] = "watchdog",
	[SNIC_SPIN_EV_MEM_FAULT] = "mem_fault",
	[SNIC_SPIN_EV_FETCH_FAULT] = "fetch_fault",
	[SNIC_SPIN_EV_ILLEGAL] = "illegal",
	[SNIC_SPIN_EV_DMA_FAULT] = "dma_fault",
	[SNIC_SPIN_EV_CMD_FAULT] = "cmd_fault",
	[SNIC_SPIN_EV_BAD_RETURN] = "bad_return",
	[SNIC_SPIN_EV_MSG_TIMEOUT] = "msg_timeout",
};

static const char *const handler_names[SPIN_NUM_HANDLERS] = {
	"header", "payload", "completion",
};

static void print_ctx_stats(uint32_t ctx, const struct snic_spin_ctx_stats *s)
{
	int i;

	printf("stats ctx=%u packets=%llu bytes=%llu messages=%llu messages_done=%llu pass=%llu drop=%llu aborts=%llu events=%llu event_overflows=%llu no_resources=%llu\n",
	       ctx, (unsigned long long)s->packets,
	       (unsigned long long)s->bytes, (unsigned long long)s->messages,
	       (unsigned long long)s->messages_done,
	       (unsigned long long)s->pass, (unsigned long long)s->drop,
	       (unsigned long long)s->aborts, (unsigned long long)s->events,
	       (unsigned long long)s->event_overflows,
	       (unsigned long long)s->no_resources);
	printf("stats ctx=%u commands=%llu cmd_dma_bytes=%llu sends=%llu host_writes=%llu atomics=%llu busy_cycles=%llu first_cycle=%llu last_cycle=%llu occupancy_ppm=%llu throughput_mbps=%llu sat_mbps=%llu\n",
	       ctx, (unsigned long long)s->commands,
	       (unsigned long long)s->cmd_dma_bytes,
	       (unsigned long long)s->sends,
	       (unsigned long long)s->host_writes,
	       (unsigned long long)s->atomics,
	       (unsigned long long)s->busy_cycles,
	       (unsigned long long)s->first_cycle,
	       (unsigned long long)s->last_cycle,
	       (unsigned long long)s->occupancy_ppm,
	       (unsigned long long)s->throughput_mbps,
	       (unsigned long long)s->sat_mbps);
	for (i = 0; i < SPIN_NUM_HANDLERS; i++) {
		const struct snic_spin_handler_stats *h = &s->h[i];
		unsigned long long n = h->invocations;

		printf("handler ctx=%u kind=%s invocations=%llu insns=%llu insns_mean=%.1f insns_min=%llu insns_max=%llu cycles=%llu cycles_mean=%.1f cycles_min=%llu cycles_max=%llu\n",
		       ctx, handler_names[i], n,
		       (unsigned long long)h->insns,
		       n ? (double)h->insns / n : 0.0,
		       (unsigned long long)h->insns_min,
		       (unsigned long long)h->insns_max,
		       (unsigned long long)h->cycles,
		       n ? (double)h->cycles / n : 0.0,
		       (unsigned long long)h->cycles_min,
		       (unsigned long long)h->cycles_max);
	}
	printf("events ctx=%u", ctx);
	for (i = 1; i < SNIC_SPIN_EV_MAX; i++)
		if (ev_names[i])
			printf(" %s=%llu", ev_names[i],
			       (unsigned long long)s->by_event[i]);
	printf("\n");
}

static int query_stats(int fd, uint32_t ctx, void *buf, uint32_t len)
{
	struct snic_spin_stats st = {
		.ctx = ctx, .len = len, .buf = (uintptr_t)buf,
	};

	return ioctl(fd, SNIC_SPIN_IOC_STATS, &st);
}

static int cmd_stats(const char *dev, const char *which)
{
	int fd = open_dev(dev);

	if (!strcmp(which, "dev")) {
		struct snic_spin_dev_stats d;

		if (query_stats(fd, SNIC_SPIN_CTX_DEV, &d, sizeof(d)))
			die(1, "STATS dev: %s", strerror(errno));
		printf("devstats clusters=%u hpus_per_cluster=%u clock_mhz=%u num_ctxs=%u packets=%llu no_ctx=%llu no_resources=%llu aborts=%llu busy_cycles=%llu now_cycle=%llu l2p_used=%llu l2p_peak=%llu qp_wd_refused=%llu\n",
		       d.clusters, d.hpus_per_cluster, d.clock_mhz, d.num_ctxs,
		       (unsigned long long)d.packets,
		       (unsigned long long)d.no_ctx,
		       (unsigned long long)d.no_resources,
		       (unsigned long long)d.aborts,
		       (unsigned long long)d.busy_cycles,
		       (unsigned long long)d.now_cycle,
		       (unsigned long long)d.l2p_used,
		       (unsigned long long)d.l2p_peak,
		       (unsigned long long)d.qp_wd_refused);
	} else {
		struct snic_spin_ctx_stats s;
		uint32_t ctx = num(which, "CTX", SNIC_SPIN_MAX_CTXS - 1);

		if (query_stats(fd, ctx, &s, sizeof(s)))
			die(1, "STATS ctx %u: %s", ctx, strerror(errno));
		print_ctx_stats(ctx, &s);
	}
	close(fd);
	return 0;
}

/* ---- elf ---- */

static const char *const entry_syms[SPIN_NUM_HANDLERS] = {
	"spin_header_handler", "spin_payload_handler",
	"spin_completion_handler",
};

struct image {
	struct spin_elf e;
	uint32_t entry[SPIN_NUM_HANDLERS];
	uint32_t custom;	/* spin_custom_handler (--opcode), 0: none */
	uint32_t code_size;	/* bytes of the code window used */
	uint32_t hmem_size;	/* bytes of handler memory used */
};

static int in_window(uint32_t a, uint32_t n, uint32_t base, uint32_t size)
{
	return a >= base && n <= size && a - base <= size - n;
}

/* Parse and check a handler image against the address map. */
static void image_load(struct image *im, const char *path)
{
	char err[256];
	uint32_t abi;
	int i, any = 0;

	memset(im, 0, sizeof(*im));
	if (spin_elf_load(&im->e, path, err, sizeof(err)))
		die(2, "%s", err);
	if (spin_elf_sym(&im->e, "spin_sdk_abi", &abi))
		die(2, "%s: no spin_sdk_abi symbol: not built with the sPIN SDK (sdk/spin.mk)",
		    path);
	for (i = 0; i < im->e.nsegs; i++) {
		const struct spin_elf_seg *s = &im->e.segs[i];

		if (in_window(s->vaddr, s->memsz, SPIN_CODE_BASE,
			      SNIC_SPIN_PMEM_SIZE)) {
			if (s->flags & 2 /* PF_W */)
				die(2, "%s: writable segment at %#x in the code window",
				    path, s->vaddr);
			if (s->vaddr + s->memsz - SPIN_CODE_BASE > im->code_size)
				im->code_size = s->vaddr + s->memsz - SPIN_CODE_BASE;
		} else if (in_window(s->vaddr, s->memsz, SPIN_HMEM_BASE,
				     SNIC_SPIN_L2H_SIZE)) {
			if (s->vaddr + s->memsz - SPIN_HMEM_BASE > im->hmem_size)
				im->hmem_size = s->vaddr + s->memsz - SPIN_HMEM_BASE;
		} else {
			die(2, "%s: segment at %#x (%u bytes) is outside the code (%#x) and handler-memory (%#x) windows",
			    path, s->vaddr, s->memsz, SPIN_CODE_BASE,
			    SPIN_HMEM_BASE);
		}
	}
	for (i = 0; i < SPIN_NUM_HANDLERS; i++) {
		if (spin_elf_sym(&im->e, entry_syms[i], &im->entry[i]))
			continue;
		if (!in_window(im->entry[i], 4, SPIN_CODE_BASE, im->code_size))
			die(2, "%s: %s at %#x is outside the code", path,
			    entry_syms[i], im->entry[i]);
		any = 1;
	}
	if (!spin_elf_sym(&im->e, "spin_custom_handler", &im->custom)) {
		if (!in_window(im->custom, 4, SPIN_CODE_BASE, im->code_size))
			die(2, "%s: spin_custom_handler at %#x is outside the code",
			    path, im->custom);
		any = 1;
	}
	if (!any)
		die(2, "%s: no handler: define one with SPIN_HEADER_HANDLER(), SPIN_PAYLOAD_HANDLER(), SPIN_COMPLETION_HANDLER() or SPIN_CUSTOM_HANDLER()",
		    path);
}

static int cmd_elf(const char *path)
{
	struct image im;
	int i;

	image_load(&im, path);
	printf("elf=%s code_bytes=%u hmem_bytes=%u\n", path, im.code_size,
	       im.hmem_size);
	for (i = 0; i < im.e.nsegs; i++)
		printf("segment vaddr=%#x filesz=%u memsz=%u flags=%c%c%c\n",
		       im.e.segs[i].vaddr, im.e.segs[i].filesz,
		       im.e.segs[i].memsz, im.e.segs[i].flags & 4 ? 'r' : '-',
		       im.e.segs[i].flags & 2 ? 'w' : '-',
		       im.e.segs[i].flags & 1 ? 'x' : '-');
	for (i = 0; i < SPIN_NUM_HANDLERS; i++)
		if (im.entry[i])
			printf("entry %s=%#x\n", handler_names[i], im.entry[i]);
	if (im.custom)
		printf("entry custom=%#x\n", im.custom);
	spin_elf_release(&im.e);
	return 0;
}

/* ---- run ---- */

struct region_opt {
	uint64_t size;
	uint32_t flags;
	const char *init;
	const char *dump;
	void *map;
	uint64_t mapped;
	struct snic_spin_region_add r;
};

struct poke {
	const char *sym;
	uint32_t off;
	uint32_t nvals;
	uint32_t *vals;
	int peek;		/* print at exit instead */
};

struct run_opts {
	uint32_t ports[MAX_PORTS];
	int nports;
	int has_qp;		/* --qp: an RDMA RC QP */
	uint32_t qpn;
	uint32_t opcodes[MAX_OPCODES];
	int nopcodes;		/* --opcode: custom RoCE opcodes of the QP */
	uint32_t copy, scratch, hmem, watchdog, timeout;
	struct region_opt regions[SNIC_SPIN_MAX_REGIONS];
	int nregions;
	struct poke pokes[MAX_POKES];
	int npokes;
	unsigned long secs;
	int quiet;
	int send;		/* --send: SNIC_SPIN_CTX_SEND */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* "SYM[+OFF]" -> symbol and byte offset */
static void parse_sym(struct poke *p, char *s)
{
	char *plus = strchr(s, '+');

	if (plus) {
		*plus = 0;
		p->off = num(plus + 1, "symbol offset", SNIC_SPIN_L2H_SIZE);
	}
	p->sym = s;
}

static uint32_t parse_word(const char *s)
{
	struct in_addr a;

	/* Dotted IPv4: the word a handler loads from a packet (LE host). */
	if (strchr(s, '.') && inet_pton(AF_INET, s, &a) == 1)
		return a.s_addr;
	return num(s, "poke value", 0xffffffffu);
}

static void parse_poke(struct run_opts *o, char *arg, int peek)
{
	struct poke *p;
	char *eq, *v, *save = NULL;

	if (o->npokes == MAX_POKES)
		die(2, "at most %d --poke/--peek", MAX_POKES);
	p = &o->pokes[o->npokes++];
	p->peek = peek;
	eq = strchr(arg, peek ? ':' : '=');
	if (!eq || eq == arg)
		die(2, peek ? "--peek wants SYM[+OFF]:N, got '%s'" :
			      "--poke wants SYM[+OFF]=V[,V...], got '%s'", arg);
	*eq = 0;
	parse_sym(p, arg);
	if (peek) {
		p->nvals = num(eq + 1, "--peek count", 4096);
		return;
	}
	p->vals = calloc(strlen(eq + 1) / 2 + 2, sizeof(uint32_t));
	if (!p->vals)
		die(1, "out of memory");
	for (v = strtok_r(eq + 1, ",", &save); v; v = strtok_r(NULL, ",", &save))
		p->vals[p->nvals++] = parse_word(v);
	if (!p->nvals)
		die(2, "--poke %s: no value", arg);
}

static void parse_region(struct run_opts *o, char *arg)
{
	struct region_opt *r;
	char *colon = strchr(arg, ':');

	if (o->nregions == SNIC_SPIN_MAX_REGIONS)
		die(2, "at most %d regions", SNIC_SPIN_MAX_REGIONS);
	r = &o->regions[o->nregions++];
	r->flags = SNIC_SPIN_REGION_READ | SNIC_SPIN_REGION_WRITE;
	if (colon) {
		*colon = 0;
		if (!strcmp(colon + 1, "r"))
			r->flags = SNIC_SPIN_REGION_READ;
		else if (!strcmp(colon + 1, "w"))
			r->flags = SNIC_SPIN_REGION_WRITE;
		else if (strcmp(colon + 1, "rw"))
			die(2, "--region %s: access must be r, w or rw", arg);
	}
	r->size = num(arg, "region size", 1ul << 30);
	if (!r->size)
		die(2, "--region: size must be > 0");
}

static void parse_region_file(struct run_opts *o, char *arg, int dump)
{
	char *colon = strchr(arg, ':');
	unsigned long n;

	if (!colon)
		die(2, "--%s wants N:FILE, got '%s'", dump ? "dump" : "init", arg);
	*colon = 0;
	n = num(arg, "region index", SNIC_SPIN_MAX_REGIONS - 1);
	if ((int)n >= o->nregions)
		die(2, "--%s %lu: no such --region (give --region first)",
		    dump ? "dump" : "init", n);
	if (dump)
		o->regions[n].dump = colon + 1;
	else
		o->regions[n].init = colon + 1;
}

static uint32_t sym_hmem_off(struct image *im, const struct poke *p,
			     uint32_t bytes, uint32_t hmem)
{
	uint32_t a;

	if (spin_elf_sym(&im->e, p->sym, &a))
		die(2, "no symbol '%s' in the image", p->sym);
	a += p->off;
	if (!in_window(a, bytes, SPIN_HMEM_BASE, hmem))
		die(2, "%s+%u (%u bytes) is not in handler memory", p->sym,
		    p->off, bytes);
	return a - SPIN_HMEM_BASE;
}

static void mem_write(int fd, uint32_t id, uint32_t off, const void *data,
		      uint32_t len, const char *what)
{
	struct snic_spin_mem_rw rw = {
		.id = id, .offset = off, .data = (uintptr_t)data, .len = len,
	};

	if (ioctl(fd, SNIC_SPIN_IOC_MEM_WRITE, &rw))
		die(1, "writing %s: %s", what, strerror(errno));
}

static void load_file_into(const char *path, void *dst, uint64_t size)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		die(1, "%s: %s", path, strerror(errno));
	n = fread(dst, 1, size, f);
	if (ferror(f))
		die(1, "%s: read error", path);
	if (fgetc(f) != EOF)
		die(2, "%s: larger than its region (%llu bytes)", path,
		    (unsigned long long)size);
	fclose(f);
	(void)n;
}

static void write_file_from(const char *path, const void *src, uint64_t size)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(src, 1, size, f) != size || fclose(f))
		die(1, "%s: %s", path, strerror(errno));
}

static void print_event(const struct snic_spin_event *e)
{
	const char *t = e->type < SNIC_SPIN_EV_MAX && ev_names[e->type] ?
			ev_names[e->type] : "unknown";

	printf("event ctx=%u type=%s handler=%s msg=%u pc=%#x addr=%#x info=%#x insns=%u cycles=%u\n",
	       e->ctx, t,
	       e->handler < SPIN_NUM_HANDLERS ? handler_names[e->handler] : "?",
	       e->msg_id, e->pc, e->addr, e->info, e->insns, e->cycles);
}

/* How events reached spinctl run: poll() wakeups and EVENTS ioctls. */
static unsigned long ev_wakeups, ev_ioctls;
static uint32_t ev_notifies;

static uint64_t drain_events(int fd, uint32_t ctx, int quiet)
{
	struct snic_spin_event ev[32];
	struct snic_spin_events req;
	uint64_t total = 0;
	uint32_t i;

	do {
		memset(&req, 0, sizeof(req));
		req.ctx = ctx;
		req.max = 32;
		req.buf = (uintptr_t)ev;
		xioctl(fd, SNIC_SPIN_IOC_EVENTS, &req, "EVENTS");
		ev_ioctls++;
		ev_notifies = req.notifies;
		for (i = 0; i < req.count && !quiet; i++)
			print_event(&ev[i]);
		total = req.total;
	} while (req.count == 32);
	fflush(stdout);
	return total;
}

static int cmd_run(const char *dev, struct run_opts *o, const char *path)
{
	struct snic_spin_mem_alloc code = { .mem = SNIC_SPIN_MEM_PROG };
	struct snic_spin_mem_alloc hmem = { .mem = SNIC_SPIN_MEM_L2H };
	struct snic_spin_ctx_create cc = {};
	struct snic_spin_ctx_stats st;
	struct spin_region_entry { uint32_t lo, hi, size, rsvd; } rt[SNIC_SPIN_MAX_REGIONS];
	struct image im;
	struct timespec t0, now;
	uint32_t rt_addr;
	int fd, i, j;

	image_load(&im, path);
	fd = open_dev(dev);

	/* Memory: the image's windows, zeroed by the driver. */
	code.size = im.code_size;
	hmem.size = im.hmem_size > o->hmem ? im.hmem_size : o->hmem;
	if (hmem.size < 4096)
		hmem.size = 4096;
	xioctl(fd, SNIC_SPIN_IOC_MEM_ALLOC, &code, "allocating program memory");
	xioctl(fd, SNIC_SPIN_IOC_MEM_ALLOC, &hmem, "allocating handler memory");
	for (i = 0; i < im.e.nsegs; i++) {
		const struct spin_elf_seg *s = &im.e.segs[i];

		if (!s->filesz)
			continue;
		if (s->vaddr < SPIN_HMEM_BASE)
			mem_write(fd, code.id, s->vaddr - SPIN_CODE_BASE, s->data,
				  s->filesz, "code");
		else
			mem_write(fd, hmem.id, s->vaddr - SPIN_HMEM_BASE, s->data,
				  s->filesz, "data");
	}

	cc.code_id = code.id;
	cc.hmem_id = hmem.id;
	for (i = 0; i < SPIN_NUM_HANDLERS; i++)
		cc.entry[i] = im.entry[i];
	cc.copy_bytes = o->copy;
	cc.scratch_size = o->scratch;
	cc.watchdog = o->watchdog;
	cc.timeout_us = o->timeout;
	cc.flags = o->send ? SNIC_SPIN_CTX_SEND : 0;
	xioctl(fd, SNIC_SPIN_IOC_CTX_CREATE, &cc, "creating the context");

	/* Host regions, mapped here, their bus addresses to spin_regions. */
	memset(rt, 0, sizeof(rt));
	for (i = 0; i < o->nregions; i++) {
		struct region_opt *r = &o->regions[i];

		r->r.ctx = cc.ctx;
		r->r.flags = r->flags;
		r->r.size = r->size;
		xioctl(fd, SNIC_SPIN_IOC_REGION_ADD, &r->r, "adding a host region");
		r->mapped = r->r.size;
		r->map = mmap(NULL, r->mapped, PROT_READ | PROT_WRITE, MAP_SHARED,
			      fd, r->r.mmap_offset);
		if (r->map == MAP_FAILED)
			die(1, "mapping region %d: %s", i, strerror(errno));
		if (r->init)
			load_file_into(r->init, r->map, r->size);
		j = r->r.index;
		rt[j].lo = (uint32_t)r->r.bus_addr;
		rt[j].hi = (uint32_t)(r->r.bus_addr >> 32);
		/* What the user asked for: handlers check against it. */
		rt[j].size = r->size;
	}
	if (!spin_elf_sym(&im.e, "spin_regions", &rt_addr)) {
		if (!in_window(rt_addr, sizeof(rt), SPIN_HMEM_BASE, hmem.size))
			die(2, "spin_regions is not in handler memory");
		mem_write(fd, hmem.id, rt_addr - SPIN_HMEM_BASE, rt, sizeof(rt),
			  "the region table");
	} else if (o->nregions) {
		fprintf(stderr, "%s: note: the image does not use spin_regions\n",
			prog);
	}
	for (i = 0; i < o->npokes; i++) {
		struct poke *p = &o->pokes[i];

		if (p->peek)
			continue;
		mem_write(fd, hmem.id,
			  sym_hmem_off(&im, p, 4 * p->nvals, hmem.size),
			  p->vals, 4 * p->nvals, p->sym);
	}

	for (i = 0; i < o->nports; i++) {
		struct snic_spin_attach a = {
			.ctx = cc.ctx, .type = SNIC_SPIN_ATTACH_UDP,
			.port = o->ports[i],
		};

		if (ioctl(fd, SNIC_SPIN_IOC_ATTACH, &a))
			die(1, "attaching to UDP port %u: %s%s", o->ports[i],
			    strerror(errno),
			    errno == EBUSY ? " (another context has it)" : "");
	}

	/* the handlers are in place before the QP's first request */
	if (o->nopcodes && !im.custom)
		die(2, "%s: --opcode: the image has no SPIN_CUSTOM_HANDLER()",
		    path);
	for (i = 0; i < o->nopcodes; i++) {
		struct snic_spin_reg_opcode r = {
			.ctx = cc.ctx, .opcode = o->opcodes[i],
			.entry = im.custom,
		};

		if (ioctl(fd, SNIC_SPIN_IOC_REG_OPCODE, &r))
			die(1, "registering opcode %#x: %s%s", o->opcodes[i],
			    strerror(errno),
			    errno == EPERM ? " (needs CAP_NET_ADMIN)" : "");
	}

	if (o->has_qp) {
		struct snic_spin_attach a = {
			.ctx = cc.ctx, .type = SNIC_SPIN_ATTACH_QP,
			.port = o->qpn,
		};

		if (ioctl(fd, SNIC_SPIN_IOC_ATTACH, &a))
			die(1, "attaching to QP %u: %s%s", o->qpn,
			    strerror(errno),
			    errno == EBUSY ? " (another context has it)" :
			    errno == ENOENT ? " (no such QP)" :
			    errno == EINVAL ? " (not an RC QP, or --watchdog above "
			    "the QP cap)" : "");
	}

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("ready ctx=%u dev=%s ports=", cc.ctx, dev);
	for (i = 0; i < o->nports; i++)
		printf("%s%u", i ? "," : "", o->ports[i]);
	if (o->has_qp)
		printf(" qp=%u", o->qpn);
	for (i = 0; i < o->nopcodes; i++)
		printf("%s%#x", i ? "," : " opcodes=", o->opcodes[i]);
	printf(" code_bytes=%u hmem_bytes=%u\n", code.size, hmem.size);
	fflush(stdout);

	/*
	 * Sleep in poll() until the driver's event interrupt says the ring
	 * has something (POLLIN), a signal comes or --time runs out.
	 */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int timeout = -1, r;

		if (o->secs) {
			long ms;

			clock_gettime(CLOCK_MONOTONIC, &now);
			ms = (long)o->secs * 1000 -
			     ((now.tv_sec - t0.tv_sec) * 1000 +
			      (now.tv_nsec - t0.tv_nsec) / 1000000);
			if (ms <= 0)
				break;
			timeout = (int)ms;
		}
		r = poll(&pfd, 1, timeout);
		if (r < 0 && errno != EINTR)
			die(1, "poll: %s", strerror(errno));
		if (r > 0) {
			/* POLLERR: the device is gone, EVENTS says ENODEV */
			ev_wakeups++;
			drain_events(fd, cc.ctx, o->quiet);
			if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL))
				die(1, "poll: %s", strerror(ENODEV));
		}
	}
	drain_events(fd, cc.ctx, o->quiet);
	printf("evpoll ctx=%u wakeups=%lu event_ioctls=%lu notifies=%u\n",
	       cc.ctx, ev_wakeups, ev_ioctls, ev_notifies);

	if (query_stats(fd, cc.ctx, &st, sizeof(st)))
		die(1, "STATS: %s", strerror(errno));
	print_ctx_stats(cc.ctx, &st);
	for (i = 0; i < o->npokes; i++) {
		struct poke *p = &o->pokes[i];
		struct snic_spin_mem_rw rw = { .id = hmem.id };
		uint32_t *w;

		if (!p->peek)
			continue;
		w = calloc(p->nvals, 4);
		if (!w)
			die(1, "out of memory");
		rw.offset = sym_hmem_off(&im, p, 4 * p->nvals, hmem.size);
		rw.data = (uintptr_t)w;
		rw.len = 4 * p->nvals;
		xioctl(fd, SNIC_SPIN_IOC_MEM_READ, &rw, "reading handler memory");
		printf("peek %s+%u =", p->sym, p->off);
		for (j = 0; j < (int)p->nvals; j++)
			printf(" %u", w[j]);
		printf("\n");
		free(w);
	}
	for (i = 0; i < o->nregions; i++)
		if (o->regions[i].dump)
			write_file_from(o->regions[i].dump, o->regions[i].map,
					o->regions[i].size);
	fflush(stdout);
	/* Closing the file detaches and destroys the context. */
	for (i = 0; i < o->nregions; i++)
		munmap(o->regions[i].map, o->regions[i].mapped);
	close(fd);
	spin_elf_release(&im.e);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "port", required_argument, NULL, 'p' },
		{ "qp", required_argument, NULL, 'Q' },
		{ "opcode", required_argument, NULL, 'O' },
		{ "copy", required_argument, NULL, 'c' },
		{ "scratch", required_argument, NULL, 's' },
		{ "hmem", required_argument, NULL, 'm' },
		{ "watchdog", required_argument, NULL, 'w' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "region", required_argument, NULL, 'r' },
		{ "init", required_argument, NULL, 'i' },
		{ "dump", required_argument, NULL, 'o' },
		{ "poke", required_argument, NULL, 'P' },
		{ "peek", required_argument, NULL, 'R' },
		{ "time", required_argument, NULL, 't' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "send", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct run_opts o = { .copy = 1536, .scratch = 64 };
	const char *dev = DEFAULT_DEV, *cmd;
	int c, n;

	/* GNU getopt permutes: options may come before or after the words. */
	while ((c = getopt_long(argc, argv, "d:p:Q:O:c:s:m:w:T:r:i:o:P:R:St:qh",
				lopts, NULL)) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'p':
			if (o.nports == MAX_PORTS)
				die(2, "at most %d ports", MAX_PORTS);
			o.ports[o.nports++] = num(optarg, "port", 65535);
			if (!o.ports[o.nports - 1])
				die(2, "port 0 is not a UDP port");
			break;
		case 'Q':
			o.qpn = num(optarg, "--qp", 0xfffffe);
			o.has_qp = 1;
			break;
		case 'O':
			if (o.nopcodes == MAX_OPCODES)
				die(2, "at most %d opcodes", MAX_OPCODES);
			o.opcodes[o.nopcodes] = num(optarg, "--opcode",
						    SNIC_CUSTOM_OP_LAST);
			if (o.opcodes[o.nopcodes++] < SNIC_CUSTOM_OP_FIRST)
				die(2, "--opcode: custom opcodes are %#x..%#x",
				    SNIC_CUSTOM_OP_FIRST, SNIC_CUSTOM_OP_LAST);
			break;
		case 'c': o.copy = num(optarg, "--copy", SPIN_PKT_MAX); break;
		case 's': o.scratch = num(optarg, "--scratch", SPIN_SCRATCH_MAX); break;
		case 'm': o.hmem = num(optarg, "--hmem", SNIC_SPIN_L2H_SIZE); break;
		case 'w': o.watchdog = num(optarg, "--watchdog", SNIC_SPIN_WATCHDOG_MAX); break;
		case 'T': o.timeout = num(optarg, "--timeout", 0xffffffffu); break;
		case 'r': parse_region(&o, optarg); break;
		case 'i': parse_region_file(&o, optarg, 0); break;
		case 'o': parse_region_file(&o, optarg, 1); break;
		case 'P': parse_poke(&o, optarg, 0); break;
		case 'R': parse_poke(&o, optarg, 1); break;
		case 't': o.secs = num(optarg, "--time", 86400); break;
		case 'S': o.send = 1; break;
		case 'q': o.quiet = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	n = argc - optind;
	if (n < 1) {
		usage(stderr);
		return 2;
	}
	cmd = argv[optind];
	if (!strcmp(cmd, "info") && n == 1)
		return cmd_info(dev);
	if (!strcmp(cmd, "elf") && n == 2)
		return cmd_elf(argv[optind + 1]);
	if (o.nopcodes && !o.has_qp)
		die(2, "--opcode needs --qp: custom opcodes arrive on an RC QP");
	if (!strcmp(cmd, "run") && n == 2)
		return cmd_run(dev, &o, argv[optind + 1]);
	if (!strcmp(cmd, "stats") && n == 2)
		return cmd_stats(dev, argv[optind + 1]);
	if (!strcmp(cmd, "info") || !strcmp(cmd, "elf") ||
	    !strcmp(cmd, "run") || !strcmp(cmd, "stats"))
		die(2, "%s: wrong number of arguments (try --help)", cmd);
	die(2, "unknown command '%s' (try --help)", cmd);
	return 0;
}
