/*
 * snic device tier, Ethernet: offloads - TX checksums, TSO, RX checksum verification (counted
 * before steering).
 * The environment (two snics, the wire socket, queues, frames) is
 * snic_eth_env.h's; the tests are device/snic_eth/<name>.
 */
#include "snic_eth_env.h"

/* Send @f with checksum flags @cs; return what B received in @got. */
static bool csum_round(struct snic_sq *sq, struct snic_cq *tcq, struct snic_cq *rcq,
		       struct snic_rq *rq, const uint8_t *f, size_t len, uint8_t cs,
		       uint8_t *got, struct snic_cqe *e)
{
	struct txo o = { .opcode = SNIC_WQE_ETH_SEND, .cs = cs,
			 .inl = ETH_HLEN + IP_HLEN + UDP_HLEN, .nseg = 1 };

	sq_send_o(sq, f, len, &o);
	if (!cq_poll(rcq, e) || e->opcode != SNIC_CQE_RX ||
	    e->byte_cnt != len)
		return false;
	qt_memread(qt, snic_rq_buf(rq, e->wqe_counter), got, len);
	return cq_empty(tcq);	/* unsignaled */
}

static void checksum_offload(void)
{
	struct snic_cq tcq, rcq;
	struct snic_sq sq;
	struct snic_rq rq;
	struct snic_cqe e;
	struct snic_port_stats sa0, sa, sb0, sb;
	struct flow udp = {
		.sip = IP4(192, 168, 1, 1), .dip = IP4(192, 168, 1, 2),
		.sport = 5353, .dport = 9999, .proto = 17, .ip_id = 77,
	};
	struct flow tcp = {
		.sip = IP4(172, 16, 0, 1), .dip = IP4(172, 16, 0, 2),
		.sport = 40000, .dport = 443, .proto = 6, .seq = 0xdeadbeef,
	};
	uint8_t f[2048], want[2048], got[2048];
	const size_t uoff = ETH_HLEN + IP_HLEN + 6;	/* UDP checksum */
	const size_t toff = ETH_HLEN + IP_HLEN + 16;	/* TCP checksum */
	size_t len, plen;
	uint16_t x;

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK(rx_setup(B, &rcq, &rq, 32));
	CHECK(pstats(A, &sa0));
	CHECK(pstats(B, &sb0));

	/* 1. UDP, both checksums left zero, L3|L4: the device fills them */
	len = mk_raw(f, &udp, 333, 1);
	memcpy(want, f, len);
	fill_csum(want);
	CHECK(csum_round(&sq, &tcq, &rcq, &rq, f, len,
			 SNIC_ETH_CS_L3 | SNIC_ETH_CS_L4, got, &e));
	CHECK(ip_ok(got));
	CHECK(l4_ok(got));
	CHECK(!memcmp(got, want, len));
	CHECK_EQ(e.flags & (RX_OK_FLAGS | RX_BAD_FLAGS), RX_OK_FLAGS);

	/* 2. TCP, same */
	len = mk_raw(f, &tcp, 1000, 2);
	memcpy(want, f, len);
	fill_csum(want);
	CHECK(csum_round(&sq, &tcq, &rcq, &rq, f, len,
			 SNIC_ETH_CS_L3 | SNIC_ETH_CS_L4, got, &e));
	CHECK(ip_ok(got));
	CHECK(l4_ok(got));
	CHECK(!memcmp(got, want, len));
	CHECK_EQ(e.flags & (RX_OK_FLAGS | RX_BAD_FLAGS), RX_OK_FLAGS);

	/* 3. a UDP datagram whose checksum computes to 0 goes out as 0xffff */
	plen = 100;
	len = mk_raw(f, &udp, plen, 3);
	put16(f + ETH_HLEN + 10, ~fold(sum16(0, f + ETH_HLEN, IP_HLEN)));
	put16(f + len - 2, 0);
	x = fold(sum16(pseudo(f + ETH_HLEN, UDP_HLEN + plen),
		       f + ETH_HLEN + IP_HLEN, UDP_HLEN + plen));
	put16(f + len - 2, ~x);
	CHECK(csum_round(&sq, &tcq, &rcq, &rq, f, len, SNIC_ETH_CS_L4, got,
			 &e));
	CHECK_EQ(get16(got + uoff), 0xffff);
	CHECK(l4_ok(got));
	CHECK(!memcmp(got, f, uoff));
	CHECK_EQ(e.flags & (RX_OK_FLAGS | RX_BAD_FLAGS), RX_OK_FLAGS);

	/* 4. no offload, zero IP checksum: B flags L3_BAD, never L3_OK */
	len = mk_raw(f, &udp, 200, 4);
	CHECK(csum_round(&sq, &tcq, &rcq, &rq, f, len, 0, got, &e));
	CHECK(!memcmp(got, f, len));
	CHECK(e.flags & SNIC_CQE_F_L3_BAD);
	CHECK(!(e.flags & SNIC_CQE_F_L3_OK));

	/* 5. good IP, corrupted UDP checksum: L3_OK, L4_BAD */
	len = mk_frame(f, &udp, 200, 5);
	f[uoff] ^= 0x55;
	CHECK(csum_round(&sq, &tcq, &rcq, &rq, f, len, 0, got, &e));
	CHECK(!memcmp(got, f, len));
	CHECK_EQ(e.flags & (RX_OK_FLAGS | RX_BAD_FLAGS),
		 SNIC_CQE_F_IPV4 | SNIC_CQE_F_L3_OK | SNIC_CQE_F_L4_BAD);

	/* 6. good IP, corrupted TCP checksum */
	len = mk_frame(f, &tcp, 200, 6);
	f[toff + 1] ^= 0x01;
	CHECK(csum_round(&sq, &tcq, &rcq, &rq, f, len, 0, got, &e));
	CHECK_EQ(e.flags & (RX_OK_FLAGS | RX_BAD_FLAGS),
		 SNIC_CQE_F_IPV4 | SNIC_CQE_F_L3_OK | SNIC_CQE_F_L4_BAD);

	/* 7. L3 only: IP checksum filled, TCP checksum left as it was (0) */
	len = mk_raw(f, &tcp, 64, 7);
	CHECK(csum_round(&sq, &tcq, &rcq, &rq, f, len, SNIC_ETH_CS_L3, got,
			 &e));
	CHECK(ip_ok(got));
	CHECK_EQ(get16(got + toff), 0);
	CHECK_EQ(e.flags & (RX_OK_FLAGS | RX_BAD_FLAGS),
		 SNIC_CQE_F_IPV4 | SNIC_CQE_F_L3_OK | SNIC_CQE_F_L4_BAD);

	/* 8. L4 only: TCP checksum filled, IP checksum left wrong (0) */
	len = mk_raw(f, &tcp, 64, 8);
	CHECK(csum_round(&sq, &tcq, &rcq, &rq, f, len, SNIC_ETH_CS_L4, got,
			 &e));
	CHECK_EQ(get16(got + ETH_HLEN + 10), 0);
	CHECK(l4_ok(got));
	CHECK(e.flags & SNIC_CQE_F_L3_BAD);

	CHECK(pstats(A, &sa));
	CHECK(pstats(B, &sb));
	CHECK_EQ(sa.tx_csum - sa0.tx_csum, 5);
	CHECK_EQ(sb.rx_bad_l3 - sb0.rx_bad_l3, 2);
	CHECK_EQ(sb.rx_bad_l4 - sb0.rx_bad_l4, 3);
	CHECK(sb.rx_csum_ok - sb0.rx_csum_ok >= 3);
	CHECK(sb.rx_csum_ok - sb0.rx_csum_ok <= 6);
}

