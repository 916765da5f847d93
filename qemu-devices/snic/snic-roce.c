/*
 * snic: RoCEv2 wire format (see snic-roce.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include <zlib.h>
#include "snic-pkt.h"
#include "snic-roce.h"

#define F_REQ_SEND (ROCE_F_REQ | ROCE_F_SEND | ROCE_F_PAYLOAD)
#define F_REQ_WRITE (ROCE_F_REQ | ROCE_F_WRITE | ROCE_F_PAYLOAD)
#define F_READ_RESP (ROCE_F_RESP | ROCE_F_READ | ROCE_F_PAYLOAD)

uint32_t snic_roce_opflags(uint8_t opcode)
{
    switch (opcode) {
    case ROCE_SEND_FIRST:
        return F_REQ_SEND | ROCE_F_FIRST;
    case ROCE_SEND_MIDDLE:
        return F_REQ_SEND | ROCE_F_MIDDLE;
    case ROCE_SEND_LAST:
        return F_REQ_SEND | ROCE_F_LAST;
    case ROCE_SEND_LAST_IMM:
        return F_REQ_SEND | ROCE_F_LAST | ROCE_F_IMM;
    case ROCE_SEND_ONLY:
        return F_REQ_SEND | ROCE_F_ONLY;
    case ROCE_SEND_ONLY_IMM:
        return F_REQ_SEND | ROCE_F_ONLY | ROCE_F_IMM;
    case ROCE_SEND_LAST_INV:
        return F_REQ_SEND | ROCE_F_LAST | ROCE_F_IETH;
    case ROCE_SEND_ONLY_INV:
        return F_REQ_SEND | ROCE_F_ONLY | ROCE_F_IETH;
    case ROCE_WRITE_FIRST:
        return F_REQ_WRITE | ROCE_F_FIRST | ROCE_F_RETH;
    case ROCE_WRITE_MIDDLE:
        return F_REQ_WRITE | ROCE_F_MIDDLE;
    case ROCE_WRITE_LAST:
        return F_REQ_WRITE | ROCE_F_LAST;
    case ROCE_WRITE_LAST_IMM:
        return F_REQ_WRITE | ROCE_F_LAST | ROCE_F_IMM;
    case ROCE_WRITE_ONLY:
        return F_REQ_WRITE | ROCE_F_ONLY | ROCE_F_RETH;
    case ROCE_WRITE_ONLY_IMM:
        return F_REQ_WRITE | ROCE_F_ONLY | ROCE_F_RETH | ROCE_F_IMM;
    case ROCE_READ_REQ:
        return ROCE_F_REQ | ROCE_F_READ | ROCE_F_ONLY | ROCE_F_RETH;
    case ROCE_READ_RESP_FIRST:
        return F_READ_RESP | ROCE_F_FIRST | ROCE_F_AETH;
    case ROCE_READ_RESP_MIDDLE:
        return F_READ_RESP | ROCE_F_MIDDLE;
    case ROCE_READ_RESP_LAST:
        return F_READ_RESP | ROCE_F_LAST | ROCE_F_AETH;
    case ROCE_READ_RESP_ONLY:
        return F_READ_RESP | ROCE_F_ONLY | ROCE_F_AETH;
    case ROCE_ACK:
        return ROCE_F_RESP | ROCE_F_ACK | ROCE_F_AETH;
    case ROCE_ATOMIC_ACK:
        return ROCE_F_RESP | ROCE_F_ACK | ROCE_F_ATOMIC | ROCE_F_AETH |
               ROCE_F_ATMACK;
    case ROCE_CMP_SWAP:
    case ROCE_FETCH_ADD:
        return ROCE_F_REQ | ROCE_F_ATOMIC | ROCE_F_ONLY | ROCE_F_ATMETH;
    case ROCE_OP_UC | ROCE_SEND_FIRST ... ROCE_OP_UC | ROCE_WRITE_ONLY_IMM:
        /* UC: the RC SEND and WRITE operations, same headers */
        return snic_roce_opflags(opcode & ~ROCE_OP_CLASS_MASK) | ROCE_F_UC;
    case ROCE_OP_XRC | ROCE_SEND_FIRST ... ROCE_OP_XRC | ROCE_SEND_ONLY_INV: {
        /* XRC: the RC operations, requests with the XRCETH */
        uint32_t fl = snic_roce_opflags(opcode & ~ROCE_OP_CLASS_MASK);

        return !fl ? 0 : fl | ROCE_F_XRC |
               ((fl & ROCE_F_REQ) ? ROCE_F_XRCETH : 0);
    }
    case ROCE_UD_SEND_ONLY:
        return F_REQ_SEND | ROCE_F_ONLY | ROCE_F_UD | ROCE_F_DETH;
    case ROCE_UD_SEND_ONLY_IMM:
        return F_REQ_SEND | ROCE_F_ONLY | ROCE_F_UD | ROCE_F_DETH |
               ROCE_F_IMM;
    case ROCE_CUSTOM_FIRST ... ROCE_CUSTOM_LAST:
        return ROCE_F_REQ | ROCE_F_CUSTOM | ROCE_F_ONLY | ROCE_F_RETH |
               ROCE_F_PAYLOAD;
    case ROCE_CNP:
        return ROCE_F_CNP;
    default:
        return 0;
    }
}

