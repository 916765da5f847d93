// SPDX-License-Identifier: GPL-2.0
/*
 * fld.ko: FLD-E - raw Ethernet queues of a snic whose send ring,
 * completion ring, doorbell records and receive buffers are windows of
 * FLD's BAR2, created through snic's peer-queue API.  The striding RQ's
 * ring is in host memory, written once here: FLD recycles the buffers in
 * posting order by advancing the producer counter (its doorbell record).
 *
 * One queue set (CQ, SQ, RQ; FLD slot k for each) per tenant k: a
 * steering rule sends UDP port udp_port + k to tenant k's RQ, tagged
 * tenant + k (the flow tag iotauth picks its key by); FLD's accelerator
 * answers on tenant k's SQ, which has its own snic rate limit, and gives
 * every RQ an equal share of its input FIFO - so a tenant flooding above
 * its rate fills and overflows only its own share.  No per-packet work
 * happens on the host.
 */
#include <linux/dma-mapping.h>
#include <linux/netdevice.h>
#include "fld.h"

static int fld_bind(struct fld_dev *fd, u32 kind, u32 slot,
		    const struct snic_peer_queue *q)
{
	u32 a[5] = { kind, slot, q->qn, lower_32_bits(q->db_bus),
		     upper_32_bits(q->db_bus) };

	return fld_cmd(fd, FLD_CMD_BIND, a, 5, NULL);
}

static void fld_flde_rules_del(struct fld_flde *e)
{
	unsigned int k;

	for (k = 0; k < e->ntenants; k++) {
		if (e->q[k].have_rule)
			snic_peer_del_rule(e->snic, e->q[k].rule_id);
		e->q[k].have_rule = false;
	}
}

/* Tenant k's rule: UDP udp_port + k to its RQ, flow tag tenant + k. */
static int fld_flde_rules(struct fld_dev *fd, u16 port)
{
	struct fld_flde *e = &fd->e;
	unsigned int k;
	int ret = 0;

	if (port && port + e->ntenants - 1 > U16_MAX)
		return -EINVAL;
	fld_flde_rules_del(e);
	e->udp_port = port;
	if (!port)
		return 0;
	for (k = 0; k < e->ntenants && !ret; k++) {
		struct fld_flde_q *q = &e->q[k];
		struct snic_steer_rule r = {};

		r.match = cpu_to_le32(SNIC_MATCH_IP_PROTO |
				      SNIC_MATCH_DST_PORT);
		r.priority = cpu_to_le16(FLDE_RULE_PRIO);
		r.dest = SNIC_DEST_RQ;
		r.actions = SNIC_ACT_COUNT | SNIC_ACT_TAG;
		r.dest_id = cpu_to_le32(q->rq.qn);
		r.flow_tag = cpu_to_le32((e->tenant + k) & FLD_MAX_FLOW_TAG);
		r.ip_proto = IPPROTO_UDP;
		r.dst_port = cpu_to_be16(port + k);
		ret = snic_peer_add_rule(e->snic, &r, &q->rule_id);
		if (!ret)
			q->have_rule = true;
	}
	return ret;
}

int fld_flde_set_port(struct fld_dev *fd, u16 port)
{
	lockdep_assert_held(&fd->lock);
	if (!fd->e.up)
		return -ENODEV;
	return fld_flde_rules(fd, port);
}

/* Tenant @k's SQ rate limit in bits/s (0: none), by snic's token bucket. */
int fld_flde_set_rate(struct fld_dev *fd, unsigned int k, u64 rate_bps)
{
	struct fld_flde *e = &fd->e;
	int ret;

	lockdep_assert_held(&fd->lock);
	if (!e->up)
		return -ENODEV;
	if (k >= e->ntenants)
		return -EINVAL;
	ret = snic_peer_set_sq_rate(e->snic, e->q[k].sq.qn, rate_bps);
	if (!ret)
		e->q[k].rate_bps = rate_bps;
	return ret;
}

/*
 * defrag's input: VXLAN frames of @vni decapsulated by the NIC and their
 * inner frames steered to tenant 0 (tagged like its UDP rule); 0 removes
 * it.
 */
int fld_flde_set_vni(struct fld_dev *fd, u32 vni)
{
	struct fld_flde *e = &fd->e;
	struct snic_steer_rule r = {};
	int ret;

	lockdep_assert_held(&fd->lock);
	if (!e->up)
		return -ENODEV;
	if (vni >= 1u << 24)
		return -EINVAL;
	if (e->have_vni_rule) {
		snic_peer_del_rule(e->snic, e->vni_rule_id);
		e->have_vni_rule = false;
	}
	e->vni = vni;
	if (!vni)
		return 0;
	r.match = cpu_to_le32(SNIC_MATCH_VNI);
	r.priority = cpu_to_le16(FLDE_RULE_PRIO);
	r.dest = SNIC_DEST_RQ;
	r.actions = SNIC_ACT_DECAP | SNIC_ACT_COUNT | SNIC_ACT_TAG;
	r.dest_id = cpu_to_le32(e->q[0].rq.qn);
	r.flow_tag = cpu_to_le32(e->tenant);
	r.vni = cpu_to_le32(vni);
	ret = snic_peer_add_rule(e->snic, &r, &e->vni_rule_id);
	if (ret)
		e->vni = 0;
	else
		e->have_vni_rule = true;
	return ret;
}