/*
 * Check segment @i of @nseg of a TSO of template @hdr (54 bytes) with
 * payload @pl, @mss: lengths, id, seq, flags, checksums, payload.
 */
static bool tso_seg_ok(const uint8_t *g, size_t glen, const uint8_t *hdr,
		       const uint8_t *pl, size_t plen, size_t mss, int i,
		       int nseg, char *why)
{
	size_t off = (size_t)i * mss;
	size_t n = plen - off < mss ? plen - off : mss;
	uint8_t fl = hdr[ETH_HLEN + IP_HLEN + 13], want_fl = fl;
	const uint8_t *ip = g + ETH_HLEN, *th = ip + IP_HLEN;

	if (i != nseg - 1)
		want_fl &= ~(TCP_FIN | TCP_PSH);
	if (i != 0)
		want_fl &= ~TCP_CWR;
	if (glen != 54 + n)
		return sprintf(why, "seg %d len %zu want %zu", i, glen, 54 + n),
		       false;
	if (memcmp(g, hdr, ETH_HLEN + 2))
		return sprintf(why, "seg %d eth/ip hdr", i), false;
	if (get16(ip + 2) != IP_HLEN + TCP_HLEN + n)
		return sprintf(why, "seg %d tot_len %u", i, get16(ip + 2)),
		       false;
	if (get16(ip + 4) != (uint16_t)(get16(hdr + ETH_HLEN + 4) + i))
		return sprintf(why, "seg %d ip id %#x", i, get16(ip + 4)),
		       false;
	if (memcmp(ip + 6, hdr + ETH_HLEN + 6, 4) ||
	    memcmp(ip + 12, hdr + ETH_HLEN + 12, 8))
		return sprintf(why, "seg %d ip fields", i), false;
	if (get32(th + 4) !=
	    (uint32_t)(get32(hdr + ETH_HLEN + IP_HLEN + 4) + off))
		return sprintf(why, "seg %d seq %#x", i, get32(th + 4)), false;
	if (th[13] != want_fl)
		return sprintf(why, "seg %d tcp flags %#x want %#x", i, th[13],
			       want_fl), false;
	if (memcmp(th, hdr + ETH_HLEN + IP_HLEN, 4) ||
	    memcmp(th + 8, hdr + ETH_HLEN + IP_HLEN + 8, 5) ||
	    memcmp(th + 14, hdr + ETH_HLEN + IP_HLEN + 14, 2))
		return sprintf(why, "seg %d tcp fields", i), false;
	if (!ip_ok(g) || !l4_ok(g))
		return sprintf(why, "seg %d checksum", i), false;
	if (memcmp(th + TCP_HLEN, pl + off, n))
		return sprintf(why, "seg %d payload", i), false;
	return true;
}

