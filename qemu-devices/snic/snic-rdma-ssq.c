/*
 * snic: scalable shared send queues (SSQs) - one send pipe per NIC core
 * and context (doorbell page), shared by the context's SNIC_QP_F_SSQ QPs
 * placed on that core.  Each SQE names its QP; the SSQ poller reads only
 * the SSQs (never an idle QP), hands each SQE to its QP's requester and
 * kicks that QP: the kicked QPs are the active-SQ table the RDMA bottom
 * half serves.  An SQE whose QP cannot take it yet (window full, not in
 * RTS, PSN window) holds its SSQ until it can (head of line).
 *
 * Between the QP admin (which places QPs and wakes the poller) and the
 * requester (whose window takes the WQEs).
 * docs/snic-rdma.md "Scalable shared send queues".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "snic.h"

/* SQEs one SSQ hands out per poll turn. */
#define SNIC_SSQ_BUDGET 64

static uint32_t snic_ssq_phase(uint16_t ctr, uint8_t log)
{
    return ((ctr >> log) & 1) ^ 1;
}

static SnicSsq *snic_ssq(SnicState *s, uint32_t n)
{
    return n < SNIC_MAX_SSQS && s->rdma.ssqs[n].valid ? &s->rdma.ssqs[n] :
           NULL;
}

static void snic_ssq_ci_write(SnicState *s, SnicSsq *q)
{
    __le32 v = cpu_to_le32(q->ci);

    s->rdma.st.pipe_ci_writes++;
    q->ci_done = q->ci;
    if (d2d_dma_write(&s->parent_obj, &s->pcie, NULL, q->ci_addr, &v,
                      sizeof(v)) != MEMTX_OK) {
        s->stats.dma_errs++;
        s->rdma.st.pipe_errors++;
    }
}

static void snic_ssq_advance(SnicState *s, SnicSsq *q, unsigned nbb)
{
    q->ci += nbb;
    if ((uint16_t)(q->ci - q->ci_done) >= q->ci_every) {
        snic_ssq_ci_write(s, q);
    }
}

