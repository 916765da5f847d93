/*
 * snic RoCEv2 wire helpers (qemu-devices/snic/snic-roce.c): header layout
 * per opcode, ICRC against an independent bit-by-bit CRC-32 over the masked
 * pseudo-header of IBA Annex A17 (as Linux rdma_rxe computes it), and
 * rejection of malformed or corrupted packets.
 */
#include <stdlib.h>
#include "../lib/check.h"
#include "snic/snic-pkt.h"
#include "snic/snic-roce.h"

/* Reflected CRC-32 (poly 0xedb88320), all-ones start, no final xor. */
static uint32_t crc_raw(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
	}
	return crc;
}

/* The ICRC of frame @f (@len bytes, ICRC included), computed here. */
static uint32_t ref_icrc(const uint8_t *f, size_t len)
{
	uint8_t m[4096 + 256], ones[8];
	size_t n = len - 14 - 4;

	memcpy(m, f + 14, n);
	m[1] = 0xff;			/* TOS */
	m[8] = 0xff;			/* TTL */
	m[10] = m[11] = 0xff;		/* IP checksum */
	m[26] = m[27] = 0xff;		/* UDP checksum */
	m[32] = 0xff;			/* BTH resv8a (FECN, BECN) */
	memset(ones, 0xff, 8);
	return ~crc_raw(crc_raw(0xffffffffu, ones, 8), m, n);
}

