/*
 * snic device tier, Ethernet: bad input - malformed WQEs, queue DMA errors, doorbell errors, CQ
 * overflow and malformed frames: errors are counted and reported, the
 * device carries on.
 * The environment (two snics, the wire socket, queues, frames) is
 * snic_eth_env.h's; the tests are device/snic_eth/<name>.
 */
#include <stdlib.h>
#include "snic_eth_env.h"

/*
 * A one-BB Ethernet WQE: ctrl, eth with @inl inline bytes of @hdr (10 in
 * the eth segment, up to 16 more in the next), one data segment.
 */
static void wqe_raw(uint8_t *bb, uint8_t opcode, uint8_t ds, uint16_t inl,
		    const uint8_t *hdr, uint32_t bc, uint32_t lkey,
		    uint64_t addr, uint16_t mss)
{
	struct snic_wqe_ctrl *c = (void *)bb;
	struct snic_wqe_eth *eth = (void *)(bb + 16);
	struct snic_wqe_data *d = (void *)(bb + 48);

	memset(bb, 0, SNIC_WQEBB_SIZE);
	c->opcode = opcode;
	c->ds_cnt = ds;
	eth->mss = mss;
	eth->inline_hdr_sz = inl;
	memcpy(eth->inline_hdr, hdr, 10);
	memcpy(bb + 32, hdr + 10, 4);
	d->byte_count = bc;
	d->lkey = lkey;
	d->addr = addr;
}

/* The next CQE is a TX_ERR with syndrome @s (or @s2) for WQE @w. */
#define CHECK_ERR(cq, sq, w, s, s2) do {				\
	struct snic_cqe _e;						\
	CHECK(cq_poll((cq), &_e));					\
	CHECK_EQ(_e.opcode, SNIC_CQE_TX_ERR);				\
	CHECK_EQ(_e.qn, (sq)->n);					\
	CHECK_EQ(_e.wqe_counter, (uint16_t)(w));			\
	if (_e.syndrome != (s) && _e.syndrome != (s2))			\
		CHECK_EQ(_e.syndrome, (s));				\
} while (0)

static void bad_wqes(void)
{
	struct snic_cq tcq, rcq;
	struct snic_sq sq;
	struct snic_rq rq;
	struct snic_cqe e;
	struct snic_port_stats s0, s;
	struct snic_queue_stats qs;
	struct flow tcp = { .sip = IP4(10, 0, 0, 1), .dip = IP4(10, 0, 0, 2),
			    .sport = 1, .dport = 2, .proto = 6 };
	uint8_t bb[8 * SNIC_WQEBB_SIZE], nop[4 * SNIC_WQEBB_SIZE];
	uint8_t f[2048], th[64];
	uint64_t data, big;
	uint32_t dma0;
	size_t len;
	uint16_t w;
	int i, nerr = 0;

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 8));
	CHECK(rx_setup(B, &rcq, &rq, 16));
	CHECK(pstats(A, &s0));
	dma0 = snic_rd(A, SNIC_REG_STAT_DMA_ERRS);
	len = mk_udp(f, mac_b, 1614, 1);
	data = qt_alloc(qt, 2048, 64);
	qt_memwrite(qt, data, f + ETH_HLEN, len - ETH_HLEN);
	big = qt_alloc(qt, 80000, 64);
	mk_raw(th, &tcp, 0, 0);
	qt_memwrite(qt, big, f, 2048);
	memset(nop, 0, sizeof(nop));
	for (i = 0; i < 4; i++)
		nop[i * SNIC_WQEBB_SIZE + 4] = 1;	/* NOP, ds_cnt 1 */

