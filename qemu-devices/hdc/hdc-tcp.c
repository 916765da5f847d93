/*
 * hdc: the engine's TCP sender (docs/hdc.md, "TCP").  The driver hands
 * over a connected socket's state in the flow (struct hdc_net_flow: a
 * header template carrying the sequence and ack numbers, window and
 * timestamps, plus the peer's window and scale); the engine sends the
 * command's output as TCP segments within min(peer window, cwnd), takes
 * the peer's ACKs from its own receive queue (a plain snic RQ whose ring
 * and buffers are in BAR4, fed by a steering rule the driver installs),
 * retransmits on three duplicate ACKs (fast retransmit, NewReno
 * recovery) and on its retransmission timer (go-back-N from snd_una,
 * exponential back-off), probes a zero window, and writes the advanced
 * state back into the flow before the command completes.  A WRITE entry
 * keeps its chunk until every byte of it is acked: retransmissions are
 * gathered from it again.  One transfer at a time.
 *
 * Frames go out through hdc_nic_post() (hdc-nic.c) with the NIC filling
 * the IPv4 and TCP checksums.  The timer only kicks the engine; all work
 * happens in the engine's pass (hdc_tcp_process).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/timer.h"
#include "d2d/snic_ifc.h"
#include "hdc.h"
#include "hw/d2d/trace.h"

#define HDC_RQ_SIZE (1u << HDC_NIC_ARQ_LOG)
/* The ACK queue after the receive queues, inside BAR4. */
QEMU_BUILD_BUG_ON(HDC_NVMEQ_NIC_RCQ + (64u << HDC_NIC_RCQ_LOG) >
                  HDC_NVMEQ_NIC_ARQ);
QEMU_BUILD_BUG_ON(HDC_NVMEQ_NIC_ARQ + HDC_RQ_SIZE * 16 > HDC_NVMEQ_NIC_ARCQ);
QEMU_BUILD_BUG_ON(HDC_NVMEQ_NIC_ARCQ + HDC_RQ_SIZE * 64 >
                  HDC_NVMEQ_NIC_ARXBUF);
QEMU_BUILD_BUG_ON(HDC_NVMEQ_NIC_ARXBUF + HDC_RQ_SIZE * HDC_NIC_ARXBUF_SIZE >
                  HDC_NVMEQ_SIZE);
#define HDC_TCP_RTO_MIN_NS (10 * SCALE_MS)
#define HDC_TCP_RTO_MAX_NS (60 * NANOSECONDS_PER_SECOND)
#define HDC_TCP_CWND_MAX (1u << 30)
#define TCPF_FIN 0x01
#define TCPF_SYN 0x02
#define TCPF_RST 0x04
#define TCPF_PSH 0x08
#define TCPF_ACK 0x10

static void hdc_tcp_timer(void *opaque)
{
    HdcState *s = opaque;

    s->tcp.fired = true;
    hdc_kick(s);
}

void hdc_tcp_init(HdcState *s)
{
    s->tcp.timer = d2d_timer_new_guarded(DEVICE(s), hdc_tcp_timer, s);
}

void hdc_tcp_fini(HdcState *s)
{
    d2d_timer_free_guarded(s->tcp.timer);
}

/* Forget the transfer and the receive queue (reset, NIC disable). */
void hdc_tcp_reset(HdcState *s)
{
    HdcTcp *t = &s->tcp;

    timer_del(t->timer);
    t->job = NULL;
    t->rx_on = false;
    t->fired = false;
    t->rqn = 0;
    t->rq_db = 0;
}

/* Post receive descriptor @i (its 2 KiB buffer in BAR4). */
static void hdc_tcp_rx_post(HdcState *s, uint64_t bar4)
{
    HdcTcp *t = &s->tcp;
    unsigned i = t->rq_pi & (HDC_RQ_SIZE - 1);
    struct snic_rx_desc d = {
        .byte_count = cpu_to_le32(HDC_NIC_ARXBUF_SIZE),
        .addr = cpu_to_le64(bar4 + HDC_NVMEQ_NIC_ARXBUF +
                            i * HDC_NIC_ARXBUF_SIZE),
    };

    memcpy(s->nv.q + HDC_NVMEQ_NIC_ARQ + i * sizeof(d), &d, sizeof(d));
    t->rq_pi++;
}

