// SPDX-License-Identifier: GPL-2.0
/*
 * snic RDMA: queue pairs (RC, UC, UD, GSI), shared receive queues and
 * address handles.
 *
 * A QP's send ring (64-byte basic blocks), receive ring (2^stride-byte
 * WQEs) and doorbell record share one buffer; kernel QPs are posted by
 * snic_ib_post.c, user QPs by libsnic through its mapping of the buffer.
 * Kernel QPs are created SNIC_QP_F_PRIV (lkey 0 = bus address), user QPs
 * never.  Addresses are resolved here into struct snic_av (the device has
 * no GID table): MODIFY_QP carries it for RC/UC, AHs hold it for UD/GSI.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/uverbs_ioctl.h>
#include "snic_ib.h"

/* ---- address vectors ---- */

/*
 * Resolve a RoCE address into the headers the device builds: never
 * sleeps (kernel AHs may be created in atomic context).  Both GIDs
 * IPv4-mapped: RoCEv2 over IPv4.  Both IPv6 (link-local or global): over
 * IPv6, the addresses in @sip6 / @dip6 (MODIFY_QP's buffer for RC/UC, the
 * AH's struct snic_wqe_ud6 for UD/GSI); without them -EAFNOSUPPORT.
 */
int snic_ib_resolve_av(struct snic_ib_dev *ibd,
		       const struct rdma_ah_attr *ah, u32 lqpn, u32 rqpn,
		       struct snic_av *av, u8 *sip6, u8 *dip6)
{
	const struct ib_global_route *grh;
	const struct ib_gid_attr *sattr;
	struct net_device *nd;
	u16 vlan_id;
	bool v4;
	int ret;

	if (ah->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(ah);
	sattr = grh->sgid_attr;
	if (!sattr || sattr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	v4 = snic_ib_gid_v4(&sattr->gid);
	if (v4 != snic_ib_gid_v4(&grh->dgid))
		return -EINVAL;		/* one path, one IP version */
	if (!v4 && (!sip6 || !dip6))
		return -EAFNOSUPPORT;
	memset(av, 0, sizeof(*av));
	rcu_read_lock();
	nd = rdma_read_gid_attr_ndev_rcu(sattr);
	if (IS_ERR(nd)) {
		rcu_read_unlock();
		return PTR_ERR(nd);
	}
	ether_addr_copy(av->smac, nd->dev_addr);
	rcu_read_unlock();
	/*
	 * A GID of a VLAN netdev: 802.1Q-tagged frames, PCP = the SL (which
	 * rdma_cm maps from the ToS through the VLAN's egress priority map).
	 */
	ret = rdma_read_gid_l2_fields(sattr, &vlan_id, NULL);
	if (ret)
		return ret;
	if (vlan_id < VLAN_N_VID) {
		av->flags |= SNIC_AV_F_VLAN;
		av->vlan_tci = cpu_to_le16(vlan_id | (rdma_ah_get_sl(ah) & 7) <<
					   VLAN_PRIO_SHIFT);
	}
	/*
	 * Kernel callers resolve the MAC (rdma_cm), ib_core does for users;
	 * a multicast MAC only for a multicast group (the RFC 1112 mapping,
	 * RFC 2464's for an IPv6 group).
	 */
	if (is_zero_ether_addr(ah->roce.dmac))
		return -EINVAL;
	if (is_multicast_ether_addr(ah->roce.dmac)) {
		u8 mc[ETH_ALEN];

		if (v4 && ipv4_is_multicast(*(__be32 *)&grh->dgid.raw[12]))
			ip_eth_mc_map(*(__be32 *)&grh->dgid.raw[12], mc);
		else if (!v4 && grh->dgid.raw[0] == 0xff)
			ipv6_eth_mc_map((struct in6_addr *)grh->dgid.raw, mc);
		else
			return -EINVAL;
		if (!ether_addr_equal(mc, ah->roce.dmac))
			return -EINVAL;
	}
	ether_addr_copy(av->dmac, ah->roce.dmac);
	if (v4) {
		memcpy(&av->sip, &sattr->gid.raw[12], sizeof(av->sip));
		memcpy(&av->dip, &grh->dgid.raw[12], sizeof(av->dip));
	} else {
		av->flags |= SNIC_AV_F_IPV6;
		memcpy(sip6, sattr->gid.raw, 16);
		memcpy(dip6, grh->dgid.raw, 16);
	}
	/* What the device sends from for a user UD QP (smac, sip ignored). */
	av->sgid_index = sattr->index;
	av->ttl = grh->hop_limit ?: 64;
	av->tos = grh->traffic_class;
	av->udp_sport = cpu_to_le16(rdma_get_udp_sport(grh->flow_label, lqpn,
						       rqpn));
	return 0;
}

int snic_ib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		      struct ib_udata *udata)
{
	struct snic_ib_dev *ibd = to_sibdev(ibah->device);
	struct snic_ib_ah *ah = to_sibah(ibah);
	struct snic_create_ah_resp resp = {};
	const struct ib_global_route *grh;
	int ret;

	/* Pure host state: the same with or without RDMA_CREATE_AH_SLEEPABLE. */
	ret = snic_ib_resolve_av(ibd, init->ah_attr, 0, 0, &ah->av,
				 ah->ud6.sip6, ah->ud6.dip6);
	if (ret)
		return ret;
	grh = rdma_ah_read_grh(init->ah_attr);
	ah->dgid = grh->dgid;
	ah->flow_label = grh->flow_label;
	ah->sgid_index = grh->sgid_index;
	ah->hop_limit = grh->hop_limit;
	ah->tclass = grh->traffic_class;
	ah->sl = rdma_ah_get_sl(init->ah_attr);
	ah->port = rdma_ah_get_port_num(init->ah_attr);
	if (udata) {
		resp.av = ah->av;
		memcpy(resp.sip6, ah->ud6.sip6, sizeof(resp.sip6));
		memcpy(resp.dip6, ah->ud6.dip6, sizeof(resp.dip6));
		ret = ib_copy_to_udata(udata, &resp,
				       min(sizeof(resp), udata->outlen));
	}
	return ret;
}

int snic_ib_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	struct snic_ib_ah *ah = to_sibah(ibah);

