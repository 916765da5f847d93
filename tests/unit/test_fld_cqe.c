/*
 * FLD's 15-byte compressed CQE (qemu-devices/fld/fld-cqe.c): every field
 * of a snic CQE that FLD keeps survives compression at its full width;
 * out-of-range values are reported, large flow tags dropped and flagged.
 */
#include "../lib/check.h"
#include "fld/fld-cqe.h"
#include "d2d/snic_ifc.h"
#include "d2d/snic_rdma_ifc.h"

static void mk(struct snic_cqe *e)
{
	memset(e, 0x5a, sizeof(*e));	/* fields FLD drops: garbage */
	e->byte_cnt = 0x3fff;
	e->rss_hash = 0xdeadbeef;
	e->flow_tag = 0xabc;
	e->wqe_counter = 0xfedc;
	e->qn = 0x3ff;
	e->flags = SNIC_CQE_F_L3_OK | SNIC_CQE_F_L4_OK | SNIC_CQE_F_TAG |
		   SNIC_CQE_F_HASH | SNIC_CQE_F_MPW_LAST;
	e->stride_idx = 0xff;
	e->num_strides = 0x100;
	e->opcode = SNIC_CQE_RX_ERR;
	e->syndrome = SNIC_SYND_RATE;
}

static void roundtrip_full_width(void)
{
	struct snic_cqe e;
	uint8_t z[FLD_CQE_SIZE];
	bool ovf;
	FldCqe c;

	CHECK_EQ(sizeof(e), 64);
	mk(&e);
	CHECK(fld_cqe_compress((const uint8_t *)&e, z, &ovf));
	CHECK(!ovf);
	fld_cqe_expand(z, &c);
	CHECK_EQ(c.opcode, SNIC_CQE_RX_ERR);
	CHECK_EQ(c.syndrome, SNIC_SYND_RATE);
	CHECK_EQ(c.qn, 0x3ff);
	CHECK_EQ(c.wqe_counter, 0xfedc);
	CHECK_EQ(c.byte_cnt, 0x3fff);
	CHECK_EQ(c.flags, e.flags);
	CHECK_EQ(c.stride_idx, 0xff);
	CHECK_EQ(c.num_strides, 0x100);
	CHECK_EQ(c.flow_tag, 0xabc);
	CHECK_EQ(c.rss_hash, 0xdeadbeef);
}

static void zero_cqe(void)
{
	struct snic_cqe e;
	uint8_t z[FLD_CQE_SIZE];
	bool ovf;
	FldCqe c;
	unsigned i;

	memset(&e, 0, sizeof(e));
	CHECK(fld_cqe_compress((const uint8_t *)&e, z, &ovf));
	for (i = 0; i < FLD_CQE_SIZE; i++)
		CHECK_EQ(z[i], 0);
	fld_cqe_expand(z, &c);
	CHECK_EQ(c.rss_hash, 0);
}

static void big_tag_dropped_and_flagged(void)
{
	struct snic_cqe e;
	uint8_t z[FLD_CQE_SIZE];
	bool ovf;
	FldCqe c;

	mk(&e);
	e.flow_tag = 0x1000;
	CHECK(fld_cqe_compress((const uint8_t *)&e, z, &ovf));
	CHECK(ovf);
	fld_cqe_expand(z, &c);
	CHECK(!(c.flags & SNIC_CQE_F_TAG));
	CHECK_EQ(c.flow_tag, 0);
	CHECK_EQ(c.rss_hash, 0xdeadbeef);
}

static void out_of_range_reported(void)
{
	struct snic_cqe e;
	uint8_t z[FLD_CQE_SIZE];
	bool ovf;

	mk(&e);
	e.qn = 0x400;
	CHECK(!fld_cqe_compress((const uint8_t *)&e, z, &ovf));
	mk(&e);
	e.byte_cnt = 0x4000;
	CHECK(!fld_cqe_compress((const uint8_t *)&e, z, &ovf));
}

/* An RDMA CQE as snic writes it for FLD-R, fields FLD drops garbage. */
static void mk_rdma(struct snic_cqe *e, uint8_t op)
{
	memset(e, 0xa5, sizeof(*e));
	e->opcode = op;
	e->syndrome = SNIC_RST_OK;
	e->byte_cnt = 64 + 8192;
	e->wqe_counter = 0xbeef;
	e->rdma_qpn = SNIC_MAX_QPS - 1;
	e->rdma_flags = SNIC_CQE_RF_IMM | SNIC_CQE_RF_SOLICITED;
	e->wqe_opcode = SNIC_WQE_SEND_IMM;
	e->cookie = 0x1122334455667788ull;
}

