/*
 * snic device tier: sPIN contexts on RDMA QPs (docs/snic-spin.md "RDMA
 * QPs"), driven through qtest with no guest.  The two-snic environment of
 * snic_rdma_env.[ch]: A is the requester, B the responder whose RC QP has
 * a context running the rdma_* handlers of spin_handlers.c (they log
 * tickets in handler memory, sum the payload in the message scratch and
 * host-write the sum at completion).  Raw request frames from the
 * injection port drive the cases a real requester cannot (a message whose
 * last packet never comes, three messages open at once).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdlib.h>
#include <unistd.h>
#include "../lib/check.h"
#include "snic_rdma_env.h"
#include "d2d/snic_spin_ifc.h"
#include "spin_handlers.h"	/* spin_code[], SYM_* (generated) */

#define HMEM_SLICE	0x10000
#define EV_LOG		4
/* handler memory words of spin_handlers.c */
#define HM_HOST_LO	1
#define HM_HOST_HI	2
#define HM_RESULT	5
#define HM_LOG_N	7
#define HM_LOG		8
#define LOG_MAX		64

/* A context of B on one of B's QPs, with a host region for its results. */
struct sctx {
	uint32_t id, hmem_off;
	struct snic_evq ev;
	uint64_t host;
};

static int spin_mem(uint8_t op, uint8_t mem, uint32_t off, uint64_t host,
		    uint32_t len)
{
	struct snic_aq_spin_mem m = {
		.host_addr = host, .len = len, .offset = off, .mem = mem,
	};

	return snic_aq_cmd(B, op, &m, sizeof(m), NULL);
}

static int hmem_put(struct sctx *c, uint32_t word, uint32_t v)
{
	uint64_t b = galloc(4, 64);

	qt_writel(qt, b, v);
	return spin_mem(SNIC_AQ_SPIN_WRITE_MEM, SNIC_SPIN_MEM_L2H,
			c->hmem_off + 4 * word, b, 4);
}

static bool hmem_get(struct sctx *c, uint32_t word, void *out, uint32_t len)
{
	uint64_t b = galloc(len, 64);

	if (spin_mem(SNIC_AQ_SPIN_READ_MEM, SNIC_SPIN_MEM_L2H,
		     c->hmem_off + 4 * word, b, len) != OK)
		return false;
	mread(b, out, len);
	return true;
}

static int code_load(void)
{
	uint64_t b = galloc(sizeof(spin_code), 64);

	mwrite(b, spin_code, sizeof(spin_code));
	return spin_mem(SNIC_AQ_SPIN_WRITE_MEM, SNIC_SPIN_MEM_PROG, 0, b,
			sizeof(spin_code));
}

static uint32_t entry_hh = SYM_rdma_hh;	/* handlers of new contexts */
static uint32_t entry_ph = SYM_rdma_ph;
static uint32_t entry_ch = SYM_rdma_ch;
static uint32_t cfg_watchdog;		/* watchdog of new contexts */

static int cfg_create(struct sctx *c, int slice, uint32_t match,
		      uint32_t qpn, uint32_t timeout_us)
{
	struct snic_spin_ctx_cfg cfg;

	memset(c, 0, sizeof(*c));
	c->hmem_off = slice * HMEM_SLICE;
	snic_evq_init(&c->ev, qt, EV_LOG);
	memset(&cfg, 0, sizeof(cfg));
	cfg.entry[SPIN_HANDLER_HEADER] = entry_hh;
	cfg.entry[SPIN_HANDLER_PAYLOAD] = entry_ph;
	cfg.entry[SPIN_HANDLER_COMPLETION] = entry_ch;
	cfg.code_size = sizeof(spin_code);
	cfg.hmem_off = c->hmem_off;
	cfg.hmem_size = HMEM_SLICE;
	cfg.scratch_size = 64;
	cfg.copy_bytes = 64;
	cfg.timeout_us = timeout_us;
	cfg.watchdog = cfg_watchdog;
	cfg.match = match;
	cfg.match_id = qpn;
	return snic_spin_ctx_create(B, &cfg, &c->ev, SNIC_EQN_NONE, &c->id);
}

/*
 * Context in handler-memory slice @slice attached to B's QP @qpn, handler
 * mode @mode (HM_RESULT), results host-written to a fresh WRITE region.
 */
static int sctx_create(struct sctx *c, int slice, uint32_t qpn, uint32_t mode,
		       uint32_t timeout_us)
{
	struct snic_aq_spin_region r = { 0 };
	int st = cfg_create(c, slice, SNIC_SPIN_MATCH_QP, qpn, timeout_us);

	if (st != OK)
		return st;
	c->host = galloc(64 * 16, 64);
	r.addr = c->host;
	r.len = 64 * 16;
	r.ctx = c->id;
	r.flags = SNIC_SPIN_REGION_WRITE;
	st = snic_aq_cmd(B, SNIC_AQ_SPIN_ADD_REGION, &r, sizeof(r), NULL);
	if (st == OK)
		st = hmem_put(c, HM_HOST_LO, (uint32_t)c->host);
	if (st == OK)
		st = hmem_put(c, HM_HOST_HI, (uint32_t)(c->host >> 32));
	if (st == OK)
		st = hmem_put(c, HM_RESULT, mode);
	return st;
}

static int attach_qp(uint32_t ctx, uint32_t qpn, uint32_t rsvd)
{
	struct snic_aq_spin_attach_qp a = { .ctx = ctx, .qpn = qpn };

	a.rsvd[1] = rsvd;
	return snic_aq_cmd(B, SNIC_AQ_SPIN_ATTACH_QP, &a, sizeof(a), NULL);
}

static bool sstats(struct sctx *c, struct snic_spin_ctx_stats *st)
{
	return snic_query_stats(B, SNIC_STATS_SPIN, c->id, st,
				sizeof(*st)) == OK;
}

/* The handler log: {kind | hpu << 8 | pkt_idx << 24, msg, start, end}. */
struct tick {
	uint32_t w0, msg, start, end;
};

static uint32_t log_read(struct sctx *c, struct tick *t)
{
	uint32_t n = 0;

	if (!hmem_get(c, HM_LOG_N, &n, 4) || n > LOG_MAX)
		return 0;
	if (n && !hmem_get(c, HM_LOG, t, n * sizeof(*t)))
		return 0;
	return n;
}

#define T_KIND(t)	((t)->w0 & 0xff)
#define T_CLUSTER(t)	(((t)->w0 >> 16) & 0xff)
#define T_PKT(t)	((t)->w0 >> 24)

/* Completion record host-written by rdma_ch. */
struct crec {
	uint32_t msg, sum, pkts, bytes;
};

static uint32_t sum32(const uint8_t *p, size_t n)
{
	uint32_t s = 0, v;
	size_t i;

	/* per packet, whole words only: MTU 1024 and lengths % 4 == 0 */
	for (i = 0; i + 4 <= n; i += 4) {
		memcpy(&v, p + i, 4);
		s += v;
	}
	return s;
}

/*
 * Message @msg in the log: one header handler first, @pkts payload
 * handlers (indices 0..pkts-1) after it in execution order and in modeled
 * time, the completion handler after all of them; how many pairs of its
 * payload handlers overlapped in modeled time goes to *overlap.
 */
