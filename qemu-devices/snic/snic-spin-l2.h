/*
 * snic sPIN: L2 bank contention - the L2 memories (packet buffer, handler
 * memory) are word-interleaved over banks that serve one access a cycle;
 * HPUs touching one bank in the same cycle serialize.  docs/snic-spin.md
 * "Time" documents the model and its parameters.
 *
 * Pure C with no QEMU dependency so that the host unit tests can check it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_D2D_SNIC_SPIN_L2_H
#define HW_D2D_SNIC_SPIN_L2_H

#include <stdbool.h>
#include <stdint.h>

/* PsPIN's L2: 32 parallel SRAM cuts per memory (hw/src/pspin_cfg_pkg.sv) */
#define SPIN_L2_BANKS           32
#define SPIN_L2P_WORD_SHIFT     6   /* packet buffer: 512-bit words */
#define SPIN_L2H_WORD_SHIFT     3   /* handler memory: 64-bit words */
/*
 * Cycles of history a bank keeps: handlers are interpreted one after the
 * other, not in time order, so a bank remembers which of its recent
 * cycles are taken rather than when it is next free.
 */
#define SPIN_L2_HISTORY         8192

typedef struct SpinL2Banks {
    uint32_t word_shift;
    uint32_t *taken;        /* [bank][cycle % HISTORY]: cycle + 1, or 0 */
    uint64_t accesses;      /* accesses made */
    uint64_t conflicts;     /* accesses that found their bank busy */
    uint64_t stall_cycles;  /* cycles they waited in all */
} SpinL2Banks;

/* false if the table cannot be allocated */
bool spin_l2_init(SpinL2Banks *b, uint32_t word_shift);
void spin_l2_destroy(SpinL2Banks *b);
/* Every bank free, counters zero. */
void spin_l2_reset(SpinL2Banks *b);
/* The bank of byte offset @off. */
uint32_t spin_l2_bank(const SpinL2Banks *b, uint64_t off);
/*
 * An access to byte offset @off wanting cycle @cycle: takes the first
 * free cycle of its bank from @cycle on and returns the cycles it waited.
 */
uint32_t spin_l2_access(SpinL2Banks *b, uint64_t off, uint64_t cycle);

#endif
