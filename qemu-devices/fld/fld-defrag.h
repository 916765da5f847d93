/*
 * fld: IPv4 reassembly for the defrag accelerator.
 *
 * Fragments (after the NIC's VXLAN decapsulation, so these are the inner
 * frames) are collected per (source, destination, id, protocol) in a
 * fixed number of contexts; a datagram complete in all its 8-byte units
 * comes out whole - the first fragment's Ethernet and IPv4 headers with
 * the total length, fragment field and header checksum rewritten - so the
 * receiver's checksum offload and RSS see one packet.  Overlapping
 * fragments, datagrams larger than a frame and malformed headers are
 * dropped; a full table evicts its oldest context.  An exact duplicate
 * of a fragment already held is dropped alone (the datagram stays); a
 * datagram in more than FLD_DF_MAX_FRAGS pieces, or not complete within
 * timeout_ms of its first fragment (the caller's clock, given to
 * fld_defrag_expire()), is dropped whole.  Pure C for
 * tests/unit/test_fld_defrag.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_D2D_FLD_DEFRAG_H
#define HW_D2D_FLD_DEFRAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FLD_DF_CTXS      16
#define FLD_DF_MAX_FRAME 9018
#define FLD_DF_UNITS     ((FLD_DF_MAX_FRAME + 7) / 8)
#define FLD_DF_MAX_FRAGS 64     /* pieces a datagram may arrive in */
#define FLD_DF_TIMEOUT_MS 2000  /* default timeout_ms */

typedef struct FldDefragCtx {
    bool used;
    uint32_t src, dst;
    uint16_t id;
    uint8_t proto;
    uint16_t total;         /* payload bytes, known once the last arrived */
    uint16_t have;          /* payload bytes received */
    uint16_t hlen;          /* stored Ethernet + IPv4 header bytes, 0: none */
    uint16_t nfrags;        /* fragments accepted */
    uint64_t age;
    uint64_t born_ms;       /* now_ms when its first fragment came */
    uint8_t hdr[14 + 60];
    uint8_t map[(FLD_DF_UNITS + 7) / 8];
    uint8_t data[FLD_DF_MAX_FRAME];
} FldDefragCtx;

typedef struct FldDefrag {
    FldDefragCtx ctx[FLD_DF_CTXS];
    uint64_t clock;         /* arrivals: the eviction order */
    uint64_t now_ms;        /* the caller's time (fld_defrag_expire) */
    uint64_t timeout_ms;
    uint64_t reassembled, evicted, overlaps, too_big, malformed;
    uint64_t duplicates, too_many, timeouts;
} FldDefrag;

typedef enum FldDfResult {
    FLD_DF_PASS = 0,        /* not an IPv4 fragment: forward as it is */
    FLD_DF_HELD = 1,        /* a fragment, kept */
    FLD_DF_DONE = 2,        /* a datagram completed: in out, *out_len */
    /* malformed, overlapping, duplicate, too big, too many fragments */
    FLD_DF_DROP = 3,
} FldDfResult;

/* Empty table, timeout_ms = FLD_DF_TIMEOUT_MS. */
void fld_defrag_reset(FldDefrag *d);
/* Time is now @now_ms: drop datagrams older than timeout_ms. */
void fld_defrag_expire(FldDefrag *d, uint64_t now_ms);
/* @out: FLD_DF_MAX_FRAME bytes. */
FldDfResult fld_defrag_input(FldDefrag *d, const uint8_t *f, size_t len,
                             uint8_t *out, size_t *out_len);

#endif
