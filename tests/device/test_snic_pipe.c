/*
 * snic device tier: DMA-only notification pipes (SNIC_QP_F_PIPE,
 * docs/snic-rdma.md "DMA-only notification pipes"), driven through qtest
 * with no guest, on the two-snic environment of snic_rdma_env.[ch]:
 * SQEs with a phase bit and no doorbell, 16-byte RQEs four per line, the
 * consumer record every n elements, hostile pipe contents, the NIC cores'
 * poll lists with many QPs.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/check.h"
#include "snic_rdma_env.h"

/* A pipe QP: the env's QP plus its logs and consumer record. */
struct pqp {
	struct qp q;
	uint8_t sq_log, rq_log;
	uint64_t ci;
};

static int pqp_create(struct pqp *p, struct snic_dev *d, uint8_t type,
		      uint32_t pdn, struct snic_cq *scq, struct snic_cq *rcq,
		      uint8_t sq_log, uint8_t rq_log, uint8_t ci_every)
{
	struct snic_aq_create_qp a = { 0 };
	size_t sq_bytes = (size_t)SNIC_WQEBB_SIZE << sq_log;
	size_t rq_bytes = (size_t)SNIC_PIPE_RQE_SIZE << rq_log;
	uint8_t *zero = calloc(1, sq_bytes > rq_bytes ? sq_bytes : rq_bytes);
	uint64_t r = ~0ull;
	int st;

	memset(p, 0, sizeof(*p));
	p->q.d = d;
	p->q.type = type;
	p->q.pdn = pdn;
	p->q.sq_size = 1u << sq_log;
	p->q.rq_size = 1u << rq_log;
	p->q.page = 4;
	p->q.srqn = -1;
	p->sq_log = sq_log;
	p->rq_log = rq_log;
	p->q.sq = galloc(sq_bytes, 64);
	p->q.rq = galloc(rq_bytes, 64);
	p->q.dbr = galloc(64, 64);
	p->ci = galloc(64, 64);
	mwrite(p->q.sq, zero, sq_bytes);
	mwrite(p->q.rq, zero, rq_bytes);
	mwrite(p->ci, zero, 8);
	free(zero);
	a.type = type;
	a.flags = SNIC_QP_F_PIPE;
	a.sq_log = sq_log;
	a.rq_log = rq_log;
	a.db_page = p->q.page;
	a.pdn = pdn;
	a.send_cqn = scq->n;
	a.recv_cqn = rcq->n;
	a.srqn = SNIC_SRQN_NONE;
	a.sq_addr = p->q.sq;
	a.rq_addr = p->q.rq;
	a.dbr_addr = p->q.dbr;
	a.ci_every = ci_every;
	a.ci_addr = p->ci;
	st = snic_aq_cmd(d, SNIC_AQ_CREATE_QP, &a, sizeof(a), &r);
	p->q.qpn = r;
	return st;
}

/* Phase (owner) bit of the element at counter @ctr of a 2^@log ring. */
static uint8_t phase(uint16_t ctr, uint8_t log)
{
	return ((ctr >> log) & 1) ^ 1;
}

/*
 * Write WQE @w into the send pipe: the later basic blocks first, then the
 * first one with its owner bit, whole.  No doorbell.
 */
static uint16_t pipe_put(struct pqp *p, struct wqe *w, uint8_t owner_xor)
{
	struct snic_wqe_ctrl *c = (void *)w->b;
	unsigned nbb = w->ds ? (w->ds + 3) / 4 : 1, i;
	uint16_t idx = p->q.sq_prod;

	c->ds_cnt = w->ds;
	c->wqe_idx = idx;
	c->owner = phase(idx, p->sq_log) ^ owner_xor;
	for (i = nbb; i-- > 0;)
		snic_ring_put(qt, p->q.sq, p->q.sq_size, idx + i,
			      SNIC_WQEBB_SIZE, w->b + i * SNIC_WQEBB_SIZE,
			      SNIC_WQEBB_SIZE);
	p->q.sq_prod += nbb;
	return idx;
}

static void pipe_recv(struct pqp *p, uint32_t len, uint32_t lkey,
		      uint64_t addr)
{
	struct snic_pipe_rqe e;
	uint16_t n = p->q.rq_prod++;

	e.addr = addr;
	e.lkey = lkey;
	e.byte_count = len | (phase(n, p->rq_log) ? SNIC_PIPE_RQE_OWNER : 0);
	mwrite(p->q.rq + (uint64_t)(n & (p->q.rq_size - 1)) *
	       SNIC_PIPE_RQE_SIZE, &e, sizeof(e));
}

