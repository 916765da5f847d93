// SPDX-License-Identifier: GPL-2.0
/*
 * snic ethtool: driver info, link, statistics (driver per-queue counters
 * and the device's port, PCIe and per-queue counters from QUERY_STATS),
 * channels, RSS indirection table and key.  ntuple steering rules and
 * the RSS hash fields (get/set_rxnfc): snic_en_fs_ethtool.c.
 */
#include <linux/etherdevice.h>
#include <linux/slab.h>
#include "snic.h"
#include "snic_en.h"

/* ---- statistics ---- */

struct snic_stat_desc {
	const char *name;
	size_t off;
};

#define SNIC_TX_STAT(f)	{ #f, offsetof(struct snic_txq_stats, f) }
#define SNIC_TXC_STAT(n, f) { n, offsetof(struct snic_txc_stats, f) }
#define SNIC_RX_STAT(f)	{ #f, offsetof(struct snic_rxq_stats, f) }

static const struct snic_stat_desc snic_tx_stats[] = {
	SNIC_TX_STAT(packets),
	SNIC_TX_STAT(bytes),
	SNIC_TX_STAT(tso_packets),
	SNIC_TX_STAT(tso_segs),
	SNIC_TX_STAT(tso_bytes),
	SNIC_TX_STAT(csum_offload),
	SNIC_TX_STAT(csum_none),
	SNIC_TX_STAT(linearize),
	SNIC_TX_STAT(stopped),
	SNIC_TX_STAT(dropped),
	SNIC_TX_STAT(xdp_xmit),
	SNIC_TX_STAT(xdp_xmit_err),
	SNIC_TX_STAT(xdp_xmit_full),
	SNIC_TX_STAT(xsk_xmit),
	SNIC_TX_STAT(xsk_bytes),
	SNIC_TX_STAT(xsk_err),
};

static const struct snic_stat_desc snic_txc_stats[] = {
	SNIC_TXC_STAT("cqes", cqes),
	SNIC_TXC_STAT("cqe_errors", errors),
	SNIC_TXC_STAT("wake", wake),
};

static const struct snic_stat_desc snic_rx_stats[] = {
	SNIC_RX_STAT(packets),
	SNIC_RX_STAT(bytes),
	SNIC_RX_STAT(csum_ok),
	SNIC_RX_STAT(csum_none),
	SNIC_RX_STAT(csum_bad),
	SNIC_RX_STAT(hash),
	SNIC_RX_STAT(errors),
	SNIC_RX_STAT(alloc_fail),
	SNIC_RX_STAT(xdp_pass),
	SNIC_RX_STAT(xdp_drop),
	SNIC_RX_STAT(xdp_tx),
	SNIC_RX_STAT(xdp_redirect),
	SNIC_RX_STAT(xdp_aborted),
	SNIC_RX_STAT(xdp_tx_err),
	SNIC_RX_STAT(xdp_redirect_err),
	SNIC_RX_STAT(mini_cqes),
	SNIC_RX_STAT(mini_lines),
	SNIC_RX_STAT(xsk_packets),
	SNIC_RX_STAT(xsk_bytes),
	SNIC_RX_STAT(xsk_pass_copy),
	SNIC_RX_STAT(xsk_fill_empty),
	SNIC_RX_STAT(xsk_refused),
};

/* struct snic_port_stats: names and order from SNIC_PORT_STATS. */
static const char * const snic_port_stat_names[] = {
	SNIC_PORT_STATS(SNIC_STAT_NAME)
};

/* struct snic_pcie_stats: names and order from D2D_PCIE_STATS. */
static const char * const snic_pcie_stat_names[] = {
	D2D_PCIE_STATS(SNIC_STAT_NAME)
};

/* struct snic_queue_stats before its pcie member: SNIC_QUEUE_STATS. */
static const char * const snic_queue_stat_names[] = {
	SNIC_QUEUE_STATS(SNIC_STAT_NAME)
};

