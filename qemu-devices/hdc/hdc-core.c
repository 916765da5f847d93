/*
 * hdc: core helpers, the bottom layer - kicking the engine, the error
 * register, the BAR2 chunk allocator.  Every other file calls down into
 * these; nothing here calls another hdc file.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "hdc.h"
#include "hw/d2d/trace.h"

/*
 * Ask for an engine pass.  The bottom half is the top's (hdc-pci.c
 * creates it with the engine loop): scheduling it is all a lower layer
 * needs to know of it.
 */
void hdc_kick(HdcState *s)
{
    d2d_timing_bh_schedule(&s->timing, s->bh);
}

void hdc_raise_error(HdcState *s, enum hdc_err err, const char *why)
{
    s->error = err;
    s->error_count++;
    D2D_GUEST_ERR(hdc_error, "error %d: %s", err, why);
}

/* ---- BAR2 chunk allocator ---- */

uint8_t *hdc_chunk_ptr(HdcState *s, int32_t chunk)
{
    return s->buf_ptr + (uint64_t)chunk * HDC_CHUNK_SIZE;
}

/*
 * Older commands come first: once one found no free chunk in a pass,
 * younger ones get none in that pass either.
 */
int32_t hdc_chunk_alloc(HdcState *s, HdcJob *job)
{
    uint32_t n = s->nchunks - s->pool_start, i;

    if (s->chunk_starved && job->seq > s->chunk_starved_seq) {
        return -1;
    }
    if (!s->chunks_free) {
        if (!s->chunk_starved || job->seq < s->chunk_starved_seq) {
            s->chunk_starved = true;
            s->chunk_starved_seq = job->seq;
        }
        return -1;
    }
    for (i = 0; i < n; i++) {
        uint32_t c = s->pool_start + (s->chunk_hint + i) % n;

        if (!s->chunk_owned[c] && !s->chunk_orphans[c]) {
            s->chunk_owned[c] = true;
            s->chunks_free--;
            s->chunk_hint = (c - s->pool_start + 1) % n;
            return c;
        }
    }
    return -1;
}

int32_t hdc_chunk_take(HdcState *s)
{
    uint32_t n = s->nchunks - s->pool_start, i;

    for (i = 0; s->chunks_free && i < n; i++) {
        uint32_t c = s->pool_start + i;

        if (!s->chunk_owned[c] && !s->chunk_orphans[c]) {
            s->chunk_owned[c] = true;
            s->chunks_free--;
            return c;
        }
    }
    return -1;
}

void hdc_chunk_put(HdcState *s, int32_t chunk)
{
    if (chunk < 0 || !s->chunk_owned[chunk]) {
        return;
    }
    s->chunk_owned[chunk] = false;
    if (!s->chunk_orphans[chunk]) {
        s->chunks_free++;
    }
}

/*
 * An NVMe command that a reset orphaned may still write its chunk: the
 * chunk stays out of the pool until the command completes or the
 * controller is disabled.
 */
void hdc_chunk_orphan_get(HdcState *s, int32_t chunk)
{
    if (chunk < 0) {
        return;
    }
    if (!s->chunk_owned[chunk] && !s->chunk_orphans[chunk]) {
        s->chunks_free--;
    }
    s->chunk_orphans[chunk]++;
}

void hdc_chunk_orphan_put(HdcState *s, int32_t chunk)
{
    if (chunk < 0 || !s->chunk_orphans[chunk]) {
        return;
    }
    if (!--s->chunk_orphans[chunk] && !s->chunk_owned[chunk]) {
        s->chunks_free++;
    }
}

void hdc_chunk_pool_reset(HdcState *s, bool hard)
{
    uint32_t c;

    s->pool_start = s->devbuf_size / HDC_CHUNK_SIZE;
    s->chunks_free = 0;
    s->chunk_hint = 0;
    for (c = 0; c < s->nchunks; c++) {
        s->chunk_owned[c] = false;
        if (hard) {
            s->chunk_orphans[c] = 0;
        }
        if (c >= s->pool_start && !s->chunk_orphans[c]) {
            s->chunks_free++;
        }
    }
}

void hdc_chunk_pool_init(HdcState *s)
{
    s->nchunks = s->buf_size / HDC_CHUNK_SIZE;
    s->chunk_owned = g_new0(bool, s->nchunks);
    s->chunk_orphans = g_new0(uint16_t, s->nchunks);
    hdc_chunk_pool_reset(s, true);
}

void hdc_chunk_pool_free(HdcState *s)
{
    g_free(s->chunk_owned);
    g_free(s->chunk_orphans);
    s->chunk_owned = NULL;
    s->chunk_orphans = NULL;
}
