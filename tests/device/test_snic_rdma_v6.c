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

/*
 * A UD datagram over IPv6 (SEND ONLY + DETH, no payload) from A's MAC to
 * B's QP @dqpn, from @sip to @dip.
 */
static size_t mk_ud6(uint8_t *f, uint32_t dqpn, uint32_t qkey,
		     const uint8_t *sip, const uint8_t *dip)
{
	size_t len = mk_req6(f, dqpn, 0, sip);

	memcpy(f + 38, dip, 16);
	f[62] = 0x64;			/* UD SEND ONLY */
	*(uint32_t *)(f + 74) = htonl(qkey);
	*(uint32_t *)(f + 78) = htonl(0x99);	/* source QP */
	fix_icrc6(f, len);
	return len;
}

/* A UD/GSI send WQE of @len bytes at @off of @m over IPv6 (ud + ud6). */
static uint16_t post_ud6(struct qp *q, const struct mr *m, uint8_t sgid,
			 uint32_t dqpn, uint32_t qkey, const uint8_t *sip6,
			 uint32_t len)
{
	struct snic_wqe_ud u;
	struct snic_wqe_ud6 u6;
	struct wqe w;

	memset(&u, 0, sizeof(u));
	av_fill(&u.av, q->d);
	u.av.sip = u.av.dip = 0;
	u.av.sgid_index = sgid;
	u.av.flags = SNIC_AV_F_IPV6;
	u.dest_qpn = dqpn;
	u.qkey = qkey;
	memcpy(u6.sip6, sip6, 16);
	memcpy(u6.dip6, q->d == A ? ip6_b : ip6_a, 16);
	w_init(&w, SNIC_WQE_SEND_IMM, SNIC_WQE_F_SIGNAL, 0x66);
	w_seg(&w, &u, sizeof(u));
	w_seg(&w, &u6, sizeof(u6));
	w_data(&w, len, m->key, m->iova);
	return qp_post(q, &w);
}

/*
 * UD over IPv6: a user UD QP sends from its IPv6 source table entry (a
 * spoofed sip6 in the WQE is replaced), the frame is IPv6 with a valid
 * ICRC, and the receiver's GRH area is the IPv6 header as received (CQE
 * flag IPV6); a GSI QP likewise.  Refused: an IPv6 AV naming an IPv4
 * entry (tx_bad_src), datagrams to an address that is not the port's or
 * from a multicast, IPv4-mapped or unspecified source (rx_bad_src).
 */
