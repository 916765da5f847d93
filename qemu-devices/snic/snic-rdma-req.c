/*
 * snic: RDMA requester - send WQE fetch and validation, REG_MR/LOCAL_INV,
 * packetisation (headers built here, payload DMA'd straight from the MR
 * into the frame), go-back-N retransmission from a PSN; it sends within
 * the budget the RDMA bottom half (snic-rdma-main.c) gives it.
 * docs/snic-rdma.md "Send WQE", "Reliability".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "snic.h"

/* ---- WQE fetch ---- */

static bool snic_wqe_opcode_ok(SnicQp *qp, uint8_t op)
{
    switch (op) {
    case SNIC_WQE_NOP:
    case SNIC_WQE_SEND:
    case SNIC_WQE_SEND_IMM:
    case SNIC_WQE_REG_MR:
    case SNIC_WQE_LOCAL_INV:
        return true;
    case SNIC_WQE_BIND_MW:
    case SNIC_WQE_RDMA_WRITE:
    case SNIC_WQE_RDMA_WRITE_IMM:
        return snic_qp_connected(qp);
    case SNIC_WQE_SEND_INV:
    case SNIC_WQE_RDMA_READ:
    case SNIC_WQE_ATOMIC_CS:
    case SNIC_WQE_ATOMIC_FA:
        return snic_qp_reliable(qp);
    case SNIC_WQE_CUSTOM:
        return qp->type == SNIC_QPT_RC;
    default:
        return false;
    }
}

/* Parse the data part of a WQE (segments from @seg on); status. */
static uint8_t snic_wqe_data(SnicState *s, SnicQp *qp, SnicSwqe *w,
                             const uint8_t *segs, unsigned seg,
                             unsigned ds_cnt)
{
    bool scatter = w->opcode == SNIC_WQE_RDMA_READ ||
                   w->opcode == SNIC_WQE_ATOMIC_CS ||
                   w->opcode == SNIC_WQE_ATOMIC_FA ||
                   w->opcode == SNIC_WQE_CUSTOM;
    unsigned i;

    w->len = 0;
    if (w->flags & SNIC_WQE_F_INLINE) {
        uint32_t bc;

        if (scatter || seg >= ds_cnt) {
            return SNIC_RST_LOC_QP_OP;
        }
        bc = ldl_le_p(segs + 16 * seg);
        if (!(bc & SNIC_INLINE_SEG)) {
            return SNIC_RST_LOC_QP_OP;
        }
        bc &= ~SNIC_INLINE_SEG;
        if (bc > SNIC_MAX_RDMA_INLINE || seg * 16 + 4 + bc > ds_cnt * 16) {
            return SNIC_RST_LOC_LEN;
        }
        w->inl = true;
        memcpy(w->inl_data, segs + 16 * seg + 4, bc);
        w->len = bc;
        return SNIC_RST_OK;
    }
    if (ds_cnt - seg > SNIC_MAX_SGE) {
        return SNIC_RST_LOC_QP_OP;
    }
    w->nsge = ds_cnt - seg;
    for (i = 0; i < w->nsge; i++) {
        const struct snic_wqe_data *d = (const void *)(segs + 16 * (seg + i));

        w->sge[i].len = le32_to_cpu(d->byte_count);
        w->sge[i].lkey = le32_to_cpu(d->lkey);
        w->sge[i].addr = le64_to_cpu(d->addr);
        w->len += w->sge[i].len;
    }
    if (w->len > SNIC_MAX_MSG_SIZE) {
        return SNIC_RST_LOC_LEN;
    }
    for (i = 0; i < w->nsge; i++) {
        SnicMr *mr;

        if (!snic_rdma_key_ok(s, qp, w->sge[i].lkey, w->sge[i].addr,
                              w->sge[i].len,
                              scatter ? SNIC_ACCESS_LOCAL_WRITE : 0, false,
                              &mr)) {
            return SNIC_RST_LOC_PROT;
        }
    }
    return SNIC_RST_OK;
}

/*
 * CUSTOM: the custom opcode (ctrl.imm) and the request, an inline segment
 * at segment @seg; *seg moves past it.  Status.
 */
