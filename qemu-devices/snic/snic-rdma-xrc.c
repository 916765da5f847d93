/*
 * snic: RDMA extended reliable connected transport (XRC) - XRC domains,
 * the domain and CQ of an XRC SRQ, the XRC domain of an XRC_TGT QP and the
 * XRC SRQ each of its requests names in its XRCETH (checked against that
 * domain), the XRC opcodes and XRCETH of an XRC QP's packets.
 * docs/snic-rdma.md "XRC".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "snic.h"

static SnicXrcd *snic_xrcd(SnicState *s, uint32_t xrcdn)
{
    return xrcdn < SNIC_MAX_XRCDS && s->rdma.xrcds[xrcdn].valid ?
           &s->rdma.xrcds[xrcdn] : NULL;
}

uint16_t snic_xrcd_create(SnicState *s, uint64_t *res)
{
    uint32_t i;

    for (i = 0; i < SNIC_MAX_XRCDS && s->rdma.xrcds[i].valid; i++) {
        continue;
    }
    if (i == SNIC_MAX_XRCDS) {
        return SNIC_AQ_ENOSPC;
    }
    s->rdma.xrcds[i] = (SnicXrcd){ .valid = true };
    *res = i;
    return SNIC_AQ_OK;
}

uint16_t snic_xrcd_destroy(SnicState *s, uint32_t xrcdn)
{
    SnicXrcd *x = snic_xrcd(s, xrcdn);

    if (!x) {
        return SNIC_AQ_ENOENT;
    }
    if (x->refs) {
        return SNIC_AQ_EBUSY;
    }
    x->valid = false;
    return SNIC_AQ_OK;
}

uint16_t snic_xrc_srq_create(SnicState *s, SnicSrq *q,
                             const struct snic_aq_create_srq *a)
{
    uint16_t xrcdn = le16_to_cpu(a->xrcdn), cqn = le16_to_cpu(a->cqn);

    if (a->flags & ~SNIC_SRQ_F_XRC) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    q->xrc = a->flags & SNIC_SRQ_F_XRC;
    if (!q->xrc) {
        return SNIC_AQ_OK;
    }
    if (!snic_xrcd(s, xrcdn) || cqn >= SNIC_MAX_CQS || !s->cqs[cqn].valid) {
        return SNIC_AQ_ENOENT;
    }
    q->xrcdn = xrcdn;
    q->cqn = cqn;
    s->rdma.xrcds[xrcdn].refs++;
    s->cqs[cqn].refs++;
    return SNIC_AQ_OK;
}

void snic_xrc_srq_destroy(SnicState *s, SnicSrq *q)
{
    uint16_t srqn = q - s->rdma.srqs;
    uint32_t i;

    if (!q->xrc) {
        return;
    }
    s->rdma.xrcds[q->xrcdn].refs--;
    s->cqs[q->cqn].refs--;
    /* a TGT QP's next request names an SRQ again */
    for (i = 0; i < s->rdma.qps_hi; i++) {
        SnicQp *qp = &s->rdma.qps[i];

        if (qp->valid && qp->type == SNIC_QPT_XRC_TGT && qp->srqn == srqn) {
            qp->srqn = SNIC_SRQN_NONE;
            qp->have_rwqe = false;
            qp->resp_op = 0;
        }
    }
}

uint16_t snic_xrc_qp_check(SnicState *s, const struct snic_aq_create_qp *a)
{
    return a->type != SNIC_QPT_XRC_TGT || snic_xrcd(s, le16_to_cpu(a->xrcdn)) ?
           SNIC_AQ_OK : SNIC_AQ_ENOENT;
}

void snic_xrc_qp_init(SnicState *s, SnicQp *qp, uint16_t xrcdn)
{
    qp->xrcdn = xrcdn;
    qp->pdn = SNIC_MAX_PDS;         /* no MR matches until a request binds */
    qp->scqn = qp->rcqn = SNIC_MAX_CQS;
    qp->srqn = SNIC_SRQN_NONE;
    s->rdma.xrcds[xrcdn].refs++;
}

void snic_xrc_qp_destroy(SnicState *s, SnicQp *qp)
{
    if (qp->type == SNIC_QPT_XRC_TGT) {
        s->rdma.xrcds[qp->xrcdn].refs--;
    }
}

bool snic_xrc_bind(SnicState *s, SnicQp *qp, uint32_t srqn)
{
    SnicSrq *q = srqn < SNIC_MAX_SRQS ? &s->rdma.srqs[srqn] : NULL;

    if (!q || !q->valid || !q->xrc || q->xrcdn != qp->xrcdn ||
        (qp->resp_op && srqn != qp->srqn)) {
        s->rdma.st.xrc_bad_srqn++;
        qemu_log_mask(LOG_GUEST_ERROR, "snic: qp %u: XRCETH names SRQ %u, "
                      "not an XRC SRQ of XRC domain %u\n", qp->qpn, srqn,
                      qp->xrcdn);
        return false;
    }
    qp->srqn = srqn;
    qp->pdn = q->pdn;
    qp->scqn = qp->rcqn = q->cqn;
    return true;
}

void snic_xrc_rx(SnicRoceHdr *h, uint32_t *fl)
{
    if (*fl & ROCE_F_XRC) {
        h->opcode &= ~ROCE_OP_CLASS_MASK;
        *fl = snic_roce_opflags(h->opcode);
    }
}
