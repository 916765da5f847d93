/*
 * snic device tier: unreliable connected (UC) QPs on the two-snic RDMA
 * environment - the UC state machine's attributes, SEND and WRITE (with
 * and without immediate) as UC opcodes on the wire with no ACKs, message
 * boundaries, a lost middle packet dropping only its message at the
 * responder (which keeps its receive WQE for the next one), and READ,
 * atomics and SEND with invalidate refused.  docs/snic-rdma.md
 * "Unreliable connected QPs".
 */
#include <arpa/inet.h>
#include <string.h>
#include "../lib/check.h"
#include "snic_rdma_env.h"

#define LOSS_PATH	"/machine/peripheral/snic0"

static bool uc_pair_up(void)
{
	return side_make(&sa, A, SNIC_QPT_UC) && side_make(&sb, B, SNIC_QPT_UC) &&
	       qp_connect(&sa.qp, &sb.qp, &conn_default, 100, 5000) &&
	       qp_connect(&sb.qp, &sa.qp, &conn_default, 5000, 100);
}

/* Post a signaled SEND/WRITE of @len bytes at offset @off of A's MR. */
static uint16_t uc_post(uint8_t op, uint32_t len, uint64_t off, uint64_t roff,
			uint32_t imm)
{
	struct wqe w;

	w_init(&w, op, SNIC_WQE_F_SIGNAL, imm);
	if (op == SNIC_WQE_RDMA_WRITE || op == SNIC_WQE_RDMA_WRITE_IMM)
		w_raddr(&w, sb.mr.iova + roff, sb.mr.key);
	w_data(&w, len, sa.mr.key, sa.mr.iova + off);
	return qp_put(&sa.qp, &w);
}

static void uc_state_machine(void)
{
	struct snic_qp_attr a;

	CHECK(env_start());
	CHECK(side_make(&sa, A, SNIC_QPT_UC));
	CHECK(side_make(&sb, B, SNIC_QPT_RC));
	memset(&a, 0, sizeof(a));
	CHECK_EQ(qp_state(&sa.qp, SNIC_QPS_INIT, SNIC_QP_ATTR_PKEY_INDEX, &a),
		 SNIC_AQ_EINVAL_PARAM);			/* ACCESS required */
	CHECK_EQ(qp_state(&sa.qp, SNIC_QPS_INIT, SNIC_QP_ATTR_PKEY_INDEX |
			  SNIC_QP_ATTR_ACCESS, &a), OK);
	av_fill(&a.av, A);
	a.path_mtu = SNIC_MTU_1024;
	CHECK_EQ(qp_state(&sa.qp, SNIC_QPS_RTR, SNIC_QP_ATTR_AV |
			  SNIC_QP_ATTR_PATH_MTU | SNIC_QP_ATTR_RQ_PSN, &a),
		 SNIC_AQ_EINVAL_PARAM);			/* DEST_QPN required */
	/* no MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER: an RC QP needs them */
	a.dest_qpn = sb.qp.qpn;
	CHECK_EQ(qp_state(&sa.qp, SNIC_QPS_RTR, SNIC_QP_ATTR_AV |
			  SNIC_QP_ATTR_PATH_MTU | SNIC_QP_ATTR_DEST_QPN |
			  SNIC_QP_ATTR_RQ_PSN, &a), OK);
	/* no TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_RD_ATOMIC */
	CHECK_EQ(qp_state(&sa.qp, SNIC_QPS_RTS, SNIC_QP_ATTR_SQ_PSN, &a), OK);
	CHECK_EQ(qp_query_state(&sa.qp), SNIC_QPS_RTS);
	/* the same masks do not bring an RC QP up */
	memset(&a, 0, sizeof(a));
	CHECK_EQ(qp_state(&sb.qp, SNIC_QPS_INIT, SNIC_QP_ATTR_PKEY_INDEX |
			  SNIC_QP_ATTR_ACCESS, &a), OK);
	av_fill(&a.av, B);
	a.path_mtu = SNIC_MTU_1024;
	a.dest_qpn = sa.qp.qpn;
	CHECK_EQ(qp_state(&sb.qp, SNIC_QPS_RTR, SNIC_QP_ATTR_AV |
			  SNIC_QP_ATTR_PATH_MTU | SNIC_QP_ATTR_DEST_QPN |
			  SNIC_QP_ATTR_RQ_PSN, &a), SNIC_AQ_EINVAL_PARAM);
}