/* The RQ's doorbell: the record, then the snic. */
static void hdc_tcp_rx_ring(HdcState *s)
{
    HdcTcp *t = &s->tcp;
    uint8_t b[4];

    stl_le_p(s->nv.q + HDC_NVMEQ_NIC_DBR + 16, t->rq_pi);
    stl_le_p(b, SNIC_DB_VAL(t->rqn, t->rq_pi));
    if (d2d_dma_write(&s->parent_obj, &s->pcie, NULL, t->rq_db, b, 4) !=
        MEMTX_OK) {
        s->stats.dma_errs++;
        s->stats.nic_errs++;
        hdc_raise_error(s, HDC_ERR_DMA, "NIC RQ doorbell write failed");
    }
}

/* HDC_NIC_ENABLE / _DISABLE, after hdc-nic.c's part. */
void hdc_tcp_ctrl(HdcState *s, uint32_t val)
{
    HdcTcp *t = &s->tcp;
    uint64_t bar4 = pci_get_bar_addr(&s->parent_obj, HDC_BAR_NVMEQ);
    unsigned i;

    if (val != HDC_NIC_ENABLE || !s->nic.enabled) {
        t->rx_on = false;
        return;
    }
    if (!t->rq_db) {
        return;
    }
    memset(s->nv.q + HDC_NVMEQ_NIC_ARQ, 0, HDC_RQ_SIZE * 16);
    memset(s->nv.q + HDC_NVMEQ_NIC_ARCQ, 0, HDC_RQ_SIZE * 64);
    stq_le_p(s->nv.q + HDC_NVMEQ_NIC_DBR + 16, 0);
    t->rq_pi = 0;
    t->rcq_ci = 0;
    for (i = 0; i < HDC_RQ_SIZE; i++) {
        hdc_tcp_rx_post(s, bar4);
    }
    hdc_tcp_rx_ring(s);
    t->rx_on = true;
}

uint16_t hdc_tcp_flow_setup(HdcState *s, HdcJob *job,
                            const struct hdc_net_flow *f)
{
    HdcTcp *t = &s->tcp;
    HdcFlow *fl = &job->flow;
    uint32_t flags = le32_to_cpu(f->flags);
    unsigned opt = (flags & HDC_NET_F_TS) ? 12 : 0;
    const char *why = NULL;
    int64_t rto;

    if (flags & ~HDC_NET_F_TS) {
        why = "unknown TCP flags";
    } else if (fl->l3_off < 14 || fl->l4_off < fl->l3_off + 20 ||
               fl->hdr_len != fl->l4_off + 20 + opt ||
               fl->hdr_len > HDC_NET_HDR_MAX) {
        why = "header offsets or length";
    } else if (!fl->mss || fl->mss > HDC_NET_MSS_MAX) {
        why = "mss";
    } else if (f->snd_wscale > 14) {
        why = "window scale";
    } else if (t->job) {
        why = "a TCP transfer is already running";
    } else if (opt && (f->hdr[fl->l4_off + 20] != 1 ||
                       f->hdr[fl->l4_off + 21] != 1 ||
                       f->hdr[fl->l4_off + 22] != 8 ||
                       f->hdr[fl->l4_off + 23] != 10)) {
        why = "timestamp option not NOP NOP TS";
    }
    if (why) {
        D2D_GUEST_ERR(hdc_bad_flow, "%s", why);
        return HDC_ST_EINVAL;
    }
    if (!t->rx_on) {
        D2D_GUEST_ERR(hdc_bad_flow, "%s", "TCP without a receive queue");
        return HDC_ST_ENODEV;
    }
    memset(&t->iss, 0, sizeof(*t) - offsetof(HdcTcp, iss));
    memcpy(fl->hdr, f->hdr, fl->hdr_len);
    t->job = job;
    t->iss = ldl_be_p(fl->hdr + fl->l4_off + 4);
    t->wnd = le32_to_cpu(f->snd_wnd);
    t->wscale = f->snd_wscale;
    t->cwnd = 10 * fl->mss;                 /* RFC 6928 */
    t->ssthresh = UINT32_MAX;
    t->max_retries = f->max_retries ? f->max_retries : 6;
    t->ts = opt;
    t->ts_recent = opt ? ldl_be_p(fl->hdr + fl->l4_off + 28) : 0;
    t->ip_id = lduw_be_p(fl->hdr + fl->l3_off + 4);
    rto = (int64_t)le16_to_cpu(f->rto_ms) * SCALE_MS;
    t->rto_first_ns = MAX(rto, HDC_TCP_RTO_MIN_NS);
    t->rto_ns = t->rto_first_ns;
    return HDC_ST_OK;
}