#define ONE(op, ds, inl, bc, lkey, addr, mss, s1, s2) do {		\
	wqe_raw(bb, op, ds, inl, f, bc, lkey, addr, mss);		\
	w = snic_sq_put(&sq, bb, 1);						\
	snic_sq_ring(&sq);							\
	CHECK_ERR(&tcq, &sq, w, s1, s2);				\
	nerr++;								\
} while (0)
	/* bad opcode */
	ONE(0x7f, 4, 14, 100, 0, data, 0, SNIC_SYND_BAD_OPCODE, 0xff);
	/* ds_cnt 0 and 17; NOPs after them whatever length they are given */
	wqe_raw(bb, SNIC_WQE_ETH_SEND, 0, 14, f, 100, 0, data, 0);
	memcpy(bb + SNIC_WQEBB_SIZE, nop, 4 * SNIC_WQEBB_SIZE);
	w = snic_sq_put(&sq, bb, 5);
	snic_sq_ring(&sq);
	CHECK_ERR(&tcq, &sq, w, SNIC_SYND_BAD_DS, 0xff);
	nerr++;
	wqe_raw(bb, SNIC_WQE_ETH_SEND, 17, 14, f, 100, 0, data, 0);
	w = snic_sq_put(&sq, bb, 5);
	snic_sq_ring(&sq);
	CHECK_ERR(&tcq, &sq, w, SNIC_SYND_BAD_DS, 0xff);
	nerr++;
	/* ds_cnt too small for the opcode, for the inline header */
	ONE(SNIC_WQE_ETH_SEND, 1, 14, 100, 0, data, 0, SNIC_SYND_BAD_DS, 0xff);
	ONE(SNIC_WQE_ETH_SEND, 3, 42, 100, 0, data, 0, SNIC_SYND_BAD_DS, 0xff);
	/* lengths: zero / oversized segment, frame over MTU + 18 */
	ONE(SNIC_WQE_ETH_SEND, 4, 14, 0, 0, data, 0, SNIC_SYND_BAD_LEN, 0xff);
	ONE(SNIC_WQE_ETH_SEND, 4, 14, 65537, 0, big, 0, SNIC_SYND_BAD_LEN,
	    0xff);
	ONE(SNIC_WQE_ETH_SEND, 4, 14, MTU + 18 - 14 + 1, 0, data, 0,
	    SNIC_SYND_BAD_LEN, 0xff);
	/* frame under 14 bytes: 10 inline bytes, no data segment */
	ONE(SNIC_WQE_ETH_SEND, 2, 10, 0, 0, 0, 0, SNIC_SYND_BAD_LEN, 0xff);
	/* lkey, unmapped data */
	ONE(SNIC_WQE_ETH_SEND, 4, 14, 100, 0x100, data, 0,
	    SNIC_SYND_BAD_LKEY, 0xff);
	ONE(SNIC_WQE_ETH_SEND, 4, 14, 100, 0, UNMAPPED, 0, SNIC_SYND_DMA,
	    0xff);
	/* inline header over SNIC_MAX_INLINE (220 bytes fit ds_cnt 16) */
	memset(bb, 0, sizeof(bb));
	wqe_raw(bb, SNIC_WQE_ETH_SEND, 16, 220, f, 0, 0, 0, 0);
	memcpy(bb + 32, f + 10, 210);
	w = snic_sq_put(&sq, bb, 4);
	snic_sq_ring(&sq);
	CHECK_ERR(&tcq, &sq, w, SNIC_SYND_BAD_LEN, SNIC_SYND_BAD_DS);
	nerr++;
	/* TSO: mss 0, mss over the MTU, payload over 64 KiB */
	memcpy(f, th, 54);
	memset(bb, 0, sizeof(bb));
	for (i = 0; i < 3; i++) {
		struct snic_wqe_ctrl *c = (void *)bb;
		struct snic_wqe_eth *eth = (void *)(bb + 16);
		struct snic_wqe_data *d = (void *)(bb + 80);

		memset(bb, 0, sizeof(bb));
		c->opcode = SNIC_WQE_ETH_TSO;
		c->ds_cnt = 2 + 3 + 2;	/* 54 inline bytes, two segments */
		eth->inline_hdr_sz = 54;
		eth->mss = i == 0 ? 0 : i == 1 ? MTU + 1 : 1000;
		memcpy(eth->inline_hdr, th, 10);
		memcpy(bb + 32, th + 10, 44);
		d[0].byte_count = i == 2 ? 40000 : 1000;
		d[0].addr = big;
		d[1].byte_count = i == 2 ? 40000 : 1000;
		d[1].addr = big + 40000;
		w = snic_sq_put(&sq, bb, 2);
		snic_sq_ring(&sq);
		CHECK_ERR(&tcq, &sq, w, i < 2 ? SNIC_SYND_BAD_MSS :
			  SNIC_SYND_BAD_LEN, 0xff);
		nerr++;
	}
	/* second data segment unmapped */
	{
		struct snic_wqe_data *d = (void *)(bb + 64);

		len = mk_udp(f, mac_b, 300, 2);
		wqe_raw(bb, SNIC_WQE_ETH_SEND, 5, 14, f, 100, 0, data, 0);
		memset(bb + 64, 0, 64);
		d->byte_count = 186;
		d->addr = UNMAPPED + 0x1000;
		w = snic_sq_put(&sq, bb, 2);
		snic_sq_ring(&sq);
		CHECK_ERR(&tcq, &sq, w, SNIC_SYND_DMA, 0xff);
		nerr++;
	}
