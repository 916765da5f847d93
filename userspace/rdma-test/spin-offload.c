// SPDX-License-Identifier: GPL-2.0
/*
 * spin-offload: the host side of the offload-engine examples
 * (userspace/spin/examples/batched_read.c, list_walk.c; docs/snic-spin.md
 * "Offload engine") and their verbs-only baselines, over one RC QP.
 *
 *   spin-offload server [-d DEV] [-g GIDX] [-p PORT] FILE
 *	writes the data image to FILE (spinctl --init 0:FILE loads it into
 *	the handler's region 0), registers the same bytes as an MR for the
 *	baseline READs, prints "qpn=N", connects one client and serves it
 *	until the client is done.
 *   spin-offload client [-d DEV] [-g GIDX] [-p PORT] [-n ITERS] HOST OP ARGS...
 *	OP batch N LEN   one custom request gathers N buffers of LEN bytes
 *	OP reads N LEN   the same with N RDMA READs (posted together)
 *	OP walk DEPTH    one custom request: the node DEPTH hops down the list
 *	OP chain DEPTH   the same with a chain of DEPTH dependent READs
 *	checks every answer against the image and prints
 *	"result op=OP ... ok=1 iters=N us_per_op=X" (guest clock: modeled
 *	time in timing mode); -m MARK: insn-meter marks MARK and MARK + 1
 *	around the requests of a single operation (insn_mark.h).
 *
 * Image (DATA_SIZE bytes): byte x = pattern(x), except the list: LIST_LEN
 * nodes of 64 bytes at LIST_OFF, node i at LIST_OFF + 64 * ((i * 37) %
 * LIST_LEN), key 1000 + i, next = node i + 1, value[j] = key * 16 + j.
 * Batch buffer i is at ((i * 7) % 32) * 4096 + 8 * i.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>

#include "verbs_util.h"
#include "../../tools/insn-meter/insn_mark.h"
#include "../spin/examples/offload.h"

#define DATA_SIZE	(256 * 1024)
#define LIST_OFF	(128 * 1024)
#define LIST_LEN	64
#define RESP_SIZE	(64 * 1024)
#define DEF_PORT	18600

/* What the server tells the client. */
struct hello {
	uint32_t qpn, psn;
	uint8_t gid[16];
	uint64_t addr;		/* the image MR */
	uint32_t rkey;
	uint32_t rsvd;
};

static uint8_t pattern(uint32_t x)
{
	return (uint8_t)((x * 2654435761u) >> 13);
}

static uint32_t node_off(uint32_t i)
{
	return LIST_OFF + 64 * ((i * 37) % LIST_LEN);
}

static void image_fill(uint8_t *b)
{
	uint32_t i, j;

	for (i = 0; i < DATA_SIZE; i++)
		b[i] = pattern(i);
	for (i = 0; i < LIST_LEN; i++) {
		struct offload_node n = {
			.key = 1000 + i,
			.next = i + 1 < LIST_LEN ? node_off(i + 1) :
				OFFLOAD_NODE_END,
		};

		for (j = 0; j < 14; j++)
			n.value[j] = n.key * 16 + j;
		memcpy(b + node_off(i), &n, sizeof(n));
	}
}

static uint32_t batch_off(uint32_t i)
{
	return ((i * 7) % 32) * 4096 + 8 * i;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "spin-offload: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

struct ep {
	struct vu_dev dev;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct vu_peer peer;
	uint32_t psn;
};

static void ep_open(struct ep *e, const char *dev, int gidx)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 4,
			 .max_send_sge = 4, .max_recv_sge = 1 },
	};

	if (vu_dev_open(&e->dev, dev, 1, gidx))
		exit(1);
	e->cq = ibv_create_cq(e->dev.ctx, 128, NULL, NULL, 0);
	if (!e->cq)
		die("create_cq: %s", strerror(errno));
	ia.send_cq = ia.recv_cq = e->cq;
	e->qp = ibv_create_qp(e->dev.pd, &ia);
	if (!e->qp)
		die("create_qp: %s", strerror(errno));
	e->buf = aligned_alloc(4096, DATA_SIZE);
	if (!e->buf)
		die("no memory");
	memset(e->buf, 0, DATA_SIZE);
	e->mr = ibv_reg_mr(e->dev.pd, e->buf, DATA_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!e->mr)
		die("reg_mr: %s", strerror(errno));
	e->psn = getpid() & 0xffffff;
}

static void ep_connect(struct ep *e)
{
	const char *step;
	int r = vu_qp_connect(e->qp, &e->dev, &e->peer, e->psn, &step);

	if (r)
		die("connecting the QP (%s): %s", step, strerror(r));
}

