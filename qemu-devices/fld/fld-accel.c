/*
 * fld: the accelerators, chosen per instance (-device fld,accel=NAME).
 *
 * Each gets received packets with their metadata from the stream API and
 * transmits with fld_stream_tx() under its queues' credits.
 *   echo: returns every packet to its sender, Ethernet, IPv4 addresses
 *         and TCP/UDP ports swapped (checksums stay valid: the sums are
 *         order-independent).
 *   iotauth: CoAP messages over UDP whose payload is a JSON Web Token,
 *         checked with HMAC-SHA256 (QEMU's crypto layer) against the key
 *         of the tenant the NIC's steering tag names; valid messages are
 *         passed on (returned on the queue's route, addresses swapped, as
 *         echo does), everything else is dropped and counted.
 *   defrag: IPv4 fragments (the inner frames after the NIC's VXLAN
 *         decapsulation) reassembled and forwarded whole on the queue's
 *         route, unchanged otherwise, so that the receiver's checksum
 *         offload and RSS see whole packets; other frames pass as they are.
 *   zuc:  128-EEA3 / 128-EIA3 requests (struct fld_zuc_hdr + data) as UDP
 *         payloads, answered to the sender with the NIC filling the IPv4
 *         and UDP checksums; or as RDMA SENDs on FLD-R QPs (fld-rdma.c),
 *         answered by a SEND on the same QP.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "crypto/hmac.h"
#include "qapi/error.h"
#include "qemu/timer.h"
#include "fld.h"
#include "fld-iot.h"
#include "fld-zucreq.h"
#include "../common/d2d-pkt.h"

static void swap_bytes(uint8_t *a, uint8_t *b, size_t n)
{
    uint8_t t[16];

    memcpy(t, a, n);
    memcpy(a, b, n);
    memcpy(b, t, n);
}

/*
 * Hand @len bytes at @f to SQ @slot, counted: ACCEL_TX when sent,
 * ACCEL_BAD when refused for good (dropped).
 */
static FldTxResult fld_accel_tx(FldState *s, unsigned slot, const uint8_t *f,
                                size_t len, uint8_t cs)
{
    FldTxResult r = fld_stream_tx(s, slot, f, len, cs);

    if (r == FLD_TX_OK) {
        s->stats[FLD_STAT_ACCEL_TX]++;
    } else if (r == FLD_TX_BAD) {
        s->stats[FLD_STAT_ACCEL_BAD]++;
    }
    return r;
}

/* Whether a send waits for completions (no credit or pool full). */
static bool fld_accel_retry(FldTxResult r)
{
    return r == FLD_TX_NO_CREDIT || r == FLD_TX_STALL;
}

