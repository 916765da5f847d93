// SPDX-License-Identifier: GPL-2.0
/*
 * hdc host command queue: a ring of 64-byte D2D commands and a ring of
 * 16-byte completions in host memory (docs/hdc.md, "Host command queue").
 *
 * Like snic's admin queue, but asynchronous: every command carries a
 * struct hdc_request, up to depth - 1 are posted at once, the rest wait on
 * a backlog that the completion interrupt refills the ring from.  The
 * device completes commands in submission order; each completion calls
 * its request's end_io, set by whoever built the request, which hands it
 * to the driver's workqueue to be finished in process context (file size,
 * page cache, statistics) and its waiters woken.  The lowest layer of the
 * request path: it calls no other file.
 */
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/slab.h>
#include "hdc.h"

#define HDC_CMD_SLOT_BITS	6	/* log2(HDC_QUEUE_DEPTH) */

int hdc_queue_init(struct hdc_dev *hd)
{
	struct hdc_queue *q = &hd->q;
	struct device *dev = &hd->pdev->dev;
	u32 depth = hdc_rd(hd, HDC_REG_QUEUE_DEPTH);

	if (depth != HDC_QUEUE_DEPTH) {
		dev_err(dev, "unexpected queue depth %u (expected %u)\n", depth,
			HDC_QUEUE_DEPTH);
		return -ENODEV;
	}
	q->depth = depth;
	q->cmdq = dma_alloc_coherent(dev, q->depth * sizeof(*q->cmdq),
				     &q->cmdq_dma, GFP_KERNEL);
	q->cplq = dma_alloc_coherent(dev, q->depth * sizeof(*q->cplq),
				     &q->cplq_dma, GFP_KERNEL);
	q->slot = kcalloc(q->depth, sizeof(*q->slot), GFP_KERNEL);
	q->slot_id = kcalloc(q->depth, sizeof(*q->slot_id), GFP_KERNEL);
	if (!q->cmdq || !q->cplq || !q->slot || !q->slot_id) {
		hdc_queue_destroy(hd);
		return -ENOMEM;
	}
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->backlog);
	init_waitqueue_head(&q->idle);
	q->tail = 0;
	q->head = 0;
	q->phase = 1;
	q->posted = 0;
	q->dead = false;

	hdc_wr(hd, HDC_REG_CMDQ_BASE_LO, lower_32_bits(q->cmdq_dma));
	hdc_wr(hd, HDC_REG_CMDQ_BASE_HI, upper_32_bits(q->cmdq_dma));
	hdc_wr(hd, HDC_REG_CPLQ_BASE_LO, lower_32_bits(q->cplq_dma));
	hdc_wr(hd, HDC_REG_CPLQ_BASE_HI, upper_32_bits(q->cplq_dma));
	hdc_wr(hd, HDC_REG_MSIX, HDC_CMD_VECTOR);
	hdc_wr(hd, HDC_REG_CPLQ_HEAD, 0);
	hdc_wr(hd, HDC_REG_CTRL, HDC_CTRL_ENABLE);

	if (!(hdc_rd(hd, HDC_REG_STATUS) & HDC_STATUS_ENABLED)) {
		dev_err(dev, "device refused the command queue (error %u)\n",
			hdc_rd(hd, HDC_REG_ERROR));
		hdc_queue_destroy(hd);
		return -EIO;
	}
	return 0;
}

void hdc_queue_destroy(struct hdc_dev *hd)
{
	struct hdc_queue *q = &hd->q;
	struct device *dev = &hd->pdev->dev;

	if (q->cmdq)
		dma_free_coherent(dev, q->depth * sizeof(*q->cmdq), q->cmdq,
				  q->cmdq_dma);
	if (q->cplq)
		dma_free_coherent(dev, q->depth * sizeof(*q->cplq), q->cplq,
				  q->cplq_dma);
	kfree(q->slot);
	kfree(q->slot_id);
	q->cmdq = NULL;
	q->cplq = NULL;
	q->slot = NULL;
	q->slot_id = NULL;
}

/* Copy one request into the next ring slot. */
static void hdc_queue_post(struct hdc_queue *q, struct hdc_request *req)
{
	u32 slot = q->tail;
	u16 id;

	lockdep_assert_held(&q->lock);
	q->gen++;
	id = slot | ((q->gen << HDC_CMD_SLOT_BITS) & 0xffff);
	req->cmd.cmd_id = cpu_to_le16(id);
	q->slot[slot] = req;
	q->slot_id[slot] = id;
	memcpy(&q->cmdq[slot], &req->cmd, sizeof(req->cmd));
	q->tail = (slot + 1) & (q->depth - 1);
	q->posted++;
}

/* Post from the backlog while the ring has room. */
static bool hdc_queue_refill(struct hdc_queue *q)
{
	struct hdc_request *req;
	bool any = false;

	lockdep_assert_held(&q->lock);
	while (q->posted < q->depth - 1 && !list_empty(&q->backlog)) {
		req = list_first_entry(&q->backlog, struct hdc_request, qnode);
		list_del_init(&req->qnode);
		hdc_queue_post(q, req);
		any = true;
	}
	return any;
}

static void hdc_queue_doorbell(struct hdc_dev *hd)
{
	lockdep_assert_held(&hd->q.lock);
	/* Commands must be in memory before the device sees the tail. */
	dma_wmb();
	hdc_wr(hd, HDC_REG_CMDQ_TAIL, hd->q.tail);
}

