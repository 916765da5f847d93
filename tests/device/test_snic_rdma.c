/*
 * snic device tier: the RoCEv2 transport of docs/snic-rdma.md, driven
 * through qtest with no guest.
 *
 * Topology (snic_rdma_env.[ch], shared with test_snic_spin_rdma.c): two
 * snic functions (A, B) on one QEMU hub and a third hub port that is a datagram socket held by this program, which
 * captures every frame (to check ICRCs independently) and injects
 * malformed RoCE frames.  Each test starts a fresh QEMU; the virtual clock
 * only moves when the test steps it (retransmit and RNR timers).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include "../lib/check.h"
#include "snic_rdma_env.h"

/* ------------------------------------------------------------------ */
/* Tests: objects and admin                                            */
/* ------------------------------------------------------------------ */

static void caps_and_objects(void)
{
	struct snic_identify_data id;
	struct snic_qp_attr a;
	struct snic_cq c1;
	struct qp q, g, g2;
	struct mr m;
	uint32_t pdn;

	CHECK(env_start());
	CHECK_EQ(snic_identify(A, &id), OK);
	CHECK(id.caps & SNIC_CAP_RDMA);
	CHECK(snic_rd(A, SNIC_REG_CAPS_LO) & SNIC_CAP_RDMA);
	pdn = pd_create(A);
	CHECK(pdn != ~0u);
	CHECK_EQ(snic_cq_create(&c1, A, 6, SNIC_EQN_NONE, 4), OK);
	CHECK_EQ(mr_create(&m, A, pdn, 10000, ALL_ACCESS, 0x10), OK);
	CHECK(SNIC_KEY_INDEX(m.key) != 0);
	CHECK_EQ(SNIC_KEY_TAG(m.key), 0x5a);
	CHECK_EQ(qp_create(&q, A, SNIC_QPT_RC, pdn, &c1, &c1, -1), OK);
	CHECK(q.qpn >= 2);
	CHECK_EQ(qp_create(&g, A, SNIC_QPT_GSI, pdn, &c1, &c1, -1), OK);
	CHECK_EQ(g.qpn, SNIC_GSI_QPN);
	CHECK_EQ(qp_create(&g2, A, SNIC_QPT_GSI, pdn, &c1, &c1, -1),
		 SNIC_AQ_EBUSY);
	/* in use */
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_PD, pdn), SNIC_AQ_EBUSY);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_CQ, c1.n), SNIC_AQ_EBUSY);
	/* QUERY_QP of a fresh QP */
	CHECK_EQ(snic_rdma_query_qp(A, q.qpn, &a), OK);
	CHECK_EQ(a.state, SNIC_QPS_RESET);
	CHECK_EQ(a.sq_outstanding, 0);
	/* destroy in order */
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_QP, q.qpn), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_QP, q.qpn), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_QP, g.qpn), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_MR, SNIC_KEY_INDEX(m.key)), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_MR, SNIC_KEY_INDEX(m.key)),
		 SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_PD, pdn), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_CQ, c1.n), OK);
}

static void hostile_admin(void)
{
	struct snic_aq_create_qp cq_bad;
	struct snic_mr_cfg mc;
	struct snic_qp_attr a;
	struct snic_cq c1;
	struct qp q;
	uint32_t pdn, key;
	uint64_t r;
	int i;

	CHECK(env_start());
	pdn = pd_create(A);
	CHECK_EQ(snic_cq_create(&c1, A, 6, SNIC_EQN_NONE, 4), OK);
	/* bad ids */
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_PD, 5000), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_QP, 0xffffffff), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_SRQ, 77), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_MR, 0), SNIC_AQ_ENOENT);
	CHECK_EQ(qp_create(&q, A, SNIC_QPT_RC, pdn + 1, &c1, &c1, -1),
		 SNIC_AQ_ENOENT);
	CHECK_EQ(qp_create(&q, A, SNIC_QPT_RC, pdn, &c1, &c1, 3),
		 SNIC_AQ_ENOENT);
	CHECK_EQ(qp_create(&q, A, 9, pdn, &c1, &c1, -1), SNIC_AQ_EINVAL_PARAM);
	memset(&cq_bad, 0, sizeof(cq_bad));
	cq_bad.type = SNIC_QPT_RC;
	cq_bad.sq_log = 20;
	cq_bad.rq_log = 4;
	cq_bad.rq_log_stride = 6;
	cq_bad.pdn = pdn;
	cq_bad.send_cqn = cq_bad.recv_cqn = c1.n;
	cq_bad.srqn = SNIC_SRQN_NONE;
	CHECK_EQ(snic_aq_cmd(A, SNIC_AQ_CREATE_QP, &cq_bad, sizeof(cq_bad), &r),
		 SNIC_AQ_EINVAL_PARAM);
	cq_bad.sq_log = 4;
	cq_bad.sq_addr = UNMAPPED;
	CHECK_EQ(snic_aq_cmd(A, SNIC_AQ_CREATE_QP, &cq_bad, sizeof(cq_bad), &r),
		 SNIC_AQ_EDMA);
	/* MRs: bad page shift, unreachable page list, too many pages */
	memset(&mc, 0, sizeof(mc));
	mc.pdn = pdn;
	mc.length = 4096;
	mc.npages = 1;
	mc.page_shift = 40;
	mc.pas_addr = galloc(64, 64);
	CHECK_EQ(snic_rdma_create_mr(A, &mc, &key), SNIC_AQ_EINVAL_PARAM);
	mc.page_shift = 12;
	mc.length = 8192;
	CHECK_EQ(snic_rdma_create_mr(A, &mc, &key), SNIC_AQ_EINVAL_PARAM);
	mc.length = 4096;
	mc.pas_addr = UNMAPPED;
	CHECK_EQ(snic_rdma_create_mr(A, &mc, &key), SNIC_AQ_EDMA);
	mc.npages = SNIC_MAX_MR_PAGES + 1;
	CHECK_EQ(snic_rdma_create_mr(A, &mc, &key), SNIC_AQ_EINVAL_PARAM);
	mc.npages = 1;
	mc.flags = 0x80;
	CHECK_EQ(snic_rdma_create_mr(A, &mc, &key), SNIC_AQ_EINVAL_PARAM);
	/* state machine */
	CHECK_EQ(qp_create(&q, A, SNIC_QPT_RC, pdn, &c1, &c1, -1), OK);
	memset(&a, 0, sizeof(a));
	CHECK_EQ(qp_state(&q, SNIC_QPS_RTS, 0, &a), SNIC_AQ_ESTATE);
	CHECK_EQ(qp_state(&q, SNIC_QPS_RTR, 0, &a), SNIC_AQ_ESTATE);
	CHECK_EQ(qp_state(&q, SNIC_QPS_SQD, 0, &a), SNIC_AQ_ESTATE);
	/* missing required attributes */
	CHECK_EQ(qp_state(&q, SNIC_QPS_INIT, 0, &a), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(qp_state(&q, SNIC_QPS_INIT, SNIC_QP_ATTR_PKEY_INDEX |
			  SNIC_QP_ATTR_ACCESS, &a), OK);
	CHECK_EQ(qp_query_state(&q), SNIC_QPS_INIT);
	CHECK_EQ(qp_state(&q, SNIC_QPS_RTS, 0, &a), SNIC_AQ_ESTATE);
	CHECK_EQ(qp_state(&q, SNIC_QPS_RTR, SNIC_QP_ATTR_AV, &a),
		 SNIC_AQ_EINVAL_PARAM);
	/* cur_state that does not match */
	a.cur_state = SNIC_QPS_RTS;
	CHECK_EQ(qp_state(&q, SNIC_QPS_INIT, SNIC_QP_ATTR_CUR_STATE, &a),
		 SNIC_AQ_ESTATE);
	/* out of range values */
	a.path_mtu = 9;
	CHECK_EQ(qp_state(&q, SNIC_QPS_INIT, SNIC_QP_ATTR_PATH_MTU, &a),
		 SNIC_AQ_EINVAL_PARAM);
	a.path_mtu = 0;
	a.state = 77;
	a.mask = SNIC_QP_ATTR_STATE;
	CHECK_EQ(snic_rdma_modify_qp(A, q.qpn, &a), SNIC_AQ_EINVAL_PARAM);
	/* short buffer */
	CHECK_EQ(snic_aq_buf(A, SNIC_AQ_MODIFY_QP, &a, sizeof(a), 10, q.qpn, 0,
			     NULL, 0, NULL), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(snic_aq_buf(A, SNIC_AQ_QUERY_QP, NULL, 0, 10, q.qpn, 0,
			     NULL, 0, NULL), SNIC_AQ_EINVAL_PARAM);
	/* PSNs cannot change once the QP runs */
	a.mask = SNIC_QP_ATTR_RQ_PSN;
	a.rq_psn = 1;
	CHECK_EQ(snic_rdma_modify_qp(A, q.qpn, &a), OK);	/* in INIT */
	/* any -> ERR, ERR -> RTS refused, ERR -> RESET -> INIT */
	CHECK_EQ(qp_state(&q, SNIC_QPS_ERR, 0, &a), OK);
	CHECK_EQ(qp_state(&q, SNIC_QPS_RTS, 0, &a), SNIC_AQ_ESTATE);
	CHECK_EQ(qp_state(&q, SNIC_QPS_RESET, 0, &a), OK);
	CHECK_EQ(qp_query_state(&q), SNIC_QPS_RESET);
	/* doorbells for no QP / a foreign page / beyond the ring */
	snic_db(A, 4, SNIC_DB_QP_SQ, 999, 1);
	CHECK_EQ(snic_rd(A, SNIC_REG_ERROR), SNIC_ERR_DB_QUEUE);
	snic_db(A, 9, SNIC_DB_QP_SQ, q.qpn, 1);
	CHECK_EQ(snic_rd(A, SNIC_REG_ERROR), SNIC_ERR_DB_PAGE);
	snic_db(A, 4, SNIC_DB_QP_SQ, q.qpn, 1000);
	CHECK_EQ(snic_rd(A, SNIC_REG_ERROR), SNIC_ERR_DB_RANGE);
	snic_db(A, 4, SNIC_DB_SRQ, 3, 1);
	CHECK_EQ(snic_rd(A, SNIC_REG_ERROR), SNIC_ERR_DB_QUEUE);
	/* random commands in the RDMA opcode range never hurt */
	srand(7);
	for (i = 0; i < 300; i++) {
		struct snic_aq_cmd c;
		unsigned k;

		memset(&c, 0, sizeof(c));
		c.opcode = 0x30 + rand() % 0x20;
		for (k = 0; k < sizeof(c.raw); k++)
			c.raw[k] = rand() % 3 ? 0 : rand();
		if (rand() % 2)
			c.buf.addr = galloc(128, 64);
		c.buf.len = rand() % 200;
		snic_aq_exec(A, &c, NULL);
	}
	CHECK(qt_alive(qt));
	CHECK_EQ(snic_rd(A, SNIC_REG_ID), SNIC_ID_MAGIC);
	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	memset(&a, 0, sizeof(a));
	a.mask = SNIC_QP_ATTR_SQ_PSN;
	CHECK_EQ(snic_rdma_modify_qp(A, sa.qp.qpn, &a), SNIC_AQ_EINVAL_PARAM);
	a.mask = SNIC_QP_ATTR_RQ_PSN | SNIC_QP_ATTR_STATE;
	a.state = SNIC_QPS_RTS;
	CHECK_EQ(snic_rdma_modify_qp(A, sa.qp.qpn, &a), SNIC_AQ_EINVAL_PARAM);
	a.mask = SNIC_QP_ATTR_TIMEOUT | SNIC_QP_ATTR_STATE;
	a.timeout = 9;
	CHECK_EQ(snic_rdma_modify_qp(A, sa.qp.qpn, &a), OK);	/* RTS->RTS */
	CHECK(snic_reset(A));
	CHECK(snic_aq_ready(A, 64));
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_QP, q.qpn), SNIC_AQ_ENOENT);
}

/* ------------------------------------------------------------------ */
/* Tests: data movement                                                */
/* ------------------------------------------------------------------ */

