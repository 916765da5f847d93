/*
 * snic device tier: low-latency QPs (SNIC_AQ_SET_LLQ, docs/snic-rdma.md
 * "Low-latency QPs"), driven through qtest with no guest on the two-snic
 * environment of snic_rdma_env.[ch]: SET_LLQ's checks, small SENDs placed
 * into the ring with payload, length and valid byte and no CQE, the
 * owner phase on the second pass, a full ring answered by RNR NAK until
 * the host returns a slot, larger messages and SEND with immediate taking
 * the receive queue.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "../lib/check.h"
#include "snic_rdma_env.h"

#define SLOT_LOG	6	/* 64-byte slots: 56 bytes of payload */
#define SLOT		(1u << SLOT_LOG)

/* The ring and consumer record of B's QP. */
static uint64_t ring, ci;

static int llq_set(struct snic_dev *d, uint32_t qpn, uint8_t log_slots,
		   uint8_t slot_log, uint8_t ci_every, uint64_t r, uint64_t c)
{
	struct snic_aq_set_llq a = { 0 };

	a.qpn = qpn;
	a.log_slots = log_slots;
	a.slot_log = slot_log;
	a.ci_every = ci_every;
	a.ring_addr = r;
	a.ci_addr = c;
	return snic_aq_cmd(d, SNIC_AQ_SET_LLQ, &a, sizeof(a), NULL);
}

/* An RC pair whose B QP has a 2^log_slots LLQ (set while in RESET). */
static bool llq_pair(uint8_t log_slots, uint8_t ci_every)
{
	size_t bytes = (size_t)SLOT << log_slots;
	uint8_t *zero = calloc(1, bytes);

	ring = galloc(bytes, 64);
	ci = galloc(64, 64);
	mwrite(ring, zero, bytes);
	mwrite(ci, zero, 4);
	free(zero);
	return side_make(&sa, A, SNIC_QPT_RC) && side_make(&sb, B, SNIC_QPT_RC) &&
	       llq_set(B, sb.qp.qpn, log_slots, SLOT_LOG, ci_every, ring,
		       ci) == OK &&
	       qp_connect(&sa.qp, &sb.qp, &conn_default, 100, 5000) &&
	       qp_connect(&sb.qp, &sa.qp, &conn_default, 5000, 100);
}

/* SEND @len bytes of A's MR at @off; the send completion must be OK. */
static bool llq_send(uint32_t len, uint64_t off, bool imm)
{
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	w_init(&w, imm ? SNIC_WQE_SEND_IMM : SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL,
	       imm ? 0x1234 : 0);
	w_data(&w, len, sa.mr.key, sa.mr.iova + off);
	idx = qp_post(&sa.qp, &w);
	return cq_wait(&sa.scq, &e, 1000000) && e.syndrome == SNIC_RST_OK &&
	       e.wqe_counter == idx;
}

/* Slot @n: payload equal to A's MR at @off, length @len, valid byte @v. */
static bool slot_is(uint32_t n, uint32_t len, uint64_t off, uint8_t v)
{
	uint8_t got[SLOT], want[SLOT];
	uint32_t l;

	mread(ring + (uint64_t)n * SLOT, got, SLOT);
	mr_read(&sa.mr, off, want, len);
	memcpy(&l, got + SLOT - SNIC_LLQ_TRAILER, 4);
	return l == len && !memcmp(got, want, len) && got[SLOT - 1] == v &&
	       !got[SLOT - 4] && !got[SLOT - 3] && !got[SLOT - 2];
}