/* Every byte of WRITE @e acked? */
bool hdc_tcp_acked(HdcState *s, const HdcEntry *e)
{
    return s->tcp.job != e->job || s->tcp.una >= e->pos + e->len;
}

/* The WRITE holding stream byte @off, if its data is in a chunk. */
static HdcEntry *hdc_tcp_entry_at(HdcJob *job, uint64_t off)
{
    HdcEntry *e;

    QTAILQ_FOREACH(e, &job->entries, link) {
        if (e->type == HDC_E_WRITE && e->state == HDC_ES_ISSUE &&
            off >= e->pos && off < e->pos + e->len) {
            return e;
        }
    }
    return NULL;
}

/*
 * One segment: @plen bytes of @e's chunk at stream offset @off (none if
 * @e is NULL), sequence number iss + @off, @flags.
 */
static bool hdc_tcp_xmit(HdcState *s, HdcEntry *e, uint64_t off,
                         uint32_t plen, uint8_t flags)
{
    HdcTcp *t = &s->tcp;
    const HdcFlow *f = &t->job->flow;
    unsigned hl = f->hdr_len;
    uint8_t hdr[HDC_NET_HDR_MAX];
    uint64_t bus = 0;

    memcpy(hdr, f->hdr, hl);
    stw_be_p(hdr + f->l3_off + 2, hl - f->l3_off + plen);
    stw_be_p(hdr + f->l3_off + 4, t->ip_id);
    stl_be_p(hdr + f->l4_off + 4, t->iss + (uint32_t)off);
    hdr[f->l4_off + 13] = flags;
    stw_be_p(hdr + f->l4_off + 16, 0);      /* checksum: the NIC's */
    if (t->ts) {
        stl_be_p(hdr + f->l4_off + 28, t->ts_recent);
    }
    if (e) {
        bus = s->nv.bar2 + (uint64_t)e->chunk * HDC_CHUNK_SIZE +
              (off - e->pos);
    }
    if (!hdc_nic_post(s, hdr, hl, bus, plen, e)) {
        return false;
    }
    t->ip_id++;
    return true;
}

static void hdc_tcp_arm(HdcState *s)
{
    HdcTcp *t = &s->tcp;

    timer_mod(t->timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + t->rto_ns);
}

/* The segment at snd_una again. */
static void hdc_tcp_rexmit(HdcState *s)
{
    HdcTcp *t = &s->tcp;
    HdcEntry *e = hdc_tcp_entry_at(t->job, t->una);
    uint32_t plen;

    if (!e) {
        return;
    }
    plen = MIN(t->job->flow.mss, e->pos + e->len - t->una);
    plen = MIN(plen, t->max - t->una);
    if (hdc_tcp_xmit(s, e, t->una, plen, TCPF_ACK | TCPF_PSH)) {
        s->stats.tcp_rexmit++;
    }
}

