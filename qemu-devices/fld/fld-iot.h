/*
 * fld: the iotauth accelerator's message checks - CoAP (RFC 7252)
 * parsing down to the payload, and a compact JSON Web Token (RFC 7519)
 * in that payload verified as HS256 (HMAC-SHA256 over
 * "base64url(header).base64url(claims)"), then its expiry (the JSON
 * subset and claim policy are fld-iotauth.c's).  The HMAC itself is the
 * caller's (QEMU's crypto layer in the device, nettle in the host unit
 * tests), so this stays pure C (tests/unit/test_fld_iot.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_D2D_FLD_IOT_H
#define HW_D2D_FLD_IOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum FldIotResult {
    FLD_IOT_VALID = 0,
    FLD_IOT_MALFORMED = 1,  /* not CoAP, no payload, not a JWT, bad base64 */
    FLD_IOT_BAD_ALG = 2,    /* header does not say HS256 */
    FLD_IOT_BAD_SIG = 3,    /* signature does not match the key */
    FLD_IOT_EXPIRED = 4,    /* exp passed, nbf not reached, or no clock */
    FLD_IOT_NO_TENANT = 5,  /* (the accelerator's) no key for the tag */
} FldIotResult;

/* HMAC-SHA256 of @msg under @key into @mac; false if it failed. */
typedef bool (*FldHmacFn)(void *opaque, const uint8_t *key, size_t klen,
                          const uint8_t *msg, size_t len, uint8_t mac[32]);

/* The payload of the CoAP message @m; false if malformed or empty. */
bool fld_coap_payload(const uint8_t *m, size_t len, const uint8_t **payload,
                      size_t *plen);
/* Decoded length, or -1: base64url without padding. */
long fld_b64url_decode(const char *in, size_t len, uint8_t *out,
                       size_t out_size);
/* @now: Unix seconds, negative if unknown (see fld_claims_check()). */
FldIotResult fld_jwt_check(const uint8_t *jwt, size_t len,
                           const uint8_t *key, size_t klen, int64_t now,
                           FldHmacFn hmac, void *opaque);

#endif