static uint8_t snic_wqe_custom(SnicSwqe *w, const uint8_t *segs,
                               unsigned *seg, unsigned ds_cnt)
{
    uint32_t bc;

    if (w->imm < SNIC_CUSTOM_OP_FIRST || w->imm > SNIC_CUSTOM_OP_LAST ||
        (w->flags & SNIC_WQE_F_INLINE) || *seg >= ds_cnt) {
        return SNIC_RST_LOC_QP_OP;
    }
    bc = ldl_le_p(segs + 16 * *seg);
    if (!(bc & SNIC_INLINE_SEG)) {
        return SNIC_RST_LOC_QP_OP;
    }
    bc &= ~SNIC_INLINE_SEG;
    if (bc > SNIC_MAX_RDMA_INLINE || *seg * 16 + 4 + bc > ds_cnt * 16) {
        return SNIC_RST_LOC_LEN;
    }
    memcpy(w->inl_data, segs + 16 * *seg + 4, bc);
    w->req_len = bc;
    *seg += DIV_ROUND_UP(4 + bc, 16);
    return SNIC_RST_OK;
}

/* Fill @w from the WQE in @segs; returns the status it completes with. */
static uint8_t snic_wqe_parse(SnicState *s, SnicQp *qp, SnicSwqe *w,
                              const uint8_t *segs, unsigned ds_cnt)
{
    const struct snic_wqe_ctrl *ctrl = (const void *)segs;
    unsigned seg = 1;
    uint8_t st;

    w->opcode = ctrl->opcode;
    w->flags = ctrl->flags;
    w->imm = be32_to_cpu(ctrl->imm);
    w->xrc_srqn = le16_to_cpu(ctrl->xrc_srqn);
    if (!snic_wqe_opcode_ok(qp, w->opcode)) {
        return SNIC_RST_LOC_QP_OP;
    }
    switch (w->opcode) {
    case SNIC_WQE_NOP:
        w->local = true;
        return SNIC_RST_OK;
    case SNIC_WQE_LOCAL_INV:
        w->local = true;
        return snic_rdma_invalidate(s, qp, w->imm);
    case SNIC_WQE_REG_MR: {
        struct snic_wqe_reg r;

        w->local = true;
        if (ds_cnt < 4) {
            return SNIC_RST_LOC_QP_OP;
        }
        memcpy(&r, segs + 16, sizeof(r));
        return snic_rdma_fast_reg(s, qp, &r);
    }
    case SNIC_WQE_BIND_MW: {
        struct snic_wqe_bind b;

        w->local = true;
        if (ds_cnt < 3) {
            return SNIC_RST_LOC_QP_OP;
        }
        memcpy(&b, segs + 16, sizeof(b));
        return snic_mw_bind(s, qp, &b);
    }
    default:
        break;
    }
    if (!snic_qp_connected(qp)) {
        struct snic_wqe_ud ud;

        if (ds_cnt < 4) {
            return SNIC_RST_LOC_QP_OP;
        }
        memcpy(&ud, segs + 16, sizeof(ud));
        w->av = ud.av;
        seg = 4;
        if ((w->av.flags & ~SNIC_AV_F_ALL) || snic_rdma_av_vid(&w->av) > 4094) {
            return SNIC_RST_LOC_QP_OP;
        }
        if (w->av.flags & SNIC_AV_F_IPV6) {
            /* the struct snic_wqe_ud6 segment with the addresses */
            if (ds_cnt < 6) {
                return SNIC_RST_LOC_QP_OP;
            }
            memcpy(w->sip6, segs + 64, 16);
            memcpy(w->dip6, segs + 80, 16);
            seg = 6;
        }
        st = snic_rdma_src_fill(s, qp, &w->av, w->sip6);
        if (st != SNIC_RST_OK) {
            return st;
        }
        w->dest_qpn = le32_to_cpu(ud.dest_qpn) & ROCE_PSN_MASK;
        w->qkey = le32_to_cpu(ud.qkey);
        if (w->qkey & 0x80000000u) {
            w->qkey = qp->qkey;
        }
    }
    if (w->opcode >= SNIC_WQE_RDMA_WRITE) {
        const struct snic_wqe_raddr *ra = (const void *)(segs + 16);

        if (ds_cnt < 2) {
            return SNIC_RST_LOC_QP_OP;
        }
        w->raddr = le64_to_cpu(ra->addr);
        w->rkey = le32_to_cpu(ra->rkey);
        seg = 2;
    }
    if (w->opcode == SNIC_WQE_ATOMIC_CS || w->opcode == SNIC_WQE_ATOMIC_FA) {
        const struct snic_wqe_atomic *at = (const void *)(segs + 32);

        if (ds_cnt < 4) {
            return SNIC_RST_LOC_QP_OP;
        }
        w->swap_add = le64_to_cpu(at->swap_add);
        w->compare = le64_to_cpu(at->compare);
        seg = 3;
    }
    if (w->opcode == SNIC_WQE_CUSTOM) {
        st = snic_wqe_custom(w, segs, &seg, ds_cnt);
        if (st) {
            return st;
        }
    }
    st = snic_wqe_data(s, qp, w, segs, seg, ds_cnt);
    if (st) {
        return st;
    }
    if (w->opcode == SNIC_WQE_CUSTOM &&
        (w->len > SNIC_CUSTOM_RESP_MAX || w->req_len > qp->mtu)) {
        return SNIC_RST_LOC_LEN;
    }
    if ((w->opcode == SNIC_WQE_ATOMIC_CS || w->opcode == SNIC_WQE_ATOMIC_FA) &&
        (w->len != 8 || w->nsge != 1)) {
        return SNIC_RST_LOC_LEN;
    }
    if (!snic_qp_connected(qp) && w->len > snic_rdma_ud_mtu(s, &w->av)) {
        return SNIC_RST_LOC_LEN;
    }
    return SNIC_RST_OK;
}

