// SPDX-License-Identifier: GPL-2.0
/*
 * snic net_device: channels, transmit, receive, NAPI.
 *
 * A channel is one MSI-X vector (i + 1; vector 0 is the admin queue), one
 * EQ on it, a TX CQ + SQ and an RX CQ + RQ, all answering to one doorbell
 * page.  The interrupt schedules NAPI; NAPI drains the EQ, both CQs and
 * refills the RQ, then re-arms both CQs and the EQ.  Every WQE is signaled
 * (SNIC_WQE_F_SIGNAL): a CQE per WQE keeps completion simple and skbs are
 * freed promptly (TCP small queues wait for that).  Receive buffers are
 * page fragments of MTU + 18 bytes turned into skbs with build_skb.
 * RSS over every channel's RQ is reached through a catch-all steering rule
 * (priority 0xffff); ethtool ntuple rules sit in front of it.
 */
#include <linux/etherdevice.h>
#include <linux/interrupt.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/checksum.h>
#include "snic.h"

/* ---- transmit ---- */

static unsigned int snic_sq_free(const struct snic_wq *sq)
{
	return sq->size - (u16)(sq->prod - READ_ONCE(sq->cons));
}

static void *snic_sq_bb(struct snic_wq *sq, u16 ctr)
{
	return sq->r.buf + (ctr & (sq->size - 1)) * SNIC_WQEBB_SIZE;
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

static netdev_tx_t snic_start_xmit(struct sk_buff *skb, struct net_device *nd)
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
	ctrl->flags = SNIC_WQE_F_SIGNAL;
	ctrl->wqe_idx = cpu_to_le16(pi);
	ctrl->ds_cnt = nds;
	eth->cs_flags = cs;
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

	/* A WQE may wrap around the end of the ring. */
	for (i = 0; i < bbs; i++)
		memcpy(snic_sq_bb(sq, pi + i), wqe + i * SNIC_WQEBB_SIZE,
		       SNIC_WQEBB_SIZE);
	tb->skb = skb;
	tb->bbs = bbs;
	tb->bytes = skb->len;
	sq->prod = pi + bbs;
	snic_tx_stats_add(st, skb, opcode, cs, segs, ihs, linearized);
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
		snic_wq_ring(priv->sd, sq, SNIC_DB_SQ);
	return NETDEV_TX_OK;

dma_err:
	snic_tx_unmap(dev, tb);
drop:
	dev_kfree_skb_any(skb);
	snic_tx_count(st, &st->dropped);
out_ring:
	/* Earlier WQEs of an xmit_more batch still need their doorbell. */
	if (!netdev_xmit_more() && sq->rung != sq->prod)
		snic_wq_ring(priv->sd, sq, SNIC_DB_SQ);
	return NETDEV_TX_OK;
}

