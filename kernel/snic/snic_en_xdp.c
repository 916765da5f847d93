// SPDX-License-Identifier: GPL-2.0
/*
 * snic native XDP: the program on the port (ndo_bpf), its verdicts on
 * received frames (called from snic_rx_poll()), and ndo_xdp_xmit.
 *
 * Receive buffers are page fragments; with a program they get
 * XDP_PACKET_HEADROOM before the frame (the channels are rebuilt when a
 * program comes or goes) and the memory model MEM_TYPE_PAGE_SHARED, so an
 * xdp_frame is returned with page_frag_free().  XDP_DROP and XDP_ABORTED
 * leave the buffer in its RQ slot to be posted again.  XDP_TX and
 * ndo_xdp_xmit post on a channel's own SQ under its netdev queue's TX lock
 * (snic_xdp_post()).  snic_xdp_verdict() and snic_xdp_send() serve both
 * kinds of RQ: page fragments (here) and zero-copy AF_XDP's UMEM frames
 * (snic_xsk_rx.c, memory model MEM_TYPE_XSK_BUFF_POOL).
 */
#include <linux/bpf_trace.h>
#include <linux/filter.h>
#include <linux/netdevice.h>
#include <net/xdp.h>
#include <net/xdp_sock_drv.h>
#include "snic.h"
#include "snic_en.h"

/* Receive buffer geometry for @mtu: one fragment, headroom included. */
unsigned int snic_rx_frag_size(unsigned int headroom, unsigned int mtu)
{
	return SKB_DATA_ALIGN(headroom + ALIGN(mtu + SNIC_FRAME_OVERHEAD, 64)) +
	       SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
}

unsigned int snic_rx_headroom(struct snic_priv *priv)
{
	return priv->xdp_prog ? XDP_PACKET_HEADROOM : SNIC_RX_HEADROOM;
}

/* A frame with its XDP headroom and tailroom must fit in one page. */
bool snic_xdp_mtu_ok(unsigned int mtu)
{
	return snic_rx_frag_size(XDP_PACKET_HEADROOM, mtu) <= PAGE_SIZE;
}

int snic_xdp_rxq_reg(struct snic_channel *ch)
{
	int ret;

	ret = xdp_rxq_info_reg(&ch->xdp_rxq, ch->priv->netdev, ch->idx,
			       ch->napi.napi_id);
	if (ret)
		return ret;
	ret = xdp_rxq_info_reg_mem_model(&ch->xdp_rxq, ch->xsk_pool ?
					 MEM_TYPE_XSK_BUFF_POOL :
					 MEM_TYPE_PAGE_SHARED, NULL);
	if (ret) {
		xdp_rxq_info_unreg(&ch->xdp_rxq);
		return ret;
	}
	if (ch->xsk_pool)
		xsk_pool_set_rxq_info(ch->xsk_pool, &ch->xdp_rxq);
	ch->xdp_rxq_reg = true;
	return 0;
}

void snic_xdp_rxq_unreg(struct snic_channel *ch)
{
	if (ch->xdp_rxq_reg)
		xdp_rxq_info_unreg(&ch->xdp_rxq);
	ch->xdp_rxq_reg = false;
}

/* Post @xdpf on @ch's SQ under its TX lock and ring the doorbell. */
static int snic_xdp_tx_one(struct snic_channel *ch, struct xdp_frame *xdpf)
{
	int ret;

	__netif_tx_lock(ch->txq, smp_processor_id());
	ret = snic_xdp_post(ch, xdpf);
	if (!ret)
		snic_wq_ring(ch->priv->sd, &ch->sq, SNIC_DB_SQ);
	__netif_tx_unlock(ch->txq);
	return ret;
}

/*
 * Run @prog on @xdp and count its verdict.  Returns XDP_PASS, XDP_TX,
 * XDP_REDIRECT, or XDP_DROP for a frame to drop (XDP_DROP, XDP_ABORTED
 * and unknown verdicts).
 */
u32 snic_xdp_verdict(struct snic_channel *ch, struct bpf_prog *prog,
		     struct xdp_buff *xdp)
{
	struct net_device *nd = ch->priv->netdev;
	struct snic_rxq_stats *st = &ch->stats->rx;
	u32 act = bpf_prog_run_xdp(prog, xdp);

	switch (act) {
	case XDP_PASS:
		st->xdp_pass++;
		return act;
	case XDP_TX:
	case XDP_REDIRECT:
		return act;
	case XDP_DROP:
		st->xdp_drop++;
		return act;
	default:
		bpf_warn_invalid_xdp_action(nd, prog, act);
		fallthrough;
	case XDP_ABORTED:
		trace_xdp_exception(nd, prog, act);
		st->xdp_aborted++;
		return XDP_DROP;
	}
}

