/*
 * hdc: the engine's receive queues - a striding snic RQ and its CQ whose
 * rings and doorbell records are in BAR4 (HDC_NVMEQ_NIC_RQ / _RCQ,
 * records at HDC_NVMEQ_NIC_DBR + 8 / + 12), created by the driver through
 * snic's peer-queue API; a steering rule of the driver sends a flow to
 * the RQ.  Its buffers are 2^HDC_NIC_RQ_LOG BAR2 chunks the engine takes
 * out of its pool on HDC_NIC_RX_ENABLE, one per descriptor, each
 * 2^HDC_NIC_RX_LOG_NSTR strides of 2^HDC_NIC_RX_LOG_STRIDE bytes.
 *
 * The snic's CQE writes into BAR4 wake the engine; its pass parses each
 * frame (Ethernet, IPv4, UDP and struct hdc_rx_hdr, or TCP) and hands it
 * to the scoreboard through HdcNicRx.deliver, which copies the payload
 * into the receiving command's chunk or asks to wait (the CQE stays until
 * a later pass).  A descriptor whose last stride is consumed is posted
 * again (same chunk) by advancing the RQ's producer record; the snic
 * re-reads it when it runs out, so no doorbell is needed.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "d2d/snic_ifc.h"
#include "hdc.h"
#include "hw/d2d/trace.h"

#define HDC_RQ_SIZE (1u << HDC_NIC_RQ_LOG)
#define HDC_RCQ_SIZE (1u << HDC_NIC_RCQ_LOG)
#define HDC_RX_STRIDE (1u << HDC_NIC_RX_LOG_STRIDE)

QEMU_BUILD_BUG_ON(HDC_RX_STRIDE << HDC_NIC_RX_LOG_NSTR != HDC_CHUNK_SIZE);
QEMU_BUILD_BUG_ON(HDC_NVMEQ_NIC_RQ + HDC_RQ_SIZE * 16 > HDC_NVMEQ_NIC_RCQ);
QEMU_BUILD_BUG_ON(HDC_NVMEQ_NIC_RCQ + HDC_RCQ_SIZE * 64 > HDC_NVMEQ_SIZE);

/* Give the buffers back, forget the queues (reset, HDC_NIC_RX_DISABLE). */
void hdc_nic_rx_reset(HdcState *s)
{
    HdcNicRx *x = &s->nicrx;
    unsigned i;

    for (i = 0; i < HDC_RQ_SIZE; i++) {
        hdc_chunk_put(s, x->chunk[i]);
        x->chunk[i] = -1;
    }
    memset(s->nv.q + HDC_NVMEQ_NIC_RQ, 0, HDC_RQ_SIZE * 16);
    memset(s->nv.q + HDC_NVMEQ_NIC_DBR + 8, 0, 8);
    x->enabled = false;
    x->waiting = false;
}

void hdc_nic_rx_init(HdcState *s)
{
    unsigned i;

    for (i = 0; i < HDC_RQ_SIZE; i++) {
        s->nicrx.chunk[i] = -1;
    }
}

uint32_t hdc_nic_rx_status(HdcState *s)
{
    return s->nicrx.enabled;
}

/* Write the RQ's producer record. */
static void hdc_nic_rx_post(HdcState *s)
{
    stl_le_p(s->nv.q + HDC_NVMEQ_NIC_DBR + 8, s->nicrx.rq_pi);
}

static void hdc_nic_rx_enable(HdcState *s)
{
    HdcNicRx *x = &s->nicrx;
    unsigned i;

    if (x->enabled || s->chunks_free < HDC_RQ_SIZE + 1) {
        s->stats.bad_reg++;
        hdc_raise_error(s, HDC_ERR_BAD_REG,
                        "NIC receive enabled twice or no buffer chunks");
        return;
    }
    memset(s->nv.q + HDC_NVMEQ_NIC_RCQ, 0, HDC_RCQ_SIZE * 64);
    memset(s->nv.q + HDC_NVMEQ_NIC_DBR + 8, 0, 8);
    for (i = 0; i < HDC_RQ_SIZE; i++) {
        uint8_t *d = s->nv.q + HDC_NVMEQ_NIC_RQ + i * 16;

        x->chunk[i] = hdc_chunk_take(s);
        stl_le_p(d, HDC_CHUNK_SIZE);
        stl_le_p(d + 4, 0);
        stq_le_p(d + 8, s->nv.bar2 + (uint64_t)x->chunk[i] * HDC_CHUNK_SIZE);
    }
    x->rq_pi = HDC_RQ_SIZE;
    x->cq_ci = 0;
    x->enabled = true;
    hdc_nic_rx_post(s);
}

