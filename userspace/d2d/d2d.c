// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * d2d - device-to-device copies and digests through the HDC engine.
 *
 *   d2d copy SRC DST [FUNCTION]...   SSD -> engine -> SSD
 *   d2d digest FUNCTION FILE...      prints "<hex>  FILE" like sha256sum
 *   d2d send FILE HOST:PORT          SSD -> engine -> NIC (UDP, TCP)
 *   d2d recv HOST:PORT FILE          NIC -> engine -> SSD (UDP, TCP)
 *   d2d stat                         what the engine offers, statistics
 *   d2d raw [OPTIONS] [SRC]          one raw request (debugging, tests)
 *
 * Exit status: 0 ok, 1 an operation failed, 2 usage.  docs/hdc.md, "The
 * d2d CLI", describes it; libd2d.h the library under it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "libd2d.h"

#define D2D_VERSION	"0.1.0"
#define CHUNK		(8ull << 20)	/* bytes per request of a plain copy */
#define INFLIGHT	4		/* requests of a copy in flight */
#define PROGRESS_MIN	(16ull << 20)	/* shorter transfers show none */
#define POLL_MS		250

static int progress = -1;	/* -1: when stderr is a terminal */
static const char *prog = "d2d";
static char disk_hint[40];

static void usage(FILE *f)
{
	fprintf(f,
"usage: d2d [--progress|--no-progress] COMMAND [ARGS]\n"
"\n"
"  d2d copy SRC DST [--crc32c|--crc32|--md5|--sha1|--sha256|--aes256-ctr KEY:IV\n"
"                    |--deflate|--gzip]...\n"
"        copy SRC to DST (created or truncated) on the engine's SSD, through\n"
"        the functions given, in order; digests are printed like sha256sum\n"
"        prints them.  KEY is 64 hex digits, IV (the counter block) 32.\n"
"  d2d digest {--crc32c|--crc32|--md5|--sha1|--sha256} FILE...\n"
"        print '<hex>  FILE' for each FILE, as md5sum/sha256sum do\n"
"        (CRCs: 8 hex digits of the value); FILE '-' is standard input\n"
"  d2d send FILE HOST:PORT [--sw-p2p | FUNCTION...]\n"
"        the engine sends FILE (on its SSD) as UDP datagrams to HOST:PORT\n"
"        (HOST: an IPv4 address) through its own queues on the snic port\n"
"        the route leaves by; digests printed as for copy.  --sw-p2p: the\n"
"        software-controlled P2P baseline (the driver runs each 64 KiB)\n"
"  d2d send --tcp [--then MSG] FILE HOST:PORT\n"
"        the same over a TCP connection to HOST:PORT, handed over to the\n"
"        engine for the transfer; --then: write MSG on the connection\n"
"        after it, shut down writing, print what the peer sends back\n"
"        (either form: --length N sends only FILE's first N bytes)\n"
"  d2d recv HOST:PORT FILE [--bytes N] [--timeout S] [--from HOST:PORT]\n"
"           [FUNCTION...]\n"
"        the engine receives N bytes (default: FILE's size; FILE is then\n"
"        not truncated) sent to HOST:PORT (an address of a snic port) as\n"
"        UDP datagrams with d2d's application header and writes them into\n"
"        FILE on its SSD, through the functions given (--crc32c prints\n"
"        the CRC32C of the bytes received); --from takes only that\n"
"        sender's datagrams; --timeout gives up after S seconds (default:\n"
"        never).  A lost datagram ends it with EREMOTEIO and the missing\n"
"        bytes named; FILE keeps its old size.  Needs CAP_NET_RAW\n"
"  d2d recv --tcp [--then MSG] HOST:PORT FILE --bytes N [FUNCTION...]\n"
"        connects a TCP socket to HOST:PORT and has the engine receive\n"
"        the next N bytes of the connection (fewer if the peer closes\n"
"        first) into FILE, the socket handed over for the transfer;\n"
"        --then as for send --tcp\n"
"  d2d stat\n"
"        the engine's capabilities, its SSD and statistics\n"
"  d2d raw [--func ID]... [--offset N] [--length N] [--src-mode r|w|rw]\n"
"          [--src-user N] [--src-socket] [--dst FILE] [--dst-offset N]\n"
"          [--dst-udp HOST:PORT] [--dst-udp-unconnected] [--dst-tcp]\n"
"          [--sw-p2p] [--time]\n"
"          [--dst-mode r|w|rw] [--dst-user N] [--key KEY:IV] [--nowait N]\n"
"          [--size N] [SRC]\n"
"        one raw HDC_IOC_SUBMIT (for tests and debugging); prints\n"
"        'ok result_len=N' and the digests, or 'error errno=NAME ...';\n"
"        --time adds ns=T, the request's time in the ioctl (blocking)\n"
"\n"
"  --progress      show progress on standard error (default: if a terminal)\n"
"  --no-progress   never show progress\n"
"  -h, --help      this text\n"
"  --version       the version\n"
"\n"
"Files must be regular files on the file system of the SSD the engine\n"
"shares with the host (see 'd2d stat').  Exit status: 0 ok, 1 failure,\n"
"2 usage.  The device is $D2D_DEV or /dev/hdc.\n");
}

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'd2d --help')\n");
	return 2;
}

