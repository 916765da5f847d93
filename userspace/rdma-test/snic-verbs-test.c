// SPDX-License-Identifier: GPL-2.0
/*
 * snic-verbs-test: a verbs conformance check between two processes, over
 * plain libibverbs (runs on any RDMA device: snic, rxe, ...).
 *
 *   server:  snic-verbs-test [-d DEV] [-p PORT]
 *   client:  snic-verbs-test [-d DEV] [-p PORT] [-P PREFIX] SERVER_IP
 *
 * The two sides exchange QP numbers, GIDs, buffer addresses and keys over
 * TCP, then run each check on fresh QPs: payload bytes, immediate data,
 * atomics' results, UD, SRQ, completion events, unsignaled completions,
 * and the error paths (wrong rkey -> REM_ACCESS_ERR, out-of-bounds RDMA,
 * bad lkey -> LOC_PROT_ERR, QP in error -> flush).  The server checks its
 * side and sends its verdict; the client prints one PASS/FAIL/SKIP line
 * per check and a summary, and exits non-zero if a check failed.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "verbs_util.h"

#define BUF_SIZE	(2u << 20)	/* per endpoint, one MR */
#define ATOMIC_OFF	(BUF_SIZE - 64)	/* the server's atomic target */
#define DEPTH		128
#define MANY		100		/* messages of the pipelined check */
#define IMM		0x5a17c0deu

static int opt_timeout_ms = 30000;	/* per completion; TCG is slow */
static bool opt_rxe_lkey;		/* -L: rdma_rxe's bad-lkey status */
static bool opt_lossy;			/* -R: the wire drops packets */

/* What one side tells the other about its endpoint (network order). */
struct wire {
	uint32_t qpn, psn, rkey, ok;
	uint64_t addr, len;
	uint8_t gid[16];
	uint16_t lid;
	uint8_t pad[6];
};

struct ep {
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint32_t psn;
	uint32_t max_inline;
};

struct tc {
	bool server;
	int sock;
	struct vu_dev *dev;
	struct ep ep;
	struct vu_peer peer;
	uint32_t peer_rkey;
	uint64_t peer_addr, peer_len;
	uint32_t size;
	bool skip;
	char skip_why[128];
	char why[256];
};

enum { T_UD = 1, T_SRQ = 2, T_CHANNEL = 4 };

struct test {
	const char *name;
	unsigned int flags;
	int (*server_pre)(struct tc *t);	/* before the client starts */
	int (*client)(struct tc *t);
	int (*server_post)(struct tc *t);	/* after the client is done */
};

