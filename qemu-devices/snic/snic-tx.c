/*
 * snic: send path - WQE fetch and validation, frame assembly by DMA
 * gather, checksum offload, TCP segmentation, per-SQ rate limiter, and
 * local loopback (SNIC_SQ_F_LOOPBACK SQs feed the receive path, not the
 * wire).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/host-utils.h"
#include "qemu/main-loop.h"
#include "snic.h"

#define SQ_MASK(sq) ((1u << (sq)->log_size) - 1)
#define NS_PER_BYTE_BITS 8000000000ull   /* 8 bits * 1e9 ns */

/* a * b / c in 128 bits: rates reach 1e11 b/s, intervals 1e10 ns. */
static uint64_t snic_muldiv(uint64_t a, uint64_t b, uint64_t c)
{
    return (uint64_t)((unsigned __int128)a * b / c);
}

void snic_tx_kick(SnicState *s, SnicSq *sq)
{
    sq->pending = true;
    d2d_timing_bh_schedule(&s->timing, s->tx_bh);
}

static void snic_tx_complete(SnicState *s, SnicSq *sq, uint8_t opcode,
                             uint8_t synd, uint16_t counter, uint32_t bytes,
                             uint16_t segs)
{
    struct snic_cqe cqe = { 0 };

    cqe.opcode = opcode;
    cqe.syndrome = synd;
    cqe.wqe_counter = cpu_to_le16(counter);
    cqe.qn = cpu_to_le16(sq - s->sqs);
    cqe.byte_cnt = cpu_to_le32(bytes);
    cqe.segs = cpu_to_le16(segs);
    snic_cq_post(s, sq->cqn, &cqe, &sq->st.pcie);
}

static void snic_tx_error(SnicState *s, SnicSq *sq, uint16_t counter,
                          uint8_t synd, const char *why)
{
    qemu_log_mask(LOG_GUEST_ERROR, "snic: sq %td: WQE %u: %s\n",
                  sq - s->sqs, counter, why);
    s->ps.tx_errors++;
    sq->st.errors++;
    snic_tx_complete(s, sq, SNIC_CQE_TX_ERR, synd, counter, 0, 0);
}

/* Token bucket: may this SQ send now?  If not, arm the refill timer. */
static bool snic_rate_allow(SnicState *s, SnicSq *sq)
{
    int64_t now, wait;
    uint64_t add;

    if (!sq->rate_bps) {
        return true;
    }
    now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    if (now > sq->refill_ns) {
        add = snic_muldiv(now - sq->refill_ns, sq->rate_bps, NS_PER_BYTE_BITS);
        if (add) {
            sq->tokens = MIN(sq->tokens + (int64_t)add, (int64_t)sq->burst);
            sq->refill_ns = now;
        }
    }
    if (sq->tokens > 0) {
        return true;
    }
    wait = snic_muldiv(1 - sq->tokens, NS_PER_BYTE_BITS, sq->rate_bps) + 1;
    sq->rate_wait = true;
    s->ps.tx_rate_delays++;
    if (!timer_pending(s->rate_timer) ||
        timer_expire_time_ns(s->rate_timer) > now + wait) {
        timer_mod(s->rate_timer, now + wait);
    }
    return false;
}

void snic_tx_rate_timer(void *opaque)
{
    SnicState *s = opaque;
    uint32_t i;

    for (i = 0; i < s->sqs_hi; i++) {
        if (s->sqs[i].valid && s->sqs[i].rate_wait) {
            s->sqs[i].rate_wait = false;
            snic_tx_kick(s, &s->sqs[i]);
        }
    }
}

static void snic_tx_wire(SnicState *s, SnicSq *sq, const uint8_t *f,
                         size_t len)
{
    if (sq && s->tx_vlan >= 0) {
        /* 802.1Q tag after the MAC addresses (SNIC_ETH_F_VLAN). */
        len = snic_pkt_vlan_insert(s->tx_vlan_frame, f, len, s->tx_vlan);
        f = s->tx_vlan_frame;
        s->ps.tx_vlan_inserted++;
    }
    if (sq && sq->rate_bps) {
        sq->tokens -= len;
    }
    if (sq) {
        sq->st.packets++;
        sq->st.bytes += len;
    }
    d2d_timing_packet(&s->timing, 0);
    if (sq && (sq->flags & SNIC_SQ_F_LOOPBACK)) {
        /* Not the wire: the port's own receive path. */
        snic_port_loopback(s, f, len, sq->cqn);
        return;
    }
    snic_port_xmit(s, f, len, &s->ps.tx_packets, &s->ps.tx_bytes);
}

/*
 * A frame built by the device itself (sPIN send command): same length
 * rule, checksum offload and port accounting as an SQ frame.
 */