static void rc_send_recv(void)
{
	static uint8_t src[20000], dst[20000];
	struct snic_rdma_stats st;
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	/* SEND: 20000 bytes in 20 packets of MTU 1024 into two receives */
	fill(src, sizeof(src), 1);
	mr_write(&sa.mr, 0, src, sizeof(src));
	qp_recv(&sb.qp, 0x1111, 30000, sb.mr.key, sb.mr.iova + 1000);
	qp_recv(&sb.qp, 0x2222, 100, sb.mr.key, sb.mr.iova + 40000);
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, 15000, sa.mr.key, sa.mr.iova);
	w_data(&w, 5000, sa.mr.key, sa.mr.iova + 15000);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, 20000, &e);
	CHECK_EQ(e.rdma_qpn, sa.qp.qpn);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.syndrome, 0);
	CHECK_EQ(e.cookie, 0x1111);
	CHECK_EQ(e.byte_cnt, 20000);
	CHECK_EQ(e.wqe_opcode, SNIC_WQE_SEND);
	CHECK_EQ(e.wqe_counter, 0);
	CHECK_EQ(e.rdma_flags, 0);
	mr_read(&sb.mr, 1000, dst, sizeof(dst));
	CHECK(!memcmp(src, dst, sizeof(dst)));
	/* SEND with immediate and solicited: 3 bytes */
	w_init(&w, SNIC_WQE_SEND_IMM, SNIC_WQE_F_SIGNAL | SNIC_WQE_F_SOLICITED,
	       0xcafe0001);
	w_data(&w, 3, sa.mr.key, sa.mr.iova + 7);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND_IMM, 3, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.cookie, 0x2222);
	CHECK_EQ(e.byte_cnt, 3);
	CHECK_EQ(e.wqe_opcode, SNIC_WQE_SEND_IMM);
	CHECK_EQ(e.rdma_flags, SNIC_CQE_RF_IMM | SNIC_CQE_RF_SOLICITED);
	CHECK_EQ(ntohl(e.imm), 0xcafe0001);
	CHECK_EQ(e.wqe_counter, 1);
	mr_read(&sb.mr, 40000, dst, 3);
	CHECK(!memcmp(dst, src + 7, 3));
	CHECK(rstats(A, &st));
	CHECK(st.tx_pkts >= 21);
	CHECK(st.rx_acks >= 1);
	CHECK_EQ(st.retransmits, 0);
	CHECK_EQ(st.rx_icrc_errors + st.rx_malformed + st.rx_no_qp, 0);
	CHECK(rstats(B, &st));
	CHECK(st.tx_acks >= 2);
	CHECK(st.tx_acks < 21);		/* coalesced */
	CHECK(cq_empty(&sa.scq));
	CHECK(cq_empty(&sb.rcq));
}

static void ud_send_recv(void)
{
	static uint8_t src[900], dst[1024];
	struct side ua, ub;
	struct snic_wqe_ud ud;
	struct snic_rdma_stats st;
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	CHECK(env_start());
	CHECK(side_make(&ua, A, SNIC_QPT_UD));
	CHECK(side_make(&ub, B, SNIC_QPT_UD));
	CHECK(qp_ud_up(&ua.qp, 0x1234));
	CHECK(qp_ud_up(&ub.qp, 0x5678));
	fill(src, sizeof(src), 3);
	mr_write(&ua.mr, 0, src, sizeof(src));
	qp_recv(&ub.qp, 0xaa, 2000, ub.mr.key, ub.mr.iova + 64);
	memset(&ud, 0, sizeof(ud));
	av_fill(&ud.av, A);
	ud.dest_qpn = ub.qp.qpn;
	ud.qkey = 0x5678;
	w_init(&w, SNIC_WQE_SEND_IMM, SNIC_WQE_F_SIGNAL, 0x77);
	w_seg(&w, &ud, sizeof(ud));
	w_data(&w, sizeof(src), ua.mr.key, ua.mr.iova);
	idx = qp_post(&ua.qp, &w);
	CHECK_REQ(&ua.scq, idx, SNIC_WQE_SEND_IMM, sizeof(src), &e);
	CHECK(cq_wait(&ub.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.cookie, 0xaa);
	CHECK_EQ(e.byte_cnt, 40 + sizeof(src));
	CHECK_EQ(e.rdma_flags, SNIC_CQE_RF_GRH | SNIC_CQE_RF_IMM);
	CHECK_EQ(e.src_qpn, ua.qp.qpn);
	CHECK(!memcmp(e.smac, mac_a, 6));
	CHECK_EQ(ntohl(e.imm), 0x77);
	mr_read(&ub.mr, 64, dst, 40 + sizeof(src));
	{
		static const uint8_t zero[20];

		CHECK(!memcmp(dst, zero, 20));
		CHECK_EQ(dst[20], 0x45);		/* IPv4 header */
		CHECK_EQ(dst[20 + 9], 17);
		CHECK_EQ(ntohl(*(uint32_t *)(dst + 20 + 12)), ip_a);
		CHECK_EQ(ntohl(*(uint32_t *)(dst + 20 + 16)), ip_b);
	}
	CHECK(!memcmp(dst + 40, src, sizeof(src)));
	/* wrong qkey: dropped and counted, the receive stays posted */
	qp_recv(&ub.qp, 0xbb, 2000, ub.mr.key, ub.mr.iova + 4096);
	ud.qkey = 0x1111;
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_seg(&w, &ud, sizeof(ud));
	w_data(&w, 10, ua.mr.key, ua.mr.iova);
	idx = qp_post(&ua.qp, &w);
	CHECK_REQ(&ua.scq, idx, SNIC_WQE_SEND, 10, &e);
	CHECK(cq_empty(&ub.rcq));
	CHECK(rstats(B, &st));
	CHECK_EQ(st.rx_bad_qkey, 1);
	/* qkey with the MSB set: the QP's own qkey is used */
	ud.qkey = 0x80000000;
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_seg(&w, &ud, sizeof(ud));
	w_data(&w, 10, ua.mr.key, ua.mr.iova);
	qp_post(&ua.qp, &w);
	CHECK(cq_wait(&ua.scq, &e, 0));
	CHECK(cq_empty(&ub.rcq));
	CHECK(rstats(B, &st));
	CHECK_EQ(st.rx_bad_qkey, 2);
	/* larger than the path MTU: local length error, QP to SQE */
	ud.qkey = 0x5678;
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_seg(&w, &ud, sizeof(ud));
	w_data(&w, 5000, ua.mr.key, ua.mr.iova);
	idx = qp_post(&ua.qp, &w);
	CHECK(cq_wait(&ua.scq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_LEN);
	CHECK_EQ(e.wqe_counter, idx);
	CHECK_EQ(qp_query_state(&ua.qp), SNIC_QPS_SQE);
	/* SQE -> RTS: sending works again */
	{
		struct snic_qp_attr a;

		memset(&a, 0, sizeof(a));
		CHECK_EQ(qp_state(&ua.qp, SNIC_QPS_RTS, 0, &a), OK);
	}
	qp_recv(&ub.qp, 0xcc, 2000, ub.mr.key, ub.mr.iova + 8192);
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_seg(&w, &ud, sizeof(ud));
	w_data(&w, 1024, ua.mr.key, ua.mr.iova);
	idx = qp_post(&ua.qp, &w);
	CHECK_REQ(&ua.scq, idx, SNIC_WQE_SEND, 1024, &e);
	CHECK(cq_wait(&ub.rcq, &e, 0));
	CHECK_EQ(e.cookie, 0xbb);	/* the WQE left by the bad qkey */
	CHECK_EQ(e.byte_cnt, 40 + 1024);
}

static void gsi_qp(void)
{
	struct snic_cq ca, cb;
	struct qp ga, gb;
	struct mr ma, mb;
	struct snic_wqe_ud ud;
	struct snic_cqe e;
	struct wqe w;
	uint32_t pa, pb;

	CHECK(env_start());
	pa = pd_create(A);
	pb = pd_create(B);
	CHECK_EQ(snic_cq_create(&ca, A, 6, SNIC_EQN_NONE, 4), OK);
	CHECK_EQ(snic_cq_create(&cb, B, 6, SNIC_EQN_NONE, 4), OK);
	CHECK_EQ(mr_create(&ma, A, pa, 4096, ALL_ACCESS, 0), OK);
	CHECK_EQ(mr_create(&mb, B, pb, 4096, ALL_ACCESS, 0), OK);
	CHECK_EQ(qp_create(&ga, A, SNIC_QPT_GSI, pa, &ca, &ca, -1), OK);
	CHECK_EQ(qp_create(&gb, B, SNIC_QPT_GSI, pb, &cb, &cb, -1), OK);
	CHECK_EQ(ga.qpn, 1);
	CHECK(qp_ud_up(&ga, SNIC_GSI_QKEY));
	CHECK(qp_ud_up(&gb, SNIC_GSI_QKEY));
	qp_recv(&gb, 9, 300, mb.key, mb.iova);
	memset(&ud, 0, sizeof(ud));
	av_fill(&ud.av, A);
	ud.dest_qpn = SNIC_GSI_QPN;
	ud.qkey = SNIC_GSI_QKEY;
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_seg(&w, &ud, sizeof(ud));
	w_data(&w, 256, ma.key, ma.iova);
	qp_post(&ga, &w);
	CHECK(cq_wait(&ca, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ);
	CHECK(cq_wait(&cb, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.byte_cnt, 296);
	CHECK_EQ(e.src_qpn, 1);
}

static void rc_write_read_atomic(void)
{
	static uint8_t src[9000], dst[9000];
	struct snic_wqe_atomic at;
	struct snic_cqe e;
	struct wqe w;
	uint64_t v;
	uint16_t idx;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	fill(src, sizeof(src), 5);
	mr_write(&sa.mr, 0, src, sizeof(src));
	/* WRITE of 9000 bytes (9 packets), no receive consumed */
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 100, sb.mr.key);
	w_data(&w, 9000, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, 9000, &e);
	mr_read(&sb.mr, 100, dst, 9000);
	CHECK(!memcmp(src, dst, 9000));
	CHECK(cq_empty(&sb.rcq));
	/* WRITE with immediate consumes a receive WQE, nothing scattered */
	qp_recv(&sb.qp, 0x3333, 16, sb.mr.key, sb.mr.iova + 200000);
	w_init(&w, SNIC_WQE_RDMA_WRITE_IMM, SNIC_WQE_F_SIGNAL, 0xabcd);
	w_raddr(&w, sb.mr.iova + 50000, sb.mr.key);
	w_data(&w, 2048, sa.mr.key, sa.mr.iova + 1);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE_IMM, 2048, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.cookie, 0x3333);
	CHECK_EQ(e.byte_cnt, 2048);
	CHECK_EQ(e.wqe_opcode, SNIC_WQE_RDMA_WRITE_IMM);
	CHECK_EQ(e.rdma_flags, SNIC_CQE_RF_IMM);
	CHECK_EQ(ntohl(e.imm), 0xabcd);
	mr_read(&sb.mr, 50000, dst, 2048);
	CHECK(!memcmp(src + 1, dst, 2048));
	/* READ 5000 bytes back from B into A at offset 100000 */
	fill(src, 5000, 9);
	mr_write(&sb.mr, 120000, src, 5000);
	w_init(&w, SNIC_WQE_RDMA_READ, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 120000, sb.mr.key);
	w_data(&w, 3000, sa.mr.key, sa.mr.iova + 100000);
	w_data(&w, 2000, sa.mr.key, sa.mr.iova + 110000);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_READ, 5000, &e);
	mr_read(&sa.mr, 100000, dst, 3000);
	mr_read(&sa.mr, 110000, dst + 3000, 2000);
	CHECK(!memcmp(src, dst, 5000));
	/* atomics on an 8-byte word of B */
	v = 100;
	mr_write(&sb.mr, 8192, &v, 8);
	memset(&at, 0, sizeof(at));
	at.swap_add = 23;
	w_init(&w, SNIC_WQE_ATOMIC_FA, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 8192, sb.mr.key);
	w_seg(&w, &at, sizeof(at));
	w_data(&w, 8, sa.mr.key, sa.mr.iova + 64);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_ATOMIC_FA, 8, &e);
	mr_read(&sa.mr, 64, &v, 8);
	CHECK_EQ(v, 100);
	mr_read(&sb.mr, 8192, &v, 8);
	CHECK_EQ(v, 123);
	at.compare = 123;
	at.swap_add = 0x1122334455667788ull;
	w_init(&w, SNIC_WQE_ATOMIC_CS, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 8192, sb.mr.key);
	w_seg(&w, &at, sizeof(at));
	w_data(&w, 8, sa.mr.key, sa.mr.iova + 72);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_ATOMIC_CS, 8, &e);
	mr_read(&sa.mr, 72, &v, 8);
	CHECK_EQ(v, 123);
	mr_read(&sb.mr, 8192, &v, 8);
	CHECK_EQ(v, 0x1122334455667788ull);
	/* compare fails: memory unchanged, old value returned */
	at.compare = 5;
	at.swap_add = 6;
	w_init(&w, SNIC_WQE_ATOMIC_CS, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 8192, sb.mr.key);
	w_seg(&w, &at, sizeof(at));
	w_data(&w, 8, sa.mr.key, sa.mr.iova + 80);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_ATOMIC_CS, 8, &e);
	mr_read(&sa.mr, 80, &v, 8);
	CHECK_EQ(v, 0x1122334455667788ull);
	mr_read(&sb.mr, 8192, &v, 8);
	CHECK_EQ(v, 0x1122334455667788ull);
	/* inline SEND: the buffer is reused right after posting */
	{
		uint8_t msg[150];

		fill(msg, sizeof(msg), 11);
		qp_recv(&sb.qp, 0x4444, 1000, sb.mr.key, sb.mr.iova + 60000);
		w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL | SNIC_WQE_F_INLINE,
		       0);
		w_inline(&w, msg, sizeof(msg));
		idx = qp_post(&sa.qp, &w);
		CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, sizeof(msg), &e);
		CHECK(cq_wait(&sb.rcq, &e, 0));
		CHECK_EQ(e.byte_cnt, sizeof(msg));
		mr_read(&sb.mr, 60000, dst, sizeof(msg));
		CHECK(!memcmp(dst, msg, sizeof(msg)));
		/* inline WRITE */
		w_init(&w, SNIC_WQE_RDMA_WRITE,
		       SNIC_WQE_F_SIGNAL | SNIC_WQE_F_INLINE, 0);
		w_raddr(&w, sb.mr.iova + 61000, sb.mr.key);
		w_inline(&w, msg, 37);
		idx = qp_post(&sa.qp, &w);
		CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, 37, &e);
		mr_read(&sb.mr, 61000, dst, 37);
		CHECK(!memcmp(dst, msg, 37));
	}
}

