/*
 * snic device tier: XRC (extended reliable connected) on the two-snic
 * RDMA environment - XRC domains and XRC SRQs as objects, an XRC_INI QP
 * on A sending to an XRC_TGT QP on B whose requests land in the XRC SRQ
 * their XRCETH names (SEND, WRITE, READ, atomic; XRC opcodes and the
 * XRCETH on the wire), and the errors: an SRQ of another XRC domain or
 * no SRQ at all is NAKed as an invalid request and counted.
 * docs/snic-rdma.md "XRC".
 */
#include <arpa/inet.h>
#include <string.h>
#include "../lib/check.h"
#include "snic_rdma_env.h"

struct xsrq {
	uint32_t n;
	uint64_t ring, dbr;
	struct snic_cq cq;
	uint16_t prod;
};

static uint32_t xrcd_create(struct snic_dev *d)
{
	uint64_t r = ~0ull;

	if (snic_aq_cmd(d, SNIC_AQ_CREATE_XRCD, NULL, 0, &r) != OK)
		return ~0u;
	return r;
}

/* An XRC SRQ of @xrcdn in @pdn on @d, 16 WQEs of 32 bytes, its own CQ. */
static int xsrq_create(struct xsrq *q, struct snic_dev *d, uint32_t pdn,
		       uint32_t xrcdn)
{
	struct snic_aq_create_srq cs;
	uint64_t r = ~0ull;
	int st;

	memset(q, 0, sizeof(*q));
	if (snic_cq_create(&q->cq, d, 8, SNIC_EQN_NONE, 4) != OK)
		return -1;
	q->ring = galloc(16 * 32, 64);
	q->dbr = galloc(64, 64);
	memset(&cs, 0, sizeof(cs));
	cs.pdn = pdn;
	cs.log_size = 4;
	cs.log_stride = 5;
	cs.db_page = 4;
	cs.ring_addr = q->ring;
	cs.dbr_addr = q->dbr;
	cs.flags = SNIC_SRQ_F_XRC;
	cs.xrcdn = xrcdn;
	cs.cqn = q->cq.n;
	st = snic_aq_cmd(d, SNIC_AQ_CREATE_SRQ, &cs, sizeof(cs), &r);
	q->n = r;
	return st;
}

static void xsrq_recv(struct xsrq *q, uint64_t cookie, uint32_t len,
		      uint32_t lkey, uint64_t addr)
{
	uint8_t b[32] = { 0 };
	struct snic_recv_hdr *h = (void *)b;
	struct snic_wqe_data *d = (void *)(b + 16);

	h->cookie = cookie;
	h->num_sge = 1;
	d->byte_count = len;
	d->lkey = lkey;
	d->addr = addr;
	qt_memwrite(qt, q->ring + (q->prod % 16) * 32, b, 32);
	q->prod++;
	qt_writel(qt, q->dbr, q->prod);
}

/* An XRC_TGT QP of @xrcdn on @d: no rings, no PD, no CQ. */
static int tgt_create(struct qp *q, struct snic_dev *d, uint32_t xrcdn)
{
	struct snic_aq_create_qp a = { 0 };
	uint64_t r = ~0ull;
	int st;

	memset(q, 0, sizeof(*q));
	q->d = d;
	q->type = SNIC_QPT_XRC_TGT;
	q->page = 4;
	q->srqn = -1;
	a.type = SNIC_QPT_XRC_TGT;
	a.db_page = q->page;
	a.srqn = SNIC_SRQN_NONE;
	a.xrcdn = xrcdn;
	st = snic_aq_cmd(d, SNIC_AQ_CREATE_QP, &a, sizeof(a), &r);
	q->qpn = r;
	return st;
}

/* An XRC_INI QP on @d: a send ring, no receive queue. */
static int ini_create(struct qp *q, struct snic_dev *d, uint32_t pdn,
		      struct snic_cq *scq)
{
	struct snic_aq_create_qp a = { 0 };
	uint64_t r = ~0ull;
	int st;

	memset(q, 0, sizeof(*q));
	q->d = d;
	q->type = SNIC_QPT_XRC_INI;
	q->pdn = pdn;
	q->sq_size = 64;
	q->page = 4;
	q->srqn = -1;
	q->sq = galloc(SNIC_WQEBB_SIZE * q->sq_size, 64);
	q->dbr = galloc(64, 64);
	a.type = SNIC_QPT_XRC_INI;
	a.sq_log = 6;
	a.db_page = q->page;
	a.pdn = pdn;
	a.send_cqn = scq->n;
	a.recv_cqn = scq->n;
	a.srqn = SNIC_SRQN_NONE;
	a.sq_addr = q->sq;
	a.dbr_addr = q->dbr;
	st = snic_aq_cmd(d, SNIC_AQ_CREATE_QP, &a, sizeof(a), &r);
	q->qpn = r;
	return st;
}

