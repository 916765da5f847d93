// SPDX-License-Identifier: GPL-2.0
/*
 * snic RDMA: completion queues.
 *
 * An RDMA CQ is an ordinary snic CQ (CREATE_CQ) on the RDMA completion EQ;
 * completion events reach ib_cq's comp_handler from that EQ's interrupt.
 * Kernel CQs are polled here (CQEs translated into ib_wc by
 * snic_ib_fill_wc); user CQs are polled by libsnic in its own mapping of
 * the ring and armed on its context's doorbell page.  Resizing moves the
 * CQ to a new ring with the device's RESIZE_CQ, which carries the CQEs
 * not yet consumed over; MODIFY_CQ sets completion event moderation.
 */
#include <rdma/uverbs_ioctl.h>
#include "snic_ib.h"

/* Point the CQ at ring buffer @b of 2^@log CQEs (consumer 0). */
static size_t snic_ib_cq_set_ring(struct snic_ib_cq *cq, struct snic_ib_buf *b,
				  u8 log)
{
	size_t ring = ALIGN((1u << log) * sizeof(struct snic_cqe),
			    SNIC_RING_ALIGN);

	cq->cq.size = 1u << log;
	cq->cq.cons = 0;
	cq->cq.r.buf = b->va;
	cq->cq.r.dma = b->dma;
	cq->cq.r.bytes = ring;
	cq->cq.r.dbr = b->va + ring;
	cq->cq.r.dbr_dma = b->dma + ring;
	return ring;
}

int snic_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct ib_udata *udata)
{
	struct snic_ib_dev *ibd = to_sibdev(ibcq->device);
	struct snic_ib_cq *cq = to_sibcq(ibcq);
	struct snic_create_cq_resp resp = {};
	struct snic_ib_ucontext *uc = NULL;
	size_t ring;
	u8 log;
	int ret;

	/* every CQE carries its completion time: the flag asks for nothing */
	if ((attr->flags & ~IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION) ||
	    attr->comp_vector ||
	    attr->cqe < 1 || attr->cqe > SNIC_IB_MAX_CQE)
		return -EINVAL;
	if (udata)
		uc = rdma_udata_to_drv_context(udata, struct snic_ib_ucontext,
					       ibuc);
	log = max_t(u8, order_base_2(attr->cqe + 1), SNIC_MIN_LOG_SIZE);
	spin_lock_init(&cq->lock);
	mutex_init(&cq->resize_lock);
	ret = snic_ib_db_page(ibd, udata);
	if (ret < 0)
		return ret;
	cq->cq.db_page = ret;
	ring = ALIGN((1u << log) * sizeof(struct snic_cqe), SNIC_RING_ALIGN);
	ret = snic_ib_buf_alloc(ibd, &cq->buf, ring + SNIC_RING_ALIGN, !!udata);
	if (ret)
		return ret;
	snic_ib_cq_set_ring(cq, &cq->buf, log);

	ret = snic_cmd_create_cq(ibd->sd, cq->cq.r.dma, cq->cq.r.dbr_dma, log, 0,
				 ibd->ceq.eqn, cq->cq.db_page, &cq->cq.cqn);
	if (ret)
		goto err_buf;
	cq->cq.live = true;
	ret = snic_ib_xa_publish(&ibd->cqs, cq->cq.cqn, cq);
	if (ret)
		goto err_destroy;

	if (uc) {
		u64 key;

		cq->mmap = snic_ib_mmap_buf(uc, &cq->buf, &key);
		if (IS_ERR(cq->mmap)) {
			ret = PTR_ERR(cq->mmap);
			cq->mmap = NULL;
			goto err_xa;
		}
		resp.cqn = cq->cq.cqn;
		resp.log_size = log;
		resp.mmap_key = key;
		resp.mmap_len = cq->buf.size;
		resp.dbr_offset = ring;
		ret = ib_copy_to_udata(udata, &resp,
				       min(sizeof(resp), udata->outlen));
		if (ret)
			goto err_xa;
	}
	ibcq->cqe = cq->cq.size - 1;
	return 0;

err_xa:
	snic_ib_xa_drop(&ibd->cqs, cq->cq.cqn, cq);
	snic_ib_sync_events(ibd);
err_destroy:
	if (snic_cmd_destroy(ibd->sd, SNIC_AQ_DESTROY_CQ, cq->cq.cqn))
		return ret;	/* the device may still write: leak the ring */
err_buf:
	snic_ib_buf_release(ibd, &cq->buf, cq->mmap);
	return ret;
}

