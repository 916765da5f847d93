// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libsnic DMA-only notification pipes: QPs without doorbells.  A send WQE
 * goes into the send pipe with the owner (phase) bit of its counter in
 * its first basic block, made visible after everything else; a receive
 * goes into the receive pipe as a 16-byte RQE whose owner bit (in its
 * byte count) is written last.  The device polls (docs/snic-rdma.md "DMA-
 * only notification pipes").  The mode comes from SNIC_QP_MODE
 * (pipe|pipe-qp|doorbell, default doorbell) or from snicdv_create_qp():
 * pipe sends through the context's shared send queues (snic_ssq.c),
 * pipe-qp through a send pipe of the QP's own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libsnic.h"
#include "snicdv.h"

/* The owner bit of element @ctr of a 2^@log ring. */
static uint32_t snic_pipe_phase(uint32_t ctr, uint32_t log)
{
	return ((ctr >> log) & 1) ^ 1;
}

int snic_pipe_env(struct snicdv_qp_attr *dv)
{
	const char *m = getenv("SNIC_QP_MODE");
	const char *n = getenv("SNIC_PIPE_CI_EVERY");
	char *end;
	long v;

	dv->mode = SNICDV_QP_MODE_DOORBELL;
	dv->ci_every = SNIC_PIPE_DEF_CI_EVERY;
	if (!m || !*m || !strcmp(m, "doorbell"))
		return 0;
	if (!strcmp(m, "pipe"))
		dv->mode = SNICDV_QP_MODE_PIPE;
	else if (!strcmp(m, "pipe-qp"))
		dv->mode = SNICDV_QP_MODE_PIPE_QP;
	else
		return EINVAL;
	if (n && *n) {
		v = strtol(n, &end, 0);
		if (*end || v < 1 || v > 255)
			return EINVAL;
		dv->ci_every = v;
	}
	return 0;
}

/*
 * Write the @nbb basic blocks of @wqe at counter @prod: the later blocks
 * and the first one with a stale owner byte, then (after a barrier) the
 * owner byte, so the device never takes a partly written WQE.
 */
void snic_pipe_put_wqe(struct snic_sq *sq, uint32_t prod, uint8_t *wqe,
		       unsigned int nbb)
{
	uint32_t mask = (1u << sq->log_bbs) - 1;
	struct snic_wqe_ctrl *ctrl = (struct snic_wqe_ctrl *)wqe;
	uint8_t owner = snic_pipe_phase(prod, sq->log_bbs);
	uint8_t *first = sq->ring + (prod & mask) * SNIC_WQEBB_SIZE;
	unsigned int i;

	for (i = 1; i < nbb; i++)
		memcpy(sq->ring + ((prod + i) & mask) * SNIC_WQEBB_SIZE,
		       wqe + i * SNIC_WQEBB_SIZE, SNIC_WQEBB_SIZE);
	ctrl->owner = owner ^ SNIC_WQE_OWNER;
	memcpy(first, wqe, SNIC_WQEBB_SIZE);
	udma_to_device_barrier();
	__atomic_store_n(&((struct snic_wqe_ctrl *)first)->owner, owner,
			 __ATOMIC_RELEASE);
}

int snic_pipe_post_recv(struct snic_qp *qp, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	struct snic_rq *rq = &qp->rq;
	uint32_t size = 1u << rq->log_size;
	int ret = 0;

	for (; wr; wr = wr->next) {
		struct snic_pipe_rqe *e;
		uint32_t len = 0, bc;

		if (rq->prod - rq->cons >= size) {
			ret = ENOMEM;
			break;
		}
		if (wr->num_sge > 1 ||
		    (wr->num_sge && wr->sg_list[0].length > 0x7fffffffu)) {
			ret = EINVAL;
			break;
		}
		e = (struct snic_pipe_rqe *)(rq->ring + (size_t)(rq->prod &
					     (size - 1)) * SNIC_PIPE_RQE_SIZE);
		if (wr->num_sge) {
			len = wr->sg_list[0].length;
			e->addr = htole64(wr->sg_list[0].addr);
			e->lkey = htole32(wr->sg_list[0].lkey);
		}
		qp->rq_wr_id[rq->prod & (size - 1)] = wr->wr_id;
		bc = len | (snic_pipe_phase(rq->prod, rq->log_size) ?
			    SNIC_PIPE_RQE_OWNER : 0);
		udma_to_device_barrier();
		__atomic_store_n(&e->byte_count, htole32(bc), __ATOMIC_RELEASE);
		rq->prod++;
	}
	if (ret)
		*bad_wr = wr;
	return ret;
}

uint64_t snic_pipe_recv_wr_id(struct snic_qp *qp, uint32_t counter)
{
	return qp->rq_wr_id[counter & ((1u << qp->rq.log_size) - 1)];
}

/* A pipe QP back in RESET: the device expects zeroed rings again. */
void snic_pipe_reset(struct snic_qp *qp)
{
	memset(qp->sq.ring, 0, (size_t)SNIC_WQEBB_SIZE << qp->sq.log_bbs);
	memset(qp->rq.ring, 0, (size_t)SNIC_PIPE_RQE_SIZE << qp->rq.log_size);
}