	memset(attr, 0, sizeof(*attr));
	attr->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_sl(attr, ah->sl);
	rdma_ah_set_port_num(attr, ah->port);
	rdma_ah_set_grh(attr, &ah->dgid, ah->flow_label, ah->sgid_index,
			ah->hop_limit, ah->tclass);
	ether_addr_copy(attr->roce.dmac, ah->av.dmac);
	return 0;
}

int snic_ib_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	return 0;
}

/* ---- QPs ---- */

static int snic_ib_qp_type(enum ib_qp_type t)
{
	switch (t) {
	case IB_QPT_RC:
		return SNIC_QPT_RC;
	case IB_QPT_UC:
		return SNIC_QPT_UC;
	case IB_QPT_UD:
		return SNIC_QPT_UD;
	case IB_QPT_GSI:
		return SNIC_QPT_GSI;
	case IB_QPT_XRC_INI:
		return SNIC_QPT_XRC_INI;
	case IB_QPT_XRC_TGT:
		return SNIC_QPT_XRC_TGT;
	default:
		return -EOPNOTSUPP;
	}
}

/* Largest WQE a QP of these capabilities may post, in basic blocks. */
static u32 snic_ib_wqe_bbs(struct snic_ib_qp *qp)
{
	u32 body, inl;

	body = 1 + qp->max_send_sge;			/* raddr + data */
	body = max_t(u32, body, 3);			/* raddr, atomic, 1 sge */
	if (!qp->user)
		body = max_t(u32, body, 3);		/* REG_MR segment */
	inl = 1 + DIV_ROUND_UP(4 + qp->max_inline, 16);	/* raddr + inline */
	body = max(body, inl);
	if (snic_ib_qp_ud(qp))
		body += 5;				/* ud + ud6 segments */
	return DIV_ROUND_UP(1 + body, SNIC_WQEBB_SIZE / 16);
}

/*
 * The QP mode libsnic asks for in create_qp's driver words (none: a
 * doorbell QP).  Pipe QPs are user RC/UD QPs with their own receive ring;
 * SSQ QPs are pipe QPs that send through the context's shared send
 * queues (snic_ib_ssq.c); kernel QPs are always doorbell QPs.
 */
static int snic_ib_qp_mode(struct snic_ib_qp *qp, struct ib_qp_init_attr *init,
			   struct ib_udata *udata)
{
	struct snic_create_qp_cmd cmd = {};
	int ret;

	if (!udata || udata->inlen < offsetofend(typeof(cmd), ci_every))
		return 0;
	ret = ib_copy_from_udata(&cmd, udata, min(sizeof(cmd), udata->inlen));
	if (ret)
		return ret;
	if (cmd.flags & ~(SNIC_CREATE_QP_PIPE | SNIC_CREATE_QP_SSQ |
			  SNIC_CREATE_QP_LLQ))
		return -EINVAL;
	if (cmd.flags & SNIC_CREATE_QP_LLQ) {
		/* the response names the ring: a provider that reads it */
		if (init->qp_type != IB_QPT_RC ||
		    udata->inlen < sizeof(cmd) ||
		    udata->outlen < sizeof(struct snic_create_qp_resp) ||
		    cmd.llq_log_slots < SNIC_MIN_LOG_SIZE ||
		    cmd.llq_log_slots > SNIC_MAX_LOG_SIZE ||
		    cmd.llq_slot_log < SNIC_LLQ_MIN_SLOT_LOG ||
		    cmd.llq_slot_log > SNIC_LLQ_MAX_SLOT_LOG ||
		    !cmd.llq_ci_every)
			return -EINVAL;
		qp->llq_log = cmd.llq_log_slots;
		qp->llq_slot_log = cmd.llq_slot_log;
		qp->llq_ci_every = cmd.llq_ci_every;
	}
	if (!(cmd.flags & SNIC_CREATE_QP_PIPE))	/* SSQ needs PIPE */
		return cmd.flags & SNIC_CREATE_QP_SSQ ? -EINVAL : 0;
	if (init->srq || init->qp_type == IB_QPT_XRC_INI ||
	    cmd.ci_every < 1 || cmd.ci_every > 255)
		return -EINVAL;
	/* an SSQ QP's response names its SSQ: a provider that reads it */
	if ((cmd.flags & SNIC_CREATE_QP_SSQ) &&
	    udata->outlen < sizeof(struct snic_create_qp_resp))
		return -EINVAL;
	qp->ssq = cmd.flags & SNIC_CREATE_QP_SSQ;
	qp->pipe = true;
	qp->ci_every = cmd.ci_every;
	return 0;
}

