/*
 * hdc: the engine's TCP receiver (docs/hdc.md, "TCP receive").  The
 * driver hands over a connected socket's receive state: the command's
 * source is a struct hdc_net_rx of proto HDC_NET_TCP followed by a
 * struct hdc_net_flow, the template of the ACKs (Ethernet, IPv4 and TCP
 * header from us to the peer, its ack number the sequence number of the
 * stream's byte after the prefix), the window the socket offered and
 * its scale, and the prefix: bytes the socket had received and not
 * passed on, which the scoreboard places first from host memory.  The
 * segments arrive on the striding receive queue (hdc-nic-rx.c parses
 * them) and the scoreboard places their bytes in order; this file
 * decides which bytes of a segment are new, drops out-of-order segments
 * (the peer sends them again: each is answered by a duplicate ACK, so
 * three of them start its fast retransmit), echoes the peer's
 * timestamps and sends one cumulative ACK per engine pass through
 * hdc_nic_post() (hdc-nic.c).  A FIN right after the last byte ends the
 * stream there (the FIN is not acked: the socket takes it after the
 * hand-back); an RST at the next expected byte fails the receive.  The
 * state goes back into the flow before the command completes.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "d2d/snic_ifc.h"
#include "hdc.h"
#include "hw/d2d/trace.h"

/* Duplicate ACKs sent in one pass, at most. */
#define HDC_TCP_RX_DUP_MAX 3
#define TCPF_FIN 0x01
#define TCPF_SYN 0x02
#define TCPF_RST 0x04
#define TCPF_ACK 0x10

void hdc_tcp_rx_reset(HdcState *s)
{
    memset(&s->tcprx, 0, sizeof(s->tcprx));
}

/* A TCP source's ACK template (struct hdc_net_flow at @addr), checked. */
uint16_t hdc_tcp_rx_setup(HdcState *s, HdcJob *job, uint64_t addr)
{
    HdcTcpRx *t = &s->tcprx;
    HdcFlow *fl = &job->flow;
    struct hdc_net_flow f;
    uint32_t flags;
    unsigned opt;
    const char *why = NULL;

    if (d2d_dma_read(&s->parent_obj, &s->pcie, NULL, addr, &f,
                     sizeof(f)) != MEMTX_OK) {
        s->stats.dma_errs++;
        return HDC_ST_EDMA;
    }
    flags = le32_to_cpu(f.flags);
    opt = (flags & HDC_NET_F_TS) ? 12 : 0;
    if (f.proto != HDC_NET_TCP) {
        why = "ACK template not TCP";
    } else if (flags & ~HDC_NET_F_TS) {
        why = "unknown TCP flags";
    } else if (f.l3_off < 14 || f.l4_off < f.l3_off + 20 ||
               f.hdr_len != f.l4_off + 20 + opt ||
               f.hdr_len > HDC_NET_HDR_MAX) {
        why = "header offsets or length";
    } else if (f.snd_wscale > 14) {
        why = "window scale";
    } else if (opt && (f.hdr[f.l4_off + 20] != 1 ||
                       f.hdr[f.l4_off + 21] != 1 ||
                       f.hdr[f.l4_off + 22] != 8 ||
                       f.hdr[f.l4_off + 23] != 10)) {
        why = "timestamp option not NOP NOP TS";
    } else if (t->job) {
        why = "a TCP receive is already running";
    }
    if (why) {
        D2D_GUEST_ERR(hdc_bad_flow, "%s", why);
        return HDC_ST_EINVAL;
    }
    hdc_flow_load(fl, &f);
    memcpy(fl->hdr, f.hdr, fl->hdr_len);
    memset(t, 0, sizeof(*t));
    t->job = job;
    /* The template acks up to the prefix: byte 0 is prefix_len before. */
    t->irs = ldl_be_p(fl->hdr + fl->l4_off + 8) - job->rx.prefix_len;
    t->wnd = le32_to_cpu(f.snd_wnd);
    t->edge = job->rx.prefix_len + t->wnd;
    t->acked = job->rx.prefix_len;
    t->wscale = f.snd_wscale;
    t->ts = opt;
    t->ts_recent = opt ? ldl_be_p(fl->hdr + fl->l4_off + 28) : 0;
    t->ip_id = lduw_be_p(fl->hdr + fl->l3_off + 4);
    return HDC_ST_OK;
}

