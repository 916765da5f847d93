/*
 * fld: shared transmit descriptor pool (see fld-pool.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include "fld-pool.h"

bool fld_pool_init(FldDescPool *p, unsigned size)
{
    memset(p, 0, sizeof(*p));
    if (size == 0 || size > (1u << 20)) {
        return false;
    }
    p->size = size;
    p->desc = calloc(size, sizeof(*p->desc));
    p->free_stack = calloc(size, sizeof(*p->free_stack));
    if (!p->desc || !p->free_stack || !fld_ck_init(&p->map, size)) {
        fld_pool_destroy(p);
        return false;
    }
    fld_pool_reset(p);
    return true;
}

void fld_pool_destroy(FldDescPool *p)
{
    free(p->desc);
    free(p->free_stack);
    fld_ck_destroy(&p->map);
    p->desc = NULL;
    p->free_stack = NULL;
    p->size = 0;
}

void fld_pool_reset(FldDescPool *p)
{
    unsigned i;

    for (i = 0; i < p->size; i++) {
        p->free_stack[i] = p->size - 1 - i;
    }
    p->free_top = p->size;
    fld_ck_clear(&p->map);
}

FldPoolResult fld_pool_post(FldDescPool *p, uint16_t q, uint16_t idx,
                            uint64_t desc)
{
    uint32_t key = FLD_POOL_KEY(q, idx), slot;

    if (fld_ck_lookup(&p->map, key, &slot)) {
        return FLD_POOL_DUP;
    }
    if (p->free_top == 0) {
        p->stalls++;
        return FLD_POOL_STALL;
    }
    slot = p->free_stack[p->free_top - 1];
    if (fld_ck_insert(&p->map, key, slot) != FLD_CK_OK) {
        p->stalls++;
        return FLD_POOL_STALL;
    }
    p->free_top--;
    p->desc[slot] = desc;
    p->posts++;
    return FLD_POOL_OK;
}

bool fld_pool_get(FldDescPool *p, uint16_t q, uint16_t idx, uint64_t *desc)
{
    uint32_t slot;

    if (!fld_ck_lookup(&p->map, FLD_POOL_KEY(q, idx), &slot)) {
        p->misses++;
        return false;
    }
    *desc = p->desc[slot];
    return true;
}

bool fld_pool_release(FldDescPool *p, uint16_t q, uint16_t idx)
{
    uint32_t key = FLD_POOL_KEY(q, idx), slot;

    if (!fld_ck_lookup(&p->map, key, &slot)) {
        return false;
    }
    fld_ck_remove(&p->map, key);
    p->free_stack[p->free_top++] = slot;
    p->releases++;
    return true;
}

unsigned fld_pool_in_use(const FldDescPool *p)
{
    return p->size - p->free_top;
}

size_t fld_pool_bytes(const FldDescPool *p)
{
    return p->size * sizeof(*p->desc) + fld_ck_bytes(&p->map);
}
