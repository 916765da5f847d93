/*
 * snic device tier, Ethernet: the PCIe efficiency knobs, checked with the
 * device's TLP and byte counters: WQE-by-MMIO (the first basic block of a
 * WQE written with its doorbell, no ring read) and its refusals,
 * selective signalling (no CQE write for an unsignaled WQE), mini-CQE
 * lines (seven receive completions in one CQ entry).
 * The environment (two snics, the wire socket, queues, frames) is
 * snic_eth_env.h's; the tests are device/snic_eth/<name>.
 *
 * With SNIC_PCIE_PRINT=1 in the environment it also prints what it
 * measured, "snic-pcie <what> k=v ...", for tests/bench/flexins-pcie.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include "snic_eth_env.h"

/* Per-WQE counters of @n WQEs between @a and @b, for the bench. */
static void print_wqe(const char *mode, const struct snic_pcie_stats *a,
		      const struct snic_pcie_stats *b, unsigned n)
{
	if (!getenv("SNIC_PCIE_PRINT"))
		return;
	printf("snic-pcie wqe mode=%s mmio_writes=%.2f tlps=%.2f "
	       "tlp_bytes=%.2f dma_reads=%.2f\n", mode,
	       (double)(b->mmio_writes - a->mmio_writes) / n,
	       (double)(b->tlps - a->tlps) / n,
	       (double)(b->tlp_bytes - a->tlp_bytes) / n,
	       (double)(b->dma_reads - a->dma_reads) / n);
}

/* Write 64 bytes as the 32-bit stores of a WQE-by-MMIO line on @page. */
static void mmio_line(struct snic_dev *d, uint32_t page, const uint8_t *line,
		      unsigned from, unsigned to)
{
	uint64_t at = d->bar2 + (uint64_t)page * SNIC_DB_PAGE_SIZE +
		      SNIC_DB_SQ_WQE;
	uint32_t v;
	unsigned i;

	for (i = from; i < to; i++) {
		memcpy(&v, line + 4 * i, 4);
		qt_writel(d->qt, at + 4 * i, v);
	}
}

/*
 * Post a plain send of @f into the ring and ring it by WQE-by-MMIO: the
 * line is the WQE's first basic block with db_qn = @qn, its counter
 * @idx, on page @page.  The SQ's record is written as for a doorbell.
 */
static uint16_t sq_send_mmio_at(struct snic_sq *s, const uint8_t *f,
				size_t len, uint32_t qn, uint16_t idx,
				uint32_t page)
{
	struct txo o = {
		.opcode = SNIC_WQE_ETH_SEND, .flags = SNIC_WQE_F_SIGNAL,
		.inl = ETH_HLEN, .nseg = 1,
	};
	uint8_t bb[SNIC_WQE_MAX_BBS * SNIC_WQEBB_SIZE];
	struct snic_wqe_ctrl *ctrl = (void *)bb;
	uint16_t first = s->prod;
	int n = wqe_build(bb, idx, f, len, &o);

	ctrl->db_qn = qn;
	snic_sq_put(s, bb, n);
	qt_writel(s->d->qt, s->dbr, s->prod & 0xffff);
	mmio_line(s->d, page, bb, 0, SNIC_DB_SQ_WQE_SIZE / 4);
	return first;
}

static uint16_t sq_send_mmio(struct snic_sq *s, const uint8_t *f, size_t len)
{
	return sq_send_mmio_at(s, f, len, s->n, s->prod, s->page);
}

static bool sq_pcie(struct snic_sq *s, struct snic_pcie_stats *p)
{
	struct snic_queue_stats q;

	if (!qstats(s->d, SNIC_STATS_SQ, s->n, &q))
		return false;
	*p = q.pcie;
	return true;
}

#define NSEND 8

/*
 * The same frames by doorbell and by WQE-by-MMIO: the frames and their
 * CQEs are the same; each MMIO WQE saves the ring read (one request and
 * one completion TLP, 24 + 20 + 64 bytes) for a 64-byte doorbell write
 * instead of a 4-byte one: 2 TLPs and 48 bytes less per WQE.
 */
