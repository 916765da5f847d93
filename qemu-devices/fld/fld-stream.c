/*
 * fld: the accelerator stream API and FLD's side of the data plane.
 *
 * Transmit: the accelerator hands a frame to fld_stream_tx(); FLD charges
 * the send queue's credits (ring slots, buffer bytes), copies the frame
 * into blocks of the shared buffer pool, maps the queue's window blocks
 * onto them (translation table), posts the 8-byte descriptor in the
 * shared pool under (queue, ring index) and rings the NIC's doorbell.
 * Completions release all three.  Receive: each RX CQE names a stride of
 * a receive window; the frame goes to the accelerator's input FIFO with
 * its metadata (never back-pressured: a full FIFO drops and counts).  Each
 * RQ - a tenant - has its own queue in that FIFO, bounded by an equal
 * share of its slots, and the RQs are served round robin: a tenant whose
 * send queue has no credit (rate limited by the NIC) stalls and overflows
 * only its own queue, its drops counted against its RQ.  A
 * retired buffer is reposted by advancing the producer counter only - the
 * ring in host memory is never rewritten because buffers come back in
 * the order they were posted.
 *
 * All of it runs in FLD's bottom half; MMIO handlers only record and kick,
 * so FLD never reaches the NIC while the NIC is reaching FLD.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "fld.h"
#include "hw/d2d/trace.h"

#define VBLOCKS (FLD_TXBUF_WIN_SIZE / FLD_BLOCK_SIZE)
#define BKEY(slot, vb) ((uint32_t)(slot) << 16 | (vb))

void fld_stream_reset(FldState *s)
{
    unsigned i;

    for (i = 0; i < FLD_MAX_SQS; i++) {
        memset(&s->sqs[i], 0, sizeof(s->sqs[i]));
    }
    for (i = 0; i < FLD_MAX_CQS; i++) {
        s->cqs[i].valid = false;
        s->cqs[i].pi = s->cqs[i].ci = 0;
        s->cqs[i].nic_pi = s->cqs[i].nic_ci = 0;
        s->cqs[i].stage_mask = 0;
    }
    for (i = 0; i < FLD_MAX_RQS; i++) {
        s->rqs[i].valid = false;
    }
    fld_pool_reset(&s->pool);
    fld_ck_clear(&s->bmap);
    for (i = 0; i < s->pool_blocks; i++) {
        s->bfree[i] = s->pool_blocks - 1 - i;
    }
    s->bfree_top = s->pool_blocks;
    for (i = 0; i < FLD_ACCEL_FIFO; i++) {
        s->pkt_free[i] = i;
    }
    s->pkt_free_top = FLD_ACCEL_FIFO;
    s->accel_rr = 0;
    memset(s->inq, 0, sizeof(s->inq));
    for (i = 0; i < FLD_MAX_RQS; i++) {
        memset(s->rqs[i].stats, 0, sizeof(s->rqs[i].stats));
    }
    if (s->df) {
        fld_defrag_reset(s->df);
        s->df_out_len = 0;
    }
}

bool fld_txd_get(FldState *s, unsigned slot, uint16_t idx,
                 struct fld_txd *d)
{
    uint64_t v;

    if (!fld_pool_get(&s->pool, slot, idx, &v)) {
        return false;
    }
    memcpy(d, &v, sizeof(*d));
    return true;
}

bool fld_txbuf_byte(FldState *s, unsigned slot, uint32_t off, uint8_t *b)
{
    uint32_t pb;

    if (!s->sqs[slot].valid ||
        !fld_ck_lookup(&s->bmap, BKEY(slot, off / FLD_BLOCK_SIZE), &pb)) {
        return false;
    }
    *b = s->blocks[(size_t)pb * FLD_BLOCK_SIZE + off % FLD_BLOCK_SIZE];
    return true;
}

/* Unmap window blocks [vb, vb + n) of @slot and free their pool blocks. */
static void fld_blocks_put(FldState *s, unsigned slot, unsigned vb,
                           unsigned n)
{
    unsigned i;
    uint32_t pb;

    for (i = 0; i < n; i++) {
        uint32_t key = BKEY(slot, (vb + i) % VBLOCKS);

        if (fld_ck_lookup(&s->bmap, key, &pb)) {
            fld_ck_remove(&s->bmap, key);
            s->bfree[s->bfree_top++] = pb;
        }
    }
}

