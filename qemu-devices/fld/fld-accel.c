/*
 * fld: the accelerators, chosen per instance (-device fld,accel=NAME).
 *
 * Each gets received packets with their metadata from the stream API and
 * transmits with fld_stream_tx() under its queues' credits.
 *   echo: returns every packet to its sender, Ethernet, IPv4 addresses
 *         and TCP/UDP ports swapped (checksums stay valid: the sums are
 *         order-independent).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "fld.h"

static void swap_bytes(uint8_t *a, uint8_t *b, size_t n)
{
    uint8_t t[16];

    memcpy(t, a, n);
    memcpy(a, b, n);
    memcpy(b, t, n);
}

/* Hand @p to SQ @slot; false to retry later (no credit or pool full). */
static bool fld_accel_send(FldState *s, FldPkt *p, unsigned slot)
{
    switch (fld_stream_tx(s, slot, p->data, p->len, 0)) {
    case FLD_TX_OK:
        s->stats[FLD_STAT_ACCEL_TX]++;
        return true;
    case FLD_TX_NO_CREDIT:
    case FLD_TX_STALL:
        return false;
    default:
        s->stats[FLD_STAT_ACCEL_BAD]++;
        return true;
    }
}

/* Swap source and destination: MACs, IPv4 addresses, TCP/UDP ports. */
static void fld_echo_swap(FldPkt *p)
{
    uint8_t *f = p->data;

    swap_bytes(f, f + 6, 6);
    if (p->len >= FLD_ETH_HLEN + 20 && f[12] == 0x08 && f[13] == 0x00 &&
        (f[14] >> 4) == 4) {
        unsigned ihl = (f[14] & 0xf) * 4;
        uint8_t proto = f[14 + 9];

        swap_bytes(f + 14 + 12, f + 14 + 16, 4);
        if (ihl >= 20 && p->len >= FLD_ETH_HLEN + ihl + 4 &&
            (proto == 6 || proto == 17)) {
            swap_bytes(f + 14 + ihl, f + 14 + ihl + 2, 2);
        }
    }
}

static bool fld_echo_rx(FldState *s, FldPkt *p)
{
    if (!p->m.routed) {
        s->stats[FLD_STAT_ACCEL_DROPS]++;
        return true;
    }
    if (p->len < FLD_ETH_HLEN) {
        s->stats[FLD_STAT_ACCEL_BAD]++;
        return true;
    }
    fld_echo_swap(p);
    if (!fld_accel_send(s, p, p->m.reply_sq)) {
        /* Kept for a retry as it arrived: the swap is its own inverse. */
        fld_echo_swap(p);
        return false;
    }
    return true;
}

const FldAccelOps fld_accels[] = {
    { .name = "echo", .id = FLD_ACCEL_ECHO, .rx = fld_echo_rx },
    { },
};

const FldAccelOps *fld_accel_find(const char *name)
{
    const FldAccelOps *a;

    for (a = fld_accels; a->name; a++) {
        if (!strcmp(a->name, name)) {
            return a;
        }
    }
    return NULL;
}