bool snic_tx_frame_out(SnicState *s, uint8_t *f, size_t len,
                       uint8_t cs_flags)
{
    if (len < SNIC_ETH_HLEN || len > s->port.mtu + SNIC_ETH_HLEN + 4) {
        s->ps.tx_errors++;
        return false;
    }
    if (cs_flags & (SNIC_ETH_CS_L3 | SNIC_ETH_CS_L4)) {
        snic_pkt_fill_csum(f, len, cs_flags & SNIC_ETH_CS_L3,
                           cs_flags & SNIC_ETH_CS_L4);
        s->ps.tx_csum++;
    }
    snic_tx_wire(s, NULL, f, len);
    return true;
}

typedef struct SnicTsoCtx {
    SnicState *s;
    SnicSq *sq;
} SnicTsoCtx;

static void snic_tso_emit(void *opaque, const uint8_t *seg, size_t len)
{
    SnicTsoCtx *t = opaque;

    snic_tx_wire(t->s, t->sq, seg, len);
}

/*
 * Run one Ethernet WQE of @ds_cnt segments in @segs.  Returns the
 * syndrome; *bytes and *nsegs say what went on the wire.
 */
static uint8_t snic_tx_eth(SnicState *s, SnicSq *sq, const uint8_t *segs,
                           unsigned ds_cnt, uint32_t *bytes, uint16_t *nsegs)
{
    const struct snic_wqe_ctrl *ctrl = (const void *)segs;
    const struct snic_wqe_eth *eth = (const void *)(segs + 16);
    unsigned inl = le16_to_cpu(eth->inline_hdr_sz);
    unsigned first, i;
    uint16_t mss = le16_to_cpu(eth->mss);
    size_t len = 0;

    if (ds_cnt < 2) {
        return SNIC_SYND_BAD_DS;
    }
    if (inl > SNIC_MAX_INLINE) {
        return SNIC_SYND_BAD_LEN;
    }
    s->tx_vlan = (eth->flags & SNIC_ETH_F_VLAN) ? be16_to_cpu(ctrl->vlan_tci)
                                                : -1;
    first = 2 + (inl > 10 ? DIV_ROUND_UP(inl - 10, 16) : 0);
    if (first > ds_cnt) {
        return SNIC_SYND_BAD_DS;
    }
    memcpy(s->tx_frame, eth->inline_hdr, MIN(inl, 10));
    if (inl > 10) {
        memcpy(s->tx_frame + 10, segs + 32, inl - 10);
    }
    len = inl;
    for (i = first; i < ds_cnt; i++) {
        const struct snic_wqe_data *d = (const void *)(segs + 16 * i);
        uint32_t n = le32_to_cpu(d->byte_count);

        if (n == 0 || n > 65536 || len + n > SNIC_MAX_TX_FRAME) {
            return SNIC_SYND_BAD_LEN;
        }
        if (d->lkey) {
            return SNIC_SYND_BAD_LKEY;
        }
        if (d2d_dma_read(&s->parent_obj, &s->pcie, &sq->st.pcie,
                         le64_to_cpu(d->addr), s->tx_frame + len, n)
            != MEMTX_OK) {
            s->stats.dma_errs++;
            return SNIC_SYND_DMA;
        }
        len += n;
    }

    if (ctrl->opcode == SNIC_WQE_ETH_SEND) {
        if (len < SNIC_ETH_HLEN || len > s->port.mtu + SNIC_ETH_HLEN + 4 ||
            (s->tx_vlan >= 0 && len > s->port.mtu + SNIC_ETH_HLEN)) {
            return SNIC_SYND_BAD_LEN;
        }
        if (eth->cs_flags & (SNIC_ETH_CS_L3 | SNIC_ETH_CS_L4)) {
            snic_pkt_fill_csum(s->tx_frame, len,
                               eth->cs_flags & SNIC_ETH_CS_L3,
                               eth->cs_flags & SNIC_ETH_CS_L4);
            s->ps.tx_csum++;
        }
        snic_tx_wire(s, sq, s->tx_frame, len);
        *bytes = len;
        *nsegs = 1;
        return SNIC_SYND_OK;
    }

    /* TSO */
    {
        SnicTsoCtx t = { s, sq };
        SnicPktInfo pi;
        int n;

        if (mss == 0 || mss > s->port.mtu - 40) {
            return SNIC_SYND_BAD_MSS;
        }
        snic_pkt_parse(s->tx_frame, len, false, &pi);
        if (!pi.tcp || pi.l3_off + pi.ip_len != len) {
            return SNIC_SYND_BAD_LEN;
        }
        n = snic_tso(s->tx_frame, len, mss, s->tx_seg, snic_tso_emit, &t);
        if (n < 0) {
            return SNIC_SYND_BAD_LEN;
        }
        s->ps.tx_tso_frames++;
        s->ps.tx_tso_segs += n;
        s->ps.tx_csum += n;
        *bytes = len + (n - 1) * (pi.l4_off + pi.l4_hlen);
        *nsegs = n;
        return SNIC_SYND_OK;
    }
}

/*
 * The first basic block of the WQE at the consumer counter from its
 * WQE-by-MMIO line, if one came with its doorbell: no ring read.
 */
