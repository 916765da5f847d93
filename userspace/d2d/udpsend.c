// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * udpsend - send a file as UDP datagrams with the host CPU: the baselines
 * of 'make bench-hdc-net' beside 'd2d send', and the sender of
 * 'd2d recv'.
 *   udpsend [--tcp] [--sendfile] [--length N] [--d2d [--skip I]...
 *           [--loss PCT] [--hostile]] FILE HOST PORT
 * Datagrams of 1472 payload bytes (MTU 1500), each read(2) + send(2), or
 * sendfile(2) into the connected socket.  --d2d: each datagram starts
 * with d2d's application header (struct hdc_rx_hdr: magic, length,
 * offset; docs/hdc.md "Receiving") and carries 1456 bytes of the file;
 * --skip I leaves datagram I out, --loss PCT about PCT% of them (the same
 * ones every run); --hostile first sends datagrams a receiver must drop
 * (bad magic, bad length, an offset past the end, a header cut short)
 * and repeats the first datagram after the second.  Exit status 0 ok,
 * 1 failure, 2 usage.  --tcp (not with --d2d): a TCP connection instead,
 * 64 KiB per read(2) + send(2), or sendfile(2) of the whole rest per
 * call.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define MSS 1472
#define HDR 16			/* struct hdc_rx_hdr */
#define MAGIC 0x44324455	/* HDC_RX_MAGIC, "D2DU" */
#define MAX_SKIP 16
#define TCP_CHUNK 65536

/* d2d's application header, network byte order, before the payload. */
static void put_hdr(uint8_t *b, uint32_t magic, uint32_t len, uint64_t off)
{
	uint32_t m = htonl(magic), l = htonl(len);
	uint64_t o = htobe64(off);

	memcpy(b, &m, 4);
	memcpy(b + 4, &l, 4);
	memcpy(b + 8, &o, 8);
}

/* send(2), retrying while the socket buffer is full. */
static int send_all(int sock, const void *b, size_t n)
{
	while (send(sock, b, n, 0) < 0) {
		if (errno != ENOBUFS)
			return -1;
	}
	return 0;
}

/* The datagrams a receiver must drop, sent before the stream. */
static int send_hostile(int sock, long long len)
{
	uint8_t b[HDR + 64] = { 0 };

	put_hdr(b, MAGIC ^ 1, 64, 0);			/* bad magic */
	if (send_all(sock, b, HDR + 64))
		return -1;
	put_hdr(b, MAGIC, 65, 0);			/* length != payload */
	if (send_all(sock, b, HDR + 64))
		return -1;
	put_hdr(b, MAGIC, 64, len + 4096);		/* past the end */
	if (send_all(sock, b, HDR + 64))
		return -1;
	return send_all(sock, b, HDR - 4);		/* header cut short */
}

/* Is datagram @i one that --loss @pct leaves out? */
static int lost(long long i, int pct)
{
	uint32_t h = (uint32_t)i * 2654435761u;

	return pct && (h >> 16) % 100 < (uint32_t)pct;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int use_sendfile = 0, d2d = 0, hostile = 0, loss = 0, tcp = 0, i = 1;
	long long len = -1, off = 0, dg = 0, skip[MAX_SKIP], room = MSS;
	int nskip = 0, k, fd, sock;
	static uint8_t buf[TCP_CHUNK];
	struct stat st;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--sendfile"))
			use_sendfile = 1;
		else if (!strcmp(argv[i], "--tcp"))
			tcp = 1;
		else if (!strcmp(argv[i], "--d2d"))
			d2d = 1;
		else if (!strcmp(argv[i], "--hostile"))
			hostile = 1;
		else if (!strcmp(argv[i], "--length") && i + 1 < argc)
			len = atoll(argv[++i]);
		else if (!strcmp(argv[i], "--skip") && i + 1 < argc &&
			 nskip < MAX_SKIP)
			skip[nskip++] = atoll(argv[++i]);
		else if (!strcmp(argv[i], "--loss") && i + 1 < argc)
			loss = atoi(argv[++i]);
		else
			break;
	}
	if (argc - i != 3 || inet_pton(AF_INET, argv[i + 1], &sa.sin_addr) != 1 ||
	    (use_sendfile && d2d) || ((nskip || loss || hostile) && !d2d) ||
	    (tcp && d2d) || loss < 0 || loss > 100) {
		fprintf(stderr, "usage: udpsend [--tcp] [--sendfile] [--length N] [--d2d [--skip I]... [--loss PCT] [--hostile]] FILE HOST PORT\n");
		return 2;
	}
	sa.sin_port = htons(atoi(argv[i + 2]));
	fd = open(argv[i], O_RDONLY);
	sock = socket(AF_INET, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (fd < 0 || fstat(fd, &st) || sock < 0 ||
	    connect(sock, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("udpsend");
		return 1;
	}
	if (len < 0 || len > st.st_size)
		len = st.st_size;
	if (tcp)
		room = use_sendfile ? len : TCP_CHUNK;
	else if (d2d)
		room = MSS - HDR;
	if (hostile && send_hostile(sock, len)) {
		perror("udpsend");
		return 1;
	}
	while (off < len) {
		size_t n = len - off < room ? (size_t)(len - off) : (size_t)room;
		ssize_t r;
		int drop = lost(dg, loss);

		for (k = 0; k < nskip; k++)
			drop |= skip[k] == dg;
		if (use_sendfile) {
			off_t o = off;

			r = sendfile(sock, fd, &o, n);
		} else {
			r = pread(fd, buf + (d2d ? HDR : 0), n, off);
			if (r > 0 && d2d)
				put_hdr(buf, MAGIC, r, off);
			if (r > 0 && !drop)
				r = send(sock, buf, r + (d2d ? HDR : 0), 0) < 0 ?
				    -1 : r;
		}
		if (r <= 0) {
			if (r < 0 && errno == ENOBUFS)
				continue;
			perror("udpsend");
			return 1;
		}
		/* --hostile: the first datagram again, after the second */
		if (hostile && dg == 1 && pread(fd, buf + HDR, MSS - HDR, 0) > 0) {
			put_hdr(buf, MAGIC, len < MSS - HDR ? len : MSS - HDR, 0);
			if (send_all(sock, buf, HDR + (len < MSS - HDR ? len :
						       MSS - HDR))) {
				perror("udpsend");
				return 1;
			}
		}
		off += r;
		dg++;
	}
	return 0;
}
