// SPDX-License-Identifier: GPL-2.0
/*
 * snic Ethernet receive: RQ refill with page fragments of MTU + 18 bytes,
 * RX completions in NAPI turned into skbs with build_skb, checksum and
 * RSS hash from the CQE.  With an XDP program its verdict comes first
 * (snic_en_xdp.c).
 */
#include <linux/etherdevice.h>
#include "snic.h"
#include "snic_en.h"

static int snic_rx_alloc(struct snic_channel *ch, struct snic_rx_buf *rb,
			 bool in_napi)
{
	struct device *dev = &ch->priv->sd->pdev->dev;
	void *data;

	data = in_napi ? napi_alloc_frag(ch->rx_frag_size) :
			 netdev_alloc_frag(ch->rx_frag_size);
	if (!data)
		return -ENOMEM;
	rb->dma = dma_map_single(dev, data + ch->rx_headroom, ch->rx_buf_len,
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
bool snic_rx_refill(struct snic_channel *ch, bool in_napi)
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
	if (flags & SNIC_CQE_F_VLAN)
		__vlan_hwaccel_put_tag(skb, htons(ETH_P_8021Q),
				       le16_to_cpu(cqe->vlan_tci));
	if ((features & NETIF_F_RXHASH) && (flags & SNIC_CQE_F_HASH)) {
		skb_set_hash(skb, le32_to_cpu(cqe->rss_hash),
			     l4 ? PKT_HASH_TYPE_L4 : PKT_HASH_TYPE_L3);
		st->hash++;
	}
	/* hardware time stamp: the CQE's completion time (device ns) */
	if (READ_ONCE(ch->priv->tstamp.rx_filter) == HWTSTAMP_FILTER_ALL)
		skb_hwtstamps(skb)->hwtstamp =
			ns_to_ktime(le64_to_cpu(cqe->timestamp));
}

int snic_rx_poll(struct snic_channel *ch, int budget)
{
	struct net_device *nd = ch->priv->netdev;
	struct device *dev = &ch->priv->sd->pdev->dev;
	struct snic_rxq_stats *st = &ch->stats->rx;
	struct snic_cq *cq = &ch->rxcq;
	struct snic_wq *rq = &ch->rq;
	struct bpf_prog *prog;
	struct snic_cqe *cqe;
	int work = 0;

	/* NAPI runs in an RCU read-side section: the program stays. */
	prog = READ_ONCE(ch->priv->xdp_prog);
	u64_stats_update_begin(&st->syncp);
	while (work < budget && (cqe = snic_cq_next(cq))) {
		struct snic_rx_buf *rb = &ch->rx_buf[rq->cons & (rq->size - 1)];
		u32 len = le32_to_cpu(cqe->byte_cnt);
		u32 off = ch->rx_headroom;
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
		if (prog) {
			data = snic_xdp_rx(ch, prog, rb, &off, &len);
			if (!data)
				continue;
		} else {
			dma_unmap_single(dev, rb->dma, ch->rx_buf_len,
					 DMA_FROM_DEVICE);
			data = rb->data;
			rb->data = NULL;
		}
		skb = napi_build_skb(data, ch->rx_frag_size);
		if (unlikely(!skb)) {
			skb_free_frag(data);
			st->alloc_fail++;
			continue;
		}
		skb_reserve(skb, off);
		skb_put(skb, len);
		skb->protocol = eth_type_trans(skb, nd);
		snic_rx_csum_hash(ch, skb, cqe, st);
		skb_record_rx_queue(skb, ch->idx);
		st->packets++;
		st->bytes += len;
		napi_gro_receive(&ch->napi, skb);
	}
	u64_stats_update_end(&st->syncp);
	snic_xdp_rx_done(ch);
	if (work)
		snic_cq_update(cq);
	return work;
}

/* Free the posted receive buffers (queue destroyed). */
void snic_rx_drain(struct snic_channel *ch)
{
	struct device *dev = &ch->priv->sd->pdev->dev;
	u32 i;

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
