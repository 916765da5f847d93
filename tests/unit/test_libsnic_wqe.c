// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of libsnic's work-request formats (userspace/libsnic/
 * snic_wqe.c): verbs send/receive work requests -> snic WQEs as
 * docs/snic-rdma.md lays them out, and CQEs -> struct ibv_wc.
 */
#include <endian.h>
#include <errno.h>

#include "../lib/check.h"
#include "snic_wqe.h"

static uint8_t wqe[SNIC_WQE_MAX_BYTES];

static const struct snic_sq_params rc = {
	.qp_type = IBV_QPT_RC, .max_inline = 64, .max_sge = 4,
};

static const struct snic_wqe_ctrl *ctrl(void)
{
	return (const void *)wqe;
}

static const void *seg(unsigned int i)
{
	return wqe + 16 * i;
}

static void rc_write_two_sges(void)
{
	struct ibv_sge s[2] = { { 0x1000, 100, 0x301 }, { 0x2000, 0, 0x301 } };
	struct ibv_send_wr wr = { .wr_id = 9, .sg_list = s, .num_sge = 2,
				  .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
				  .send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE,
				  .imm_data = htobe32(0x01020304) };
	const struct snic_wqe_raddr *r = seg(1);
	const struct snic_wqe_data *d = seg(2);
	struct snic_wqe_info info;

	wr.wr.rdma.remote_addr = 0x123456789abcull;
	wr.wr.rdma.rkey = 0x4455;
	CHECK_EQ(snic_build_send_wqe(&rc, &wr, 0x1234, wqe, &info), 0);
	CHECK_EQ(ctrl()->opcode, SNIC_WQE_RDMA_WRITE_IMM);
	CHECK_EQ(ctrl()->flags, SNIC_WQE_F_SIGNAL | SNIC_WQE_F_FENCE);
	CHECK_EQ(le16toh(ctrl()->wqe_idx), 0x1234);
	/* ctrl + raddr + one data segment: the zero-length sge is left out */
	CHECK_EQ(ctrl()->ds_cnt, 3);
	CHECK_EQ(be32toh(ctrl()->imm), 0x01020304);
	CHECK_EQ(le64toh(r->addr), 0x123456789abcull);
	CHECK_EQ(le32toh(r->rkey), 0x4455);
	CHECK_EQ(le32toh(d->byte_count), 100);
	CHECK_EQ(le32toh(d->lkey), 0x301);
	CHECK_EQ(le64toh(d->addr), 0x1000);
	CHECK_EQ(info.nbb, 1);
	CHECK(info.signaled);
	CHECK_EQ(info.wc_opcode, IBV_WC_RDMA_WRITE);
}

/*
 * IBV_WR_DRIVER1: a custom-opcode request (docs/libsnic.md): the opcode in
 * imm_data, the RETH arguments in wr.rdma, sg_list[0] the request (copied
 * inline), the rest the response's scatter list.
 */