/* Multi-packet messages at path MTU 4096, and a zero-length READ. */
static void mtu_4096(void)
{
	static uint8_t src[65536], dst[65536];
	struct conn c = conn_default;
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	c.mtu = SNIC_MTU_4096;
	CHECK(env_start());
	CHECK(pair_up(&c));
	fill(src, sizeof(src), 21);
	mr_write(&sa.mr, 0, src, sizeof(src));
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 3, sb.mr.key);
	w_data(&w, 65536 - 5, sa.mr.key, sa.mr.iova + 5);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, 65536 - 5, &e);
	mr_read(&sb.mr, 3, dst, 65536 - 5);
	CHECK(!memcmp(src + 5, dst, 65536 - 5));
	qp_recv(&sb.qp, 1, 65536, sb.mr.key, sb.mr.iova + 70000);
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, 4096 * 3 + 1, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, 4096 * 3 + 1, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.byte_cnt, 4096 * 3 + 1);
	mr_read(&sb.mr, 70000, dst, 4096 * 3 + 1);
	CHECK(!memcmp(src, dst, 4096 * 3 + 1));
	fill(src, 40000, 22);
	mr_write(&sb.mr, 140000, src, 40000);
	w_init(&w, SNIC_WQE_RDMA_READ, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 140000, sb.mr.key);
	w_data(&w, 40000, sa.mr.key, sa.mr.iova + 200000);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_READ, 40000, &e);
	mr_read(&sa.mr, 200000, dst, 40000);
	CHECK(!memcmp(src, dst, 40000));
	/* zero-length READ: no memory touched, so no key needed */
	w_init(&w, SNIC_WQE_RDMA_READ, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, 0, 0);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_READ, 0, &e);
}

/* Unsignaled WQEs complete silently; a signaled CQE retires them. */
static void unsignaled(void)
{
	struct snic_cqe e;
	struct snic_qp_attr a;
	struct wqe w;
	uint16_t idx = 0;
	int i;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	for (i = 0; i < 10; i++) {
		w_init(&w, SNIC_WQE_RDMA_WRITE, i == 9 ? SNIC_WQE_F_SIGNAL : 0,
		       0);
		w_raddr(&w, sb.mr.iova + i * 100, sb.mr.key);
		w_data(&w, 100, sa.mr.key, sa.mr.iova);
		idx = qp_put(&sa.qp, &w);
	}
	qp_ring(&sa.qp);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, 100, &e);
	CHECK_EQ(idx, 9);
	CHECK(cq_empty(&sa.scq));
	CHECK_EQ(snic_rdma_query_qp(A, sa.qp.qpn, &a), OK);
	CHECK_EQ(a.sq_outstanding, 0);
	CHECK_EQ(a.state, SNIC_QPS_RTS);
	/* a NOP WQE completes locally */
	w_init(&w, SNIC_WQE_NOP, SNIC_WQE_F_SIGNAL, 0);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_NOP, 0, &e);
}

/* ------------------------------------------------------------------ */
/* Tests: wire format                                                  */
/* ------------------------------------------------------------------ */

static void icrc_capture(void)
{
	uint8_t f[9100];
	struct snic_cqe e;
	struct wqe w;
	int n, seen = 0, acks = 0, i;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	cap_drain();
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 2500, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	/* no pump: it drains the capture socket */
	for (i = 0; i < 64 && !snic_cq_peek(&sa.scq, &e, 1); i++)
		qt_readl(qt, A->bar0 + SNIC_REG_ID);
	while ((n = cap_recv(f, sizeof(f), 200)) > 0) {
		uint32_t wire;

		CHECK(n > 14 + 20 + 8 + 12 + 4);
		CHECK_EQ(f[12], 0x08);
		CHECK_EQ(f[13], 0x00);
		CHECK_EQ(f[14 + 9], 17);			/* UDP */
		CHECK_EQ(f[14 + 22] << 8 | f[14 + 23], 4791);	/* dport */
		CHECK_EQ(f[14 + 26] << 8 | f[14 + 27], 0);	/* no UDP csum */
		wire = f[n - 4] | f[n - 3] << 8 | f[n - 2] << 16 |
		       (uint32_t)f[n - 1] << 24;
		CHECK_EQ(wire, icrc_of(f, n));
		if (f[42] == 0x11)
			acks++;
		else
			seen++;
		if (seen == 1 && f[42] != 0x11) {
			/* WRITE FIRST: BTH, RETH with va, rkey, length */
			CHECK_EQ(f[42], 0x06);
			CHECK_EQ(f[42 + 2] << 8 | f[42 + 3], 0xffff);
			CHECK_EQ(ntohl(*(uint32_t *)(f + 42 + 4)), sb.qp.qpn);
			CHECK_EQ(ntohl(*(uint32_t *)(f + 42 + 8)) & 0xffffff,
				 100);
			CHECK_EQ(ntohl(*(uint32_t *)(f + 42 + 20)), sb.mr.key);
			CHECK_EQ(ntohl(*(uint32_t *)(f + 42 + 24)), 2500);
			CHECK_EQ(n, 42 + 12 + 16 + 1024 + 4);
		}
	}
	CHECK_EQ(seen, 3);
	CHECK(acks >= 1);
}

static void malformed_frames(void)
{
	struct snic_rdma_stats s0, s1;
	struct snic_cqe e;
	uint8_t f[2048];
	struct wqe w;
	size_t len;
	int i;

	CHECK(env_start());
	/* no QP yet: the RDMA engine is idle, RoCE takes the Ethernet path */
	{
		struct snic_port_stats ps;

		len = mk_req(f, 0x04, 5, 0, 8);
		CHECK(inj_send(f, len));
		pump(16);
		CHECK(rstats(B, &s0));
		CHECK_EQ(s0.rx_pkts + s0.rx_no_qp, 0);
		CHECK_EQ(snic_query_stats(B, SNIC_STATS_PORT, 0, &ps,
					  sizeof(ps)), OK);
		CHECK_EQ(ps.rx_no_dest, 1);
	}
	CHECK(pair_up(&conn_default));
	CHECK(rstats(B, &s0));
	/* a good SEND ONLY to B's QP, with the PSN it expects: accepted */
	qp_recv(&sb.qp, 1, 4096, sb.mr.key, sb.mr.iova);
	len = mk_req(f, 0x04, sb.qp.qpn, 100, 64);
	CHECK(inj_send(f, len));
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.byte_cnt, 64);
	/* bad ICRC */
	len = mk_req(f, 0x04, sb.qp.qpn, 101, 64);
	f[len - 1] ^= 0x10;
	CHECK(inj_send(f, len));
	/* truncated: headers cut, lengths not fixed */
	len = mk_req(f, 0x04, sb.qp.qpn, 101, 64);
	CHECK(inj_send(f, 50));
	/* IP length beyond the frame */
	CHECK(inj_send(f, len - 10));
	/* bad opcode sequence: a SEND MIDDLE with no FIRST */
	len = mk_req(f, 0x01, sb.qp.qpn, 101, 1024);
	CHECK(inj_send(f, len));
	/* reserved opcode */
	len = mk_req(f, 0x15, sb.qp.qpn, 101, 0);
	CHECK(inj_send(f, len));
	/* unknown QP, and QP 0 */
	len = mk_req(f, 0x04, 999, 0, 8);
	CHECK(inj_send(f, len));
	len = mk_req(f, 0x04, 0, 0, 8);
	CHECK(inj_send(f, len));
	/* random garbage after valid headers, ICRC fixed */
	srand(5);
	for (i = 0; i < 200; i++) {
		size_t k;

		len = mk_req(f, rand() % 0x20, sb.qp.qpn, rand() & 0xffffff,
			     rand() % 1100);
		for (k = 0; k < 1 + (size_t)(rand() % 3); k++)
			f[42 + rand() % 40] = rand();
		if (rand() % 2)
			fix_icrc(f, len);
		inj_send(f, len);
		if (i % 20 == 0)
			pump(4);
	}
	pump(64);
	CHECK(qt_alive(qt));
	CHECK(rstats(B, &s1));
	CHECK(s1.rx_icrc_errors >= s0.rx_icrc_errors + 1);
	CHECK(s1.rx_malformed >= s0.rx_malformed + 4);
	CHECK(s1.rx_no_qp >= s0.rx_no_qp + 2);
	/* B is still usable: reset its QP pair and send again */
	CHECK(pair_up(&conn_default));
	qp_recv(&sb.qp, 7, 100, sb.mr.key, sb.mr.iova);
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, 100, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.cookie, 7);
}

/* ------------------------------------------------------------------ */
/* Tests: errors                                                       */
/* ------------------------------------------------------------------ */

/* Remote access errors: NAK, error CQE, QP to ERR, flush, guard bytes. */
static void remote_access_errors(void)
{
	static uint8_t before[4096], after[4096];
	struct mr small, small2;
	struct snic_eq ea, eb;
	struct snic_eqe q;
	struct snic_cqe e;
	struct wqe w;
	struct snic_rdma_stats st;
	uint16_t idx, idx2, idx3;

	CHECK(env_start());
	CHECK_EQ(eq_create(&ea, A, 5), OK);
	CHECK_EQ(eq_create(&eb, B, 5), OK);
	CHECK_EQ(port_up(A, ea.n), OK);
	CHECK_EQ(port_up(B, eb.n), OK);
	CHECK(pair_up(&conn_default));
	/* a 1000-byte MR in the middle of guard bytes on B */
	CHECK_EQ(mr_create(&small, B, sb.pdn, 1000, ALL_ACCESS, 0x100), OK);
	qt_memset(qt, small.bus, 0xee, 4096);
	mread(small.bus, before, sizeof(before));
	/* wrong rkey (tag) */
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, small.iova, small.key ^ 1);
	w_data(&w, 100, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	/* two more posted behind it: flushed */
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, small.iova, small.key);
	w_data(&w, 10, sa.mr.key, sa.mr.iova);
	idx2 = qp_post(&sa.qp, &w);
	w_init(&w, SNIC_WQE_SEND, 0, 0);
	w_data(&w, 10, sa.mr.key, sa.mr.iova);
	idx3 = qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_REM_ACCESS);
	CHECK_EQ(e.wqe_counter, idx);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.syndrome, SNIC_RST_WR_FLUSH);
	CHECK_EQ(e.wqe_counter, idx2);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.syndrome, SNIC_RST_WR_FLUSH);
	CHECK_EQ(e.wqe_counter, idx3);
	CHECK_EQ(qp_query_state(&sa.qp), SNIC_QPS_ERR);
	CHECK_EQ(qp_query_state(&sb.qp), SNIC_QPS_ERR);
	CHECK(eq_find(&ea, SNIC_EQE_QP_ERROR, &q));
	CHECK_EQ(q.obj, sa.qp.qpn);
	CHECK_EQ(q.data, SNIC_RST_REM_ACCESS);
	CHECK(eq_find(&eb, SNIC_EQE_QP_ERROR, &q));
	CHECK_EQ(q.obj, sb.qp.qpn);
	/* posted after the error: flushed too, signaled or not */
	w_init(&w, SNIC_WQE_SEND, 0, 0);
	w_data(&w, 10, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.syndrome, SNIC_RST_WR_FLUSH);
	CHECK_EQ(e.wqe_counter, idx);
	/* receives of a QP in ERR are flushed with their cookie */
	qp_recv(&sa.qp, 0xfeed, 100, sa.mr.key, sa.mr.iova);
	CHECK(cq_wait(&sa.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_WR_FLUSH);
	CHECK_EQ(e.cookie, 0xfeed);
	mread(small.bus, after, sizeof(after));
	CHECK(!memcmp(before, after, sizeof(after)));
	CHECK(rstats(A, &st));
	CHECK_EQ(st.rem_access_naks_rcvd, 1);
	CHECK(rstats(B, &st));
	CHECK_EQ(st.rem_access_naks_sent, 1);

	/* out of bounds by one byte, and READ without access: fresh pair */
	CHECK(pair_up(&conn_default));
	CHECK_EQ(mr_create(&small2, B, sb.pdn, 1000, SNIC_ACCESS_LOCAL_WRITE |
			   SNIC_ACCESS_REMOTE_WRITE, 0x100), OK);
	qt_memset(qt, small2.bus, 0xee, 4096);
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, small2.iova + 1, small2.key);
	w_data(&w, 1000, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_REM_ACCESS);
	CHECK(pair_up(&conn_default));
	w_init(&w, SNIC_WQE_RDMA_READ, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, small2.iova, small2.key);
	w_data(&w, 100, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.syndrome, SNIC_RST_REM_ACCESS);
	/* MR of another PD */
	CHECK(pair_up(&conn_default));
	{
		struct mr other;

		CHECK_EQ(mr_create(&other, B, pd_create(B), 1000, ALL_ACCESS,
				   0), OK);
		w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
		w_raddr(&w, other.iova, other.key);
		w_data(&w, 10, sa.mr.key, sa.mr.iova);
		qp_post(&sa.qp, &w);
		CHECK(cq_wait(&sa.scq, &e, 1000000));
		CHECK_EQ(e.syndrome, SNIC_RST_REM_ACCESS);
	}
	/* no byte outside (or inside) the small MR was touched */
	mread(small2.bus, after, sizeof(after));
	CHECK(!memcmp(before, after, sizeof(after)));
}