/* req->end_io will be called once, from any context (hard IRQ). */
int hdc_queue_submit(struct hdc_dev *hd, struct hdc_request *req)
{
	struct hdc_queue *q = &hd->q;
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	if (q->dead) {
		spin_unlock_irqrestore(&q->lock, flags);
		return -ENODEV;
	}
	atomic_inc(&hd->inflight);
	list_add_tail(&req->qnode, &q->backlog);
	if (hdc_queue_refill(q))
		hdc_queue_doorbell(hd);
	spin_unlock_irqrestore(&q->lock, flags);
	return 0;
}

irqreturn_t hdc_queue_irq(int irq, void *data)
{
	struct hdc_dev *hd = data;
	struct hdc_queue *q = &hd->q;
	struct hdc_request *req, *tmp;
	LIST_HEAD(done);
	int n = 0;

	spin_lock(&q->lock);
	for (;;) {
		struct hdc_cpl *cpl = &q->cplq[q->head];
		u32 slot;
		u16 id;

		if ((READ_ONCE(cpl->flags) & HDC_CPL_PHASE) != q->phase)
			break;
		dma_rmb();
		id = le16_to_cpu(cpl->cmd_id);
		slot = id & (q->depth - 1);
		req = q->slot[slot];
		if (req && q->slot_id[slot] == id) {
			req->status = le16_to_cpu(cpl->status);
			req->result = le64_to_cpu(cpl->result);
			q->slot[slot] = NULL;
			q->posted--;
			list_add_tail(&req->qnode, &done);
		} else {
			q->stale++;
			dev_warn_ratelimited(&hd->pdev->dev,
					     "stale completion id %#x status %u\n",
					     id, le16_to_cpu(cpl->status));
		}
		if (++q->head == q->depth) {
			q->head = 0;
			q->phase ^= 1;
		}
		n++;
	}
	if (n) {
		hdc_wr(hd, HDC_REG_CPLQ_HEAD, q->head);
		if (!q->dead && hdc_queue_refill(q))
			hdc_queue_doorbell(hd);
		if (!q->posted && list_empty(&q->backlog))
			wake_up_all(&q->idle);
	}
	spin_unlock(&q->lock);

	list_for_each_entry_safe(req, tmp, &done, qnode) {
		list_del_init(&req->qnode);
		req->end_io(req);
	}
	return n ? IRQ_HANDLED : IRQ_NONE;
}

static bool hdc_queue_idle(struct hdc_queue *q)
{
	unsigned long flags;
	bool idle;

	spin_lock_irqsave(&q->lock, flags);
	idle = !q->posted && list_empty(&q->backlog);
	spin_unlock_irqrestore(&q->lock, flags);
	return idle;
}

/*
 * Stop the queue for removal: fail what has not been posted, give the
 * engine HDC_DRAIN_TIMEOUT_MS to finish what it owns, then reset it and
 * fail the rest.  Afterwards no request references the rings.
 */
void hdc_queue_stop(struct hdc_dev *hd)
{
	struct hdc_queue *q = &hd->q;
	struct hdc_request *req, *tmp;
	unsigned long flags;
	LIST_HEAD(failed);
	u32 i;

	spin_lock_irqsave(&q->lock, flags);
	q->dead = true;
	list_splice_init(&q->backlog, &failed);
	spin_unlock_irqrestore(&q->lock, flags);
	list_for_each_entry_safe(req, tmp, &failed, qnode) {
		list_del_init(&req->qnode);
		req->drv_err = -ENODEV;
		req->end_io(req);
	}

	if (wait_event_timeout(q->idle, hdc_queue_idle(q),
			       msecs_to_jiffies(HDC_DRAIN_TIMEOUT_MS)))
		return;

	dev_err(&hd->pdev->dev, "engine did not finish %u commands, resetting it (error %u)\n",
		q->posted, hdc_rd(hd, HDC_REG_ERROR));
	hdc_wr(hd, HDC_REG_CTRL, HDC_CTRL_RESET);
	spin_lock_irqsave(&q->lock, flags);
	for (i = 0; i < q->depth; i++) {
		req = q->slot[i];
		if (!req)
			continue;
		q->slot[i] = NULL;
		req->drv_err = -EIO;
		list_add_tail(&req->qnode, &failed);
	}
	q->posted = 0;
	spin_unlock_irqrestore(&q->lock, flags);
	list_for_each_entry_safe(req, tmp, &failed, qnode) {
		list_del_init(&req->qnode);
		req->end_io(req);
	}
}

/* One more in a driver counter of hd's statistics. */
void hdc_stat_inc(struct hdc_dev *hd, u64 *counter)
{
	unsigned long flags;

	spin_lock_irqsave(&hd->stat_lock, flags);
	(*counter)++;
	spin_unlock_irqrestore(&hd->stat_lock, flags);
}

/*
 * Fold the device's 32-bit command counters into 64-bit ones (for
 * HDC_IOC_STATS and sysfs).
 */
void hdc_stats_sync(struct hdc_dev *hd)
{
	u32 dev_cmds = hdc_rd(hd, HDC_REG_STAT_DEV_CMDS);
	u32 nvme_cmds = hdc_rd(hd, HDC_REG_STAT_NVME_CMDS);
	unsigned long flags;

	spin_lock_irqsave(&hd->stat_lock, flags);
	hd->dev_cmds += (u32)(dev_cmds - hd->raw_dev_cmds);
	hd->nvme_cmds += (u32)(nvme_cmds - hd->raw_nvme_cmds);
	hd->raw_dev_cmds = dev_cmds;
	hd->raw_nvme_cmds = nvme_cmds;
	spin_unlock_irqrestore(&hd->stat_lock, flags);
}
