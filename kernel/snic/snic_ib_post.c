// SPDX-License-Identifier: GPL-2.0
/*
 * snic RDMA: the kernel data path (post_send, post_recv, post_srq_recv)
 * and the translation of RDMA CQEs into ib_wc for kernel consumers such as
 * ib_mad, rdma_cm, NVMe over Fabrics.
 *
 * A send WQE is built in a local buffer (ctrl + segments, 16 bytes each,
 * 1..4 basic blocks) and copied into the ring, which it may wrap around.
 * The producer counters go to the doorbell record (RQ at +0, SQ at +4)
 * before the doorbell.  Send completions name the WQE's first basic block;
 * a completion also retires the unsignaled WQEs before it.
 */
#include <linux/if_vlan.h>
#include <rdma/ib_verbs.h>
#include "snic_ib.h"

static bool snic_ib_can_send(u8 state)
{
	return state == IB_QPS_RTS || state == IB_QPS_SQD ||
	       state == IB_QPS_SQE || state == IB_QPS_ERR;
}

D2D_VISIBLE_IF_KUNIT int snic_ib_wqe_opcode(const struct snic_ib_qp *qp,
					    enum ib_wr_opcode op)
{
	bool rc = qp->type == SNIC_QPT_RC, conn = !snic_ib_qp_ud(qp);

	switch (op) {
	case IB_WR_SEND:
		return SNIC_WQE_SEND;
	case IB_WR_SEND_WITH_IMM:
		return SNIC_WQE_SEND_IMM;
	case IB_WR_SEND_WITH_INV:
		return rc ? SNIC_WQE_SEND_INV : -EINVAL;
	case IB_WR_RDMA_WRITE:
		return conn ? SNIC_WQE_RDMA_WRITE : -EINVAL;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return conn ? SNIC_WQE_RDMA_WRITE_IMM : -EINVAL;
	case IB_WR_RDMA_READ:
		return rc ? SNIC_WQE_RDMA_READ : -EINVAL;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return rc ? SNIC_WQE_ATOMIC_CS : -EINVAL;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return rc ? SNIC_WQE_ATOMIC_FA : -EINVAL;
	case IB_WR_REG_MR:
		return SNIC_WQE_REG_MR;
	case IB_WR_LOCAL_INV:
		return SNIC_WQE_LOCAL_INV;
	default:
		return -EINVAL;
	}
}

/* Inline data: kernel virtual addresses in the scatter list. */
static int snic_ib_put_inline(const struct snic_ib_qp *qp,
			      const struct ib_send_wr *wr, u8 *seg, u8 *end)
{
	struct snic_wqe_inline *inl = (void *)seg;
	u8 *p = seg + sizeof(*inl);
	u32 total = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		u32 len = wr->sg_list[i].length;

		if (total + len > qp->max_inline || p + len > end)
			return -EINVAL;
		memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr, len);
		p += len;
		total += len;
	}
	inl->byte_count = cpu_to_le32(SNIC_INLINE_SEG | total);
	return DIV_ROUND_UP(sizeof(*inl) + total, 16);
}

static int snic_ib_put_data(const struct snic_ib_qp *qp,
			    const struct ib_send_wr *wr, u8 *seg, u8 *end)
{
	struct snic_wqe_data *d = (void *)seg;
	int i, n = 0;

	if (wr->num_sge > qp->max_send_sge)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++) {
		if (!wr->sg_list[i].length)
			continue;
		if ((u8 *)(d + 1) > end)
			return -EINVAL;
		d->byte_count = cpu_to_le32(wr->sg_list[i].length);
		d->lkey = cpu_to_le32(wr->sg_list[i].lkey);
		d->addr = cpu_to_le64(wr->sg_list[i].addr);
		d++;
		n++;
	}
	return n;
}

