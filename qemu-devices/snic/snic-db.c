/*
 * snic: the BAR2 doorbell pages - decode a doorbell write and hand it to
 * the queue it names: a send queue to the transmit path, a completion or
 * event queue to its arming, an RDMA doorbell to the RDMA layer.
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

static void snic_db_write(void *opaque, hwaddr addr, uint64_t val,
                          unsigned size)
{
    SnicState *s = opaque;
    uint16_t page = addr / SNIC_DB_PAGE_SIZE;
    uint32_t qn = (uint32_t)val >> 16;
    uint16_t ctr = val & 0xffff;

    d2d_mmio_account(&s->pcie, true, addr, size);
    trace_snic_doorbell(page, addr % SNIC_DB_PAGE_SIZE, qn, ctr);
    if (!(s->status & SNIC_STATUS_READY)) {
        s->stats.bad_db++;
        snic_raise_error(s, SNIC_ERR_IN_RESET, "doorbell in reset");
        return;
    }
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

static uint64_t snic_db_read(void *opaque, hwaddr addr, unsigned size)
{
    SnicState *s = opaque;

    d2d_mmio_account(&s->pcie, false, addr, size);
    return 0;
}

const MemoryRegionOps snic_db_ops = {
    .read = snic_db_read,
    .write = snic_db_write,
    D2D_MMIO_OPS_32BIT,
};
