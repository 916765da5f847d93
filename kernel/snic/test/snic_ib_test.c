// SPDX-License-Identifier: GPL-2.0
/*
 * snic_ib_test: in-kernel verbs self-test of the snic ib_device.
 *
 * Two snic ib_devices (@ib0, @ib1: two snic ports on one wire, e.g. the
 * one-guest hub topology, each port with an IPv4 address, the second one
 * in another network namespace so that ARP crosses the wire) get an RC QP
 * each, connected to each other through ib_modify_qp (ib_core resolves
 * the GIDs and MACs).  The test then checks
 *   - bad input: invalid transitions, missing or out-of-range attributes,
 *     oversized capabilities, posting in RESET -> errors, no command;
 *   - SEND and SEND with immediate (completion event through
 *     req_notify_cq), RDMA WRITE / READ through a fast-registered MR,
 *     fetch-and-add, SEND with invalidate (the MR is invalid afterwards:
 *     a WRITE to it fails with a remote access error and the requester's
 *     QP goes to ERR, with an async event), flushing in ERR;
 *   - destroying a QP with work in flight.
 * Results are kernel log lines "snic_ib_test: PASS name" / "FAIL name:
 * why", then "snic_ib_test: DONE n passed, n failed".  Load with
 *   modprobe snic_ib_test ib0=snic_0 ib1=snic_1
 */
#include <linux/module.h>
#include <linux/completion.h>
#include <linux/etherdevice.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cache.h>

static char *ib0 = "snic_0";
module_param(ib0, charp, 0444);
MODULE_PARM_DESC(ib0, "first ib_device");
static char *ib1 = "snic_1";
module_param(ib1, charp, 0444);
MODULE_PARM_DESC(ib1, "second ib_device");

#define T_BUF		(64 * 1024)
#define T_MSG		4000
#define T_TIMEOUT	(5 * HZ)
#define T_RKEY_MR_PAGES	4

struct t_side {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	void *buf;
	u64 dma;
	int gid_index;
	struct completion cq_event;
	struct completion qp_event;
	enum ib_event_type last_event;
};

static int passed, failed;

static void t_pass(const char *name)
{
	passed++;
	pr_info("snic_ib_test: PASS %s\n", name);
}

static void t_vfail(const char *name, struct va_format *vaf)
{
	failed++;
	pr_info("snic_ib_test: FAIL %s: %pV\n", name, vaf);
}

static __printf(2, 3) void t_fail(const char *name, const char *fmt, ...)
{
	struct va_format vaf = { .fmt = fmt };
	va_list args;

	va_start(args, fmt);
	vaf.va = &args;
	t_vfail(name, &vaf);
	va_end(args);
}

/* PASS if @ok, else FAIL with the message. */
static __printf(3, 4) void t_check(const char *name, bool ok,
				   const char *fmt, ...)
{
	struct va_format vaf = { .fmt = fmt };
	va_list args;

	if (ok) {
		t_pass(name);
		return;
	}
	va_start(args, fmt);
	vaf.va = &args;
	t_vfail(name, &vaf);
	va_end(args);
}

static void t_comp(struct ib_cq *cq, void *ctx)
{
	complete(&((struct t_side *)ctx)->cq_event);
}

static void t_qp_event(struct ib_event *ev, void *ctx)
{
	struct t_side *s = ctx;

	s->last_event = ev->event;
	complete(&s->qp_event);
}

/* A RoCE v2 GID with an IPv4 address. */
static int t_find_gid(struct ib_device *dev)
{
	const struct ib_gid_attr *a;
	int i;

	for (i = 0; i < dev->port_data[1].immutable.gid_tbl_len; i++) {
		a = rdma_get_gid_attr(dev, 1, i);
		if (IS_ERR(a))
			continue;
		if (a->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		    ipv6_addr_v4mapped((struct in6_addr *)a->gid.raw)) {
			rdma_put_gid_attr(a);
			return i;
		}
		rdma_put_gid_attr(a);
	}
	return -ENOENT;
}

/* Poll one completion (busy, with a timeout). */
static int t_poll(struct t_side *s, struct ib_wc *wc)
{
	unsigned long end = jiffies + T_TIMEOUT;
	int n;

	do {
		n = ib_poll_cq(s->cq, 1, wc);
		if (n)
			return n < 0 ? n : 0;
		usleep_range(100, 200);
	} while (time_before(jiffies, end));
	return -ETIMEDOUT;
}