static bool msg_order_ok(const struct tick *t, uint32_t n, uint32_t msg,
			 uint32_t pkts, int *overlap)
{
	int hh = -1, ch = -1, ph[16], i, j;
	uint32_t seen = 0;

	for (i = 0; i < 16; i++)
		ph[i] = -1;
	for (i = 0; i < (int)n; i++) {
		if (t[i].msg != msg)
			continue;
		switch (T_KIND(&t[i])) {
		case SPIN_HANDLER_HEADER:
			if (hh >= 0)
				return false;
			hh = i;
			break;
		case SPIN_HANDLER_PAYLOAD:
			if (T_PKT(&t[i]) >= pkts || ph[T_PKT(&t[i])] >= 0)
				return false;
			ph[T_PKT(&t[i])] = i;
			seen++;
			break;
		default:
			if (ch >= 0)
				return false;
			ch = i;
		}
	}
	if (hh < 0 || ch < 0 || seen != pkts)
		return false;
	for (i = 0; i < (int)pkts; i++) {
		if (ph[i] < hh || ph[i] > ch ||
		    t[hh].end >= t[ph[i]].start || t[ph[i]].end >= t[ch].start)
			return false;
		for (j = i + 1; j < (int)pkts; j++)
			*overlap += t[ph[i]].start < t[ph[j]].end &&
				    t[ph[j]].start < t[ph[i]].end;
	}
	return true;
}

/* ------------------------------------------------------------------ */

static void attach_admin(void)
{
	struct snic_spin_ctx_stats st;
	struct sctx c1, c2;
	struct qp ud;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	CHECK_EQ(code_load(), OK);
	/* no such QP, a UD QP, then the RC QP */
	CHECK_EQ(cfg_create(&c1, 0, SNIC_SPIN_MATCH_QP, 0x7777, 0),
		 SNIC_AQ_ENOENT);
	CHECK_EQ(qp_create(&ud, B, SNIC_QPT_UD, sb.pdn, &sb.scq, &sb.rcq, -1),
		 OK);
	CHECK_EQ(cfg_create(&c1, 0, SNIC_SPIN_MATCH_QP, ud.qpn, 0),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(cfg_create(&c1, 0, 7, sb.qp.qpn, 0), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(cfg_create(&c1, 0, SNIC_SPIN_MATCH_QP, sb.qp.qpn, 0), OK);
	/* one context per QP */
	CHECK_EQ(cfg_create(&c2, 1, SNIC_SPIN_MATCH_QP, sb.qp.qpn, 0),
		 SNIC_AQ_EBUSY);
	CHECK_EQ(cfg_create(&c2, 1, SNIC_SPIN_MATCH_STEER, 0, 0), OK);
	CHECK_EQ(attach_qp(c2.id, sb.qp.qpn, 0), SNIC_AQ_EBUSY);
	CHECK_EQ(attach_qp(c2.id, sb.qp.qpn, 1), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(attach_qp(99, sb.qp.qpn, 0), SNIC_AQ_ENOENT);
	CHECK_EQ(attach_qp(c2.id, ud.qpn, 0), SNIC_AQ_EINVAL_PARAM);
	/* detach c1, attach c2; then c2 cannot take a second QP */
	CHECK_EQ(attach_qp(c1.id, SNIC_SPIN_QPN_NONE, 0), OK);
	CHECK_EQ(attach_qp(c2.id, sb.qp.qpn, 0), OK);
	CHECK_EQ(attach_qp(c2.id, sb.qp.qpn, 0), OK);
	CHECK_EQ(attach_qp(c2.id, ud.qpn, 0), SNIC_AQ_EBUSY);
	/* the QP goes away: the context stays, matching nothing */
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_QP, sb.qp.qpn), OK);
	CHECK(sstats(&c2, &st));
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_SPIN_DESTROY_CTX, c2.id), OK);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_SPIN_DESTROY_CTX, c1.id), OK);
}

/*
 * A SEND of 4 packets and a WRITE of 3 at MTU 1024 through a context that
 * passes everything: handler counts and order, the reduce checked against
 * the data, the receiver's CQE and memory as without sPIN.
 */
static void send_write_pass(void)
{
	static uint8_t src[8192], dst[8192];
	struct snic_spin_ctx_stats st;
	struct tick t[LOG_MAX];
	struct crec rec[2];
	struct snic_cqe e;
	struct sctx c;
	struct wqe w;
	int overlap = 0;
	uint16_t idx;
	uint32_t n;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	CHECK_EQ(code_load(), OK);
	CHECK_EQ(sctx_create(&c, 0, sb.qp.qpn, 0, 0), OK);
	fill(src, sizeof(src), 3);
	mr_write(&sa.mr, 0, src, sizeof(src));

	qp_recv(&sb.qp, 0x51, 8192, sb.mr.key, sb.mr.iova);
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, 4000, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, 4000, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.byte_cnt, 4000);
	mr_read(&sb.mr, 0, dst, 4000);
	CHECK(!memcmp(src, dst, 4000));

	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 65536, sb.mr.key);
	w_data(&w, 3000, sa.mr.key, sa.mr.iova + 4096);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, 3000, &e);
	mr_read(&sb.mr, 65536, dst, 3000);
	CHECK(!memcmp(src + 4096, dst, 3000));
	CHECK(cq_empty(&sb.rcq));

	/* message ids are the responder's MSNs: 0 and 1 */
	n = log_read(&c, t);
	CHECK_EQ(n, 1 + 4 + 1 + 1 + 3 + 1);
	CHECK(msg_order_ok(t, n, 0, 4, &overlap));
	CHECK(msg_order_ok(t, n, 1, 3, &overlap));
	/* payload handlers of one message ran in parallel on other HPUs */
	CHECK(overlap > 0);
	/* home cluster msn % clusters (nothing else open) */
	CHECK_EQ(T_CLUSTER(&t[0]), 0);
	CHECK_EQ(T_CLUSTER(&t[n - 1]), 1);

	mread(c.host, rec, sizeof(rec));
	CHECK_EQ(rec[0].msg, 0);
	CHECK_EQ(rec[0].sum, sum32(src, 4000));
	CHECK_EQ(rec[0].pkts, 4);
	CHECK_EQ(rec[1].msg, 1);
	CHECK_EQ(rec[1].sum, sum32(src + 4096, 3000));
	CHECK_EQ(rec[1].pkts, 3);

	CHECK(sstats(&c, &st));
	CHECK_EQ(st.packets, 7);
	CHECK_EQ(st.messages, 2);
	CHECK_EQ(st.messages_done, 2);
	CHECK_EQ(st.pass, 7);
	CHECK_EQ(st.drop, 0);
	CHECK_EQ(st.h[SPIN_HANDLER_HEADER].invocations, 2);
	CHECK_EQ(st.h[SPIN_HANDLER_PAYLOAD].invocations, 7);
	CHECK_EQ(st.h[SPIN_HANDLER_COMPLETION].invocations, 2);
	CHECK_EQ(st.aborts, 0);
}

/*
 * DROP and PASS as the receiver's verbs see them: the requester completes
 * normally; dropped packets are not placed; a SEND's receive CQE counts
 * the bytes placed; a handler's changes to the payload are what is placed.
 */