/* Bad local WQEs: error CQE with the right status, QP to ERR. */
static void local_errors(void)
{
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	CHECK(env_start());
	/* bad lkey */
	CHECK(pair_up(&conn_default));
	w_init(&w, SNIC_WQE_SEND, 0, 0);
	w_data(&w, 10, sa.mr.key + 0x100, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_PROT);
	CHECK_EQ(e.wqe_counter, idx);
	CHECK_EQ(qp_query_state(&sa.qp), SNIC_QPS_ERR);
	/* lkey 0 (bus address) on a QP without SNIC_QP_F_PRIV */
	CHECK(pair_up(&conn_default));
	w_init(&w, SNIC_WQE_SEND, 0, 0);
	w_data(&w, 10, SNIC_LKEY_BUS, sa.mr.bus);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_PROT);
	/* beyond the MR */
	CHECK(pair_up(&conn_default));
	w_init(&w, SNIC_WQE_RDMA_WRITE, 0, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 100, sa.mr.key, sa.mr.iova + BUF_LEN - 50);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_PROT);
	/* huge length */
	CHECK(pair_up(&conn_default));
	w_init(&w, SNIC_WQE_RDMA_WRITE, 0, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 0x80000000u, sa.mr.key, sa.mr.iova);
	w_data(&w, 0x80000000u, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_LEN);
	/* bad opcode, and ds_cnt 0 */
	CHECK(pair_up(&conn_default));
	w_init(&w, 0x7e, SNIC_WQE_F_SIGNAL, 0);
	idx = qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_QP_OP);
	CHECK_EQ(e.wqe_opcode, 0x7e);
	CHECK_EQ(e.wqe_counter, idx);
	CHECK(pair_up(&conn_default));
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w.ds = 0;
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_QP_OP);
	/* atomic with a 4-byte buffer; READ on a UD QP-like opcode misuse */
	CHECK(pair_up(&conn_default));
	{
		struct snic_wqe_atomic at = { 0 };

		w_init(&w, SNIC_WQE_ATOMIC_FA, 0, 0);
		w_raddr(&w, sb.mr.iova, sb.mr.key);
		w_seg(&w, &at, sizeof(at));
		w_data(&w, 4, sa.mr.key, sa.mr.iova);
		qp_post(&sa.qp, &w);
		CHECK(cq_wait(&sa.scq, &e, 0));
		CHECK_EQ(e.syndrome, SNIC_RST_LOC_LEN);
	}
	/* misaligned atomic: the responder NAKs invalid request */
	CHECK(pair_up(&conn_default));
	{
		struct snic_wqe_atomic at = { 0 };

		w_init(&w, SNIC_WQE_ATOMIC_FA, 0, 0);
		w_raddr(&w, sb.mr.iova + 4, sb.mr.key);
		w_seg(&w, &at, sizeof(at));
		w_data(&w, 8, sa.mr.key, sa.mr.iova);
		qp_post(&sa.qp, &w);
		CHECK(cq_wait(&sa.scq, &e, 1000000));
		CHECK_EQ(e.syndrome, SNIC_RST_REM_INV_REQ);
	}
	/* a SEND larger than the receive WQE: invalid request at the peer */
	CHECK(pair_up(&conn_default));
	qp_recv(&sb.qp, 0x99, 100, sb.mr.key, sb.mr.iova);
	w_init(&w, SNIC_WQE_SEND, 0, 0);
	w_data(&w, 101, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.syndrome, SNIC_RST_REM_INV_REQ);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_LEN);
	CHECK_EQ(e.cookie, 0x99);
	CHECK(qt_alive(qt));
}

/* ------------------------------------------------------------------ */
/* Tests: reliability                                                  */
/* ------------------------------------------------------------------ */

static void loss_injection(void)
{
	static uint8_t src[BUF_LEN], dst[40000];
	struct conn c = conn_default;
	struct snic_rdma_stats sta, stb;
	struct snic_qp_attr qa;
	struct snic_cqe e;
	struct wqe w;
	uint64_t v = 0;
	int i;

	/* settable at start ... */
	CHECK(env_start_opts(",loss-every=3"));
	CHECK(qt_qom_get_u64(qt, "/machine/peripheral/snic0", "loss-every",
			     &v));
	CHECK_EQ(v, 3);
	/* ... and at run time */
	CHECK(env_start());
	CHECK(qt_qom_set_u64(qt, "/machine/peripheral/snic0", "loss-every", 7));
	CHECK(qt_qom_set_u64(qt, "/machine/peripheral/snic1", "loss-every", 7));
	CHECK(qt_qom_get_u64(qt, "/machine/peripheral/snic1", "loss-every",
			     &v));
	CHECK_EQ(v, 7);
	c.timeout = 10;			/* 4.2 ms */
	CHECK(pair_up(&c));
	fill(src, sizeof(src), 33);
	mr_write(&sa.mr, 0, src, 60000);
	mr_write(&sb.mr, 150000, src + 1000, 30000);
	for (i = 0; i < 4; i++)
		qp_recv(&sb.qp, 100 + i, 5000, sb.mr.key,
			sb.mr.iova + 100000 + i * 5000);
	/* 4 WRITEs, 3 READs, 4 SENDs, interleaved, all signaled */
	for (i = 0; i < 4; i++) {
		w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
		w_raddr(&w, sb.mr.iova + i * 10000, sb.mr.key);
		w_data(&w, 10000, sa.mr.key, sa.mr.iova + i * 10000);
		qp_put(&sa.qp, &w);
		if (i < 3) {
			w_init(&w, SNIC_WQE_RDMA_READ, SNIC_WQE_F_SIGNAL, 0);
			w_raddr(&w, sb.mr.iova + 150000 + i * 10000, sb.mr.key);
			w_data(&w, 10000, sa.mr.key,
			       sa.mr.iova + 150000 + i * 10000);
			qp_put(&sa.qp, &w);
		}
		w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
		w_data(&w, 4999, sa.mr.key, sa.mr.iova + 50000 + i * 1000);
		qp_put(&sa.qp, &w);
	}
	qp_ring(&sa.qp);
	CHECK(cq_wait_n(&sa.scq, &e, 11, 2000000));
	CHECK(cq_wait_n(&sb.rcq, &e, 4, 2000000));
	for (i = 0; i < 4; i++) {
		mr_read(&sb.mr, i * 10000, dst, 10000);
		CHECK(!memcmp(dst, src + i * 10000, 10000));
		mr_read(&sb.mr, 100000 + i * 5000, dst, 4999);
		CHECK(!memcmp(dst, src + 50000 + i * 1000, 4999));
	}
	mr_read(&sa.mr, 150000, dst, 30000);
	CHECK(!memcmp(dst, src + 1000, 30000));
	CHECK(rstats(A, &sta));
	CHECK(rstats(B, &stb));
	CHECK(sta.loss_injected > 0);
	CHECK(stb.loss_injected > 0);
	CHECK(sta.retransmits > 0);
	CHECK(stb.out_of_seq + stb.dup_requests > 0);
	CHECK_EQ(snic_rdma_query_qp(A, sa.qp.qpn, &qa), OK);
	CHECK(qa.retransmits > 0);
	CHECK_EQ(qa.sq_outstanding, 0);
	CHECK_EQ(qa.state, SNIC_QPS_RTS);
	fprintf(stderr, "loss: A retransmits %llu timeouts %llu seq_naks %llu "
		"lost %llu; B dup %llu oos %llu lost %llu\n",
		(unsigned long long)sta.retransmits,
		(unsigned long long)sta.timeouts,
		(unsigned long long)sta.seq_naks_rcvd,
		(unsigned long long)sta.loss_injected,
		(unsigned long long)stb.dup_requests,
		(unsigned long long)stb.out_of_seq,
		(unsigned long long)stb.loss_injected);
	/* the host sees the same counters, and per-QP lines, through QOM */
	{
		static char txt[8192];
		char want[64];

		CHECK(qt_qom_get_str(qt, "/machine/peripheral/snic0",
				     "rdma-stats", txt, sizeof(txt)));
		CHECK(strstr(txt, "retransmits="));
		CHECK(strstr(txt, "loss_injected="));
		snprintf(want, sizeof(want), "qp %u: type=0 state=3", sa.qp.qpn);
		CHECK(strstr(txt, want));
		CHECK(strstr(txt, "dma_reads="));
	}
	/* loss off again: a clean transfer */
	CHECK(qt_qom_set_u64(qt, "/machine/peripheral/snic0", "loss-every", 0));
	CHECK(qt_qom_set_u64(qt, "/machine/peripheral/snic1", "loss-every", 0));
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 200000, sb.mr.key);
	w_data(&w, 20000, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait_n(&sa.scq, &e, 1, 2000000));
	mr_read(&sb.mr, 200000, dst, 20000);
	CHECK(!memcmp(dst, src, 20000));
}

/*
 * Deterministic loss of every 13th packet each device sends, under a
 * 1 MiB WRITE (1024 packets at MTU 1024, a window far beyond 13) and
 * WRITEs of 43..917 packets: all complete.  Each timeout that follows
 * progress starts with a fresh retry budget, and a timeout must not
 * resend the whole tail each time: with a tail of 13k packets its first
 * one is lost again and again (before the fix: RETRY_EXC_ERR at 159
 * packets).
 */
static void loss_every_13_big_write(void)
{
	static uint8_t src[1 << 20], dst[1 << 20];
	struct conn c = conn_default;
	struct snic_rdma_stats st;
	struct snic_qp_attr qa;
	struct snic_cqe e;
	struct mr ma, mb;
	struct wqe w;
	uint16_t idx;
	bool got = false;
	int i, round;

	CHECK(env_start_opts(",loss-every=13"));
	c.timeout = 8;			/* 1 ms */
	c.retry = 3;
	CHECK(pair_up(&c));
	CHECK_EQ(mr_create(&ma, A, sa.pdn, sizeof(src), ALL_ACCESS, 0), OK);
	CHECK_EQ(mr_create(&mb, B, sb.pdn, sizeof(dst), ALL_ACCESS, 0), OK);
	for (round = 0; round < 40; round++) {
		uint32_t len = round == 0 ? (uint32_t)sizeof(src) :
			       1024u * (20 + 23 * round) + 100;

		fill(src, sizeof(src), 77 + round);
		mr_write(&ma, 0, src, len);
		w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
		w_raddr(&w, mb.iova, mb.key);
		w_data(&w, len, ma.key, ma.iova);
		idx = qp_post(&sa.qp, &w);
		for (i = 0, got = false; i < 40 && !got; i++)
			got = cq_wait(&sa.scq, &e, 500000);
		CHECK(got);
		if (!got)
			return;
		CHECK_EQ(e.syndrome, SNIC_RST_OK);
		CHECK_EQ(e.wqe_counter, idx);
		CHECK_EQ(e.byte_cnt, len);
		mr_read(&mb, 0, dst, len);
		CHECK(!memcmp(dst, src, len));
	}
	CHECK_EQ(snic_rdma_query_qp(A, sa.qp.qpn, &qa), OK);
	CHECK_EQ(qa.state, SNIC_QPS_RTS);
	CHECK(rstats(A, &st));
	CHECK(st.loss_injected > 0);
	CHECK(st.retransmits > 0);
	fprintf(stderr, "loss-every=13: A retransmits %llu timeouts %llu "
		"seq_naks %llu lost %llu\n",
		(unsigned long long)st.retransmits,
		(unsigned long long)st.timeouts,
		(unsigned long long)st.seq_naks_rcvd,
		(unsigned long long)st.loss_injected);
}

/*
 * An RC READ under deterministic loss of every @every-th frame each
 * device sends: the requester re-READs the missing range (go-back-N from
 * the first missing response PSN) until the READ completes with every
 * byte, as IB specifies.  A re-READ of the whole rest whose length is a
 * multiple of @every loses its first response again on every retry
 * (before the fix: RETRY_EXC_ERR on the second READ); after a timeout the
 * requester asks for the first missing response alone.  Three READs of
 * 64 KiB at MTU 1024 and 4096, with the transport timeout below the loss
 * probe's 2 ms (timeout 8) and above it (14).
 */
