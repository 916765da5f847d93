// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libsnic work-request formats: builds snic send WQEs (ctrl + ud / raddr /
 * atomic + data or inline segments, docs/snic-rdma.md) and receive WQEs
 * from verbs work requests, and turns CQEs into struct ibv_wc.  No device
 * access here: the callers copy the result into the mapped rings.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "snic_wqe.h"

#define SEG	16	/* bytes per WQE segment (ds) */

_Static_assert(sizeof(struct snic_wqe_ctrl) == SEG, "ctrl segment");
_Static_assert(sizeof(struct snic_wqe_raddr) == SEG, "raddr segment");
_Static_assert(sizeof(struct snic_wqe_atomic) == SEG, "atomic segment");
_Static_assert(sizeof(struct snic_wqe_data) == SEG, "data segment");
_Static_assert(sizeof(struct snic_wqe_ud) == 3 * SEG, "ud segment");
_Static_assert(sizeof(struct snic_wqe_ud6) == 2 * SEG, "ud6 segment");
_Static_assert(sizeof(struct snic_wqe_bind) == 2 * SEG, "bind segment");
_Static_assert(sizeof(struct snic_recv_hdr) == SNIC_RECV_HDR_SIZE,
	       "receive header");
_Static_assert(sizeof(struct snic_cqe) == 64, "CQE");

/* Which segments an opcode carries. */
struct snic_op_desc {
	uint8_t wqe_opcode;
	enum ibv_wc_opcode wc_opcode;
	bool raddr;		/* RDMA / atomic remote address */
	bool atomic;
	bool inline_ok;		/* data may be inline */
	bool ud_ok;		/* allowed on UD QPs */
	bool imm;		/* ctrl.imm carries wr->imm_data */
	bool uc_ok;		/* allowed on UC QPs (SEND, RDMA WRITE) */
};

static int snic_op_lookup(enum ibv_wr_opcode op, struct snic_op_desc *d)
{
	memset(d, 0, sizeof(*d));
	switch (op) {
	case IBV_WR_SEND:
		*d = (struct snic_op_desc){ SNIC_WQE_SEND, IBV_WC_SEND,
			false, false, true, true, false, true };
		return 0;
	case IBV_WR_SEND_WITH_IMM:
		*d = (struct snic_op_desc){ SNIC_WQE_SEND_IMM, IBV_WC_SEND,
			false, false, true, true, true, true };
		return 0;
	case IBV_WR_SEND_WITH_INV:
		*d = (struct snic_op_desc){ SNIC_WQE_SEND_INV, IBV_WC_SEND,
			false, false, true, false, false, false };
		return 0;
	case IBV_WR_RDMA_WRITE:
		*d = (struct snic_op_desc){ SNIC_WQE_RDMA_WRITE,
			IBV_WC_RDMA_WRITE, true, false, true, false, false, true };
		return 0;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		*d = (struct snic_op_desc){ SNIC_WQE_RDMA_WRITE_IMM,
			IBV_WC_RDMA_WRITE, true, false, true, false, true, true };
		return 0;
	case IBV_WR_RDMA_READ:
		*d = (struct snic_op_desc){ SNIC_WQE_RDMA_READ,
			IBV_WC_RDMA_READ, true, false, false, false, false, false };
		return 0;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		*d = (struct snic_op_desc){ SNIC_WQE_ATOMIC_CS,
			IBV_WC_COMP_SWAP, true, true, false, false, false, false };
		return 0;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		*d = (struct snic_op_desc){ SNIC_WQE_ATOMIC_FA,
			IBV_WC_FETCH_ADD, true, true, false, false, false, false };
		return 0;
	case IBV_WR_DRIVER1:	/* custom opcode: snic_put_custom() */
		*d = (struct snic_op_desc){ SNIC_WQE_CUSTOM,
			IBV_WC_DRIVER1, true, false, false, false, false, false };
		return 0;
	case IBV_WR_BIND_MW:	/* snic_put_bind() */
		*d = (struct snic_op_desc){ SNIC_WQE_BIND_MW,
			IBV_WC_BIND_MW, false, false, false, false, false, true };
		return 0;
	case IBV_WR_LOCAL_INV:	/* ctrl.imm: the key */
		*d = (struct snic_op_desc){ SNIC_WQE_LOCAL_INV,
			IBV_WC_LOCAL_INV, false, false, false, true, false, true };
		return 0;
	default:
		return EINVAL;
	}
}