static int failf(struct tc *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int failf(struct tc *t, const char *fmt, ...)
{
	va_list ap;

	if (!t->why[0]) {
		va_start(ap, fmt);
		vsnprintf(t->why, sizeof(t->why), fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* ---- TCP side channel (verbs_util.c) ---- */

/* Exchange a status word; true if both sides are fine. */
static bool sync_ok(struct tc *t, bool ok)
{
	uint32_t mine = htonl(ok), theirs;

	vu_xchg(t->sock, &mine, &theirs, sizeof(mine));
	return ok && ntohl(theirs);
}

/* ---- device and endpoints ---- */

static int ep_create(struct tc *t, unsigned int flags)
{
	struct vu_dev *d = t->dev;
	struct ep *e = &t->ep;
	struct ibv_qp_init_attr ia = {
		.qp_type = flags & T_UD ? IBV_QPT_UD : IBV_QPT_RC,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = DEPTH,
			 .max_send_sge = 4, .max_recv_sge = 4,
			 .max_inline_data = flags & T_UD ? 0 : 64 },
	};
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;

	e->buf = aligned_alloc(4096, BUF_SIZE);
	if (!e->buf)
		return failf(t, "no memory");
	memset(e->buf, 0, BUF_SIZE);
	e->mr = ibv_reg_mr(d->pd, e->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	if (!e->mr)
		return failf(t, "ibv_reg_mr: %s", strerror(errno));
	if (flags & T_CHANNEL) {
		e->ch = ibv_create_comp_channel(d->ctx);
		if (!e->ch)
			return failf(t, "ibv_create_comp_channel: %s",
				     strerror(errno));
	}
	e->cq = ibv_create_cq(d->ctx, 2 * DEPTH + 8, NULL, e->ch, 0);
	if (!e->cq)
		return failf(t, "ibv_create_cq: %s", strerror(errno));
	if (flags & T_SRQ) {
		struct ibv_srq_init_attr sa = {
			.attr = { .max_wr = DEPTH, .max_sge = 4 } };

		e->srq = ibv_create_srq(d->pd, &sa);
		if (!e->srq)
			return failf(t, "ibv_create_srq: %s", strerror(errno));
		ia.srq = e->srq;
	}
	ia.send_cq = e->cq;
	ia.recv_cq = e->cq;
	e->qp = ibv_create_qp(d->pd, &ia);
	if (!e->qp)
		return failf(t, "ibv_create_qp: %s", strerror(errno));
	if (ibv_query_qp(e->qp, &qa, IBV_QP_CAP, &qia))
		return failf(t, "ibv_query_qp: %s", strerror(errno));
	e->max_inline = qia.cap.max_inline_data;
	e->psn = lrand48() & 0xffffff;
	return 0;
}

static void ep_destroy(struct ep *e)
{
	if (e->qp)
		ibv_destroy_qp(e->qp);
	if (e->srq)
		ibv_destroy_srq(e->srq);
	if (e->cq)
		ibv_destroy_cq(e->cq);
	if (e->ch)
		ibv_destroy_comp_channel(e->ch);
	if (e->mr)
		ibv_dereg_mr(e->mr);
	free(e->buf);
	memset(e, 0, sizeof(*e));
}

static int ep_connect(struct tc *t)
{
	const char *step;
	int r = vu_qp_connect(t->ep.qp, t->dev, &t->peer, t->ep.psn, &step);

	return r ? failf(t, "modify to %s: %s", step, strerror(r)) : 0;
}

/* ---- helpers for the checks ---- */

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Poll @n completions into @wc within the timeout. */
static int wait_wc(struct tc *t, struct ibv_wc *wc, int n, const char *what)
{
	long end = now_ms() + opt_timeout_ms;
	int got = 0, r;

	while (got < n) {
		r = ibv_poll_cq(t->ep.cq, n - got, wc + got);
		if (r < 0)
			return failf(t, "%s: ibv_poll_cq failed", what);
		got += r;
		if (got < n) {
			if (now_ms() > end)
				return failf(t, "%s: %d of %d completions in %d ms",
					     what, got, n, opt_timeout_ms);
			if (!r)
				usleep(200);
		}
	}
	return 0;
}

/* No further completion arrives within @ms. */
static int expect_quiet(struct tc *t, int ms, const char *what)
{
	long end = now_ms() + ms;
	struct ibv_wc wc;

	while (now_ms() < end) {
		if (ibv_poll_cq(t->ep.cq, 1, &wc) > 0)
			return failf(t, "%s: unexpected completion wr_id %llu "
				     "status %s", what,
				     (unsigned long long)wc.wr_id,
				     ibv_wc_status_str(wc.status));
		usleep(1000);
	}
	return 0;
}

static int check_wc(struct tc *t, const struct ibv_wc *wc, uint64_t wr_id,
		    enum ibv_wc_status st, int opcode, const char *what)
{
	if (wc->status != st)
		return failf(t, "%s: status %s (vendor %u), want %s", what,
			     ibv_wc_status_str(wc->status), wc->vendor_err,
			     ibv_wc_status_str(st));
	if (wc->wr_id != wr_id)
		return failf(t, "%s: wr_id %llu, want %llu", what,
			     (unsigned long long)wc->wr_id,
			     (unsigned long long)wr_id);
	if (st == IBV_WC_SUCCESS && opcode >= 0 && (int)wc->opcode != opcode)
		return failf(t, "%s: opcode %d, want %d", what, wc->opcode,
			     opcode);
	return 0;
}

static uint8_t pat(uint32_t seed, size_t i)
{
	return (uint8_t)((i * 131 + seed * 7 + (i >> 8)) ^ seed);
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = pat(seed, i);
}

static int verify(struct tc *t, const uint8_t *p, size_t n, uint32_t seed,
		  const char *what)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != pat(seed, i))
			return failf(t, "%s: byte %zu is 0x%02x, want 0x%02x",
				     what, i, p[i], pat(seed, i));
	return 0;
}

static int post_recv1(struct tc *t, uint64_t wr_id, void *addr, uint32_t len)
{
	struct ibv_sge s = { .addr = (uintptr_t)addr, .length = len,
			     .lkey = t->ep.mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &s,
				  .num_sge = len ? 1 : 0 }, *bad;
	int r;

	r = t->ep.srq ? ibv_post_srq_recv(t->ep.srq, &wr, &bad) :
			ibv_post_recv(t->ep.qp, &wr, &bad);
	return r ? failf(t, "post_recv: %s", strerror(r)) : 0;
}

/* One work request with one local buffer. */
static int post1(struct tc *t, enum ibv_wr_opcode op, uint64_t wr_id,
		 void *addr, uint32_t len, uint32_t lkey, uint64_t raddr,
		 uint32_t rkey, unsigned int flags)
{
	struct ibv_sge s = { .addr = (uintptr_t)addr, .length = len,
			     .lkey = lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &s, .num_sge = 1,
				  .opcode = op, .send_flags = flags }, *bad;
	int r;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM)
		wr.imm_data = htonl(IMM);
	r = ibv_post_send(t->ep.qp, &wr, &bad);
	return r ? failf(t, "post_send: %s", strerror(r)) : 0;
}

/* ---- the checks ---- */

static int srv_recv_pre(struct tc *t)
{
	return post_recv1(t, 7, t->ep.buf, t->size);
}

static int srv_recv_post(struct tc *t, bool imm)
{
	struct ibv_wc wc;

	if (wait_wc(t, &wc, 1, "receive") ||
	    check_wc(t, &wc, 7, IBV_WC_SUCCESS, IBV_WC_RECV, "receive"))
		return -1;
	if (wc.byte_len != t->size)
		return failf(t, "receive byte_len %u, want %u", wc.byte_len,
			     t->size);
	if (imm && (!(wc.wc_flags & IBV_WC_WITH_IMM) ||
		    ntohl(wc.imm_data) != IMM))
		return failf(t, "immediate data missing or 0x%x",
			     ntohl(wc.imm_data));
	if (!imm && (wc.wc_flags & IBV_WC_WITH_IMM))
		return failf(t, "unexpected immediate data");
	return verify(t, t->ep.buf, t->size, 1, "received payload");
}

static int srv_send_post(struct tc *t) { return srv_recv_post(t, false); }
static int srv_send_imm_post(struct tc *t) { return srv_recv_post(t, true); }

static int cli_send_common(struct tc *t, enum ibv_wr_opcode op,
			   unsigned int flags)
{
	struct ibv_wc wc;

	fill(t->ep.buf, t->size, 1);
	if (post1(t, op, 11, t->ep.buf, t->size, t->ep.mr->lkey, 0, 0,
		  IBV_SEND_SIGNALED | flags) ||
	    wait_wc(t, &wc, 1, "send"))
		return -1;
	return check_wc(t, &wc, 11, IBV_WC_SUCCESS, IBV_WC_SEND, "send");
}

static int cli_send(struct tc *t)
{
	return cli_send_common(t, IBV_WR_SEND, 0);
}

static int cli_send_imm(struct tc *t)
{
	return cli_send_common(t, IBV_WR_SEND_WITH_IMM, 0);
}

static int srv_inline_pre(struct tc *t)
{
	t->size = 32;
	return srv_recv_pre(t);
}

static int srv_inline_post(struct tc *t)
{
	t->size = 32;
	return srv_recv_post(t, false);
}

static int cli_send_inline(struct tc *t)
{
	int r;

	t->size = 32;
	if (t->ep.max_inline < t->size) {
		t->skip = true;
		snprintf(t->skip_why, sizeof(t->skip_why),
			 "max_inline_data %u < %u", t->ep.max_inline, t->size);
		/* The server still waits for a message: send it normally. */
		return cli_send_common(t, IBV_WR_SEND, 0);
	}
	r = cli_send_common(t, IBV_WR_SEND, IBV_SEND_INLINE);
	/* The local buffer is not needed after posting: scribble it. */
	memset(t->ep.buf, 0, t->size);
	return r;
}

static int srv_write_post(struct tc *t)
{
	return verify(t, t->ep.buf + 4096, t->size, 2, "written data");
}

static int cli_write(struct tc *t)
{
	struct ibv_wc wc;

	fill(t->ep.buf, t->size, 2);
	if (post1(t, IBV_WR_RDMA_WRITE, 12, t->ep.buf, t->size, t->ep.mr->lkey,
		  t->peer_addr + 4096, t->peer_rkey, IBV_SEND_SIGNALED) ||
	    wait_wc(t, &wc, 1, "write"))
		return -1;
	return check_wc(t, &wc, 12, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, "write");
}

/*
 * An MR registered with an optional access flag (relaxed ordering: a hint
 * a device may ignore) works: a WRITE from it lands at the server.
 */
static int cli_mr_optional(struct tc *t)
{
	uint8_t *buf = aligned_alloc(4096, 8192);
	struct ibv_mr *mr;
	struct ibv_wc wc;
	int r;

	if (!buf)
		return failf(t, "no memory");
	fill(buf, t->size < 8192 ? t->size : 8192, 2);
	mr = ibv_reg_mr(t->dev->pd, buf, 8192, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_RELAXED_ORDERING);
	if (!mr) {
		r = failf(t, "ibv_reg_mr(RELAXED_ORDERING): %s",
			  strerror(errno));
		free(buf);
		return r;
	}
	r = post1(t, IBV_WR_RDMA_WRITE, 13, buf, t->size < 8192 ? t->size :
		  8192, mr->lkey, t->peer_addr + 4096, t->peer_rkey,
		  IBV_SEND_SIGNALED) || wait_wc(t, &wc, 1, "write") ||
	    check_wc(t, &wc, 13, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, "write");
	ibv_dereg_mr(mr);
	free(buf);
	return r ? -1 : 0;
}

static int srv_mr_optional_post(struct tc *t)
{
	return verify(t, t->ep.buf + 4096, t->size < 8192 ? t->size : 8192, 2,
		      "written data");
}

/*
 * ibv_resize_cq with completions pending: three rounds of RESIZE_N
 * signaled WRITEs, each left in the CQ for a while, then the CQ grows,
 * shrinks (still above what is pending) and grows again; every
 * completion comes out once, in order, and the data landed.
 */
#define RESIZE_N	16
#define RESIZE_ROUNDS	3

static int cli_cq_resize(struct tc *t)
{
	static const int sizes[RESIZE_ROUNDS] = { 1000, 40, 600 };
	struct ibv_wc wc[RESIZE_N];
	int r, i, k;

	for (r = 0; r < RESIZE_ROUNDS; r++) {
		for (i = 0; i < RESIZE_N; i++) {
			k = r * RESIZE_N + i;
			fill(t->ep.buf + k * 4096, 4096, 100 + k);
			if (post1(t, IBV_WR_RDMA_WRITE, 1000 + k,
				  t->ep.buf + k * 4096, 4096, t->ep.mr->lkey,
				  t->peer_addr + 4096 + k * 4096, t->peer_rkey,
				  IBV_SEND_SIGNALED))
				return -1;
		}
		usleep(300000);		/* the completions wait in the ring */
		errno = ibv_resize_cq(t->ep.cq, sizes[r]);
		if (errno)
			return failf(t, "ibv_resize_cq(%d): %s", sizes[r],
				     strerror(errno));
		if (t->ep.cq->cqe < sizes[r])
			return failf(t, "resized to %d entries, asked %d",
				     t->ep.cq->cqe, sizes[r]);
		if (wait_wc(t, wc, RESIZE_N, "after resize"))
			return -1;
		for (i = 0; i < RESIZE_N; i++)
			if (check_wc(t, &wc[i], 1000 + r * RESIZE_N + i,
				     IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
				     "after resize"))
				return -1;
	}
	return expect_quiet(t, 100, "after the last resize");
}

static int srv_cq_resize_post(struct tc *t)
{
	int k;

	for (k = 0; k < RESIZE_ROUNDS * RESIZE_N; k++)
		if (verify(t, t->ep.buf + 4096 + k * 4096, 4096, 100 + k,
			   "written data"))
			return -1;
	return 0;
}

/*
 * Objects of exactly the sizes the device advertises (ibv_query_device)
 * are created; one more entry is EINVAL, never another error or a kernel
 * warning (the guest script checks dmesg afterwards).
 */
static int limit_qp(struct tc *t, struct ibv_cq *cq, struct ibv_srq *srq,
		    uint32_t swr, uint32_t rwr, uint32_t sge)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC, .send_cq = cq, .recv_cq = cq, .srq = srq,
		.cap = { .max_send_wr = swr, .max_recv_wr = srq ? 0 : rwr,
			 .max_send_sge = sge, .max_recv_sge = srq ? 0 : sge },
	};
	struct ibv_qp *qp;

	qp = ibv_create_qp(t->dev->pd, &ia);
	if (!qp)
		return errno ? errno : EIO;
	ibv_destroy_qp(qp);
	return 0;
}