static void uc_send_write(void)
{
	static uint8_t src[20000], dst[20000];
	struct snic_rdma_stats sta, stb;
	uint8_t f[9100];
	struct snic_cqe e;
	int n, i, ops[0x40] = { 0 };
	uint16_t idx[4];

	CHECK(env_start());
	CHECK(uc_pair_up());
	fill(src, sizeof(src), 41);
	mr_write(&sa.mr, 0, src, sizeof(src));
	qp_recv(&sb.qp, 0x1001, 8000, sb.mr.key, sb.mr.iova + 1000);
	qp_recv(&sb.qp, 0x1002, 100, sb.mr.key, sb.mr.iova + 20000);
	qp_recv(&sb.qp, 0x1003, 0, sb.mr.key, sb.mr.iova);
	cap_drain();
	idx[0] = uc_post(SNIC_WQE_SEND, 5000, 0, 0, 0);		/* 5 packets */
	idx[1] = uc_post(SNIC_WQE_SEND_IMM, 3, 7, 0, 0xcafe0002);
	idx[2] = uc_post(SNIC_WQE_RDMA_WRITE, 3000, 100, 30000, 0); /* 3 */
	idx[3] = uc_post(SNIC_WQE_RDMA_WRITE_IMM, 1024, 200, 40000,
			 0xcafe0004);
	qp_ring(&sa.qp);
	/* no pump before the capture: it drains the capture socket */
	for (i = 0; i < 200 && !snic_cq_peek(&sa.scq, &e, 4); i++)
		qt_readl(qt, A->bar0 + SNIC_REG_ID);
	while ((n = cap_recv(f, sizeof(f), 200)) > 0) {
		uint32_t wire = f[n - 4] | f[n - 3] << 8 | f[n - 2] << 16 |
				(uint32_t)f[n - 1] << 24;

		CHECK_EQ(wire, icrc_of(f, n));
		CHECK(f[42] >= 0x20 && f[42] < 0x40);	/* UC opcodes only */
		CHECK_EQ(f[42 + 8] & 0x80, 0);		/* never AckReq */
		ops[f[42] & 0x3f]++;
	}
	CHECK_EQ(ops[0x20], 1);		/* SEND FIRST */
	CHECK_EQ(ops[0x21], 3);		/* SEND MIDDLE */
	CHECK_EQ(ops[0x22], 1);		/* SEND LAST */
	CHECK_EQ(ops[0x25], 1);		/* SEND ONLY with immediate */
	CHECK_EQ(ops[0x26], 1);		/* WRITE FIRST */
	CHECK_EQ(ops[0x27], 1);		/* WRITE MIDDLE */
	CHECK_EQ(ops[0x28], 1);		/* WRITE LAST */
	CHECK_EQ(ops[0x2b], 1);		/* WRITE ONLY with immediate */
	/* send completions in order, when the last packet left */
	CHECK_REQ(&sa.scq, idx[0], SNIC_WQE_SEND, 5000, &e);
	CHECK_REQ(&sa.scq, idx[1], SNIC_WQE_SEND_IMM, 3, &e);
	CHECK_REQ(&sa.scq, idx[2], SNIC_WQE_RDMA_WRITE, 3000, &e);
	CHECK_REQ(&sa.scq, idx[3], SNIC_WQE_RDMA_WRITE_IMM, 1024, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.cookie, 0x1001);
	CHECK_EQ(e.byte_cnt, 5000);
	CHECK_EQ(e.wqe_opcode, SNIC_WQE_SEND);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.cookie, 0x1002);
	CHECK_EQ(e.byte_cnt, 3);
	CHECK_EQ(e.rdma_flags, SNIC_CQE_RF_IMM);
	CHECK_EQ(ntohl(e.imm), 0xcafe0002);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.cookie, 0x1003);
	CHECK_EQ(e.byte_cnt, 1024);
	CHECK_EQ(e.wqe_opcode, SNIC_WQE_RDMA_WRITE_IMM);
	CHECK_EQ(ntohl(e.imm), 0xcafe0004);
	CHECK(cq_empty(&sb.rcq));
	mr_read(&sb.mr, 1000, dst, 5000);
	CHECK(!memcmp(dst, src, 5000));
	mr_read(&sb.mr, 20000, dst, 3);
	CHECK(!memcmp(dst, src + 7, 3));
	mr_read(&sb.mr, 30000, dst, 3000);
	CHECK(!memcmp(dst, src + 100, 3000));
	mr_read(&sb.mr, 40000, dst, 1024);
	CHECK(!memcmp(dst, src + 200, 1024));
	/* unreliable: no ACKs either way, nothing dropped */
	CHECK(rstats(A, &sta));
	CHECK(rstats(B, &stb));
	CHECK_EQ(sta.tx_pkts, 10);
	CHECK_EQ(stb.rx_pkts, 10);
	CHECK_EQ(stb.tx_acks + sta.rx_acks + stb.tx_pkts, 0);
	CHECK_EQ(stb.uc_dropped + stb.rx_no_qp + stb.rx_malformed, 0);
	CHECK_EQ(qp_query_state(&sa.qp), SNIC_QPS_RTS);
	CHECK_EQ(qp_query_state(&sb.qp), SNIC_QPS_RTS);
}

