/*
 * Packet bytes shared by the device models (qemu-devices/common/d2d-pkt.c):
 * big- and little-endian field access, the Internet checksum against
 * RFC 1071's worked example and a known IPv4 header, odd lengths, the
 * carry fold, and the TCP/UDP pseudo header.
 */
#include <stdlib.h>
#include "../lib/check.h"
#include "common/d2d-pkt.h"

static void field_access(void)
{
	uint8_t b[4];

	d2d_wr16(b, 0x1234);
	CHECK_EQ(b[0], 0x12);
	CHECK_EQ(b[1], 0x34);
	CHECK_EQ(d2d_rd16(b), 0x1234);
	d2d_wr32(b, 0x89abcdef);
	CHECK_EQ(b[0], 0x89);
	CHECK_EQ(b[3], 0xef);
	CHECK_EQ(d2d_rd32(b), 0x89abcdef);
	CHECK_EQ(d2d_rd32le(b), 0xefcdab89);
	CHECK_EQ(d2d_rd16le(b), 0xab89);
	d2d_wr32le(b, 0x01020304);
	CHECK_EQ(b[0], 0x04);
	CHECK_EQ(b[3], 0x01);
	CHECK_EQ(d2d_rd32le(b), 0x01020304);
}

static void internet_checksum(void)
{
	/* RFC 1071 section 3: 00 01 f2 03 f4 f5 f6 f7 sums to 0xddf2. */
	static const uint8_t rfc[] = { 0x00, 0x01, 0xf2, 0x03,
				       0xf4, 0xf5, 0xf6, 0xf7 };
	/* An IPv4 header whose checksum (0xb861) is filled in. */
	static const uint8_t ip[20] = {
		0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
		0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
	};
	uint8_t h[20];
	static const uint8_t odd[3] = { 0x12, 0x34, 0x56 };
	uint8_t ones[4096];

	CHECK_EQ(d2d_csum_fold(d2d_csum_partial(0, rfc, sizeof(rfc))),
		 (uint16_t)~0xddf2);
	CHECK_EQ(d2d_csum_fold(d2d_csum_partial(0, ip, sizeof(ip))), 0);
	memcpy(h, ip, sizeof(h));
	h[10] = h[11] = 0;
	CHECK_EQ(d2d_csum_fold(d2d_csum_partial(0, h, sizeof(h))), 0xb861);
	/* an odd last byte is the high half of a word */
	CHECK_EQ(d2d_csum_partial(0, odd, 3), 0x1234 + 0x5600);
	/* long runs of 0xffff carry and fold without overflowing */
	memset(ones, 0xff, sizeof(ones));
	CHECK_EQ(d2d_csum_fold(d2d_csum_partial(0, ones, sizeof(ones))), 0);
}

static void pseudo_header(void)
{
	static const uint8_t ip[20] = {
		0x45, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
		0x00, 0x00, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
	};

	/* source + destination words, protocol, length */
	CHECK_EQ(d2d_csum_pseudo4(ip, 17, 8),
		 0x0a00 + 0x0001 + 0x0a00 + 0x0002 + 17 + 8);
}

int main(void)
{
	RUN("unit/d2d_pkt", field_access);
	RUN("unit/d2d_pkt", internet_checksum);
	RUN("unit/d2d_pkt", pseudo_header);
	return check_failures ? 1 : 0;
}
