/*
 * snic device tier, Ethernet: receive steering - RSS (Toeplitz, checked against the Microsoft
 * vectors), steering rules, VXLAN decapsulation, MAC filtering and the
 * striding RQ.
 * The environment (two snics, the wire socket, queues, frames) is
 * snic_eth_env.h's; the tests are device/snic_eth/<name>.
 */
#include "snic_eth_env.h"

/* Toeplitz per the Microsoft definition, checked, then the device. */
static void rss_toeplitz(void)
{
	struct snic_cq tcq, rcq;
	struct snic_sq sq;
	struct snic_rq rq[4];
	struct snic_cqe e;
	struct snic_rss_cfg rc;
	uint32_t tbl[8], grp, h, want_rq;
	uint8_t f[512];
	size_t len;
	unsigned int i, used = 0;
	int k, proto;

	/* The reference implementation reproduces the published vectors. */
	for (i = 0; i < ARRAY_SIZE(ms_vec); i++) {
		CHECK_EQ(rss_hash(ms_key, ms_vec[i].sip, ms_vec[i].dip,
				  ms_vec[i].sport, ms_vec[i].dport, true),
			 ms_vec[i].h_l4);
		CHECK_EQ(rss_hash(ms_key, ms_vec[i].sip, ms_vec[i].dip, 0, 0,
				  false), ms_vec[i].h_ip);
	}

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK_EQ(snic_cq_create(&rcq, B, 8, SNIC_EQN_NONE, 1), OK);
	for (k = 0; k < 4; k++) {
		CHECK_EQ(snic_rq_create(&rq[k], B, 4, rcq.n, 1), OK);
		snic_rq_post(&rq[k], 16, true);
	}
	/* indirection: hash & 7 -> rq[(hash & 7) % 4] */
	for (k = 0; k < 8; k++)
		tbl[k] = rq[k & 3].n;
	CHECK_EQ(rss_create(B, ms_key, SNIC_RSS_HASH_IPV4 | SNIC_RSS_HASH_L4,
			    8, tbl, &grp), OK);
	{
		struct snic_steer_rule r = { .priority = 1,
					     .dest = SNIC_DEST_RSS,
					     .dest_id = grp };

		CHECK_EQ(rule_add(B, &r, NULL), OK);
	}

	/* each published tuple, as TCP and as UDP */
	for (proto = 6; proto <= 17; proto += 11) {
		for (i = 0; i < ARRAY_SIZE(ms_vec); i++) {
			struct flow fl = {
				.sip = ms_vec[i].sip, .dip = ms_vec[i].dip,
				.sport = ms_vec[i].sport,
				.dport = ms_vec[i].dport, .proto = proto,
			};

			len = mk_frame(f, &fl, 64 + i, i);
			sq_send(&sq, f, len, false);
			h = ms_vec[i].h_l4;
			want_rq = tbl[h & 7];
			CHECK(cq_poll(&rcq, &e));
			CHECK_EQ(e.opcode, SNIC_CQE_RX);
			CHECK_EQ(e.qn, want_rq);
			CHECK(e.flags & SNIC_CQE_F_HASH);
			CHECK_EQ(e.rss_hash, h);
			for (k = 0; k < 4; k++)
				if (rq[k].n == want_rq)
					break;
			CHECK(k < 4);
			CHECK(buf_eq(&rq[k], &e, f, len));
			used |= 1u << k;
		}
	}
	/* the vectors spread over three different queues */
	CHECK_EQ(used, 0x1 | 0x4 | 0x8);

	/* MODIFY_RSS: addresses only, table of 2 */
	memset(&rc, 0, sizeof(rc));
	memcpy(rc.key, ms_key, sizeof(ms_key));
	rc.hash_fields = SNIC_RSS_HASH_IPV4;
	rc.table_size = 2;
	rc.rqn[0] = rq[3].n;
	rc.rqn[1] = rq[1].n;
	CHECK_EQ(snic_aq_buf(B, SNIC_AQ_MODIFY_RSS, &rc, sizeof(rc),
			     sizeof(rc), grp, 0, NULL, 0, NULL), OK);
	for (i = 0; i < ARRAY_SIZE(ms_vec); i++) {
		struct flow fl = {
			.sip = ms_vec[i].sip, .dip = ms_vec[i].dip,
			.sport = ms_vec[i].sport, .dport = ms_vec[i].dport,
			.proto = 6,
		};

		len = mk_frame(f, &fl, 80, i);
		sq_send(&sq, f, len, false);
		h = ms_vec[i].h_ip;
		CHECK(cq_poll(&rcq, &e));
		CHECK_EQ(e.rss_hash, h);
		CHECK_EQ(e.qn, rc.rqn[h & 1]);
	}
}

