/*
 * The iotauth accelerator's JSON subset and claim policy
 * (qemu-devices/fld/fld-iotauth.c) and whole-token verification with
 * expiry (fld-iot.c): tokens are built here - base64url and the
 * reference HMAC-SHA256 from nettle - for chosen headers and claims, and
 * checked at chosen times.
 */
#include <stdio.h>
#include <stdlib.h>
#include <nettle/base64.h>
#include <nettle/hmac.h>
#include "../lib/check.h"
#include "fld/fld-iot.h"
#include "fld/fld-iotauth.h"

#define NOW 1800000000LL
static const char key[] = "tenant-7-key";

static size_t b64u(const char *in, size_t n, char *out)
{
	struct base64_encode_ctx c;
	size_t o;

	base64url_encode_init(&c);
	o = base64_encode_update(&c, out, n, (const uint8_t *)in);
	o += base64_encode_final(&c, out + o);
	while (o && out[o - 1] == '=')	/* JWS: no padding */
		o--;
	out[o] = 0;
	return o;
}

/* header.claims.signature, the signature by nettle under @k. */
static const char *mk_jwt(const char *hdr, const char *claims, const char *k)
{
	static char t[2048];
	struct hmac_sha256_ctx c;
	uint8_t mac[32];
	size_t n;

	n = b64u(hdr, strlen(hdr), t);
	t[n++] = '.';
	n += b64u(claims, strlen(claims), t + n);
	hmac_sha256_set_key(&c, strlen(k), (const uint8_t *)k);
	hmac_sha256_update(&c, n, (const uint8_t *)t);
	hmac_sha256_digest(&c, 32, mac);
	t[n++] = '.';
	b64u((const char *)mac, 32, t + n);
	return t;
}

static bool hmac_nettle(void *opaque, const uint8_t *k, size_t klen,
			const uint8_t *msg, size_t len, uint8_t mac[32])
{
	struct hmac_sha256_ctx c;

	(void)opaque;
	hmac_sha256_set_key(&c, klen, k);
	hmac_sha256_update(&c, len, msg);
	hmac_sha256_digest(&c, 32, mac);
	return true;
}

static int verify(const char *jwt, int64_t now)
{
	return fld_jwt_check((const uint8_t *)jwt, strlen(jwt),
			     (const uint8_t *)key, strlen(key), now,
			     hmac_nettle, NULL);
}

static int obj(const char *s, FldJsonMember *m)
{
	return fld_json_object((const uint8_t *)s, strlen(s), m,
			       FLD_JSON_MAX_MEMBERS);
}

static void json_members(void)
{
	FldJsonMember m[FLD_JSON_MAX_MEMBERS];
	const FldJsonMember *e;

	CHECK_EQ(obj(" { \"a\" : \"x\\\"y\" , \"exp\":1800000000,\"f\":-1.5e3,"
		     "\"t\":true,\"n\":null,\"o\":{\"p\":[1,{\"q\":\"]\"}]}}\n",
		     m), 6);
	e = fld_json_get(m, 6, "a");
	CHECK(e && e->kind == FLD_JSON_STRING && e->vlen == 4);
	e = fld_json_get(m, 6, "exp");
	CHECK(e && e->kind == FLD_JSON_NUMBER && e->is_int &&
	      e->num == 1800000000);
	e = fld_json_get(m, 6, "f");
	CHECK(e && e->kind == FLD_JSON_NUMBER && !e->is_int);
	e = fld_json_get(m, 6, "o");
	CHECK(e && e->kind == FLD_JSON_NESTED && e->vlen == 19);
	CHECK(fld_json_get(m, 6, "p") == NULL);	/* nested: not a member */
	CHECK_EQ(obj("{}", m), 0);
}

