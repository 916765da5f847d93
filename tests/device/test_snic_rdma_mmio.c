/*
 * snic device tier, RDMA: WQE-by-MMIO on QP send queues
 * (SNIC_CAP_RDMA_MMIO_WQE, SNIC_DB_QP_SQ_WQE; docs/snic-rdma.md): the
 * first basic block of a send WQE written with its doorbell, so the
 * requester does not read it from the ring, and the lines the device
 * refuses.  The environment (two snics, RC pair, MRs) is snic_rdma_env.h's;
 * the tests are device/snic_rdma_mmio/<name>.
 *
 * With SNIC_PCIE_PRINT=1 in the environment it also prints what it
 * measured, "snic-pcie qp-wqe mode=M k=v ...", for the bench.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/check.h"
#include "snic_rdma_env.h"
#include "common/pcie-tlp.h"

#define NSEND	8
#define LEN	64

static void send_wqe(struct wqe *w, unsigned k)
{
	w_init(w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(w, LEN, sa.mr.key, sa.mr.iova + k * LEN);
}

static bool pcie(struct snic_dev *d, struct snic_pcie_stats *p)
{
	return snic_query_stats(d, SNIC_STATS_PCIE, 0, p, sizeof(*p)) == OK;
}

/* TLPs and TLP bytes of one @op of @len bytes (docs/pcie-accounting.md). */
static void tlp_cost(D2DPcieOp op, uint64_t len, uint64_t *tlps,
		     uint64_t *bytes)
{
	uint64_t up, down;

	d2d_pcie_tlp_cost(op, 0, len, tlps, &up, &down);
	*bytes = up + down;
}

/*
 * TLPs and TLP bytes between @a and @b, less the harness's own 4-byte
 * reads of the BAR (pump() reads a register while it waits for a
 * completion, as often as the wait takes): what posting and running the
 * WQEs cost.
 */
static void posted_tlps(const struct snic_pcie_stats *a,
			const struct snic_pcie_stats *b, uint64_t *tlps,
			uint64_t *bytes)
{
	uint64_t reads = b->mmio_reads - a->mmio_reads, rt, rb;

	tlp_cost(D2D_PCIE_MMIO_READ, 4, &rt, &rb);
	*tlps = b->tlps - a->tlps - reads * rt;
	*bytes = b->tlp_bytes - a->tlp_bytes - reads * rb;
}

/*
 * NSEND SENDs of LEN bytes by doorbell and NSEND by WQE-by-MMIO: the same
 * data arrives; each MMIO WQE is one 64-byte MMIO write, counted as a
 * line and as a saved fetch, and the requester reads one WQE less.
 */
static void qp_mmio_saves_fetch(void)
{
	static uint8_t src[2 * NSEND * LEN], dst[2 * NSEND * LEN];
	struct snic_rdma_stats r0, r1;
	struct snic_pcie_stats p0, p1, p2;
	uint64_t db_tlps, db_bytes, mm_tlps, mm_bytes, t[3], b[3];
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;
	unsigned k;

	CHECK(env_start());
	CHECK(snic_rd(A, SNIC_REG_CAPS_LO) & SNIC_CAP_RDMA_MMIO_WQE);
	CHECK(pair_up(&conn_default));
	fill(src, sizeof(src), 7);
	mr_write(&sa.mr, 0, src, sizeof(src));
	for (k = 0; k < 2 * NSEND; k++)
		qp_recv(&sb.qp, k, LEN, sb.mr.key, sb.mr.iova + k * LEN);
	CHECK(rstats(A, &r0));
	CHECK(pcie(A, &p0));
	for (k = 0; k < NSEND; k++) {
		send_wqe(&w, k);
		idx = qp_post(&sa.qp, &w);
		CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, LEN, &e);
	}
	CHECK(pcie(A, &p1));
	for (k = NSEND; k < 2 * NSEND; k++) {
		send_wqe(&w, k);
		idx = qp_post_mmio(&sa.qp, &w);
		CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, LEN, &e);
	}
	CHECK(pcie(A, &p2));
	CHECK(rstats(A, &r1));
	for (k = 0; k < 2 * NSEND; k++) {
		CHECK(cq_wait(&sb.rcq, &e, 0));
		CHECK_EQ(e.opcode, SNIC_CQE_RECV);
		CHECK_EQ(e.cookie, k);
		CHECK_EQ(e.byte_cnt, LEN);
	}
	mr_read(&sb.mr, 0, dst, sizeof(dst));
	CHECK(!memcmp(src, dst, sizeof(dst)));
	CHECK_EQ(r1.mmio_wqe - r0.mmio_wqe, NSEND);
	CHECK_EQ(r1.wqe_fetch_saved - r0.wqe_fetch_saved, NSEND);
	CHECK_EQ(r1.mmio_wqe_errors, r0.mmio_wqe_errors);
	/* per WQE: one read less, one 64-byte MMIO write for a 4-byte one */
	CHECK_EQ((p2.dma_reads - p1.dma_reads) + NSEND,
		 p1.dma_reads - p0.dma_reads);
	CHECK_EQ(p2.mmio_writes - p1.mmio_writes, p1.mmio_writes - p0.mmio_writes);
	CHECK_EQ(p2.mmio_write_bytes - p1.mmio_write_bytes,
		 p1.mmio_write_bytes - p0.mmio_write_bytes + NSEND * 60);
	/*
	 * On the link, per WQE: a 4-byte doorbell and the WQE's read become
	 * one 64-byte MMIO write (two TLPs and 48 bytes less).
	 */
	tlp_cost(D2D_PCIE_MMIO_WRITE, 4, &t[0], &b[0]);
	tlp_cost(D2D_PCIE_DMA_READ, SNIC_WQEBB_SIZE, &t[1], &b[1]);
	tlp_cost(D2D_PCIE_MMIO_WRITE, SNIC_DB_SQ_WQE_SIZE, &t[2], &b[2]);
	posted_tlps(&p0, &p1, &db_tlps, &db_bytes);
	posted_tlps(&p1, &p2, &mm_tlps, &mm_bytes);
	CHECK_EQ(mm_tlps + (t[0] + t[1] - t[2]) * NSEND, db_tlps);
	CHECK_EQ(mm_bytes + (b[0] + b[1] - b[2]) * NSEND, db_bytes);
	if (getenv("SNIC_PCIE_PRINT")) {
		printf("snic-pcie qp-wqe mode=doorbell mmio_writes=%.2f tlps=%.2f tlp_bytes=%.2f dma_reads=%.2f\n",
		       (double)(p1.mmio_writes - p0.mmio_writes) / NSEND,
		       (double)db_tlps / NSEND, (double)db_bytes / NSEND,
		       (double)(p1.dma_reads - p0.dma_reads) / NSEND);
		printf("snic-pcie qp-wqe mode=mmio mmio_writes=%.2f tlps=%.2f tlp_bytes=%.2f dma_reads=%.2f\n",
		       (double)(p2.mmio_writes - p1.mmio_writes) / NSEND,
		       (double)mm_tlps / NSEND, (double)mm_bytes / NSEND,
		       (double)(p2.dma_reads - p1.dma_reads) / NSEND);
	}
}