static void hello_fill(struct hello *h, const struct ep *e)
{
	memset(h, 0, sizeof(*h));
	h->qpn = e->qp->qp_num;
	h->psn = e->psn;
	memcpy(h->gid, e->dev.gid.raw, 16);
	h->addr = (uintptr_t)e->buf;
	h->rkey = e->mr->rkey;
}

/* Exchange hellos over @fd, keep the peer's in @theirs, connect the QP. */
static void ep_meet(struct ep *e, int fd, struct hello *theirs)
{
	struct hello mine;

	hello_fill(&mine, e);
	vu_xchg(fd, &mine, theirs, sizeof(mine));
	e->peer.qpn = theirs->qpn;
	e->peer.psn = theirs->psn;
	memcpy(e->peer.gid, theirs->gid, 16);
	ep_connect(e);
}

static int server(const char *dev, int gidx, int port, const char *file)
{
	struct hello theirs;
	uint32_t done = 0;
	struct ep e;
	FILE *f;
	int fd;

	ep_open(&e, dev, gidx);
	image_fill(e.buf);
	f = fopen(file, "w");
	if (!f || fwrite(e.buf, DATA_SIZE, 1, f) != 1 || fclose(f))
		die("writing %s: %s", file, strerror(errno));
	printf("qpn=%u\n", e.qp->qp_num);
	fflush(stdout);
	fd = vu_tcp_accept(port);
	if (fd < 0)
		return 1;
	ep_meet(&e, fd, &theirs);
	/* connected; the client says when it is done */
	vu_xchg(fd, &done, &done, sizeof(done));
	printf("served\n");
	close(fd);
	return 0;
}

/* ---- client ---- */

static void post(struct ep *e, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	int r = ibv_post_send(e->qp, wr, &bad);

	if (r)
		die("post_send: %s", strerror(r));
}

/* Wait for @n completions, all successful. */
static void wait_n(struct ep *e, int n)
{
	struct ibv_wc wc[16];
	int got, i;

	while (n > 0) {
		got = ibv_poll_cq(e->cq, 16, wc);
		if (got < 0)
			die("poll_cq failed");
		for (i = 0; i < got; i++)
			if (wc[i].status != IBV_WC_SUCCESS)
				die("completion: %s (opcode %d)",
				    ibv_wc_status_str(wc[i].status),
				    wc[i].opcode);
		n -= got;
	}
}

static void custom(struct ep *e, uint8_t op, const void *req, uint32_t len,
		   uint32_t resp_len)
{
	struct ibv_sge s[2] = {
		{ (uintptr_t)req, len, 0 },
		{ (uintptr_t)e->buf, resp_len, e->mr->lkey },
	};
	struct ibv_send_wr wr = {
		.sg_list = s, .num_sge = 2, .opcode = IBV_WR_DRIVER1,
		.send_flags = IBV_SEND_SIGNALED, .imm_data = htonl(op),
	};

	post(e, &wr);
	wait_n(e, 1);
}

static void read_at(struct ep *e, const struct hello *h, uint32_t off,
		    uint32_t len, uint32_t local, bool signaled)
{
	struct ibv_sge s = { (uintptr_t)e->buf + local, len, e->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &s, .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
		.send_flags = signaled ? IBV_SEND_SIGNALED : 0,
	};

	wr.wr.rdma.remote_addr = h->addr + off;
	wr.wr.rdma.rkey = h->rkey;
	post(e, &wr);
}

/* One operation; true if its answer is right. */
static bool run_op(struct ep *e, const struct hello *h, const uint8_t *img,
		   const char *op, uint32_t a, uint32_t b)
{
	uint32_t i;

	if (!strcmp(op, "batch") || !strcmp(op, "reads")) {
		struct offload_batch_req r = { .n = a, .len = b };

		for (i = 0; i < a; i++)
			r.off[i] = batch_off(i);
		memset(e->buf, 0, a * b);
		if (op[0] == 'b') {
			custom(e, OFFLOAD_OP_BATCH, &r, 8 + 4 * a, a * b);
		} else {
			for (i = 0; i < a; i++)
				read_at(e, h, r.off[i], b, i * b, true);
			wait_n(e, a);
		}
		for (i = 0; i < a; i++)
			if (memcmp(e->buf + i * b, img + r.off[i], b))
				return false;
		return true;
	} else {
		struct offload_walk_req r = {
			.head = node_off(0), .key = 1000 + a - 1,
			.depth = LIST_LEN,
		};
		struct offload_node n;
		uint32_t off = node_off(0);

		memset(e->buf, 0, sizeof(n));
		if (op[0] == 'w') {
			custom(e, OFFLOAD_OP_WALK, &r, sizeof(r), sizeof(n));
		} else {
			/* the client chases the pointers: one READ per hop */
			for (i = 0; i < a; i++) {
				read_at(e, h, off, sizeof(n), 0, true);
				wait_n(e, 1);
				memcpy(&n, e->buf, sizeof(n));
				if (n.key == r.key)
					break;
				off = n.next;
				if (off == OFFLOAD_NODE_END)
					return false;
			}
		}
		memcpy(&n, e->buf, sizeof(n));
		return n.key == r.key &&
		       !memcmp(e->buf, img + node_off(a - 1), sizeof(n));
	}
}

