// SPDX-License-Identifier: GPL-2.0
/*
 * snic_ib.ko: the RoCEv2 ib_device bound to the snic net_device, an
 * auxiliary driver of snic.rdma.N (added by snic.ko's Ethernet driver).
 *
 * Registration, device/port/pkey queries, the port's immutable RoCE v2
 * capabilities (ib_core keeps the GID table from the netdev's addresses;
 * the device has none: every address is resolved into a struct snic_av),
 * the completion EQ on its own MSI-X vector, and the RDMA async events
 * the port's async EQ delivers (dispatched from the admin interrupt).
 */
#include <linux/module.h>
#include <linux/etherdevice.h>
#include <linux/interrupt.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/if_vlan.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include "snic_ib.h"

static int snic_ib_query_device(struct ib_device *ibdev,
				struct ib_device_attr *a,
				struct ib_udata *udata)
{
	struct snic_ib_dev *ibd = to_sibdev(ibdev);
	struct snic_dev *sd = ibd->sd;

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	a->fw_ver = le32_to_cpu(sd->id.version);
	addrconf_addr_eui48((u8 *)&a->sys_image_guid, sd->id.mac);
	a->max_mr_size = (u64)SNIC_MAX_MSG_SIZE * 2;
	a->page_size_cap = GENMASK_ULL(30, 12);
	a->vendor_id = SNIC_PCI_VENDOR_ID;
	a->vendor_part_id = SNIC_PCI_DEVICE_ID;
	a->hw_ver = sd->pdev->revision;
	a->max_qp = SNIC_MAX_QPS - 2;
	/* Every WR may take SNIC_WQE_MAX_BBS basic blocks. */
	BUILD_BUG_ON(SNIC_IB_MAX_QP_WR * SNIC_WQE_MAX_BBS >
		     1 << SNIC_MAX_LOG_SIZE);
	BUILD_BUG_ON(SNIC_IB_MAX_QP_WR * SNIC_WQE_MAX_BBS * SNIC_WQEBB_SIZE +
		     SNIC_IB_MAX_QP_WR * SNIC_IB_RECV_MAX_STRIDE +
		     2 * SNIC_RING_ALIGN > SNIC_IB_BUF_MAX);
	BUILD_BUG_ON((SNIC_IB_MAX_SRQ_WR + 1) * SNIC_IB_RECV_MAX_STRIDE +
		     2 * SNIC_RING_ALIGN > SNIC_IB_BUF_MAX);
	BUILD_BUG_ON((SNIC_IB_MAX_CQE + 1) * sizeof(struct snic_cqe) +
		     2 * SNIC_RING_ALIGN > SNIC_IB_BUF_MAX);
	BUILD_BUG_ON(16 * (1 + SNIC_MAX_SGE) > SNIC_IB_RECV_MAX_STRIDE);
	a->max_qp_wr = SNIC_IB_MAX_QP_WR;
	a->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS |
			      IB_DEVICE_MEM_WINDOW |
			      IB_DEVICE_MEM_WINDOW_TYPE_2B |
			      IB_DEVICE_RC_RNR_NAK_GEN |
			      IB_DEVICE_SYS_IMAGE_GUID |
			      IB_DEVICE_PORT_ACTIVE_EVENT |
			      IB_DEVICE_XRC;
	a->kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	a->max_send_sge = SNIC_IB_MAX_SEND_SGE;
	a->max_recv_sge = SNIC_MAX_SGE;
	a->max_sge_rd = SNIC_IB_MAX_SEND_SGE;
	a->max_cq = SNIC_MAX_CQS / 2;
	a->max_cqe = SNIC_IB_MAX_CQE;
	a->cq_caps.max_cq_moderation_count = SNIC_CQ_MAX_MOD_COUNT;
	a->cq_caps.max_cq_moderation_period = SNIC_CQ_MAX_MOD_PERIOD;
	a->max_mr = SNIC_MAX_MRS - 1;
	/* windows share the key table with the MRs (key index 0 unused) */
	a->max_mw = SNIC_MAX_MWS - 1;
	a->max_pd = SNIC_MAX_PDS - 1;
	a->max_qp_rd_atom = SNIC_MAX_RD_ATOMIC;
	a->max_qp_init_rd_atom = SNIC_MAX_RD_ATOMIC;
	a->max_res_rd_atom = SNIC_MAX_RD_ATOMIC * a->max_qp;
	a->atomic_cap = IB_ATOMIC_HCA;
	/* CQE time stamps: ns of the device clock (docs/snic-rdma.md) */
	a->hca_core_clock = SNIC_CLOCK_KHZ;
	a->timestamp_mask = U64_MAX;
	a->max_ah = 1 << 20;	/* host state only */
	a->max_mcast_grp = SNIC_MAX_MCAST_GRPS;
	a->max_mcast_qp_attach = SNIC_MAX_MCAST_QP_ATTACH;
	a->max_total_mcast_qp_attach = SNIC_MAX_MCAST_GRPS *
				       SNIC_MAX_MCAST_QP_ATTACH;
	a->max_srq = SNIC_MAX_SRQS - 1;
	a->max_srq_wr = SNIC_IB_MAX_SRQ_WR;
	a->max_srq_sge = SNIC_MAX_SGE;
	a->max_fast_reg_page_list_len = SNIC_IB_MAX_FRPL;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 15;
	return 0;
}

