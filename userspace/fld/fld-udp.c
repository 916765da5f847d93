/*
 * fld-udp: UDP traffic for the FLD tests and benchmarks.
 *
 *   fld-udp ping IP PORT COUNT SIZE [WINDOW]
 *       send COUNT datagrams of SIZE bytes (sequence numbered, patterned)
 *       to IP:PORT with at most WINDOW outstanding, check every reply is
 *       the datagram sent (an echo), print "sent N received N bad N
 *       pps X rtt_us_mean M rtt_us_p999 P" (round trips of the intact
 *       replies, from each datagram's send to its reply's receipt) and
 *       exit 0 only if all came back intact.
 *   fld-udp echo PORT
 *       the host CPU echo program: return every datagram to its sender
 *       (the baseline FLD-E echo is compared with).
 *   fld-udp coap IP PORT TOKEN
 *       send one CoAP POST (Uri-Path "auth") whose payload is TOKEN (a
 *       JSON Web Token) and wait a second for it to come back: exit 0 if
 *       it was passed on (answered), 1 if not.
 *   fld-udp coap-load IP PORT TOKEN COUNT GAP_US
 *       send COUNT such messages GAP_US microseconds apart (0: as fast as
 *       the socket takes them), counting the answers meanwhile and for two
 *       seconds after; print "sent N answered M secs T" (a tenant's load
 *       in the FLD isolation test).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "fld_window.h"

#define MAX_SIZE 9000

/* fld-udp ping over a connected socket: datagram seq, echoed intact. */
struct ping {
	int fd;
	size_t size;
	long sent;
	double *t_sent;		/* [count]: when datagram seq was sent */
	double *rtt;		/* round trips of the intact replies */
	long nrtt;
	uint8_t tx[MAX_SIZE], rx[MAX_SIZE], want[MAX_SIZE];
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Mean and 99.9th percentile of the round trips, in microseconds. */
static void rtt_stats(struct ping *p, double *mean, double *p999)
{
	double sum = 0;
	long i;

	*mean = *p999 = 0;
	if (!p->nrtt)
		return;
	qsort(p->rtt, p->nrtt, sizeof(*p->rtt), cmp_double);
	for (i = 0; i < p->nrtt; i++)
		sum += p->rtt[i];
	*mean = sum / p->nrtt * 1e6;
	*p999 = p->rtt[(p->nrtt * 999 + 999) / 1000 - 1] * 1e6;
}

static int ping_send(void *ctx, long seq)
{
	struct ping *p = ctx;

	fld_fill(p->tx, p->size, seq, 13);
	p->t_sent[seq] = fld_now();
	if (send(p->fd, p->tx, p->size, 0) != (ssize_t)p->size) {
		perror("fld-udp: send");
		return -1;
	}
	p->sent = seq + 1;
	return 0;
}

static int ping_recv(void *ctx)
{
	struct ping *p = ctx;
	struct pollfd pf = { .fd = p->fd, .events = POLLIN };
	uint32_t seq;
	ssize_t n;

	if (poll(&pf, 1, 1000) != 1)
		return FLD_WINDOW_IDLE;
	n = recv(p->fd, p->rx, sizeof(p->rx), 0);
	if (n < 4)
		return 0;
	memcpy(&seq, p->rx, 4);
	fld_fill(p->want, p->size, seq, 13);
	if ((size_t)n != p->size || seq >= (uint32_t)p->sent ||
	    memcmp(p->rx, p->want, p->size))
		return 0;
	p->rtt[p->nrtt++] = fld_now() - p->t_sent[seq];
	return 1;
}

static int do_ping(const char *ip, int port, long count, size_t size,
		   long window)
{
	static struct ping p;
	struct fld_window_io io = { ping_send, ping_recv, &p };
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct fld_window_count c;
	double mean, p999;

	if (size < 4 || size > MAX_SIZE || count < 1 || window < 1) {
		fprintf(stderr, "fld-udp: size 4..%d, count and window >= 1\n",
			MAX_SIZE);
		return 2;
	}
	a.sin_port = htons(port);
	if (inet_pton(AF_INET, ip, &a.sin_addr) != 1) {
		fprintf(stderr, "fld-udp: bad address %s\n", ip);
		return 2;
	}
	p.fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (p.fd < 0 || connect(p.fd, (void *)&a, sizeof(a))) {
		perror("fld-udp: socket");
		return 1;
	}
	p.size = size;
	p.t_sent = calloc(count, sizeof(*p.t_sent));
	/* a reply counts once: at most count round trips */
	p.rtt = calloc(count, sizeof(*p.rtt));
	if (!p.t_sent || !p.rtt) {
		fprintf(stderr, "fld-udp: out of memory\n");
		return 1;
	}
	if (fld_window_run(&io, count, window, &c))
		return 1;
	rtt_stats(&p, &mean, &p999);
	printf("sent %ld received %ld bad %ld pps %.0f rtt_us_mean %.3f "
	       "rtt_us_p999 %.3f\n", c.sent, c.got, c.bad, c.got / c.secs,
	       mean, p999);
	close(p.fd);
	free(p.t_sent);
	free(p.rtt);
	return c.got == count ? 0 : 1;
}

static int do_echo(int port)
{
	static uint8_t b[65536];
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	a.sin_port = htons(port);
	if (fd < 0 || bind(fd, (void *)&a, sizeof(a))) {
		perror("fld-udp: bind");
		return 1;
	}
	for (;;) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, b, sizeof(b), 0, (void *)&from, &fl);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("fld-udp: recvfrom");
			return 1;
		}
		sendto(fd, b, n, 0, (void *)&from, fl);
	}
}

