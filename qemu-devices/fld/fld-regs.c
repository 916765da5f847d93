/*
 * fld: BAR0 register file - identity, control, reset, errors, the command
 * interface that configures the queue table, the memory table and the
 * statistics.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "hw/pci/msix.h"
#include "fld.h"
#include "hw/d2d/trace.h"

#define FLD_CAPS (FLD_CAP_ECHO | FLD_CAP_ZUC | FLD_CAP_DEFRAG | \
                  FLD_CAP_IOTAUTH | FLD_CAP_STRIDING_RQ | FLD_CAP_RDMA)

static void fld_mem_update(FldState *s)
{
    if (fld_mem_compute(&s->mem_params, &s->mem) < 0) {
        memset(&s->mem, 0, sizeof(s->mem));
    }
}

void fld_reset_state(FldState *s)
{
    s->tx_signal = s->tx_signal_prop;
    s->mmio_wqe = s->mmio_wqe_prop;
    fld_stream_reset(s);
    fld_rdma_reset(s);
    d2d_timing_reset(&s->timing);
    memset(s->stats, 0, sizeof(s->stats));
    fld_error_reset(s);
    s->cmd_status = FLD_CMD_OK;
    s->cmd_result = 0;
    memset(s->cmd_args, 0, sizeof(s->cmd_args));
    fld_mem_params_paper(&s->mem_params);
    fld_mem_update(s);
    memset(s->keys, 0, sizeof(s->keys));
    memset(s->key_len, 0, sizeof(s->key_len));
    s->time_set = false;
}

/* ---- commands ---- */

static uint64_t arg64(FldState *s, int lo)
{
    return s->cmd_args[lo] | (uint64_t)s->cmd_args[lo + 1] << 32;
}

static bool fld_qn_ok(uint32_t qn, uint32_t max)
{
    return qn < max || qn == FLD_QN_NONE;
}

static uint32_t fld_cmd_bind(FldState *s)
{
    uint32_t kind = s->cmd_args[0], slot = s->cmd_args[1];
    uint32_t qn = s->cmd_args[2];
    uint64_t db = arg64(s, 3);

    if (db % 4) {
        return FLD_CMD_EINVAL;
    }
    switch (kind) {
    case FLD_BIND_SQ:
        if (slot >= FLD_MAX_SQS || !fld_qn_ok(qn, SNIC_MAX_SQS)) {
            return FLD_CMD_EINVAL;
        }
        if (!s->sqs[slot].valid) {
            return FLD_CMD_ENOENT;
        }
        if (s->sqs[slot].rdma) {
            return FLD_CMD_EBUSY;       /* an FLD-R QP's: FLD_BIND_QP */
        }
        s->sqs[slot].sqn = qn;
        if (db) {
            s->sqs[slot].db_addr = db;
        }
        return FLD_CMD_OK;
    case FLD_BIND_RQ:
        if (slot >= FLD_MAX_RQS || !fld_qn_ok(qn, SNIC_MAX_RQS)) {
            return FLD_CMD_EINVAL;
        }
        if (!s->rqs[slot].valid) {
            return FLD_CMD_ENOENT;
        }
        s->rqs[slot].rqn = qn;
        if (db) {
            s->rqs[slot].db_addr = db;
        }
        return FLD_CMD_OK;
    case FLD_BIND_CQ:
        if (slot >= FLD_MAX_CQS || !fld_qn_ok(qn, SNIC_MAX_CQS)) {
            return FLD_CMD_EINVAL;
        }
        if (!s->cqs[slot].valid) {
            return FLD_CMD_ENOENT;
        }
        s->cqs[slot].cqn = qn;
        return FLD_CMD_OK;
    case FLD_BIND_QP:
        return fld_rdma_bind(s, slot, qn, db);
    default:
        return FLD_CMD_EINVAL;
    }
}

static uint32_t fld_cmd_sq_set(FldState *s)
{
    uint32_t slot = s->cmd_args[0], log = s->cmd_args[2];
    uint32_t cq = s->cmd_args[3];
    FldSq *sq;

    if (slot >= FLD_MAX_SQS || !fld_qn_ok(s->cmd_args[1], SNIC_MAX_SQS) ||
        log < SNIC_MIN_LOG_SIZE || log > FLD_SQ_MAX_LOG ||
        cq >= FLD_MAX_CQS || arg64(s, 4) % 4) {
        return FLD_CMD_EINVAL;
    }
    if (!s->cqs[cq].valid) {
        return FLD_CMD_ENOENT;
    }
    sq = &s->sqs[slot];
    if (sq->valid) {
        return FLD_CMD_EBUSY;
    }
    memset(sq, 0, sizeof(*sq));
    sq->valid = true;
    sq->sqn = s->cmd_args[1];
    sq->log_size = log;
    sq->cq = cq;
    sq->db_addr = arg64(s, 4);
    sq->quota = s->cmd_args[6] ? s->cmd_args[6] :
                s->pool_blocks * FLD_BLOCK_SIZE;
    s->cmd_result = FLD_WIN_SQ + slot * FLD_SQ_WIN_SIZE;
    return FLD_CMD_OK;
}