#undef ONE
	/* nothing went on the wire, and the SQ still works */
	CHECK(cq_empty(&rcq));
	CHECK(cq_empty(&tcq));
	len = mk_udp(f, mac_b, 300, 3);
	w = sq_send(&sq, f, len, true);
	CHECK_TX(&tcq, &sq, w, len, &e);
	CHECK_RX(&rcq, &rq, f, len, &e);
	CHECK(pstats(A, &s));
	CHECK_EQ(s.tx_errors - s0.tx_errors, nerr);
	CHECK_EQ(s.tx_packets - s0.tx_packets, 1);
	CHECK(qstats(A, SNIC_STATS_SQ, sq.n, &qs));
	CHECK_EQ(qs.errors, nerr);
	CHECK_EQ(qs.packets, 1);
	CHECK(snic_rd(A, SNIC_REG_STAT_DMA_ERRS) - dma0 >= 2);
	CHECK(qt_alive(qt));
}

/*
 * Rings and records in a peer BAR (ivshmem) that disappears under a live
 * queue: SQ ring, RQ doorbell record, CQ ring.
 */
static void queue_dma_errors(void)
{
	struct snic_eq eq, eqb;
	struct snic_cq tcq, rcq, cq3, cq4;
	struct snic_sq sq, sq2, sq3, sq4;
	struct snic_rq rq;
	struct snic_eqe q;
	struct snic_cqe e;
	struct snic_pcie_stats p0, p1;
	struct snic_steer_rule rule = { .priority = 1, .dest = SNIC_DEST_RQ };
	uint8_t f[256], bb[4 * SNIC_WQEBB_SIZE], cap[2048];
	struct txo o = { .opcode = SNIC_WQE_ETH_SEND,
			 .flags = SNIC_WQE_F_SIGNAL, .inl = ETH_HLEN,
			 .nseg = 1 };
	size_t len;
	uint32_t dma0;
	int n;

	CHECK(env_start());
	len = mk_udp(f, mac_b, 120, 1);

	/* 1. SQ ring in the BAR; the BAR goes away; the doorbell comes */
	CHECK_EQ(snic_eq_create(&eq, A, 3, 1, 0, 0, 3), OK);
	CHECK_EQ(snic_cq_create(&tcq, A, 4, eq.n, 3), OK);
	CHECK_EQ(snic_sq_create_at(&sq, A, 4, tcq.n, 3, SHM_BAR, qt_alloc(qt, 64, 64)),
		 OK);
	CHECK_EQ(snic_query_stats(A, SNIC_STATS_PCIE, 0, &p0, sizeof(p0)), OK);
	/* a ring in a peer's BAR works like one in RAM */
	n = wqe_build(bb, sq.prod, f, len, &o);
	snic_sq_put(&sq, bb, n);
	snic_sq_ring(&sq);
	CHECK(cq_poll(&tcq, &e));
	CHECK_EQ(e.opcode, SNIC_CQE_TX);
	CHECK_EQ(e.qn, sq.n);
	CHECK_EQ(cap_recv(cap, sizeof(cap), 1000), len);
	CHECK(!memcmp(cap, f, len));
	dma0 = snic_rd(A, SNIC_REG_STAT_DMA_ERRS);
	n = wqe_build(bb, sq.prod, f, len, &o);
	snic_sq_put(&sq, bb, n);		/* written while still mapped */
	shm_map(false);
	cap_drain();
	snic_sq_ring(&sq);
	CHECK(eq_poll(&eq, &q));
	CHECK_EQ(q.type, SNIC_EQE_SQ_ERROR);
	CHECK_EQ(q.obj, sq.n);
	CHECK_EQ(snic_rd(A, SNIC_REG_ERROR), SNIC_ERR_QUEUE_DMA);
	CHECK(snic_rd(A, SNIC_REG_STAT_DMA_ERRS) > dma0);
	CHECK_EQ(snic_query_stats(A, SNIC_STATS_PCIE, 0, &p1, sizeof(p1)), OK);
	CHECK(p1.dma_errors > p0.dma_errors);
	CHECK(cq_empty(&tcq));
	/* the SQ stays in error even with the memory back */
	shm_map(true);
	snic_sq_put(&sq, bb, n);
	snic_sq_ring(&sq);
	CHECK(cq_empty(&tcq));
	CHECK_EQ(cap_recv(cap, sizeof(cap), 50), -1);
	/* destroyed and replaced, the CQ carries on */
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_SQ, sq.n), OK);
	CHECK_EQ(snic_sq_create(&sq2, A, 4, tcq.n, 3), OK);
	sq_send(&sq2, f, len, true);
	CHECK(cq_poll(&tcq, &e));
	CHECK_EQ(e.opcode, SNIC_CQE_TX);
	CHECK_EQ(e.qn, sq2.n);
	n = cap_recv(cap, sizeof(cap), 1000);
	CHECK_EQ(n, len);

	/* 2. RQ doorbell record in the BAR: read when the RQ looks empty */
	snic_wr(B, SNIC_REG_ERROR, 0);
	CHECK_EQ(snic_eq_create(&eqb, B, 3, 1, 0, 0, 3), OK);
	CHECK_EQ(snic_cq_create(&rcq, B, 4, eqb.n, 3), OK);
	CHECK_EQ(snic_rq_create_at(&rq, B, 4, rcq.n, 3, SNIC_RQ_PLAIN, 0, 0, 2048,
			      SHM_BAR + 0x1000), OK);
	rule.dest_id = rq.n;
	CHECK_EQ(rule_add(B, &rule, NULL), OK);
	snic_rq_post(&rq, 4, false);		/* record only, no doorbell */
	shm_map(false);
	dma0 = snic_rd(B, SNIC_REG_STAT_DMA_ERRS);
	sq_send(&sq2, f, len, true);
	CHECK(cq_poll(&tcq, &e));
	CHECK(eq_poll(&eqb, &q));
	CHECK_EQ(q.type, SNIC_EQE_RQ_ERROR);
	CHECK_EQ(q.obj, rq.n);
	CHECK_EQ(snic_rd(B, SNIC_REG_ERROR), SNIC_ERR_QUEUE_DMA);
	CHECK(snic_rd(B, SNIC_REG_STAT_DMA_ERRS) > dma0);
	CHECK(cq_empty(&rcq));
	shm_map(true);
	snic_rq_post(&rq, 1, true);
	sq_send(&sq2, f, len, true);
	CHECK(cq_poll(&tcq, &e));
	CHECK(cq_empty(&rcq));		/* the RQ stays in error */

	/* 3. CQ ring in the BAR: the CQE write fails, CQ error event */
	snic_wr(A, SNIC_REG_ERROR, 0);
	{
		struct snic_aq_create_cq a = {
			.ring_addr = SHM_BAR + 0x8000,
			.dbr_addr = qt_alloc(qt, 64, 64), .log_size = 4,
			.eqn = eq.n, .db_page = 3,
		};
		uint64_t r;

		CHECK_EQ(snic_aq_cmd(A, SNIC_AQ_CREATE_CQ, &a, sizeof(a), &r),
			 OK);
		memset(&cq3, 0, sizeof(cq3));
		cq3.n = r;
	}
	CHECK_EQ(snic_sq_create(&sq3, A, 4, cq3.n, 3), OK);
	shm_map(false);
	sq_send(&sq3, f, len, true);
	CHECK(eq_poll(&eq, &q));
	CHECK_EQ(q.type, SNIC_EQE_CQ_ERROR);
	CHECK_EQ(q.obj, cq3.n);
	CHECK_EQ(q.data, SNIC_ERR_QUEUE_DMA);
	CHECK_EQ(snic_rd(A, SNIC_REG_ERROR), SNIC_ERR_QUEUE_DMA);
	shm_map(true);

	/* 4. CQ doorbell record in the BAR: read when the CQ looks full */
	snic_wr(A, SNIC_REG_ERROR, 0);
	{
		struct snic_aq_create_cq a = {
			.ring_addr = qt_alloc(qt, 2 * sizeof(struct snic_cqe), 64),
			.dbr_addr = SHM_BAR + 0x2000, .log_size = 1,
			.eqn = eq.n, .db_page = 3,
		};
		uint64_t r;

		CHECK_EQ(snic_aq_cmd(A, SNIC_AQ_CREATE_CQ, &a, sizeof(a), &r),
			 OK);
		memset(&cq4, 0, sizeof(cq4));
		cq4.n = r;
	}
	CHECK_EQ(snic_sq_create(&sq4, A, 4, cq4.n, 3), OK);
	sq_send(&sq4, f, len, true);
	sq_send(&sq4, f, len, true);	/* the CQ is full now */
	settle();
	CHECK(eq_empty(&eq));
	shm_map(false);
	sq_send(&sq4, f, len, true);
	CHECK(eq_poll(&eq, &q));
	CHECK_EQ(q.type, SNIC_EQE_CQ_ERROR);
	CHECK_EQ(q.obj, cq4.n);
	CHECK_EQ(q.data, SNIC_ERR_QUEUE_DMA);
	CHECK_EQ(snic_rd(A, SNIC_REG_ERROR), SNIC_ERR_QUEUE_DMA);
	shm_map(true);
	CHECK(qt_alive(qt));
}