static void read_loss_every(uint32_t every)
{
	static uint8_t src[64 * 1024], dst[64 * 1024];
	static const uint8_t mtus[] = { SNIC_MTU_1024, SNIC_MTU_4096 };
	static const uint8_t timeouts[] = { 8, 14 };
	struct conn c = conn_default;
	struct snic_rdma_stats st;
	struct snic_cqe e;
	char opts[32];
	struct wqe w;
	uint16_t idx;
	unsigned int run, k, i;
	bool got;

	snprintf(opts, sizeof(opts), ",loss-every=%u", every);
	for (run = 0; run < 4; run++) {
		CHECK(env_start_opts(opts));
		c.mtu = mtus[run / 2];
		c.timeout = timeouts[run % 2];
		c.retry = 7;
		CHECK(pair_up(&c));
		for (k = 0; k < 3; k++) {
			fill(src, sizeof(src), 40 + k + 3 * run + every);
			mr_write(&sb.mr, 0, src, sizeof(src));
			memset(dst, 0, sizeof(dst));
			mr_write(&sa.mr, 0, dst, sizeof(dst));
			w_init(&w, SNIC_WQE_RDMA_READ, SNIC_WQE_F_SIGNAL, 0);
			w_raddr(&w, sb.mr.iova, sb.mr.key);
			w_data(&w, sizeof(dst), sa.mr.key, sa.mr.iova);
			idx = qp_post(&sa.qp, &w);
			for (i = 0, got = false; i < 100 && !got; i++)
				got = cq_wait(&sa.scq, &e, 500000);
			CHECK(got);
			CHECK_EQ(e.wqe_counter, idx);
			CHECK_EQ(e.syndrome, SNIC_RST_OK);
			CHECK_EQ(e.byte_cnt, sizeof(dst));
			mr_read(&sa.mr, 0, dst, sizeof(dst));
			CHECK(!memcmp(dst, src, sizeof(dst)));
		}
		CHECK_EQ(qp_query_state(&sa.qp), SNIC_QPS_RTS);
		CHECK(rstats(B, &st));
		CHECK(st.loss_injected > 0);
		CHECK(rstats(A, &st));
		CHECK(st.retransmits > 0);
		fprintf(stderr, "read loss-every=%u mtu %u timeout %u: A "
			"retransmits %llu timeouts %llu\n", every,
			128u << c.mtu, c.timeout,
			(unsigned long long)st.retransmits,
			(unsigned long long)st.timeouts);
	}
}

static void read_loss_every_3(void)
{
	read_loss_every(3);
}

static void read_loss_every_4(void)
{
	read_loss_every(4);
}

/* RESIZE_CQ of @c to 2^@log entries at a new ring; the status. */
static int cq_resize_to(struct snic_cq *c, uint64_t ring, uint64_t dbr, int log,
			uint64_t *moved)
{
	struct snic_aq_resize_cq a = { 0 };

	a.ring_addr = ring;
	a.dbr_addr = dbr;
	a.log_size = log;
	a.cqn = c->n;
	return snic_aq_cmd(c->d, SNIC_AQ_RESIZE_CQ, &a, sizeof(a), moved);
}

/* Post @n signaled WRITEs on sa.qp and wait until their CQEs are in. */
static bool writes_pending(int n, uint16_t *first)
{
	struct snic_cq peek = sa.scq;
	struct snic_cqe e;
	struct wqe w;
	int i;

	for (i = 0; i < n; i++) {
		w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
		w_raddr(&w, sb.mr.iova + i * 100, sb.mr.key);
		w_data(&w, 100, sa.mr.key, sa.mr.iova + i * 100);
		if (i == 0)
			*first = qp_put(&sa.qp, &w);
		else
			qp_put(&sa.qp, &w);
	}
	qp_ring(&sa.qp);
	peek.cons += n - 1;
	for (i = 0; i < 200; i++) {
		if (snic_cq_peek(&peek, &e, 1))
			return true;
		pump(8);
	}
	return false;
}

/* Move sa.scq to a new ring of 2^@log with @n pending from @idx; drain. */
static void scq_resize_drain(int log, int n, uint16_t idx)
{
	uint64_t ring = galloc(sizeof(struct snic_cqe) << log, 64);
	uint64_t dbr = galloc(64, 64), moved = 0;
	struct snic_cqe e;
	int i;

	CHECK_EQ(cq_resize_to(&sa.scq, ring, dbr, log, &moved), OK);
	CHECK_EQ(moved, (uint64_t)n);
	sa.scq.ring = ring;
	sa.scq.dbr = dbr;
	sa.scq.size = 1u << log;
	sa.scq.cons = 0;
	for (i = 0; i < n; i++)
		CHECK_REQ(&sa.scq, (uint16_t)(idx + i), SNIC_WQE_RDMA_WRITE,
			  100, &e);
}

/* @rounds times @n WRITEs, each completed in order on sa.scq. */
static void write_rounds(int rounds, int n)
{
	struct snic_cqe e;
	uint16_t idx = 0;
	int r, i;

	for (r = 0; r < rounds; r++) {
		CHECK(writes_pending(n, &idx));
		for (i = 0; i < n; i++)
			CHECK_REQ(&sa.scq, (uint16_t)(idx + i),
				  SNIC_WQE_RDMA_WRITE, 100, &e);
	}
}

/*
 * RESIZE_CQ with completions pending: they move to the start of the new
 * ring in order and later ones follow; bad requests leave the CQ as it was.
 */
static void cq_resize(void)
{
	struct snic_cq old;
	uint64_t moved = 0, ring, dbr;
	uint16_t idx = 0;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	CHECK(writes_pending(5, &idx));
	old = sa.scq;
	/* hostile: no such CQ, sizes, alignment, unreachable ring */
	ring = galloc(sizeof(struct snic_cqe) * 64, 64);
	dbr = galloc(64, 64);
	sa.scq.n = 999;
	CHECK_EQ(cq_resize_to(&sa.scq, ring, dbr, 6, &moved), SNIC_AQ_ENOENT);
	sa.scq.n = SNIC_MAX_CQS + 5;
	CHECK_EQ(cq_resize_to(&sa.scq, ring, dbr, 6, &moved), SNIC_AQ_ENOENT);
	sa.scq = old;
	CHECK_EQ(cq_resize_to(&sa.scq, ring, dbr, 0, &moved),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(cq_resize_to(&sa.scq, ring, dbr, SNIC_MAX_LOG_SIZE + 1,
			      &moved), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(cq_resize_to(&sa.scq, ring + 8, dbr, 6, &moved),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(cq_resize_to(&sa.scq, UNMAPPED, dbr, 6, &moved),
		 SNIC_AQ_EDMA);
	/* 5 pending do not fit 4 entries */
	CHECK_EQ(cq_resize_to(&sa.scq, ring, dbr, 2, &moved),
		 SNIC_AQ_EINVAL_PARAM);
	/* a consumer record claiming more than the ring holds */
	qt_writel(qt, sa.scq.dbr, (sa.scq.cons - 100) & 0xffff);
	CHECK_EQ(cq_resize_to(&sa.scq, ring, dbr, 6, &moved),
		 SNIC_AQ_EINVAL_PARAM);
	qt_writel(qt, sa.scq.dbr, sa.scq.cons & 0xffff);

	/* grow: the 5 move to entries 0..4 of the new ring */
	scq_resize_drain(6, 5, idx);
	CHECK(cq_empty(&sa.scq));
	/* more, then shrink to 8 with 6 pending after wrapping the ring */
	write_rounds(3, 20);
	CHECK(writes_pending(6, &idx));
	scq_resize_drain(3, 6, idx);
	/* the small ring keeps working across its wrap */
	write_rounds(3, 7);
	CHECK(qt_alive(qt));
}

/* MODIFY_CQ of @cqn to @count CQEs / @period microseconds; the status. */
static int cq_moderate(struct snic_dev *d, uint32_t cqn, uint32_t count,
		       uint32_t period)
{
	struct snic_aq_modify_cq a = { 0 };

	a.cqn = cqn;
	a.count = count;
	a.period_us = period;
	return snic_aq_cmd(d, SNIC_AQ_MODIFY_CQ, &a, sizeof(a), NULL);
}

/* One 10-byte SEND from sa to sb; its receive CQE consumed from sb.rcq. */
static bool send_one(void)
{
	struct snic_cqe e;
	struct wqe w;

	qp_recv(&sb.qp, 1, 100, sb.mr.key, sb.mr.iova);
	w_init(&w, SNIC_WQE_SEND, 0, 0);
	w_data(&w, 10, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	return cq_wait(&sb.rcq, &e, 0) && e.opcode == SNIC_CQE_RECV;
}

/*
 * CQ moderation (MODIFY_CQ): an armed CQ raises its event after count
 * CQEs or period after the first, whichever first; hostile bounds refused.
 */
static void cq_moderation(void)
{
	struct snic_eq eb;
	struct snic_eqe q;
	int i;

	CHECK(env_start());
	CHECK_EQ(eq_create(&eb, B, 5), OK);
	CHECK(side_make(&sa, A, SNIC_QPT_RC));
	CHECK(side_make_eq(&sb, B, SNIC_QPT_RC, eb.n));
	CHECK(qp_connect(&sa.qp, &sb.qp, &conn_default, 1, 2));
	CHECK(qp_connect(&sb.qp, &sa.qp, &conn_default, 2, 1));

	/* hostile: no such CQ, bounds above the maximum */
	CHECK_EQ(cq_moderate(B, 999, 4, 0), SNIC_AQ_ENOENT);
	CHECK_EQ(cq_moderate(B, SNIC_MAX_CQS + 5, 4, 0), SNIC_AQ_ENOENT);
	CHECK_EQ(cq_moderate(B, ~0u, 4, 0), SNIC_AQ_ENOENT);
	CHECK_EQ(cq_moderate(B, 0x10000 + sb.rcq.n, 4, 0), SNIC_AQ_ENOENT);
	CHECK_EQ(cq_moderate(B, sb.rcq.n, SNIC_CQ_MAX_MOD_COUNT + 1, 0),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(cq_moderate(B, sb.rcq.n, 4, SNIC_CQ_MAX_MOD_PERIOD + 1),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(cq_moderate(B, sb.rcq.n, ~0u, ~0u), SNIC_AQ_EINVAL_PARAM);

	/* default: every CQE of an armed CQ raises at once */
	snic_db(B, 4, SNIC_DB_CQ_ARM, sb.rcq.n, sb.rcq.cons);
	CHECK(send_one());
	CHECK(eq_find(&eb, SNIC_EQE_COMPLETION, &q));
	CHECK_EQ(q.obj, sb.rcq.n);

	/* count 4, long period: 3 CQEs raise nothing, the 4th does */
	CHECK_EQ(cq_moderate(B, sb.rcq.n, 4, SNIC_CQ_MAX_MOD_PERIOD), OK);
	snic_db(B, 4, SNIC_DB_CQ_ARM, sb.rcq.n, sb.rcq.cons);
	for (i = 0; i < 3; i++)
		CHECK(send_one());
	qt_clock_step(qt, 10000000);
	CHECK(!eq_find(&eb, SNIC_EQE_COMPLETION, &q));
	CHECK(send_one());
	CHECK(eq_find(&eb, SNIC_EQE_COMPLETION, &q));
	CHECK_EQ(q.obj, sb.rcq.n);
	/* one event per arming: not armed, nothing more */
	CHECK(send_one());
	qt_clock_step(qt, 100000000);
	CHECK(!eq_find(&eb, SNIC_EQE_COMPLETION, &q));

	/* count 100, period 50 ms: one CQE raises after the period */
	CHECK_EQ(cq_moderate(B, sb.rcq.n, 100, 50000), OK);
	snic_db(B, 4, SNIC_DB_CQ_ARM, sb.rcq.n, sb.rcq.cons);
	CHECK(send_one());
	qt_clock_step(qt, 40000000);
	CHECK(!eq_find(&eb, SNIC_EQE_COMPLETION, &q));
	qt_clock_step(qt, 11000000);
	CHECK(eq_find(&eb, SNIC_EQE_COMPLETION, &q));
	CHECK_EQ(q.obj, sb.rcq.n);

	/* lowering the count below what is pending raises at once */
	CHECK_EQ(cq_moderate(B, sb.rcq.n, 100, 0), OK);
	snic_db(B, 4, SNIC_DB_CQ_ARM, sb.rcq.n, sb.rcq.cons);
	CHECK(send_one());
	CHECK(send_one());
	CHECK(!eq_find(&eb, SNIC_EQE_COMPLETION, &q));
	CHECK_EQ(cq_moderate(B, sb.rcq.n, 2, 0), OK);
	CHECK(eq_find(&eb, SNIC_EQE_COMPLETION, &q));

	/* a running period dies with the CQ: destroy, then time passes */
	CHECK_EQ(cq_moderate(B, sb.rcq.n, 0, 1000), OK);
	snic_db(B, 4, SNIC_DB_CQ_ARM, sb.rcq.n, sb.rcq.cons);
	CHECK(send_one());
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_QP, sb.qp.qpn), OK);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_CQ, sb.rcq.n), OK);
	qt_clock_step(qt, 5000000);
	CHECK(!eq_find(&eb, SNIC_EQE_COMPLETION, &q));
	CHECK_EQ(cq_moderate(B, sb.rcq.n, 4, 0), SNIC_AQ_ENOENT);
	CHECK(qt_alive(qt));
}

/* Random loss (loss-ppm) with atomics in the mix. */
static void loss_ppm_atomics(void)
{
	struct conn c = conn_default;
	struct snic_wqe_atomic at;
	struct snic_rdma_stats st;
	struct snic_cqe e;
	struct wqe w;
	uint64_t v;
	int i;

	CHECK(env_start());
	CHECK(qt_qom_set_u64(qt, "/machine/peripheral/snic0", "loss-seed", 9));
	CHECK(qt_qom_set_u64(qt, "/machine/peripheral/snic0", "loss-ppm",
			     200000));
	CHECK(qt_qom_set_u64(qt, "/machine/peripheral/snic1", "loss-ppm",
			     200000));
	c.timeout = 10;
	CHECK(pair_up(&c));
	v = 1000;
	mr_write(&sb.mr, 4096, &v, 8);
	memset(&at, 0, sizeof(at));
	at.swap_add = 1;
	for (i = 0; i < 20; i++) {
		w_init(&w, SNIC_WQE_ATOMIC_FA, SNIC_WQE_F_SIGNAL, 0);
		w_raddr(&w, sb.mr.iova + 4096, sb.mr.key);
		w_seg(&w, &at, sizeof(at));
		w_data(&w, 8, sa.mr.key, sa.mr.iova + 8 * i);
		qp_put(&sa.qp, &w);
	}
	qp_ring(&sa.qp);
	CHECK(cq_wait_n(&sa.scq, &e, 20, 2000000));
	/* each add executed exactly once: replays came from the cache */
	mr_read(&sb.mr, 4096, &v, 8);
	CHECK_EQ(v, 1020);
	for (i = 0; i < 20; i++) {
		mr_read(&sa.mr, 8 * i, &v, 8);
		CHECK_EQ(v, 1000u + i);
	}
	CHECK(rstats(A, &st));
	CHECK(st.loss_injected > 0);
	CHECK(st.retransmits > 0);
}

static void rnr_retry(void)
{
	struct conn c = conn_default;
	struct snic_rdma_stats st;
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;
	int i;

	CHECK(env_start());
	c.rnr_timer = 14;		/* 1.28 ms */
	CHECK(pair_up(&c));
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, 3000, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	for (i = 0; i < 5; i++) {
		pump(16);
		qt_clock_step(qt, 2000000);
	}
	CHECK(cq_empty(&sa.scq));
	CHECK(rstats(B, &st));
	CHECK(st.rnr_naks_sent >= 2);
	/* the receive arrives: the next retry completes */
	qp_recv(&sb.qp, 5, 4000, sb.mr.key, sb.mr.iova);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, 3000, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.byte_cnt, 3000);
	CHECK(rstats(A, &st));
	CHECK(st.rnr_naks_rcvd >= 2);

	/* rnr_retry 2: the third RNR NAK ends it */
	c.rnr_retry = 2;
	CHECK(pair_up(&c));
	w_init(&w, SNIC_WQE_SEND, 0, 0);
	w_data(&w, 10, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 2000000));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_RNR_RETRY_EXC);
	CHECK_EQ(e.wqe_counter, idx);
	CHECK_EQ(qp_query_state(&sa.qp), SNIC_QPS_ERR);
}