/* One SQE from @q: true if it was taken (or skipped as malformed). */
static bool snic_ssq_one(SnicState *s, uint32_t n, SnicSsq *q)
{
    uint8_t segs[SNIC_WQE_MAX_BBS * SNIC_WQEBB_SIZE];
    const struct snic_wqe_ctrl *ctrl = (const void *)segs;
    uint32_t size = 1u << q->log_size, avail = MIN(SNIC_WQE_MAX_BBS, size);
    unsigned nbb, i, took;
    uint32_t word, qpn;
    SnicQp *qp;

    d2d_timing_engine(&s->timing, s->rdma.pipe.poll_cost_ns);
    s->rdma.st.pipe_polls++;
    if (d2d_dma_read(&s->parent_obj, &s->pcie, NULL,
                     q->ring + (uint64_t)(q->ci & (size - 1)) *
                     SNIC_WQEBB_SIZE, segs, SNIC_WQEBB_SIZE) != MEMTX_OK) {
        s->stats.dma_errs++;
        return false;
    }
    if ((ctrl->owner & SNIC_WQE_OWNER) != snic_ssq_phase(q->ci, q->log_size)) {
        s->rdma.st.pipe_empty_polls++;
        if (q->ci_done != q->ci) {
            snic_ssq_ci_write(s, q);
        }
        return false;
    }
    word = ldl_le_p(segs + SNIC_SSQ_QPN_OFF);
    qpn = word & ROCE_PSN_MASK;
    qp = snic_rdma_qp(s, qpn);
    nbb = DIV_ROUND_UP(ctrl->ds_cnt, 4);
    nbb = nbb >= 1 && nbb <= avail ? nbb : 1;
    if ((ctrl->owner & ~SNIC_WQE_OWNER) || !qp ||
        !(qp->flags & SNIC_QP_F_SSQ) || qp->ssqn != n) {
        /* no QP of this SSQ to fail: skip the WQE (a bad owner: a block) */
        s->rdma.st.pipe_errors++;
        qemu_log_mask(LOG_GUEST_ERROR, "snic: ssq %u: element %u names no "
                      "QP of its own or has a bad owner byte\n", n, q->ci);
        snic_ssq_advance(s, q, (ctrl->owner & ~SNIC_WQE_OWNER) ? 1 : nbb);
        return true;
    }
    if (word >> 24 != s->rdma.ssq_gen[qpn]) {
        /* left by an earlier QP of this number: not this QP's work */
        s->rdma.st.pipe_errors++;
        qemu_log_mask(LOG_GUEST_ERROR, "snic: ssq %u: element %u is of an "
                      "earlier QP %u (generation %u, now %u)\n", n, q->ci,
                      qpn, word >> 24, s->rdma.ssq_gen[qpn]);
        snic_ssq_advance(s, q, nbb);
        return true;
    }
    if (qp->state == SNIC_QPS_ERR || qp->state == SNIC_QPS_SQE) {
        SnicSwqe w = { .opcode = ctrl->opcode, .idx = qp->sq_fetch,
                       .nbb = nbb };

        snic_rdma_req_cqe(s, qp, &w, SNIC_RST_WR_FLUSH);
        qp->sq_fetch += nbb;
        snic_ssq_advance(s, q, nbb);
        return true;
    }
    if (qp->state != SNIC_QPS_RTS || qp->fetch_blocked ||
        qp->win_tail - qp->win_head >= SNIC_RDMA_WIN) {
        return false;           /* head of line: it waits for its QP */
    }
    for (i = 1; i < nbb; i++) {
        if (d2d_dma_read(&s->parent_obj, &s->pcie, &qp->pcie,
                         q->ring + (uint64_t)((q->ci + i) & (size - 1)) *
                         SNIC_WQEBB_SIZE, segs + i * SNIC_WQEBB_SIZE,
                         SNIC_WQEBB_SIZE) != MEMTX_OK) {
            s->stats.dma_errs++;
            return false;
        }
    }
    took = snic_rdma_req_take(s, qp, segs, avail);
    if (!took) {
        return false;
    }
    s->rdma.st.ssq_sqes++;
    s->rdma.st.pipe_sq_visits++;
    snic_ssq_advance(s, q, took);
    snic_rdma_kick(s, qp);
    return true;
}

static void snic_ssq_arm(SnicState *s)
{
    timer_mod(s->rdma.ssq_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
              s->rdma.ssq_interval);
}

static void snic_ssq_poll(void *opaque)
{
    SnicState *s = opaque;
    SnicRdma *r = &s->rdma;
    uint64_t before = r->st.ssq_sqes;
    bool any = false;
    uint32_t n;
    int k;

    for (n = 0; n < SNIC_MAX_SSQS; n++) {
        SnicSsq *q = &r->ssqs[n];

        if (!q->valid || !q->qps) {
            continue;
        }
        any = true;
        for (k = 0; k < SNIC_SSQ_BUDGET && snic_ssq_one(s, n, q); k++) {
            continue;
        }
    }
    if (!any) {
        return;                 /* snic_ssq_wake starts it again */
    }
    if (r->st.ssq_sqes != before) {
        r->ssq_interval = r->pipe.poll_ns;
    } else {
        r->ssq_interval = MIN((uint64_t)r->ssq_interval * 2,
                              r->pipe.poll_max_ns);
    }
    snic_ssq_arm(s);
}

void snic_ssq_wake(SnicState *s)
{
    s->rdma.ssq_interval = s->rdma.pipe.poll_ns;
    if (!timer_pending(s->rdma.ssq_timer)) {
        snic_ssq_arm(s);
    }
}

/* ---- admin ---- */