/* Arguments of operation @op (1 or 2), checked; 0 if unknown. */
static int op_args(const char *op, char **argv, int argc, uint32_t *a,
		   uint32_t *b)
{
	bool batch = !strcmp(op, "batch") || !strcmp(op, "reads");

	if (!batch && strcmp(op, "walk") && strcmp(op, "chain"))
		die("unknown operation %s", op);
	if (argc < (batch ? 2 : 1))
		die("%s: missing arguments", op);
	*a = strtoul(argv[0], NULL, 0);
	*b = batch ? strtoul(argv[1], NULL, 0) : 0;
	if (batch && (!*a || *a > OFFLOAD_BATCH_MAX || !*b || *b > 4096 ||
		      *a * *b > RESP_SIZE))
		die("%s: N 1..%d, LEN 1..4096", op, OFFLOAD_BATCH_MAX);
	if (!batch && (!*a || *a > LIST_LEN))
		die("%s: DEPTH 1..%d", op, LIST_LEN);
	return batch ? 2 : 1;
}

static int client(const char *dev, int gidx, int port, int iters, int mark,
		  const char *host, char **argv, int argc)
{
	struct hello theirs;
	struct timespec t0, t1;
	uint32_t done = 1, a, b;
	bool all = true, ok;
	uint8_t *img;
	struct ep e;
	double us;
	int fd, i, k, n;

	for (k = 0; k < argc; k += n + 1)
		n = op_args(argv[k], argv + k + 1, argc - k - 1, &a, &b);
	img = malloc(DATA_SIZE);
	if (!img)
		die("no memory");
	image_fill(img);
	ep_open(&e, dev, gidx);
	fd = vu_tcp_connect(host, port);
	if (fd < 0)
		return 1;
	ep_meet(&e, fd, &theirs);
	for (k = 0; k < argc; k += n + 1) {
		n = op_args(argv[k], argv + k + 1, argc - k - 1, &a, &b);
		ok = true;
		if (mark >= 0)
			insn_mark(mark);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (i = 0; i < iters; i++)
			ok &= run_op(&e, &theirs, img, argv[k], a, b);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (mark >= 0)
			insn_mark(mark + 1);
		us = ((t1.tv_sec - t0.tv_sec) * 1e9 +
		      (t1.tv_nsec - t0.tv_nsec)) / 1e3 / iters;
		printf("result op=%s a=%u b=%u ok=%d iters=%d us_per_op=%.2f\n",
		       argv[k], a, b, ok, iters, us);
		fflush(stdout);
		all &= ok;
	}
	vu_xchg(fd, &done, &done, sizeof(done));
	close(fd);
	return all ? 0 : 3;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: spin-offload server [-d DEV] [-g GIDX] [-p PORT] FILE\n"
		"       spin-offload client [-d DEV] [-g GIDX] [-p PORT] [-n ITERS] [-m MARK] HOST\n"
		"                    (batch N LEN | reads N LEN | walk DEPTH | chain DEPTH)...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int c, gidx = -1, port = DEF_PORT, iters = 1, mark = -1;
	const char *dev = NULL;

	while ((c = getopt(argc, argv, "d:g:p:n:m:")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'g': gidx = atoi(optarg); break;
		case 'p': port = atoi(optarg); break;
		case 'n': iters = atoi(optarg); break;
		case 'm': mark = atoi(optarg); break;
		default: usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (iters < 1 || mark > 254)
		usage();
	if (argc == 2 && !strcmp(argv[0], "server"))
		return server(dev, gidx, port, argv[1]);
	if (argc >= 4 && !strcmp(argv[0], "client"))
		return client(dev, gidx, port, iters, mark, argv[1], argv + 2,
			      argc - 2);
	usage();
	return 2;
}