/* B's side: XRCD x1 with SRQs s1, s2 (PD sb.pdn), XRCD x2 with s3. */
static uint32_t x1, x2;
static struct xsrq s1, s2, s3;
static struct qp tgt;

static bool xrc_up(void)
{
	memset(&sa, 0, sizeof(sa));
	sa.d = A;
	sa.pdn = pd_create(A);
	memset(&sb, 0, sizeof(sb));
	sb.d = B;
	sb.pdn = pd_create(B);
	x1 = xrcd_create(B);
	x2 = xrcd_create(B);
	if (sa.pdn == ~0u || sb.pdn == ~0u || x1 == ~0u || x2 == ~0u)
		return check_fail(__FILE__, __LINE__, "PD or XRCD"), false;
	if (snic_cq_create(&sa.scq, A, 8, SNIC_EQN_NONE, 4) != OK ||
	    mr_create(&sa.mr, A, sa.pdn, BUF_LEN, ALL_ACCESS, 0x80) != OK ||
	    mr_create(&sb.mr, B, sb.pdn, BUF_LEN, ALL_ACCESS, 0x80) != OK)
		return check_fail(__FILE__, __LINE__, "CQ or MR"), false;
	if (xsrq_create(&s1, B, sb.pdn, x1) != OK ||
	    xsrq_create(&s2, B, sb.pdn, x1) != OK ||
	    xsrq_create(&s3, B, sb.pdn, x2) != OK)
		return check_fail(__FILE__, __LINE__, "XRC SRQ"), false;
	if (ini_create(&sa.qp, A, sa.pdn, &sa.scq) != OK ||
	    tgt_create(&tgt, B, x1) != OK)
		return check_fail(__FILE__, __LINE__, "XRC QP"), false;
	if (!qp_connect(&sa.qp, &tgt, &conn_default, 100, 5000) ||
	    !qp_connect(&tgt, &sa.qp, &conn_default, 5000, 100))
		return check_fail(__FILE__, __LINE__, "connect"), false;
	return true;
}

/* A WQE of @op from A's MR at @off for XRC SRQ @srqn. */
static void xw_init(struct wqe *w, uint8_t op, uint32_t imm, uint16_t srqn)
{
	struct snic_wqe_ctrl *c = (void *)w->b;

	w_init(w, op, SNIC_WQE_F_SIGNAL, imm);
	c->xrc_srqn = srqn;
}

static void xrc_objects(void)
{
	struct snic_aq_create_qp a = { 0 };
	struct xsrq q;
	struct qp t;
	uint64_t r;

	CHECK(env_start());
	CHECK(xrc_up());
	/* an XRC SRQ needs a live XRCD and CQ */
	CHECK_EQ(xsrq_create(&q, B, sb.pdn, 200), SNIC_AQ_ENOENT);
	CHECK_EQ(xsrq_create(&q, B, sb.pdn, SNIC_MAX_XRCDS), SNIC_AQ_ENOENT);
	/* a TGT QP needs a live XRCD */
	CHECK_EQ(tgt_create(&t, B, 77), SNIC_AQ_ENOENT);
	/* an XRC SRQ is for TGT QPs only, not an RC QP's SRQ */
	CHECK(snic_cq_create(&sb.rcq, B, 8, SNIC_EQN_NONE, 4) == OK);
	CHECK_EQ(qp_create(&sb.qp, B, SNIC_QPT_RC, sb.pdn, &sb.rcq, &sb.rcq,
			   s1.n), SNIC_AQ_EINVAL_PARAM);
	/* an INI QP has no receive queue */
	a.type = SNIC_QPT_XRC_INI;
	a.sq_log = 6;
	a.rq_log = 5;
	a.db_page = 4;
	a.pdn = sa.pdn;
	a.send_cqn = sa.scq.n;
	a.recv_cqn = sa.scq.n;
	a.srqn = SNIC_SRQN_NONE;
	a.sq_addr = galloc(4096, 64);
	a.dbr_addr = galloc(64, 64);
	CHECK_EQ(snic_aq_cmd(A, SNIC_AQ_CREATE_QP, &a, sizeof(a), &r),
		 SNIC_AQ_EINVAL_PARAM);
	/*
	 * Doorbells for a queue an XRC QP does not have: none on a TGT QP,
	 * no receive queue on an INI QP (a foreign page in between, so that
	 * each refusal is seen)
	 */
	snic_db(B, 4, SNIC_DB_QP_SQ, tgt.qpn, 1);
	CHECK_EQ(snic_rd(B, SNIC_REG_ERROR), SNIC_ERR_DB_QUEUE);
	snic_db(B, 9, SNIC_DB_QP_SQ, tgt.qpn, 1);
	CHECK_EQ(snic_rd(B, SNIC_REG_ERROR), SNIC_ERR_DB_PAGE);
	snic_db(B, 4, SNIC_DB_QP_RQ, tgt.qpn, 1);
	CHECK_EQ(snic_rd(B, SNIC_REG_ERROR), SNIC_ERR_DB_QUEUE);
	snic_db(A, 9, SNIC_DB_QP_RQ, sa.qp.qpn, 1);
	CHECK_EQ(snic_rd(A, SNIC_REG_ERROR), SNIC_ERR_DB_PAGE);
	snic_db(A, 4, SNIC_DB_QP_RQ, sa.qp.qpn, 1);
	CHECK_EQ(snic_rd(A, SNIC_REG_ERROR), SNIC_ERR_DB_QUEUE);
	CHECK_EQ(qp_query_state(&tgt), SNIC_QPS_RTS);
	/* in use: the XRCD by SRQs and the TGT QP, the CQ by its SRQ */
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_XRCD, x2), SNIC_AQ_EBUSY);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_CQ, s3.cq.n), SNIC_AQ_EBUSY);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_SRQ, s3.n), OK);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_XRCD, x2), OK);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_XRCD, x2), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_XRCD, x1), SNIC_AQ_EBUSY);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_QP, tgt.qpn), OK);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_SRQ, s1.n), OK);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_SRQ, s2.n), OK);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_XRCD, x1), OK);
}