static void snic_ib_put_reg(const struct ib_reg_wr *r, struct snic_wqe_reg *s)
{
	struct snic_ib_mr *mr = to_sibmr(r->mr);

	s->key = cpu_to_le32(r->key);
	s->access = cpu_to_le32(r->access & (IB_ACCESS_LOCAL_WRITE |
					     IB_ACCESS_REMOTE_WRITE |
					     IB_ACCESS_REMOTE_READ |
					     IB_ACCESS_REMOTE_ATOMIC));
	s->iova = cpu_to_le64(mr->ibmr.iova);
	s->length = cpu_to_le64(mr->ibmr.length);
	s->pas_addr = cpu_to_le64(mr->pages_dma);
	s->npages = cpu_to_le32(mr->npages);
	s->page_shift = ilog2(mr->ibmr.page_size);
}

/* Build one WQE in @w; returns its size in basic blocks or -errno. */
D2D_VISIBLE_IF_KUNIT int snic_ib_build_wqe(struct snic_ib_qp *qp,
					   const struct ib_send_wr *wr,
					   struct snic_ib_wqe_buf *w)
{
	struct snic_wqe_ctrl *ctrl = (void *)w->b;
	u8 *seg = w->b + sizeof(*ctrl), *end = w->b + sizeof(w->b);
	int op, n;

	memset(w, 0, sizeof(*w));
	op = snic_ib_wqe_opcode(qp, wr->opcode);
	if (op < 0)
		return op;
	ctrl->opcode = op;
	if ((wr->send_flags & IB_SEND_SIGNALED) || qp->sig_all)
		ctrl->flags |= SNIC_WQE_F_SIGNAL;
	if (wr->send_flags & IB_SEND_SOLICITED)
		ctrl->flags |= SNIC_WQE_F_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		ctrl->flags |= SNIC_WQE_F_FENCE;

	if (snic_ib_qp_ud(qp) && op != SNIC_WQE_REG_MR &&
	    op != SNIC_WQE_LOCAL_INV) {
		const struct ib_ud_wr *ud = ud_wr(wr);
		struct snic_wqe_ud *u = (void *)seg;

		if (!ud->ah)
			return -EINVAL;
		u->av = to_sibah(ud->ah)->av;
		u->dest_qpn = cpu_to_le32(ud->remote_qpn);
		/* The high bit asks for the QP's own qkey (IBA 10.2.5). */
		u->qkey = cpu_to_le32(ud->remote_qkey & 0x80000000u ?
				      qp->qkey : ud->remote_qkey);
		seg += sizeof(*u);
		if (u->av.flags & SNIC_AV_F_IPV6) {
			memcpy(seg, &to_sibah(ud->ah)->ud6,
			       sizeof(struct snic_wqe_ud6));
			seg += sizeof(struct snic_wqe_ud6);
		}
	}

	switch (op) {
	case SNIC_WQE_SEND_IMM:
		ctrl->imm = wr->ex.imm_data;
		break;
	case SNIC_WQE_SEND_INV:
	case SNIC_WQE_LOCAL_INV:
		ctrl->imm = cpu_to_be32(wr->ex.invalidate_rkey);
		break;
	case SNIC_WQE_RDMA_WRITE_IMM:
		ctrl->imm = wr->ex.imm_data;
		fallthrough;
	case SNIC_WQE_RDMA_WRITE:
	case SNIC_WQE_RDMA_READ: {
		struct snic_wqe_raddr *ra = (void *)seg;

		ra->addr = cpu_to_le64(rdma_wr(wr)->remote_addr);
		ra->rkey = cpu_to_le32(rdma_wr(wr)->rkey);
		seg += sizeof(*ra);
		break;
	}
	case SNIC_WQE_ATOMIC_CS:
	case SNIC_WQE_ATOMIC_FA: {
		const struct ib_atomic_wr *aw = atomic_wr(wr);
		struct snic_wqe_raddr *ra = (void *)seg;
		struct snic_wqe_atomic *at = (void *)(ra + 1);

		if (wr->num_sge != 1 || wr->sg_list[0].length != 8)
			return -EINVAL;
		ra->addr = cpu_to_le64(aw->remote_addr);
		ra->rkey = cpu_to_le32(aw->rkey);
		at->swap_add = cpu_to_le64(op == SNIC_WQE_ATOMIC_CS ?
					   aw->swap : aw->compare_add);
		at->compare = cpu_to_le64(op == SNIC_WQE_ATOMIC_CS ?
					  aw->compare_add : 0);
		seg += sizeof(*ra) + sizeof(*at);
		break;
	}
	case SNIC_WQE_REG_MR:
		if (qp->user)
			return -EINVAL;
		snic_ib_put_reg(reg_wr(wr), (void *)seg);
		seg += sizeof(struct snic_wqe_reg);
		break;
	default:
		break;
	}