static uint32_t snic_wqe_npkts(SnicQp *qp, SnicSwqe *w)
{
    switch (w->opcode) {
    case SNIC_WQE_ATOMIC_CS:
    case SNIC_WQE_ATOMIC_FA:
        return 1;
    default:
        return w->len ? DIV_ROUND_UP(w->len, qp->mtu) : 1;
    }
}

unsigned snic_rdma_req_take(SnicState *s, SnicQp *qp, const uint8_t *segs,
                            unsigned avail)
{
    const struct snic_wqe_ctrl *ctrl = (const void *)segs;
    SnicSwqe *w = &qp->win[qp->win_tail % SNIC_RDMA_WIN];
    unsigned ds_cnt = ctrl->ds_cnt, nbb = DIV_ROUND_UP(ds_cnt, 4);

    /* timing mode: the WQE is read before its data */
    d2d_timing_sync(&s->timing);
    memset(w, 0, offsetof(SnicSwqe, sge));
    w->idx = qp->sq_fetch;
    if (ds_cnt == 0 || ds_cnt > SNIC_WQE_MAX_DS || nbb > avail) {
        /* unknown extent: one basic block */
        if (qp->flags & SNIC_QP_F_PIPE) {
            snic_pipe_sq_bad_extent(s, qp);
        }
        w->nbb = 1;
        w->opcode = ctrl->opcode;
        w->status = SNIC_RST_LOC_QP_OP;
    } else {
        w->nbb = nbb;
        w->status = snic_wqe_parse(s, qp, w, segs, ds_cnt);
    }
    if (!w->status && !w->local && qp->win_tail != qp->win_head &&
        snic_psn_diff(qp->next_psn + snic_wqe_npkts(qp, w),
                      qp->comp_psn) > (1 << 22)) {
        /*
         * PSN comparisons need the window's PSNs within 2^23: a huge
         * message waits until the ones before it are done.  Parsing
         * had no side effect (REG_MR/LOCAL_INV are local).
         */
        return 0;
    }
    qp->sq_fetch += w->nbb;
    if (w->status) {
        qemu_log_mask(LOG_GUEST_ERROR, "snic: qp %u: WQE %u: status %u\n",
                      qp->qpn, w->idx, w->status);
        w->local = true;
        qp->fetch_blocked = true;
    } else if (!w->local) {
        w->mtu = qp->mtu;
        w->first_psn = qp->next_psn;
        w->npkts = snic_qp_connected(qp) ? snic_wqe_npkts(qp, w) : 1;
        qp->next_psn = (qp->next_psn + w->npkts) & ROCE_PSN_MASK;
    }
    qp->win_tail++;
    return w->nbb;
}

/*
 * Is there a WQE at sq_fetch?  Doorbell QP: the producer says so (*avail
 * basic blocks posted), *first = 0.  Pipe QP: its first basic block is in
 * @segs with the right phase (*first = 1); a bad element fails the QP.
 */
