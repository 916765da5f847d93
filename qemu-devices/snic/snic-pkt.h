/*
 * snic: packet helpers - parsing, filling checksums, Toeplitz hash, TCP
 * segmentation, over the byte access and Internet checksum of
 * ../common/d2d-pkt.h.  Pure C (no QEMU headers) so the host unit tests
 * check them directly (tests/unit/test_snic_pkt.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_D2D_SNIC_PKT_H
#define HW_D2D_SNIC_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../common/d2d-pkt.h"

#define SNIC_ETH_HLEN       14
#define SNIC_ETH_P_8021Q    0x8100
#define SNIC_ETHERTYPE_IPV4 0x0800
#define SNIC_IPPROTO_TCP    6
#define SNIC_IPPROTO_UDP    17
#define SNIC_VXLAN_HLEN     8
/* Outer Ethernet + IPv4 (no options) + UDP + VXLAN */
#define SNIC_VXLAN_OUTER    (SNIC_ETH_HLEN + 20 + 8 + SNIC_VXLAN_HLEN)

typedef struct SnicPktInfo {
    uint16_t ethertype;
    bool ipv4;              /* a well-formed IPv4 header */
    bool l3_bad;            /* IPv4 ethertype but malformed or bad checksum */
    size_t l3_off;
    size_t l3_hlen;
    size_t ip_len;          /* IPv4 total length */
    uint8_t ip_proto;
    uint32_t src_ip, dst_ip;        /* host order */
    bool frag;              /* a fragment: no L4 header to look at */
    bool tcp, udp;          /* L4 header present and in bounds */
    bool l4_bad;            /* L4 checksum wrong (only when verified) */
    size_t l4_off;
    size_t l4_hlen;
    uint16_t sport, dport;  /* host order */
    bool vxlan;             /* UDP to SNIC_VXLAN_PORT with a VXLAN header */
    uint32_t vni;
} SnicPktInfo;

/* Parse Ethernet/IPv4/TCP|UDP; with @verify, check the checksums. */
void snic_pkt_parse(const uint8_t *f, size_t len, bool verify,
                    SnicPktInfo *pi);

/* Fill the IPv4 header checksum (@l3) and/or TCP/UDP checksum (@l4). */
void snic_pkt_fill_csum(uint8_t *f, size_t len, bool l3, bool l4);

/* Toeplitz hash of @n bytes of @data with a 40-byte key. */
uint32_t snic_toeplitz(const uint8_t *key, const uint8_t *data, size_t n);

/*
 * RSS hash of a parsed frame: IPv4 addresses, plus ports with @l4.
 * Returns false (no hash) for non-IPv4 frames.
 */
bool snic_rss_hash(const uint8_t *key, bool l4, const SnicPktInfo *pi,
                   uint32_t *hash);

/*
 * Copy the @len-byte frame @f into @out with an 802.1Q tag (@tci) between
 * the MAC addresses and the EtherType; @out has room for @len + 4 bytes.
 * Returns the new length.
 */
size_t snic_pkt_vlan_insert(uint8_t *out, const uint8_t *f, size_t len,
                            uint16_t tci);

/*
 * Cut an Ethernet/IPv4/TCP frame into segments of at most @mss payload
 * bytes.  Each segment (headers + payload, checksums filled) is built in
 * @seg (room for headers + mss bytes) and handed to @emit.  Returns the
 * number of segments, or -1 if the frame is not TCP over IPv4.
 */
int snic_tso(const uint8_t *f, size_t len, uint16_t mss, uint8_t *seg,
             void (*emit)(void *opaque, const uint8_t *seg, size_t len),
             void *opaque);

#endif