/* Returns true if the CQ may hold more completions. */
static bool snic_tx_poll(struct snic_channel *ch, int napi_budget)
{
	struct net_device *nd = ch->priv->netdev;
	struct device *dev = &ch->priv->sd->pdev->dev;
	struct snic_txc_stats *st = &ch->stats->txc;
	unsigned int pkts = 0, bytes = 0, n = 0, errs = 0;
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
				pkts++;
				bytes += tb->bytes;
				napi_consume_skb(tb->skb, napi_budget);
				tb->skb = NULL;
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

/* ---- receive ---- */

static int snic_rx_alloc(struct snic_channel *ch, struct snic_rx_buf *rb,
			 bool in_napi)
{
	struct device *dev = &ch->priv->sd->pdev->dev;
	void *data;

	data = in_napi ? napi_alloc_frag(ch->rx_frag_size) :
			 netdev_alloc_frag(ch->rx_frag_size);
	if (!data)
		return -ENOMEM;
	rb->dma = dma_map_single(dev, data + SNIC_RX_HEADROOM, ch->rx_buf_len,
				 DMA_FROM_DEVICE);
	if (dma_mapping_error(dev, rb->dma)) {
		skb_free_frag(data);
		return -ENOMEM;
	}
	rb->data = data;
	return 0;
}

/*
 * Post descriptors until the RQ is full.  A slot whose buffer survived
 * (error CQE) is posted again as is.  Returns false if allocation failed.
 */
static bool snic_rx_refill(struct snic_channel *ch, bool in_napi)
{
	struct snic_rxq_stats *st = &ch->stats->rx;
	struct snic_wq *rq = &ch->rq;
	struct snic_rx_desc *ring = rq->r.buf;
	bool ok = true;
	int n = 0;

	while ((u16)(rq->prod - rq->cons) < rq->size) {
		u32 idx = rq->prod & (rq->size - 1);
		struct snic_rx_buf *rb = &ch->rx_buf[idx];

		if (!rb->data && snic_rx_alloc(ch, rb, in_napi)) {
			u64_stats_update_begin(&st->syncp);
			st->alloc_fail++;
			u64_stats_update_end(&st->syncp);
			ok = false;
			break;
		}
		ring[idx].byte_count = cpu_to_le32(ch->rx_buf_len);
		ring[idx].lkey = 0;
		ring[idx].addr = cpu_to_le64(rb->dma);
		rq->prod++;
		n++;
	}
	/* The record alone would do; the doorbell saves the device a read. */
	if (n)
		snic_wq_ring(ch->priv->sd, rq, SNIC_DB_RQ);
	return ok;
}

static void snic_rx_csum_hash(struct snic_channel *ch, struct sk_buff *skb,
			      struct snic_cqe *cqe, struct snic_rxq_stats *st)
{
	netdev_features_t features = ch->priv->netdev->features;
	u16 flags = le16_to_cpu(cqe->flags);
	bool l4 = flags & (SNIC_CQE_F_TCP | SNIC_CQE_F_UDP);

	if (flags & (SNIC_CQE_F_L3_BAD | SNIC_CQE_F_L4_BAD)) {
		st->csum_bad++;
	} else if ((features & NETIF_F_RXCSUM) && l4 &&
		   (flags & SNIC_CQE_F_L4_OK)) {
		skb->ip_summed = CHECKSUM_UNNECESSARY;
		st->csum_ok++;
	} else {
		st->csum_none++;
	}
	if ((features & NETIF_F_RXHASH) && (flags & SNIC_CQE_F_HASH)) {
		skb_set_hash(skb, le32_to_cpu(cqe->rss_hash),
			     l4 ? PKT_HASH_TYPE_L4 : PKT_HASH_TYPE_L3);
		st->hash++;
	}
}

static int snic_rx_poll(struct snic_channel *ch, int budget)
{
	struct net_device *nd = ch->priv->netdev;
	struct device *dev = &ch->priv->sd->pdev->dev;
	struct snic_rxq_stats *st = &ch->stats->rx;
	struct snic_cq *cq = &ch->rxcq;
	struct snic_wq *rq = &ch->rq;
	struct snic_cqe *cqe;
	int work = 0;

	u64_stats_update_begin(&st->syncp);
	while (work < budget && (cqe = snic_cq_next(cq))) {
		struct snic_rx_buf *rb = &ch->rx_buf[rq->cons & (rq->size - 1)];
		u32 len = le32_to_cpu(cqe->byte_cnt);
		struct sk_buff *skb;
		void *data;

		if (unlikely(le16_to_cpu(cqe->wqe_counter) != rq->cons))
			netdev_warn_once(nd, "RX CQE for descriptor %u, expected %u\n",
					 le16_to_cpu(cqe->wqe_counter), rq->cons);
		cq->cons++;
		rq->cons++;
		work++;
		/* Errors leave the buffer in its slot for the next refill. */
		if (unlikely(cqe->opcode != SNIC_CQE_RX || len < ETH_HLEN ||
			     len > ch->rx_buf_len || !rb->data)) {
			st->errors++;
			if (net_ratelimit())
				netdev_warn(nd, "RX error on queue %d: opcode %#x syndrome %u, %u bytes\n",
					    ch->idx, cqe->opcode, cqe->syndrome,
					    len);
			continue;
		}
		dma_unmap_single(dev, rb->dma, ch->rx_buf_len, DMA_FROM_DEVICE);
		data = rb->data;
		rb->data = NULL;
		skb = napi_build_skb(data, ch->rx_frag_size);
		if (unlikely(!skb)) {
			skb_free_frag(data);
			st->alloc_fail++;
			continue;
		}
		skb_reserve(skb, SNIC_RX_HEADROOM);
		skb_put(skb, len);
		skb->protocol = eth_type_trans(skb, nd);
		snic_rx_csum_hash(ch, skb, cqe, st);
		skb_record_rx_queue(skb, ch->idx);
		st->packets++;
		st->bytes += len;
		napi_gro_receive(&ch->napi, skb);
	}
	u64_stats_update_end(&st->syncp);
	if (work)
		snic_cq_update(cq);
	return work;
}

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
	bool tx_more;
	int work = 0;

	while ((eqe = snic_eq_next(&ch->eq))) {
		snic_ch_event(ch, eqe);
		ch->eq.cons++;
	}
	tx_more = snic_tx_poll(ch, budget);
	if (!budget)
		return 0;
	work = snic_rx_poll(ch, budget);
	/* An empty RQ raises no completion: keep polling until refilled. */
	if (!snic_rx_refill(ch, true) && ch->rq.prod == ch->rq.cons)
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
	struct device *dev = &sd->pdev->dev;
	u32 i;

	if (ch->napi_enabled)
		napi_disable(&ch->napi);
	ch->napi_enabled = false;
	/* Users before what they use: SQ/RQ, then CQs, then the EQ. */
	snic_wq_destroy(sd, &ch->sq, SNIC_AQ_DESTROY_SQ);
	snic_wq_destroy(sd, &ch->rq, SNIC_AQ_DESTROY_RQ);
	snic_cq_destroy(sd, &ch->txcq);
	snic_cq_destroy(sd, &ch->rxcq);
	snic_eq_destroy(sd, &ch->eq);
	if (ch->irq_requested) {
		irq_update_affinity_hint(ch->irq, NULL);
		free_irq(ch->irq, ch);
		ch->irq_requested = false;
	}
	if (ch->napi_added)
		netif_napi_del(&ch->napi);
	ch->napi_added = false;

	if (ch->tx_buf) {
		for (i = 0; i < ch->tx_buf_n; i++) {
			struct snic_tx_buf *tb = &ch->tx_buf[i];

			if (!tb->skb)
				continue;
			snic_tx_unmap(dev, tb);
			dev_kfree_skb_any(tb->skb);
			tb->skb = NULL;
		}
		netdev_tx_reset_queue(ch->txq);
	}
	if (ch->rx_buf) {
		for (i = 0; i < ch->rx_buf_n; i++) {
			struct snic_rx_buf *rb = &ch->rx_buf[i];

			if (!rb->data)
				continue;
			dma_unmap_single(dev, rb->dma, ch->rx_buf_len,
					 DMA_FROM_DEVICE);
			skb_free_frag(rb->data);
			rb->data = NULL;
		}
	}
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
	ch->rx_buf_len = ALIGN(nd->mtu + SNIC_FRAME_OVERHEAD, 64);
	ch->rx_frag_size = SKB_DATA_ALIGN(SNIC_RX_HEADROOM + ch->rx_buf_len) +
			   SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
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
	ret = snic_cq_create(sd, &ch->txcq, priv->sq_log, ch->eq.eqn,
			     ch->db_page);
	if (ret)
		return ret;
	ret = snic_cq_create(sd, &ch->rxcq, priv->rq_log, ch->eq.eqn,
			     ch->db_page);
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
	if (ch->rq.prod == ch->rq.cons)
		return -ENOMEM;
	if (priv->tx_rate[ch->idx]) {
		ret = snic_cmd_sq_rate(sd, ch->sq.qn,
				       (u64)priv->tx_rate[ch->idx] * 1000000);
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
	return 0;
}

static void snic_rss_close(struct snic_priv *priv)
{
	struct snic_dev *sd = priv->sd;

	if (priv->rss_rule_live)
		snic_cmd_destroy(sd, SNIC_AQ_DEL_RULE, priv->rss_rule);
	priv->rss_rule_live = false;
	if (priv->rss_live)
		snic_cmd_destroy(sd, SNIC_AQ_DESTROY_RSS, priv->rss_id);
	priv->rss_live = false;
}

static struct snic_rss_cfg *snic_rss_cfg(struct snic_priv *priv)
{
	struct snic_rss_cfg *cfg;
	int i;

	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return NULL;
	memcpy(cfg->key, priv->rss_key, sizeof(cfg->key));
	cfg->hash_fields = cpu_to_le32(SNIC_RSS_HASH_IPV4 |
				       (priv->rss_l4 ? SNIC_RSS_HASH_L4 : 0));
	cfg->table_size = cpu_to_le32(SNIC_RSS_TABLE_SIZE);
	for (i = 0; i < SNIC_RSS_TABLE_SIZE; i++)
		cfg->rqn[i] = cpu_to_le32(priv->ch[priv->indir[i] %
						   priv->nch_open].rq.qn);
	return cfg;
}

/* Push the indirection table and key to the live RSS group. */
int snic_rss_apply(struct snic_priv *priv)
{
	struct snic_rss_cfg *cfg;
	int ret;

	if (!priv->up || !priv->rss_live)
		return 0;
	cfg = snic_rss_cfg(priv);
	if (!cfg)
		return -ENOMEM;
	ret = snic_aq_exec_buf(priv->sd, SNIC_AQ_MODIFY_RSS, priv->rss_id, 0,
			       cfg, sizeof(*cfg), NULL);
	kfree(cfg);
	return ret;
}

/* RSS group over all channels, reached through a catch-all rule. */
static int snic_rss_open(struct snic_priv *priv)
{
	struct snic_steer_rule rule = {
		.priority = cpu_to_le16(SNIC_CATCHALL_PRIO),
	};
	struct snic_dev *sd = priv->sd;
	struct snic_rss_cfg *cfg;
	u64 res;
	int ret;

	if (snic_has(sd, SNIC_CAP_RSS)) {
		cfg = snic_rss_cfg(priv);
		if (!cfg)
			return -ENOMEM;
		ret = snic_aq_exec_buf(sd, SNIC_AQ_CREATE_RSS, 0, 0, cfg,
				       sizeof(*cfg), &res);
		kfree(cfg);
		if (ret)
			return ret;
		priv->rss_id = res;
		priv->rss_live = true;
		rule.dest = SNIC_DEST_RSS;
		rule.dest_id = cpu_to_le32(priv->rss_id);
	} else {
		rule.dest = SNIC_DEST_RQ;
		rule.dest_id = cpu_to_le32(priv->ch[0].rq.qn);
	}
	ret = snic_aq_exec_buf(sd, SNIC_AQ_ADD_RULE, 0, 0, &rule, sizeof(rule),
			       &res);
	if (ret)
		return ret;
	priv->rss_rule = res;
	priv->rss_rule_live = true;
	return 0;
}

void snic_channels_close(struct snic_priv *priv)
{
	struct snic_ntuple *r;
	int i;

	list_for_each_entry(r, &priv->ntuple, node)
		snic_ntuple_uninstall(priv, r);
	snic_rss_close(priv);
	priv->up = false;
	for (i = 0; i < priv->nch_open; i++)
		snic_channel_close(priv, &priv->ch[i]);
	kfree(priv->ch);
	priv->ch = NULL;
	priv->nch_open = 0;
}

int snic_channels_open(struct snic_priv *priv)
{
	struct net_device *nd = priv->netdev;
	struct snic_ntuple *r;
	int i, ret;

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

	/* RXCSUM/RXHASH are read per packet; ntuple off drops the rules. */
	if ((nd->features & NETIF_F_NTUPLE) && !(features & NETIF_F_NTUPLE))
		snic_ntuple_flush(priv);
	return 0;
}

static int snic_set_tx_maxrate(struct net_device *nd, int qi, u32 maxrate)
{
	struct snic_priv *priv = netdev_priv(nd);
	int ret;

	if (!snic_has(priv->sd, SNIC_CAP_RATE))
		return -EOPNOTSUPP;
	if (qi < 0 || qi >= priv->max_ch)
		return -EINVAL;
	if (priv->up && qi < priv->nch_open) {
		ret = snic_cmd_sq_rate(priv->sd, priv->ch[qi].sq.qn,
				       (u64)maxrate * 1000000);
		if (ret)
			return ret;
	}
	/* Kept for channel rebuilds. */
	priv->tx_rate[qi] = maxrate;
	return 0;
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
	.ndo_set_tx_maxrate	= snic_set_tx_maxrate,
	.ndo_tx_timeout		= snic_tx_timeout,
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
		f |= NETIF_F_NTUPLE;
	return f;
}

int snic_eth_probe(struct snic_dev *sd)
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
	mutex_init(&priv->port_lock);
	INIT_WORK(&priv->rx_mode_work, snic_rx_mode_work);
	INIT_WORK(&priv->reset_work, snic_reset_work);
	priv->stats = kcalloc(max_ch, sizeof(*priv->stats), GFP_KERNEL);
	priv->tx_rate = kcalloc(max_ch, sizeof(*priv->tx_rate), GFP_KERNEL);
	if (!priv->stats || !priv->tx_rate) {
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
	free_netdev(nd);
	return ret;
}

void snic_eth_remove(struct snic_dev *sd)
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
	sd->netdev = NULL;
	kfree(priv->stats);
	kfree(priv->tx_rate);
	free_netdev(nd);
}