#define CHECK_SEG(g, glen, hdr, pl, plen, mss, i, nseg) do {		\
	char _why[128] = "";						\
	if (!tso_seg_ok(g, glen, hdr, pl, plen, mss, i, nseg, _why)) {	\
		check_fail(__FILE__, __LINE__, "TSO %s", _why);		\
		return;							\
	}								\
} while (0)

static void tso(void)
{
	static uint8_t f[70000], g[4096];
	struct snic_cq tcq, rcq;
	struct snic_sq sq;
	struct snic_rq rq;
	struct snic_cqe e;
	struct snic_port_stats s0, s;
	struct flow tcp = {
		.sip = IP4(10, 9, 8, 7), .dip = IP4(10, 9, 8, 6),
		.sport = 5001, .dport = 5002, .proto = 6, .seq = 0xfffff000,
		.ip_id = 0xfffe,
		.tcp_flags = TCP_ACK | TCP_PSH | TCP_FIN | TCP_CWR,
	};
	struct txo o = { .opcode = SNIC_WQE_ETH_TSO,
			 .flags = SNIC_WQE_F_SIGNAL,
			 .cs = SNIC_ETH_CS_L3 | SNIC_ETH_CS_L4,
			 .inl = 54, .nseg = 2 };
	const size_t hl = ETH_HLEN + IP_HLEN + TCP_HLEN;
	size_t len, plen;
	uint16_t w;
	int i, n;

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK(rx_setup(B, &rcq, &rq, 32));
	CHECK(pstats(A, &s0));

	/* 3500 bytes, mss 1000: 1000, 1000, 1000, 500; seq wraps */
	plen = 3500;
	len = mk_raw(f, &tcp, plen, 11);
	o.mss = 1000;
	w = sq_send_o(&sq, f, len, &o);
	CHECK(cq_poll(&tcq, &e));
	CHECK_EQ(e.opcode, SNIC_CQE_TX);
	CHECK_EQ(e.syndrome, 0);
	CHECK_EQ(e.wqe_counter, w);
	CHECK_EQ(e.segs, 4);
	CHECK_EQ(e.byte_cnt, 4 * hl + plen);
	for (i = 0; i < 4; i++) {
		CHECK(cq_poll(&rcq, &e));
		CHECK_EQ(e.opcode, SNIC_CQE_RX);
		CHECK_EQ(e.flags & (RX_OK_FLAGS | RX_BAD_FLAGS | SNIC_CQE_F_TCP),
			 RX_OK_FLAGS | SNIC_CQE_F_TCP);
		qt_memread(qt, snic_rq_buf(&rq, e.wqe_counter), g, e.byte_cnt);
		CHECK_SEG(g, e.byte_cnt, f, f + hl, plen, 1000, i, 4);
		n = cap_recv(g, sizeof(g), 1000);
		CHECK(n > 0);
		CHECK_SEG(g, (size_t)n, f, f + hl, plen, 1000, i, 4);
	}
	CHECK(cq_empty(&rcq));

	/* 2500 bytes in one segment, mss 1200, no checksum flags: a TSO
	 * fills checksums anyway */
	tcp.seq = 1;
	tcp.ip_id = 100;
	plen = 2500;
	len = mk_raw(f, &tcp, plen, 12);
	o.mss = 1200;
	o.cs = 0;
	o.nseg = 1;
	sq_send_o(&sq, f, len, &o);
	CHECK(cq_poll(&tcq, &e));
	CHECK_EQ(e.segs, 3);
	CHECK_EQ(e.byte_cnt, 3 * hl + plen);
	for (i = 0; i < 3; i++) {
		CHECK(cq_poll(&rcq, &e));
		qt_memread(qt, snic_rq_buf(&rq, e.wqe_counter), g, e.byte_cnt);
		CHECK_SEG(g, e.byte_cnt, f, f + hl, plen, 1200, i, 3);
	}

	/* payload below mss: one segment keeping every flag */
	plen = 700;
	len = mk_raw(f, &tcp, plen, 13);
	o.mss = 1000;
	o.cs = SNIC_ETH_CS_L3 | SNIC_ETH_CS_L4;
	sq_send_o(&sq, f, len, &o);
	CHECK(cq_poll(&tcq, &e));
	CHECK_EQ(e.segs, 1);
	CHECK(cq_poll(&rcq, &e));
	qt_memread(qt, snic_rq_buf(&rq, e.wqe_counter), g, e.byte_cnt);
	CHECK_SEG(g, e.byte_cnt, f, f + hl, plen, 1000, 0, 1);

	/* the largest IPv4 template (total length 65535), mss 1460: 45 */
	tcp.seq = 777;
	plen = 65535 - IP_HLEN - TCP_HLEN;
	len = mk_raw(f, &tcp, plen, 14);
	o.mss = 1460;
	o.nseg = 2;
	snic_rq_post(&rq, 24, true);
	sq_send_o(&sq, f, len, &o);
	CHECK(cq_poll(&tcq, &e));
	CHECK_EQ(e.opcode, SNIC_CQE_TX);
	CHECK_EQ(e.segs, (plen + 1459) / 1460);
	for (i = 0; i < 45; i++) {
		CHECK(cq_poll(&rcq, &e));
		qt_memread(qt, snic_rq_buf(&rq, e.wqe_counter), g, e.byte_cnt);
		CHECK_SEG(g, e.byte_cnt, f, f + hl, plen, 1460, i, 45);
	}
	cap_drain();

	CHECK(pstats(A, &s));
	CHECK_EQ(s.tx_tso_frames - s0.tx_tso_frames, 4);
	CHECK_EQ(s.tx_tso_segs - s0.tx_tso_segs, 4 + 3 + 1 + 45);
}