/*
 * Header order on the wire: BTH, XRCETH, RETH|DETH|AtomicETH, AETH, ...,
 * ImmDt.
 */
size_t snic_roce_hdr_len(uint32_t fl)
{
    size_t n = ROCE_BTH_LEN;

    n += (fl & ROCE_F_XRCETH) ? ROCE_XRCETH_LEN : 0;
    n += (fl & ROCE_F_RETH) ? ROCE_RETH_LEN : 0;
    n += (fl & ROCE_F_DETH) ? ROCE_DETH_LEN : 0;
    n += (fl & ROCE_F_ATMETH) ? ROCE_ATMETH_LEN : 0;
    n += (fl & ROCE_F_AETH) ? ROCE_AETH_LEN : 0;
    n += (fl & ROCE_F_ATMACK) ? ROCE_ATMACK_LEN : 0;
    n += (fl & ROCE_F_IMM) ? ROCE_IMM_LEN : 0;
    n += (fl & ROCE_F_IETH) ? ROCE_IETH_LEN : 0;
    n += (fl & ROCE_F_CNP) ? ROCE_CNP_RSVD_LEN : 0;
    return n;
}

static void wr64(uint8_t *p, uint64_t v)
{
    d2d_wr32(p, v >> 32);
    d2d_wr32(p + 4, (uint32_t)v);
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)d2d_rd32(p) << 32 | d2d_rd32(p + 4);
}

uint32_t snic_roce_icrc(const uint8_t *ip, size_t len)
{
    /* The masked LRH of Annex A17: 8 bytes of ones. */
    static const uint8_t lrh[8] = {
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
    };
    uint8_t ph[ROCE_IP6_HLEN + ROCE_UDP_HLEN + ROCE_BTH_LEN];
    size_t l3, n;
    uLong crc;

    if (len < ROCE_IP_HLEN + ROCE_UDP_HLEN + ROCE_BTH_LEN) {
        return 0;
    }
    l3 = (ip[0] >> 4) == 6 ? ROCE_IP6_HLEN : ROCE_IP_HLEN;
    n = l3 + ROCE_UDP_HLEN + ROCE_BTH_LEN;
    if (len < n) {
        return 0;
    }
    memcpy(ph, ip, n);
    if (l3 == ROCE_IP6_HLEN) {
        ph[0] |= 0x0f;                  /* traffic class */
        ph[1] = ph[2] = ph[3] = 0xff;   /* traffic class, flow label */
        ph[7] = 0xff;                   /* hop limit */
    } else {
        ph[1] = 0xff;                   /* TOS */
        ph[8] = 0xff;                   /* TTL */
        ph[10] = ph[11] = 0xff;         /* header checksum */
    }
    ph[l3 + 6] = 0xff;                  /* UDP checksum */
    ph[l3 + 7] = 0xff;
    ph[l3 + ROCE_UDP_HLEN + 4] = 0xff;  /* BTH resv8a */
    crc = crc32(0, lrh, sizeof(lrh));
    crc = crc32(crc, ph, n);
    crc = crc32(crc, ip + n, len - n);
    return (uint32_t)crc;
}

/* Bytes of the IP header a frame of @h carries. */
static size_t roce_l3_len(const SnicRoceHdr *h)
{
    return h->v6 ? ROCE_IP6_HLEN : ROCE_IP_HLEN;
}

