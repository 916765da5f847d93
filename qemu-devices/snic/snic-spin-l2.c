/*
 * snic sPIN: L2 bank contention (see snic-spin-l2.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include "snic-spin-l2.h"

#define SPIN_L2_SLOTS   ((size_t)SPIN_L2_BANKS * SPIN_L2_HISTORY)

bool spin_l2_init(SpinL2Banks *b, uint32_t word_shift)
{
    memset(b, 0, sizeof(*b));
    b->word_shift = word_shift;
    b->taken = calloc(SPIN_L2_SLOTS, sizeof(*b->taken));
    return b->taken != NULL;
}

void spin_l2_destroy(SpinL2Banks *b)
{
    free(b->taken);
    b->taken = NULL;
}

void spin_l2_reset(SpinL2Banks *b)
{
    if (b->taken) {
        memset(b->taken, 0, SPIN_L2_SLOTS * sizeof(*b->taken));
    }
    b->accesses = b->conflicts = b->stall_cycles = 0;
}

uint32_t spin_l2_bank(const SpinL2Banks *b, uint64_t off)
{
    return (off >> b->word_shift) % SPIN_L2_BANKS;
}

uint32_t spin_l2_access(SpinL2Banks *b, uint64_t off, uint64_t cycle)
{
    uint32_t *row = b->taken + (size_t)spin_l2_bank(b, off) *
                    SPIN_L2_HISTORY;
    uint64_t c = cycle;

    b->accesses++;
    /* a slot holds the (truncated) cycle + 1 that took it */
    while (c - cycle < SPIN_L2_HISTORY &&
           row[c % SPIN_L2_HISTORY] == (uint32_t)(c + 1)) {
        c++;
    }
    row[c % SPIN_L2_HISTORY] = (uint32_t)(c + 1);
    if (c != cycle) {
        b->conflicts++;
        b->stall_cycles += c - cycle;
    }
    return (uint32_t)(c - cycle);
}