static size_t mk_flow(uint8_t *f, const uint8_t *dmac, uint8_t proto,
		      uint32_t sip, uint32_t dip, uint16_t sport,
		      uint16_t dport)
{
	struct flow fl = { .dmac = dmac, .sip = sip, .dip = dip,
			   .sport = sport, .dport = dport, .proto = proto };

	return mk_frame(f, &fl, 100, sport ^ dport);
}

static void steering_rules(void)
{
	const uint32_t ip1 = IP4(10, 0, 0, 1), ip2 = IP4(10, 0, 0, 2);
	struct snic_steer_rule r;
	struct snic_rule_stats rs;
	struct snic_port_stats s0, s;
	struct snic_cqe e;
	uint32_t c, h, h2, rdrop, rdm, id;
	uint8_t f[2048];
	size_t len, l1, l2;

	CHECK(fx_setup(3));
	CHECK(pstats(B, &s0));
	len = mk_flow(f, mac_b, 17, ip1, ip2, 1000, 4000);
	CHECK_EQ(deliver(f, len, &e), -1);		/* no rule at all */
	CHECK_EQ(rule_to_rq(B, 100, fx.rq[0].n, &c), OK);
	CHECK_EQ(deliver(f, len, &e), 0);
	CHECK_EQ(e.flags & SNIC_CQE_F_TAG, 0);

	/* priority: lower value first; equal priority, lower id first */
	CHECK_EQ(rule_to_rq(B, 10, fx.rq[1].n, &h), OK);
	CHECK_EQ(deliver(f, len, &e), 1);
	CHECK_EQ(rule_to_rq(B, 10, fx.rq[2].n, &h2), OK);
	CHECK_EQ(deliver(f, len, &e), h < h2 ? 1 : 2);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DEL_RULE, h < h2 ? h : h2), OK);
	CHECK_EQ(deliver(f, len, &e), h < h2 ? 2 : 1);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DEL_RULE, h < h2 ? h2 : h), OK);
	CHECK_EQ(deliver(f, len, &e), 0);
	/* a low-priority rule added later does not win */
	CHECK_EQ(rule_to_rq(B, 200, fx.rq[2].n, &id), OK);
	CHECK_EQ(deliver(f, len, &e), 0);

	/* destination port + TAG */
	memset(&r, 0, sizeof(r));
	r.match = SNIC_MATCH_DST_PORT;
	r.priority = 5;
	r.dest = SNIC_DEST_RQ;
	r.dest_id = fx.rq[1].n;
	r.actions = SNIC_ACT_TAG;
	r.flow_tag = 0xabc123;
	r.dst_port = htons(5000);
	CHECK_EQ(rule_add(B, &r, NULL), OK);
	len = mk_flow(f, mac_b, 17, ip1, ip2, 1000, 5000);
	CHECK_EQ(deliver(f, len, &e), 1);
	CHECK(e.flags & SNIC_CQE_F_TAG);
	CHECK_EQ(e.flow_tag, 0xabc123);
	len = mk_flow(f, mac_b, 6, ip1, ip2, 1000, 5000);	/* TCP too */
	CHECK_EQ(deliver(f, len, &e), 1);
	len = mk_flow(f, mac_b, 17, ip1, ip2, 1000, 5001);
	CHECK_EQ(deliver(f, len, &e), 0);
	CHECK_EQ(e.flags & SNIC_CQE_F_TAG, 0);

	/* destination IP under mask AND protocol */
	memset(&r, 0, sizeof(r));
	r.match = SNIC_MATCH_DST_IP | SNIC_MATCH_IP_PROTO;
	r.priority = 6;
	r.dest_id = fx.rq[2].n;
	r.dst_ip = htonl(IP4(10, 1, 2, 0));
	r.dst_ip_mask = htonl(0xffffff00);
	r.ip_proto = 6;
	CHECK_EQ(rule_add(B, &r, NULL), OK);
	len = mk_flow(f, mac_b, 6, ip1, IP4(10, 1, 2, 9), 1, 7000);
	CHECK_EQ(deliver(f, len, &e), 2);
	len = mk_flow(f, mac_b, 17, ip1, IP4(10, 1, 2, 9), 1, 7000);
	CHECK_EQ(deliver(f, len, &e), 0);
	len = mk_flow(f, mac_b, 6, ip1, IP4(10, 1, 3, 9), 1, 7000);
	CHECK_EQ(deliver(f, len, &e), 0);

	/* source IP /16 AND source port */
	memset(&r, 0, sizeof(r));
	r.match = SNIC_MATCH_SRC_IP | SNIC_MATCH_SRC_PORT;
	r.priority = 7;
	r.dest_id = fx.rq[1].n;
	r.src_ip = htonl(IP4(10, 7, 0, 0));
	r.src_ip_mask = htonl(0xffff0000);
	r.src_port = htons(1234);
	CHECK_EQ(rule_add(B, &r, NULL), OK);
	len = mk_flow(f, mac_b, 17, IP4(10, 7, 200, 1), ip2, 1234, 80);
	CHECK_EQ(deliver(f, len, &e), 1);
	len = mk_flow(f, mac_b, 17, IP4(10, 7, 200, 1), ip2, 1235, 80);
	CHECK_EQ(deliver(f, len, &e), 0);
	len = mk_flow(f, mac_b, 17, IP4(10, 8, 200, 1), ip2, 1234, 80);
	CHECK_EQ(deliver(f, len, &e), 0);

	/* destination MAC + COUNT */
	memset(&r, 0, sizeof(r));
	r.match = SNIC_MATCH_DMAC;
	r.priority = 8;
	r.dest_id = fx.rq[2].n;
	r.actions = SNIC_ACT_COUNT;
	memcpy(r.dmac, mac_bcast, 6);
	CHECK_EQ(rule_add(B, &r, &rdm), OK);
	l1 = mk_flow(f, mac_bcast, 17, ip1, ip2, 9, 9);
	CHECK_EQ(deliver(f, l1, &e), 2);
	l2 = mk_udp(f, mac_bcast, 777, 9);
	CHECK_EQ(deliver(f, l2, &e), 2);
	len = mk_flow(f, mac_b, 17, ip1, ip2, 9, 9);
	CHECK_EQ(deliver(f, len, &e), 0);
	CHECK_EQ(snic_query_stats(B, SNIC_STATS_RULE, rdm, &rs, sizeof(rs)),
		 OK);
	CHECK_EQ(rs.packets, 2);
	CHECK_EQ(rs.bytes, l1 + l2);

	/* ethertype, on a non-IP frame */
	memset(&r, 0, sizeof(r));
	r.match = SNIC_MATCH_ETHERTYPE;
	r.priority = 9;
	r.dest_id = fx.rq[1].n;
	r.ethertype = htons(0x88b5);
	CHECK_EQ(rule_add(B, &r, NULL), OK);
	memcpy(f, mac_b, 6);
	memcpy(f + 6, mac_a, 6);
	put16(f + 12, 0x88b5);
	memset(f + 14, 0x3c, 100);
	CHECK_EQ(deliver(f, 114, &e), 1);
	CHECK_EQ(e.flags & (SNIC_CQE_F_IPV4 | SNIC_CQE_F_L3_OK |
			    SNIC_CQE_F_L4_OK | SNIC_CQE_F_TCP |
			    SNIC_CQE_F_UDP), 0);

	/* DROP beats everything at priority 1, and counts */
	memset(&r, 0, sizeof(r));
	r.match = SNIC_MATCH_DST_PORT;
	r.priority = 1;
	r.dest = SNIC_DEST_DROP;
	r.actions = SNIC_ACT_COUNT;
	r.dst_port = htons(5000);
	CHECK_EQ(rule_add(B, &r, &rdrop), OK);
	len = mk_flow(f, mac_b, 17, ip1, ip2, 1000, 5000);
	CHECK_EQ(deliver(f, len, &e), -1);
	CHECK_EQ(snic_query_stats(B, SNIC_STATS_RULE, rdrop, &rs, sizeof(rs)),
		 OK);
	CHECK_EQ(rs.packets, 1);
	CHECK_EQ(rs.bytes, len);

	/* without the catch-all (and the low one), no destination */
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DEL_RULE, c), OK);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DEL_RULE, id), OK);
	len = mk_flow(f, mac_b, 17, ip1, ip2, 1000, 4001);
	CHECK_EQ(deliver(f, len, &e), -1);
	CHECK(pstats(B, &s));
	CHECK_EQ(s.rx_rule_drop - s0.rx_rule_drop, 1);
	CHECK_EQ(s.rx_no_dest - s0.rx_no_dest, 2);
}