static bool snic_req_posted(SnicState *s, SnicQp *qp, uint8_t *segs,
                            uint16_t *avail, unsigned *first)
{
    uint8_t st;
    int r;

    if (qp->flags & SNIC_QP_F_SSQ) {
        return false;       /* its WQEs come through its core's SSQs */
    }
    if (!(qp->flags & SNIC_QP_F_PIPE)) {
        *avail = qp->sq_pi - qp->sq_fetch;
        *first = 0;
        if (*avail && qp->mmio_valid && qp->mmio_idx == qp->sq_fetch) {
            /* WQE-by-MMIO: its first basic block came with the doorbell */
            memcpy(segs, qp->mmio_bb, SNIC_WQEBB_SIZE);
            qp->mmio_valid = false;
            s->rdma.st.wqe_fetch_saved++;
            *first = 1;
        } else if (qp->mmio_valid &&
                   (uint16_t)(qp->mmio_idx - qp->sq_fetch) >=
                   QP_SQ_SIZE(qp)) {
            qp->mmio_valid = false;     /* behind the fetch: stale */
        }
        return *avail != 0;
    }
    r = snic_pipe_sq_peek(s, qp, segs, &st);
    if (r < 0) {
        snic_rdma_qp_error(s, qp, st, false);
    }
    *avail = MIN(SNIC_WQE_MAX_BBS, QP_SQ_SIZE(qp));
    *first = 1;
    return r > 0;
}

/* Fetch new WQEs into the window while the QP may start them. */
static void snic_req_fetch(SnicState *s, SnicQp *qp)
{
    uint8_t segs[SNIC_WQE_MAX_BBS * SNIC_WQEBB_SIZE];
    uint16_t avail;
    unsigned first;

    while (qp->state == SNIC_QPS_RTS && !qp->fetch_blocked &&
           qp->win_tail - qp->win_head < SNIC_RDMA_WIN &&
           snic_req_posted(s, qp, segs, &avail, &first)) {
        const struct snic_wqe_ctrl *ctrl = (const void *)segs;
        unsigned nbb = 1, i;

        for (i = first; i < SNIC_WQE_MAX_BBS &&
             snic_wqe_bb_wanted(ctrl, i, avail, &nbb); i++) {
            if (d2d_dma_read(&s->parent_obj, &s->pcie, &qp->pcie,
                             qp->sq_ring + (uint64_t)((qp->sq_fetch + i) &
                             (QP_SQ_SIZE(qp) - 1)) * SNIC_WQEBB_SIZE,
                             segs + i * SNIC_WQEBB_SIZE, SNIC_WQEBB_SIZE)
                != MEMTX_OK) {
                s->stats.dma_errs++;
                snic_rdma_qp_error(s, qp, SNIC_RST_GENERAL, false);
                return;
            }
        }
        if (!snic_rdma_req_take(s, qp, segs, avail)) {
            return;
        }
        if ((qp->flags & SNIC_QP_F_PIPE) && !(qp->flags & SNIC_QP_F_SSQ)) {
            snic_pipe_sq_consumed(s, qp);
        }
    }
}

/* ---- packetisation ---- */

static bool snic_is_rd_atomic(const SnicSwqe *w)
{
    return w->opcode == SNIC_WQE_RDMA_READ ||
           w->opcode == SNIC_WQE_ATOMIC_CS ||
           w->opcode == SNIC_WQE_ATOMIC_FA || w->opcode == SNIC_WQE_CUSTOM;
}

/* May window entry @n start now (max_rd_atomic, fence)? */
static bool snic_req_may_start(SnicQp *qp, uint32_t n)
{
    SnicSwqe *w = &qp->win[n % SNIC_RDMA_WIN];
    uint32_t i, busy = 0;

    if (!snic_is_rd_atomic(w) && !(w->flags & SNIC_WQE_F_FENCE)) {
        return true;
    }
    for (i = qp->win_head; i != n; i++) {
        SnicSwqe *p = &qp->win[i % SNIC_RDMA_WIN];

        /* earlier READ/atomics still waiting for their responses */
        if (snic_is_rd_atomic(p) && !p->local &&
            snic_psn_diff(qp->comp_psn, p->first_psn + p->npkts) < 0) {
            busy++;
        }
    }
    if ((w->flags & SNIC_WQE_F_FENCE) && busy) {
        return false;
    }
    return !snic_is_rd_atomic(w) || busy < MAX(1, qp->max_rd_atomic);
}

