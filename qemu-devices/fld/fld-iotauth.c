/*
 * fld: JSON subset and claim policy of the iotauth accelerator (see
 * fld-iotauth.h).  Every loop advances through a bounded input; nested
 * values use an explicit bracket stack, not recursion.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "fld-iotauth.h"

static size_t skip_ws(const uint8_t *s, size_t n, size_t p)
{
    while (p < n && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n' ||
                     s[p] == '\r')) {
        p++;
    }
    return p;
}

static bool is_hex(uint8_t c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
           (c >= 'A' && c <= 'F');
}

/* A string at s[*p] == '"': *p past the closing quote; false: invalid. */
static bool parse_string(const uint8_t *s, size_t n, size_t *p,
                         const uint8_t **str, size_t *len)
{
    size_t i = *p + 1, k;

    while (i < n && s[i] != '"') {
        if (s[i] < 0x20) {
            return false;
        }
        if (s[i] == '\\') {
            if (i + 1 >= n || !strchr("\"\\/bfnrtu", s[i + 1]) || !s[i + 1]) {
                return false;
            }
            if (s[i + 1] == 'u') {
                for (k = 2; k < 6; k++) {
                    if (i + k >= n || !is_hex(s[i + k])) {
                        return false;
                    }
                }
                i += 4;
            }
            i++;
        }
        i++;
    }
    if (i >= n) {
        return false;
    }
    *str = s + *p + 1;
    *len = i - (*p + 1);
    *p = i + 1;
    return true;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool parse_number(const uint8_t *s, size_t n, size_t *p,
                         FldJsonMember *m)
{
    size_t i = *p, digits = 0;
    bool neg = false;
    uint64_t v = 0;

    m->is_int = true;
    if (i < n && s[i] == '-') {
        neg = true;
        i++;
    }
    if (i >= n || s[i] < '0' || s[i] > '9') {
        return false;
    }
    if (s[i] == '0' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9') {
        return false;           /* no leading zeros */
    }
    while (i < n && s[i] >= '0' && s[i] <= '9') {
        if (++digits > 18) {
            m->is_int = false;  /* beyond int64: not a usable time */
        } else {
            v = v * 10 + (s[i] - '0');
        }
        i++;
    }
    if (i < n && s[i] == '.') {
        m->is_int = false;
        if (++i >= n || s[i] < '0' || s[i] > '9') {
            return false;
        }
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            i++;
        }
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        m->is_int = false;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) {
            i++;
        }
        if (i >= n || s[i] < '0' || s[i] > '9') {
            return false;
        }
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            i++;
        }
    }
    m->num = neg ? -(int64_t)v : (int64_t)v;
    m->val = s + *p;
    m->vlen = i - *p;
    *p = i;
    return true;
}

/* An object or array at s[*p]: skipped by bracket matching. */
static bool skip_nested(const uint8_t *s, size_t n, size_t *p)
{
    uint8_t stack[FLD_JSON_MAX_DEPTH];
    int depth = 0;
    size_t i = *p;
    const uint8_t *str;
    size_t len;

    while (i < n) {
        uint8_t c = s[i];

        if (c == '"') {
            if (!parse_string(s, n, &i, &str, &len)) {
                return false;
            }
            continue;
        }
        if (c == '{' || c == '[') {
            if (depth == FLD_JSON_MAX_DEPTH) {
                return false;
            }
            stack[depth++] = c == '{' ? '}' : ']';
        } else if (c == '}' || c == ']') {
            if (!depth || stack[depth - 1] != c) {
                return false;
            }
            if (--depth == 0) {
                *p = i + 1;
                return true;
            }
        } else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            return false;
        }
        i++;
    }
    return false;
}

