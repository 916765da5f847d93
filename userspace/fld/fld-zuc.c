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
 *
 * The same over FLD-R (RDMA SENDs on an RC QP, fld_zuc_client.c):
 *   fld-zuc rdma-load HOST[:PORT] COUNT BITS [WINDOW]
 *       as load, through a remote FLD accelerator (or rdma-serve).
 *   fld-zuc rdma-serve PORT [DEPTH]
 *       the host CPU baseline as an RDMA server (one client at a time);
 *       DEPTH (32) receives, more than the client's window: a receive is
 *       reposted only when its answer's SEND completed.
 *   fld-zuc encrypt|decrypt|auth (--rdma HOST[:PORT] | --local)
 *           --key HEX32 [--count N] [--bearer B] [--dir D] FILE
 *       128-EEA3 of FILE to stdout (decrypt is the same operation), or
 *       one 128-EIA3 MAC per 8 KiB block ("block N mac XXXXXXXX"); the
 *       file goes in 8 KiB requests, block i with COUNT + i.
 *   fld-zuc test-vectors --rdma HOST[:PORT]
 *       the 3GPP test sets through the accelerator, a line each;
 *   fld-zuc bad-header --rdma HOST[:PORT]
 *       a 20-byte message: prints the answer's status (4: FLD_ZUC_EHDR).
 *   fld-zuc oversize --rdma HOST[:PORT]
 *       a 10000-byte message, larger than any request and than FLD-R's
 *       receive buffers: prints "failed: <completion status>" (exit 0)
 *       or "answered N bytes" (exit 1).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <endian.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "fld/fld-zuc.h"
#include "fld/fld-zucreq.h"
#include "fld_zuc_client.h"
#include "fld_zuc_vectors.h"
#include "fld_window.h"

#define MAX_REQ 9000

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

/* Is @ans (@n bytes) the right answer to the request its id names? */
static int zuc_answer_ok(const uint8_t *ans, long n, uint32_t bits)
{
	static uint8_t req[MAX_REQ], want[FZC_SLOT];
	struct fld_zuc_hdr h;
	size_t rl;

	if (n < (long)sizeof(h))
		return 0;
	memcpy(&h, ans, sizeof(h));
	rl = mk_req(req, le64toh(h.request_id), bits);
	return fld_zuc_request(req, rl, want, sizeof(want)) == n &&
	       !memcmp(ans, want, n) && h.status == FLD_ZUC_OK;
}

static void print_count(const struct fld_window_count *c)
{
	printf("sent %ld answered %ld bad %ld rps %.0f\n", c->sent, c->got,
	       c->bad, c->got / c->secs);
}

/* load: requests as UDP datagrams on a connected socket */
struct zuc_udp {
	int fd;
	uint32_t bits;
	uint8_t req[MAX_REQ], rx[MAX_REQ];
};

static int zuc_udp_send(void *ctx, long seq)
{
	struct zuc_udp *u = ctx;
	size_t rl = mk_req(u->req, seq, u->bits);

	if (send(u->fd, u->req, rl, 0) != (ssize_t)rl) {
		perror("fld-zuc: send");
		return -1;
	}
	return 0;
}

static int zuc_udp_recv(void *ctx)
{
	struct zuc_udp *u = ctx;
	struct pollfd p = { .fd = u->fd, .events = POLLIN };

	if (poll(&p, 1, 1000) != 1)
		return FLD_WINDOW_IDLE;
	return zuc_answer_ok(u->rx, recv(u->fd, u->rx, sizeof(u->rx), 0),
			     u->bits);
}

static int load(const char *ip, int port, long count, uint32_t bits,
		long window)
{
	static struct zuc_udp u;
	struct fld_window_io io = { zuc_udp_send, zuc_udp_recv, &u };
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct fld_window_count c;

	if (bits < 1 || 64 + (bits + 7) / 8 > MAX_REQ - 64 || window < 1) {
		fprintf(stderr, "fld-zuc: bad bits or window\n");
		return 2;
	}
	a.sin_port = htons(port);
	u.fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (inet_pton(AF_INET, ip, &a.sin_addr) != 1 || u.fd < 0 ||
	    connect(u.fd, (void *)&a, sizeof(a))) {
		perror("fld-zuc: socket");
		return 2;
	}
	u.bits = bits;
	if (fld_window_run(&io, count, window, &c))
		return 1;
	print_count(&c);
	close(u.fd);
	return c.got == count ? 0 : 1;
}

/* ---- FLD-R ---- */

/* rdma-load: request seq in slot seq % window of an FLD-R connection */
struct zuc_rdma {
	struct fzc c;
	long window;
	uint32_t bits;
};

static int zuc_rdma_send(void *ctx, long seq)
{
	struct zuc_rdma *z = ctx;
	unsigned int slot = seq % z->window;

	if (fzc_send(&z->c, slot, mk_req(fzc_req(&z->c, slot), seq, z->bits))) {
		fprintf(stderr, "fld-zuc: %s\n", z->c.err);
		return -1;
	}
	return 0;
}