static void rc_custom(void)
{
	static const uint8_t req[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
	struct ibv_sge s[3] = { { (uintptr_t)req, sizeof(req), 0 },
				{ 0x4000, 1024, 0x302 }, { 0x8000, 64, 0x303 } };
	struct ibv_send_wr wr = { .sg_list = s, .num_sge = 3,
				  .opcode = IBV_WR_DRIVER1,
				  .send_flags = IBV_SEND_SIGNALED,
				  .imm_data = htobe32(0xc1) };
	const struct snic_wqe_raddr *r = seg(1);
	const struct snic_wqe_data *d = seg(4);
	struct snic_wqe_info info;
	uint32_t bc;

	wr.wr.rdma.remote_addr = 0x77;
	wr.wr.rdma.rkey = 0x99;
	CHECK_EQ(snic_build_send_wqe(&rc, &wr, 3, wqe, &info), 0);
	CHECK_EQ(ctrl()->opcode, SNIC_WQE_CUSTOM);
	CHECK_EQ(be32toh(ctrl()->imm), 0xc1);
	CHECK_EQ(ctrl()->flags, SNIC_WQE_F_SIGNAL);
	/* ctrl raddr inline(4 + 20 -> 2 segments) data data */
	CHECK_EQ(ctrl()->ds_cnt, 6);
	CHECK_EQ(le64toh(r->addr), 0x77);
	CHECK_EQ(le32toh(r->rkey), 0x99);
	memcpy(&bc, seg(2), 4);
	CHECK_EQ(le32toh(bc), SNIC_INLINE_SEG | sizeof(req));
	CHECK(!memcmp((const uint8_t *)seg(2) + 4, req, sizeof(req)));
	CHECK_EQ(le32toh(d[0].byte_count), 1024);
	CHECK_EQ(le32toh(d[0].lkey), 0x302);
	CHECK_EQ(le64toh(d[1].addr), 0x8000);
	CHECK_EQ(info.wc_opcode, IBV_WC_DRIVER1);
	CHECK_EQ(info.nbb, 2);
	/* opcodes outside 0xc0..0xdf, no request sge, UD, inline flag */
	wr.imm_data = htobe32(0xe0);
	CHECK_EQ(snic_build_send_wqe(&rc, &wr, 3, wqe, &info), EINVAL);
	wr.imm_data = htobe32(0xc1);
	wr.num_sge = 0;
	CHECK_EQ(snic_build_send_wqe(&rc, &wr, 3, wqe, &info), EINVAL);
	wr.num_sge = 3;
	wr.send_flags |= IBV_SEND_INLINE;
	CHECK_EQ(snic_build_send_wqe(&rc, &wr, 3, wqe, &info), EINVAL);
}

static void rc_atomics(void)
{
	struct ibv_sge s = { 0x1000, 8, 7 };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_ATOMIC_CMP_AND_SWP };
	const struct snic_wqe_atomic *a = seg(2);
	struct snic_wqe_info info;

	wr.wr.atomic.remote_addr = 0x8000;
	wr.wr.atomic.rkey = 5;
	wr.wr.atomic.compare_add = 111;
	wr.wr.atomic.swap = 222;
	CHECK_EQ(snic_build_send_wqe(&rc, &wr, 0, wqe, &info), 0);
	CHECK_EQ(ctrl()->opcode, SNIC_WQE_ATOMIC_CS);
	CHECK_EQ(ctrl()->ds_cnt, 4);	/* ctrl raddr atomic data */
	CHECK_EQ(le64toh(a->swap_add), 222);
	CHECK_EQ(le64toh(a->compare), 111);
	CHECK(!info.signaled && !(ctrl()->flags & SNIC_WQE_F_SIGNAL));
	CHECK_EQ(info.wc_opcode, IBV_WC_COMP_SWAP);

	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	CHECK_EQ(snic_build_send_wqe(&rc, &wr, 0, wqe, &info), 0);
	CHECK_EQ(ctrl()->opcode, SNIC_WQE_ATOMIC_FA);
	CHECK_EQ(le64toh(a->swap_add), 111);
	CHECK_EQ(a->compare, 0);
	/* The result buffer must be exactly 8 bytes. */
	s.length = 4;
	CHECK_EQ(snic_build_send_wqe(&rc, &wr, 0, wqe, &info), EINVAL);
}