static int snic_ib_query_port(struct ib_device *ibdev, u32 port,
			      struct ib_port_attr *a)
{
	struct snic_ib_dev *ibd = to_sibdev(ibdev);
	struct net_device *nd = ibd->netdev;

	/* ib_core cleared *a. */
	a->gid_tbl_len = SNIC_IB_GID_TBL_LEN;
	a->pkey_tbl_len = 1;
	a->max_msg_sz = SNIC_MAX_MSG_SIZE;
	a->port_cap_flags = IB_PORT_CM_SUP;
	a->max_mtu = IB_MTU_4096;
	a->max_vl_num = 1;
	a->ip_gids = true;
	a->active_mtu = iboe_get_mtu(READ_ONCE(nd->mtu));
	if (netif_running(nd) && netif_carrier_ok(nd)) {
		a->state = IB_PORT_ACTIVE;
		a->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
		/* From ethtool's link speed (only known with carrier). */
		return ib_get_eth_speed(ibdev, port, &a->active_speed,
					&a->active_width);
	}
	a->state = IB_PORT_DOWN;
	a->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	a->active_speed = IB_SPEED_SDR;
	a->active_width = IB_WIDTH_1X;
	return 0;
}

static int snic_ib_get_port_immutable(struct ib_device *ibdev, u32 port,
				      struct ib_port_immutable *im)
{
	struct ib_port_attr a = {};
	int ret;

	ret = ib_query_port(ibdev, port, &a);
	if (ret)
		return ret;
	im->pkey_tbl_len = a.pkey_tbl_len;
	im->gid_tbl_len = a.gid_tbl_len;
	/* RoCE v2 only: GIDs are IPv4-mapped addresses, UDP port 4791. */
	im->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	im->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static int snic_ib_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			      u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static enum rdma_link_layer snic_ib_link_layer(struct ib_device *ibdev,
					       u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static void snic_ib_fw_str(struct ib_device *ibdev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%s",
		 to_sibdev(ibdev)->sd->id.fw_version);
}

/*
 * Device removal with processes still holding contexts: ib_core zaps the
 * doorbell mappings and destroys the objects; ring pages mapped into a
 * process stay allocated (their own reference) until it unmaps them.
 */
static void snic_ib_disassociate_ucontext(struct ib_ucontext *uc)
{
}

/*
 * Driver attributes of the ib_device, as ConnectX drivers give them: what
 * libibumad (ibstat's "CA type", "Hardware version") and ibv_devinfo -v
 * (board_id) read from /sys/class/infiniband/<dev>/.
 */
static ssize_t hw_rev_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct snic_ib_dev *ibd =
		rdma_device_to_drv_device(device, struct snic_ib_dev, ibdev);

