// SPDX-License-Identifier: GPL-2.0
/*
 * snic zero-copy AF_XDP transmit: in NAPI, descriptors of the XSK TX ring
 * of the channel's pool become one-basic-block WQEs on the channel's SQ
 * (snic_en_tx.c), gathering the UMEM frame by its DMA address (the pool
 * mapped the UMEM when it was bound).  A WQE's completion returns its
 * frames to the pool's completion ring (snic_tx_poll()).
 */
#include <linux/netdevice.h>
#include <net/xdp_sock_drv.h>
#include "snic.h"
#include "snic_en.h"

/*
 * A descriptor with a bad length is not sent but must still reach the
 * completion ring in order: with the last XSK WQE still on the SQ, then.
 */
static void snic_xsk_tx_refuse(struct snic_channel *ch)
{
	struct snic_tx_buf *last = &ch->tx_buf[ch->xsk_last &
					       (ch->sq.size - 1)];

	if (last->xsk && last->xsk < U16_MAX)
		last->xsk++;
	else
		xsk_tx_completed(ch->xsk_pool, 1);
}

/*
 * Send up to @budget frames from the pool's TX ring.  Returns true when
 * the budget ran out (more may wait).  With need_wakeup the application
 * is asked to kick the channel unless that is so.
 */
bool snic_xsk_tx(struct snic_channel *ch, int budget)
{
	struct xsk_buff_pool *pool = ch->xsk_pool;
	struct snic_txq_stats *st = &ch->stats->tx;
	struct snic_wq *sq = &ch->sq;
	struct snic_tx_buf *tb;
	struct xdp_desc desc;
	int n = 0;

	__netif_tx_lock(ch->txq, smp_processor_id());
	/* Room for an skb WQE stays: the stack shares the SQ. */
	while (n < budget && snic_sq_free(sq) > SNIC_WQE_MAX_BBS &&
	       xsk_tx_peek_desc(pool, &desc)) {
		dma_addr_t dma = xsk_buff_raw_get_dma(pool, desc.addr);
		void *data = xsk_buff_raw_get_data(pool, desc.addr);

		n++;
		if (unlikely(!snic_tx_frame_ok(ch, desc.len, &st->xsk_err))) {
			if (net_ratelimit())
				netdev_warn(ch->priv->netdev,
					    "queue %d: AF_XDP frame of %u bytes refused\n",
					    ch->idx, desc.len);
			snic_xsk_tx_refuse(ch);
			continue;
		}
		xsk_buff_raw_dma_sync_for_device(pool, dma, desc.len);
		ch->xsk_last = sq->prod;
		tb = snic_tx_post_frame(ch, data, dma + ETH_HLEN, desc.len);
		tb->xsk = 1;
		u64_stats_update_begin(&st->syncp);
		st->xsk_xmit++;
		st->xsk_bytes += desc.len;
		st->packets++;
		st->bytes += desc.len;
		u64_stats_update_end(&st->syncp);
	}
	if (n)
		xsk_tx_release(pool);
	if (sq->rung != sq->prod)
		snic_wq_ring(ch->priv->sd, sq, SNIC_DB_SQ);
	__netif_tx_unlock(ch->txq);
	if (xsk_uses_need_wakeup(pool)) {
		if (n < budget)
			xsk_set_tx_need_wakeup(pool);
		else
			xsk_clear_tx_need_wakeup(pool);
	}
	return n >= budget;
}