static void ci_read(struct pqp *p, uint32_t *rq, uint32_t *sq)
{
	*rq = qt_readl(qt, p->ci);
	*sq = qt_readl(qt, p->ci + 4);
}

/* A pipe RC pair: sa/sb's PDs, CQs and MRs, pipe QPs pa (A) and pb (B). */
static struct pqp pa, pb;

static bool pipe_pair(uint8_t sq_log, uint8_t rq_log, uint8_t ci_every)
{
	return side_make(&sa, A, SNIC_QPT_RC) && side_make(&sb, B, SNIC_QPT_RC) &&
	       pqp_create(&pa, A, SNIC_QPT_RC, sa.pdn, &sa.scq, &sa.rcq,
			  sq_log, rq_log, ci_every) == OK &&
	       pqp_create(&pb, B, SNIC_QPT_RC, sb.pdn, &sb.scq, &sb.rcq,
			  sq_log, rq_log, ci_every) == OK &&
	       qp_connect(&pa.q, &pb.q, &conn_default, 100, 5000) &&
	       qp_connect(&pb.q, &pa.q, &conn_default, 5000, 100);
}

static bool rdma_stats_text(struct snic_dev *d, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/machine/peripheral/snic%d",
		 d == A ? 0 : 1);
	return qt_qom_get_str(qt, path, "rdma-stats", buf, len);
}

/* ------------------------------------------------------------------ */

static void pipe_admin(void)
{
	struct pqp p;
	struct qp q;
	struct snic_aq_create_qp a;
	char txt[16384], *line;
	uint64_t r;
	int i;

	CHECK(env_start_opts(",nic-cores=4"));
	CHECK(side_make(&sa, A, SNIC_QPT_RC));
	/* fields out of range */
	CHECK_EQ(pqp_create(&p, A, SNIC_QPT_RC, sa.pdn, &sa.scq, &sa.rcq,
			    4, 1, 1), SNIC_AQ_EINVAL_PARAM);	/* rq_log < 2 */
	CHECK_EQ(pqp_create(&p, A, SNIC_QPT_RC, sa.pdn, &sa.scq, &sa.rcq,
			    4, 4, 0), SNIC_AQ_EINVAL_PARAM);	/* ci_every 0 */
	CHECK_EQ(pqp_create(&p, A, SNIC_QPT_GSI, sa.pdn, &sa.scq, &sa.rcq,
			    4, 4, 1), SNIC_AQ_EINVAL_PARAM);
	/* a doorbell QP must leave the pipe fields zero */
	memset(&a, 0, sizeof(a));
	a.type = SNIC_QPT_RC;
	a.sq_log = 4;
	a.rq_log = 4;
	a.rq_log_stride = 6;
	a.db_page = 4;
	a.pdn = sa.pdn;
	a.send_cqn = sa.scq.n;
	a.recv_cqn = sa.rcq.n;
	a.srqn = SNIC_SRQN_NONE;
	a.sq_addr = a.rq_addr = galloc(4096, 64);
	a.dbr_addr = galloc(64, 64);
	a.ci_every = 4;
	CHECK_EQ(snic_aq_cmd(A, SNIC_AQ_CREATE_QP, &a, sizeof(a), &r),
		 SNIC_AQ_EINVAL_PARAM);
	/* the consumer record or the pipe in the device's own BAR */
	a.flags = SNIC_QP_F_PIPE;
	a.ci_addr = BAR_BASE(0) + SNIC_REG_ID;
	CHECK_EQ(snic_aq_cmd(A, SNIC_AQ_CREATE_QP, &a, sizeof(a), &r),
		 SNIC_AQ_EDMA);
	a.ci_addr = a.dbr_addr + 8;
	a.sq_addr = BAR_BASE(0) + 0x100000;
	CHECK_EQ(snic_aq_cmd(A, SNIC_AQ_CREATE_QP, &a, sizeof(a), &r),
		 SNIC_AQ_EDMA);
	a.ci_addr = a.dbr_addr + 2;	/* misaligned */
	a.sq_addr = a.rq_addr;
	CHECK_EQ(snic_aq_cmd(A, SNIC_AQ_CREATE_QP, &a, sizeof(a), &r),
		 SNIC_AQ_EINVAL_PARAM);
	a.ci_addr = a.dbr_addr + 8;
	CHECK_EQ(snic_aq_cmd(A, SNIC_AQ_CREATE_QP, &a, sizeof(a), &r), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_QP, r), OK);
	/* placement: 10 pipe QPs on 4 cores, a doorbell QP on none */
	for (i = 0; i < 10; i++)
		CHECK_EQ(pqp_create(&p, A, SNIC_QPT_RC, sa.pdn, &sa.scq,
				    &sa.rcq, 2, 2, 1), OK);
	CHECK_EQ(qp_create(&q, A, SNIC_QPT_RC, sa.pdn, &sa.scq, &sa.rcq, -1),
		 OK);
	CHECK(rdma_stats_text(A, txt, sizeof(txt)));
	line = strstr(txt, "pipe cores:");
	CHECK(line != NULL);
	CHECK(!strncmp(line, "pipe cores: 3 3 2 2", 19));
	/* destroying one frees its core; the next one goes there */
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_QP, p.q.qpn), OK);
	CHECK(rdma_stats_text(A, txt, sizeof(txt)));
	CHECK(strstr(txt, "pipe cores: 3 2 2 2") != NULL);
	CHECK_EQ(pqp_create(&p, A, SNIC_QPT_RC, sa.pdn, &sa.scq, &sa.rcq,
			    2, 2, 1), OK);
	CHECK(rdma_stats_text(A, txt, sizeof(txt)));
	CHECK(strstr(txt, "pipe cores: 3 3 2 2") != NULL);
}

