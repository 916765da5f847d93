// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * udprecv - receive a file sent as UDP datagrams with d2d's application
 * header (udpsend --d2d) with the host CPU: the baseline of 'd2d recv' in
 * 'make bench-hdc-net'.  recv(2) per datagram, pwrite(2) of its payload
 * at its offset, CRC32C of the bytes on the CPU (--crc32c, printed as
 * 'd2d recv --crc32c' prints it), fsync(2) at the end.
 *   udprecv [--crc32c] [--ready FILE] HOST PORT FILE BYTES
 *   udprecv --tcp [--crc32c] HOST PORT FILE BYTES
 * --ready FILE is created once the socket is bound (a sender may start).
 * Datagrams must arrive in order: a gap fails (status 1).  --tcp: the
 * baseline of 'd2d recv --tcp': connect to HOST:PORT, read(2) + write(2)
 * of the stream's first BYTES bytes (fewer if the peer closes first:
 * status 1), the same CRC32C and fsync.  Exit status 0 ok, 1 failure, 2
 * usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "crc32c.h"

#define HDR 16			/* struct hdc_rx_hdr */
#define MAGIC 0x44324455	/* HDC_RX_MAGIC */

/* --tcp: read(2) from the connected @sock, write(2) to @fd. */
static int tcp_recv(int sock, int fd, long long want, int crc_on,
		    uint32_t *crc)
{
	static uint8_t buf[65536];
	long long got = 0;

	while (got < want) {
		size_t room = want - got < (long long)sizeof(buf) ?
			      (size_t)(want - got) : sizeof(buf);
		ssize_t n = read(sock, buf, room);

		if (n <= 0) {
			fprintf(stderr, "udprecv: %lld of %lld bytes: %s\n",
				got, want, n ? "read failed" : "peer closed");
			return 1;
		}
		if (write(fd, buf, n) != n) {
			perror("udprecv: write");
			return 1;
		}
		if (crc_on)
			*crc = crc32c_update(*crc, buf, n);
		got += n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	const char *ready = NULL;
	int crc_on = 0, tcp = 0, i = 1, fd, sock, rcvbuf = 32 << 20;
	long long want, next = 0;
	uint32_t crc = crc32c_init();
	uint8_t buf[9216];

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--crc32c"))
			crc_on = 1;
		else if (!strcmp(argv[i], "--tcp"))
			tcp = 1;
		else if (!strcmp(argv[i], "--ready") && i + 1 < argc)
			ready = argv[++i];
		else
			break;
	}
	if (argc - i != 4 || inet_pton(AF_INET, argv[i], &sa.sin_addr) != 1 ||
	    (tcp && ready)) {
		fprintf(stderr, "usage: udprecv [--crc32c] [--ready FILE] HOST PORT FILE BYTES\n"
			"       udprecv --tcp [--crc32c] HOST PORT FILE BYTES\n");
		return 2;
	}
	sa.sin_port = htons(atoi(argv[i + 1]));
	want = atoll(argv[i + 3]);
	sock = socket(AF_INET, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
	fd = open(argv[i + 2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (sock < 0 || fd < 0) {
		perror("udprecv");
		return 1;
	}
	if (tcp) {
		if (connect(sock, (struct sockaddr *)&sa, sizeof(sa))) {
			perror("udprecv: connect");
			return 1;
		}
		if (tcp_recv(sock, fd, want, crc_on, &crc))
			return 1;
		next = want;
	} else if (setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
			      sizeof(rcvbuf)) ||
		   bind(sock, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("udprecv");
		return 1;
	}
	if (ready) {
		int r = open(ready, O_WRONLY | O_CREAT, 0644);

		if (r < 0) {
			perror(ready);
			return 1;
		}
		close(r);
	}
	while (next < want) {
		ssize_t n = recv(sock, buf, sizeof(buf), 0);
		uint32_t m, len;
		uint64_t off;

		if (n < HDR) {
			perror("udprecv: recv");
			return 1;
		}
		memcpy(&m, buf, 4);
		memcpy(&len, buf + 4, 4);
		memcpy(&off, buf + 8, 8);
		len = ntohl(len);
		off = be64toh(off);
		if (ntohl(m) != MAGIC || len != n - HDR)
			continue;		/* not a datagram of the stream */
		if ((long long)off != next) {
			fprintf(stderr, "udprecv: bytes %lld..%llu missing\n",
				next, (unsigned long long)off);
			return 1;
		}
		if (pwrite(fd, buf + HDR, len, off) != (ssize_t)len) {
			perror("udprecv: pwrite");
			return 1;
		}
		if (crc_on)
			crc = crc32c_update(crc, buf + HDR, len);
		next += len;
	}
	if (fsync(fd)) {
		perror("udprecv: fsync");
		return 1;
	}
	if (crc_on)
		printf("%08x  %s\n", crc32c_final(crc), argv[i + 2]);
	return 0;
}