#define SNIC_N_PORT	ARRAY_SIZE(snic_port_stat_names)
#define SNIC_N_PCIE	ARRAY_SIZE(snic_pcie_stat_names)
#define SNIC_N_QUEUE	(ARRAY_SIZE(snic_queue_stat_names) + SNIC_N_PCIE)
#define SNIC_N_PER_CH	(ARRAY_SIZE(snic_tx_stats) + \
			 ARRAY_SIZE(snic_txc_stats) + \
			 ARRAY_SIZE(snic_rx_stats) + 2 * SNIC_N_QUEUE)

/* ethtool --show-priv-flags names, bit i = SNIC_PFLAG_* bit i */
static const char snic_priv_flag_names[][ETH_GSTRING_LEN] = {
	"rx_cqe_compress",
};

static int snic_get_sset_count(struct net_device *nd, int sset)
{
	struct snic_priv *priv = netdev_priv(nd);

	/* every flag bit has a name */
	BUILD_BUG_ON(SNIC_PFLAG_ALL >> ARRAY_SIZE(snic_priv_flag_names));
	if (sset == ETH_SS_PRIV_FLAGS)
		return ARRAY_SIZE(snic_priv_flag_names);
	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return SNIC_N_PORT + SNIC_N_PCIE + priv->num_ch * SNIC_N_PER_CH;
}

static void snic_hw_queue_strings(u8 **p, const char *dir, int i)
{
	int j;

	for (j = 0; j < ARRAY_SIZE(snic_queue_stat_names); j++)
		ethtool_sprintf(p, "%s%d_hw_%s", dir, i,
				snic_queue_stat_names[j]);
	for (j = 0; j < SNIC_N_PCIE; j++)
		ethtool_sprintf(p, "%s%d_pcie_%s", dir, i,
				snic_pcie_stat_names[j]);
}

static void snic_get_strings(struct net_device *nd, u32 sset, u8 *p)
{
	struct snic_priv *priv = netdev_priv(nd);
	int i, j;

	if (sset == ETH_SS_PRIV_FLAGS)
		memcpy(p, snic_priv_flag_names, sizeof(snic_priv_flag_names));
	if (sset != ETH_SS_STATS)
		return;
	for (j = 0; j < SNIC_N_PORT; j++)
		ethtool_sprintf(&p, "port_%s", snic_port_stat_names[j]);
	for (j = 0; j < SNIC_N_PCIE; j++)
		ethtool_sprintf(&p, "pcie_%s", snic_pcie_stat_names[j]);
	for (i = 0; i < priv->num_ch; i++) {
		for (j = 0; j < ARRAY_SIZE(snic_tx_stats); j++)
			ethtool_sprintf(&p, "tx%d_%s", i, snic_tx_stats[j].name);
		for (j = 0; j < ARRAY_SIZE(snic_txc_stats); j++)
			ethtool_sprintf(&p, "tx%d_%s", i,
					snic_txc_stats[j].name);
		for (j = 0; j < ARRAY_SIZE(snic_rx_stats); j++)
			ethtool_sprintf(&p, "rx%d_%s", i, snic_rx_stats[j].name);
		snic_hw_queue_strings(&p, "tx", i);
		snic_hw_queue_strings(&p, "rx", i);
	}
}

/* Copy @n little-endian counters; zeros if the device did not answer. */
static u64 *snic_put_le64(u64 *data, const void *buf, int n, bool ok)
{
	const __le64 *v = buf;
	int i;

	for (i = 0; i < n; i++)
		*data++ = ok ? le64_to_cpu(v[i]) : 0;
	return data;
}

static u64 *snic_put_sw(u64 *data, const struct snic_stat_desc *d, int n,
			const void *base, struct u64_stats_sync *syncp)
{
	unsigned int start;
	int i;

	do {
		start = u64_stats_fetch_begin(syncp);
		for (i = 0; i < n; i++)
			data[i] = *(const u64 *)(base + d[i].off);
	} while (u64_stats_fetch_retry(syncp, start));
	return data + n;
}

