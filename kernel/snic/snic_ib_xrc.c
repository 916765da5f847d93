// SPDX-License-Identifier: GPL-2.0
/*
 * snic RDMA: XRC (extended reliable connected) - XRC domains, the XRC
 * fields of an XRC SRQ and the XRC_TGT QP, which has no queues: ib_core
 * creates it for the XRCD (uverbs' XRC_TGT create_qp and open_qp share
 * one real QP), with no PD, CQ or udata.  XRC_INI QPs are created as RC
 * QPs without a receive queue (snic_ib_qp.c).  docs/snic-rdma.md "XRC".
 */
#include "snic_ib.h"

int snic_ib_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct snic_ib_dev *ibd = to_sibdev(ibxrcd->device);
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_CREATE_XRCD };
	u64 xrcdn;
	int ret;

	ret = snic_aq_exec(ibd->sd, &cmd, &xrcdn);
	if (ret)
		return ret;
	to_sibxrcd(ibxrcd)->xrcdn = xrcdn;
	return 0;
}

/* As a PD: only EBUSY is an answer, other failures leak the number. */
int snic_ib_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct snic_ib_dev *ibd = to_sibdev(ibxrcd->device);
	u32 xrcdn = to_sibxrcd(ibxrcd)->xrcdn;
	int ret;

	ret = snic_cmd_destroy(ibd->sd, SNIC_AQ_DESTROY_XRCD, xrcdn);
	if (ret == -EBUSY)
		return ret;
	if (ret)
		dev_warn(&ibd->sd->pdev->dev, "DESTROY_XRCD %u failed: %d\n",
			 xrcdn, ret);
	return 0;
}

/* The XRC fields of CREATE_SRQ for an IB_SRQT_XRC SRQ of @init. */
int snic_ib_xrc_srq_cmd(struct snic_aq_create_srq *c,
			const struct ib_srq_init_attr *init)
{
	if (init->srq_type != IB_SRQT_XRC)
		return 0;
	if (!init->ext.xrc.xrcd || !init->ext.cq)
		return -EINVAL;
	c->flags = SNIC_SRQ_F_XRC;
	c->xrcdn = cpu_to_le16(to_sibxrcd(init->ext.xrc.xrcd)->xrcdn);
	c->cqn = cpu_to_le16(to_sibcq(init->ext.cq)->cq.cqn);
	return 0;
}

/*
 * An XRC_TGT QP of @init's XRCD: a device QP with no ring, PD or CQ.
 * ib_core calls create_qp for it without udata, also from user space.
 */
int snic_ib_create_tgt_qp(struct snic_ib_dev *ibd, struct snic_ib_qp *qp,
			  const struct ib_qp_init_attr *init)
{
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_CREATE_QP };
	struct snic_aq_create_qp c = {};
	u64 qpn;
	int ret;

	if (!init->xrcd || init->create_flags || init->srq ||
	    init->send_cq || init->recv_cq)
		return -EINVAL;
	c.type = SNIC_QPT_XRC_TGT;
	c.db_page = cpu_to_le16(qp->db_page);
	c.srqn = cpu_to_le16(SNIC_SRQN_NONE);
	c.xrcdn = cpu_to_le16(to_sibxrcd(init->xrcd)->xrcdn);
	memcpy(cmd.raw, &c, sizeof(c));
	ret = snic_aq_exec(ibd->sd, &cmd, &qpn);
	if (ret)
		return ret;
	qp->qpn = qpn;
	return 0;
}
