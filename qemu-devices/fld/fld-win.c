/*
 * fld: BAR2, the windows the NIC reaches over peer-to-peer PCIe.
 *
 * Nothing here is memory the NIC reads back verbatim: a send-ring read is
 * answered with a 64-byte WQE built from the 8-byte descriptor of that
 * ring slot; a CQE written into a completion window is compressed to 15
 * bytes as its last byte (the owner bit) lands; doorbell records are the
 * queues' counters; a transmit-buffer read goes through the translation
 * table into the shared buffer pool.  Receive windows are the buffers of
 * the striding receive queues.  Any access outside a configured window is
 * refused: counted, reported, answered with zeros.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "fld.h"
#include "hw/d2d/trace.h"

static void fld_bad_access(FldState *s, bool write, hwaddr addr,
                           const char *why)
{
    s->stats[write ? FLD_STAT_BAD_WRITES : FLD_STAT_BAD_READS]++;
    fld_raise_error(s, write ? FLD_ERR_WIN_WRITE : FLD_ERR_WIN_READ, addr,
                    why);
}

/* The WQE the NIC sees in basic block @bb of SQ @slot. */
static bool fld_wqe_build(FldState *s, unsigned slot, uint32_t bb,
                          uint8_t wqe[SNIC_WQEBB_SIZE])
{
    FldSq *sq = &s->sqs[slot];
    uint16_t mask = (1u << sq->log_size) - 1;
    uint16_t idx = sq->ci + ((bb - sq->ci) & mask);
    struct fld_txd t;

    memset(wqe, 0, SNIC_WQEBB_SIZE);
    if ((uint16_t)(idx - sq->ci) >= (uint16_t)(sq->pi - sq->ci) ||
        !fld_txd_get(s, slot, idx, &t)) {
        return false;
    }
    if (sq->rdma) {
        fld_rdma_wqe(s, slot, idx, &t, wqe);
        return true;
    }
    fld_eth_wqe(s, slot, idx, &t, wqe);
    return true;
}