int snic_ib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct snic_ib_dev *ibd = to_sibdev(ibcq->device);
	struct snic_ib_cq *cq = to_sibcq(ibcq);
	int ret;

	ret = snic_cmd_destroy(ibd->sd, SNIC_AQ_DESTROY_CQ, cq->cq.cqn);
	if (ret == -EBUSY)
		return ret;	/* QPs still use it */
	snic_ib_xa_drop(&ibd->cqs, cq->cq.cqn, cq);
	snic_ib_sync_events(ibd);
	if (ret) {
		dev_warn(&ibd->sd->pdev->dev,
			 "DESTROY_CQ %u failed: %d, keeping its ring\n",
			 cq->cq.cqn, ret);
		return 0;
	}
	snic_ib_buf_release(ibd, &cq->buf, cq->mmap);
	return 0;
}

/*
 * ib_modify_cq / ibv_modify_cq (CQ moderation): the device's MODIFY_CQ.
 * An armed CQ then raises its event after @cq_count CQEs or @cq_period
 * microseconds after the first of them, whichever comes first.
 */
int snic_ib_modify_cq(struct ib_cq *ibcq, u16 cq_count, u16 cq_period)
{
	struct snic_ib_dev *ibd = to_sibdev(ibcq->device);
	struct snic_ib_cq *cq = to_sibcq(ibcq);

	return snic_cmd_modify_cq(ibd->sd, cq->cq.cqn, cq_count, cq_period);
}

/*
 * ibv_resize_cq / ib_resize_cq: a new ring of at least @cqe entries.
 * Kernel CQs publish their consumer counter here; libsnic writes its own
 * to the record before the call and switches to the new mapping after.
 * While the device moves the CQEs, polling finds nothing.
 */
int snic_ib_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_RESIZE_CQ };
	struct snic_ib_dev *ibd = to_sibdev(ibcq->device);
	struct snic_ib_cq *cq = to_sibcq(ibcq);
	struct snic_create_cq_resp resp = {};
	struct snic_ib_mmap *mmap = NULL, *old_mmap;
	struct snic_ib_buf buf = {}, old;
	unsigned long flags;
	size_t ring;
	u64 moved = 0, key = 0;
	u8 log;
	int ret;

	if (cqe < 1 || cqe > SNIC_IB_MAX_CQE)
		return -EINVAL;
	log = max_t(u8, order_base_2(cqe + 1), SNIC_MIN_LOG_SIZE);
	ring = ALIGN((1u << log) * sizeof(struct snic_cqe), SNIC_RING_ALIGN);
	ret = snic_ib_buf_alloc(ibd, &buf, ring + SNIC_RING_ALIGN, !!udata);
	if (ret)
		return ret;
	if (udata) {
		struct snic_ib_ucontext *uc =
			rdma_udata_to_drv_context(udata,
						  struct snic_ib_ucontext, ibuc);

		mmap = snic_ib_mmap_buf(uc, &buf, &key);
		if (IS_ERR(mmap)) {
			snic_ib_buf_free(ibd, &buf);
			return PTR_ERR(mmap);
		}
	}

	mutex_lock(&cq->resize_lock);
	spin_lock_irqsave(&cq->lock, flags);
	cq->resizing = true;
	if (!udata)
		snic_cq_update(&cq->cq);
	spin_unlock_irqrestore(&cq->lock, flags);

	cmd.resize_cq.ring_addr = cpu_to_le64(buf.dma);
	cmd.resize_cq.dbr_addr = cpu_to_le64(buf.dma + ring);
	cmd.resize_cq.log_size = log;
	cmd.resize_cq.cqn = cpu_to_le32(cq->cq.cqn);
	ret = snic_aq_exec(ibd->sd, &cmd, &moved);

	spin_lock_irqsave(&cq->lock, flags);
	old = cq->buf;
	old_mmap = cq->mmap;
	if (!ret) {
		cq->buf = buf;
		cq->mmap = mmap;
		snic_ib_cq_set_ring(cq, &buf, log);
	}
	cq->resizing = false;
	spin_unlock_irqrestore(&cq->lock, flags);
	mutex_unlock(&cq->resize_lock);

	if (ret) {
		snic_ib_buf_release(ibd, &buf, mmap);
		return ret;
	}
	/* user space keeps the old ring mapped until it switches */
	snic_ib_buf_release(ibd, &old, old_mmap);
	ibcq->cqe = cq->cq.size - 1;
	if (udata) {
		resp.cqn = cq->cq.cqn;
		resp.log_size = log;
		resp.mmap_key = key;
		resp.mmap_len = buf.size;
		resp.dbr_offset = ring;
		ret = ib_copy_to_udata(udata, &resp,
				       min(sizeof(resp), udata->outlen));
	}
	return ret;
}

