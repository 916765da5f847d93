/* SPDX-License-Identifier: GPL-2.0 */
/*
 * 3GPP test sets for 128-EEA3 and 128-EIA3 (ETSI/SAGE, "Specification of
 * the 3GPP Confidentiality and Integrity Algorithms 128-EEA3 & 128-EIA3,
 * Document 3: Implementor's Test Data"), as fld-zuc test-vectors sends them
 * through an accelerator and the FLD-R device test checks them.  Bit
 * strings are big-endian 32-bit words, as in the document.
 */
#ifndef FLD_ZUC_VECTORS_H
#define FLD_ZUC_VECTORS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "d2d/fld_if.h"

struct fld_zuc_vector {
	const char *name;
	uint8_t op;		/* enum fld_zuc_op */
	uint8_t key[16];
	uint32_t count;
	uint8_t bearer, direction;
	uint32_t bits;
	unsigned int nwords;
	const uint32_t *in;	/* plaintext or message */
	const uint32_t *out;	/* EEA3: ciphertext */
	uint32_t mac;		/* EIA3 */
};

static const uint32_t fld_zv_eea3_set1_in[] = {
	0x6cf65340, 0x735552ab, 0x0c9752fa, 0x6f9025fe,
	0x0bd675d9, 0x005875b2, 0x00000000,
};
static const uint32_t fld_zv_eea3_set1_out[] = {
	0xa6c85fc6, 0x6afb8533, 0xaafc2518, 0xdfe78494,
	0x0ee1e4b0, 0x30238cc8, 0x00000000,
};
static const uint32_t fld_zv_eea3_set2_in[] = {
	0x14a8ef69, 0x3d678507, 0xbbe7270a, 0x7f67ff50,
	0x06c3525b, 0x9807e467, 0xc4e56000, 0xba338f5d,
	0x42955903, 0x67518222, 0x46c80d3b, 0x38f07f4b,
	0xe2d8ff58, 0x05f51322, 0x29bde93b, 0xbbdcaf38,
	0x2bf1ee97, 0x2fbf9977, 0xbada8945, 0x847a2a6c,
	0x9ad34a66, 0x7554e04d, 0x1f7fa2c3, 0x3241bd8f,
	0x01ba220d,
};
static const uint32_t fld_zv_eea3_set2_out[] = {
	0x131d43e0, 0xdea1be5c, 0x5a1bfd97, 0x1d852cbf,
	0x712d7b4f, 0x57961fea, 0x3208afa8, 0xbca433f4,
	0x56ad09c7, 0x417e58bc, 0x69cf8866, 0xd1353f74,
	0x865e8078, 0x1d202dfb, 0x3ecff7fc, 0xbc3b190f,
	0xe82a204e, 0xd0e350fc, 0x0f6f2613, 0xb2f2bca6,
	0xdf5a473a, 0x57a4a00d, 0x985ebad8, 0x80d6f238,
	0x64a07b01,
};
static const uint32_t fld_zv_eia3_set2_in[] = {
	0x983b41d4, 0x7d780c9e, 0x1ad11d7e, 0xb70391b1,
	0xde0b35da, 0x2dc62f83, 0xe7b78d63, 0x06ca0ea0,
	0x7e941b7b, 0xe91348f9, 0xfcb170e2, 0x217fecd9,
	0x7f9f68ad, 0xb16e5d7d, 0x21e569d2, 0x80ed775c,
	0xebde3f40, 0x93c53881, 0x00000000,
};
static const uint32_t fld_zv_eia3_set1_in[1];

static const struct fld_zuc_vector fld_zuc_vectors[] = {
	{ "eea3_set1", FLD_ZUC_OP_EEA3,
	  { 0x17, 0x3d, 0x14, 0xba, 0x50, 0x03, 0x73, 0x1d,
	    0x7a, 0x60, 0x04, 0x94, 0x70, 0xf0, 0x0a, 0x29 },
	  0x66035492, 0x0f, 0, 193, 7,
	  fld_zv_eea3_set1_in, fld_zv_eea3_set1_out, 0 },
	{ "eea3_set2", FLD_ZUC_OP_EEA3,
	  { 0xe5, 0xbd, 0x3e, 0xa0, 0xeb, 0x55, 0xad, 0xe8,
	    0x66, 0xc6, 0xac, 0x58, 0xbd, 0x54, 0x30, 0x2a },
	  0x00056823, 0x18, 1, 800, 25,
	  fld_zv_eea3_set2_in, fld_zv_eea3_set2_out, 0 },
	{ "eia3_set1", FLD_ZUC_OP_EIA3, { 0 }, 0, 0, 0, 1, 1,
	  fld_zv_eia3_set1_in, NULL, 0xc8a9595e },
	{ "eia3_set2", FLD_ZUC_OP_EIA3,
	  { 0xc9, 0xe6, 0xce, 0xc4, 0x60, 0x7c, 0x72, 0xdb,
	    0x00, 0x0a, 0xef, 0xa8, 0x83, 0x85, 0xab, 0x0a },
	  0xa94059da, 0x0a, 1, 577, 19, fld_zv_eia3_set2_in, NULL, 0xfae8ff0b },
};

#define FLD_ZUC_NVECTORS \
	(sizeof(fld_zuc_vectors) / sizeof(fld_zuc_vectors[0]))

static inline void fld_zv_bytes(const uint32_t *w, unsigned int n,
				uint8_t *b)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		b[4 * i] = w[i] >> 24;
		b[4 * i + 1] = w[i] >> 16;
		b[4 * i + 2] = w[i] >> 8;
		b[4 * i + 3] = w[i];
	}
}

/*
 * The request of vector @v into @req (at least 64 + 4 x nwords bytes),
 * request_id @id; returns its length.  Little-endian host.
 */
static inline size_t fld_zv_request(const struct fld_zuc_vector *v,
				    uint8_t *req, uint64_t id)
{
	struct fld_zuc_hdr h;

	memset(&h, 0, sizeof(h));
	h.magic = FLD_ZUC_MAGIC;
	h.op = v->op;
	h.bearer = v->bearer;
	h.direction = v->direction;
	h.count = v->count;
	h.length_bits = v->bits;
	h.request_id = id;
	memcpy(h.key, v->key, 16);
	memcpy(req, &h, sizeof(h));
	fld_zv_bytes(v->in, v->nwords, req + FLD_ZUC_HDR_SIZE);
	return FLD_ZUC_HDR_SIZE + (v->bits + 7) / 8;
}

/* Does answer @a (@len bytes) carry the published result of @v? */
static inline int fld_zv_answer_ok(const struct fld_zuc_vector *v,
				   const uint8_t *a, size_t len, uint64_t id)
{
	struct fld_zuc_hdr h;
	uint8_t out[4 * 200];
	size_t nb = (v->bits + 7) / 8;

	if (len < FLD_ZUC_HDR_SIZE)
		return 0;
	memcpy(&h, a, sizeof(h));
	if (h.magic != FLD_ZUC_MAGIC || h.status != FLD_ZUC_OK ||
	    h.request_id != id)
		return 0;
	if (v->op == FLD_ZUC_OP_EIA3)
		return len == FLD_ZUC_HDR_SIZE && h.mac == v->mac;
	if (len != FLD_ZUC_HDR_SIZE + nb || v->nwords > 200)
		return 0;
	fld_zv_bytes(v->out, v->nwords, out);
	return !memcmp(a + FLD_ZUC_HDR_SIZE, out, nb);
}

#endif