/* One refused line: counted, SNIC_ERR_MMIO_WQE, nothing sent. */
static bool refused(const struct snic_rdma_stats *r0, unsigned n)
{
	struct snic_rdma_stats r;

	pump(10);
	return rstats(A, &r) && r.mmio_wqe_errors - r0->mmio_wqe_errors == n &&
	       snic_rd(A, SNIC_REG_ERROR) == SNIC_ERR_MMIO_WQE &&
	       cq_empty(&sa.scq);
}

/*
 * Lines the device refuses: torn (a dword again before the line is
 * whole), for no QP, on a page not the QP's, ds_cnt 0, a counter behind
 * the producer.  Each counts in mmio_wqe_errors; then a good line works.
 */
static void qp_mmio_hostile(void)
{
	struct snic_rdma_stats r0;
	struct snic_wqe_ctrl *c;
	struct snic_cqe e;
	struct wqe w;
	uint8_t line[SNIC_WQEBB_SIZE];
	uint16_t idx;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	qp_recv(&sb.qp, 1, LEN, sb.mr.key, sb.mr.iova);
	CHECK(rstats(A, &r0));
	send_wqe(&w, 0);
	idx = qp_put(&sa.qp, &w);
	memcpy(line, w.b, sizeof(line));
	c = (void *)line;
	c->db_qn = sa.qp.qpn;
	qt_writel(qt, sa.qp.dbr + 4, sa.qp.sq_prod);

	c->db_qn = SNIC_MAX_QPS - 1;			/* no such QP */
	qp_line(&sa.qp, sa.qp.page, line, 0, 16);
	CHECK(refused(&r0, 1));
	c->db_qn = sa.qp.qpn;				/* foreign page */
	snic_wr(A, SNIC_REG_ERROR, 0);
	qp_line(&sa.qp, (sa.qp.page + 1) % SNIC_DB_PAGES, line, 0, 16);
	CHECK(refused(&r0, 2));
	c->ds_cnt = 0;
	snic_wr(A, SNIC_REG_ERROR, 0);
	qp_line(&sa.qp, sa.qp.page, line, 0, 16);
	CHECK(refused(&r0, 3));

	c->ds_cnt = w.ds;
	qp_line(&sa.qp, sa.qp.page, line, 0, 16);	/* good */
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, LEN, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.cookie, 1);
	snic_wr(A, SNIC_REG_ERROR, 0);
	qp_line(&sa.qp, sa.qp.page, line, 0, 16);	/* behind the producer */
	CHECK(refused(&r0, 4));
	snic_wr(A, SNIC_REG_ERROR, 0);
	qp_line(&sa.qp, sa.qp.page, line, 0, 8);
	qp_line(&sa.qp, sa.qp.page, line, 3, 4);	/* torn */
	CHECK(refused(&r0, 5));
}

int main(void)
{
	RUN("device/snic_rdma_mmio", qp_mmio_saves_fetch);
	RUN("device/snic_rdma_mmio", qp_mmio_hostile);
	qt_quit(qt);
	return check_failures ? 1 : 0;
}
