// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of snic_ib's pure helpers (built into snic_ib.ko when the
 * kernel has CONFIG_KUNIT; runs when the module loads): the verbs opcode
 * map, the layout and the bounds of a send WQE as snic_ib_build_wqe()
 * writes it, and the CQE syndrome map.  No device is touched: the QP is a
 * zeroed struct with just the fields the builder reads.
 */
#include <kunit/test.h>
#include "snic_ib.h"

/* A zeroed QP (too large for the stack) with the builder's fields set. */
static struct snic_ib_qp *snic_kunit_qp(struct kunit *test, u8 type)
{
	struct snic_ib_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->type = type;
	qp->max_send_sge = 4;
	qp->max_inline = 64;
	return qp;
}

static void snic_kunit_opcode_map(struct kunit *test)
{
	struct snic_ib_qp *rc = snic_kunit_qp(test, SNIC_QPT_RC);
	struct snic_ib_qp *ud = snic_kunit_qp(test, SNIC_QPT_UD);

	KUNIT_EXPECT_EQ(test, snic_ib_wqe_opcode(rc, IB_WR_RDMA_WRITE),
			SNIC_WQE_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, snic_ib_wqe_opcode(rc, IB_WR_ATOMIC_CMP_AND_SWP),
			SNIC_WQE_ATOMIC_CS);
	KUNIT_EXPECT_EQ(test, snic_ib_wqe_opcode(ud, IB_WR_SEND),
			SNIC_WQE_SEND);
	/* UD has no remote memory access and no remote invalidation */
	KUNIT_EXPECT_EQ(test, snic_ib_wqe_opcode(ud, IB_WR_RDMA_WRITE),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, snic_ib_wqe_opcode(ud, IB_WR_RDMA_READ),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, snic_ib_wqe_opcode(ud, IB_WR_SEND_WITH_INV),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, snic_ib_wqe_opcode(ud,
						 IB_WR_ATOMIC_FETCH_AND_ADD),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, snic_ib_wqe_opcode(rc, IB_WR_MASKED_ATOMIC_CMP_AND_SWP),
			-EINVAL);
}

/* UC: SEND and RDMA WRITE, with and without immediate, nothing else. */
static void snic_kunit_opcode_map_uc(struct kunit *test)
{
	struct snic_ib_qp *uc = snic_kunit_qp(test, SNIC_QPT_UC);

	KUNIT_EXPECT_EQ(test, snic_ib_wqe_opcode(uc, IB_WR_SEND_WITH_IMM),
			SNIC_WQE_SEND_IMM);
	KUNIT_EXPECT_EQ(test, snic_ib_wqe_opcode(uc, IB_WR_RDMA_WRITE),
			SNIC_WQE_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, snic_ib_wqe_opcode(uc,
						 IB_WR_RDMA_WRITE_WITH_IMM),
			SNIC_WQE_RDMA_WRITE_IMM);
	KUNIT_EXPECT_EQ(test, snic_ib_wqe_opcode(uc, IB_WR_RDMA_READ),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, snic_ib_wqe_opcode(uc, IB_WR_SEND_WITH_INV),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, snic_ib_wqe_opcode(uc, IB_WR_ATOMIC_CMP_AND_SWP),
			-EINVAL);
}

