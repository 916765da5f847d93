/*
 * snic device tier: RoCEv2 over IPv6 on the two-snic RDMA environment -
 * RC and UC QPs whose path is IPv6 (SNIC_AV_F_IPV6, snic_qp_attr's sip6
 * and dip6): SEND, WRITE and READ with the data checked, the frames on
 * the wire (IPv6 header, UDP 4791, an ICRC computed here over the masked
 * IPv6 pseudo-header), the receive side's source check for IPv6 (another
 * source address, an IPv4 frame to an IPv6 QP), and IPv6 refused where it
 * is not supported (a UD WQE, an IPv6 frame to a UD QP).
 * docs/snic-rdma.md "Wire format".
 */
#include <arpa/inet.h>
#include <string.h>
#include "../lib/check.h"
#include "snic_rdma_env.h"

static bool v6_pair_up(uint8_t type)
{
	struct conn c = conn_default;

	c.v6 = true;
	return side_make(&sa, A, type) && side_make(&sb, B, type) &&
	       qp_connect(&sa.qp, &sb.qp, &c, 100, 5000) &&
	       qp_connect(&sb.qp, &sa.qp, &c, 5000, 100);
}

/* The ICRC of an IPv6 RoCE frame, computed here (RoCEv2 Annex A17). */
static uint32_t icrc6_of(const uint8_t *f, size_t len)
{
	uint8_t m[9100], ones[8];
	size_t n = len - 14 - 4;

	memcpy(m, f + 14, n);
	m[0] |= 0x0f;			/* traffic class */
	m[1] = m[2] = m[3] = 0xff;	/* traffic class, flow label */
	m[7] = 0xff;			/* hop limit */
	m[46] = m[47] = 0xff;		/* UDP checksum */
	m[52] = 0xff;			/* BTH resv8a */
	memset(ones, 0xff, 8);
	return ~crc_raw(crc_raw(0xffffffffu, ones, 8), m, n);
}

static void fix_icrc6(uint8_t *f, size_t len)
{
	uint32_t c = icrc6_of(f, len);

	f[len - 4] = c;
	f[len - 3] = c >> 8;
	f[len - 2] = c >> 16;
	f[len - 1] = c >> 24;
}

static uint16_t post(uint8_t op, uint32_t len, uint64_t off, uint64_t roff)
{
	struct wqe w;

	w_init(&w, op, SNIC_WQE_F_SIGNAL, 0);
	if (op != SNIC_WQE_SEND)
		w_raddr(&w, sb.mr.iova + roff, sb.mr.key);
	w_data(&w, len, sa.mr.key, sa.mr.iova + off);
	return qp_post(&sa.qp, &w);
}

static void rc_over_ipv6(void)
{
	static uint8_t src[9000], dst[9000];
	struct snic_rdma_stats st;
	struct snic_qp_attr qa;
	struct snic_cqe e;
	uint8_t f[9100];
	int n, i, data = 0, acks = 0;
	uint16_t idx;

	CHECK(env_start());
	CHECK(v6_pair_up(SNIC_QPT_RC));
	CHECK_EQ(snic_rdma_query_qp(A, sa.qp.qpn, &qa), OK);
	CHECK_EQ(qa.av.flags, SNIC_AV_F_IPV6);
	CHECK(!memcmp(qa.dip6, ip6_b, 16));
	fill(src, sizeof(src), 61);
	mr_write(&sa.mr, 0, src, sizeof(src));
	qp_recv(&sb.qp, 0x61, 5000, sb.mr.key, sb.mr.iova);
	cap_drain();
	idx = post(SNIC_WQE_SEND, 3000, 0, 0);
	for (i = 0; i < 200 && !snic_cq_peek(&sa.scq, &e, 1); i++)
		qt_readl(qt, A->bar0 + SNIC_REG_ID);
	while ((n = cap_recv(f, sizeof(f), 200)) > 0) {
		uint32_t wire = f[n - 4] | f[n - 3] << 8 | f[n - 2] << 16 |
				(uint32_t)f[n - 1] << 24;

		CHECK_EQ(f[12] << 8 | f[13], 0x86dd);
		CHECK_EQ(f[14] >> 4, 6);
		CHECK_EQ(f[20], 17);				/* UDP */
		CHECK_EQ(f[18] << 8 | f[19], n - 14 - 40);	/* payload */
		CHECK_EQ(f[56] << 8 | f[57], 4791);
		CHECK_EQ(wire, icrc6_of(f, n));
		if (f[62] == 0x11) {
			acks++;
			CHECK(!memcmp(f + 22, ip6_b, 16));	/* B to A */
		} else {
			data++;
			CHECK(!memcmp(f + 22, ip6_a, 16));
			CHECK(!memcmp(f + 38, ip6_b, 16));
			CHECK_EQ((f[14] & 0xf) << 4 | f[15] >> 4, 2); /* ECT(0) */
		}
	}
	CHECK_EQ(data, 3);
	CHECK(acks >= 1);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, 3000, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.byte_cnt, 3000);
	mr_read(&sb.mr, 0, dst, 3000);
	CHECK(!memcmp(dst, src, 3000));
	/* WRITE, then READ it back */
	idx = post(SNIC_WQE_RDMA_WRITE, 9000, 0, 20000);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, 9000, &e);
	mr_read(&sb.mr, 20000, dst, 9000);
	CHECK(!memcmp(dst, src, 9000));
	idx = post(SNIC_WQE_RDMA_READ, 9000, 100000, 20000);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_READ, 9000, &e);
	mr_read(&sa.mr, 100000, dst, 9000);
	CHECK(!memcmp(dst, src, 9000));
	CHECK(rstats(B, &st));
	CHECK_EQ(st.rx_bad_src + st.rx_no_qp + st.rx_malformed +
		 st.rx_icrc_errors, 0);
	CHECK(rstats(A, &st));
	CHECK_EQ(st.retransmits, 0);
}