static void mmio_wqe_saves_fetch(void)
{
	struct snic_cq tcq, rcq;
	struct snic_sq sq;
	struct snic_rq rq;
	struct snic_cqe e;
	struct snic_pcie_stats p0, p1, p2;
	struct snic_port_stats s0, s1;
	uint8_t f[256];
	size_t len;
	uint16_t w;
	int k;

	CHECK(env_start());
	CHECK(snic_rd(A, SNIC_REG_CAPS_LO) & SNIC_CAP_MMIO_WQE);
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK(rx_setup(B, &rcq, &rq, 60));
	len = mk_udp(f, mac_b, 120, 3);
	CHECK(pstats(A, &s0));
	CHECK(sq_pcie(&sq, &p0));
	for (k = 0; k < NSEND; k++) {
		w = sq_send(&sq, f, len, true);
		CHECK(cq_poll(&tcq, &e));
		CHECK_EQ(e.opcode, SNIC_CQE_TX);
		CHECK_EQ(e.wqe_counter, w);
		CHECK_RX(&rcq, &rq, f, len, &e);
	}
	CHECK(sq_pcie(&sq, &p1));
	for (k = 0; k < NSEND; k++) {
		w = sq_send_mmio(&sq, f, len);
		CHECK(cq_poll(&tcq, &e));
		CHECK_EQ(e.opcode, SNIC_CQE_TX);
		CHECK_EQ(e.syndrome, SNIC_SYND_OK);
		CHECK_EQ(e.wqe_counter, w);
		CHECK_RX(&rcq, &rq, f, len, &e);
	}
	CHECK(sq_pcie(&sq, &p2));
	print_wqe("doorbell", &p0, &p1, NSEND);
	print_wqe("mmio", &p1, &p2, NSEND);
	CHECK(pstats(A, &s1));
	CHECK_EQ(s1.tx_mmio_wqe - s0.tx_mmio_wqe, NSEND);
	CHECK_EQ(s1.tx_wqe_fetch_saved - s0.tx_wqe_fetch_saved, NSEND);
	CHECK_EQ(s1.tx_mmio_wqe_errors, s0.tx_mmio_wqe_errors);
	/* doorbell mode: per WQE one doorbell, a WQE read, a data read */
	CHECK_EQ(p1.mmio_writes - p0.mmio_writes, NSEND);
	CHECK_EQ(p1.dma_reads - p0.dma_reads, 2 * NSEND);
	/* MMIO mode: one 64-byte line, the data read only */
	CHECK_EQ(p2.mmio_writes - p1.mmio_writes, NSEND);
	CHECK_EQ(p2.mmio_write_bytes - p1.mmio_write_bytes,
		 NSEND * SNIC_DB_SQ_WQE_SIZE);
	CHECK_EQ(p2.dma_reads - p1.dma_reads, NSEND);
	CHECK_EQ((p1.tlps - p0.tlps) - (p2.tlps - p1.tlps), 2 * NSEND);
	CHECK_EQ((p1.tlp_bytes - p0.tlp_bytes) - (p2.tlp_bytes - p1.tlp_bytes),
		 48 * NSEND);
	/* the CQE writes are the same in both modes */
	CHECK_EQ(p2.dma_writes - p1.dma_writes, p1.dma_writes - p0.dma_writes);
}

/* A refused line: error register, counters, nothing sent. */
static bool refused(struct snic_cq *tcq, const struct snic_port_stats *s0,
		    uint64_t n)
{
	struct snic_port_stats s;

	settle();
	if (!cq_empty(tcq) || !pstats(A, &s) ||
	    snic_rd(A, SNIC_REG_ERROR) != SNIC_ERR_MMIO_WQE)
		return false;
	snic_wr(A, SNIC_REG_ERROR, 0);
	return s.tx_mmio_wqe_errors - s0->tx_mmio_wqe_errors == n &&
	       s.tx_packets == s0->tx_packets;
}

/*
 * Hostile lines: a counter behind the producer or past the ring, a queue
 * that does not exist or lives on another page, a bad ds_cnt, a torn
 * line.  Each is refused with SNIC_ERR_MMIO_WQE and counted; the SQ still
 * works afterwards, by doorbell and by MMIO.
 */
