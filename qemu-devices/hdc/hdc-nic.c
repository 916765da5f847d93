/*
 * hdc: the engine's NIC queues - a snic send queue and its completion
 * queue whose rings and doorbell records are in BAR4 (HDC_NVMEQ_NIC_*),
 * created by the driver through snic's peer-queue API and named to the
 * engine by HDC_REG_NIC_*.  A WRITE entry of an HDC_EP_NIC destination
 * becomes datagrams: a WQE each, its header generated from the flow's
 * template (IPv4 total length and id, UDP length; the NIC fills both
 * checksums) and inlined, its payload gathered by the NIC straight from
 * the entry's BAR2 chunk.  Every WQE is signaled; the snic's CQE writes
 * into BAR4 wake the engine, whose pass consumes them.  The doorbell is a
 * peer-to-peer write to the snic's BAR2, one per pass.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "d2d/snic_ifc.h"
#include "hdc.h"
#include "hw/d2d/trace.h"

#define HDC_NIC_SQ_BBS (1u << HDC_NIC_SQ_LOG)
#define HDC_NIC_CQ_SIZE (1u << HDC_NIC_CQ_LOG)

/*
 * Forget the queues (reset, HDC_NIC_DISABLE): the driver destroys them
 * next, so no CQE comes for the WQEs still posted; their chunks go back.
 */
void hdc_nic_reset(HdcState *s)
{
    HdcNic *n = &s->nic;
    unsigned i;

    for (i = 0; i < HDC_NIC_SQ_BBS; i++) {
        HdcNicSlot *slot = &n->slots[i];
        HdcEntry *e = slot->entry;

        if (slot->nbb && !e && slot->chunk >= 0) {
            hdc_chunk_orphan_put(s, slot->chunk);
        }
        slot->entry = NULL;
        if (e) {
            e->pending--;
            n->done(s, e, false);
        }
        slot->chunk = -1;
        slot->nbb = 0;
    }
    n->sqn = 0;
    n->db = 0;
    n->enabled = false;
    n->stop = false;
    n->db_pending = false;
}

void hdc_nic_init(HdcState *s)
{
    unsigned i;

    for (i = 0; i < HDC_NIC_SQ_BBS; i++) {
        s->nic.slots[i].chunk = -1;
    }
}

uint32_t hdc_nic_status(HdcState *s)
{
    return s->nic.enabled;
}

void hdc_nic_ctrl_write(HdcState *s, uint32_t val)
{
    HdcNic *n = &s->nic;

    switch (val) {
    case HDC_NIC_ENABLE:
        if (!n->db || n->enabled) {
            s->stats.bad_reg++;
            hdc_raise_error(s, HDC_ERR_BAD_REG,
                            "NIC enable without a doorbell, or twice");
            return;
        }
        /* The driver created the queues on zeroed rings and records. */
        memset(s->nv.q + HDC_NVMEQ_NIC_SQ, 0, HDC_NIC_SQ_BBS * 64);
        memset(s->nv.q + HDC_NVMEQ_NIC_CQ, 0, HDC_NIC_CQ_SIZE * 64);
        memset(s->nv.q + HDC_NVMEQ_NIC_DBR, 0, 8);
        n->sq_pi = 0;
        n->sq_ci = 0;
        n->cq_ci = 0;
        n->enabled = true;
        break;
    case HDC_NIC_DISABLE:
        /* What is at the NIC fails with HDC_ST_ENET at the next pass. */
        n->enabled = false;
        n->stop = true;
        hdc_kick(s);
        break;
    default:
        s->stats.bad_reg++;
        hdc_raise_error(s, HDC_ERR_BAD_REG, "unknown NIC control value");
        break;
    }
}

/* Is @addr (in BAR4) in one of the NIC's CQ rings? Then there is work. */
bool hdc_nic_is_cq(hwaddr addr)
{
    return (addr >= HDC_NVMEQ_NIC_CQ &&
            addr < HDC_NVMEQ_NIC_CQ + HDC_NIC_CQ_SIZE * 64) ||
           (addr >= HDC_NVMEQ_NIC_ARCQ &&
            addr < HDC_NVMEQ_NIC_ARCQ + (64 << HDC_NIC_ARQ_LOG));
}