static void drop_and_pass(void)
{
	static uint8_t src[8192], dst[8192], pre[8192];
	struct snic_spin_ctx_stats st;
	struct snic_cqe e;
	struct sctx c;
	struct wqe w;
	uint16_t idx;
	uint32_t i;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	CHECK_EQ(code_load(), OK);
	CHECK_EQ(sctx_create(&c, 0, sb.qp.qpn, 1, 0), OK);
	fill(src, sizeof(src), 5);
	fill(pre, sizeof(pre), 9);
	mr_write(&sa.mr, 0, src, sizeof(src));
	mr_write(&sb.mr, 0, pre, sizeof(pre));
	mr_write(&sb.mr, 65536, pre, sizeof(pre));

	/* mode 1: drop everything */
	qp_recv(&sb.qp, 0x61, 8192, sb.mr.key, sb.mr.iova);
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, 3000, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, 3000, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.syndrome, SNIC_RST_OK);
	CHECK_EQ(e.cookie, 0x61);
	CHECK_EQ(e.byte_cnt, 0);
	mr_read(&sb.mr, 0, dst, 3000);
	CHECK(!memcmp(pre, dst, 3000));
	w_init(&w, SNIC_WQE_RDMA_WRITE_IMM, SNIC_WQE_F_SIGNAL, 0xabcd);
	w_raddr(&w, sb.mr.iova + 65536, sb.mr.key);
	w_data(&w, 2048, sa.mr.key, sa.mr.iova);
	qp_recv(&sb.qp, 0x62, 0, 0, 0);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE_IMM, 2048, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.wqe_opcode, SNIC_WQE_RDMA_WRITE_IMM);
	CHECK_EQ(e.byte_cnt, 0);
	CHECK_EQ(ntohl(e.imm), 0xabcd);
	mr_read(&sb.mr, 65536, dst, 2048);
	CHECK(!memcmp(pre, dst, 2048));

	/* mode 2: odd packets dropped, even ones placed */
	CHECK_EQ(hmem_put(&c, HM_RESULT, 2), OK);
	qp_recv(&sb.qp, 0x63, 8192, sb.mr.key, sb.mr.iova);
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, 4096, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, 4096, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.byte_cnt, 2048);
	mr_read(&sb.mr, 0, dst, 4096);
	for (i = 0; i < 4; i++)
		CHECK(!memcmp(dst + 1024 * i, (i & 1 ? pre : src) + 1024 * i,
			      1024));

	/* mode 3: the payload as the handler rewrote it is placed */
	CHECK_EQ(hmem_put(&c, HM_RESULT, 3), OK);
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 65536, sb.mr.key);
	w_data(&w, 2000, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, 2000, &e);
	mr_read(&sb.mr, 65536, dst, 2000);
	for (i = 0; i < 2000; i++)
		CHECK_EQ(dst[i], (uint8_t)~src[i]);

	CHECK(sstats(&c, &st));
	CHECK_EQ(st.packets, 3 + 2 + 4 + 2);
	CHECK_EQ(st.drop, 3 + 2 + 2);
	CHECK_EQ(st.pass, 2 + 2);
	CHECK_EQ(st.messages_done, 4);
}

/*
 * A payload handler that faults: each packet's handler is aborted (event,
 * counted), the packet is dropped, the transport completes both sides.
 */
static void aborts_drop(void)
{
	static uint8_t src[4096], pre[4096], dst[4096];
	struct snic_spin_ctx_stats st;
	struct snic_spin_event ev;
	struct snic_cqe e;
	struct sctx c;
	struct wqe w;
	uint16_t idx;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	CHECK_EQ(code_load(), OK);
	entry_ph = SYM_wild_ph;
	CHECK_EQ(sctx_create(&c, 0, sb.qp.qpn, 0, 0), OK);
	entry_ph = SYM_rdma_ph;
	fill(src, sizeof(src), 11);
	fill(pre, sizeof(pre), 12);
	mr_write(&sa.mr, 0, src, sizeof(src));
	mr_write(&sb.mr, 0, pre, sizeof(pre));
	qp_recv(&sb.qp, 0x91, 4096, sb.mr.key, sb.mr.iova);
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, 3072, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, 3072, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.byte_cnt, 0);
	mr_read(&sb.mr, 0, dst, 3072);
	CHECK(!memcmp(pre, dst, 3072));
	CHECK(snic_evq_next(&c.ev, &ev));
	CHECK_EQ(ev.type, SNIC_SPIN_EV_MEM_FAULT);
	CHECK_EQ(ev.handler, SPIN_HANDLER_PAYLOAD);
	CHECK_EQ(ev.msg_id, 0);
	CHECK(sstats(&c, &st));
	CHECK_EQ(st.aborts, 3);
	CHECK_EQ(st.drop, 3);
	CHECK_EQ(st.messages_done, 1);
	/* the completion handler still ran, after the aborted ones */
	CHECK_EQ(st.h[SPIN_HANDLER_COMPLETION].invocations, 1);
	CHECK_EQ(qp_query_state(&sb.qp), SNIC_QPS_RTS);
}

/*
 * Loss on A's wire (every 3rd RoCE packet it sends): go-back-N resends
 * packets B already took; their handlers do not run again.
 */
static void duplicates(void)
{
	static uint8_t src[16384], dst[16384];
	struct snic_spin_ctx_stats st;
	struct snic_rdma_stats ra, rb;
	struct conn cn = conn_default;
	struct tick t[LOG_MAX];
	struct crec rec[3];
	struct snic_cqe e;
	struct sctx c;
	struct wqe w;
	uint16_t idx[3];
	int overlap = 0, i;
	uint32_t n;

	CHECK(env_start());
	cn.timeout = 8;		/* 1 ms retransmit timer */
	CHECK(pair_up(&cn));
	CHECK_EQ(code_load(), OK);
	CHECK_EQ(sctx_create(&c, 0, sb.qp.qpn, 0, 1000000), OK);
	fill(src, sizeof(src), 7);
	mr_write(&sa.mr, 0, src, sizeof(src));
	CHECK(qt_qom_set_u64(qt, "/machine/peripheral/snic0", "loss-every", 3));
	for (i = 0; i < 3; i++) {
		qp_recv(&sb.qp, 0x70 + i, 8192, sb.mr.key,
			sb.mr.iova + 8192 * i);
		w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
		w_data(&w, 5120, sa.mr.key, sa.mr.iova + 5120 * i);
		idx[i] = qp_post(&sa.qp, &w);
	}
	for (i = 0; i < 3; i++) {
		CHECK(cq_wait(&sa.scq, &e, 500000));
		CHECK_EQ(e.syndrome, SNIC_RST_OK);
		CHECK_EQ(e.wqe_counter, idx[i]);
		CHECK(cq_wait(&sb.rcq, &e, 0));
		CHECK_EQ(e.byte_cnt, 5120);
		CHECK_EQ(e.cookie, 0x70 + i);
		mr_read(&sb.mr, 8192 * i, dst, 5120);
		CHECK(!memcmp(src + 5120 * i, dst, 5120));
	}
	CHECK(rstats(A, &ra));
	CHECK(rstats(B, &rb));
	CHECK(ra.loss_injected > 0);
	CHECK(ra.retransmits > 0);
	CHECK(rb.dup_requests + rb.out_of_seq > 0);
	/* 3 messages of 5 packets: each handler exactly once per PSN */
	CHECK(sstats(&c, &st));
	CHECK_EQ(st.packets, 15);
	CHECK_EQ(st.h[SPIN_HANDLER_HEADER].invocations, 3);
	CHECK_EQ(st.h[SPIN_HANDLER_PAYLOAD].invocations, 15);
	CHECK_EQ(st.h[SPIN_HANDLER_COMPLETION].invocations, 3);
	CHECK_EQ(st.messages_done, 3);
	n = log_read(&c, t);
	CHECK_EQ(n, 3 * 7);
	for (i = 0; i < 3; i++)
		CHECK(msg_order_ok(t, n, i, 5, &overlap));
	mread(c.host, rec, sizeof(rec));
	for (i = 0; i < 3; i++) {
		CHECK_EQ(rec[i].msg, i);
		CHECK_EQ(rec[i].sum, sum32(src + 5120 * i, 5120));
	}
}

