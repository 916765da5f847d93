/*
 * The iotauth accelerator's checks (qemu-devices/fld/fld-iot.c): CoAP
 * parsing to the payload, base64url, and HS256 JSON Web Tokens against
 * the RFC 7519-style example token published by jwt.io (secret
 * "your-256-bit-secret"), with HMAC-SHA256 from nettle.
 */
#include <nettle/hmac.h>
#include "../lib/check.h"
#include "fld/fld-iot.h"

static const char jwt_ok[] =
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
	"eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ."
	"SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
static const char secret[] = "your-256-bit-secret";

static bool hmac_nettle(void *opaque, const uint8_t *key, size_t klen,
			const uint8_t *msg, size_t len, uint8_t mac[32])
{
	struct hmac_sha256_ctx c;

	(void)opaque;
	hmac_sha256_set_key(&c, klen, key);
	hmac_sha256_update(&c, len, msg);
	hmac_sha256_digest(&c, 32, mac);
	return true;
}

static int check(const char *jwt, const char *key)
{
	return fld_jwt_check((const uint8_t *)jwt, strlen(jwt),
			     (const uint8_t *)key, strlen(key), 1700000000,
			     hmac_nettle, NULL);
}

static void jwt_example_valid(void)
{
	CHECK_EQ(check(jwt_ok, secret), FLD_IOT_VALID);
}

static void jwt_wrong_key_or_tampered(void)
{
	char t[sizeof(jwt_ok)];

	CHECK_EQ(check(jwt_ok, "another-secret"), FLD_IOT_BAD_SIG);
	memcpy(t, jwt_ok, sizeof(t));
	t[60] ^= 1;			/* a claim character */
	CHECK_EQ(check(t, secret), FLD_IOT_BAD_SIG);
	memcpy(t, jwt_ok, sizeof(t));
	t[sizeof(t) - 3] = 'A';		/* the signature */
	CHECK(check(t, secret) != FLD_IOT_VALID);
}

static void jwt_malformed(void)
{
	/* {"alg":"none"} */
	CHECK_EQ(check("eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.AAAA", secret),
		 FLD_IOT_BAD_ALG);
	CHECK_EQ(check("no-dots-at-all", secret), FLD_IOT_MALFORMED);
	CHECK_EQ(check("a.b", secret), FLD_IOT_MALFORMED);
	CHECK_EQ(check("a.b.c.d", secret), FLD_IOT_MALFORMED);
	CHECK_EQ(check("..", secret), FLD_IOT_MALFORMED);
	CHECK_EQ(check("eyJhbGciOiJIUzI1NiJ9.e$$.AAAA", secret),
		 FLD_IOT_MALFORMED);
	/* signature of the wrong length */
	CHECK_EQ(check("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.AAAA", secret),
		 FLD_IOT_BAD_SIG);
}

static void base64url(void)
{
	uint8_t b[16];

	CHECK_EQ(fld_b64url_decode("TWFu", 4, b, sizeof(b)), 3);
	CHECK(!memcmp(b, "Man", 3));
	CHECK_EQ(fld_b64url_decode("TWE", 3, b, sizeof(b)), 2);
	CHECK_EQ(fld_b64url_decode("TQ", 2, b, sizeof(b)), 1);
	CHECK_EQ(fld_b64url_decode("T", 1, b, sizeof(b)), -1);
	CHECK_EQ(fld_b64url_decode("TR", 2, b, sizeof(b)), -1); /* stray bits */
	CHECK_EQ(fld_b64url_decode("TW+u", 4, b, sizeof(b)), -1);
	CHECK_EQ(fld_b64url_decode("TWFuTWFu", 8, b, 4), -1);	/* too long */
}

static void coap_payload(void)
{
	/* CON GET id 0x1234, token 2 bytes, Uri-Path "auth" (11), payload */
	static const uint8_t m[] = {
		0x42, 0x01, 0x12, 0x34, 0xaa, 0xbb,
		0xb4, 'a', 'u', 't', 'h', 0xff, 'x', 'y', 'z',
	};
	/* extended option length (13 + 2 = 15 bytes) */
	uint8_t big[64] = { 0x40, 0x02, 0, 1, 0xbd, 2 };
	const uint8_t *p;
	size_t n;

	CHECK(fld_coap_payload(m, sizeof(m), &p, &n));
	CHECK_EQ(n, 3);
	CHECK(!memcmp(p, "xyz", 3));
	memset(big + 6, 'o', 15);
	big[21] = 0xff;
	big[22] = 'P';
	CHECK(fld_coap_payload(big, 23, &p, &n));
	CHECK_EQ(n, 1);
	CHECK_EQ(p[0], 'P');
	CHECK(!fld_coap_payload(m, 3, &p, &n));		/* short header */
	CHECK(!fld_coap_payload(m, 12, &p, &n));	/* marker, no payload */
	CHECK(!fld_coap_payload(m, 11, &p, &n));	/* no marker */
	CHECK(!fld_coap_payload(big, 20, &p, &n));	/* option overruns */
	big[0] = 0x80;					/* version 2 */
	CHECK(!fld_coap_payload(big, 23, &p, &n));
	big[0] = 0x49;					/* token length 9 */
	CHECK(!fld_coap_payload(big, 23, &p, &n));
}

int main(void)
{
	RUN("unit/fld_iot", jwt_example_valid);
	RUN("unit/fld_iot", jwt_wrong_key_or_tampered);
	RUN("unit/fld_iot", jwt_malformed);
	RUN("unit/fld_iot", base64url);
	RUN("unit/fld_iot", coap_payload);
	return check_failures ? 1 : 0;
}