/*
 * XDP_TX or XDP_REDIRECT (@act) of @xdp, whose buffer has left its RQ
 * slot.  Either way the buffer is gone: sent, or given back to its memory
 * model (page fragment or XSK pool) and counted.
 */
void snic_xdp_send(struct snic_channel *ch, struct bpf_prog *prog,
		   struct xdp_buff *xdp, u32 act)
{
	struct net_device *nd = ch->priv->netdev;
	struct snic_rxq_stats *st = &ch->stats->rx;
	struct xdp_frame *xdpf;

	if (act == XDP_REDIRECT) {
		if (unlikely(xdp_do_redirect(nd, xdp, prog))) {
			st->xdp_redirect_err++;
			xdp_return_buff(xdp);
			return;
		}
		ch->xdp_flush = true;
		st->xdp_redirect++;
		return;
	}
	/* From an XSK buffer: a copy in a new page, the buffer freed. */
	xdpf = xdp_convert_buff_to_frame(xdp);
	if (unlikely(!xdpf)) {
		xdp_return_buff(xdp);
		goto err;
	}
	if (unlikely(snic_xdp_tx_one(ch, xdpf))) {
		xdp_return_frame(xdpf);
		goto err;
	}
	st->xdp_tx++;
	return;
err:
	trace_xdp_exception(nd, prog, act);
	st->xdp_tx_err++;
}

/*
 * Run @prog on the page fragment frame in @rb (@len bytes after
 * ch->rx_headroom), in NAPI.  Returns the buffer, unmapped and taken from
 * its slot, when the frame goes on to the stack (*off and *len say where
 * it is now); NULL when XDP consumed it: transmitted, redirected, or
 * dropped (then the buffer stays in its slot for the next refill).
 */
void *snic_xdp_rx(struct snic_channel *ch, struct bpf_prog *prog,
		  struct snic_rx_buf *rb, u32 *off, u32 *len)
{
	struct device *dev = &ch->priv->sd->pdev->dev;
	void *data = rb->data;
	struct xdp_buff xdp;
	u32 act;

	dma_sync_single_for_cpu(dev, rb->dma, *len, DMA_FROM_DEVICE);
	xdp_init_buff(&xdp, ch->rx_frag_size, &ch->xdp_rxq);
	xdp_prepare_buff(&xdp, data, ch->rx_headroom, *len, false);
	act = snic_xdp_verdict(ch, prog, &xdp);
	if (act == XDP_DROP) {
		dma_sync_single_for_device(dev, rb->dma, ch->rx_buf_len,
					   DMA_FROM_DEVICE);
		return NULL;
	}
	/* The frame leaves its slot; the CPU's view is current. */
	dma_unmap_single_attrs(dev, rb->dma, ch->rx_buf_len, DMA_FROM_DEVICE,
			       DMA_ATTR_SKIP_CPU_SYNC);
	rb->data = NULL;
	if (act == XDP_PASS) {
		*off = xdp.data - xdp.data_hard_start;
		*len = xdp.data_end - xdp.data;
		return data;
	}
	snic_xdp_send(ch, prog, &xdp, act);
	return NULL;
}

/* End of a NAPI poll: hand redirected frames on. */
void snic_xdp_rx_done(struct snic_channel *ch)
{
	if (ch->xdp_flush) {
		xdp_do_flush();
		ch->xdp_flush = false;
	}
}

/*
 * ndo_xdp_xmit: frames redirected to this port (devmap), on the SQ of the
 * channel of this CPU.  Returns how many were taken; the rest stay the
 * caller's.
 */
int snic_xdp_xmit(struct net_device *nd, int n, struct xdp_frame **frames,
		  u32 flags)
{
	struct snic_priv *priv = netdev_priv(nd);
	struct snic_channel *ch;
	int i, nch;

	if (unlikely(flags & ~XDP_XMIT_FLAGS_MASK))
		return -EINVAL;
	/* snic_channels_close() clears up, then waits for us (RCU). */
	nch = READ_ONCE(priv->nch_open);
	if (unlikely(!READ_ONCE(priv->up) || !nch))
		return -ENETDOWN;
	ch = &priv->ch[smp_processor_id() % nch];

	__netif_tx_lock(ch->txq, smp_processor_id());
	for (i = 0; i < n; i++)
		if (snic_xdp_post(ch, frames[i]))
			break;
	if (i && (flags & XDP_XMIT_FLUSH))
		snic_wq_ring(priv->sd, &ch->sq, SNIC_DB_SQ);
	__netif_tx_unlock(ch->txq);
	return i;
}

/* The port goes: its program, if the core has not detached it already. */
void snic_xdp_release(struct snic_priv *priv)
{
	if (priv->xdp_prog)
		bpf_prog_put(priv->xdp_prog);
	priv->xdp_prog = NULL;
}