static const char *errno_name(int e)
{
	static const struct { int e; const char *n; } t[] = {
		{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { EINTR, "EINTR" },
		{ EIO, "EIO" }, { E2BIG, "E2BIG" }, { EBADF, "EBADF" },
		{ EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" }, { EFAULT, "EFAULT" },
		{ EBUSY, "EBUSY" }, { EXDEV, "EXDEV" }, { ENODEV, "ENODEV" },
		{ EISDIR, "EISDIR" }, { EINVAL, "EINVAL" }, { EFBIG, "EFBIG" },
		{ ENOSPC, "ENOSPC" }, { ERANGE, "ERANGE" }, { ENOTTY, "ENOTTY" },
		{ EOPNOTSUPP, "EOPNOTSUPP" }, { ETIMEDOUT, "ETIMEDOUT" },
		{ ETXTBSY, "ETXTBSY" }, { ECANCELED, "ECANCELED" },
		{ EACCES, "EACCES" }, { ENOTCONN, "ENOTCONN" },
		{ EPROTONOSUPPORT, "EPROTONOSUPPORT" },
		{ EHOSTUNREACH, "EHOSTUNREACH" }, { EMSGSIZE, "EMSGSIZE" },
		{ EREMOTEIO, "EREMOTEIO" }, { ENETDOWN, "ENETDOWN" },
		{ EDESTADDRREQ, "EDESTADDRREQ" },
		{ EADDRNOTAVAIL, "EADDRNOTAVAIL" }, { ECONNRESET, "ECONNRESET" },
		{ EPIPE, "EPIPE" }, { ECONNREFUSED, "ECONNREFUSED" },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].e == e)
			return t[i].n;
	return "E?";
}

static const char *hint(int e)
{
	static char buf[128];

	switch (e) {
	case ENOENT:
	case ENXIO:
		return "no engine: load the driver with 'modprobe hdc'";
	case EXDEV:
		snprintf(buf, sizeof(buf),
			 "the file is not on the engine's SSD%s; put it there first",
			 disk_hint);
		return buf;
	case EBADF:
		return "the source must be open for reading, the destination for writing";
	case EISDIR:
		return "directories cannot be copied or digested";
	case EINVAL:
		return "the engine's driver refused the request; 'dmesg | tail' says why";
	case EOPNOTSUPP:
		return "not supported: file system (ext4 only, no data=journal), file layout or function";
	case ENOMEM:
		return "the request's buffers are over your locked-memory limit (ulimit -l)";
	case ENOSPC:
		return "no space left on the SSD (or the output did not fit)";
	case ENODEV:
		return "the engine or its SSD is not running; see 'd2d stat' and dmesg";
	case EIO:
	case ERANGE:
		return "the engine failed; see dmesg and 'd2d stat'";
	case EACCES:
	case EPERM:
		return "permission denied";
	case ENOTCONN:
		return "the socket must be connected (UDP connect())";
	case EPROTONOSUPPORT:
		return "only UDP over IPv4 sockets can be the engine's destination";
	case EHOSTUNREACH:
		return "no route or no MAC address for the peer; check 'ip route' and 'ip neigh'";
	default:
		return "see dmesg";
	}
}

static int fail(int e, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s (%s): %s\n", strerror(e), errno_name(e), hint(e));
	return 1;
}

static int open_engine(void)
{
	struct hdc_caps caps;
	int fd = d2d_open();

	if (fd < 0) {
		fail(-fd, "cannot open %s", getenv("D2D_DEV") ? getenv("D2D_DEV") :
		     D2D_DEV_DEFAULT);
		return -1;
	}
	if (!d2d_caps(fd, &caps) && caps.nvme_disk[0])
		snprintf(disk_hint, sizeof(disk_hint), " (/dev/%.31s)",
			 caps.nvme_disk);
	return fd;
}

/* The monotonic clock in ns (the modeled clock in timing mode). */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static double now(void)
{
	return now_ns() / 1e9;
}

static void show_progress(const char *what, uint64_t done, uint64_t total,
			  double t0)
{
	double mib = done / 1048576.0, tmib = total / 1048576.0;
	double dt = now() - t0;

	if (!progress)
		return;
	if (total)
		fprintf(stderr, "\r%s: %s %.1f/%.1f MiB (%d%%) %.1f s ", prog,
			what, mib, tmib, (int)(done * 100 / total), dt);
	else
		fprintf(stderr, "\r%s: %s %.1f s ", prog, what, dt);
}

static void end_progress(void)
{
	if (progress)
		fprintf(stderr, "\n");
}

static int parse_hex(const char *s, size_t n, uint8_t *out)
{
	size_t i;

	if (strlen(s) != 2 * n)
		return -1;
	for (i = 0; i < n; i++) {
		unsigned int v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = v;
	}
	return 0;
}

static int parse_key(const char *arg, struct d2d_chain *c)
{
	char key[65];
	const char *colon = strchr(arg, ':');

	if (!colon || colon - arg != 64)
		return -1;
	memcpy(key, arg, 64);
	key[64] = 0;
	if (parse_hex(key, 32, c->aes_key) || parse_hex(colon + 1, 16, c->aes_iv))
		return -1;
	return 0;
}

/* Function options shared by copy and digest: 1 if arg was one, -1 bad. */
static int chain_option(int argc, char **argv, int *i, struct d2d_chain *c)
{
	const char *a = argv[*i];
	int f;

	if (strncmp(a, "--", 2))
		return 0;
	f = d2d_func_by_name(a + 2);
	if (f < 0)
		return 0;
	if (c->n == HDC_MAX_FUNCS) {
		usage_error("at most %d functions", HDC_MAX_FUNCS);
		return -1;
	}
	if (f == HDC_FN_AES256_CTR) {
		if (*i + 1 >= argc || parse_key(argv[*i + 1], c)) {
			usage_error("--aes256-ctr needs KEY:IV (64:32 hex digits)");
			return -1;
		}
		(*i)++;
	}
	c->funcs[c->n++] = f;
	return 1;
}

static int chain_has(const struct d2d_chain *c, int digest, int deflate)
{
	unsigned int i;

	for (i = 0; i < c->n; i++) {
		if (digest && d2d_func_is_digest(c->funcs[i]))
			return 1;
		if (deflate && d2d_func_compresses(c->funcs[i]))
			return 1;
	}
	return 0;
}

/* One request, waited for in POLL_MS steps to show that it is alive. */
static int run_one(int hdc, struct hdc_req *req, const char *what,
		   uint64_t total)
{
	struct hdc_wait w;
	double t0 = now();
	int ret, shown = 0;

	if (!progress || total < PROGRESS_MIN)
		return d2d_submit(hdc, req);
	req->flags |= HDC_REQ_NOWAIT;
	ret = d2d_submit(hdc, req);
	if (ret)
		return ret;
	for (;;) {
		ret = d2d_wait(hdc, req->id, POLL_MS, &w);
		if (ret != -ETIMEDOUT)
			break;
		show_progress(what, 0, 0, t0);
		shown = 1;
	}
	if (shown)
		end_progress();
	if (!ret) {
		req->result_len = w.result_len;
		memcpy(req->digest, w.digest, sizeof(req->digest));
	}
	return ret;
}

/*
 * The chain's digests as sha256sum prints them: named src if no transform
 * precedes the digest, else dst.
 */
static void print_digests(const struct d2d_chain *chain,
			  uint8_t digest[][32], const char *src,
			  const char *dst)
{
	unsigned int k, j;

	for (k = 0; k < chain->n; k++) {
		char hex[65];
		int transformed = 0;

		if (!d2d_func_is_digest(chain->funcs[k]))
			continue;
		for (j = 0; j < k; j++)
			if (!d2d_func_is_digest(chain->funcs[j]))
				transformed = 1;
		d2d_digest_hex(chain->funcs[k], digest[k], hex);
		printf("%s  %s\n", hex, transformed ? dst : src);
	}
}

/* HOST:PORT into its two parts (in buf); -1 if malformed. */
static int split_host_port(const char *arg, char *buf, size_t size,
			   const char **host, const char **port)
{
	char *colon;

	if (strlen(arg) >= size)
		return -1;
	strcpy(buf, arg);
	colon = strrchr(buf, ':');
	if (!colon || colon == buf || !colon[1])
		return -1;
	*colon = 0;
	*host = buf;
	*port = colon + 1;
	return 0;
}

/* An option of a command: a flag (val NULL) or one with a value. */
struct cmd_opt {
	const char *name;
	int *flag;		/* set to 1 if given */
	const char **val;	/* its value, if it takes one */
};

/*
 * The arguments of d2d @cmd: functions, the options of @opts (ended by
 * an entry without a name), and at most @max operands into @pos, their
 * number into @npos.  0, or usage_error()'s status.
 */
static int cmd_args(const char *cmd, int argc, char **argv,
		    struct d2d_chain *chain, const struct cmd_opt *opts,
		    const char **pos, int max, int *npos)
{
	const struct cmd_opt *o;
	int i, r, n = 0;

	for (i = 1; i < argc; i++) {
		r = chain_option(argc, argv, &i, chain);
		if (r < 0)
			return 2;
		if (r)
			continue;
		for (o = opts; o->name && strcmp(argv[i], o->name); o++)
			;
		if (o->name && o->val) {
			if (i + 1 >= argc)
				return usage_error("%s: %s needs a value", cmd,
						   argv[i]);
			*o->val = argv[++i];
		} else if (o->name) {
			*o->flag = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return usage_error("%s: unknown option '%s'", cmd,
					   argv[i]);
		} else if (n < max) {
			pos[n++] = argv[i];
		} else {
			return usage_error("%s: too many arguments", cmd);
		}
	}
	*npos = n;
	return 0;
}

static const struct cmd_opt no_opts[] = { { NULL } };

/*
 * The socket after the transfer, both ways: @msg out, our side shut
 * down, then what the peer sends until it closes to standard output.
 */
static int then_exchange(int sock, const char *msg)
{
	size_t len = strlen(msg), done = 0;
	char buf[4096];
	ssize_t n;

	while (done < len) {
		n = write(sock, msg + done, len - done);
		if (n < 0)
			return -1;
		done += n;
	}
	if (shutdown(sock, SHUT_WR))
		return -1;
	while ((n = read(sock, buf, sizeof(buf))) > 0) {
		if (fwrite(buf, 1, n, stdout) != (size_t)n)
			return -1;
	}
	fflush(stdout);
	return n < 0 ? -1 : 0;
}

/* d2d send FILE HOST:PORT [FUNCTION]...: the engine sends, UDP or TCP. */
static int cmd_send(int argc, char **argv)
{
	struct d2d_chain chain = { 0 };
	const char *pos[2] = { NULL, NULL }, *host, *port;
	const char *then = NULL, *len_arg = NULL;
	int hdc, fd, sock, ret, n, tcp = 0, sw = 0;
	const struct cmd_opt opts[] = {
		{ "--sw-p2p", &sw, NULL }, { "--tcp", &tcp, NULL },
		{ "--then", NULL, &then }, { "--length", NULL, &len_arg },
		{ NULL, NULL, NULL },
	};
	const char *file, *to;
	struct d2d_result res;
	char hp[300];
	struct stat st;
	uint64_t length = UINT64_MAX;
	uint32_t flags;

	ret = cmd_args("send", argc, argv, &chain, opts, pos, 2, &n);
	if (ret)
		return ret;
	file = pos[0];
	to = pos[1];
	if (!to)
		return usage_error("send: needs FILE and HOST:PORT");
	flags = sw ? HDC_REQ_SW_P2P : 0;
	if (len_arg)
		length = strtoull(len_arg, NULL, 0);
	if (split_host_port(to, hp, sizeof(hp), &host, &port))
		return usage_error("send: '%s' is not HOST:PORT", to);
	if ((flags & HDC_REQ_SW_P2P) && chain.n)
		return usage_error("send: --sw-p2p takes no functions");
	if (then && !tcp)
		return usage_error("send: --then needs --tcp");
	hdc = open_engine();
	if (hdc < 0)
		return 1;
	fd = strcmp(file, "-") ? open(file, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0)
		return fail(errno, "cannot open '%s'", file);
	if (fstat(fd, &st))
		return fail(errno, "'%s'", file);
	sock = tcp ? d2d_tcp_connect(host, port) : d2d_udp_connect(host, port);
	if (sock < 0)
		return fail(-sock, "cannot connect a %s socket to %s",
			    tcp ? "TCP" : "UDP", to);
	if (!S_ISREG(st.st_mode))
		length = 0;
	else if (length > (uint64_t)st.st_size)
		length = st.st_size;
	ret = d2d_send(hdc, fd, 0, length, sock, &chain, flags, &res);
	if (ret)
		return fail(-ret, "send '%s' -> %s", file, to);
	print_digests(&chain, res.digest, file, to);
	if (then && then_exchange(sock, then))
		return fail(errno, "the connection after the transfer");
	close(sock);
	if (fd)
		close(fd);
	close(hdc);
	return 0;
}

/* A count with an optional K/M/G suffix (powers of 2); -1 if malformed. */
static long long parse_size(const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || v < 0 || end == s)
		return -1;
	switch (*end) {
	case 'K': v <<= 10; end++; break;
	case 'M': v <<= 20; end++; break;
	case 'G': v <<= 30; end++; break;
	}
	return *end ? -1 : v;
}