/* Doorbells on the wrong page, for missing queues, beyond the ring. */
static void doorbell_errors(void)
{
	struct snic_cq tcq, rcq;
	struct snic_sq sq;
	struct snic_rq rq;
	struct snic_eq eq;
	struct snic_cqe e;
	uint8_t f[256], bb[4 * SNIC_WQEBB_SIZE], cap[2048];
	struct txo o = { .opcode = SNIC_WQE_ETH_SEND,
			 .flags = SNIC_WQE_F_SIGNAL, .inl = ETH_HLEN,
			 .nseg = 1 };
	size_t len;
	uint16_t w[8];
	uint32_t bad0[2], nbad[2] = { 0, 0 };
	int n, k;

	CHECK(env_start());
	CHECK_EQ(snic_cq_create(&tcq, A, 4, SNIC_EQN_NONE, 7), OK);
	CHECK_EQ(snic_sq_create(&sq, A, 3, tcq.n, 7), OK);	/* 8 BBs, page 7 */
	CHECK_EQ(snic_eq_create(&eq, A, 3, 1, 0, 0, 7), OK);
	CHECK(rx_setup(B, &rcq, &rq, 16));
	len = mk_udp(f, mac_b, 100, 1);
	n = wqe_build(bb, 0, f, len, &o);	/* 1 BB */
	snic_sq_put(&sq, bb, n);
	qt_writel(qt, sq.dbr, sq.prod);
	bad0[0] = snic_rd(A, SNIC_REG_STAT_BAD_DB);
	bad0[1] = snic_rd(B, SNIC_REG_STAT_BAD_DB);

#define REFUSED(d, page, off, qn, ctr, err) do {			\
	int _i = dev_idx(d);						\
	snic_wr(d, SNIC_REG_ERROR, 0);					\
	snic_db(d, page, off, qn, ctr);					\
	nbad[_i]++;							\
	CHECK_EQ(snic_rd(d, SNIC_REG_ERROR), err);			\
	CHECK_EQ(snic_rd(d, SNIC_REG_STAT_BAD_DB) - bad0[_i], nbad[_i]);	\
} while (0)
	REFUSED(A, 8, SNIC_DB_SQ, sq.n, sq.prod, SNIC_ERR_DB_PAGE);
	REFUSED(A, 0, SNIC_DB_SQ, sq.n, sq.prod, SNIC_ERR_DB_PAGE);
	REFUSED(A, 7, SNIC_DB_SQ, sq.n + 500, sq.prod, SNIC_ERR_DB_QUEUE);
	REFUSED(A, 7, SNIC_DB_SQ, 0xffff, sq.prod, SNIC_ERR_DB_QUEUE);
	REFUSED(A, 7, SNIC_DB_SQ, sq.n, 9, SNIC_ERR_DB_RANGE);
	REFUSED(A, 7, SNIC_DB_SQ, sq.n, 0xffff, SNIC_ERR_DB_RANGE);
	REFUSED(A, 7, SNIC_DB_SQ, sq.n, 0x8000, SNIC_ERR_DB_RANGE);
	REFUSED(A, 7, SNIC_DB_CQ, tcq.n + 500, 0, SNIC_ERR_DB_QUEUE);
	REFUSED(A, 6, SNIC_DB_CQ_ARM, tcq.n, 0, SNIC_ERR_DB_PAGE);
	REFUSED(A, 7, SNIC_DB_EQ_ARM, (eq.n + 9) % SNIC_MAX_EQS, 0,
		SNIC_ERR_DB_QUEUE);
	REFUSED(A, 1, SNIC_DB_EQ, eq.n, 0, SNIC_ERR_DB_PAGE);
	REFUSED(B, 1, SNIC_DB_RQ, rq.n + 500, 0, SNIC_ERR_DB_QUEUE);
	REFUSED(B, 2, SNIC_DB_RQ, rq.n, rq.prod, SNIC_ERR_DB_PAGE);
	REFUSED(B, 1, SNIC_DB_RQ, rq.n, rq.prod + 100, SNIC_ERR_DB_RANGE);
	REFUSED(B, 7, SNIC_DB_RQ, rq.n, rq.prod, SNIC_ERR_DB_PAGE);