/* Copy the scatter list's bytes after a 4-byte inline header. */
static int snic_put_inline(const struct snic_sq_params *p,
			   const struct ibv_send_wr *wr, uint8_t *seg,
			   unsigned int room, unsigned int *nds)
{
	struct snic_wqe_inline hdr;
	uint8_t *dst = seg + sizeof(hdr);
	uint64_t total = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > p->max_inline || total + sizeof(hdr) > room)
		return ENOMEM;
	for (i = 0; i < wr->num_sge; i++) {
		const struct ibv_sge *s = &wr->sg_list[i];

		memcpy(dst, (const void *)(uintptr_t)s->addr, s->length);
		dst += s->length;
	}
	hdr.byte_count = htole32(SNIC_INLINE_SEG | (uint32_t)total);
	memcpy(seg, &hdr, sizeof(hdr));
	*nds = (sizeof(hdr) + total + SEG - 1) / SEG;
	return 0;
}

/*
 * IBV_WR_DRIVER1, a custom-opcode request (docs/libsnic.md): the opcode
 * is imm_data, sg_list[0] the request, copied now into an inline segment
 * (the buffer needs no MR), and the scatter list that receives the
 * response follows from sg_list[1].  Returns the first response sge.
 */
static int snic_put_custom(const struct ibv_send_wr *wr, uint8_t *seg,
			   unsigned int room, unsigned int *nds, int *first)
{
	uint32_t op = be32toh(wr->imm_data), len;
	struct snic_wqe_inline hdr;

	if (op < SNIC_CUSTOM_OP_FIRST || op > SNIC_CUSTOM_OP_LAST ||
	    wr->num_sge < 1)
		return EINVAL;
	len = wr->sg_list[0].length;
	if (len > SNIC_MAX_RDMA_INLINE || len + sizeof(hdr) > room)
		return EINVAL;
	hdr.byte_count = htole32(SNIC_INLINE_SEG | len);
	memcpy(seg, &hdr, sizeof(hdr));
	memcpy(seg + sizeof(hdr),
	       (const void *)(uintptr_t)wr->sg_list[0].addr, len);
	*nds = (sizeof(hdr) + len + SEG - 1) / SEG;
	*first = 1;
	return 0;
}

/* IBV_WR_BIND_MW: the bind segment (the window's new key and range). */
static void snic_put_bind(const struct ibv_send_wr *wr, uint8_t *seg)
{
	const struct ibv_mw_bind_info *bi = &wr->bind_mw.bind_info;
	struct snic_wqe_bind b;

	memset(&b, 0, sizeof(b));
	b.mw_key = htole32(wr->bind_mw.rkey);
	b.mr_key = htole32(bi->mr ? bi->mr->lkey : 0);
	b.access = htole32(bi->mw_access_flags);
	b.addr = htole64(bi->addr);
	b.length = htole64(bi->length);
	memcpy(seg, &b, sizeof(b));
}