static u64 *snic_put_hw_queue(struct snic_priv *priv, u64 *data, u32 kind,
			      int i)
{
	struct snic_queue_stats qs;
	bool ok = false;
	u32 qn;

	if (priv->up && i < priv->nch_open) {
		qn = kind == SNIC_STATS_SQ ? priv->ch[i].sq.qn :
					     priv->ch[i].rq.qn;
		ok = !snic_cmd_query_stats(priv->sd, kind, qn, &qs,
					   sizeof(qs));
	}
	return snic_put_le64(data, &qs, SNIC_N_QUEUE, ok);
}

static void snic_get_ethtool_stats(struct net_device *nd,
				   struct ethtool_stats *stats, u64 *data)
{
	struct snic_priv *priv = netdev_priv(nd);
	struct snic_dev *sd = priv->sd;
	struct snic_port_stats ps;
	struct snic_pcie_stats pcs;
	bool ok;
	int i;

	BUILD_BUG_ON(SNIC_N_PORT != SNIC_PORT_STAT_COUNT);
	BUILD_BUG_ON(SNIC_N_PCIE != D2D_PCIE_STAT_COUNT);
	BUILD_BUG_ON(ARRAY_SIZE(snic_queue_stat_names) != SNIC_QUEUE_STAT_COUNT);
	BUILD_BUG_ON(sizeof(ps) != SNIC_N_PORT * sizeof(__le64));
	BUILD_BUG_ON(sizeof(pcs) != SNIC_N_PCIE * sizeof(__le64));
	BUILD_BUG_ON(sizeof(struct snic_queue_stats) !=
		     SNIC_N_QUEUE * sizeof(__le64));

	ok = !snic_cmd_query_stats(sd, SNIC_STATS_PORT, 0, &ps, sizeof(ps));
	data = snic_put_le64(data, &ps, SNIC_N_PORT, ok);
	ok = !snic_cmd_query_stats(sd, SNIC_STATS_PCIE, 0, &pcs, sizeof(pcs));
	data = snic_put_le64(data, &pcs, SNIC_N_PCIE, ok);
	for (i = 0; i < priv->num_ch; i++) {
		struct snic_ch_stats *cs = &priv->stats[i];

		data = snic_put_sw(data, snic_tx_stats,
				   ARRAY_SIZE(snic_tx_stats), &cs->tx,
				   &cs->tx.syncp);
		data = snic_put_sw(data, snic_txc_stats,
				   ARRAY_SIZE(snic_txc_stats), &cs->txc,
				   &cs->txc.syncp);
		data = snic_put_sw(data, snic_rx_stats,
				   ARRAY_SIZE(snic_rx_stats), &cs->rx,
				   &cs->rx.syncp);
		data = snic_put_hw_queue(priv, data, SNIC_STATS_SQ, i);
		data = snic_put_hw_queue(priv, data, SNIC_STATS_RQ, i);
	}
}

/* ---- info, link, rings ---- */

static void snic_get_drvinfo(struct net_device *nd,
			     struct ethtool_drvinfo *info)
{
	struct snic_priv *priv = netdev_priv(nd);

	strscpy(info->driver, SNIC_DRV_NAME, sizeof(info->driver));
	strscpy(info->fw_version, priv->sd->id.fw_version,
		sizeof(info->fw_version));
	strscpy(info->bus_info, pci_name(priv->sd->pdev),
		sizeof(info->bus_info));
}

static int snic_get_link_ksettings(struct net_device *nd,
				   struct ethtool_link_ksettings *ks)
{
	struct snic_priv *priv = netdev_priv(nd);

	ethtool_link_ksettings_zero_link_mode(ks, supported);
	ethtool_link_ksettings_zero_link_mode(ks, advertising);
	ks->base.port = PORT_OTHER;
	ks->base.autoneg = AUTONEG_DISABLE;
	if (netif_carrier_ok(nd) && priv->speed) {
		ks->base.speed = priv->speed;
		ks->base.duplex = DUPLEX_FULL;
	} else {
		ks->base.speed = SPEED_UNKNOWN;
		ks->base.duplex = DUPLEX_UNKNOWN;
	}
	return 0;
}