static uint32_t fld_cmd_cq_set(FldState *s)
{
    uint32_t slot = s->cmd_args[0], log = s->cmd_args[2];
    FldCq *cq;

    if (slot >= FLD_MAX_CQS || !fld_qn_ok(s->cmd_args[1], SNIC_MAX_CQS) ||
        log < SNIC_MIN_LOG_SIZE || log > FLD_CQ_MAX_LOG) {
        return FLD_CMD_EINVAL;
    }
    cq = &s->cqs[slot];
    if (cq->valid) {
        return FLD_CMD_EBUSY;
    }
    cq->valid = true;
    cq->cqn = s->cmd_args[1];
    cq->log_size = log;
    cq->pi = cq->ci = 0;
    cq->nic_pi = cq->nic_ci = 0;
    cq->stage_mask = 0;
    s->cmd_result = FLD_WIN_CQ + slot * FLD_CQ_WIN_SIZE;
    return FLD_CMD_OK;
}

static uint32_t fld_cmd_rq_set(FldState *s)
{
    uint32_t slot = s->cmd_args[0], log = s->cmd_args[2];
    uint32_t lstr = s->cmd_args[3], lns = s->cmd_args[4];
    uint32_t cq = s->cmd_args[5];
    FldRq *rq;

    if (slot >= FLD_MAX_RQS || !fld_qn_ok(s->cmd_args[1], SNIC_MAX_RQS) ||
        log < SNIC_MIN_LOG_SIZE || log > FLD_RQ_MAX_LOG ||
        lstr < FLD_RQ_MIN_LOG_STRIDE || lstr > FLD_RQ_MAX_LOG_STRIDE ||
        lns < 1 || lns > FLD_RQ_MAX_LOG_NSTRIDES || cq >= FLD_MAX_CQS ||
        ((uint64_t)1 << (log + lstr + lns)) > FLD_RQ_BUF_SIZE ||
        ((uint64_t)1 << (lstr + lns)) < FLD_MAX_FRAME ||
        arg64(s, 6) % 4) {
        return FLD_CMD_EINVAL;
    }
    if (!s->cqs[cq].valid) {
        return FLD_CMD_ENOENT;
    }
    rq = &s->rqs[slot];
    if (rq->valid) {
        return FLD_CMD_EBUSY;
    }
    rq->valid = true;
    rq->rqn = s->cmd_args[1];
    rq->log_size = log;
    rq->log_stride = lstr;
    rq->log_nstrides = lns;
    rq->cq = cq;
    rq->routed = false;
    rq->db_addr = arg64(s, 6);
    fld_inq_flush(s, slot);
    memset(rq->stats, 0, sizeof(rq->stats));
    /* Every buffer is posted once; recycling only advances the counter. */
    rq->pi = 1u << log;
    rq->db_pi = rq->pi;
    s->cmd_result = FLD_WIN_RXBUF + slot * FLD_RQ_BUF_SIZE;
    return FLD_CMD_OK;
}

static bool fld_cq_in_use(FldState *s, unsigned cq)
{
    unsigned i;

    for (i = 0; i < FLD_MAX_SQS; i++) {
        if (s->sqs[i].valid && s->sqs[i].cq == cq) {
            return true;
        }
    }
    for (i = 0; i < FLD_MAX_RQS; i++) {
        if (s->rqs[i].valid && s->rqs[i].cq == cq) {
            return true;
        }
    }
    return fld_rdma_cq_in_use(s, cq);
}