/* From the completion EQ's interrupt. */
void snic_ib_cq_event(struct snic_ib_dev *ibd, u32 cqn)
{
	struct snic_ib_cq *cq;

	xa_lock(&ibd->cqs);
	cq = xa_load(&ibd->cqs, cqn);
	if (cq && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	else if (!cq)
		atomic64_inc(&ibd->events_no_obj);
	xa_unlock(&ibd->cqs);
}

static bool snic_ib_cqe_is_rdma(u8 opcode)
{
	return opcode == SNIC_CQE_REQ || opcode == SNIC_CQE_RECV ||
	       opcode == SNIC_CQE_REQ_ERR || opcode == SNIC_CQE_RECV_ERR;
}

int snic_ib_poll_cq(struct ib_cq *ibcq, int n, struct ib_wc *wc)
{
	struct snic_ib_dev *ibd = to_sibdev(ibcq->device);
	struct snic_ib_cq *cq = to_sibcq(ibcq);
	struct snic_cqe *cqe;
	struct snic_ib_qp *qp;
	unsigned long flags;
	int got = 0;

	spin_lock_irqsave(&cq->lock, flags);
	while (got < n && !cq->resizing && (cqe = snic_cq_next(&cq->cq))) {
		cq->cq.cons++;
		if (!snic_ib_cqe_is_rdma(cqe->opcode)) {
			atomic64_inc(&ibd->cqe_bad);
			continue;
		}
		/* Destroy takes the same lock to unpublish a QP. */
		xa_lock(&ibd->qps);
		qp = xa_load(&ibd->qps, le32_to_cpu(cqe->rdma_qpn));
		if (qp && !qp->user)
			snic_ib_fill_wc(qp, cqe, &wc[got++]);
		else
			atomic64_inc(&ibd->cqe_no_qp);
		xa_unlock(&ibd->qps);
	}
	snic_cq_update(&cq->cq);
	spin_unlock_irqrestore(&cq->lock, flags);
	return got;
}

int snic_ib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct snic_ib_dev *ibd = to_sibdev(ibcq->device);
	struct snic_ib_cq *cq = to_sibcq(ibcq);
	unsigned long irqf;
	u32 off;
	int ret = 0;

	off = (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
	      SNIC_DB_CQ_ARM_SE : SNIC_DB_CQ_ARM;
	spin_lock_irqsave(&cq->lock, irqf);
	snic_cq_update(&cq->cq);
	snic_db_write(ibd->sd, cq->cq.db_page, off, cq->cq.cqn, cq->cq.cons);
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && snic_cq_next(&cq->cq))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqf);
	return ret;
}