static int snic_ib_qp_caps(struct snic_ib_qp *qp, struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *cap = &init->cap;
	bool ud = snic_ib_qp_ud(qp);
	/* an XRC_INI QP has no receive queue, as a QP on an SRQ */
	bool no_rq = init->srq || init->qp_type == IB_QPT_XRC_INI;
	u32 max_sge = ud ? SNIC_IB_MAX_UD_SGE : SNIC_IB_MAX_SEND_SGE;
	u32 bbs, n;

	if (cap->max_send_sge > max_sge || cap->max_recv_sge > SNIC_MAX_SGE ||
	    cap->max_inline_data > (ud ? SNIC_MAX_UD_INLINE :
				    SNIC_MAX_RDMA_INLINE) ||
	    cap->max_send_wr > SNIC_IB_MAX_QP_WR ||
	    (!no_rq && cap->max_recv_wr > SNIC_IB_MAX_QP_WR))
		return -EINVAL;
	qp->max_send_sge = max_t(u32, cap->max_send_sge, 1);
	qp->max_recv_sge = max_t(u32, cap->max_recv_sge, 1);
	qp->max_inline = cap->max_inline_data;
	bbs = snic_ib_wqe_bbs(qp);
	n = max_t(u32, cap->max_send_wr, 1) * bbs;
	qp->sq_log = max_t(u8, order_base_2(n), SNIC_MIN_LOG_SIZE);
	if (qp->sq_log > SNIC_MAX_LOG_SIZE)
		return -EINVAL;
	qp->sq_size = 1u << qp->sq_log;
	qp->max_send_wr = qp->sq_size / bbs;
	if (no_rq) {
		qp->rq_log = 0;
		qp->rq_size = 0;
		qp->rq_log_stride = SNIC_IB_RECV_MIN_LOG;
	} else if (qp->pipe) {
		/* one scatter entry per 16-byte RQE, at least one line */
		if (cap->max_recv_sge > 1)
			return -EINVAL;
		qp->max_recv_sge = 1;
		qp->rq_log = max_t(u8, order_base_2(max_t(u32, cap->max_recv_wr, 1)),
				   SNIC_PIPE_MIN_RQ_LOG);
		qp->rq_size = 1u << qp->rq_log;
		qp->rq_log_stride = order_base_2(SNIC_PIPE_RQE_SIZE);
	} else {
		qp->rq_log = max_t(u8, order_base_2(max_t(u32, cap->max_recv_wr, 1)),
				   SNIC_MIN_LOG_SIZE);
		qp->rq_size = 1u << qp->rq_log;
		qp->rq_log_stride = max_t(u8, SNIC_IB_RECV_MIN_LOG,
					  order_base_2(16 * (1 + qp->max_recv_sge)));
	}
	qp->sq_off = 0;
	qp->rq_off = ALIGN(qp->sq_size * SNIC_WQEBB_SIZE, SNIC_RING_ALIGN);
	qp->dbr_off = ALIGN(qp->rq_off + (qp->rq_size << qp->rq_log_stride),
			    SNIC_RING_ALIGN);
	qp->ci_off = qp->dbr_off + 8;	/* same 64-byte block as the record */

	cap->max_send_wr = qp->max_send_wr;
	cap->max_send_sge = qp->max_send_sge;
	cap->max_inline_data = qp->max_inline;
	if (!no_rq) {
		cap->max_recv_wr = qp->rq_size;
		cap->max_recv_sge = qp->max_recv_sge;
	}
	return 0;
}

static int snic_ib_qp_cmd(struct snic_ib_dev *ibd, struct snic_ib_qp *qp,
			  struct ib_qp_init_attr *init, u32 pdn)
{
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_CREATE_QP };
	struct snic_aq_create_qp c = {};
	u64 qpn;
	int ret;

	BUILD_BUG_ON(sizeof(c) > sizeof(cmd.raw));
	c.type = qp->type;
	c.flags = (qp->user ? 0 : SNIC_QP_F_PRIV) |
		  (qp->sig_all ? SNIC_QP_F_SIG_ALL : 0) |
		  (qp->pipe ? SNIC_QP_F_PIPE : 0) |
		  (qp->ssq ? SNIC_QP_F_SSQ : 0);
	if (qp->pipe) {
		c.ci_every = qp->ci_every;
		c.ci_addr = cpu_to_le64(qp->buf.dma + qp->ci_off);
	}
	c.sq_log = qp->sq_log;
	c.rq_log = qp->rq_log;
	c.rq_log_stride = qp->rq_log_stride;
	c.db_page = cpu_to_le16(qp->db_page);
	c.pdn = cpu_to_le32(pdn);
	c.send_cqn = cpu_to_le16(to_sibcq(init->send_cq)->cq.cqn);
	/* XRC_INI: no receive CQ, the device takes the send CQ's number */
	c.recv_cqn = cpu_to_le16(to_sibcq(init->recv_cq ?: init->send_cq)->cq.cqn);
	c.srqn = cpu_to_le16(qp->srq ? qp->srq->srqn : SNIC_SRQN_NONE);
	c.sq_addr = cpu_to_le64(qp->buf.dma + qp->sq_off);
	c.rq_addr = cpu_to_le64(qp->rq_size ? qp->buf.dma + qp->rq_off : 0);
	c.dbr_addr = cpu_to_le64(qp->buf.dma + qp->dbr_off);
	memcpy(cmd.raw, &c, sizeof(c));
	ret = snic_aq_exec(ibd->sd, &cmd, &qpn);
	if (ret)
		return ret;
	qp->qpn = qpn;
	qp->ssq_core = (qpn >> 32) & 0xff;	/* SNIC_QP_F_SSQ: its SSQ */
	qp->ssq_gen = (qpn >> 40) & 0xff;	/* and its SQEs' generation */
	return 0;
}

