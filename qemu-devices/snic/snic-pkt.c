/*
 * snic: packet helpers (see snic-pkt.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "snic-pkt.h"

uint32_t snic_csum_partial(uint32_t sum, const uint8_t *p, size_t len)
{
    size_t i;

    for (i = 0; i + 1 < len; i += 2) {
        sum += snic_rd16(p + i);
        if (sum > 0xffff0000u) {
            sum = (sum & 0xffff) + (sum >> 16);
        }
    }
    if (len & 1) {
        sum += (uint32_t)p[len - 1] << 8;
    }
    return sum;
}

uint16_t snic_csum_fold(uint32_t sum)
{
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return (uint16_t)~sum;
}

/* Pseudo-header sum for TCP/UDP over IPv4. */
static uint32_t pseudo_sum(const uint8_t *ip, uint8_t proto, size_t l4_len)
{
    uint32_t sum = 0;

    sum = snic_csum_partial(sum, ip + 12, 8);
    sum += proto;
    sum += (uint32_t)l4_len;
    return sum;
}

void snic_pkt_parse(const uint8_t *f, size_t len, bool verify,
                    SnicPktInfo *pi)
{
    const uint8_t *ip, *l4;
    size_t l4_len;

    memset(pi, 0, sizeof(*pi));
    if (len < SNIC_ETH_HLEN) {
        return;
    }
    pi->ethertype = snic_rd16(f + 12);
    if (pi->ethertype != SNIC_ETHERTYPE_IPV4) {
        return;
    }
    pi->l3_off = SNIC_ETH_HLEN;
    ip = f + pi->l3_off;
    if (len < pi->l3_off + 20 || (ip[0] >> 4) != 4 || (ip[0] & 0xf) < 5) {
        pi->l3_bad = true;
        return;
    }
    pi->l3_hlen = (ip[0] & 0xf) * 4;
    pi->ip_len = snic_rd16(ip + 2);
    if (pi->ip_len < pi->l3_hlen || pi->l3_off + pi->ip_len > len) {
        pi->l3_bad = true;
        return;
    }
    if (verify && snic_csum_fold(snic_csum_partial(0, ip, pi->l3_hlen))) {
        pi->l3_bad = true;
        return;
    }
    pi->ipv4 = true;
    pi->ip_proto = ip[9];
    pi->src_ip = snic_rd32(ip + 12);
    pi->dst_ip = snic_rd32(ip + 16);
    pi->frag = (snic_rd16(ip + 6) & 0x3fff) != 0;   /* MF or offset */
    if (pi->frag) {
        return;
    }

    pi->l4_off = pi->l3_off + pi->l3_hlen;
    l4 = f + pi->l4_off;
    l4_len = pi->ip_len - pi->l3_hlen;
    if (pi->ip_proto == SNIC_IPPROTO_TCP && l4_len >= 20 &&
        (size_t)((l4[12] >> 4) * 4) >= 20 &&
        (size_t)((l4[12] >> 4) * 4) <= l4_len) {
        pi->tcp = true;
        pi->l4_hlen = (l4[12] >> 4) * 4;
    } else if (pi->ip_proto == SNIC_IPPROTO_UDP && l4_len >= 8 &&
               snic_rd16(l4 + 4) >= 8 && snic_rd16(l4 + 4) <= l4_len) {
        pi->udp = true;
        pi->l4_hlen = 8;
    } else {
        return;
    }
    pi->sport = snic_rd16(l4);
    pi->dport = snic_rd16(l4 + 2);

    if (verify && !(pi->udp && snic_rd16(l4 + 6) == 0)) {
        uint32_t sum = pseudo_sum(ip, pi->ip_proto, l4_len);

        if (snic_csum_fold(snic_csum_partial(sum, l4, l4_len))) {
            pi->l4_bad = true;
        }
    }
    if (pi->udp && pi->dport == 4789 && l4_len >= 8 + SNIC_VXLAN_HLEN &&
        (l4[8] & 0x08)) {
        pi->vxlan = true;
        pi->vni = snic_rd32(l4 + 12) >> 8;
    }
}

