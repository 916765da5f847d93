/*
 * snic: DMA-only notification pipes (SNIC_QP_F_PIPE) - QPs without an
 * MMIO doorbell.  The host writes cacheline elements with an owner
 * (phase) bit; the device finds them by polling:
 *
 *   - the send pipe: 64-byte WQE basic blocks, the phase in the first
 *     one's ctrl.owner; read by the requester's fetch (snic_pipe_sq_peek);
 *   - the receive pipe: 16-byte RQEs, four per 64-byte line, read a line
 *     at a time and cached (snic_pipe_rq_peek);
 *   - the consumer record: the device writes its consumer counters there
 *     every ci_every elements and when it finds a pipe empty;
 *   - the poller: the pipe QPs are placed on the device's NIC cores
 *     (property nic-cores; the least-loaded core at creation), and a
 *     guarded virtual timer serves each core's poll list in turn, a
 *     bounded number of QPs per core and turn, kicking the RDMA bottom
 *     half for them.  Each pipe read is charged a modeled poll cost in
 *     timing mode.
 *
 * Below the requester, the flush and the receive WQE fetch, which call
 * it; it calls only the network layer (the kick) and the DMA helpers.
 * docs/snic-rdma.md "DMA-only notification pipes".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "snic.h"

/* The owner bit a valid element at counter @ctr of a 2^@log ring has. */
static uint32_t snic_pipe_phase(uint16_t ctr, uint8_t log)
{
    return ((ctr >> log) & 1) ^ 1;
}

/* ---- the consumer record ---- */

static void snic_pipe_ci_write(SnicState *s, SnicQp *qp)
{
    __le32 rec[2] = { cpu_to_le32(qp->rq.ci), cpu_to_le32(qp->sq_fetch) };

    s->rdma.st.pipe_ci_writes++;
    qp->ci_rq_done = qp->rq.ci;
    qp->ci_sq_done = qp->sq_fetch;
    if (d2d_dma_write(&s->parent_obj, &s->pcie, &qp->pcie, qp->ci_addr, rec,
                      sizeof(rec)) != MEMTX_OK) {
        s->stats.dma_errs++;
        s->rdma.st.pipe_errors++;
        qemu_log_mask(LOG_GUEST_ERROR, "snic: qp %u: consumer record "
                      "0x%" PRIx64 " not writable\n", qp->qpn, qp->ci_addr);
        qp->pipe_fault = true;
    }
}

/* Anything consumed since the last write: write the record now. */
static void snic_pipe_ci_flush(SnicState *s, SnicQp *qp)
{
    if (qp->ci_sq_done != qp->sq_fetch || qp->ci_rq_done != qp->rq.ci) {
        snic_pipe_ci_write(s, qp);
    }
}

void snic_pipe_sq_consumed(SnicState *s, SnicQp *qp)
{
    s->rdma.st.pipe_sqes++;
    if ((uint16_t)(qp->sq_fetch - qp->ci_sq_done) >= qp->ci_every) {
        snic_pipe_ci_write(s, qp);
    }
}

void snic_pipe_rq_consumed(SnicState *s, SnicQp *qp)
{
    s->rdma.st.pipe_rqes++;
    if ((uint16_t)(qp->rq.ci - qp->ci_rq_done) >= qp->ci_every) {
        snic_pipe_ci_write(s, qp);
    }
}

void snic_pipe_qp_reset(SnicQp *qp)
{
    qp->ci_sq_done = qp->ci_rq_done = 0;
    qp->rql_ok = false;
    qp->pipe_fault = false;
}

/* ---- the send pipe ---- */