/*
 * SEND to s2 then s1 (each completes on its SRQ's CQ with the TGT QP's
 * number), a WRITE, a READ and a fetch-and-add through the TGT QP, whose
 * keys are checked against the named SRQ's PD.
 */
static void xrc_ops(void)
{
	static uint8_t src[8000], dst[8000];
	struct snic_rdma_stats sta, stb;
	struct snic_wqe_atomic at;
	uint8_t f[9100];
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;
	uint64_t v;
	int n, ops[256] = { 0 }, xrceth_ok = 0;

	CHECK(env_start());
	CHECK(xrc_up());
	fill(src, sizeof(src), 7);
	mr_write(&sa.mr, 0, src, sizeof(src));
	xsrq_recv(&s1, 0x101, 4000, sb.mr.key, sb.mr.iova);
	xsrq_recv(&s2, 0x201, 4000, sb.mr.key, sb.mr.iova + 10000);
	cap_drain();
	xw_init(&w, SNIC_WQE_SEND, 0, s2.n);
	w_data(&w, 3000, sa.mr.key, sa.mr.iova);	/* 3 packets */
	idx = qp_post(&sa.qp, &w);
	for (n = 0; n < 200 && !snic_cq_peek(&sa.scq, &e, 1); n++)
		qt_readl(qt, A->bar0 + SNIC_REG_ID);
	while ((n = cap_recv(f, sizeof(f), 200)) > 0) {
		ops[f[42]]++;
		if (f[42] >= 0xa0 && f[42] <= 0xa4 &&
		    (uint32_t)(f[55] << 16 | f[56] << 8 | f[57]) == s2.n)
			xrceth_ok++;
	}
	CHECK_EQ(ops[0xa0], 1);		/* XRC SEND FIRST */
	CHECK_EQ(ops[0xa1], 1);		/* XRC SEND MIDDLE */
	CHECK_EQ(ops[0xa2], 1);		/* XRC SEND LAST */
	CHECK_EQ(xrceth_ok, 3);		/* each with the XRCETH of s2 */
	CHECK(ops[0xb1] >= 1);		/* XRC ACK */
	CHECK_EQ(ops[0x04] + ops[0x00] + ops[0x11], 0);	/* no RC opcode */
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, 3000, &e);
	CHECK(cq_wait(&s2.cq, &e, 1000000));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.cookie, 0x201);
	CHECK_EQ(e.byte_cnt, 3000);
	CHECK_EQ(e.rdma_qpn, tgt.qpn);
	CHECK_EQ(e.rdma_flags, SNIC_CQE_RF_XRC);
	CHECK_EQ(e.src_qpn, s2.n);
	CHECK(cq_empty(&s1.cq));
	mr_read(&sb.mr, 10000, dst, 3000);
	CHECK(!memcmp(dst, src, 3000));
	/* SEND with immediate to s1 */
	xw_init(&w, SNIC_WQE_SEND_IMM, 0xabc, s1.n);
	w_data(&w, 10, sa.mr.key, sa.mr.iova + 100);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND_IMM, 10, &e);
	CHECK(cq_wait(&s1.cq, &e, 1000000));
	CHECK_EQ(e.cookie, 0x101);
	CHECK_EQ(e.byte_cnt, 10);
	CHECK_EQ(e.rdma_flags, SNIC_CQE_RF_IMM | SNIC_CQE_RF_XRC);
	CHECK_EQ(e.src_qpn, s1.n);
	CHECK_EQ(ntohl(e.imm), 0xabc);
	CHECK(cq_empty(&s2.cq));
	/* WRITE 2000 bytes to B's MR at 50000 */
	xw_init(&w, SNIC_WQE_RDMA_WRITE, 0, s1.n);
	w_raddr(&w, sb.mr.iova + 50000, sb.mr.key);
	w_data(&w, 2000, sa.mr.key, sa.mr.iova + 1000);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, 2000, &e);
	mr_read(&sb.mr, 50000, dst, 2000);
	CHECK(!memcmp(dst, src + 1000, 2000));
	/* READ it back into A's MR at 20000 */
	xw_init(&w, SNIC_WQE_RDMA_READ, 0, s1.n);
	w_raddr(&w, sb.mr.iova + 50000, sb.mr.key);
	w_data(&w, 2000, sa.mr.key, sa.mr.iova + 20000);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_READ, 2000, &e);
	mr_read(&sa.mr, 20000, dst, 2000);
	CHECK(!memcmp(dst, src + 1000, 2000));
	/* fetch-and-add 5 on B's 8 bytes at 60000 */
	v = 40;
	mr_write(&sb.mr, 60000, &v, 8);
	memset(&at, 0, sizeof(at));
	at.swap_add = 5;
	xw_init(&w, SNIC_WQE_ATOMIC_FA, 0, s2.n);
	w_raddr(&w, sb.mr.iova + 60000, sb.mr.key);
	w_seg(&w, &at, sizeof(at));
	w_data(&w, 8, sa.mr.key, sa.mr.iova + 30000);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_ATOMIC_FA, 8, &e);
	mr_read(&sa.mr, 30000, &v, 8);
	CHECK_EQ(v, 40);
	mr_read(&sb.mr, 60000, &v, 8);
	CHECK_EQ(v, 45);
	CHECK(rstats(A, &sta));
	CHECK(rstats(B, &stb));
	CHECK_EQ(stb.xrc_bad_srqn + stb.inv_req_naks_sent + stb.rx_no_qp, 0);
	CHECK_EQ(sta.req_errors, 0);
	CHECK_EQ(stb.atomics, 1);
	CHECK_EQ(qp_query_state(&tgt), SNIC_QPS_RTS);
	CHECK_EQ(qp_query_state(&sa.qp), SNIC_QPS_RTS);
}

