/*
 * spin-udp: the UDP traffic tool of the sPIN guest tests and benchmark.
 *
 *   spin-udp send HOST PORT [options]   send datagrams (payload from a
 *                                       file, packed integers or a pattern)
 *   spin-udp ping HOST PORT [options]   send one datagram at a time and
 *                                       wait for its echo; prints RTT
 *   spin-udp echo PORT [options]        host UDP echo server (the baseline
 *                                       the NIC ping-pong handler is
 *                                       compared with)
 *   spin-udp recv PORT [options]        receive datagrams into a file
 *
 * It prints "key=value" results on one line so that shell tests can parse
 * them with sed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_DGRAM	65507

static void usage(FILE *f)
{
	fprintf(f,
"usage: spin-udp send HOST PORT [-n COUNT] [-s SIZE] [-f FILE [-O] | -i FILE | -l FILE]\n"
"                      [-b SRCIP] [-p SRCPORT] [-g USEC] [-r TIMEOUT_MS] [-o FILE]\n"
"       spin-udp ping HOST PORT [-n COUNT] [-s SIZE] [-p SRCPORT] [-r TIMEOUT_MS]\n"
"       spin-udp echo PORT [-n COUNT] [-t SEC]\n"
"       spin-udp recv PORT [-n COUNT] [-t SEC] [-o FILE]\n"
"       spin-udp kv PORT [-f FILE] [-t SEC]\n"
"       spin-udp u32 FILE\n"
"\n"
"send   Send COUNT datagrams of SIZE payload bytes (default 1 x 64) to\n"
"       HOST:PORT.  The payload is the next SIZE bytes of FILE (-f; the\n"
"       file is split into datagrams, COUNT defaults to as many as it\n"
"       takes; with -O each datagram starts with the 32-bit little-endian\n"
"       offset of its piece in the file), or 32-bit little-endian integers\n"
"       read as decimal text from FILE (-i, one or more per line), or one\n"
"       datagram per line of FILE (-l, without the newline), or else a\n"
"       counting byte pattern whose first 4 bytes are the datagram's\n"
"       sequence number.  -g waits USEC microseconds between datagrams.\n"
"       With -r, waits up to TIMEOUT_MS after each datagram for one reply\n"
"       and appends the replies to FILE (-o; with -l one reply per line).\n"
"       Prints: sent=N bytes=N replies=N matched=N (replies equal to\n"
"       their request).\n"
"ping   Like send with -r, timing each round trip.  Prints:\n"
"       sent=N replies=N matched=N rtt_us_avg=X rtt_us_min=X rtt_us_max=X.\n"
"echo   Answer every datagram on PORT with the same payload; stops after\n"
"       COUNT datagrams or SEC seconds.  Prints: echoed=N.\n"
"recv   Receive datagrams on PORT, appending payloads to FILE, each\n"
"       preceded by a line \"len=N sport=N\" when -o is given; stops after\n"
"       COUNT datagrams or SEC seconds of silence.  Prints: received=N\n"
"       bytes=N.\n"
"kv     A host key-value server for the kvstore example: \"SET k v\" ->\n"
"       \"STORED k\", \"GET k\" -> \"VALUE k v\" or \"NOTFOUND k\"; FILE preloads\n"
"       \"k v\" lines.  Prints at the end: kv gets=N sets=N.\n"
"u32    Print FILE as little-endian 32-bit unsigned words, one per line.\n"
"-b     bind the sending socket to source address SRCIP.\n"
"-p     bind the sending socket to source port SRCPORT.\n");
}

static void die(const char *what)
{
	fprintf(stderr, "spin-udp: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long num(const char *s, const char *what, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || v < lo || v > hi) {
		fprintf(stderr, "spin-udp: %s must be %ld..%ld, got '%s'\n",
			what, lo, hi, s);
		exit(2);
	}
	return v;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int udp_socket(int port, const char *ip)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	if (s < 0)
		die("socket");
	if (port || ip) {
		a.sin_port = htons(port);
		a.sin_addr.s_addr = htonl(INADDR_ANY);
		if (ip && inet_pton(AF_INET, ip, &a.sin_addr) != 1) {
			fprintf(stderr, "spin-udp: '%s' is not an IPv4 address\n", ip);
			exit(2);
		}
		if (bind(s, (struct sockaddr *)&a, sizeof(a)))
			die("bind");
	}
	return s;
}

/* Whole payload source in memory: a file, packed integers or nothing. */
static unsigned char *load_file(const char *path, size_t *len)
{
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0, r;
	FILE *f = fopen(path, "rb");

	if (!f)
		die(path);
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				die("realloc");
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r);
	fclose(f);
	*len = n;
	return buf;
}