/*
 * Buffer bytes of two largest frames: the reserve below.  A frame takes
 * consecutive window blocks that never wrap, so of a free arc of two
 * frames at least one frame's worth is one run.
 */
#define FLD_SIGNAL_RESERVE (2 * ROUND_UP(FLD_MAX_FRAME, FLD_BLOCK_SIZE))

/*
 * Does the WQE posted at counter @idx of SQ @slot, its frame holding
 * @bytes of buffer, ask for a CQE?  One in tx-signal since the last
 * signaled WQE, and any that leaves less than the reserve of the SQ's
 * buffer window or quota to the frames after it (or of the shared pool
 * now), or half the ring in flight: the frames up to an unsignaled WQE
 * are freed only by a later completion, which must be able to come.  The
 * frames up to a signaled WQE in flight are freed by its completion, so
 * the count and the bytes start after it (or after the last completed
 * WQE, whichever is later).  Decided once, at the post.
 */
static bool fld_tx_signaled(FldState *s, unsigned slot, uint16_t idx,
                            uint32_t bytes)
{
    FldSq *sq = &s->sqs[slot];
    uint64_t pool = (uint64_t)s->bfree_top * FLD_BLOCK_SIZE;
    uint16_t base = (uint16_t)(sq->sig - sq->ci) <=
                    (uint16_t)(idx - sq->ci) ? sq->sig : sq->ci;
    uint32_t held = bytes;
    struct fld_txd t;
    uint16_t i;

    if (s->tx_signal <= 1 || (uint16_t)(idx + 1 - base) >= s->tx_signal ||
        (uint16_t)(idx + 1 - sq->ci) * 2 >= (1u << sq->log_size) ||
        pool < FLD_SIGNAL_RESERVE) {
        return true;
    }
    for (i = base; i != idx; i++) {
        if (fld_txd_get(s, slot, i, &t)) {
            held += t.nblocks * FLD_BLOCK_SIZE;
        }
    }
    return held + FLD_SIGNAL_RESERVE > FLD_TXBUF_WIN_SIZE ||
           (sq->quota && held + FLD_SIGNAL_RESERVE > sq->quota);
}

/* Completion of (slot, idx): descriptor, translations, credits back. */
static bool fld_tx_release(FldState *s, unsigned slot, uint16_t idx)
{
    FldSq *sq = &s->sqs[slot];
    struct fld_txd d;

    if (!fld_txd_get(s, slot, idx, &d)) {
        return false;
    }
    fld_blocks_put(s, slot, le16_to_cpu(d.vblock), d.nblocks);
    fld_pool_release(&s->pool, slot, idx);
    sq->bytes_held -= MIN(sq->bytes_held, d.nblocks * FLD_BLOCK_SIZE);
    return true;
}

void fld_sq_drop(FldState *s, unsigned slot)
{
    FldSq *sq = &s->sqs[slot];
    uint16_t i;

    for (i = sq->ci; i != sq->pi; i++) {
        fld_tx_release(s, slot, i);
    }
    memset(sq, 0, sizeof(*sq));
}

void fld_stream_credits(FldState *s, unsigned slot, uint32_t *descs,
                        uint32_t *bytes)
{
    FldSq *sq = slot < FLD_MAX_SQS ? &s->sqs[slot] : NULL;

    *descs = *bytes = 0;
    if (sq && sq->valid) {
        *descs = (1u << sq->log_size) - (uint16_t)(sq->pi - sq->ci);
        *bytes = sq->quota > sq->bytes_held ? sq->quota - sq->bytes_held : 0;
    }
}