/* A CoAP POST (Uri-Path "auth") carrying @token; its length, 0 if long. */
static size_t coap_msg(uint8_t *m, size_t cap, const char *token)
{
	size_t n = 0, tl = strlen(token);

	if (tl > cap - 16)
		return 0;
	m[n++] = 0x40 | 2;		/* version 1, CON, token length 2 */
	m[n++] = 0x02;			/* POST */
	m[n++] = 0x4a;			/* message id */
	m[n++] = 0x21;
	m[n++] = 0x7e;			/* token */
	m[n++] = 0x57;
	m[n++] = 0xb4;			/* Uri-Path (11), 4 bytes */
	memcpy(m + n, "auth", 4);
	n += 4;
	m[n++] = 0xff;			/* payload marker */
	memcpy(m + n, token, tl);
	return n + tl;
}

static int coap_socket(const char *ip, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd;

	a.sin_port = htons(port);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || inet_pton(AF_INET, ip, &a.sin_addr) != 1 ||
	    connect(fd, (void *)&a, sizeof(a))) {
		perror("fld-udp: coap");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int do_coap(const char *ip, int port, const char *token)
{
	static uint8_t m[2048], rx[2048];
	struct pollfd p;
	size_t n = coap_msg(m, sizeof(m), token);
	ssize_t r;
	int fd;

	if (!n) {
		fprintf(stderr, "fld-udp: token too long\n");
		return 2;
	}
	fd = coap_socket(ip, port);
	if (fd < 0 || send(fd, m, n, 0) != (ssize_t)n) {
		perror("fld-udp: coap");
		return 2;
	}
	p.fd = fd;
	p.events = POLLIN;
	if (poll(&p, 1, 1000) != 1) {
		printf("coap: no answer\n");
		return 1;
	}
	r = recv(fd, rx, sizeof(rx), 0);
	printf("coap: answered, %zd bytes%s\n", r,
	       r == (ssize_t)n && !memcmp(rx, m, n) ? ", the message" : "");
	return r == (ssize_t)n && !memcmp(rx, m, n) ? 0 : 1;
}

/* Answers waiting on @fd, counted; waits up to @ms for the first. */
static long coap_drain(int fd, const uint8_t *m, size_t n, int ms)
{
	static uint8_t rx[2048];
	struct pollfd p = { .fd = fd, .events = POLLIN };
	long got = 0;

	while (poll(&p, 1, ms) == 1) {
		ssize_t r = recv(fd, rx, sizeof(rx), MSG_DONTWAIT);

		if (r < 0)
			break;
		got += r == (ssize_t)n && !memcmp(rx, m, n);
		ms = 0;
	}
	return got;
}

static int do_coap_load(const char *ip, int port, const char *token,
			long count, long gap_us)
{
	static uint8_t m[2048];
	size_t n = coap_msg(m, sizeof(m), token);
	long sent = 0, got = 0;
	double t0, t1, next;
	int fd, buf = 1 << 20;

	if (!n || count < 1 || gap_us < 0) {
		fprintf(stderr, "fld-udp: token length, COUNT >= 1, GAP_US >= 0\n");
		return 2;
	}
	fd = coap_socket(ip, port);
	if (fd < 0)
		return 2;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	t0 = next = fld_now();
	while (sent < count) {
		if (send(fd, m, n, 0) == (ssize_t)n)
			sent++;
		else if (errno != ENOBUFS && errno != EAGAIN)
			break;
		got += coap_drain(fd, m, n, 0);
		if (gap_us) {
			next += gap_us / 1e6;
			while (fld_now() < next)
				got += coap_drain(fd, m, n, 1);
		}
	}
	t1 = fld_now();
	while (fld_now() < t1 + 2)
		got += coap_drain(fd, m, n, 100);
	printf("sent %ld answered %ld secs %.2f\n", sent, got, t1 - t0);
	close(fd);
	return sent == count ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "coap"))
		return do_coap(argv[2], atoi(argv[3]), argv[4]);
	if (argc >= 6 && !strcmp(argv[1], "ping"))
		return do_ping(argv[2], atoi(argv[3]), atol(argv[4]),
			       strtoul(argv[5], NULL, 0),
			       argc > 6 ? atol(argv[6]) : 1);
	if (argc == 7 && !strcmp(argv[1], "coap-load"))
		return do_coap_load(argv[2], atoi(argv[3]), argv[4],
				    atol(argv[5]), atol(argv[6]));
	if (argc == 3 && !strcmp(argv[1], "echo"))
		return do_echo(atoi(argv[2]));
	fprintf(stderr, "usage: fld-udp ping IP PORT COUNT SIZE [WINDOW]\n"
		"       fld-udp echo PORT\n"
		"       fld-udp coap IP PORT TOKEN\n"
		"       fld-udp coap-load IP PORT TOKEN COUNT GAP_US\n");
	return 2;
}
