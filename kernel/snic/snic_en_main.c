// SPDX-License-Identifier: GPL-2.0
/*
 * snic net_device: channels, NAPI, open/stop, reconfiguration, probe and
 * remove.
 *
 * A channel is one MSI-X vector (i + 1; vector 0 is the admin queue), one
 * EQ on it, a TX CQ + SQ and an RX CQ + RQ, all answering to one doorbell
 * page.  The interrupt schedules NAPI; NAPI drains the EQ, both CQs
 * (snic_en_tx.c, snic_en_rx.c) and refills the RQ, then re-arms both CQs
 * and the EQ.  RSS and its catch-all rule: snic_en_rss.c; ethtool ntuple
 * rules: snic_en_fs_ethtool.c.  A zero-copy AF_XDP pool on queue N
 * (snic_xsk*.c) rebuilds the channels so that channel N's RQ takes its
 * UMEM frames; NAPI also sends from its TX ring.
 */
#include <linux/bpf.h>
#include <linux/etherdevice.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "snic.h"
#include "snic_en.h"

/* ---- NAPI and interrupts ---- */

static void snic_ch_event(struct snic_channel *ch, struct snic_eqe *eqe)
{
	struct snic_priv *priv = ch->priv;

	switch (eqe->type) {
	case SNIC_EQE_COMPLETION:
		break;
	case SNIC_EQE_CQ_ERROR:
	case SNIC_EQE_SQ_ERROR:
	case SNIC_EQE_RQ_ERROR:
		priv->queue_errors++;
		netdev_err(priv->netdev,
			   "channel %d: queue error event %u on object %u (error %u), rebuilding\n",
			   ch->idx, eqe->type, le32_to_cpu(eqe->obj),
			   le32_to_cpu(eqe->data));
		schedule_work(&priv->reset_work);
		break;
	default:
		netdev_warn_once(priv->netdev, "unexpected event type %u\n",
				 eqe->type);
		break;
	}
}

static int snic_napi_poll(struct napi_struct *napi, int budget)
{
	struct snic_channel *ch = container_of(napi, struct snic_channel, napi);
	struct snic_dev *sd = ch->priv->sd;
	struct snic_eqe *eqe;
	bool tx_more, filled;
	int work = 0;

	while ((eqe = snic_eq_next(&ch->eq))) {
		snic_ch_event(ch, eqe);
		ch->eq.cons++;
	}
	tx_more = snic_tx_poll(ch, budget);
	if (!budget)
		return 0;
	if (ch->xsk_pool && snic_xsk_tx(ch, budget))
		tx_more = true;
	work = snic_rx_poll(ch, budget);
	filled = snic_rx_refill(ch, true);
	/*
	 * An empty RQ raises no completion: keep polling until refilled,
	 * unless an AF_XDP application will wake us when it fills.
	 */
	if (!snic_xsk_rx_sleep(ch, filled) && !filled &&
	    ch->rq.prod == ch->rq.cons)
		return budget;
	if (tx_more || work >= budget)
		return budget;

	if (napi_complete_done(napi, work)) {
		snic_cq_arm(sd, &ch->txcq);
		snic_cq_arm(sd, &ch->rxcq);
		snic_eq_arm(sd, &ch->eq);
		/* An EQE written before the EQ arm raised no interrupt. */
		if (snic_eq_next(&ch->eq))
			napi_schedule(napi);
	}
	return work;
}

static irqreturn_t snic_ch_irq(int irq, void *data)
{
	struct snic_channel *ch = data;

	napi_schedule_irqoff(&ch->napi);
	return IRQ_HANDLED;
}

/* ---- channels ---- */