FldTxResult fld_stream_tx(FldState *s, unsigned slot, const uint8_t *f,
                          size_t len, uint8_t cs_flags)
{
    FldSq *sq = &s->sqs[slot];
    unsigned n = DIV_ROUND_UP(len, FLD_BLOCK_SIZE), vb, i;
    uint32_t descs, bytes;
    struct fld_txd d;
    uint64_t dv;

    if (slot >= FLD_MAX_SQS || !sq->valid || len < FLD_ETH_HLEN ||
        len > FLD_MAX_FRAME) {
        return FLD_TX_BAD;
    }
    fld_stream_credits(s, slot, &descs, &bytes);
    if (descs == 0 || bytes < n * FLD_BLOCK_SIZE) {
        s->stats[FLD_STAT_CREDIT_STALLS]++;
        return FLD_TX_NO_CREDIT;
    }
    /* Contiguous window blocks; a run never wraps the window. */
    vb = sq->vb_head + n > VBLOCKS ? 0 : sq->vb_head;
    for (i = 0; i < n; i++) {
        uint32_t pb;

        if (fld_ck_lookup(&s->bmap, BKEY(slot, vb + i), &pb)) {
            s->stats[FLD_STAT_CREDIT_STALLS]++;
            return FLD_TX_NO_CREDIT;
        }
    }
    if (s->bfree_top < n) {
        s->stats[FLD_STAT_BUF_STALLS]++;
        return FLD_TX_STALL;
    }
    for (i = 0; i < n; i++) {
        uint32_t pb = s->bfree[s->bfree_top - 1];

        if (fld_ck_insert(&s->bmap, BKEY(slot, vb + i), pb) != FLD_CK_OK) {
            fld_blocks_put(s, slot, vb, i);
            s->stats[FLD_STAT_BUF_STALLS]++;
            return FLD_TX_STALL;
        }
        s->bfree_top--;
        memcpy(s->blocks + (size_t)pb * FLD_BLOCK_SIZE, f + i * FLD_BLOCK_SIZE,
               MIN(FLD_BLOCK_SIZE, len - i * FLD_BLOCK_SIZE));
    }
    memset(&d, 0, sizeof(d));
    d.len = cpu_to_le16(len);
    d.vblock = cpu_to_le16(vb);
    d.cs_flags = cs_flags;
    d.nblocks = n;
    if (fld_tx_signaled(s, slot, sq->pi, n * FLD_BLOCK_SIZE)) {
        d.flags = FLD_TXD_F_SIGNAL;
    }
    memcpy(&dv, &d, sizeof(dv));
    if (fld_pool_post(&s->pool, slot, sq->pi, dv) != FLD_POOL_OK) {
        fld_blocks_put(s, slot, vb, n);
        s->stats[FLD_STAT_POOL_STALLS]++;
        return FLD_TX_STALL;
    }
    if (d.flags & FLD_TXD_F_SIGNAL) {
        sq->sig = sq->pi + 1;
    }
    sq->pi++;
    sq->vb_head = (vb + n) % VBLOCKS;
    sq->bytes_held += n * FLD_BLOCK_SIZE;
    s->stats[FLD_STAT_TX_POSTS]++;
    s->stats[FLD_STAT_TX_BYTES] += len;
    return FLD_TX_OK;
}

/*
 * Copy the first @n bytes of the frame at @off of SQ @slot's TX window
 * into the WQE's inline bytes @inl; false if a block is not mapped.
 */
static bool fld_eth_inline(FldState *s, unsigned slot, uint32_t off,
                           unsigned n, uint8_t *inl)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        if (!fld_txbuf_byte(s, slot, off + i, &inl[i])) {
            return false;
        }
    }
    return true;
}

/*
 * One basic block: control and Ethernet segments, the frame's first
 * FLD_WQE_INLINE bytes inline (the Ethernet segment's 10 and the next
 * segment's 16), then a data segment gathering the rest from the window.
 */