static void mmio_wqe_hostile(void)
{
	struct snic_cq tcq, rcq;
	struct snic_sq sq;
	struct snic_rq rq;
	struct snic_cqe e;
	struct snic_port_stats s0, s;
	uint8_t f[256], line[SNIC_WQEBB_SIZE];
	struct snic_wqe_ctrl *ctrl = (void *)line;
	uint32_t bad_db0;
	size_t len;
	uint16_t w;

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK(rx_setup(B, &rcq, &rq, 60));
	len = mk_udp(f, mac_b, 100, 4);
	w = sq_send(&sq, f, len, true);
	CHECK(cq_poll(&tcq, &e));
	CHECK_RX(&rcq, &rq, f, len, &e);
	CHECK(pstats(A, &s0));
	bad_db0 = snic_rd(A, SNIC_REG_STAT_BAD_DB);

	/* counter behind the producer the device knows: already rung */
	sq.prod = w;
	sq_send_mmio_at(&sq, f, len, sq.n, w, sq.page);
	CHECK(refused(&tcq, &s0, 1));
	/* counter a whole ring ahead */
	sq.prod = w + 1;
	sq_send_mmio_at(&sq, f, len, sq.n, w + 1 + sq.size, sq.page);
	CHECK(refused(&tcq, &s0, 2));
	/* an SQ that does not exist; an SQ of another page */
	sq.prod = w + 1;
	sq_send_mmio_at(&sq, f, len, SNIC_MAX_SQS - 1, w + 1, sq.page);
	CHECK(refused(&tcq, &s0, 3));
	sq.prod = w + 1;
	sq_send_mmio_at(&sq, f, len, sq.n, w + 1, sq.page + 1);
	CHECK(refused(&tcq, &s0, 4));
	/* ds_cnt 0 */
	memset(line, 0, sizeof(line));
	ctrl->opcode = SNIC_WQE_ETH_SEND;
	ctrl->wqe_idx = w + 1;
	ctrl->db_qn = sq.n;
	mmio_line(A, sq.page, line, 0, SNIC_DB_SQ_WQE_SIZE / 4);
	CHECK(refused(&tcq, &s0, 5));
	/* torn: half a line, then a whole one; the whole one runs */
	ctrl->ds_cnt = 4;
	mmio_line(A, sq.page, line, 0, 8);
	settle();
	CHECK(pstats(A, &s));
	CHECK_EQ(s.tx_mmio_wqe_errors - s0.tx_mmio_wqe_errors, 5);
	sq.prod = w + 1;
	w = sq_send_mmio(&sq, f, len);
	CHECK(cq_poll(&tcq, &e));
	CHECK_EQ(e.opcode, SNIC_CQE_TX);
	CHECK_EQ(e.wqe_counter, w);
	CHECK_RX(&rcq, &rq, f, len, &e);
	CHECK(pstats(A, &s));
	CHECK_EQ(s.tx_mmio_wqe_errors - s0.tx_mmio_wqe_errors, 6);
	CHECK_EQ(s.tx_mmio_wqe - s0.tx_mmio_wqe, 1);
	CHECK_EQ(snic_rd(A, SNIC_REG_ERROR), SNIC_ERR_MMIO_WQE);
	CHECK_EQ(snic_rd(A, SNIC_REG_STAT_BAD_DB) - bad_db0, 6);
	/* and by doorbell */
	w = sq_send(&sq, f, len, true);
	CHECK(cq_poll(&tcq, &e));
	CHECK_EQ(e.opcode, SNIC_CQE_TX);
	CHECK_EQ(e.wqe_counter, w);
	CHECK_RX(&rcq, &rq, f, len, &e);
}

/* Unsignaled WQEs: frames sent, no CQE and no CQE write. */
static void selective_signalling(void)
{
	struct snic_cq tcq, rcq;
	struct snic_sq sq;
	struct snic_rq rq;
	struct snic_cqe e;
	struct snic_pcie_stats p0, p1;
	uint8_t f[256];
	size_t len;
	uint16_t w = 0;
	int k;

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK(rx_setup(B, &rcq, &rq, 60));
	len = mk_udp(f, mac_b, 90, 5);
	CHECK(sq_pcie(&sq, &p0));
	for (k = 0; k < 16; k++)
		w = sq_send(&sq, f, len, k == 15);
	for (k = 0; k < 16; k++)
		CHECK_RX(&rcq, &rq, f, len, &e);
	CHECK(cq_poll(&tcq, &e));
	CHECK_EQ(e.opcode, SNIC_CQE_TX);
	CHECK_EQ(e.wqe_counter, w);
	CHECK(cq_empty(&tcq));
	CHECK(sq_pcie(&sq, &p1));
	CHECK_EQ(p1.dma_writes - p0.dma_writes, 1);
	CHECK_EQ(p1.dma_write_bytes - p0.dma_write_bytes, sizeof(e));
}

