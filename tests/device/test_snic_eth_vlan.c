/*
 * snic device tier, Ethernet: 802.1Q offloads (SNIC_CAP_VLAN) - tag
 * insertion from the WQE (SNIC_ETH_F_VLAN, ctrl.vlan_tci), stripping into
 * the CQE (SNIC_PORT_F_VLAN_STRIP, SNIC_CQE_F_VLAN), the SET_VLAN filter
 * table (SNIC_PORT_F_VLAN_FILTER) and their port counters.
 */
#include "snic_eth_env.h"

#define VID_OK		5
#define VID_OFF		7
#define TCI(pcp, vid)	((uint16_t)((pcp) << 13 | (vid)))

static const struct flow udp = {
	.sip = IP4(10, 5, 0, 1), .dip = IP4(10, 5, 0, 2),
	.sport = 4000, .dport = 5000, .proto = 17, .ip_id = 9,
};

/* Send @f from A with @o; B's next RX CQE in @e, its buffer in @got. */
static bool vlan_round(struct snic_sq *sq, struct snic_cq *rcq,
		       struct snic_rq *rq, const uint8_t *f, size_t len,
		       const struct txo *o, struct snic_cqe *e, uint8_t *got,
		       size_t got_len)
{
	sq_send_o(sq, f, len, o);
	if (!cq_poll(rcq, e) || e->opcode != SNIC_CQE_RX)
		return false;
	qt_memread(qt, snic_rq_buf(rq, e->wqe_counter), got, got_len);
	return true;
}

/* @f with the tag @tci after its MAC addresses, in @out. */
static size_t tagged(uint8_t *out, const uint8_t *f, size_t len, uint16_t tci)
{
	memcpy(out, f, 12);
	put16(out + 12, 0x8100);
	put16(out + 14, tci);
	memcpy(out + 16, f + 12, len - 12);
	return len + 4;
}

static int set_vlans(struct snic_dev *d, const int *vids, int n)
{
	struct snic_vlan_table t;
	int i;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < n; i++)
		t.bitmap[vids[i] / 8] |= 1u << (vids[i] % 8);
	return snic_aq_buf(d, SNIC_AQ_SET_VLAN, &t, sizeof(t), sizeof(t), 0, 0,
			   NULL, 0, NULL);
}

static void vlan_caps_and_commands(void)
{
	struct snic_identify_data id;
	struct snic_vlan_table t;

	CHECK(env_start());
	CHECK_EQ(snic_identify(A, &id), OK);
	CHECK(id.caps & SNIC_CAP_VLAN);
	CHECK_EQ(port_default(A, SNIC_PORT_F_UP | SNIC_PORT_F_VLAN_STRIP |
			      SNIC_PORT_F_VLAN_FILTER, MTU), OK);
	CHECK_EQ(set_vlans(A, (int[]){ VID_OK }, 1), OK);
	/* a short table is refused */
	memset(&t, 0, sizeof(t));
	CHECK_EQ(snic_aq_buf(A, SNIC_AQ_SET_VLAN, &t, sizeof(t), 16, 0, 0,
			     NULL, 0, NULL), SNIC_AQ_EINVAL_PARAM);
	/* unknown port flags still are */
	CHECK_EQ(port_default(A, SNIC_PORT_F_UP | (1u << 5), MTU),
		 SNIC_AQ_EINVAL_PARAM);
}

static void vlan_insert(void)
{
	struct txo o = { .opcode = SNIC_WQE_ETH_SEND, .inl = ETH_HLEN,
			 .nseg = 1, .vlan_on = true,
			 .vlan = TCI(3, VID_OK) };
	struct snic_port_stats sa0, sa, sb0, sb;
	uint8_t f[2048], want[2048], got[2048];
	struct snic_cq tcq, rcq;
	struct snic_sq sq;
	struct snic_rq rq;
	struct snic_cqe e;
	size_t len, wlen;

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK(rx_setup(B, &rcq, &rq, 32));
	CHECK(pstats(A, &sa0));
	CHECK(pstats(B, &sb0));

	/* B does not strip: the tag arrives as A's device inserted it */
	len = mk_frame(f, &udp, 200, 1);
	wlen = tagged(want, f, len, TCI(3, VID_OK));
	CHECK(vlan_round(&sq, &rcq, &rq, f, len, &o, &e, got, wlen));
	CHECK_EQ(e.byte_cnt, wlen);
	CHECK(!memcmp(got, want, wlen));
	CHECK_EQ(e.flags & SNIC_CQE_F_VLAN, 0);

	/* MTU + 14 bytes take the tag, one byte more does not */
	o.flags = SNIC_WQE_F_SIGNAL;
	len = mk_frame(f, &udp, MTU - IP_HLEN - UDP_HLEN, 2);
	sq_send_o(&sq, f, len, &o);
	CHECK(cq_poll(&tcq, &e));
	CHECK_EQ(e.opcode, SNIC_CQE_TX);
	CHECK(cq_poll(&rcq, &e));
	CHECK_EQ(e.byte_cnt, len + 4);
	len = mk_frame(f, &udp, MTU - IP_HLEN - UDP_HLEN + 1, 3);
	sq_send_o(&sq, f, len, &o);
	CHECK(cq_poll(&tcq, &e));
	CHECK_EQ(e.opcode, SNIC_CQE_TX_ERR);
	CHECK_EQ(e.syndrome, SNIC_SYND_BAD_LEN);

	CHECK(pstats(A, &sa));
	CHECK(pstats(B, &sb));
	CHECK_EQ(sa.tx_vlan_inserted - sa0.tx_vlan_inserted, 2);
	CHECK_EQ(sb.rx_vlan_stripped - sb0.rx_vlan_stripped, 0);
}

