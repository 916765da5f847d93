/*
 * hdc: BAR0 register file - identity, control, reset, the host command
 * queue's setup and doorbells, the NVMe controller hand-over, errors and
 * statistics.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "hdc.h"
#include "hw/d2d/trace.h"

/*
 * Back to power-on state: in-flight work dropped, queue off, statistics
 * cleared.  @hard (qdev reset) also forgets the NVMe controller at once;
 * otherwise (CTRL.RESET) the engine disables it at its next pass.
 */
void hdc_reset_state(HdcState *s, bool hard)
{
    hdc_cmdq_disable(s);
    hdc_nvme_reset(s, hard);
    d2d_timing_reset(&s->timing);
    hdc_nic_reset(s);
    hdc_nic_rx_reset(s);
    s->nicrx.fail = 0;
    hdc_tcp_reset(s);
    hdc_tcp_rx_reset(s);
    memset(&s->q, 0, sizeof(s->q));
    memset(&s->stats, 0, sizeof(s->stats));
    s->error = HDC_ERR_NONE;
    s->error_count = 0;
    s->devbuf_size = 0;
    hdc_chunk_pool_reset(s, hard);
    if (hard) {
        s->ctrl = 0;
        s->status = HDC_STATUS_READY;
    } else {
        s->status = 0;
    }
}

static void hdc_write_ctrl(HdcState *s, uint32_t val)
{
    uint32_t old = s->ctrl;

    trace_hdc_ctrl_write(val);
    s->ctrl = val & (HDC_CTRL_RESET | HDC_CTRL_ENABLE);
    if (val & HDC_CTRL_RESET) {
        hdc_reset_state(s, false);
        s->ctrl = val & (HDC_CTRL_RESET | HDC_CTRL_ENABLE);
        return;
    }
    if (old & HDC_CTRL_RESET) {
        s->status |= HDC_STATUS_READY;
    }
    if ((val & HDC_CTRL_ENABLE) && !(s->status & HDC_STATUS_ENABLED)) {
        hdc_cmdq_enable(s);
    } else if (!(val & HDC_CTRL_ENABLE)) {
        hdc_cmdq_stop(s);
    }
}

static uint32_t hdc_status(HdcState *s)
{
    uint32_t st = s->status;

    if (s->nv.state == HDC_NVME_RUNNING && !s->nv.stopping) {
        st |= HDC_STATUS_NVME_READY;
    }
    return st;
}