static unsigned char *load_ints(const char *path, size_t *len)
{
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0;
	long long v;
	FILE *f = fopen(path, "r");

	if (!f)
		die(path);
	while (fscanf(f, "%lld", &v) == 1) {
		uint32_t u = (uint32_t)v;

		if (n + 4 > cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				die("realloc");
		}
		buf[n++] = u & 0xff;
		buf[n++] = (u >> 8) & 0xff;
		buf[n++] = (u >> 16) & 0xff;
		buf[n++] = u >> 24;
	}
	if (!feof(f)) {
		fprintf(stderr, "spin-udp: %s: not a list of integers\n", path);
		exit(2);
	}
	fclose(f);
	*len = n;
	return buf;
}

struct opts {
	long count;
	long size;
	long sport;
	long gap_us;
	long reply_ms;
	long secs;
	const char *file;
	const char *ints;
	const char *lines;
	const char *out;
	const char *src_ip;
	int offsets;
};

static int wait_readable(int s, long ms)
{
	struct pollfd p = { .fd = s, .events = POLLIN };
	int r = poll(&p, 1, ms);

	if (r < 0 && errno != EINTR)
		die("poll");
	return r > 0;
}

static int do_send(const char *host, long port, struct opts *o, int ping)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	unsigned char *src = NULL, *pkt, *rep;
	size_t srclen = 0, off = 0, hdr = o->offsets ? 4 : 0;
	long i, sent = 0, replies = 0, matched = 0;
	unsigned long long bytes = 0;
	double t, sum = 0, min = 1e18, max = 0;
	FILE *out = NULL;
	int s;

	if (inet_pton(AF_INET, host, &to.sin_addr) != 1) {
		fprintf(stderr, "spin-udp: '%s' is not an IPv4 address\n", host);
		return 2;
	}
	to.sin_port = htons(port);
	if (o->file || o->lines)
		src = load_file(o->file ? o->file : o->lines, &srclen);
	else if (o->ints)
		src = load_ints(o->ints, &srclen);
	if (hdr && o->size <= 4) {
		fprintf(stderr, "spin-udp: -O needs SIZE > 4\n");
		return 2;
	}
	if (o->lines && o->count < 0)
		o->count = 1L << 30;
	if (src && o->count < 0)
		o->count = srclen ? (long)((srclen + o->size - hdr - 1) /
					  (o->size - hdr)) : 0;
	if (o->count < 0)
		o->count = 1;
	if (o->out) {
		out = fopen(o->out, "ab");
		if (!out)
			die(o->out);
	}
	pkt = malloc(MAX_DGRAM);
	rep = malloc(MAX_DGRAM);
	if (!pkt || !rep)
		die("malloc");
	s = udp_socket(o->sport, o->src_ip);
	for (i = 0; i < o->count; i++) {
		size_t len = o->size;
		ssize_t r;

		if (o->lines) {
			unsigned char *nl;

			if (off >= srclen)
				break;
			nl = memchr(src + off, '\n', srclen - off);
			len = (nl ? (size_t)(nl - src) : srclen) - off;
			if (len > MAX_DGRAM)
				len = MAX_DGRAM;
			memcpy(pkt, src + off, len);
			off += len + 1;
			if (!len)
				continue;
		} else if (src) {
			if (off >= srclen)
				break;
			len -= hdr;
			if (len > srclen - off)
				len = srclen - off;
			if (hdr) {
				uint32_t w = off;

				memcpy(pkt, &w, 4);	/* x86: little endian */
			}
			memcpy(pkt + hdr, src + off, len);
			off += len;
			len += hdr;
		} else {
			size_t k;

			for (k = 0; k < len; k++)
				pkt[k] = (unsigned char)(k + i);
			for (k = 0; k < 4 && k < len; k++)
				pkt[k] = (unsigned char)(i >> (8 * k));
		}
		t = now_us();
		if (sendto(s, pkt, len, 0, (struct sockaddr *)&to,
			   sizeof(to)) != (ssize_t)len)
			die("sendto");
		sent++;
		bytes += len;
		if (o->reply_ms > 0 && wait_readable(s, o->reply_ms)) {
			r = recv(s, rep, MAX_DGRAM, 0);
			if (r >= 0) {
				double d = now_us() - t;

				replies++;
				matched += (size_t)r == len && !memcmp(rep, pkt, len);
				sum += d;
				min = d < min ? d : min;
				max = d > max ? d : max;
				if (out && fwrite(rep, 1, r, out) != (size_t)r)
					die(o->out);
				if (out && o->lines)
					fputc('\n', out);
			}
		}
		if (o->gap_us)
			usleep(o->gap_us);
	}
	if (out)
		fclose(out);
	if (ping)
		printf("sent=%ld replies=%ld matched=%ld rtt_us_avg=%.1f rtt_us_min=%.1f rtt_us_max=%.1f\n",
		       sent, replies, matched, replies ? sum / replies : 0,
		       replies ? min : 0, max);
	else
		printf("sent=%ld bytes=%llu replies=%ld matched=%ld\n", sent,
		       bytes, replies, matched);
	free(src);
	free(pkt);
	free(rep);
	close(s);
	return ping && replies != sent ? 1 : 0;
}

