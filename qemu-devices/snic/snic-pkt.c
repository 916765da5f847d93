/*
 * snic: packet helpers (see snic-pkt.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "snic-pkt.h"

size_t snic_pkt_vlan_insert(uint8_t *out, const uint8_t *f, size_t len,
                            uint16_t tci)
{
    memcpy(out, f, 12);
    d2d_wr16(out + 12, SNIC_ETH_P_8021Q);
    d2d_wr16(out + 14, tci);
    memcpy(out + 16, f + 12, len - 12);
    return len + 4;
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
    pi->ethertype = d2d_rd16(f + 12);
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
    pi->ip_len = d2d_rd16(ip + 2);
    if (pi->ip_len < pi->l3_hlen || pi->l3_off + pi->ip_len > len) {
        pi->l3_bad = true;
        return;
    }
    if (verify && d2d_csum_fold(d2d_csum_partial(0, ip, pi->l3_hlen))) {
        pi->l3_bad = true;
        return;
    }
    pi->ipv4 = true;
    pi->ip_proto = ip[9];
    pi->src_ip = d2d_rd32(ip + 12);
    pi->dst_ip = d2d_rd32(ip + 16);
    pi->frag = (d2d_rd16(ip + 6) & 0x3fff) != 0;   /* MF or offset */
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
               d2d_rd16(l4 + 4) >= 8 && d2d_rd16(l4 + 4) <= l4_len) {
        pi->udp = true;
        pi->l4_hlen = 8;
    } else {
        return;
    }
    pi->sport = d2d_rd16(l4);
    pi->dport = d2d_rd16(l4 + 2);

    if (verify && !(pi->udp && d2d_rd16(l4 + 6) == 0)) {
        uint32_t sum = d2d_csum_pseudo4(ip, pi->ip_proto, l4_len);

        if (d2d_csum_fold(d2d_csum_partial(sum, l4, l4_len))) {
            pi->l4_bad = true;
        }
    }
    if (pi->udp && pi->dport == 4789 && l4_len >= 8 + SNIC_VXLAN_HLEN &&
        (l4[8] & 0x08)) {
        pi->vxlan = true;
        pi->vni = d2d_rd32(l4 + 12) >> 8;
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
        d2d_wr16(ip + 10, 0);
        d2d_wr16(ip + 10,
                  d2d_csum_fold(d2d_csum_partial(0, ip, pi.l3_hlen)));
    }
    if (!l4 || !(pi.tcp || pi.udp)) {
        return;
    }
    p = f + pi.l4_off;
    l4_len = pi.ip_len - pi.l3_hlen;
    if (pi.tcp) {
        d2d_wr16(p + 16, 0);
    } else {
        d2d_wr16(p + 6, 0);
    }
    c = d2d_csum_fold(d2d_csum_partial(d2d_csum_pseudo4(ip, pi.ip_proto,
                                                        l4_len), p, l4_len));
    if (pi.udp && c == 0) {
        c = 0xffff;
    }
    d2d_wr16(p + (pi.tcp ? 16 : 6), c);
}

uint32_t snic_toeplitz(const uint8_t *key, const uint8_t *data, size_t n)
{
    uint32_t hash = 0;
    uint32_t window = d2d_rd32(key);
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
    d2d_wr32(in, pi->src_ip);
    d2d_wr32(in + 4, pi->dst_ip);
    if (l4 && (pi->tcp || pi->udp)) {
        d2d_wr16(in + 8, pi->sport);
        d2d_wr16(in + 10, pi->dport);
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
    seq = d2d_rd32(f + pi.l4_off + 4);
    ip_id = d2d_rd16(f + pi.l3_off + 4);
    flags = f[pi.l4_off + 13];

    for (off = 0; off < payload || n == 0; off += mss) {
        size_t chunk = payload - off < mss ? payload - off : mss;
        bool last = off + chunk >= payload;
        uint8_t *tcp = seg + pi.l4_off;

        memcpy(seg, f, hdr);
        memcpy(seg + hdr, f + hdr + off, chunk);
        d2d_wr16(seg + pi.l3_off + 2, pi.l3_hlen + pi.l4_hlen + chunk);
        d2d_wr16(seg + pi.l3_off + 4, ip_id + n);
        d2d_wr32(tcp + 4, seq + off);
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