/*
 * d2d recv HOST:PORT FILE [--bytes N] [--timeout S] [--from HOST:PORT]
 * d2d recv --tcp [--then MSG] HOST:PORT FILE --bytes N
 */
static int cmd_recv(int argc, char **argv)
{
	struct d2d_chain chain = { 0 };
	const char *pos[2] = { NULL, NULL }, *at, *file, *from = NULL;
	const char *bytes_arg = NULL, *tmo_arg = NULL, *then = NULL;
	const char *host, *port, *phost = NULL, *pport = NULL;
	int tcp = 0, n;
	const struct cmd_opt opts[] = {
		{ "--bytes", NULL, &bytes_arg }, { "--timeout", NULL, &tmo_arg },
		{ "--from", NULL, &from }, { "--tcp", &tcp, NULL },
		{ "--then", NULL, &then }, { NULL, NULL, NULL },
	};
	long long bytes = -1, tmo = 0;
	struct hdc_rx_report rep = { 0 };
	struct d2d_result res;
	char hp[300], pp[300];
	struct stat st;
	int hdc, fd, sock, ret;

	ret = cmd_args("recv", argc, argv, &chain, opts, pos, 2, &n);
	if (ret)
		return ret;
	at = pos[0];
	file = pos[1];
	if (!file)
		return usage_error("recv: needs HOST:PORT and FILE");
	if (bytes_arg && (bytes = parse_size(bytes_arg)) < 0)
		return usage_error("recv: bad --bytes '%s'", bytes_arg);
	if (tmo_arg && ((tmo = parse_size(tmo_arg)) < 0 || tmo > 4000000))
		return usage_error("recv: bad --timeout '%s'", tmo_arg);
	if (split_host_port(at, hp, sizeof(hp), &host, &port))
		return usage_error("recv: '%s' is not HOST:PORT", at);
	if (from && split_host_port(from, pp, sizeof(pp), &phost, &pport))
		return usage_error("recv: --from '%s' is not HOST:PORT", from);
	if (chain_has(&chain, 0, 1))
		return usage_error("recv: no deflate or gzip on receive");
	if (tcp && (!bytes_arg || from))
		return usage_error("recv: --tcp needs --bytes and takes no --from");
	if (then && !tcp)
		return usage_error("recv: --then needs --tcp");
	hdc = open_engine();
	if (hdc < 0)
		return 1;
	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC |
		  (bytes >= 0 ? O_TRUNC : 0), 0644);
	if (fd < 0)
		return fail(errno, "cannot open '%s'", file);
	if (fstat(fd, &st))
		return fail(errno, "'%s'", file);
	if (bytes < 0)
		bytes = st.st_size;
	sock = tcp ? d2d_tcp_connect(host, port) :
	       d2d_udp_bind(host, port, phost, pport);
	if (sock < 0)
		return fail(-sock, tcp ? "cannot connect a TCP socket to %s" :
			    "cannot bind a UDP socket to %s", at);
	ret = d2d_recv(hdc, sock, fd, 0, bytes, &chain, tmo * 1000, &res,
		       &rep);
	if (ret == -EREMOTEIO)
		fprintf(stderr, "%s: recv: bytes %llu..%llu never arrived; "
			"%llu received in order, none written\n", prog,
			(unsigned long long)rep.gap_lo,
			(unsigned long long)rep.gap_hi,
			(unsigned long long)rep.received);
	if (ret)
		return fail(-ret, "recv %s -> '%s' (%llu of %lld bytes received, %u %s dropped)",
			    at, file, (unsigned long long)rep.received, bytes,
			    rep.dropped, tcp ? "segments" : "datagrams");
	fprintf(stderr, "%s: received %llu bytes in %u %s, %u dropped\n",
		prog, (unsigned long long)res.len, rep.datagrams,
		tcp ? "segments" : "datagrams", rep.dropped);
	print_digests(&chain, res.digest, file, file);
	if (then && then_exchange(sock, then))
		return fail(errno, "the connection after the transfer");
	close(sock);
	close(fd);
	close(hdc);
	return 0;
}