static int do_serve(long port, struct opts *o, int echo)
{
	unsigned char *buf = malloc(MAX_DGRAM);
	unsigned long long bytes = 0;
	long n = 0;
	FILE *out = NULL;
	int s = udp_socket(port, NULL);

	if (!buf)
		die("malloc");
	if (o->out) {
		out = fopen(o->out, "ab");
		if (!out)
			die(o->out);
	}
	/* The caller may wait for this line before it starts the traffic. */
	fprintf(stderr, "spin-udp: listening on %ld\n", port);
	while (o->count < 0 || n < o->count) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t r;

		if (!wait_readable(s, o->secs * 1000))
			break;
		r = recvfrom(s, buf, MAX_DGRAM, 0, (struct sockaddr *)&from, &fl);
		if (r < 0)
			die("recvfrom");
		n++;
		bytes += r;
		if (echo) {
			if (sendto(s, buf, r, 0, (struct sockaddr *)&from, fl) != r)
				die("sendto");
			continue;
		}
		if (out) {
			char ip[INET_ADDRSTRLEN];

			inet_ntop(AF_INET, &from.sin_addr, ip, sizeof(ip));
			fprintf(out, "len=%zd src=%s sport=%u\n", r, ip,
				ntohs(from.sin_port));
			if (fwrite(buf, 1, r, out) != (size_t)r)
				die(o->out);
			fputc('\n', out);
			fflush(out);
		}
	}
	if (out)
		fclose(out);
	if (echo)
		printf("echoed=%ld\n", n);
	else
		printf("received=%ld bytes=%llu\n", n, bytes);
	free(buf);
	close(s);
	return 0;
}

/* The host side of the kvstore example: a tiny text key-value server. */
#define KV_MAX 1024
static char *kv_key[KV_MAX], *kv_val[KV_MAX];
static int kv_n;

static char **kv_slot(const char *k, int create)
{
	int i;

	for (i = 0; i < kv_n; i++)
		if (!strcmp(kv_key[i], k))
			return &kv_val[i];
	if (!create || kv_n == KV_MAX)
		return NULL;
	kv_key[kv_n] = strdup(k);
	kv_val[kv_n] = NULL;
	return &kv_val[kv_n++];
}