/*
 * Who may give QP @qpn of @sd to a sPIN context: 0 a user QP of the
 * calling process, -EACCES another process's user QP, -EPERM a kernel QP,
 * -ENOENT none.  Called through snic_rdma_qp_pin(), which holds
 * sd->qpn_lock for reading until snic_rdma_qp_unpin(): no QP is destroyed
 * meanwhile, so the number cannot pass to another QP (another owner, a
 * kernel QP) between this check and the caller's use of it.
 */
int snic_ib_qp_owner(struct snic_dev *sd, u32 qpn)
{
	struct snic_ib_dev *ibd = sd->ib;
	struct snic_ib_qp *qp;
	int ret = -ENOENT;

	lockdep_assert_held(&sd->qpn_lock);
	if (!ibd)
		return ret;
	xa_lock_irq(&ibd->qps);
	qp = xa_load(&ibd->qps, qpn);
	if (qp && !qp->user)
		ret = -EPERM;
	else if (qp)
		ret = qp->owner == task_tgid(current) ? 0 : -EACCES;
	xa_unlock_irq(&ibd->qps);
	return ret;
}

/*
 * Destroy @qp on the device and forget its number, not while a sPIN
 * attach holds the QPN (snic_rdma_qp_pin); the device's answer.
 */
static int snic_ib_qp_unlist(struct snic_ib_dev *ibd, struct snic_ib_qp *qp)
{
	int ret;

	down_write(&ibd->sd->qpn_lock);
	ret = snic_cmd_destroy(ibd->sd, SNIC_AQ_DESTROY_QP, qp->qpn);
	/* CQEs still queued for it are dropped by poll_cq from now on. */
	snic_ib_xa_drop(&ibd->qps, qp->qpn, qp);
	up_write(&ibd->sd->qpn_lock);
	snic_ib_sync_events(ibd);
	return ret;
}

int snic_ib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		      struct ib_udata *udata)
{
	struct snic_ib_dev *ibd = to_sibdev(ibqp->device);
	struct snic_ib_qp *qp = to_sibqp(ibqp);
	struct snic_create_qp_resp resp = {};
	struct snic_ib_ucontext *uc = NULL;
	int type, ret;

	type = snic_ib_qp_type(init->qp_type);
	if (type < 0)
		return type;
	qp->type = type;
	qp->port = SNIC_IB_PORT;
	qp->state = IB_QPS_RESET;
	ret = snic_ib_db_page(ibd, udata);
	if (ret < 0)
		return ret;
	qp->db_page = ret;
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	if (type == SNIC_QPT_XRC_TGT) {
		ret = snic_ib_create_tgt_qp(ibd, qp, init);
		if (ret)
			return ret;
		ibqp->qp_num = qp->qpn;
		ret = snic_ib_xa_publish(&ibd->qps, qp->qpn, qp);
		if (ret)
			snic_cmd_destroy(ibd->sd, SNIC_AQ_DESTROY_QP, qp->qpn);
		return ret;
	}
	if (init->create_flags || !init->send_cq ||
	    (!init->recv_cq && type != SNIC_QPT_XRC_INI) ||
	    (udata && type == SNIC_QPT_GSI))
		return -EOPNOTSUPP;
	if (udata)
		uc = rdma_udata_to_drv_context(udata, struct snic_ib_ucontext,
					       ibuc);
	qp->user = !!udata;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->srq = init->srq ? to_sibsrq(init->srq) : NULL;
	ret = snic_ib_qp_mode(qp, init, udata);
	if (ret)
		return ret;
	ret = snic_ib_qp_caps(qp, init);
	if (ret)
		return ret;
	if (!qp->user) {
		qp->swqe = kvcalloc(qp->sq_size, sizeof(*qp->swqe), GFP_KERNEL);
		if (!qp->swqe)
			return -ENOMEM;
	}
	if (qp->ssq) {
		ret = snic_ib_ssq_setup(ibd, uc);
		if (ret)
			goto err_swqe;
	}
	ret = snic_ib_buf_alloc(ibd, &qp->buf, qp->dbr_off + SNIC_RING_ALIGN,
				qp->user);
	if (ret)
		goto err_swqe;
	ret = snic_ib_qp_cmd(ibd, qp, init, to_sibpd(ibqp->pd)->pdn);
	if (ret)
		goto err_buf;
	if (type == SNIC_QPT_GSI && qp->qpn != SNIC_GSI_QPN) {
		dev_err(&ibd->sd->pdev->dev, "GSI QP got qpn %u\n", qp->qpn);
		ret = -EIO;
		goto err_destroy;
	}
	if (qp->llq_log) {
		ret = snic_ib_llq_setup(ibd, qp);
		if (ret)
			goto err_destroy;
	}
	ibqp->qp_num = qp->qpn;
	ret = snic_ib_xa_publish(&ibd->qps, qp->qpn, qp);
	if (ret)
		goto err_destroy;

	if (uc) {
		u64 key;

		qp->mmap = snic_ib_mmap_buf(uc, &qp->buf, &key);
		if (IS_ERR(qp->mmap)) {
			ret = PTR_ERR(qp->mmap);
			qp->mmap = NULL;
			goto err_xa;
		}
		resp.qpn = qp->qpn;
		resp.max_inline = qp->max_inline;
		resp.sq_log = qp->sq_log;
		resp.rq_log = qp->rq_log;
		resp.rq_log_stride = qp->rq_log_stride;
		resp.flags = (qp->pipe ? SNIC_CREATE_QP_PIPE : 0) |
			     (qp->ssq ? SNIC_CREATE_QP_SSQ : 0);
		resp.ci_offset = qp->pipe ? qp->ci_off : 0;
		if (qp->ssq) {
			ret = snic_ib_ssq_resp(uc, qp->ssq_core, qp->ssq_gen,
					       &resp);
			if (ret)
				goto err_xa;
		}
		if (qp->llq_log) {
			resp.flags |= SNIC_CREATE_QP_LLQ;
			ret = snic_ib_llq_map(uc, qp, &resp);
			if (ret)
				goto err_xa;
		}
		resp.mmap_key = key;
		resp.mmap_len = qp->buf.size;
		resp.sq_offset = qp->sq_off;
		resp.rq_offset = qp->rq_off;
		resp.dbr_offset = qp->dbr_off;
		ret = ib_copy_to_udata(udata, &resp,
				       min(sizeof(resp), udata->outlen));
		if (ret)
			goto err_xa;
		qp->owner = get_task_pid(current, PIDTYPE_TGID);
	}
	return 0;

err_xa:
	if (snic_ib_qp_unlist(ibd, qp))
		goto err_swqe;	/* the device may still use the ring: leak it */
	goto err_buf;
err_destroy:
	if (snic_cmd_destroy(ibd->sd, SNIC_AQ_DESTROY_QP, qp->qpn))
		goto err_swqe;	/* the device may still use the ring: leak it */
err_buf:
	snic_ib_llq_release(ibd, qp);
	snic_ib_buf_release(ibd, &qp->buf, qp->mmap);
err_swqe:
	kvfree(qp->swqe);
	return ret;
}