	if (op != SNIC_WQE_REG_MR && op != SNIC_WQE_LOCAL_INV) {
		if ((wr->send_flags & IB_SEND_INLINE) &&
		    op != SNIC_WQE_RDMA_READ && op != SNIC_WQE_ATOMIC_CS &&
		    op != SNIC_WQE_ATOMIC_FA) {
			ctrl->flags |= SNIC_WQE_F_INLINE;
			n = snic_ib_put_inline(qp, wr, seg, end);
		} else {
			n = snic_ib_put_data(qp, wr, seg, end);
		}
		if (n < 0)
			return n;
		seg += n * 16;
	}
	ctrl->ds_cnt = (seg - w->b) / 16;
	return DIV_ROUND_UP(ctrl->ds_cnt, SNIC_WQEBB_SIZE / 16);
}

int snic_ib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		      const struct ib_send_wr **bad)
{
	struct snic_ib_dev *ibd = to_sibdev(ibqp->device);
	struct snic_ib_qp *qp = to_sibqp(ibqp);
	struct snic_ib_wqe_buf w;
	__le32 *dbr = qp->buf.va + qp->dbr_off;
	u32 mask = qp->sq_size - 1;
	unsigned long flags;
	int bbs, i, n = 0, ret = 0;

	spin_lock_irqsave(&qp->sq_lock, flags);
	if (!snic_ib_can_send(READ_ONCE(qp->state)))
		ret = -EINVAL;
	for (; wr && !ret; wr = wr->next) {
		bbs = snic_ib_build_wqe(qp, wr, &w);
		if (bbs < 0) {
			ret = bbs;
			break;
		}
		if ((u16)(qp->sq_prod - qp->sq_cons) + bbs > qp->sq_size) {
			ret = -ENOMEM;
			break;
		}
		((struct snic_wqe_ctrl *)w.b)->wqe_idx = cpu_to_le16(qp->sq_prod);
		for (i = 0; i < bbs; i++)
			memcpy(qp->buf.va + qp->sq_off +
			       ((qp->sq_prod + i) & mask) * SNIC_WQEBB_SIZE,
			       w.b + i * SNIC_WQEBB_SIZE, SNIC_WQEBB_SIZE);
		qp->swqe[qp->sq_prod & mask].wr_id = wr->wr_id;
		qp->swqe[qp->sq_prod & mask].bbs = bbs;
		qp->sq_prod += bbs;
		n++;
	}
	if (n) {
		/* WQEs before the record, the record before the doorbell. */
		dma_wmb();
		WRITE_ONCE(dbr[1], cpu_to_le32(qp->sq_prod));
		snic_db_write(ibd->sd, qp->db_page, SNIC_DB_QP_SQ, qp->qpn,
			      qp->sq_prod);
	}
	if (ret)
		*bad = wr;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	return ret;
}

static void snic_ib_put_recv(void *slot, const struct ib_recv_wr *wr)
{
	struct snic_recv_hdr *h = slot;
	struct snic_wqe_data *d = slot + sizeof(*h);
	int i;

	h->cookie = cpu_to_le64(wr->wr_id);
	h->num_sge = cpu_to_le16(wr->num_sge);
	memset(h->rsvd, 0, sizeof(h->rsvd));
	for (i = 0; i < wr->num_sge; i++, d++) {
		d->byte_count = cpu_to_le32(wr->sg_list[i].length);
		d->lkey = cpu_to_le32(wr->sg_list[i].lkey);
		d->addr = cpu_to_le64(wr->sg_list[i].addr);
	}
}