static int zuc_rdma_recv(void *ctx)
{
	struct zuc_rdma *z = ctx;
	unsigned int slot;
	long n;

	n = fzc_wait(&z->c, &slot, 5000);
	if (n < 0) {
		fprintf(stderr, "fld-zuc: %s\n", z->c.err);
		return FLD_WINDOW_STOP;
	}
	return zuc_answer_ok(fzc_ans(&z->c, slot), n, z->bits);
}

static int rdma_load(const char *host, long count, uint32_t bits,
		     long window)
{
	static struct zuc_rdma z;
	struct fld_window_io io = { zuc_rdma_send, zuc_rdma_recv, &z };
	struct fld_window_count c;

	if (bits < 1 || bits > FLD_ZUC_MAX_BITS || window < 1 ||
	    window > FZC_MAX_DEPTH) {
		fprintf(stderr, "fld-zuc: bad bits or window\n");
		return 2;
	}
	if (fzc_connect(&z.c, host, window)) {
		fprintf(stderr, "fld-zuc: %s: %s\n", host, z.c.err);
		return 2;
	}
	z.window = window;
	z.bits = bits;
	if (fld_window_run(&io, count, window, &c))
		return 1;
	print_count(&c);
	fzc_close(&z.c);
	return c.got == count ? 0 : 1;
}

static long serve_one(const uint8_t *req, size_t len, uint8_t *ans,
		      size_t size)
{
	return fld_zuc_request(req, len, ans, size);
}

static int rdma_serve(const char *port, unsigned int depth)
{
	struct rdma_event_channel *ch;
	struct fzc c;

	if (!fzc_listen(&ch, port)) {
		perror("fld-zuc: rdma listen");
		return 2;
	}
	for (;;) {
		if (fzc_accept(&c, ch, depth) || fzc_serve(&c, serve_one))
			fprintf(stderr, "fld-zuc: %s\n", c.err);
		fzc_close(&c);
	}
}

static int hexkey(const char *s, uint8_t key[16])
{
	unsigned int i, v;

	if (strlen(s) != 32)
		return -1;
	for (i = 0; i < 16; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		key[i] = v;
	}
	return 0;
}

struct file_job {
	const char *mode, *host, *file;
	uint8_t key[16];
	uint32_t count;
	uint8_t bearer, dir;
	bool local;
};

/* One block of a file through the accelerator (or the local engine). */
static long file_block(struct fzc *c, const struct file_job *j,
		       const uint8_t *data, size_t n, uint32_t blk,
		       uint8_t *ans)
{
	static uint8_t req[FZC_SLOT];
	struct fld_zuc_hdr h = {};

	h.magic = htole32(FLD_ZUC_MAGIC);
	h.op = strcmp(j->mode, "auth") ? FLD_ZUC_OP_EEA3 : FLD_ZUC_OP_EIA3;
	h.bearer = j->bearer;
	h.direction = j->dir;
	h.count = htole32(j->count + blk);
	h.length_bits = htole32(n * 8);
	h.request_id = htole64(blk);
	memcpy(h.key, j->key, 16);
	memcpy(req, &h, sizeof(h));
	memcpy(req + 64, data, n);
	if (j->local)
		return fld_zuc_request(req, 64 + n, ans, FZC_SLOT);
	return fzc_call(c, req, 64 + n, ans, FZC_SLOT, 5000);
}

static int file_op(const struct file_job *j)
{
	static uint8_t data[FLD_ZUC_MAX_BITS / 8], ans[FZC_SLOT];
	struct fzc c = {};
	struct fld_zuc_hdr h;
	uint32_t blk = 0;
	size_t n;
	long r;
	int rc = 0;
	FILE *f = fopen(j->file, "rb");

	if (!f) {
		perror(j->file);
		return 2;
	}
	if (!j->local && fzc_connect(&c, j->host, 1)) {
		fprintf(stderr, "fld-zuc: %s: %s\n", j->host, c.err);
		fclose(f);
		return 2;
	}
	while (!rc && (n = fread(data, 1, sizeof(data), f)) > 0) {
		r = file_block(&c, j, data, n, blk, ans);
		memcpy(&h, ans, sizeof(h));
		if (r < 64 || h.status != FLD_ZUC_OK ||
		    le64toh(h.request_id) != blk) {
			fprintf(stderr, "fld-zuc: block %u: %s\n", blk,
				r < 0 ? c.err : "bad answer");
			rc = 1;
		} else if (h.op == FLD_ZUC_OP_EIA3) {
			printf("block %u mac %08x\n", blk, le32toh(h.mac));
		} else if (fwrite(ans + 64, 1, n, stdout) != n) {
			rc = 1;
		}
		blk++;
	}
	fclose(f);
	if (!j->local)
		fzc_close(&c);
	return rc;
}