/*
 * BTH opcode of a SEND or WRITE packet by its place in the message:
 * [0] first, [1] middle, [2] last, [3] only.
 */
static uint8_t snic_send_opcode(const SnicSwqe *w, bool first, bool last)
{
    static const uint8_t op[][4] = {
        [SNIC_WQE_SEND] = { ROCE_SEND_FIRST, ROCE_SEND_MIDDLE,
                            ROCE_SEND_LAST, ROCE_SEND_ONLY },
        [SNIC_WQE_SEND_IMM] = { ROCE_SEND_FIRST, ROCE_SEND_MIDDLE,
                                ROCE_SEND_LAST_IMM, ROCE_SEND_ONLY_IMM },
        [SNIC_WQE_SEND_INV] = { ROCE_SEND_FIRST, ROCE_SEND_MIDDLE,
                                ROCE_SEND_LAST_INV, ROCE_SEND_ONLY_INV },
        [SNIC_WQE_RDMA_WRITE] = { ROCE_WRITE_FIRST, ROCE_WRITE_MIDDLE,
                                  ROCE_WRITE_LAST, ROCE_WRITE_ONLY },
        [SNIC_WQE_RDMA_WRITE_IMM] = { ROCE_WRITE_FIRST, ROCE_WRITE_MIDDLE,
                                      ROCE_WRITE_LAST_IMM,
                                      ROCE_WRITE_ONLY_IMM },
    };
    unsigned pos = first && last ? 3 : first ? 0 : last ? 2 : 1;

    if (w->opcode >= ARRAY_SIZE(op) || !op[w->opcode][3]) {
        return ROCE_SEND_ONLY;
    }
    return op[w->opcode][pos];
}

/*
 * The PSNs a READ/atomic/custom request sent at qp->tx_psn covers.  After
 * a retransmit timeout (qp->probe) a READ asks for the first missing
 * response only, the rest once that one came: the whole rest again on
 * every expiry could lose its first response every time under periodic
 * loss (a rest of 3k responses with every 3rd frame dropped).
 */
static uint32_t snic_req_rd_pkts(SnicQp *qp, const SnicSwqe *w)
{
    uint32_t rest = w->first_psn + w->npkts - qp->tx_psn;

    rest &= ROCE_PSN_MASK;
    return qp->probe && w->opcode == SNIC_WQE_RDMA_READ ? MIN(rest, 1) : rest;
}

/*
 * Send the packet of WQE @w at PSN qp->tx_psn.  Returns false if the WQE
 * failed locally (then w->status is set).
 */