void snic_pkt_fill_csum(uint8_t *f, size_t len, bool l3, bool l4)
{
    SnicPktInfo pi;
    uint8_t *ip, *p;
    size_t l4_len;
    uint16_t c;

    snic_pkt_parse(f, len, false, &pi);
    if (!pi.ipv4) {
        return;
    }
    ip = f + pi.l3_off;
    if (l3) {
        snic_wr16(ip + 10, 0);
        snic_wr16(ip + 10,
                  snic_csum_fold(snic_csum_partial(0, ip, pi.l3_hlen)));
    }
    if (!l4 || !(pi.tcp || pi.udp)) {
        return;
    }
    p = f + pi.l4_off;
    l4_len = pi.ip_len - pi.l3_hlen;
    if (pi.tcp) {
        snic_wr16(p + 16, 0);
    } else {
        snic_wr16(p + 6, 0);
    }
    c = snic_csum_fold(snic_csum_partial(pseudo_sum(ip, pi.ip_proto, l4_len),
                                         p, l4_len));
    if (pi.udp && c == 0) {
        c = 0xffff;
    }
    snic_wr16(p + (pi.tcp ? 16 : 6), c);
}

uint32_t snic_toeplitz(const uint8_t *key, const uint8_t *data, size_t n)
{
    uint32_t hash = 0;
    uint32_t window = snic_rd32(key);
    size_t i;
    int b;

    for (i = 0; i < n; i++) {
        for (b = 7; b >= 0; b--) {
            if (data[i] & (1u << b)) {
                hash ^= window;
            }
            window <<= 1;
            /* Shift in the next key bit (key is 40 bytes, input <= 36). */
            if (key[i + 4] & (1u << b)) {
                window |= 1;
            }
        }
    }
    return hash;
}

bool snic_rss_hash(const uint8_t *key, bool l4, const SnicPktInfo *pi,
                   uint32_t *hash)
{
    uint8_t in[12];
    size_t n = 8;

    if (!pi->ipv4) {
        return false;
    }
    snic_wr32(in, pi->src_ip);
    snic_wr32(in + 4, pi->dst_ip);
    if (l4 && (pi->tcp || pi->udp)) {
        snic_wr16(in + 8, pi->sport);
        snic_wr16(in + 10, pi->dport);
        n = 12;
    }
    *hash = snic_toeplitz(key, in, n);
    return true;
}

int snic_tso(const uint8_t *f, size_t len, uint16_t mss, uint8_t *seg,
             void (*emit)(void *opaque, const uint8_t *seg, size_t len),
             void *opaque)
{
    SnicPktInfo pi;
    size_t hdr, payload, off;
    uint32_t seq;
    uint16_t ip_id;
    uint8_t flags;
    int n = 0;

    snic_pkt_parse(f, len, false, &pi);
    if (!pi.tcp || mss == 0) {
        return -1;
    }
    hdr = pi.l4_off + pi.l4_hlen;
    payload = pi.l3_off + pi.ip_len - hdr;
    seq = snic_rd32(f + pi.l4_off + 4);
    ip_id = snic_rd16(f + pi.l3_off + 4);
    flags = f[pi.l4_off + 13];

    for (off = 0; off < payload || n == 0; off += mss) {
        size_t chunk = payload - off < mss ? payload - off : mss;
        bool last = off + chunk >= payload;
        uint8_t *tcp = seg + pi.l4_off;

        memcpy(seg, f, hdr);
        memcpy(seg + hdr, f + hdr + off, chunk);
        snic_wr16(seg + pi.l3_off + 2, pi.l3_hlen + pi.l4_hlen + chunk);
        snic_wr16(seg + pi.l3_off + 4, ip_id + n);
        snic_wr32(tcp + 4, seq + off);
        /* FIN/PSH only on the last segment, CWR only on the first. */
        tcp[13] = flags & ~((last ? 0 : 0x09) | (n ? 0x80 : 0));
        snic_pkt_fill_csum(seg, hdr + chunk, true, true);
        emit(opaque, seg, hdr + chunk);
        n++;
        if (last) {
            break;
        }
    }
    return n;
}