void hdc_nic_rx_ctrl_write(HdcState *s, uint32_t val)
{
    HdcNicRx *x = &s->nicrx;

    switch (val) {
    case HDC_NIC_RX_ENABLE:
        hdc_nic_rx_enable(s);
        break;
    case HDC_NIC_RX_DISABLE:
        hdc_nic_rx_reset(s);
        x->fail = HDC_ST_ENET;
        hdc_kick(s);
        break;
    case HDC_NIC_RX_ABORT:
        x->fail = HDC_ST_EABORT;
        hdc_kick(s);
        break;
    default:
        s->stats.bad_reg++;
        hdc_raise_error(s, HDC_ERR_BAD_REG, "unknown NIC receive control");
        break;
    }
}

/* Is @addr (in BAR4) in the receive CQ ring? Then the engine has work. */
bool hdc_nic_rx_is_cq(hwaddr addr)
{
    return addr >= HDC_NVMEQ_NIC_RCQ &&
           addr < HDC_NVMEQ_NIC_RCQ + HDC_RCQ_SIZE * 64;
}

/*
 * The TCP segment of IPv4 header @ip (@ihl bytes, @tot in all): its
 * addresses, ports, sequence number, flags, TSval and payload (any length,
 * also none).  NULL if it is good (@d filled), else why not.
 */
static const char *hdc_nic_rx_parse_tcp(const uint8_t *ip, uint32_t ihl,
                                        uint32_t tot, HdcRxDgram *d)
{
    const uint8_t *th = ip + ihl;
    uint32_t doff, i;

    if (tot < ihl + 20) {
        return "TCP header";
    }
    doff = (th[12] >> 4) * 4;
    if (doff < 20 || ihl + doff > tot) {
        return "TCP data offset";
    }
    memset(d, 0, sizeof(*d));
    /* The timestamp option, if there is one (kind 8, length 10). */
    for (i = 20; i < doff && th[i] != 0;) {
        if (th[i] == 1) {
            i++;
            continue;
        }
        if (i + 1 >= doff || th[i + 1] < 2 || i + th[i + 1] > doff) {
            break;
        }
        if (th[i] == 8 && th[i + 1] == 10) {
            d->has_ts = true;
            d->tsval = ldl_be_p(th + i + 2);
        }
        i += th[i + 1];
    }
    d->proto = HDC_NET_TCP;
    d->src_ip = ldl_be_p(ip + 12);
    d->dst_ip = ldl_be_p(ip + 16);
    d->src_port = lduw_be_p(th);
    d->dst_port = lduw_be_p(th + 2);
    d->seq = ldl_be_p(th + 4);
    d->tcp_flags = th[13];
    d->len = tot - ihl - doff;
    d->data = th + doff;
    return NULL;
}

/*
 * The datagram in @f (@len frame bytes): Ethernet II, IPv4 without
 * fragments, UDP, struct hdc_rx_hdr, payload; or a TCP segment.  NULL if it is good (@d
 * filled), else why not.
 */
