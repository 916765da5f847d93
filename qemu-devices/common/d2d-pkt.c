/*
 * d2d: packet bytes (see d2d-pkt.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "d2d-pkt.h"

uint32_t d2d_csum_partial(uint32_t sum, const uint8_t *p, size_t len)
{
    size_t i;

    for (i = 0; i + 1 < len; i += 2) {
        sum += d2d_rd16(p + i);
        if (sum > 0xffff0000u) {
            sum = (sum & 0xffff) + (sum >> 16);
        }
    }
    if (len & 1) {
        sum += (uint32_t)p[len - 1] << 8;
    }
    return sum;
}

uint16_t d2d_csum_fold(uint32_t sum)
{
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return (uint16_t)~sum;
}

uint32_t d2d_csum_pseudo4(const uint8_t *ip, uint8_t proto, size_t l4_len)
{
    uint32_t sum = 0;

    sum = d2d_csum_partial(sum, ip + 12, 8);
    sum += proto;
    sum += (uint32_t)l4_len;
    return sum;
}