/* The next entry of @cq is a line of @n mini-CQEs of RQ @rq; into @l. */
static bool line_poll(struct snic_cq *cq, struct snic_rq *rq, unsigned n,
		      struct snic_cqe_line *l)
{
	struct snic_cqe e;

	if (!cq_poll(cq, &e))
		return false;
	memcpy(l, &e, sizeof(*l));
	return (l->op_own & SNIC_CQE_MINI) && l->count == n && l->qn == rq->n;
}

/* Mini-CQE @m of a line is the RX of @f on @rq (contents compared). */
static bool mini_is(struct snic_rq *rq, const struct snic_mini_cqe *m,
		    uint16_t ctr, const uint8_t *f, size_t len)
{
	struct snic_cqe e = { .wqe_counter = m->wqe_counter };

	return m->wqe_counter == ctr && m->byte_cnt == len &&
	       (m->flags & (SNIC_CQE_F_L3_OK | SNIC_CQE_F_L4_OK)) ==
	       (SNIC_CQE_F_L3_OK | SNIC_CQE_F_L4_OK) && buf_eq(rq, &e, f, len);
}

/*
 * A CQ with SNIC_CQ_F_MINI: 14 frames are two lines of 7 (2 CQE writes,
 * not 14); 3 more wait for their line's time.  An unknown CQ flag is
 * refused.
 */