static bool snic_req_packet(SnicState *s, SnicQp *qp, SnicSwqe *w)
{
    uint8_t *f = s->rdma.frame;
    int32_t k = snic_psn_diff(qp->tx_psn, w->first_psn);
    uint64_t off = (uint64_t)k * w->mtu;
    const uint8_t *src = NULL;
    SnicRoceHdr h;
    size_t hl, len = 0;
    bool last = true;

    if (k < 0 || k >= (int32_t)w->npkts || off > w->len) {
        w->status = SNIC_RST_GENERAL;   /* cannot happen: PSN bookkeeping */
        return false;
    }
    snic_rdma_hdr_init(s, qp, &h, 0, qp->tx_psn);
    switch (w->opcode) {
    case SNIC_WQE_RDMA_READ:
        h.opcode = ROCE_READ_REQ;
        h.va = w->raddr + off;
        h.rkey = w->rkey;
        h.dlen = MIN(w->len - off, (uint64_t)snic_req_rd_pkts(qp, w) * w->mtu);
        h.ackreq = true;
        break;
    case SNIC_WQE_ATOMIC_CS:
    case SNIC_WQE_ATOMIC_FA:
        h.opcode = w->opcode == SNIC_WQE_ATOMIC_CS ? ROCE_CMP_SWAP :
                   ROCE_FETCH_ADD;
        h.va = w->raddr;
        h.rkey = w->rkey;
        h.swap_add = w->swap_add;
        h.compare = w->compare;
        h.ackreq = true;
        break;
    case SNIC_WQE_CUSTOM:
        /* from the middle (a rewind): the rest of the response */
        h.opcode = w->imm;
        h.va = w->raddr;
        h.rkey = w->rkey;
        h.dlen = w->len - off;
        h.ackreq = true;
        len = w->req_len;
        src = w->inl_data;
        break;
    default:
        /* UD messages were checked against the port MTU at fetch */
        len = snic_qp_connected(qp) ? MIN(w->mtu, w->len - off) : w->len;
        last = off + len >= w->len;
        h.opcode = snic_send_opcode(w, k == 0, last);
        if (qp->type == SNIC_QPT_UC) {
            h.opcode |= ROCE_OP_UC;
        } else if (!snic_qp_connected(qp)) {
            h.opcode = w->opcode == SNIC_WQE_SEND_IMM ?
                       ROCE_UD_SEND_ONLY_IMM : ROCE_UD_SEND_ONLY;
            memcpy(h.dmac, w->av.dmac, 6);
            memcpy(h.smac, w->av.smac, 6);
            if (w->av.flags & SNIC_AV_F_IPV6) {
                h.v6 = true;
                memcpy(h.sip6, w->sip6, 16);
                memcpy(h.dip6, w->dip6, 16);
            } else {
                h.sip = be32_to_cpu(w->av.sip);
                h.dip = be32_to_cpu(w->av.dip);
            }
            h.vlan = w->av.flags & SNIC_AV_F_VLAN;
            h.vlan_tci = h.vlan ? le16_to_cpu(w->av.vlan_tci) : 0;
            h.ttl = w->av.ttl;
            h.tos = w->av.tos;
            h.sport = le16_to_cpu(w->av.udp_sport);
            h.dqpn = w->dest_qpn;
            h.qkey = w->qkey;
            h.sqpn = qp->qpn;
        }
        h.va = w->raddr;
        h.rkey = w->rkey;
        h.dlen = w->len;
        h.imm = w->imm;
        h.ieth = w->imm;
        h.se = last && (w->flags & SNIC_WQE_F_SOLICITED);
        /* at least two ACKs per window keep it moving; UC has none */
        h.ackreq = qp->type != SNIC_QPT_UC &&
                   (last || qp->probe || ++qp->pkts_since_ack >=
                    MIN(SNIC_RDMA_ACK_EVERY, snic_rdma_cc_window(s, qp) / 2));
        break;
    }
    if (h.ackreq) {
        qp->pkts_since_ack = 0;
    }
    snic_rdma_hdr_xrc(qp, &h, w->xrc_srqn);
    hl = snic_roce_build(f, &h, len);
    if (len) {
        uint8_t st = SNIC_RST_OK;

        if (src) {
            memcpy(f + hl, src, len);
        } else if (w->inl) {
            memcpy(f + hl, w->inl_data + off, len);
        } else {
            st = snic_rdma_sg_copy(s, qp, w->sge, w->nsge, off, f + hl, len,
                                   false);
        }
        if (st) {
            w->status = st;
            return false;
        }
    }
    len = snic_roce_finish(f, &h, len);
    snic_rdma_xmit(s, qp, &h, f, len);
    snic_rdma_cc_sent(s, qp, len);
    return true;
}

/* Window counter of the WQE holding @psn (tail if none). */
static uint32_t snic_req_find(SnicQp *qp, uint32_t psn)
{
    uint32_t i;

    for (i = qp->win_head; i != qp->win_tail; i++) {
        SnicSwqe *w = &qp->win[i % SNIC_RDMA_WIN];

        if (!w->local && snic_psn_diff(psn, w->first_psn + w->npkts) < 0) {
            return i;
        }
    }
    return qp->win_tail;
}

/* Go back: send again from @psn. */
static void snic_req_rewind(SnicQp *qp, uint32_t psn)
{
    qp->tx_psn = psn & ROCE_PSN_MASK;
    qp->tx_wqe = snic_req_find(qp, psn);
    qp->pkts_since_ack = 0;
}

