// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libsnic queue pairs and shared receive queues.  snic.ko creates them
 * and maps their rings and doorbell record to us; posting writes WQEs
 * into the rings, updates the record and rings the context's doorbell
 * page, all in user space.  The send side remembers wr_id, size and
 * opcode per WQE so that a completion (which names the WQE's first basic
 * block) can report them and retire unsignaled WQEs before it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "libsnic.h"
#include "snicdv.h"

static void snic_qp_reset_rings(struct snic_qp *qp)
{
	pthread_spin_lock(&qp->sq_lock);
	qp->sq.prod = 0;
	qp->sq.cons = 0;
	snic_set_record(&qp->dbr[1], 0);
	pthread_spin_unlock(&qp->sq_lock);
	pthread_spin_lock(&qp->rq_lock);
	qp->rq.prod = 0;
	qp->rq.cons = 0;
	snic_set_record(&qp->dbr[0], 0);
	if (qp->pipe)
		snic_pipe_reset(qp);
	snic_llq_reset(qp);
	pthread_spin_unlock(&qp->rq_lock);
}

void snic_qp_free(struct snic_qp *qp)
{
	if (qp->map)
		munmap(qp->map, qp->map_len);
	snic_llq_free(qp);
	free(qp->sq.wr_id);
	free(qp->sq.nbb);
	free(qp->sq.wc_op);
	free(qp->rq_wr_id);
	pthread_spin_destroy(&qp->sq_lock);
	pthread_spin_destroy(&qp->rq_lock);
	free(qp);
}

struct ibv_qp *snic_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct snicdv_qp_attr dv;
	int ret = snic_pipe_env(&dv);

	if (ret) {
		errno = ret;
		return NULL;
	}
	return snic_create_qp_mode(pd, attr, &dv, NULL);
}

