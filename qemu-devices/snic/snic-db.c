/*
 * snic: the BAR2 doorbell pages - decode a doorbell write and hand it to
 * the queue it names: a send queue to the transmit path, a completion or
 * event queue to its arming, an RDMA doorbell to the RDMA layer; gather a
 * WQE-by-MMIO line and hand its send queue the WQE with the doorbell.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "hw/d2d/trace.h"
#include "snic.h"
#include "snic-rdma.h"

static bool snic_db_check(SnicState *s, bool valid, uint16_t page,
                          uint16_t want_page)
{
    if (!valid) {
        s->stats.bad_db++;
        snic_raise_error(s, SNIC_ERR_DB_QUEUE, "doorbell for no queue");
        return false;
    }
    if (page != want_page) {
        s->stats.bad_db++;
        snic_raise_error(s, SNIC_ERR_DB_PAGE, "doorbell on a foreign page");
        return false;
    }
    return true;
}

static bool snic_db_range(SnicState *s, uint16_t ahead, uint32_t size)
{
    if (ahead > size) {
        s->stats.bad_db++;
        snic_raise_error(s, SNIC_ERR_DB_RANGE, "doorbell beyond ring");
        return false;
    }
    return true;
}

/*
 * A WQE-by-MMIO line refused: error register, counters (an Ethernet SQ's
 * line in the port's, an RDMA QP's, @qp, in the RDMA layer's), log.
 */
static void snic_db_wqe_refuse(SnicState *s, bool qp, const char *why)
{
    s->stats.bad_db++;
    if (qp) {
        s->rdma.st.mmio_wqe_errors++;
    } else {
        s->ps.tx_mmio_wqe_errors++;
    }
    snic_raise_error(s, SNIC_ERR_MMIO_WQE, why);
}

/*
 * A whole WQE-by-MMIO line on @page: the first basic block of the WQE at
 * ctrl.wqe_idx of SQ ctrl.db_qn, and its doorbell.  The WQE must start at
 * or after the producer counter the device knows and end within the ring.
 */
static void snic_db_sq_wqe(SnicState *s, uint16_t page, const uint8_t *line)
{
    const struct snic_wqe_ctrl *ctrl = (const void *)line;
    uint32_t qn = le16_to_cpu(ctrl->db_qn);
    uint16_t idx = le16_to_cpu(ctrl->wqe_idx);
    unsigned nbb = DIV_ROUND_UP(ctrl->ds_cnt, 4);
    SnicSq *sq = qn < SNIC_MAX_SQS ? &s->sqs[qn] : NULL;
    uint16_t ahead;
    unsigned slot;

    if (!sq || !sq->valid || sq->db_page != page) {
        snic_db_wqe_refuse(s, false, "WQE-by-MMIO line for no SQ of this page");
        return;
    }
    ahead = idx - sq->ci;
    if (ctrl->ds_cnt == 0 || nbb > SNIC_WQE_MAX_BBS ||
        ahead < (uint16_t)(sq->pi - sq->ci) || ahead + nbb > RING_SIZE(sq)) {
        snic_db_wqe_refuse(s, false,
                           "WQE-by-MMIO line disagrees with the ring");
        return;
    }
    d2d_mmio_account(&sq->st.pcie, true, page * SNIC_DB_PAGE_SIZE +
                     SNIC_DB_SQ_WQE, SNIC_DB_SQ_WQE_SIZE);
    slot = idx % SNIC_SQ_MMIO_SLOTS;
    memcpy(sq->mmio_bb[slot], line, SNIC_WQEBB_SIZE);
    sq->mmio_idx[slot] = idx;
    sq->mmio_valid |= 1u << slot;
    sq->st.doorbells++;
    s->ps.tx_mmio_wqe++;
    sq->pi = idx + nbb;
    snic_tx_kick(s, sq);
}

