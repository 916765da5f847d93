/*
 * snic multicast (docs/snic-rdma.md "Multicast"): a UD send to a group's
 * address and QPN 0xffffff reaches every UD QP attached to the group, one
 * copy each; a detached QP gets nothing; destroying a QP leaves its
 * groups; an RC QP, a unicast address and a 65th group are refused; a
 * frame to a group nobody joined is not taken by the RDMA engine; IPv6
 * groups; a group's datagrams over a VLAN.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include "../lib/check.h"
#include "qtest.h"
#include "snic_rdma_env.h"

#define GROUP	0xef010101u	/* 239.1.1.1 */
#define QKEY	0x5678

static struct side ua, r1, r2;

static int mcast(struct snic_dev *d, uint8_t op, uint32_t qpn, uint32_t group)
{
	struct snic_aq_mcast m = { .qpn = qpn, .group = htonl(group) };

	return snic_aq_cmd(d, op, &m, sizeof(m), NULL);
}

/* A 300-byte UD SEND from ua with @ud (and @u6 over IPv6), completed. */
static bool send_ud(struct snic_wqe_ud *ud, const struct snic_wqe_ud6 *u6)
{
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	ud->dest_qpn = SNIC_MCAST_QPN;
	ud->qkey = QKEY;
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_seg(&w, ud, sizeof(*ud));
	if (u6)
		w_seg(&w, u6, sizeof(*u6));
	w_data(&w, 300, ua.mr.key, ua.mr.iova);
	idx = qp_post(&ua.qp, &w);
	return cq_wait(&ua.scq, &e, 0) && e.wqe_counter == idx &&
	       e.syndrome == SNIC_RST_OK;
}

/* The AV of @group's MAC and address, from source table entry @sgid. */
static void av_group(struct snic_wqe_ud *ud, uint32_t group, uint8_t sgid)
{
	memset(ud, 0, sizeof(*ud));
	av_fill(&ud->av, A);
	ud->av.dmac[0] = 0x01;
	ud->av.dmac[1] = 0x00;
	ud->av.dmac[2] = 0x5e;
	ud->av.dmac[3] = (group >> 16) & 0x7f;
	ud->av.dmac[4] = group >> 8;
	ud->av.dmac[5] = group;
	ud->av.dip = htonl(group);
	ud->av.sgid_index = sgid;
}

/* A 300-byte UD SEND from ua to @group's MAC and address, completed. */
static bool send_group(uint32_t group)
{
	struct snic_wqe_ud ud;

	av_group(&ud, group, 0);
	return send_ud(&ud, NULL);
}

static bool got(struct side *r, uint64_t cookie, const uint8_t *want)
{
	static uint8_t buf[40 + 300];
	struct snic_cqe e;

	if (!cq_wait(&r->rcq, &e, 0) || e.cookie != cookie ||
	    e.byte_cnt != sizeof(buf))
		return false;
	mr_read(&r->mr, 0, buf, sizeof(buf));
	return !memcmp(buf + 40, want, 300);
}

static bool setup(void)
{
	return env_start() && side_make(&ua, A, SNIC_QPT_UD) &&
	       side_make(&r1, B, SNIC_QPT_UD) && side_make(&r2, B, SNIC_QPT_UD) &&
	       qp_ud_up(&ua.qp, QKEY) && qp_ud_up(&r1.qp, QKEY) &&
	       qp_ud_up(&r2.qp, QKEY);
}