/* RDMA WRITE, two SGEs: ctrl, raddr, two data segments = 4 x 16 bytes. */
static void snic_kunit_write_layout(struct kunit *test)
{
	struct ib_sge sge[2] = {
		{ .addr = 0x1000, .length = 100, .lkey = 7 },
		{ .addr = 0x2000, .length = 200, .lkey = 8 },
	};
	struct ib_rdma_wr wr = {
		.wr = { .opcode = IB_WR_RDMA_WRITE, .sg_list = sge,
			.num_sge = 2, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = 0xabcdef00, .rkey = 0x1234,
	};
	struct snic_ib_wqe_buf *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct snic_ib_qp *qp = snic_kunit_qp(test, SNIC_QPT_RC);
	struct snic_wqe_ctrl *ctrl;
	struct snic_wqe_raddr *ra;
	struct snic_wqe_data *d;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, snic_ib_build_wqe(qp, &wr.wr, w), 1);
	ctrl = (void *)w->b;
	ra = (void *)(ctrl + 1);
	d = (void *)(ra + 1);
	KUNIT_EXPECT_EQ(test, ctrl->opcode, SNIC_WQE_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, ctrl->flags, SNIC_WQE_F_SIGNAL);
	KUNIT_EXPECT_EQ(test, ctrl->ds_cnt, 4);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(ra->addr), 0xabcdef00ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ra->rkey), 0x1234U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d[0].byte_count), 100U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d[1].lkey), 8U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(d[1].addr), 0x2000ULL);

	/* unsignaled unless the QP signals every WQE */
	wr.wr.send_flags = 0;
	KUNIT_EXPECT_EQ(test, snic_ib_build_wqe(qp, &wr.wr, w), 1);
	KUNIT_EXPECT_EQ(test, ((struct snic_wqe_ctrl *)w->b)->flags, 0);
	qp->sig_all = true;
	KUNIT_EXPECT_EQ(test, snic_ib_build_wqe(qp, &wr.wr, w), 1);
	KUNIT_EXPECT_EQ(test, ((struct snic_wqe_ctrl *)w->b)->flags,
			SNIC_WQE_F_SIGNAL);
}

/* Zero-length SGEs take no segment. */
static void snic_kunit_empty_sge(struct kunit *test)
{
	struct ib_sge sge[3] = {
		{ .addr = 0x1000, .length = 0 },
		{ .addr = 0x2000, .length = 8 },
		{ .addr = 0x3000, .length = 0 },
	};
	struct ib_send_wr wr = { .opcode = IB_WR_SEND, .sg_list = sge,
				 .num_sge = 3 };
	struct snic_ib_wqe_buf *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct snic_ib_qp *qp = snic_kunit_qp(test, SNIC_QPT_RC);

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, snic_ib_build_wqe(qp, &wr, w), 1);
	KUNIT_EXPECT_EQ(test, ((struct snic_wqe_ctrl *)w->b)->ds_cnt, 2);
}