static struct ib_qp *t_create_qp(struct t_side *s, u32 send_wr, u32 sge)
{
	struct ib_qp_init_attr ia = {
		.event_handler = t_qp_event,
		.qp_context = s,
		.send_cq = s->cq,
		.recv_cq = s->cq,
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = send_wr,
			.max_recv_wr = 16,
			.max_send_sge = sge,
			.max_recv_sge = 2,
		},
	};

	return ib_create_qp(s->pd, &ia);
}

static int t_side_init(struct t_side *s, const char *name)
{
	struct ib_cq_init_attr ca = { .cqe = 128 };

	init_completion(&s->cq_event);
	init_completion(&s->qp_event);
	s->dev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (!s->dev)
		return -ENODEV;
	s->gid_index = t_find_gid(s->dev);
	if (s->gid_index < 0)
		return s->gid_index;
	s->buf = kzalloc(T_BUF, GFP_KERNEL);
	if (!s->buf)
		return -ENOMEM;
	s->dma = ib_dma_map_single(s->dev, s->buf, T_BUF, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(s->dev, s->dma)) {
		kfree(s->buf);
		s->buf = NULL;
		return -ENOMEM;
	}
	s->pd = ib_alloc_pd(s->dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(s->pd)) {
		int ret = PTR_ERR(s->pd);

		s->pd = NULL;
		return ret;
	}
	s->cq = ib_create_cq(s->dev, t_comp, NULL, s, &ca);
	if (IS_ERR(s->cq)) {
		int ret = PTR_ERR(s->cq);

		s->cq = NULL;
		return ret;
	}
	s->qp = t_create_qp(s, 32, 2);
	if (IS_ERR(s->qp)) {
		int ret = PTR_ERR(s->qp);

		s->qp = NULL;
		return ret;
	}
	return 0;
}

static void t_side_fini(struct t_side *s)
{
	if (s->qp)
		ib_destroy_qp(s->qp);
	if (s->cq)
		ib_destroy_cq(s->cq);
	if (s->pd)
		ib_dealloc_pd(s->pd);
	if (s->buf) {
		ib_dma_unmap_single(s->dev, s->dma, T_BUF, DMA_BIDIRECTIONAL);
		kfree(s->buf);
	}
	if (s->dev)
		ib_device_put(s->dev);
}

/* RESET -> INIT -> RTR -> RTS towards @peer. */
static int t_connect(struct t_side *s, struct ib_qp *qp, struct t_side *peer,
		     struct ib_qp *pqp)
{
	const struct ib_gid_attr *pa;
	struct ib_qp_attr a = {};
	struct net_device *ndev;
	int ret;

	a.qp_state = IB_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
			    IB_ACCESS_REMOTE_ATOMIC;
	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	pa = rdma_get_gid_attr(peer->dev, 1, peer->gid_index);
	if (IS_ERR(pa))
		return PTR_ERR(pa);
	a.qp_state = IB_QPS_RTR;
	a.path_mtu = IB_MTU_1024;
	a.dest_qp_num = pqp->qp_num;
	a.rq_psn = 0x100;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&a.ah_attr, 1);
	rdma_ah_set_grh(&a.ah_attr, NULL, 0, s->gid_index, 64, 0);
	a.ah_attr.grh.dgid = pa->gid;
	/*
	 * Kernel users resolve the peer's MAC themselves (rdma_cm does it
	 * with ARP); the peer port is on our wire, so take its address.
	 */
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(pa);
	if (!IS_ERR(ndev))
		ether_addr_copy(a.ah_attr.roce.dmac, ndev->dev_addr);
	rcu_read_unlock();
	rdma_put_gid_attr(pa);
	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 0x100;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