void fld_eth_wqe(FldState *s, unsigned slot, uint16_t idx,
                 const struct fld_txd *t, uint8_t wqe[SNIC_WQEBB_SIZE])
{
    struct snic_wqe_ctrl *c = (void *)wqe;
    struct snic_wqe_eth *e = (void *)(wqe + 16);
    struct snic_wqe_data *d;
    uint64_t win = pci_get_bar_addr(&s->parent_obj, FLD_BAR_WIN);
    uint32_t off = le16_to_cpu(t->vblock) * FLD_BLOCK_SIZE;
    uint16_t len = le16_to_cpu(t->len);
    unsigned n = MIN(len, FLD_WQE_INLINE);
    /* the inline bytes run on from the Ethernet segment's last 10 */
    uint8_t *inl = wqe + 16 + offsetof(struct snic_wqe_eth, inline_hdr);

    QEMU_BUILD_BUG_ON(16 + sizeof(*e) + FLD_WQE_INLINE -
                      sizeof(e->inline_hdr) + sizeof(*d) != SNIC_WQEBB_SIZE);
    memset(wqe, 0, SNIC_WQEBB_SIZE);
    if (!fld_eth_inline(s, slot, off, n, inl)) {
        n = 0;
        memset(wqe, 0, SNIC_WQEBB_SIZE);
    }
    c->opcode = SNIC_WQE_ETH_SEND;
    c->flags = t->flags & FLD_TXD_F_SIGNAL ? SNIC_WQE_F_SIGNAL : 0;
    c->wqe_idx = cpu_to_le16(idx);
    c->ds_cnt = n > sizeof(e->inline_hdr) ? 3 : 2;
    e->cs_flags = t->cs_flags;
    e->inline_hdr_sz = cpu_to_le16(n);
    if (len > n) {
        d = (void *)(wqe + 16 * c->ds_cnt++);
        d->byte_count = cpu_to_le32(len - n);
        d->addr = cpu_to_le64(win + FLD_WIN_TXBUF +
                              slot * FLD_TXBUF_WIN_SIZE + off + n);
    }
}

/* @len bytes to the NIC at @addr: a peer-to-peer MMIO write. */
static void fld_nic_write(FldState *s, uint64_t addr, const void *buf,
                          unsigned len)
{
    if (d2d_dma_write(&s->parent_obj, &s->pcie, NULL, addr, buf, len)
        != MEMTX_OK) {
        s->stats[FLD_STAT_DB_ERRORS]++;
        fld_raise_error(s, FLD_ERR_DMA, (uint32_t)addr,
                        "doorbell write to the NIC failed");
        return;
    }
    s->stats[FLD_STAT_DOORBELLS]++;
}

/* Doorbell @val to the NIC at @addr. */
void fld_doorbell(FldState *s, uint64_t addr, uint32_t val)
{
    __le32 le = cpu_to_le32(val);

    trace_fld_doorbell(addr, val);
    fld_nic_write(s, addr, &le, sizeof(le));
}

/*
 * Ring Ethernet SQ @slot from counter @from up to its producer with
 * WQE-by-MMIO lines: each new WQE, whole, to SNIC_DB_SQ_WQE of the SQ's
 * doorbell page (a 64-byte write instead of the NIC's 64-byte read).
 */
static void fld_doorbell_wqe(FldState *s, unsigned slot, uint16_t from)
{
    FldSq *sq = &s->sqs[slot];
    uint64_t at = (sq->db_addr & ~(uint64_t)(SNIC_DB_PAGE_SIZE - 1)) +
                  SNIC_DB_SQ_WQE;
    uint8_t line[SNIC_WQEBB_SIZE];
    struct snic_wqe_ctrl *c = (void *)line;
    struct fld_txd t;
    uint16_t idx;

    for (idx = from; idx != sq->pi; idx++) {
        if (!fld_txd_get(s, slot, idx, &t)) {
            fld_doorbell(s, sq->db_addr, SNIC_DB_VAL(sq->sqn, sq->pi));
            return;
        }
        fld_eth_wqe(s, slot, idx, &t, line);
        c->db_qn = cpu_to_le16(sq->sqn);
        trace_fld_doorbell(at, SNIC_DB_VAL(sq->sqn, idx + 1));
        fld_nic_write(s, at, line, sizeof(line));
    }
}

/* SQ slot of NIC send queue @sqn, or of FLD-R QP @sqn when @rdma */
static int fld_sq_by_sqn(FldState *s, uint16_t sqn, bool rdma)
{
    unsigned i;

    for (i = 0; i < FLD_MAX_SQS; i++) {
        if (s->sqs[i].valid && s->sqs[i].sqn == sqn &&
            s->sqs[i].rdma == rdma) {
            return i;
        }
    }
    return -1;
}