/* Send the packet at comp_psn once more (loss probe). */
static void snic_req_probe(SnicState *s, SnicQp *qp)
{
    uint32_t tx_psn = qp->tx_psn, tx_wqe = qp->tx_wqe;
    bool probe = qp->probe;
    SnicSwqe *w;

    qp->tx_wqe = snic_req_find(qp, qp->comp_psn);
    if (qp->tx_wqe == qp->win_tail) {
        qp->tx_wqe = tx_wqe;
        return;
    }
    w = &qp->win[qp->tx_wqe % SNIC_RDMA_WIN];
    /* a READ from the middle asks for the rest, as after a rewind */
    qp->tx_psn = snic_psn_diff(qp->comp_psn, w->first_psn) < 0 ?
                 w->first_psn : qp->comp_psn;
    /*
     * AckReq (a READ has it anyway: it asks for the rest as after a
     * rewind, one response only after a timeout as in snic_req_rd_pkts)
     */
    qp->probe = probe || w->opcode != SNIC_WQE_RDMA_READ;
    if (snic_req_packet(s, qp, w)) {
        s->rdma.st.retransmits++;
        qp->cnt.retransmits++;
    }
    /* a data DMA failure shows again when the packet is sent normally */
    w->status = SNIC_RST_OK;
    qp->probe = probe;
    qp->tx_psn = tx_psn;
    qp->tx_wqe = tx_wqe;
}

/*
 * The completer's requests, in the order it can make them: a rewind to
 * the oldest unacknowledged PSN, then a loss probe unless an RNR NAK
 * came since the probe timer asked for it.
 */
static void snic_req_asked(SnicState *s, SnicQp *qp)
{
    uint8_t ask = qp->req_ask;

    qp->req_ask = 0;
    if (ask & SNIC_REQ_REWIND) {
        snic_req_rewind(qp, qp->comp_psn);
    }
    if ((ask & SNIC_REQ_PROBE) && !qp->rnr_wait) {
        snic_req_probe(s, qp);
    }
}

bool snic_rdma_req_run(SnicState *s, SnicQp *qp, int *budget)
{
    bool rc = snic_qp_reliable(qp), conn = snic_qp_connected(qp);

    if (!snic_qp_has_sq(qp)) {
        return false;
    }
    snic_req_asked(s, qp);
    snic_req_fetch(s, qp);
    if (qp->rnr_wait) {
        return false;
    }
    while (qp->tx_wqe != qp->win_tail &&
           (qp->state == SNIC_QPS_RTS || qp->state == SNIC_QPS_SQD)) {
        SnicSwqe *w = &qp->win[qp->tx_wqe % SNIC_RDMA_WIN];
        bool fresh;

        if (w->local || (!rc && w->sent)) {
            qp->tx_wqe++;
            continue;
        }
        if (*budget <= 0) {
            return true;
        }
        if (rc && snic_psn_diff(qp->tx_psn, qp->comp_psn) >=
            (qp->probe ? 1 : snic_rdma_cc_window(s, qp))) {
            break;
        }
        if (rc && !snic_rdma_cc_may_send(s, qp)) {
            break;              /* paced: the QP is kicked when it may */
        }
        fresh = qp->tx_psn == w->first_psn;
        if (fresh && !snic_req_may_start(qp, qp->tx_wqe)) {
            break;
        }
        if (!snic_req_packet(s, qp, w)) {
            /* data DMA failed: this WQE completes in error */
            w->local = true;
            qp->fetch_blocked = true;
            qp->tx_wqe++;
            break;
        }
        (*budget)--;
        if (snic_psn_diff(qp->tx_psn, qp->max_sent) < 0) {
            s->rdma.st.retransmits++;
            qp->cnt.retransmits++;
        }
        if (!conn) {
            qp->tx_psn = (w->first_psn + w->npkts) & ROCE_PSN_MASK;
        } else if (snic_is_rd_atomic(w)) {
            qp->tx_psn = (qp->tx_psn + snic_req_rd_pkts(qp, w)) &
                         ROCE_PSN_MASK;
        } else {
            qp->tx_psn = (qp->tx_psn + 1) & ROCE_PSN_MASK;
        }
        if (snic_psn_diff(qp->tx_psn, qp->max_sent) > 0) {
            qp->max_sent = qp->tx_psn;
        }
        if (snic_psn_diff(qp->tx_psn, w->first_psn + w->npkts) >= 0) {
            w->sent = true;
            qp->tx_wqe++;
        }
    }
    if (rc) {
        snic_rdma_timer_update(s, qp);
    }
    return false;
}
