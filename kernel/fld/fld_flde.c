// SPDX-License-Identifier: GPL-2.0
/*
 * fld.ko: FLD-E - raw Ethernet queues of a snic whose send ring,
 * completion ring, doorbell records and receive buffers are windows of
 * FLD's BAR2, created through snic's peer-queue API.  The striding RQ's
 * ring is in host memory, written once here: FLD recycles the buffers in
 * posting order by advancing the producer counter (its doorbell record).
 * A steering rule sends one UDP port to the RQ, tagged with the tenant
 * (the flow tag iotauth picks its key by); FLD's accelerator answers on
 * the SQ.  No per-packet work happens on the host.
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

static int fld_flde_rule(struct fld_dev *fd, u16 port)
{
	struct fld_flde *e = &fd->e;
	struct snic_steer_rule r = {};
	int ret;

	if (e->have_rule) {
		snic_peer_del_rule(e->sd, e->rule_id);
		e->have_rule = false;
	}
	e->udp_port = port;
	if (!port)
		return 0;
	r.match = cpu_to_le32(SNIC_MATCH_IP_PROTO | SNIC_MATCH_DST_PORT);
	r.priority = cpu_to_le16(FLDE_RULE_PRIO);
	r.dest = SNIC_DEST_RQ;
	r.actions = SNIC_ACT_COUNT | SNIC_ACT_TAG;
	r.dest_id = cpu_to_le32(e->rq.qn);
	r.flow_tag = cpu_to_le32(e->tenant);
	r.ip_proto = IPPROTO_UDP;
	r.dst_port = cpu_to_be16(port);
	ret = snic_peer_add_rule(e->sd, &r, &e->rule_id);
	if (!ret)
		e->have_rule = true;
	return ret;
}

int fld_flde_set_port(struct fld_dev *fd, u16 port)
{
	lockdep_assert_held(&fd->lock);
	if (!fd->e.up)
		return -ENODEV;
	return fld_flde_rule(fd, port);
}

/*
 * defrag's input: VXLAN frames of @vni decapsulated by the NIC and their
 * inner frames steered to FLD-E (tagged like the UDP rule); 0 removes it.
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
		snic_peer_del_rule(e->sd, e->vni_rule_id);
		e->have_vni_rule = false;
	}
	e->vni = vni;
	if (!vni)
		return 0;
	r.match = cpu_to_le32(SNIC_MATCH_VNI);
	r.priority = cpu_to_le16(FLDE_RULE_PRIO);
	r.dest = SNIC_DEST_RQ;
	r.actions = SNIC_ACT_DECAP | SNIC_ACT_COUNT | SNIC_ACT_TAG;
	r.dest_id = cpu_to_le32(e->rq.qn);
	r.flow_tag = cpu_to_le32(e->tenant);
	r.vni = cpu_to_le32(vni);
	ret = snic_peer_add_rule(e->sd, &r, &e->vni_rule_id);
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
	u32 slot = 0;

	lockdep_assert_held(&fd->lock);
	if (!e->sd)
		return;
	if (e->have_rule)
		snic_peer_del_rule(e->sd, e->rule_id);
	if (e->have_vni_rule)
		snic_peer_del_rule(e->sd, e->vni_rule_id);
	e->have_vni_rule = false;
	e->vni = 0;
	if (e->rq.qn != FLD_QN_NONE)
		snic_peer_destroy_rq(e->sd, e->rq.qn);
	if (e->sq.qn != FLD_QN_NONE)
		snic_peer_destroy_sq(e->sd, e->sq.qn);
	if (e->cq.qn != FLD_QN_NONE)
		snic_peer_destroy_cq(e->sd, e->cq.qn);
	fld_cmd(fd, FLD_CMD_RQ_CLEAR, &slot, 1, NULL);
	fld_cmd(fd, FLD_CMD_SQ_CLEAR, &slot, 1, NULL);
	fld_cmd(fd, FLD_CMD_CQ_CLEAR, &slot, 1, NULL);
	if (e->rq_ring)
		dma_free_coherent(&fd->pdev->dev,
				  sizeof(*e->rq_ring) << FLDE_RQ_LOG,
				  e->rq_ring, e->rq_ring_dma);
	snic_peer_put(e->sd);
	memset(e, 0, sizeof(*e));
}

int fld_flde_start(struct fld_dev *fd, const char *ifname, u16 udp_port,
		   u16 tenant)
{
	struct fld_flde *e = &fd->e;
	struct snic_peer_cq_attr ca = {};
	struct snic_peer_sq_attr sa = {};
	struct snic_peer_rq_attr ra = {};
	u32 a[8], off, k, bufsz = 1u << (FLDE_LOG_STRIDE + FLDE_LOG_NSTR);
	int ret;

	lockdep_assert_held(&fd->lock);
	memset(e, 0, sizeof(*e));
	e->cq.qn = FLD_QN_NONE;
	e->sq.qn = FLD_QN_NONE;
	e->rq.qn = FLD_QN_NONE;
	e->tenant = tenant;
	e->sd = ifname && *ifname ? snic_peer_get_by_name(ifname) :
				    snic_peer_get(0);
	if (!e->sd)
		return -ENODEV;

	/* FLD slots first: snic probes each ring when it creates the queue. */
	a[0] = 0; a[1] = FLD_QN_NONE; a[2] = FLDE_CQ_LOG;
	ret = fld_cmd(fd, FLD_CMD_CQ_SET, a, 3, &off);
	if (ret)
		goto err;
	ca.ring_bus = fd->win_bus + off;
	ca.dbr_bus = fd->win_bus + FLD_WIN_DBR + FLD_DBR_CQ;
	ca.log_size = FLDE_CQ_LOG;
	ret = snic_peer_create_cq(e->sd, &ca, &e->cq);
	if (ret)
		goto err;
	ret = fld_bind(fd, FLD_BIND_CQ, 0, &e->cq);
	if (ret)
		goto err;

	a[0] = 0; a[1] = FLD_QN_NONE; a[2] = FLDE_SQ_LOG; a[3] = 0;
	a[4] = 0; a[5] = 0; a[6] = 0;
	ret = fld_cmd(fd, FLD_CMD_SQ_SET, a, 7, &off);
	if (ret)
		goto err;
	sa.ring_bus = fd->win_bus + off;
	sa.dbr_bus = fd->win_bus + FLD_WIN_DBR + FLD_DBR_SQ;
	sa.log_size = FLDE_SQ_LOG;
	sa.cqn = e->cq.qn;
	ret = snic_peer_create_sq(e->sd, &sa, &e->sq);
	if (ret)
		goto err;
	ret = fld_bind(fd, FLD_BIND_SQ, 0, &e->sq);
	if (ret)
		goto err;

	a[0] = 0; a[1] = FLD_QN_NONE; a[2] = FLDE_RQ_LOG;
	a[3] = FLDE_LOG_STRIDE; a[4] = FLDE_LOG_NSTR; a[5] = 0;
	a[6] = 0; a[7] = 0;
	ret = fld_cmd(fd, FLD_CMD_RQ_SET, a, 8, &e->rx_off);
	if (ret)
		goto err;
	e->rq_ring = dma_alloc_coherent(&fd->pdev->dev,
					sizeof(*e->rq_ring) << FLDE_RQ_LOG,
					&e->rq_ring_dma, GFP_KERNEL);
	if (!e->rq_ring) {
		ret = -ENOMEM;
		goto err;
	}
	for (k = 0; k < BIT(FLDE_RQ_LOG); k++) {
		e->rq_ring[k].byte_count = cpu_to_le32(bufsz);
		e->rq_ring[k].lkey = 0;
		e->rq_ring[k].addr = cpu_to_le64(fd->win_bus + e->rx_off +
						 (u64)k * bufsz);
	}
	ra.ring_bus = e->rq_ring_dma;
	ra.dbr_bus = fd->win_bus + FLD_WIN_DBR + FLD_DBR_RQ;
	ra.log_size = FLDE_RQ_LOG;
	ra.cqn = e->cq.qn;
	ra.type = SNIC_RQ_STRIDING;
	ra.log_stride_size = FLDE_LOG_STRIDE;
	ra.log_num_strides = FLDE_LOG_NSTR;
	ret = snic_peer_create_rq(e->sd, &ra, &e->rq);
	if (ret)
		goto err;
	ret = fld_bind(fd, FLD_BIND_RQ, 0, &e->rq);
	if (ret)
		goto err;
	a[0] = 0; a[1] = 0;
	ret = fld_cmd(fd, FLD_CMD_RQ_ROUTE, a, 2, NULL);
	if (ret)
		goto err;
	e->up = true;
	ret = fld_flde_rule(fd, udp_port);
	if (ret)
		goto err;
	dev_info(&fd->pdev->dev, "FLD-E: snic cq %u sq %u rq %u, udp port %u\n",
		 e->cq.qn, e->sq.qn, e->rq.qn, udp_port);
	return 0;
err:
	fld_flde_stop(fd);
	return ret;
}
