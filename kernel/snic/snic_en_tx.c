// SPDX-License-Identifier: GPL-2.0
/*
 * snic Ethernet transmit: WQEs from skbs (checksum offload, TSO, gather
 * list or inline copy), the doorbell, and TX completions in NAPI.
 * Selective signalling: a CQE (SNIC_WQE_F_SIGNAL) is asked for by every
 * SNIC_TX_SIGNAL_EVERY-th skb WQE and by the last one before each
 * doorbell, so a batch (xmit_more) costs one CQE write, and skbs are
 * still freed as soon as their batch is sent (TCP small queues wait for
 * that); a CQE retires every WQE up to it.
 * XDP frames (XDP_TX, ndo_xdp_xmit) and zero-copy AF_XDP frames
 * (snic_xsk_tx.c) share the channel's SQ under its netdev queue's TX lock;
 * a WQE holds an skb, an xdp_frame or UMEM frames (tb->xsk, given back to
 * the pool's completion ring when it completes).
 */
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/xdp.h>
#include <net/xdp_sock_drv.h>
#include "snic.h"
#include "snic_en.h"

#define SNIC_TX_SIGNAL_EVERY	16

/*
 * The doorbell for the skb WQEs posted: the last of them (if not rung
 * yet) asks for a CQE first.  The device reads no WQE past the last
 * doorbell, so its flags may still change.
 */
static void snic_tx_ring(struct snic_priv *priv, struct snic_channel *ch)
{
	struct snic_wq *sq = &ch->sq;
	struct snic_wqe_ctrl *ctrl;

	if ((u16)(ch->tx_last - sq->rung) < (u16)(sq->prod - sq->rung)) {
		ctrl = sq->r.buf + (ch->tx_last & (sq->size - 1)) *
		       SNIC_WQEBB_SIZE;
		ctrl->flags |= SNIC_WQE_F_SIGNAL;
		ch->tx_unsig = 0;
	}
	snic_wq_ring(priv->sd, sq, SNIC_DB_SQ);
}

unsigned int snic_sq_free(const struct snic_wq *sq)
{
	return sq->size - (u16)(sq->prod - READ_ONCE(sq->cons));
}

static void *snic_sq_bb(struct snic_wq *sq, u16 ctr)
{
	return sq->r.buf + (ctr & (sq->size - 1)) * SNIC_WQEBB_SIZE;
}

/* Copy a built WQE of @bbs basic blocks in at the producer (it may wrap). */
static void snic_sq_copy(struct snic_wq *sq, const u8 *wqe, unsigned int bbs)
{
	unsigned int i;

	for (i = 0; i < bbs; i++)
		memcpy(snic_sq_bb(sq, sq->prod + i), wqe + i * SNIC_WQEBB_SIZE,
		       SNIC_WQEBB_SIZE);
	sq->prod += bbs;
}

/* End of the L4 header of an IPv4 TCP/UDP frame in the linear part, or 0. */
static unsigned int snic_l4_end(struct sk_buff *skb)
{
	unsigned int end;

	if (skb->protocol != htons(ETH_P_IP) ||
	    !skb_transport_header_was_set(skb) ||
	    skb_network_offset(skb) != ETH_HLEN ||
	    skb_headlen(skb) < ETH_HLEN + sizeof(struct iphdr))
		return 0;
	switch (ip_hdr(skb)->protocol) {
	case IPPROTO_TCP:
		end = skb_transport_offset(skb) + sizeof(struct tcphdr);
		if (end > skb_headlen(skb))
			return 0;
		end = skb_transport_offset(skb) + tcp_hdrlen(skb);
		break;
	case IPPROTO_UDP:
		end = skb_transport_offset(skb) + sizeof(struct udphdr);
		break;
	default:
		return 0;
	}
	return end <= skb_headlen(skb) ? end : 0;
}

/* The device checksums IPv4 TCP/UDP in an untagged frame, nothing else. */
static bool snic_csum_offloadable(struct sk_buff *skb)
{
	if (skb->encapsulation || !snic_l4_end(skb) ||
	    skb_checksum_start_offset(skb) != skb_transport_offset(skb))
		return false;
	switch (ip_hdr(skb)->protocol) {
	case IPPROTO_TCP:
		return skb->csum_offset == offsetof(struct tcphdr, check);
	case IPPROTO_UDP:
		return skb->csum_offset == offsetof(struct udphdr, check);
	}
	return false;
}