static int cmd_copy(int argc, char **argv)
{
	struct d2d_chain chain = { 0 };
	const char *pos[2], *src, *dst;
	struct stat ss, ds;
	struct hdc_req req;
	uint64_t len, total = 0;
	int n, hdc, sfd, dfd, created, ret = 0;

	ret = cmd_args("copy", argc, argv, &chain, no_opts, pos, 2, &n);
	if (ret)
		return ret;
	if (n != 2)
		return usage_error("copy: needs SRC and DST");
	src = pos[0];
	dst = pos[1];

	hdc = open_engine();
	if (hdc < 0)
		return 1;
	sfd = open(src, O_RDONLY | O_CLOEXEC);
	if (sfd < 0)
		return fail(errno, "cannot open '%s'", src);
	if (fstat(sfd, &ss))
		return fail(errno, "'%s'", src);
	if (!stat(dst, &ds) && ds.st_dev == ss.st_dev && ds.st_ino == ss.st_ino) {
		fprintf(stderr, "%s: '%s' and '%s' are the same file\n", prog,
			src, dst);
		return 1;
	}
	created = 1;
	dfd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		   S_ISREG(ss.st_mode) ? ss.st_mode & 0777 : 0666);
	if (dfd < 0 && errno == EEXIST) {
		created = 0;
		dfd = open(dst, O_WRONLY | O_CLOEXEC);
	}
	if (dfd < 0)
		return fail(errno, "cannot create '%s'", dst);
	len = S_ISREG(ss.st_mode) ? (uint64_t)ss.st_size : 0;

	/*
	 * An empty request checks both descriptors in the driver (file
	 * types, modes, same SSD) before DST loses its old contents.
	 */
	d2d_req_init(&req);
	d2d_ep_fd(&req.src, sfd, 0);
	d2d_ep_fd(&req.dst, dfd, 0);
	ret = d2d_submit(hdc, &req);
	if (!ret && ftruncate(dfd, 0))
		ret = -errno;
	if (ret) {
		if (created)
			unlink(dst);
		return fail(-ret, "copy '%s' -> '%s'", src, dst);
	}

	if (chain_has(&chain, 1, 1) || len <= CHUNK) {
		/* Digests and deflate/gzip see the whole stream: one request. */
		d2d_req_init(&req);
		d2d_ep_fd(&req.src, sfd, 0);
		d2d_ep_fd(&req.dst, dfd, 0);
		req.length = len;
		d2d_req_chain(&req, &chain);
		ret = run_one(hdc, &req, "copy", len);
		if (ret)
			return fail(-ret, "copy '%s' -> '%s'", src, dst);
		total = req.result_len;
	} else {
		/* Chunks, INFLIGHT at a time; AES-CTR's counter moves along. */
		uint64_t ids[INFLIGHT], off = 0, done = 0;
		unsigned int head = 0, n = 0;
		struct hdc_wait w;
		double t0 = now();
		int show = progress && len >= PROGRESS_MIN;

		while (off < len || n) {
			if (off < len && n < INFLIGHT) {
				struct d2d_chain c = chain;

				d2d_iv_add(c.aes_iv, off / 16);
				d2d_req_init(&req);
				req.flags = HDC_REQ_NOWAIT;
				d2d_ep_fd(&req.src, sfd, off);
				d2d_ep_fd(&req.dst, dfd, off);
				req.length = len - off < CHUNK ? len - off : CHUNK;
				d2d_req_chain(&req, &c);
				ret = d2d_submit(hdc, &req);
				if (ret)
					break;
				ids[(head + n) % INFLIGHT] = req.id;
				n++;
				off += req.length;
				continue;
			}
			ret = d2d_wait(hdc, ids[head], 0, &w);
			if (ret)
				break;
			head = (head + 1) % INFLIGHT;
			n--;
			done += w.result_len;
			if (show)
				show_progress("copy", done, len, t0);
		}
		if (show)
			end_progress();
		if (ret)
			return fail(-ret, "copy '%s' -> '%s'", src, dst);
		total = done;
	}
	if (total != len && !chain_has(&chain, 0, 1))
		fprintf(stderr, "%s: warning: %" PRIu64 " of %" PRIu64 " bytes written\n",
			prog, total, len);
	print_digests(&chain, req.digest, src, dst);
	if (close(dfd))
		return fail(errno, "'%s'", dst);
	close(sfd);
	close(hdc);
	return ret ? 1 : 0;
}

