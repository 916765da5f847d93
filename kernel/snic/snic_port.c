// SPDX-License-Identifier: GPL-2.0
/*
 * snic port: SET_PORT (admin state, MTU, MAC filter), QUERY_PORT (carrier)
 * and the async EQ that carries link, queue-error and RDMA QP/SRQ events
 * (the latter handed to snic_ib.ko).
 *
 * The async EQ shares MSI-X vector 0 with the admin queue so that every
 * other vector can drive a channel; the admin interrupt handler polls it.
 */
#include <linux/etherdevice.h>
#include <linux/interrupt.h>
#include <linux/slab.h>
#include <d2d/snic_rdma_ifc.h>
#include "snic.h"

int snic_async_eq_init(struct snic_dev *sd)
{
	int page, ret;

	page = snic_db_page_alloc(sd);
	if (page < 0)
		return page;
	ret = snic_eq_create(sd, &sd->async_eq, SNIC_ASYNC_EQ_LOG,
			     SNIC_AQ_VECTOR, page);
	if (ret) {
		snic_db_page_free(sd, page);
		return ret;
	}
	/* Publish the ring to the admin interrupt handler, then arm. */
	smp_store_release(&sd->async_on, true);
	snic_eq_arm(sd, &sd->async_eq);
	return 0;
}

void snic_async_eq_cleanup(struct snic_dev *sd)
{
	int page = sd->async_eq.db_page;

	if (!sd->async_on)
		return;
	WRITE_ONCE(sd->async_on, false);
	synchronize_irq(pci_irq_vector(sd->pdev, SNIC_AQ_VECTOR));
	/* Detach the port from the EQ before it goes away. */
	if (sd->netdev)
		snic_port_apply(netdev_priv(sd->netdev));
	snic_eq_destroy(sd, &sd->async_eq);
	snic_db_page_free(sd, page);
}

static void snic_link_event(struct snic_dev *sd, bool up)
{
	struct net_device *nd = sd->netdev;

	/* A closed port learns its carrier from QUERY_PORT at open. */
	if (!nd || !netif_running(nd))
		return;
	if (up && !netif_carrier_ok(nd)) {
		netif_carrier_on(nd);
		netdev_info(nd, "link up\n");
	} else if (!up && netif_carrier_ok(nd)) {
		netif_carrier_off(nd);
		netdev_info(nd, "link down\n");
	}
}

static void snic_async_event(struct snic_dev *sd, struct snic_eqe *eqe)
{
	u32 obj = le32_to_cpu(eqe->obj), data = le32_to_cpu(eqe->data);

	switch (eqe->type) {
	case SNIC_EQE_LINK:
		snic_link_event(sd, data);
		break;
	case SNIC_EQE_CQ_ERROR:
	case SNIC_EQE_SQ_ERROR:
	case SNIC_EQE_RQ_ERROR:
		sd->async_errors++;
		dev_err_ratelimited(&sd->pdev->dev,
				    "queue error event %u on object %u (error %u)\n",
				    eqe->type, obj, data);
		if (eqe->type == SNIC_EQE_CQ_ERROR)
			snic_rdma_async_event(sd, eqe);
		break;
	case SNIC_EQE_QP_ERROR:
	case SNIC_EQE_QP_SQ_DRAINED:
	case SNIC_EQE_QP_COMM_EST:
	case SNIC_EQE_QP_LAST_WQE:
	case SNIC_EQE_SRQ_LIMIT:
		snic_rdma_async_event(sd, eqe);
		break;
	default:
		dev_warn_ratelimited(&sd->pdev->dev,
				     "unexpected async event type %u\n",
				     eqe->type);
		break;
	}
}

/* Called from the admin interrupt handler. */
bool snic_async_eq_poll(struct snic_dev *sd)
{
	struct snic_eq *eq = &sd->async_eq;
	struct snic_eqe *eqe;
	int n = 0;

	/* Pairs with the release in snic_async_eq_init(). */
	if (!smp_load_acquire(&sd->async_on))
		return false;
	/*
	 * Re-check after arming: an EQE written before the arm doorbell
	 * raised no interrupt.
	 */
	do {
		while ((eqe = snic_eq_next(eq))) {
			snic_async_event(sd, eqe);
			eq->cons++;
			n++;
		}
		if (!n)
			return false;
		snic_eq_arm(sd, eq);
	} while (snic_eq_next(eq));
	return true;
}