	return sysfs_emit(buf, "%#x\n", ibd->sd->pdev->revision);
}
static DEVICE_ATTR_RO(hw_rev);

static ssize_t hca_type_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "SNIC%04X\n", SNIC_PCI_DEVICE_ID);
}
static DEVICE_ATTR_RO(hca_type);

static ssize_t board_id_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	struct snic_ib_dev *ibd =
		rdma_device_to_drv_device(device, struct snic_ib_dev, ibdev);

	return sysfs_emit(buf, "D2D_%s\n", ibd->sd->id.serial);
}
static DEVICE_ATTR_RO(board_id);

static struct attribute *snic_ib_attrs[] = {
	&dev_attr_hw_rev.attr,
	&dev_attr_hca_type.attr,
	&dev_attr_board_id.attr,
	NULL,
};

static const struct attribute_group snic_ib_attr_group = {
	.attrs = snic_ib_attrs,
};

/*
 * The device's source address table mirrors the GID table: a user UD QP
 * sends from the entry its AV names, whatever smac/sip the WQE carries,
 * and datagrams over IPv6 are taken only for the table's IPv6 addresses.
 * RoCE v2 GIDs (IPv4-mapped or IPv6) are addresses the device sends
 * from; other entries are cleared.
 */
static int snic_ib_src_addr(const struct ib_gid_attr *attr, bool add)
{
	struct snic_ib_dev *ibd = to_sibdev(attr->device);
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_SET_SRC_ADDR };
	struct snic_aq_set_src_addr a = {};
	int ret;

	BUILD_BUG_ON(sizeof(a) > sizeof(cmd.raw));
	BUILD_BUG_ON(SNIC_IB_GID_TBL_LEN > SNIC_SRC_ADDRS);
	if (attr->index >= SNIC_SRC_ADDRS)
		return -EINVAL;
	a.index = attr->index;
	if (add && attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP) {
		u16 vlan_id;

		ret = rdma_read_gid_l2_fields(attr, &vlan_id, a.mac);
		if (ret)
			return ret;
		if (vlan_id < VLAN_N_VID) {
			a.flags |= SNIC_SRC_F_VLAN;
			a.vlan_id = cpu_to_le16(vlan_id);
		}
		if (snic_ib_gid_v4(&attr->gid)) {
			memcpy(&a.ip, &attr->gid.raw[12], sizeof(a.ip));
		} else {
			a.flags |= SNIC_SRC_F_IPV6;
			memcpy(a.ip6, attr->gid.raw, sizeof(a.ip6));
		}
		a.valid = 1;
	}
	memcpy(cmd.raw, &a, sizeof(a));
	return snic_aq_exec(ibd->sd, &cmd, NULL);
}

static int snic_ib_add_gid(const struct ib_gid_attr *attr, void **context)
{
	return snic_ib_src_addr(attr, true);
}

static int snic_ib_del_gid(const struct ib_gid_attr *attr, void **context)
{
	return snic_ib_src_addr(attr, false);
}