static int do_kv(long port, struct opts *o)
{
	char buf[2048], rep[2200], k[256], v[256];
	long gets = 0, sets = 0;
	int s = udp_socket(port, NULL);

	if (o->file) {
		FILE *f = fopen(o->file, "r");

		if (!f)
			die(o->file);
		while (fscanf(f, "%255s %255s", k, v) == 2) {
			char **p = kv_slot(k, 1);

			if (p) {
				free(*p);
				*p = strdup(v);
			}
		}
		fclose(f);
	}
	fprintf(stderr, "spin-udp: kv server on %ld\n", port);
	while (wait_readable(s, o->secs * 1000)) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t r = recvfrom(s, buf, sizeof(buf) - 1, 0,
				     (struct sockaddr *)&from, &fl);
		char **p;
		int n;

		if (r < 0)
			die("recvfrom");
		buf[r] = 0;
		if (sscanf(buf, "SET %255s %255s", k, v) == 2) {
			sets++;
			p = kv_slot(k, 1);
			if (p) {
				free(*p);
				*p = strdup(v);
			}
			n = snprintf(rep, sizeof(rep), "STORED %s", k);
		} else if (sscanf(buf, "GET %255s", k) == 1) {
			gets++;
			p = kv_slot(k, 0);
			n = p && *p ? snprintf(rep, sizeof(rep), "VALUE %s %s", k, *p) :
				      snprintf(rep, sizeof(rep), "NOTFOUND %s", k);
		} else {
			n = snprintf(rep, sizeof(rep), "ERROR");
		}
		if (sendto(s, rep, n, 0, (struct sockaddr *)&from, fl) != n)
			die("sendto");
	}
	printf("kv gets=%ld sets=%ld\n", gets, sets);
	close(s);
	return 0;
}

static int do_u32(const char *path)
{
	size_t len, i;
	unsigned char *b = load_file(path, &len);

	for (i = 0; i + 4 <= len; i += 4)
		printf("%u\n", (unsigned)b[i] | (unsigned)b[i + 1] << 8 |
		       (unsigned)b[i + 2] << 16 | (unsigned)b[i + 3] << 24);
	free(b);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .count = -1, .size = 64, .secs = 10 };
	const char *cmd;
	int c;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	cmd = argv[1];
	optind = 2;
	while ((c = getopt(argc, argv, "n:s:f:i:l:b:Op:g:r:t:o:h")) != -1) {
		switch (c) {
		case 'n': o.count = num(optarg, "COUNT", 0, 1L << 30); break;
		case 's': o.size = num(optarg, "SIZE", 1, MAX_DGRAM); break;
		case 'f': o.file = optarg; break;
		case 'i': o.ints = optarg; break;
		case 'l': o.lines = optarg; break;
		case 'b': o.src_ip = optarg; break;
		case 'O': o.offsets = 1; break;
		case 'p': o.sport = num(optarg, "SRCPORT", 1, 65535); break;
		case 'g': o.gap_us = num(optarg, "USEC", 0, 10000000); break;
		case 'r': o.reply_ms = num(optarg, "TIMEOUT_MS", 1, 600000); break;
		case 't': o.secs = num(optarg, "SEC", 1, 3600); break;
		case 'o': o.out = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(cmd, "send") || !strcmp(cmd, "ping")) {
		int ping = !strcmp(cmd, "ping");

		if (argc - optind != 2) {
			usage(stderr);
			return 2;
		}
		if (ping && o.reply_ms <= 0)
			o.reply_ms = 1000;
		return do_send(argv[optind], num(argv[optind + 1], "PORT", 1, 65535),
			       &o, ping);
	}
	if (!strcmp(cmd, "echo") || !strcmp(cmd, "recv")) {
		if (argc - optind != 1) {
			usage(stderr);
			return 2;
		}
		return do_serve(num(argv[optind], "PORT", 1, 65535), &o,
				!strcmp(cmd, "echo"));
	}
	if (!strcmp(cmd, "kv") && argc - optind == 1)
		return do_kv(num(argv[optind], "PORT", 1, 65535), &o);
	if (!strcmp(cmd, "u32") && argc - optind == 1)
		return do_u32(argv[optind]);
	fprintf(stderr, "spin-udp: unknown command '%s' or wrong arguments (try --help)\n", cmd);
	return 2;
}
