/*
 * fld: the 4-bank cuckoo hash table behind FLD's compressed state.
 *
 * One table maps (send queue, ring index) to a slot of the shared transmit
 * descriptor pool; another maps (queue, buffer block) to a block of the
 * shared transmit buffer pool.  As the FlexDriver design sizes it: 4 banks
 * with twice as many entries as the pool has slots (load factor 1/2), one
 * hash function per bank, a 4-entry stash for keys whose eviction walk
 * fails, and insertion that *stalls* (FLD_CK_STALL, nothing changed)
 * instead of failing when the stash is full, so the producer waits for
 * completions to free entries.  Pure C so tests/unit/test_fld_pool.c
 * checks it on the host.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_D2D_FLD_CUCKOO_H
#define HW_D2D_FLD_CUCKOO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FLD_CK_BANKS     4
#define FLD_CK_STASH     4
#define FLD_CK_MAX_KICKS 64

typedef struct FldCkEntry {
    uint32_t key;
    uint32_t val;
    bool used;
} FldCkEntry;

typedef struct FldCuckoo {
    unsigned log_bank;              /* entries per bank = 1 << log_bank */
    FldCkEntry *bank[FLD_CK_BANKS];
    FldCkEntry stash[FLD_CK_STASH];
    unsigned count;                 /* keys stored (table + stash) */
    unsigned stash_used;
    uint64_t kicks;                 /* evictions done by inserts */
    uint64_t stash_inserts;         /* keys that had to go to the stash */
    uint64_t stalls;                /* inserts refused: stash full */
} FldCuckoo;

typedef enum FldCkResult {
    FLD_CK_OK = 0,
    FLD_CK_STALL = 1,               /* no room now: retry after a remove */
} FldCkResult;

/*
 * A table for up to `capacity` keys: 4 banks of 2 * capacity / 4 entries
 * (capacity rounded up to a power of two, at least 4).  false: no memory.
 */
bool fld_ck_init(FldCuckoo *t, unsigned capacity);
void fld_ck_destroy(FldCuckoo *t);
void fld_ck_clear(FldCuckoo *t);
/* Insert or update key -> val. */
FldCkResult fld_ck_insert(FldCuckoo *t, uint32_t key, uint32_t val);
bool fld_ck_lookup(const FldCuckoo *t, uint32_t key, uint32_t *val);
bool fld_ck_remove(FldCuckoo *t, uint32_t key);
/* Bytes the table occupies (banks and stash). */
size_t fld_ck_bytes(const FldCuckoo *t);
unsigned fld_ck_slots(const FldCuckoo *t);

#endif