static int fld_rq_by_rqn(FldState *s, uint16_t rqn)
{
    unsigned i;

    for (i = 0; i < FLD_MAX_RQS; i++) {
        if (s->rqs[i].valid && s->rqs[i].rqn == rqn) {
            return i;
        }
    }
    return -1;
}

static void fld_cqe_tx(FldState *s, const FldCqe *c)
{
    bool rdma = fld_cqe_is_rdma(c->opcode);
    int slot = fld_sq_by_sqn(s, c->qn, rdma);
    FldSq *sq;

    if (slot < 0) {
        s->stats[FLD_STAT_CQE_BAD_QUEUE]++;
        fld_raise_error(s, FLD_ERR_CQE_QUEUE, c->qn, "TX CQE for no SQ");
        return;
    }
    sq = &s->sqs[slot];
    if (rdma && c->opcode == SNIC_CQE_REQ_ERR) {
        s->stats[FLD_STAT_QP_ERR_CQES]++;
    }
    if (c->opcode == SNIC_CQE_TX_ERR || c->opcode == SNIC_CQE_REQ_ERR) {
        s->stats[FLD_STAT_NIC_ERR_CQES]++;
        fld_raise_error(s, FLD_ERR_NIC_CQE, c->syndrome << 16 | slot,
                        "NIC reported a send error");
    }
    /*
     * Completions arrive in order; one completes its WQE and every
     * unsignaled one before it (tx-signal).
     */
    if ((uint16_t)(c->wqe_counter - sq->ci) >= (uint16_t)(sq->pi - sq->ci)) {
        s->stats[FLD_STAT_CQE_BAD_QUEUE]++;
        fld_raise_error(s, FLD_ERR_CQE_QUEUE, c->wqe_counter,
                        "TX CQE for a slot not in flight");
        return;
    }
    while (sq->ci != (uint16_t)(c->wqe_counter + 1)) {
        if (!fld_tx_release(s, slot, sq->ci)) {
            s->stats[FLD_STAT_CQE_BAD_QUEUE]++;
            fld_raise_error(s, FLD_ERR_CQE_QUEUE, sq->ci,
                            "TX CQE for a slot not in flight");
            return;
        }
        sq->ci++;
        s->stats[FLD_STAT_TX_DONE]++;
    }
}

void fld_inq_flush(FldState *s, unsigned q)
{
    FldInQ *iq = &s->inq[q];

    while (iq->len) {
        s->pkt_free[s->pkt_free_top++] = iq->fq[iq->head];
        iq->head = (iq->head + 1) % FLD_ACCEL_FIFO;
        iq->len--;
    }
}

/* A queue's share of the accelerator input FIFO: equal among those in use. */
static unsigned fld_inq_share(FldState *s)
{
    unsigned i, n = 0;

    for (i = 0; i < FLD_MAX_RQS; i++) {
        n += s->rqs[i].valid;
    }
    for (i = 0; i < FLD_MAX_QPS; i++) {
        n += s->qps[i].valid;
    }
    return FLD_ACCEL_FIFO / MAX(n, 1);
}

FldPkt *fld_inq_admit(FldState *s, unsigned q)
{
    FldInQ *iq = &s->inq[q];
    uint8_t k;

    if (iq->len >= fld_inq_share(s) || !s->pkt_free_top) {
        return NULL;
    }
    k = s->pkt_free[--s->pkt_free_top];
    iq->fq[(iq->head + iq->len) % FLD_ACCEL_FIFO] = k;
    iq->len++;
    memset(&s->fifo[k].m, 0, sizeof(s->fifo[k].m));
    s->fifo[k].timed = false;
    return &s->fifo[k];
}

