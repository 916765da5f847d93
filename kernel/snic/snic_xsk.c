// SPDX-License-Identifier: GPL-2.0
/*
 * snic zero-copy AF_XDP: the pools (ndo_bpf XDP_SETUP_XSK_POOL, through
 * snic_en_main.c, which rebuilds the channels around a pool coming or
 * going) and ndo_xsk_wakeup.  A pool is checked against the port's MTU
 * and DMA-mapped for the device here; the channel of its queue then
 * receives into its UMEM frames (snic_xsk_rx.c) and sends from its TX
 * ring (snic_xsk_tx.c).
 */
#include <linux/netdevice.h>
#include <net/xdp_sock_drv.h>
#include "snic.h"
#include "snic_en.h"

/*
 * A UMEM frame must take a whole frame of @mtu (the RQ descriptor's
 * byte count, MTU + 18 rounded up to 64) after its headroom.  Under
 * RTNL; a refusal is counted on the pool's queue and logged.
 */
int snic_xsk_pool_check(struct snic_priv *priv, struct xsk_buff_pool *pool,
			unsigned int mtu)
{
	u32 need = ALIGN(mtu + SNIC_FRAME_OVERHEAD, 64);
	u32 have = xsk_pool_get_rx_frame_size(pool);

	if (have >= need)
		return 0;
	/* ethtool reads it under RTNL too */
	priv->stats[pool->queue_id].rx.xsk_refused++;
	netdev_warn(priv->netdev,
		    "AF_XDP zero-copy refused: UMEM frames take %u bytes after headroom, MTU %u needs %u\n",
		    have, mtu, need);
	return -EINVAL;
}

/* An MTU every bound pool's frames can take. */
bool snic_xsk_mtu_ok(struct snic_priv *priv, unsigned int mtu)
{
	int i;

	for (i = 0; i < priv->max_ch; i++)
		if (priv->xsk_pool[i] &&
		    snic_xsk_pool_check(priv, priv->xsk_pool[i], mtu))
			return false;
	return true;
}

int snic_xsk_map(struct snic_priv *priv, struct xsk_buff_pool *pool)
{
	return xsk_pool_dma_map(pool, &priv->sd->pdev->dev,
				DMA_ATTR_SKIP_CPU_SYNC);
}

void snic_xsk_unmap(struct xsk_buff_pool *pool)
{
	xsk_pool_dma_unmap(pool, DMA_ATTR_SKIP_CPU_SYNC);
}

/*
 * ndo_xsk_wakeup: the application filled its fill ring or TX ring (or
 * both, @flags); the queue's NAPI refills the RQ and sends.  The core
 * calls it outside RCU: ours keeps the channels from going (they are
 * freed after a grace period once priv->up is clear).
 */
int snic_xsk_wakeup(struct net_device *nd, u32 qid, u32 flags)
{
	struct snic_priv *priv = netdev_priv(nd);
	struct snic_channel *ch;
	int ret = 0;

	rcu_read_lock();
	if (unlikely(!READ_ONCE(priv->up))) {
		ret = -ENETDOWN;
		goto out;
	}
	if (unlikely(qid >= READ_ONCE(priv->nch_open))) {
		ret = -EINVAL;
		goto out;
	}
	ch = &priv->ch[qid];
	if (unlikely(!ch->xsk_pool)) {
		ret = -ENXIO;
		goto out;
	}
	if (!napi_if_scheduled_mark_missed(&ch->napi)) {
		local_bh_disable();
		napi_schedule(&ch->napi);
		local_bh_enable();
	}
out:
	rcu_read_unlock();
	return ret;
}