static void snic_get_ringparam(struct net_device *nd,
			       struct ethtool_ringparam *ring,
			       struct kernel_ethtool_ringparam *kring,
			       struct netlink_ext_ack *extack)
{
	struct snic_priv *priv = netdev_priv(nd);

	ring->rx_max_pending = 1u << SNIC_RING_LOG_MAX;
	ring->rx_pending = 1u << priv->rq_log;
	ring->tx_max_pending = 1u << SNIC_RING_LOG_MAX;
	ring->tx_pending = 1u << priv->sq_log;
}

/*
 * ethtool -G: RX descriptors and TX basic blocks per channel, rounded up
 * to a power of two, 64 .. 8192.  A running port rebuilds its channels;
 * if that fails the old sizes come back.
 */
static int snic_set_ringparam(struct net_device *nd,
			      struct ethtool_ringparam *ring,
			      struct kernel_ethtool_ringparam *kring,
			      struct netlink_ext_ack *extack)
{
	struct snic_priv *priv = netdev_priv(nd);
	u8 old_sq = priv->sq_log, old_rq = priv->rq_log;
	u32 lim = 1u << SNIC_RING_LOG_MAX, min = 1u << SNIC_RING_LOG_MIN;
	int ret;

	if (ring->rx_mini_pending || ring->rx_jumbo_pending) {
		NL_SET_ERR_MSG(extack, "snic has no mini or jumbo rings");
		return -EINVAL;
	}
	if (ring->rx_pending < min || ring->rx_pending > lim ||
	    ring->tx_pending < min || ring->tx_pending > lim) {
		NL_SET_ERR_MSG(extack, "ring sizes are 64 .. 8192");
		return -EINVAL;
	}
	priv->rq_log = order_base_2(ring->rx_pending);
	priv->sq_log = order_base_2(ring->tx_pending);
	if (priv->rq_log == old_rq && priv->sq_log == old_sq)
		return 0;
	ret = snic_reconfigure(priv, priv->num_ch, nd->mtu);
	if (ret) {
		priv->rq_log = old_rq;
		priv->sq_log = old_sq;
		snic_reconfigure(priv, priv->num_ch, nd->mtu);
	}
	return ret;
}

/* ---- private flags ---- */

static u32 snic_get_priv_flags(struct net_device *nd)
{
	struct snic_priv *priv = netdev_priv(nd);

	return priv->pflags;
}

/*
 * ethtool --set-priv-flags IF rx_cqe_compress on|off: the RX CQs are made
 * with SNIC_CQ_F_MINI | SNIC_CQ_F_NO_HASH (mini-CQE lines, no RSS hash on
 * the skbs), so a running port rebuilds its channels, as mlx5 does.  The
 * lines carry no time stamp: refused while hardware RX stamps are on.
 */
static int snic_set_priv_flags(struct net_device *nd, u32 flags)
{
	struct snic_priv *priv = netdev_priv(nd);
	u32 old = priv->pflags;
	int ret;

	ASSERT_RTNL();
	if (flags & ~SNIC_PFLAG_ALL)
		return -EINVAL;
	if (flags == old)
		return 0;
	if (flags & ~old & SNIC_PFLAG_RX_CQE_COMPRESS) {
		if (!snic_has(priv->sd, SNIC_CAP_MINI_CQE)) {
			netdev_info(nd, "rx_cqe_compress: the device has no mini-CQEs\n");
			return -EOPNOTSUPP;
		}
		if (READ_ONCE(priv->tstamp.rx_filter) != HWTSTAMP_FILTER_NONE) {
			netdev_info(nd, "rx_cqe_compress: refused while hardware RX time stamps are on (mini-CQEs carry none)\n");
			return -EINVAL;
		}
	}
	priv->pflags = flags;
	ret = snic_reconfigure(priv, priv->num_ch, nd->mtu);
	if (ret) {
		priv->pflags = old;
		snic_reconfigure(priv, priv->num_ch, nd->mtu);
	}
	return ret;
}