static int limit_srq(struct tc *t, uint32_t wr, uint32_t sge)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = wr, .max_sge = sge } };
	struct ibv_srq *srq = ibv_create_srq(t->dev->pd, &sa);

	if (!srq)
		return errno ? errno : EIO;
	ibv_destroy_srq(srq);
	return 0;
}

static int limit_cq(struct tc *t, int cqe)
{
	struct ibv_cq *cq = ibv_create_cq(t->dev->ctx, cqe, NULL, NULL, 0);

	if (!cq)
		return errno ? errno : EIO;
	ibv_destroy_cq(cq);
	return 0;
}

#define LIMIT(what, call, want) do {					\
	int err_ = (call);						\
	if (err_ != (want))						\
		return failf(t, "%s: %s, want %s", what,		\
			     err_ ? strerror(err_) : "created",		\
			     (want) ? strerror(want) : "created");	\
} while (0)

static int cli_limits(struct tc *t)
{
	struct ibv_device_attr a;
	uint32_t w, g;

	if (ibv_query_device(t->dev->ctx, &a))
		return failf(t, "ibv_query_device: %s", strerror(errno));
	if (a.vendor_id != 0x1234) {	/* e.g. rdma_rxe as the client */
		t->skip = true;
		snprintf(t->skip_why, sizeof(t->skip_why), "not a snic");
		return 0;
	}
	w = a.max_qp_wr;
	g = a.max_sge;
	printf("# limits: max_qp_wr %u max_sge %u max_cqe %d max_srq_wr %u "
	       "max_srq_sge %u\n", w, g, a.max_cqe, a.max_srq_wr,
	       a.max_srq_sge);
	LIMIT("CQ of max_cqe", limit_cq(t, a.max_cqe), 0);
	LIMIT("CQ of max_cqe + 1", limit_cq(t, a.max_cqe + 1), EINVAL);
	LIMIT("QP of max_qp_wr, max_sge", limit_qp(t, t->ep.cq, NULL, w, w, g),
	      0);
	LIMIT("QP of max_qp_wr + 1 sends", limit_qp(t, t->ep.cq, NULL, w + 1,
						    1, 1), EINVAL);
	LIMIT("QP of max_qp_wr + 1 receives",
	      limit_qp(t, t->ep.cq, NULL, 1, w + 1, 1), EINVAL);
	LIMIT("QP of max_sge + 1", limit_qp(t, t->ep.cq, NULL, 1, 1, g + 1),
	      EINVAL);
	LIMIT("SRQ of max_srq_wr, max_srq_sge",
	      limit_srq(t, a.max_srq_wr, a.max_srq_sge), 0);
	LIMIT("SRQ of max_srq_wr + 1", limit_srq(t, a.max_srq_wr + 1, 1),
	      EINVAL);
	LIMIT("SRQ of max_srq_sge + 1", limit_srq(t, 1, a.max_srq_sge + 1),
	      EINVAL);
	return 0;
}

/* ibv_modify_cq moderation of the test's CQ; 0 or an errno. */
static int cq_moderate(struct tc *t, uint16_t count, uint16_t period_us)
{
	struct ibv_modify_cq_attr a = {
		.attr_mask = IBV_CQ_ATTR_MODERATE,
		.moderate = { .cq_count = count, .cq_period = period_us },
	};

	return ibv_modify_cq(t->ep.cq, &a);
}

/* @n signaled 64-byte WRITEs to the peer, wr_id @id.. */
static int post_writes(struct tc *t, int n, uint64_t id)
{
	int i;

	for (i = 0; i < n; i++)
		if (post1(t, IBV_WR_RDMA_WRITE, id + i, t->ep.buf, 64,
			  t->ep.mr->lkey, t->peer_addr + 4096, t->peer_rkey,
			  IBV_SEND_SIGNALED))
			return -1;
	return 0;
}

/* The completion channel's event within @ms: 1, none: 0, error: -1. */
static int channel_event(struct tc *t, int ms)
{
	struct pollfd pfd = { .fd = t->ep.ch->fd, .events = POLLIN };
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int r = poll(&pfd, 1, ms);

	if (r <= 0)
		return r < 0 ? failf(t, "poll: %s", strerror(errno)) : 0;
	if (ibv_get_cq_event(t->ep.ch, &ev_cq, &ev_ctx))
		return failf(t, "ibv_get_cq_event: %s", strerror(errno));
	ibv_ack_cq_events(ev_cq, 1);
	if (ev_cq != t->ep.cq)
		return failf(t, "event for another CQ");
	return 1;
}

/*
 * ibv_modify_cq (CQ moderation): with count 4 an armed CQ stays quiet
 * for 3 completions and raises its event at the 4th; with count 100 and
 * period 50 ms one completion raises it after the period, not at once.
 */
