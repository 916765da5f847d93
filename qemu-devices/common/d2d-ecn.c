/*
 * d2d: ECN marking at the switch queue (see d2d-ecn.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "d2d-ecn.h"
#include "d2d-pkt.h"

#define ETH_HLEN        14
#define ETHERTYPE_IPV4  0x0800
#define PPM             1000000u
#define RNG_SEED        0x9e3779b97f4a7c15ull

void d2d_ecn_init(D2DEcn *e)
{
    memset(e, 0, sizeof(*e));
    e->kmin = D2D_ECN_DEF_KMIN;
    e->kmax = D2D_ECN_DEF_KMAX;
    e->pmax_ppm = D2D_ECN_DEF_PMAX_PPM;
    e->rng = RNG_SEED;
}

const char *d2d_ecn_check(const D2DEcn *e)
{
    if (e->kmax && e->kmin >= e->kmax) {
        return "timing-ecn-kmin must be below timing-ecn-kmax";
    }
    if (e->pmax_ppm > PPM) {
        return "timing-ecn-pmax-ppm is at most 1000000";
    }
    return NULL;
}

uint32_t d2d_ecn_prob_ppm(const D2DEcn *e, uint64_t depth)
{
    if (!e->kmax || depth <= e->kmin) {
        return 0;
    }
    if (depth > e->kmax) {
        return PPM;
    }
    return (uint32_t)((uint64_t)e->pmax_ppm * (depth - e->kmin) /
                      (e->kmax - e->kmin));
}

int d2d_ecn_field(const uint8_t *f, size_t len)
{
    if (len < ETH_HLEN + 20 || d2d_rd16(f + 12) != ETHERTYPE_IPV4 ||
        (f[ETH_HLEN] >> 4) != 4 || (f[ETH_HLEN] & 0xf) < 5 ||
        len < ETH_HLEN + (size_t)(f[ETH_HLEN] & 0xf) * 4) {
        return -1;
    }
    return f[ETH_HLEN + 1] & D2D_ECN_MASK;
}

/* xorshift64: the same sequence on every run. */
static uint32_t d2d_ecn_rand_ppm(D2DEcn *e)
{
    if (!e->rng) {
        e->rng = RNG_SEED;
    }
    e->rng ^= e->rng << 13;
    e->rng ^= e->rng >> 7;
    e->rng ^= e->rng << 17;
    return (uint32_t)(e->rng % PPM);
}

bool d2d_ecn_decide(D2DEcn *e, const uint8_t *f, size_t len,
                    uint64_t depth, bool curve)
{
    uint32_t p;

    if (d2d_ecn_field(f, len) <= D2D_ECN_NOT_ECT) {
        return false;
    }
    e->ect_seen++;
    if (e->mark_every && e->ect_seen % e->mark_every == 0) {
        return true;
    }
    if (!curve) {
        return false;
    }
    p = d2d_ecn_prob_ppm(e, depth);
    return p && (p >= PPM || d2d_ecn_rand_ppm(e) < p);
}

bool d2d_ecn_set_ce(uint8_t *f, size_t len)
{
    uint8_t *ip = f + ETH_HLEN;
    size_t ihl;

    if (d2d_ecn_field(f, len) <= D2D_ECN_NOT_ECT) {
        return false;
    }
    ihl = (size_t)(ip[0] & 0xf) * 4;
    ip[1] |= D2D_ECN_CE;
    d2d_wr16(ip + 10, 0);
    d2d_wr16(ip + 10, d2d_csum_fold(d2d_csum_partial(0, ip, ihl)));
    return true;
}