/*
 * loss-every on A drops its Nth RoCE packet (A's count goes on over the
 * phases).  Three 3-packet SENDs (packets 1-3, 4-6, 7-9) with packet 5
 * lost: B drops the second message only; its receive WQE takes the third.
 * Two 3-packet WRITEs with immediate (10-12, 13-15) with packet 15, a
 * LAST, lost: no receive CQE for the second, the SEND after it (16) takes
 * the next WQE.  A 2-packet SEND losing its FIRST (17): dropped, the SEND
 * after it (19) is received.
 */
static void uc_loss_drops_message(void)
{
	static uint8_t src[20000], dst[4000];
	struct snic_rdma_stats sta, stb;
	struct snic_cqe e;
	uint16_t idx[3];
	int i;

	CHECK(env_start());
	CHECK(uc_pair_up());
	CHECK(qt_qom_set_u64(qt, LOSS_PATH, "loss-every", 5));
	fill(src, sizeof(src), 43);
	mr_write(&sa.mr, 0, src, sizeof(src));
	for (i = 0; i < 5; i++)
		qp_recv(&sb.qp, 0x2000 + i, 4000, sb.mr.key,
			sb.mr.iova + 10000 * i);
	for (i = 0; i < 3; i++)
		idx[i] = uc_post(SNIC_WQE_SEND, 3000, 1000 * i, 0, 0);
	qp_ring(&sa.qp);
	/* the sender completes all three: it cannot know */
	for (i = 0; i < 3; i++)
		CHECK_REQ(&sa.scq, idx[i], SNIC_WQE_SEND, 3000, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.cookie, 0x2000);
	CHECK_EQ(e.byte_cnt, 3000);
	mr_read(&sb.mr, 0, dst, 3000);
	CHECK(!memcmp(dst, src, 3000));
	/* message 2 dropped; message 3 in the WQE message 2 had */
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.cookie, 0x2001);
	CHECK_EQ(e.byte_cnt, 3000);
	CHECK_EQ(e.wqe_counter, 1);
	mr_read(&sb.mr, 10000, dst, 3000);
	CHECK(!memcmp(dst, src + 2000, 3000));
	CHECK(cq_empty(&sb.rcq));
	CHECK(rstats(A, &sta));
	CHECK(rstats(B, &stb));
	CHECK_EQ(sta.loss_injected, 1);
	CHECK_EQ(sta.retransmits, 0);
	CHECK_EQ(stb.uc_dropped, 1);
	CHECK_EQ(stb.tx_pkts, 0);
	/* WRITE with immediate: 3 packets, then 3 more losing the LAST */
	CHECK(qt_qom_set_u64(qt, LOSS_PATH, "loss-every", 15));
	idx[0] = uc_post(SNIC_WQE_RDMA_WRITE_IMM, 3000, 0, 100000, 0x11);
	idx[1] = uc_post(SNIC_WQE_RDMA_WRITE_IMM, 3000, 5000, 110000, 0x22);
	idx[2] = uc_post(SNIC_WQE_SEND, 10, 9000, 0, 0);	/* packet 16 */
	qp_ring(&sa.qp);
	CHECK_REQ(&sa.scq, idx[0], SNIC_WQE_RDMA_WRITE_IMM, 3000, &e);
	CHECK_REQ(&sa.scq, idx[1], SNIC_WQE_RDMA_WRITE_IMM, 3000, &e);
	CHECK_REQ(&sa.scq, idx[2], SNIC_WQE_SEND, 10, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.cookie, 0x2002);
	CHECK_EQ(e.wqe_opcode, SNIC_WQE_RDMA_WRITE_IMM);
	CHECK_EQ(ntohl(e.imm), 0x11);
	mr_read(&sb.mr, 100000, dst, 3000);
	CHECK(!memcmp(dst, src, 3000));
	/* the lost LAST: the SEND after it lands in the next WQE */
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.cookie, 0x2003);
	CHECK_EQ(e.wqe_opcode, SNIC_WQE_SEND);
	CHECK_EQ(e.byte_cnt, 10);
	CHECK(cq_empty(&sb.rcq));
	CHECK(rstats(B, &stb));
	CHECK_EQ(stb.uc_dropped, 2);
	/* a lost FIRST: the rest of its message is not taken either */
	CHECK(qt_qom_set_u64(qt, LOSS_PATH, "loss-every", 17));
	idx[0] = uc_post(SNIC_WQE_SEND, 2000, 0, 0, 0);		/* 17, 18 */
	idx[1] = uc_post(SNIC_WQE_SEND, 20, 3000, 0, 0);	/* 19 */
	qp_ring(&sa.qp);
	CHECK_REQ(&sa.scq, idx[0], SNIC_WQE_SEND, 2000, &e);
	CHECK_REQ(&sa.scq, idx[1], SNIC_WQE_SEND, 20, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.cookie, 0x2004);
	CHECK_EQ(e.byte_cnt, 20);
	mr_read(&sb.mr, 40000, dst, 20);
	CHECK(!memcmp(dst, src + 3000, 20));
	CHECK(cq_empty(&sb.rcq));
	CHECK(rstats(A, &sta));
	CHECK(rstats(B, &stb));
	CHECK_EQ(sta.loss_injected, 3);
	CHECK_EQ(stb.uc_dropped, 3);
	CHECK_EQ(stb.rx_pkts, 19 - 3);
	CHECK_EQ(stb.tx_pkts + sta.retransmits, 0);
	CHECK_EQ(qp_query_state(&sb.qp), SNIC_QPS_RTS);
}

