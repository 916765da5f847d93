/*
 * fld-zuc: zuc accelerator traffic and its software baseline.
 *
 *   fld-zuc serve PORT
 *       the host CPU doing the accelerator's work: answer every zuc
 *       request (docs/fld.md, struct fld_zuc_hdr) arriving on UDP PORT
 *       with the same request engine and ZUC code the FLD model runs
 *       (qemu-devices/fld/fld-zucreq.c, fld-zuc.c, compiled in).
 *   fld-zuc load IP PORT COUNT BITS [WINDOW]
 *       send COUNT 128-EEA3 requests of BITS bits (at most WINDOW
 *       outstanding) and check every answer against a local computation;
 *       prints "sent N answered N bad N rps X", exit 0 if all were right.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "fld/fld-zuc.h"
#include "fld/fld-zucreq.h"

#define MAX_REQ 9000

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int serve(int port)
{
	static uint8_t req[65536], resp[MAX_REQ];
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	a.sin_port = htons(port);
	if (fd < 0 || bind(fd, (void *)&a, sizeof(a))) {
		perror("fld-zuc: bind");
		return 1;
	}
	for (;;) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, req, sizeof(req), 0, (void *)&from, &fl);
		long r;

		if (n < 0)
			continue;
		r = fld_zuc_request(req, n, resp, sizeof(resp));
		if (r > 0)
			sendto(fd, resp, r, 0, (void *)&from, fl);
	}
}

static size_t mk_req(uint8_t *req, uint32_t seq, uint32_t bits)
{
	struct fld_zuc_hdr h;
	size_t i, nb = (bits + 7) / 8;

	memset(&h, 0, sizeof(h));
	h.magic = htole32(FLD_ZUC_MAGIC);
	h.op = FLD_ZUC_OP_EEA3;
	h.bearer = seq % 32;
	h.direction = seq & 1;
	h.count = htole32(seq * 2654435761u);
	h.length_bits = htole32(bits);
	h.request_id = htole64(seq);
	for (i = 0; i < 16; i++)
		h.key[i] = (uint8_t)(seq * 31 + i);
	memcpy(req, &h, sizeof(h));
	for (i = 0; i < nb; i++)
		req[64 + i] = (uint8_t)(seq + i * 7);
	return 64 + nb;
}

static int load(const char *ip, int port, long count, uint32_t bits,
		long window)
{
	static uint8_t req[MAX_REQ], rx[MAX_REQ], want[MAX_REQ];
	struct sockaddr_in a = { .sin_family = AF_INET };
	long sent = 0, got = 0, bad = 0, timeouts = 0;
	double t0;
	int fd;

	if (bits < 1 || 64 + (bits + 7) / 8 > MAX_REQ - 64 || window < 1) {
		fprintf(stderr, "fld-zuc: bad bits or window\n");
		return 2;
	}
	a.sin_port = htons(port);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (inet_pton(AF_INET, ip, &a.sin_addr) != 1 || fd < 0 ||
	    connect(fd, (void *)&a, sizeof(a))) {
		perror("fld-zuc: socket");
		return 2;
	}
	t0 = now();
	while (got + bad < count && timeouts < 3) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct fld_zuc_hdr h;
		size_t rl;
		ssize_t n;
		long wl;

		while (sent < count && sent - got - bad < window) {
			rl = mk_req(req, sent, bits);
			if (send(fd, req, rl, 0) != (ssize_t)rl) {
				perror("fld-zuc: send");
				return 1;
			}
			sent++;
		}
		if (poll(&p, 1, 1000) != 1) {
			timeouts++;
			bad += sent - got - bad;
			continue;
		}
		n = recv(fd, rx, sizeof(rx), 0);
		if (n < 64) {
			bad++;
			continue;
		}
		memcpy(&h, rx, sizeof(h));
		rl = mk_req(req, le64toh(h.request_id), bits);
		wl = fld_zuc_request(req, rl, want, sizeof(want));
		if (wl == n && !memcmp(rx, want, n) && h.status == FLD_ZUC_OK)
			got++;
		else
			bad++;
	}
	printf("sent %ld answered %ld bad %ld rps %.0f\n", sent, got, bad,
	       got / (now() - t0));
	close(fd);
	return got == count ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "serve"))
		return serve(atoi(argv[2]));
	if (argc >= 6 && !strcmp(argv[1], "load"))
		return load(argv[2], atoi(argv[3]), atol(argv[4]),
			    strtoul(argv[5], NULL, 0),
			    argc > 6 ? atol(argv[6]) : 1);
	fprintf(stderr, "usage: fld-zuc serve PORT\n"
		"       fld-zuc load IP PORT COUNT BITS [WINDOW]\n");
	return 2;
}