static void inline_and_limits(void)
{
	uint8_t payload[70];
	struct ibv_sge s[2] = { { (uintptr_t)payload, 20, 0 },
				{ (uintptr_t)payload + 20, 30, 0 } };
	struct ibv_send_wr wr = { .sg_list = s, .num_sge = 2,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_INLINE };
	const struct snic_wqe_inline *in = seg(1);
	struct snic_wqe_info info;
	struct snic_sq_params sig = rc;
	unsigned int i;

	for (i = 0; i < sizeof(payload); i++)
		payload[i] = i;
	sig.sig_all = true;
	CHECK_EQ(snic_build_send_wqe(&sig, &wr, 3, wqe, &info), 0);
	CHECK_EQ(ctrl()->flags, SNIC_WQE_F_SIGNAL | SNIC_WQE_F_INLINE);
	CHECK_EQ(le32toh(in->byte_count), SNIC_INLINE_SEG | 50);
	CHECK(!memcmp(wqe + 16 + 4, payload, 50));
	/* 4 + 50 bytes: 4 segments, ctrl + 4 = 5 -> 2 basic blocks */
	CHECK_EQ(ctrl()->ds_cnt, 5);
	CHECK_EQ(info.nbb, 2);
	/* More than max_inline */
	s[1].length = 50;
	CHECK_EQ(snic_build_send_wqe(&rc, &wr, 3, wqe, &info), ENOMEM);
	/* Too many sges, unknown opcode, READ inline */
	wr.send_flags = 0;
	wr.num_sge = 5;
	CHECK_EQ(snic_build_send_wqe(&rc, &wr, 0, wqe, &info), EINVAL);
	wr.num_sge = 1;
	wr.opcode = IBV_WR_BIND_MW;
	CHECK_EQ(snic_build_send_wqe(&rc, &wr, 0, wqe, &info), EINVAL);
	wr.opcode = IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_INLINE;
	CHECK_EQ(snic_build_send_wqe(&rc, &wr, 0, wqe, &info), EINVAL);
}

static void ud_send(void)
{
	struct snic_ah ah = { .av = { .dmac = { 2, 0, 0, 0, 0, 9 },
				      .dip = htobe32(0x0a000002) } };
	struct ibv_sge s = { 0x1000, 256, 1 };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_SEND_WITH_IMM };
	struct snic_sq_params ud = rc;
	const struct snic_wqe_ud *u = seg(1);
	const struct snic_wqe_data *d = seg(4);
	struct snic_wqe_info info;

	ud.qp_type = IBV_QPT_UD;
	ud.qkey = 0x77;
	wr.wr.ud.ah = &ah.ibv_ah;
	wr.wr.ud.remote_qpn = 0x1000012;	/* only 24 bits travel */
	wr.wr.ud.remote_qkey = 0x80000000;	/* "use the QP's qkey" */
	CHECK_EQ(snic_build_send_wqe(&ud, &wr, 0, wqe, &info), 0);
	CHECK_EQ(ctrl()->opcode, SNIC_WQE_SEND_IMM);
	CHECK_EQ(ctrl()->ds_cnt, 5);	/* ctrl ud(3) data */
	CHECK_EQ(info.nbb, 2);
	CHECK(!memcmp(&u->av, &ah.av, sizeof(ah.av)));
	CHECK_EQ(le32toh(u->dest_qpn), 0x12);
	CHECK_EQ(le32toh(u->qkey), 0x77);
	CHECK_EQ(le32toh(d->byte_count), 256);
	/* RDMA operations are RC only */
	wr.opcode = IBV_WR_RDMA_WRITE;
	CHECK_EQ(snic_build_send_wqe(&ud, &wr, 0, wqe, &info), EINVAL);
}

/*
 * UD over IPv6: an AH with SNIC_AV_F_IPV6 puts its addresses in a ud6
 * segment right after the ud segment, the data segments after that.
 */
static void ud_send_ipv6(void)
{
	struct snic_ah ah = { .av = { .dmac = { 2, 0, 0, 0, 0, 9 },
				      .flags = SNIC_AV_F_IPV6 },
			      .ud6 = { .sip6 = { 0xfd, [15] = 1 },
				       .dip6 = { 0xfd, [15] = 2 } } };
	struct ibv_sge s = { 0x1000, 256, 1 };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_SEND };
	struct snic_sq_params ud = rc;
	const struct snic_wqe_ud *u = seg(1);
	const struct snic_wqe_ud6 *u6 = seg(4);
	const struct snic_wqe_data *d = seg(6);
	struct snic_wqe_info info;

	ud.qp_type = IBV_QPT_UD;
	wr.wr.ud.ah = &ah.ibv_ah;
	wr.wr.ud.remote_qpn = 0x12;
	CHECK_EQ(snic_build_send_wqe(&ud, &wr, 0, wqe, &info), 0);
	CHECK_EQ(ctrl()->ds_cnt, 7);	/* ctrl ud(3) ud6(2) data */
	CHECK_EQ(info.nbb, 2);
	CHECK_EQ(u->av.flags, SNIC_AV_F_IPV6);
	CHECK(!memcmp(u6, &ah.ud6, sizeof(*u6)));
	CHECK_EQ(le32toh(d->byte_count), 256);
	CHECK_EQ(le64toh(d->addr), 0x1000);
}