/* An AH towards @peer's GID gives back what it was created with. */
static void t_query_ah(struct t_side *s, struct t_side *peer)
{
	const struct ib_global_route *g;
	const struct ib_gid_attr *pa;
	struct rdma_ah_attr a = {}, q = {};
	union ib_gid dgid;
	struct ib_ah *ah;
	int ret;

	pa = rdma_get_gid_attr(peer->dev, 1, peer->gid_index);
	if (IS_ERR(pa)) {
		t_fail("query_ah", "peer gid: %ld", PTR_ERR(pa));
		return;
	}
	dgid = pa->gid;
	rdma_put_gid_attr(pa);
	a.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&a, 1);
	rdma_ah_set_grh(&a, &dgid, 0x1234, s->gid_index, 17, 8);
	eth_random_addr(a.roce.dmac);
	ah = rdma_create_ah(s->pd, &a, 0);
	if (IS_ERR(ah)) {
		t_fail("query_ah", "rdma_create_ah: %ld", PTR_ERR(ah));
		return;
	}
	ret = rdma_query_ah(ah, &q);
	g = rdma_ah_read_grh(&q);
	t_check("query_ah", !ret && q.type == RDMA_AH_ATTR_TYPE_ROCE &&
		(rdma_ah_get_ah_flags(&q) & IB_AH_GRH) &&
		!memcmp(&g->dgid, &a.grh.dgid, sizeof(g->dgid)) &&
		g->flow_label == 0x1234 && g->sgid_index == s->gid_index &&
		g->hop_limit == 17 && g->traffic_class == 8 &&
		ether_addr_equal(q.roce.dmac, a.roce.dmac) &&
		rdma_ah_get_port_num(&q) == 1,
		"ret %d flow %u sgid %u hop %u tc %u dmac %pM", ret,
		g->flow_label, g->sgid_index, g->hop_limit, g->traffic_class,
		q.roce.dmac);
	rdma_destroy_ah(ah, 0);
}

static void t_bad_input(struct t_side *s)
{
	struct ib_recv_wr rwr = {};
	const struct ib_recv_wr *bad;
	struct ib_qp_attr a = {};
	struct ib_mr *mr;
	struct ib_qp *qp;
	int ret;

	qp = t_create_qp(s, 4, 1);
	if (IS_ERR(qp)) {
		t_fail("bad_input_qp", "create_qp: %ld", PTR_ERR(qp));
		return;
	}
	a.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(qp, &a, IB_QP_STATE);
	t_check("reset_to_rtr_einval", ret == -EINVAL, "got %d", ret);
	a.qp_state = IB_QPS_INIT;
	ret = ib_modify_qp(qp, &a, IB_QP_STATE);
	t_check("init_missing_attrs_einval", ret == -EINVAL, "got %d", ret);
	a.qp_state = IB_QPS_INIT;
	a.port_num = 1;
	a.pkey_index = 3;
	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	t_check("pkey_index_einval", ret == -EINVAL, "got %d", ret);
	a.pkey_index = 0;
	a.qp_access_flags = 1u << 10;
	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	t_check("access_flags_einval", ret == -EINVAL, "got %d", ret);
	a.qp_access_flags = 0;
	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	t_check("reset_to_init", !ret, "got %d", ret);
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PATH_MTU);
	t_check("rtr_without_av_einval", ret == -EINVAL, "got %d", ret);
	a.qp_state = IB_QPS_RTR;
	a.path_mtu = IB_MTU_1024;
	a.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&a.ah_attr, 1);
	rdma_ah_set_grh(&a.ah_attr, NULL, 0, s->gid_index, 64, 0);
	/* An IPv4 peer, but no MAC resolved for it. */
	ipv6_addr_set_v4mapped(htonl(0x0a000063),
			       (struct in6_addr *)a.ah_attr.grh.dgid.raw);
	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	t_check("rtr_unresolved_av_einval", ret == -EINVAL, "got %d", ret);
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	ret = ib_modify_qp(qp, &a, IB_QP_STATE);
	t_check("init_to_rts_einval", ret == -EINVAL, "got %d", ret);
	a.qp_state = IB_QPS_INIT;
	a.timeout = 40;
	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_TIMEOUT);
	t_check("attr_not_allowed_einval", ret == -EINVAL, "got %d", ret);
	a.qp_state = IB_QPS_RESET;
	ret = ib_modify_qp(qp, &a, IB_QP_STATE);
	t_check("back_to_reset", !ret, "got %d", ret);
	rwr.wr_id = 1;
	ret = ib_post_recv(qp, &rwr, &bad);
	t_check("post_recv_in_reset_einval", ret == -EINVAL && bad == &rwr,
		"got %d", ret);
	ib_destroy_qp(qp);

	qp = t_create_qp(s, 4, 64);
	t_check("create_qp_too_many_sge", IS_ERR(qp), "created");
	if (!IS_ERR(qp))
		ib_destroy_qp(qp);
	qp = t_create_qp(s, 1 << 20, 1);
	t_check("create_qp_too_many_wr", IS_ERR(qp), "created");
	if (!IS_ERR(qp))
		ib_destroy_qp(qp);
	mr = ib_alloc_mr(s->pd, IB_MR_TYPE_MEM_REG, 1 << 20);
	t_check("alloc_mr_too_big", IS_ERR(mr), "allocated");
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
}