/* Tears down whatever fld_flde_start() built, in reverse. */
void fld_flde_stop(struct fld_dev *fd)
{
	struct fld_flde *e = &fd->e;
	int k;

	lockdep_assert_held(&fd->lock);
	if (!e->snic)
		return;
	fld_flde_rules_del(e);
	if (e->have_vni_rule)
		snic_peer_del_rule(e->snic, e->vni_rule_id);
	e->have_vni_rule = false;
	e->vni = 0;
	for (k = FLDE_MAX_TENANTS - 1; k >= 0; k--) {
		struct fld_flde_q *q = &e->q[k];
		u32 slot = k;

		if (q->rq.qn != FLD_QN_NONE)
			snic_peer_destroy_rq(e->snic, q->rq.qn);
		if (q->sq.qn != FLD_QN_NONE)
			snic_peer_destroy_sq(e->snic, q->sq.qn);
		if (q->cq.qn != FLD_QN_NONE)
			snic_peer_destroy_cq(e->snic, q->cq.qn);
		if (k < e->ntenants) {
			fld_cmd(fd, FLD_CMD_RQ_CLEAR, &slot, 1, NULL);
			fld_cmd(fd, FLD_CMD_SQ_CLEAR, &slot, 1, NULL);
			fld_cmd(fd, FLD_CMD_CQ_CLEAR, &slot, 1, NULL);
		}
		if (q->rq_ring)
			dma_free_coherent(&fd->pdev->dev,
					  sizeof(*q->rq_ring) << FLDE_RQ_LOG,
					  q->rq_ring, q->rq_ring_dma);
	}
	memset(e, 0, sizeof(*e));
}

/* Tenant @k's CQ, SQ and striding RQ in FLD slots @k, routed RQ -> SQ. */
static int fld_flde_queues(struct fld_dev *fd, unsigned int k)
{
	struct fld_flde *e = &fd->e;
	struct fld_flde_q *q = &e->q[k];
	struct snic_peer_cq_attr ca = {};
	struct snic_peer_sq_attr sa = {};
	struct snic_peer_rq_attr ra = {};
	u32 a[8], off, i, bufsz = 1u << (FLDE_LOG_STRIDE + FLDE_LOG_NSTR);
	int ret;

	/* FLD slots first: snic probes each ring when it creates the queue. */
	a[0] = k; a[1] = FLD_QN_NONE; a[2] = FLDE_CQ_LOG;
	ret = fld_cmd(fd, FLD_CMD_CQ_SET, a, 3, &off);
	if (ret)
		return ret;
	ca.ring_bus = fd->win_bus + off;
	ca.dbr_bus = fd->win_bus + FLD_WIN_DBR + FLD_DBR_CQ + 4 * k;
	ca.log_size = FLDE_CQ_LOG;
	ca.mini = e->knobs.mini_cqe;
	ret = snic_peer_create_cq(e->snic, &ca, &q->cq);
	if (ret)
		return ret;
	ret = fld_bind(fd, FLD_BIND_CQ, k, &q->cq);
	if (ret)
		return ret;

	a[0] = k; a[1] = FLD_QN_NONE; a[2] = FLDE_SQ_LOG; a[3] = k;
	a[4] = 0; a[5] = 0; a[6] = 0;
	ret = fld_cmd(fd, FLD_CMD_SQ_SET, a, 7, &off);
	if (ret)
		return ret;
	sa.ring_bus = fd->win_bus + off;
	sa.dbr_bus = fd->win_bus + FLD_WIN_DBR + FLD_DBR_SQ + 4 * k;
	sa.log_size = FLDE_SQ_LOG;
	sa.cqn = q->cq.qn;
	sa.rate_bps = q->rate_bps;
	sa.loopback = e->loopback;
	ret = snic_peer_create_sq(e->snic, &sa, &q->sq);
	if (ret)
		return ret;
	ret = fld_bind(fd, FLD_BIND_SQ, k, &q->sq);
	if (ret)
		return ret;

	a[0] = k; a[1] = FLD_QN_NONE; a[2] = FLDE_RQ_LOG;
	a[3] = FLDE_LOG_STRIDE; a[4] = FLDE_LOG_NSTR; a[5] = k;
	a[6] = 0; a[7] = 0;
	ret = fld_cmd(fd, FLD_CMD_RQ_SET, a, 8, &q->rx_off);
	if (ret)
		return ret;
	q->rq_ring = dma_alloc_coherent(&fd->pdev->dev,
					sizeof(*q->rq_ring) << FLDE_RQ_LOG,
					&q->rq_ring_dma, GFP_KERNEL);
	if (!q->rq_ring)
		return -ENOMEM;
	for (i = 0; i < BIT(FLDE_RQ_LOG); i++) {
		q->rq_ring[i].byte_count = cpu_to_le32(bufsz);
		q->rq_ring[i].lkey = 0;
		q->rq_ring[i].addr = cpu_to_le64(fd->win_bus + q->rx_off +
						 (u64)i * bufsz);
	}
	ra.ring_bus = q->rq_ring_dma;
	ra.dbr_bus = fd->win_bus + FLD_WIN_DBR + FLD_DBR_RQ + 4 * k;
	ra.log_size = FLDE_RQ_LOG;
	ra.cqn = q->cq.qn;
	ra.type = SNIC_RQ_STRIDING;
	ra.log_stride_size = FLDE_LOG_STRIDE;
	ra.log_num_strides = FLDE_LOG_NSTR;
	ret = snic_peer_create_rq(e->snic, &ra, &q->rq);
	if (ret)
		return ret;
	ret = fld_bind(fd, FLD_BIND_RQ, k, &q->rq);
	if (ret)
		return ret;
	a[0] = k; a[1] = k;
	return fld_cmd(fd, FLD_CMD_RQ_ROUTE, a, 2, NULL);
}