/*
 * Step 3 of the receive pipeline (checksum verdicts and their counters)
 * comes before step 4 (steering): frames that a rule drops, or that no
 * rule takes, are still checked and counted.
 */
static void rx_csum_counted_before_steering(void)
{
	struct snic_steer_rule r = { .match = SNIC_MATCH_DMAC,
				     .priority = 1, .dest = SNIC_DEST_DROP };
	struct flow udp = { .sip = IP4(10, 0, 0, 1), .dip = IP4(10, 0, 0, 2),
			    .sport = 7, .dport = 6666, .proto = 17 };
	struct snic_port_stats s0, s;
	struct snic_cqe e;
	uint8_t f[512];
	size_t len;

	CHECK(fx_setup(1));
	memcpy(r.dmac, mac_b, 6);
	CHECK_EQ(rule_add(B, &r, NULL), OK);
	CHECK(pstats(B, &s0));
	/* dropped by the rule: bad IP checksum, bad UDP checksum */
	len = mk_frame(f, &udp, 100, 1);
	f[ETH_HLEN + 10] ^= 0x40;
	CHECK_EQ(deliver(f, len, &e), -1);
	len = mk_frame(f, &udp, 100, 2);
	f[len - 1] ^= 0x40;
	CHECK_EQ(deliver(f, len, &e), -1);
	/* no rule takes a broadcast */
	udp.dmac = mac_bcast;
	len = mk_frame(f, &udp, 100, 3);
	f[len - 1] ^= 0x40;
	CHECK_EQ(deliver(f, len, &e), -1);
	CHECK(pstats(B, &s));
	CHECK_EQ(s.rx_rule_drop - s0.rx_rule_drop, 2);
	CHECK_EQ(s.rx_no_dest - s0.rx_no_dest, 1);
	CHECK_EQ(s.rx_bad_l3 - s0.rx_bad_l3, 1);
	CHECK_EQ(s.rx_bad_l4 - s0.rx_bad_l4, 2);
}

int main(void)
{
	RUN("device/snic_eth", checksum_offload);
	RUN("device/snic_eth", tso);
	RUN("device/snic_eth", rx_csum_counted_before_steering);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