static int t_post_recv(struct t_side *s, u64 id, u32 off, u32 len)
{
	struct ib_sge sge = {
		.addr = s->dma + off, .length = len,
		.lkey = s->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(s->qp, &wr, NULL);
}

static int t_post(struct ib_qp *qp, struct ib_send_wr *wr, struct t_side *s,
		  u32 off, u32 len)
{
	struct ib_sge sge = {
		.addr = s->dma + off, .length = len,
		.lkey = s->pd->local_dma_lkey,
	};

	wr->sg_list = &sge;
	wr->num_sge = len ? 1 : 0;
	return ib_post_send(qp, wr, NULL);
}

/* Expect one completion on @s: status, opcode; returns the wc. */
static bool t_expect(const char *name, struct t_side *s, struct ib_wc *wc,
		     enum ib_wc_status st, enum ib_wc_opcode op, u64 id)
{
	int ret = t_poll(s, wc);

	if (ret) {
		t_fail(name, "no completion (%d)", ret);
		return false;
	}
	if (wc->status != st || (st == IB_WC_SUCCESS && wc->opcode != op) ||
	    wc->wr_id != id) {
		t_fail(name, "status %d opcode %d wr_id %llu (want %d %d %llu)",
		       wc->status, wc->opcode, wc->wr_id, st, op, id);
		return false;
	}
	return true;
}

static void t_traffic(struct t_side *a, struct t_side *b)
{
	struct ib_send_wr wr = {};
	struct ib_rdma_wr rw = {};
	struct ib_atomic_wr aw = {};
	struct ib_reg_wr reg = {};
	struct scatterlist sg;
	struct ib_wc wc;
	struct ib_mr *mr;
	u8 *pa = a->buf, *pb = b->buf;
	int i, ret, n;

	for (i = 0; i < T_MSG; i++)
		pa[i] = i * 7 + 3;

	/* SEND: receiver armed, completion event. */
	reinit_completion(&b->cq_event);
	ib_req_notify_cq(b->cq, IB_CQ_NEXT_COMP);
	ret = t_post_recv(b, 11, 0, T_BUF / 2);
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;
	wr.wr_id = 21;
	if (!ret)
		ret = t_post(a->qp, &wr, a, 0, T_MSG);
	if (ret) {
		t_fail("send", "post: %d", ret);
		return;
	}
	if (t_expect("send_completion", a, &wc, IB_WC_SUCCESS, IB_WC_SEND, 21))
		t_pass("send_completion");
	t_check("recv_event", wait_for_completion_timeout(&b->cq_event,
							  T_TIMEOUT),
		"no completion event");
	if (t_expect("recv_completion", b, &wc, IB_WC_SUCCESS, IB_WC_RECV, 11))
		t_check("recv_completion", wc.byte_len == T_MSG &&
			!memcmp(pa, pb, T_MSG), "byte_len %u or data differ",
			wc.byte_len);

	/* SEND with immediate. */
	t_post_recv(b, 12, 0, T_BUF / 2);
	wr.opcode = IB_WR_SEND_WITH_IMM;
	wr.ex.imm_data = cpu_to_be32(0x1234abcd);
	wr.wr_id = 22;
	t_post(a->qp, &wr, a, 0, 64);
	if (t_expect("send_imm", a, &wc, IB_WC_SUCCESS, IB_WC_SEND, 22))
		t_pass("send_imm");
	if (t_expect("recv_imm", b, &wc, IB_WC_SUCCESS, IB_WC_RECV, 12))
		t_check("recv_imm", (wc.wc_flags & IB_WC_WITH_IMM) &&
			wc.ex.imm_data == cpu_to_be32(0x1234abcd),
			"flags %#x imm %#x", wc.wc_flags,
			be32_to_cpu(wc.ex.imm_data));

	/* Fast registration of b's buffer (second half). */
	mr = ib_alloc_mr(b->pd, IB_MR_TYPE_MEM_REG, T_RKEY_MR_PAGES);
	if (IS_ERR(mr)) {
		t_fail("alloc_mr", "%ld", PTR_ERR(mr));
		return;
	}
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = b->dma + T_BUF / 2;
	sg_dma_len(&sg) = 4 * PAGE_SIZE;
	n = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
	t_check("map_mr_sg", n == 1, "mapped %d", n);
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.wr.wr_id = 31;
	reg.mr = mr;
	reg.key = mr->rkey;
	reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		     IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC;
	ret = ib_post_send(b->qp, &reg.wr, NULL);
	if (!ret && t_expect("reg_mr", b, &wc, IB_WC_SUCCESS, IB_WC_REG_MR, 31))
		t_pass("reg_mr");

	/* RDMA WRITE into the MR, then READ it back elsewhere. */
	rw.wr.opcode = IB_WR_RDMA_WRITE;
	rw.wr.send_flags = IB_SEND_SIGNALED;
	rw.wr.wr_id = 41;
	rw.remote_addr = mr->iova + 100;
	rw.rkey = mr->rkey;
	t_post(a->qp, &rw.wr, a, 0, T_MSG);
	if (t_expect("rdma_write", a, &wc, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, 41))
		t_check("rdma_write", !memcmp(pb + T_BUF / 2 + 100, pa, T_MSG),
			"data differ");
	rw.wr.opcode = IB_WR_RDMA_READ;
	rw.wr.wr_id = 42;
	memset(pa + 8192, 0, T_MSG);
	t_post(a->qp, &rw.wr, a, 8192, T_MSG);
	if (t_expect("rdma_read", a, &wc, IB_WC_SUCCESS, IB_WC_RDMA_READ, 42))
		t_check("rdma_read", wc.byte_len == T_MSG &&
			!memcmp(pa + 8192, pa, T_MSG), "byte_len %u or data",
			wc.byte_len);

	/* Fetch and add on an 8-byte word of the MR. */
	*(u64 *)(pb + T_BUF / 2 + 4096) = 40;
	aw.wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
	aw.wr.send_flags = IB_SEND_SIGNALED;
	aw.wr.wr_id = 51;
	aw.remote_addr = mr->iova + 4096;
	aw.rkey = mr->rkey;
	aw.compare_add = 2;
	t_post(a->qp, &aw.wr, a, 16384, 8);
	if (t_expect("fetch_add", a, &wc, IB_WC_SUCCESS, IB_WC_FETCH_ADD, 51))
		t_check("fetch_add", *(u64 *)(pa + 16384) == 40 &&
			*(u64 *)(pb + T_BUF / 2 + 4096) == 42,
			"old %llu new %llu", *(u64 *)(pa + 16384),
			*(u64 *)(pb + T_BUF / 2 + 4096));

	/* SEND with invalidate kills the rkey on b. */
	t_post_recv(b, 13, 0, T_BUF / 2);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IB_WR_SEND_WITH_INV;
	wr.send_flags = IB_SEND_SIGNALED;
	wr.ex.invalidate_rkey = mr->rkey;
	wr.wr_id = 23;
	t_post(a->qp, &wr, a, 0, 16);
	if (t_expect("send_inv", a, &wc, IB_WC_SUCCESS, IB_WC_SEND, 23))
		t_pass("send_inv");
	if (t_expect("recv_inv", b, &wc, IB_WC_SUCCESS, IB_WC_RECV, 13))
		t_check("recv_inv", (wc.wc_flags & IB_WC_WITH_INVALIDATE) &&
			wc.ex.invalidate_rkey == mr->rkey,
			"flags %#x rkey %#x", wc.wc_flags,
			wc.ex.invalidate_rkey);

	/* A WRITE with the dead rkey: remote access error, QP a in ERR. */
	reinit_completion(&a->qp_event);
	rw.wr.opcode = IB_WR_RDMA_WRITE;
	rw.wr.wr_id = 43;
	t_post(a->qp, &rw.wr, a, 0, 64);
	if (t_expect("write_invalid_rkey", a, &wc, IB_WC_REM_ACCESS_ERR, 0, 43))
		t_pass("write_invalid_rkey");
	t_check("qp_error_event",
		wait_for_completion_timeout(&a->qp_event, T_TIMEOUT) &&
		a->last_event == IB_EVENT_QP_ACCESS_ERR,
		"event %d", a->last_event);
	/* Posting in ERR completes flushed (what ib_drain_qp relies on). */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IB_WR_SEND;
	wr.wr_id = 24;
	ret = t_post(a->qp, &wr, a, 0, 8);
	if (!ret && t_expect("flush_in_err", a, &wc, IB_WC_WR_FLUSH_ERR, 0, 24))
		t_pass("flush_in_err");
	else if (ret)
		t_fail("flush_in_err", "post: %d", ret);
	ib_dereg_mr(mr);
}

/* Destroy a connected QP with WRITEs in flight and a receive posted. */
static void t_destroy_in_flight(struct t_side *a, struct t_side *b)
{
	struct ib_rdma_wr rw = {};
	int i, ret = 0;

	/* The PD's global rkey is a PHYS MR (get_dma_mr). */
	if (!b->pd->unsafe_global_rkey) {
		t_fail("dma_mr", "no global rkey");
		return;
	}
	t_pass("dma_mr");
	ib_destroy_qp(a->qp);
	ib_destroy_qp(b->qp);
	a->qp = t_create_qp(a, 32, 2);
	b->qp = t_create_qp(b, 32, 2);
	if (IS_ERR(a->qp) || IS_ERR(b->qp)) {
		t_fail("destroy_in_flight", "create_qp");
		if (IS_ERR(a->qp))
			a->qp = NULL;
		if (IS_ERR(b->qp))
			b->qp = NULL;
		return;
	}
	ret = t_connect(a, a->qp, b, b->qp) ?: t_connect(b, b->qp, a, a->qp);
	if (ret) {
		t_fail("destroy_in_flight", "connect: %d", ret);
		return;
	}
	t_post_recv(b, 99, 0, 64);
	rw.wr.opcode = IB_WR_RDMA_WRITE;
	rw.remote_addr = b->dma + T_BUF / 2;
	rw.rkey = b->pd->unsafe_global_rkey;
	for (i = 0; i < 16 && !ret; i++) {
		rw.wr.wr_id = 100 + i;
		rw.wr.send_flags = i == 15 ? IB_SEND_SIGNALED : 0;
		ret = t_post(a->qp, &rw.wr, a, 0, T_BUF / 2);
	}
	ib_destroy_qp(a->qp);
	a->qp = NULL;
	ib_destroy_qp(b->qp);
	b->qp = NULL;
	t_check("destroy_in_flight", !ret, "post: %d", ret);
}

static int __init snic_ib_test_init(void)
{
	struct t_side a = {}, b = {};
	int ret;

	ret = t_side_init(&a, ib0);
	if (!ret)
		ret = t_side_init(&b, ib1);
	if (ret) {
		t_fail("setup", "%s/%s: %d", ib0, ib1, ret);
		goto out;
	}
	t_pass("setup");
	t_bad_input(&a);
	ret = t_connect(&a, a.qp, &b, b.qp) ?: t_connect(&b, b.qp, &a, a.qp);
	if (ret) {
		t_fail("connect", "%d", ret);
		goto out;
	}
	t_pass("connect");
	t_query_ah(&a, &b);
	t_traffic(&a, &b);
	t_destroy_in_flight(&a, &b);
out:
	t_side_fini(&a);
	t_side_fini(&b);
	pr_info("snic_ib_test: DONE %d passed, %d failed\n", passed, failed);
	return 0;
}

static void __exit snic_ib_test_exit(void)
{
}

module_init(snic_ib_test_init);
module_exit(snic_ib_test_exit);
MODULE_DESCRIPTION("snic ib_device verbs self-test");
MODULE_LICENSE("GPL");
