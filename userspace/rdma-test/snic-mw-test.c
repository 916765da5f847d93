// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * snic-mw-test -d DEV -e DEV2 [-P PREFIX]: memory windows through stock
 * libibverbs (docs/libsnic.md "Memory windows"), between two RDMA ports
 * of one host.  DEV owns an MR with IBV_ACCESS_MW_BIND and binds windows
 * over part of it on its RC QP; DEV2's QP, connected to it, does RDMA
 * WRITE and READ through the window's rkey: inside the window (data
 * checked), outside it (remote access error), after the window was
 * invalidated (LOCAL_INV, SEND with invalidate) or rebound.  Type 1
 * windows are bound with ibv_bind_mw, type 2 windows with IBV_WR_BIND_MW;
 * a second bind of a bound type 2 window and a bind over an MR without
 * MW_BIND complete with IBV_WC_MW_BIND_ERR; ibv_dereg_mr of an MR with a
 * bound window fails.  ibv_query_device shows max_mw and the window
 * capabilities.  Prints PASS/FAIL lines (PREFIX/name, default mw/name)
 * and "N passed, N failed".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "verbs_util.h"

#define BUF	(64 * 1024)
#define WIN	4096	/* the windows start here in the owner's buffer */
#define WLEN	8192

#define TEST_LINES_PREFIX "mw"	/* -P: test names are PREFIX/name */
#include "test_lines.h"

static struct vu_dev a, b;	/* a: the remote side, b: the window owner */
static struct ibv_cq *acq, *bcq;
static struct ibv_qp *aqp, *bqp;
static struct ibv_mr *amr, *bmr;
static uint8_t *abuf, *bbuf;
static uint32_t psn = 0x100;

/* One completion of @cq (a few seconds at most); -1 if none came. */
static int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	long spins;
	int n;

	for (spins = 0; spins < 200000000L; spins++) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n == 1 ? 0 : -1;
	}
	return -1;
}

/* Both QPs through RESET and connected again (after an error). */
static int reconnect(void)
{
	struct ibv_qp_attr r = { .qp_state = IBV_QPS_RESET };
	struct vu_peer pa, pb;
	struct ibv_wc wc;
	const char *step;

	while (ibv_poll_cq(acq, 1, &wc) > 0 || ibv_poll_cq(bcq, 1, &wc) > 0)
		continue;
	if (ibv_modify_qp(aqp, &r, IBV_QP_STATE) ||
	    ibv_modify_qp(bqp, &r, IBV_QP_STATE))
		return -1;
	memset(&pa, 0, sizeof(pa));
	memset(&pb, 0, sizeof(pb));
	pa.qpn = aqp->qp_num;
	pa.psn = psn += 0x1000;
	memcpy(pa.gid, a.gid.raw, 16);
	pb.qpn = bqp->qp_num;
	pb.psn = psn += 0x1000;
	memcpy(pb.gid, b.gid.raw, 16);
	if (vu_qp_connect(aqp, &a, &pb, pa.psn, &step) ||
	    vu_qp_connect(bqp, &b, &pa, pb.psn, &step)) {
		printf("  connect failed at %s\n", step);
		return -1;
	}
	return 0;
}

/*
 * @op (WRITE or READ) of @len bytes from a's QP at offset @off of b's
 * buffer through @rkey; the completion's status, or -1.  A successful
 * WRITE's bytes are checked in b's buffer, a READ's in a's (-2 if not).
 */
static int remote(enum ibv_wr_opcode op, uint32_t rkey, size_t off,
		  uint32_t len)
{
	static uint8_t seed;
	struct ibv_sge sge = {
		.addr = (uintptr_t)abuf, .length = len, .lkey = amr->lkey,
	};
	struct ibv_send_wr wr, *bad;
	struct ibv_wc wc;
	uint32_t i;

	seed++;
	for (i = 0; i < len; i++)
		(op == IBV_WR_RDMA_WRITE ? abuf : bbuf + off)[i] =
			(uint8_t)(seed + i * 7);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)bbuf + off;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(aqp, &wr, &bad) || wait_wc(acq, &wc))
		return -1;
	if (wc.status != IBV_WC_SUCCESS)
		return wc.status;
	return memcmp(abuf, bbuf + off, len) ? -2 : 0;
}

/* A refused remote access; the pair is connected again afterwards. */
static int refused(enum ibv_wr_opcode op, uint32_t rkey, size_t off,
		   uint32_t len)
{
	int st = remote(op, rkey, off, len);

	if (reconnect())
		return 0;
	return st == IBV_WC_REM_ACCESS_ERR;
}

/* Post a bind of type 2 window @mw with key @rkey on b's QP; status. */
static int bind2(struct ibv_mw *mw, uint32_t rkey, struct ibv_mr *mr,
		 size_t off, size_t len, unsigned int access)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_wc wc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0xb1d;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = mr;
	wr.bind_mw.bind_info.addr = (uintptr_t)bbuf + off;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = access;
	if (ibv_post_send(bqp, &wr, &bad) || wait_wc(bcq, &wc) ||
	    wc.wr_id != 0xb1d || wc.opcode != IBV_WC_BIND_MW)
		return -1;
	return wc.status;
}