static const struct ib_device_ops snic_ib_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = SNIC_UVERBS_ABI_VERSION,

	.query_device = snic_ib_query_device,
	.query_port = snic_ib_query_port,
	.get_port_immutable = snic_ib_get_port_immutable,
	.query_pkey = snic_ib_query_pkey,
	.get_link_layer = snic_ib_link_layer,
	.get_dev_fw_str = snic_ib_fw_str,
	.device_group = &snic_ib_attr_group,
	.add_gid = snic_ib_add_gid,
	.del_gid = snic_ib_del_gid,
	.alloc_hw_port_stats = snic_ib_alloc_port_stats,
	.get_hw_stats = snic_ib_get_hw_stats,
	.attach_mcast = snic_ib_attach_mcast,
	.detach_mcast = snic_ib_detach_mcast,
	.counter_bind_qp = snic_ib_counter_bind_qp,
	.counter_unbind_qp = snic_ib_counter_unbind_qp,
	.counter_dealloc = snic_ib_counter_dealloc,
	.counter_alloc_stats = snic_ib_counter_alloc_stats,
	.counter_update_stats = snic_ib_counter_update_stats,

	.alloc_ucontext = snic_ib_alloc_ucontext,
	.dealloc_ucontext = snic_ib_dealloc_ucontext,
	.mmap = snic_ib_mmap,
	.mmap_free = snic_ib_mmap_free,
	.disassociate_ucontext = snic_ib_disassociate_ucontext,

	.alloc_pd = snic_ib_alloc_pd,
	.dealloc_pd = snic_ib_dealloc_pd,
	.alloc_xrcd = snic_ib_alloc_xrcd,
	.dealloc_xrcd = snic_ib_dealloc_xrcd,
	.get_dma_mr = snic_ib_get_dma_mr,
	.reg_user_mr = snic_ib_reg_user_mr,
	.alloc_mr = snic_ib_alloc_mr,
	.map_mr_sg = snic_ib_map_mr_sg,
	.dereg_mr = snic_ib_dereg_mr,
	.alloc_mw = snic_ib_alloc_mw,
	.dealloc_mw = snic_ib_dealloc_mw,

	.create_cq = snic_ib_create_cq,
	.destroy_cq = snic_ib_destroy_cq,
	.poll_cq = snic_ib_poll_cq,
	.resize_cq = snic_ib_resize_cq,
	.modify_cq = snic_ib_modify_cq,
	.req_notify_cq = snic_ib_req_notify_cq,

	.create_qp = snic_ib_create_qp,
	.modify_qp = snic_ib_modify_qp,
	.query_qp = snic_ib_query_qp,
	.destroy_qp = snic_ib_destroy_qp,
	.create_srq = snic_ib_create_srq,
	.modify_srq = snic_ib_modify_srq,
	.query_srq = snic_ib_query_srq,
	.destroy_srq = snic_ib_destroy_srq,
	.create_ah = snic_ib_create_ah,
	.create_user_ah = snic_ib_create_ah,
	.query_ah = snic_ib_query_ah,
	.destroy_ah = snic_ib_destroy_ah,

	.post_send = snic_ib_post_send,
	.post_recv = snic_ib_post_recv,
	.post_srq_recv = snic_ib_post_srq_recv,

	INIT_RDMA_OBJ_SIZE(ib_ah, snic_ib_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, snic_ib_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, snic_ib_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, snic_ib_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, snic_ib_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, snic_ib_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, snic_ib_ucontext, ibuc),
	INIT_RDMA_OBJ_SIZE(ib_xrcd, snic_ib_xrcd, ibxrcd),
};

/* ---- completion EQ ---- */

static irqreturn_t snic_ib_ceq_irq(int irq, void *data)
{
	struct snic_ib_dev *ibd = data;
	struct snic_eq *eq = &ibd->ceq;
	struct snic_eqe *eqe;
	int n = 0;

	/* Re-check after arming: an EQE written before the arm raised none. */
	do {
		while ((eqe = snic_eq_next(eq))) {
			if (eqe->type == SNIC_EQE_COMPLETION)
				snic_ib_cq_event(ibd, le32_to_cpu(eqe->obj));
			else
				atomic64_inc(&ibd->events_no_obj);
			eq->cons++;
			n++;
		}
		if (!n)
			return IRQ_NONE;
		snic_eq_arm(ibd->sd, eq);
	} while (snic_eq_next(eq));
	return IRQ_HANDLED;
}

static int snic_ib_ceq_init(struct snic_ib_dev *ibd)
{
	struct snic_dev *sd = ibd->sd;
	int ret;

	ret = snic_eq_create(sd, &ibd->ceq, SNIC_IB_CEQ_LOG, sd->rdma_vector,
			     ibd->kdb_page);
	if (ret)
		return ret;
	ibd->irq = pci_irq_vector(sd->pdev, sd->rdma_vector);
	ret = request_irq(ibd->irq, snic_ib_ceq_irq, 0, "snic-rdma", ibd);
	if (ret) {
		snic_eq_destroy(sd, &ibd->ceq);
		return ret;
	}
	ibd->irq_on = true;
	snic_eq_arm(sd, &ibd->ceq);
	return 0;
}

