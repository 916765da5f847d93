// SPDX-License-Identifier: GPL-2.0
/*
 * snic zero-copy AF_XDP receive: a channel whose queue has an XSK pool
 * posts UMEM frames from the pool's fill ring on its RQ (one per
 * descriptor, by their DMA address), so the device writes frames
 * straight into the application's memory.  Called from snic_en_rx.c:
 * the XDP verdict (snic_en_xdp.c) sends a frame to the socket with
 * XDP_REDIRECT to an xskmap, no copy; XDP_PASS (or no program) copies it
 * into an skb and the frame goes back to the pool, as do dropped ones.
 */
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/xdp_sock_drv.h>
#include "snic.h"
#include "snic_en.h"

/* One UMEM frame for RQ slot @rb; -ENOBUFS when the fill ring is empty. */
int snic_xsk_rx_alloc(struct snic_channel *ch, struct snic_rx_buf *rb)
{
	struct xdp_buff *xdp = xsk_buff_alloc(ch->xsk_pool);

	if (!xdp)
		return -ENOBUFS;
	rb->data = xdp;
	rb->dma = xsk_buff_xdp_get_dma(xdp);
	return 0;
}

/* XDP_PASS: the frame as the program left it, copied into a new skb. */
static struct sk_buff *snic_xsk_copy(struct snic_channel *ch,
				     struct xdp_buff *xdp)
{
	u32 len = xdp->data_end - xdp->data;
	struct sk_buff *skb;

	skb = napi_alloc_skb(&ch->napi, len);
	if (unlikely(!skb))
		return NULL;
	skb_put_data(skb, xdp->data, len);
	return skb;
}

/*
 * The frame of @len bytes in UMEM frame @rb, in NAPI (stats under their
 * syncp).  The frame leaves its slot whatever comes (the next refill
 * takes a new one from the fill ring).  Returns the skb for the stack
 * (XDP_PASS, or no program), else NULL.
 */
struct sk_buff *snic_xsk_rx(struct snic_channel *ch, struct bpf_prog *prog,
			    struct snic_rx_buf *rb, u32 len)
{
	struct snic_rxq_stats *st = &ch->stats->rx;
	struct xdp_buff *xdp = rb->data;
	struct sk_buff *skb = NULL;
	u32 act = XDP_PASS;

	rb->data = NULL;
	xsk_buff_set_size(xdp, len);
	xsk_buff_dma_sync_for_cpu(xdp, ch->xsk_pool);
	st->xsk_packets++;
	st->xsk_bytes += len;
	if (prog)
		act = snic_xdp_verdict(ch, prog, xdp);
	switch (act) {
	case XDP_TX:
	case XDP_REDIRECT:
		snic_xdp_send(ch, prog, xdp, act);
		return NULL;
	case XDP_PASS:
		skb = snic_xsk_copy(ch, xdp);
		if (skb)
			st->xsk_pass_copy++;
		else
			st->alloc_fail++;
		break;
	}
	xsk_buff_free(xdp);
	return skb;
}

/*
 * After a refill (@filled: the RQ is full again).  With need_wakeup the
 * application is asked to wake the channel when the fill ring ran dry,
 * and told not to when it did not.  Returns true when NAPI may stop with
 * an empty RQ: the application's wakeup (after it refills) schedules it
 * again.  Without need_wakeup NAPI polls on until frames come.
 */
bool snic_xsk_rx_sleep(struct snic_channel *ch, bool filled)
{
	struct xsk_buff_pool *pool = ch->xsk_pool;

	if (!pool || !xsk_uses_need_wakeup(pool))
		return false;
	if (filled) {
		xsk_clear_rx_need_wakeup(pool);
		return false;
	}
	xsk_set_rx_need_wakeup(pool);
	/* Frames filled before the flag was visible would wake no one. */
	smp_mb();
	return !xsk_buff_can_alloc(pool, 1);
}