/* A raw SEND packet to B's QP @qpn (payload zeros), as from A. */
static bool inject(uint8_t opcode, uint32_t qpn, uint32_t psn, size_t len)
{
	uint8_t f[2048];

	return inj_send(f, mk_req(f, opcode, qpn, psn, len));
}

/* Pump until @c has been handed @n packets. */
static bool wait_pkts(struct sctx *c, uint64_t n)
{
	struct snic_spin_ctx_stats st;
	int i;

	for (i = 0; i < 200; i++) {
		pump(4);
		if (!sstats(c, &st))
			return false;
		if (st.packets >= n)
			return st.packets == n;
		usleep(2000);
	}
	return false;
}

#define ROCE_SEND_FIRST	0x00
#define ROCE_READ_REQ_OP	0x0c
#define ROCE_SEND_LAST	0x02

/*
 * Two clusters with one message slot each (spin-msg-slots=1), three QPs
 * of B with a context each and raw requests from the injection port:
 * the second open message falls back to the other cluster, the third
 * finds no slot (no_resources, RNR NAK, no handler) and gets in once the
 * first completes; a message whose last packet never comes times out.
 */
static void resources_and_timeout(void)
{
	struct snic_spin_ctx_stats st;
	struct snic_spin_event ev;
	struct snic_rdma_stats rb0, rb1;
	struct side x[3], y[3];
	struct sctx c[3];
	struct tick t[LOG_MAX];
	struct snic_cqe e;
	int i;

	CHECK(env_start_opts(",spin-clusters=2,spin-msg-slots=1"));
	CHECK_EQ(code_load(), OK);
	for (i = 0; i < 3; i++) {
		CHECK(side_make(&x[i], A, SNIC_QPT_RC));
		CHECK(side_make(&y[i], B, SNIC_QPT_RC));
		CHECK(qp_connect(&x[i].qp, &y[i].qp, &conn_default, 100, 5000));
		CHECK(qp_connect(&y[i].qp, &x[i].qp, &conn_default, 5000, 100));
		qp_recv(&y[i].qp, 0x80 + i, 4096, y[i].mr.key, y[i].mr.iova);
		CHECK_EQ(sctx_create(&c[i], i, y[i].qp.qpn, 0, 2000), OK);
	}
	/* message of QP 0: home cluster 0 */
	CHECK(inject(ROCE_SEND_FIRST, y[0].qp.qpn, 100, 1024));
	CHECK(wait_pkts(&c[0], 1));
	/* message of QP 1: home 0 is full, the least loaded is 1 */
	CHECK(inject(ROCE_SEND_FIRST, y[1].qp.qpn, 100, 1024));
	CHECK(wait_pkts(&c[1], 1));
	CHECK_EQ(log_read(&c[1], t), 2);
	CHECK_EQ(T_CLUSTER(&t[0]), 1);
	CHECK_EQ(T_CLUSTER(&t[1]), 1);
	CHECK_EQ(log_read(&c[0], t), 2);
	CHECK_EQ(T_CLUSTER(&t[0]), 0);
	/* message of QP 2: every slot taken */
	CHECK(rstats(B, &rb0));
	CHECK(inject(ROCE_SEND_FIRST, y[2].qp.qpn, 100, 1024));
	CHECK(wait_pkts(&c[2], 1));
	CHECK(rstats(B, &rb1));
	CHECK_EQ(rb1.rnr_naks_sent, rb0.rnr_naks_sent + 1);
	CHECK(sstats(&c[2], &st));
	CHECK_EQ(st.no_resources, 1);
	CHECK_EQ(st.messages, 0);
	CHECK_EQ(st.h[SPIN_HANDLER_HEADER].invocations, 0);
	CHECK(cq_empty(&y[2].rcq));

	/* QP 0's message ends; a duplicate of its first packet runs nothing */
	CHECK(inject(ROCE_SEND_LAST, y[0].qp.qpn, 101, 100));
	CHECK(wait_pkts(&c[0], 2));
	CHECK(cq_wait(&y[0].rcq, &e, 0));
	CHECK_EQ(e.byte_cnt, 1124);
	CHECK(inject(ROCE_SEND_FIRST, y[0].qp.qpn, 100, 1024));
	pump(32);
	CHECK(rstats(B, &rb1));
	CHECK(rb1.dup_requests >= 1);
	CHECK(sstats(&c[0], &st));
	CHECK_EQ(st.packets, 2);
	CHECK_EQ(st.h[SPIN_HANDLER_PAYLOAD].invocations, 2);
	CHECK_EQ(st.messages_done, 1);

	/* QP 2's requester tries again: now there is room */
	CHECK(inject(ROCE_SEND_FIRST, y[2].qp.qpn, 100, 1024));
	CHECK(wait_pkts(&c[2], 2));
	CHECK(inject(ROCE_SEND_LAST, y[2].qp.qpn, 101, 8));
	CHECK(wait_pkts(&c[2], 3));
	CHECK(cq_wait(&y[2].rcq, &e, 0));
	CHECK_EQ(e.byte_cnt, 1032);
	CHECK(sstats(&c[2], &st));
	CHECK_EQ(st.h[SPIN_HANDLER_HEADER].invocations, 1);
	CHECK_EQ(st.h[SPIN_HANDLER_PAYLOAD].invocations, 2);
	CHECK_EQ(st.h[SPIN_HANDLER_COMPLETION].invocations, 1);

	/* QP 1's last packet never comes: abandoned after 2 ms */
	CHECK(!snic_evq_next(&c[1].ev, &ev));
	for (i = 0; i < 5; i++) {
		qt_clock_step(qt, 1000000);
		pump(4);
	}
	CHECK(snic_evq_next(&c[1].ev, &ev));
	CHECK_EQ(ev.type, SNIC_SPIN_EV_MSG_TIMEOUT);
	CHECK_EQ(ev.msg_id, 0);
	CHECK_EQ(ev.info, 1);
	CHECK(sstats(&c[1], &st));
	CHECK_EQ(st.by_event[SNIC_SPIN_EV_MSG_TIMEOUT], 1);
	CHECK_EQ(st.messages_done, 0);
	CHECK_EQ(st.h[SPIN_HANDLER_COMPLETION].invocations, 0);
	/* the slot is free again; the late last packet runs no handler */
	CHECK(inject(ROCE_SEND_LAST, y[1].qp.qpn, 101, 8));
	CHECK(wait_pkts(&c[1], 2));
	CHECK(sstats(&c[1], &st));
	CHECK_EQ(st.h[SPIN_HANDLER_PAYLOAD].invocations, 1);
	CHECK_EQ(st.drop, 1);
	/* the transport still completes the SEND: 1024 bytes were placed */
	CHECK(cq_wait(&y[1].rcq, &e, 0));
	CHECK_EQ(e.byte_cnt, 1024);
}

static bool dstats(struct snic_spin_dev_stats *d)
{
	return snic_query_stats(B, SNIC_STATS_SPIN_DEV, 0, d, sizeof(*d)) == OK;
}

