/*
 * snic packet helpers (qemu-devices/snic/snic-pkt.c): parsing and its
 * rejection of malformed headers, checksums, the Toeplitz hash against the
 * Microsoft RSS verification suite, and TCP segmentation.
 */
#include <stdlib.h>
#include "../lib/check.h"
#include "snic/snic-pkt.h"

static const uint8_t ms_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d,
	0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
	0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b,
	0xbe, 0xac, 0x01, 0xfa,
};

/* Ethernet + IPv4 + UDP/TCP frame with @plen payload bytes into @f. */
static size_t build(uint8_t *f, int tcp, size_t plen, uint32_t sip,
		    uint32_t dip, uint16_t sp, uint16_t dp)
{
	size_t l4h = tcp ? 20 : 8, iplen = 20 + l4h + plen, i;
	uint8_t *ip = f + 14, *l4 = ip + 20;

	memset(f, 0, 14 + iplen);
	memcpy(f, "\x52\x54\x00\x00\x00\x02\x52\x54\x00\x00\x00\x01\x08\x00", 14);
	ip[0] = 0x45;
	ip[2] = iplen >> 8;
	ip[3] = iplen;
	ip[8] = 64;
	ip[9] = tcp ? 6 : 17;
	for (i = 0; i < 4; i++) {
		ip[12 + i] = sip >> (24 - 8 * i);
		ip[16 + i] = dip >> (24 - 8 * i);
	}
	l4[0] = sp >> 8; l4[1] = sp; l4[2] = dp >> 8; l4[3] = dp;
	if (tcp) {
		l4[4] = 0x10;	/* seq 0x10000000 */
		l4[12] = 5 << 4;
		l4[13] = 0x19;	/* FIN PSH ACK */
	} else {
		l4[4] = (8 + plen) >> 8;
		l4[5] = 8 + plen;
	}
	for (i = 0; i < plen; i++)
		l4[l4h + i] = i * 7;
	return 14 + iplen;
}

static void parse_udp_and_checksums(void)
{
	uint8_t f[200];
	size_t n = build(f, 0, 50, 0x0a000001, 0x0a000002, 1234, 5678);
	SnicPktInfo pi;

	snic_pkt_fill_csum(f, n, true, true);
	snic_pkt_parse(f, n, true, &pi);
	CHECK(pi.ipv4 && pi.udp && !pi.l3_bad && !pi.l4_bad);
	CHECK_EQ(pi.sport, 1234);
	CHECK_EQ(pi.dport, 5678);
	CHECK_EQ(pi.src_ip, 0x0a000001);
	f[14 + 28 + 3] ^= 0xff;		/* corrupt payload */
	snic_pkt_parse(f, n, true, &pi);
	CHECK(pi.l4_bad && !pi.l3_bad);
	f[14 + 8] ^= 1;			/* corrupt TTL: header checksum */
	snic_pkt_parse(f, n, true, &pi);
	CHECK(pi.l3_bad && !pi.ipv4);
}

static void malformed_ipv4_rejected(void)
{
	uint8_t f[200];
	size_t n = build(f, 1, 10, 1, 2, 3, 4);
	SnicPktInfo pi;

	f[14] = 0x44;			/* IHL 4 */
	snic_pkt_parse(f, n, false, &pi);
	CHECK(pi.l3_bad);
	n = build(f, 1, 10, 1, 2, 3, 4);
	f[16] = 0x10;			/* total length beyond the frame */
	snic_pkt_parse(f, n, false, &pi);
	CHECK(pi.l3_bad);
	snic_pkt_parse(f, 20, false, &pi);	/* truncated header */
	CHECK(pi.l3_bad);
	snic_pkt_parse(f, 10, false, &pi);	/* runt */
	CHECK(!pi.ipv4 && !pi.l3_bad);
}

static void toeplitz_ms_vectors(void)
{
	static const struct {
		uint32_t sip, dip;
		uint16_t sp, dp;
		uint32_t h_ip, h_l4;
	} v[] = {
		{ 0x420995bb, 0xa18e6450, 2794, 1766, 0x323e8fc2, 0x51ccc178 },
		{ 0xc75c6f02, 0x41458c53, 14230, 4739, 0xd718262a, 0xc626b0ea },
		{ 0x1813c65f, 0x0c16cfb8, 12898, 38024, 0xd2d0a5de, 0x5c2b394a },
	};
	unsigned int i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		uint8_t f[200];
		SnicPktInfo pi;
		uint32_t h;

		build(f, 1, 0, v[i].sip, v[i].dip, v[i].sp, v[i].dp);
		snic_pkt_parse(f, 54, false, &pi);
		CHECK(snic_rss_hash(ms_key, false, &pi, &h));
		CHECK_EQ(h, v[i].h_ip);
		CHECK(snic_rss_hash(ms_key, true, &pi, &h));
		CHECK_EQ(h, v[i].h_l4);
	}
}

static uint8_t segs[8][2048];
static size_t seg_len[8];
static int nseg;

static void collect(void *opaque, const uint8_t *seg, size_t len)
{
	(void)opaque;
	if (nseg < 8) {
		memcpy(segs[nseg], seg, len);
		seg_len[nseg] = len;
	}
	nseg++;
}

static void tso_segments(void)
{
	static uint8_t f[4000], buf[2048];
	size_t n = build(f, 1, 2500, 0x0a000001, 0x0a000002, 80, 9000);
	SnicPktInfo pi;
	int i;

	nseg = 0;
	CHECK_EQ(snic_tso(f, n, 1000, buf, collect, NULL), 3);
	CHECK_EQ(nseg, 3);
	for (i = 0; i < 3; i++) {
		const uint8_t *tcp = segs[i] + 34;
		uint32_t seq = (uint32_t)tcp[4] << 24 | tcp[5] << 16 |
			       tcp[6] << 8 | tcp[7];

		CHECK_EQ(seg_len[i], 54 + (i < 2 ? 1000 : 500));
		snic_pkt_parse(segs[i], seg_len[i], true, &pi);
		CHECK(pi.tcp && !pi.l3_bad && !pi.l4_bad);
		CHECK_EQ(seq, 0x10000000u + 1000 * i);
		CHECK_EQ(tcp[13] & 0x09, i == 2 ? 0x09 : 0);	/* FIN|PSH last */
		CHECK(!memcmp(segs[i] + 54, f + 54 + 1000 * i, i < 2 ? 1000 : 500));
	}
	/* Not TCP: refused. */
	n = build(f, 0, 100, 1, 2, 3, 4);
	CHECK_EQ(snic_tso(f, n, 1000, buf, collect, NULL), -1);
}

int main(void)
{
	RUN("unit/snic_pkt", parse_udp_and_checksums);
	RUN("unit/snic_pkt", malformed_ipv4_rejected);
	RUN("unit/snic_pkt", toeplitz_ms_vectors);
	RUN("unit/snic_pkt", tso_segments);
	return check_failures ? 1 : 0;
}