size_t snic_roce_build(uint8_t *f, SnicRoceHdr *h, size_t paylen)
{
    uint32_t fl = snic_roce_opflags(h->opcode);
    uint8_t *ip = f + 14, *udp = ip + roce_l3_len(h);
    uint8_t *p = udp + ROCE_UDP_HLEN;

    memcpy(f, h->dmac, 6);
    memcpy(f + 6, h->smac, 6);
    if (h->v6) {
        d2d_wr16(f + 12, ROCE_ETHERTYPE_IPV6);
        memset(ip, 0, ROCE_IP6_HLEN);
        d2d_wr32(ip, 6u << 28 | (uint32_t)h->tos << 20 | (h->flow & 0xfffff));
        ip[6] = SNIC_IPPROTO_UDP;
        ip[7] = h->ttl ? h->ttl : 64;
        memcpy(ip + 8, h->sip6, 16);
        memcpy(ip + 24, h->dip6, 16);
    } else {
        d2d_wr16(f + 12, SNIC_ETHERTYPE_IPV4);
        memset(ip, 0, ROCE_IP_HLEN);
        ip[0] = 0x45;
        ip[1] = h->tos;
        d2d_wr16(ip + 6, 0x4000);      /* DF */
        ip[8] = h->ttl ? h->ttl : 64;
        ip[9] = SNIC_IPPROTO_UDP;
        d2d_wr32(ip + 12, h->sip);
        d2d_wr32(ip + 16, h->dip);
    }
    d2d_wr16(udp, h->sport ? h->sport : 0xc000);
    d2d_wr16(udp + 2, ROCE_UDP_PORT);
    d2d_wr16(udp + 6, 0);

    h->pad = (4 - (paylen & 3)) & 3;
    p[0] = h->opcode;
    p[1] = (h->se ? 0x80 : 0) | (h->mig ? 0x40 : 0) | (h->pad << 4);
    d2d_wr16(p + 2, h->pkey ? h->pkey : ROCE_PKEY_DEFAULT);
    d2d_wr32(p + 4, h->dqpn & ROCE_PSN_MASK);
    if (fl & ROCE_F_CNP) {
        p[4] = 0x40;                    /* BECN (resv8a, not in the ICRC) */
    }
    d2d_wr32(p + 8, (h->ackreq ? 0x80000000u : 0) | (h->psn & ROCE_PSN_MASK));
    p += ROCE_BTH_LEN;
    if (fl & ROCE_F_XRCETH) {
        d2d_wr32(p, h->xrc_srqn & ROCE_PSN_MASK);
        p += ROCE_XRCETH_LEN;
    }
    if (fl & ROCE_F_RETH) {
        wr64(p, h->va);
        d2d_wr32(p + 8, h->rkey);
        d2d_wr32(p + 12, h->dlen);
        p += ROCE_RETH_LEN;
    }
    if (fl & ROCE_F_DETH) {
        d2d_wr32(p, h->qkey);
        d2d_wr32(p + 4, h->sqpn & ROCE_PSN_MASK);
        p += ROCE_DETH_LEN;
    }
    if (fl & ROCE_F_ATMETH) {
        wr64(p, h->va);
        d2d_wr32(p + 8, h->rkey);
        wr64(p + 12, h->swap_add);
        wr64(p + 20, h->compare);
        p += ROCE_ATMETH_LEN;
    }
    if (fl & ROCE_F_AETH) {
        d2d_wr32(p, (uint32_t)h->syndrome << 24 | (h->msn & ROCE_PSN_MASK));
        p += ROCE_AETH_LEN;
    }
    if (fl & ROCE_F_ATMACK) {
        wr64(p, h->orig);
        p += ROCE_ATMACK_LEN;
    }
    if (fl & ROCE_F_IMM) {
        d2d_wr32(p, h->imm);
        p += ROCE_IMM_LEN;
    }
    if (fl & ROCE_F_IETH) {
        d2d_wr32(p, h->ieth);
        p += ROCE_IETH_LEN;
    }
    if (fl & ROCE_F_CNP) {
        memset(p, 0, ROCE_CNP_RSVD_LEN);
        p += ROCE_CNP_RSVD_LEN;
    }
    return p - f;
}