static void snic_channel_close(struct snic_priv *priv, struct snic_channel *ch)
{
	struct snic_dev *sd = priv->sd;

	if (ch->napi_enabled)
		napi_disable(&ch->napi);
	ch->napi_enabled = false;
	/* Users before what they use: SQ/RQ, then CQs, then the EQ. */
	snic_wq_destroy(sd, &ch->sq, SNIC_AQ_DESTROY_SQ);
	snic_wq_destroy(sd, &ch->rq, SNIC_AQ_DESTROY_RQ);
	snic_cq_destroy(sd, &ch->txcq);
	snic_cq_destroy(sd, &ch->rxcq);
	snic_eq_destroy(sd, &ch->eq);
	snic_xdp_rxq_unreg(ch);
	if (ch->irq_requested) {
		irq_update_affinity_hint(ch->irq, NULL);
		free_irq(ch->irq, ch);
		ch->irq_requested = false;
	}
	if (ch->napi_added)
		netif_napi_del(&ch->napi);
	ch->napi_added = false;

	if (ch->tx_buf)
		snic_tx_drain(ch);
	if (ch->rx_buf)
		snic_rx_drain(ch);
	kvfree(ch->tx_buf);
	kvfree(ch->rx_buf);
	ch->tx_buf = NULL;
	ch->rx_buf = NULL;
	snic_db_page_free(sd, ch->db_page);
	ch->db_page = -1;
}

/* ethtool -C's moderation on one channel's completion queues. */
static int snic_ch_coal_apply(struct snic_priv *priv, struct snic_channel *ch)
{
	struct snic_dev *sd = priv->sd;
	int ret;

	ret = snic_cmd_modify_cq(sd, ch->rxcq.cqn, priv->rx_coal.frames,
				 priv->rx_coal.usecs);
	if (!ret)
		ret = snic_cmd_modify_cq(sd, ch->txcq.cqn,
					 priv->tx_coal.frames,
					 priv->tx_coal.usecs);
	return ret;
}