static void retry_exceeded(void)
{
	struct conn c = conn_default;
	struct snic_rdma_stats st;
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	CHECK(env_start());
	c.timeout = 8;			/* 1 ms */
	c.retry = 3;
	CHECK(pair_up(&c));
	/* B keeps a QP, so its RDMA engine stays in use and counts drops */
	{
		struct qp spare;

		CHECK_EQ(qp_create(&spare, B, SNIC_QPT_RC, sb.pdn, &sb.scq,
				   &sb.rcq, -1), OK);
	}
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_QP, sb.qp.qpn), OK);
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 100, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_RETRY_EXC);
	CHECK_EQ(e.wqe_counter, idx);
	CHECK(rstats(A, &st));
	CHECK_EQ(st.timeouts, 4);
	CHECK_EQ(st.retransmits, 3);
	CHECK(rstats(B, &st));
	CHECK_EQ(st.rx_no_qp, 4);
}

/* ------------------------------------------------------------------ */
/* Tests: memory registration, SRQ, events                             */
/* ------------------------------------------------------------------ */

static int reg_wqe(struct qp *q, uint32_t key, uint64_t iova, uint64_t len,
		   uint64_t pas, uint32_t np, uint32_t access)
{
	struct snic_wqe_reg r;
	struct wqe w;

	memset(&r, 0, sizeof(r));
	r.key = key;
	r.access = access;
	r.iova = iova;
	r.length = len;
	r.pas_addr = pas;
	r.npages = np;
	r.page_shift = 12;
	w_init(&w, SNIC_WQE_REG_MR, SNIC_WQE_F_SIGNAL, 0);
	w_seg(&w, &r, sizeof(r));
	return qp_post(q, &w);
}

static void fast_reg_and_invalidate(void)
{
	struct snic_mr_cfg mc;
	struct snic_cqe e;
	struct wqe w;
	uint64_t pas, buf, iova = 0x123400000000ull;
	uint32_t key, k1, k2, i;
	uint8_t d[64];
	uint16_t idx;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	memset(&mc, 0, sizeof(mc));
	mc.pdn = sb.pdn;
	mc.flags = SNIC_MR_F_FAST_REG;
	mc.npages = 4;
	mc.key_tag = 1;
	CHECK_EQ(snic_rdma_create_mr(B, &mc, &key), OK);
	buf = galloc(4 * 4096, 4096);
	pas = galloc(64, 64);
	for (i = 0; i < 4; i++) {
		uint64_t pa = buf + (3 - i) * 4096;

		qt_memwrite(qt, pas + 8 * i, &pa, 8);
	}
	/* not registered yet: remote access error */
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, iova, key);
	w_data(&w, 16, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.syndrome, SNIC_RST_REM_ACCESS);
	CHECK(pair_reconnect());
	/* REG_MR with tag 2 on B's QP */
	k1 = SNIC_MAKE_KEY(SNIC_KEY_INDEX(key), 2);
	idx = reg_wqe(&sb.qp, k1, iova, 4 * 4096, pas, 4, ALL_ACCESS);
	CHECK_REQ(&sb.scq, idx, SNIC_WQE_REG_MR, 0, &e);
	/* WRITE across a page boundary lands in the right guest pages */
	fill(d, sizeof(d), 44);
	mr_write(&sa.mr, 0, d, sizeof(d));
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, iova + 4096 - 32, k1);
	w_data(&w, 64, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, 64, &e);
	{
		uint8_t x[64];

		mread(buf + 3 * 4096 + 4096 - 32, x, 32);
		mread(buf + 2 * 4096, x + 32, 32);
		CHECK(!memcmp(x, d, 64));
	}
	/* LOCAL_INV: the key stops working */
	w_init(&w, SNIC_WQE_LOCAL_INV, SNIC_WQE_F_SIGNAL, k1);
	idx = qp_post(&sb.qp, &w);
	CHECK_REQ(&sb.scq, idx, SNIC_WQE_LOCAL_INV, 0, &e);
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, iova, k1);
	w_data(&w, 8, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.syndrome, SNIC_RST_REM_ACCESS);
	CHECK(pair_reconnect());
	/* re-register with tag 3; the stale tag 2 is refused */
	k2 = SNIC_MAKE_KEY(SNIC_KEY_INDEX(key), 3);
	idx = reg_wqe(&sb.qp, k2, iova, 4 * 4096, pas, 4, ALL_ACCESS);
	CHECK_REQ(&sb.scq, idx, SNIC_WQE_REG_MR, 0, &e);
	/* registering a valid MR again fails locally (B's QP to ERR) */
	idx = reg_wqe(&sb.qp, k2, iova, 4096, pas, 1, ALL_ACCESS);
	CHECK(cq_wait(&sb.scq, &e, 0));
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_PROT);
	CHECK_EQ(e.wqe_counter, idx);
	CHECK(pair_reconnect());
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, iova + 8, k2);
	w_data(&w, 8, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, 8, &e);
	/* SEND with invalidate names k2: B's receive reports it */
	CHECK_SEND_INV(k2, 0x51, &e);
	/* ... and k2 is dead now */
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, iova, k2);
	w_data(&w, 8, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.syndrome, SNIC_RST_REM_ACCESS);
}

/*
 * Only fast-registration MRs can be invalidated: a remote SEND with
 * invalidate naming an ordinary MR's key is a remote invalid request (NAK,
 * the requester's completion says so), a LOCAL_INV of it a local
 * protection error; either way the MR keeps working.
 */
static void invalidate_ordinary_mr(void)
{
	struct snic_rdma_stats st;
	struct snic_cqe e;
	struct wqe w;
	uint8_t d[32], x[32];
	uint16_t idx;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	qp_recv(&sb.qp, 0x61, 100, sb.mr.key, sb.mr.iova);
	w_init(&w, SNIC_WQE_SEND_INV, SNIC_WQE_F_SIGNAL, sb.mr.key);
	w_data(&w, 20, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.wqe_counter, idx);
	CHECK_EQ(e.syndrome, SNIC_RST_REM_INV_REQ);
	CHECK(rstats(B, &st));
	CHECK_EQ(st.inv_req_naks_sent, 1);
	CHECK(pair_reconnect());
	/* the MR still takes a WRITE */
	fill(d, sizeof(d), 61);
	mr_write(&sa.mr, 0, d, sizeof(d));
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 64, sb.mr.key);
	w_data(&w, sizeof(d), sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, sizeof(d), &e);
	mr_read(&sb.mr, 64, x, sizeof(x));
	CHECK(!memcmp(x, d, sizeof(d)));
	/* LOCAL_INV of it: a local error, and the MR is still live */
	w_init(&w, SNIC_WQE_LOCAL_INV, SNIC_WQE_F_SIGNAL, sb.mr.key);
	idx = qp_post(&sb.qp, &w);
	CHECK(cq_wait(&sb.scq, &e, 1000000));
	CHECK_EQ(e.wqe_counter, idx);
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_PROT);
	CHECK(pair_reconnect());
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 128, sb.mr.key);
	w_data(&w, sizeof(d), sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, sizeof(d), &e);
}

/*
 * Source spoofing: a user UD QP's WQE names a source address table entry
 * (sgid_index); whatever smac/sip its AV carries, the packet goes out
 * with the entry's.  An entry that is not set fails the WQE
 * (SNIC_RST_LOC_QP_OP, tx_bad_src) and nothing is sent.
 */