/*
 * Segment @d of receive @job: the new bytes to place (HDC_TCP_SEG_DATA,
 * also a FIN with none), or why not.  A segment beyond the next expected
 * byte is dropped and answered by a duplicate ACK, as is one that brings
 * nothing new; bytes past the command's length are left to the socket.
 */
int hdc_tcp_rx_seg(HdcState *s, HdcJob *job, const HdcRxDgram *d,
                   HdcTcpSeg *g)
{
    HdcTcpRx *t = &s->tcprx;
    uint64_t next = job->rx.next;
    int32_t rel = (int32_t)(d->seq - (t->irs + (uint32_t)next));
    int64_t start = (int64_t)next + rel, end = start + d->len;

    if (t->job != job) {
        return HDC_TCP_SEG_DROP;
    }
    if (d->tcp_flags & TCPF_RST) {
        /*
         * RFC 5961: only exactly at the next expected byte; elsewhere in
         * the window a challenge ACK (a peer that lost the connection
         * answers it with an RST there).
         */
        if (rel > 0 && start < (int64_t)t->edge) {
            t->dup_due++;
        }
        if (rel) {
            return HDC_TCP_SEG_DROP;
        }
        D2D_GUEST_ERR(hdc_tcp_failed, "%s", "peer reset the receive");
        return HDC_TCP_SEG_RESET;
    }
    if ((d->tcp_flags & TCPF_SYN) || !(d->tcp_flags & TCPF_ACK)) {
        return HDC_TCP_SEG_DROP;
    }
    if (start > (int64_t)next) {
        /* Out of order: dropped; the peer retransmits from next. */
        s->stats.tcp_rx_ooo++;
        t->dup_due++;
        return HDC_TCP_SEG_DROP;
    }
    g->off = next;
    g->skip = next - start;
    g->len = 0;
    if (end > (int64_t)next && next < job->length) {
        g->len = MIN((uint64_t)end, job->length) - next;
        return HDC_TCP_SEG_DATA;
    }
    if (d->len) {
        /* Old bytes again (our ACK was lost): acknowledge again. */
        s->stats.tcp_rx_ooo++;
        t->dup_due++;
        return HDC_TCP_SEG_DROP;
    }
    return (d->tcp_flags & TCPF_FIN) && end == (int64_t)next ?
           HDC_TCP_SEG_DATA : HDC_TCP_SEG_DROP;
}

bool hdc_tcp_rx_took(HdcState *s, HdcJob *job, const HdcRxDgram *d)
{
    HdcTcpRx *t = &s->tcprx;
    uint32_t end = d->seq + d->len;

    if (t->ts && d->has_ts && (int32_t)(d->tsval - t->ts_recent) >= 0) {
        t->ts_recent = d->tsval;
    }
    if (d->len) {
        s->stats.tcp_rx++;
    }
    t->ack_due = true;
    if ((d->tcp_flags & TCPF_FIN) &&
        end == t->irs + (uint32_t)job->rx.next) {
        t->fin = true;
    }
    return t->fin;
}

void hdc_tcp_rx_fin(HdcState *s, HdcJob *job)
{
    if (s->tcprx.job == job) {
        s->tcprx.fin = true;
    }
}

/*
 * A segment without payload from the template: @flags, the ack number
 * of the next expected byte, window field @field.
 */