int snic_ib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad)
{
	struct snic_ib_dev *ibd = to_sibdev(ibqp->device);
	struct snic_ib_qp *qp = to_sibqp(ibqp);
	__le32 *dbr = qp->buf.va + qp->dbr_off;
	unsigned long flags;
	int n = 0, ret = 0;

	spin_lock_irqsave(&qp->rq_lock, flags);
	if (qp->srq || READ_ONCE(qp->state) == IB_QPS_RESET)
		ret = -EINVAL;
	for (; wr && !ret; wr = wr->next) {
		if (wr->num_sge > qp->max_recv_sge) {
			ret = -EINVAL;
			break;
		}
		if ((u16)(qp->rq_prod - qp->rq_cons) >= qp->rq_size) {
			ret = -ENOMEM;
			break;
		}
		snic_ib_put_recv(qp->buf.va + qp->rq_off +
				 ((qp->rq_prod & (qp->rq_size - 1)) <<
				  qp->rq_log_stride), wr);
		qp->rq_prod++;
		n++;
	}
	if (n) {
		dma_wmb();
		WRITE_ONCE(dbr[0], cpu_to_le32(qp->rq_prod));
		snic_db_write(ibd->sd, qp->db_page, SNIC_DB_QP_RQ, qp->qpn,
			      qp->rq_prod);
	}
	if (ret)
		*bad = wr;
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	return ret;
}

int snic_ib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad)
{
	struct snic_ib_dev *ibd = to_sibdev(ibsrq->device);
	struct snic_ib_srq *srq = to_sibsrq(ibsrq);
	unsigned long flags;
	int n = 0, ret = 0;

	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		if (wr->num_sge > srq->max_sge) {
			ret = -EINVAL;
			break;
		}
		if ((u16)(srq->prod - srq->cons) >= srq->size - 1) {
			ret = -ENOMEM;
			break;
		}
		snic_ib_put_recv(srq->buf.va + ((srq->prod & (srq->size - 1)) <<
						srq->log_stride), wr);
		srq->prod++;
		n++;
	}
	if (n) {
		dma_wmb();
		WRITE_ONCE(*srq->dbr, cpu_to_le32(srq->prod));
		snic_db_write(ibd->sd, srq->db_page, SNIC_DB_SRQ, srq->srqn,
			      srq->prod);
	}
	if (ret)
		*bad = wr;
	spin_unlock_irqrestore(&srq->lock, flags);
	return ret;
}

/* ---- completions ---- */

D2D_VISIBLE_IF_KUNIT enum ib_wc_status snic_ib_wc_status(u8 syndrome)
{
	static const enum ib_wc_status map[] = {
		[SNIC_RST_OK] = IB_WC_SUCCESS,
		[SNIC_RST_LOC_LEN] = IB_WC_LOC_LEN_ERR,
		[SNIC_RST_LOC_QP_OP] = IB_WC_LOC_QP_OP_ERR,
		[SNIC_RST_LOC_PROT] = IB_WC_LOC_PROT_ERR,
		[SNIC_RST_WR_FLUSH] = IB_WC_WR_FLUSH_ERR,
		[SNIC_RST_BAD_RESP] = IB_WC_BAD_RESP_ERR,
		[SNIC_RST_LOC_ACCESS] = IB_WC_LOC_ACCESS_ERR,
		[SNIC_RST_REM_INV_REQ] = IB_WC_REM_INV_REQ_ERR,
		[SNIC_RST_REM_ACCESS] = IB_WC_REM_ACCESS_ERR,
		[SNIC_RST_REM_OP] = IB_WC_REM_OP_ERR,
		[SNIC_RST_RETRY_EXC] = IB_WC_RETRY_EXC_ERR,
		[SNIC_RST_RNR_RETRY_EXC] = IB_WC_RNR_RETRY_EXC_ERR,
		[SNIC_RST_GENERAL] = IB_WC_GENERAL_ERR,
		[SNIC_RST_MW_BIND] = IB_WC_MW_BIND_ERR,
	};

	/* An error CQE never reports success. */
	if (!syndrome || syndrome >= ARRAY_SIZE(map))
		return IB_WC_GENERAL_ERR;
	return map[syndrome];
}