/*
 * One 32-bit store into one of a page's WQE-by-MMIO lines: an Ethernet
 * SQ's at SNIC_DB_SQ_WQE, an RDMA QP's at SNIC_DB_QP_SQ_WQE (@qp).  The
 * line is one posted write of 64 bytes (write combining) once every dword
 * is in; a dword written twice before that means a torn line: the stores
 * so far are counted as the writes they were and the line is refused.
 */
static void snic_db_wqe_store(SnicState *s, uint16_t page, bool qp,
                              unsigned off, uint32_t val)
{
    SnicMmioLine *w = qp ? &s->mmio_wqe[page].qp : &s->mmio_wqe[page].sq;
    const struct snic_wqe_ctrl *ctrl = (const void *)w->line;
    unsigned at = qp ? SNIC_DB_QP_SQ_WQE : SNIC_DB_SQ_WQE;
    hwaddr base = page * SNIC_DB_PAGE_SIZE + at;
    unsigned dw = off / 4, i;

    if (w->mask & (1u << dw)) {
        for (i = 0; i < SNIC_DB_SQ_WQE_SIZE / 4; i++) {
            if (w->mask & (1u << i)) {
                d2d_mmio_account(&s->pcie, true, base + i * 4, 4);
            }
        }
        w->mask = 0;
        snic_db_wqe_refuse(s, qp, "partial WQE-by-MMIO line");
    }
    stl_le_p(w->line + dw * 4, val);
    w->mask |= 1u << dw;
    if (w->mask != (1u << (SNIC_DB_SQ_WQE_SIZE / 4)) - 1) {
        return;
    }
    w->mask = 0;
    d2d_mmio_account(&s->pcie, true, base, SNIC_DB_SQ_WQE_SIZE);
    trace_snic_doorbell(page, at, le16_to_cpu(ctrl->db_qn),
                        le16_to_cpu(ctrl->wqe_idx));
    d2d_timing_engine(&s->timing, s->timing.p.db_ns);
    if (!qp) {
        snic_db_sq_wqe(s, page, w->line);
    } else if (!snic_rdma_db_wqe(s, page, w->line)) {
        snic_db_wqe_refuse(s, true, "QP WQE-by-MMIO line refused");
    }
}