static int cli_cq_moderation(struct tc *t)
{
	struct ibv_device_attr_ex dx;
	struct ibv_modify_cq_attr bad = { .attr_mask = 0 };
	struct ibv_wc wc[4];
	long t0, dt;
	int r;

	if (ibv_query_device_ex(t->dev->ctx, NULL, &dx))
		return failf(t, "ibv_query_device_ex failed");
	if (!dx.cq_mod_caps.max_cq_count && !dx.cq_mod_caps.max_cq_period) {
		/* e.g. rdma_rxe: no CQ moderation at all */
		t->skip = true;
		snprintf(t->skip_why, sizeof(t->skip_why),
			 "the device reports no CQ moderation");
		return 0;
	}
	if (dx.cq_mod_caps.max_cq_count < 100 ||
	    dx.cq_mod_caps.max_cq_period < 50000)
		return failf(t, "moderation caps count %u period %u",
			     dx.cq_mod_caps.max_cq_count,
			     dx.cq_mod_caps.max_cq_period);
	if (!ibv_modify_cq(t->ep.cq, &bad))
		return failf(t, "ibv_modify_cq with no attribute succeeded");
	/* count 4 (the period is off: a u16 of us is shorter than 200 ms) */
	errno = cq_moderate(t, 4, 0);
	if (errno)
		return failf(t, "ibv_modify_cq(4, 0): %s", strerror(errno));
	if (ibv_req_notify_cq(t->ep.cq, 0))
		return failf(t, "ibv_req_notify_cq failed");
	if (post_writes(t, 3, 300) || wait_wc(t, wc, 3, "3 writes"))
		return -1;
	r = channel_event(t, 200);
	if (r)
		return r < 0 ? -1 : failf(t, "event after 3 of 4 completions");
	if (post_writes(t, 1, 303))
		return -1;
	r = channel_event(t, opt_timeout_ms);
	if (r <= 0)
		return r < 0 ? -1 : failf(t, "no event after 4 completions");
	if (wait_wc(t, wc, 1, "4th write") ||
	    check_wc(t, &wc[0], 303, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
		     "4th write"))
		return -1;
	/* count 100, period 50 ms: one completion, the event after the period */
	errno = cq_moderate(t, 100, 50000);
	if (errno)
		return failf(t, "ibv_modify_cq(100, 50000): %s",
			     strerror(errno));
	if (ibv_req_notify_cq(t->ep.cq, 0))
		return failf(t, "ibv_req_notify_cq failed");
	t0 = now_ms();
	if (post_writes(t, 1, 310))
		return -1;
	r = channel_event(t, opt_timeout_ms);
	dt = now_ms() - t0;
	if (r <= 0)
		return r < 0 ? -1 : failf(t, "no event for 1 completion");
	if (dt < 45 || dt > 5000)
		return failf(t, "event %ld ms after the post, period 50 ms", dt);
	if (wait_wc(t, wc, 1, "period write") ||
	    check_wc(t, &wc[0], 310, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
		     "period write"))
		return -1;
	errno = cq_moderate(t, 0, 0);
	if (errno)
		return failf(t, "ibv_modify_cq(0, 0): %s", strerror(errno));
	printf("# cq_moderation: period event after %ld ms\n", dt);
	return expect_quiet(t, 100, "after moderation");
}

/* ibv_reg_mr of @p fails with EFAULT (and nothing is registered). */
static int reg_must_fault(struct tc *t, void *p, size_t len, int access,
			  const char *what)
{
	struct ibv_mr *mr = ibv_reg_mr(t->dev->pd, p, len, access);

	if (mr) {
		ibv_dereg_mr(mr);
		return failf(t, "%s: ibv_reg_mr succeeded", what);
	}
	if (errno != EFAULT)
		return failf(t, "%s: errno %d (%s), want EFAULT", what, errno,
			     strerror(errno));
	return 0;
}

/*
 * Registering memory the process cannot access fails cleanly: a PROT_NONE
 * mapping, a range that was unmapped, a writable MR over read-only pages,
 * a range running off the end of a mapping.  The device still works.
 */