/* The bounds: SGE count, segments past the WQE, inline size, atomics. */
static void snic_kunit_bounds(struct kunit *test)
{
	struct ib_sge sge[SNIC_WQE_MAX_DS];
	struct ib_atomic_wr aw = {
		.wr = { .opcode = IB_WR_ATOMIC_FETCH_AND_ADD, .sg_list = sge,
			.num_sge = 1 },
	};
	struct ib_ud_wr ud = {
		.wr = { .opcode = IB_WR_SEND, .sg_list = sge, .num_sge = 1 },
	};
	struct ib_send_wr wr = { .opcode = IB_WR_SEND, .sg_list = sge };
	struct snic_ib_wqe_buf *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct snic_ib_qp *qp = snic_kunit_qp(test, SNIC_QPT_RC);
	static u8 data[256];
	int i;

	KUNIT_ASSERT_NOT_NULL(test, w);
	for (i = 0; i < ARRAY_SIZE(sge); i++)
		sge[i] = (struct ib_sge) { .addr = (uintptr_t)data, .length = 4 };

	/* more SGEs than the QP was created with */
	wr.num_sge = qp->max_send_sge + 1;
	KUNIT_EXPECT_EQ(test, snic_ib_build_wqe(qp, &wr, w), -EINVAL);

	/* the largest WQE: ctrl + 15 data segments = 4 basic blocks */
	qp->max_send_sge = SNIC_WQE_MAX_DS;
	wr.num_sge = SNIC_WQE_MAX_DS - 1;
	KUNIT_EXPECT_EQ(test, snic_ib_build_wqe(qp, &wr, w), SNIC_WQE_MAX_BBS);
	/* one more segment does not fit behind ctrl */
	wr.num_sge = SNIC_WQE_MAX_DS;
	KUNIT_EXPECT_EQ(test, snic_ib_build_wqe(qp, &wr, w), -EINVAL);

	/* inline: up to max_inline bytes, copied behind a 4-byte header */
	wr.send_flags = IB_SEND_INLINE;
	wr.num_sge = 1;
	sge[0].length = qp->max_inline;
	memset(data, 0x5a, sizeof(data));
	KUNIT_EXPECT_EQ(test, snic_ib_build_wqe(qp, &wr, w), 2);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(*(__le32 *)(w->b + 16)),
			SNIC_INLINE_SEG | qp->max_inline);
	KUNIT_EXPECT_EQ(test, w->b[20], 0x5a);
	KUNIT_EXPECT_EQ(test, w->b[20 + qp->max_inline - 1], 0x5a);
	KUNIT_EXPECT_EQ(test, w->b[20 + qp->max_inline], 0);
	sge[0].length = qp->max_inline + 1;
	KUNIT_EXPECT_EQ(test, snic_ib_build_wqe(qp, &wr, w), -EINVAL);
	/* a length that wraps the running total */
	qp->max_inline = U32_MAX;
	sge[0].length = U32_MAX;
	KUNIT_EXPECT_EQ(test, snic_ib_build_wqe(qp, &wr, w), -EINVAL);

	/* atomics: exactly one 8-byte SGE */
	sge[0].length = 4;
	KUNIT_EXPECT_EQ(test, snic_ib_build_wqe(qp, &aw.wr, w), -EINVAL);
	sge[0].length = 8;
	KUNIT_EXPECT_EQ(test, snic_ib_build_wqe(qp, &aw.wr, w), 1);
	aw.wr.num_sge = 2;
	KUNIT_EXPECT_EQ(test, snic_ib_build_wqe(qp, &aw.wr, w), -EINVAL);

	/* a UD send needs an address handle */
	qp = snic_kunit_qp(test, SNIC_QPT_UD);
	KUNIT_EXPECT_EQ(test, snic_ib_build_wqe(qp, &ud.wr, w), -EINVAL);
}

static void snic_kunit_wc_status(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, snic_ib_wc_status(SNIC_RST_REM_ACCESS),
			IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, snic_ib_wc_status(SNIC_RST_WR_FLUSH),
			IB_WC_WR_FLUSH_ERR);
	/* an error CQE never reports success, whatever its syndrome */
	KUNIT_EXPECT_EQ(test, snic_ib_wc_status(SNIC_RST_OK),
			IB_WC_GENERAL_ERR);
	KUNIT_EXPECT_EQ(test, snic_ib_wc_status(SNIC_RST_MW_BIND),
			IB_WC_MW_BIND_ERR);
	KUNIT_EXPECT_EQ(test, snic_ib_wc_status(SNIC_RST_MW_BIND + 1),
			IB_WC_GENERAL_ERR);
	KUNIT_EXPECT_EQ(test, snic_ib_wc_status(0xff), IB_WC_GENERAL_ERR);
}

static struct kunit_case snic_ib_kunit_cases[] = {
	KUNIT_CASE(snic_kunit_opcode_map),
	KUNIT_CASE(snic_kunit_opcode_map_uc),
	KUNIT_CASE(snic_kunit_write_layout),
	KUNIT_CASE(snic_kunit_empty_sge),
	KUNIT_CASE(snic_kunit_bounds),
	KUNIT_CASE(snic_kunit_wc_status),
	{}
};

static struct kunit_suite snic_ib_kunit_suite = {
	.name = "snic_ib_wqe",
	.test_cases = snic_ib_kunit_cases,
};

kunit_test_suite(snic_ib_kunit_suite);