size_t snic_roce_finish(uint8_t *f, const SnicRoceHdr *h, size_t paylen)
{
    size_t tl = snic_roce_hdr_len(snic_roce_opflags(h->opcode));
    size_t l3 = roce_l3_len(h);
    size_t off = 14 + l3 + ROCE_UDP_HLEN + tl + paylen;
    size_t udp_len = ROCE_UDP_HLEN + tl + paylen + h->pad + ROCE_ICRC_LEN;
    uint8_t *ip = f + 14;
    uint32_t icrc;

    memset(f + off, 0, h->pad);
    off += h->pad;
    d2d_wr16(ip + l3 + 4, udp_len);
    if (h->v6) {
        d2d_wr16(ip + 4, udp_len);     /* payload length */
    } else {
        d2d_wr16(ip + 2, ROCE_IP_HLEN + udp_len);
        d2d_wr16(ip + 10, 0);
        d2d_wr16(ip + 10,
                 d2d_csum_fold(d2d_csum_partial(0, ip, ROCE_IP_HLEN)));
    }
    icrc = snic_roce_icrc(ip, off - 14);
    /* stored least significant byte first, as rdma_rxe does */
    f[off] = icrc;
    f[off + 1] = icrc >> 8;
    f[off + 2] = icrc >> 16;
    f[off + 3] = icrc >> 24;
    return off + ROCE_ICRC_LEN;
}

/*
 * The IPv4 header of a received frame: its fields into @h, the UDP header
 * in *udp, its length (as the IP header says) in *udp_len.
 */
static SnicRoceParse roce_parse_ip4(const uint8_t *f, size_t len,
                                    SnicRoceHdr *h, const uint8_t **udp,
                                    size_t *udp_len)
{
    const uint8_t *ip = f + 14;
    size_t tot;

    if (len < ROCE_L4_OFF + ROCE_UDP_HLEN || (ip[0] >> 4) != 4 ||
        ip[9] != SNIC_IPPROTO_UDP) {
        return ROCE_NOT_ROCE;
    }
    /* Fragments and options: not something a RoCE peer sends. */
    if ((d2d_rd16(ip + 6) & 0x3fff) || (ip[0] & 0xf) != 5) {
        *udp = f + 14 + (ip[0] & 0xf) * 4;
        if ((ip[0] & 0xf) < 5 || *udp + 4 > f + len ||
            d2d_rd16(*udp + 2) != ROCE_UDP_PORT) {
            return ROCE_NOT_ROCE;
        }
        return ROCE_MALFORMED;
    }
    *udp = f + ROCE_L4_OFF;
    if (d2d_rd16(*udp + 2) != ROCE_UDP_PORT) {
        return ROCE_NOT_ROCE;
    }
    tot = d2d_rd16(ip + 2);
    *udp_len = d2d_rd16(*udp + 4);
    if (tot > len - 14 || tot != ROCE_IP_HLEN + *udp_len ||
        d2d_csum_fold(d2d_csum_partial(0, ip, ROCE_IP_HLEN)) != 0) {
        return ROCE_MALFORMED;
    }
    h->tos = ip[1];
    h->ttl = ip[8];
    h->sip = d2d_rd32(ip + 12);
    h->dip = d2d_rd32(ip + 16);
    return ROCE_OK;
}

/* The same for IPv6 (no extension headers: a RoCE peer sends none). */
static SnicRoceParse roce_parse_ip6(const uint8_t *f, size_t len,
                                    SnicRoceHdr *h, const uint8_t **udp,
                                    size_t *udp_len)
{
    const uint8_t *ip = f + 14;
    size_t plen;

    if (len < 14 + ROCE_IP6_HLEN + ROCE_UDP_HLEN || (ip[0] >> 4) != 6 ||
        ip[6] != SNIC_IPPROTO_UDP) {
        return ROCE_NOT_ROCE;
    }
    *udp = ip + ROCE_IP6_HLEN;
    if (d2d_rd16(*udp + 2) != ROCE_UDP_PORT) {
        return ROCE_NOT_ROCE;
    }
    plen = d2d_rd16(ip + 4);
    *udp_len = d2d_rd16(*udp + 4);
    if (plen > len - 14 - ROCE_IP6_HLEN || plen != *udp_len) {
        return ROCE_MALFORMED;
    }
    h->v6 = true;
    h->tos = d2d_rd16(ip) >> 4;
    h->flow = d2d_rd32(ip) & 0xfffff;
    h->ttl = ip[7];
    memcpy(h->sip6, ip + 8, 16);
    memcpy(h->dip6, ip + 24, 16);
    return ROCE_OK;
}