static void fan_out_and_leave(void)
{
	static uint8_t src[300];

	CHECK(setup());
	fill(src, sizeof(src), 5);
	mr_write(&ua.mr, 0, src, sizeof(src));
	CHECK_EQ(mcast(B, SNIC_AQ_ATTACH_MCAST, r1.qp.qpn, GROUP), OK);
	CHECK_EQ(mcast(B, SNIC_AQ_ATTACH_MCAST, r2.qp.qpn, GROUP), OK);
	CHECK_EQ(mcast(B, SNIC_AQ_ATTACH_MCAST, r2.qp.qpn, GROUP), OK);
	qp_recv(&r1.qp, 1, 2000, r1.mr.key, r1.mr.iova);
	qp_recv(&r2.qp, 2, 2000, r2.mr.key, r2.mr.iova);
	CHECK(send_group(GROUP));
	CHECK(got(&r1, 1, src));
	CHECK(got(&r2, 2, src));
	/* r2 leaves: only r1 */
	CHECK_EQ(mcast(B, SNIC_AQ_DETACH_MCAST, r2.qp.qpn, GROUP), OK);
	CHECK_EQ(mcast(B, SNIC_AQ_DETACH_MCAST, r2.qp.qpn, GROUP), SNIC_AQ_ENOENT);
	qp_recv(&r1.qp, 3, 2000, r1.mr.key, r1.mr.iova);
	qp_recv(&r2.qp, 4, 2000, r2.mr.key, r2.mr.iova);
	CHECK(send_group(GROUP));
	CHECK(got(&r1, 3, src));
	pump(16);
	CHECK(cq_empty(&r2.rcq));
	/* a group nobody joined: nothing */
	CHECK(send_group(GROUP + 1));
	pump(16);
	CHECK(cq_empty(&r1.rcq));
	/* r1 destroyed: the group is gone, r2 can take its place */
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_QP, r1.qp.qpn), OK);
	CHECK(send_group(GROUP));
	pump(16);
	CHECK(cq_empty(&r2.rcq));
	CHECK_EQ(mcast(B, SNIC_AQ_ATTACH_MCAST, r2.qp.qpn, GROUP), OK);
	CHECK(send_group(GROUP));
	CHECK(got(&r2, 4, src));
}