/*
 * QP handlers run in the receive path, so a QP context's watchdog is
 * capped at SNIC_SPIN_WATCHDOG_QP_MAX: a larger one is refused at create
 * and at attach (counted); at the cap, a handler that loops forever is
 * aborted after exactly that budget on every packet, and the SEND still
 * completes on both sides with nothing placed.
 */
static void qp_wd_cap(void)
{
	static uint8_t src[3072], pre[3072], dst[3072];
	struct snic_spin_dev_stats d0, d1;
	struct snic_spin_ctx_stats st;
	struct snic_spin_event ev;
	struct snic_cqe e;
	struct sctx c, s;
	struct wqe w;
	uint16_t idx;
	int i;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	CHECK_EQ(code_load(), OK);
	CHECK(dstats(&d0));
	cfg_watchdog = SNIC_SPIN_WATCHDOG_QP_MAX + 1;
	CHECK_EQ(cfg_create(&c, 0, SNIC_SPIN_MATCH_QP, sb.qp.qpn, 0),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(cfg_create(&s, 1, SNIC_SPIN_MATCH_STEER, 0, 0), OK);
	CHECK_EQ(attach_qp(s.id, sb.qp.qpn, 0), SNIC_AQ_EINVAL_PARAM);
	cfg_watchdog = SNIC_SPIN_WATCHDOG_MAX;
	CHECK_EQ(cfg_create(&c, 0, SNIC_SPIN_MATCH_QP, sb.qp.qpn, 0),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK(dstats(&d1));
	CHECK_EQ(d1.qp_wd_refused, d0.qp_wd_refused + 3);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_SPIN_DESTROY_CTX, s.id), OK);

	/* at the cap: accepted; an endless payload handler stops there */
	cfg_watchdog = SNIC_SPIN_WATCHDOG_QP_MAX;
	entry_ph = SYM_loop_ph;
	CHECK_EQ(sctx_create(&c, 0, sb.qp.qpn, 0, 0), OK);
	entry_ph = SYM_rdma_ph;
	cfg_watchdog = 0;
	fill(src, sizeof(src), 21);
	fill(pre, sizeof(pre), 22);
	mr_write(&sa.mr, 0, src, sizeof(src));
	mr_write(&sb.mr, 0, pre, sizeof(pre));
	qp_recv(&sb.qp, 0x93, 4096, sb.mr.key, sb.mr.iova);
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, 3072, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, 3072, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.byte_cnt, 0);
	mr_read(&sb.mr, 0, dst, sizeof(dst));
	CHECK(!memcmp(pre, dst, sizeof(dst)));
	for (i = 0; i < 3; i++) {
		CHECK(snic_evq_next(&c.ev, &ev));
		CHECK_EQ(ev.type, SNIC_SPIN_EV_WATCHDOG);
		CHECK_EQ(ev.handler, SPIN_HANDLER_PAYLOAD);
		CHECK(ev.cycles >= SNIC_SPIN_WATCHDOG_QP_MAX);
		CHECK(ev.cycles < SNIC_SPIN_WATCHDOG_QP_MAX + 64);
	}
	CHECK(sstats(&c, &st));
	CHECK_EQ(st.aborts, 3);
	CHECK_EQ(st.by_event[SNIC_SPIN_EV_WATCHDOG], 3);
	CHECK(st.h[SPIN_HANDLER_PAYLOAD].cycles_max <
	      SNIC_SPIN_WATCHDOG_QP_MAX + 64);
	CHECK_EQ(qp_query_state(&sb.qp), SNIC_QPS_RTS);
	/* a context already on the QP cannot be given a larger budget */
	cfg_watchdog = SNIC_SPIN_WATCHDOG_QP_MAX + 1;
	CHECK_EQ(cfg_create(&s, 1, SNIC_SPIN_MATCH_STEER, 0, 0), OK);
	cfg_watchdog = 0;
	CHECK_EQ(attach_qp(s.id, sb.qp.qpn, 0), SNIC_AQ_EINVAL_PARAM);
}

/*
 * @n UDP frames of @len bytes from A's Ethernet SQ to B's UDP port
 * @dport, posted with one doorbell: A's transmit bottom half hands them
 * to B through the hub in one go, before B's sPIN bottom half runs.
 */
static bool eth_flood(uint16_t dport, int n, size_t len)
{
	uint8_t f[128], bb[SNIC_WQEBB_SIZE];
	struct snic_cq cq;
	struct snic_sq sq;
	uint64_t data;
	int i;

	if (len > sizeof(f) || len < 60 || n > 256 ||
	    snic_cq_create(&cq, A, 9, SNIC_EQN_NONE, 6) != OK ||
	    snic_sq_create(&sq, A, 8, cq.n, 6) != OK)
		return false;
	/* a RoCE-shaped frame from A to B, turned into plain UDP to dport */
	mk_req(f, ROCE_SEND_FIRST, 0, 0, len - 58);
	f[36] = dport >> 8;
	f[37] = dport & 0xff;
	data = galloc(len, 64);
	mwrite(data, f + 14, len - 14);
	for (i = 0; i < n; i++) {
		struct snic_wqe_ctrl *ctrl = (void *)bb;
		struct snic_wqe_eth *eth = (void *)(bb + 16);
		struct snic_wqe_data *d = (void *)(bb + 48);

		/* ctrl, eth (10 inline bytes), 4 more inline, one gather */
		memset(bb, 0, sizeof(bb));
		ctrl->opcode = SNIC_WQE_ETH_SEND;
		ctrl->wqe_idx = i;
		ctrl->ds_cnt = 4;
		eth->inline_hdr_sz = 14;
		memcpy(eth->inline_hdr, f, 10);
		memcpy(bb + 32, f + 10, 4);
		d->byte_count = len - 14;
		d->addr = data;
		snic_sq_put(&sq, bb, 1);
	}
	snic_sq_ring(&sq);
	return true;
}

/*
 * The L2 packet buffer full on the RDMA path: B's packet buffer is cut
 * to 9216 bytes (spin-l2p-size) and filled by 64-byte UDP frames queued
 * for a slow UDP context (each handler runs to a 4M-cycle watchdog, a few
 * per bottom-half pass).  A 4-packet SEND (MTU 4096) to B's QP context
 * then finds no room: RNR NAK, counted, no handler; A retries as the UDP
 * queue drains, and the message completes once, intact, every handler
 * once per PSN, the reduce equal to the data.
 */