int snic_pipe_sq_peek(SnicState *s, SnicQp *qp, uint8_t *bb, uint8_t *status)
{
    const struct snic_wqe_ctrl *ctrl = (const void *)bb;
    uint64_t addr = qp->sq_ring + (uint64_t)(qp->sq_fetch &
                    (QP_SQ_SIZE(qp) - 1)) * SNIC_WQEBB_SIZE;

    if (qp->pipe_fault) {
        *status = SNIC_RST_GENERAL;
        return -1;
    }
    d2d_timing_engine(&s->timing, s->rdma.pipe.poll_cost_ns);
    s->rdma.st.pipe_polls++;
    if (d2d_dma_read(&s->parent_obj, &s->pcie, &qp->pcie, addr, bb,
                     SNIC_WQEBB_SIZE) != MEMTX_OK) {
        s->stats.dma_errs++;
        *status = SNIC_RST_GENERAL;
        return -1;
    }
    if ((ctrl->owner & SNIC_WQE_OWNER) !=
        snic_pipe_phase(qp->sq_fetch, qp->sq_log)) {
        s->rdma.st.pipe_empty_polls++;
        snic_pipe_ci_flush(s, qp);
        return 0;
    }
    if (ctrl->owner & ~SNIC_WQE_OWNER) {
        /* counted once: the flush of the failed QP finds it again */
        if (qp->state != SNIC_QPS_ERR && qp->state != SNIC_QPS_SQE) {
            s->rdma.st.pipe_errors++;
            qemu_log_mask(LOG_GUEST_ERROR, "snic: qp %u: send pipe element "
                          "%u: owner byte 0x%x has reserved bits\n",
                          qp->qpn, qp->sq_fetch, ctrl->owner);
        }
        *status = SNIC_RST_LOC_QP_OP;
        return -1;
    }
    return 1;
}

void snic_pipe_sq_bad_extent(SnicState *s, SnicQp *qp)
{
    s->rdma.st.pipe_errors++;
    qemu_log_mask(LOG_GUEST_ERROR, "snic: qp %u: send pipe element %u: "
                  "bad ds_cnt\n", qp->qpn, qp->sq_fetch);
}

/* ---- the receive pipe ---- */

static bool snic_pipe_rqe_owned(SnicQp *qp, uint16_t ctr)
{
    const struct snic_pipe_rqe *e = (const void *)(qp->rql +
                                    (ctr & 3) * SNIC_PIPE_RQE_SIZE);

    return !!(le32_to_cpu(e->byte_count) & SNIC_PIPE_RQE_OWNER) ==
           snic_pipe_phase(ctr, qp->rq.log_size);
}

bool snic_pipe_rq_peek(SnicState *s, SnicQp *qp, SnicRecvWqe *w)
{
    uint16_t ci = qp->rq.ci, line = ci & ~3u;
    const struct snic_pipe_rqe *e;
    uint32_t bc;

    if (!qp->rql_ok || qp->rql_ctr != line || !snic_pipe_rqe_owned(qp, ci)) {
        uint64_t addr = qp->rq.ring + (uint64_t)(line &
                        ((1u << qp->rq.log_size) - 1)) * SNIC_PIPE_RQE_SIZE;

        qp->rql_ok = false;
        s->rdma.st.pipe_rq_lines++;
        if (d2d_dma_read(&s->parent_obj, &s->pcie, &qp->pcie, addr, qp->rql,
                         sizeof(qp->rql)) != MEMTX_OK) {
            s->stats.dma_errs++;
            return false;
        }
        qp->rql_ok = true;
        qp->rql_ctr = line;
        if (!snic_pipe_rqe_owned(qp, ci)) {
            snic_pipe_ci_flush(s, qp);
            return false;
        }
    }
    e = (const void *)(qp->rql + (ci & 3) * SNIC_PIPE_RQE_SIZE);
    bc = le32_to_cpu(e->byte_count) & ~SNIC_PIPE_RQE_OWNER;
    memset(w, 0, sizeof(*w));
    w->counter = ci;
    if (bc) {
        w->nsge = 1;
        w->sge[0].addr = le64_to_cpu(e->addr);
        w->sge[0].lkey = le32_to_cpu(e->lkey);
        w->sge[0].len = bc;
        w->len = bc;
    }
    return true;
}

/* ---- poll lists and the poller ---- */

static void snic_pipe_arm(SnicState *s)
{
    SnicPipes *p = &s->rdma.pipe;

    timer_mod(p->timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + p->interval);
}