static void ud_over_ipv6(void)
{
	static const uint8_t spoof[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x99 };
	static const uint8_t mcast[16] = { 0xff, 0x02, [15] = 0x01 };
	static const uint8_t mapped[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };
	static const uint8_t unspec[16];
	static uint8_t src[900], dst[1024];
	struct snic_rdma_stats s0, s1;
	struct side ua, ub;
	struct snic_cqe e;
	uint8_t f[2048], hdr[40];
	int n, frames = 0;
	uint16_t idx;
	size_t len;

	CHECK(env_start());
	CHECK(side_make(&ua, A, SNIC_QPT_UD));
	CHECK(side_make(&ub, B, SNIC_QPT_UD));
	CHECK(qp_ud_up(&ua.qp, 0x1234));
	CHECK(qp_ud_up(&ub.qp, 0x5678));
	CHECK_EQ(src_addr_set6(A, 1, mac_a, ip6_a), OK);
	CHECK_EQ(src_addr_set6(B, 1, mac_b, ip6_b), OK);
	fill(src, sizeof(src), 64);
	mr_write(&ua.mr, 0, src, sizeof(src));
	qp_recv(&ub.qp, 0xa6, 2000, ub.mr.key, ub.mr.iova + 64);
	cap_drain();
	idx = post_ud6(&ua.qp, &ua.mr, 1, ub.qp.qpn, 0x5678, spoof,
		       sizeof(src));
	CHECK_REQ(&ua.scq, idx, SNIC_WQE_SEND_IMM, sizeof(src), &e);
	while ((n = cap_recv(f, sizeof(f), 200)) > 0) {
		uint32_t wire = f[n - 4] | f[n - 3] << 8 | f[n - 2] << 16 |
				(uint32_t)f[n - 1] << 24;

		frames++;
		CHECK_EQ(f[12] << 8 | f[13], 0x86dd);
		CHECK_EQ(f[14] >> 4, 6);
		CHECK_EQ(f[20], 17);
		CHECK_EQ(f[18] << 8 | f[19], n - 14 - 40);
		CHECK(!memcmp(f + 22, ip6_a, 16));	/* from the table */
		CHECK(!memcmp(f + 38, ip6_b, 16));
		CHECK_EQ(f[62], 0x65);			/* UD SEND ONLY + imm */
		CHECK_EQ(wire, icrc6_of(f, n));
		memcpy(hdr, f + 14, 40);
	}
	CHECK_EQ(frames, 1);
	CHECK(cq_wait(&ub.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.cookie, 0xa6);
	CHECK_EQ(e.byte_cnt, 40 + sizeof(src));
	CHECK_EQ(e.rdma_flags, SNIC_CQE_RF_GRH | SNIC_CQE_RF_IMM |
		 SNIC_CQE_RF_IPV6);
	CHECK_EQ(e.src_qpn, ua.qp.qpn);
	mr_read(&ub.mr, 64, dst, 40 + sizeof(src));
	CHECK(!memcmp(dst, hdr, 40));		/* the GRH: the IPv6 header */
	CHECK(!memcmp(dst + 40, src, sizeof(src)));
	/* an IPv6 AV naming an IPv4 entry: no source */
	CHECK(rstats(A, &s0));
	idx = post_ud6(&ua.qp, &ua.mr, 0, ub.qp.qpn, 0x5678, ip6_a, 8);
	CHECK(cq_wait(&ua.scq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_QP_OP);
	CHECK(rstats(A, &s1));
	CHECK_EQ(s1.tx_bad_src - s0.tx_bad_src, 1);
	/* received: only to a port address, only from a unicast source */
	qp_recv(&ub.qp, 0xb6, 2000, ub.mr.key, ub.mr.iova + 4096);
	CHECK(rstats(B, &s0));
	len = mk_ud6(f, ub.qp.qpn, 0x5678, ip6_a, spoof);
	CHECK(inj_send(f, len));
	len = mk_ud6(f, ub.qp.qpn, 0x5678, mcast, ip6_b);
	CHECK(inj_send(f, len));
	len = mk_ud6(f, ub.qp.qpn, 0x5678, mapped, ip6_b);
	CHECK(inj_send(f, len));
	len = mk_ud6(f, ub.qp.qpn, 0x5678, unspec, ip6_b);
	CHECK(inj_send(f, len));
	len = mk_ud6(f, ub.qp.qpn, 0x5678, ip6_a, ip6_b);
	CHECK(inj_send(f, len));
	CHECK(cq_wait(&ub.rcq, &e, 0));
	CHECK_EQ(e.cookie, 0xb6);
	CHECK_EQ(e.byte_cnt, 40);
	CHECK_EQ(e.src_qpn, 0x99);
	CHECK(rstats(B, &s1));
	CHECK_EQ(s1.rx_bad_src - s0.rx_bad_src, 4);
	CHECK_EQ(s1.rx_pkts - s0.rx_pkts, 1);
	CHECK(cq_empty(&ub.rcq));
}

/*
 * The UD message limit is the path's: at port MTU 1080 an IPv4 datagram
 * of 1024 bytes fits (1024 + 56 bytes of headers), an IPv6 one does not
 * (1024 + 76): it completes with SNIC_RST_LOC_LEN and nothing is sent;
 * after SQE -> RTS 512 bytes over IPv6 go through.
 */
static void ud_mtu_per_path(void)
{
	static uint8_t src[1024];
	struct snic_rdma_stats s0, s1;
	struct snic_wqe_ud u;
	struct snic_qp_attr a;
	struct side ua, ub;
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	CHECK(env_start());
	CHECK_EQ(snic_set_port(A, SNIC_PORT_F_UP, 1080, &mac_a, 1,
			       SNIC_EQN_NONE), OK);
	CHECK_EQ(snic_set_port(B, SNIC_PORT_F_UP, 1080, &mac_b, 1,
			       SNIC_EQN_NONE), OK);
	CHECK(side_make(&ua, A, SNIC_QPT_UD));
	CHECK(side_make(&ub, B, SNIC_QPT_UD));
	CHECK(qp_ud_up(&ua.qp, 0x1234));
	CHECK(qp_ud_up(&ub.qp, 0x5678));
	CHECK_EQ(src_addr_set(A, 0, true, mac_a, ip_a), OK);
	CHECK_EQ(src_addr_set6(A, 1, mac_a, ip6_a), OK);
	CHECK_EQ(src_addr_set6(B, 1, mac_b, ip6_b), OK);
	fill(src, sizeof(src), 65);
	mr_write(&ua.mr, 0, src, sizeof(src));
	/* IPv4: 1024 bytes fit */
	qp_recv(&ub.qp, 0xc4, 2000, ub.mr.key, ub.mr.iova);
	memset(&u, 0, sizeof(u));
	av_fill(&u.av, A);
	u.dest_qpn = ub.qp.qpn;
	u.qkey = 0x5678;
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_seg(&w, &u, sizeof(u));
	w_data(&w, sizeof(src), ua.mr.key, ua.mr.iova);
	idx = qp_post(&ua.qp, &w);
	CHECK_REQ(&ua.scq, idx, SNIC_WQE_SEND, sizeof(src), &e);
	CHECK(cq_wait(&ub.rcq, &e, 0));
	CHECK_EQ(e.cookie, 0xc4);
	CHECK_EQ(e.byte_cnt, 40 + sizeof(src));
	/* IPv6: 1024 bytes do not; nothing leaves the port */
	CHECK(rstats(A, &s0));
	idx = post_ud6(&ua.qp, &ua.mr, 1, ub.qp.qpn, 0x5678, ip6_a,
		       sizeof(src));
	CHECK(cq_wait(&ua.scq, &e, 0));
	CHECK_EQ(e.wqe_counter, idx);
	CHECK_EQ(e.opcode, SNIC_CQE_REQ_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_LEN);
	CHECK(rstats(A, &s1));
	CHECK_EQ(s1.tx_pkts - s0.tx_pkts, 0);
	/* ... 512 do */
	memset(&a, 0, sizeof(a));
	CHECK_EQ(qp_state(&ua.qp, SNIC_QPS_RTS, 0, &a), OK);
	qp_recv(&ub.qp, 0xc6, 2000, ub.mr.key, ub.mr.iova + 4096);
	idx = post_ud6(&ua.qp, &ua.mr, 1, ub.qp.qpn, 0x5678, ip6_a, 512);
	CHECK_REQ(&ua.scq, idx, SNIC_WQE_SEND_IMM, 512, &e);
	CHECK(cq_wait(&ub.rcq, &e, 0));
	CHECK_EQ(e.cookie, 0xc6);
	CHECK_EQ(e.byte_cnt, 40 + 512);
	CHECK(cq_empty(&ub.rcq));
}

/* The GSI QP (QP1, MADs) over IPv6: the driver's privileged WQE. */
static void gsi_over_ipv6(void)
{
	struct snic_cq ca, cb;
	struct qp ga, gb;
	struct mr ma, mb;
	struct snic_cqe e;
	uint8_t buf[40];
	uint32_t pa, pb;

	CHECK(env_start());
	CHECK_EQ(src_addr_set6(B, 1, mac_b, ip6_b), OK);
	pa = pd_create(A);
	pb = pd_create(B);
	CHECK_EQ(snic_cq_create(&ca, A, 6, SNIC_EQN_NONE, 4), OK);
	CHECK_EQ(snic_cq_create(&cb, B, 6, SNIC_EQN_NONE, 4), OK);
	CHECK_EQ(mr_create(&ma, A, pa, 4096, ALL_ACCESS, 0), OK);
	CHECK_EQ(mr_create(&mb, B, pb, 4096, ALL_ACCESS, 0), OK);
	CHECK_EQ(qp_create_f(&ga, A, SNIC_QPT_GSI, pa, &ca, &ca, -1,
			     SNIC_QP_F_PRIV), OK);
	CHECK_EQ(qp_create(&gb, B, SNIC_QPT_GSI, pb, &cb, &cb, -1), OK);
	CHECK(qp_ud_up(&ga, SNIC_GSI_QKEY));
	CHECK(qp_ud_up(&gb, SNIC_GSI_QKEY));
	qp_recv(&gb, 9, 300, mb.key, mb.iova);
	post_ud6(&ga, &ma, 1, SNIC_GSI_QPN, SNIC_GSI_QKEY, ip6_a, 256);
	CHECK(cq_wait(&ca, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ);
	CHECK(cq_wait(&cb, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.byte_cnt, 296);
	CHECK_EQ(e.src_qpn, 1);
	CHECK(e.rdma_flags & SNIC_CQE_RF_IPV6);
	mr_read(&mb, 0, buf, 40);
	CHECK_EQ(buf[0] >> 4, 6);
	CHECK(!memcmp(buf + 8, ip6_a, 16));	/* the driver's source */
	CHECK(!memcmp(buf + 24, ip6_b, 16));
}

int main(void)
{
	RUN("device/snic_rdma_v6", rc_over_ipv6);
	RUN("device/snic_rdma_v6", uc_over_ipv6);
	RUN("device/snic_rdma_v6", ipv6_source_check);
	RUN("device/snic_rdma_v6", ud_over_ipv6);
	RUN("device/snic_rdma_v6", gsi_over_ipv6);
	RUN("device/snic_rdma_v6", ud_mtu_per_path);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