static void l2_full(void)
{
	static uint8_t src[16384], pre[16384], dst[16384];
	struct snic_spin_ctx_stats st, su;
	struct snic_spin_dev_stats d;
	struct snic_rdma_stats rb0, rb1;
	struct conn cn = conn_default;
	struct snic_steer_rule rule;
	struct crec rec;
	struct snic_cqe e;
	struct sctx c, u;
	struct wqe w;
	uint16_t idx;
	int i;

	CHECK(env_start_opts(",spin-l2p-size=9216"));
	cn.mtu = SNIC_MTU_4096;
	CHECK(pair_up(&cn));
	CHECK_EQ(code_load(), OK);
	CHECK_EQ(sctx_create(&c, 0, sb.qp.qpn, 0, 1000000), OK);
	/* the UDP context: only an endless payload handler */
	entry_hh = entry_ch = 0;
	entry_ph = SYM_loop_ph;
	cfg_watchdog = SNIC_SPIN_WATCHDOG_MAX;
	CHECK_EQ(cfg_create(&u, 1, SNIC_SPIN_MATCH_STEER, 0, 0), OK);
	entry_hh = SYM_rdma_hh;
	entry_ph = SYM_rdma_ph;
	entry_ch = SYM_rdma_ch;
	cfg_watchdog = 0;
	memset(&rule, 0, sizeof(rule));
	rule.priority = 10;
	rule.dest = SNIC_DEST_SPIN;
	rule.dest_id = u.id;
	rule.match = SNIC_MATCH_IP_PROTO | SNIC_MATCH_DST_PORT;
	rule.ip_proto = 17;
	rule.dst_port = htons(9555);
	CHECK_EQ(snic_aq_buf(B, SNIC_AQ_ADD_RULE, &rule, sizeof(rule),
			     sizeof(rule), 0, 0, NULL, 0, NULL), OK);

	CHECK(rstats(B, &rb0));
	fill(src, sizeof(src), 31);
	fill(pre, sizeof(pre), 32);
	mr_write(&sa.mr, 0, src, sizeof(src));
	mr_write(&sb.mr, 0, pre, sizeof(pre));
	qp_recv(&sb.qp, 0x95, sizeof(dst), sb.mr.key, sb.mr.iova);
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, sizeof(src), sa.mr.key, sa.mr.iova);

	/*
	 * 160 x 64 bytes: 144 fill the 9216-byte buffer; a few are handled
	 * while A sends (64 frames per transmit pass), the rest are dropped.
	 */
	CHECK(eth_flood(9555, 160, 64));
	for (i = 0; i < 200; i++) {
		pump(1);
		CHECK(sstats(&u, &su));
		if (su.packets >= 160)
			break;
		usleep(1000);
	}
	CHECK_EQ(su.packets, 160);
	CHECK(su.no_resources >= 1);
	CHECK(snic_query_stats(B, SNIC_STATS_SPIN_DEV, 0, &d, sizeof(d)) == OK);
	CHECK_EQ(d.l2p_peak, 9216);
	CHECK(d.l2p_used > 9216 - 4154);	/* no room for a 4154-byte packet */

	idx = qp_post(&sa.qp, &w);
	for (i = 0; i < 20 && !cq_wait(&sa.scq, &e, 100000); i++)
		;
	CHECK_EQ(e.syndrome, SNIC_RST_OK);
	CHECK_EQ(e.wqe_counter, idx);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.byte_cnt, sizeof(src));
	CHECK_EQ(e.cookie, 0x95);
	mr_read(&sb.mr, 0, dst, sizeof(dst));
	CHECK(!memcmp(src, dst, sizeof(dst)));
	CHECK(rstats(B, &rb1));
	CHECK(rb1.rnr_naks_sent > rb0.rnr_naks_sent);
	CHECK(sstats(&c, &st));
	CHECK(st.no_resources >= 1);
	CHECK_EQ(st.packets, 4 + st.no_resources);
	CHECK_EQ(st.h[SPIN_HANDLER_HEADER].invocations, 1);
	CHECK_EQ(st.h[SPIN_HANDLER_PAYLOAD].invocations, 4);
	CHECK_EQ(st.h[SPIN_HANDLER_COMPLETION].invocations, 1);
	CHECK_EQ(st.messages_done, 1);
	mread(c.host, &rec, sizeof(rec));
	CHECK_EQ(rec.msg, 0);
	CHECK_EQ(rec.sum, sum32(src, sizeof(src)));
	CHECK_EQ(rec.pkts, 4);
	/* the UDP backlog drains; the packet buffer empties */
	for (i = 0; i < 500; i++) {
		pump(1);
		CHECK(snic_query_stats(B, SNIC_STATS_SPIN_DEV, 0, &d,
				       sizeof(d)) == OK);
		if (!d.l2p_used)
			break;
		usleep(2000);
	}
	CHECK_EQ(d.l2p_used, 0);
	CHECK_EQ(qp_query_state(&sb.qp), SNIC_QPS_RTS);
}

/* ---- the offload engine: custom opcodes (docs/snic-spin.md) ---- */

#define OP_BATCH	0xc1
#define OP_WALK		0xc2
#define RESP_OFF	(128 * 1024)	/* responses land here in sa.mr */
#define NODE_END	0xffffffffu

static int reg_opcode(uint32_t ctx, uint32_t op, uint32_t entry,
		      uint32_t rsvd)
{
	struct snic_aq_spin_reg_opcode r = {
		.ctx = ctx, .opcode = op, .entry = entry, .rsvd = rsvd,
	};

	return snic_aq_cmd(B, SNIC_AQ_SPIN_REG_OPCODE, &r, sizeof(r), NULL);
}

/*
 * A context on B's RC QP with OP_BATCH and OP_WALK registered; its
 * region 0 (READ) is the bus memory of sb.mr, whose base it finds in
 * handler-memory words 1/2.
 */
static int octx_create(struct sctx *c)
{
	struct snic_aq_spin_region r = { 0 };
	int st = cfg_create(c, 0, SNIC_SPIN_MATCH_QP, sb.qp.qpn, 0);

	if (st != OK)
		return st;
	r.addr = sb.mr.bus;
	r.len = BUF_LEN;
	r.ctx = c->id;
	r.flags = SNIC_SPIN_REGION_READ;
	st = snic_aq_cmd(B, SNIC_AQ_SPIN_ADD_REGION, &r, sizeof(r), NULL);
	if (st == OK)
		st = hmem_put(c, HM_HOST_LO, (uint32_t)sb.mr.bus);
	if (st == OK)
		st = hmem_put(c, HM_HOST_HI, (uint32_t)(sb.mr.bus >> 32));
	if (st == OK)
		st = reg_opcode(c->id, OP_BATCH, SYM_batch_oh, 0);
	if (st == OK)
		st = reg_opcode(c->id, OP_WALK, SYM_walk_oh, 0);
	return st;
}

/* A's CUSTOM WQE: request @req, response of @resp_len at RESP_OFF. */
static uint16_t post_custom(uint8_t op, const void *req, uint32_t req_len,
			    uint32_t resp_len)
{
	struct wqe w;

	w_init(&w, SNIC_WQE_CUSTOM, SNIC_WQE_F_SIGNAL, op);
	w_raddr(&w, 0, 0);
	w_inline(&w, req, req_len);
	w_data(&w, resp_len, sa.mr.key, sa.mr.iova + RESP_OFF);
	return qp_post(&sa.qp, &w);
}

static bool env_offload(struct sctx *c, const struct conn *cn)
{
	return env_start() && pair_up(cn) && code_load() == OK &&
	       octx_create(c) == OK;
}

/* Batched READ of @n buffers of @len bytes at scattered offsets of B. */
static void batch_once(int n, uint32_t len, uint16_t *idx)
{
	uint32_t req[2 + 64];
	int i;

	req[0] = n;
	req[1] = len;
	for (i = 0; i < n; i++)
		req[2 + i] = ((i * 7) % n) * 8192 + 16 * i;
	*idx = post_custom(OP_BATCH, req, 8 + 4 * n, n * len);
}

static bool batch_ok(int n, uint32_t len)
{
	static uint8_t src[BUF_LEN], got[64 * 1024];
	int i;

	mread(sb.mr.bus, src, BUF_LEN);
	mr_read(&sa.mr, RESP_OFF, got, n * len);
	for (i = 0; i < n; i++)
		if (memcmp(got + i * len, src + ((i * 7) % n) * 8192 + 16 * i,
			   len))
			return false;
	return true;
}