/* UC: SEND and RDMA WRITE (+imm) as on RC, no ud segment; READ,
 * atomics, SEND with invalidate and custom requests refused. */
static void uc_ops(void)
{
	static const enum ibv_wr_opcode bad[] = {
		IBV_WR_RDMA_READ, IBV_WR_ATOMIC_CMP_AND_SWP,
		IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_SEND_WITH_INV,
		IBV_WR_DRIVER1,
	};
	struct ibv_sge s = { 0x1000, 8, 1 };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE_WITH_IMM };
	struct snic_sq_params uc = rc;
	struct snic_wqe_info info;
	unsigned int i;

	uc.qp_type = IBV_QPT_UC;
	wr.wr.rdma.remote_addr = 0x5000;
	wr.wr.rdma.rkey = 0x77;
	CHECK_EQ(snic_build_send_wqe(&uc, &wr, 0, wqe, &info), 0);
	CHECK_EQ(ctrl()->opcode, SNIC_WQE_RDMA_WRITE_IMM);
	CHECK_EQ(ctrl()->ds_cnt, 3);		/* ctrl raddr data */
	wr.opcode = IBV_WR_SEND;
	CHECK_EQ(snic_build_send_wqe(&uc, &wr, 0, wqe, &info), 0);
	CHECK_EQ(ctrl()->opcode, SNIC_WQE_SEND);
	CHECK_EQ(ctrl()->ds_cnt, 2);		/* ctrl data */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		wr.opcode = bad[i];
		CHECK_EQ(snic_build_send_wqe(&uc, &wr, 0, wqe, &info), EINVAL);
	}
}

/*
 * XRC_SEND: RC's WQEs with the remote XRC SRQ (wr.qp_type.xrc.remote_srqn)
 * in ctrl.xrc_srqn; no custom requests; an SRQ number the device cannot
 * name (over 16 bits) is refused.
 */
static void xrc_send(void)
{
	struct ibv_sge s = { 0x1000, 8, 1 };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_SEND };
	struct snic_sq_params xrc = rc;
	struct snic_wqe_info info;

	xrc.qp_type = IBV_QPT_XRC_SEND;
	wr.qp_type.xrc.remote_srqn = 0x1234;
	CHECK_EQ(snic_build_send_wqe(&xrc, &wr, 0, wqe, &info), 0);
	CHECK_EQ(ctrl()->opcode, SNIC_WQE_SEND);
	CHECK_EQ(le16toh(ctrl()->xrc_srqn), 0x1234);
	CHECK_EQ(ctrl()->ds_cnt, 2);		/* ctrl data */
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = 0x5000;
	wr.wr.atomic.rkey = 0x77;
	CHECK_EQ(snic_build_send_wqe(&xrc, &wr, 0, wqe, &info), 0);
	CHECK_EQ(ctrl()->opcode, SNIC_WQE_ATOMIC_FA);
	CHECK_EQ(le16toh(ctrl()->xrc_srqn), 0x1234);
	wr.opcode = IBV_WR_DRIVER1;
	CHECK_EQ(snic_build_send_wqe(&xrc, &wr, 0, wqe, &info), EINVAL);
	wr.opcode = IBV_WR_SEND;
	wr.qp_type.xrc.remote_srqn = 0x10000;
	CHECK_EQ(snic_build_send_wqe(&xrc, &wr, 0, wqe, &info), EINVAL);
	/* other QP types leave the field 0 */
	wr.qp_type.xrc.remote_srqn = 0x1234;
	CHECK_EQ(snic_build_send_wqe(&rc, &wr, 0, wqe, &info), 0);
	CHECK_EQ(ctrl()->xrc_srqn, 0);
}