int snic_build_send_wqe(const struct snic_sq_params *p,
			const struct ibv_send_wr *wr, uint16_t wqe_idx,
			void *wqe, struct snic_wqe_info *info)
{
	uint8_t *buf = wqe;
	struct snic_wqe_ctrl *ctrl = wqe;
	struct snic_op_desc d;
	unsigned int ds = 1, nds;
	int i, first = 0;
	bool is_inline = wr->send_flags & IBV_SEND_INLINE;
	bool ud = p->qp_type == IBV_QPT_UD;
	int ret;

	memset(buf, 0, SNIC_WQE_MAX_BYTES);
	if (snic_op_lookup(wr->opcode, &d))
		return EINVAL;
	if ((ud && !d.ud_ok) || (p->qp_type == IBV_QPT_UC && !d.uc_ok))
		return EINVAL;
	/* XRC_SEND: RC's operations but custom ones, for a 16-bit SRQ */
	if (p->qp_type == IBV_QPT_XRC_SEND &&
	    (wr->opcode == IBV_WR_DRIVER1 ||
	     wr->qp_type.xrc.remote_srqn > 0xffff))
		return EINVAL;
	if (wr->num_sge < 0 || (unsigned int)wr->num_sge > p->max_sge)
		return EINVAL;
	if (is_inline && !d.inline_ok)
		return EINVAL;
	/* BIND_MW and LOCAL_INV carry no data segments */
	if ((wr->opcode == IBV_WR_BIND_MW || wr->opcode == IBV_WR_LOCAL_INV) &&
	    wr->num_sge)
		return EINVAL;

	if (ud) {
		struct snic_wqe_ud *u = (void *)(buf + ds * SEG);
		const struct snic_ah *ah;
		uint32_t qkey = wr->wr.ud.remote_qkey;

		if (!wr->wr.ud.ah)
			return EINVAL;
		ah = (const struct snic_ah *)wr->wr.ud.ah;
		u->av = ah->av;
		u->dest_qpn = htole32(wr->wr.ud.remote_qpn & 0xffffff);
		/* A qkey with the top bit set means "use the QP's" (IBA). */
		if (qkey & 0x80000000u)
			qkey = p->qkey;
		u->qkey = htole32(qkey);
		ds += sizeof(*u) / SEG;
		if (ah->av.flags & SNIC_AV_F_IPV6) {
			memcpy(buf + ds * SEG, &ah->ud6, sizeof(ah->ud6));
			ds += sizeof(ah->ud6) / SEG;
		}
	}
	if (d.raddr) {
		struct snic_wqe_raddr *r = (void *)(buf + ds * SEG);

		if (d.atomic) {
			r->addr = htole64(wr->wr.atomic.remote_addr);
			r->rkey = htole32(wr->wr.atomic.rkey);
		} else {
			r->addr = htole64(wr->wr.rdma.remote_addr);
			r->rkey = htole32(wr->wr.rdma.rkey);
		}
		ds++;
	}
	if (d.atomic) {
		struct snic_wqe_atomic *a = (void *)(buf + ds * SEG);

		/* One 8-byte local buffer receives the original value. */
		if (wr->num_sge != 1 || wr->sg_list[0].length != 8)
			return EINVAL;
		if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP) {
			a->swap_add = htole64(wr->wr.atomic.swap);
			a->compare = htole64(wr->wr.atomic.compare_add);
		} else {
			a->swap_add = htole64(wr->wr.atomic.compare_add);
		}
		ds++;
	}

	if (wr->opcode == IBV_WR_BIND_MW) {
		snic_put_bind(wr, buf + ds * SEG);
		ds += sizeof(struct snic_wqe_bind) / SEG;
	}
	if (wr->opcode == IBV_WR_DRIVER1) {
		ret = snic_put_custom(wr, buf + ds * SEG,
				      SNIC_WQE_MAX_BYTES - ds * SEG, &nds, &first);
		if (ret)
			return ret;
		ds += nds;
	}
	if (is_inline) {
		ret = snic_put_inline(p, wr, buf + ds * SEG,
				      SNIC_WQE_MAX_BYTES - ds * SEG, &nds);
		if (ret)
			return ret;
		ds += nds;
	} else {
		for (i = first; i < wr->num_sge; i++) {
			const struct ibv_sge *s = &wr->sg_list[i];
			struct snic_wqe_data *dseg;

			/* Zero-length entries move no data: leave them out. */
			if (!s->length)
				continue;
			if (ds >= SNIC_WQE_MAX_DS)
				return EINVAL;
			dseg = (void *)(buf + ds * SEG);
			dseg->byte_count = htole32(s->length);
			dseg->lkey = htole32(s->lkey);
			dseg->addr = htole64(s->addr);
			ds++;
		}
	}

	ctrl->opcode = d.wqe_opcode;
	ctrl->wqe_idx = htole16(wqe_idx);
	if (p->qp_type == IBV_QPT_XRC_SEND)
		ctrl->xrc_srqn = htole16(wr->qp_type.xrc.remote_srqn);
	ctrl->ds_cnt = ds;
	if (d.imm || wr->opcode == IBV_WR_DRIVER1)
		ctrl->imm = wr->imm_data;	/* already big endian */
	else if (wr->opcode == IBV_WR_SEND_WITH_INV ||
		 wr->opcode == IBV_WR_LOCAL_INV)
		ctrl->imm = htobe32(wr->invalidate_rkey);
	info->signaled = p->sig_all || (wr->send_flags & IBV_SEND_SIGNALED);
	if (info->signaled)
		ctrl->flags |= SNIC_WQE_F_SIGNAL;
	if (wr->send_flags & IBV_SEND_SOLICITED)
		ctrl->flags |= SNIC_WQE_F_SOLICITED;
	if (wr->send_flags & IBV_SEND_FENCE)
		ctrl->flags |= SNIC_WQE_F_FENCE;
	if (is_inline)
		ctrl->flags |= SNIC_WQE_F_INLINE;
	info->nbb = (ds + 3) / 4;
	info->wc_opcode = d.wc_opcode;
	return 0;
}

unsigned int snic_recv_max_sge(unsigned int log_stride)
{
	unsigned int n;

	if (log_stride < 5 || log_stride > 8)
		return 0;
	n = ((1u << log_stride) - SNIC_RECV_HDR_SIZE) /
	    sizeof(struct snic_wqe_data);
	return n > SNIC_MAX_SGE ? SNIC_MAX_SGE : n;
}

