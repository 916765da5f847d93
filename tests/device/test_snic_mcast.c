/*
 * snic multicast (docs/snic-rdma.md "Multicast"): a UD send to a group's
 * address and QPN 0xffffff reaches every UD QP attached to the group, one
 * copy each; a detached QP gets nothing; destroying a QP leaves its
 * groups; an RC QP, a unicast address and a 65th group are refused; a
 * frame to a group nobody joined is not taken by the RDMA engine.
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

/* A 300-byte UD SEND from ua to @group's MAC and address, completed. */
static bool send_group(uint32_t group)
{
	struct snic_wqe_ud ud;
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	memset(&ud, 0, sizeof(ud));
	av_fill(&ud.av, A);
	ud.av.dmac[0] = 0x01;
	ud.av.dmac[1] = 0x00;
	ud.av.dmac[2] = 0x5e;
	ud.av.dmac[3] = (group >> 16) & 0x7f;
	ud.av.dmac[4] = group >> 8;
	ud.av.dmac[5] = group;
	ud.av.dip = htonl(group);
	ud.dest_qpn = SNIC_MCAST_QPN;
	ud.qkey = QKEY;
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_seg(&w, &ud, sizeof(ud));
	w_data(&w, 300, ua.mr.key, ua.mr.iova);
	idx = qp_post(&ua.qp, &w);
	return cq_wait(&ua.scq, &e, 0) && e.wqe_counter == idx &&
	       e.syndrome == SNIC_RST_OK;
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

int main(void)
{
	RUN("device/snic_mcast", fan_out_and_leave);
	RUN("device/snic_mcast", bad_attach_refused);
	qt_quit(qt);
	return check_failures ? 1 : 0;
}