static bool hdc_tcp_rx_send(HdcState *s, uint8_t flags, uint16_t field)
{
    HdcTcpRx *t = &s->tcprx;
    const HdcFlow *f = &t->job->flow;
    unsigned hl = f->hdr_len;
    uint8_t hdr[HDC_NET_HDR_MAX];

    memcpy(hdr, f->hdr, hl);
    stw_be_p(hdr + f->l3_off + 2, hl - f->l3_off);
    stw_be_p(hdr + f->l3_off + 4, t->ip_id);
    stl_be_p(hdr + f->l4_off + 8, t->irs + (uint32_t)t->job->rx.next);
    hdr[f->l4_off + 13] = flags;
    stw_be_p(hdr + f->l4_off + 14, field);
    stw_be_p(hdr + f->l4_off + 16, 0);      /* checksum: the NIC's */
    if (t->ts) {
        stl_be_p(hdr + f->l4_off + 28, t->ts_recent);
    }
    if (!s->nic.enabled || !hdc_nic_post(s, hdr, hl, 0, 0, NULL)) {
        return false;
    }
    t->ip_id++;
    return true;
}

/* One ACK of every byte placed, offering the window. */
static bool hdc_tcp_rx_ack(HdcState *s)
{
    HdcTcpRx *t = &s->tcprx;
    uint64_t next = t->job->rx.next;
    uint64_t want = MAX(t->edge, next + t->wnd);
    uint32_t field = MIN(DIV_ROUND_UP(want - next, 1u << t->wscale),
                         UINT16_MAX);

    if (!hdc_tcp_rx_send(s, TCPF_ACK, field)) {
        return false;
    }
    t->acked = next;
    t->edge = MAX(t->edge, next + ((uint64_t)field << t->wscale));
    s->stats.tcp_rx_ack++;
    return true;
}

/* After the scoreboard's pass: the ACKs due (duplicates, then one more). */
void hdc_tcp_rx_flush(HdcState *s)
{
    HdcTcpRx *t = &s->tcprx;
    uint32_t n;

    if (!t->job) {
        return;
    }
    n = MIN(t->dup_due, HDC_TCP_RX_DUP_MAX);
    if (!n && t->ack_due) {
        n = 1;
    }
    while (n-- && hdc_tcp_rx_ack(s)) {
        /* each one the same cumulative ACK */
    }
    t->dup_due = 0;
    t->ack_due = false;
}

/* The receive is done (or failed): the state goes back into the flow. */
void hdc_tcp_rx_job_end(HdcState *s, HdcJob *job)
{
    HdcTcpRx *t = &s->tcprx;
    uint8_t out[20];

    if (t->job != job) {
        return;
    }
    if (job->status == HDC_ST_OK && t->acked != job->rx.next) {
        hdc_tcp_rx_ack(s);
    } else if (job->status != HDC_ST_OK && job->status != HDC_ST_ECONNRESET &&
               t->acked && s->nic.enabled) {
        /* Bytes the socket had or we acked are not all kept: reset. */
        hdc_tcp_rx_send(s, TCPF_RST | TCPF_ACK, 0);
    }
    stl_le_p(out, t->edge - t->acked);
    stl_le_p(out + 4, t->irs + (uint32_t)t->acked);
    stl_le_p(out + 8, 0);
    stl_le_p(out + 12, t->wscale |
             (uint32_t)(HDC_NET_OUT_STATE |
                        (t->fin ? HDC_NET_OUT_FIN : 0)) << 16);
    stl_le_p(out + 16, t->ts_recent);
    if (d2d_dma_write(&s->parent_obj, &s->pcie, NULL,
                      job->src.addr + sizeof(struct hdc_net_rx) +
                      offsetof(struct hdc_net_flow, snd_wnd),
                      out, sizeof(out)) != MEMTX_OK) {
        s->stats.dma_errs++;
        if (job->status == HDC_ST_OK) {
            job->status = HDC_ST_EDMA;
        }
    }
    t->job = NULL;
}