static int cmd_digest(int argc, char **argv)
{
	struct d2d_chain chain = { 0 };
	const char *files[256];
	int nfiles, i, hdc, rc;
	uint32_t func;

	rc = cmd_args("digest", argc, argv, &chain, no_opts, files, 256,
		      &nfiles);
	if (rc)
		return rc;
	if (chain.n != 1 || !d2d_func_is_digest(chain.funcs[0]))
		return usage_error("digest: give one of --crc32c, --crc32, --md5, --sha1, --sha256");
	if (!nfiles)
		return usage_error("digest: no FILE");
	func = chain.funcs[0];

	hdc = open_engine();
	if (hdc < 0)
		return 1;
	for (i = 0; i < nfiles; i++) {
		int fd = strcmp(files[i], "-") ? open(files[i], O_RDONLY | O_CLOEXEC) : 0;
		struct hdc_req req;
		struct stat st;
		char hex[65];
		int ret;

		if (fd < 0) {
			rc = fail(errno, "cannot open '%s'", files[i]);
			continue;
		}
		if (fstat(fd, &st)) {
			rc = fail(errno, "'%s'", files[i]);
			goto next;
		}
		d2d_req_init(&req);
		d2d_ep_fd(&req.src, fd, 0);
		req.length = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
		req.nfuncs = 1;
		req.funcs[0] = func;
		ret = run_one(hdc, &req, "digest", req.length);
		if (ret) {
			rc = fail(-ret, "%s of '%s'", d2d_func_name(func), files[i]);
			goto next;
		}
		d2d_digest_hex(func, req.digest[0], hex);
		printf("%s  %s\n", hex, files[i]);
next:
		if (fd)
			close(fd);
	}
	close(hdc);
	return rc;
}