struct ibv_qp *snic_create_qp_mode(struct ibv_pd *pd,
				   struct ibv_qp_init_attr *attr,
				   const struct snicdv_qp_attr *dv,
				   const struct snicdv_llq_attr *llq)
{
	struct snic_context *ctx = to_sctx(pd->context);
	struct snic_create_qp_cmd_full cmd;
	struct snic_create_qp_resp_full resp;
	bool ssq = dv->mode == SNICDV_QP_MODE_PIPE;
	bool pipe = ssq || dv->mode == SNICDV_QP_MODE_PIPE_QP;
	const struct snic_create_qp_resp *r = &resp.drv;
	struct snic_qp *qp;
	uint32_t nbbs;
	bool xrc;
	void *map;
	int ret;

	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UC &&
	    attr->qp_type != IBV_QPT_UD && attr->qp_type != IBV_QPT_XRC_SEND) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* an XRC_SEND QP has no receive queue: snic.ko makes no pipe of it */
	xrc = attr->qp_type == IBV_QPT_XRC_SEND;
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	memset(&resp, 0, sizeof(resp));
	memset(&cmd, 0, sizeof(cmd));
	cmd.drv.flags = (pipe ? SNIC_CREATE_QP_PIPE : 0) |
			(ssq ? SNIC_CREATE_QP_SSQ : 0);
	cmd.drv.ci_every = pipe ? dv->ci_every : 0;
	if (llq) {
		ret = snic_llq_cmd(llq, &cmd.drv);
		if (ret || attr->qp_type != IBV_QPT_RC) {
			pthread_spin_destroy(&qp->sq_lock);
			pthread_spin_destroy(&qp->rq_lock);
			free(qp);
			errno = EINVAL;
			return NULL;
		}
	}
	ret = ibv_cmd_create_qp(pd, &qp->vqp.qp, attr, &cmd.ibv, sizeof(cmd),
				&resp.ibv, sizeof(resp));
	if (ret) {
		pthread_spin_destroy(&qp->sq_lock);
		pthread_spin_destroy(&qp->rq_lock);
		free(qp);
		errno = ret;
		return NULL;
	}

	/* Check the geometry the kernel gave before touching any of it. */
	ret = EPROTO;
	if (r->qpn >= SNIC_MAX_QPS || r->sq_log < SNIC_MIN_LOG_SIZE ||
	    r->sq_log > SNIC_MAX_LOG_SIZE ||
	    !snic_fits(r->sq_offset, (uint64_t)SNIC_WQEBB_SIZE << r->sq_log,
		       r->mmap_len) ||
	    !snic_fits(r->dbr_offset, 8, r->mmap_len) || (r->dbr_offset & 3))
		goto err_destroy;
	if (pipe != !!(r->flags & SNIC_CREATE_QP_PIPE) ||
	    ssq != !!(r->flags & SNIC_CREATE_QP_SSQ) ||
	    !!llq != !!(r->flags & SNIC_CREATE_QP_LLQ) ||
	    (pipe && (r->rq_log < SNIC_PIPE_MIN_RQ_LOG ||
		      r->rq_log > SNIC_MAX_LOG_SIZE ||
		      r->rq_log_stride != 4 || (r->ci_offset & 3) ||
		      !snic_fits(r->ci_offset, 8, r->mmap_len) ||
		      !snic_fits(r->rq_offset, (uint64_t)16 << r->rq_log,
				 r->mmap_len))))
		goto err_destroy;
	if (!attr->srq && !pipe && !xrc &&
	    (r->rq_log > SNIC_MAX_LOG_SIZE || r->rq_log_stride < 5 ||
	     r->rq_log_stride > 8 ||
	     !snic_fits(r->rq_offset, (uint64_t)1 << (r->rq_log + r->rq_log_stride),
			r->mmap_len)))
		goto err_destroy;

	nbbs = 1u << r->sq_log;
	qp->sq.wr_id = calloc(nbbs, sizeof(*qp->sq.wr_id));
	qp->sq.nbb = calloc(nbbs, sizeof(*qp->sq.nbb));
	qp->sq.wc_op = calloc(nbbs, sizeof(*qp->sq.wc_op));
	if (pipe)
		qp->rq_wr_id = calloc(1u << r->rq_log, sizeof(*qp->rq_wr_id));
	ret = ENOMEM;
	if (!qp->sq.wr_id || !qp->sq.nbb || !qp->sq.wc_op ||
	    (pipe && !qp->rq_wr_id))
		goto err_destroy;
	map = mmap(NULL, r->mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   pd->context->cmd_fd, r->mmap_key);
	if (map == MAP_FAILED) {
		ret = errno;
		goto err_destroy;
	}
	qp->map = map;
	qp->map_len = r->mmap_len;
	qp->sq.ring = (uint8_t *)map + r->sq_offset;
	qp->sq.log_bbs = r->sq_log;
	qp->dbr = (volatile uint32_t *)((uint8_t *)map + r->dbr_offset);
	if (attr->srq) {
		qp->srq = to_ssrq(attr->srq);
	} else if (!xrc) {
		qp->rq.ring = (uint8_t *)map + r->rq_offset;
		qp->rq.log_size = r->rq_log;
		qp->rq.log_stride = r->rq_log_stride;
	}
	if (llq) {
		ret = snic_llq_map(qp, pd->context->cmd_fd, r, &cmd.drv);
		if (ret)
			goto err_destroy;
	}
	qp->pipe = pipe;
	if (pipe)
		qp->ci = (volatile uint32_t *)((uint8_t *)map + r->ci_offset);
	qp->qpn = r->qpn;
	qp->state = IBV_QPS_RESET;
	qp->params.qp_type = attr->qp_type;
	qp->params.sig_all = attr->sq_sig_all;
	qp->params.max_inline = r->max_inline;
	qp->params.max_sge = attr->cap.max_send_sge < SNIC_MAX_SGE ?
			     attr->cap.max_send_sge : SNIC_MAX_SGE;

	pthread_mutex_lock(&ctx->table_lock);
	if (ctx->qp_table[qp->qpn]) {
		pthread_mutex_unlock(&ctx->table_lock);
		ret = EPROTO;
		goto err_destroy;
	}
	if (ssq) {
		qp->ssq = snic_ssq_get(ctx, r);
		qp->ssq_gen = r->ssq_gen;
		if (!qp->ssq) {
			ret = errno;
			pthread_mutex_unlock(&ctx->table_lock);
			goto err_destroy;
		}
	}
	__atomic_store_n(&ctx->qp_table[qp->qpn], qp, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ctx->table_lock);
	return &qp->vqp.qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
	snic_qp_free(qp);
	errno = ret;
	return NULL;
}

