/*
 * IPv4 reassembly of the defrag accelerator (qemu-devices/fld/fld-defrag.c):
 * a datagram cut into fragments comes out byte for byte as it was before
 * fragmentation, in any arrival order; overlaps, oversize datagrams,
 * malformed headers drop; a full table evicts its oldest context; exact
 * duplicates are dropped alone; too many pieces and timeouts drop the
 * datagram.
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

static void duplicates_dropped_alone(void)
{
	static FldDefrag d;
	uint8_t f[2 * FLD_DF_MAX_FRAME];
	size_t wl, ol = 0;

	wl = mk_whole(1000, 3);
	fld_defrag_reset(&d);
	CHECK_EQ(fld_defrag_input(&d, f, mk_frag(f, 0, 504, false), out, &ol),
		 FLD_DF_HELD);
	/* the same fragment again, even with other bytes: first copy kept */
	mk_frag(f, 0, 504, false);
	f[40] ^= 0xff;
	CHECK_EQ(fld_defrag_input(&d, f, 34 + 504, out, &ol), FLD_DF_DROP);
	CHECK_EQ(d.duplicates, 1);
	CHECK_EQ(d.overlaps, 0);
	CHECK_EQ(fld_defrag_input(&d, f, mk_frag(f, 504, 504, true), out, &ol),
		 FLD_DF_DONE);
	CHECK_EQ(ol, wl);
	CHECK(!memcmp(out, whole, wl));
	/* a duplicate of the last piece after completion starts a new one */
	CHECK_EQ(fld_defrag_input(&d, f, mk_frag(f, 504, 504, true), out, &ol),
		 FLD_DF_HELD);
}

static void too_many_fragments(void)
{
	static FldDefrag d;
	uint8_t f[2 * FLD_DF_MAX_FRAME];
	size_t ol, i;

	/* 8-byte pieces: FLD_DF_MAX_FRAGS are held, the next one drops all */
	mk_whole(8 * FLD_DF_MAX_FRAGS + 100, 4);
	fld_defrag_reset(&d);
	for (i = 0; i < FLD_DF_MAX_FRAGS; i++)
		CHECK_EQ(fld_defrag_input(&d, f, mk_frag(f, 8 * i, 8, false), out,
					  &ol), FLD_DF_HELD);
	CHECK_EQ(fld_defrag_input(&d, f, mk_frag(f, 8 * i, 8, false), out, &ol),
		 FLD_DF_DROP);
	CHECK_EQ(d.too_many, 1);
	/* the context is gone: the rest no longer completes anything */
	CHECK_EQ(fld_defrag_input(&d, f, mk_frag(f, 8 * i + 8, 100, true), out,
				  &ol), FLD_DF_HELD);
	CHECK_EQ(d.reassembled, 0);
}

static void timeout_drops_datagram(void)
{
	static FldDefrag d;
	uint8_t f[2 * FLD_DF_MAX_FRAME];
	size_t ol;

	mk_whole(1000, 5);
	fld_defrag_reset(&d);
	CHECK_EQ(d.timeout_ms, FLD_DF_TIMEOUT_MS);
	fld_defrag_expire(&d, 1000);
	CHECK_EQ(fld_defrag_input(&d, f, mk_frag(f, 0, 504, false), out, &ol),
		 FLD_DF_HELD);
	fld_defrag_expire(&d, 1000 + FLD_DF_TIMEOUT_MS - 1);	/* not yet */
	CHECK_EQ(d.timeouts, 0);
	fld_defrag_expire(&d, 1000 + FLD_DF_TIMEOUT_MS);
	CHECK_EQ(d.timeouts, 1);
	CHECK_EQ(fld_defrag_input(&d, f, mk_frag(f, 504, 504, true), out, &ol),
		 FLD_DF_HELD);
	/* both pieces within the timeout: whole */
	CHECK_EQ(fld_defrag_input(&d, f, mk_frag(f, 0, 504, false), out, &ol),
		 FLD_DF_DONE);
	/* a clock going backwards expires nothing */
	CHECK_EQ(fld_defrag_input(&d, f, mk_frag(f, 0, 504, false), out, &ol),
		 FLD_DF_HELD);
	fld_defrag_expire(&d, 5);
	CHECK_EQ(d.timeouts, 1);
}

static void hostile_headers(void)
{
	static FldDefrag d;
	uint8_t f[2 * FLD_DF_MAX_FRAME];
	size_t ol, n, i;
	uint32_t x = 1;

	/* random bytes after a valid-looking IPv4 header: never a crash */
	fld_defrag_reset(&d);
	for (i = 0; i < 20000; i++) {
		size_t j, len;

		mk_whole(1000, (uint16_t)i);
		n = mk_frag(f, 0, 504, false);
		for (j = 14; j < 34; j++) {
			x = x * 1103515245 + 12345;
			if ((x >> 16) % 4 == 0)
				f[j] = x >> 24;
		}
		len = 14 + (x >> 8) % n;
		(void)fld_defrag_input(&d, f, len, out, &ol);
	}
	CHECK(d.malformed > 0);
}

int main(void)
{
	RUN("unit/fld_defrag", in_order);
	RUN("unit/fld_defrag", out_of_order);
	RUN("unit/fld_defrag", jumbo);
	RUN("unit/fld_defrag", not_fragments_pass);
	RUN("unit/fld_defrag", overlap_and_malformed_drop);
	RUN("unit/fld_defrag", table_full_evicts_oldest);
	RUN("unit/fld_defrag", duplicates_dropped_alone);
	RUN("unit/fld_defrag", too_many_fragments);
	RUN("unit/fld_defrag", timeout_drops_datagram);
	RUN("unit/fld_defrag", hostile_headers);
	return check_failures ? 1 : 0;
}