static enum ib_wc_opcode snic_ib_send_wc_opcode(u8 op)
{
	switch (op) {
	case SNIC_WQE_RDMA_WRITE:
	case SNIC_WQE_RDMA_WRITE_IMM:
		return IB_WC_RDMA_WRITE;
	case SNIC_WQE_RDMA_READ:
		return IB_WC_RDMA_READ;
	case SNIC_WQE_ATOMIC_CS:
		return IB_WC_COMP_SWAP;
	case SNIC_WQE_ATOMIC_FA:
		return IB_WC_FETCH_ADD;
	case SNIC_WQE_REG_MR:
		return IB_WC_REG_MR;
	case SNIC_WQE_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case SNIC_WQE_BIND_MW:
		return IB_WC_BIND_MW;
	default:
		return IB_WC_SEND;
	}
}

static void snic_ib_send_wc(struct snic_ib_qp *qp, const struct snic_cqe *cqe,
			    struct ib_wc *wc)
{
	u16 idx = le16_to_cpu(cqe->wqe_counter);
	struct snic_ib_swqe *s = &qp->swqe[idx & (qp->sq_size - 1)];

	spin_lock(&qp->sq_lock);
	wc->wr_id = s->wr_id;
	/* Retires this WQE and every unsignaled one before it. */
	qp->sq_cons = idx + max_t(u8, s->bbs, 1);
	spin_unlock(&qp->sq_lock);
	wc->opcode = snic_ib_send_wc_opcode(cqe->wqe_opcode);
}

static void snic_ib_recv_wc(struct snic_ib_qp *qp, const struct snic_cqe *cqe,
			    struct ib_wc *wc)
{
	u8 rf = cqe->rdma_flags;

	wc->wr_id = le64_to_cpu(cqe->cookie);
	if (qp->srq) {
		spin_lock(&qp->srq->lock);
		qp->srq->cons++;
		spin_unlock(&qp->srq->lock);
	} else {
		spin_lock(&qp->rq_lock);
		qp->rq_cons++;
		spin_unlock(&qp->rq_lock);
	}
	wc->opcode = cqe->wqe_opcode == SNIC_WQE_RDMA_WRITE_IMM ?
		     IB_WC_RECV_RDMA_WITH_IMM : IB_WC_RECV;
	if (rf & SNIC_CQE_RF_INV) {
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = be32_to_cpu(cqe->imm);
	} else if (rf & SNIC_CQE_RF_IMM) {
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = cqe->imm;
	}
	if (snic_ib_qp_ud(qp)) {
		if (rf & SNIC_CQE_RF_GRH)
			wc->wc_flags |= IB_WC_GRH;
		wc->src_qp = le32_to_cpu(cqe->src_qpn);
		memcpy(wc->smac, cqe->smac, ETH_ALEN);
		wc->network_hdr_type = rf & SNIC_CQE_RF_IPV6 ?
				       RDMA_NETWORK_IPV6 : RDMA_NETWORK_IPV4;
		if (rf & SNIC_CQE_RF_VLAN) {
			u16 tci = le16_to_cpu(cqe->vlan_tci);

			wc->vlan_id = tci & VLAN_VID_MASK;
			wc->sl = tci >> VLAN_PRIO_SHIFT;
			wc->wc_flags |= IB_WC_WITH_VLAN;
		}
		wc->wc_flags |= IB_WC_WITH_SMAC | IB_WC_WITH_NETWORK_HDR_TYPE;
	}
}

/* Called by poll_cq with the CQ lock held and @qp pinned. */
void snic_ib_fill_wc(struct snic_ib_qp *qp, const struct snic_cqe *cqe,
		     struct ib_wc *wc)
{
	bool send = cqe->opcode == SNIC_CQE_REQ ||
		    cqe->opcode == SNIC_CQE_REQ_ERR;

	memset(wc, 0, sizeof(*wc));
	wc->qp = &qp->ibqp;
	wc->port_num = qp->port;
	wc->byte_len = le32_to_cpu(cqe->byte_cnt);
	wc->vendor_err = cqe->syndrome;
	wc->status = cqe->opcode == SNIC_CQE_REQ ||
		     cqe->opcode == SNIC_CQE_RECV ? IB_WC_SUCCESS :
		     snic_ib_wc_status(cqe->syndrome);
	if (send)
		snic_ib_send_wc(qp, cqe, wc);
	else
		snic_ib_recv_wc(qp, cqe, wc);
}