/*
 * The PCIe knobs @want, less what the snic cannot do, into e->knobs and
 * the FLD (FLD_CMD_PCIE_SET: signalling and WQE-by-MMIO of its Ethernet
 * SQs; the mini-CQE lines are the snic CQs' flag).
 */
static int fld_flde_knobs(struct fld_dev *fd, const struct fld_pcie_knobs *want)
{
	struct fld_flde *e = &fd->e;
	u64 caps = snic_peer_caps(e->snic);
	u32 a[2];

	e->knobs = *want;
	e->knobs.tx_signal = clamp_t(u32, want->tx_signal, 1,
				     FLD_TX_SIGNAL_MAX);
	if (e->knobs.mmio_wqe && !(caps & SNIC_CAP_MMIO_WQE)) {
		dev_info(&fd->pdev->dev, "snic has no WQE-by-MMIO: doorbells\n");
		e->knobs.mmio_wqe = false;
	}
	if (e->knobs.mini_cqe && !(caps & SNIC_CAP_MINI_CQE)) {
		dev_info(&fd->pdev->dev, "snic has no mini-CQEs: full CQEs\n");
		e->knobs.mini_cqe = false;
	}
	a[0] = e->knobs.tx_signal;
	a[1] = e->knobs.mmio_wqe ? FLD_PCIE_F_MMIO_WQE : 0;
	return fld_cmd(fd, FLD_CMD_PCIE_SET, a, 2, NULL);
}

/* FLD-E on fd->snic: @ntenants queue sets, UDP rules from @udp_port on. */
int fld_flde_start(struct fld_dev *fd, u16 udp_port, u16 tenant,
		   unsigned int ntenants, bool loopback,
		   const struct fld_pcie_knobs *knobs)
{
	struct fld_flde *e = &fd->e;
	unsigned int k;
	int ret;

	lockdep_assert_held(&fd->lock);
	memset(e, 0, sizeof(*e));
	if (!ntenants || ntenants > FLDE_MAX_TENANTS ||
	    ntenants > fld_rd(fd, FLD_REG_MAX_RQS) ||
	    ntenants > fld_rd(fd, FLD_REG_MAX_CQS))
		return -EINVAL;
	for (k = 0; k < FLDE_MAX_TENANTS; k++) {
		e->q[k].cq.qn = FLD_QN_NONE;
		e->q[k].sq.qn = FLD_QN_NONE;
		e->q[k].rq.qn = FLD_QN_NONE;
	}
	e->tenant = tenant;
	e->loopback = loopback;
	e->snic = fd->snic;
	if (!e->snic)
		return -ENODEV;
	ret = fld_flde_knobs(fd, knobs);
	if (ret)
		return ret;
	for (k = 0; k < ntenants; k++) {
		/* counted first: stop clears the FLD slots of tenants < ntenants */
		e->ntenants = k + 1;
		ret = fld_flde_queues(fd, k);
		if (ret)
			goto err;
	}
	e->up = true;
	ret = fld_flde_rules(fd, udp_port);
	if (ret)
		goto err;
	for (k = 0; k < ntenants; k++)
		dev_info(&fd->pdev->dev,
			 "FLD-E tenant %u: snic cq %u sq %u%s rq %u, udp port %u, flow tag %u\n",
			 k, e->q[k].cq.qn, e->q[k].sq.qn,
			 loopback ? " (loopback)" : "", e->q[k].rq.qn,
			 udp_port ? udp_port + k : 0,
			 (tenant + k) & FLD_MAX_FLOW_TAG);
	return 0;
err:
	fld_flde_stop(fd);
	return ret;
}