/* READ, atomics, SEND with invalidate: not UC operations. */
static void uc_refused(void)
{
	struct snic_rdma_stats st0, st1;
	struct snic_wqe_atomic at;
	struct snic_cqe e;
	uint8_t f[2048];
	struct wqe w;
	uint16_t idx;
	size_t len;

	CHECK(env_start());
	CHECK(uc_pair_up());
	w_init(&w, SNIC_WQE_RDMA_READ, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 64, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_QP_OP);
	CHECK_EQ(e.wqe_counter, idx);
	/* a send error takes a UC QP to SQE, as a UD QP */
	CHECK_EQ(qp_query_state(&sa.qp), SNIC_QPS_SQE);
	CHECK(uc_pair_up());
	memset(&at, 0, sizeof(at));
	w_init(&w, SNIC_WQE_ATOMIC_FA, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_seg(&w, &at, sizeof(at));
	w_data(&w, 8, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_QP_OP);
	CHECK(uc_pair_up());
	w_init(&w, SNIC_WQE_SEND_INV, SNIC_WQE_F_SIGNAL, sb.mr.key);
	w_data(&w, 8, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_QP_OP);
	/* on the wire: RC opcodes to a UC QP, UC to RC, 0x2c: not taken */
	CHECK(uc_pair_up());
	CHECK(rstats(B, &st0));
	len = mk_req(f, 0x04, sb.qp.qpn, 5000, 8);	/* RC SEND ONLY */
	CHECK(inj_send(f, len));
	len = mk_req(f, 0x2c, sb.qp.qpn, 5000, 0);	/* no UC READ */
	CHECK(inj_send(f, len));
	pump(50);
	CHECK(rstats(B, &st1));
	CHECK_EQ(st1.rx_no_qp - st0.rx_no_qp, 1);
	CHECK_EQ(st1.rx_malformed - st0.rx_malformed, 1);
	CHECK_EQ(st1.rx_pkts, st0.rx_pkts);
	CHECK(cq_empty(&sb.rcq));
	CHECK_EQ(qp_query_state(&sb.qp), SNIC_QPS_RTS);
}

int main(void)
{
	RUN("device/snic_rdma_uc", uc_state_machine);
	RUN("device/snic_rdma_uc", uc_send_write);
	RUN("device/snic_rdma_uc", uc_loss_drops_message);
	RUN("device/snic_rdma_uc", uc_refused);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