/* SEND and WRITE through pipes both ways: no doorbell at all. */
static void pipe_send_write(void)
{
	static uint8_t src[6000], dst[6000];
	struct snic_rdma_stats st;
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	CHECK(env_start());
	CHECK(pipe_pair(6, 5, 1));
	fill(src, sizeof(src), 3);
	mr_write(&sa.mr, 0, src, sizeof(src));
	pipe_recv(&pb, 8000, sb.mr.key, sb.mr.iova + 100);
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, 6000, sa.mr.key, sa.mr.iova);
	idx = pipe_put(&pa, &w, 0);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, 6000, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.syndrome, 0);
	CHECK_EQ(e.byte_cnt, 6000);
	CHECK_EQ(e.wqe_counter, 0);
	mr_read(&sb.mr, 100, dst, sizeof(dst));
	CHECK(!memcmp(src, dst, sizeof(dst)));
	/* WRITE from B to A */
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sa.mr.iova + 10000, sa.mr.key);
	w_data(&w, 3000, sb.mr.key, sb.mr.iova + 100);
	idx = pipe_put(&pb, &w, 0);
	CHECK_REQ(&sb.scq, idx, SNIC_WQE_RDMA_WRITE, 3000, &e);
	mr_read(&sa.mr, 10000, dst, 3000);
	CHECK(!memcmp(src, dst, 3000));
	CHECK(rstats(A, &st));
	CHECK_EQ(st.mmio_doorbells, 0);
	CHECK_EQ(st.pipe_sqes, 1);
	CHECK(st.pipe_polls > st.pipe_empty_polls);
	CHECK_EQ(st.pipe_errors, 0);
	CHECK(rstats(B, &st));
	CHECK_EQ(st.mmio_doorbells, 0);
	CHECK_EQ(st.pipe_sqes, 1);
	CHECK_EQ(st.pipe_rqes, 1);
	CHECK(st.pipe_sq_visits > 0);
	CHECK(cq_empty(&sa.scq));
	CHECK(cq_empty(&sb.rcq));
}

/*
 * Phase wrap: a 4-block send pipe carries 11 WQEs (1- and 2-block ones)
 * over three passes; a stale element of the previous pass is never taken.
 */