static void snic_ib_ceq_cleanup(struct snic_ib_dev *ibd)
{
	if (ibd->irq_on) {
		free_irq(ibd->irq, ibd);
		ibd->irq_on = false;
	}
	snic_eq_destroy(ibd->sd, &ibd->ceq);
}

/* ---- async events (admin interrupt) ---- */

static enum ib_event_type snic_ib_qp_error_event(u32 status)
{
	switch (status) {
	case SNIC_RST_LOC_ACCESS:
	case SNIC_RST_LOC_PROT:
	case SNIC_RST_REM_ACCESS:
		return IB_EVENT_QP_ACCESS_ERR;
	case SNIC_RST_REM_INV_REQ:
	case SNIC_RST_LOC_QP_OP:
		return IB_EVENT_QP_REQ_ERR;
	default:
		return IB_EVENT_QP_FATAL;
	}
}

static void snic_ib_qp_event(struct snic_ib_dev *ibd, u8 type, u32 qpn,
			     u32 data)
{
	struct ib_event ev = { .device = &ibd->ibdev };
	struct snic_ib_qp *qp;
	unsigned long flags;

	switch (type) {
	case SNIC_EQE_QP_ERROR:
		ev.event = snic_ib_qp_error_event(data);
		break;
	case SNIC_EQE_QP_SQ_DRAINED:
		ev.event = IB_EVENT_SQ_DRAINED;
		break;
	case SNIC_EQE_QP_COMM_EST:
		ev.event = IB_EVENT_COMM_EST;
		break;
	default:
		ev.event = IB_EVENT_QP_LAST_WQE_REACHED;
		break;
	}
	xa_lock_irqsave(&ibd->qps, flags);
	qp = xa_load(&ibd->qps, qpn);
	if (qp) {
		if (type == SNIC_EQE_QP_ERROR)
			WRITE_ONCE(qp->state, IB_QPS_ERR);
		ev.element.qp = &qp->ibqp;
		if (qp->ibqp.event_handler)
			qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	} else {
		atomic64_inc(&ibd->events_no_obj);
	}
	xa_unlock_irqrestore(&ibd->qps, flags);
}

static void snic_ib_srq_event(struct snic_ib_dev *ibd, u32 srqn)
{
	struct ib_event ev = {
		.device = &ibd->ibdev,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};
	struct snic_ib_srq *srq;
	unsigned long flags;

	xa_lock_irqsave(&ibd->srqs, flags);
	srq = xa_load(&ibd->srqs, srqn);
	if (srq) {
		/* The limit is one-shot: it must be armed again. */
		srq->limit = 0;
		ev.element.srq = &srq->ibsrq;
		if (srq->ibsrq.event_handler)
			srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
	} else {
		atomic64_inc(&ibd->events_no_obj);
	}
	xa_unlock_irqrestore(&ibd->srqs, flags);
}

/* A CQ the device could not write (overflow, DMA): IB_EVENT_CQ_ERR. */
static void snic_ib_cq_error(struct snic_ib_dev *ibd, u32 cqn)
{
	struct ib_event ev = {
		.device = &ibd->ibdev,
		.event = IB_EVENT_CQ_ERR,
	};
	struct snic_ib_cq *cq;
	unsigned long flags;

	xa_lock_irqsave(&ibd->cqs, flags);
	cq = xa_load(&ibd->cqs, cqn);
	if (cq && cq->ibcq.event_handler) {
		ev.element.cq = &cq->ibcq;
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
	}
	xa_unlock_irqrestore(&ibd->cqs, flags);
}