static void llq_admin(void)
{
	struct qp ud;
	uint64_t r, c;

	CHECK(env_start());
	CHECK(side_make(&sa, A, SNIC_QPT_RC));
	r = galloc(4096, 64);
	c = galloc(64, 64);
	CHECK_EQ(llq_set(A, 999, 4, SLOT_LOG, 1, r, c), SNIC_AQ_ENOENT);
	CHECK_EQ(llq_set(A, sa.qp.qpn, 4, 5, 1, r, c), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(llq_set(A, sa.qp.qpn, 4, 13, 1, r, c), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(llq_set(A, sa.qp.qpn, 16, SLOT_LOG, 1, r, c),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(llq_set(A, sa.qp.qpn, 4, SLOT_LOG, 0, r, c),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(llq_set(A, sa.qp.qpn, 4, SLOT_LOG, 1, r + 8, c),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(llq_set(A, sa.qp.qpn, 4, SLOT_LOG, 1, r, c + 2),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(llq_set(A, sa.qp.qpn, 4, SLOT_LOG, 1, UNMAPPED, c),
		 SNIC_AQ_EDMA);
	CHECK_EQ(llq_set(A, sa.qp.qpn, 4, SLOT_LOG, 1, BAR_BASE(0), c),
		 SNIC_AQ_EDMA);
	CHECK_EQ(qp_create(&ud, A, SNIC_QPT_UD, sa.pdn, &sa.scq, &sa.rcq, -1),
		 OK);
	CHECK_EQ(llq_set(A, ud.qpn, 4, SLOT_LOG, 1, r, c),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(llq_set(A, sa.qp.qpn, 4, SLOT_LOG, 1, r, c), OK);
	CHECK_EQ(llq_set(A, sa.qp.qpn, 0, 0, 0, 0, 0), OK);	/* removed */
	CHECK(side_make(&sb, B, SNIC_QPT_RC));
	CHECK(qp_connect(&sa.qp, &sb.qp, &conn_default, 100, 5000));
	CHECK_EQ(llq_set(A, sa.qp.qpn, 4, SLOT_LOG, 1, r, c), SNIC_AQ_ESTATE);
}

/*
 * A 4-slot ring: four SENDs (0, 1, 56 and 30 bytes) land in slots 0..3
 * with no CQE; the fifth finds the ring full and is RNR-NAKed until the
 * host returns two slots, then lands in slot 0 with owner phase 0.
 */
static void llq_place(void)
{
	static uint8_t src[4096];
	static const uint32_t len[4] = { 0, 1, 56, 30 };
	struct snic_rdma_stats st;
	uint32_t v;
	int i;

	CHECK(env_start());
	CHECK(llq_pair(2, 1));
	fill(src, sizeof(src), 5);
	mr_write(&sa.mr, 0, src, sizeof(src));
	for (i = 0; i < 4; i++) {
		CHECK(llq_send(len[i], 100 * i, false));
		CHECK(slot_is(i, len[i], 100 * i, 1));
	}
	CHECK(cq_empty(&sb.rcq));
	CHECK(rstats(B, &st));
	CHECK_EQ(st.llq_msgs, 4);
	CHECK_EQ(st.llq_full, 0);
	CHECK_EQ(st.rnr_naks_sent, 0);
	CHECK_EQ(st.llq_ci_reads, 3);	/* ci_every 1: after each slot but the first */

	/* full: RNR NAK; the requester retries until a slot is returned */
	{
		struct wqe w;
		struct snic_cqe e;
		uint16_t idx;

		w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
		w_data(&w, 20, sa.mr.key, sa.mr.iova + 1000);
		idx = qp_post(&sa.qp, &w);
		pump(50);
		CHECK(rstats(B, &st));
		CHECK(st.llq_full >= 1);
		CHECK(st.rnr_naks_sent >= 1);
		CHECK(cq_empty(&sa.scq));
		v = 2;
		mwrite(ci, &v, 4);
		CHECK(cq_wait(&sa.scq, &e, 1000000));
		CHECK_EQ(e.syndrome, SNIC_RST_OK);
		CHECK_EQ(e.wqe_counter, idx);
	}
	CHECK(slot_is(0, 20, 1000, 0));	/* second pass: phase 0 */
	CHECK(slot_is(1, 1, 100, 1));		/* not yet rewritten */
	CHECK(cq_empty(&sb.rcq));
	CHECK(rstats(B, &st));
	CHECK_EQ(st.llq_msgs, 5);
}

/*
 * What the ring does not take goes to the receive queue with a CQE: a
 * 57-byte SEND (one byte over the slot) and a SEND with immediate.
 */
static void llq_pass(void)
{
	static uint8_t src[256], dst[256];
	struct snic_rdma_stats st;
	struct snic_cqe e;

	CHECK(env_start());
	CHECK(llq_pair(2, 4));
	fill(src, sizeof(src), 9);
	mr_write(&sa.mr, 0, src, sizeof(src));
	qp_recv(&sb.qp, 77, 256, sb.mr.key, sb.mr.iova);
	qp_recv(&sb.qp, 78, 256, sb.mr.key, sb.mr.iova + 256);
	CHECK(llq_send(SLOT - SNIC_LLQ_TRAILER + 1, 0, false));
	CHECK(cq_wait(&sb.rcq, &e, 1000000));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.byte_cnt, SLOT - SNIC_LLQ_TRAILER + 1);
	CHECK_EQ(e.cookie, 77);
	mr_read(&sb.mr, 0, dst, SLOT - SNIC_LLQ_TRAILER + 1);
	CHECK(!memcmp(src, dst, SLOT - SNIC_LLQ_TRAILER + 1));
	CHECK(llq_send(8, 0, true));
	CHECK(cq_wait(&sb.rcq, &e, 1000000));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.byte_cnt, 8);
	CHECK_EQ(e.cookie, 78);
	CHECK(llq_send(8, 0, false));	/* and a small one still takes a slot */
	CHECK(slot_is(0, 8, 0, 1));
	CHECK(cq_empty(&sb.rcq));
	CHECK(rstats(B, &st));
	CHECK_EQ(st.llq_msgs, 1);
}

int main(void)
{
	RUN("device/snic_llq", llq_admin);
	RUN("device/snic_llq", llq_place);
	RUN("device/snic_llq", llq_pass);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