int snic_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		  struct ibv_qp_init_attr *init_attr)
{
	struct verbs_cmd_query_qp cmd;

	return ibv_cmd_query_qp(qp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

int snic_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask)
{
	struct snic_qp *qp = to_sqp(ibqp);
	struct verbs_cmd_modify_qp cmd;
	int ret;

	ret = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (attr_mask & IBV_QP_QKEY)
		qp->params.qkey = attr->qkey;
	if (attr_mask & IBV_QP_STATE) {
		/* A QP back in RESET starts its rings again from 0. */
		if (attr->qp_state == IBV_QPS_RESET && qp->map)
			snic_qp_reset_rings(qp);
		__atomic_store_n(&qp->state, attr->qp_state, __ATOMIC_RELEASE);
	}
	return 0;
}

int snic_destroy_qp(struct ibv_qp *ibqp)
{
	struct snic_context *ctx = to_sctx(ibqp->context);
	struct snic_qp *qp = to_sqp(ibqp);
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;
	if (qp->params.qp_type == IBV_QPT_XRC_RECV) {
		snic_qp_free(qp);	/* no queue, not in the table */
		return 0;
	}
	pthread_mutex_lock(&ctx->table_lock);
	__atomic_store_n(&ctx->qp_table[qp->qpn], NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ctx->table_lock);
	/* Also waits out a poller that still holds a pointer to us. */
	snic_cq_clean(to_scq(ibqp->send_cq), qp->qpn);
	if (ibqp->recv_cq && ibqp->recv_cq != ibqp->send_cq)
		snic_cq_clean(to_scq(ibqp->recv_cq), qp->qpn);
	snic_qp_free(qp);
	return 0;
}

/* Copy @nbb basic blocks to the send ring at @prod; a WQE may wrap. */
static void snic_sq_copy(struct snic_sq *sq, uint32_t prod, const uint8_t *wqe,
			 unsigned int nbb)
{
	uint32_t mask = (1u << sq->log_bbs) - 1;
	unsigned int i;

	for (i = 0; i < nbb; i++)
		memcpy(sq->ring + ((prod + i) & mask) * SNIC_WQEBB_SIZE,
		       wqe + i * SNIC_WQEBB_SIZE, SNIC_WQEBB_SIZE);
}

int snic_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct snic_context *ctx = to_sctx(ibqp->context);
	struct snic_qp *qp = to_sqp(ibqp);
	struct snic_sq *sq = &qp->sq;
	uint32_t size = 1u << sq->log_bbs;
	uint8_t wqe[SNIC_WQE_MAX_BYTES] __attribute__((aligned(16)));
	enum ibv_qp_state state;
	uint32_t start, nwqe = 0;
	int ret = 0;

	state = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
	if (state == IBV_QPS_RESET || state == IBV_QPS_INIT ||
	    state == IBV_QPS_RTR || qp->params.qp_type == IBV_QPT_XRC_RECV) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&qp->sq_lock);
	start = sq->prod;
	for (; wr; wr = wr->next) {
		struct snic_wqe_info info;
		uint32_t slot;

		ret = snic_build_send_wqe(&qp->params, wr, sq->prod & 0xffff,
					  wqe, &info);
		if (ret)
			break;
		if (sq->prod - sq->cons + info.nbb > size) {
			ret = ENOMEM;
			break;
		}
		if (qp->ssq) {
			ret = snic_ssq_put_wqe(qp, wqe, info.nbb);
			if (ret)
				break;
		} else if (qp->pipe) {
			snic_pipe_put_wqe(sq, sq->prod, wqe, info.nbb);
		} else {
			snic_sq_copy(sq, sq->prod, wqe, info.nbb);
		}
		slot = sq->prod & (size - 1);
		sq->wr_id[slot] = wr->wr_id;
		sq->nbb[slot] = info.nbb;
		sq->wc_op[slot] = info.wc_opcode;
		sq->prod += info.nbb;
		nwqe++;
	}
	if (ret)
		*bad_wr = wr;
	if (nwqe == 1 && sq->prod - start <= SNIC_MMIO_WQE_MAX_BBS &&
	    ctx->mmio_wqe && !qp->pipe && !qp->ssq) {
		/* one small WQE: WQE, record, its first BB as the doorbell */
		udma_to_device_barrier();
		snic_set_record(&qp->dbr[1], sq->prod);
		udma_to_device_barrier();
		snic_ring_wqe_line(ctx, SNIC_DB_QP_SQ_WQE, qp->qpn, wqe);
	} else if (sq->prod != start && !qp->pipe) {
		/* WQEs, then the record, then the doorbell. */
		snic_publish(ctx, &qp->dbr[1], SNIC_DB_QP_SQ, qp->qpn,
			     sq->prod);
	}
	pthread_spin_unlock(&qp->sq_lock);
	return ret;
}

/* Write receive WQEs into @rq; returns the error of the first bad one. */
static int snic_rq_post(struct snic_rq *rq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	uint32_t size = 1u << rq->log_size;
	int ret = 0;

	for (; wr; wr = wr->next) {
		uint8_t *slot;

		if (rq->prod - rq->cons >= size) {
			ret = ENOMEM;
			break;
		}
		slot = rq->ring + ((size_t)(rq->prod & (size - 1)) << rq->log_stride);
		ret = snic_build_recv_wqe(slot, rq->log_stride, wr);
		if (ret)
			break;
		rq->prod++;
	}
	if (ret)
		*bad_wr = wr;
	return ret;
}