/* 16-byte segments: ctrl, eth (10 inline bytes), inline rest, data. */
static unsigned int snic_wqe_ds(struct sk_buff *skb, unsigned int ihs)
{
	unsigned int ds = 2 + DIV_ROUND_UP(max(ihs, 10u) - 10, 16);

	if (skb_headlen(skb) > ihs)
		ds++;
	return ds + skb_shinfo(skb)->nr_frags;
}

static void snic_tx_unmap(struct device *dev, struct snic_tx_buf *tb)
{
	int i;

	for (i = 0; i < tb->nmaps; i++) {
		if (tb->maps[i].page)
			dma_unmap_page(dev, tb->maps[i].addr, tb->maps[i].len,
				       DMA_TO_DEVICE);
		else
			dma_unmap_single(dev, tb->maps[i].addr,
					 tb->maps[i].len, DMA_TO_DEVICE);
	}
	tb->nmaps = 0;
}

static void snic_tx_stats_add(struct snic_txq_stats *st, struct sk_buff *skb,
			      u8 opcode, u8 cs, unsigned int segs,
			      unsigned int ihs, bool linearized)
{
	u64_stats_update_begin(&st->syncp);
	st->packets += segs;
	st->bytes += skb->len + (segs - 1) * ihs;
	if (opcode == SNIC_WQE_ETH_TSO) {
		st->tso_packets++;
		st->tso_segs += segs;
		st->tso_bytes += skb->len;
	}
	if (cs)
		st->csum_offload++;
	else
		st->csum_none++;
	if (linearized)
		st->linearize++;
	u64_stats_update_end(&st->syncp);
}

static void snic_tx_count(struct snic_txq_stats *st, u64 *ctr)
{
	u64_stats_update_begin(&st->syncp);
	(*ctr)++;
	u64_stats_update_end(&st->syncp);
}