/* Outer Ethernet/IPv4/UDP(@dport)/VXLAN(@vni) around @in. */
static size_t mk_vxlan(uint8_t *f, uint32_t vni, uint16_t dport,
		       const uint8_t *in, size_t in_len)
{
	struct flow fl = { .sip = IP4(10, 0, 0, 1), .dip = IP4(10, 0, 0, 2),
			   .sport = 40000, .dport = dport, .proto = 17 };
	size_t len = mk_raw(f, &fl, 8 + in_len, 0);
	uint8_t *vx = f + ETH_HLEN + IP_HLEN + UDP_HLEN;

	memset(vx, 0, 8);
	vx[0] = 0x08;
	vx[4] = vni >> 16;
	vx[5] = vni >> 8;
	vx[6] = vni;
	memcpy(vx + 8, in, in_len);
	fill_csum(f);
	return len;
}

static void vxlan_decap(void)
{
	static const uint8_t imac_d[6] = { 0x02, 0, 0, 0, 0, 0x0b };
	static const uint8_t imac_s[6] = { 0x02, 0, 0, 0, 0, 0x0a };
	struct flow ifl = { .dmac = imac_d, .smac = imac_s,
			    .sip = IP4(192, 168, 7, 1),
			    .dip = IP4(192, 168, 7, 2),
			    .sport = 3333, .dport = 4444, .proto = 17 };
	struct snic_steer_rule r;
	struct snic_port_stats s0, s;
	struct snic_rule_stats rs;
	struct snic_cqe e;
	uint8_t in[512], f[600];
	uint32_t rid, grp, tbl[2], h;
	size_t ilen, len;

	CHECK(fx_setup(4));
	CHECK(pstats(B, &s0));
	CHECK_EQ(rule_to_rq(B, 100, fx.rq[0].n, NULL), OK);
	memset(&r, 0, sizeof(r));
	r.match = SNIC_MATCH_VNI;
	r.priority = 1;
	r.dest_id = fx.rq[1].n;
	r.actions = SNIC_ACT_DECAP | SNIC_ACT_TAG | SNIC_ACT_COUNT;
	r.flow_tag = 0x42;
	r.vni = 42;
	CHECK_EQ(rule_add(B, &r, &rid), OK);

	/* VNI 42: the inner frame, byte for byte, flagged DECAP + TAG */
	ilen = mk_frame(in, &ifl, 150, 21);
	len = mk_vxlan(f, 42, SNIC_VXLAN_PORT, in, ilen);
	CHECK_EQ(len, ilen + 50);
	sq_send(&fx.sq, f, len, false);
	CHECK_RX(&fx.rcq, &fx.rq[1], in, ilen, &e);
	CHECK_EQ(e.flags & (SNIC_CQE_F_DECAP | SNIC_CQE_F_TAG | RX_BAD_FLAGS),
		 SNIC_CQE_F_DECAP | SNIC_CQE_F_TAG);
	CHECK_EQ(e.flow_tag, 0x42);
	CHECK_EQ(snic_query_stats(B, SNIC_STATS_RULE, rid, &rs, sizeof(rs)),
		 OK);
	CHECK_EQ(rs.packets, 1);

	/* another VNI, or another UDP port: the outer frame, untouched */
	len = mk_vxlan(f, 43, SNIC_VXLAN_PORT, in, ilen);
	CHECK_EQ(deliver(f, len, &e), 0);
	CHECK_EQ(e.flags & SNIC_CQE_F_DECAP, 0);
	len = mk_vxlan(f, 42, SNIC_VXLAN_PORT + 1, in, ilen);
	CHECK_EQ(deliver(f, len, &e), 0);
	CHECK_EQ(e.flags & SNIC_CQE_F_DECAP, 0);

	/* DECAP to an RSS group: the hash is the inner flow's */
	tbl[0] = fx.rq[2].n;
	tbl[1] = fx.rq[3].n;
	CHECK_EQ(rss_create(B, ms_key, SNIC_RSS_HASH_IPV4 | SNIC_RSS_HASH_L4,
			    2, tbl, &grp), OK);
	r.vni = 0x123456;
	r.dest = SNIC_DEST_RSS;
	r.dest_id = grp;
	r.actions = SNIC_ACT_DECAP;
	CHECK_EQ(rule_add(B, &r, NULL), OK);
	len = mk_vxlan(f, 0x123456, SNIC_VXLAN_PORT, in, ilen);
	h = rss_hash(ms_key, ifl.sip, ifl.dip, ifl.sport, ifl.dport, true);
	sq_send(&fx.sq, f, len, false);
	CHECK_RX(&fx.rcq, &fx.rq[2 + (h & 1)], in, ilen, &e);
	CHECK(e.flags & SNIC_CQE_F_DECAP);
	CHECK(e.flags & SNIC_CQE_F_HASH);
	CHECK_EQ(e.rss_hash, h);
	CHECK_EQ(e.flags & SNIC_CQE_F_TAG, 0);

	CHECK(pstats(B, &s));
	CHECK_EQ(s.rx_decap - s0.rx_decap, 2);
}