/* ethtool -C on a running port: every open channel.  Under RTNL. */
int snic_coal_apply(struct snic_priv *priv)
{
	int i, ret;

	ASSERT_RTNL();
	for (i = 0; priv->up && i < priv->nch_open; i++) {
		ret = snic_ch_coal_apply(priv, &priv->ch[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static int snic_channel_open(struct snic_priv *priv, struct snic_channel *ch)
{
	struct net_device *nd = priv->netdev;
	struct snic_dev *sd = priv->sd;
	int vector = ch->idx + 1, cpu, ret;

	ch->priv = priv;
	ch->stats = &priv->stats[ch->idx];
	ch->txq = netdev_get_tx_queue(nd, ch->idx);
	ch->xsk_pool = priv->xsk_pool[ch->idx];
	if (ch->xsk_pool) {
		ret = snic_xsk_pool_check(priv, ch->xsk_pool, nd->mtu);
		if (ret)
			return ret;
	}
	ch->rx_buf_len = ALIGN(nd->mtu + SNIC_FRAME_OVERHEAD, 64);
	ch->rx_headroom = snic_rx_headroom(priv);
	ch->rx_frag_size = snic_rx_frag_size(ch->rx_headroom, nd->mtu);
	ch->db_page = snic_db_page_alloc(sd);
	if (ch->db_page < 0)
		return ch->db_page;
	ch->tx_buf_n = 1u << priv->sq_log;
	ch->rx_buf_n = 1u << priv->rq_log;
	ch->tx_buf = kvcalloc(ch->tx_buf_n, sizeof(*ch->tx_buf), GFP_KERNEL);
	ch->rx_buf = kvcalloc(ch->rx_buf_n, sizeof(*ch->rx_buf), GFP_KERNEL);
	if (!ch->tx_buf || !ch->rx_buf)
		return -ENOMEM;

	netif_napi_add(nd, &ch->napi, snic_napi_poll);
	ch->napi_added = true;
	ret = snic_xdp_rxq_reg(ch);
	if (ret)
		return ret;
	ch->irq = pci_irq_vector(sd->pdev, vector);
	snprintf(ch->irq_name, sizeof(ch->irq_name), "%s-ch%d", nd->name,
		 ch->idx);
	ret = request_irq(ch->irq, snic_ch_irq, 0, ch->irq_name, ch);
	if (ret)
		return ret;
	ch->irq_requested = true;
	cpu = cpumask_local_spread(ch->idx, dev_to_node(&sd->pdev->dev));
	irq_set_affinity_and_hint(ch->irq, cpumask_of(cpu));
	netif_set_xps_queue(nd, cpumask_of(cpu), ch->idx);

	ret = snic_eq_create(sd, &ch->eq, SNIC_EQ_LOG, vector, ch->db_page);
	if (ret)
		return ret;
	/* A CQ as deep as its queue never overflows: one CQE per entry. */
	ret = snic_cq_create(sd, &ch->txcq, priv->sq_log, 0, ch->eq.eqn,
			     ch->db_page);
	if (ret)
		return ret;
	/* rx_cqe_compress: mini-CQE lines, no RSS hash (snic_en_rx.c) */
	ret = snic_cq_create(sd, &ch->rxcq, priv->rq_log,
			     (priv->pflags & SNIC_PFLAG_RX_CQE_COMPRESS) ?
			     SNIC_CQ_F_MINI | SNIC_CQ_F_NO_HASH : 0,
			     ch->eq.eqn, ch->db_page);
	if (ret)
		return ret;
	ret = snic_sq_create(sd, &ch->sq, priv->sq_log, ch->txcq.cqn,
			     ch->db_page);
	if (ret)
		return ret;
	ret = snic_rq_create(sd, &ch->rq, priv->rq_log, ch->rxcq.cqn,
			     ch->db_page);
	if (ret)
		return ret;
	snic_rx_refill(ch, false);
	/* An XSK fill ring may still be empty: NAPI takes frames later. */
	if (ch->rq.prod == ch->rq.cons && !ch->xsk_pool)
		return -ENOMEM;
	if (priv->tx_rate[ch->idx]) {
		ret = snic_cmd_sq_rate(sd, ch->sq.qn, priv->tx_rate[ch->idx]);
		if (ret)
			netdev_warn(nd, "cannot restore tx_maxrate of queue %d: %d\n",
				    ch->idx, ret);
	}
	ret = snic_ch_coal_apply(priv, ch);
	if (ret)
		return ret;
	napi_enable(&ch->napi);
	ch->napi_enabled = true;
	snic_cq_arm(sd, &ch->txcq);
	snic_cq_arm(sd, &ch->rxcq);
	snic_eq_arm(sd, &ch->eq);
	/* A first NAPI poll refills from the fill ring and sends. */
	if (ch->xsk_pool) {
		local_bh_disable();
		napi_schedule(&ch->napi);
		local_bh_enable();
	}
	return 0;
}

static void snic_channels_close(struct snic_priv *priv)
{
	struct snic_ntuple *r;
	int i;

	list_for_each_entry(r, &priv->ntuple, node)
		snic_ntuple_uninstall(priv, r);
	snic_flower_uninstall_all(priv);
	snic_rss_close(priv);
	WRITE_ONCE(priv->up, false);
	/* ndo_xdp_xmit callers that saw up are done with the channels. */
	synchronize_net();
	for (i = 0; i < priv->nch_open; i++)
		snic_channel_close(priv, &priv->ch[i]);
	kfree(priv->ch);
	priv->ch = NULL;
	priv->nch_open = 0;
}

static int snic_channels_open(struct snic_priv *priv)
{
	struct net_device *nd = priv->netdev;
	struct snic_ntuple *r;
	int i, ret;

	ASSERT_RTNL();
	priv->ch = kcalloc(priv->num_ch, sizeof(*priv->ch), GFP_KERNEL);
	if (!priv->ch)
		return -ENOMEM;
	for (i = 0; i < priv->num_ch; i++) {
		priv->ch[i].idx = i;
		priv->ch[i].db_page = -1;
		/* Counted first so that close undoes a half-made channel. */
		priv->nch_open = i + 1;
		ret = snic_channel_open(priv, &priv->ch[i]);
		if (ret) {
			netdev_err(nd, "cannot set up channel %d: %d\n", i, ret);
			goto err;
		}
	}
	priv->up = true;
	ret = snic_rss_open(priv);
	if (ret) {
		netdev_err(nd, "cannot set up RSS and its rule: %d\n", ret);
		goto err;
	}
	list_for_each_entry(r, &priv->ntuple, node) {
		ret = snic_ntuple_install(priv, r);
		if (ret)
			netdev_warn(nd, "ntuple rule %u not restored: %d\n",
				    r->fs.location, ret);
	}
	snic_flower_install_all(priv);
	return 0;
err:
	snic_channels_close(priv);
	return ret;
}

/* ---- net_device operations ---- */

static void snic_update_link(struct snic_priv *priv)
{
	struct snic_port_info info;

	if (snic_port_query(priv, &info)) {
		netif_carrier_off(priv->netdev);
		return;
	}
	priv->speed = le32_to_cpu(info.speed_mbps);
	if (le32_to_cpu(info.link_up))
		netif_carrier_on(priv->netdev);
	else
		netif_carrier_off(priv->netdev);
}

static int snic_open(struct net_device *nd)
{
	struct snic_priv *priv = netdev_priv(nd);
	int ret;

	ret = snic_channels_open(priv);
	if (ret)
		return ret;
	ret = snic_port_set_up(priv, true);
	if (ret) {
		mutex_lock(&priv->port_lock);
		priv->port_up = false;
		mutex_unlock(&priv->port_lock);
		snic_channels_close(priv);
		return ret;
	}
	snic_update_link(priv);
	netif_tx_start_all_queues(nd);
	return 0;
}

static int snic_stop(struct net_device *nd)
{
	struct snic_priv *priv = netdev_priv(nd);

	snic_port_set_up(priv, false);
	netif_carrier_off(nd);
	netif_tx_disable(nd);
	snic_channels_close(priv);
	return 0;
}

static void snic_set_num_ch(struct snic_priv *priv, int num_ch)
{
	struct net_device *nd = priv->netdev;
	int i;

	netif_set_real_num_tx_queues(nd, num_ch);
	netif_set_real_num_rx_queues(nd, num_ch);
	priv->num_ch = num_ch;
	if (!netif_is_rxfh_configured(nd))
		for (i = 0; i < SNIC_RSS_TABLE_SIZE; i++)
			priv->indir[i] = ethtool_rxfh_indir_default(i, num_ch);
}

/*
 * Rebuild the channels with a new count and/or MTU (RX buffers are sized
 * for the MTU).  On failure the old settings are tried again.
 */
int snic_reconfigure(struct snic_priv *priv, int num_ch, unsigned int mtu)
{
	struct net_device *nd = priv->netdev;
	int old_ch = priv->num_ch, ret = 0;
	unsigned int old_mtu = nd->mtu;
	bool running = netif_running(nd);

	ASSERT_RTNL();
	if (running) {
		netif_tx_disable(nd);
		snic_channels_close(priv);
	}
	if (num_ch != old_ch)
		snic_set_num_ch(priv, num_ch);
	/* The port takes the new MTU while no queue exists. */
	if (mtu != old_mtu) {
		WRITE_ONCE(nd->mtu, mtu);
		snic_port_apply(priv);
	}
	if (running) {
		ret = snic_channels_open(priv);
		if (ret && (num_ch != old_ch || mtu != old_mtu)) {
			netdev_err(nd, "reconfiguration failed (%d), restoring\n",
				   ret);
			if (num_ch != old_ch)
				snic_set_num_ch(priv, old_ch);
			if (mtu != old_mtu) {
				WRITE_ONCE(nd->mtu, old_mtu);
				snic_port_apply(priv);
			}
			if (!snic_channels_open(priv))
				netif_tx_start_all_queues(nd);
		} else if (!ret) {
			netif_tx_start_all_queues(nd);
		}
	}
	return ret;
}

static void snic_reset_work(struct work_struct *work)
{
	struct snic_priv *priv = container_of(work, struct snic_priv,
					      reset_work);
	struct net_device *nd = priv->netdev;

	rtnl_lock();
	if (netif_running(nd))
		snic_reconfigure(priv, priv->num_ch, nd->mtu);
	rtnl_unlock();
}

static int snic_change_mtu(struct net_device *nd, int mtu)
{
	struct snic_priv *priv = netdev_priv(nd);

	if (priv->xdp_prog && !snic_xdp_mtu_ok(mtu)) {
		netdev_warn(nd, "MTU %d refused: too large for the XDP program (one page per frame)\n",
			    mtu);
		return -EINVAL;
	}
	if (!snic_xsk_mtu_ok(priv, mtu))
		return -EINVAL;
	return snic_reconfigure(priv, priv->num_ch, mtu);
}

static void snic_set_rx_mode(struct net_device *nd)
{
	struct snic_priv *priv = netdev_priv(nd);

	schedule_work(&priv->rx_mode_work);
}

static int snic_set_mac_address(struct net_device *nd, void *addr)
{
	int ret;

	ret = eth_prepare_mac_addr_change(nd, addr);
	if (ret)
		return ret;
	eth_commit_mac_addr_change(nd, addr);
	return snic_port_apply(netdev_priv(nd));
}

static int snic_set_features(struct net_device *nd, netdev_features_t features)
{
	struct snic_priv *priv = netdev_priv(nd);

	netdev_features_t vlan_rx = NETIF_F_HW_VLAN_CTAG_RX |
				    NETIF_F_HW_VLAN_CTAG_FILTER;
	netdev_features_t old = nd->features;
	int ret;

	if ((nd->features & NETIF_F_HW_TC) && !(features & NETIF_F_HW_TC) &&
	    !list_empty(&priv->flower)) {
		netdev_err(nd, "hw-tc-offload stays on while tc flower rules exist\n");
		return -EBUSY;
	}
	/* RXCSUM/RXHASH are read per packet; ntuple off drops the rules. */
	if ((nd->features & NETIF_F_NTUPLE) && !(features & NETIF_F_NTUPLE))
		snic_ntuple_flush(priv);
	/* VLAN stripping and filtering are port flags (SET_PORT). */
	if ((nd->features ^ features) & vlan_rx) {
		nd->features = features;
		ret = snic_port_apply(priv);
		if (ret) {
			nd->features = old;
			snic_port_apply(priv);
			return ret;
		}
	}
	return 0;
}

static int snic_xdp_setup(struct snic_priv *priv, struct bpf_prog *prog,
			  struct netlink_ext_ack *extack)
{
	struct net_device *nd = priv->netdev;
	struct bpf_prog *old = priv->xdp_prog;
	int ret;

	ASSERT_RTNL();
	if (prog && prog->aux->xdp_has_frags) {
		NL_SET_ERR_MSG_MOD(extack, "multi-buffer XDP is not supported");
		return -EOPNOTSUPP;
	}
	if (prog && !snic_xdp_mtu_ok(nd->mtu)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "MTU too large for XDP: a frame must fit in a page");
		netdev_warn(nd, "XDP refused: MTU %u over the one-page limit\n",
			    nd->mtu);
		return -EINVAL;
	}
	WRITE_ONCE(priv->xdp_prog, prog);
	/* A program coming or going changes the RX headroom: rebuild. */
	if (!!old != !!prog && netif_running(nd)) {
		ret = snic_reconfigure(priv, priv->num_ch, nd->mtu);
		if (ret) {
			WRITE_ONCE(priv->xdp_prog, old);
			NL_SET_ERR_MSG_MOD(extack, "cannot rebuild the channels");
			snic_reconfigure(priv, priv->num_ch, nd->mtu);
			return ret;
		}
	}
	if (old)
		bpf_prog_put(old);
	return 0;
}

/*
 * XDP_SETUP_XSK_POOL: @pool (NULL: none) for zero-copy AF_XDP on queue
 * @qid.  A running port rebuilds its channels, so channel @qid's RQ is
 * quiesced, drained (UMEM frames back to the pool) and refilled from the
 * new source.  Taking a pool away cannot fail (the core does not expect
 * it to): if the rebuild fails the port stays down, logged.
 */
static int snic_xsk_setup(struct snic_priv *priv, struct xsk_buff_pool *pool,
			  u16 qid)
{
	struct net_device *nd = priv->netdev;
	struct xsk_buff_pool *old;
	int ret;

	ASSERT_RTNL();
	if (qid >= priv->max_ch)
		return -EINVAL;
	old = priv->xsk_pool[qid];
	if (pool) {
		if (old)
			return -EBUSY;
		ret = snic_xsk_pool_check(priv, pool, nd->mtu);
		if (ret)
			return ret;
		ret = snic_xsk_map(priv, pool);
		if (ret)
			return ret;
	} else if (!old) {
		return 0;
	}
	priv->xsk_pool[qid] = pool;
	ret = netif_running(nd) ?
	      snic_reconfigure(priv, priv->num_ch, nd->mtu) : 0;
	if (ret && pool) {
		priv->xsk_pool[qid] = NULL;
		snic_reconfigure(priv, priv->num_ch, nd->mtu);
		snic_xsk_unmap(pool);
		return ret;
	}
	if (ret)
		netdev_err(nd, "queue %u: channels not rebuilt after AF_XDP unbind (%d), port down\n",
			   qid, ret);
	if (old)
		snic_xsk_unmap(old);
	netdev_info(nd, "queue %u: AF_XDP zero-copy %s\n", qid,
		    pool ? "on" : "off");
	return 0;
}

static int snic_bpf(struct net_device *nd, struct netdev_bpf *bpf)
{
	struct snic_priv *priv = netdev_priv(nd);

	switch (bpf->command) {
	case XDP_SETUP_PROG:
		return snic_xdp_setup(priv, bpf->prog, bpf->extack);
	case XDP_SETUP_XSK_POOL:
		return snic_xsk_setup(priv, bpf->xsk.pool, bpf->xsk.queue_id);
	default:
		return -EINVAL;
	}
}

static int snic_set_tx_maxrate(struct net_device *nd, int qi, u32 maxrate)
{
	return snic_tx_rate_set(netdev_priv(nd), qi, (u64)maxrate * 1000000);
}

static void snic_tx_timeout(struct net_device *nd, unsigned int qi)
{
	struct snic_priv *priv = netdev_priv(nd);

	if (qi < priv->nch_open)
		netdev_err(nd, "TX queue %u timed out: prod %u cons %u, rebuilding\n",
			   qi, priv->ch[qi].sq.prod,
			   READ_ONCE(priv->ch[qi].sq.cons));
	schedule_work(&priv->reset_work);
}

static void snic_get_stats64(struct net_device *nd,
			     struct rtnl_link_stats64 *s)
{
	struct snic_priv *priv = netdev_priv(nd);
	unsigned int start;
	int i;

	for (i = 0; i < priv->max_ch; i++) {
		struct snic_ch_stats *cs = &priv->stats[i];
		u64 p, b, d, e;

		do {
			start = u64_stats_fetch_begin(&cs->tx.syncp);
			p = cs->tx.packets;
			b = cs->tx.bytes;
			d = cs->tx.dropped;
		} while (u64_stats_fetch_retry(&cs->tx.syncp, start));
		s->tx_packets += p;
		s->tx_bytes += b;
		s->tx_dropped += d;
		do {
			start = u64_stats_fetch_begin(&cs->txc.syncp);
			e = cs->txc.errors;
		} while (u64_stats_fetch_retry(&cs->txc.syncp, start));
		s->tx_errors += e;
		do {
			start = u64_stats_fetch_begin(&cs->rx.syncp);
			p = cs->rx.packets;
			b = cs->rx.bytes;
			e = cs->rx.errors;
			d = cs->rx.alloc_fail;
		} while (u64_stats_fetch_retry(&cs->rx.syncp, start));
		s->rx_packets += p;
		s->rx_bytes += b;
		s->rx_errors += e;
		s->rx_dropped += d;
	}
}

/*
 * SIOCSHWTSTAMP / SIOCGHWTSTAMP: hardware time stamps from the CQEs'
 * completion times, on every received packet (HWTSTAMP_FILTER_ALL) or
 * none, on transmitted packets that ask for one (HWTSTAMP_TX_ON) or none.
 */
static int snic_eth_ioctl(struct net_device *nd, struct ifreq *ifr, int cmd)
{
	struct snic_priv *priv = netdev_priv(nd);
	struct hwtstamp_config cfg;

	switch (cmd) {
	case SIOCGHWTSTAMP:
		cfg = priv->tstamp;
		break;
	case SIOCSHWTSTAMP:
		if (copy_from_user(&cfg, ifr->ifr_data, sizeof(cfg)))
			return -EFAULT;
		if (cfg.flags)
			return -EINVAL;
		if (cfg.tx_type != HWTSTAMP_TX_OFF &&
		    cfg.tx_type != HWTSTAMP_TX_ON)
			return -ERANGE;
		if (cfg.rx_filter != HWTSTAMP_FILTER_NONE)
			cfg.rx_filter = HWTSTAMP_FILTER_ALL;
		/* mini-CQE lines carry no time stamp */
		if (cfg.rx_filter != HWTSTAMP_FILTER_NONE &&
		    (priv->pflags & SNIC_PFLAG_RX_CQE_COMPRESS)) {
			netdev_info(nd, "hardware RX time stamps refused while rx_cqe_compress is on\n");
			return -ERANGE;
		}
		WRITE_ONCE(priv->tstamp.rx_filter, cfg.rx_filter);
		WRITE_ONCE(priv->tstamp.tx_type, cfg.tx_type);
		break;
	default:
		return -EOPNOTSUPP;
	}
	return copy_to_user(ifr->ifr_data, &cfg, sizeof(cfg)) ? -EFAULT : 0;
}

static const struct net_device_ops snic_netdev_ops = {
	.ndo_open		= snic_open,
	.ndo_stop		= snic_stop,
	.ndo_start_xmit		= snic_start_xmit,
	.ndo_get_stats64	= snic_get_stats64,
	.ndo_set_rx_mode	= snic_set_rx_mode,
	.ndo_set_mac_address	= snic_set_mac_address,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_change_mtu		= snic_change_mtu,
	.ndo_set_features	= snic_set_features,
	.ndo_vlan_rx_add_vid	= snic_vlan_rx_add_vid,
	.ndo_vlan_rx_kill_vid	= snic_vlan_rx_kill_vid,
	.ndo_set_tx_maxrate	= snic_set_tx_maxrate,
	.ndo_setup_tc		= snic_setup_tc,
	.ndo_tx_timeout		= snic_tx_timeout,
	.ndo_bpf		= snic_bpf,
	.ndo_xdp_xmit		= snic_xdp_xmit,
	.ndo_xsk_wakeup		= snic_xsk_wakeup,
	.ndo_eth_ioctl		= snic_eth_ioctl,
};

/* ---- probe / remove ---- */

static netdev_features_t snic_features(struct snic_dev *sd)
{
	netdev_features_t f = NETIF_F_SG | NETIF_F_HIGHDMA;

	if (snic_has(sd, SNIC_CAP_CSUM)) {
		f |= NETIF_F_IP_CSUM | NETIF_F_RXCSUM;
		if (snic_has(sd, SNIC_CAP_TSO))
			f |= NETIF_F_TSO;
	}
	if (snic_has(sd, SNIC_CAP_RSS))
		f |= NETIF_F_RXHASH;
	if (snic_has(sd, SNIC_CAP_STEER))
		f |= NETIF_F_NTUPLE | NETIF_F_HW_TC;
	if (snic_has(sd, SNIC_CAP_VLAN))
		f |= NETIF_F_HW_VLAN_CTAG_TX | NETIF_F_HW_VLAN_CTAG_RX |
		     NETIF_F_HW_VLAN_CTAG_FILTER;
	return f;
}

static int snic_eth_probe(struct snic_dev *sd)
{
	struct device *dev = &sd->pdev->dev;
	int max_ch = min(sd->num_vectors - 1 - !!sd->rdma_vector,
			 SNIC_MAX_CHANNELS);
	struct snic_priv *priv;
	struct net_device *nd;
	u16 max_mtu;
	int i, ret;

	if (max_ch < 1) {
		dev_warn(dev, "no MSI-X vector left for Ethernet channels\n");
		return 0;
	}
	nd = alloc_etherdev_mqs(sizeof(*priv), max_ch, max_ch);
	if (!nd)
		return -ENOMEM;
	SET_NETDEV_DEV(nd, dev);
	priv = netdev_priv(nd);
	priv->sd = sd;
	priv->netdev = nd;
	priv->max_ch = max_ch;
	priv->num_ch = min_t(int, num_online_cpus(), max_ch);
	priv->sq_log = SNIC_SQ_LOG;
	priv->rq_log = SNIC_RQ_LOG;
	priv->rss_l4 = true;
	INIT_LIST_HEAD(&priv->ntuple);
	INIT_LIST_HEAD(&priv->flower);
	mutex_init(&priv->port_lock);
	INIT_WORK(&priv->rx_mode_work, snic_rx_mode_work);
	INIT_WORK(&priv->reset_work, snic_reset_work);
	priv->stats = kcalloc(max_ch, sizeof(*priv->stats), GFP_KERNEL);
	priv->tx_rate = kcalloc(max_ch, sizeof(*priv->tx_rate), GFP_KERNEL);
	priv->xsk_pool = kcalloc(max_ch, sizeof(*priv->xsk_pool), GFP_KERNEL);
	if (!priv->stats || !priv->tx_rate || !priv->xsk_pool) {
		ret = -ENOMEM;
		goto err_free;
	}
	for (i = 0; i < max_ch; i++) {
		u64_stats_init(&priv->stats[i].tx.syncp);
		u64_stats_init(&priv->stats[i].txc.syncp);
		u64_stats_init(&priv->stats[i].rx.syncp);
	}
	netdev_rss_key_fill(priv->rss_key, sizeof(priv->rss_key));
	for (i = 0; i < SNIC_RSS_TABLE_SIZE; i++)
		priv->indir[i] = ethtool_rxfh_indir_default(i, priv->num_ch);

	nd->netdev_ops = &snic_netdev_ops;
	nd->ethtool_ops = &snic_ethtool_ops;
	nd->watchdog_timeo = 5 * HZ;
	nd->min_mtu = SNIC_MIN_MTU;
	max_mtu = le16_to_cpu(sd->id.max_mtu);
	nd->max_mtu = max_mtu >= SNIC_MIN_MTU ? min_t(u16, max_mtu, SNIC_MAX_MTU) :
						SNIC_MAX_MTU;
	nd->hw_features = snic_features(sd);
	nd->features = nd->hw_features;
	/* The device inserts the tag after checksums and TSO. */
	if (nd->features & NETIF_F_HW_VLAN_CTAG_TX)
		nd->vlan_features = nd->features & (NETIF_F_SG | NETIF_F_HIGHDMA |
						    NETIF_F_IP_CSUM |
						    NETIF_F_TSO);
	nd->priv_flags |= IFF_UNICAST_FLT | IFF_LIVE_ADDR_CHANGE;
	if (is_valid_ether_addr(sd->id.mac))
		eth_hw_addr_set(nd, sd->id.mac);
	else
		eth_hw_addr_random(nd);
	netif_set_real_num_tx_queues(nd, priv->num_ch);
	netif_set_real_num_rx_queues(nd, priv->num_ch);
	netif_carrier_off(nd);

	sd->netdev = nd;
	ret = snic_async_eq_init(sd);
	if (ret) {
		dev_err(dev, "cannot create the async EQ: %d\n", ret);
		goto err_free;
	}
	ret = register_netdev(nd);
	if (ret)
		goto err_eq;
	/*
	 * Port down, with the link-event EQ attached.  After registration:
	 * SET_PORT reads the address lists under netif_addr_lock_bh(), whose
	 * lock register_netdevice() initialises (an open racing with us
	 * applies the same state under port_lock).
	 */
	ret = snic_port_apply(priv);
	if (ret) {
		unregister_netdev(nd);
		goto err_eq;
	}
	netdev_info(nd, "%d of %d channels, MAC %pM, features %pNF\n",
		    priv->num_ch, max_ch, nd->dev_addr, &nd->features);
	return 0;

err_eq:
	snic_async_eq_cleanup(sd);
err_free:
	sd->netdev = NULL;
	kfree(priv->stats);
	kfree(priv->tx_rate);
	kfree(priv->xsk_pool);
	free_netdev(nd);
	return ret;
}

static void snic_eth_remove(struct snic_dev *sd)
{
	struct net_device *nd = sd->netdev;
	struct snic_priv *priv;

	if (!nd)
		return;
	priv = netdev_priv(nd);
	unregister_netdev(nd);
	cancel_work_sync(&priv->rx_mode_work);
	cancel_work_sync(&priv->reset_work);
	snic_async_eq_cleanup(sd);
	snic_ntuple_flush(priv);
	snic_flower_flush(priv);
	snic_xdp_release(priv);
	sd->netdev = NULL;
	kfree(priv->stats);
	kfree(priv->tx_rate);
	/* unregister_netdev() unbound the sockets: no pool is left */
	kfree(priv->xsk_pool);
	free_netdev(nd);
}

static int snic_eth_adev_probe(struct auxiliary_device *adev,
			       const struct auxiliary_device_id *id)
{
	struct snic_dev *sd = snic_adev_sd(adev);
	int ret;

	ret = snic_eth_probe(sd);
	if (ret)
		return ret;
	snic_adevs_add(sd);
	return 0;
}

static void snic_eth_adev_remove(struct auxiliary_device *adev)
{
	struct snic_dev *sd = snic_adev_sd(adev);

	snic_adevs_del(sd);
	snic_eth_remove(sd);
}

static const struct auxiliary_device_id snic_eth_adev_ids[] = {
	{ .name = KBUILD_MODNAME ".eth" },
	{ }
};
MODULE_DEVICE_TABLE(auxiliary, snic_eth_adev_ids);

struct auxiliary_driver snic_eth_driver = {
	.name = "eth",
	.probe = snic_eth_adev_probe,
	.remove = snic_eth_adev_remove,
	.id_table = snic_eth_adev_ids,
};