static const char *hdc_nic_rx_parse(uint8_t *f, uint32_t len,
                                    uint16_t flags, HdcRxDgram *d)
{
    uint32_t ihl, tot, ulen, plen;
    uint8_t *ip = f + 14, *udp, *h;

    if (flags & (SNIC_CQE_F_L3_BAD | SNIC_CQE_F_L4_BAD)) {
        return "checksum";
    }
    if (len < 14 + 20 || lduw_be_p(f + 12) != 0x0800) {
        return "not IPv4";
    }
    ihl = (ip[0] & 0xf) * 4;
    tot = lduw_be_p(ip + 2);
    if (ip[0] >> 4 != 4 || ihl < 20 || tot < ihl || 14 + tot > len) {
        return "IPv4 header";
    }
    if (lduw_be_p(ip + 6) & 0x3fff) {
        return "IPv4 fragment";
    }
    if (ip[9] == HDC_NET_TCP) {
        return hdc_nic_rx_parse_tcp(ip, ihl, tot, d);
    }
    if (ip[9] != HDC_NET_UDP || tot < ihl + 8) {
        return "not UDP or TCP";
    }
    udp = ip + ihl;
    ulen = lduw_be_p(udp + 4);
    if (ulen < 8 || ulen > tot - ihl) {
        return "UDP length";
    }
    if (ulen < 8 + sizeof(struct hdc_rx_hdr)) {
        return "no application header";
    }
    h = udp + 8;
    plen = ldl_be_p(h + 4);
    if (ldl_be_p(h) != HDC_RX_MAGIC) {
        return "application header magic";
    }
    if (!plen || plen != ulen - 8 - sizeof(struct hdc_rx_hdr)) {
        return "application header length";
    }
    d->src_ip = ldl_be_p(ip + 12);
    d->dst_ip = ldl_be_p(ip + 16);
    d->src_port = lduw_be_p(udp);
    d->dst_port = lduw_be_p(udp + 2);
    d->off = ldq_be_p(h + 8);
    d->len = plen;
    d->data = h + sizeof(struct hdc_rx_hdr);
    d->proto = HDC_NET_UDP;
    return NULL;
}

/*
 * The CQEs the snic wrote: each a frame in a stride of a descriptor, or a
 * filler; datagrams go to the scoreboard in arrival order.
 */
void hdc_nic_rx_process(HdcState *s)
{
    HdcNicRx *x = &s->nicrx;
    bool any = false;

    if (x->fail) {
        x->fail_all(s, x->fail);
        x->fail = 0;
    }
    x->waiting = false;
    while (x->enabled) {
        uint8_t *cqe = s->nv.q + HDC_NVMEQ_NIC_RCQ +
                       (x->cq_ci & (HDC_RCQ_SIZE - 1)) * 64;
        uint8_t phase = !((x->cq_ci >> HDC_NIC_RCQ_LOG) & 1);
        uint8_t op = cqe[offsetof(struct snic_cqe, opcode)];
        uint32_t bytes = ldl_le_p(cqe + offsetof(struct snic_cqe, byte_cnt));
        uint16_t desc = lduw_le_p(cqe + offsetof(struct snic_cqe,
                                                  wqe_counter));
        uint16_t flags = lduw_le_p(cqe + offsetof(struct snic_cqe, flags));
        uint32_t stride = lduw_le_p(cqe + offsetof(struct snic_cqe,
                                                    stride_idx));
        uint32_t nstr = lduw_le_p(cqe + offsetof(struct snic_cqe,
                                                  num_strides));
        int32_t chunk = x->chunk[desc & (HDC_RQ_SIZE - 1)];
        const char *why = NULL;
        HdcRxDgram d = { 0 };

        if ((cqe[63] & SNIC_CQE_OWNER) != phase) {
            break;
        }
        if (op == SNIC_CQE_RX && bytes) {
            if ((stride + nstr) << HDC_NIC_RX_LOG_STRIDE > HDC_CHUNK_SIZE ||
                bytes > nstr << HDC_NIC_RX_LOG_STRIDE) {
                why = "CQE strides";
            } else {
                why = hdc_nic_rx_parse(hdc_chunk_ptr(s, chunk) +
                                       (stride << HDC_NIC_RX_LOG_STRIDE),
                                       bytes, flags, &d);
            }
            if (!why) {
                int r = x->deliver(s, &d);

                if (r == HDC_RX_WAIT) {
                    x->waiting = true;
                    break;
                }
                if (r == HDC_RX_PLACED) {
                    s->stats.nic_rx++;
                } else {
                    s->stats.nic_rx_drop++;
                }
            } else {
                s->stats.nic_rx_drop++;
                D2D_GUEST_ERR(hdc_nic_rx_bad, "%s", why);
                x->deliver(s, NULL);
            }
        } else if (op != SNIC_CQE_RX) {
            s->stats.nic_rx_drop++;
            s->stats.nic_errs++;
        }
        x->cq_ci++;
        any = true;
        if (flags & SNIC_CQE_F_MPW_LAST) {
            /* Every stride of the descriptor was consumed: post it again. */
            x->rq_pi++;
            hdc_nic_rx_post(s);
        }
    }
    if (any) {
        stl_le_p(s->nv.q + HDC_NVMEQ_NIC_DBR + 12, x->cq_ci);
    }
}