int snic_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr)
{
	struct snic_context *ctx = to_sctx(ibqp->context);
	struct snic_qp *qp = to_sqp(ibqp);
	uint32_t start;
	int ret;

	/* XRC QPs have no receive queue (XRC SRQs take the receives) */
	if (qp->srq || qp->params.qp_type == IBV_QPT_XRC_SEND ||
	    qp->params.qp_type == IBV_QPT_XRC_RECV ||
	    __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE) == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&qp->rq_lock);
	if (qp->pipe) {
		ret = snic_pipe_post_recv(qp, wr, bad_wr);
		pthread_spin_unlock(&qp->rq_lock);
		return ret;
	}
	start = qp->rq.prod;
	ret = snic_rq_post(&qp->rq, wr, bad_wr);
	if (qp->rq.prod != start) {
		snic_publish(ctx, &qp->dbr[0], SNIC_DB_QP_RQ, qp->qpn,
			     qp->rq.prod);
	}
	pthread_spin_unlock(&qp->rq_lock);
	return ret;
}

struct ibv_srq *snic_create_srq(struct ibv_pd *pd,
				struct ibv_srq_init_attr *attr)
{
	struct verbs_cmd_create_srq cmd;
	struct snic_create_srq_resp_full resp;
	const struct snic_create_srq_resp *r = &resp.drv;
	struct snic_srq *srq;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_srq(pd, &srq->vsrq.srq, attr, &cmd, sizeof(cmd),
				 &resp.ibv, sizeof(resp));
	if (ret) {
		pthread_spin_destroy(&srq->lock);
		free(srq);
		errno = ret;
		return NULL;
	}
	ret = snic_srq_map(srq, pd->context, r);
	if (ret) {
		ibv_cmd_destroy_srq(&srq->vsrq.srq);
		snic_srq_free(srq);
		errno = ret;
		return NULL;
	}
	return &srq->vsrq.srq;
}

int snic_srq_map(struct snic_srq *srq, struct ibv_context *context,
		 const struct snic_create_srq_resp *r)
{
	void *map;

	if (r->log_size > SNIC_MAX_LOG_SIZE || r->log_stride < 5 ||
	    r->log_stride > 8 ||
	    (1ull << (r->log_size + r->log_stride)) > r->dbr_offset ||
	    !snic_fits(r->dbr_offset, 4, r->mmap_len) || (r->dbr_offset & 3))
		return EPROTO;
	map = mmap(NULL, r->mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   context->cmd_fd, r->mmap_key);
	if (map == MAP_FAILED)
		return errno;
	srq->map = map;
	srq->map_len = r->mmap_len;
	srq->rq.ring = map;
	srq->rq.log_size = r->log_size;
	srq->rq.log_stride = r->log_stride;
	srq->dbr = (volatile uint32_t *)((uint8_t *)map + r->dbr_offset);
	srq->srqn = r->srqn;
	return 0;
}

void snic_srq_free(struct snic_srq *srq)
{
	if (srq->map)
		munmap(srq->map, srq->map_len);
	pthread_spin_destroy(&srq->lock);
	free(srq);
}

int snic_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		    int attr_mask)
{
	struct verbs_cmd_modify_srq cmd;

	return ibv_cmd_modify_srq(srq, attr, attr_mask, &cmd, sizeof(cmd));
}

int snic_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct verbs_cmd_query_srq cmd;

	return ibv_cmd_query_srq(srq, attr, &cmd, sizeof(cmd));
}

int snic_destroy_srq(struct ibv_srq *ibsrq)
{
	struct snic_srq *srq = to_ssrq(ibsrq);
	int ret;

	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;
	if (srq->xrc) {
		struct snic_context *ctx = to_sctx(ibsrq->context);

		/* its CQ may still hold CQEs: they are skipped from now on */
		pthread_mutex_lock(&ctx->table_lock);
		__atomic_store_n(&ctx->xrc_srq[srq->srqn], NULL,
				 __ATOMIC_RELEASE);
		pthread_mutex_unlock(&ctx->table_lock);
		snic_cq_clean(to_scq(srq->vsrq.cq), SNIC_MAX_QPS);
	}
	snic_srq_free(srq);
	return 0;
}

int snic_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct snic_context *ctx = to_sctx(ibsrq->context);
	struct snic_srq *srq = to_ssrq(ibsrq);
	uint32_t start;
	int ret;

	pthread_spin_lock(&srq->lock);
	start = srq->rq.prod;
	ret = snic_rq_post(&srq->rq, wr, bad_wr);
	if (srq->rq.prod != start) {
		snic_publish(ctx, srq->dbr, SNIC_DB_SRQ, srq->srqn,
			     srq->rq.prod);
	}
	pthread_spin_unlock(&srq->lock);
	return ret;
}