static void snic_db_write(void *opaque, hwaddr addr, uint64_t val,
                          unsigned size)
{
    SnicState *s = opaque;
    uint16_t page = addr / SNIC_DB_PAGE_SIZE;
    unsigned off = addr % SNIC_DB_PAGE_SIZE;
    uint32_t qn = (uint32_t)val >> 16;
    uint16_t ctr = val & 0xffff;

    if (!(s->status & SNIC_STATUS_READY)) {
        d2d_mmio_account(&s->pcie, true, addr, size);
        s->stats.bad_db++;
        snic_raise_error(s, SNIC_ERR_IN_RESET, "doorbell in reset");
        return;
    }
    if (off >= SNIC_DB_SQ_WQE && off < SNIC_DB_SQ_WQE + SNIC_DB_SQ_WQE_SIZE) {
        /* accounted as one write when the line is whole */
        snic_db_wqe_store(s, page, false, off - SNIC_DB_SQ_WQE, val);
        return;
    }
    if (off >= SNIC_DB_QP_SQ_WQE &&
        off < SNIC_DB_QP_SQ_WQE + SNIC_DB_SQ_WQE_SIZE) {
        snic_db_wqe_store(s, page, true, off - SNIC_DB_QP_SQ_WQE, val);
        return;
    }
    d2d_mmio_account(&s->pcie, true, addr, size);
    trace_snic_doorbell(page, off, qn, ctr);
    d2d_timing_engine(&s->timing, s->timing.p.db_ns);
    switch (addr % SNIC_DB_PAGE_SIZE) {
    case SNIC_DB_SQ: {
        SnicSq *sq = qn < SNIC_MAX_SQS ? &s->sqs[qn] : NULL;

        if (!snic_db_check(s, sq && sq->valid, page, sq ? sq->db_page : 0) ||
            !snic_db_range(s, ctr - sq->ci, RING_SIZE(sq))) {
            return;
        }
        d2d_mmio_account(&sq->st.pcie, true, addr, size);
        sq->st.doorbells++;
        sq->pi = ctr;
        snic_tx_kick(s, sq);
        break;
    }
    case SNIC_DB_RQ: {
        SnicRq *rq = qn < SNIC_MAX_RQS ? &s->rqs[qn] : NULL;

        if (!snic_db_check(s, rq && rq->valid, page, rq ? rq->db_page : 0) ||
            !snic_db_range(s, ctr - rq->ci, RING_SIZE(rq))) {
            return;
        }
        d2d_mmio_account(&rq->st.pcie, true, addr, size);
        rq->st.doorbells++;
        rq->pi = ctr;
        break;
    }
    case SNIC_DB_CQ:
    case SNIC_DB_CQ_ARM:
    case SNIC_DB_CQ_ARM_SE: {
        SnicCq *cq = qn < SNIC_MAX_CQS ? &s->cqs[qn] : NULL;

        if (!snic_db_check(s, cq && cq->valid, page, cq ? cq->db_page : 0) ||
            !snic_db_range(s, cq->pi - ctr, RING_SIZE(cq))) {
            return;
        }
        cq->ci = ctr;
        if (addr % SNIC_DB_PAGE_SIZE == SNIC_DB_CQ_ARM) {
            cq->armed = true;
            cq->arm_se = false;
            cq->mod_pending = 0;
            timer_del(s->cq_timers[qn].timer);
            if (cq->pi != cq->ci) {
                snic_cq_event(s, qn);
            }
        } else if (addr % SNIC_DB_PAGE_SIZE == SNIC_DB_CQ_ARM_SE) {
            /* only solicited or error CQEs written from now on count */
            cq->armed = true;
            cq->arm_se = true;
            cq->mod_pending = 0;
            timer_del(s->cq_timers[qn].timer);
        }
        break;
    }
    case SNIC_DB_EQ:
    case SNIC_DB_EQ_ARM: {
        SnicEq *eq = qn < SNIC_MAX_EQS ? &s->eqs[qn] : NULL;

        if (!snic_db_check(s, eq && eq->valid, page, eq ? eq->db_page : 0) ||
            !snic_db_range(s, eq->pi - ctr, RING_SIZE(eq))) {
            return;
        }
        eq->ci = ctr;
        if (addr % SNIC_DB_PAGE_SIZE == SNIC_DB_EQ_ARM) {
            eq->armed = true;
            eq->pending = 0;
            if (eq->pi != eq->ci) {
                snic_eq_fire(s, eq);
            }
        }
        break;
    }
    default:
        if (snic_rdma_db(s, page, addr % SNIC_DB_PAGE_SIZE, qn, ctr)) {
            break;
        }
        s->stats.bad_reg++;
        snic_raise_error(s, SNIC_ERR_BAD_REG, "undefined doorbell offset");
        break;
    }
}

/*
 * Reads: the device clock (ns of QEMU's virtual clock, the time base of
 * CQE timestamps) at SNIC_DB_CLOCK_LO/HI of every page, 0 elsewhere.
 */
static uint64_t snic_db_read(void *opaque, hwaddr addr, unsigned size)
{
    SnicState *s = opaque;
    SnicMmioWqe *p = &s->mmio_wqe[addr / SNIC_DB_PAGE_SIZE];
    uint64_t now;

    d2d_mmio_account(&s->pcie, false, addr, size);
    switch (addr % SNIC_DB_PAGE_SIZE) {
    case SNIC_DB_CLOCK_LO:
        now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
        p->clock_hi = now >> 32;
        return (uint32_t)now;
    case SNIC_DB_CLOCK_HI:
        return p->clock_hi;
    default:
        return 0;
    }
}

const MemoryRegionOps snic_db_ops = {
    .read = snic_db_read,
    .write = snic_db_write,
    D2D_MMIO_OPS_32BIT,
};