static void recv_wqe(void)
{
	uint8_t slot[64];
	struct ibv_sge s[3] = { { 0x1000, 40, 2 }, { 0x2000, 0, 2 },
				{ 0x3000, 4096, 3 } };
	struct ibv_recv_wr wr = { .wr_id = 0xabcdef, .sg_list = s,
				  .num_sge = 3 };
	const struct snic_recv_hdr *h = (const void *)slot;
	const struct snic_wqe_data *d = (const void *)(slot + 16);

	CHECK_EQ(snic_recv_max_sge(5), 1);
	CHECK_EQ(snic_recv_max_sge(6), 3);
	CHECK_EQ(snic_recv_max_sge(8), SNIC_MAX_SGE);
	CHECK_EQ(snic_recv_max_sge(9), 0);
	CHECK_EQ(snic_build_recv_wqe(slot, 6, &wr), 0);
	CHECK_EQ(le64toh(h->cookie), 0xabcdef);
	CHECK_EQ(le16toh(h->num_sge), 2);
	CHECK_EQ(le32toh(d[1].byte_count), 4096);
	CHECK_EQ(le32toh(d[1].lkey), 3);
	CHECK_EQ(le64toh(d[1].addr), 0x3000);
	wr.num_sge = 4;
	CHECK_EQ(snic_build_recv_wqe(slot, 6, &wr), EINVAL);
}

/* IBV_WR_BIND_MW: ctrl + the bind segment; IBV_WR_LOCAL_INV: ctrl.imm. */
static void rc_bind_and_local_inv(void)
{
	struct ibv_mr mr = { .lkey = 0x4477 };
	struct ibv_sge s = { 0x1000, 8, 7 };
	struct ibv_send_wr wr = { .opcode = IBV_WR_BIND_MW,
				  .send_flags = IBV_SEND_SIGNALED };
	const struct snic_wqe_bind *b = seg(1);
	struct snic_wqe_info info;

	wr.bind_mw.rkey = 0x1234;
	wr.bind_mw.bind_info.mr = &mr;
	wr.bind_mw.bind_info.addr = 0x7000;
	wr.bind_mw.bind_info.length = 0x2000;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	CHECK_EQ(snic_build_send_wqe(&rc, &wr, 0, wqe, &info), 0);
	CHECK_EQ(ctrl()->opcode, SNIC_WQE_BIND_MW);
	CHECK_EQ(ctrl()->ds_cnt, 3);
	CHECK_EQ(le32toh(b->mw_key), 0x1234);
	CHECK_EQ(le32toh(b->mr_key), 0x4477);
	CHECK_EQ(le32toh(b->access), IBV_ACCESS_REMOTE_WRITE);
	CHECK_EQ(le64toh(b->addr), 0x7000);
	CHECK_EQ(le64toh(b->length), 0x2000);
	CHECK_EQ(info.wc_opcode, IBV_WC_BIND_MW);
	CHECK(info.signaled);
	/* no data segments with a bind */
	wr.sg_list = &s;
	wr.num_sge = 1;
	CHECK_EQ(snic_build_send_wqe(&rc, &wr, 0, wqe, &info), EINVAL);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.invalidate_rkey = 0xabcd01;
	CHECK_EQ(snic_build_send_wqe(&rc, &wr, 0, wqe, &info), 0);
	CHECK_EQ(ctrl()->opcode, SNIC_WQE_LOCAL_INV);
	CHECK_EQ(ctrl()->ds_cnt, 1);
	CHECK_EQ(be32toh(ctrl()->imm), 0xabcd01);
	CHECK_EQ(info.wc_opcode, IBV_WC_LOCAL_INV);
	CHECK_EQ(snic_wc_status(SNIC_RST_MW_BIND), IBV_WC_MW_BIND_ERR);
	CHECK_EQ(snic_wc_send_opcode(SNIC_WQE_BIND_MW), IBV_WC_BIND_MW);
}

