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
"usage: spin-udp send HOST PORT [-n COUNT] [-s SIZE] [-f FILE | -i FILE]\n"
"                      [-p SRCPORT] [-g USEC] [-r TIMEOUT_MS] [-o FILE]\n"
"       spin-udp ping HOST PORT [-n COUNT] [-s SIZE] [-p SRCPORT] [-r TIMEOUT_MS]\n"
"       spin-udp echo PORT [-n COUNT] [-t SEC]\n"
"       spin-udp recv PORT [-n COUNT] [-t SEC] [-o FILE]\n"
"\n"
"send   Send COUNT datagrams of SIZE payload bytes (default 1 x 64) to\n"
"       HOST:PORT.  The payload is the next SIZE bytes of FILE (-f; the\n"
"       file is split into datagrams, COUNT defaults to as many as it\n"
"       takes), or 32-bit little-endian integers read as decimal text from\n"
"       FILE (-i, one or more per line), or else a counting byte pattern\n"
"       whose first 4 bytes are the datagram's sequence number.  -g waits\n"
"       USEC microseconds between datagrams.  With -r, waits up to\n"
"       TIMEOUT_MS after each datagram for one reply and appends the\n"
"       replies to FILE (-o).  Prints: sent=N bytes=N replies=N.\n"
"ping   Like send with -r, timing each round trip.  Prints:\n"
"       sent=N replies=N rtt_us_avg=X rtt_us_min=X rtt_us_max=X.\n"
"echo   Answer every datagram on PORT with the same payload; stops after\n"
"       COUNT datagrams or SEC seconds.  Prints: echoed=N.\n"
"recv   Receive datagrams on PORT, appending payloads to FILE, each\n"
"       preceded by a line \"len=N sport=N\" when -o is given; stops after\n"
"       COUNT datagrams or SEC seconds of silence.  Prints: received=N\n"
"       bytes=N.\n"
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

static int udp_socket(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	if (s < 0)
		die("socket");
	if (port) {
		a.sin_port = htons(port);
		a.sin_addr.s_addr = htonl(INADDR_ANY);
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
	const char *out;
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
	size_t srclen = 0, off = 0;
	long i, sent = 0, replies = 0;
	unsigned long long bytes = 0;
	double t, sum = 0, min = 1e18, max = 0;
	FILE *out = NULL;
	int s;

	if (inet_pton(AF_INET, host, &to.sin_addr) != 1) {
		fprintf(stderr, "spin-udp: '%s' is not an IPv4 address\n", host);
		return 2;
	}
	to.sin_port = htons(port);
	if (o->file)
		src = load_file(o->file, &srclen);
	else if (o->ints)
		src = load_ints(o->ints, &srclen);
	if (src && o->count < 0)
		o->count = srclen ? (long)((srclen + o->size - 1) / o->size) : 0;
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
	s = udp_socket(o->sport);
	for (i = 0; i < o->count; i++) {
		size_t len = o->size;
		ssize_t r;

		if (src) {
			if (off >= srclen)
				break;
			if (len > srclen - off)
				len = srclen - off;
			memcpy(pkt, src + off, len);
			off += len;
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
				sum += d;
				min = d < min ? d : min;
				max = d > max ? d : max;
				if (out && fwrite(rep, 1, r, out) != (size_t)r)
					die(o->out);
			}
		}
		if (o->gap_us)
			usleep(o->gap_us);
	}
	if (out)
		fclose(out);
	if (ping)
		printf("sent=%ld replies=%ld rtt_us_avg=%.1f rtt_us_min=%.1f rtt_us_max=%.1f\n",
		       sent, replies, replies ? sum / replies : 0,
		       replies ? min : 0, max);
	else
		printf("sent=%ld bytes=%llu replies=%ld\n", sent, bytes, replies);
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
	int s = udp_socket(port);

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
			fprintf(out, "len=%zd sport=%u\n", r, ntohs(from.sin_port));
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
	while ((c = getopt(argc, argv, "n:s:f:i:p:g:r:t:o:h")) != -1) {
		switch (c) {
		case 'n': o.count = num(optarg, "COUNT", 0, 1L << 30); break;
		case 's': o.size = num(optarg, "SIZE", 1, MAX_DGRAM); break;
		case 'f': o.file = optarg; break;
		case 'i': o.ints = optarg; break;
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
	fprintf(stderr, "spin-udp: unknown command '%s' (try --help)\n", cmd);
	return 2;
}
