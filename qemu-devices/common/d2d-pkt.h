/*
 * d2d: packet bytes - big-endian (network order) and little-endian field
 * access, and the Internet checksum (RFC 1071) with the IPv4 pseudo
 * header of TCP and UDP.  The one copy the device models' packet code
 * (snic's packet helpers and RoCEv2 wire format, fld's accelerators)
 * uses.  Pure C with no QEMU dependency, so that the host unit tests and
 * userspace tools build it too (tests/unit/test_d2d_pkt.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef D2D_PKT_H
#define D2D_PKT_H

#include <stddef.h>
#include <stdint.h>

/* Big-endian (network order) field access. */
static inline uint16_t d2d_rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t d2d_rd32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
           (uint32_t)p[2] << 8 | p[3];
}

static inline void d2d_wr16(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = v & 0xff;
}

static inline void d2d_wr32(uint8_t *p, uint32_t v)
{
    p[0] = v >> 24;
    p[1] = (v >> 16) & 0xff;
    p[2] = (v >> 8) & 0xff;
    p[3] = v & 0xff;
}

/* Little-endian field access (device descriptor formats). */
static inline uint16_t d2d_rd16le(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t d2d_rd32le(const uint8_t *p)
{
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static inline void d2d_wr32le(uint8_t *p, uint32_t v)
{
    p[0] = v & 0xff;
    p[1] = (v >> 8) & 0xff;
    p[2] = (v >> 16) & 0xff;
    p[3] = v >> 24;
}

/*
 * The Internet checksum: d2d_csum_partial adds @len bytes at @p (an odd
 * last byte as the high half of a word) to the running 32-bit @sum;
 * d2d_csum_fold folds the sum to 16 bits and complements it.  A header
 * whose checksum field is right sums to 0.
 */
uint32_t d2d_csum_partial(uint32_t sum, const uint8_t *p, size_t len);
uint16_t d2d_csum_fold(uint32_t sum);
/* Pseudo-header sum of a TCP/UDP segment of @l4_len bytes after IPv4 @ip. */
uint32_t d2d_csum_pseudo4(const uint8_t *ip, uint8_t proto, size_t l4_len);

#endif
