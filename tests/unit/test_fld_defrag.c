/*
 * IPv4 reassembly of the defrag accelerator (qemu-devices/fld/fld-defrag.c):
 * a datagram cut into fragments comes out byte for byte as it was before
 * fragmentation, in any arrival order; overlaps, oversize datagrams,
 * malformed headers drop; a full table evicts its oldest context.
 */
#include <stdlib.h>
#include "../lib/check.h"
#include "fld/fld-defrag.h"

/* whole is big enough for test fragments beyond a frame */
static uint8_t whole[2 * FLD_DF_MAX_FRAME], out[FLD_DF_MAX_FRAME];

static uint16_t csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += p[i] << 8 | p[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return ~s;
}

/* An unfragmented Ethernet/IPv4/UDP frame with @plen UDP payload bytes. */
static size_t mk_whole(size_t plen, uint16_t id)
{
	uint8_t *ip = whole + 14;
	size_t tot = 20 + 8 + plen, i;
	uint16_t c;

	memset(whole, 0, sizeof(whole));
	memcpy(whole, "\x52\x54\x00\x00\x00\x02\x52\x54\x00\x00\x00\x01", 12);
	whole[12] = 0x08;
	ip[0] = 0x45;
	ip[2] = tot >> 8;
	ip[3] = tot;
	ip[4] = id >> 8;
	ip[5] = id;
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, "\x0a\x00\x00\x02\x0a\x00\x00\x01", 8);
	c = csum(ip, 20);
	ip[10] = c >> 8;
	ip[11] = c;
	for (i = 0; i < 8 + plen; i++)
		ip[20 + i] = (uint8_t)(i * 7 + id);
	return 14 + tot;
}

/* A fragment of the whole frame: IP payload [off, off + n). */
static size_t mk_frag(uint8_t *f, size_t off, size_t n, bool last)
{
	uint8_t *ip = f + 14;
	uint16_t c, fr = off / 8 | (last ? 0 : 0x2000);

	memcpy(f, whole, 14 + 20);
	memcpy(f + 34, whole + 34 + off, n);
	ip[2] = (20 + n) >> 8;
	ip[3] = 20 + n;
	ip[6] = fr >> 8;
	ip[7] = fr;
	ip[10] = ip[11] = 0;
	c = csum(ip, 20);
	ip[10] = c >> 8;
	ip[11] = c;
	return 34 + n;
}

/* Feed @piece-byte fragments in @order; check the result. */
static int run(size_t plen, size_t piece, const int *order, int n)
{
	static FldDefrag d;
	uint8_t f[2 * FLD_DF_MAX_FRAME];
	size_t wl = mk_whole(plen, 0x1234), ipl = 8 + plen, ol = 0;
	int i, r = -1;

	fld_defrag_reset(&d);
	for (i = 0; i < n; i++) {
		size_t off = order[i] * piece;
		size_t len = ipl - off < piece ? ipl - off : piece;

		r = fld_defrag_input(&d, f, mk_frag(f, off, len, off + len == ipl),
				     out, &ol);
		if (i < n - 1 && r != FLD_DF_HELD)
			return 0;
	}
	return r == FLD_DF_DONE && ol == wl && !memcmp(out, whole, wl) &&
	       d.reassembled == 1;
}

static void in_order(void)
{
	static const int o[] = { 0, 1, 2, 3, 4 };

	CHECK(run(1000, 208, o, 5));
}

static void out_of_order(void)
{
	static const int o[] = { 3, 0, 4, 2, 1 };
	static const int last_first[] = { 4, 3, 2, 1, 0 };

	CHECK(run(1000, 208, o, 5));
	CHECK(run(1000, 208, last_first, 5));
}

static void jumbo(void)
{
	/* 8958 bytes of IP payload: a 8992-byte frame in 7 fragments */
	static const int o[] = { 6, 0, 1, 5, 2, 3, 4 };

	CHECK(run(8950, 1480, o, 7));
}

static void not_fragments_pass(void)
{
	static FldDefrag d;
	size_t ol, wl = mk_whole(100, 1);

	fld_defrag_reset(&d);
	CHECK_EQ(fld_defrag_input(&d, whole, wl, out, &ol), FLD_DF_PASS);
	whole[12] = 0x86;			/* not IPv4 */
	CHECK_EQ(fld_defrag_input(&d, whole, wl, out, &ol), FLD_DF_PASS);
}

static void overlap_and_malformed_drop(void)
{
	static FldDefrag d;
	uint8_t f[2 * FLD_DF_MAX_FRAME];
	size_t ol;

	mk_whole(1000, 2);
	fld_defrag_reset(&d);
	CHECK_EQ(fld_defrag_input(&d, f, mk_frag(f, 0, 208, false), out, &ol),
		 FLD_DF_HELD);
	CHECK_EQ(fld_defrag_input(&d, f, mk_frag(f, 200, 208, false), out, &ol),
		 FLD_DF_DROP);			/* overlaps [0, 208) */
	CHECK_EQ(d.overlaps, 1);
	CHECK_EQ(fld_defrag_input(&d, f, mk_frag(f, 0, 100, false), out, &ol),
		 FLD_DF_DROP);			/* not a multiple of 8 */
	mk_frag(f, 0, 208, false);
	f[14 + 3] = 0xff;			/* total length beyond the frame */
	CHECK_EQ(fld_defrag_input(&d, f, 34 + 208, out, &ol), FLD_DF_DROP);
	CHECK_EQ(d.malformed, 2);
	CHECK_EQ(fld_defrag_input(&d, f, mk_frag(f, 8960, 208, true), out, &ol),
		 FLD_DF_DROP);			/* beyond a jumbo frame */
	CHECK_EQ(d.too_big, 1);
	CHECK_EQ(d.reassembled, 0);
}

static void table_full_evicts_oldest(void)
{
	static FldDefrag d;
	uint8_t f[2 * FLD_DF_MAX_FRAME];
	size_t ol;
	int i;

	fld_defrag_reset(&d);
	for (i = 0; i < FLD_DF_CTXS + 1; i++) {
		mk_whole(1000, 100 + i);
		CHECK_EQ(fld_defrag_input(&d, f, mk_frag(f, 0, 504, false), out,
					  &ol), FLD_DF_HELD);
	}
	CHECK_EQ(d.evicted, 1);
	/* datagram 100 was evicted: its tail alone does not complete it */
	mk_whole(1000, 100);
	CHECK_EQ(fld_defrag_input(&d, f, mk_frag(f, 504, 504, true), out, &ol),
		 FLD_DF_HELD);
	/* datagram 116 completes */
	mk_whole(1000, 116);
	CHECK_EQ(fld_defrag_input(&d, f, mk_frag(f, 504, 504, true), out, &ol),
		 FLD_DF_DONE);
}

int main(void)
{
	RUN("unit/fld_defrag", in_order);
	RUN("unit/fld_defrag", out_of_order);
	RUN("unit/fld_defrag", jumbo);
	RUN("unit/fld_defrag", not_fragments_pass);
	RUN("unit/fld_defrag", overlap_and_malformed_drop);
	RUN("unit/fld_defrag", table_full_evicts_oldest);
	return check_failures ? 1 : 0;
}