static void offload_admin(void)
{
	struct sctx c;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	CHECK_EQ(code_load(), OK);
	CHECK_EQ(cfg_create(&c, 0, SNIC_SPIN_MATCH_QP, sb.qp.qpn, 0), OK);
	CHECK_EQ(reg_opcode(c.id + 1, OP_BATCH, SYM_batch_oh, 0),
		 SNIC_AQ_ENOENT);
	/* outside the manufacturer-specific range */
	CHECK_EQ(reg_opcode(c.id, 0xbf, SYM_batch_oh, 0), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(reg_opcode(c.id, 0xe0, SYM_batch_oh, 0), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(reg_opcode(c.id, ROCE_READ_REQ_OP, SYM_batch_oh, 0),
		 SNIC_AQ_EINVAL_PARAM);
	/* entry outside the code window, misaligned; reserved word */
	CHECK_EQ(reg_opcode(c.id, OP_BATCH, SPIN_CODE_BASE + sizeof(spin_code),
			    0), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(reg_opcode(c.id, OP_BATCH, SYM_batch_oh + 2, 0),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(reg_opcode(c.id, OP_BATCH, SYM_batch_oh, 1),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(reg_opcode(c.id, 0xc0, SYM_batch_oh, 0), OK);
	CHECK_EQ(reg_opcode(c.id, 0xdf, SYM_batch_oh, 0), OK);
	CHECK_EQ(reg_opcode(c.id, 0xdf, 0, 0), OK);
}

/*
 * One request gathers 16 buffers of 256 bytes (a 4-packet response at
 * MTU 1024), then 4 of 64: the requester's CQE, the bytes, the counters.
 */
static void offload_batched_read(void)
{
	static uint8_t pat[BUF_LEN];
	struct snic_spin_ctx_stats st;
	struct snic_rdma_stats rb;
	struct snic_cqe e;
	struct sctx c;
	uint16_t idx;

	CHECK(env_offload(&c, &conn_default));
	fill(pat, sizeof(pat), 11);
	mwrite(sb.mr.bus, pat, sizeof(pat));
	batch_once(16, 256, &idx);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_CUSTOM, 16 * 256, &e);
	CHECK(batch_ok(16, 256));
	batch_once(4, 64, &idx);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_CUSTOM, 4 * 64, &e);
	CHECK(batch_ok(4, 64));
	CHECK(cq_empty(&sb.rcq));
	CHECK(rstats(B, &rb));
	CHECK_EQ(rb.custom_reqs, 2);
	CHECK_EQ(rb.custom_resps, 4 + 1);
	CHECK_EQ(rb.read_resps, 0);
	CHECK(sstats(&c, &st));
	CHECK_EQ(st.h[SPIN_HANDLER_PAYLOAD].invocations, 2);
	CHECK_EQ(st.cmd_dma_bytes, 2 * (16 * 256 + 4 * 64));
	CHECK_EQ(st.aborts, 0);
	CHECK_EQ(qp_query_state(&sb.qp), SNIC_QPS_RTS);
}

/* 16 nodes of 64 bytes in B's region, linked in a shuffled order. */
static uint32_t list_build(void)
{
	uint32_t node[16], i, off, next;

	for (i = 0; i < 16; i++) {
		off = ((i * 5) % 16) * 1024;
		next = i == 15 ? NODE_END : (((i + 1) * 5) % 16) * 1024;
		memset(node, 0, sizeof(node));
		node[0] = 1000 + i;		/* key */
		node[1] = next;
		node[2] = 0xabc00000u + i;	/* value */
		mwrite(sb.mr.bus + off, node, sizeof(node));
	}
	return 0;	/* the head: node 0 at offset 0 */
}

static void offload_list_walk(void)
{
	uint32_t req[3], node[16], zero[16] = { 0 };
	struct snic_spin_ctx_stats st;
	struct snic_cqe e;
	struct sctx c;
	uint16_t idx;

	CHECK(env_offload(&c, &conn_default));
	req[0] = list_build();
	req[1] = 1000 + 9;		/* the 10th node */
	req[2] = 16;
	idx = post_custom(OP_WALK, req, sizeof(req), 64);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_CUSTOM, 64, &e);
	mr_read(&sa.mr, RESP_OFF, node, sizeof(node));
	CHECK_EQ(node[0], 1009);
	CHECK_EQ(node[1], (10 * 5 % 16) * 1024);
	CHECK_EQ(node[2], 0xabc00009u);
	/* a key not in the list, and one past the depth: no node */
	req[1] = 4242;
	idx = post_custom(OP_WALK, req, sizeof(req), 64);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_CUSTOM, 64, &e);
	mr_read(&sa.mr, RESP_OFF, node, sizeof(node));
	CHECK(!memcmp(node, zero, sizeof(zero)));
	req[1] = 1012;
	req[2] = 12;
	idx = post_custom(OP_WALK, req, sizeof(req), 64);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_CUSTOM, 64, &e);
	mr_read(&sa.mr, RESP_OFF, node, sizeof(node));
	CHECK_EQ(node[0], 0);
	CHECK(sstats(&c, &st));
	CHECK_EQ(st.h[SPIN_HANDLER_PAYLOAD].invocations, 3);
	CHECK_EQ(st.cmd_dma_bytes, (10 + 16 + 12) * 64 + 64);
}

/* The requester's error CQE for WQE @idx: @status; the QP is in ERR. */
static bool custom_fails(uint16_t idx, uint8_t status)
{
	struct snic_cqe e;

	return cq_wait(&sa.scq, &e, 1000000) && e.wqe_counter == idx &&
	       e.opcode == SNIC_CQE_REQ_ERR && e.syndrome == status;
}

/*
 * Custom opcodes nobody registered: the IB invalid request NAK, whether
 * the QP has a context (another opcode registered) or none at all.
 */
static void offload_no_handler(void)
{
	struct snic_rdma_stats rb;
	uint32_t req[3] = { 0, 1, 1 };
	struct sctx c;
	int with_ctx;

	for (with_ctx = 0; with_ctx < 2; with_ctx++) {
		CHECK(env_start());
		CHECK(pair_up(&conn_default));
		CHECK_EQ(code_load(), OK);
		if (with_ctx)
			CHECK_EQ(octx_create(&c), OK);
		CHECK(custom_fails(post_custom(0xc7, req, sizeof(req), 64),
				   SNIC_RST_REM_INV_REQ));
		CHECK(rstats(B, &rb));
		CHECK_EQ(rb.custom_no_handler, 1);
		CHECK_EQ(rb.inv_req_naks_sent, 1);
		CHECK_EQ(rb.custom_reqs, 0);
	}
}

/*
 * A handler that DMAs outside its regions (a next pointer past region 0)
 * is aborted and the DMA refused (counted); a handler that gives no
 * response or two; a request too short for the handler: each fails with
 * a remote operational error NAK, and QEMU and the engine go on.
 */