static void cqe_owner_and_status(void)
{
	struct snic_cqe c = { 0 };

	/* First pass: owner 1 is new; second pass: owner 0 is new. */
	c.op_own = SNIC_CQE_OWNER;
	CHECK(snic_cqe_valid(&c, 3, 4));
	CHECK(!snic_cqe_valid(&c, 16 + 3, 4));
	c.op_own = 0;
	CHECK(snic_cqe_valid(&c, 16 + 3, 4));
	CHECK(!snic_cqe_valid(&c, 3, 4));
	CHECK_EQ(snic_wc_status(SNIC_RST_REM_ACCESS), IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(snic_wc_status(SNIC_RST_LOC_PROT), IBV_WC_LOC_PROT_ERR);
	CHECK_EQ(snic_wc_status(SNIC_RST_WR_FLUSH), IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ(snic_wc_status(SNIC_RST_RNR_RETRY_EXC),
		 IBV_WC_RNR_RETRY_EXC_ERR);
	CHECK_EQ(snic_wc_status(200), IBV_WC_GENERAL_ERR);
	CHECK_EQ(snic_wc_send_opcode(SNIC_WQE_RDMA_READ), IBV_WC_RDMA_READ);
	CHECK_EQ(snic_wc_send_opcode(SNIC_WQE_ATOMIC_FA), IBV_WC_FETCH_ADD);
}

static void recv_cqe_to_wc(void)
{
	struct snic_cqe c = { 0 };
	struct ibv_wc wc;

	c.opcode = SNIC_CQE_RECV;
	c.cookie = htole64(77);
	c.byte_cnt = htole32(552);
	c.rdma_qpn = htole32(9);
	c.src_qpn = htole32(12);
	c.wqe_opcode = SNIC_WQE_SEND_IMM;
	c.rdma_flags = SNIC_CQE_RF_IMM | SNIC_CQE_RF_GRH;
	c.imm = htobe32(0xcafe);
	snic_wc_from_recv_cqe(&wc, &c);
	CHECK_EQ(wc.wr_id, 77);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.opcode, IBV_WC_RECV);
	CHECK_EQ(wc.byte_len, 552);
	CHECK_EQ(wc.qp_num, 9);
	CHECK_EQ(wc.src_qp, 12);
	CHECK_EQ(wc.wc_flags, IBV_WC_WITH_IMM | IBV_WC_GRH);
	CHECK_EQ(be32toh(wc.imm_data), 0xcafe);

	c.wqe_opcode = SNIC_WQE_RDMA_WRITE_IMM;
	c.rdma_flags = SNIC_CQE_RF_IMM;
	snic_wc_from_recv_cqe(&wc, &c);
	CHECK_EQ(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);

	c.opcode = SNIC_CQE_RECV_ERR;
	c.syndrome = SNIC_RST_WR_FLUSH;
	snic_wc_from_recv_cqe(&wc, &c);
	CHECK_EQ(wc.status, IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc.wr_id, 77);
}

int main(void)
{
	RUN("unit/libsnic_wqe", rc_write_two_sges);
	RUN("unit/libsnic_wqe", rc_custom);
	RUN("unit/libsnic_wqe", rc_atomics);
	RUN("unit/libsnic_wqe", inline_and_limits);
	RUN("unit/libsnic_wqe", ud_send);
	RUN("unit/libsnic_wqe", ud_send_ipv6);
	RUN("unit/libsnic_wqe", uc_ops);
	RUN("unit/libsnic_wqe", xrc_send);
	RUN("unit/libsnic_wqe", rc_bind_and_local_inv);
	RUN("unit/libsnic_wqe", recv_wqe);
	RUN("unit/libsnic_wqe", cqe_owner_and_status);
	RUN("unit/libsnic_wqe", recv_cqe_to_wc);
	return check_failures ? 1 : 0;
}