/* LOCAL_INV of @rkey on b's QP; status. */
static int local_inv(uint32_t rkey)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_wc wc;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = rkey;
	if (ibv_post_send(bqp, &wr, &bad) || wait_wc(bcq, &wc) ||
	    wc.opcode != IBV_WC_LOCAL_INV)
		return -1;
	return wc.status;
}

/* a SENDs with invalidate of @rkey; b's receive reports it. */
static int send_inv(uint32_t rkey)
{
	struct ibv_sge rs = {
		.addr = (uintptr_t)bbuf + BUF - 256, .length = 256,
		.lkey = bmr->lkey,
	};
	struct ibv_sge ss = {
		.addr = (uintptr_t)abuf, .length = 16, .lkey = amr->lkey,
	};
	struct ibv_recv_wr rwr = { .sg_list = &rs, .num_sge = 1 }, *rbad;
	struct ibv_send_wr wr, *bad;
	struct ibv_wc wc;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.sg_list = &ss;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = rkey;
	if (ibv_post_recv(bqp, &rwr, &rbad) || ibv_post_send(aqp, &wr, &bad) ||
	    wait_wc(acq, &wc) || wc.status != IBV_WC_SUCCESS ||
	    wait_wc(bcq, &wc))
		return 0;
	return wc.status == IBV_WC_SUCCESS &&
	       (wc.wc_flags & IBV_WC_WITH_INV) && wc.invalidated_rkey == rkey;
}

static int setup(const char *na, const char *nb)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	if (vu_dev_open(&b, na, 1, -1) || vu_dev_open(&a, nb, 1, -1))
		return -1;
	abuf = calloc(1, BUF);
	bbuf = calloc(1, BUF);
	acq = ibv_create_cq(a.ctx, 32, NULL, NULL, 0);
	bcq = ibv_create_cq(b.ctx, 32, NULL, NULL, 0);
	if (!abuf || !bbuf || !acq || !bcq)
		return -1;
	amr = ibv_reg_mr(a.pd, abuf, BUF, IBV_ACCESS_LOCAL_WRITE);
	bmr = ibv_reg_mr(b.pd, bbuf, BUF, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			 IBV_ACCESS_MW_BIND);
	qa.send_cq = qa.recv_cq = acq;
	aqp = ibv_create_qp(a.pd, &qa);
	qa.send_cq = qa.recv_cq = bcq;
	bqp = ibv_create_qp(b.pd, &qa);
	if (!amr || !bmr || !aqp || !bqp)
		return -1;
	return reconnect();
}

static void device_caps(void)
{
	struct ibv_device_attr da;

	check("devinfo_mw", !ibv_query_device(b.ctx, &da) && da.max_mw > 0 &&
	      (da.device_cap_flags & IBV_DEVICE_MEM_WINDOW) &&
	      (da.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B),
	      "max_mw 0 or no MEM_WINDOW / MEM_WINDOW_TYPE_2B capability");
}

static void type1(void)
{
	struct ibv_mw_bind mb;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t old;

	mw = ibv_alloc_mw(b.pd, IBV_MW_TYPE_1);
	check("type1_alloc", mw != NULL, strerror(errno));
	if (!mw)
		return;
	memset(&mb, 0, sizeof(mb));
	mb.wr_id = 0x1;
	mb.send_flags = IBV_SEND_SIGNALED;
	mb.bind_info.mr = bmr;
	mb.bind_info.addr = (uintptr_t)bbuf + WIN;
	mb.bind_info.length = WLEN;
	mb.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
				       IBV_ACCESS_REMOTE_READ;
	old = mw->rkey;
	check("type1_bind", !ibv_bind_mw(bqp, mw, &mb) && !wait_wc(bcq, &wc) &&
	      wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_BIND_MW &&
	      mw->rkey == ibv_inc_rkey(old), "ibv_bind_mw did not complete");
	check("type1_write_inside", !remote(IBV_WR_RDMA_WRITE, mw->rkey,
					     WIN + 100, 200),
	      "WRITE inside the window failed");
	check("type1_read_inside", !remote(IBV_WR_RDMA_READ, mw->rkey,
					    WIN + WLEN - 64, 64),
	      "READ inside the window failed");
	check("type1_write_outside", refused(IBV_WR_RDMA_WRITE, mw->rkey,
					      WIN + WLEN - 8, 16),
	      "WRITE past the window not refused");
	check("type1_read_outside", refused(IBV_WR_RDMA_READ, mw->rkey,
					     WIN - 8, 8),
	      "READ before the window not refused");
	/* rebind elsewhere: the old key dies, the new one works */
	old = mw->rkey;
	mb.bind_info.addr = (uintptr_t)bbuf;
	mb.bind_info.length = 1024;
	check("type1_rebind", !ibv_bind_mw(bqp, mw, &mb) && !wait_wc(bcq, &wc) &&
	      wc.status == IBV_WC_SUCCESS, "rebind failed");
	check("type1_rebound_write", !remote(IBV_WR_RDMA_WRITE, mw->rkey, 0,
					      64), "WRITE after rebind failed");
	check("type1_old_key_dead", refused(IBV_WR_RDMA_WRITE, old, WIN, 8),
	      "the old key still works");
	/* length 0 unbinds */
	mb.bind_info.length = 0;
	check("type1_unbind", !ibv_bind_mw(bqp, mw, &mb) && !wait_wc(bcq, &wc) &&
	      wc.status == IBV_WC_SUCCESS &&
	      refused(IBV_WR_RDMA_READ, mw->rkey, 0, 8),
	      "unbound window still readable");
	check("type1_dealloc", !ibv_dealloc_mw(mw), strerror(errno));
}