static void pipe_phase_wrap(void)
{
	static uint8_t src[4096], dst[4096];
	struct snic_rdma_stats st;
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;
	int i;

	CHECK(env_start());
	CHECK(pipe_pair(2, 2, 1));
	fill(src, sizeof(src), 9);
	mr_write(&sa.mr, 0, src, sizeof(src));
	for (i = 0; i < 11; i++) {
		w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
		w_raddr(&w, sb.mr.iova + 8192 * i, sb.mr.key);
		w_data(&w, 100, sa.mr.key, sa.mr.iova + 100 * i);
		if (i % 3 == 2) {	/* 5 segments: two basic blocks */
			w_data(&w, 100, sa.mr.key, sa.mr.iova + 2000);
			w_data(&w, 100, sa.mr.key, sa.mr.iova + 3000);
		}
		idx = pipe_put(&pa, &w, 0);
		CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE,
			  i % 3 == 2 ? 300 : 100, &e);
		mr_read(&sb.mr, 8192 * i, dst, 100);
		CHECK(!memcmp(dst, src + 100 * i, 100));
	}
	CHECK(pa.q.sq_prod > 3 * 4);
	/* the ring now holds the previous pass's elements: nothing more */
	CHECK(rstats(A, &st));
	CHECK_EQ(st.pipe_sqes, 11);
	qt_clock_step(qt, 10000000);
	pump(16);
	CHECK(cq_empty(&sa.scq));
	CHECK(rstats(A, &st));
	CHECK_EQ(st.pipe_sqes, 11);
	CHECK_EQ(st.req_errors + st.pipe_errors, 0);
}

/*
 * RQEs: eight posted at once are read as two lines; the receive pipe
 * wraps (8 RQEs) with the phase flipped on the second pass.
 */
static void pipe_rqe_batch(void)
{
	struct snic_rdma_stats st0, st;
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;
	int i, round;

	CHECK(env_start());
	CHECK(pipe_pair(6, 3, 1));
	CHECK(rstats(B, &st0));
	for (round = 0; round < 2; round++) {
		for (i = 0; i < 8; i++)
			pipe_recv(&pb, 64, sb.mr.key,
				  sb.mr.iova + 1024 * (8 * round + i));
		for (i = 0; i < 8; i++) {
			w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
			w_data(&w, 10 + i, sa.mr.key, sa.mr.iova);
			idx = pipe_put(&pa, &w, 0);
			CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, 10u + i, &e);
			CHECK(cq_wait(&sb.rcq, &e, 0));
			CHECK_EQ(e.opcode, SNIC_CQE_RECV);
			CHECK_EQ(e.byte_cnt, 10u + i);
			CHECK_EQ(e.wqe_counter, 8 * round + i);
		}
	}
	CHECK(rstats(B, &st));
	CHECK_EQ(st.pipe_rqes - st0.pipe_rqes, 16);
	/* four lines in all (a line read again only if an RQE was missing) */
	CHECK_EQ(st.pipe_rq_lines - st0.pipe_rq_lines, 4);
	CHECK_EQ(st.rnr_naks_sent, 0);
	/* no RQE left: the next SEND gets RNR NAKs, then one more RQE */
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, 5, sa.mr.key, sa.mr.iova);
	idx = pipe_put(&pa, &w, 0);
	for (i = 0; i < 8; i++) {
		qt_clock_step(qt, 1000000);
		pump(8);
	}
	CHECK(rstats(B, &st));
	CHECK(st.rnr_naks_sent > 0);
	pipe_recv(&pb, 64, sb.mr.key, sb.mr.iova);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, 5, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.wqe_counter, 16);
}