uint16_t snic_ssq_create(SnicState *s, const struct snic_aq_cmd *c,
                         uint64_t *res)
{
    struct snic_aq_create_ssq a;
    uint16_t st;
    uint32_t n;
    SnicSsq *q;

    memcpy(&a, c->raw, sizeof(a));
    if (a.log_size < SNIC_MIN_LOG_SIZE || a.log_size > SNIC_MAX_LOG_SIZE ||
        !a.ci_every || le16_to_cpu(a.db_page) >= SNIC_DB_PAGES ||
        a.core >= s->rdma.pipe.ncores) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    st = snic_ring_record_check(s, le64_to_cpu(a.ring_addr),
                                le64_to_cpu(a.ci_addr));
    if (st != SNIC_AQ_OK) {
        return st;
    }
    for (n = 0; n < SNIC_MAX_SSQS; n++) {
        q = &s->rdma.ssqs[n];
        if (q->valid && q->db_page == le16_to_cpu(a.db_page) &&
            q->core == a.core) {
            return SNIC_AQ_EBUSY;       /* one per context and core */
        }
    }
    for (n = 0; n < SNIC_MAX_SSQS && s->rdma.ssqs[n].valid; n++) {
        continue;
    }
    if (n == SNIC_MAX_SSQS) {
        return SNIC_AQ_ENOSPC;
    }
    q = &s->rdma.ssqs[n];
    memset(q, 0, sizeof(*q));
    q->valid = true;
    q->log_size = a.log_size;
    q->ci_every = a.ci_every;
    q->db_page = le16_to_cpu(a.db_page);
    q->core = a.core;
    q->ring = le64_to_cpu(a.ring_addr);
    q->ci_addr = le64_to_cpu(a.ci_addr);
    *res = n | (uint64_t)s->rdma.pipe.ncores << 16;
    return SNIC_AQ_OK;
}

uint16_t snic_ssq_destroy(SnicState *s, uint32_t n)
{
    SnicSsq *q = snic_ssq(s, n);

    if (!q) {
        return SNIC_AQ_ENOENT;
    }
    if (q->qps) {
        return SNIC_AQ_EBUSY;
    }
    q->valid = false;
    return SNIC_AQ_OK;
}

bool snic_ssq_place(SnicState *s, SnicQp *qp)
{
    SnicSsq *best = NULL;
    uint32_t n;

    for (n = 0; n < SNIC_MAX_SSQS; n++) {
        SnicSsq *q = &s->rdma.ssqs[n];

        if (q->valid && q->db_page == qp->db_page &&
            (!best || q->qps < best->qps)) {
            best = q;
        }
    }
    if (!best) {
        return false;
    }
    best->qps++;
    qp->ssqn = best - s->rdma.ssqs;
    qp->pipe_core = best->core;
    return true;
}

void snic_ssq_unplace(SnicState *s, SnicQp *qp)
{
    SnicSsq *q = snic_ssq(s, qp->ssqn);

    if (q && q->qps) {
        q->qps--;
    }
}

void snic_ssq_init(SnicState *s)
{
    s->rdma.ssqs = g_new0(SnicSsq, SNIC_MAX_SSQS);
    s->rdma.ssq_timer = d2d_timer_new_guarded(DEVICE(s), snic_ssq_poll, s);
}

void snic_ssq_free(SnicState *s)
{
    d2d_timer_free_guarded(s->rdma.ssq_timer);
    g_free(s->rdma.ssqs);
}

void snic_ssq_reset(SnicState *s)
{
    timer_del(s->rdma.ssq_timer);
    memset(s->rdma.ssqs, 0, sizeof(SnicSsq) * SNIC_MAX_SSQS);
}

void snic_ssq_format(SnicState *s, GString *out)
{
    uint32_t n;

    g_string_append(out, "ssq qps:");
    for (n = 0; n < SNIC_MAX_SSQS; n++) {
        SnicSsq *q = &s->rdma.ssqs[n];

        if (q->valid) {
            g_string_append_printf(out, " %u@%u", q->qps, q->core);
        }
    }
    g_string_append_c(out, '\n');
}