#undef REFUSED
	/* none of these ran anything */
	CHECK(cq_empty(&tcq));
	CHECK(cq_empty(&rcq));
	CHECK_EQ(cap_recv(cap, sizeof(cap), 20), -1);
	/* the right doorbell runs the WQE, exactly once */
	snic_db(A, 7, SNIC_DB_SQ, sq.n, sq.prod);
	CHECK_TX(&tcq, &sq, 0, len, &e);
	CHECK_RX(&rcq, &rq, f, len, &e);
	CHECK(cq_empty(&tcq));
	CHECK(cq_empty(&rcq));
	/* exactly a ring's worth ahead is fine: eight 1-BB WQEs */
	for (k = 0; k < 8; k++) {
		n = wqe_build(bb, sq.prod, f, len, &o);
		CHECK_EQ(n, 1);
		w[k] = snic_sq_put(&sq, bb, n);
	}
	snic_sq_ring(&sq);
	for (k = 0; k < 8; k++) {
		CHECK_TX(&tcq, &sq, w[k], len, &e);
		CHECK_RX(&rcq, &rq, f, len, &e);
	}
	CHECK_EQ(snic_rd(A, SNIC_REG_STAT_BAD_DB) - bad0[0], nbad[0]);
}

/* A two-entry CQ that nobody consumes. */
static void cq_overflow(void)
{
	struct snic_eq eq;
	struct snic_cq cq, tcq2;
	struct snic_sq sq, sq2;
	struct snic_eqe q;
	struct snic_cqe e;
	struct snic_port_stats s0, s;
	uint8_t f[256];
	size_t len;
	int i;

	CHECK(env_start());
	CHECK_EQ(snic_eq_create(&eq, A, 3, 2, 0, 0, 3), OK);
	CHECK_EQ(snic_cq_create(&cq, A, 1, eq.n, 3), OK);
	CHECK_EQ(snic_sq_create(&sq, A, 6, cq.n, 3), OK);
	CHECK(pstats(A, &s0));
	msi_clear(A, 2);
	snic_eq_arm(&eq);
	len = mk_udp(f, mac_b, 100, 1);
	for (i = 0; i < 3; i++)
		sq_send(&sq, f, len, true);
	CHECK(eq_poll(&eq, &q));
	CHECK_EQ(q.type, SNIC_EQE_CQ_ERROR);
	CHECK_EQ(q.obj, cq.n);
	CHECK_EQ(q.data, SNIC_ERR_CQ_OVERFLOW);
	settle();
	CHECK_EQ(msi_read(A, 2), msi_data(A, 2));
	CHECK_EQ(snic_rd(A, SNIC_REG_ERROR), SNIC_ERR_CQ_OVERFLOW);
	CHECK(pstats(A, &s));
	CHECK_EQ(s.cq_overflows - s0.cq_overflows, 1);
	/* the two that fitted are intact, nothing overwrote them */
	CHECK(snic_cq_peek(&cq, &e, 2));
	CHECK_EQ(e.opcode, SNIC_CQE_TX);
	CHECK_EQ(e.wqe_counter, 0);
	cq.cons++;
	CHECK(snic_cq_peek(&cq, &e, 2));
	CHECK_EQ(e.opcode, SNIC_CQE_TX);
	CHECK_EQ(e.wqe_counter, 1);	/* one-BB WQEs */
	/* everything else works */
	CHECK(tx_setup(A, &tcq2, &sq2, 6));
	sq_send(&sq2, f, len, true);
	CHECK(cq_poll(&tcq2, &e));
	CHECK_EQ(e.opcode, SNIC_CQE_TX);
}