/* The consumer record: written every n elements and when found empty. */
static void pipe_ci_every(void)
{
	struct snic_rdma_stats st0, st;
	struct snic_cqe e;
	struct wqe w;
	uint32_t rq, sq;
	uint16_t idx;
	int i;

	CHECK(env_start());
	CHECK(pipe_pair(6, 5, 4));
	CHECK(rstats(A, &st0));
	for (i = 0; i < 8; i++) {
		w_init(&w, SNIC_WQE_RDMA_WRITE, i == 7 ? SNIC_WQE_F_SIGNAL : 0,
		       0);
		w_raddr(&w, sb.mr.iova + 64 * i, sb.mr.key);
		w_data(&w, 64, sa.mr.key, sa.mr.iova);
		pipe_put(&pa, &w, 0);
	}
	CHECK_REQ(&sa.scq, 7, SNIC_WQE_RDMA_WRITE, 64, &e);
	ci_read(&pa, &rq, &sq);
	CHECK_EQ(sq, 8);
	CHECK_EQ(rq, 0);
	CHECK(rstats(A, &st));
	CHECK_EQ(st.pipe_sqes - st0.pipe_sqes, 8);
	CHECK_EQ(st.pipe_ci_writes - st0.pipe_ci_writes, 2);	/* at 4, 8 */
	/* three more: under n, written when the pipe is found empty */
	for (i = 0; i < 3; i++) {
		w_init(&w, SNIC_WQE_RDMA_WRITE, i == 2 ? SNIC_WQE_F_SIGNAL : 0,
		       0);
		w_raddr(&w, sb.mr.iova + 64 * i, sb.mr.key);
		w_data(&w, 64, sa.mr.key, sa.mr.iova);
		pipe_put(&pa, &w, 0);
	}
	CHECK_REQ(&sa.scq, 10, SNIC_WQE_RDMA_WRITE, 64, &e);
	ci_read(&pa, &rq, &sq);
	CHECK_EQ(sq, 11);
	CHECK(rstats(A, &st));
	CHECK_EQ(st.pipe_ci_writes - st0.pipe_ci_writes, 3);
	/* receive side: 5 RQEs consumed with n = 4 -> record says 5 */
	for (i = 0; i < 5; i++)
		pipe_recv(&pb, 64, sb.mr.key, sb.mr.iova);
	for (i = 0; i < 5; i++) {
		w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
		w_data(&w, 8, sa.mr.key, sa.mr.iova);
		idx = pipe_put(&pa, &w, 0);
		CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, 8, &e);
		CHECK(cq_wait(&sb.rcq, &e, 0));
	}
	qt_clock_step(qt, 1000000);
	pump(8);
	ci_read(&pb, &rq, &sq);
	CHECK_EQ(rq, 5);		/* at 4, then when found empty */
	CHECK_EQ(sq, 0);
	CHECK(rstats(B, &st));
	CHECK_EQ(st.pipe_rqes, 5);
}

/* Hostile pipe contents: the QP goes to ERR, counted; nothing crashes. */
static void pipe_hostile(void)
{
	struct snic_rdma_stats st0, st;
	struct snic_cqe e;
	struct wqe w;
	uint8_t junk[SNIC_WQEBB_SIZE];
	uint16_t idx;
	int i, j;

	/* owner byte with reserved bits */
	CHECK(env_start());
	CHECK(pipe_pair(4, 4, 1));
	CHECK(rstats(A, &st0));
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 8, sa.mr.key, sa.mr.iova);
	pipe_put(&pa, &w, 0x80);
	for (i = 0; i < 4; i++) {
		qt_clock_step(qt, 1000000);
		pump(8);
	}
	CHECK_EQ(qp_query_state(&pa.q), SNIC_QPS_ERR);
	CHECK(rstats(A, &st));
	CHECK_EQ(st.pipe_errors - st0.pipe_errors, 1);
	CHECK_EQ(st.pipe_sqes - st0.pipe_sqes, 0);

	/* a garbage SQE (ds_cnt 0): error CQE, QP to ERR, counted */
	CHECK(env_start());
	CHECK(pipe_pair(4, 4, 1));
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w.ds = 0;
	pipe_put(&pa, &w, 0);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_QP_OP);
	CHECK_EQ(qp_query_state(&pa.q), SNIC_QPS_ERR);
	CHECK(rstats(A, &st));
	CHECK_EQ(st.pipe_errors, 1);

	/* random lines with a valid phase, 3 rounds, then a clean pair works */
	srandom(15);
	for (j = 0; j < 3; j++) {
		CHECK(env_start());
		CHECK(pipe_pair(3, 2, 1 + j));
		for (i = 0; i < 8; i++) {
			size_t k;

			for (k = 0; k < sizeof(junk); k++)
				junk[k] = random();
			junk[5] = phase(i, 3) | (j == 2 ? random() & 0xfe : 0);
			snic_ring_put(qt, pa.q.sq, pa.q.sq_size, i,
				      SNIC_WQEBB_SIZE, junk, sizeof(junk));
			for (k = 0; k < 16; k++)
				junk[k] = random();
			mwrite(pb.q.rq + 16 * (i & 3), junk, 16);
		}
		for (i = 0; i < 8; i++) {
			qt_clock_step(qt, 1000000);
			pump(8);
		}
		CHECK(qt_alive(qt));
	}
	CHECK(env_start());
	CHECK(pipe_pair(4, 4, 1));
	pipe_recv(&pb, 64, sb.mr.key, sb.mr.iova);
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, 8, sa.mr.key, sa.mr.iova);
	idx = pipe_put(&pa, &w, 0);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, 8, &e);
}

