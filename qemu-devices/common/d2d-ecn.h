/*
 * d2d: ECN marking at the switch queue in front of a port (RFC 3168 CE
 * on ECN-capable IPv4 packets), RED-like between two queue depths as
 * DCQCN's switches mark, with a deterministic pseudo-random sequence so
 * that runs repeat; and a "mark every Nth ECN-capable packet" mode for
 * tests.  docs/timing.md "ECN marking".
 *
 * Pure C with no QEMU dependency so that the host unit tests check it
 * (tests/unit/test_d2d_ecn.c); d2d-timing.c applies it to frames.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef D2D_ECN_H
#define D2D_ECN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Defaults of the marking curve: the DCQCN paper's switch configuration
 * (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
 * SIGCOMM 2015): Kmin 5 KB, Kmax 200 KB, Pmax 1%.
 */
#define D2D_ECN_DEF_KMIN        5000        /* bytes */
#define D2D_ECN_DEF_KMAX        200000      /* bytes */
#define D2D_ECN_DEF_PMAX_PPM    10000       /* 1% */

/* The IPv4 header's ECN field (RFC 3168): the low two bits of TOS. */
#define D2D_ECN_MASK            3
#define D2D_ECN_NOT_ECT         0
#define D2D_ECN_ECT1            1
#define D2D_ECN_ECT0            2
#define D2D_ECN_CE              3

typedef struct D2DEcn {
    /* parameters */
    uint32_t kmin, kmax;        /* queue depths, bytes; kmax 0: no curve */
    uint32_t pmax_ppm;          /* probability at kmax, parts per million */
    uint32_t mark_every;        /* mark every Nth ECT packet (0: off) */
    /* state */
    uint64_t rng;               /* xorshift64, never 0 */
    uint64_t ect_seen;          /* ECT packets counted for mark_every */
    /* counters */
    uint64_t marked;            /* packets set to CE */
} D2DEcn;

/* Defaults above, mark_every off, the sequence at its start. */
void d2d_ecn_init(D2DEcn *e);
/* NULL if the parameters are usable, else what is wrong with them. */
const char *d2d_ecn_check(const D2DEcn *e);
/*
 * Probability (ppm) that a packet arriving at a queue holding @depth
 * bytes is marked: 0 up to kmin, pmax_ppm * (depth - kmin) / (kmax -
 * kmin) up to kmax, 1000000 above kmax (RED, as DCQCN configures it).
 */
uint32_t d2d_ecn_prob_ppm(const D2DEcn *e, uint64_t depth);
/* ECN field of an Ethernet frame carrying IPv4, -1 for anything else. */
int d2d_ecn_field(const uint8_t *f, size_t len);
/*
 * A frame arrives at a queue holding @depth bytes: true if it is
 * ECN-capable and mark_every or (with @curve: timing mode) the curve says
 * to mark it.  Packets already CE count as ECN-capable.
 */
bool d2d_ecn_decide(D2DEcn *e, const uint8_t *f, size_t len,
                    uint64_t depth, bool curve);
/* Set CE in the IPv4 header of @f (checksum updated); false if not ECT. */
bool d2d_ecn_set_ce(uint8_t *f, size_t len);

#endif