static void bad_attach_refused(void)
{
	struct side rc;
	uint32_t g;

	CHECK(setup());
	CHECK(side_make(&rc, B, SNIC_QPT_RC));
	CHECK_EQ(mcast(B, SNIC_AQ_ATTACH_MCAST, rc.qp.qpn, GROUP),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(mcast(B, SNIC_AQ_ATTACH_MCAST, r1.qp.qpn, 0x0a000002),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(mcast(B, SNIC_AQ_ATTACH_MCAST, 999, GROUP),
		 SNIC_AQ_EINVAL_PARAM);
	for (g = 0; g < SNIC_MAX_MCAST_GRPS; g++)
		CHECK_EQ(mcast(B, SNIC_AQ_ATTACH_MCAST, r1.qp.qpn, GROUP + g), OK);
	CHECK_EQ(mcast(B, SNIC_AQ_ATTACH_MCAST, r1.qp.qpn, GROUP + g),
		 SNIC_AQ_ENOSPC);
}

static const uint8_t group6[16] = { 0xff, 0x0e, [14] = 0x01, [15] = 0x11 };

static int mcast6(struct snic_dev *d, uint8_t op, uint32_t qpn)
{
	struct snic_aq_mcast m = { .qpn = qpn, .flags = SNIC_MCAST_F_IPV6 };

	memcpy(m.group6, group6, 16);
	return snic_aq_cmd(d, op, &m, sizeof(m), NULL);
}

/* The AV of the IPv6 group's MAC and address, from table entry 1. */
static void av_group6(struct snic_wqe_ud *ud, struct snic_wqe_ud6 *u6)
{
	static const uint8_t mac6[6] = { 0x33, 0x33, 0x00, 0x00, 0x01, 0x11 };

	memset(ud, 0, sizeof(*ud));
	av_fill(&ud->av, A);
	memcpy(ud->av.dmac, mac6, 6);
	ud->av.sip = ud->av.dip = 0;
	ud->av.flags = SNIC_AV_F_IPV6;
	ud->av.sgid_index = 1;
	memcpy(u6->sip6, ip6_a, 16);
	memcpy(u6->dip6, group6, 16);
}

/*
 * An IPv6 group (ff0e::111, MAC 33:33:00:00:01:11): its datagrams reach
 * the attached QP (not counted in rx_bad_src), nothing after it left;
 * not an IPv6 multicast address or unknown flags: refused.
 */
static void ipv6_group(void)
{
	struct snic_aq_mcast m = { .flags = SNIC_MCAST_F_IPV6 };
	static uint8_t src[300];
	struct snic_rdma_stats s0, s1;
	struct snic_wqe_ud6 u6;
	struct snic_wqe_ud ud;

	CHECK(setup());
	fill(src, sizeof(src), 6);
	mr_write(&ua.mr, 0, src, sizeof(src));
	CHECK_EQ(src_addr_set6(A, 1, mac_a, ip6_a), OK);
	CHECK(rstats(B, &s0));
	CHECK_EQ(mcast6(B, SNIC_AQ_ATTACH_MCAST, r1.qp.qpn), OK);
	qp_recv(&r1.qp, 1, 2000, r1.mr.key, r1.mr.iova);
	av_group6(&ud, &u6);
	CHECK(send_ud(&ud, &u6));
	CHECK(got(&r1, 1, src));
	CHECK(rstats(B, &s1));
	CHECK_EQ(s1.rx_bad_src - s0.rx_bad_src, 0);
	CHECK_EQ(mcast6(B, SNIC_AQ_DETACH_MCAST, r1.qp.qpn), OK);
	CHECK_EQ(mcast6(B, SNIC_AQ_DETACH_MCAST, r1.qp.qpn), SNIC_AQ_ENOENT);
	qp_recv(&r1.qp, 3, 2000, r1.mr.key, r1.mr.iova);
	av_group6(&ud, &u6);
	CHECK(send_ud(&ud, &u6));
	pump(16);
	CHECK(cq_empty(&r1.rcq));
	m.qpn = r1.qp.qpn;
	memcpy(m.group6, ip6_b, 16);
	CHECK_EQ(snic_aq_cmd(B, SNIC_AQ_ATTACH_MCAST, &m, sizeof(m), NULL),
		 SNIC_AQ_EINVAL_PARAM);
	m.flags = 0x80;
	m.group = htonl(GROUP);
	CHECK_EQ(snic_aq_cmd(B, SNIC_AQ_ATTACH_MCAST, &m, sizeof(m), NULL),
		 SNIC_AQ_EINVAL_PARAM);
}

/*
 * An IPv4 group's datagram tagged with VLAN 5, on which the receiving
 * port has no address: it reaches the attached QP with SNIC_CQE_RF_VLAN
 * and the tag, counted in rx_vlan_pkts and not in rx_bad_src.
 */
static void vlan_group(void)
{
	static uint8_t src[300];
	struct snic_rdma_stats s0, s1;
	struct snic_wqe_ud ud;
	struct snic_cqe e;

	CHECK(setup());
	fill(src, sizeof(src), 7);
	mr_write(&ua.mr, 0, src, sizeof(src));
	CHECK_EQ(src_addr_set_vlan(A, 2, mac_a, ip_a, 5), OK);
	CHECK(rstats(B, &s0));
	CHECK_EQ(mcast(B, SNIC_AQ_ATTACH_MCAST, r2.qp.qpn, GROUP), OK);
	qp_recv(&r2.qp, 2, 2000, r2.mr.key, r2.mr.iova);
	av_group(&ud, GROUP, 2);
	ud.av.vlan_tci = 3 << 13;	/* PCP 3; the VID is the entry's */
	CHECK(send_ud(&ud, NULL));
	CHECK(cq_wait(&r2.rcq, &e, 0));
	CHECK_EQ(e.cookie, 2);
	CHECK(e.rdma_flags & SNIC_CQE_RF_VLAN);
	CHECK_EQ(e.vlan_tci, 3 << 13 | 5);
	CHECK(rstats(B, &s1));
	CHECK_EQ(s1.rx_bad_src - s0.rx_bad_src, 0);
	CHECK_EQ(s1.rx_vlan_pkts - s0.rx_vlan_pkts, 1);
}

int main(void)
{
	RUN("device/snic_mcast", fan_out_and_leave);
	RUN("device/snic_mcast", bad_attach_refused);
	RUN("device/snic_mcast", ipv6_group);
	RUN("device/snic_mcast", vlan_group);
	qt_quit(qt);
	return check_failures ? 1 : 0;
}