/* A doorbell on a pipe QP is counted and only makes the device look. */
static void pipe_doorbell_counted(void)
{
	struct snic_rdma_stats st;
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 8, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, 8, &e);
	CHECK(rstats(A, &st));
	CHECK_EQ(st.mmio_doorbells, 1);
	CHECK_EQ(st.pipe_polls, 0);
}

/* ------------------------------------------------------------------ */
/* Scalable shared send queues                                         */
/* ------------------------------------------------------------------ */

struct ssq {
	uint32_t n;
	uint8_t log;
	uint64_t ring, ci;
	uint16_t prod;
};

static int ssq_create(struct ssq *q, struct snic_dev *d, uint16_t page,
		      uint8_t core, uint8_t log, uint32_t *ncores)
{
	struct snic_aq_create_ssq a = { 0 };
	size_t bytes = (size_t)SNIC_WQEBB_SIZE << log;
	uint8_t *zero = calloc(1, bytes);
	uint64_t r = ~0ull;
	int st;

	memset(q, 0, sizeof(*q));
	q->log = log;
	q->ring = galloc(bytes, 64);
	q->ci = galloc(64, 64);
	mwrite(q->ring, zero, bytes);
	free(zero);
	a.log_size = log;
	a.ci_every = 1;
	a.db_page = page;
	a.core = core;
	a.ring_addr = q->ring;
	a.ci_addr = q->ci;
	st = snic_aq_cmd(d, SNIC_AQ_CREATE_SSQ, &a, sizeof(a), &r);
	q->n = r & 0xffff;
	if (ncores)
		*ncores = (r >> 16) & 0xffff;
	return st;
}

/*
 * A QP with @flags (SNIC_QP_F_PIPE | SNIC_QP_F_SSQ: an SSQ QP) on A's
 * context (page 4) with sa's PD and CQs; its result (qpn, core << 32,
 * generation << 40) in @r.
 */
static int ssq_qp_create_flags(struct pqp *p, uint8_t flags, uint64_t *r)
{
	struct snic_aq_create_qp a = { 0 };
	int st;

	a.type = SNIC_QPT_RC;
	a.flags = flags;
	a.sq_log = 2;
	a.rq_log = 2;
	a.db_page = 4;
	a.pdn = sa.pdn;
	a.send_cqn = sa.scq.n;
	a.recv_cqn = sa.rcq.n;
	a.srqn = SNIC_SRQN_NONE;
	a.sq_addr = a.rq_addr = sa.mr.bus;	/* unused, checked */
	a.dbr_addr = galloc(64, 64);
	a.ci_every = 1;
	a.ci_addr = a.dbr_addr + 8;
	memset(p, 0, sizeof(*p));
	p->q.d = A;
	p->q.pdn = sa.pdn;
	*r = ~0ull;
	st = snic_aq_cmd(A, SNIC_AQ_CREATE_QP, &a, sizeof(a), r);
	p->q.qpn = *r & 0xffffffff;
	return st;
}

static int ssq_qp_create(struct pqp *p, uint64_t *r)
{
	return ssq_qp_create_flags(p, SNIC_QP_F_PIPE | SNIC_QP_F_SSQ, r);
}

/*
 * WQE @w into SSQ @q for the QP of word @qpn (QPN, generation << 24):
 * later blocks first, the owner last.
 */
static void ssq_put(struct ssq *q, uint32_t qpn, struct wqe *w)
{
	struct snic_wqe_ctrl *c = (void *)w->b;
	unsigned nbb = w->ds ? (w->ds + 3) / 4 : 1, i;

	c->ds_cnt = w->ds;
	c->owner = phase(q->prod, q->log);
	memcpy(w->b + SNIC_SSQ_QPN_OFF, &qpn, 4);
	for (i = nbb; i-- > 0;)
		snic_ring_put(qt, q->ring, 1u << q->log, q->prod + i,
			      SNIC_WQEBB_SIZE, w->b + i * SNIC_WQEBB_SIZE,
			      SNIC_WQEBB_SIZE);
	q->prod += nbb;
}

/*
 * 1000 SSQ QPs in RTS on A over 8 cores (plus the 3 peers on B): WRITEs
 * posted on 3 of them complete, and the device visited only those 3
 * (pipe_sq_visits) reading only the SSQs, never the 997 idle QPs.
 */
