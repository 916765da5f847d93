// SPDX-License-Identifier: GPL-2.0
/*
 * snic Ethernet receive: RQ refill with page fragments of MTU + 18 bytes,
 * RX completions in NAPI turned into skbs with build_skb, checksum and
 * RSS hash from the CQE.  With rx_cqe_compress the RX CQ also holds
 * mini-CQE lines, each up to 7 completions.  With an XDP program its
 * verdict comes first (snic_en_xdp.c).  A channel with a zero-copy
 * AF_XDP pool posts UMEM frames instead (snic_xsk_rx.c).
 */
#include <linux/etherdevice.h>
#include <net/xdp_sock_drv.h>
#include "snic.h"
#include "snic_en.h"

static int snic_rx_alloc(struct snic_channel *ch, struct snic_rx_buf *rb,
			 bool in_napi)
{
	struct device *dev = &ch->priv->sd->pdev->dev;
	void *data;

	if (ch->xsk_pool)
		return snic_xsk_rx_alloc(ch, rb);
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
			if (ch->xsk_pool)
				st->xsk_fill_empty++;
			else
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

/*
 * One receive completion, from a whole CQE or from an entry of a mini-CQE
 * line (docs/snic.md "Mini-CQE lines"; an entry has no hash, VLAN tag or
 * time stamp: the CQ was made with SNIC_CQ_F_NO_HASH, and rx_cqe_compress
 * is refused with hardware RX time stamps).
 */
struct snic_rx_comp {
	u32 byte_cnt;
	u32 rss_hash;
	u32 flow_tag;
	u64 timestamp;
	u16 wqe_counter;
	u16 stride_idx;		/* striding RQs only; the netdev's are plain */
	u16 flags;		/* SNIC_CQE_F_* */
	u16 vlan_tci;
	u8 opcode;
	u8 syndrome;
};

static void snic_rx_comp_cqe(struct snic_rx_comp *c, const struct snic_cqe *cqe)
{
	c->byte_cnt = le32_to_cpu(cqe->byte_cnt);
	c->rss_hash = le32_to_cpu(cqe->rss_hash);
	c->flow_tag = le32_to_cpu(cqe->flow_tag);
	c->timestamp = le64_to_cpu(cqe->timestamp);
	c->wqe_counter = le16_to_cpu(cqe->wqe_counter);
	c->stride_idx = le16_to_cpu(cqe->stride_idx);
	c->flags = le16_to_cpu(cqe->flags);
	c->vlan_tci = le16_to_cpu(cqe->vlan_tci);
	c->opcode = cqe->opcode;
	c->syndrome = cqe->syndrome;
}

/* Entry @i of a mini-CQE line: an SNIC_CQE_RX completion, syndrome 0. */
static void snic_rx_comp_mini(struct snic_rx_comp *c,
			      const struct snic_cqe_line *l, unsigned int i)
{
	const struct snic_mini_cqe *m = &l->mini[i];

	memset(c, 0, sizeof(*c));
	c->byte_cnt = le16_to_cpu(m->byte_cnt);
	c->wqe_counter = le16_to_cpu(m->wqe_counter);
	c->stride_idx = le16_to_cpu(m->stride_idx);
	c->flags = le16_to_cpu(m->flags);
	if (c->flags & SNIC_CQE_F_TAG)
		c->flow_tag = le16_to_cpu(l->flow_tag);
	c->opcode = SNIC_CQE_RX;
	c->syndrome = SNIC_SYND_OK;
}

/*
 * A line the device should not have written: on a CQ made without
 * SNIC_CQ_F_MINI, with a count outside 1..SNIC_MINI_PER_LINE or for
 * another RQ.  The descriptors it stands for are unknown, so the channel
 * is rebuilt.
 */
static bool snic_rx_line_bad(struct snic_channel *ch,
			     const struct snic_cqe_line *l)
{
	if ((ch->rxcq.flags & SNIC_CQ_F_MINI) && l->count &&
	    l->count <= SNIC_MINI_PER_LINE && le16_to_cpu(l->qn) == ch->rq.qn)
		return false;
	netdev_err_once(ch->priv->netdev,
			"channel %d: bad mini-CQE line (count %u, rqn %u, CQ flags %#x), rebuilding\n",
			ch->idx, l->count, le16_to_cpu(l->qn), ch->rxcq.flags);
	schedule_work(&ch->priv->reset_work);
	return true;
}

/*
 * The next receive completion of the channel's RX CQ into @c.  A line is
 * consumed (the CQ's consumer counter moves past it) with its last entry,
 * so a NAPI budget may end in the middle of one.
 */
static bool snic_rx_next(struct snic_channel *ch, struct snic_rx_comp *c,
			 struct snic_rxq_stats *st)
{
	struct snic_cq *cq = &ch->rxcq;
	const struct snic_cqe_line *l;
	struct snic_cqe *cqe;

	while ((cqe = snic_cq_next(cq))) {
		if (!(cqe->op_own & SNIC_CQE_MINI)) {
			snic_rx_comp_cqe(c, cqe);
			cq->cons++;
			return true;
		}
		l = (const struct snic_cqe_line *)cqe;
		if (!ch->rx_mini_pos) {
			if (snic_rx_line_bad(ch, l)) {
				st->errors++;
				cq->cons++;
				continue;
			}
			st->mini_lines++;
		}
		snic_rx_comp_mini(c, l, ch->rx_mini_pos++);
		st->mini_cqes++;
		if (ch->rx_mini_pos == l->count) {
			ch->rx_mini_pos = 0;
			cq->cons++;
		}
		return true;
	}
	return false;
}

static void snic_rx_csum_hash(struct snic_channel *ch, struct sk_buff *skb,
			      const struct snic_rx_comp *c,
			      struct snic_rxq_stats *st)
{
	netdev_features_t features = ch->priv->netdev->features;
	u16 flags = c->flags;
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
		__vlan_hwaccel_put_tag(skb, htons(ETH_P_8021Q), c->vlan_tci);
	if ((features & NETIF_F_RXHASH) && (flags & SNIC_CQE_F_HASH)) {
		skb_set_hash(skb, c->rss_hash,
			     l4 ? PKT_HASH_TYPE_L4 : PKT_HASH_TYPE_L3);
		st->hash++;
	}
	/* hardware time stamp: the CQE's completion time (device ns) */
	if (READ_ONCE(ch->priv->tstamp.rx_filter) == HWTSTAMP_FILTER_ALL)
		skb_hwtstamps(skb)->hwtstamp = ns_to_ktime(c->timestamp);
}

int snic_rx_poll(struct snic_channel *ch, int budget)
{
	struct net_device *nd = ch->priv->netdev;
	struct device *dev = &ch->priv->sd->pdev->dev;
	struct snic_rxq_stats *st = &ch->stats->rx;
	struct snic_wq *rq = &ch->rq;
	struct snic_rx_comp c;
	struct bpf_prog *prog;
	int work = 0;

	/* NAPI runs in an RCU read-side section: the program stays. */
	prog = READ_ONCE(ch->priv->xdp_prog);
	u64_stats_update_begin(&st->syncp);
	while (work < budget && snic_rx_next(ch, &c, st)) {
		struct snic_rx_buf *rb = &ch->rx_buf[rq->cons & (rq->size - 1)];
		u32 len = c.byte_cnt;
		u32 off = ch->rx_headroom;
		struct sk_buff *skb;
		void *data;

		if (unlikely(c.wqe_counter != rq->cons))
			netdev_warn_once(nd, "RX CQE for descriptor %u, expected %u\n",
					 c.wqe_counter, rq->cons);
		rq->cons++;
		work++;
		/* Errors leave the buffer in its slot for the next refill. */
		if (unlikely(c.opcode != SNIC_CQE_RX || len < ETH_HLEN ||
			     len > ch->rx_buf_len || !rb->data)) {
			st->errors++;
			if (net_ratelimit())
				netdev_warn(nd, "RX error on queue %d: opcode %#x syndrome %u, %u bytes\n",
					    ch->idx, c.opcode, c.syndrome, len);
			continue;
		}
		if (ch->xsk_pool) {
			skb = snic_xsk_rx(ch, prog, rb, len);
			if (!skb)
				continue;
			len = skb->len;
		} else {
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
		}
		skb->protocol = eth_type_trans(skb, nd);
		snic_rx_csum_hash(ch, skb, &c, st);
		skb_record_rx_queue(skb, ch->idx);
		st->packets++;
		st->bytes += len;
		napi_gro_receive(&ch->napi, skb);
	}
	u64_stats_update_end(&st->syncp);
	snic_xdp_rx_done(ch);
	if (work)
		snic_cq_update(&ch->rxcq);
	return work;
}

/* Free the posted receive buffers (queue destroyed), UMEM frames too. */
void snic_rx_drain(struct snic_channel *ch)
{
	struct device *dev = &ch->priv->sd->pdev->dev;
	u32 i;

	for (i = 0; i < ch->rx_buf_n; i++) {
		struct snic_rx_buf *rb = &ch->rx_buf[i];

		if (!rb->data)
			continue;
		if (ch->xsk_pool) {
			xsk_buff_free(rb->data);
		} else {
			dma_unmap_single(dev, rb->dma, ch->rx_buf_len,
					 DMA_FROM_DEVICE);
			skb_free_frag(rb->data);
		}
		rb->data = NULL;
	}
}
