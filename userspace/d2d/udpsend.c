// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * udpsend - send a file as UDP datagrams with the host CPU: the baselines
 * of 'make bench-hdc-net' beside 'd2d send'.
 *   udpsend [--tcp] [--sendfile] [--length N] FILE HOST PORT
 * Datagrams of 1472 payload bytes (MTU 1500), each read(2) + send(2), or
 * sendfile(2) into the connected socket.  --tcp: a TCP connection
 * instead, 64 KiB per read(2) + send(2), or sendfile(2) of the whole rest
 * per call.  Exit status 0 ok, 1 failure, 2 usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define MSS 1472
#define TCP_CHUNK 65536

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int use_sendfile = 0, tcp = 0, i = 1, fd, sock;
	long long len = -1, off = 0, chunk = MSS;
	static char buf[TCP_CHUNK];
	struct stat st;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--sendfile"))
			use_sendfile = 1;
		else if (!strcmp(argv[i], "--tcp"))
			tcp = 1;
		else if (!strcmp(argv[i], "--length") && i + 1 < argc)
			len = atoll(argv[++i]);
		else
			break;
	}
	if (argc - i != 3 || inet_pton(AF_INET, argv[i + 1], &sa.sin_addr) != 1) {
		fprintf(stderr, "usage: udpsend [--tcp] [--sendfile] [--length N] FILE HOST PORT\n");
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
		chunk = use_sendfile ? len : TCP_CHUNK;
	while (off < len) {
		size_t n = len - off < chunk ? len - off : chunk;
		ssize_t r;

		if (use_sendfile) {
			off_t o = off;

			r = sendfile(sock, fd, &o, n);
		} else {
			r = pread(fd, buf, n, off);
			if (r > 0)
				r = send(sock, buf, r, 0);
		}
		if (r <= 0) {
			if (r < 0 && errno == ENOBUFS)
				continue;
			perror("udpsend");
			return 1;
		}
		off += r;
	}
	return 0;
}