static uint64_t hdc_regs_read(void *opaque, hwaddr addr, unsigned size)
{
    HdcState *s = opaque;

    d2d_mmio_account(&s->pcie, false, addr, size);
    switch (addr) {
    case HDC_REG_ID:
        return HDC_ID_MAGIC;
    case HDC_REG_VERSION:
        return HDC_VERSION;
    case HDC_REG_CAPS:
        return HDC_CAPS;
    case HDC_REG_CTRL:
        return s->ctrl;
    case HDC_REG_STATUS:
        return hdc_status(s);
    case HDC_REG_ERROR:
        return s->error;
    case HDC_REG_ERROR_COUNT:
        return s->error_count;
    case HDC_REG_CMDQ_BASE_LO:
        return (uint32_t)s->q.cmd_base;
    case HDC_REG_CMDQ_BASE_HI:
        return s->q.cmd_base >> 32;
    case HDC_REG_CPLQ_BASE_LO:
        return (uint32_t)s->q.cpl_base;
    case HDC_REG_CPLQ_BASE_HI:
        return s->q.cpl_base >> 32;
    case HDC_REG_QUEUE_DEPTH:
        return HDC_QUEUE_DEPTH;
    case HDC_REG_MSIX:
        return s->q.msix;
    case HDC_REG_CPLQ_HEAD:
        return s->q.cpl_head;
    case HDC_REG_CMDQ_HEAD:
        return s->q.cmd_head;
    case HDC_REG_NVME_BAR_LO:
        return (uint32_t)s->nv.bar_reg;
    case HDC_REG_NVME_BAR_HI:
        return s->nv.bar_reg >> 32;
    case HDC_REG_NVME_NSID:
        return s->nv.nsid;
    case HDC_REG_NVME_LBA_SHIFT:
        return s->nv.state == HDC_NVME_RUNNING ? s->nv.lba_shift : 0;
    case HDC_REG_NVME_NSZE_LO:
        return s->nv.state == HDC_NVME_RUNNING ? (uint32_t)s->nv.nsze : 0;
    case HDC_REG_NVME_NSZE_HI:
        return s->nv.state == HDC_NVME_RUNNING ? s->nv.nsze >> 32 : 0;
    case HDC_REG_NVME_STATUS:
        return s->nv.state;
    case HDC_REG_BUF_SIZE:
        return s->buf_size;
    case HDC_REG_DEVBUF_SIZE:
        return s->devbuf_size;
    case HDC_REG_STAT_CMDS:
        return s->stats.cmds;
    case HDC_REG_STAT_ERRS:
        return s->stats.errs;
    case HDC_REG_STAT_DEV_CMDS:
        return s->stats.dev_cmds;
    case HDC_REG_STAT_NVME_CMDS:
        return s->stats.nvme_cmds;
    case HDC_REG_STAT_NVME_ERRS:
        return s->stats.nvme_errs;
    case HDC_REG_STAT_RD_KIB:
        return s->stats.rd_bytes >> 10;
    case HDC_REG_STAT_WR_KIB:
        return s->stats.wr_bytes >> 10;
    case HDC_REG_STAT_FN_KIB:
        return s->stats.fn_bytes >> 10;
    case HDC_REG_STAT_INFLIGHT:
        return s->njobs;
    case HDC_REG_STAT_BAD_DB:
        return s->stats.bad_db;
    case HDC_REG_STAT_DMA_ERRS:
        return s->stats.dma_errs;
    case HDC_REG_STAT_BAD_REG:
        return s->stats.bad_reg;
    case HDC_REG_STAT_STALE_CPL:
        return s->stats.stale_cpl;
    case HDC_REG_STAT_NIC_TX:
        return s->stats.nic_tx;
    case HDC_REG_STAT_NIC_ERRS:
        return s->stats.nic_errs;
    case HDC_REG_STAT_TCP_ACKS:
        return s->stats.tcp_acks;
    case HDC_REG_STAT_TCP_REXMIT:
        return s->stats.tcp_rexmit;
    case HDC_REG_STAT_TCP_RTO:
        return s->stats.tcp_rto;
    case HDC_REG_STAT_TCP_DUPACK:
        return s->stats.tcp_dupacks;
    case HDC_REG_STAT_TCP_RX:
        return s->stats.tcp_rx;
    case HDC_REG_STAT_TCP_RX_OOO:
        return s->stats.tcp_rx_ooo;
    case HDC_REG_STAT_TCP_RX_ACK:
        return s->stats.tcp_rx_ack;
    case HDC_REG_NIC_ARQN:
        return s->tcp.rqn;
    case HDC_REG_NIC_ARQ_DB_LO:
        return (uint32_t)s->tcp.rq_db;
    case HDC_REG_NIC_ARQ_DB_HI:
        return s->tcp.rq_db >> 32;
    case HDC_REG_NIC_SQN:
        return s->nic.sqn;
    case HDC_REG_NIC_DB_LO:
        return (uint32_t)s->nic.db;
    case HDC_REG_NIC_DB_HI:
        return s->nic.db >> 32;
    case HDC_REG_NIC_STATUS:
        return hdc_nic_status(s);
    case HDC_REG_NIC_RX_STATUS:
        return hdc_nic_rx_status(s);
    case HDC_REG_STAT_NIC_RX:
        return s->stats.nic_rx;
    case HDC_REG_STAT_NIC_RX_DROP:
        return s->stats.nic_rx_drop;
    default:
        s->stats.bad_reg++;
        hdc_raise_error(s, HDC_ERR_BAD_REG, "read of undefined register");
        return 0;
    }
}

static void hdc_bad_reg(HdcState *s, const char *why)
{
    s->stats.bad_reg++;
    hdc_raise_error(s, HDC_ERR_BAD_REG, why);
}

/* Queue geometry may only change while the queue is off. */
static bool hdc_q_config_writable(HdcState *s)
{
    if (s->status & HDC_STATUS_ENABLED) {
        hdc_bad_reg(s, "queue register written while enabled");
        return false;
    }
    return true;
}

/* The controller hand-over may only change while it is not in use. */
static bool hdc_nvme_config_writable(HdcState *s)
{
    if (s->nv.state == HDC_NVME_INIT || s->nv.state == HDC_NVME_RUNNING) {
        hdc_bad_reg(s, "NVMe register written while the controller is up");
        return false;
    }
    return true;
}

