/*
 * ZUC, 128-EEA3 and 128-EIA3 (qemu-devices/fld/fld-zuc.c) against the
 * published test sets: ETSI/SAGE, "Specification of the 3GPP
 * Confidentiality and Integrity Algorithms 128-EEA3 & 128-EIA3, Document 3:
 * Implementor's Test Data": ZUC keystream sets 1-3 here, EEA3 and EIA3
 * sets 1-3 from userspace/fld/fld_zuc_vectors.h, the one copy that fld-zuc
 * and the FLD-R device test use too.
 */
#include "../lib/check.h"
#include "fld/fld-zuc.h"
#include "../../userspace/fld/fld_zuc_vectors.h"

static int keystream_is(const uint8_t key[16], const uint8_t iv[16],
			uint32_t z1, uint32_t z2)
{
	FldZuc z;
	uint32_t a, b;

	fld_zuc_init(&z, key, iv);
	a = fld_zuc_word(&z);
	b = fld_zuc_word(&z);
	return a == z1 && b == z2;
}

static void zuc_keystream_set1(void)
{
	static const uint8_t k[16], iv[16];

	CHECK(keystream_is(k, iv, 0x27bede74, 0x018082da));
}

static void zuc_keystream_set2(void)
{
	uint8_t k[16], iv[16];

	memset(k, 0xff, 16);
	memset(iv, 0xff, 16);
	CHECK(keystream_is(k, iv, 0x0657cfa0, 0x7096398b));
}

static void zuc_keystream_set3(void)
{
	static const uint8_t k[16] = {
		0x3d, 0x4c, 0x4b, 0xe9, 0x6a, 0x82, 0xfd, 0xae,
		0xb5, 0x8f, 0x64, 0x1d, 0xb1, 0x7b, 0x45, 0x5b,
	};
	static const uint8_t iv[16] = {
		0x84, 0x31, 0x9a, 0xa8, 0xde, 0x69, 0x15, 0xca,
		0x1f, 0x6b, 0xda, 0x6b, 0xfb, 0xd8, 0xc7, 0x66,
	};

	CHECK(keystream_is(k, iv, 0x14f1c272, 0x3279c419));
}

/*
 * Encrypts p, compares with c over len bits, and decrypts back (EEA3 is
 * its own inverse).
 */
static int eea3_case(const uint8_t key[16], uint32_t count, uint8_t bearer,
		     uint8_t dir, const uint32_t *pw, const uint32_t *cw,
		     unsigned int nwords, uint32_t len)
{
	uint8_t p[512], c[512], out[512], back[512];
	unsigned int nbytes = (len + 7) / 8;

	fld_zv_bytes(pw, nwords, p);
	fld_zv_bytes(cw, nwords, c);
	fld_eea3(key, count, bearer, dir, p, out, len);
	if (memcmp(out, c, nbytes))
		return 0;
	fld_eea3(key, count, bearer, dir, out, back, len);
	if (len % 8)
		p[nbytes - 1] &= 0xff00 >> (len % 8);
	return !memcmp(back, p, nbytes);
}

static const struct fld_zuc_vector *cur;

/* The published set cur: EEA3 both ways, or the EIA3 MAC. */
static void vector_case(void)
{
	const struct fld_zuc_vector *v = cur;
	uint8_t m[4 * 200];

	/* the words hold the bit string and no whole spare word */
	CHECK(v->nwords <= 200 && v->bits <= 32 * v->nwords &&
	      v->bits > 32 * (v->nwords - 1));
	if (v->op == FLD_ZUC_OP_EEA3) {
		CHECK(eea3_case(v->key, v->count, v->bearer, v->direction,
				v->in, v->out, v->nwords, v->bits));
		return;
	}
	fld_zv_bytes(v->in, v->nwords, m);
	CHECK_EQ(fld_eia3(v->key, v->count, v->bearer, v->direction, m,
			  v->bits), v->mac);
}

/* A flipped message bit or direction changes the MAC. */
static void eia3_detects_change(void)
{
	static const uint8_t k[16] = { 1, 2, 3 };
	uint8_t m[64] = { 0 };
	uint32_t mac = fld_eia3(k, 7, 3, 0, m, 500);

	m[20] ^= 0x10;
	CHECK(fld_eia3(k, 7, 3, 0, m, 500) != mac);
	m[20] ^= 0x10;
	CHECK(fld_eia3(k, 7, 3, 1, m, 500) != mac);
	CHECK_EQ(fld_eia3(k, 7, 3, 0, m, 500), mac);
}

int main(void)
{
	unsigned int i;

	check_run("unit/fld_zuc/keystream_set1", zuc_keystream_set1);
	check_run("unit/fld_zuc/keystream_set2", zuc_keystream_set2);
	check_run("unit/fld_zuc/keystream_set3", zuc_keystream_set3);
	for (i = 0; i < FLD_ZUC_NVECTORS; i++) {
		char name[64];

		cur = &fld_zuc_vectors[i];
		snprintf(name, sizeof(name), "unit/fld_zuc/%s", cur->name);
		check_run(name, vector_case);
	}
	check_run("unit/fld_zuc/eia3_detects_change", eia3_detects_change);
	return check_failures ? 1 : 0;
}