/* Queue the frame of RX CQE @c (at @off of RQ @slot) for the accelerator. */
static void fld_rx_admit(FldState *s, unsigned slot, const FldCqe *c,
                         uint32_t off)
{
    FldRq *rq = &s->rqs[slot];
    FldPkt *p = fld_inq_admit(s, slot);

    if (!p) {
        s->stats[FLD_STAT_ACCEL_RX_DROPS]++;
        rq->stats[FLD_RQ_STAT_ACCEL_DROPS]++;
        return;
    }
    rq->stats[FLD_RQ_STAT_ACCEL_RX]++;
    p->m.rq = slot;
    p->m.routed = rq->routed;
    p->m.reply_sq = rq->route_sq;
    p->m.csum_ok = (c->flags & (SNIC_CQE_F_L3_OK | SNIC_CQE_F_L4_OK))
                   == (SNIC_CQE_F_L3_OK | SNIC_CQE_F_L4_OK);
    p->m.tag_valid = c->flags & SNIC_CQE_F_TAG;
    p->m.flow_tag = c->flow_tag;
    p->m.hash_valid = c->flags & SNIC_CQE_F_HASH;
    p->m.rss_hash = c->rss_hash;
    p->m.decap = c->flags & SNIC_CQE_F_DECAP;
    p->len = c->byte_cnt;
    memcpy(p->data, rq->buf + off, p->len);
    s->stats[FLD_STAT_ACCEL_RX]++;
}

static void fld_cqe_rx(FldState *s, const FldCqe *c)
{
    int slot = fld_rq_by_rqn(s, c->qn);
    FldRq *rq;
    uint32_t off, bufsz;

    if (slot < 0) {
        s->stats[FLD_STAT_CQE_BAD_QUEUE]++;
        fld_raise_error(s, FLD_ERR_CQE_QUEUE, c->qn, "RX CQE for no RQ");
        return;
    }
    rq = &s->rqs[slot];
    bufsz = 1u << (rq->log_stride + rq->log_nstrides);
    off = (c->wqe_counter & ((1u << rq->log_size) - 1)) * bufsz +
          ((uint32_t)c->stride_idx << rq->log_stride);
    if (c->opcode == SNIC_CQE_RX_ERR) {
        s->stats[FLD_STAT_NIC_ERR_CQES]++;
        fld_raise_error(s, FLD_ERR_NIC_CQE, c->syndrome << 16 | slot,
                        "NIC reported a receive error");
    } else if (c->byte_cnt) {
        s->stats[FLD_STAT_RX_PACKETS]++;
        s->stats[FLD_STAT_RX_BYTES] += c->byte_cnt;
        if (c->byte_cnt > FLD_MAX_FRAME ||
            off + c->byte_cnt > (bufsz << rq->log_size)) {
            s->stats[FLD_STAT_CQE_BAD_QUEUE]++;
            fld_raise_error(s, FLD_ERR_CQE_QUEUE, off,
                            "RX CQE beyond its buffer");
        } else {
            fld_rx_admit(s, slot, c, off);
        }
    }
    if (c->flags & SNIC_CQE_F_MPW_LAST) {
        /* Buffers retire in posting order: repost = advance the counter. */
        rq->pi++;
        s->stats[FLD_STAT_RX_RECYCLED]++;
    }
}

/* Drain up to @budget compressed CQEs of every CQ; true if some remain. */
static bool fld_cqs_run(FldState *s, int budget)
{
    bool more = false;
    unsigned i;

    for (i = 0; i < FLD_MAX_CQS; i++) {
        FldCq *cq = &s->cqs[i];

        while (cq->valid && cq->ci != cq->pi) {
            FldCqe c;

            if (budget-- <= 0) {
                more = true;
                break;
            }
            fld_cqe_expand(cq->ring[cq->ci & FLD_CQ_RING_MASK], &c);
            cq->nic_ci += cq->last[cq->ci & FLD_CQ_RING_MASK];
            cq->ci++;
            switch (c.opcode) {
            case SNIC_CQE_TX:
            case SNIC_CQE_TX_ERR:
            case SNIC_CQE_REQ:
            case SNIC_CQE_REQ_ERR:
                fld_cqe_tx(s, &c);
                break;
            case SNIC_CQE_RECV:
            case SNIC_CQE_RECV_ERR:
                s->rdma_recv_cqe(s, &c);
                break;
            case SNIC_CQE_RX:
            case SNIC_CQE_RX_ERR:
                fld_cqe_rx(s, &c);
                break;
            default:
                s->stats[FLD_STAT_CQE_BAD_QUEUE]++;
                fld_raise_error(s, FLD_ERR_CQE_QUEUE, c.opcode,
                                "CQE with an unknown opcode");
                break;
            }
        }
    }
    return more;
}