static void ud_source_from_table(void)
{
	static const uint8_t evil_mac[6] = { 0x02, 0x66, 0x66, 0x66, 0x66, 0x66 };
	struct snic_rdma_stats st;
	struct snic_wqe_ud ud;
	struct side ua, ub;
	struct snic_cqe e;
	struct wqe w;
	uint8_t dst[64];
	uint16_t idx;
	int set;

	CHECK(env_start());
	set = src_addr_set(A, 3, true, mac_a, ip_a);
	CHECK(side_make(&ua, A, SNIC_QPT_UD));
	CHECK(side_make(&ub, B, SNIC_QPT_UD));
	CHECK(qp_ud_up(&ua.qp, 0x1234));
	CHECK(qp_ud_up(&ub.qp, 0x5678));
	qp_recv(&ub.qp, 0xaa, 2000, ub.mr.key, ub.mr.iova);
	memset(&ud, 0, sizeof(ud));
	av_fill(&ud.av, A);
	memcpy(ud.av.smac, evil_mac, 6);
	ud.av.sip = htonl(0x0a000063);
	ud.av.sgid_index = 3;
	ud.dest_qpn = ub.qp.qpn;
	ud.qkey = 0x5678;
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_seg(&w, &ud, sizeof(ud));
	w_data(&w, 16, ua.mr.key, ua.mr.iova);
	idx = qp_post(&ua.qp, &w);
	CHECK_REQ(&ua.scq, idx, SNIC_WQE_SEND, 16, &e);
	CHECK(cq_wait(&ub.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK(!memcmp(e.smac, mac_a, 6));
	mr_read(&ub.mr, 0, dst, sizeof(dst));
	CHECK_EQ(ntohl(*(uint32_t *)(dst + 20 + 12)), ip_a);
	CHECK_EQ(set, OK);
	/* an entry nobody set: the WQE fails, nothing goes out */
	qp_recv(&ub.qp, 0xbb, 2000, ub.mr.key, ub.mr.iova + 4096);
	ud.av.sgid_index = 7;
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_seg(&w, &ud, sizeof(ud));
	w_data(&w, 16, ua.mr.key, ua.mr.iova);
	idx = qp_post(&ua.qp, &w);
	CHECK(cq_wait(&ua.scq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_QP_OP);
	CHECK_EQ(e.wqe_counter, idx);
	CHECK(cq_empty(&ub.rcq));
	CHECK(rstats(A, &st));
	CHECK_EQ(st.tx_bad_src, 1);
	/* bad table entries are refused */
	CHECK_EQ(src_addr_set(A, SNIC_SRC_ADDRS, true, mac_a, ip_a),
		 SNIC_AQ_EINVAL_PARAM);
}

/* Give the request frame @f another IPv4 source; checksums fixed. */
static void set_src_ip(uint8_t *f, size_t len, uint32_t ip)
{
	uint8_t *h = f + 14;
	uint32_t sum = 0;
	int i;

	*(uint32_t *)(h + 12) = htonl(ip);
	h[10] = h[11] = 0;
	for (i = 0; i < 20; i += 2)
		sum += h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	h[10] = ~sum >> 8;
	h[11] = ~sum;
	fix_icrc(f, len);
}

/*
 * Connection injection: an RC request with the expected QPN and PSN but
 * from another IPv4 source than B's QP's path is dropped and counted
 * (rx_bad_src) and does not consume the PSN; the real peer's is accepted.
 */
static void rc_wrong_source(void)
{
	struct snic_rdma_stats s0, s1;
	struct snic_cqe e;
	uint8_t f[2048];
	size_t len;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	CHECK(rstats(B, &s0));
	qp_recv(&sb.qp, 1, 4096, sb.mr.key, sb.mr.iova);
	len = mk_req(f, 0x04, sb.qp.qpn, 100, 64);
	set_src_ip(f, len, ip_a + 77);
	CHECK(inj_send(f, len));
	pump(16);
	len = mk_req(f, 0x04, sb.qp.qpn, 100, 32);
	CHECK(inj_send(f, len));
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.byte_cnt, 32);
	CHECK(rstats(B, &s1));
	CHECK_EQ(s1.rx_bad_src, s0.rx_bad_src + 1);
	CHECK_EQ(s1.rx_pkts, s0.rx_pkts + 1);
}

/* SRQ shared by two QPs, limit event, and the receive-side events. */
static void srq_shared(void)
{
	struct snic_aq_create_srq cs;
	struct snic_aq_modify_srq ms;
	struct qp a2, b2;
	struct snic_eq eb;
	struct snic_eqe q;
	struct snic_cqe e;
	struct wqe w;
	uint64_t ring, dbr, r;
	uint32_t srqn;
	int i, from1 = 0, from2 = 0;

	CHECK(env_start());
	CHECK_EQ(eq_create(&eb, B, 5), OK);
	CHECK_EQ(port_up(B, eb.n), OK);
	CHECK(side_make(&sa, A, SNIC_QPT_RC));
	memset(&sb, 0, sizeof(sb));
	sb.d = B;
	sb.pdn = pd_create(B);
	CHECK_EQ(snic_cq_create(&sb.scq, B, 8, SNIC_EQN_NONE, 4), OK);
	CHECK_EQ(snic_cq_create(&sb.rcq, B, 8, SNIC_EQN_NONE, 4), OK);
	CHECK_EQ(mr_create(&sb.mr, B, sb.pdn, BUF_LEN, ALL_ACCESS, 0), OK);
	ring = galloc(256 * 16, 64);
	dbr = galloc(64, 64);
	memset(&cs, 0, sizeof(cs));
	cs.pdn = sb.pdn;
	cs.log_size = 4;
	cs.log_stride = 5;
	cs.db_page = 4;
	cs.ring_addr = ring;
	cs.dbr_addr = dbr;
	cs.limit = 0;
	CHECK_EQ(snic_aq_cmd(B, SNIC_AQ_CREATE_SRQ, &cs, sizeof(cs), &r), OK);
	srqn = r;
	/* an SRQ of another PD is refused */
	CHECK_EQ(qp_create(&b2, B, SNIC_QPT_RC, pd_create(B), &sb.scq, &sb.rcq,
			   srqn), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(qp_create(&sb.qp, B, SNIC_QPT_RC, sb.pdn, &sb.scq, &sb.rcq,
			   srqn), OK);
	CHECK_EQ(qp_create(&b2, B, SNIC_QPT_RC, sb.pdn, &sb.scq, &sb.rcq, srqn),
		 OK);
	CHECK_EQ(qp_create(&a2, A, SNIC_QPT_RC, sa.pdn, &sa.scq, &sa.rcq, -1),
		 OK);
	CHECK(qp_connect(&sa.qp, &sb.qp, &conn_default, 1, 2));
	CHECK(qp_connect(&sb.qp, &sa.qp, &conn_default, 2, 1));
	CHECK(qp_connect(&a2, &b2, &conn_default, 10, 20));
	/* b2 only receives: RTR is enough, and its first packet is COMM_EST */
	CHECK(qp_connect_to(&b2, &a2, &conn_default, 20, 10, false));
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_SRQ, srqn), SNIC_AQ_EBUSY);
	/* 6 receive WQEs of 32 bytes; limit armed at 3 */
	for (i = 0; i < 6; i++) {
		uint8_t b[32] = { 0 };
		struct snic_recv_hdr *h = (void *)b;
		struct snic_wqe_data *d = (void *)(b + 16);

		h->cookie = 0x500 + i;
		h->num_sge = 1;
		d->byte_count = 1000;
		d->lkey = sb.mr.key;
		d->addr = sb.mr.iova + i * 1000;
		qt_memwrite(qt, ring + i * 32, b, 32);
	}
	qt_writel(qt, dbr, 6);
	snic_db(B, 4, SNIC_DB_SRQ, srqn, 6);
	ms.srqn = srqn;
	ms.limit = 3;
	CHECK_EQ(snic_aq_cmd(B, SNIC_AQ_MODIFY_SRQ, &ms, sizeof(ms), NULL), OK);
	for (i = 0; i < 4; i++) {
		w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
		w_data(&w, 100 + i, sa.mr.key, sa.mr.iova);
		qp_post(i % 2 ? &a2 : &sa.qp, &w);
		CHECK(cq_wait(&sb.rcq, &e, 1000000));
		CHECK_EQ(e.opcode, SNIC_CQE_RECV);
		CHECK_EQ(e.cookie, 0x500u + i);
		CHECK_EQ(e.wqe_counter, i);
		CHECK_EQ(e.byte_cnt, 100u + i);
		from1 += e.rdma_qpn == sb.qp.qpn;
		from2 += e.rdma_qpn == b2.qpn;
	}
	CHECK_EQ(from1, 2);
	CHECK_EQ(from2, 2);
	CHECK(eq_find(&eb, SNIC_EQE_QP_COMM_EST, &q));
	CHECK_EQ(q.obj, b2.qpn);
	CHECK(eq_find(&eb, SNIC_EQE_SRQ_LIMIT, &q));
	CHECK_EQ(q.obj, srqn);
	CHECK_EQ(q.data, 2);
	/* a QP on an SRQ going to ERR raises LAST_WQE, no receive flush */
	{
		struct snic_qp_attr a;

		memset(&a, 0, sizeof(a));
		CHECK_EQ(qp_state(&b2, SNIC_QPS_ERR, 0, &a), OK);
	}
	CHECK(eq_find(&eb, SNIC_EQE_QP_LAST_WQE, &q));
	CHECK_EQ(q.obj, b2.qpn);
	CHECK(cq_empty(&sb.rcq));
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_QP, b2.qpn), OK);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_QP, sb.qp.qpn), OK);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_SRQ, srqn), OK);
}

/* SQD drains, events; CQ armed for solicited completions only. */
static void sqd_and_solicited_events(void)
{
	struct snic_qp_attr a;
	struct snic_eq ea, eb;
	struct snic_eqe q;
	struct snic_cqe e;
	struct wqe w;

	CHECK(env_start());
	CHECK_EQ(eq_create(&ea, A, 5), OK);
	CHECK_EQ(eq_create(&eb, B, 5), OK);
	CHECK_EQ(port_up(A, ea.n), OK);
	CHECK(side_make(&sa, A, SNIC_QPT_RC));
	CHECK(side_make_eq(&sb, B, SNIC_QPT_RC, eb.n));
	CHECK(qp_connect(&sa.qp, &sb.qp, &conn_default, 1, 2));
	CHECK(qp_connect(&sb.qp, &sa.qp, &conn_default, 2, 1));
	/* armed for solicited only: a plain SEND raises nothing */
	snic_db(B, 4, SNIC_DB_CQ_ARM_SE, sb.rcq.n, 0);
	qp_recv(&sb.qp, 1, 100, sb.mr.key, sb.mr.iova);
	qp_recv(&sb.qp, 2, 100, sb.mr.key, sb.mr.iova);
	w_init(&w, SNIC_WQE_SEND, 0, 0);
	w_data(&w, 10, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK(!eq_find(&eb, SNIC_EQE_COMPLETION, &q));
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SOLICITED, 0);
	w_data(&w, 10, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.rdma_flags, SNIC_CQE_RF_SOLICITED);
	CHECK(eq_find(&eb, SNIC_EQE_COMPLETION, &q));
	CHECK_EQ(q.obj, sb.rcq.n);
	/* RTS -> SQD with notify: drained event once the SQ is idle */
	memset(&a, 0, sizeof(a));
	a.sqd_notify = 1;
	CHECK_EQ(qp_state(&sa.qp, SNIC_QPS_SQD, SNIC_QP_ATTR_SQD_NOTIFY, &a),
		 OK);
	CHECK(eq_find(&ea, SNIC_EQE_QP_SQ_DRAINED, &q));
	CHECK_EQ(q.obj, sa.qp.qpn);
	/* posted in SQD: waits until back in RTS */
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 10, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_empty(&sa.scq));
	CHECK_EQ(qp_state(&sa.qp, SNIC_QPS_RTS, 0, &a), OK);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ);
}

/* A hostile peer/guest mix: random WQEs and doorbells never crash. */
static void hostile_wqes(void)
{
	struct snic_cqe e;
	struct wqe w;
	int i, k;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	srand(11);
	for (i = 0; i < 300; i++) {
		w_init(&w, rand() % 20, rand() % 16, rand());
		for (k = 16; k < (int)sizeof(w.b); k++)
			w.b[k] = rand() % 3 ? 0 : rand();
		if (rand() % 2) {
			struct snic_wqe_data *d = (void *)(w.b + 16 * (1 + rand() % 3));

			d->lkey = rand() % 2 ? sa.mr.key : (uint32_t)rand();
			d->addr = sa.mr.iova + rand() % BUF_LEN;
			d->byte_count = rand() % 5000;
		}
		w.ds = rand() % 18;
		qp_put(&sa.qp, &w);
		if (rand() % 3 == 0)
			qp_recv(&sb.qp, i, rand() % 3000, rand() % 2 ?
				sb.mr.key : (uint32_t)rand(),
				sb.mr.iova + rand() % BUF_LEN);
		if (rand() % 4 == 0) {
			qp_ring(&sa.qp);
			pump(4);
			qt_clock_step(qt, 100000000);
		}
		if (rand() % 16 == 0)
			snic_db(A, rand() % 8, 0x18 + 4 * (rand() % 4),
				rand() % 8, rand());
		while (snic_cq_peek(&sa.scq, &e, 1))
			sa.scq.cons++;
		qt_writel(qt, sa.scq.dbr, sa.scq.cons);
		while (snic_cq_peek(&sb.rcq, &e, 1))
			sb.rcq.cons++;
		qt_writel(qt, sb.rcq.dbr, sb.rcq.cons);
		if (qp_query_state(&sa.qp) == SNIC_QPS_ERR && rand() % 4 == 0)
			CHECK(pair_reconnect());
	}
	CHECK(qt_alive(qt));
	CHECK_EQ(snic_rd(A, SNIC_REG_ID), SNIC_ID_MAGIC);
	/* still works */
	CHECK(pair_up(&conn_default));
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 10, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ);
}

/* PSNs wrap at 2^24 in the middle of messages. */
static void psn_wrap(void)
{
	static uint8_t src[40000], dst[40000];
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	CHECK(env_start());
	CHECK(side_make(&sa, A, SNIC_QPT_RC) && side_make(&sb, B, SNIC_QPT_RC));
	CHECK(qp_connect(&sa.qp, &sb.qp, &conn_default, 0xfffff0, 0xfffffa));
	CHECK(qp_connect(&sb.qp, &sa.qp, &conn_default, 0xfffffa, 0xfffff0));
	fill(src, sizeof(src), 61);
	mr_write(&sa.mr, 0, src, sizeof(src));
	mr_write(&sb.mr, 100000, src, sizeof(src));
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 40000, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, 40000, &e);
	mr_read(&sb.mr, 0, dst, sizeof(dst));
	CHECK(!memcmp(src, dst, sizeof(dst)));
	w_init(&w, SNIC_WQE_RDMA_READ, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 100000, sb.mr.key);
	w_data(&w, 40000, sa.mr.key, sa.mr.iova + 50000);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_READ, 40000, &e);
	mr_read(&sa.mr, 50000, dst, sizeof(dst));
	CHECK(!memcmp(src, dst, sizeof(dst)));
	{
		struct snic_qp_attr a;

		CHECK_EQ(snic_rdma_query_qp(A, sa.qp.qpn, &a), OK);
		CHECK_EQ(a.sq_psn, (0xfffff0 + 40 + 40) & 0xffffff);
		CHECK_EQ(snic_rdma_query_qp(B, sb.qp.qpn, &a), OK);
		CHECK_EQ(a.rq_psn, (0xfffff0 + 80) & 0xffffff);
	}
}