static void print_caps(uint32_t caps)
{
	static const char *const names[32] = {
		"nvme", "crc32c", "md5", "sha256", "aes256-ctr", "deflate",
		"sha1", "crc32", "gzip", [16] = "nic", [17] = "nic-rx",
		[18] = "tcp",
	};
	unsigned int i;

	for (i = 0; i < 32; i++)
		if (caps & (1u << i) && names[i])
			printf(" %s", names[i]);
}

static int cmd_stat(int argc, char **argv)
{
	struct hdc_caps c;
	struct hdc_stats s;
	int hdc, ret;

	(void)argv;
	if (argc > 1)
		return usage_error("stat: no arguments expected");
	hdc = open_engine();
	if (hdc < 0)
		return 1;
	ret = d2d_caps(hdc, &c);
	if (ret)
		return fail(-ret, "HDC_IOC_CAPS");
	ret = d2d_stats(hdc, &s);
	if (ret)
		return fail(-ret, "HDC_IOC_STATS");
	printf("engine:      version %u.%u, caps %#x (", c.version >> 16,
	       c.version & 0xffff, c.caps);
	print_caps(c.caps);
	printf(" )\n");
	printf("queue depth: %u\n", c.queue_depth);
	printf("buffer:      %" PRIu64 " MiB\n", (uint64_t)c.buf_size >> 20);
	if (c.caps & HDC_CAP_NVME)
		printf("ssd:         %s%s, %" PRIu64 " LBAs of %u bytes (%" PRIu64 " MiB)\n",
		       c.nvme_disk[0] ? "/dev/" : "", c.nvme_disk[0] ?
		       c.nvme_disk : "(host disk not found)", (uint64_t)c.nvme_lbas,
		       1u << c.lba_shift, (uint64_t)(c.nvme_lbas << c.lba_shift) >> 20);
	else
		printf("ssd:         not running\n");
	printf("requests:    %" PRIu64 " (%" PRIu64 " failed, %" PRIu64 " in flight)\n",
	       (uint64_t)s.requests, (uint64_t)s.errors, (uint64_t)s.inflight);
	printf("bytes:       %" PRIu64 " in, %" PRIu64 " out\n",
	       (uint64_t)s.bytes_in, (uint64_t)s.bytes_out);
	printf("commands:    %" PRIu64 " device, %" PRIu64 " NVMe\n",
	       (uint64_t)s.dev_cmds, (uint64_t)s.nvme_cmds);
	close(hdc);
	return 0;
}

