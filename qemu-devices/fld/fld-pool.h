/*
 * fld: the shared transmit descriptor pool.
 *
 * Every send queue's posted-but-not-completed descriptors live in one
 * pool of 8-byte internal descriptors; a cuckoo table (fld-cuckoo.h) maps
 * (queue, ring index) to the pool slot, so per-queue state is only the
 * producer index and the pool is sized for the bandwidth-delay product,
 * not for queues x ring size.  A post that finds the pool or the table
 * full stalls (FLD_POOL_STALL) rather than failing.  Pure C for the host
 * unit tests (tests/unit/test_fld_pool.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_D2D_FLD_POOL_H
#define HW_D2D_FLD_POOL_H

#include "fld-cuckoo.h"

typedef struct FldDescPool {
    unsigned size;              /* descriptor slots */
    uint64_t *desc;             /* the 8-byte internal descriptors */
    uint32_t *free_stack;       /* free slot numbers */
    unsigned free_top;
    FldCuckoo map;              /* (queue << 16 | ring index) -> slot */
    uint64_t posts, releases, stalls, misses;
} FldDescPool;

typedef enum FldPoolResult {
    FLD_POOL_OK = 0,
    FLD_POOL_STALL = 1,         /* pool or map full: retry after a release */
    FLD_POOL_DUP = 2,           /* (queue, index) already posted */
} FldPoolResult;

#define FLD_POOL_KEY(q, idx) ((uint32_t)(q) << 16 | ((idx) & 0xffff))

bool fld_pool_init(FldDescPool *p, unsigned size);
void fld_pool_destroy(FldDescPool *p);
void fld_pool_reset(FldDescPool *p);
FldPoolResult fld_pool_post(FldDescPool *p, uint16_t q, uint16_t idx,
                            uint64_t desc);
/* The descriptor posted at (q, idx); false if none (counted in misses). */
bool fld_pool_get(FldDescPool *p, uint16_t q, uint16_t idx, uint64_t *desc);
/* Frees (q, idx)'s slot; false if none. */
bool fld_pool_release(FldDescPool *p, uint16_t q, uint16_t idx);
unsigned fld_pool_in_use(const FldDescPool *p);
/* Bytes of descriptors plus map. */
size_t fld_pool_bytes(const FldDescPool *p);

#endif
