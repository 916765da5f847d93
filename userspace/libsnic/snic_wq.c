// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libsnic work-queue bookkeeping: what a completion retires from a QP's
 * send queue (its wr_id and opcode, the basic blocks it held) and from
 * its receive queue or SRQ.  The CQ poller calls it; the bottom of the
 * provider with snic_wqe.c.
 */
#include "libsnic.h"

uint64_t snic_sq_retire(struct snic_qp *qp, uint32_t wqe_counter,
			enum ibv_wc_opcode *op)
{
	struct snic_sq *sq = &qp->sq;
	uint32_t mask = (1u << sq->log_bbs) - 1;
	uint32_t slot = wqe_counter & mask;
	uint32_t dist, outstanding, nbb;
	uint64_t wr_id;

	pthread_spin_lock(&qp->sq_lock);
	wr_id = sq->wr_id[slot];
	*op = sq->wc_op[slot];
	/* The device counts in 16 bits; ignore a counter we never posted. */
	dist = (uint16_t)(wqe_counter - sq->cons);
	outstanding = sq->prod - sq->cons;
	if (dist < outstanding) {
		nbb = sq->nbb[slot] ? sq->nbb[slot] : 1;
		if (dist + nbb > outstanding)
			nbb = outstanding - dist;
		sq->cons += dist + nbb;
	}
	pthread_spin_unlock(&qp->sq_lock);
	return wr_id;
}

static void snic_srq_retire(struct snic_srq *srq)
{
	pthread_spin_lock(&srq->lock);
	if (srq->rq.cons != srq->rq.prod)
		srq->rq.cons++;
	pthread_spin_unlock(&srq->lock);
}

bool snic_xrc_srq_retire(struct snic_context *ctx, uint32_t srqn)
{
	struct snic_srq *srq;

	if (srqn >= SNIC_MAX_SRQS)
		return false;
	srq = __atomic_load_n(&ctx->xrc_srq[srqn], __ATOMIC_ACQUIRE);
	if (!srq)
		return false;
	snic_srq_retire(srq);
	return true;
}

void snic_rq_retire(struct snic_qp *qp)
{
	if (qp->srq) {
		snic_srq_retire(qp->srq);
		return;
	}
	pthread_spin_lock(&qp->rq_lock);
	if (qp->rq.cons != qp->rq.prod)
		qp->rq.cons++;
	pthread_spin_unlock(&qp->rq_lock);
}