static void mac_filter(void)
{
	const uint8_t two[2][6] = {
		{ 0x52, 0x54, 0x00, 0x00, 0x00, 0x02 },
		{ 0x52, 0x54, 0x00, 0x00, 0x00, 0x77 },
	};
	struct snic_port_stats s0, s;
	struct snic_cqe e;
	uint8_t f[512];
	size_t len;

	CHECK(fx_setup(1));
	CHECK_EQ(rule_to_rq(B, 100, fx.rq[0].n, NULL), OK);
	CHECK(pstats(B, &s0));
	len = mk_udp(f, mac_b, 100, 1);
	CHECK_EQ(deliver(f, len, &e), 0);
	len = mk_udp(f, mac_other, 100, 2);
	CHECK_EQ(deliver(f, len, &e), -1);
	len = mk_udp(f, mac_bcast, 100, 3);
	CHECK_EQ(deliver(f, len, &e), 0);
	len = mk_udp(f, mac_mcast, 100, 4);
	CHECK_EQ(deliver(f, len, &e), -1);
	CHECK(pstats(B, &s));
	CHECK_EQ(s.rx_filtered - s0.rx_filtered, 2);

	/* ALLMULTI: any multicast, still no foreign unicast */
	CHECK_EQ(port_default(B, SNIC_PORT_F_UP | SNIC_PORT_F_ALLMULTI, MTU),
		 OK);
	len = mk_udp(f, mac_mcast, 100, 5);
	CHECK_EQ(deliver(f, len, &e), 0);
	len = mk_udp(f, mac_other, 100, 6);
	CHECK_EQ(deliver(f, len, &e), -1);
	/* PROMISC: everything */
	CHECK_EQ(port_default(B, SNIC_PORT_F_UP | SNIC_PORT_F_PROMISC, MTU),
		 OK);
	len = mk_udp(f, mac_other, 100, 7);
	CHECK_EQ(deliver(f, len, &e), 0);
	/* a second configured unicast address, no promisc */
	CHECK_EQ(snic_set_port(B, SNIC_PORT_F_UP, MTU, two, 2, SNIC_EQN_NONE), OK);
	len = mk_udp(f, mac_other, 100, 8);
	CHECK_EQ(deliver(f, len, &e), 0);
	len = mk_udp(f, mac_b, 100, 9);
	CHECK_EQ(deliver(f, len, &e), 0);
	len = mk_udp(f, mac_mcast, 100, 10);
	CHECK_EQ(deliver(f, len, &e), -1);
	CHECK(pstats(B, &s));
	CHECK_EQ(s.rx_filtered - s0.rx_filtered, 4);
}