static uint64_t fld_win_read(void *opaque, hwaddr addr, unsigned size)
{
    FldState *s = opaque;
    uint8_t buf[8] = { 0 };
    uint64_t v64;
    unsigned i;

    d2d_mmio_account(&s->pcie, false, addr, size);
    if (fld_rdma_win_read(s, addr, size, &v64)) {
        return v64;
    }
    if (addr < FLD_WIN_SQ + FLD_MAX_SQS * FLD_SQ_WIN_SIZE) {
        unsigned slot = addr / FLD_SQ_WIN_SIZE;
        uint32_t off = addr % FLD_SQ_WIN_SIZE;
        FldSq *sq = &s->sqs[slot];
        uint8_t wqe[SNIC_WQEBB_SIZE];

        if (!sq->valid || off + size > (SNIC_WQEBB_SIZE << sq->log_size) ||
            off % SNIC_WQEBB_SIZE + size > SNIC_WQEBB_SIZE) {
            fld_bad_access(s, false, addr, "read outside a send ring");
            return 0;
        }
        if (!fld_wqe_build(s, slot, off / SNIC_WQEBB_SIZE, wqe)) {
            /* Narrower reads are reachability probes, not WQE fetches. */
            if (off % SNIC_WQEBB_SIZE == 0 && size == 8) {
                s->stats[FLD_STAT_WQE_MISSES]++;
                fld_raise_error(s, FLD_ERR_WQE_MISS, addr,
                                "send slot with no descriptor");
            }
        } else if (off % SNIC_WQEBB_SIZE == 0) {
            s->stats[FLD_STAT_WQE_READS]++;
        }
        memcpy(buf, wqe + off % SNIC_WQEBB_SIZE, size);
    } else if (addr >= FLD_WIN_DBR && addr < FLD_WIN_DBR + FLD_DBR_SIZE &&
               addr % 4 + size <= 4) {
        uint32_t off = (addr - FLD_WIN_DBR) & ~3u, v;

        if (off < FLD_DBR_CQ && off / 4 < FLD_MAX_SQS &&
            s->sqs[off / 4].valid) {
            v = s->sqs[off / 4].pi;
        } else if (off >= FLD_DBR_CQ && off < FLD_DBR_RQ &&
                   (off - FLD_DBR_CQ) / 4 < FLD_MAX_CQS &&
                   s->cqs[(off - FLD_DBR_CQ) / 4].valid) {
            v = s->cqs[(off - FLD_DBR_CQ) / 4].nic_ci;
        } else if (off >= FLD_DBR_RQ && (off - FLD_DBR_RQ) / 4 < FLD_MAX_RQS &&
                   s->rqs[(off - FLD_DBR_RQ) / 4].valid) {
            v = s->rqs[(off - FLD_DBR_RQ) / 4].pi;
        } else {
            fld_bad_access(s, false, addr, "doorbell record of no queue");
            return 0;
        }
        s->stats[FLD_STAT_DBR_READS]++;
        return extract64(v, 8 * (addr % 4), 8 * size);
    } else if (addr >= FLD_WIN_TXBUF &&
               addr < FLD_WIN_TXBUF + FLD_MAX_SQS * FLD_TXBUF_WIN_SIZE) {
        unsigned slot = (addr - FLD_WIN_TXBUF) / FLD_TXBUF_WIN_SIZE;
        uint32_t off = (addr - FLD_WIN_TXBUF) % FLD_TXBUF_WIN_SIZE;

        for (i = 0; i < size; i++) {
            if (off + i >= FLD_TXBUF_WIN_SIZE ||
                !fld_txbuf_byte(s, slot, off + i, &buf[i])) {
                fld_bad_access(s, false, addr,
                               "transmit buffer not in the translation table");
                return 0;
            }
        }
        s->stats[FLD_STAT_TXBUF_READ_BYTES] += size;
    } else if (addr >= FLD_WIN_CQ &&
               addr < FLD_WIN_CQ + FLD_MAX_CQS * FLD_CQ_WIN_SIZE &&
               s->cqs[(addr - FLD_WIN_CQ) / FLD_CQ_WIN_SIZE].valid) {
        /* CQs are write-only for the NIC; FLD keeps no 64-byte CQEs. */
        return 0;
    } else {
        fld_bad_access(s, false, addr, "read outside any window");
        return 0;
    }
    return ldn_le_p(buf, size);
}

/* Keep CQE @raw in compressed form; false if it does not compress. */
static bool fld_cqe_store(FldState *s, FldCq *cq, const uint8_t *raw,
                          hwaddr addr)
{
    uint8_t *z = cq->ring[cq->pi & FLD_CQ_RING_MASK];
    bool ovf;

    if (!fld_cqe_compress(raw, z, &ovf)) {
        s->stats[FLD_STAT_CQE_BAD_QUEUE]++;
        fld_raise_error(s, FLD_ERR_CQE_QUEUE, addr,
                        "CQE field beyond the compressed form");
        return false;
    }
    if (ovf) {
        s->stats[FLD_STAT_CQE_TAG_OVERFLOW]++;
    }
    cq->last[cq->pi & FLD_CQ_RING_MASK] = 0;
    cq->pi++;
    s->stats[FLD_STAT_CQE_WRITES]++;
    return true;
}