static void offload_refused(void)
{
	uint32_t req[3], node[16] = { 5, BUF_LEN + 4096 };
	struct snic_spin_ctx_stats st;
	struct snic_rdma_stats rb;
	struct sctx c;
	int k;

	for (k = 0; k < 4; k++) {
		CHECK(env_offload(&c, &conn_default));
		CHECK_EQ(reg_opcode(c.id, 0xc3, SYM_noresp_oh, 0), OK);
		CHECK_EQ(reg_opcode(c.id, 0xc4, SYM_resp2_oh, 0), OK);
		mwrite(sb.mr.bus, node, sizeof(node));
		req[0] = 0;
		req[1] = 77;
		req[2] = 4;
		if (k == 0)
			CHECK(custom_fails(post_custom(OP_WALK, req,
						       sizeof(req), 64),
					   SNIC_RST_REM_OP));
		else if (k == 1)
			CHECK(custom_fails(post_custom(0xc3, req, 4, 64),
					   SNIC_RST_REM_OP));
		else if (k == 2)
			CHECK(custom_fails(post_custom(0xc4, req, 4, 64),
					   SNIC_RST_REM_OP));
		else
			CHECK(custom_fails(post_custom(OP_BATCH, req, 4, 64),
					   SNIC_RST_REM_OP));
		CHECK(rstats(B, &rb));
		CHECK_EQ(rb.custom_failed, 1);
		CHECK_EQ(rb.rem_op_naks_sent, 1);
		CHECK(sstats(&c, &st));
		CHECK_EQ(st.by_event[SNIC_SPIN_EV_DMA_FAULT], k == 0);
		CHECK_EQ(st.by_event[SNIC_SPIN_EV_CMD_FAULT], k == 2);
	}
}

/* A custom request from the injection port with RETH length @dlen. */
static bool inject_custom(uint8_t op, uint32_t psn, uint32_t dlen,
			  size_t paylen, size_t cut)
{
	uint8_t f[2048];
	size_t len = mk_req(f, 0x0a, sb.qp.qpn, psn, paylen);

	f[42] = op;
	*(uint32_t *)(f + 42 + 12 + 12) = htonl(dlen);
	fix_icrc(f, len);
	return inj_send(f, len - cut);
}

/*
 * Malformed custom requests from the wire: truncated before the end of
 * the RETH (dropped as malformed), a response longer than
 * SNIC_CUSTOM_RESP_MAX (invalid request NAK), a request whose counts
 * overflow the handler's checks.  QEMU stays up (also under ASan).
 */
static void offload_malformed(void)
{
	struct snic_rdma_stats rb;
	struct sctx c;

	CHECK(env_offload(&c, &conn_default));
	CHECK(inject_custom(OP_BATCH, 100, 64, 0, 14));
	pump(20);
	CHECK(rstats(B, &rb));
	CHECK_EQ(rb.rx_malformed, 1);
	CHECK_EQ(rb.custom_reqs, 0);
	CHECK(inject_custom(OP_BATCH, 100, SNIC_CUSTOM_RESP_MAX + 1, 8, 0));
	pump(20);
	CHECK(rstats(B, &rb));
	CHECK_EQ(rb.inv_req_naks_sent, 1);
	CHECK_EQ(qp_query_state(&sb.qp), SNIC_QPS_ERR);

	CHECK(env_offload(&c, &conn_default));
	/* n = 0x40000001 buffers of 0x10 bytes: n * len wraps */
	{
		uint8_t f[2048];
		uint32_t req[3] = { 0x40000001, 0x10, 0 };
		size_t len = mk_req(f, 0x0a, sb.qp.qpn, 100, sizeof(req));

		f[42] = OP_BATCH;
		*(uint32_t *)(f + 42 + 12 + 12) = htonl(64);
		memcpy(f + 42 + 12 + 16, req, sizeof(req));
		fix_icrc(f, len);
		CHECK(inj_send(f, len));
	}
	pump(20);
	CHECK(rstats(B, &rb));
	CHECK_EQ(rb.custom_failed, 1);
	CHECK_EQ(rb.rem_op_naks_sent, 1);
}

/*
 * Responses lost on the wire (B drops every 5th frame it sends): the
 * requester retries the custom request, B answers the duplicates from
 * its response cache, the handler runs once per request.
 */
static uint8_t dup_pat[BUF_LEN];

static void offload_duplicates(void)
{
	struct snic_spin_ctx_stats st;
	struct snic_rdma_stats rb;
	struct conn cn = conn_default;
	struct snic_cqe e;
	struct sctx c;
	uint16_t idx;
	int i;

	cn.timeout = 8;		/* 1 ms retransmit timer */
	CHECK(env_offload(&c, &cn));
	fill(dup_pat, sizeof(dup_pat), 13);
	mwrite(sb.mr.bus, dup_pat, sizeof(dup_pat));
	CHECK(qt_qom_set_u64(qt, "/machine/peripheral/snic1", "loss-every", 5));
	for (i = 0; i < 6; i++) {
		batch_once(16, 256, &idx);
		CHECK_REQ(&sa.scq, idx, SNIC_WQE_CUSTOM, 16 * 256, &e);
		CHECK(batch_ok(16, 256));
	}
	CHECK(rstats(B, &rb));
	CHECK(rb.loss_injected > 0);
	CHECK(rb.dup_requests > 0);
	CHECK_EQ(rb.custom_reqs, 6);
	CHECK(sstats(&c, &st));
	CHECK_EQ(st.h[SPIN_HANDLER_PAYLOAD].invocations, 6);
}

/*
 * Timing mode: the custom request's answer leaves B when its handler has
 * run (docs/snic-spin.md "Offload engine"), so the requester's latency is
 * at least the handler's cycles at the HPU clock.  A 10 MHz clock (100 ns
 * a cycle) puts the handler's time far above the wire's and the links'.
 */
static void offload_timed_hpu(void)
{
	static uint8_t pat[BUF_LEN];
	struct snic_spin_ctx_stats st;
	struct snic_cqe e;
	struct sctx c;
	uint64_t t0, cyc;
	int64_t lat;
	uint16_t idx;

	CHECK(env_start_opts(",timing=on,spin-clock-mhz=10") &&
	      pair_up(&conn_default) &&
	      code_load() == OK && octx_create(&c) == OK);
	fill(pat, sizeof(pat), 12);
	mwrite(sb.mr.bus, pat, sizeof(pat));
	t0 = qt_clock_now(qt);
	batch_once(16, 256, &idx);
	lat = cq_wait_timed(&sa.scq, idx, t0, &e);
	CHECK(lat > 0);
	CHECK(batch_ok(16, 256));
	CHECK(sstats(&c, &st));
	cyc = st.h[SPIN_HANDLER_PAYLOAD].cycles;
	printf("# batched READ 16 x 256 B: %lld ns, handler %llu cycles at 10 MHz\n",
	       (long long)lat, (unsigned long long)cyc);
	CHECK(cyc > 1000);
	CHECK((uint64_t)lat >= cyc * 100);
}

int main(void)
{
	RUN("device/snic_spin_rdma", attach_admin);
	RUN("device/snic_spin_rdma", send_write_pass);
	RUN("device/snic_spin_rdma", drop_and_pass);
	RUN("device/snic_spin_rdma", aborts_drop);
	RUN("device/snic_spin_rdma", duplicates);
	RUN("device/snic_spin_rdma", resources_and_timeout);
	RUN("device/snic_spin_rdma", qp_wd_cap);
	RUN("device/snic_spin_rdma", l2_full);
	RUN("device/snic_spin_rdma", offload_admin);
	RUN("device/snic_spin_rdma", offload_batched_read);
	RUN("device/snic_spin_rdma", offload_list_walk);
	RUN("device/snic_spin_rdma", offload_no_handler);
	RUN("device/snic_spin_rdma", offload_refused);
	RUN("device/snic_spin_rdma", offload_malformed);
	RUN("device/snic_spin_rdma", offload_duplicates);
	RUN("device/snic_spin_rdma", offload_timed_hpu);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
