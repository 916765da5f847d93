/*
 * snic: RDMA receive queues - SRQ admin commands and doorbells, and the
 * receive WQE fetch of a QP (its own receive ring or its SRQ).
 * docs/snic-rdma.md "Admin commands".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "snic.h"

/* ---- SRQ ---- */

static SnicSrq *snic_srq(SnicState *s, uint32_t srqn)
{
    return srqn < SNIC_MAX_SRQS && s->rdma.srqs[srqn].valid ?
           &s->rdma.srqs[srqn] : NULL;
}

uint16_t snic_srq_create(SnicState *s, const struct snic_aq_cmd *c,
                                uint64_t *res)
{
    struct snic_aq_create_srq a;
    uint32_t pdn;
    uint16_t st;
    SnicSrq *q;
    int i;

    memcpy(&a, c->raw, sizeof(a));
    pdn = le32_to_cpu(a.pdn);
    if (!snic_pd(s, pdn)) {
        return SNIC_AQ_ENOENT;
    }
    if (a.log_size < SNIC_MIN_LOG_SIZE || a.log_size > SNIC_MAX_LOG_SIZE ||
        a.log_stride < 5 || a.log_stride > 8 ||
        le16_to_cpu(a.db_page) >= SNIC_DB_PAGES ||
        le64_to_cpu(a.ring_addr) % SNIC_RING_ALIGN ||
        le64_to_cpu(a.dbr_addr) % 4) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (!snic_dma_probe(s, le64_to_cpu(a.ring_addr)) ||
        !snic_dma_probe(s, le64_to_cpu(a.dbr_addr))) {
        s->stats.dma_errs++;
        return SNIC_AQ_EDMA;
    }
    for (i = 0; i < SNIC_MAX_SRQS && s->rdma.srqs[i].valid; i++) {
        continue;
    }
    if (i == SNIC_MAX_SRQS) {
        return SNIC_AQ_ENOSPC;
    }
    q = &s->rdma.srqs[i];
    memset(q, 0, sizeof(*q));
    st = snic_xrc_srq_create(s, q, &a);
    if (st != SNIC_AQ_OK) {
        return st;
    }
    q->valid = true;
    q->pdn = pdn;
    q->rq.log_size = a.log_size;
    q->rq.log_stride = a.log_stride;
    q->db_page = le16_to_cpu(a.db_page);
    q->rq.ring = le64_to_cpu(a.ring_addr);
    q->rq.dbr = le64_to_cpu(a.dbr_addr);
    q->limit = le32_to_cpu(a.limit);
    s->rdma.pds[pdn].refs++;
    *res = i;
    return SNIC_AQ_OK;
}

uint16_t snic_srq_modify(SnicState *s, const struct snic_aq_cmd *c)
{
    struct snic_aq_modify_srq a;
    SnicSrq *q;

    memcpy(&a, c->raw, sizeof(a));
    q = snic_srq(s, le32_to_cpu(a.srqn));
    if (!q) {
        return SNIC_AQ_ENOENT;
    }
    if (le32_to_cpu(a.limit) > (1u << q->rq.log_size)) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    q->limit = le32_to_cpu(a.limit);
    return SNIC_AQ_OK;
}

uint16_t snic_srq_destroy(SnicState *s, uint32_t srqn)
{
    SnicSrq *q = snic_srq(s, srqn);

    if (!q) {
        return SNIC_AQ_ENOENT;
    }
    if (q->refs) {
        return SNIC_AQ_EBUSY;
    }
    snic_xrc_srq_destroy(s, q);
    s->rdma.pds[q->pdn].refs--;
    q->valid = false;
    return SNIC_AQ_OK;
}

uint16_t snic_rdma_srq_db(SnicState *s, uint16_t page, uint32_t srqn,
                          uint16_t ctr)
{
    SnicSrq *q = snic_srq(s, srqn);

    if (!q) {
        s->stats.bad_db++;
        snic_raise_error(s, SNIC_ERR_DB_QUEUE, "doorbell for no SRQ");
        return SNIC_ERR_DB_QUEUE;
    }
    if (page != q->db_page) {
        s->stats.bad_db++;
        snic_raise_error(s, SNIC_ERR_DB_PAGE, "SRQ doorbell on a foreign page");
        return SNIC_ERR_DB_PAGE;
    }
    if ((uint16_t)(ctr - q->rq.ci) > (1u << q->rq.log_size)) {
        s->stats.bad_db++;
        snic_raise_error(s, SNIC_ERR_DB_RANGE, "SRQ doorbell beyond ring");
        return SNIC_ERR_DB_RANGE;
    }
    q->rq.pi = ctr;
    return SNIC_ERR_NONE;
}