static void mini_cqe_lines(void)
{
	struct snic_cq tcq, rcq, bad;
	struct snic_sq sq;
	struct snic_rq rq;
	struct snic_cqe e;
	struct snic_cqe_line l;
	struct snic_queue_stats q0, q1;
	struct snic_port_stats s0, s1;
	uint8_t f[17][300];
	size_t len[17];
	int k;

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK_EQ(snic_cq_create_flags(&rcq, B, 8, SNIC_EQN_NONE, 1,
				      SNIC_CQ_F_MINI), OK);
	CHECK_EQ(snic_cq_create_flags(&bad, B, 8, SNIC_EQN_NONE, 3, 0x80),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(snic_rq_create(&rq, B, 6, rcq.n, 1), OK);
	CHECK_EQ(rule_to_rq(B, 1000, rq.n, NULL), OK);
	snic_rq_post(&rq, 60, true);
	CHECK(pstats(B, &s0));
	CHECK(qstats(B, SNIC_STATS_RQ, rq.n, &q0));
	for (k = 0; k < 17; k++) {
		len[k] = mk_udp(f[k], mac_b, 60 + 13 * k, 20 + k);
		sq_send(&sq, f[k], len[k], true);
		CHECK(cq_poll(&tcq, &e));
	}
	settle();
	for (k = 0; k < 14; k++) {
		if (k % 7 == 0)
			CHECK(line_poll(&rcq, &rq, 7, &l));
		CHECK(mini_is(&rq, &l.mini[k % 7], k, f[k], len[k]));
	}
	CHECK(qstats(B, SNIC_STATS_RQ, rq.n, &q1));
	/* 17 frames, 2 lines; the third line not yet */
	CHECK_EQ(q1.pcie.dma_writes - q0.pcie.dma_writes, 17 + 2);
	/* the last 3: written SNIC_CQ_LINE_NS after the first of them */
	CHECK(cq_empty(&rcq));
	qt_clock_step(qt, 1000);
	CHECK(line_poll(&rcq, &rq, 3, &l));
	for (k = 14; k < 17; k++)
		CHECK(mini_is(&rq, &l.mini[k - 14], k, f[k], len[k]));
	CHECK(pstats(B, &s1));
	if (getenv("SNIC_PCIE_PRINT"))
		printf("snic-pcie rx-cqe packets=17 mini_lines=%llu\n",
		       (unsigned long long)(s1.rx_mini_lines - s0.rx_mini_lines));
	CHECK_EQ(s1.rx_mini_cqes - s0.rx_mini_cqes, 17);
	CHECK_EQ(s1.rx_mini_lines - s0.rx_mini_lines, 3);
	CHECK_EQ(s1.rx_packets - s0.rx_packets, 17);
}

/*
 * SNIC_CQ_F_NO_HASH: frames an RSS group hashed come without the hash
 * (no SNIC_CQE_F_HASH, rss_hash 0), whole on a CQ without SNIC_CQ_F_MINI
 * and, with it, in mini-CQE lines (hashed frames otherwise stay whole).
 */
static void mini_cqe_no_hash(void)
{
	struct snic_cq tcq, hcq, ncq;
	struct snic_sq sq;
	struct snic_rq hrq, nrq;
	struct snic_cqe e;
	struct snic_cqe_line l;
	struct snic_port_stats s0, s1;
	uint32_t grp;
	uint8_t f[8][300];
	size_t len[8];
	int k;

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK_EQ(snic_cq_create_flags(&hcq, B, 8, SNIC_EQN_NONE, 1,
				      SNIC_CQ_F_NO_HASH), OK);
	CHECK_EQ(snic_cq_create_flags(&ncq, B, 8, SNIC_EQN_NONE, 1,
				      SNIC_CQ_F_MINI | SNIC_CQ_F_NO_HASH), OK);
	CHECK_EQ(snic_rq_create(&hrq, B, 6, hcq.n, 1), OK);
	CHECK_EQ(snic_rq_create(&nrq, B, 6, ncq.n, 1), OK);
	snic_rq_post(&hrq, 60, true);
	snic_rq_post(&nrq, 60, true);
	/* RSS over the one RQ @nrq (after the first frame: @hrq) */
	CHECK_EQ(rss_create(B, ms_key, SNIC_RSS_HASH_IPV4 | SNIC_RSS_HASH_L4,
			    1, &hrq.n, &grp), OK);
	{
		struct snic_steer_rule r = { .priority = 1,
					     .dest = SNIC_DEST_RSS,
					     .dest_id = grp };

		CHECK_EQ(rule_add(B, &r, NULL), OK);
	}
	len[0] = mk_udp(f[0], mac_b, 100, 40);
	sq_send(&sq, f[0], len[0], true);
	CHECK(cq_poll(&tcq, &e));
	CHECK(cq_poll(&hcq, &e));
	CHECK_EQ(e.opcode, SNIC_CQE_RX);
	CHECK(!(e.op_own & SNIC_CQE_MINI));
	CHECK(!(e.flags & SNIC_CQE_F_HASH));
	CHECK_EQ(e.rss_hash, 0);
	CHECK(buf_eq(&hrq, &e, f[0], len[0]));

	CHECK_EQ(rss_create(B, ms_key, SNIC_RSS_HASH_IPV4 | SNIC_RSS_HASH_L4,
			    1, &nrq.n, &grp), OK);
	{
		struct snic_steer_rule r = { .priority = 0,
					     .dest = SNIC_DEST_RSS,
					     .dest_id = grp };

		CHECK_EQ(rule_add(B, &r, NULL), OK);
	}
	CHECK(pstats(B, &s0));
	for (k = 0; k < 7; k++) {
		len[k] = mk_udp(f[k], mac_b, 60 + 13 * k, 50 + k);
		sq_send(&sq, f[k], len[k], true);
		CHECK(cq_poll(&tcq, &e));
	}
	settle();
	CHECK(line_poll(&ncq, &nrq, 7, &l));
	for (k = 0; k < 7; k++) {
		CHECK(mini_is(&nrq, &l.mini[k], k, f[k], len[k]));
		CHECK(!(l.mini[k].flags & SNIC_CQE_F_HASH));
	}
	CHECK(cq_empty(&ncq));
	CHECK(pstats(B, &s1));
	CHECK_EQ(s1.rx_mini_cqes - s0.rx_mini_cqes, 7);
	CHECK_EQ(s1.rx_mini_lines - s0.rx_mini_lines, 1);
}

int main(void)
{
	RUN("device/snic_eth", mmio_wqe_saves_fetch);
	RUN("device/snic_eth", mmio_wqe_hostile);
	RUN("device/snic_eth", selective_signalling);
	RUN("device/snic_eth", mini_cqe_lines);
	RUN("device/snic_eth", mini_cqe_no_hash);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