static void hdc_regs_write(void *opaque, hwaddr addr, uint64_t val,
                           unsigned size)
{
    HdcState *s = opaque;

    d2d_mmio_account(&s->pcie, true, addr, size);
    switch (addr) {
    case HDC_REG_CTRL:
        hdc_write_ctrl(s, val);
        break;
    case HDC_REG_ERROR:
        s->error = val;
        break;
    case HDC_REG_CMDQ_BASE_LO:
        if (hdc_q_config_writable(s)) {
            s->q.cmd_base = deposit64(s->q.cmd_base, 0, 32, val);
        }
        break;
    case HDC_REG_CMDQ_BASE_HI:
        if (hdc_q_config_writable(s)) {
            s->q.cmd_base = deposit64(s->q.cmd_base, 32, 32, val);
        }
        break;
    case HDC_REG_CPLQ_BASE_LO:
        if (hdc_q_config_writable(s)) {
            s->q.cpl_base = deposit64(s->q.cpl_base, 0, 32, val);
        }
        break;
    case HDC_REG_CPLQ_BASE_HI:
        if (hdc_q_config_writable(s)) {
            s->q.cpl_base = deposit64(s->q.cpl_base, 32, 32, val);
        }
        break;
    case HDC_REG_MSIX:
        if (val >= HDC_NUM_MSIX) {
            hdc_bad_reg(s, "MSI-X vector out of range");
        } else if (hdc_q_config_writable(s)) {
            s->q.msix = val;
        }
        break;
    case HDC_REG_CMDQ_TAIL:
        trace_hdc_cmdq_doorbell(val);
        hdc_cmdq_doorbell(s, val);
        break;
    case HDC_REG_CPLQ_HEAD:
        trace_hdc_cplq_doorbell(val);
        if (val < HDC_QUEUE_DEPTH) {
            s->q.cpl_head = val;
            hdc_kick(s);
        } else {
            s->stats.bad_db++;
            hdc_raise_error(s, HDC_ERR_DB_RANGE,
                            "completion head beyond ring");
        }
        break;
    case HDC_REG_NVME_BAR_LO:
        if (hdc_nvme_config_writable(s)) {
            s->nv.bar_reg = deposit64(s->nv.bar_reg, 0, 32, val);
        }
        break;
    case HDC_REG_NVME_BAR_HI:
        if (hdc_nvme_config_writable(s)) {
            s->nv.bar_reg = deposit64(s->nv.bar_reg, 32, 32, val);
        }
        break;
    case HDC_REG_NVME_NSID:
        if (hdc_nvme_config_writable(s)) {
            s->nv.nsid = val;
        }
        break;
    case HDC_REG_NVME_CTRL:
        trace_hdc_nvme_ctrl_write(val);
        hdc_nvme_ctrl_write(s, val);
        break;
    case HDC_REG_DEVBUF_SIZE:
        if (val % HDC_CHUNK_SIZE || val > s->buf_size - HDC_CHUNK_SIZE) {
            hdc_bad_reg(s, "device buffer area not chunk-aligned or too big");
        } else if (s->njobs || (s->status & HDC_STATUS_ENABLED) ||
                   s->nv.slots_used || s->nicrx.enabled) {
            hdc_bad_reg(s, "device buffer area changed while in use");
        } else {
            s->devbuf_size = val;
            hdc_chunk_pool_reset(s, false);
        }
        break;
    case HDC_REG_NIC_SQN:
    case HDC_REG_NIC_DB_LO:
    case HDC_REG_NIC_DB_HI:
        if (s->nic.enabled) {
            hdc_bad_reg(s, "NIC queue changed while in use");
        } else if (addr == HDC_REG_NIC_SQN) {
            s->nic.sqn = val;
        } else if (addr == HDC_REG_NIC_DB_LO) {
            s->nic.db = deposit64(s->nic.db, 0, 32, val);
        } else {
            s->nic.db = deposit64(s->nic.db, 32, 32, val);
        }
        break;
    case HDC_REG_NIC_ARQN:
    case HDC_REG_NIC_ARQ_DB_LO:
    case HDC_REG_NIC_ARQ_DB_HI:
        if (s->nic.enabled) {
            hdc_bad_reg(s, "NIC queue changed while in use");
        } else if (addr == HDC_REG_NIC_ARQN) {
            s->tcp.rqn = val;
        } else if (addr == HDC_REG_NIC_ARQ_DB_LO) {
            s->tcp.rq_db = deposit64(s->tcp.rq_db, 0, 32, val);
        } else {
            s->tcp.rq_db = deposit64(s->tcp.rq_db, 32, 32, val);
        }
        break;
    case HDC_REG_NIC_CTRL:
        hdc_nic_ctrl_write(s, val);
        hdc_tcp_ctrl(s, val);
        break;
    case HDC_REG_NIC_RX_CTRL:
        hdc_nic_rx_ctrl_write(s, val);
        break;
    default:
        hdc_bad_reg(s, "write to undefined or read-only register");
        break;
    }
}

const MemoryRegionOps hdc_regs_ops = {
    .read = hdc_regs_read,
    .write = hdc_regs_write,
    D2D_MMIO_OPS_32BIT,
};