/* Send what the windows allow, from snd_nxt. */
static bool hdc_tcp_output(HdcState *s)
{
    HdcTcp *t = &s->tcp;
    HdcJob *job = t->job;
    uint32_t mss = job->flow.mss;
    bool progress = false;

    if (!s->nic.enabled || job->status != HDC_ST_OK) {
        return false;
    }
    for (;;) {
        HdcEntry *e = hdc_tcp_entry_at(job, t->nxt);
        uint64_t wnd = MIN(t->wnd, t->cwnd);
        uint32_t plen;

        if (!e) {
            break;
        }
        plen = MIN(mss, e->pos + e->len - t->nxt);
        if (t->nxt + plen > t->una + wnd) {
            break;
        }
        if (!hdc_tcp_xmit(s, e, t->nxt, plen, TCPF_ACK | TCPF_PSH)) {
            break;
        }
        if (t->nxt < t->max) {
            s->stats.tcp_rexmit++;
        }
        if (t->una == t->max || !timer_pending(t->timer)) {
            hdc_tcp_arm(s);
        }
        t->nxt += plen;
        t->max = MAX(t->max, t->nxt);
        e->next_run = MAX(e->next_run,
                          (uint32_t)DIV_ROUND_UP(t->nxt - e->pos, mss));
        progress = true;
    }
    if (t->una == t->max && hdc_tcp_entry_at(job, t->nxt) &&
        !timer_pending(t->timer)) {
        /* Window closed with nothing in flight: the persist timer. */
        hdc_tcp_arm(s);
    }
    return progress;
}

/* From hdc_entry_submit: a WRITE is ready; -1 without the NIC. */
int hdc_tcp_submit(HdcState *s, HdcEntry *w)
{
    if (!s->nic.enabled) {
        return -1;
    }
    if (s->tcp.job != w->job) {
        return 0;
    }
    return hdc_tcp_output(s);
}

/* End the transfer with HDC_ST_* @st: the scoreboard drops the rest. */
static void hdc_tcp_fail(HdcState *s, uint16_t st, const char *why)
{
    HdcTcp *t = &s->tcp;

    D2D_GUEST_ERR(hdc_tcp_failed, "%s", why);
    if (t->job->status == HDC_ST_OK) {
        t->job->status = st;
    }
    timer_del(t->timer);
}

/* WRITEs now acked (and off the NIC) are done. */
static void hdc_tcp_complete_acked(HdcState *s)
{
    HdcTcp *t = &s->tcp;
    HdcEntry *e, *next;

    QTAILQ_FOREACH_SAFE(e, &t->job->entries, link, next) {
        if (e->type == HDC_E_WRITE && e->state == HDC_ES_ISSUE &&
            !e->pending && e->pos + e->len <= t->una &&
            e->next_run == e->nruns) {
            s->nic.done(s, e, true);
        }
    }
}

/* The value of the TCP option @kind in @th's options, NULL if none. */
static const uint8_t *hdc_tcp_opt(const uint8_t *th, unsigned doff,
                                  uint8_t kind, uint8_t len)
{
    unsigned i = 20;

    while (i < doff) {
        uint8_t k = th[i];

        if (k == 0) {
            break;
        }
        if (k == 1) {
            i++;
            continue;
        }
        if (i + 1 >= doff || th[i + 1] < 2 || i + th[i + 1] > doff) {
            break;
        }
        if (k == kind && th[i + 1] == len) {
            return th + i + 2;
        }
        i += th[i + 1];
    }
    return NULL;
}