/* Hand @p to SQ @slot; false to retry later (no credit or pool full). */
static bool fld_accel_send(FldState *s, FldPkt *p, unsigned slot)
{
    return !fld_accel_retry(fld_accel_tx(s, slot, p->data, p->len, 0));
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

static bool fld_hmac_sha256(void *opaque, const uint8_t *key, size_t klen,
                            const uint8_t *msg, size_t len, uint8_t mac[32])
{
    QCryptoHmac *h = qcrypto_hmac_new(QCRYPTO_HASH_ALG_SHA256, key, klen,
                                      NULL);
    uint8_t *out = mac;
    size_t outlen = 32;
    int r;

    if (!h) {
        return false;
    }
    r = qcrypto_hmac_bytes(h, (const char *)msg, len, &out, &outlen, NULL);
    qcrypto_hmac_free(h);
    return r == 0 && outlen == 32;
}

/* Count an iotauth verdict: its reason, and the drop or bad totals. */
static void fld_iot_count(FldState *s, FldIotResult r)
{
    static const int stat[] = {
        [FLD_IOT_VALID] = FLD_STAT_IOT_VALID,
        [FLD_IOT_MALFORMED] = FLD_STAT_IOT_MALFORMED,
        [FLD_IOT_BAD_ALG] = FLD_STAT_IOT_BAD_ALG,
        [FLD_IOT_BAD_SIG] = FLD_STAT_IOT_BAD_SIG,
        [FLD_IOT_EXPIRED] = FLD_STAT_IOT_EXPIRED,
        [FLD_IOT_NO_TENANT] = FLD_STAT_IOT_NO_TENANT,
    };

    s->stats[stat[r]]++;
    if (r == FLD_IOT_MALFORMED) {
        s->stats[FLD_STAT_ACCEL_BAD]++;
    } else if (r != FLD_IOT_VALID) {
        s->stats[FLD_STAT_ACCEL_DROPS]++;
    }
}

/*
 * Ethernet/IPv4/UDP with the NIC's checksums verified, a tenant key for
 * the flow tag, a CoAP message whose payload is an HS256 JWT under it,
 * not expired at the device's Unix time (FLD_REG_UNIX_TIME).
 */
static FldIotResult fld_iotauth_verify(FldState *s, FldPkt *p)
{
    const uint8_t *f = p->data, *coap, *jwt;
    size_t ihl, ulen, jlen;
    unsigned tenant = p->m.flow_tag;

    if (!p->m.csum_ok || p->len < FLD_ETH_HLEN + 28 || f[12] != 0x08 ||
        f[13] != 0x00 || (f[14] >> 4) != 4 || (f[14] & 0xf) < 5 ||
        f[23] != 17) {
        return FLD_IOT_MALFORMED;
    }
    ihl = (f[14] & 0xf) * 4;
    if (FLD_ETH_HLEN + ihl + 8 > p->len) {
        return FLD_IOT_MALFORMED;
    }
    ulen = d2d_rd16(f + 14 + ihl + 4);
    if (ulen < 8 || FLD_ETH_HLEN + ihl + ulen > p->len) {
        return FLD_IOT_MALFORMED;
    }
    coap = f + FLD_ETH_HLEN + ihl + 8;
    if (!fld_coap_payload(coap, ulen - 8, &jwt, &jlen)) {
        return FLD_IOT_MALFORMED;
    }
    if (!p->m.tag_valid || tenant >= FLD_NUM_KEYS || !s->key_len[tenant]) {
        return FLD_IOT_NO_TENANT;
    }
    return fld_jwt_check(jwt, jlen, s->keys[tenant], s->key_len[tenant],
                         fld_unix_time(s), fld_hmac_sha256, NULL);
}

static bool fld_iotauth_rx(FldState *s, FldPkt *p)
{
    FldIotResult r;

    if (!p->m.routed) {
        s->stats[FLD_STAT_ACCEL_DROPS]++;
        return true;
    }
    r = fld_iotauth_verify(s, p);
    if (r != FLD_IOT_VALID) {
        fld_iot_count(s, r);
        return true;
    }
    fld_echo_swap(p);
    if (!fld_accel_send(s, p, p->m.reply_sq)) {
        /* retried later as it arrived: verified (and counted) again */
        fld_echo_swap(p);
        return false;
    }
    fld_iot_count(s, r);
    return true;
}

/* Send the reassembled datagram waiting in df_out, if any. */
static void fld_defrag_flush(FldState *s)
{
    if (!s->df_out_len) {
        return;
    }
    if (!fld_accel_retry(fld_accel_tx(s, s->df_sq, s->df_out,
                                      s->df_out_len, 0))) {
        s->df_out_len = 0;
    }
}

/* The reassembly table's counters before an input. */
typedef struct FldDfSnap {
    uint64_t evicted, overlaps, duplicates, too_big, too_many, timeouts;
    uint64_t malformed;
} FldDfSnap;

/* Per-reason counters from the table's, and their DF_DROPPED total. */
static void fld_defrag_count(FldState *s, const FldDefrag *d,
                             const FldDfSnap *b)
{
    uint64_t ov = d->overlaps - b->overlaps, tb = d->too_big - b->too_big;
    uint64_t tm = d->too_many - b->too_many, mf = d->malformed - b->malformed;

    s->stats[FLD_STAT_DF_EVICTED] += d->evicted - b->evicted;
    s->stats[FLD_STAT_DF_OVERLAPS] += ov;
    s->stats[FLD_STAT_DF_TOO_BIG] += tb;
    s->stats[FLD_STAT_DF_TOO_MANY] += tm;
    s->stats[FLD_STAT_DF_MALFORMED] += mf;
    s->stats[FLD_STAT_DF_DUPLICATES] += d->duplicates - b->duplicates;
    s->stats[FLD_STAT_DF_TIMEOUTS] += d->timeouts - b->timeouts;
    s->stats[FLD_STAT_DF_DROPPED] += ov + tb + tm + mf;
}

static bool fld_defrag_rx(FldState *s, FldPkt *p)
{
    FldDefrag *d = s->df;
    FldDfSnap before = {
        d->evicted, d->overlaps, d->duplicates, d->too_big, d->too_many,
        d->timeouts, d->malformed,
    };
    size_t n = 0;
    FldDfResult r;

    if (!p->m.routed) {
        s->stats[FLD_STAT_ACCEL_DROPS]++;
        return true;
    }
    fld_defrag_flush(s);
    if (s->df_out_len) {
        return false;       /* the previous datagram still waits */
    }
    /* datagrams not whole within timeout_ms of virtual time are dropped */
    fld_defrag_expire(d, qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL));
    r = fld_defrag_input(d, p->data, p->len, s->df_out, &n);
    fld_defrag_count(s, d, &before);
    switch (r) {
    case FLD_DF_PASS:
        return fld_accel_send(s, p, p->m.reply_sq);
    case FLD_DF_DONE:
        s->stats[FLD_STAT_DF_REASSEMBLED]++;
        s->df_out_len = n;
        s->df_sq = p->m.reply_sq;
        fld_defrag_flush(s);
        return true;
    case FLD_DF_HELD:
        return true;
    default:
        s->stats[FLD_STAT_ACCEL_DROPS]++;
        return true;
    }
}