int snic_ib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct snic_ib_dev *ibd = to_sibdev(ibqp->device);
	struct snic_ib_qp *qp = to_sibqp(ibqp);
	int ret;

	ret = snic_ib_qp_unlist(ibd, qp);
	if (ret) {
		dev_warn(&ibd->sd->pdev->dev,
			 "DESTROY_QP %u failed: %d, keeping its rings\n",
			 qp->qpn, ret);
	} else {
		snic_ib_llq_release(ibd, qp);
		snic_ib_buf_release(ibd, &qp->buf, qp->mmap);
	}
	kvfree(qp->swqe);
	qp->swqe = NULL;
	put_pid(qp->owner);
	qp->owner = NULL;
	return 0;
}

#define SNIC_IB_QP_MASKS (IB_QP_STATE | IB_QP_CUR_STATE | \
			  IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX | IB_QP_PORT | \
			  IB_QP_QKEY | IB_QP_AV | IB_QP_PATH_MTU | \
			  IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | \
			  IB_QP_RQ_PSN | IB_QP_MAX_QP_RD_ATOMIC | \
			  IB_QP_MIN_RNR_TIMER | IB_QP_SQ_PSN | \
			  IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_DEST_QPN | \
			  IB_QP_EN_SQD_ASYNC_NOTIFY)

/* Attribute values the device cannot take: -EINVAL before any command. */
static int snic_ib_check_attr(const struct ib_qp_attr *a, int mask)
{
	if (mask & ~SNIC_IB_QP_MASKS)
		return -EOPNOTSUPP;
	if (((mask & IB_QP_PKEY_INDEX) && a->pkey_index) ||
	    ((mask & IB_QP_PORT) && a->port_num != SNIC_IB_PORT) ||
	    ((mask & IB_QP_PATH_MTU) &&
	     (a->path_mtu < IB_MTU_256 || a->path_mtu > IB_MTU_4096)) ||
	    ((mask & IB_QP_TIMEOUT) && a->timeout > 31) ||
	    ((mask & IB_QP_RETRY_CNT) && a->retry_cnt > 7) ||
	    ((mask & IB_QP_RNR_RETRY) && a->rnr_retry > 7) ||
	    ((mask & IB_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31) ||
	    ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	     a->max_rd_atomic > SNIC_MAX_RD_ATOMIC) ||
	    ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	     a->max_dest_rd_atomic > SNIC_MAX_RD_ATOMIC) ||
	    ((mask & IB_QP_RQ_PSN) && a->rq_psn > 0xffffff) ||
	    ((mask & IB_QP_SQ_PSN) && a->sq_psn > 0xffffff) ||
	    ((mask & IB_QP_DEST_QPN) && a->dest_qp_num > 0xffffff) ||
	    ((mask & IB_QP_ACCESS_FLAGS) &&
	     (a->qp_access_flags & ~(IB_ACCESS_LOCAL_WRITE |
				     IB_ACCESS_REMOTE_WRITE |
				     IB_ACCESS_REMOTE_READ |
				     IB_ACCESS_REMOTE_ATOMIC))))
		return -EINVAL;
	return 0;
}

