// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libsnic shared send queues (SSQs): a pipe QP created in SSQ mode (the
 * default pipe mode) has no send pipe of its own.  snic.ko gives the
 * context one SSQ per NIC core, the device puts each SSQ QP on the least
 * loaded one, and the create_qp response names it; we map each SSQ once
 * per context.  A send WQE goes into the QP's SSQ with the owner bit of
 * the SSQ's counter and the QP's number and generation at SNIC_SSQ_QPN_OFF
 * (so that a destroyed QP's SQEs do not run on the next QP of its number),
 * written as a send pipe element is (snic_pipe_put_wqe); the device polls only the
 * SSQs and kicks the QPs it finds work for (docs/snic-rdma.md "Scalable
 * shared send queues").  The QP keeps its own counter of basic blocks for
 * completions, as every QP does.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "libsnic.h"

/* Re-reads of a full SSQ's consumer record before post_send gives up. */
#define SNIC_SSQ_WAIT_TRIES	(1u << 20)

/*
 * The SSQ a create_qp response @r names, mapped on first use; NULL with
 * errno set (EPROTO: geometry we cannot use).  Under ctx->table_lock.
 */
struct snic_ssq *snic_ssq_get(struct snic_context *ctx,
			      const struct snic_create_qp_resp *r)
{
	uint64_t ring = (uint64_t)SNIC_WQEBB_SIZE << r->ssq_log;
	struct snic_ssq *q;
	void *map;

	if (r->ssq_index >= SNIC_CTX_MAX_SSQS ||
	    r->ssq_log < SNIC_MIN_LOG_SIZE || r->ssq_log > SNIC_MAX_LOG_SIZE ||
	    ring > r->ssq_mmap_len || (r->ssq_ci_offset & 3) ||
	    r->ssq_ci_offset < ring ||
	    !snic_fits(r->ssq_ci_offset, 4, r->ssq_mmap_len)) {
		errno = EPROTO;
		return NULL;
	}
	q = ctx->ssq[r->ssq_index];
	if (q) {
		if (q->key != r->ssq_mmap_key || q->ring.log_bbs != r->ssq_log) {
			errno = EPROTO;
			return NULL;
		}
		return q;
	}
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	map = mmap(NULL, r->ssq_mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   ctx->vctx.context.cmd_fd, r->ssq_mmap_key);
	if (map == MAP_FAILED) {
		free(q);
		return NULL;
	}
	pthread_spin_init(&q->lock, PTHREAD_PROCESS_PRIVATE);
	q->map = map;
	q->map_len = r->ssq_mmap_len;
	q->key = r->ssq_mmap_key;
	q->ring.ring = map;
	q->ring.log_bbs = r->ssq_log;
	q->ci = (volatile uint32_t *)((uint8_t *)map + r->ssq_ci_offset);
	ctx->ssq[r->ssq_index] = q;
	return q;
}

void snic_ssq_free_all(struct snic_context *ctx)
{
	unsigned int i;

	for (i = 0; i < SNIC_CTX_MAX_SSQS; i++) {
		struct snic_ssq *q = ctx->ssq[i];

		if (!q)
			continue;
		munmap(q->map, q->map_len);
		pthread_spin_destroy(&q->lock);
		free(q);
		ctx->ssq[i] = NULL;
	}
}

/* Room for @nbb more blocks, re-reading the device's consumer record. */
static bool snic_ssq_room(struct snic_ssq *q, unsigned int nbb)
{
	uint32_t size = 1u << q->ring.log_bbs;
	uint32_t tries;

	for (tries = 0; tries < SNIC_SSQ_WAIT_TRIES; tries++) {
		uint16_t cons = le32toh(__atomic_load_n(q->ci,
							__ATOMIC_ACQUIRE));

		if ((uint16_t)(q->ring.prod - cons) + nbb <= size)
			return true;
		/* the device frees slots as the QPs ahead of us drain */
		if (tries > 64)
			sched_yield();
	}
	return false;
}

/*
 * Post send WQE @wqe (@nbb basic blocks) of SSQ QP @qp into its SSQ;
 * ENOMEM if the SSQ stayed full.  Under qp->sq_lock.
 */
int snic_ssq_put_wqe(struct snic_qp *qp, uint8_t *wqe, unsigned int nbb)
{
	struct snic_ssq *q = qp->ssq;
	uint32_t qpn = htole32(qp->qpn | (uint32_t)qp->ssq_gen << 24);
	int ret = 0;

	memcpy(wqe + SNIC_SSQ_QPN_OFF, &qpn, sizeof(qpn));
	pthread_spin_lock(&q->lock);
	if (snic_ssq_room(q, nbb)) {
		snic_pipe_put_wqe(&q->ring, q->ring.prod, wqe, nbb);
		q->ring.prod = (uint16_t)(q->ring.prod + nbb);
	} else {
		ret = ENOMEM;
	}
	pthread_spin_unlock(&q->lock);
	return ret;
}