static void type2(void)
{
	struct ibv_mr *nobind;
	struct ibv_mw *mw;
	uint32_t k1, k2;

	mw = ibv_alloc_mw(b.pd, IBV_MW_TYPE_2);
	check("type2_alloc", mw != NULL, strerror(errno));
	if (!mw)
		return;
	k1 = ibv_inc_rkey(mw->rkey);
	check("type2_unbound_refused", refused(IBV_WR_RDMA_WRITE, k1, WIN, 8),
	      "a WRITE through an unbound window worked");
	check("type2_bind", bind2(mw, k1, bmr, WIN, WLEN,
				  IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_READ) == IBV_WC_SUCCESS,
	      "IBV_WR_BIND_MW failed");
	mw->rkey = k1;
	check("type2_write_inside", !remote(IBV_WR_RDMA_WRITE, k1, WIN, 256),
	      "WRITE inside the window failed");
	check("type2_read_inside", !remote(IBV_WR_RDMA_READ, k1,
					    WIN + WLEN - 256, 256),
	      "READ inside the window failed");
	check("type2_write_outside", refused(IBV_WR_RDMA_WRITE, k1,
					      WIN + WLEN, 8),
	      "WRITE after the window not refused");
	check("type2_dereg_mr_busy", ibv_dereg_mr(bmr) != 0,
	      "the MR went while a window was bound to it");
	k2 = ibv_inc_rkey(k1);
	check("type2_bind_bound", bind2(mw, k2, bmr, 0, 64,
					IBV_ACCESS_REMOTE_READ) ==
	      IBV_WC_MW_BIND_ERR, "a bound type 2 window was bound again");
	check("type2_reconnect", !reconnect(), "reconnect");
	check("type2_still_bound", !remote(IBV_WR_RDMA_WRITE, k1, WIN, 8),
	      "the refused bind changed the window");
	check("type2_local_inv", local_inv(k1) == IBV_WC_SUCCESS,
	      "LOCAL_INV failed");
	check("type2_invalidated", refused(IBV_WR_RDMA_WRITE, k1, WIN, 8),
	      "WRITE through an invalidated window worked");
	check("type2_rebind", bind2(mw, k2, bmr, 0, 2048,
				    IBV_ACCESS_REMOTE_WRITE) == IBV_WC_SUCCESS,
	      "rebind after LOCAL_INV failed");
	mw->rkey = k2;
	check("type2_rebound_write", !remote(IBV_WR_RDMA_WRITE, k2, 1024, 512),
	      "WRITE after rebind failed");
	check("type2_rebound_no_read", refused(IBV_WR_RDMA_READ, k2, 1024, 8),
	      "READ without REMOTE_READ worked");
	check("type2_send_inv", send_inv(k2), "SEND with invalidate failed");
	check("type2_remote_invalidated", refused(IBV_WR_RDMA_WRITE, k2, 0, 8),
	      "WRITE after SEND with invalidate worked");
	/* an MR without MW_BIND */
	nobind = ibv_reg_mr(b.pd, bbuf, 4096, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_WRITE);
	check("type2_bind_no_mw_bind", nobind &&
	      bind2(mw, ibv_inc_rkey(k2), nobind, 0, 64,
		    IBV_ACCESS_REMOTE_WRITE) == IBV_WC_MW_BIND_ERR,
	      "a bind over an MR without MW_BIND worked");
	check("type2_reconnect_end", !reconnect(), "reconnect");
	if (nobind)
		ibv_dereg_mr(nobind);
	check("type2_dealloc", !ibv_dealloc_mw(mw), strerror(errno));
}

int main(int argc, char **argv)
{
	const char *na = NULL, *nb = NULL;

	if (two_devs(argc, argv, &na, &nb) || setup(na, nb)) {
		printf("FAIL %s/setup: usage: snic-mw-test -d DEV -e DEV2 (%s)\n",
		       prefix, strerror(errno));
		return 1;
	}
	device_caps();
	type1();
	type2();
	check("dereg_mr", !ibv_dereg_mr(bmr), "the MR did not go");
	ibv_destroy_qp(aqp);
	ibv_destroy_qp(bqp);
	ibv_dereg_mr(amr);
	ibv_destroy_cq(acq);
	ibv_destroy_cq(bcq);
	vu_dev_close(&a);
	vu_dev_close(&b);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
