/*
 * The zuc accelerator's request engine (qemu-devices/fld/fld-zucreq.c):
 * requests built with struct fld_zuc_hdr carrying the 3GPP test sets
 * (EEA3 set 1, EIA3 set 2) are answered with the published outputs;
 * malformed requests get an error status or are refused.
 */
#include "../lib/check.h"
#include "fld/fld-zucreq.h"

static uint8_t req[1024], resp[1024];

static size_t mk(uint8_t op, const uint8_t key[16], uint32_t count,
		 uint8_t bearer, uint8_t dir, uint32_t bits,
		 const uint32_t *w, unsigned int nw)
{
	struct fld_zuc_hdr *h = (void *)req;
	unsigned int i;

	memset(req, 0, sizeof(req));
	h->magic = FLD_ZUC_MAGIC;
	h->op = op;
	h->bearer = bearer;
	h->direction = dir;
	h->count = count;
	h->length_bits = bits;
	h->request_id = 0x1122334455667788ull;
	memcpy(h->key, key, 16);
	for (i = 0; i < nw; i++) {
		req[64 + 4 * i] = w[i] >> 24;
		req[64 + 4 * i + 1] = w[i] >> 16;
		req[64 + 4 * i + 2] = w[i] >> 8;
		req[64 + 4 * i + 3] = w[i];
	}
	return 64 + (bits + 7) / 8;
}

static const uint8_t k1[16] = {
	0x17, 0x3d, 0x14, 0xba, 0x50, 0x03, 0x73, 0x1d,
	0x7a, 0x60, 0x04, 0x94, 0x70, 0xf0, 0x0a, 0x29,
};
static const uint32_t p1[] = {
	0x6cf65340, 0x735552ab, 0x0c9752fa, 0x6f9025fe,
	0x0bd675d9, 0x005875b2, 0x00000000,
};
static const uint8_t c1[] = {
	0xa6, 0xc8, 0x5f, 0xc6, 0x6a, 0xfb, 0x85, 0x33, 0xaa, 0xfc, 0x25, 0x18,
	0xdf, 0xe7, 0x84, 0x94, 0x0e, 0xe1, 0xe4, 0xb0, 0x30, 0x23, 0x8c, 0xc8,
	0x00,
};

static void eea3_request(void)
{
	size_t n = mk(FLD_ZUC_OP_EEA3, k1, 0x66035492, 0x0f, 0, 193, p1, 7);
	const struct fld_zuc_hdr *a = (const void *)resp;

	CHECK_EQ(sizeof(struct fld_zuc_hdr), FLD_ZUC_HDR_SIZE);
	CHECK_EQ(n, 64 + 25);
	CHECK_EQ(fld_zuc_request(req, n, resp, sizeof(resp)), 64 + 25);
	CHECK_EQ(a->status, FLD_ZUC_OK);
	CHECK_EQ(a->request_id, 0x1122334455667788ull);
	CHECK(!memcmp(resp + 64, c1, 25));
}

static void eia3_request(void)
{
	static const uint8_t k[16] = {
		0xc9, 0xe6, 0xce, 0xc4, 0x60, 0x7c, 0x72, 0xdb,
		0x00, 0x0a, 0xef, 0xa8, 0x83, 0x85, 0xab, 0x0a,
	};
	static const uint32_t m[] = {
		0x983b41d4, 0x7d780c9e, 0x1ad11d7e, 0xb70391b1,
		0xde0b35da, 0x2dc62f83, 0xe7b78d63, 0x06ca0ea0,
		0x7e941b7b, 0xe91348f9, 0xfcb170e2, 0x217fecd9,
		0x7f9f68ad, 0xb16e5d7d, 0x21e569d2, 0x80ed775c,
		0xebde3f40, 0x93c53881, 0x00000000,
	};
	size_t n = mk(FLD_ZUC_OP_EIA3, k, 0xa94059da, 0x0a, 1, 577, m, 19);
	const struct fld_zuc_hdr *a = (const void *)resp;

	CHECK_EQ(fld_zuc_request(req, n, resp, sizeof(resp)), 64);
	CHECK_EQ(a->status, FLD_ZUC_OK);
	CHECK_EQ(a->mac, 0xfae8ff0b);
}

static void malformed(void)
{
	struct fld_zuc_hdr *h = (void *)req;
	const struct fld_zuc_hdr *a = (const void *)resp;
	size_t n;

	n = mk(FLD_ZUC_OP_EEA3, k1, 1, 1, 0, 193, p1, 7);
	CHECK_EQ(fld_zuc_request(req, 63, resp, sizeof(resp)), -1);
	h->magic = 0x12345678;
	CHECK_EQ(fld_zuc_request(req, n, resp, sizeof(resp)), -1);
	n = mk(7, k1, 1, 1, 0, 193, p1, 7);
	CHECK_EQ(fld_zuc_request(req, n, resp, sizeof(resp)), 64);
	CHECK_EQ(a->status, FLD_ZUC_EOP);
	n = mk(FLD_ZUC_OP_EEA3, k1, 1, 32, 0, 193, p1, 7);
	CHECK_EQ(fld_zuc_request(req, n, resp, sizeof(resp)), 64);
	CHECK_EQ(a->status, FLD_ZUC_EPARAM);
	n = mk(FLD_ZUC_OP_EEA3, k1, 1, 1, 2, 193, p1, 7);
	CHECK_EQ(fld_zuc_request(req, n, resp, sizeof(resp)), 64);
	CHECK_EQ(a->status, FLD_ZUC_EPARAM);
	n = mk(FLD_ZUC_OP_EEA3, k1, 1, 1, 0, 0, p1, 7);
	CHECK_EQ(fld_zuc_request(req, n, resp, sizeof(resp)), 64);
	CHECK_EQ(a->status, FLD_ZUC_EPARAM);
	n = mk(FLD_ZUC_OP_EEA3, k1, 1, 1, 0, 193, p1, 7);
	CHECK_EQ(fld_zuc_request(req, n - 1, resp, sizeof(resp)), 64);
	CHECK_EQ(a->status, FLD_ZUC_ELEN);
	CHECK_EQ(fld_zuc_request(req, n + 1, resp, sizeof(resp)), 64);
	CHECK_EQ(a->status, FLD_ZUC_ELEN);
	/* an answer that would not fit the output */
	CHECK_EQ(fld_zuc_request(req, n, resp, 80), 64);
	CHECK_EQ(a->status, FLD_ZUC_EPARAM);
}

int main(void)
{
	RUN("unit/fld_zucreq", eea3_request);
	RUN("unit/fld_zucreq", eia3_request);
	RUN("unit/fld_zucreq", malformed);
	return check_failures ? 1 : 0;
}