static void uc_over_ipv6(void)
{
	static uint8_t src[5000], dst[5000];
	struct snic_qp_attr qa;
	struct snic_cqe e;
	uint16_t idx;

	CHECK(env_start());
	CHECK(v6_pair_up(SNIC_QPT_UC));
	CHECK_EQ(snic_rdma_query_qp(B, sb.qp.qpn, &qa), OK);
	CHECK_EQ(qa.av.flags, SNIC_AV_F_IPV6);
	CHECK(!memcmp(qa.sip6, ip6_b, 16));
	fill(src, sizeof(src), 62);
	mr_write(&sa.mr, 0, src, sizeof(src));
	qp_recv(&sb.qp, 0x62, 5000, sb.mr.key, sb.mr.iova);
	idx = post(SNIC_WQE_SEND, 5000, 0, 0);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, 5000, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.byte_cnt, 5000);
	mr_read(&sb.mr, 0, dst, 5000);
	CHECK(!memcmp(dst, src, 5000));
}

/* An IPv6 SEND ONLY from A's MAC to B's QP @dqpn, source @sip. */
static size_t mk_req6(uint8_t *f, uint32_t dqpn, uint32_t psn,
		      const uint8_t *sip)
{
	size_t udp_len = 8 + 12 + 8 + 4;

	memset(f, 0, 14 + 40 + udp_len);
	memcpy(f, mac_b, 6);
	memcpy(f + 6, mac_a, 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	f[14] = 0x60;
	f[19] = udp_len;
	f[20] = 17;
	f[21] = 64;
	memcpy(f + 22, sip, 16);
	memcpy(f + 38, ip6_b, 16);
	f[54] = 0xc0;
	f[56] = 4791 >> 8;
	f[57] = 4791 & 0xff;
	f[59] = udp_len;
	f[62] = 0x04;			/* RC SEND ONLY */
	f[64] = f[65] = 0xff;
	*(uint32_t *)(f + 66) = htonl(dqpn);
	*(uint32_t *)(f + 70) = htonl(0x80000000u | psn);
	fix_icrc6(f, 14 + 40 + udp_len);
	return 14 + 40 + udp_len;
}

static void ipv6_source_check(void)
{
	static const uint8_t other[16] = { 0xfe, 0x80, [15] = 0x66 };
	struct snic_rdma_stats s0, s1;
	struct snic_cqe e;
	struct wqe w;
	struct qp ud;
	uint8_t f[256];
	size_t len;

	CHECK(env_start());
	CHECK(v6_pair_up(SNIC_QPT_RC));
	qp_recv(&sb.qp, 0x63, 100, sb.mr.key, sb.mr.iova);
	CHECK(rstats(B, &s0));
	/* from another IPv6 address, and over IPv4 from A's IPv4 address */
	len = mk_req6(f, sb.qp.qpn, 100, other);
	CHECK(inj_send(f, len));
	len = mk_req(f, 0x04, sb.qp.qpn, 100, 8);
	CHECK(inj_send(f, len));
	/* the right source is taken */
	len = mk_req6(f, sb.qp.qpn, 100, ip6_a);
	CHECK(inj_send(f, len));
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.byte_cnt, 8);
	CHECK(rstats(B, &s1));
	CHECK_EQ(s1.rx_bad_src - s0.rx_bad_src, 2);
	CHECK_EQ(s1.rx_pkts - s0.rx_pkts, 1);
	/* a UD QP takes no IPv6 datagram and sends none */
	CHECK_EQ(qp_create(&ud, B, SNIC_QPT_UD, sb.pdn, &sb.scq, &sb.rcq, -1),
		 OK);
	CHECK(qp_ud_up(&ud, 0x1234));
	len = mk_req6(f, ud.qpn, 0, ip6_a);
	f[62] = 0x64;			/* UD SEND ONLY, no DETH: no QP first */
	fix_icrc6(f, len);
	CHECK(inj_send(f, len));
	pump(50);
	CHECK(rstats(B, &s0));
	CHECK_EQ(s0.rx_no_qp - s1.rx_no_qp, 1);
	{
		struct snic_wqe_ud u;

		memset(&u, 0, sizeof(u));
		av_fill(&u.av, B);
		u.av.flags = SNIC_AV_F_IPV6;
		u.dest_qpn = sa.qp.qpn;
		w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
		w_seg(&w, &u, sizeof(u));
		w_data(&w, 8, sb.mr.key, sb.mr.iova);
		qp_post(&ud, &w);
		CHECK(cq_wait(&sb.scq, &e, 0));
		CHECK_EQ(e.opcode, SNIC_CQE_REQ_ERR);
		CHECK_EQ(e.syndrome, SNIC_RST_LOC_QP_OP);
	}
	/* an AV flag the device does not know */
	{
		struct snic_qp_attr a;

		memset(&a, 0, sizeof(a));
		av_fill(&a.av, A);
		a.av.flags = 0x80;
		a.mask = SNIC_QP_ATTR_AV;
		CHECK_EQ(snic_rdma_modify_qp(A, sa.qp.qpn, &a),
			 SNIC_AQ_EINVAL_PARAM);
	}
}

int main(void)
{
	RUN("device/snic_rdma_v6", rc_over_ipv6);
	RUN("device/snic_rdma_v6", uc_over_ipv6);
	RUN("device/snic_rdma_v6", ipv6_source_check);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