/* One received frame of @len bytes at @p. */
static void hdc_tcp_input(HdcState *s, const uint8_t *p, uint32_t len)
{
    HdcTcp *t = &s->tcp;
    const HdcFlow *f = &t->job->flow;
    const uint8_t *ip = p + 14, *th, *tsopt;
    unsigned ihl, doff, iplen;
    uint32_t ack, win, plen, mss = f->mss;
    uint8_t flags;
    int64_t acked;

    if (len < 14 + 20 + 20 || lduw_be_p(p + 12) != 0x0800 ||
        (ip[0] >> 4) != 4 || ip[9] != 6) {
        return;
    }
    ihl = (ip[0] & 15) * 4;
    iplen = lduw_be_p(ip + 2);
    if (ihl < 20 || iplen > len - 14 || iplen < ihl + 20) {
        return;
    }
    th = ip + ihl;
    doff = (th[12] >> 4) * 4;
    /* Ours: from the peer's address and port to ours. */
    if (doff < 20 || ihl + doff > iplen ||
        memcmp(ip + 12, f->hdr + f->l3_off + 16, 4) ||
        memcmp(ip + 16, f->hdr + f->l3_off + 12, 4) ||
        memcmp(th, f->hdr + f->l4_off + 2, 2) ||
        memcmp(th + 2, f->hdr + f->l4_off, 2)) {
        return;
    }
    flags = th[13];
    plen = iplen - ihl - doff;
    if (flags & TCPF_RST) {
        /* RFC 5961: exactly at rcv_nxt. */
        if (ldl_be_p(th + 4) == ldl_be_p(f->hdr + f->l4_off + 8)) {
            t->reset = true;
            hdc_tcp_fail(s, HDC_ST_ECONNRESET, "peer reset");
        }
        return;
    }
    if ((flags & TCPF_SYN) || !(flags & TCPF_ACK)) {
        return;
    }
    s->stats.tcp_acks++;
    ack = ldl_be_p(th + 8);
    acked = (int32_t)(ack - (t->iss + (uint32_t)t->una));
    if (acked > (int64_t)(t->max - t->una) || acked < -(int64_t)(1 << 30)) {
        return;                             /* acks what was never sent */
    }
    tsopt = t->ts ? hdc_tcp_opt(th, doff, 8, 10) : NULL;
    if (tsopt && (int32_t)(ldl_be_p(tsopt) - t->ts_recent) >= 0) {
        t->ts_recent = ldl_be_p(tsopt);
    }
    win = (uint32_t)lduw_be_p(th + 14) << t->wscale;
    if (acked > 0) {
        t->una += acked;
        t->nxt = MAX(t->nxt, t->una);
        t->wnd = win;
        t->retries = 0;
        t->rto_ns = t->rto_first_ns;
        if (t->recovery) {
            if (t->una >= t->recover) {
                t->recovery = false;
                t->cwnd = t->ssthresh;
            } else {
                /* NewReno partial ack: the next hole, now. */
                t->cwnd = MAX(t->cwnd - MIN(t->cwnd, (uint32_t)acked) + mss,
                              mss);
                hdc_tcp_rexmit(s);
            }
        } else if (t->cwnd < t->ssthresh) {
            t->cwnd += MIN((uint32_t)acked, mss);
        } else {
            t->cwnd += MAX(1u, mss * mss / t->cwnd);
        }
        t->cwnd = MIN(t->cwnd, HDC_TCP_CWND_MAX);
        t->dupacks = 0;
        if (t->una < t->max) {
            hdc_tcp_arm(s);
        } else {
            timer_del(t->timer);
        }
        hdc_tcp_complete_acked(s);
    } else if (acked == 0 && t->una < t->max && !plen &&
               !(flags & TCPF_FIN) && win == t->wnd) {
        s->stats.tcp_dupacks++;
        t->dupacks++;
        if (t->dupacks == 3 && !t->recovery) {
            t->ssthresh = MAX((uint32_t)(t->max - t->una) / 2, 2 * mss);
            t->cwnd = t->ssthresh + 3 * mss;
            t->recover = t->max;
            t->recovery = true;
            hdc_tcp_rexmit(s);
        } else if (t->recovery) {
            t->cwnd = MIN(t->cwnd + mss, HDC_TCP_CWND_MAX);
        }
    } else if (acked == 0) {
        t->wnd = win;                       /* a window update */
    }
}

