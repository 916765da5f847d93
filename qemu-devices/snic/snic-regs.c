/*
 * snic: BAR0 register file - identity, control, reset, admin queue setup,
 * device error reporting and statistics.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "hw/d2d/trace.h"
#include "snic.h"

/* Back to power-on state: queues gone, statistics cleared. */
void snic_reset_state(SnicState *s)
{
    snic_aq_disable(s);
    memset(&s->aq, 0, offsetof(SnicAdminQueue, bh));
    memset(&s->stats, 0, sizeof(s->stats));
    snic_queues_reset(s);
    snic_rdma_reset(s);
    snic_spin_reset(s);
    d2d_timing_reset(&s->timing);
    s->error = SNIC_ERR_NONE;
    s->error_count = 0;
    s->status = 0;
}

/*
 * CTRL.RESET is carried out by this guarded bottom half, from the main
 * loop: never inside the MMIO write (which may come from a DMA issued by
 * a peer on the device's own behalf) nor inside anything the device is
 * doing (QP retire, completion writes, retry/probe timers, the receive
 * path), whose QPs, windows and page lists the reset frees.  CTRL writes
 * made meanwhile are applied once it has run.
 */
void snic_reset_bh(void *opaque)
{
    SnicState *s = opaque;

    s->reset_pending = false;
    snic_reset_state(s);
    if (!(s->ctrl & SNIC_CTRL_RESET)) {
        s->status |= SNIC_STATUS_READY;
        if (s->ctrl & SNIC_CTRL_AQ_ENABLE) {
            snic_aq_enable(s);
        }
    }
}

static void snic_write_ctrl(SnicState *s, uint32_t val)
{
    uint32_t old = s->ctrl;

    s->ctrl = val & (SNIC_CTRL_RESET | SNIC_CTRL_AQ_ENABLE);
    if (val & SNIC_CTRL_RESET) {
        s->status &= ~SNIC_STATUS_READY;
        if (!s->reset_pending) {
            s->reset_pending = true;
            qemu_bh_schedule(s->reset_bh);
        }
        return;
    }
    if (s->reset_pending) {
        return;         /* snic_reset_bh applies CTRL */
    }
    if (old & SNIC_CTRL_RESET) {
        s->status |= SNIC_STATUS_READY;
    }
    if ((val & SNIC_CTRL_AQ_ENABLE) && !(s->status & SNIC_STATUS_AQ_ENABLED)) {
        snic_aq_enable(s);
    } else if (!(val & SNIC_CTRL_AQ_ENABLE)) {
        snic_aq_disable(s);
    }
}

static uint64_t snic_regs_read(void *opaque, hwaddr addr, unsigned size)
{
    SnicState *s = opaque;

    d2d_mmio_account(&s->pcie, false, addr, size);
    switch (addr) {
    case SNIC_REG_ID:
        return SNIC_ID_MAGIC;
    case SNIC_REG_VERSION:
        return SNIC_VERSION;
    case SNIC_REG_CAPS_LO:
        return (uint32_t)SNIC_CAPS;
    case SNIC_REG_CAPS_HI:
        return (uint32_t)(SNIC_CAPS >> 32);
    case SNIC_REG_CTRL:
        return s->ctrl;
    case SNIC_REG_STATUS:
        return s->status;
    case SNIC_REG_ERROR:
        return s->error;
    case SNIC_REG_ERROR_COUNT:
        return s->error_count;
    case SNIC_REG_AQ_SQ_BASE_LO:
        return (uint32_t)s->aq.sq_base;
    case SNIC_REG_AQ_SQ_BASE_HI:
        return s->aq.sq_base >> 32;
    case SNIC_REG_AQ_CQ_BASE_LO:
        return (uint32_t)s->aq.cq_base;
    case SNIC_REG_AQ_CQ_BASE_HI:
        return s->aq.cq_base >> 32;
    case SNIC_REG_AQ_DEPTH:
        return s->aq.depth;
    case SNIC_REG_AQ_MSIX:
        return s->aq.msix;
    case SNIC_REG_AQ_CQ_HEAD:
        return s->aq.cq_head;
    case SNIC_REG_AQ_SQ_HEAD:
        return s->aq.sq_head;
    case SNIC_REG_STAT_AQ_CMDS:
        return s->stats.aq_cmds;
    case SNIC_REG_STAT_AQ_ERRS:
        return s->stats.aq_errs;
    case SNIC_REG_STAT_BAD_DB:
        return s->stats.bad_db;
    case SNIC_REG_STAT_DMA_ERRS:
        return s->stats.dma_errs;
    case SNIC_REG_STAT_BAD_REG:
        return s->stats.bad_reg;
    case SNIC_REG_STAT_IRQS:
        return s->stats.irqs;
    default:
        s->stats.bad_reg++;
        snic_raise_error(s, SNIC_ERR_BAD_REG, "read of undefined register");
        return 0;
    }
}

/* Admin queue geometry may only change while the queue is off. */
static bool snic_aq_config_writable(SnicState *s)
{
    if (s->status & SNIC_STATUS_AQ_ENABLED) {
        s->stats.bad_reg++;
        snic_raise_error(s, SNIC_ERR_BAD_REG,
                         "admin queue register written while enabled");
        return false;
    }
    return true;
}

static void snic_regs_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned size)
{
    SnicState *s = opaque;

    d2d_mmio_account(&s->pcie, true, addr, size);
    switch (addr) {
    case SNIC_REG_CTRL:
        trace_snic_ctrl_write(val);
        snic_write_ctrl(s, val);
        break;
    case SNIC_REG_ERROR:
        s->error = val;
        break;
    case SNIC_REG_AQ_SQ_BASE_LO:
        if (snic_aq_config_writable(s)) {
            s->aq.sq_base = deposit64(s->aq.sq_base, 0, 32, val);
        }
        break;
    case SNIC_REG_AQ_SQ_BASE_HI:
        if (snic_aq_config_writable(s)) {
            s->aq.sq_base = deposit64(s->aq.sq_base, 32, 32, val);
        }
        break;
    case SNIC_REG_AQ_CQ_BASE_LO:
        if (snic_aq_config_writable(s)) {
            s->aq.cq_base = deposit64(s->aq.cq_base, 0, 32, val);
        }
        break;
    case SNIC_REG_AQ_CQ_BASE_HI:
        if (snic_aq_config_writable(s)) {
            s->aq.cq_base = deposit64(s->aq.cq_base, 32, 32, val);
        }
        break;
    case SNIC_REG_AQ_DEPTH:
        if (snic_aq_config_writable(s)) {
            s->aq.depth = val;
        }
        break;
    case SNIC_REG_AQ_MSIX:
        if (snic_aq_config_writable(s)) {
            s->aq.msix = val;
        }
        break;
    case SNIC_REG_AQ_SQ_TAIL:
        trace_snic_aq_doorbell(val);
        snic_aq_doorbell(s, val);
        break;
    case SNIC_REG_AQ_CQ_HEAD:
        if (s->aq.depth && val < s->aq.depth) {
            s->aq.cq_head = val;
            snic_aq_kick(s);
        } else {
            s->stats.bad_db++;
            snic_raise_error(s, SNIC_ERR_DB_RANGE, "CQ head beyond ring");
        }
        break;
    default:
        s->stats.bad_reg++;
        snic_raise_error(s, SNIC_ERR_BAD_REG,
                         "write to undefined or read-only register");
        break;
    }
}

const MemoryRegionOps snic_regs_ops = {
    .read = snic_regs_read,
    .write = snic_regs_write,
    D2D_MMIO_OPS_32BIT,
};