/*
 * zuc over FLD-R: the message is the request; the answer goes back as a
 * SEND on the same QP.  A message that is no request (shorter than the
 * header, wrong magic) is answered with what arrived of its header and
 * status FLD_ZUC_EHDR, so that the client's wait ends; counted.
 */
static bool fld_zuc_rdma_rx(FldState *s, FldPkt *p)
{
    struct fld_zuc_hdr *a = (void *)s->acc_out;
    FldTxResult r;
    bool bad_hdr = false;
    long n;

    n = fld_zuc_request(p->data, p->len, s->acc_out,
                        FLD_ZUC_HDR_SIZE + FLD_ZUC_MAX_BITS / 8);
    if (n < 0) {
        memset(a, 0, FLD_ZUC_HDR_SIZE);
        memcpy(a, p->data, MIN(p->len, FLD_ZUC_HDR_SIZE));
        a->magic = cpu_to_le32(FLD_ZUC_MAGIC);
        a->status = FLD_ZUC_EHDR;
        a->mac = 0;
        n = FLD_ZUC_HDR_SIZE;
        bad_hdr = true;
    }
    r = fld_accel_tx(s, p->m.reply_sq, s->acc_out, n, 0);
    if (r == FLD_TX_OK) {
        s->stats[FLD_STAT_QP_SENDS]++;
        if (bad_hdr) {
            s->stats[FLD_STAT_QP_BAD_MSGS]++;
        }
        if (a->status != FLD_ZUC_OK) {
            s->stats[FLD_STAT_ACCEL_BAD]++;   /* answered with its status */
        }
    }
    return !fld_accel_retry(r);
}

static bool fld_zuc_rx(FldState *s, FldPkt *p)
{
    const uint8_t *f = p->data;
    uint8_t *o = s->acc_out;
    size_t ihl, ulen, hdrs, tot;
    long n;

    if (p->m.rdma) {
        return fld_zuc_rdma_rx(s, p);
    }
    if (!p->m.routed) {
        s->stats[FLD_STAT_ACCEL_DROPS]++;
        return true;
    }
    if (!p->m.csum_ok || p->len < FLD_ETH_HLEN + 28 || f[12] != 0x08 ||
        f[13] != 0x00 || (f[14] & 0xf) < 5 || f[23] != 17) {
        s->stats[FLD_STAT_ACCEL_BAD]++;
        return true;
    }
    ihl = (f[14] & 0xf) * 4;
    hdrs = FLD_ETH_HLEN + ihl + 8;
    ulen = d2d_rd16(f + 14 + ihl + 4);
    if (hdrs > p->len || ulen < 8 || FLD_ETH_HLEN + ihl + ulen > p->len) {
        s->stats[FLD_STAT_ACCEL_BAD]++;
        return true;
    }
    n = fld_zuc_request(f + hdrs, ulen - 8, o + hdrs, FLD_MAX_FRAME - hdrs);
    if (n < 0) {
        s->stats[FLD_STAT_ACCEL_BAD]++;
        return true;
    }
    if (((const struct fld_zuc_hdr *)(o + hdrs))->status != FLD_ZUC_OK) {
        s->stats[FLD_STAT_ACCEL_BAD]++;   /* answered with its status */
    }
    /* The answer: addresses swapped, lengths set, checksums by the NIC. */
    memcpy(o, f, hdrs);
    memcpy(o, f + 6, 6);
    memcpy(o + 6, f, 6);
    memcpy(o + 14 + 12, f + 14 + 16, 4);
    memcpy(o + 14 + 16, f + 14 + 12, 4);
    memcpy(o + 14 + ihl, f + 14 + ihl + 2, 2);
    memcpy(o + 14 + ihl + 2, f + 14 + ihl, 2);
    tot = ihl + 8 + n;
    o[14 + 2] = tot >> 8;
    o[14 + 3] = tot;
    o[14 + 6] = o[14 + 7] = 0;
    o[14 + ihl + 4] = (8 + n) >> 8;
    o[14 + ihl + 5] = 8 + n;
    return !fld_accel_retry(fld_accel_tx(s, p->m.reply_sq, o, hdrs + n,
                                         SNIC_ETH_CS_L3 | SNIC_ETH_CS_L4));
}

const FldAccelOps fld_accels[] = {
    { .name = "echo", .id = FLD_ACCEL_ECHO, .unit = FLD_UNIT_NONE,
      .rx = fld_echo_rx },
    { .name = "iotauth", .id = FLD_ACCEL_IOTAUTH, .unit = FLD_UNIT_IOTAUTH,
      .rx = fld_iotauth_rx },
    { .name = "zuc", .id = FLD_ACCEL_ZUC, .unit = FLD_UNIT_ZUC,
      .rx = fld_zuc_rx },
    { .name = "defrag", .id = FLD_ACCEL_DEFRAG, .unit = FLD_UNIT_DEFRAG,
      .rx = fld_defrag_rx, .flush = fld_defrag_flush },
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