/* A SEND naming @srqn: NAK invalid request, counted, TGT QP to ERR. */
static void xrc_refused(uint16_t srqn, struct xsrq *other)
{
	struct snic_rdma_stats sta, stb;
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	xsrq_recv(other, 0x301, 4000, sb.mr.key, sb.mr.iova);
	CHECK(rstats(B, &stb));
	CHECK_EQ(stb.xrc_bad_srqn, 0);
	xw_init(&w, SNIC_WQE_SEND, 0, srqn);
	w_data(&w, 100, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_REM_INV_REQ);
	CHECK_EQ(e.wqe_counter, idx);
	CHECK(rstats(A, &sta));
	CHECK(rstats(B, &stb));
	CHECK_EQ(stb.xrc_bad_srqn, 1);
	CHECK_EQ(stb.inv_req_naks_sent, 1);
	CHECK_EQ(sta.inv_req_naks_rcvd, 1);
	CHECK(cq_empty(&other->cq));
	CHECK_EQ(qp_query_state(&tgt), SNIC_QPS_ERR);
}

static void xrc_wrong_xrcd(void)
{
	CHECK(env_start());
	CHECK(xrc_up());
	xrc_refused(s3.n, &s3);		/* s3 is of XRCD x2, tgt of x1 */
}

static void xrc_unknown_srqn(void)
{
	CHECK(env_start());
	CHECK(xrc_up());
	xrc_refused(200, &s1);		/* no SRQ 200 */
}

int main(void)
{
	RUN("device/snic_rdma_xrc", xrc_objects);
	RUN("device/snic_rdma_xrc", xrc_ops);
	RUN("device/snic_rdma_xrc", xrc_wrong_xrcd);
	RUN("device/snic_rdma_xrc", xrc_unknown_srqn);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