static bool parse_value(const uint8_t *s, size_t n, size_t *p,
                        FldJsonMember *m)
{
    static const char *const lits[] = { "true", "false", "null" };
    size_t i;

    if (*p >= n) {
        return false;
    }
    switch (s[*p]) {
    case '"':
        m->kind = FLD_JSON_STRING;
        return parse_string(s, n, p, &m->val, &m->vlen);
    case '{':
    case '[':
        m->kind = FLD_JSON_NESTED;
        m->val = s + *p;
        if (!skip_nested(s, n, p)) {
            return false;
        }
        m->vlen = s + *p - m->val;
        return true;
    case '-':
    case '0' ... '9':
        m->kind = FLD_JSON_NUMBER;
        return parse_number(s, n, p, m);
    }
    for (i = 0; i < 3; i++) {
        size_t l = strlen(lits[i]);

        if (n - *p >= l && !memcmp(s + *p, lits[i], l)) {
            m->kind = FLD_JSON_LITERAL;
            m->val = s + *p;
            m->vlen = l;
            *p += l;
            return true;
        }
    }
    return false;
}

int fld_json_object(const uint8_t *s, size_t n, FldJsonMember *m, int max)
{
    size_t p = skip_ws(s, n, 0);
    int count = 0, j;

    if (p >= n || s[p] != '{') {
        return -1;
    }
    p = skip_ws(s, n, p + 1);
    if (p < n && s[p] == '}') {
        return skip_ws(s, n, p + 1) == n ? 0 : -1;
    }
    for (;;) {
        FldJsonMember cur = { 0 };

        if (count == max || p >= n || s[p] != '"' ||
            !parse_string(s, n, &p, &cur.key, &cur.klen)) {
            return -1;
        }
        p = skip_ws(s, n, p);
        if (p >= n || s[p] != ':') {
            return -1;
        }
        p = skip_ws(s, n, p + 1);
        if (!parse_value(s, n, &p, &cur)) {
            return -1;
        }
        /* a repeated name would let two readers see two tokens */
        for (j = 0; j < count; j++) {
            if (m[j].klen == cur.klen && !memcmp(m[j].key, cur.key,
                                                 cur.klen)) {
                return -1;
            }
        }
        m[count++] = cur;
        p = skip_ws(s, n, p);
        if (p < n && s[p] == ',') {
            p = skip_ws(s, n, p + 1);
            continue;
        }
        if (p < n && s[p] == '}') {
            return skip_ws(s, n, p + 1) == n ? count : -1;
        }
        return -1;
    }
}

const FldJsonMember *fld_json_get(const FldJsonMember *m, int count,
                                  const char *name)
{
    size_t l = strlen(name);
    int i;

    for (i = 0; i < count; i++) {
        if (m[i].klen == l && !memcmp(m[i].key, name, l)) {
            return &m[i];
        }
    }
    return NULL;
}

bool fld_header_hs256(const uint8_t *h, size_t n)
{
    FldJsonMember m[FLD_JSON_MAX_MEMBERS];
    int c = fld_json_object(h, n, m, FLD_JSON_MAX_MEMBERS);
    const FldJsonMember *alg = c < 0 ? NULL : fld_json_get(m, c, "alg");

    return alg && alg->kind == FLD_JSON_STRING && alg->vlen == 5 &&
           !memcmp(alg->val, "HS256", 5);
}

/* @name absent: true; present: an integral number in *t, else false. */
static bool claim_time(const FldJsonMember *m, int c, const char *name,
                       const FldJsonMember **out)
{
    *out = fld_json_get(m, c, name);
    return !*out || ((*out)->kind == FLD_JSON_NUMBER && (*out)->is_int);
}

FldClaimsResult fld_claims_check(const uint8_t *cl, size_t n, int64_t now)
{
    FldJsonMember m[FLD_JSON_MAX_MEMBERS];
    const FldJsonMember *exp, *nbf;
    int c = fld_json_object(cl, n, m, FLD_JSON_MAX_MEMBERS);

    if (c < 0 || !claim_time(m, c, "exp", &exp) ||
        !claim_time(m, c, "nbf", &nbf)) {
        return FLD_CLAIMS_MALFORMED;
    }
    if ((exp || nbf) && now < 0) {
        return FLD_CLAIMS_EXPIRED;
    }
    if ((exp && now >= exp->num) || (nbf && now < nbf->num)) {
        return FLD_CLAIMS_EXPIRED;
    }
    return FLD_CLAIMS_OK;
}