static void rdma_variant(void)
{
	static const uint8_t ops[] = {
		SNIC_CQE_REQ, SNIC_CQE_RECV, SNIC_CQE_REQ_ERR, SNIC_CQE_RECV_ERR,
	};
	struct snic_cqe e;
	uint8_t z[FLD_CQE_SIZE];
	bool ovf, err;
	FldCqe c;
	unsigned i;

	CHECK_EQ(FLD_CQE_REQ, SNIC_CQE_REQ);
	CHECK_EQ(FLD_CQE_RECV, SNIC_CQE_RECV);
	CHECK_EQ(FLD_CQE_REQ_ERR, SNIC_CQE_REQ_ERR);
	CHECK_EQ(FLD_CQE_RECV_ERR, SNIC_CQE_RECV_ERR);
	for (i = 0; i < sizeof(ops); i++) {
		err = ops[i] == SNIC_CQE_REQ_ERR || ops[i] == SNIC_CQE_RECV_ERR;
		mk_rdma(&e, ops[i]);
		if (err) {
			e.syndrome = SNIC_RST_GENERAL;
			e.byte_cnt = 0xffffffff;	/* not kept on errors */
		}
		CHECK(fld_cqe_compress((const uint8_t *)&e, z, &ovf));
		CHECK(!ovf);
		fld_cqe_expand(z, &c);
		CHECK_EQ(c.opcode, ops[i]);
		CHECK_EQ(c.syndrome, err ? SNIC_RST_GENERAL : SNIC_RST_OK);
		CHECK_EQ(c.qn, SNIC_MAX_QPS - 1);
		CHECK_EQ(c.wqe_counter, 0xbeef);
		CHECK_EQ(c.byte_cnt, err ? 0 : 64 + 8192);
		CHECK_EQ(c.flags, SNIC_CQE_RF_IMM | SNIC_CQE_RF_SOLICITED);
		CHECK_EQ(c.wqe_opcode, SNIC_WQE_SEND_IMM);
		CHECK_EQ(c.cookie, 0x55667788);
		CHECK_EQ(c.num_strides, 0);
		CHECK_EQ(c.flow_tag, 0);
	}
	/* the largest message the variant keeps, and one beyond */
	mk_rdma(&e, SNIC_CQE_RECV);
	e.byte_cnt = 0x3fff;
	CHECK(fld_cqe_compress((const uint8_t *)&e, z, &ovf));
	e.byte_cnt = 0x4000;
	CHECK(!fld_cqe_compress((const uint8_t *)&e, z, &ovf));
	mk_rdma(&e, SNIC_CQE_REQ);
	e.rdma_qpn = 0x400;
	CHECK(!fld_cqe_compress((const uint8_t *)&e, z, &ovf));
	/* an Ethernet CQE still uses qn, not rdma_qpn */
	mk(&e);
	e.rdma_qpn = 0xffffffff;
	CHECK(fld_cqe_compress((const uint8_t *)&e, z, &ovf));
	fld_cqe_expand(z, &c);
	CHECK_EQ(c.qn, 0x3ff);
	CHECK_EQ(c.cookie, 0);
}

/*
 * A mini-CQE line (snic_ifc.h struct snic_cqe_line) splits into the RX
 * CQEs it stands for; the flow tag only where the entry has the TAG flag;
 * a count of 0 or above 7 is refused.
 */
static void mini_line_split(void)
{
	struct snic_cqe_line l;
	uint8_t raw[7][64];
	struct snic_cqe *e = (void *)raw[1];
	uint8_t z[FLD_CQE_SIZE];
	FldCqe c;
	bool ovf;
	unsigned i;

	memset(&l, 0, sizeof(l));
	for (i = 0; i < 3; i++) {
		l.mini[i].byte_cnt = 100 + i;
		l.mini[i].wqe_counter = 7 + i;
		l.mini[i].stride_idx = 2 * i;
		l.mini[i].flags = SNIC_CQE_F_L3_OK | (i == 1 ? SNIC_CQE_F_TAG : 0);
	}
	l.qn = 9;
	l.flow_tag = 0x5a;
	l.count = 3;
	l.op_own = SNIC_CQE_MINI | SNIC_CQE_OWNER;
	CHECK_EQ(fld_cqe_line_split((const uint8_t *)&l, raw), 3);
	CHECK_EQ(e->opcode, SNIC_CQE_RX);
	CHECK_EQ(e->byte_cnt, 101);
	CHECK_EQ(e->wqe_counter, 8);
	CHECK_EQ(e->stride_idx, 2);
	CHECK_EQ(e->qn, 9);
	CHECK_EQ(e->flow_tag, 0x5a);
	CHECK_EQ(((struct snic_cqe *)raw[0])->flow_tag, 0);
	CHECK(fld_cqe_compress(raw[2], z, &ovf));
	fld_cqe_expand(z, &c);
	CHECK_EQ(c.opcode, SNIC_CQE_RX);
	CHECK_EQ(c.byte_cnt, 102);
	CHECK_EQ(c.stride_idx, 4);
	CHECK_EQ(c.qn, 9);
	l.count = 0;
	CHECK_EQ(fld_cqe_line_split((const uint8_t *)&l, raw), 0);
	l.count = 8;
	CHECK_EQ(fld_cqe_line_split((const uint8_t *)&l, raw), 0);
}

int main(void)
{
	RUN("unit/fld_cqe", roundtrip_full_width);
	RUN("unit/fld_cqe", zero_cqe);
	RUN("unit/fld_cqe", big_tag_dropped_and_flagged);
	RUN("unit/fld_cqe", out_of_range_reported);
	RUN("unit/fld_cqe", rdma_variant);
	RUN("unit/fld_cqe", mini_line_split);
	return check_failures ? 1 : 0;
}