/* ---- interrupt coalescing: CQ event moderation ---- */

static int snic_get_coalesce(struct net_device *nd,
			     struct ethtool_coalesce *ec,
			     struct kernel_ethtool_coalesce *kec,
			     struct netlink_ext_ack *extack)
{
	struct snic_priv *priv = netdev_priv(nd);

	ec->rx_coalesce_usecs = priv->rx_coal.usecs;
	ec->rx_max_coalesced_frames = priv->rx_coal.frames;
	ec->tx_coalesce_usecs = priv->tx_coal.usecs;
	ec->tx_max_coalesced_frames = priv->tx_coal.frames;
	return 0;
}

/*
 * ethtool -C: a channel's completion queue raises its event after
 * *-frames completions or *-usecs after the first, whichever comes first
 * (the device's MODIFY_CQ); 0 and 0 (the default) raise at every one.
 * With rx_cqe_compress a mini-CQE line (up to 7 frames) is one of the RX
 * CQ's completions, and the reply says so.
 */
static int snic_set_coalesce(struct net_device *nd,
			     struct ethtool_coalesce *ec,
			     struct kernel_ethtool_coalesce *kec,
			     struct netlink_ext_ack *extack)
{
	struct snic_priv *priv = netdev_priv(nd);
	struct snic_coal rx = priv->rx_coal, tx = priv->tx_coal;
	int ret;

	if (ec->rx_coalesce_usecs > SNIC_CQ_MAX_MOD_PERIOD ||
	    ec->tx_coalesce_usecs > SNIC_CQ_MAX_MOD_PERIOD ||
	    ec->rx_max_coalesced_frames > SNIC_CQ_MAX_MOD_COUNT ||
	    ec->tx_max_coalesced_frames > SNIC_CQ_MAX_MOD_COUNT) {
		NL_SET_ERR_MSG(extack, "usecs and frames are at most 65535");
		return -EINVAL;
	}
	priv->rx_coal.usecs = ec->rx_coalesce_usecs;
	priv->rx_coal.frames = ec->rx_max_coalesced_frames;
	priv->tx_coal.usecs = ec->tx_coalesce_usecs;
	priv->tx_coal.frames = ec->tx_max_coalesced_frames;
	ret = snic_coal_apply(priv);
	if (ret) {
		priv->rx_coal = rx;
		priv->tx_coal = tx;
		snic_coal_apply(priv);
	} else if ((priv->pflags & SNIC_PFLAG_RX_CQE_COMPRESS) &&
		   ec->rx_max_coalesced_frames > 1) {
		NL_SET_ERR_MSG(extack,
			       "rx_cqe_compress is on: rx-frames counts CQ entries, a mini-CQE line of up to 7 frames is one");
	}
	return ret;
}

/* ---- channels ---- */

static void snic_get_channels(struct net_device *nd,
			      struct ethtool_channels *ch)
{
	struct snic_priv *priv = netdev_priv(nd);

	ch->max_combined = priv->max_ch;
	ch->combined_count = priv->num_ch;
}

static int snic_set_channels(struct net_device *nd,
			     struct ethtool_channels *ch)
{
	struct snic_priv *priv = netdev_priv(nd);
	unsigned int n = ch->combined_count;
	struct snic_ntuple *r;
	int i;

	if (ch->rx_count || ch->tx_count || ch->other_count || !n ||
	    n > priv->max_ch)
		return -EINVAL;
	if (n == priv->num_ch)
		return 0;
	if (netdev_get_num_tc(nd)) {
		netdev_err(nd, "channel count is fixed while mqprio traffic classes exist\n");
		return -EBUSY;
	}
	list_for_each_entry(r, &priv->ntuple, node) {
		if (r->fs.ring_cookie != RX_CLS_FLOW_DISC &&
		    ethtool_get_flow_spec_ring(r->fs.ring_cookie) >= n) {
			netdev_err(nd, "ntuple rule %u uses queue %llu\n",
				   r->fs.location,
				   ethtool_get_flow_spec_ring(r->fs.ring_cookie));
			return -EINVAL;
		}
	}
	if (netif_is_rxfh_configured(nd))
		for (i = 0; i < SNIC_RSS_TABLE_SIZE; i++)
			if (priv->indir[i] >= n)
				return -EINVAL;
	return snic_reconfigure(priv, n, nd->mtu);
}