/* A byte range of the CQE being written into CQ @slot arrived. */
static void fld_cqe_write(FldState *s, unsigned slot, uint32_t off,
                          const uint8_t *b, unsigned size, hwaddr addr)
{
    FldCq *cq = &s->cqs[slot];
    uint32_t entry = off / SNIC_WQEBB_SIZE, o = off % 64, i, n = 1, kept = 0;
    uint8_t raw[7][64];

    if (cq->stage_mask && entry != cq->stage_slot) {
        /* The previous CQE never got its owner byte. */
        fld_bad_access(s, true, addr, "CQE left incomplete");
        cq->stage_mask = 0;
    }
    cq->stage_slot = entry;
    for (i = 0; i < size; i++) {
        cq->stage[o + i] = b[i];
        cq->stage_mask |= 1ull << (o + i);
    }
    if (!(cq->stage_mask & (1ull << 63))) {
        return;
    }
    if (cq->stage_mask != UINT64_MAX) {
        fld_bad_access(s, true, addr, "CQE owner byte before its body");
        cq->stage_mask = 0;
        return;
    }
    cq->stage_mask = 0;
    if (cq->stage[63] & SNIC_CQE_MINI) {
        n = fld_cqe_line_split(cq->stage, raw);
        if (!n) {
            s->stats[FLD_STAT_CQE_BAD_QUEUE]++;
            fld_raise_error(s, FLD_ERR_CQE_QUEUE, addr,
                            "mini-CQE line with no or too many entries");
            return;
        }
    } else {
        memcpy(raw[0], cq->stage, 64);
    }
    if ((uint16_t)(cq->nic_pi - cq->nic_ci) >= (1u << cq->log_size) ||
        (uint16_t)(cq->pi - cq->ci) + n > (1u << FLD_CQ_MAX_LOG)) {
        /* The NIC checks room against our doorbell record first. */
        fld_bad_access(s, true, addr, "CQE into a full completion queue");
        return;
    }
    for (i = 0; i < n; i++) {
        kept += fld_cqe_store(s, cq, raw[i], addr);
    }
    /* The NIC's entry retires with the last CQE kept of it, or now. */
    if (kept) {
        cq->last[(cq->pi - 1) & FLD_CQ_RING_MASK] = 1;
    } else {
        cq->nic_ci++;
    }
    cq->nic_pi++;
    trace_fld_cqe_write(slot, cq->pi);
    fld_kick(s);
}

static void fld_win_write(void *opaque, hwaddr addr, uint64_t val,
                          unsigned size)
{
    FldState *s = opaque;
    uint8_t b[8];

    d2d_mmio_account(&s->pcie, true, addr, size);
    stn_le_p(b, size, val);
    if (addr >= FLD_WIN_CQ &&
        addr < FLD_WIN_CQ + FLD_MAX_CQS * FLD_CQ_WIN_SIZE) {
        unsigned slot = (addr - FLD_WIN_CQ) / FLD_CQ_WIN_SIZE;
        uint32_t off = (addr - FLD_WIN_CQ) % FLD_CQ_WIN_SIZE;
        FldCq *cq = &s->cqs[slot];

        if (!cq->valid || off + size > (64u << cq->log_size) ||
            off % 64 + size > 64) {
            fld_bad_access(s, true, addr, "write outside a completion ring");
            return;
        }
        fld_cqe_write(s, slot, off, b, size, addr);
    } else if (fld_rdma_win_write(s, addr, b, size)) {
        return;
    } else if (addr >= FLD_WIN_RXBUF &&
               addr < FLD_WIN_RXBUF + FLD_MAX_RQS * FLD_RQ_BUF_SIZE) {
        unsigned slot = (addr - FLD_WIN_RXBUF) / FLD_RQ_BUF_SIZE;
        uint32_t off = (addr - FLD_WIN_RXBUF) % FLD_RQ_BUF_SIZE;
        FldRq *rq = &s->rqs[slot];

        if (!rq->valid || off + size >
            (1u << (rq->log_size + rq->log_stride + rq->log_nstrides))) {
            fld_bad_access(s, true, addr, "write outside receive buffers");
            return;
        }
        memcpy(rq->buf + off, b, size);
        s->stats[FLD_STAT_RXBUF_WRITE_BYTES] += size;
    } else {
        fld_bad_access(s, true, addr, "write outside any window");
    }
}

const MemoryRegionOps fld_win_ops = {
    .read = fld_win_read,
    .write = fld_win_write,
    D2D_MMIO_OPS_ANY_SIZE,
};