/*
 * Timing mode: packet @p goes through the accelerator's unit (its bytes
 * at the unit's rate, FLD's latency per packet) once, however often it
 * is retried for credit; what FLD writes next (its doorbell) waits.
 */
static void fld_accel_timing(FldState *s, FldPkt *p)
{
    FldUnit u = s->accel->unit;

    if (!p->timed) {
        p->timed = true;
        d2d_timing_unit(&s->timing, u ? p->len : 0, s->unit_mbps[u],
                        s->accel_ns);
    }
}

/*
 * Hand queued packets to the accelerator, one per input queue (RQ or
 * FLD-R QP) in turn, starting after the queue served first last time.  A
 * queue whose head packet cannot be sent (no credit on its send queue) is
 * passed over for the rest of the pass; the others go on.
 */
static void fld_accel_run(FldState *s)
{
    int budget = FLD_BH_BUDGET;
    uint32_t blocked = 0, busy;
    unsigned i;

    QEMU_BUILD_BUG_ON(FLD_NUM_INQ > 32);
    if (s->accel->flush) {
        s->accel->flush(s);
    }
    do {
        busy = 0;
        for (i = 0; i < FLD_NUM_INQ && budget > 0; i++) {
            unsigned q = (s->accel_rr + i) % FLD_NUM_INQ;
            FldInQ *iq = &s->inq[q];
            FldRq *rq = q < FLD_MAX_RQS ? &s->rqs[q] : NULL;
            uint64_t tx = s->stats[FLD_STAT_ACCEL_TX];

            if (!iq->len || (blocked & (1u << q))) {
                continue;
            }
            budget--;
            fld_accel_timing(s, &s->fifo[iq->fq[iq->head]]);
            if (!s->accel->rx(s, &s->fifo[iq->fq[iq->head]])) {
                blocked |= 1u << q;
                continue;
            }
            s->pkt_free[s->pkt_free_top++] = iq->fq[iq->head];
            iq->head = (iq->head + 1) % FLD_ACCEL_FIFO;
            iq->len--;
            if (rq) {
                rq->stats[FLD_RQ_STAT_ACCEL_TX] +=
                    s->stats[FLD_STAT_ACCEL_TX] - tx;
            }
            busy |= 1u << q;
        }
    } while (busy && budget > 0);
    s->accel_rr = (s->accel_rr + 1) % FLD_NUM_INQ;
}

static void fld_doorbells(FldState *s)
{
    unsigned i;

    for (i = 0; i < FLD_MAX_SQS; i++) {
        FldSq *sq = &s->sqs[i];

        if (sq->valid && sq->db_pi != sq->pi) {
            uint16_t from = sq->db_pi;

            sq->db_pi = sq->pi;
            if (s->mmio_wqe && !sq->rdma) {
                fld_doorbell_wqe(s, i, from);
            } else {
                fld_doorbell(s, sq->db_addr, SNIC_DB_VAL(sq->sqn, sq->pi));
            }
        }
    }
    for (i = 0; i < FLD_MAX_RQS; i++) {
        FldRq *rq = &s->rqs[i];

        if (rq->valid && rq->db_pi != rq->pi) {
            rq->db_pi = rq->pi;
            if (rq->db_addr) {
                fld_doorbell(s, rq->db_addr, SNIC_DB_VAL(rq->rqn, rq->pi));
            }
        }
    }
    s->rdma_doorbells(s);
}

void fld_bh(void *opaque)
{
    FldState *s = opaque;
    bool more;

    if (!(s->status & FLD_STATUS_ENABLED)) {
        return;
    }
    if (s->bh_busy) {
        s->bh_rerun = true;
        return;
    }
    s->bh_busy = true;
    do {
        s->bh_rerun = false;
        more = fld_cqs_run(s, FLD_BH_BUDGET);
        fld_accel_run(s);
        fld_doorbells(s);
    } while (s->bh_rerun);
    s->bh_busy = false;
    if (more) {
        fld_kick(s);
    }
}
