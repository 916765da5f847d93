/*
 * ECN marking at the switch queue (qemu-devices/common/d2d-ecn.c): the
 * RED curve between kmin and kmax, the deterministic sequence, CE with
 * the IPv4 checksum kept right, mark-every, and frames that are not
 * ECN-capable IPv4 left alone.
 */
#include "../lib/check.h"
#include "common/d2d-ecn.h"
#include "common/d2d-pkt.h"

/* An Ethernet + IPv4 + 8 bytes frame with TOS @tos, checksum right. */
static size_t mk_ip(uint8_t *f, uint8_t tos)
{
	uint8_t *ip = f + 14;

	memset(f, 0, 64);
	f[12] = 0x08;
	ip[0] = 0x45;
	ip[1] = tos;
	ip[3] = 28;
	ip[8] = 64;
	ip[9] = 17;
	ip[12] = 10;
	ip[15] = 1;
	ip[16] = 10;
	ip[19] = 2;
	d2d_wr16(ip + 10, d2d_csum_fold(d2d_csum_partial(0, ip, 20)));
	return 14 + 28;
}

static void curve(void)
{
	D2DEcn e;

	d2d_ecn_init(&e);
	CHECK(d2d_ecn_check(&e) == NULL);
	CHECK_EQ(e.kmin, 5000);
	CHECK_EQ(e.kmax, 200000);
	CHECK_EQ(e.pmax_ppm, 10000);
	CHECK_EQ(d2d_ecn_prob_ppm(&e, 0), 0);
	CHECK_EQ(d2d_ecn_prob_ppm(&e, 5000), 0);
	/* half way: pmax / 2 */
	CHECK_EQ(d2d_ecn_prob_ppm(&e, 102500), 5000);
	CHECK_EQ(d2d_ecn_prob_ppm(&e, 200000), 10000);
	CHECK_EQ(d2d_ecn_prob_ppm(&e, 200001), 1000000);
	e.kmax = 0;
	CHECK_EQ(d2d_ecn_prob_ppm(&e, 1 << 30), 0);
	e.kmax = 4000;
	CHECK(d2d_ecn_check(&e) != NULL);
	e.kmax = 200000;
	e.pmax_ppm = 1000001;
	CHECK(d2d_ecn_check(&e) != NULL);
}

static void set_ce(void)
{
	uint8_t f[64];
	size_t len;

	len = mk_ip(f, 0xb8 | D2D_ECN_ECT0);
	CHECK_EQ(d2d_ecn_field(f, len), D2D_ECN_ECT0);
	CHECK(d2d_ecn_set_ce(f, len));
	CHECK_EQ(f[15], 0xb8 | D2D_ECN_CE);
	CHECK_EQ(d2d_csum_fold(d2d_csum_partial(0, f + 14, 20)), 0);
	len = mk_ip(f, D2D_ECN_ECT1);
	CHECK(d2d_ecn_set_ce(f, len));
	CHECK_EQ(d2d_ecn_field(f, len), D2D_ECN_CE);
	/* not ECN-capable: untouched */
	len = mk_ip(f, 0xb8);
	CHECK(!d2d_ecn_set_ce(f, len));
	CHECK_EQ(f[15], 0xb8);
	/* not IPv4, truncated */
	f[12] = 0x86;
	f[13] = 0xdd;
	CHECK_EQ(d2d_ecn_field(f, len), -1);
	CHECK(!d2d_ecn_set_ce(f, len));
	len = mk_ip(f, D2D_ECN_ECT0);
	CHECK_EQ(d2d_ecn_field(f, 20), -1);
}

static void decide(void)
{
	uint8_t f[64], g[64];
	size_t len = mk_ip(f, D2D_ECN_ECT0);
	D2DEcn a, b;
	int i, na = 0, nb = 0, same = 1;

	mk_ip(g, 0);
	d2d_ecn_init(&a);
	d2d_ecn_init(&b);
	/* below kmin never, above kmax always, not-ECT never */
	for (i = 0; i < 1000; i++) {
		CHECK(!d2d_ecn_decide(&a, f, len, 5000, true));
		CHECK(d2d_ecn_decide(&a, f, len, 300000, true));
		CHECK(!d2d_ecn_decide(&a, g, len, 300000, true));
	}
	/* without the curve (timing off) never */
	CHECK(!d2d_ecn_decide(&a, f, len, 300000, false));
	/* at pmax, about 1%; two runs give the same sequence */
	d2d_ecn_init(&a);
	for (i = 0; i < 100000; i++) {
		bool x = d2d_ecn_decide(&a, f, len, 200000, true);
		bool y = d2d_ecn_decide(&b, f, len, 200000, true);

		na += x;
		nb += y;
		same &= x == y;
	}
	CHECK(same);
	CHECK_EQ(na, nb);
	CHECK(na > 800 && na < 1200);
}

static void mark_every(void)
{
	uint8_t f[64], g[64];
	size_t len = mk_ip(f, D2D_ECN_ECT0);
	D2DEcn e;
	int i, n = 0;

	mk_ip(g, 0);
	d2d_ecn_init(&e);
	e.mark_every = 4;
	for (i = 0; i < 40; i++) {
		n += d2d_ecn_decide(&e, f, len, 0, false);
		/* not-ECT frames do not count */
		CHECK(!d2d_ecn_decide(&e, g, len, 0, false));
	}
	CHECK_EQ(n, 10);
}

int main(void)
{
	RUN("unit/d2d_ecn", curve);
	RUN("unit/d2d_ecn", set_ce);
	RUN("unit/d2d_ecn", decide);
	RUN("unit/d2d_ecn", mark_every);
	return check_failures ? 1 : 0;
}