static uint32_t fld_cmd(FldState *s, uint32_t op)
{
    uint32_t slot = s->cmd_args[0];
    int i;

    s->cmd_result = 0;
    if (!(s->status & FLD_STATUS_READY)) {
        return FLD_CMD_ESTATE;
    }
    switch (op) {
    case FLD_CMD_NOP:
        return FLD_CMD_OK;
    case FLD_CMD_SQ_SET:
        return fld_cmd_sq_set(s);
    case FLD_CMD_SQ_CLEAR:
        if (slot >= FLD_MAX_SQS) {
            return FLD_CMD_EINVAL;
        }
        if (!s->sqs[slot].valid) {
            return FLD_CMD_ENOENT;
        }
        if (s->sqs[slot].rdma) {
            return FLD_CMD_EBUSY;       /* cleared with its QP */
        }
        for (i = 0; i < FLD_MAX_RQS; i++) {
            if (s->rqs[i].valid && s->rqs[i].routed &&
                s->rqs[i].route_sq == slot) {
                return FLD_CMD_EBUSY;
            }
        }
        fld_sq_drop(s, slot);
        return FLD_CMD_OK;
    case FLD_CMD_CQ_SET:
        return fld_cmd_cq_set(s);
    case FLD_CMD_CQ_CLEAR:
        if (slot >= FLD_MAX_CQS) {
            return FLD_CMD_EINVAL;
        }
        if (!s->cqs[slot].valid) {
            return FLD_CMD_ENOENT;
        }
        if (fld_cq_in_use(s, slot)) {
            return FLD_CMD_EBUSY;
        }
        s->cqs[slot].valid = false;
        return FLD_CMD_OK;
    case FLD_CMD_RQ_SET:
        return fld_cmd_rq_set(s);
    case FLD_CMD_RQ_CLEAR:
        if (slot >= FLD_MAX_RQS) {
            return FLD_CMD_EINVAL;
        }
        if (!s->rqs[slot].valid) {
            return FLD_CMD_ENOENT;
        }
        fld_inq_flush(s, slot);
        s->rqs[slot].valid = false;
        return FLD_CMD_OK;
    case FLD_CMD_RQ_ROUTE:
        if (slot >= FLD_MAX_RQS || s->cmd_args[1] >= FLD_MAX_SQS) {
            return FLD_CMD_EINVAL;
        }
        if (!s->rqs[slot].valid || !s->sqs[s->cmd_args[1]].valid) {
            return FLD_CMD_ENOENT;
        }
        if (s->sqs[s->cmd_args[1]].rdma) {
            return FLD_CMD_EINVAL;      /* frames cannot go out as SENDs */
        }
        s->rqs[slot].route_sq = s->cmd_args[1];
        s->rqs[slot].routed = true;
        return FLD_CMD_OK;
    case FLD_CMD_BIND:
        return fld_cmd_bind(s);
    case FLD_CMD_QP_SET:
        return fld_cmd_qp_set(s);
    case FLD_CMD_QP_CLEAR:
        return fld_cmd_qp_clear(s, slot);
    case FLD_CMD_PCIE_SET:
        /* the next WQEs follow the new setting (docs/fld.md) */
        if (!s->cmd_args[0] || s->cmd_args[0] > FLD_TX_SIGNAL_MAX ||
            (s->cmd_args[1] & ~FLD_PCIE_F_MMIO_WQE)) {
            return FLD_CMD_EINVAL;
        }
        s->tx_signal = s->cmd_args[0];
        s->mmio_wqe = s->cmd_args[1] & FLD_PCIE_F_MMIO_WQE;
        return FLD_CMD_OK;
    case FLD_CMD_KEY_SET: {
        uint32_t chunk = s->cmd_args[1] & 0xff, len = s->cmd_args[1] >> 8;
        uint32_t i;

        if (slot >= FLD_NUM_KEYS || len > FLD_KEY_MAX ||
            chunk * FLD_KEY_CHUNK >= FLD_KEY_MAX) {
            return FLD_CMD_EINVAL;
        }
        for (i = 0; i < FLD_KEY_CHUNK &&
             chunk * FLD_KEY_CHUNK + i < FLD_KEY_MAX; i++) {
            s->keys[slot][chunk * FLD_KEY_CHUNK + i] =
                s->cmd_args[2 + i / 4] >> (8 * (i % 4));
        }
        s->key_len[slot] = len;
        return FLD_CMD_OK;
    }
    case FLD_CMD_MEM_PARAMS: {
        FldMemParams p = {
            .linerate_gbps = s->cmd_args[0], .num_txq = s->cmd_args[1],
            .min_msg = s->cmd_args[2], .max_msg = s->cmd_args[3],
            .lat_tx_us = s->cmd_args[4], .lat_rx_us = s->cmd_args[5],
            .tx_block = s->cmd_args[6],
        };
        FldMemTable t;

        if (fld_mem_compute(&p, &t) < 0) {
            return FLD_CMD_EINVAL;
        }
        s->mem_params = p;
        s->mem = t;
        return FLD_CMD_OK;
    }
    default:
        return FLD_CMD_EOPNOTSUPP;
    }
}

/* ---- memory table ---- */