static bool snic_sq_mmio_bb(SnicState *s, SnicSq *sq, uint8_t *bb)
{
    unsigned slot = sq->ci % SNIC_SQ_MMIO_SLOTS;

    if (!(sq->mmio_valid & (1u << slot))) {
        return false;
    }
    if ((uint16_t)(sq->mmio_idx[slot] - sq->ci) >= RING_SIZE(sq)) {
        sq->mmio_valid &= ~(1u << slot);    /* behind the consumer: stale */
        return false;
    }
    if (sq->mmio_idx[slot] != sq->ci) {
        return false;
    }
    sq->mmio_valid &= ~(1u << slot);
    memcpy(bb, sq->mmio_bb[slot], SNIC_WQEBB_SIZE);
    s->ps.tx_wqe_fetch_saved++;
    return true;
}

/* Run up to SNIC_TX_BUDGET WQEs; true if the SQ still has work. */
static bool snic_sq_run(SnicState *s, SnicSq *sq)
{
    uint8_t segs[SNIC_WQE_MAX_BBS * SNIC_WQEBB_SIZE];
    int budget = SNIC_TX_BUDGET;

    while (sq->valid && !sq->error && sq->ci != sq->pi && budget--) {
        const struct snic_wqe_ctrl *ctrl = (const void *)segs;
        uint16_t counter = sq->ci;
        uint16_t avail = sq->pi - sq->ci;
        unsigned nbb = 1, ds_cnt, i;
        uint32_t bytes = 0;
        uint16_t nsegs = 0;
        uint8_t synd;

        if (!snic_rate_allow(s, sq)) {
            return false;
        }
        for (i = 0; i < SNIC_WQE_MAX_BBS &&
             snic_wqe_bb_wanted(ctrl, i, avail, &nbb); i++) {
            if (i == 0 && snic_sq_mmio_bb(s, sq, segs)) {
                continue;
            }
            if (d2d_dma_read(&s->parent_obj, &s->pcie, &sq->st.pcie,
                             sq->ring + ((sq->ci + i) & SQ_MASK(sq)) *
                             SNIC_WQEBB_SIZE,
                             segs + i * SNIC_WQEBB_SIZE, SNIC_WQEBB_SIZE)
                != MEMTX_OK) {
                sq->error = true;
                snic_queue_error(s, SNIC_EQE_SQ_ERROR, sq->cqn, sq - s->sqs,
                                 "SQ ring read failed");
                return false;
            }
        }
        ds_cnt = ctrl->ds_cnt;
        nbb = DIV_ROUND_UP(ds_cnt, 4);
        if (ds_cnt == 0 || ds_cnt > SNIC_WQE_MAX_DS || nbb > avail) {
            /* Unknown extent: skip one basic block. */
            sq->ci++;
            snic_tx_error(s, sq, counter, SNIC_SYND_BAD_DS, "bad ds_cnt");
            continue;
        }
        sq->ci += nbb;

        switch (ctrl->opcode) {
        case SNIC_WQE_NOP:
            synd = SNIC_SYND_OK;
            break;
        case SNIC_WQE_ETH_SEND:
        case SNIC_WQE_ETH_TSO:
            synd = snic_tx_eth(s, sq, segs, ds_cnt, &bytes, &nsegs);
            break;
        default:
            synd = SNIC_SYND_BAD_OPCODE;
            break;
        }
        if (synd != SNIC_SYND_OK) {
            snic_tx_error(s, sq, counter, synd, "invalid WQE");
        } else if (ctrl->flags & SNIC_WQE_F_SIGNAL) {
            snic_tx_complete(s, sq, SNIC_CQE_TX, SNIC_SYND_OK, counter,
                             bytes, nsegs);
        }
    }
    return sq->valid && !sq->error && sq->ci != sq->pi;
}

void snic_tx_bh(void *opaque)
{
    SnicState *s = opaque;
    bool again = false;
    uint32_t i;

    for (i = 0; i < s->sqs_hi; i++) {
        SnicSq *sq = &s->sqs[i];

        if (!sq->pending) {
            continue;
        }
        sq->pending = snic_sq_run(s, sq);
        again |= sq->pending;
    }
    if (again) {
        d2d_timing_bh_schedule(&s->timing, s->tx_bh);
    }
}

/* MODIFY_SQ: the send queue's rate limiter. */
uint16_t snic_cmd_modify_sq(SnicState *s, const struct snic_aq_cmd *c)
{
    const struct snic_aq_modify_sq *a = &c->modify_sq;
    uint32_t sqn = le32_to_cpu(a->sqn);
    SnicSq *sq;

    if (sqn >= SNIC_MAX_SQS || !s->sqs[sqn].valid) {
        return SNIC_AQ_ENOENT;
    }
    sq = &s->sqs[sqn];
    sq->rate_bps = le64_to_cpu(a->rate_bps);
    sq->burst = le32_to_cpu(a->burst_bytes);
    if (!sq->burst) {
        sq->burst = s->port.mtu + SNIC_ETH_HLEN + 4;
    }
    sq->tokens = sq->burst;
    sq->refill_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    sq->rate_wait = false;
    snic_tx_kick(s, sq);
    return SNIC_AQ_OK;
}