static const struct {
	int ib;
	u32 snic;
} snic_ib_mask_map[] = {
	{ IB_QP_STATE, SNIC_QP_ATTR_STATE },
	{ IB_QP_CUR_STATE, SNIC_QP_ATTR_CUR_STATE },
	{ IB_QP_ACCESS_FLAGS, SNIC_QP_ATTR_ACCESS },
	{ IB_QP_PKEY_INDEX, SNIC_QP_ATTR_PKEY_INDEX },
	{ IB_QP_QKEY, SNIC_QP_ATTR_QKEY },
	{ IB_QP_AV, SNIC_QP_ATTR_AV },
	{ IB_QP_PATH_MTU, SNIC_QP_ATTR_PATH_MTU },
	{ IB_QP_TIMEOUT, SNIC_QP_ATTR_TIMEOUT },
	{ IB_QP_RETRY_CNT, SNIC_QP_ATTR_RETRY_CNT },
	{ IB_QP_RNR_RETRY, SNIC_QP_ATTR_RNR_RETRY },
	{ IB_QP_RQ_PSN, SNIC_QP_ATTR_RQ_PSN },
	{ IB_QP_MAX_QP_RD_ATOMIC, SNIC_QP_ATTR_MAX_RD_ATOMIC },
	{ IB_QP_MIN_RNR_TIMER, SNIC_QP_ATTR_MIN_RNR_TIMER },
	{ IB_QP_SQ_PSN, SNIC_QP_ATTR_SQ_PSN },
	{ IB_QP_MAX_DEST_RD_ATOMIC, SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC },
	{ IB_QP_DEST_QPN, SNIC_QP_ATTR_DEST_QPN },
	{ IB_QP_EN_SQD_ASYNC_NOTIFY, SNIC_QP_ATTR_SQD_NOTIFY },
};

/* A kernel QP back in RESET starts its rings from 0, like the device. */
static void snic_ib_qp_reset(struct snic_ib_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->sq_lock, flags);
	qp->sq_prod = 0;
	qp->sq_cons = 0;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	spin_lock_irqsave(&qp->rq_lock, flags);
	qp->rq_prod = 0;
	qp->rq_cons = 0;
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	memset(qp->buf.va + qp->dbr_off, 0, 8);
}

/*
 * MODIFY_QP of device QP @qpn (of verbs type @type, now in @cur) with verbs
 * attributes @a / @mask: the transition and values checked as ib_core
 * does, translated to struct snic_qp_attr, the AV resolved (@dqpn: the
 * destination QP, for the RoCEv2 source port).  Shared by the ib_device's
 * QPs and the peer API's (snic_ib_peer.c).
 */
int snic_ib_modify_cmd(struct snic_ib_dev *ibd, u32 qpn,
		       enum ib_qp_type type, enum ib_qp_state cur,
		       const struct ib_qp_attr *a, int mask, u32 dqpn)
{
	enum ib_qp_state next = mask & IB_QP_STATE ? a->qp_state : cur;
	struct snic_qp_attr *s;
	u32 smask = 0;
	int i, ret;

	if (!ib_modify_qp_is_ok(cur, next, type, mask))
		return -EINVAL;
	ret = snic_ib_check_attr(a, mask);
	if (ret)
		return ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(snic_ib_mask_map); i++)
		if (mask & snic_ib_mask_map[i].ib)
			smask |= snic_ib_mask_map[i].snic;
	s->mask = cpu_to_le32(smask);
	s->state = next;
	s->cur_state = cur;
	s->path_mtu = a->path_mtu;
	s->timeout = a->timeout;
	s->retry_cnt = a->retry_cnt;
	s->rnr_retry = a->rnr_retry;
	s->min_rnr_timer = a->min_rnr_timer;
	s->max_rd_atomic = a->max_rd_atomic;
	s->max_dest_rd_atomic = a->max_dest_rd_atomic;
	s->sqd_notify = a->en_sqd_async_notify;
	s->pkey_index = cpu_to_le16(a->pkey_index);
	s->dest_qpn = cpu_to_le32(a->dest_qp_num);
	s->rq_psn = cpu_to_le32(a->rq_psn);
	s->sq_psn = cpu_to_le32(a->sq_psn);
	s->qkey = cpu_to_le32(a->qkey);
	s->access = cpu_to_le32(a->qp_access_flags);
	if (mask & IB_QP_AV) {
		bool conn = type != IB_QPT_UD && type != IB_QPT_GSI;

		ret = snic_ib_resolve_av(ibd, &a->ah_attr, qpn, dqpn, &s->av,
					 conn ? s->sip6 : NULL,
					 conn ? s->dip6 : NULL);
		if (ret)
			goto out;
	}
	ret = snic_aq_exec_buf(ibd->sd, SNIC_AQ_MODIFY_QP, qpn, 0, s,
			       sizeof(*s), NULL);
out:
	kfree(s);
	return ret;
}

int snic_ib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *a, int mask,
		      struct ib_udata *udata)
{
	struct snic_ib_dev *ibd = to_sibdev(ibqp->device);
	struct snic_ib_qp *qp = to_sibqp(ibqp);
	enum ib_qp_state cur, next;
	u32 dqpn;
	int ret;

	if (udata && udata->inlen)
		return -EOPNOTSUPP;
	cur = mask & IB_QP_CUR_STATE ? a->cur_qp_state : READ_ONCE(qp->state);
	next = mask & IB_QP_STATE ? a->qp_state : cur;
	dqpn = mask & IB_QP_DEST_QPN ? a->dest_qp_num : qp->attr.dest_qp_num;
	ret = snic_ib_modify_cmd(ibd, qp->qpn, ibqp->qp_type, cur, a, mask,
				 dqpn);
	if (ret)
		return ret;