#define SSQ_QPS 1000
static void ssq_scale(void)
{
	static struct pqp qa[SSQ_QPS];
	struct pqp spare_qp;
	struct ssq sq[8], spare;
	struct pqp pbq[3];
	struct snic_rdma_stats st0, st;
	struct snic_cqe e;
	struct wqe w;
	uint32_t ncores = 0, core_n[8] = { 0 };
	uint64_t r;
	int i, k;

	CHECK(env_start());
	CHECK(side_make(&sa, A, SNIC_QPT_RC) && side_make(&sb, B, SNIC_QPT_RC));
	/* an SSQ QP of a context without SSQs: ENOENT; SSQ without PIPE */
	CHECK_EQ(ssq_qp_create(&spare_qp, &r), SNIC_AQ_ENOENT);
	CHECK_EQ(ssq_qp_create_flags(&spare_qp, SNIC_QP_F_SSQ, &r),
		 SNIC_AQ_EINVAL_PARAM);
	for (k = 0; k < 8; k++)
		CHECK_EQ(ssq_create(&sq[k], A, 4, k, 6, &ncores), OK);
	CHECK_EQ(ncores, 8);
	CHECK_EQ(ssq_create(&spare, A, 4, 0, 6, NULL), SNIC_AQ_EBUSY);
	CHECK_EQ(ssq_create(&spare, A, 5, 8, 6, NULL), SNIC_AQ_EINVAL_PARAM);
	for (i = 0; i < SSQ_QPS; i++) {
		CHECK_EQ(ssq_qp_create(&qa[i], &r), OK);
		CHECK_EQ(r >> 40, 0);	/* a fresh QP number: generation 0 */
		CHECK(((r >> 32) & 0xff) < 8);
		core_n[(r >> 32) & 0xff]++;
	}
	for (k = 0; k < 8; k++)		/* least-loaded placement */
		CHECK_EQ(core_n[k], SSQ_QPS / 8);
	/* three peers on B, every A QP in RTS (the idle ones to peer 0) */
	for (k = 0; k < 3; k++)
		CHECK_EQ(pqp_create(&pbq[k], B, SNIC_QPT_RC, sb.pdn, &sb.scq,
				    &sb.rcq, 4, 4, 1), OK);
	for (i = 0; i < SSQ_QPS; i++) {
		k = i < 3 ? i : 0;
		CHECK(qp_connect(&qa[i].q, &pbq[k].q, &conn_default, 100, 5000));
		if (check_why[0])
			return;
	}
	for (k = 0; k < 3; k++)
		CHECK(qp_connect(&pbq[k].q, &qa[k].q, &conn_default, 5000, 100));
	qt_clock_step(qt, 1000000);
	pump(8);
	CHECK(rstats(A, &st0));
	/* one WRITE each on QPs 0, 1, 2 (cores 0, 1, 2) */
	for (k = 0; k < 3; k++) {
		w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
		w_raddr(&w, sb.mr.iova + 64 * k, sb.mr.key);
		w_data(&w, 64, sa.mr.key, sa.mr.iova);
		ssq_put(&sq[k], qa[k].q.qpn, &w);
	}
	qt_clock_step(qt, 1000000);
	pump(8);
	for (k = 0; k < 3; k++) {
		CHECK(cq_wait(&sa.scq, &e, 1000000));
		CHECK_EQ(e.opcode, SNIC_CQE_REQ);
		CHECK_EQ(e.wqe_counter, 0);
		CHECK(e.rdma_qpn == qa[0].q.qpn || e.rdma_qpn == qa[1].q.qpn ||
		      e.rdma_qpn == qa[2].q.qpn);
	}
	for (i = 0; i < 8; i++) {
		qt_clock_step(qt, 1000000);
		pump(8);
	}
	CHECK(rstats(A, &st));
	CHECK_EQ(st.ssq_sqes - st0.ssq_sqes, 3);
	CHECK_EQ(st.pipe_sq_visits - st0.pipe_sq_visits, 3);
	CHECK_EQ(st.pipe_errors, 0);
	CHECK_EQ(st.mmio_doorbells, 0);
	/* every read was an SSQ head (empty or taken), none of a QP's pipe */
	CHECK_EQ(st.pipe_polls - st0.pipe_polls,
		 st.pipe_empty_polls - st0.pipe_empty_polls + 3);
	CHECK_EQ(qt_readl(qt, sq[0].ci), 1);
	/* an SQE naming a QP of another SSQ is skipped and counted */
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 64, sa.mr.key, sa.mr.iova);
	ssq_put(&sq[0], qa[1].q.qpn, &w);
	qt_clock_step(qt, 1000000);
	pump(8);
	qt_clock_step(qt, 1000000);
	pump(8);
	CHECK(rstats(A, &st));
	CHECK_EQ(st.pipe_errors, 1);
	CHECK(cq_empty(&sa.scq));
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_SSQ, sq[0].n), SNIC_AQ_EBUSY);
}