static int open_mode(const char *path, const char *mode, int create)
{
	int flags;

	if (!strcmp(mode, "r"))
		flags = O_RDONLY;
	else if (!strcmp(mode, "w"))
		flags = O_WRONLY;
	else if (!strcmp(mode, "rw"))
		flags = O_RDWR;
	else
		return -2;
	if (create && flags != O_RDONLY)
		flags |= O_CREAT;
	return open(path, flags | O_CLOEXEC, 0644);
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end || !*s ? -1 : 0;
}

/* d2d raw: one HDC_IOC_SUBMIT exactly as asked, for tests. */
static int cmd_raw(int argc, char **argv)
{
	const char *src = NULL, *dst = NULL, *smode = "r", *dmode = "w";
	const char *udp = NULL;
	int dsock = 0;	/* 1: UDP, unconnected; 2: TCP */
	int swp2p = 0, timed = 0;
	uint64_t v, off = 0, doff = 0, len = 0, suser = 0, duser = 0, t0 = 0;
	uint64_t nowait = 0, size = sizeof(struct hdc_req);
	struct d2d_chain chain = { 0 };
	int i, hdc, sfd = -1, dfd = -1, sock = 0, have_len = 0, ret = 0;
	uint8_t *sbuf = NULL, *dbuf = NULL;
	struct hdc_req req;
	unsigned int k;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		int more = i + 1 < argc;

		if (!strcmp(a, "--func") && more && !parse_u64(argv[i + 1], &v)) {
			if (chain.n == HDC_MAX_FUNCS)
				return usage_error("raw: at most %d functions",
						   HDC_MAX_FUNCS);
			chain.funcs[chain.n++] = v;
			i++;
		} else if (!strcmp(a, "--key") && more) {
			if (parse_key(argv[++i], &chain))
				return usage_error("raw: --key KEY:IV");
		} else if (!strcmp(a, "--offset") && more && !parse_u64(argv[i + 1], &off)) {
			i++;
		} else if (!strcmp(a, "--length") && more && !parse_u64(argv[i + 1], &len)) {
			have_len = 1;
			i++;
		} else if (!strcmp(a, "--dst-offset") && more && !parse_u64(argv[i + 1], &doff)) {
			i++;
		} else if (!strcmp(a, "--src-user") && more && !parse_u64(argv[i + 1], &suser)) {
			i++;
		} else if (!strcmp(a, "--dst-user") && more && !parse_u64(argv[i + 1], &duser)) {
			i++;
		} else if (!strcmp(a, "--nowait") && more && !parse_u64(argv[i + 1], &nowait)) {
			i++;
		} else if (!strcmp(a, "--size") && more && !parse_u64(argv[i + 1], &size)) {
			i++;
		} else if (!strcmp(a, "--src-mode") && more) {
			smode = argv[++i];
		} else if (!strcmp(a, "--dst-mode") && more) {
			dmode = argv[++i];
		} else if (!strcmp(a, "--dst") && more) {
			dst = argv[++i];
		} else if (!strcmp(a, "--src-socket")) {
			sock = 1;
		} else if (!strcmp(a, "--dst-udp") && more) {
			udp = argv[++i];
		} else if (!strcmp(a, "--dst-udp-unconnected")) {
			dsock = 1;
		} else if (!strcmp(a, "--dst-tcp")) {
			dsock = 2;
		} else if (!strcmp(a, "--sw-p2p")) {
			swp2p = 1;
		} else if (!strcmp(a, "--time")) {
			timed = 1;
		} else if (a[0] == '-' && a[1]) {
			return usage_error("raw: bad option '%s'", a);
		} else if (!src) {
			src = a;
		} else {
			return usage_error("raw: too many arguments");
		}
	}
	if (!src && !suser && !sock)
		return usage_error("raw: no source");

	hdc = open_engine();
	if (hdc < 0)
		return 1;
	d2d_req_init(&req);
	req.size = size;
	if (swp2p)
		req.flags = HDC_REQ_SW_P2P;
	d2d_req_chain(&req, &chain);
	if (sock) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
			return fail(errno, "socketpair");
		sfd = sv[0];
	} else if (src && !strcmp(src, "-")) {
		sfd = 0;
	} else if (src && !suser) {
		sfd = open_mode(src, smode, 0);
		if (sfd == -2)
			return usage_error("raw: --src-mode r, w or rw");
		if (sfd < 0)
			return fail(errno, "cannot open '%s'", src);
	}
	if (suser) {
		sbuf = calloc(1, suser);
		if (!sbuf)
			return fail(ENOMEM, "source buffer");
		if (src) {
			int fd = open(src, O_RDONLY);
			ssize_t n = fd < 0 ? -1 : read(fd, sbuf, suser);

			if (n < 0)
				return fail(errno, "cannot read '%s'", src);
			if (!have_len)
				len = n;
			have_len = 1;
			close(fd);
		}
		d2d_ep_user(&req.src, sbuf, suser);
		if (!have_len)
			len = suser;
	} else {
		struct stat st;

		d2d_ep_fd(&req.src, sfd, off);
		if (!have_len)
			len = !fstat(sfd, &st) && S_ISREG(st.st_mode) &&
			      (uint64_t)st.st_size > off ? st.st_size - off : 0;
	}
	req.length = len;
	if (udp || dsock) {
		char hp[300];
		const char *host, *port;

		if (udp && split_host_port(udp, hp, sizeof(hp), &host, &port))
			return usage_error("raw: --dst-udp HOST:PORT");
		dfd = udp ? d2d_udp_connect(host, port) :
		      socket(AF_INET, dsock == 1 ? SOCK_DGRAM : SOCK_STREAM, 0);
		if (dfd < 0)
			return fail(udp ? -dfd : errno, "destination socket");
		d2d_ep_fd(&req.dst, dfd, 0);
	} else if (dst) {
		dfd = open_mode(dst, dmode, 1);
		if (dfd == -2)
			return usage_error("raw: --dst-mode r, w or rw");
		if (dfd < 0)
			return fail(errno, "cannot open '%s'", dst);
		d2d_ep_fd(&req.dst, dfd, doff);
	} else if (duser) {
		dbuf = calloc(1, duser);
		if (!dbuf)
			return fail(ENOMEM, "destination buffer");
		d2d_ep_user(&req.dst, dbuf, duser);
	}

	if (nowait) {
		uint64_t *ids = calloc(nowait, sizeof(*ids)), n, same = 1;
		uint8_t first[HDC_MAX_FUNCS][32];
		struct hdc_wait w;

		if (!ids)
			return fail(ENOMEM, "ids");
		req.flags |= HDC_REQ_NOWAIT;
		for (n = 0; n < nowait; n++) {
			ret = d2d_submit(hdc, &req);
			if (ret) {
				printf("error errno=%s submit %" PRIu64 ": %s\n",
				       errno_name(-ret), n, strerror(-ret));
				return 1;
			}
			ids[n] = req.id;
		}
		for (n = 0; n < nowait; n++) {
			ret = d2d_wait(hdc, ids[n], 60000, &w);
			if (ret) {
				printf("error errno=%s wait %" PRIu64 ": %s\n",
				       errno_name(-ret), n, strerror(-ret));
				return 1;
			}
			if (!n)
				memcpy(first, w.digest, sizeof(first));
			else if (memcmp(first, w.digest, sizeof(first)))
				same = 0;
			req.result_len = w.result_len;
		}
		memcpy(req.digest, first, sizeof(first));
		printf("ok requests=%" PRIu64 " same_digests=%s\n", nowait,
		       same ? "yes" : "no");
		free(ids);
	} else {
		t0 = now_ns();
		ret = d2d_submit(hdc, &req);
		t0 = now_ns() - t0;
		if (ret) {
			printf("error errno=%s: %s\n", errno_name(-ret),
			       strerror(-ret));
			fprintf(stderr, "%s: raw: %s: %s\n", prog, strerror(-ret),
				hint(-ret));
			return 1;
		}
	}
	printf("ok result_len=%" PRIu64, (uint64_t)req.result_len);
	if (timed && !nowait)
		printf(" ns=%" PRIu64, t0);
	printf("\n");
	for (k = 0; k < chain.n; k++) {
		char hex[65];

		if (!d2d_func_is_digest(chain.funcs[k]))
			continue;
		d2d_digest_hex(chain.funcs[k], req.digest[k], hex);
		printf("digest%u=%s\n", k, hex);
	}
	if (dbuf && !nowait) {
		uint64_t j;

		printf("data=");
		for (j = 0; j < req.result_len; j++)
			printf("%02x", dbuf[j]);
		printf("\n");
	}
	free(sbuf);
	free(dbuf);
	return 0;
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--version")) {
			printf("d2d %s (hdc ABI %u.%u)\n", D2D_VERSION,
			       (unsigned int)HDC_VERSION >> 16,
			       (unsigned int)HDC_VERSION & 0xffff);
			return 0;
		} else if (!strcmp(argv[i], "--progress")) {
			progress = 1;
		} else if (!strcmp(argv[i], "--no-progress")) {
			progress = 0;
		} else {
			return usage_error("unknown option '%s'", argv[i]);
		}
	}
	if (i == argc) {
		usage(stderr);
		return 2;
	}
	if (progress < 0)
		progress = isatty(2);
	argc -= i;
	argv += i;
	/* Options after the command too: --progress anywhere. */
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--progress") || !strcmp(argv[i], "--no-progress")) {
			progress = argv[i][2] == 'p';
			memmove(&argv[i], &argv[i + 1], (argc - i) * sizeof(*argv));
			argc--;
			i--;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		}
	}
	if (!strcmp(argv[0], "copy"))
		return cmd_copy(argc, argv);
	if (!strcmp(argv[0], "digest"))
		return cmd_digest(argc, argv);
	if (!strcmp(argv[0], "stat"))
		return cmd_stat(argc, argv);
	if (!strcmp(argv[0], "raw"))
		return cmd_raw(argc, argv);
	if (!strcmp(argv[0], "send"))
		return cmd_send(argc, argv);
	if (!strcmp(argv[0], "recv"))
		return cmd_recv(argc, argv);
	return usage_error("unknown command '%s'", argv[0]);
}