/* Bytes this instance allocated for structure @row. */
static uint64_t fld_mem_actual(FldState *s, unsigned row)
{
    uint64_t n = 0;
    unsigned i;

    switch (row) {
    case FLD_MEM_ROW_TX_RING:
        return (uint64_t)s->pool.size * sizeof(struct fld_txd);
    case FLD_MEM_ROW_TX_RING_MAP:
        return fld_ck_bytes(&s->pool.map);
    case FLD_MEM_ROW_TX_BUF:
        return (uint64_t)s->pool_blocks * FLD_BLOCK_SIZE;
    case FLD_MEM_ROW_TX_BUF_MAP:
        return fld_ck_bytes(&s->bmap);
    case FLD_MEM_ROW_RX_BUF:
        for (i = 0; i < FLD_MAX_RQS; i++) {
            if (s->rqs[i].valid) {
                n += 1ull << (s->rqs[i].log_size + s->rqs[i].log_stride +
                              s->rqs[i].log_nstrides);
            }
        }
        return n;
    case FLD_MEM_ROW_CQ:
        for (i = 0; i < FLD_MAX_CQS; i++) {
            n += s->cqs[i].valid ? FLD_CQE_SIZE << s->cqs[i].log_size : 0;
        }
        return n;
    case FLD_MEM_ROW_PI:
        /* producer counters of SQs and RQs, 2 bytes each */
        for (i = 0; i < FLD_MAX_SQS; i++) {
            n += s->sqs[i].valid ? 2 : 0;
        }
        for (i = 0; i < FLD_MAX_RQS; i++) {
            n += s->rqs[i].valid ? 2 : 0;
        }
        return n;
    default:
        return 0;
    }
}

static uint64_t fld_mem_value(FldState *s, unsigned row, unsigned col)
{
    unsigned r;
    uint64_t sum = 0;

    if (row == FLD_MEM_TOTAL) {
        if (col == 0) {
            return s->mem.fld_total;
        }
        if (col == 1) {
            return s->mem.conv_total;
        }
        for (r = 0; r < FLD_MEM_TOTAL; r++) {
            sum += fld_mem_value(s, r, col);
        }
        return sum;
    }
    switch (col) {
    case 0:
        return s->mem.fld[row];
    case 1:
        return s->mem.conv[row];
    case 2:
        return fld_mem_actual(s, row);
    default:
        return 0;
    }
}

/* ---- register access ---- */

static void fld_bad_reg(FldState *s, hwaddr addr, const char *why)
{
    fld_raise_error(s, FLD_ERR_BAD_REG, addr, why);
}

