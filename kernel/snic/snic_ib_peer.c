// SPDX-License-Identifier: GPL-2.0
/*
 * snic peer RDMA QPs (<d2d/snic_peer.h>): RC QPs for another driver whose
 * send ring, receive ring and doorbell record sit at bus addresses it
 * chooses (FLD-R: windows of the FlexDriver's BAR), so that a peer device
 * posts and completes the QP's work over PCIe by itself.
 *
 * The QP is an ordinary device QP (CREATE_QP, privileged), on a doorbell
 * page of its own and in a PD of its own; it is not an ib_qp, so rdma_cm
 * only signals the connection (rdma_accept() with conn_param.qp_num) and
 * the caller moves the QP with the attributes rdma_init_qp_attr() gives,
 * which go through the very checks and translation of snic_ib_modify_qp()
 * (snic_ib_modify_cmd()).  Its completions go to the caller's peer CQs,
 * never to the ib_device's; its async events find no ib_qp and are
 * counted as such.
 */
#include <linux/slab.h>
#include "snic_ib.h"
#include <d2d/snic_peer.h>

struct ib_device *snic_peer_ib_device(struct snic_peer *peer)
{
	return peer->sd->ib ? &peer->sd->ib->ibdev : NULL;
}
EXPORT_SYMBOL_GPL(snic_peer_ib_device);

static int snic_peer_pd(struct snic_dev *sd, u32 *pdn)
{
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_CREATE_PD };
	u64 res;
	int ret;

	ret = snic_aq_exec(sd, &cmd, &res);
	if (!ret)
		*pdn = res;
	return ret;
}

int snic_peer_create_qp(struct snic_peer *peer,
			const struct snic_peer_qp_attr *attr,
			struct snic_peer_qp *qp)
{
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_CREATE_QP };
	struct snic_aq_create_qp c = {};
	struct snic_dev *sd = peer->sd;
	struct snic_peer_obj *o;
	u64 qpn;
	int ret;

	BUILD_BUG_ON(sizeof(c) > sizeof(cmd.raw));
	if (attr->rq_log_stride < 5 || attr->rq_log_stride > 8)
		return -EINVAL;
	o = kzalloc(sizeof(*o), GFP_KERNEL);
	if (!o)
		return -ENOMEM;
	ret = snic_peer_enter(peer);
	if (ret)
		goto err_free;
	if (!sd->ib) {
		ret = -EOPNOTSUPP;	/* no RDMA on this snic */
		goto err_exit;
	}
	/* completions go to the caller's own CQs */
	if (!snic_peer_obj_find(peer, SNIC_PEER_CQ, attr->send_cqn) ||
	    !snic_peer_obj_find(peer, SNIC_PEER_CQ, attr->recv_cqn)) {
		ret = -ENOENT;
		goto err_exit;
	}
	o->kind = SNIC_PEER_QP;
	o->state = IB_QPS_RESET;
	o->page = snic_db_page_alloc(sd);
	if (o->page < 0) {
		ret = o->page;
		goto err_exit;
	}
	ret = snic_peer_pd(sd, &o->pdn);
	if (ret)
		goto err_page;
	c.type = SNIC_QPT_RC;
	c.flags = SNIC_QP_F_PRIV;
	c.sq_log = attr->sq_log;
	c.rq_log = attr->rq_log;
	c.rq_log_stride = attr->rq_log_stride;
	c.db_page = cpu_to_le16(o->page);
	c.pdn = cpu_to_le32(o->pdn);
	c.send_cqn = cpu_to_le16(attr->send_cqn);
	c.recv_cqn = cpu_to_le16(attr->recv_cqn);
	c.srqn = cpu_to_le16(SNIC_SRQN_NONE);
	c.sq_addr = cpu_to_le64(attr->sq_bus);
	c.rq_addr = cpu_to_le64(attr->rq_bus);
	c.dbr_addr = cpu_to_le64(attr->dbr_bus);
	memcpy(cmd.raw, &c, sizeof(c));
	ret = snic_aq_exec(sd, &cmd, &qpn);
	if (ret)
		goto err_pd;
	o->id = qpn;
	list_add_tail(&o->node, &peer->objs);
	qp->qpn = qpn;
	qp->db_page_bus = snic_peer_db_bus(sd, o->page, 0);
	snic_peer_exit(peer);
	return 0;

err_pd:
	snic_cmd_destroy(sd, SNIC_AQ_DESTROY_PD, o->pdn);
err_page:
	snic_db_page_free(sd, o->page);
err_exit:
	snic_peer_exit(peer);
err_free:
	kfree(o);
	return ret;
}
EXPORT_SYMBOL_GPL(snic_peer_create_qp);

int snic_peer_modify_qp(struct snic_peer *peer, u32 qpn,
			struct ib_qp_attr *attr, int mask)
{
	struct snic_dev *sd = peer->sd;
	struct snic_peer_obj *o;
	enum ib_qp_state cur;
	u32 dqpn;
	int ret;

	ret = snic_peer_enter(peer);
	if (ret)
		return ret;
	o = snic_peer_obj_find(peer, SNIC_PEER_QP, qpn);
	if (!o || !sd->ib) {
		ret = -ENOENT;
		goto out;
	}
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : o->state;
	dqpn = mask & IB_QP_DEST_QPN ? attr->dest_qp_num : o->dest_qpn;
	ret = snic_ib_modify_cmd(sd->ib, qpn, IB_QPT_RC, cur, attr, mask, dqpn);
	if (ret)
		goto out;
	if (mask & IB_QP_STATE)
		o->state = attr->qp_state;
	o->dest_qpn = dqpn;
out:
	snic_peer_exit(peer);
	return ret;
}
EXPORT_SYMBOL_GPL(snic_peer_modify_qp);

int snic_peer_destroy_qp(struct snic_peer *peer, u32 qpn)
{
	/* on failure the device may still use the rings: all is kept */
	return snic_peer_destroy(peer, SNIC_PEER_QP, SNIC_AQ_DESTROY_QP, qpn);
}
EXPORT_SYMBOL_GPL(snic_peer_destroy_qp);