/*
 * From the admin interrupt handler: SNIC_EQE_QP_*, SRQ_LIMIT, and
 * CQ_ERROR for CQs that may be RDMA CQs.
 */
static void snic_ib_async_event(struct snic_dev *sd, struct snic_eqe *eqe)
{
	struct snic_ib_dev *ibd = READ_ONCE(sd->ib);
	u32 obj = le32_to_cpu(eqe->obj);

	if (!ibd)
		return;
	switch (eqe->type) {
	case SNIC_EQE_QP_ERROR:
	case SNIC_EQE_QP_SQ_DRAINED:
	case SNIC_EQE_QP_COMM_EST:
	case SNIC_EQE_QP_LAST_WQE:
		snic_ib_qp_event(ibd, eqe->type, obj, le32_to_cpu(eqe->data));
		break;
	case SNIC_EQE_SRQ_LIMIT:
		snic_ib_srq_event(ibd, obj);
		break;
	case SNIC_EQE_CQ_ERROR:
		snic_ib_cq_error(ibd, obj);
		break;
	default:
		atomic64_inc(&ibd->events_no_obj);
		break;
	}
}

/*
 * The port is ACTIVE while the netdev runs and has carrier.  Its changes,
 * by the wire (carrier) or by hand (ip link set down/up), reach us as
 * netdev events, as rxe learns them: each change is dispatched once as
 * IB_EVENT_PORT_ACTIVE / IB_EVENT_PORT_ERR.  Runs under RTNL.
 */
static int snic_ib_netdev_event(struct notifier_block *nb,
				unsigned long event, void *ptr)
{
	struct snic_ib_dev *ibd = container_of(nb, struct snic_ib_dev, nb);
	struct net_device *nd = netdev_notifier_info_to_dev(ptr);
	struct ib_event ev;
	bool up;

	ASSERT_RTNL();
	if (nd != ibd->netdev)
		return NOTIFY_DONE;
	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		break;
	default:
		return NOTIFY_DONE;
	}
	up = netif_running(nd) && netif_carrier_ok(nd);
	if (up == ibd->port_up)
		return NOTIFY_DONE;
	ibd->port_up = up;
	ev.device = &ibd->ibdev;
	ev.element.port_num = SNIC_IB_PORT;
	ev.event = up ? IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
	return NOTIFY_OK;
}

/* ---- probe / remove ---- */

static const struct snic_rdma_ops snic_ib_rdma_ops = {
	.async_event = snic_ib_async_event,
	.qp_owner = snic_ib_qp_owner,
};