	if (next == IB_QPS_RESET && !qp->user && qp->buf.va)
		snic_ib_qp_reset(qp);
	WRITE_ONCE(qp->state, next);
	if (mask & IB_QP_QKEY)
		qp->qkey = a->qkey;
	/* Remember what query_qp reports (ah_attr without its sgid ref). */
	if (mask & IB_QP_AV) {
		qp->attr.ah_attr = a->ah_attr;
		qp->attr.ah_attr.grh.sgid_attr = NULL;
	}
	if (mask & IB_QP_PATH_MTU)
		qp->attr.path_mtu = a->path_mtu;
	if (mask & IB_QP_DEST_QPN)
		qp->attr.dest_qp_num = a->dest_qp_num;
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->attr.qp_access_flags = a->qp_access_flags;
	if (mask & IB_QP_TIMEOUT)
		qp->attr.timeout = a->timeout;
	if (mask & IB_QP_RETRY_CNT)
		qp->attr.retry_cnt = a->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		qp->attr.rnr_retry = a->rnr_retry;
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->attr.min_rnr_timer = a->min_rnr_timer;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->attr.max_rd_atomic = a->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->attr.max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & IB_QP_RQ_PSN)
		qp->attr.rq_psn = a->rq_psn;
	if (mask & IB_QP_SQ_PSN)
		qp->attr.sq_psn = a->sq_psn;
	return 0;
}

int snic_ib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *a, int mask,
		     struct ib_qp_init_attr *init)
{
	struct snic_ib_dev *ibd = to_sibdev(ibqp->device);
	struct snic_ib_qp *qp = to_sibqp(ibqp);
	struct snic_qp_attr *s;
	int ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	*a = qp->attr;
	a->qp_state = READ_ONCE(qp->state);
	ret = snic_aq_exec_buf(ibd->sd, SNIC_AQ_QUERY_QP, qp->qpn, 0, s,
			       sizeof(*s), NULL);
	if (!ret) {
		/* The device's view: state (ERR after a failure) and PSNs. */
		a->qp_state = s->state;
		a->sq_psn = le32_to_cpu(s->sq_psn);
		a->rq_psn = le32_to_cpu(s->rq_psn);
		a->sq_draining = s->state == SNIC_QPS_SQD &&
				 le32_to_cpu(s->sq_outstanding);
	}
	kfree(s);
	if (ret && ret != -EOPNOTSUPP)
		return ret;
	a->cur_qp_state = a->qp_state;
	a->qkey = qp->qkey;
	a->port_num = qp->port;
	a->cap.max_send_wr = qp->max_send_wr;
	a->cap.max_send_sge = qp->max_send_sge;
	a->cap.max_inline_data = qp->max_inline;
	a->cap.max_recv_wr = qp->rq_size;
	a->cap.max_recv_sge = qp->srq ? 0 : qp->max_recv_sge;

	memset(init, 0, sizeof(*init));
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = a->cap;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

/* ---- SRQs ---- */

int snic_ib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		       struct ib_udata *udata)
{
	struct snic_ib_dev *ibd = to_sibdev(ibsrq->device);
	struct snic_ib_srq *srq = to_sibsrq(ibsrq);
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_CREATE_SRQ };
	struct ib_srq_attr *a = &init->attr;
	struct snic_create_srq_resp resp = {};
	struct snic_aq_create_srq c = {};
	size_t ring;
	u64 srqn;
	int ret;

	if ((init->srq_type != IB_SRQT_BASIC &&
	     init->srq_type != IB_SRQT_XRC) || !a->max_wr ||
	    a->max_wr > SNIC_IB_MAX_SRQ_WR ||
	    a->max_sge > SNIC_MAX_SGE || a->srq_limit > a->max_wr)
		return -EINVAL;
	spin_lock_init(&srq->lock);
	srq->log_size = max_t(u8, order_base_2(a->max_wr + 1),
			      SNIC_MIN_LOG_SIZE);
	srq->size = 1u << srq->log_size;
	srq->max_sge = max_t(u32, a->max_sge, 1);
	srq->log_stride = max_t(u8, SNIC_IB_RECV_MIN_LOG,
				order_base_2(16 * (1 + srq->max_sge)));
	ret = snic_ib_db_page(ibd, udata);
	if (ret < 0)
		return ret;
	srq->db_page = ret;
	srq->limit = a->srq_limit;
	ring = ALIGN(srq->size << srq->log_stride, SNIC_RING_ALIGN);
	ret = snic_ib_buf_alloc(ibd, &srq->buf, ring + SNIC_RING_ALIGN, !!udata);
	if (ret)
		return ret;
	srq->dbr = srq->buf.va + ring;

	BUILD_BUG_ON(sizeof(c) > sizeof(cmd.raw));
	c.pdn = cpu_to_le32(to_sibpd(ibsrq->pd)->pdn);
	c.log_size = srq->log_size;
	c.log_stride = srq->log_stride;
	c.db_page = cpu_to_le16(srq->db_page);
	c.ring_addr = cpu_to_le64(srq->buf.dma);
	c.dbr_addr = cpu_to_le64(srq->buf.dma + ring);
	c.limit = cpu_to_le32(srq->limit);
	ret = snic_ib_xrc_srq_cmd(&c, init);
	if (ret)
		goto err_buf;
	memcpy(cmd.raw, &c, sizeof(c));
	ret = snic_aq_exec(ibd->sd, &cmd, &srqn);
	if (ret)
		goto err_buf;
	srq->srqn = srqn;
	ibsrq->ext.xrc.srq_num = srqn;	/* what get_srq_num gives (XRC) */
	ret = snic_ib_xa_publish(&ibd->srqs, srq->srqn, srq);
	if (ret)
		goto err_destroy;

	if (udata) {
		struct snic_ib_ucontext *uc =
			rdma_udata_to_drv_context(udata,
						  struct snic_ib_ucontext, ibuc);
		u64 key;

		srq->mmap = snic_ib_mmap_buf(uc, &srq->buf, &key);
		if (IS_ERR(srq->mmap)) {
			ret = PTR_ERR(srq->mmap);
			srq->mmap = NULL;
			goto err_xa;
		}
		resp.srqn = srq->srqn;
		resp.log_size = srq->log_size;
		resp.log_stride = srq->log_stride;
		resp.mmap_key = key;
		resp.mmap_len = srq->buf.size;
		resp.dbr_offset = ring;
		ret = ib_copy_to_udata(udata, &resp,
				       min(sizeof(resp), udata->outlen));
		if (ret)
			goto err_xa;
	}
	a->max_wr = srq->size - 1;
	a->max_sge = srq->max_sge;
	return 0;