static void vlan_strip_and_filter(void)
{
	struct txo o = { .opcode = SNIC_WQE_ETH_SEND, .inl = ETH_HLEN,
			 .nseg = 1, .vlan_on = true };
	struct snic_port_stats sb0, sb;
	uint8_t f[2048], got[2048];
	struct snic_cq tcq, rcq;
	struct snic_sq sq;
	struct snic_rq rq;
	struct snic_cqe e;
	size_t len;

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK(rx_setup(B, &rcq, &rq, 32));
	CHECK_EQ(port_default(B, SNIC_PORT_F_UP | SNIC_PORT_F_VLAN_STRIP |
			      SNIC_PORT_F_VLAN_FILTER, MTU), OK);
	CHECK_EQ(set_vlans(B, (int[]){ VID_OK, 4095 }, 2), OK);
	CHECK(pstats(B, &sb0));

	/* VLAN 5, priority 6: stripped, the TCI in the CQE */
	len = mk_frame(f, &udp, 300, 3);
	o.vlan = TCI(6, VID_OK);
	CHECK(vlan_round(&sq, &rcq, &rq, f, len, &o, &e, got, len));
	CHECK_EQ(e.byte_cnt, len);
	CHECK(!memcmp(got, f, len));
	CHECK(e.flags & SNIC_CQE_F_VLAN);
	CHECK_EQ(e.vlan_tci, TCI(6, VID_OK));
	CHECK(e.flags & SNIC_CQE_F_L4_OK);	/* parsed after the strip */

	/* VLAN 4095 is in the table too */
	o.vlan = TCI(0, 4095);
	CHECK(vlan_round(&sq, &rcq, &rq, f, len, &o, &e, got, len));
	CHECK_EQ(e.vlan_tci, 4095);

	/* VLAN 7 is not: filtered, counted, no CQE */
	o.vlan = TCI(0, VID_OFF);
	sq_send_o(&sq, f, len, &o);
	settle();
	CHECK(cq_empty(&rcq));

	/* priority-tagged (VID 0) and untagged frames always pass */
	o.vlan = TCI(2, 0);
	CHECK(vlan_round(&sq, &rcq, &rq, f, len, &o, &e, got, len));
	CHECK_EQ(e.vlan_tci, TCI(2, 0));
	o.vlan_on = false;
	CHECK(vlan_round(&sq, &rcq, &rq, f, len, &o, &e, got, len));
	CHECK_EQ(e.flags & SNIC_CQE_F_VLAN, 0);
	CHECK(!memcmp(got, f, len));

	CHECK(pstats(B, &sb));
	CHECK_EQ(sb.rx_vlan_filtered - sb0.rx_vlan_filtered, 1);
	CHECK_EQ(sb.rx_vlan_stripped - sb0.rx_vlan_stripped, 3);

	/* filter off: VLAN 7 gets through (stripped) */
	CHECK_EQ(port_default(B, SNIC_PORT_F_UP | SNIC_PORT_F_VLAN_STRIP, MTU),
		 OK);
	o.vlan_on = true;
	o.vlan = TCI(0, VID_OFF);
	CHECK(vlan_round(&sq, &rcq, &rq, f, len, &o, &e, got, len));
	CHECK_EQ(e.vlan_tci, VID_OFF);
}

int main(void)
{
	RUN("device/snic_eth", vlan_caps_and_commands);
	RUN("device/snic_eth", vlan_insert);
	RUN("device/snic_eth", vlan_strip_and_filter);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