static uint64_t fld_regs_read(void *opaque, hwaddr addr, unsigned size)
{
    FldState *s = opaque;

    d2d_mmio_account(&s->pcie, false, addr, size);
    if (addr >= FLD_REG_STATS &&
        addr < FLD_REG_STATS + 8 * FLD_STAT_COUNT) {
        uint64_t v = s->stats[(addr - FLD_REG_STATS) / 8];

        return addr % 8 ? v >> 32 : (uint32_t)v;
    }
    if (addr >= FLD_REG_RQ_STATS &&
        addr < FLD_REG_RQ_STATS + FLD_RQ_STATS_SIZE * FLD_MAX_RQS) {
        unsigned slot = (addr - FLD_REG_RQ_STATS) / FLD_RQ_STATS_SIZE;
        unsigned k = (addr - FLD_REG_RQ_STATS) % FLD_RQ_STATS_SIZE / 8;
        /* HELD is a gauge: the RQ's input queue length right now */
        uint64_t v = k == FLD_RQ_STAT_HELD ? s->inq[slot].len :
                     k < FLD_RQ_STAT_COUNT ? s->rqs[slot].stats[k] : 0;

        return addr % 8 ? v >> 32 : (uint32_t)v;
    }
    if (addr >= FLD_REG_MEM &&
        addr < FLD_REG_MEM + FLD_MEM_ROW_SIZE * FLD_MEM_NROWS) {
        unsigned row = (addr - FLD_REG_MEM) / FLD_MEM_ROW_SIZE;
        unsigned col = (addr - FLD_REG_MEM) % FLD_MEM_ROW_SIZE / 8;
        uint64_t v = fld_mem_value(s, row, col);

        return addr % 8 ? v >> 32 : (uint32_t)v;
    }
    if (addr >= FLD_REG_CMD_ARG0 &&
        addr < FLD_REG_CMD_ARG0 + 4 * FLD_CMD_NARGS) {
        return s->cmd_args[(addr - FLD_REG_CMD_ARG0) / 4];
    }
    switch (addr) {
    case FLD_REG_ID:
        return FLD_ID_MAGIC;
    case FLD_REG_VERSION:
        return FLD_VERSION;
    case FLD_REG_CAPS:
        return FLD_CAPS;
    case FLD_REG_ACCEL:
        return s->accel->id;
    case FLD_REG_CTRL:
        return s->ctrl;
    case FLD_REG_STATUS:
        return s->status;
    case FLD_REG_ERROR:
        return s->error;
    case FLD_REG_ERROR_COUNT:
        return s->error_count;
    case FLD_REG_ERR_MSIX:
        return s->err_msix;
    case FLD_REG_ERR_INFO:
        return s->err_info;
    case FLD_REG_CMD_STATUS:
        return s->cmd_status;
    case FLD_REG_CMD_RESULT:
        return s->cmd_result;
    case FLD_REG_WIN_SIZE:
        return FLD_WIN_SIZE;
    case FLD_REG_MAX_SQS:
        return FLD_MAX_SQS;
    case FLD_REG_MAX_CQS:
        return FLD_MAX_CQS;
    case FLD_REG_MAX_RQS:
        return FLD_MAX_RQS;
    case FLD_REG_POOL_DESCS:
        return s->pool.size;
    case FLD_REG_POOL_BLOCKS:
        return s->pool_blocks;
    case FLD_REG_BLOCK_SIZE:
        return FLD_BLOCK_SIZE;
    case FLD_REG_POOL_IN_USE:
        return fld_pool_in_use(&s->pool);
    case FLD_REG_BLOCKS_IN_USE:
        return s->pool_blocks - s->bfree_top;
    case FLD_REG_UNIX_TIME:
        return s->time_set ? (uint32_t)fld_unix_time(s) : 0;
    case FLD_REG_SQ_SEL:
        return s->sq_sel;
    case FLD_REG_SQ_CREDIT_DESCS:
    case FLD_REG_SQ_CREDIT_BYTES: {
        uint32_t descs, bytes;

        /* an unused or out-of-range slot has no credits */
        fld_stream_credits(s, MIN(s->sq_sel, FLD_MAX_SQS), &descs, &bytes);
        return addr == FLD_REG_SQ_CREDIT_DESCS ? descs : bytes;
    }
    default:
        fld_bad_reg(s, addr, "read of an undefined register");
        return 0;
    }
}

static void fld_write_ctrl(FldState *s, uint32_t val)
{
    trace_fld_ctrl_write(val);
    s->ctrl = val & (FLD_CTRL_RESET | FLD_CTRL_ENABLE);
    if (val & FLD_CTRL_RESET) {
        fld_reset_state(s);
        s->status = 0;
        return;
    }
    s->status |= FLD_STATUS_READY;
    if (val & FLD_CTRL_ENABLE) {
        s->status |= FLD_STATUS_ENABLED;
        fld_kick(s);
    } else {
        s->status &= ~FLD_STATUS_ENABLED;
    }
}

static void fld_regs_write(void *opaque, hwaddr addr, uint64_t val,
                           unsigned size)
{
    FldState *s = opaque;

    d2d_mmio_account(&s->pcie, true, addr, size);
    if (addr >= FLD_REG_CMD_ARG0 &&
        addr < FLD_REG_CMD_ARG0 + 4 * FLD_CMD_NARGS) {
        s->cmd_args[(addr - FLD_REG_CMD_ARG0) / 4] = val;
        return;
    }
    switch (addr) {
    case FLD_REG_CTRL:
        fld_write_ctrl(s, val);
        break;
    case FLD_REG_ERROR:
        if (val == 0) {
            s->error = FLD_ERR_NONE;
        }
        break;
    case FLD_REG_ERR_MSIX:
        s->err_msix = val;
        break;
    case FLD_REG_SQ_SEL:
        s->sq_sel = val;
        break;
    case FLD_REG_UNIX_TIME:
        /* from now on Unix time advances with the virtual clock */
        s->time_set = val != 0;
        s->time_offset_ns = (int64_t)val * NANOSECONDS_PER_SECOND -
                            qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
        break;
    case FLD_REG_CMD:
        s->cmd_status = fld_cmd(s, val);
        trace_fld_cmd(val, s->cmd_status, s->cmd_result);
        if (s->cmd_status != FLD_CMD_OK) {
            s->stats[FLD_STAT_BAD_CMDS]++;
            fld_raise_error(s, FLD_ERR_BAD_CMD, val, "command refused");
        }
        break;
    default:
        fld_bad_reg(s, addr, "write to an undefined or read-only register");
        break;
    }
}

const MemoryRegionOps fld_regs_ops = {
    .read = fld_regs_read,
    .write = fld_regs_write,
    D2D_MMIO_OPS_32BIT,
};
