/*
 * fld: IPv4 reassembly (see fld-defrag.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "fld-defrag.h"
#include "../common/d2d-pkt.h"

#define ETH_HLEN 14
#define IP_MF    0x2000
#define IP_OFF   0x1fff

void fld_defrag_reset(FldDefrag *d)
{
    memset(d, 0, sizeof(*d));
    d->timeout_ms = FLD_DF_TIMEOUT_MS;
}

static void ctx_free(FldDefragCtx *c)
{
    c->used = false;
}

void fld_defrag_expire(FldDefrag *d, uint64_t now_ms)
{
    /* a table zeroed rather than reset gets the default */
    uint64_t t = d->timeout_ms ? d->timeout_ms : FLD_DF_TIMEOUT_MS;
    int i;

    d->now_ms = now_ms;
    for (i = 0; i < FLD_DF_CTXS; i++) {
        FldDefragCtx *c = &d->ctx[i];

        /* a clock that went back (reset) restarts the wait, never wraps */
        if (c->used && now_ms > c->born_ms &&
            now_ms - c->born_ms >= t) {
            d->timeouts++;
            ctx_free(c);
        }
    }
}

static FldDefragCtx *ctx_get(FldDefrag *d, uint32_t src, uint32_t dst,
                             uint16_t id, uint8_t proto)
{
    FldDefragCtx *c, *free_c = NULL, *old = NULL;
    int i;

    for (i = 0; i < FLD_DF_CTXS; i++) {
        c = &d->ctx[i];
        if (!c->used) {
            free_c = free_c ? free_c : c;
            continue;
        }
        if (c->src == src && c->dst == dst && c->id == id &&
            c->proto == proto) {
            return c;
        }
        if (!old || c->age < old->age) {
            old = c;
        }
    }
    if (!free_c) {
        /* table full: the oldest datagram will never complete in time */
        free_c = old;
        d->evicted++;
    }
    memset(free_c->map, 0, sizeof(free_c->map));
    free_c->used = true;
    free_c->src = src;
    free_c->dst = dst;
    free_c->id = id;
    free_c->proto = proto;
    free_c->total = free_c->have = free_c->hlen = free_c->nfrags = 0;
    free_c->age = d->clock;
    free_c->born_ms = d->now_ms;
    return free_c;
}

FldDfResult fld_defrag_input(FldDefrag *d, const uint8_t *f, size_t len,
                             uint8_t *out, size_t *out_len)
{
    const uint8_t *ip = f + ETH_HLEN;
    size_t ihl, tot, plen, off, end, u, held;
    uint16_t frag;
    FldDefragCtx *c;

    d->clock++;
    if (len < ETH_HLEN + 20 || d2d_rd16(f + 12) != 0x0800) {
        return FLD_DF_PASS;
    }
    ihl = (ip[0] & 0xf) * 4;
    tot = d2d_rd16(ip + 2);
    if ((ip[0] >> 4) != 4 || ihl < 20 || tot < ihl || ETH_HLEN + tot > len) {
        d->malformed++;
        return FLD_DF_DROP;
    }
    frag = d2d_rd16(ip + 6);
    if (!(frag & (IP_MF | IP_OFF))) {
        return FLD_DF_PASS;
    }
    off = (size_t)(frag & IP_OFF) * 8;
    plen = tot - ihl;
    end = off + plen;
    c = ctx_get(d, d2d_rd32(ip + 12), d2d_rd32(ip + 16), d2d_rd16(ip + 4), ip[9]);
    if ((frag & IP_MF) && (plen == 0 || plen % 8)) {
        d->malformed++;
        ctx_free(c);
        return FLD_DF_DROP;
    }
    if (ETH_HLEN + ihl + end > FLD_DF_MAX_FRAME) {
        d->too_big++;
        ctx_free(c);
        return FLD_DF_DROP;
    }
    if ((!(frag & IP_MF) && c->total && c->total != end) ||
        (c->total && end > c->total)) {
        d->malformed++;
        ctx_free(c);
        return FLD_DF_DROP;
    }
    held = 0;
    for (u = off / 8; u < (end + 7) / 8; u++) {
        held += !!(c->map[u / 8] & (1u << (u % 8)));
    }
    if (held && held == (end + 7) / 8 - off / 8 && plen) {
        /* all of it already here (a retransmission): keep the first copy */
        d->duplicates++;
        return FLD_DF_DROP;
    }
    if (held) {
        /* partly new, partly not: which bytes are right is unknowable */
        d->overlaps++;
        ctx_free(c);
        return FLD_DF_DROP;
    }
    if (++c->nfrags > FLD_DF_MAX_FRAGS) {
        d->too_many++;
        ctx_free(c);
        return FLD_DF_DROP;
    }
    for (u = off / 8; u < (end + 7) / 8; u++) {
        c->map[u / 8] |= 1u << (u % 8);
    }
    memcpy(c->data + off, ip + ihl, plen);
    c->have += plen;
    if (off == 0) {
        memcpy(c->hdr, f, ETH_HLEN + ihl);
        c->hlen = ETH_HLEN + ihl;
    }
    if (!(frag & IP_MF)) {
        c->total = end;
    }
    if (!c->total || c->have != c->total || !c->hlen) {
        return FLD_DF_HELD;
    }
    /* Whole: first fragment's headers, new length, no fragment bits. */
    ihl = c->hlen - ETH_HLEN;
    memcpy(out, c->hdr, c->hlen);
    memcpy(out + c->hlen, c->data, c->total);
    out[ETH_HLEN + 2] = (ihl + c->total) >> 8;
    out[ETH_HLEN + 3] = ihl + c->total;
    out[ETH_HLEN + 6] &= 0x40;      /* keep DF, clear MF and offset */
    out[ETH_HLEN + 7] = 0;
    out[ETH_HLEN + 10] = out[ETH_HLEN + 11] = 0;
    frag = d2d_csum_fold(d2d_csum_partial(0, out + ETH_HLEN, ihl));
    out[ETH_HLEN + 10] = frag >> 8;
    out[ETH_HLEN + 11] = frag;
    *out_len = c->hlen + c->total;
    d->reassembled++;
    ctx_free(c);
    return FLD_DF_DONE;
}
