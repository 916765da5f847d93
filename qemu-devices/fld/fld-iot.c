/*
 * fld: CoAP payload extraction and HS256 JWT verification (see fld-iot.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "fld-iot.h"
#include "fld-iotauth.h"
#include "../common/d2d-pkt.h"

#define JWT_MAX_PART 1024

bool fld_coap_payload(const uint8_t *m, size_t len, const uint8_t **payload,
                      size_t *plen)
{
    size_t off;
    unsigned tkl;

    /* 4-byte header: version 1, type, token length <= 8, code, id */
    if (len < 4 || (m[0] >> 6) != 1) {
        return false;
    }
    tkl = m[0] & 0xf;
    if (tkl > 8 || 4 + tkl > len) {
        return false;
    }
    off = 4 + tkl;
    while (off < len) {
        unsigned delta = m[off] >> 4, olen = m[off] & 0xf;

        if (m[off] == 0xff) {
            off++;
            if (off >= len) {
                return false;   /* a marker must be followed by payload */
            }
            *payload = m + off;
            *plen = len - off;
            return true;
        }
        off++;
        /* extended delta, then extended length (15 is reserved) */
        if (delta == 15 || olen == 15) {
            return false;
        }
        if (delta == 13) {
            off += 1;
        } else if (delta == 14) {
            off += 2;
        }
        if (olen == 13) {
            if (off >= len) {
                return false;
            }
            olen = m[off] + 13;
            off += 1;
        } else if (olen == 14) {
            if (off + 1 >= len) {
                return false;
            }
            olen = d2d_rd16(m + off) + 269;
            off += 2;
        }
        if (off > len || olen > len - off) {
            return false;
        }
        off += olen;
    }
    return false;               /* no payload */
}

static int b64url_val(char c)
{
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    if (c == '-') {
        return 62;
    }
    if (c == '_') {
        return 63;
    }
    return -1;
}

long fld_b64url_decode(const char *in, size_t len, uint8_t *out,
                       size_t out_size)
{
    uint32_t acc = 0;
    unsigned bits = 0;
    size_t i, n = 0;

    if (len % 4 == 1) {
        return -1;
    }
    for (i = 0; i < len; i++) {
        int v = b64url_val(in[i]);

        if (v < 0) {
            return -1;
        }
        acc = acc << 6 | v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (n == out_size) {
                return -1;
            }
            out[n++] = acc >> bits;
            acc &= (1u << bits) - 1;
        }
    }
    /* the leftover bits of the last character must be zero */
    return acc ? -1 : (long)n;
}

FldIotResult fld_jwt_check(const uint8_t *jwt, size_t len,
                           const uint8_t *key, size_t klen, int64_t now,
                           FldHmacFn hmac, void *opaque)
{
    const uint8_t *d1, *d2;
    uint8_t hdr[JWT_MAX_PART], claims[JWT_MAX_PART], sig[64], mac[32];
    long hn, cn, sn;

    d1 = memchr(jwt, '.', len);
    if (!d1) {
        return FLD_IOT_MALFORMED;
    }
    d2 = memchr(d1 + 1, '.', len - (d1 + 1 - jwt));
    if (!d2 || memchr(d2 + 1, '.', len - (d2 + 1 - jwt)) ||
        d1 == jwt || d2 == d1 + 1) {
        return FLD_IOT_MALFORMED;
    }
    hn = fld_b64url_decode((const char *)jwt, d1 - jwt, hdr, sizeof(hdr));
    cn = fld_b64url_decode((const char *)d1 + 1, d2 - (d1 + 1), claims,
                           sizeof(claims));
    sn = fld_b64url_decode((const char *)d2 + 1, len - (d2 + 1 - jwt), sig,
                           sizeof(sig));
    if (hn < 0 || cn < 0 || sn < 0) {
        return FLD_IOT_MALFORMED;
    }
    if (!fld_header_hs256(hdr, hn)) {
        return FLD_IOT_BAD_ALG;
    }
    if (sn != 32 || !hmac(opaque, key, klen, jwt, d2 - jwt, mac) ||
        memcmp(mac, sig, 32)) {
        return FLD_IOT_BAD_SIG;
    }
    /* the claims are only read once the key has vouched for them */
    return (FldIotResult)fld_claims_check(claims, cn, now);
}
