/*
 * fld-frag: traffic for the defrag accelerator's guest test.
 *
 *   fld-frag send OUTER_IP VNI INNER_DMAC INNER_DST PORT COUNT SIZE MTU MODE [GAP_US]
 *       COUNT UDP datagrams of SIZE payload bytes from 10.9.0.1:40000 to
 *       INNER_DST:PORT (Ethernet to INNER_DMAC), each cut into IPv4
 *       fragments of at most MTU bytes, every fragment carried as a VXLAN
 *       (VNI) frame over UDP to OUTER_IP:4789.  Odd datagrams go last
 *       fragment first.  MODE: normal; dup (the first fragment sent twice);
 *       overlap (the second fragment starts 8 bytes early); incomplete (the
 *       last fragment never sent).  GAP_US microseconds between
 *       datagrams (default 3000: a steady flow, not one burst; 0: as fast
 *       as the sender can).
 *   fld-frag sock IP PORT COUNT SIZE GAP_US
 *       COUNT datagrams of SIZE bytes with the same payload through an
 *       ordinary UDP socket to IP:PORT, GAP_US microseconds apart: the
 *       kernel's stack (e.g. a VXLAN device with a smaller MTU) does the
 *       fragmenting and encapsulation.
 *   fld-frag recv IP PORT COUNT SIZE SECONDS
 *       receives on IP:PORT until COUNT datagrams or SECONDS pass; checks
 *       each datagram's length and content; prints "received N ok M" and
 *       "last_ns T", T the CLOCK_REALTIME of the last datagram received
 *       (as date +%s%N prints it; for a benchmark's end time).
 *       Exit 0 if M == COUNT.
 *
 * The payload of datagram seq is: seq (4 bytes, host order), then
 * byte i = seq * 7 + i.
 */
#include <arpa/inet.h>
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

#define VXLAN_PORT 4789
#define MAX_SIZE 9000

static uint32_t sum16(const uint8_t *p, size_t n, uint32_t s)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += p[i] << 8 | p[i + 1];
	if (n & 1)
		s += p[n - 1] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return ~s;
}

static int parse_mac(const char *s, uint8_t *m)
{
	return sscanf(s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &m[0], &m[1], &m[2],
		      &m[3], &m[4], &m[5]) == 6 ? 0 : -1;
}

/* VXLAN header + inner Ethernet + IPv4 fragment [off, off + n) of @ipl. */
static size_t mk_frag(uint8_t *o, uint32_t vni, const uint8_t *dmac,
		      const uint8_t *ipl, size_t off, size_t n, int last,
		      uint16_t id, uint32_t src, uint32_t dst)
{
	static const uint8_t smac[6] = { 0x02, 0, 0, 0, 0x09, 0x01 };
	uint8_t *eth = o + 8, *ip = eth + 14;
	uint16_t fr = off / 8 | (last ? 0 : 0x2000), c;

	memset(o, 0, 8 + 14 + 20);
	o[0] = 0x08;			/* VNI valid */
	o[4] = vni >> 16;
	o[5] = vni >> 8;
	o[6] = vni;
	memcpy(eth, dmac, 6);
	memcpy(eth + 6, smac, 6);
	eth[12] = 0x08;
	ip[0] = 0x45;
	ip[2] = (20 + n) >> 8;
	ip[3] = 20 + n;
	ip[4] = id >> 8;
	ip[5] = id;
	ip[6] = fr >> 8;
	ip[7] = fr;
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &dst, 4);
	c = fold(sum16(ip, 20, 0));
	ip[10] = c >> 8;
	ip[11] = c;
	memcpy(ip + 20, ipl + off, n);
	return 8 + 14 + 20 + n;
}

/*
 * A UDP socket once the arguments checked out (@args_ok); else -2 (bad
 * arguments, said) or -1 (no socket, said): the exit status, negated.
 */
static int args_socket(int args_ok)
{
	int fd;

	if (!args_ok) {
		fprintf(stderr, "fld-frag: bad arguments\n");
		return -2;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("socket");
		return -1;
	}
	return fd;
}