static int test_vectors(const char *host)
{
	static uint8_t req[FZC_SLOT], ans[FZC_SLOT];
	unsigned int i, bad = 0;
	struct fzc c;

	if (fzc_connect(&c, host, 1)) {
		fprintf(stderr, "fld-zuc: %s: %s\n", host, c.err);
		return 2;
	}
	for (i = 0; i < FLD_ZUC_NVECTORS; i++) {
		const struct fld_zuc_vector *v = &fld_zuc_vectors[i];
		size_t len = fld_zv_request(v, req, 1000 + i);
		long n = fzc_call(&c, req, len, ans, sizeof(ans), 5000);
		int ok = n >= 0 && fld_zv_answer_ok(v, ans, n, 1000 + i);

		printf("%s %s\n", ok ? "ok" : "WRONG", v->name);
		bad += !ok;
	}
	fzc_close(&c);
	printf("vectors %zu wrong %u\n", FLD_ZUC_NVECTORS, bad);
	return bad ? 1 : 0;
}

static int bad_header(const char *host)
{
	static uint8_t req[FZC_SLOT], ans[FZC_SLOT];
	struct fld_zuc_hdr h;
	struct fzc c;
	long n;

	if (fzc_connect(&c, host, 1)) {
		fprintf(stderr, "fld-zuc: %s: %s\n", host, c.err);
		return 2;
	}
	memset(req, 0x5a, 20);
	n = fzc_call(&c, req, 20, ans, sizeof(ans), 5000);
	fzc_close(&c);
	if (n < (long)sizeof(h)) {
		fprintf(stderr, "fld-zuc: no answer (%ld)\n", n);
		return 1;
	}
	memcpy(&h, ans, sizeof(h));
	printf("status %u\n", h.status);
	return 0;
}

static int oversize(const char *host)
{
	static uint8_t ans[FZC_SLOT];
	struct fzc c;
	long n;

	if (fzc_connect(&c, host, 1)) {
		fprintf(stderr, "fld-zuc: %s: %s\n", host, c.err);
		return 2;
	}
	memset(fzc_req(&c, 0), 0x5a, FZC_OVERSIZE);
	n = fzc_call(&c, fzc_req(&c, 0), FZC_OVERSIZE, ans, sizeof(ans), 5000);
	if (n >= 0)
		printf("answered %ld bytes\n", n);
	else
		printf("failed: %s\n", c.err);
	fzc_close(&c);
	return n >= 0;
}

static int file_main(int argc, char **argv)
{
	struct file_job j = { .mode = argv[1] };
	int i;

	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--rdma") && i + 1 < argc) {
			j.host = argv[++i];
		} else if (!strcmp(argv[i], "--local")) {
			j.local = true;
		} else if (!strcmp(argv[i], "--key") && i + 1 < argc) {
			if (hexkey(argv[++i], j.key))
				return 2;
		} else if (!strcmp(argv[i], "--count") && i + 1 < argc) {
			j.count = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--bearer") && i + 1 < argc) {
			j.bearer = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
			j.dir = atoi(argv[++i]);
		} else if (argv[i][0] != '-' && !j.file) {
			j.file = argv[i];
		} else {
			return 2;
		}
	}
	if (!j.file || (!j.host && !j.local))
		return 2;
	return file_op(&j);
}

static const char *rdma_host(int argc, char **argv)
{
	return argc == 4 && !strcmp(argv[2], "--rdma") ? argv[3] : NULL;
}

int main(int argc, char **argv)
{
	int r;

	if (argc == 3 && !strcmp(argv[1], "serve"))
		return serve(atoi(argv[2]));
	if (argc >= 5 && !strcmp(argv[1], "rdma-load"))
		return rdma_load(argv[2], atol(argv[3]),
				 strtoul(argv[4], NULL, 0),
				 argc > 5 ? atol(argv[5]) : 1);
	if (argc >= 3 && !strcmp(argv[1], "rdma-serve"))
		return rdma_serve(argv[2], argc > 3 ? atoi(argv[3]) : 32);
	if (rdma_host(argc, argv) && !strcmp(argv[1], "test-vectors"))
		return test_vectors(rdma_host(argc, argv));
	if (rdma_host(argc, argv) && !strcmp(argv[1], "bad-header"))
		return bad_header(rdma_host(argc, argv));
	if (rdma_host(argc, argv) && !strcmp(argv[1], "oversize"))
		return oversize(rdma_host(argc, argv));
	if (argc >= 3 && (!strcmp(argv[1], "encrypt") ||
			  !strcmp(argv[1], "decrypt") ||
			  !strcmp(argv[1], "auth"))) {
		r = file_main(argc, argv);
		if (r != 2)
			return r;
	}
	if (argc >= 6 && !strcmp(argv[1], "load"))
		return load(argv[2], atoi(argv[3]), atol(argv[4]),
			    strtoul(argv[5], NULL, 0),
			    argc > 6 ? atol(argv[6]) : 1);
	fprintf(stderr, "usage: fld-zuc serve PORT\n"
		"       fld-zuc load IP PORT COUNT BITS [WINDOW]\n"
		"       fld-zuc rdma-load HOST[:PORT] COUNT BITS [WINDOW]\n"
		"       fld-zuc rdma-serve PORT [DEPTH]\n"
		"       fld-zuc encrypt|decrypt|auth (--rdma HOST[:PORT] | --local)\n"
		"               --key HEX32 [--count N] [--bearer B] [--dir D] FILE\n"
		"       fld-zuc test-vectors|bad-header|oversize --rdma HOST[:PORT]\n");
	return 2;
}