static void json_invalid(void)
{
	static const char *const bad[] = {
		"", "[]", "{", "}", "{\"a\"}", "{\"a\":}", "{\"a\":1,}",
		"{\"a\":1 \"b\":2}", "{a:1}", "{\"a\":01}", "{\"a\":1.}",
		"{\"a\":1e}", "{\"a\":tru}", "{\"a\":\"\\x\"}",
		"{\"a\":\"\\u12g4\"}", "{\"a\":\"unterminated}",
		"{\"a\":[1,2}", "{\"a\":{\"b\":1]}", "{\"a\":1} x",
		"{\"a\":1,\"a\":2}",			/* repeated name */
		"{\"a\":[[[[[[[[[1]]]]]]]]]}",		/* deeper than 8 */
		"{\"a\":\"tab\there\"}",		/* control character */
	};
	FldJsonMember m[FLD_JSON_MAX_MEMBERS];
	char many[512];
	size_t i, n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (obj(bad[i], m) != -1)
			printf("# accepted %s\n", bad[i]);
		CHECK_EQ(obj(bad[i], m), -1);
	}
	/* more members than FLD_JSON_MAX_MEMBERS */
	n = sprintf(many, "{");
	for (i = 0; i <= FLD_JSON_MAX_MEMBERS; i++)
		n += sprintf(many + n, "%s\"k%zu\":%zu", i ? "," : "", i, i);
	sprintf(many + n, "}");
	CHECK_EQ(obj(many, m), -1);
	/* truncations of a valid object never read past the end */
	{
		static const char ok[] = "{\"a\":\"b\\u00e9\",\"c\":[1,{\"d\":2}]}";
		uint8_t *copy;

		for (i = 0; i < sizeof(ok) - 1; i++) {
			copy = malloc(i ? i : 1);
			memcpy(copy, ok, i);
			CHECK_EQ(fld_json_object(copy, i, m, FLD_JSON_MAX_MEMBERS),
				 -1);
			free(copy);
		}
		CHECK_EQ(obj(ok, m), 2);
	}
}

static void header_alg(void)
{
#define HS(s) fld_header_hs256((const uint8_t *)(s), strlen(s))
	CHECK(HS("{\"alg\":\"HS256\",\"typ\":\"JWT\"}"));
	CHECK(HS("{ \"typ\" : \"JWT\" , \"alg\" : \"HS256\" }"));
	CHECK(!HS("{\"alg\":\"none\"}"));
	CHECK(!HS("{\"alg\":\"HS2566\"}"));
	CHECK(!HS("{\"typ\":\"JWT\"}"));
	CHECK(!HS("{\"x\":\"\\\"alg\\\":\\\"HS256\\\"\"}")); /* in a string */
	CHECK(!HS("{\"alg\":\"HS256\",\"alg\":\"none\"}"));
	CHECK(!HS("{\"alg\":[\"HS256\"]}"));
#undef HS
}

static void tokens_and_expiry(void)
{
	static const char h[] = "{\"alg\":\"HS256\",\"typ\":\"JWT\"}";
	char c[128];

	sprintf(c, "{\"sub\":\"sensor-1\",\"exp\":%lld}", NOW + 60);
	CHECK_EQ(verify(mk_jwt(h, c, key), NOW), FLD_IOT_VALID);
	CHECK_EQ(verify(mk_jwt(h, c, key), NOW + 59), FLD_IOT_VALID);
	CHECK_EQ(verify(mk_jwt(h, c, key), NOW + 60), FLD_IOT_EXPIRED);
	CHECK_EQ(verify(mk_jwt(h, c, key), -1), FLD_IOT_EXPIRED); /* no clock */
	CHECK_EQ(verify(mk_jwt(h, c, "forged"), NOW), FLD_IOT_BAD_SIG);
	/* expired and forged: the signature is judged first */
	CHECK_EQ(verify(mk_jwt(h, c, "forged"), NOW + 100), FLD_IOT_BAD_SIG);
	sprintf(c, "{\"nbf\":%lld}", NOW + 10);
	CHECK_EQ(verify(mk_jwt(h, c, key), NOW), FLD_IOT_EXPIRED);
	CHECK_EQ(verify(mk_jwt(h, c, key), NOW + 10), FLD_IOT_VALID);
	/* no exp: does not expire, with or without a clock */
	CHECK_EQ(verify(mk_jwt(h, "{\"sub\":\"x\"}", key), -1), FLD_IOT_VALID);
	/* exp not an integer, claims not an object */
	CHECK_EQ(verify(mk_jwt(h, "{\"exp\":\"soon\"}", key), NOW),
		 FLD_IOT_MALFORMED);
	CHECK_EQ(verify(mk_jwt(h, "{\"exp\":1.8e9}", key), NOW),
		 FLD_IOT_MALFORMED);
	CHECK_EQ(verify(mk_jwt(h, "[1,2]", key), NOW), FLD_IOT_MALFORMED);
	CHECK_EQ(verify(mk_jwt("{\"alg\":\"none\"}", "{}", key), NOW),
		 FLD_IOT_BAD_ALG);
	CHECK_EQ(verify(mk_jwt("{\"alg\":\"HS256\"", "{}", key), NOW),
		 FLD_IOT_BAD_ALG);
}

int main(void)
{
	RUN("unit/fld_iotauth", json_members);
	RUN("unit/fld_iotauth", json_invalid);
	RUN("unit/fld_iotauth", header_alg);
	RUN("unit/fld_iotauth", tokens_and_expiry);
	return check_failures ? 1 : 0;
}