/* ---- receive WQEs ---- */

/* Re-read a ring's producer counter; false on DMA error or nonsense. */
static bool snic_recv_refresh(SnicState *s, SnicQp *qp, SnicRecvRing *r)
{
    uint32_t v;

    if (d2d_dma_read(&s->parent_obj, &s->pcie, &qp->pcie, r->dbr, &v,
                     sizeof(v)) != MEMTX_OK) {
        s->stats.dma_errs++;
        return false;
    }
    le32_to_cpus(&v);
    if ((uint16_t)((uint16_t)v - r->ci) > (1u << r->log_size)) {
        return false;
    }
    r->pi = v;
    return true;
}

bool snic_rdma_recv_peek(SnicState *s, SnicQp *qp, SnicRecvWqe *w)
{
    SnicSrq *srq = qp->srqn != SNIC_SRQN_NONE ? snic_srq(s, qp->srqn) : NULL;
    SnicRecvRing *r;
    struct snic_recv_hdr hdr;
    struct snic_wqe_data d[SNIC_MAX_SGE];
    uint64_t addr;
    unsigned i, max;

    if (qp->flags & SNIC_QP_F_PIPE) {
        return snic_pipe_rq_peek(s, qp, w);
    }
    if (qp->srqn != SNIC_SRQN_NONE && !srq) {
        return false;
    }
    r = srq ? &srq->rq : &qp->rq;
    if (r->pi == r->ci && (!snic_recv_refresh(s, qp, r) || r->pi == r->ci)) {
        return false;
    }
    addr = r->ring +
        ((uint64_t)(r->ci & ((1u << r->log_size) - 1)) << r->log_stride);
    if (d2d_dma_read(&s->parent_obj, &s->pcie, &qp->pcie, addr, &hdr,
                     sizeof(hdr)) != MEMTX_OK) {
        s->stats.dma_errs++;
        return false;
    }
    memset(w, 0, sizeof(*w));
    w->cookie = le64_to_cpu(hdr.cookie);
    w->counter = r->ci;
    max = MIN(SNIC_MAX_SGE, (1u << r->log_stride) / 16 - 1);
    w->nsge = le16_to_cpu(hdr.num_sge);
    if (le16_to_cpu(hdr.num_sge) > max) {
        w->bad = true;
        w->nsge = 0;
        return true;
    }
    if (w->nsge &&
        d2d_dma_read(&s->parent_obj, &s->pcie, &qp->pcie, addr + sizeof(hdr),
                     d, w->nsge * sizeof(d[0])) != MEMTX_OK) {
        s->stats.dma_errs++;
        return false;
    }
    for (i = 0; i < w->nsge; i++) {
        w->sge[i].len = le32_to_cpu(d[i].byte_count);
        w->sge[i].lkey = le32_to_cpu(d[i].lkey);
        w->sge[i].addr = le64_to_cpu(d[i].addr);
        w->len += w->sge[i].len;
    }
    return true;
}

void snic_rdma_recv_consume(SnicState *s, SnicQp *qp)
{
    SnicSrq *srq;
    uint16_t left;

    if (qp->srqn == SNIC_SRQN_NONE) {
        qp->rq.ci++;
        if (qp->flags & SNIC_QP_F_PIPE) {
            snic_pipe_rq_consumed(s, qp);
        }
        return;
    }
    srq = snic_srq(s, qp->srqn);
    if (!srq) {
        return;
    }
    srq->rq.ci++;
    left = srq->rq.pi - srq->rq.ci;
    if (srq->limit && left < srq->limit) {
        srq->limit = 0;
        snic_rdma_event(s, SNIC_EQE_SRQ_LIMIT, srq - s->rdma.srqs, left);
    }
}