static int do_send(char **a)
{
	static uint8_t ipl[8 + MAX_SIZE], o[16384];
	struct sockaddr_in to = { .sin_family = AF_INET };
	uint32_t vni = strtoul(a[1], NULL, 0), src = inet_addr("10.9.0.1");
	uint32_t dst = inet_addr(a[3]), seq, count = strtoul(a[5], NULL, 0);
	size_t size = strtoul(a[6], NULL, 0), mtu = strtoul(a[7], NULL, 0);
	size_t piece = (mtu - 20) & ~(size_t)7, tot = 8 + size, nf, k;
	const char *mode = a[8];
	long gap = a[9] ? atol(a[9]) : 3000;
	uint16_t port = atoi(a[4]), c;
	struct timespec t0, t1;
	uint8_t dmac[6];
	int fd;

	to.sin_port = htons(VXLAN_PORT);
	fd = args_socket(!parse_mac(a[2], dmac) &&
			 inet_aton(a[0], &to.sin_addr) && size <= MAX_SIZE &&
			 mtu >= 68 && mtu <= 9000 && dst != INADDR_NONE &&
			 gap >= 0);
	if (fd < 0)
		return -fd;
	nf = (tot + piece - 1) / piece;
	clock_gettime(CLOCK_REALTIME, &t0);
	for (seq = 0; seq < count; seq++) {
		/* UDP header and payload; checksum over the pseudo header */
		ipl[0] = 40000 >> 8;
		ipl[1] = 40000 & 0xff;
		ipl[2] = port >> 8;
		ipl[3] = port;
		ipl[4] = tot >> 8;
		ipl[5] = tot;
		ipl[6] = ipl[7] = 0;
		fld_fill(ipl + 8, size, seq, 7);
		c = fold(sum16(ipl, tot, sum16((uint8_t *)&src, 4,
					       sum16((uint8_t *)&dst, 4,
						     17 + tot))));
		if (!c)
			c = 0xffff;
		ipl[6] = c >> 8;
		ipl[7] = c;
		for (k = 0; k < nf; k++) {
			size_t i = seq & 1 ? nf - 1 - k : k, off = i * piece;
			size_t n = tot - off < piece ? tot - off : piece, len;
			int last = i == nf - 1, rep = 1;

			if (!strcmp(mode, "incomplete") && last)
				continue;
			if (!strcmp(mode, "overlap") && i == 1)
				off -= 8, n += 8;
			if (!strcmp(mode, "dup") && k == 0)
				rep = 2;
			len = mk_frag(o, vni, dmac, ipl, off, n, last,
				      (uint16_t)(seq + 1000), src, dst);
			while (rep--)
				if (sendto(fd, o, len, 0, (void *)&to,
					   sizeof(to)) != (ssize_t)len) {
					perror("sendto");
					return 1;
				}
		}
		if (gap)
			usleep(gap);
	}
	clock_gettime(CLOCK_REALTIME, &t1);
	close(fd);
	printf("start_ns %lld end_ns %lld\n",
	       (long long)t0.tv_sec * 1000000000 + t0.tv_nsec,
	       (long long)t1.tv_sec * 1000000000 + t1.tv_nsec);
	return 0;
}

static int do_sock(char **a)
{
	static uint8_t b[MAX_SIZE];
	struct sockaddr_in to = { .sin_family = AF_INET };
	unsigned count = strtoul(a[2], NULL, 0), i, sent = 0;
	size_t size = strtoul(a[3], NULL, 0);
	long gap = atol(a[4]);
	int fd;

	to.sin_port = htons(atoi(a[1]));
	fd = args_socket(inet_aton(a[0], &to.sin_addr) && size >= 4 &&
			 size <= MAX_SIZE && gap >= 0);
	if (fd < 0)
		return -fd;
	for (i = 0; i < count; i++) {
		struct timespec t = { gap / 1000000, gap % 1000000 * 1000 };

		fld_fill(b, size, i, 7);
		sent += sendto(fd, b, size, 0, (void *)&to, sizeof(to)) ==
			(ssize_t)size;
		if (gap)
			nanosleep(&t, NULL);
	}
	close(fd);
	printf("sent %u\n", sent);
	return sent == count ? 0 : 1;
}

static int do_recv(char **a)
{
	static uint8_t b[65536], want[MAX_SIZE];
	struct sockaddr_in me = { .sin_family = AF_INET };
	unsigned count = strtoul(a[2], NULL, 0), got = 0, ok = 0;
	size_t size = strtoul(a[3], NULL, 0);
	time_t end = time(NULL) + atoi(a[4]);
	struct timespec last = { 0, 0 };
	int fd, big = 4 << 20;

	me.sin_port = htons(atoi(a[1]));
	if (!inet_aton(a[0], &me.sin_addr) || size > MAX_SIZE) {
		fprintf(stderr, "fld-frag: bad arguments\n");
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	if (fd < 0 || bind(fd, (void *)&me, sizeof(me))) {
		perror("bind");
		return 1;
	}
	while (got < count && time(NULL) < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;
		uint32_t seq;

		if (poll(&p, 1, 200) != 1)
			continue;
		r = recv(fd, b, sizeof(b), 0);
		if (r < 0)
			break;
		got++;
		clock_gettime(CLOCK_REALTIME, &last);
		if ((size_t)r != size || size < 4)
			continue;
		memcpy(&seq, b, 4);
		fld_fill(want, size, seq, 7);
		ok += !memcmp(b, want, size);
	}
	printf("received %u ok %u\n", got, ok);
	printf("last_ns %lld\n",
	       (long long)last.tv_sec * 1000000000 + last.tv_nsec);
	return ok == count ? 0 : 1;
}

int main(int argc, char **argv)
{
	if ((argc == 11 || argc == 12) && !strcmp(argv[1], "send"))
		return do_send(argv + 2);
	if (argc == 7 && !strcmp(argv[1], "recv"))
		return do_recv(argv + 2);
	if (argc == 7 && !strcmp(argv[1], "sock"))
		return do_sock(argv + 2);
	fprintf(stderr,
		"usage: fld-frag send OUTER_IP VNI INNER_DMAC INNER_DST PORT COUNT SIZE MTU normal|dup|overlap|incomplete [GAP_US]\n"
		"       fld-frag recv IP PORT COUNT SIZE SECONDS\n"
		"       fld-frag sock IP PORT COUNT SIZE GAP_US\n");
	return 2;
}