/*
 * A QP number used again: an SQE that SSQ QP X left in its SSQ (posted
 * while X was not yet in RTS) must not run as the work of QP Y, which gets
 * X's number after X is destroyed.  Y's own SQEs, with the generation its
 * CREATE_QP result gives, do run.
 */
static void ssq_qpn_reuse(void)
{
	static const uint8_t zero[64];
	uint8_t got[64], pat[64];
	struct snic_rdma_stats st0, st;
	struct pqp x, y, pb;
	struct ssq q;
	struct snic_cqe e;
	struct wqe w;
	uint64_t r;
	int i;

	CHECK(env_start());
	CHECK(side_make(&sa, A, SNIC_QPT_RC) && side_make(&sb, B, SNIC_QPT_RC));
	CHECK_EQ(ssq_create(&q, A, 4, 0, 6, NULL), OK);
	CHECK_EQ(ssq_qp_create(&x, &r), OK);
	CHECK_EQ(r >> 40, 0);
	memset(pat, 0xab, sizeof(pat));
	mr_write(&sa.mr, 0, pat, sizeof(pat));
	mr_write(&sb.mr, 0, zero, sizeof(zero));
	/* X's WRITE waits at the SSQ head: X is not in RTS */
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 64, sa.mr.key, sa.mr.iova);
	ssq_put(&q, x.q.qpn, &w);
	qt_clock_step(qt, 1000000);
	pump(8);
	CHECK(rstats(A, &st0));
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_QP, x.q.qpn), OK);
	CHECK_EQ(ssq_qp_create(&y, &r), OK);
	CHECK_EQ(y.q.qpn, x.q.qpn);		/* the number comes back */
	CHECK_EQ(pqp_create(&pb, B, SNIC_QPT_RC, sb.pdn, &sb.scq, &sb.rcq, 4,
			    4, 1), OK);
	CHECK(qp_connect(&y.q, &pb.q, &conn_default, 100, 5000));
	CHECK(qp_connect(&pb.q, &y.q, &conn_default, 5000, 100));
	for (i = 0; i < 4; i++) {
		qt_clock_step(qt, 1000000);
		pump(8);
	}
	CHECK(rstats(A, &st));
	CHECK_EQ(st.ssq_sqes - st0.ssq_sqes, 0);
	CHECK_EQ(st.pipe_errors - st0.pipe_errors, 1);
	CHECK(cq_empty(&sa.scq));
	mr_read(&sb.mr, 0, got, sizeof(got));
	CHECK(!memcmp(got, zero, sizeof(got)));
	CHECK_EQ(r >> 40, 1);			/* Y: the next generation */
	/* Y's own WRITE, with its generation, runs */
	ssq_put(&q, y.q.qpn | (uint32_t)(r >> 40) << 24, &w);
	qt_clock_step(qt, 1000000);
	pump(8);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ);
	CHECK_EQ(e.rdma_qpn, y.q.qpn);
	CHECK_EQ(e.wqe_counter, 0);
	mr_read(&sb.mr, 0, got, sizeof(got));
	CHECK(!memcmp(got, pat, sizeof(got)));
}

int main(void)
{
	RUN("device/snic_pipe", pipe_admin);
	RUN("device/snic_pipe", pipe_send_write);
	RUN("device/snic_pipe", pipe_phase_wrap);
	RUN("device/snic_pipe", pipe_rqe_batch);
	RUN("device/snic_pipe", pipe_ci_every);
	RUN("device/snic_pipe", pipe_hostile);
	RUN("device/snic_pipe", pipe_doorbell_counted);
	RUN("device/snic_pipe", ssq_scale);
	RUN("device/snic_pipe", ssq_qpn_reuse);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