void snic_pipe_wake(SnicState *s)
{
    SnicPipes *p = &s->rdma.pipe;

    p->interval = p->poll_ns;
    if (!timer_pending(p->timer)) {
        snic_pipe_arm(s);
    }
}

static void snic_pipe_poll(void *opaque)
{
    SnicState *s = opaque;
    SnicPipes *p = &s->rdma.pipe;
    bool any = false;
    uint32_t c;

    for (c = 0; c < p->ncores; c++) {
        SnicPipeCore *core = &p->cores[c];
        uint32_t n = core->qps->len, k;

        for (k = 0; k < MIN(n, SNIC_PIPE_POLL_BUDGET); k++) {
            uint32_t qpn = g_array_index(core->qps, uint32_t,
                                         (core->cursor + k) % n);
            SnicQp *qp = snic_rdma_qp(s, qpn);

            if (!qp || qp->state != SNIC_QPS_RTS) {
                continue;
            }
            any = true;
            s->rdma.st.pipe_sq_visits++;
            snic_rdma_kick(s, qp);
        }
        core->cursor = n ? (core->cursor + k) % n : 0;
        /* QPs beyond this turn's budget may be in RTS: keep turning */
        any |= n > SNIC_PIPE_POLL_BUDGET;
    }
    if (!any) {
        return;                 /* snic_pipe_wake starts it again */
    }
    /* back off while the pipes stay empty, poll fast again on work */
    if (s->rdma.st.pipe_sqes != p->last_sqes) {
        p->interval = p->poll_ns;
    } else {
        p->interval = MIN((uint64_t)p->interval * 2, p->poll_max_ns);
    }
    p->last_sqes = s->rdma.st.pipe_sqes;
    snic_pipe_arm(s);
}

void snic_pipe_add(SnicState *s, SnicQp *qp)
{
    SnicPipes *p = &s->rdma.pipe;
    uint32_t c, best = 0;

    for (c = 1; c < p->ncores; c++) {
        if (p->cores[c].qps->len < p->cores[best].qps->len) {
            best = c;
        }
    }
    qp->pipe_core = best;
    g_array_append_val(p->cores[best].qps, qp->qpn);
}

void snic_pipe_remove(SnicState *s, SnicQp *qp)
{
    SnicPipeCore *core = &s->rdma.pipe.cores[qp->pipe_core];
    uint32_t i;

    for (i = 0; i < core->qps->len; i++) {
        if (g_array_index(core->qps, uint32_t, i) == qp->qpn) {
            g_array_remove_index(core->qps, i);
            break;
        }
    }
    core->cursor = 0;
}

void snic_pipe_init(SnicState *s)
{
    SnicPipes *p = &s->rdma.pipe;
    uint32_t c;

    p->cores = g_new0(SnicPipeCore, p->ncores);
    for (c = 0; c < p->ncores; c++) {
        p->cores[c].qps = g_array_new(false, false, sizeof(uint32_t));
    }
    p->timer = d2d_timer_new_guarded(DEVICE(s), snic_pipe_poll, s);
    p->interval = p->poll_ns;
}

void snic_pipe_free(SnicState *s)
{
    SnicPipes *p = &s->rdma.pipe;
    uint32_t c;

    d2d_timer_free_guarded(p->timer);
    for (c = 0; c < p->ncores; c++) {
        g_array_free(p->cores[c].qps, true);
    }
    g_free(p->cores);
}

void snic_pipe_reset(SnicState *s)
{
    SnicPipes *p = &s->rdma.pipe;
    uint32_t c;

    timer_del(p->timer);
    for (c = 0; c < p->ncores; c++) {
        g_array_set_size(p->cores[c].qps, 0);
        p->cores[c].cursor = 0;
    }
    p->last_sqes = 0;
    p->interval = p->poll_ns;
}

void snic_pipe_format(SnicState *s, GString *out)
{
    SnicPipes *p = &s->rdma.pipe;
    uint32_t c;

    g_string_append(out, "pipe cores:");
    for (c = 0; c < p->ncores; c++) {
        g_string_append_printf(out, " %u", p->cores[c].qps->len);
    }
    g_string_append_c(out, '\n');
}