/* Bad frames from the wire: counted, dropped or delivered flagged. */
static void malformed_frames(void)
{
	struct snic_port_stats s0, s;
	struct snic_cqe e;
	struct flow udp = { .sip = IP4(10, 0, 0, 1), .dip = IP4(10, 0, 0, 2),
			    .sport = 7, .dport = 9, .proto = 17 };
	struct flow tcp = { .sip = IP4(10, 0, 0, 1), .dip = IP4(10, 0, 0, 2),
			    .sport = 7, .dport = 9, .proto = 6 };
	uint8_t f[4096], runt[10];
	size_t len;
	int k;

	CHECK(fx_setup(1));
	CHECK_EQ(rule_to_rq(B, 100, fx.rq[0].n, NULL), OK);
	CHECK_EQ(port_default(A, SNIC_PORT_F_UP, 9000), OK);
	CHECK(pstats(B, &s0));

	/* runt, injected on the wire (no SQ can send one) */
	memcpy(runt, mac_b, 6);
	memcpy(runt + 6, mac_a, 4);
	CHECK(inj_send(runt, sizeof(runt)));
	settle();
	CHECK(cq_empty(&fx.rcq));
	/* oversize for B's MTU 1500 (A's MTU is 9000) */
	len = mk_udp(f, mac_b, 2000, 1);
	CHECK_EQ(deliver(f, len, &e), -1);
	CHECK(pstats(B, &s));
	CHECK_EQ(s.rx_runt - s0.rx_runt, 1);
	CHECK_EQ(s.rx_oversize - s0.rx_oversize, 1);
	/* MTU + 18 is still fine */
	len = mk_udp(f, mac_b, MTU + 18, 2);
	CHECK_EQ(deliver(f, len, &e), 0);

	/* IPv4 header faults: IHL 4, total length beyond the frame,
	 * version 6, header checksum */
	for (k = 0; k < 4; k++) {
		len = mk_frame(f, &udp, 100, k);
		if (k == 0)
			f[ETH_HLEN] = 0x44;
		if (k == 1)
			put16(f + ETH_HLEN + 2, get16(f + ETH_HLEN + 2) + 100);
		if (k == 2)
			f[ETH_HLEN] = 0x65;
		if (k < 3) {	/* keep the header checksum right */
			put16(f + ETH_HLEN + 10, 0);
			put16(f + ETH_HLEN + 10,
			      ~fold(sum16(0, f + ETH_HLEN, IP_HLEN)));
		} else {
			f[ETH_HLEN + 10] ^= 0xff;
		}
		CHECK_EQ(deliver(f, len, &e), 0);
		CHECK(e.flags & SNIC_CQE_F_L3_BAD);
		CHECK_EQ(e.flags & (SNIC_CQE_F_L3_OK | SNIC_CQE_F_L4_OK), 0);
	}
	/* L4 checksum faults */
	len = mk_frame(f, &udp, 100, 5);
	f[len - 1] ^= 0x10;
	CHECK_EQ(deliver(f, len, &e), 0);
	CHECK_EQ(e.flags & (RX_OK_FLAGS | RX_BAD_FLAGS),
		 SNIC_CQE_F_IPV4 | SNIC_CQE_F_L3_OK | SNIC_CQE_F_L4_BAD);
	len = mk_frame(f, &tcp, 100, 6);
	f[len - 1] ^= 0x10;
	CHECK_EQ(deliver(f, len, &e), 0);
	CHECK_EQ(e.flags & (RX_OK_FLAGS | RX_BAD_FLAGS),
		 SNIC_CQE_F_IPV4 | SNIC_CQE_F_L3_OK | SNIC_CQE_F_L4_BAD);
	/* a TCP header cut short by the IP total length is never L4_OK */
	len = mk_frame(f, &tcp, 0, 7);
	put16(f + ETH_HLEN + 2, IP_HLEN + 10);
	put16(f + ETH_HLEN + 10, 0);
	put16(f + ETH_HLEN + 10, ~fold(sum16(0, f + ETH_HLEN, IP_HLEN)));
	CHECK_EQ(deliver(f, len, &e), 0);
	CHECK_EQ(e.flags & SNIC_CQE_F_L4_OK, 0);
	/* Ethernet padding after a good datagram is not an error */
	len = mk_frame(f, &udp, 4, 8);
	memset(f + len, 0, 20);
	CHECK_EQ(deliver(f, len + 20, &e), 0);
	CHECK_EQ(e.flags & (RX_OK_FLAGS | RX_BAD_FLAGS), RX_OK_FLAGS);
	CHECK(pstats(B, &s));
	CHECK_EQ(s.rx_bad_l3 - s0.rx_bad_l3, 4);
	CHECK(s.rx_bad_l4 - s0.rx_bad_l4 >= 2);
	CHECK(s.rx_bad_l4 - s0.rx_bad_l4 <= 3);

	/* garbage, injected: delivered or dropped, QEMU lives, B works */
	for (k = 0; k < 50; k++) {
		size_t n = 14 + rand() % 1500, i;

		for (i = 0; i < n; i++)
			f[i] = rand();
		memcpy(f, k & 1 ? mac_b : mac_bcast, 6);
		if (k & 2)
			put16(f + 12, 0x0800);
		if (k & 4)
			f[14] = 0x45;
		CHECK(inj_send(f, n));
	}
	settle();
	k = 0;
	while (snic_cq_peek(&fx.rcq, &e, 2)) {
		fx.rcq.cons++;
		k++;
	}
	qt_writel(qt, fx.rcq.dbr, fx.rcq.cons);
	snic_rq_post(&fx.rq[0], k, true);	/* what the garbage consumed */
	CHECK(qt_alive(qt));
	len = mk_udp(f, mac_b, 300, 9);
	CHECK_EQ(deliver(f, len, &e), 0);
}

int main(void)
{
	srand(1);
	RUN("device/snic_eth", bad_wqes);
	RUN("device/snic_eth", queue_dma_errors);
	RUN("device/snic_eth", doorbell_errors);
	RUN("device/snic_eth", cq_overflow);
	RUN("device/snic_eth", malformed_frames);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