static uint32_t wire_icrc(const uint8_t *f, size_t len)
{
	const uint8_t *p = f + len - 4;

	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static size_t mk(uint8_t *f, uint8_t opcode, size_t paylen)
{
	SnicRoceHdr h = {
		.dmac = { 0x52, 0x54, 0, 0, 0, 2 },
		.smac = { 0x52, 0x54, 0, 0, 0, 1 },
		.sip = 0x0a000001, .dip = 0x0a000002, .ttl = 64, .tos = 0x12,
		.sport = 0xc123, .opcode = opcode, .dqpn = 0x12, .psn = 0xabcdef,
		.ackreq = true, .va = 0x1122334455667788ull, .rkey = 0x1234,
		.dlen = 3000, .syndrome = 0x1f, .msn = 7, .swap_add = 5,
		.compare = 6, .orig = 9, .imm = 0xdeadbeef, .ieth = 0x4321,
		.qkey = 0x80010000, .sqpn = 1, .xrc_srqn = 0x345678,
	};
	size_t off = snic_roce_build(f, &h, paylen);

	for (size_t i = 0; i < paylen; i++)
		f[off + i] = i * 7;
	return snic_roce_finish(f, &h, paylen);
}

static void icrc_matches_reference(void)
{
	static const uint8_t ops[] = {
		ROCE_SEND_ONLY, ROCE_SEND_ONLY_IMM, ROCE_WRITE_ONLY_IMM,
		ROCE_READ_REQ, ROCE_READ_RESP_FIRST, ROCE_ACK, ROCE_ATOMIC_ACK,
		ROCE_CMP_SWAP, ROCE_SEND_ONLY_INV, ROCE_UD_SEND_ONLY_IMM,
	};
	uint8_t f[4400];

	for (size_t i = 0; i < sizeof(ops); i++) {
		uint32_t fl = snic_roce_opflags(ops[i]);
		size_t pl = (fl & ROCE_F_PAYLOAD) ? 1 + i * 37 : 0;
		size_t len = mk(f, ops[i], pl);

		CHECK(fl);
		CHECK_EQ(wire_icrc(f, len), ref_icrc(f, len));
		CHECK_EQ(len, 14 + 20 + 8 + snic_roce_hdr_len(fl) + pl +
			 ((4 - pl % 4) % 4) + 4);
		/* the IPv4 header checksum is valid */
		CHECK_EQ(d2d_csum_fold(d2d_csum_partial(0, f + 14, 20)), 0);
	}
}

static void masked_fields_ignored(void)
{
	uint8_t f[512];
	size_t len = mk(f, ROCE_SEND_ONLY, 100);
	SnicRoceHdr h;

	/* TTL, TOS (with the IP checksum fixed up), UDP checksum, FECN/BECN */
	f[14 + 8] = 3;
	f[14 + 1] = 0x55;
	f[14 + 10] = f[14 + 11] = 0;
	d2d_wr16(f + 14 + 10, d2d_csum_fold(d2d_csum_partial(0, f + 14, 20)));
	f[14 + 20 + 6] = 0x12;
	f[42 + 4] = 0xc0;
	CHECK_EQ(snic_roce_parse(f, len, &h), ROCE_OK);
	/* ... but the PSN is covered */
	f[42 + 11] ^= 1;
	CHECK_EQ(snic_roce_parse(f, len, &h), ROCE_BAD_ICRC);
}

static void parse_round_trip(void)
{
	uint8_t f[4400];
	size_t len = mk(f, ROCE_WRITE_ONLY_IMM, 4096);
	SnicRoceHdr h;

	CHECK_EQ(snic_roce_parse(f, len, &h), ROCE_OK);
	CHECK_EQ(h.opcode, ROCE_WRITE_ONLY_IMM);
	CHECK_EQ(h.dqpn, 0x12);
	CHECK_EQ(h.psn, 0xabcdef);
	CHECK(h.ackreq);
	CHECK_EQ(h.va, 0x1122334455667788ull);
	CHECK_EQ(h.rkey, 0x1234);
	CHECK_EQ(h.dlen, 3000);
	CHECK_EQ(h.imm, 0xdeadbeef);
	CHECK_EQ(h.paylen, 4096);
	CHECK_EQ(h.payload[5], 35);
	/* RETH right after BTH, ImmDt after RETH (offsets of the wire) */
	CHECK_EQ(d2d_rd32(f + 42 + 12 + 8), 0x1234);
	CHECK_EQ(d2d_rd32(f + 42 + 12 + 16), 0xdeadbeef);

	len = mk(f, ROCE_ATOMIC_ACK, 0);
	CHECK_EQ(snic_roce_parse(f, len, &h), ROCE_OK);
	CHECK_EQ(h.syndrome, 0x1f);
	CHECK_EQ(h.msn, 7);
	CHECK_EQ(h.orig, 9);
	len = mk(f, ROCE_CMP_SWAP, 0);
	CHECK_EQ(snic_roce_parse(f, len, &h), ROCE_OK);
	CHECK_EQ(h.swap_add, 5);
	CHECK_EQ(h.compare, 6);
	len = mk(f, ROCE_UD_SEND_ONLY, 3);
	CHECK_EQ(snic_roce_parse(f, len, &h), ROCE_OK);
	CHECK_EQ(h.qkey, 0x80010000u);
	CHECK_EQ(h.sqpn, 1);
	CHECK_EQ(h.pad, 1);
	CHECK_EQ(h.paylen, 3);
}

static void malformed_rejected(void)
{
	uint8_t f[600], g[600];
	size_t len = mk(f, ROCE_SEND_ONLY, 64), l;
	SnicRoceHdr h;

	for (l = 0; l < len; l++)
		CHECK(snic_roce_parse(f, l, &h) != ROCE_OK);
	memcpy(g, f, len);
	g[42] = 0x15;		/* reserved opcode */
	CHECK_EQ(snic_roce_parse(g, len, &h), ROCE_MALFORMED);
	memcpy(g, f, len);
	g[14 + 3] += 1;		/* IP length without checksum fix */
	CHECK_EQ(snic_roce_parse(g, len, &h), ROCE_MALFORMED);
	memcpy(g, f, len);
	g[len - 10] ^= 0x40;	/* payload bit */
	CHECK_EQ(snic_roce_parse(g, len, &h), ROCE_BAD_ICRC);
	memcpy(g, f, len);
	g[14 + 20 + 3] = 0x35;	/* another UDP port: not RoCE */
	CHECK_EQ(snic_roce_parse(g, len, &h), ROCE_NOT_ROCE);
	/* an ACK with payload bytes it cannot carry */
	l = mk(g, ROCE_ACK, 0);
	CHECK_EQ(snic_roce_parse(g, l, &h), ROCE_OK);
	CHECK_EQ(snic_psn_diff(1, 0xffffff), 2);
	CHECK_EQ(snic_psn_diff(0xfffffe, 3), -5);
	srand(3);
	for (int i = 0; i < 20000; i++) {
		memcpy(g, f, len);
		for (int k = 0; k < 1 + rand() % 4; k++)
			g[rand() % len] = rand();
		l = rand() % 8 ? len : (size_t)(rand() % len);
		snic_roce_parse(g, l, &h);	/* must not crash */
		if (snic_roce_parse(g, l, &h) == ROCE_OK)
			CHECK(h.payload + h.paylen <= g + l);
	}
}

/*
 * RoCEv2 CNP (IBA Annex A17.9.3): BTH opcode 0x81, 16 reserved bytes,
 * ICRC; no payload, and one with bytes it cannot carry is malformed.
 */
static void cnp_format(void)
{
	uint8_t f[200];
	size_t len = mk(f, ROCE_CNP, 0);
	SnicRoceHdr h;

	CHECK_EQ(len, 14 + 20 + 8 + 12 + 16 + 4);
	CHECK_EQ(f[42], 0x81);
	CHECK_EQ(snic_roce_opflags(ROCE_CNP), ROCE_F_CNP);
	CHECK_EQ(snic_roce_parse(f, len, &h), ROCE_OK);
	CHECK_EQ(h.opcode, ROCE_CNP);
	CHECK_EQ(h.dqpn, 0x12);
	CHECK_EQ(h.paylen, 0);
	CHECK_EQ(wire_icrc(f, len), ref_icrc(f, len));
	for (size_t i = 0; i < 16; i++)
		CHECK_EQ(f[54 + i], 0);
	/* a CNP four bytes too long (UDP and IP lengths and ICRC right) */
	{
		SnicRoceHdr c = h;
		size_t off;

		c.opcode = ROCE_SEND_ONLY;
		off = snic_roce_build(f, &c, 20);
		memset(f + off, 0, 20);
		len = snic_roce_finish(f, &c, 20);
		f[42] = ROCE_CNP;
		CHECK(snic_roce_parse(f, len, &h) != ROCE_OK);
	}
}

/* UC (class 0x20): the RC SEND/WRITE operations with ROCE_F_UC. */
static void uc_opcodes(void)
{
	for (unsigned int op = 0x20; op < 0x40; op++) {
		uint32_t rc = snic_roce_opflags(op & 0x1f);

		if (op <= 0x2b) {
			CHECK(rc & (ROCE_F_SEND | ROCE_F_WRITE));
			CHECK_EQ(snic_roce_opflags(op), rc | ROCE_F_UC);
		} else {
			CHECK_EQ(snic_roce_opflags(op), 0);
		}
	}
}

/*
 * XRC (0xa0 | an RC operation): the RC headers, requests with the XRCETH
 * (24-bit SRQ number) right after the BTH, responses without it.
 */
static void xrc_opcodes(void)
{
	uint8_t f[4400];
	SnicRoceHdr h;
	size_t len;

	for (unsigned int op = 0xa0; op < 0xc0; op++) {
		uint32_t rc = snic_roce_opflags(op & 0x1f);

		if (op <= 0xb7 && rc) {
			CHECK_EQ(snic_roce_opflags(op), rc | ROCE_F_XRC |
				 ((rc & ROCE_F_REQ) ? ROCE_F_XRCETH : 0));
		} else {
			CHECK_EQ(snic_roce_opflags(op), 0);
		}
	}
	len = mk(f, 0xa0 | ROCE_WRITE_ONLY_IMM, 100);
	CHECK_EQ(snic_roce_parse(f, len, &h), ROCE_OK);
	CHECK_EQ(h.xrc_srqn, 0x345678);
	CHECK_EQ(h.rkey, 0x1234);
	CHECK_EQ(h.imm, 0xdeadbeef);
	CHECK_EQ(h.paylen, 100);
	/* XRCETH (reserved byte, SRQ), then RETH */
	CHECK_EQ(d2d_rd32(f + 42 + 12), 0x345678);
	CHECK_EQ(d2d_rd32(f + 42 + 16 + 8), 0x1234);
	len = mk(f, 0xa0 | ROCE_ACK, 0);
	CHECK_EQ(snic_roce_parse(f, len, &h), ROCE_OK);
	CHECK_EQ(h.xrc_srqn, 0);
	CHECK_EQ(h.msn, 7);
	CHECK_EQ(len, 14 + 20 + 8 + 12 + 4 + 4);
}

/*
 * ICRC of a RoCEv2 frame over IPv6 (@len bytes, ICRC included), computed
 * here: 8 bytes of ones, the IPv6 header with traffic class, flow label
 * and hop limit set to ones (the version nibble kept), the UDP header
 * with its checksum set to ones, the BTH with resv8a set to ones, the rest.
 */
static uint32_t ref_icrc6(const uint8_t *f, size_t len)
{
	uint8_t m[4096 + 256], ones[8];
	size_t n = len - 14 - 4;

	memcpy(m, f + 14, n);
	m[0] |= 0x0f;			/* traffic class, high nibble */
	m[1] = m[2] = m[3] = 0xff;	/* traffic class low nibble, flow label */
	m[7] = 0xff;			/* hop limit */
	m[46] = m[47] = 0xff;		/* UDP checksum */
	m[52] = 0xff;			/* BTH resv8a */
	memset(ones, 0xff, 8);
	return ~crc_raw(crc_raw(0xffffffffu, ones, 8), m, n);
}

/* A RoCEv2 SEND ONLY over IPv6 written byte by byte: @paylen bytes. */
static size_t mk6_raw(uint8_t *f, size_t paylen)
{
	static const uint8_t sip[16] = { 0xfe, 0x80, [8] = 0x50, 0x54, 0, 0xff,
					 0xfe, 0, 0, 1 };
	static const uint8_t dip[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
	size_t udp_len = 8 + 12 + paylen + (4 - paylen % 4) % 4 + 4, i;
	uint32_t icrc;

	memset(f, 0, 14 + 40 + udp_len);
	memcpy(f, (uint8_t[]){ 0x52, 0x54, 0, 0, 0, 2 }, 6);
	memcpy(f + 6, (uint8_t[]){ 0x52, 0x54, 0, 0, 0, 1 }, 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	f[14] = 0x61;			/* version 6, traffic class 0x12 */
	f[15] = 0x2a;			/* flow label 0xa5678 */
	f[16] = 0x56;
	f[17] = 0x78;
	d2d_wr16(f + 18, udp_len);
	f[20] = 17;			/* UDP */
	f[21] = 64;
	memcpy(f + 22, sip, 16);
	memcpy(f + 38, dip, 16);
	d2d_wr16(f + 54, 0xc001);
	d2d_wr16(f + 56, 4791);
	d2d_wr16(f + 58, udp_len);
	f[62] = ROCE_SEND_ONLY;
	f[63] = ((4 - paylen % 4) % 4) << 4;
	f[64] = f[65] = 0xff;
	d2d_wr32(f + 66, 0x34);
	d2d_wr32(f + 70, 0x80000000u | 0x123456);
	for (i = 0; i < paylen; i++)
		f[74 + i] = i * 3;
	icrc = ref_icrc6(f, 14 + 40 + udp_len);
	memcpy(f + 14 + 40 + udp_len - 4,
	       (uint8_t[]){ icrc, icrc >> 8, icrc >> 16, icrc >> 24 }, 4);
	return 14 + 40 + udp_len;
}

/* RoCEv2 over IPv6: parse a frame written here, ICRC included. */
static void ipv6_parse(void)
{
	uint8_t f[600], g[600];
	size_t len = mk6_raw(f, 33), l;
	SnicRoceHdr h;

	CHECK_EQ(snic_roce_parse(f, len, &h), ROCE_OK);
	CHECK(h.v6);
	CHECK(!memcmp(h.sip6, f + 22, 16));
	CHECK(!memcmp(h.dip6, f + 38, 16));
	CHECK_EQ(h.tos, 0x12);
	CHECK_EQ(h.ttl, 64);
	CHECK_EQ(h.sport, 0xc001);
	CHECK_EQ(h.opcode, ROCE_SEND_ONLY);
	CHECK_EQ(h.dqpn, 0x34);
	CHECK_EQ(h.psn, 0x123456);
	CHECK_EQ(h.paylen, 33);
	CHECK_EQ(h.payload[4], 12);
	CHECK(h.ip == f + 14);
	/* traffic class, flow label, hop limit, UDP checksum: masked */
	memcpy(g, f, len);
	g[14] = 0x6f;
	g[15] = g[16] = g[17] = 0x33;
	g[21] = 1;
	g[60] = 0x12;
	CHECK_EQ(snic_roce_parse(g, len, &h), ROCE_OK);
	/* addresses and payload length are not */
	memcpy(g, f, len);
	g[53] ^= 1;
	CHECK_EQ(snic_roce_parse(g, len, &h), ROCE_BAD_ICRC);
	memcpy(g, f, len);
	g[20] = 6;			/* TCP: not RoCE */
	CHECK_EQ(snic_roce_parse(g, len, &h), ROCE_NOT_ROCE);
	memcpy(g, f, len);
	g[19] += 4;			/* payload length beyond the frame */
	CHECK_EQ(snic_roce_parse(g, len, &h), ROCE_MALFORMED);
	for (l = 0; l < len; l++)
		CHECK(snic_roce_parse(f, l, &h) != ROCE_OK);
}

/* Frames the builder makes over IPv6 parse back, with the ICRC of here. */
static void ipv6_build(void)
{
	uint8_t f[4400];
	SnicRoceHdr h = {
		.dmac = { 0x52, 0x54, 0, 0, 0, 2 },
		.smac = { 0x52, 0x54, 0, 0, 0, 1 },
		.v6 = true, .sip6 = { 0xfe, 0x80, [15] = 1 },
		.dip6 = { 0xfe, 0x80, [15] = 2 }, .flow = 0x12345,
		.ttl = 9, .tos = 0x4a, .sport = 0xc777,
		.opcode = ROCE_WRITE_ONLY_IMM, .dqpn = 0x99, .psn = 0x10,
		.va = 0x1000, .rkey = 0x77, .dlen = 1500, .imm = 0x11223344,
	};
	SnicRoceHdr r;
	size_t off = snic_roce_build(f, &h, 1500), len;

	CHECK_EQ(off, 14 + 40 + 8 + 12 + 16 + 4);
	memset(f + off, 0x5a, 1500);
	len = snic_roce_finish(f, &h, 1500);
	CHECK_EQ(len, off + 1500 + 4);
	CHECK_EQ(f[12] << 8 | f[13], 0x86dd);
	CHECK_EQ(f[14], 0x64);			/* version 6, TC 0x4a */
	CHECK_EQ(f[15], 0xa1);			/* TC low, flow label */
	CHECK_EQ(f[16] << 8 | f[17], 0x2345);
	CHECK_EQ(f[18] << 8 | f[19], len - 14 - 40);
	CHECK_EQ(f[20], 17);
	CHECK_EQ(f[21], 9);
	CHECK_EQ(f[56] << 8 | f[57], 4791);
	CHECK_EQ(wire_icrc(f, len), ref_icrc6(f, len));
	CHECK_EQ(snic_roce_parse(f, len, &r), ROCE_OK);
	CHECK(r.v6);
	CHECK(!memcmp(r.dip6, h.dip6, 16));
	CHECK_EQ(r.imm, 0x11223344);
	CHECK_EQ(r.paylen, 1500);
}

int main(void)
{
	RUN("unit/snic_roce", icrc_matches_reference);
	RUN("unit/snic_roce", masked_fields_ignored);
	RUN("unit/snic_roce", parse_round_trip);
	RUN("unit/snic_roce", malformed_rejected);
	RUN("unit/snic_roce", cnp_format);
	RUN("unit/snic_roce", uc_opcodes);
	RUN("unit/snic_roce", xrc_opcodes);
	RUN("unit/snic_roce", ipv6_parse);
	RUN("unit/snic_roce", ipv6_build);
	return check_failures ? 1 : 0;
}