/* Multi-packet RQ: 16 strides of 64 bytes per descriptor. */
static void striding_rq(void)
{
	/* send (0: none) before looking for the next CQE, and that CQE */
	static const struct {
		size_t send, len;
		uint16_t desc, stride, nstr;
		bool last;
	} step[] = {
		{ 64, 64, 0, 0, 1, false },
		{ 100, 100, 0, 1, 2, false },
		{ 200, 200, 0, 3, 4, false },
		{ 300, 300, 0, 7, 5, false },
		{ 300, 0, 0, 12, 4, true },	/* filler: 300 does not fit */
		{ 0, 300, 1, 0, 5, false },
		{ 700, 700, 1, 5, 11, true },	/* takes the last stride */
		{ 64, 64, 2, 0, 1, false },
		{ 1024, 0, 2, 1, 15, true },	/* filler */
		{ 0, 1024, 3, 0, 16, true },	/* a whole buffer */
	};
	struct snic_cq tcq, rcq;
	struct snic_sq sq;
	struct snic_rq rq;
	struct snic_cqe e;
	uint8_t f[2048], got[2048];
	size_t len = 0;
	unsigned int i;

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK_EQ(snic_cq_create(&rcq, B, 6, SNIC_EQN_NONE, 1), OK);
	CHECK_EQ(snic_rq_create_at(&rq, B, 2, rcq.n, 1, SNIC_RQ_STRIDING, 6, 4,
			      1024, qt_alloc(qt, 64, 64)), OK);
	CHECK_EQ(rule_to_rq(B, 1, rq.n, NULL), OK);
	snic_rq_post(&rq, 4, true);
	for (i = 0; i < ARRAY_SIZE(step); i++) {
		if (step[i].send) {
			len = mk_udp(f, mac_b, step[i].send, i);
			sq_send(&sq, f, len, false);
		}
		CHECK(cq_poll(&rcq, &e));
		CHECK_EQ(e.opcode, SNIC_CQE_RX);
		CHECK_EQ(e.qn, rq.n);
		CHECK_EQ(e.byte_cnt, step[i].len);
		CHECK_EQ(e.wqe_counter, step[i].desc);
		CHECK_EQ(e.stride_idx, step[i].stride);
		CHECK_EQ(e.num_strides, step[i].nstr);
		CHECK_EQ(!!(e.flags & SNIC_CQE_F_MPW_LAST), step[i].last);
		if (step[i].len) {
			qt_memread(qt, snic_rq_buf(&rq, step[i].desc) + 64 * step[i].stride,
			      got, len);
			CHECK(!memcmp(got, f, len));
			CHECK_EQ(e.flags & RX_OK_FLAGS, RX_OK_FLAGS);
		}
	}
	CHECK(cq_empty(&rcq));
}

int main(void)
{
	RUN("device/snic_eth", rss_toeplitz);
	RUN("device/snic_eth", steering_rules);
	RUN("device/snic_eth", vxlan_decap);
	RUN("device/snic_eth", mac_filter);
	RUN("device/snic_eth", striding_rq);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