/* The datagrams of WRITE @w: its len bytes in mss pieces. */
static uint32_t hdc_nic_ndgrams(const HdcJob *job, const HdcEntry *w)
{
    return DIV_ROUND_UP(w->len, job->flow.mss);
}

bool hdc_nic_post(HdcState *s, const uint8_t *hdr, unsigned hl,
                  uint64_t bus, uint32_t plen, HdcEntry *e)
{
    HdcNic *n = &s->nic;
    /* ctrl + eth (10 inline bytes) + the rest of the header + data */
    unsigned nds = 2 + DIV_ROUND_UP(hl > 10 ? hl - 10 : 0, 16) + !!plen;
    unsigned nbb = DIV_ROUND_UP(nds, 4), k;
    uint8_t wqe[4 * 64] = { 0 };
    struct snic_wqe_ctrl *c = (void *)wqe;
    struct snic_wqe_eth *eth = (void *)(wqe + 16);
    struct snic_wqe_data *d = (void *)(wqe + 16 * (nds - 1));
    uint16_t idx = n->sq_pi;
    HdcNicSlot *slot = &n->slots[idx & (HDC_NIC_SQ_BBS - 1)];

    if ((uint16_t)(n->sq_pi - n->sq_ci) + nbb > HDC_NIC_SQ_BBS) {
        return false;
    }
    c->opcode = SNIC_WQE_ETH_SEND;
    c->flags = SNIC_WQE_F_SIGNAL;
    c->wqe_idx = cpu_to_le16(idx);
    c->ds_cnt = nds;
    eth->cs_flags = SNIC_ETH_CS_L3 | SNIC_ETH_CS_L4;
    eth->inline_hdr_sz = cpu_to_le16(hl);
    memcpy(eth->inline_hdr, hdr, MIN(hl, 10));
    if (hl > 10) {
        memcpy(wqe + 32, hdr + 10, hl - 10);
    }
    if (plen) {
        d->byte_count = cpu_to_le32(plen);
        d->lkey = 0;
        d->addr = cpu_to_le64(bus);
    }
    for (k = 0; k < nbb; k++) {
        memcpy(s->nv.q + HDC_NVMEQ_NIC_SQ +
               ((idx + k) & (HDC_NIC_SQ_BBS - 1)) * 64, wqe + k * 64, 64);
    }
    slot->entry = e;
    slot->chunk = e ? e->chunk : -1;
    slot->nbb = nbb;
    n->sq_pi += nbb;
    n->db_pending = true;
    if (e) {
        e->pending++;
    }
    s->stats.dev_cmds++;
    return true;
}

/*
 * Post the datagrams of WRITE @w not yet posted, as far as the SQ has
 * room; 1 if it made progress, 0 if the ring is full, -1 if the NIC is
 * not there.
 */
int hdc_nic_submit(HdcState *s, HdcEntry *w)
{
    HdcNic *n = &s->nic;
    HdcJob *job = w->job;
    const HdcFlow *f = &job->flow;
    uint32_t mss = f->mss, nd = hdc_nic_ndgrams(job, w);
    uint64_t chunk_bus = s->nv.bar2 + (uint64_t)w->chunk * HDC_CHUNK_SIZE;
    unsigned hl = f->hdr_len;
    bool progress = false;

    if (!n->enabled) {
        return -1;
    }
    while (w->next_run < nd) {
        uint32_t i = w->next_run, off = i * mss;
        uint32_t plen = MIN(mss, w->len - off);
        uint8_t hdr[HDC_NET_HDR_MAX];
        uint64_t dgram = w->pos / mss + i;

        memcpy(hdr, f->hdr, hl);
        stw_be_p(hdr + f->l3_off + 2, hl - f->l3_off + plen);
        stw_be_p(hdr + f->l3_off + 4,
                 lduw_be_p(f->hdr + f->l3_off + 4) + (uint16_t)dgram);
        stw_be_p(hdr + f->l4_off + 4, hl - f->l4_off + plen);
        stw_be_p(hdr + f->l4_off + 6, 0);
        if (!hdc_nic_post(s, hdr, hl, chunk_bus + off, plen, w)) {
            break;
        }
        w->next_run++;
        progress = true;
    }
    return progress;
}