netdev_tx_t snic_start_xmit(struct sk_buff *skb, struct net_device *nd)
{
	struct snic_priv *priv = netdev_priv(nd);
	struct device *dev = &priv->sd->pdev->dev;
	u8 wqe[SNIC_WQE_MAX_BBS * SNIC_WQEBB_SIZE] __aligned(16);
	struct snic_wqe_ctrl *ctrl = (void *)wqe;
	struct snic_wqe_eth *eth = (void *)(wqe + 16);
	unsigned int ihs, nds, bbs, headlen, segs = 1, i;
	u16 qi = skb_get_queue_mapping(skb), pi, mss = 0;
	u8 opcode = SNIC_WQE_ETH_SEND, cs = 0;
	struct snic_wqe_data *dseg;
	struct snic_txq_stats *st;
	struct snic_tx_buf *tb;
	struct snic_channel *ch;
	bool linearized = false;
	struct snic_wq *sq;
	dma_addr_t dma;

	if (unlikely(!priv->up || qi >= priv->nch_open)) {
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	ch = &priv->ch[qi];
	sq = &ch->sq;
	st = &ch->stats->tx;

	if (skb_is_gso(skb)) {
		if (!(skb_shinfo(skb)->gso_type & SKB_GSO_TCPV4) ||
		    !snic_l4_end(skb))
			goto drop;
		opcode = SNIC_WQE_ETH_TSO;
		mss = skb_shinfo(skb)->gso_size;
		segs = skb_shinfo(skb)->gso_segs;
		cs = SNIC_ETH_CS_L3 | SNIC_ETH_CS_L4;
		ihs = skb_tcp_all_headers(skb);
	} else {
		/* Frees the skb on failure. */
		if (skb_put_padto(skb, ETH_ZLEN)) {
			snic_tx_count(st, &st->dropped);
			goto out_ring;
		}
		if (skb->ip_summed == CHECKSUM_PARTIAL) {
			if (snic_csum_offloadable(skb))
				cs = SNIC_ETH_CS_L3 | SNIC_ETH_CS_L4;
			else if (skb_checksum_help(skb))
				goto drop;
		}
		/* Inline L2..L4 headers, or just the Ethernet header. */
		ihs = snic_l4_end(skb) ?: ETH_HLEN;
	}

	ihs = min3(ihs, skb_headlen(skb), (unsigned int)SNIC_MAX_INLINE);
	nds = snic_wqe_ds(skb, ihs);
	if (nds > SNIC_WQE_MAX_DS) {
		if (skb_linearize(skb))
			goto drop;
		linearized = true;
		nds = snic_wqe_ds(skb, ihs);
	}
	bbs = DIV_ROUND_UP(nds, 4);
	if (unlikely(snic_sq_free(sq) < bbs)) {
		/* The queue is stopped before it can get this full. */
		netif_tx_stop_queue(ch->txq);
		return NETDEV_TX_BUSY;
	}

	pi = sq->prod;
	tb = &ch->tx_buf[pi & (sq->size - 1)];
	memset(wqe, 0, bbs * SNIC_WQEBB_SIZE);
	ctrl->opcode = opcode;
	if (++ch->tx_unsig >= SNIC_TX_SIGNAL_EVERY) {
		ctrl->flags = SNIC_WQE_F_SIGNAL;
		ch->tx_unsig = 0;
	}
	ctrl->wqe_idx = cpu_to_le16(pi);
	ctrl->ds_cnt = nds;
	eth->cs_flags = cs;
	if (skb_vlan_tag_present(skb)) {
		eth->flags = SNIC_ETH_F_VLAN;
		ctrl->vlan_tci = cpu_to_be16(skb_vlan_tag_get(skb));
	}
	eth->mss = cpu_to_le16(mss);
	eth->inline_hdr_sz = cpu_to_le16(ihs);
	/* Inline bytes run on from inline_hdr into the next segments. */
	memcpy(wqe + 16 + offsetof(struct snic_wqe_eth, inline_hdr), skb->data,
	       ihs);
	dseg = (void *)(wqe + 16 * (2 + DIV_ROUND_UP(max(ihs, 10u) - 10, 16)));

	tb->nmaps = 0;
	headlen = skb_headlen(skb);
	if (headlen > ihs) {
		dma = dma_map_single(dev, skb->data + ihs, headlen - ihs,
				     DMA_TO_DEVICE);
		if (dma_mapping_error(dev, dma))
			goto dma_err;
		tb->maps[tb->nmaps++] = (struct snic_tx_map){ dma, headlen - ihs,
							      false };
		dseg->byte_count = cpu_to_le32(headlen - ihs);
		dseg->addr = cpu_to_le64(dma);
		dseg++;
	}
	for (i = 0; i < skb_shinfo(skb)->nr_frags; i++) {
		skb_frag_t *frag = &skb_shinfo(skb)->frags[i];
		unsigned int len = skb_frag_size(frag);

		dma = skb_frag_dma_map(dev, frag, 0, len, DMA_TO_DEVICE);
		if (dma_mapping_error(dev, dma))
			goto dma_err;
		tb->maps[tb->nmaps++] = (struct snic_tx_map){ dma, len, true };
		dseg->byte_count = cpu_to_le32(len);
		dseg->addr = cpu_to_le64(dma);
		dseg++;
	}

	tb->skb = skb;
	tb->xdpf = NULL;
	tb->bbs = bbs;
	tb->bytes = skb->len;
	snic_sq_copy(sq, wqe, bbs);
	ch->tx_last = pi;
	snic_tx_stats_add(st, skb, opcode, cs, segs, ihs, linearized);
	/* hardware stamp asked for: the CQE's completion time (snic_tx_poll) */
	if (unlikely(skb_shinfo(skb)->tx_flags & SKBTX_HW_TSTAMP) &&
	    READ_ONCE(ch->priv->tstamp.tx_type) == HWTSTAMP_TX_ON)
		skb_shinfo(skb)->tx_flags |= SKBTX_IN_PROGRESS;
	skb_tx_timestamp(skb);

	if (snic_sq_free(sq) < SNIC_WQE_MAX_BBS) {
		netif_tx_stop_queue(ch->txq);
		snic_tx_count(st, &st->stopped);
		/* Pairs with the barrier in snic_tx_poll(). */
		smp_mb();
		if (snic_sq_free(sq) >= SNIC_WQE_MAX_BBS)
			netif_tx_start_queue(ch->txq);
	}
	if (__netdev_tx_sent_queue(ch->txq, tb->bytes, netdev_xmit_more()))
		snic_tx_ring(priv, ch);
	return NETDEV_TX_OK;

dma_err:
	snic_tx_unmap(dev, tb);
drop:
	dev_kfree_skb_any(skb);
	snic_tx_count(st, &st->dropped);
out_ring:
	/* Earlier WQEs of an xmit_more batch still need their doorbell. */
	if (!netdev_xmit_more() && sq->rung != sq->prod)
		snic_tx_ring(priv, ch);
	return NETDEV_TX_OK;
}

/* Returns true if the CQ may hold more completions. */
/*
 * A hardware-stamped skb: the completion time of the CQE that retires it
 * (its own WQE's, or a later one's covering it).
 */
static void snic_tx_hwtstamp(struct sk_buff *skb, const struct snic_cqe *cqe)
{
	struct skb_shared_hwtstamps hw = {
		.hwtstamp = ns_to_ktime(le64_to_cpu(cqe->timestamp)),
	};

	if (unlikely(skb_shinfo(skb)->tx_flags & SKBTX_IN_PROGRESS))
		skb_tstamp_tx(skb, &hw);
}

bool snic_tx_poll(struct snic_channel *ch, int napi_budget)
{
	struct net_device *nd = ch->priv->netdev;
	struct device *dev = &ch->priv->sd->pdev->dev;
	struct snic_txc_stats *st = &ch->stats->txc;
	unsigned int pkts = 0, bytes = 0, n = 0, errs = 0, xsk = 0;
	struct snic_cq *cq = &ch->txcq;
	struct snic_wq *sq = &ch->sq;
	struct snic_cqe *cqe;

	while (n < cq->size && (cqe = snic_cq_next(cq))) {
		u16 wc = le16_to_cpu(cqe->wqe_counter);

		if (cqe->opcode == SNIC_CQE_TX_ERR) {
			errs++;
			if (net_ratelimit())
				netdev_warn(nd, "TX error CQE on queue %d: syndrome %u, WQE %u\n",
					    ch->idx, cqe->syndrome, wc);
		}
		if ((u16)(wc - sq->cons) >= (u16)(sq->prod - sq->cons)) {
			if (net_ratelimit())
				netdev_warn(nd, "TX CQE for unknown WQE %u on queue %d (cons %u prod %u)\n",
					    wc, ch->idx, sq->cons, sq->prod);
		} else {
			/* Completions come in order: retire WQEs up to wc. */
			for (;;) {
				u16 ci = sq->cons;
				struct snic_tx_buf *tb;

				tb = &ch->tx_buf[ci & (sq->size - 1)];
				snic_tx_unmap(dev, tb);
				if (tb->xdpf) {
					xdp_return_frame(tb->xdpf);
					tb->xdpf = NULL;
				} else if (tb->xsk) {
					xsk += tb->xsk;
					tb->xsk = 0;
				} else {
					pkts++;
					bytes += tb->bytes;
					snic_tx_hwtstamp(tb->skb, cqe);
					napi_consume_skb(tb->skb, napi_budget);
					tb->skb = NULL;
				}
				WRITE_ONCE(sq->cons, ci + tb->bbs);
				if (ci == wc || sq->cons == sq->prod ||
				    (u16)(wc - sq->cons) >=
				    (u16)(sq->prod - sq->cons))
					break;
			}
		}
		cq->cons++;
		n++;
	}
	if (!n)
		return false;
	snic_cq_update(cq);
	if (xsk)
		xsk_tx_completed(ch->xsk_pool, xsk);
	netdev_tx_completed_queue(ch->txq, pkts, bytes);
	u64_stats_update_begin(&st->syncp);
	st->cqes += n;
	st->errors += errs;
	u64_stats_update_end(&st->syncp);

	/* Pairs with the barrier in snic_start_xmit(). */
	smp_mb();
	if (netif_tx_queue_stopped(ch->txq) &&
	    snic_sq_free(sq) >= SNIC_TX_WAKE) {
		netif_tx_wake_queue(ch->txq);
		u64_stats_update_begin(&st->syncp);
		st->wake++;
		u64_stats_update_end(&st->syncp);
	}
	return n == cq->size;
}

/*
 * Whether a frame of @len bytes may go out as one basic block: more than
 * the Ethernet header, at most MTU + 18.  Counts a refusal in *@err.
 */
bool snic_tx_frame_ok(struct snic_channel *ch, u32 len, u64 *err)
{
	struct snic_txq_stats *st = &ch->stats->tx;

	if (likely(len > ETH_HLEN &&
		   len <= ch->priv->netdev->mtu + SNIC_FRAME_OVERHEAD))
		return true;
	snic_tx_count(st, err);
	return false;
}

/*
 * Post a frame of @len bytes at @data as one basic block on @ch's SQ:
 * ctrl, eth with the Ethernet header inline (10 bytes, 4 more in the
 * next segment), one gather of the rest at @dma (already past the
 * header), signaled.  The caller checked the length and the room, holds
 * the queue's TX lock, rings the doorbell and says in the returned slot
 * what the WQE holds.
 */
struct snic_tx_buf *snic_tx_post_frame(struct snic_channel *ch,
				       const void *data, dma_addr_t dma,
				       u32 len)
{
	u8 wqe[SNIC_WQEBB_SIZE] __aligned(16) = { };
	struct snic_wqe_ctrl *ctrl = (void *)wqe;
	struct snic_wqe_eth *eth = (void *)(wqe + 16);
	struct snic_wqe_data *dseg = (void *)(wqe + 48);
	struct snic_wq *sq = &ch->sq;
	struct snic_tx_buf *tb;

	BUILD_BUG_ON(ETH_HLEN - 10 > 16);
	tb = &ch->tx_buf[sq->prod & (sq->size - 1)];
	tb->nmaps = 0;
	tb->skb = NULL;
	tb->xdpf = NULL;
	tb->xsk = 0;
	tb->bbs = 1;
	tb->bytes = 0;		/* not an skb: outside BQL */
	ctrl->opcode = SNIC_WQE_ETH_SEND;
	ctrl->flags = SNIC_WQE_F_SIGNAL;
	ctrl->wqe_idx = cpu_to_le16(sq->prod);
	ctrl->ds_cnt = 4;
	eth->inline_hdr_sz = cpu_to_le16(ETH_HLEN);
	memcpy(wqe + 16 + offsetof(struct snic_wqe_eth, inline_hdr), data,
	       ETH_HLEN);
	dseg->byte_count = cpu_to_le32(len - ETH_HLEN);
	dseg->addr = cpu_to_le64(dma);
	snic_sq_copy(sq, wqe, 1);
	return tb;
}

/*
 * Post one XDP frame on @ch's SQ, the rest after the Ethernet header
 * gathered from a fresh DMA mapping.  The caller holds the queue's TX
 * lock and rings the doorbell.  On success the frame is the WQE's until
 * its completion; on failure (ring full, bad length, DMA) it stays the
 * caller's.
 */
int snic_xdp_post(struct snic_channel *ch, struct xdp_frame *xdpf)
{
	struct device *dev = &ch->priv->sd->pdev->dev;
	struct snic_txq_stats *st = &ch->stats->tx;
	unsigned int len = xdpf->len;
	struct snic_tx_buf *tb;
	dma_addr_t dma;

	if (unlikely(!snic_tx_frame_ok(ch, len, &st->xdp_xmit_err)))
		return -EINVAL;
	if (unlikely(snic_sq_free(&ch->sq) < 1)) {
		snic_tx_count(st, &st->xdp_xmit_full);
		return -ENOSPC;
	}
	dma = dma_map_single(dev, xdpf->data + ETH_HLEN, len - ETH_HLEN,
			     DMA_TO_DEVICE);
	if (dma_mapping_error(dev, dma)) {
		snic_tx_count(st, &st->xdp_xmit_err);
		return -ENOMEM;
	}
	tb = snic_tx_post_frame(ch, xdpf->data, dma, len);
	tb->maps[0] = (struct snic_tx_map){ dma, len - ETH_HLEN, false };
	tb->nmaps = 1;
	tb->xdpf = xdpf;

	u64_stats_update_begin(&st->syncp);
	st->xdp_xmit++;
	st->packets++;
	st->bytes += len;
	u64_stats_update_end(&st->syncp);
	return 0;
}

/* Free what WQEs the device will not complete hold (queue destroyed). */
void snic_tx_drain(struct snic_channel *ch)
{
	struct device *dev = &ch->priv->sd->pdev->dev;
	u32 i, xsk = 0;

	for (i = 0; i < ch->tx_buf_n; i++) {
		struct snic_tx_buf *tb = &ch->tx_buf[i];

		if (!tb->skb && !tb->xdpf && !tb->xsk)
			continue;
		snic_tx_unmap(dev, tb);
		if (tb->xdpf)
			xdp_return_frame(tb->xdpf);
		else if (tb->xsk)
			xsk += tb->xsk;
		else
			dev_kfree_skb_any(tb->skb);
		tb->skb = NULL;
		tb->xdpf = NULL;
		tb->xsk = 0;
	}
	/* Back to the completion ring: the application owns them again. */
	if (xsk)
		xsk_tx_completed(ch->xsk_pool, xsk);
	netdev_tx_reset_queue(ch->txq);
}

/* TX queue @qi's rate limiter at @bps (0: none), kept for rebuilds. */
int snic_tx_rate_set(struct snic_priv *priv, int qi, u64 bps)
{
	int ret;

	ASSERT_RTNL();
	if (!snic_has(priv->sd, SNIC_CAP_RATE))
		return -EOPNOTSUPP;
	if (qi < 0 || qi >= priv->max_ch)
		return -EINVAL;
	if (priv->up && qi < priv->nch_open) {
		ret = snic_cmd_sq_rate(priv->sd, priv->ch[qi].sq.qn, bps);
		if (ret)
			return ret;
	}
	priv->tx_rate[qi] = bps;
	return 0;
}