int snic_build_recv_wqe(void *slot, unsigned int log_stride,
			const struct ibv_recv_wr *wr)
{
	struct snic_recv_hdr *hdr = slot;
	struct snic_wqe_data *dseg = (void *)(hdr + 1);
	unsigned int n = 0;
	int i;

	if (wr->num_sge < 0 ||
	    (unsigned int)wr->num_sge > snic_recv_max_sge(log_stride))
		return EINVAL;
	for (i = 0; i < wr->num_sge; i++) {
		const struct ibv_sge *s = &wr->sg_list[i];

		if (!s->length)
			continue;
		dseg[n].byte_count = htole32(s->length);
		dseg[n].lkey = htole32(s->lkey);
		dseg[n].addr = htole64(s->addr);
		n++;
	}
	hdr->cookie = htole64(wr->wr_id);
	hdr->num_sge = htole16(n);
	memset(hdr->rsvd, 0, sizeof(hdr->rsvd));
	return 0;
}

enum ibv_wc_status snic_wc_status(uint8_t syndrome)
{
	switch (syndrome) {
	case SNIC_RST_OK:		return IBV_WC_SUCCESS;
	case SNIC_RST_LOC_LEN:		return IBV_WC_LOC_LEN_ERR;
	case SNIC_RST_LOC_QP_OP:	return IBV_WC_LOC_QP_OP_ERR;
	case SNIC_RST_LOC_PROT:		return IBV_WC_LOC_PROT_ERR;
	case SNIC_RST_WR_FLUSH:		return IBV_WC_WR_FLUSH_ERR;
	case SNIC_RST_BAD_RESP:		return IBV_WC_BAD_RESP_ERR;
	case SNIC_RST_LOC_ACCESS:	return IBV_WC_LOC_ACCESS_ERR;
	case SNIC_RST_REM_INV_REQ:	return IBV_WC_REM_INV_REQ_ERR;
	case SNIC_RST_REM_ACCESS:	return IBV_WC_REM_ACCESS_ERR;
	case SNIC_RST_REM_OP:		return IBV_WC_REM_OP_ERR;
	case SNIC_RST_RETRY_EXC:	return IBV_WC_RETRY_EXC_ERR;
	case SNIC_RST_RNR_RETRY_EXC:	return IBV_WC_RNR_RETRY_EXC_ERR;
	case SNIC_RST_MW_BIND:		return IBV_WC_MW_BIND_ERR;
	default:			return IBV_WC_GENERAL_ERR;
	}
}

enum ibv_wc_opcode snic_wc_send_opcode(uint8_t wqe_opcode)
{
	switch (wqe_opcode) {
	case SNIC_WQE_RDMA_WRITE:
	case SNIC_WQE_RDMA_WRITE_IMM:	return IBV_WC_RDMA_WRITE;
	case SNIC_WQE_RDMA_READ:	return IBV_WC_RDMA_READ;
	case SNIC_WQE_ATOMIC_CS:	return IBV_WC_COMP_SWAP;
	case SNIC_WQE_ATOMIC_FA:	return IBV_WC_FETCH_ADD;
	case SNIC_WQE_LOCAL_INV:	return IBV_WC_LOCAL_INV;
	case SNIC_WQE_BIND_MW:		return IBV_WC_BIND_MW;
	default:			return IBV_WC_SEND;
	}
}

void snic_wc_from_recv_cqe(struct ibv_wc *wc, const struct snic_cqe *cqe)
{
	uint8_t rf = cqe->rdma_flags;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = le64toh(cqe->cookie);
	wc->qp_num = le32toh(cqe->rdma_qpn);
	if (cqe->opcode == SNIC_CQE_RECV_ERR) {
		wc->status = snic_wc_status(cqe->syndrome);
		if (wc->status == IBV_WC_SUCCESS)
			wc->status = IBV_WC_GENERAL_ERR;
		wc->vendor_err = cqe->syndrome;
		wc->opcode = IBV_WC_RECV;
		return;
	}
	wc->status = IBV_WC_SUCCESS;
	wc->opcode = cqe->wqe_opcode == SNIC_WQE_RDMA_WRITE_IMM ?
		     IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
	wc->byte_len = le32toh(cqe->byte_cnt);
	wc->src_qp = le32toh(cqe->src_qpn) & 0xffffff;
	if (rf & SNIC_CQE_RF_IMM) {
		wc->wc_flags |= IBV_WC_WITH_IMM;
		wc->imm_data = cqe->imm;	/* network order, as verbs wants */
	} else if (rf & SNIC_CQE_RF_INV) {
		wc->wc_flags |= IBV_WC_WITH_INV;
		wc->invalidated_rkey = be32toh(cqe->imm);
	}
	if (rf & SNIC_CQE_RF_GRH)
		wc->wc_flags |= IBV_WC_GRH;
}