static int cli_mr_unmapped(struct tc *t)
{
	const int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *m;
	int r;

	m = mmap(NULL, 4 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return failf(t, "mmap: %s", strerror(errno));
	r = reg_must_fault(t, m, 4 * pg, rw, "PROT_NONE");
	if (!r && mprotect(m, 2 * pg, PROT_READ))
		r = failf(t, "mprotect: %s", strerror(errno));
	if (!r)
		r = reg_must_fault(t, m, 2 * pg, rw, "read-only, writable MR");
	if (!r && mprotect(m, 2 * pg, PROT_READ | PROT_WRITE))
		r = failf(t, "mprotect: %s", strerror(errno));
	if (!r)
		r = reg_must_fault(t, m, 4 * pg, IBV_ACCESS_LOCAL_WRITE,
				   "runs into PROT_NONE");
	munmap(m, 4 * pg);
	if (!r)
		r = reg_must_fault(t, m, 2 * pg, IBV_ACCESS_LOCAL_WRITE,
				   "munmapped");
	if (r)
		return r;
	/* nothing broke: an ordinary WRITE still completes */
	return cli_write(t);
}

static int srv_write_imm_pre(struct tc *t)
{
	return post_recv1(t, 8, NULL, 0);
}

static int srv_write_imm_post(struct tc *t)
{
	struct ibv_wc wc;

	if (wait_wc(t, &wc, 1, "write-imm receive") ||
	    check_wc(t, &wc, 8, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM,
		     "write-imm receive"))
		return -1;
	if (!(wc.wc_flags & IBV_WC_WITH_IMM) || ntohl(wc.imm_data) != IMM)
		return failf(t, "immediate data missing or 0x%x",
			     ntohl(wc.imm_data));
	if (wc.byte_len != t->size)
		return failf(t, "write-imm byte_len %u, want %u", wc.byte_len,
			     t->size);
	return verify(t, t->ep.buf + 4096, t->size, 3, "written data");
}

static int cli_write_imm(struct tc *t)
{
	struct ibv_wc wc;

	fill(t->ep.buf, t->size, 3);
	if (post1(t, IBV_WR_RDMA_WRITE_WITH_IMM, 13, t->ep.buf, t->size,
		  t->ep.mr->lkey, t->peer_addr + 4096, t->peer_rkey,
		  IBV_SEND_SIGNALED) ||
	    wait_wc(t, &wc, 1, "write-imm"))
		return -1;
	return check_wc(t, &wc, 13, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
			"write-imm");
}

static int srv_read_pre(struct tc *t)
{
	fill(t->ep.buf + 8192, t->size, 4);
	return 0;
}

static int cli_read(struct tc *t)
{
	struct ibv_wc wc;

	if (post1(t, IBV_WR_RDMA_READ, 14, t->ep.buf, t->size, t->ep.mr->lkey,
		  t->peer_addr + 8192, t->peer_rkey, IBV_SEND_SIGNALED) ||
	    wait_wc(t, &wc, 1, "read") ||
	    check_wc(t, &wc, 14, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, "read"))
		return -1;
	if (wc.byte_len != t->size)
		return failf(t, "read byte_len %u, want %u", wc.byte_len,
			     t->size);
	return verify(t, t->ep.buf, t->size, 4, "read data");
}

/* A message without data: zero bytes, the immediate only. */
static int srv_zero_pre(struct tc *t)
{
	return post_recv1(t, 17, t->ep.buf, 64);
}

static int srv_zero_post(struct tc *t)
{
	struct ibv_wc wc;

	if (wait_wc(t, &wc, 1, "receive") ||
	    check_wc(t, &wc, 17, IBV_WC_SUCCESS, IBV_WC_RECV, "receive"))
		return -1;
	if (wc.byte_len != 0)
		return failf(t, "zero-length message: byte_len %u", wc.byte_len);
	if (!(wc.wc_flags & IBV_WC_WITH_IMM) || ntohl(wc.imm_data) != IMM)
		return failf(t, "immediate data missing or 0x%x",
			     ntohl(wc.imm_data));
	return 0;
}

static int cli_zero(struct tc *t)
{
	struct ibv_send_wr wr = { .wr_id = 18, .num_sge = 0,
				  .opcode = IBV_WR_SEND_WITH_IMM,
				  .send_flags = IBV_SEND_SIGNALED,
				  .imm_data = htonl(IMM) }, *bad;
	struct ibv_wc wc;
	int r = ibv_post_send(t->ep.qp, &wr, &bad);

	if (r)
		return failf(t, "post_send: %s", strerror(r));
	if (wait_wc(t, &wc, 1, "send"))
		return -1;
	return check_wc(t, &wc, 18, IBV_WC_SUCCESS, IBV_WC_SEND, "send");
}

/* READ scattered into two local pieces. */
static int cli_read_sge(struct tc *t)
{
	uint8_t *b = t->ep.buf, whole[3000];
	struct ibv_sge s[2] = {
		{ (uintptr_t)b, 1000, t->ep.mr->lkey },
		{ (uintptr_t)b + 8192, 2000, t->ep.mr->lkey } };
	struct ibv_send_wr wr = { .wr_id = 19, .sg_list = s, .num_sge = 2,
				  .opcode = IBV_WR_RDMA_READ,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	int r;

	wr.wr.rdma.remote_addr = t->peer_addr + 8192;
	wr.wr.rdma.rkey = t->peer_rkey;
	r = ibv_post_send(t->ep.qp, &wr, &bad);
	if (r)
		return failf(t, "post_send: %s", strerror(r));
	if (wait_wc(t, &wc, 1, "read") ||
	    check_wc(t, &wc, 19, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, "read"))
		return -1;
	memcpy(whole, b, 1000);
	memcpy(whole + 1000, b + 8192, 2000);
	return verify(t, whole, 3000, 4, "read data");
}

/* Large transfers: 1 MiB written then read back (many MTUs). */
static int srv_large_pre(struct tc *t)
{
	fill(t->ep.buf + (1u << 20), 1u << 20, 9);
	return 0;
}

static int srv_large_post(struct tc *t)
{
	return verify(t, t->ep.buf, 1u << 20, 10, "1 MiB written");
}

static int cli_large(struct tc *t)
{
	struct ibv_wc wc[2];

	fill(t->ep.buf, 1u << 20, 10);
	if (post1(t, IBV_WR_RDMA_WRITE, 15, t->ep.buf, 1u << 20,
		  t->ep.mr->lkey, t->peer_addr, t->peer_rkey,
		  IBV_SEND_SIGNALED) ||
	    post1(t, IBV_WR_RDMA_READ, 16, t->ep.buf + (1u << 20), 1u << 20,
		  t->ep.mr->lkey, t->peer_addr + (1u << 20), t->peer_rkey,
		  IBV_SEND_SIGNALED) ||
	    wait_wc(t, wc, 2, "1 MiB write+read") ||
	    check_wc(t, &wc[0], 15, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, "write") ||
	    check_wc(t, &wc[1], 16, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, "read"))
		return -1;
	return verify(t, t->ep.buf + (1u << 20), 1u << 20, 9, "1 MiB read");
}

static uint64_t *srv_atomic_word(struct tc *t)
{
	return (uint64_t *)(t->ep.buf + ATOMIC_OFF);
}

static int post_atomic(struct tc *t, enum ibv_wr_opcode op, uint64_t wr_id,
		       uint64_t *result, uint64_t compare_add, uint64_t swap)
{
	struct ibv_sge s = { .addr = (uintptr_t)result, .length = 8,
			     .lkey = t->ep.mr->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &s, .num_sge = 1,
				  .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	int r;

	wr.wr.atomic.remote_addr = t->peer_addr + ATOMIC_OFF;
	wr.wr.atomic.rkey = t->peer_rkey;
	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
	r = ibv_post_send(t->ep.qp, &wr, &bad);
	return r ? failf(t, "post atomic: %s", strerror(r)) : 0;
}

#define CAS_OLD	0x1122334455667788ull
#define CAS_NEW	0xa5a5a5a5deadbeefull
#define CAS_BAD	0x0102030405060708ull

static int srv_cas_pre(struct tc *t)
{
	*srv_atomic_word(t) = CAS_OLD;
	return 0;
}

static int srv_cas_post(struct tc *t)
{
	uint64_t v = *srv_atomic_word(t);

	return v == CAS_NEW ? 0 :
	       failf(t, "target after CAS is 0x%llx, want 0x%llx",
		     (unsigned long long)v, (unsigned long long)CAS_NEW);
}

static int cli_cas(struct tc *t)
{
	uint64_t *res = (uint64_t *)t->ep.buf;
	struct ibv_wc wc;

	res[0] = res[1] = 0;
	/* Matching compare: swaps; then a stale compare: leaves it. */
	if (post_atomic(t, IBV_WR_ATOMIC_CMP_AND_SWP, 21, &res[0], CAS_OLD,
			CAS_NEW) ||
	    wait_wc(t, &wc, 1, "CAS") ||
	    check_wc(t, &wc, 21, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP, "CAS"))
		return -1;
	if (post_atomic(t, IBV_WR_ATOMIC_CMP_AND_SWP, 22, &res[1], CAS_OLD,
			CAS_BAD) ||
	    wait_wc(t, &wc, 1, "CAS 2") ||
	    check_wc(t, &wc, 22, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP, "CAS 2"))
		return -1;
	if (res[0] != CAS_OLD || res[1] != CAS_NEW)
		return failf(t, "CAS returned 0x%llx, 0x%llx; want 0x%llx, 0x%llx",
			     (unsigned long long)res[0],
			     (unsigned long long)res[1],
			     (unsigned long long)CAS_OLD,
			     (unsigned long long)CAS_NEW);
	return 0;
}

static int srv_faa_pre(struct tc *t)
{
	*srv_atomic_word(t) = 1000;
	return 0;
}

static int srv_faa_post(struct tc *t)
{
	uint64_t v = *srv_atomic_word(t);

	return v == 1000 + 5 + 0x100000000ull ? 0 :
	       failf(t, "target after FAA is %llu", (unsigned long long)v);
}

static int cli_faa(struct tc *t)
{
	uint64_t *res = (uint64_t *)t->ep.buf;
	struct ibv_wc wc;

	res[0] = res[1] = 0;
	if (post_atomic(t, IBV_WR_ATOMIC_FETCH_AND_ADD, 31, &res[0], 5, 0) ||
	    wait_wc(t, &wc, 1, "FAA") ||
	    check_wc(t, &wc, 31, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, "FAA") ||
	    post_atomic(t, IBV_WR_ATOMIC_FETCH_AND_ADD, 32, &res[1],
			0x100000000ull, 0) ||
	    wait_wc(t, &wc, 1, "FAA 2") ||
	    check_wc(t, &wc, 32, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, "FAA 2"))
		return -1;
	if (res[0] != 1000 || res[1] != 1005)
		return failf(t, "FAA returned %llu, %llu; want 1000, 1005",
			     (unsigned long long)res[0],
			     (unsigned long long)res[1]);
	return 0;
}

/* Gather three pieces, scatter into two. */
static int srv_sge_pre(struct tc *t)
{
	struct ibv_sge s[2] = {
		{ (uintptr_t)t->ep.buf, 100, t->ep.mr->lkey },
		{ (uintptr_t)t->ep.buf + 4096, 4000, t->ep.mr->lkey } };
	struct ibv_recv_wr wr = { .wr_id = 41, .sg_list = s, .num_sge = 2 };
	struct ibv_recv_wr *bad;
	int r = ibv_post_recv(t->ep.qp, &wr, &bad);

	return r ? failf(t, "post_recv 2 sges: %s", strerror(r)) : 0;
}

static int srv_sge_post(struct tc *t)
{
	struct ibv_wc wc;
	uint8_t whole[3000];

	if (wait_wc(t, &wc, 1, "receive") ||
	    check_wc(t, &wc, 41, IBV_WC_SUCCESS, IBV_WC_RECV, "receive"))
		return -1;
	if (wc.byte_len != 3000)
		return failf(t, "byte_len %u, want 3000", wc.byte_len);
	memcpy(whole, t->ep.buf, 100);
	memcpy(whole + 100, t->ep.buf + 4096, 2900);
	return verify(t, whole, 3000, 5, "scattered payload");
}

static int cli_sge(struct tc *t)
{
	uint8_t *b = t->ep.buf;
	struct ibv_sge s[3] = {
		{ (uintptr_t)b + 8192, 1000, t->ep.mr->lkey },
		{ (uintptr_t)b + 8192 + 1000, 1500, t->ep.mr->lkey },
		{ (uintptr_t)b + 8192 + 2500, 500, t->ep.mr->lkey } };
	struct ibv_send_wr wr = { .wr_id = 42, .sg_list = s, .num_sge = 3,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	int r;

	fill(b + 8192, 3000, 5);
	r = ibv_post_send(t->ep.qp, &wr, &bad);
	if (r)
		return failf(t, "post_send 3 sges: %s", strerror(r));
	if (wait_wc(t, &wc, 1, "send"))
		return -1;
	return check_wc(t, &wc, 42, IBV_WC_SUCCESS, IBV_WC_SEND, "send");
}

/* Eight unsignaled writes and one signaled: exactly one completion. */
static int srv_unsig_post(struct tc *t)
{
	int i;

	for (i = 0; i < 9; i++)
		if (verify(t, t->ep.buf + i * 4096, 512, 50 + i, "written data"))
			return -1;
	return 0;
}

static int cli_unsig(struct tc *t)
{
	struct ibv_wc wc;
	int i;

	for (i = 0; i < 9; i++) {
		fill(t->ep.buf + i * 4096, 512, 50 + i);
		if (post1(t, IBV_WR_RDMA_WRITE, 60 + i, t->ep.buf + i * 4096,
			  512, t->ep.mr->lkey, t->peer_addr + i * 4096,
			  t->peer_rkey, i == 8 ? IBV_SEND_SIGNALED : 0))
			return -1;
	}
	if (wait_wc(t, &wc, 1, "signaled write") ||
	    check_wc(t, &wc, 68, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
		     "signaled write"))
		return -1;
	return expect_quiet(t, 300, "unsignaled writes");
}

/* MANY sends through a small window: the rings wrap several times. */
static int srv_many_pre(struct tc *t)
{
	int i;

	for (i = 0; i < MANY; i++)
		if (post_recv1(t, 1000 + i, t->ep.buf + i * 256, 256))
			return -1;
	return 0;
}

static int srv_many_post(struct tc *t)
{
	struct ibv_wc wc;
	int i;

	for (i = 0; i < MANY; i++) {
		if (wait_wc(t, &wc, 1, "receive") ||
		    check_wc(t, &wc, 1000 + i, IBV_WC_SUCCESS, IBV_WC_RECV,
			     "receive in order"))
			return -1;
		if (wc.byte_len != (uint32_t)(i % 200) + 1)
			return failf(t, "message %d: %u bytes", i, wc.byte_len);
		if (verify(t, t->ep.buf + i * 256, wc.byte_len, 100 + i,
			   "message"))
			return -1;
	}
	return 0;
}

static int cli_many(struct tc *t)
{
	struct ibv_wc wc;
	int posted = 0, done = 0;

	while (done < MANY) {
		/* At most 16 outstanding, every one signaled. */
		while (posted < MANY && posted - done < 16) {
			uint8_t *p = t->ep.buf + posted * 256;

			fill(p, posted % 200 + 1, 100 + posted);
			if (post1(t, IBV_WR_SEND, 2000 + posted, p,
				  posted % 200 + 1, t->ep.mr->lkey, 0, 0,
				  IBV_SEND_SIGNALED))
				return -1;
			posted++;
		}
		if (wait_wc(t, &wc, 1, "send") ||
		    check_wc(t, &wc, 2000 + done, IBV_WC_SUCCESS, IBV_WC_SEND,
			     "send in order"))
			return -1;
		done++;
	}
	return 0;
}

/* Completion event: arm, send, wait on the channel, then poll. */
static int cli_event(struct tc *t)
{
	struct pollfd pfd = { .fd = t->ep.ch->fd, .events = POLLIN };
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	struct ibv_wc wc;

	if (ibv_req_notify_cq(t->ep.cq, 0))
		return failf(t, "ibv_req_notify_cq failed");
	fill(t->ep.buf, t->size, 1);
	if (post1(t, IBV_WR_SEND, 71, t->ep.buf, t->size, t->ep.mr->lkey, 0,
		  0, IBV_SEND_SIGNALED))
		return -1;
	if (poll(&pfd, 1, opt_timeout_ms) != 1)
		return failf(t, "no completion event in %d ms", opt_timeout_ms);
	if (ibv_get_cq_event(t->ep.ch, &ev_cq, &ev_ctx))
		return failf(t, "ibv_get_cq_event: %s", strerror(errno));
	ibv_ack_cq_events(ev_cq, 1);
	if (ev_cq != t->ep.cq)
		return failf(t, "event for another CQ");
	if (wait_wc(t, &wc, 1, "send after event"))
		return -1;
	return check_wc(t, &wc, 71, IBV_WC_SUCCESS, IBV_WC_SEND, "send");
}

/* UD: 40-byte GRH area, then the payload. */
/*
 * UD is unreliable: on a lossy wire (-R) the client sends the datagram
 * UD_COPIES times; the server always posts as many receives (all into the
 * same buffer: every copy carries the same bytes) and checks the first.
 */
#define UD_COPIES	8

static int srv_ud_pre(struct tc *t)
{
	int i;

	t->size = 512;
	for (i = 0; i < UD_COPIES; i++)
		if (post_recv1(t, 81, t->ep.buf, t->size + 40))
			return -1;
	return 0;
}

static int srv_ud_post(struct tc *t)
{
	struct ibv_wc wc;

	if (wait_wc(t, &wc, 1, "UD receive") ||
	    check_wc(t, &wc, 81, IBV_WC_SUCCESS, IBV_WC_RECV, "UD receive"))
		return -1;
	if (wc.byte_len != 512 + 40)
		return failf(t, "UD byte_len %u, want %u", wc.byte_len, 512 + 40);
	if (!(wc.wc_flags & IBV_WC_GRH))
		return failf(t, "UD receive without IBV_WC_GRH");
	if (wc.src_qp != t->peer.qpn)
		return failf(t, "src_qp %u, want %u", wc.src_qp, t->peer.qpn);
	return verify(t, t->ep.buf + 40, 512, 6, "UD payload");
}

static int cli_ud(struct tc *t)
{
	struct ibv_ah_attr aa;
	struct ibv_ah *ah;
	struct ibv_sge s = { (uintptr_t)t->ep.buf, 512, t->ep.mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 82, .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	int i, r;

	fill(t->ep.buf, 512, 6);
	vu_fill_ah(&aa, t->dev, &t->peer);
	ah = ibv_create_ah(t->dev->pd, &aa);
	if (!ah)
		return failf(t, "ibv_create_ah: %s", strerror(errno));
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = t->peer.qpn;
	wr.wr.ud.remote_qkey = VU_QKEY;
	for (i = 0, r = 0; !r && i < (opt_lossy ? UD_COPIES : 1); i++) {
		r = ibv_post_send(t->ep.qp, &wr, &bad);
		if (r)
			r = failf(t, "UD post_send: %s", strerror(r));
		else
			r = wait_wc(t, &wc, 1, "UD send") ||
			    check_wc(t, &wc, 82, IBV_WC_SUCCESS, IBV_WC_SEND,
				     "UD send");
	}
	ibv_destroy_ah(ah);
	return r ? -1 : 0;
}

/* SRQ: receives come from the shared queue, in its order. */
static int srv_srq_pre(struct tc *t)
{
	int i;

	for (i = 0; i < 4; i++)
		if (post_recv1(t, 90 + i, t->ep.buf + i * 4096, 4096))
			return -1;
	return 0;
}

static int srv_srq_post(struct tc *t)
{
	struct ibv_wc wc;
	int i;

	for (i = 0; i < 4; i++) {
		if (wait_wc(t, &wc, 1, "SRQ receive") ||
		    check_wc(t, &wc, 90 + i, IBV_WC_SUCCESS, IBV_WC_RECV,
			     "SRQ receive"))
			return -1;
		if (wc.qp_num != t->ep.qp->qp_num)
			return failf(t, "SRQ completion names QP %u", wc.qp_num);
		if (verify(t, t->ep.buf + i * 4096, 1000 + i, 70 + i,
			   "SRQ payload"))
			return -1;
	}
	return 0;
}

static int cli_srq(struct tc *t)
{
	struct ibv_wc wc[4];
	int i;

	for (i = 0; i < 4; i++) {
		fill(t->ep.buf + i * 4096, 1000 + i, 70 + i);
		if (post1(t, IBV_WR_SEND, 95 + i, t->ep.buf + i * 4096,
			  1000 + i, t->ep.mr->lkey, 0, 0, IBV_SEND_SIGNALED))
			return -1;
	}
	if (wait_wc(t, wc, 4, "sends"))
		return -1;
	for (i = 0; i < 4; i++)
		if (check_wc(t, &wc[i], 95 + i, IBV_WC_SUCCESS, IBV_WC_SEND,
			     "send"))
			return -1;
	return 0;
}

/*
 * Error checks.  A failing request completes with its error, the QP
 * goes to the error state and what follows is flushed.  For remote
 * access errors the responder's QP fails too: its posted receive is
 * flushed.
 */
static int srv_remote_err_pre(struct tc *t)
{
	return post_recv1(t, 99, t->ep.buf, 4096);
}

static int srv_remote_err_post(struct tc *t)
{
	struct ibv_wc wc;
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(t->ep.qp, &a, IBV_QP_STATE, &ia))
		return failf(t, "ibv_query_qp: %s", strerror(errno));
	if (a.qp_state != IBV_QPS_ERR)
		return failf(t, "responder QP state %d, want ERR", a.qp_state);
	if (wait_wc(t, &wc, 1, "responder flush"))
		return -1;
	return check_wc(t, &wc, 99, IBV_WC_WR_FLUSH_ERR, -1, "responder flush");
}

/* Post a failing request and one more; expect @st then a flush. */
static int cli_err_then_flush(struct tc *t, enum ibv_wr_opcode op,
			      uint32_t len, uint32_t lkey, uint64_t raddr,
			      uint32_t rkey, enum ibv_wc_status st)
{
	struct ibv_wc wc;

	if (post1(t, op, 101, t->ep.buf, len, lkey, raddr, rkey,
		  IBV_SEND_SIGNALED) ||
	    wait_wc(t, &wc, 1, "bad request"))
		return -1;
	/*
	 * On a lossy wire the responder's NAK can be lost; its QP is in
	 * error by then and answers no retry, so the request ends with
	 * the retry counter exceeded instead (IBA, as rdma_rxe does).
	 */
	if (opt_lossy && wc.status == IBV_WC_RETRY_EXC_ERR &&
	    (st == IBV_WC_REM_ACCESS_ERR || st == IBV_WC_REM_INV_REQ_ERR ||
	     st == IBV_WC_REM_OP_ERR))
		st = IBV_WC_RETRY_EXC_ERR;
	if (check_wc(t, &wc, 101, st, -1, "bad request"))
		return -1;
	/* The QP is in error now: the next request is flushed. */
	if (post1(t, IBV_WR_RDMA_WRITE, 102, t->ep.buf, 64, t->ep.mr->lkey,
		  t->peer_addr, t->peer_rkey, 0) ||
	    wait_wc(t, &wc, 1, "request after error"))
		return -1;
	return check_wc(t, &wc, 102, IBV_WC_WR_FLUSH_ERR, -1,
			"request after error");
}

/* A different key of the same index: the tag no longer matches. */
static uint32_t bad_key(uint32_t key)
{
	return key ^ 0x5a;
}

static int cli_err_rkey(struct tc *t)
{
	return cli_err_then_flush(t, IBV_WR_RDMA_WRITE, 64, t->ep.mr->lkey,
				  t->peer_addr, bad_key(t->peer_rkey),
				  IBV_WC_REM_ACCESS_ERR);
}

static int cli_err_oob_write(struct tc *t)
{
	/* Starts inside the peer's MR, ends 4 KiB past it. */
	return cli_err_then_flush(t, IBV_WR_RDMA_WRITE, 8192, t->ep.mr->lkey,
				  t->peer_addr + t->peer_len - 4096,
				  t->peer_rkey, IBV_WC_REM_ACCESS_ERR);
}

static int cli_err_oob_read(struct tc *t)
{
	return cli_err_then_flush(t, IBV_WR_RDMA_READ, 4096, t->ep.mr->lkey,
				  t->peer_addr + t->peer_len, t->peer_rkey,
				  IBV_WC_REM_ACCESS_ERR);
}

/*
 * IBA: a bad lkey is a local protection error.  Linux rdma_rxe reports
 * a local QP operation error instead; -L accepts that (interop runs).
 */
static int cli_err_lkey(struct tc *t)
{
	return cli_err_then_flush(t, IBV_WR_RDMA_WRITE, 64,
				  bad_key(t->ep.mr->lkey), t->peer_addr,
				  t->peer_rkey, opt_rxe_lkey ?
				  IBV_WC_LOC_QP_OP_ERR : IBV_WC_LOC_PROT_ERR);
}

/* Local write past the end of our own MR (READ into it). */
static int cli_err_local_len(struct tc *t)
{
	struct ibv_wc wc;

	if (post1(t, IBV_WR_RDMA_READ, 103, t->ep.buf + BUF_SIZE - 1024, 4096,
		  t->ep.mr->lkey, t->peer_addr, t->peer_rkey,
		  IBV_SEND_SIGNALED) ||
	    wait_wc(t, &wc, 1, "read past local MR"))
		return -1;
	if (wc.status == IBV_WC_SUCCESS)
		return failf(t, "read past the local MR succeeded");
	if (wc.status != IBV_WC_LOC_PROT_ERR &&
	    wc.status != IBV_WC_LOC_ACCESS_ERR &&
	    wc.status != IBV_WC_LOC_LEN_ERR)
		return failf(t, "read past local MR: status %s",
			     ibv_wc_status_str(wc.status));
	return 0;
}

/* Move our QP to ERR: posted receives and later sends are flushed. */
static int cli_flush(struct tc *t)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc[4];
	int i;

	for (i = 0; i < 4; i++)
		if (post_recv1(t, 110 + i, t->ep.buf + i * 1024, 1024))
			return -1;
	if (ibv_modify_qp(t->ep.qp, &a, IBV_QP_STATE))
		return failf(t, "modify to ERR: %s", strerror(errno));
	if (wait_wc(t, wc, 4, "receive flush"))
		return -1;
	for (i = 0; i < 4; i++)
		if (check_wc(t, &wc[i], 110 + i, IBV_WC_WR_FLUSH_ERR, -1,
			     "receive flush"))
			return -1;
	if (post1(t, IBV_WR_SEND, 120, t->ep.buf, 64, t->ep.mr->lkey, 0, 0, 0) ||
	    wait_wc(t, wc, 1, "send flush") ||
	    check_wc(t, &wc[0], 120, IBV_WC_WR_FLUSH_ERR, -1, "send flush"))
		return -1;
	return expect_quiet(t, 200, "after flush");
}

static const struct test tests[] = {
	{ "rc_send", 0, srv_recv_pre, cli_send, srv_send_post },
	{ "rc_send_imm", 0, srv_recv_pre, cli_send_imm, srv_send_imm_post },
	{ "rc_send_inline", 0, srv_inline_pre, cli_send_inline, srv_inline_post },
	{ "rc_send_sge", 0, srv_sge_pre, cli_sge, srv_sge_post },
	{ "rc_send_many", 0, srv_many_pre, cli_many, srv_many_post },
	{ "rc_write", 0, NULL, cli_write, srv_write_post },
	{ "rc_write_imm", 0, srv_write_imm_pre, cli_write_imm, srv_write_imm_post },
	{ "rc_write_unsignaled", 0, NULL, cli_unsig, srv_unsig_post },
	{ "mr_optional_access", 0, NULL, cli_mr_optional, srv_mr_optional_post },
	{ "mr_unmapped_efault", 0, NULL, cli_mr_unmapped, srv_write_post },
	{ "rc_read", 0, srv_read_pre, cli_read, NULL },
	{ "rc_read_sge", 0, srv_read_pre, cli_read_sge, NULL },
	{ "rc_send_zero_imm", 0, srv_zero_pre, cli_zero, srv_zero_post },
	{ "rc_large_1m", 0, srv_large_pre, cli_large, srv_large_post },
	{ "rc_atomic_cas", 0, srv_cas_pre, cli_cas, srv_cas_post },
	{ "rc_atomic_faa", 0, srv_faa_pre, cli_faa, srv_faa_post },
	{ "cq_event", T_CHANNEL, srv_recv_pre, cli_event, srv_send_post },
	{ "cq_resize", 0, NULL, cli_cq_resize, srv_cq_resize_post },
	{ "cq_moderation", T_CHANNEL, NULL, cli_cq_moderation, NULL },
	{ "limits", 0, NULL, cli_limits, NULL },
	{ "ud_send", T_UD, srv_ud_pre, cli_ud, srv_ud_post },
	{ "srq_recv", T_SRQ, srv_srq_pre, cli_srq, srv_srq_post },
	{ "err_rkey_rem_access", 0, srv_remote_err_pre, cli_err_rkey,
	  srv_remote_err_post },
	{ "err_oob_write", 0, srv_remote_err_pre, cli_err_oob_write,
	  srv_remote_err_post },
	{ "err_oob_read", 0, srv_remote_err_pre, cli_err_oob_read,
	  srv_remote_err_post },
	{ "err_lkey_loc_prot", 0, NULL, cli_err_lkey, NULL },
	{ "err_local_bounds", 0, NULL, cli_err_local_len, NULL },
	{ "err_qp_flush", 0, NULL, cli_flush, NULL },
};

/* The server's verdict on one check. */
struct verdict {
	uint32_t ok;
	char why[252];
};

/* Run one check on both sides; the client returns 0 pass, 1 fail, 2 skip. */
static int run_test(struct tc *t, const struct test *tt)
{
	struct wire mine = { 0 }, theirs;
	struct verdict v = { 0 }, pv;
	bool ok;

	ok = !ep_create(t, tt->flags);
	if (ok) {
		mine.qpn = htonl(t->ep.qp->qp_num);
		mine.psn = htonl(t->ep.psn);
		mine.rkey = htonl(t->ep.mr->rkey);
		mine.addr = htobe64((uintptr_t)t->ep.buf);
		mine.len = htobe64(BUF_SIZE);
		memcpy(mine.gid, t->dev->gid.raw, 16);
		mine.lid = htons(t->dev->pattr.lid);
	}
	mine.ok = htonl(ok);
	vu_xchg(t->sock, &mine, &theirs, sizeof(mine));
	t->peer.qpn = ntohl(theirs.qpn);
	t->peer.psn = ntohl(theirs.psn);
	t->peer_rkey = ntohl(theirs.rkey);
	t->peer_addr = be64toh(theirs.addr);
	t->peer_len = be64toh(theirs.len);
	memcpy(t->peer.gid, theirs.gid, 16);
	t->peer.lid = ntohs(theirs.lid);
	ok = ok && ntohl(theirs.ok);
	if (ok)
		ok = !ep_connect(t);
	if (ok && t->server && tt->server_pre)
		ok = !tt->server_pre(t);
	ok = sync_ok(t, ok);			/* ready */
	if (ok && !t->server)
		ok = !tt->client(t);
	ok = sync_ok(t, ok);			/* client done */
	if (ok && t->server && tt->server_post)
		ok = !tt->server_post(t);
	if (t->server) {
		v.ok = htonl(!t->why[0]);
		snprintf(v.why, sizeof(v.why), "%.250s", t->why);
	}
	vu_xchg(t->sock, &v, &pv, sizeof(v));
	ep_destroy(&t->ep);
	if (t->server)
		return 0;
	if (!ntohl(pv.ok) && !t->why[0])
		snprintf(t->why, sizeof(t->why), "server: %.200s", pv.why);
	if (t->why[0] || !ok)
		return 1;
	return t->skip ? 2 : 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: snic-verbs-test [-d DEV] [-i PORT] [-g GIDX] [-p TCPPORT]\n"
		"                       [-s SIZE] [-t CHECK[,CHECK...]] [-P PREFIX]\n"
		"                       [-T TIMEOUT_MS] [-L] [-R] [SERVER_IP]\n"
		"Without SERVER_IP: wait for a client.  The client prints one\n"
		"PASS/FAIL/SKIP line per check.  -L: a bad lkey may complete\n"
		"with LOC_QP_OP_ERR (what rdma_rxe reports) instead of LOC_PROT_ERR.\n"
		"-R: lossy wire: a remote error whose NAK is lost may end as\n"
		"RETRY_EXC_ERR.\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *devname = NULL, *prefix = "verbs";
	char only[512] = "", peer_only[512];
	int tcp_port = 18515, gidx = -1, c, i;
	int npass = 0, nfail = 0, nskip = 0;
	uint32_t size = 4096;
	struct vu_dev d;
	int port = 1;
	struct tc t;

	while ((c = getopt(argc, argv, "d:i:g:p:s:t:P:T:LRh")) != -1) {
		switch (c) {
		case 'd': devname = optarg; break;
		case 'i': port = atoi(optarg); break;
		case 'g': gidx = atoi(optarg); break;
		case 'p': tcp_port = atoi(optarg); break;
		case 's': size = strtoul(optarg, NULL, 0); break;
		case 't': snprintf(only, sizeof(only), "%s", optarg); break;
		case 'P': prefix = optarg; break;
		case 'T': opt_timeout_ms = atoi(optarg); break;
		case 'L': opt_rxe_lkey = true; break;
		case 'R': opt_lossy = true; break;
		default: usage();
		}
	}
	if (size < 64 || size > (1u << 20))
		usage();
	srand48(getpid() ^ time(NULL));
	memset(&t, 0, sizeof(t));
	t.server = optind == argc;
	t.dev = &d;
	if (vu_dev_open(&d, devname, port, gidx))
		return 2;
	t.sock = t.server ? vu_tcp_accept(tcp_port) :
			    vu_tcp_connect(argv[optind], tcp_port);
	if (t.sock < 0)
		return 2;
	{
		struct timeval tv = { .tv_sec = 300 };
		int one = 1;

		setsockopt(t.sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(t.sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	/* Both sides run the same checks: the client's -t list wins. */
	vu_xchg(t.sock, only, peer_only, sizeof(only));
	if (t.server)
		memcpy(only, peer_only, sizeof(only));
	only[sizeof(only) - 1] = 0;

	for (i = 0; i < (int)(sizeof(tests) / sizeof(tests[0])); i++) {
		const struct test *tt = &tests[i];
		int r;

		if (only[0]) {
			char *list = strdup(only), *tok, *save = NULL;
			bool want = false;

			for (tok = strtok_r(list, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save))
				want |= !strcmp(tok, tt->name);
			free(list);
			if (!want)
				continue;
		}
		memset(t.why, 0, sizeof(t.why));
		memset(t.skip_why, 0, sizeof(t.skip_why));
		t.skip = false;
		t.size = size;
		r = run_test(&t, tt);
		if (t.server)
			continue;
		if (r == 0) {
			printf("PASS %s/%s\n", prefix, tt->name);
			npass++;
		} else if (r == 2) {
			printf("SKIP %s/%s: %s\n", prefix, tt->name, t.skip_why);
			nskip++;
		} else {
			printf("FAIL %s/%s: %s\n", prefix, tt->name,
			       t.why[0] ? t.why : "setup failed");
			nfail++;
		}
		fflush(stdout);
	}
	if (!t.server)
		printf("snic-verbs-test: %d passed, %d failed, %d skipped\n",
		       npass, nfail, nskip);
	close(t.sock);
	vu_dev_close(&d);
	return nfail ? 1 : 0;
}