/* The entry is going away with WQEs at the NIC: keep its chunk. */
void hdc_nic_orphan(HdcState *s, HdcEntry *e)
{
    unsigned i;

    for (i = 0; e->pending && i < HDC_NIC_SQ_BBS; i++) {
        HdcNicSlot *slot = &s->nic.slots[i];

        if (slot->entry == e) {
            slot->entry = NULL;
            hdc_chunk_orphan_get(s, slot->chunk);
            e->pending--;
        }
    }
}

/* The CQEs the NIC wrote: each completes one datagram of a WRITE. */
void hdc_nic_process(HdcState *s)
{
    HdcNic *n = &s->nic;
    bool any = false;

    if (n->stop) {
        hdc_nic_reset(s);
        return;
    }
    while (n->enabled && n->sq_ci != n->sq_pi) {
        uint8_t *cqe = s->nv.q + HDC_NVMEQ_NIC_CQ +
                       (n->cq_ci & (HDC_NIC_CQ_SIZE - 1)) * 64;
        uint8_t phase = !((n->cq_ci >> HDC_NIC_CQ_LOG) & 1);
        uint8_t op = cqe[offsetof(struct snic_cqe, opcode)];
        uint16_t ctr = lduw_le_p(cqe + offsetof(struct snic_cqe,
                                                 wqe_counter));
        HdcNicSlot *slot;
        HdcEntry *e;

        if ((cqe[63] & SNIC_CQE_OWNER) != phase) {
            break;
        }
        n->cq_ci++;
        any = true;
        slot = &n->slots[ctr & (HDC_NIC_SQ_BBS - 1)];
        if (ctr != n->sq_ci || !slot->nbb) {
            /* Not the oldest WQE: the NIC completes in order. */
            s->stats.nic_errs++;
            hdc_raise_error(s, HDC_ERR_DMA, "NIC completion out of order");
            continue;
        }
        n->sq_ci += slot->nbb;
        slot->nbb = 0;
        e = slot->entry;
        slot->entry = NULL;
        if (!e) {
            if (slot->chunk >= 0) {
                hdc_chunk_orphan_put(s, slot->chunk);
            }
            slot->chunk = -1;
            continue;
        }
        slot->chunk = -1;
        e->pending--;
        if (op == SNIC_CQE_TX) {
            s->stats.nic_tx++;
        } else {
            s->stats.nic_errs++;
            D2D_GUEST_ERR(hdc_nic_tx_failed, "NIC error completion 0x%x "
                          "syndrome %u", op,
                          cqe[offsetof(struct snic_cqe, syndrome)]);
        }
        n->done(s, e, op == SNIC_CQE_TX);
    }
    if (any) {
        stl_le_p(s->nv.q + HDC_NVMEQ_NIC_DBR + 4, n->cq_ci);
    }
}

/* One doorbell for the WQEs of a pass: the record, then the snic. */
void hdc_nic_flush(HdcState *s)
{
    HdcNic *n = &s->nic;
    uint8_t b[4];

    if (!n->db_pending) {
        return;
    }
    n->db_pending = false;
    stl_le_p(s->nv.q + HDC_NVMEQ_NIC_DBR, n->sq_pi);
    stl_le_p(b, SNIC_DB_VAL(n->sqn, n->sq_pi));
    if (d2d_dma_write(&s->parent_obj, &s->pcie, NULL, n->db, b, 4) !=
        MEMTX_OK) {
        s->stats.dma_errs++;
        s->stats.nic_errs++;
        hdc_raise_error(s, HDC_ERR_DMA, "NIC doorbell write failed");
    }
}