/*
 * max_rd_atomic 1: a second READ goes out only after the first one's
 * responses; a fenced SEND waits for the READ before it.  Checked on the
 * wire through the capture port.
 */
static void rd_atomic_limit_and_fence(void)
{
	struct conn c = conn_default;
	uint8_t f[9100], ops[64];
	struct snic_cqe e;
	struct wqe w;
	int n, nops = 0, i, first_req = -1, second_req = -1, resp = -1;
	int send = -1, last_resp = -1;

	CHECK(env_start());
	c.rd_atomic = 1;
	CHECK(pair_up(&c));
	qp_recv(&sb.qp, 1, 100, sb.mr.key, sb.mr.iova);
	cap_drain();
	for (i = 0; i < 2; i++) {
		w_init(&w, SNIC_WQE_RDMA_READ, SNIC_WQE_F_SIGNAL, 0);
		w_raddr(&w, sb.mr.iova + i * 4096, sb.mr.key);
		w_data(&w, 3000, sa.mr.key, sa.mr.iova + i * 4096);
		qp_put(&sa.qp, &w);
	}
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL | SNIC_WQE_F_FENCE, 0);
	w_data(&w, 10, sa.mr.key, sa.mr.iova);
	qp_put(&sa.qp, &w);
	qp_ring(&sa.qp);
	for (i = 0; i < 3; i++) {
		int k;

		for (k = 0; k < 400 && !snic_cq_peek(&sa.scq, &e, 1); k++)
			qt_readl(qt, A->bar0 + SNIC_REG_ID);
		CHECK_EQ(e.syndrome, 0);
		sa.scq.cons++;
	}
	while ((n = cap_recv(f, sizeof(f), 100)) > 0 && nops < 64)
		if (n > 42)
			ops[nops++] = f[42];
	for (i = 0; i < nops; i++) {
		if (ops[i] == 0x0c && first_req < 0)
			first_req = i;
		else if (ops[i] == 0x0c)
			second_req = i;
		if (ops[i] >= 0x0d && ops[i] <= 0x10) {
			if (resp < 0)
				resp = i;
			last_resp = i;
		}
		if (ops[i] == 0x04)
			send = i;
	}
	CHECK(first_req >= 0 && second_req > 0 && resp > 0 && send > 0);
	CHECK(resp < second_req);
	CHECK(send > last_resp);
}

/*
 * Fairness and coexistence: a 256 KiB WRITE at path MTU 256 (1024 packets)
 * on one QP does not hold back a SEND on another QP of the same device,
 * and Ethernet frames still reach an Ethernet RQ while RoCE frames to the
 * same port never do.  B sends nothing (loss-every=1) until then, so the
 * WRITE is certainly still under way (its window full, unacknowledged)
 * however fast the main loop runs between qtest commands.
 */
static void fairness_and_ethernet(void)
{
	struct conn c = conn_default;
	struct snic_aq_create_rq ra = { 0 };
	struct snic_steer_rule rule = { 0 };
	struct snic_rx_desc rd;
	struct snic_qp_attr qa;
	struct qp a2, b2;
	struct snic_cq erq_cq;
	struct snic_cqe e;
	struct wqe w;
	uint64_t ering, edbr, ebuf, r;
	uint8_t f[128];
	int i;

	CHECK(env_start());
	c.mtu = SNIC_MTU_256;
	CHECK(pair_up(&c));
	CHECK_EQ(qp_create(&a2, A, SNIC_QPT_RC, sa.pdn, &sa.scq, &sa.rcq, -1),
		 OK);
	CHECK_EQ(qp_create(&b2, B, SNIC_QPT_RC, sb.pdn, &sb.scq, &sb.rcq, -1),
		 OK);
	CHECK(qp_connect(&a2, &b2, &c, 1, 2));
	CHECK(qp_connect(&b2, &a2, &c, 2, 1));
	/* B: an Ethernet RQ behind a catch-all rule */
	CHECK_EQ(snic_cq_create(&erq_cq, B, 6, SNIC_EQN_NONE, 2), OK);
	ering = galloc(16 * 64, 64);
	edbr = galloc(64, 64);
	ebuf = galloc(2048 * 8, 64);
	ra.ring_addr = ering;
	ra.dbr_addr = edbr;
	ra.log_size = 3;
	ra.type = SNIC_RQ_PLAIN;
	ra.cqn = erq_cq.n;
	ra.db_page = 2;
	CHECK_EQ(snic_aq_cmd(B, SNIC_AQ_CREATE_RQ, &ra, sizeof(ra), &r), OK);
	for (i = 0; i < 8; i++) {
		rd.byte_count = 2048;
		rd.lkey = 0;
		rd.addr = ebuf + 2048 * i;
		qt_memwrite(qt, ering + 16 * i, &rd, sizeof(rd));
	}
	qt_writel(qt, edbr, 8);
	rule.priority = 100;
	rule.dest = SNIC_DEST_RQ;
	rule.dest_id = r;
	CHECK_EQ(snic_aq_buf(B, SNIC_AQ_ADD_RULE, &rule, sizeof(rule),
			     sizeof(rule), 0, 0, NULL, 0, NULL), OK);

	CHECK(qt_qom_set_u64(qt, "/machine/peripheral/snic1", "loss-every", 1));
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, BUF_LEN, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	qp_recv(&b2, 77, 100, sb.mr.key, sb.mr.iova);
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, 10, sa.mr.key, sa.mr.iova);
	qp_post(&a2, &w);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.cookie, 77);
	/* the big WRITE is still under way */
	CHECK_EQ(snic_rdma_query_qp(A, sa.qp.qpn, &qa), OK);
	CHECK_EQ(qa.sq_outstanding, 1);
	/* an Ethernet frame to B meanwhile: delivered to the Ethernet RQ */
	memset(f, 0, sizeof(f));
	memcpy(f, mac_b, 6);
	memcpy(f + 6, mac_a, 6);
	f[12] = 0x88;
	f[13] = 0xb5;
	CHECK(inj_send(f, sizeof(f)));
	CHECK(cq_wait(&erq_cq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RX);
	CHECK_EQ(e.byte_cnt, sizeof(f));
	/* B acknowledges again: both QPs complete (the loss probe resumes) */
	CHECK(qt_qom_set_u64(qt, "/machine/peripheral/snic1", "loss-every", 0));
	/* both QPs' completions; no RoCE frame went to the Ethernet RQ */
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.syndrome, 0);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.syndrome, 0);
	CHECK(cq_empty(&erq_cq));
}

/* Reset and QP destruction with traffic, timers and BH work pending. */
static void reset_under_traffic(void)
{
	struct snic_cqe e;
	struct wqe w;
	int i;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	for (i = 0; i < 8; i++) {
		w_init(&w, i % 2 ? SNIC_WQE_RDMA_READ : SNIC_WQE_RDMA_WRITE,
		       SNIC_WQE_F_SIGNAL, 0);
		w_raddr(&w, sb.mr.iova, sb.mr.key);
		w_data(&w, 30000, sa.mr.key, sa.mr.iova + 100000);
		qp_put(&sa.qp, &w);
	}
	qp_ring(&sa.qp);
	qt_readl(qt, A->bar0 + SNIC_REG_ID);
	/* B's QP vanishes mid-transfer, then A is reset */
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_QP, sb.qp.qpn), OK);
	qt_readl(qt, A->bar0 + SNIC_REG_ID);
	CHECK(snic_reset(A));
	for (i = 0; i < 10; i++) {
		pump(8);
		qt_clock_step(qt, 1000000000);
	}
	CHECK(qt_alive(qt));
	/* both usable again */
	CHECK(snic_aq_ready(A, 64));
	CHECK_EQ(port_up(A, SNIC_EQN_NONE), OK);
	CHECK(pair_up(&conn_default));
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 5000, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ);
	CHECK_EQ(e.syndrome, 0);
}

/*
 * CTRL.RESET of both ends while go-back-N recovery is in flight (every 3rd
 * packet lost: retry and probe timers armed, windows full, responses
 * queued), then far past every timer's deadline: the reset freed each QP
 * with nothing of it left to run; both ends come back and, loss off,
 * carry traffic again.  Under the ASan build a use of a freed QP window,
 * page list or timer fails the asan tier.
 */
static void reset_under_loss(void)
{
	struct snic_qp_attr qa;
	struct conn c = conn_default;
	struct snic_cqe e;
	struct wqe w;
	int i;

	CHECK(env_start_opts(",loss-every=3"));
	c.timeout = 10;			/* 4.2 ms */
	CHECK(pair_up(&c));
	for (i = 0; i < 16; i++) {
		w_init(&w, i % 2 ? SNIC_WQE_RDMA_READ : SNIC_WQE_RDMA_WRITE,
		       SNIC_WQE_F_SIGNAL, 0);
		w_raddr(&w, sb.mr.iova + (i % 4) * 30000, sb.mr.key);
		w_data(&w, 30000, sa.mr.key, sa.mr.iova + (i % 4) * 30000);
		qp_put(&sa.qp, &w);
	}
	qp_ring(&sa.qp);
	pump(4);
	CHECK_EQ(snic_rdma_query_qp(A, sa.qp.qpn, &qa), OK);
	CHECK(qa.sq_outstanding > 0);
	/* requested on both, carried out later by each device's bottom half */
	snic_wr(A, SNIC_REG_CTRL, SNIC_CTRL_RESET);
	snic_wr(B, SNIC_REG_CTRL, SNIC_CTRL_RESET);
	CHECK(snic_reset(A));
	CHECK(snic_reset(B));
	for (i = 0; i < 10; i++) {
		pump(8);
		qt_clock_step(qt, 1000000000);
	}
	CHECK(qt_alive(qt));
	CHECK(qt_qom_set_u64(qt, "/machine/peripheral/snic0", "loss-every", 0));
	CHECK(qt_qom_set_u64(qt, "/machine/peripheral/snic1", "loss-every", 0));
	CHECK(snic_aq_ready(A, 64));
	CHECK(snic_aq_ready(B, 64));
	CHECK_EQ(snic_rdma_query_qp(A, sa.qp.qpn, &qa), SNIC_AQ_ENOENT);
	CHECK_EQ(port_up(A, SNIC_EQN_NONE), OK);
	CHECK_EQ(port_up(B, SNIC_EQN_NONE), OK);
	CHECK(pair_up(&conn_default));
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 5000, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ);
	CHECK_EQ(e.syndrome, 0);
}

int main(void)
{
	RUN("device/snic_rdma", caps_and_objects);
	RUN("device/snic_rdma", hostile_admin);
	RUN("device/snic_rdma", rc_send_recv);
	RUN("device/snic_rdma", ud_send_recv);
	RUN("device/snic_rdma", ud_source_from_table);
	RUN("device/snic_rdma", gsi_qp);
	RUN("device/snic_rdma", rc_write_read_atomic);
	RUN("device/snic_rdma", mtu_4096);
	RUN("device/snic_rdma", unsignaled);
	RUN("device/snic_rdma", psn_wrap);
	RUN("device/snic_rdma", rd_atomic_limit_and_fence);
	RUN("device/snic_rdma", icrc_capture);
	RUN("device/snic_rdma", malformed_frames);
	RUN("device/snic_rdma", rc_wrong_source);
	RUN("device/snic_rdma", remote_access_errors);
	RUN("device/snic_rdma", local_errors);
	RUN("device/snic_rdma", loss_injection);
	RUN("device/snic_rdma", loss_every_13_big_write);
	RUN("device/snic_rdma", read_loss_every_3);
	RUN("device/snic_rdma", read_loss_every_4);
	RUN("device/snic_rdma", loss_ppm_atomics);
	RUN("device/snic_rdma", rnr_retry);
	RUN("device/snic_rdma", retry_exceeded);
	RUN("device/snic_rdma", cq_resize);
	RUN("device/snic_rdma", fast_reg_and_invalidate);
	RUN("device/snic_rdma", invalidate_ordinary_mr);
	RUN("device/snic_rdma", srq_shared);
	RUN("device/snic_rdma", sqd_and_solicited_events);
	RUN("device/snic_rdma", cq_moderation);
	RUN("device/snic_rdma", hostile_wqes);
	RUN("device/snic_rdma", fairness_and_ethernet);
	RUN("device/snic_rdma", reset_under_traffic);
	RUN("device/snic_rdma", reset_under_loss);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