SnicRoceParse snic_roce_parse(const uint8_t *f, size_t len, SnicRoceHdr *h)
{
    const uint8_t *ip = f + 14, *udp = NULL, *p, *end;
    size_t udp_len = 0, tl;
    SnicRoceParse r;
    uint32_t fl, icrc;

    memset(h, 0, sizeof(*h));
    if (len < 14) {
        return ROCE_NOT_ROCE;
    }
    switch (d2d_rd16(f + 12)) {
    case SNIC_ETHERTYPE_IPV4:
        r = roce_parse_ip4(f, len, h, &udp, &udp_len);
        break;
    case ROCE_ETHERTYPE_IPV6:
        r = roce_parse_ip6(f, len, h, &udp, &udp_len);
        break;
    default:
        return ROCE_NOT_ROCE;
    }
    if (r != ROCE_OK) {
        return r;
    }
    if (udp_len < ROCE_UDP_HLEN + ROCE_BTH_LEN + ROCE_ICRC_LEN) {
        return ROCE_MALFORMED;
    }
    memcpy(h->dmac, f, 6);
    memcpy(h->smac, f + 6, 6);
    h->ip = ip;
    h->sport = d2d_rd16(udp);

    p = udp + ROCE_UDP_HLEN;
    end = udp + udp_len - ROCE_ICRC_LEN;
    h->opcode = p[0];
    h->se = p[1] & 0x80;
    h->mig = p[1] & 0x40;
    h->pad = (p[1] >> 4) & 3;
    h->tver = p[1] & 0xf;
    h->pkey = d2d_rd16(p + 2);
    h->dqpn = d2d_rd32(p + 4) & ROCE_PSN_MASK;
    h->ackreq = p[8] & 0x80;
    h->psn = d2d_rd32(p + 8) & ROCE_PSN_MASK;
    fl = snic_roce_opflags(h->opcode);
    tl = snic_roce_hdr_len(fl);
    if (!fl || h->tver || (h->pkey & 0x7fff) != 0x7fff ||
        (size_t)(end - p) < tl + h->pad ||
        (!(fl & ROCE_F_PAYLOAD) && (size_t)(end - p) != tl + h->pad)) {
        return ROCE_MALFORMED;
    }
    icrc = end[0] | end[1] << 8 | end[2] << 16 | (uint32_t)end[3] << 24;
    if (snic_roce_icrc(ip, end - ip) != icrc) {
        return ROCE_BAD_ICRC;
    }
    p += ROCE_BTH_LEN;
    if (fl & ROCE_F_XRCETH) {
        h->xrc_srqn = d2d_rd32(p) & ROCE_PSN_MASK;
        p += ROCE_XRCETH_LEN;
    }
    if (fl & ROCE_F_RETH) {
        h->va = rd64(p);
        h->rkey = d2d_rd32(p + 8);
        h->dlen = d2d_rd32(p + 12);
        p += ROCE_RETH_LEN;
    }
    if (fl & ROCE_F_DETH) {
        h->qkey = d2d_rd32(p);
        h->sqpn = d2d_rd32(p + 4) & ROCE_PSN_MASK;
        p += ROCE_DETH_LEN;
    }
    if (fl & ROCE_F_ATMETH) {
        h->va = rd64(p);
        h->rkey = d2d_rd32(p + 8);
        h->swap_add = rd64(p + 12);
        h->compare = rd64(p + 20);
        p += ROCE_ATMETH_LEN;
    }
    if (fl & ROCE_F_AETH) {
        h->syndrome = p[0];
        h->msn = d2d_rd32(p) & ROCE_PSN_MASK;
        p += ROCE_AETH_LEN;
    }
    if (fl & ROCE_F_ATMACK) {
        h->orig = rd64(p);
        p += ROCE_ATMACK_LEN;
    }
    if (fl & ROCE_F_IMM) {
        h->imm = d2d_rd32(p);
        p += ROCE_IMM_LEN;
    }
    if (fl & ROCE_F_IETH) {
        h->ieth = d2d_rd32(p);
        p += ROCE_IETH_LEN;
    }
    p += (fl & ROCE_F_CNP) ? ROCE_CNP_RSVD_LEN : 0;
    h->payload = p;
    h->paylen = end - p - h->pad;
    return ROCE_OK;
}
