/*
 * fld: the iotauth accelerator's JSON subset - the flat objects of a JSON
 * Web Token's header and claims - and its claim policy (expiry).
 *
 * The parser walks one object without recursion: members whose values
 * are strings, numbers, true, false or null are reported; nested objects
 * and arrays are skipped with a bracket counter bounded by
 * FLD_JSON_MAX_DEPTH; at most FLD_JSON_MAX_MEMBERS members.  Strings are
 * checked (escapes, no control characters) but not decoded: a key is
 * compared as it is written.  Pure C for tests/unit/test_fld_iotauth.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_D2D_FLD_IOTAUTH_H
#define HW_D2D_FLD_IOTAUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FLD_JSON_MAX_MEMBERS 16
#define FLD_JSON_MAX_DEPTH   8

typedef enum FldJsonKind {
    FLD_JSON_STRING,        /* val/vlen: between the quotes, escapes kept */
    FLD_JSON_NUMBER,        /* val/vlen: the text; is_int, num if integral */
    FLD_JSON_LITERAL,       /* true, false, null */
    FLD_JSON_NESTED,        /* an object or array, skipped */
} FldJsonKind;

typedef struct FldJsonMember {
    const uint8_t *key, *val;
    size_t klen, vlen;
    FldJsonKind kind;
    bool is_int;            /* a number without fraction or exponent */
    int64_t num;
} FldJsonMember;

/* Members of the object @s into @m (up to @max); count, or -1: invalid. */
int fld_json_object(const uint8_t *s, size_t n, FldJsonMember *m, int max);
/* The member named @name, or NULL. */
const FldJsonMember *fld_json_get(const FldJsonMember *m, int count,
                                  const char *name);

/* Claim policy results (the FLD_IOT_* numbering, fld-iot.h). */
typedef enum FldClaimsResult {
    FLD_CLAIMS_OK = 0,
    FLD_CLAIMS_MALFORMED = 1,   /* not an object, exp/nbf not integers */
    FLD_CLAIMS_EXPIRED = 4,     /* now >= exp, now < nbf, or no clock */
} FldClaimsResult;

/*
 * The decoded claims @c checked at Unix time @now (seconds; negative:
 * the device has no time, so a token that carries exp or nbf cannot be
 * trusted and counts as expired).  Tokens without exp never expire.
 */
FldClaimsResult fld_claims_check(const uint8_t *c, size_t n, int64_t now);
/* The decoded header @h is a JSON object naming "alg": "HS256". */
bool fld_header_hs256(const uint8_t *h, size_t n);

#endif