/* The RX CQEs: each is one frame in one buffer, which goes back. */
static void hdc_tcp_rx(HdcState *s)
{
    HdcTcp *t = &s->tcp;
    uint64_t bar4 = pci_get_bar_addr(&s->parent_obj, HDC_BAR_NVMEQ);
    bool any = false;

    while (t->rx_on) {
        uint8_t *cqe = s->nv.q + HDC_NVMEQ_NIC_ARCQ +
                       (t->rcq_ci & (HDC_RQ_SIZE - 1)) * 64;
        uint8_t phase = !((t->rcq_ci >> HDC_NIC_ARQ_LOG) & 1);
        uint8_t op = cqe[offsetof(struct snic_cqe, opcode)];
        uint16_t ctr = lduw_le_p(cqe + offsetof(struct snic_cqe,
                                                 wqe_counter));
        uint32_t n = ldl_le_p(cqe + offsetof(struct snic_cqe, byte_cnt));
        unsigned i = ctr & (HDC_RQ_SIZE - 1);

        if ((cqe[63] & SNIC_CQE_OWNER) != phase) {
            break;
        }
        t->rcq_ci++;
        any = true;
        if (op == SNIC_CQE_RX && t->job && t->job->status == HDC_ST_OK &&
            n <= HDC_NIC_ARXBUF_SIZE) {
            hdc_tcp_input(s, s->nv.q + HDC_NVMEQ_NIC_ARXBUF +
                          i * HDC_NIC_ARXBUF_SIZE, n);
        }
        hdc_tcp_rx_post(s, bar4);
    }
    if (any) {
        stl_le_p(s->nv.q + HDC_NVMEQ_NIC_DBR + 20, t->rcq_ci);
        hdc_tcp_rx_ring(s);
    }
}

/* The timer expired: retransmit from snd_una, or probe a zero window. */
static void hdc_tcp_timeout(HdcState *s)
{
    HdcTcp *t = &s->tcp;
    uint32_t mss = t->job->flow.mss;

    if (++t->retries > t->max_retries) {
        hdc_tcp_fail(s, HDC_ST_ETIMEDOUT, "peer acked nothing");
        return;
    }
    s->stats.tcp_rto++;
    t->rto_ns = MIN(t->rto_ns * 2, HDC_TCP_RTO_MAX_NS);
    if (t->una < t->max) {
        t->ssthresh = MAX((uint32_t)(t->max - t->una) / 2, 2 * mss);
        t->cwnd = mss;
        t->recovery = false;
        t->dupacks = 0;
        t->nxt = t->una;
        hdc_tcp_output(s);
    } else {
        /* Zero window: an old sequence number makes the peer answer. */
        hdc_tcp_xmit(s, NULL, t->una - 1, 0, TCPF_ACK);
    }
    hdc_tcp_arm(s);
}

/* The engine's pass: received frames, then the timer, then output. */
void hdc_tcp_process(HdcState *s)
{
    HdcTcp *t = &s->tcp;
    bool fired = t->fired;

    t->fired = false;
    hdc_tcp_rx(s);
    if (!t->job || t->job->status != HDC_ST_OK) {
        return;
    }
    if (!s->nic.enabled) {
        hdc_tcp_fail(s, HDC_ST_ENET, "NIC queues went away");
        return;
    }
    if (fired && !timer_pending(t->timer)) {
        hdc_tcp_timeout(s);
    }
    if (t->job->status == HDC_ST_OK) {
        hdc_tcp_output(s);
    }
}

/*
 * The command is done (or failed, or dropped by a reset): the state goes
 * back into the flow; a failure with bytes not acked resets the peer.
 */
void hdc_tcp_job_end(HdcState *s, HdcJob *job)
{
    HdcTcp *t = &s->tcp;
    uint8_t out[20];

    if (t->job != job) {
        return;
    }
    timer_del(t->timer);
    if (job->status != HDC_ST_OK && !t->reset && t->una < t->max &&
        s->nic.enabled) {
        hdc_tcp_xmit(s, NULL, t->max, 0, TCPF_RST | TCPF_ACK);
    }
    stl_le_p(out, t->wnd);
    stl_le_p(out + 4, t->iss + (uint32_t)t->una);
    stl_le_p(out + 8, t->iss + (uint32_t)t->max);
    stl_le_p(out + 12, t->wscale | (uint32_t)t->max_retries << 8 |
             (uint32_t)HDC_NET_OUT_STATE << 16);
    stl_le_p(out + 16, t->ts_recent);
    if (d2d_dma_write(&s->parent_obj, &s->pcie, NULL,
                      job->dst.addr + offsetof(struct hdc_net_flow, snd_wnd),
                      out, sizeof(out)) != MEMTX_OK) {
        s->stats.dma_errs++;
        if (job->status == HDC_ST_OK) {
            job->status = HDC_ST_EDMA;
        }
    }
    t->job = NULL;
}