/* Push admin state, MTU, MAC filter and the link-event EQ to the device. */
int snic_port_apply(struct snic_priv *priv)
{
	struct net_device *nd = priv->netdev;
	struct snic_dev *sd = priv->sd;
	struct netdev_hw_addr *ha;
	struct snic_port_cfg *cfg;
	u32 flags = 0;
	int n = 0, ret;

	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	mutex_lock(&priv->port_lock);
	if (priv->port_up)
		flags |= SNIC_PORT_F_UP;
	netif_addr_lock_bh(nd);
	if (nd->flags & IFF_PROMISC)
		flags |= SNIC_PORT_F_PROMISC;
	if (nd->flags & IFF_ALLMULTI)
		flags |= SNIC_PORT_F_ALLMULTI;
	ether_addr_copy(cfg->macs[n++], nd->dev_addr);
	/* Lists longer than the device's filter fall back to wider modes. */
	netdev_for_each_uc_addr(ha, nd) {
		if (n < SNIC_MAX_MACS)
			ether_addr_copy(cfg->macs[n++], ha->addr);
		else
			flags |= SNIC_PORT_F_PROMISC;
	}
	netdev_for_each_mc_addr(ha, nd) {
		if (n < SNIC_MAX_MACS)
			ether_addr_copy(cfg->macs[n++], ha->addr);
		else
			flags |= SNIC_PORT_F_ALLMULTI;
	}
	netif_addr_unlock_bh(nd);
	if (nd->features & NETIF_F_HW_VLAN_CTAG_RX)
		flags |= SNIC_PORT_F_VLAN_STRIP;
	/* Promiscuous takes every VLAN too. */
	if ((nd->features & NETIF_F_HW_VLAN_CTAG_FILTER) &&
	    !(flags & SNIC_PORT_F_PROMISC))
		flags |= SNIC_PORT_F_VLAN_FILTER;
	cfg->flags = cpu_to_le32(flags);
	cfg->mtu = cpu_to_le16(nd->mtu);
	cfg->num_macs = cpu_to_le16(n);
	cfg->async_eqn = cpu_to_le16(READ_ONCE(sd->async_on) ?
				     sd->async_eq.eqn : SNIC_EQN_NONE);
	ret = snic_aq_exec_buf(sd, SNIC_AQ_SET_PORT, 0, 0, cfg, sizeof(*cfg),
			       NULL);
	mutex_unlock(&priv->port_lock);
	kfree(cfg);
	if (ret)
		netdev_err(nd, "SET_PORT failed: %d\n", ret);
	return ret;
}

/* The VLAN IDs of priv->vlans to the device's filter table (SET_VLAN). */
static int snic_vlan_apply(struct snic_priv *priv)
{
	struct snic_vlan_table *t;
	unsigned int vid;
	int ret;

	ASSERT_RTNL();
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	for_each_set_bit(vid, priv->vlans, VLAN_N_VID)
		t->bitmap[vid / 8] |= 1u << (vid % 8);
	ret = snic_aq_exec_buf(priv->sd, SNIC_AQ_SET_VLAN, 0, 0, t, sizeof(*t),
			       NULL);
	kfree(t);
	if (ret)
		netdev_err(priv->netdev, "SET_VLAN failed: %d\n", ret);
	return ret;
}

int snic_vlan_rx_add_vid(struct net_device *nd, __be16 proto, u16 vid)
{
	struct snic_priv *priv = netdev_priv(nd);
	int ret;

	if (proto != htons(ETH_P_8021Q) || vid >= VLAN_N_VID)
		return -EPROTONOSUPPORT;
	set_bit(vid, priv->vlans);
	ret = snic_vlan_apply(priv);
	if (ret)
		clear_bit(vid, priv->vlans);
	return ret;
}

int snic_vlan_rx_kill_vid(struct net_device *nd, __be16 proto, u16 vid)
{
	struct snic_priv *priv = netdev_priv(nd);

	if (proto != htons(ETH_P_8021Q) || vid >= VLAN_N_VID)
		return -EPROTONOSUPPORT;
	clear_bit(vid, priv->vlans);
	return snic_vlan_apply(priv);
}

int snic_port_set_up(struct snic_priv *priv, bool up)
{
	mutex_lock(&priv->port_lock);
	priv->port_up = up;
	mutex_unlock(&priv->port_lock);
	return snic_port_apply(priv);
}

int snic_port_query(struct snic_priv *priv, struct snic_port_info *info)
{
	memset(info, 0, sizeof(*info));
	return snic_aq_exec_buf(priv->sd, SNIC_AQ_QUERY_PORT, 0, 0, info,
				sizeof(*info), NULL);
}

/* ndo_set_rx_mode runs under the address lock; SET_PORT sleeps. */
void snic_rx_mode_work(struct work_struct *work)
{
	struct snic_priv *priv = container_of(work, struct snic_priv,
					      rx_mode_work);

	snic_port_apply(priv);
}
