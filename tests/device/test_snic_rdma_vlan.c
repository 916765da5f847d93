/*
 * snic device tier: RoCE over a VLAN on the two-snic RDMA environment -
 * an RC pair whose AVs have SNIC_AV_F_VLAN sends 802.1Q-tagged frames
 * (TCI = the AV's vlan_tci: PCP and VID, ACKs too) and takes only frames
 * of its VLAN from its path (untagged or another VID: rx_bad_src); a user
 * UD QP sends on the VLAN of its source address table entry (SET_SRC_ADDR
 * with SNIC_SRC_F_VLAN) and a datagram is taken only for an address of
 * the port on the frame's VLAN, reported in the CQE (SNIC_CQE_RF_VLAN).
 * docs/snic-rdma.md "Wire format".
 */
#include <arpa/inet.h>
#include <string.h>
#include "../lib/check.h"
#include "snic_rdma_env.h"

#define VID	100
#define TCI	(3u << 13 | VID)	/* PCP 3 */

/* RESET..RTS of the RC pair (sa on A, sb on B) on VLAN VID. */
static bool vlan_pair_up(void)
{
	struct qp *q[2] = { &sa.qp, &sb.qp };
	struct snic_qp_attr a;
	int i;

	if (!side_make(&sa, A, SNIC_QPT_RC) || !side_make(&sb, B, SNIC_QPT_RC))
		return false;
	for (i = 0; i < 2; i++) {
		memset(&a, 0, sizeof(a));
		a.access = ALL_ACCESS;
		if (qp_state(q[i], SNIC_QPS_INIT, SNIC_QP_ATTR_PKEY_INDEX |
			     SNIC_QP_ATTR_ACCESS, &a) != OK)
			return false;
		memset(&a, 0, sizeof(a));
		av_fill(&a.av, q[i]->d);
		a.av.flags = SNIC_AV_F_VLAN;
		a.av.vlan_tci = TCI;
		a.path_mtu = SNIC_MTU_1024;
		a.dest_qpn = q[1 - i]->qpn;
		a.rq_psn = i ? 100 : 5000;
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 1;
		if (qp_state(q[i], SNIC_QPS_RTR, SNIC_QP_ATTR_AV |
			     SNIC_QP_ATTR_PATH_MTU | SNIC_QP_ATTR_DEST_QPN |
			     SNIC_QP_ATTR_RQ_PSN | SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC |
			     SNIC_QP_ATTR_MIN_RNR_TIMER, &a) != OK)
			return false;
		memset(&a, 0, sizeof(a));
		a.sq_psn = i ? 5000 : 100;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 4;
		if (qp_state(q[i], SNIC_QPS_RTS, SNIC_QP_ATTR_SQ_PSN |
			     SNIC_QP_ATTR_TIMEOUT | SNIC_QP_ATTR_RETRY_CNT |
			     SNIC_QP_ATTR_RNR_RETRY | SNIC_QP_ATTR_MAX_RD_ATOMIC,
			     &a) != OK)
			return false;
	}
	return true;
}

/* Insert an 802.1Q tag with @tci into frame @f of *@len bytes. */
static void tag(uint8_t *f, size_t *len, uint16_t tci)
{
	memmove(f + 16, f + 12, *len - 12);
	f[12] = 0x81;
	f[13] = 0x00;
	f[14] = tci >> 8;
	f[15] = tci & 0xff;
	*len += 4;
}

/* Untag a captured frame in place: the RoCE frame the ICRC covers. */
static size_t untag(uint8_t *f, size_t len)
{
	memmove(f + 12, f + 16, len - 16);
	return len - 4;
}

static void rc_over_vlan(void)
{
	static uint8_t src[3000], dst[3000];
	struct snic_rdma_stats s0, s1;
	struct snic_cqe e;
	struct wqe w;
	uint8_t f[2048];
	int i, n, data = 0, acks = 0;
	uint16_t idx;
	size_t len;

	CHECK(env_start());
	CHECK(vlan_pair_up());
	fill(src, sizeof(src), 71);
	mr_write(&sa.mr, 0, src, sizeof(src));
	qp_recv(&sb.qp, 0x71, 5000, sb.mr.key, sb.mr.iova);
	CHECK(rstats(B, &s0));
	cap_drain();
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, sizeof(src), sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	for (i = 0; i < 200 && !snic_cq_peek(&sa.scq, &e, 1); i++)
		qt_readl(qt, A->bar0 + SNIC_REG_ID);
	while ((n = cap_recv(f, sizeof(f), 200)) > 0) {
		uint32_t wire;

		CHECK_EQ(f[12] << 8 | f[13], 0x8100);
		CHECK_EQ(f[14] << 8 | f[15], TCI);
		CHECK_EQ(f[16] << 8 | f[17], 0x0800);
		n = untag(f, n);
		wire = f[n - 4] | f[n - 3] << 8 | f[n - 2] << 16 |
		       (uint32_t)f[n - 1] << 24;
		CHECK_EQ(wire, icrc_of(f, n));
		if (f[42] == 0x11)
			acks++;
		else
			data++;
	}
	CHECK_EQ(data, 3);
	CHECK(acks >= 1);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, sizeof(src), &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.byte_cnt, sizeof(src));
	mr_read(&sb.mr, 0, dst, sizeof(dst));
	CHECK(!memcmp(dst, src, sizeof(src)));
	CHECK(rstats(B, &s1));
	CHECK_EQ(s1.rx_vlan_pkts - s0.rx_vlan_pkts, 3);
	CHECK_EQ(s1.rx_bad_src - s0.rx_bad_src, 0);
	/* from its path but untagged, or on another VLAN: dropped */
	qp_recv(&sb.qp, 0x72, 100, sb.mr.key, sb.mr.iova);
	len = mk_req(f, 0x04, sb.qp.qpn, 103, 8);
	CHECK(inj_send(f, len));
	tag(f, &len, 3u << 13 | 200);
	CHECK(inj_send(f, len));
	/* the same on VLAN VID is taken */
	len = mk_req(f, 0x04, sb.qp.qpn, 103, 8);
	tag(f, &len, VID);
	CHECK(inj_send(f, len));
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.cookie, 0x72);
	CHECK_EQ(e.byte_cnt, 8);
	CHECK(rstats(B, &s0));
	CHECK_EQ(s0.rx_bad_src - s1.rx_bad_src, 2);
	/* a VID beyond 4094 is refused */
	{
		struct snic_qp_attr a;

		memset(&a, 0, sizeof(a));
		av_fill(&a.av, A);
		a.av.flags = SNIC_AV_F_VLAN;
		a.av.vlan_tci = 0xfff;
		a.mask = SNIC_QP_ATTR_AV;
		CHECK_EQ(snic_rdma_modify_qp(A, sa.qp.qpn, &a),
			 SNIC_AQ_EINVAL_PARAM);
	}
}