/* ---- RSS ---- */

static u32 snic_get_rxfh_key_size(struct net_device *nd)
{
	return SNIC_RSS_KEY_SIZE;
}

static u32 snic_get_rxfh_indir_size(struct net_device *nd)
{
	return SNIC_RSS_TABLE_SIZE;
}

static int snic_get_rxfh(struct net_device *nd, u32 *indir, u8 *key,
			 u8 *hfunc)
{
	struct snic_priv *priv = netdev_priv(nd);

	if (hfunc)
		*hfunc = ETH_RSS_HASH_TOP;
	if (indir)
		memcpy(indir, priv->indir, sizeof(priv->indir));
	if (key)
		memcpy(key, priv->rss_key, sizeof(priv->rss_key));
	return 0;
}

static int snic_set_rxfh(struct net_device *nd, const u32 *indir,
			 const u8 *key, const u8 hfunc)
{
	struct snic_priv *priv = netdev_priv(nd);
	int i;

	if (!snic_has(priv->sd, SNIC_CAP_RSS))
		return -EOPNOTSUPP;
	if (hfunc != ETH_RSS_HASH_NO_CHANGE && hfunc != ETH_RSS_HASH_TOP)
		return -EOPNOTSUPP;
	if (indir) {
		for (i = 0; i < SNIC_RSS_TABLE_SIZE; i++)
			if (indir[i] >= priv->num_ch)
				return -EINVAL;
		memcpy(priv->indir, indir, sizeof(priv->indir));
	}
	if (key)
		memcpy(priv->rss_key, key, sizeof(priv->rss_key));
	return snic_rss_apply(priv);
}

/* Hardware stamps (the CQEs' completion times), no PHC. */
static int snic_get_ts_info(struct net_device *nd, struct ethtool_ts_info *info)
{
	ethtool_op_get_ts_info(nd, info);
	info->so_timestamping |= SOF_TIMESTAMPING_TX_HARDWARE |
				 SOF_TIMESTAMPING_RX_HARDWARE |
				 SOF_TIMESTAMPING_RAW_HARDWARE;
	info->tx_types = BIT(HWTSTAMP_TX_OFF) | BIT(HWTSTAMP_TX_ON);
	info->rx_filters = BIT(HWTSTAMP_FILTER_NONE) | BIT(HWTSTAMP_FILTER_ALL);
	return 0;
}

const struct ethtool_ops snic_ethtool_ops = {
	.get_drvinfo		= snic_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_link_ksettings	= snic_get_link_ksettings,
	.supported_coalesce_params = ETHTOOL_COALESCE_USECS |
				     ETHTOOL_COALESCE_MAX_FRAMES,
	.get_ringparam		= snic_get_ringparam,
	.set_ringparam		= snic_set_ringparam,
	.get_coalesce		= snic_get_coalesce,
	.set_coalesce		= snic_set_coalesce,
	.get_ts_info		= snic_get_ts_info,
	.get_priv_flags		= snic_get_priv_flags,
	.set_priv_flags		= snic_set_priv_flags,
	.get_strings		= snic_get_strings,
	.get_sset_count		= snic_get_sset_count,
	.get_ethtool_stats	= snic_get_ethtool_stats,
	.get_channels		= snic_get_channels,
	.set_channels		= snic_set_channels,
	.get_rxnfc		= snic_get_rxnfc,
	.set_rxnfc		= snic_set_rxnfc,
	.get_rxfh_key_size	= snic_get_rxfh_key_size,
	.get_rxfh_indir_size	= snic_get_rxfh_indir_size,
	.get_rxfh		= snic_get_rxfh,
	.set_rxfh		= snic_set_rxfh,
};