static int snic_ib_probe(struct snic_dev *sd)
{
	struct device *dev = &sd->pdev->dev;
	struct snic_ib_dev *ibd;
	struct ib_device *ibdev;
	int ret;

	if (!snic_has(sd, SNIC_CAP_RDMA) || !sd->netdev)
		return 0;
	if (!sd->rdma_vector) {
		dev_warn(dev, "no MSI-X vector left for RDMA completions\n");
		return 0;
	}
	ibd = ib_alloc_device(snic_ib_dev, ibdev);
	if (!ibd)
		return -ENOMEM;
	ibdev = &ibd->ibdev;
	ibd->sd = sd;
	ibd->netdev = sd->netdev;
	xa_init_flags(&ibd->cqs, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&ibd->qps, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&ibd->srqs, XA_FLAGS_LOCK_IRQ);
	ida_init(&ibd->counter_ida);
	atomic_set(&ibd->key_tag, 1);

	ibd->kdb_page = snic_db_page_alloc(sd);
	if (ibd->kdb_page < 0) {
		ret = ibd->kdb_page;
		goto err_dealloc;
	}
	ret = snic_ib_ceq_init(ibd);
	if (ret)
		goto err_page;

	/* sysfs device link: libibverbs matches the provider by PCI id */
	ibdev->dev.parent = dev;
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = 1;
	ibdev->local_dma_lkey = SNIC_LKEY_BUS;
	addrconf_addr_eui48((u8 *)&ibdev->node_guid, sd->id.mac);
	strscpy(ibdev->node_desc, "d2d snic RoCEv2", sizeof(ibdev->node_desc));
	ib_set_device_ops(ibdev, &snic_ib_ops);
	ret = ib_device_set_netdev(ibdev, sd->netdev, SNIC_IB_PORT);
	if (ret)
		goto err_ceq;
	/* Async events may name our objects from now on. */
	WRITE_ONCE(sd->ib, ibd);
	snic_rdma_ops_set(sd, &snic_ib_rdma_ops);
	ret = ib_register_device(ibdev, "snic_%d", dev);
	if (ret) {
		dev_err(dev, "cannot register the RDMA device: %d\n", ret);
		goto err_ib;
	}
	rtnl_lock();
	ibd->port_up = netif_running(sd->netdev) && netif_carrier_ok(sd->netdev);
	rtnl_unlock();
	ibd->nb.notifier_call = snic_ib_netdev_event;
	ret = register_netdevice_notifier(&ibd->nb);
	if (ret) {
		dev_err(dev, "cannot follow the port's state: %d\n", ret);
		goto err_reg;
	}
	dev_info(dev, "RDMA device %s on %s\n", dev_name(&ibdev->dev),
		 netdev_name(sd->netdev));
	return 0;

err_reg:
	ib_unregister_device(ibdev);
err_ib:
	snic_rdma_ops_clear(sd);
	WRITE_ONCE(sd->ib, NULL);
	snic_ib_sync_events(ibd);
	ib_device_set_netdev(ibdev, NULL, SNIC_IB_PORT);
err_ceq:
	snic_ib_ceq_cleanup(ibd);
err_page:
	snic_db_page_free(sd, ibd->kdb_page);
err_dealloc:
	ib_dealloc_device(ibdev);
	return ret;
}

static void snic_ib_remove(struct snic_dev *sd)
{
	struct snic_ib_dev *ibd = sd->ib;

	if (!ibd)
		return;
	unregister_netdevice_notifier(&ibd->nb);
	/* Destroys every object, user contexts included (disassociate). */
	ib_unregister_device(&ibd->ibdev);
	snic_rdma_ops_clear(sd);
	WRITE_ONCE(sd->ib, NULL);
	snic_ib_sync_events(ibd);
	snic_ib_ceq_cleanup(ibd);
	snic_db_page_free(sd, ibd->kdb_page);
	WARN_ON(!xa_empty(&ibd->qps) || !xa_empty(&ibd->cqs) ||
		!xa_empty(&ibd->srqs));
	xa_destroy(&ibd->qps);
	xa_destroy(&ibd->cqs);
	xa_destroy(&ibd->srqs);
	ida_destroy(&ibd->counter_ida);
	ib_dealloc_device(&ibd->ibdev);
}

static int snic_ib_adev_probe(struct auxiliary_device *adev,
			      const struct auxiliary_device_id *id)
{
	struct snic_dev *sd = snic_adev_sd(adev);
	int ret;

	/* Ethernet keeps working without the RDMA device. */
	ret = snic_ib_probe(sd);
	if (ret)
		dev_warn(&sd->pdev->dev, "no RDMA device: %d\n", ret);
	return 0;
}

static void snic_ib_adev_remove(struct auxiliary_device *adev)
{
	snic_ib_remove(snic_adev_sd(adev));
}

static const struct auxiliary_device_id snic_ib_adev_ids[] = {
	{ .name = SNIC_DRV_NAME ".rdma" },
	{ }
};
MODULE_DEVICE_TABLE(auxiliary, snic_ib_adev_ids);

static struct auxiliary_driver snic_ib_driver = {
	.name = "rdma",
	.probe = snic_ib_adev_probe,
	.remove = snic_ib_adev_remove,
	.id_table = snic_ib_adev_ids,
};
module_auxiliary_driver(snic_ib_driver);

MODULE_DESCRIPTION("d2d snic RoCEv2 InfiniBand device");
MODULE_AUTHOR("d2d developers");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(SNIC_CORE);