static void ud_over_vlan(void)
{
	struct snic_rdma_stats s0, s1;
	struct snic_wqe_ud ud;
	struct side ua, ub;
	struct snic_cqe e;
	struct wqe w;
	uint8_t f[2048];
	int n, frames = 0;
	uint16_t idx;
	size_t len;

	CHECK(env_start());
	CHECK(side_make(&ua, A, SNIC_QPT_UD));
	CHECK(side_make(&ub, B, SNIC_QPT_UD));
	CHECK(qp_ud_up(&ua.qp, 0x1234));
	CHECK(qp_ud_up(&ub.qp, 0x5678));
	CHECK_EQ(src_addr_set_vlan(A, 2, mac_a, ip_a, VID), OK);
	/* a datagram on VLAN VID while B has no address there: dropped */
	qp_recv(&ub.qp, 0x81, 2000, ub.mr.key, ub.mr.iova);
	CHECK(rstats(B, &s0));
	memset(&ud, 0, sizeof(ud));
	av_fill(&ud.av, A);
	ud.av.sgid_index = 2;
	ud.av.flags = SNIC_AV_F_VLAN;
	ud.av.vlan_tci = 5u << 13 | 7;	/* the table's VID replaces 7 */
	ud.dest_qpn = ub.qp.qpn;
	ud.qkey = 0x5678;
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_seg(&w, &ud, sizeof(ud));
	w_data(&w, 64, ua.mr.key, ua.mr.iova);
	cap_drain();
	idx = qp_post(&ua.qp, &w);
	CHECK_REQ(&ua.scq, idx, SNIC_WQE_SEND, 64, &e);
	while ((n = cap_recv(f, sizeof(f), 200)) > 0) {
		frames++;
		CHECK_EQ(f[12] << 8 | f[13], 0x8100);
		CHECK_EQ(f[14] << 8 | f[15], 5u << 13 | VID);
	}
	CHECK_EQ(frames, 1);
	pump(50);
	CHECK(cq_empty(&ub.rcq));
	CHECK(rstats(B, &s1));
	CHECK_EQ(s1.rx_bad_src - s0.rx_bad_src, 1);
	/* with B's address on VLAN VID it is taken and reported */
	CHECK_EQ(src_addr_set_vlan(B, 3, mac_b, ip_b, VID), OK);
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_seg(&w, &ud, sizeof(ud));
	w_data(&w, 64, ua.mr.key, ua.mr.iova);
	idx = qp_post(&ua.qp, &w);
	CHECK_REQ(&ua.scq, idx, SNIC_WQE_SEND, 64, &e);
	CHECK(cq_wait(&ub.rcq, &e, 0));
	CHECK_EQ(e.cookie, 0x81);
	CHECK_EQ(e.byte_cnt, 40 + 64);
	CHECK(e.rdma_flags & SNIC_CQE_RF_VLAN);
	CHECK_EQ(e.vlan_tci, 5u << 13 | VID);
	CHECK(rstats(B, &s0));
	CHECK_EQ(s0.rx_vlan_pkts - s1.rx_vlan_pkts, 1);
	/* a bad VLAN id in SET_SRC_ADDR */
	CHECK_EQ(src_addr_set_vlan(A, 4, mac_a, ip_a, 4095), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(src_addr_set_vlan(A, 4, mac_a, ip_a, 0), SNIC_AQ_EINVAL_PARAM);
	/* an untagged IPv4 datagram needs no table entry (as before) */
	qp_recv(&ub.qp, 0x82, 2000, ub.mr.key, ub.mr.iova);
	len = mk_req(f, 0x64, ub.qp.qpn, 0, 8);
	*(uint32_t *)(f + 54) = htonl(0x5678);	/* DETH qkey */
	fix_icrc(f, len);
	CHECK(inj_send(f, len));
	CHECK(cq_wait(&ub.rcq, &e, 0));
	CHECK_EQ(e.cookie, 0x82);
	CHECK(!(e.rdma_flags & SNIC_CQE_RF_VLAN));
}

int main(void)
{
	RUN("device/snic_rdma_vlan", rc_over_vlan);
	RUN("device/snic_rdma_vlan", ud_over_vlan);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
