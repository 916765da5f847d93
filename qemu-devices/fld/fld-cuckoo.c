/*
 * fld: 4-bank cuckoo hash table with a stash (see fld-cuckoo.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include "fld-cuckoo.h"

/* One multiply-shift hash per bank (odd multipliers, distinct per bank). */
static const uint32_t ck_mul[FLD_CK_BANKS] = {
    0x9e3779b1u, 0x85ebca77u, 0xc2b2ae3du, 0x27d4eb2fu,
};

static uint32_t ck_hash(const FldCuckoo *t, unsigned b, uint32_t key)
{
    uint32_t h = (key ^ (key >> 15)) * ck_mul[b];

    h ^= h >> 13;
    h *= ck_mul[(b + 1) % FLD_CK_BANKS];
    return t->log_bank ? h >> (32 - t->log_bank) : 0;
}

bool fld_ck_init(FldCuckoo *t, unsigned capacity)
{
    unsigned cap = 4, b;

    memset(t, 0, sizeof(*t));
    while (cap < capacity && cap < (1u << 24)) {
        cap <<= 1;
    }
    /* 2 * cap entries over 4 banks: load factor 1/2 when full */
    t->log_bank = 0;
    while ((1u << t->log_bank) < cap / 2) {
        t->log_bank++;
    }
    for (b = 0; b < FLD_CK_BANKS; b++) {
        t->bank[b] = calloc(1u << t->log_bank, sizeof(FldCkEntry));
        if (!t->bank[b]) {
            fld_ck_destroy(t);
            return false;
        }
    }
    return true;
}

void fld_ck_destroy(FldCuckoo *t)
{
    unsigned b;

    for (b = 0; b < FLD_CK_BANKS; b++) {
        free(t->bank[b]);
        t->bank[b] = NULL;
    }
}

void fld_ck_clear(FldCuckoo *t)
{
    unsigned b;

    for (b = 0; b < FLD_CK_BANKS; b++) {
        if (t->bank[b]) {
            memset(t->bank[b], 0, sizeof(FldCkEntry) << t->log_bank);
        }
    }
    memset(t->stash, 0, sizeof(t->stash));
    t->count = t->stash_used = 0;
}

static FldCkEntry *ck_find(const FldCuckoo *t, uint32_t key)
{
    unsigned b;

    for (b = 0; b < FLD_CK_BANKS; b++) {
        FldCkEntry *e = &t->bank[b][ck_hash(t, b, key)];

        if (e->used && e->key == key) {
            return e;
        }
    }
    for (b = 0; b < FLD_CK_STASH; b++) {
        if (t->stash[b].used && t->stash[b].key == key) {
            return (FldCkEntry *)&t->stash[b];
        }
    }
    return NULL;
}

/*
 * Places e in the banks, evicting along a walk of at most FLD_CK_MAX_KICKS
 * steps.  On failure the walk is undone and false returned: the table is
 * exactly as before.
 */
static bool ck_place(FldCuckoo *t, FldCkEntry e, FldCkEntry *homeless)
{
    struct { unsigned b, i; } path[FLD_CK_MAX_KICKS];
    FldCkEntry cur = e, tmp;
    unsigned b, n, start;

    for (b = 0; b < FLD_CK_BANKS; b++) {
        FldCkEntry *s = &t->bank[b][ck_hash(t, b, e.key)];

        if (!s->used) {
            *s = e;
            return true;
        }
    }
    /* Walk: evict from bank (previous + 1), starting at a key-chosen bank. */
    start = e.key % FLD_CK_BANKS;
    for (n = 0; n < FLD_CK_MAX_KICKS; n++) {
        unsigned bb = (start + n) % FLD_CK_BANKS;
        unsigned i = ck_hash(t, bb, cur.key);

        tmp = t->bank[bb][i];
        t->bank[bb][i] = cur;
        path[n].b = bb;
        path[n].i = i;
        cur = tmp;
        t->kicks++;
        if (!cur.used) {
            return true;
        }
        /* The evicted key tries its other banks' slots first. */
        for (b = 0; b < FLD_CK_BANKS; b++) {
            FldCkEntry *s = &t->bank[b][ck_hash(t, b, cur.key)];

            if (!s->used) {
                *s = cur;
                return true;
            }
        }
    }
    if (homeless) {
        *homeless = cur;
        return false;
    }
    /* Undo: swap back along the path in reverse. */
    while (n-- > 0) {
        tmp = t->bank[path[n].b][path[n].i];
        t->bank[path[n].b][path[n].i] = cur;
        cur = tmp;
    }
    return false;
}

FldCkResult fld_ck_insert(FldCuckoo *t, uint32_t key, uint32_t val)
{
    FldCkEntry e = { .key = key, .val = val, .used = true };
    FldCkEntry homeless;
    FldCkEntry *old = ck_find(t, key);
    unsigned s;

    if (old) {
        old->val = val;
        return FLD_CK_OK;
    }
    if (t->stash_used < FLD_CK_STASH) {
        /* A failed walk leaves one key homeless: it goes to the stash. */
        if (!ck_place(t, e, &homeless)) {
            for (s = 0; s < FLD_CK_STASH; s++) {
                if (!t->stash[s].used) {
                    t->stash[s] = homeless;
                    break;
                }
            }
            t->stash_used++;
            t->stash_inserts++;
        }
    } else if (!ck_place(t, e, NULL)) {
        t->stalls++;
        return FLD_CK_STALL;
    }
    t->count++;
    return FLD_CK_OK;
}

bool fld_ck_lookup(const FldCuckoo *t, uint32_t key, uint32_t *val)
{
    const FldCkEntry *e = ck_find(t, key);

    if (!e) {
        return false;
    }
    *val = e->val;
    return true;
}

bool fld_ck_remove(FldCuckoo *t, uint32_t key)
{
    FldCkEntry *e = ck_find(t, key);
    unsigned s;

    if (!e) {
        return false;
    }
    e->used = false;
    t->count--;
    if (e >= t->stash && e < t->stash + FLD_CK_STASH) {
        t->stash_used--;
        return true;
    }
    /* A slot freed in the banks: move stashed keys back if they now fit. */
    for (s = 0; s < FLD_CK_STASH; s++) {
        if (t->stash[s].used) {
            FldCkEntry m = t->stash[s];

            t->stash[s].used = false;
            if (ck_place(t, m, NULL)) {
                t->stash_used--;
            } else {
                t->stash[s] = m;
            }
        }
    }
    return true;
}

size_t fld_ck_bytes(const FldCuckoo *t)
{
    return (FLD_CK_BANKS * (sizeof(FldCkEntry) << t->log_bank)) +
           sizeof(t->stash);
}

unsigned fld_ck_slots(const FldCuckoo *t)
{
    return FLD_CK_BANKS << t->log_bank;
}