err_xa:
	snic_ib_xa_drop(&ibd->srqs, srq->srqn, srq);
	snic_ib_sync_events(ibd);
err_destroy:
	if (snic_cmd_destroy(ibd->sd, SNIC_AQ_DESTROY_SRQ, srq->srqn))
		return ret;	/* the device may still use the ring: leak it */
err_buf:
	snic_ib_buf_release(ibd, &srq->buf, srq->mmap);
	return ret;
}

int snic_ib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *a,
		       enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct snic_ib_dev *ibd = to_sibdev(ibsrq->device);
	struct snic_ib_srq *srq = to_sibsrq(ibsrq);
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_MODIFY_SRQ };
	struct snic_aq_modify_srq m = {};
	int ret;

	if (mask & IB_SRQ_MAX_WR)
		return -EOPNOTSUPP;	/* no resize */
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (a->srq_limit >= srq->size)
		return -EINVAL;
	BUILD_BUG_ON(sizeof(m) > sizeof(cmd.raw));
	m.srqn = cpu_to_le32(srq->srqn);
	m.limit = cpu_to_le32(a->srq_limit);
	memcpy(cmd.raw, &m, sizeof(m));
	ret = snic_aq_exec(ibd->sd, &cmd, NULL);
	if (!ret)
		srq->limit = a->srq_limit;
	return ret;
}

int snic_ib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *a)
{
	struct snic_ib_srq *srq = to_sibsrq(ibsrq);

	a->max_wr = srq->size - 1;
	a->max_sge = srq->max_sge;
	a->srq_limit = srq->limit;
	return 0;
}

int snic_ib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct snic_ib_dev *ibd = to_sibdev(ibsrq->device);
	struct snic_ib_srq *srq = to_sibsrq(ibsrq);
	int ret;

	ret = snic_cmd_destroy(ibd->sd, SNIC_AQ_DESTROY_SRQ, srq->srqn);
	snic_ib_xa_drop(&ibd->srqs, srq->srqn, srq);
	snic_ib_sync_events(ibd);
	if (ret)
		dev_warn(&ibd->sd->pdev->dev,
			 "DESTROY_SRQ %u failed: %d, keeping its ring\n",
			 srq->srqn, ret);
	else
		snic_ib_buf_release(ibd, &srq->buf, srq->mmap);
	return 0;
}

/*
 * Multicast: a UD QP joins or leaves the group of a multicast GID, an
 * IPv4-mapped one or an IPv6 one (ff00::/8), as rdma_cm's RoCE join gives
 * them; the device delivers a copy of each packet to the group, untagged
 * or on any VLAN, to every QP in it.
 */
static int snic_ib_mcast(struct ib_qp *ibqp, union ib_gid *gid, u8 opcode)
{
	struct snic_ib_qp *qp = to_sibqp(ibqp);
	struct snic_aq_cmd cmd = { .opcode = opcode };
	struct snic_aq_mcast m = { .qpn = cpu_to_le32(qp->qpn) };

	BUILD_BUG_ON(sizeof(m) > sizeof(cmd.raw));
	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;
	if (!snic_ib_gid_v4(gid)) {
		if (gid->raw[0] != 0xff)
			return -EINVAL;
		m.flags = SNIC_MCAST_F_IPV6;
		memcpy(m.group6, gid->raw, sizeof(m.group6));
	} else {
		memcpy(&m.group, &gid->raw[12], sizeof(m.group));
		if (!ipv4_is_multicast(m.group))
			return -EINVAL;
	}
	memcpy(cmd.raw, &m, sizeof(m));
	return snic_aq_exec(to_sibdev(ibqp->device)->sd, &cmd, NULL);
}

int snic_ib_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return snic_ib_mcast(ibqp, gid, SNIC_AQ_ATTACH_MCAST);
}

int snic_ib_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return snic_ib_mcast(ibqp, gid, SNIC_AQ_DETACH_MCAST);
}
