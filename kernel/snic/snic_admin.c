// SPDX-License-Identifier: GPL-2.0
/*
 * snic admin queue: a command ring and a completion ring in host memory.
 *
 * Commands are posted by writing the 64-byte command into the ring and the
 * new tail into SNIC_REG_AQ_SQ_TAIL.  The device writes 16-byte completions
 * whose phase bit flips on every pass over the ring and raises MSI-X vector
 * SNIC_AQ_VECTOR.  Every caller sleeps on its own completion, so commands
 * from several contexts may be in flight at once.
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/export.h>
#include <linux/interrupt.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <d2d/snic_rdma_ifc.h>
#include "snic.h"

#define SNIC_CMD_SLOT_BITS	12

static const char *snic_aq_status_str(u16 status)
{
	switch (status) {
	case SNIC_AQ_OK:		return "ok";
	case SNIC_AQ_EINVAL_OPCODE:	return "invalid opcode";
	case SNIC_AQ_EINVAL_PARAM:	return "invalid parameter";
	case SNIC_AQ_EDMA:		return "DMA error";
	case SNIC_AQ_ENOSPC:		return "out of resources";
	case SNIC_AQ_ENOENT:		return "no such object";
	case SNIC_AQ_EBUSY:		return "object busy";
	case SNIC_AQ_ESTATE:		return "QP state transition not allowed";
	default:			return "unknown status";
	}
}

static int snic_aq_status_errno(u16 status)
{
	switch (status) {
	case SNIC_AQ_OK:		return 0;
	case SNIC_AQ_EINVAL_OPCODE:	return -EOPNOTSUPP;
	case SNIC_AQ_EINVAL_PARAM:	return -EINVAL;
	case SNIC_AQ_EDMA:		return -EFAULT;
	case SNIC_AQ_ENOSPC:		return -ENOSPC;
	case SNIC_AQ_ENOENT:		return -ENOENT;
	case SNIC_AQ_EBUSY:		return -EBUSY;
	case SNIC_AQ_ESTATE:		return -EINVAL;
	default:			return -EIO;
	}
}

int snic_aq_init(struct snic_dev *sd)
{
	struct snic_aq *aq = &sd->aq;
	struct device *dev = &sd->pdev->dev;

	aq->depth = SNIC_AQ_DEPTH;
	aq->sq = dma_alloc_coherent(dev, aq->depth * sizeof(*aq->sq),
				    &aq->sq_dma, GFP_KERNEL);
	aq->cq = dma_alloc_coherent(dev, aq->depth * sizeof(*aq->cq),
				    &aq->cq_dma, GFP_KERNEL);
	aq->inflight = kcalloc(aq->depth, sizeof(*aq->inflight), GFP_KERNEL);
	if (!aq->sq || !aq->cq || !aq->inflight) {
		snic_aq_destroy(sd);
		return -ENOMEM;
	}
	spin_lock_init(&aq->lock);
	sema_init(&aq->slots, aq->depth - 1);
	aq->sq_tail = 0;
	aq->cq_head = 0;
	aq->phase = 1;

	snic_wr(sd, SNIC_REG_AQ_SQ_BASE_LO, lower_32_bits(aq->sq_dma));
	snic_wr(sd, SNIC_REG_AQ_SQ_BASE_HI, upper_32_bits(aq->sq_dma));
	snic_wr(sd, SNIC_REG_AQ_CQ_BASE_LO, lower_32_bits(aq->cq_dma));
	snic_wr(sd, SNIC_REG_AQ_CQ_BASE_HI, upper_32_bits(aq->cq_dma));
	snic_wr(sd, SNIC_REG_AQ_DEPTH, aq->depth);
	snic_wr(sd, SNIC_REG_AQ_MSIX, SNIC_AQ_VECTOR);
	snic_wr(sd, SNIC_REG_CTRL, SNIC_CTRL_AQ_ENABLE);

	if (!(snic_rd(sd, SNIC_REG_STATUS) & SNIC_STATUS_AQ_ENABLED)) {
		dev_err(dev, "device refused the admin queue (error %u)\n",
			snic_rd(sd, SNIC_REG_ERROR));
		snic_aq_destroy(sd);
		return -EIO;
	}
	return 0;
}

void snic_aq_destroy(struct snic_dev *sd)
{
	struct snic_aq *aq = &sd->aq;
	struct device *dev = &sd->pdev->dev;

	if (sd->regs)
		snic_wr(sd, SNIC_REG_CTRL, 0);
	if (aq->sq)
		dma_free_coherent(dev, aq->depth * sizeof(*aq->sq), aq->sq,
				  aq->sq_dma);
	if (aq->cq)
		dma_free_coherent(dev, aq->depth * sizeof(*aq->cq), aq->cq,
				  aq->cq_dma);
	kfree(aq->inflight);
	aq->sq = NULL;
	aq->cq = NULL;
	aq->inflight = NULL;
}

irqreturn_t snic_aq_irq(int irq, void *data)
{
	struct snic_dev *sd = data;
	struct snic_aq *aq = &sd->aq;
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&aq->lock, flags);
	for (;;) {
		struct snic_aq_cqe *cqe = &aq->cq[aq->cq_head];
		struct snic_aq_ctx **slot, *ctx;
		u16 id;

		if ((READ_ONCE(cqe->flags) & SNIC_AQ_CQE_PHASE) != aq->phase)
			break;
		dma_rmb();
		id = le16_to_cpu(cqe->cmd_id);
		slot = &aq->inflight[id & (aq->depth - 1)];
		ctx = *slot;
		if (ctx && ctx->cmd_id == id) {
			ctx->cqe = *cqe;
			*slot = NULL;
			/* Under aq->lock: a timed-out waiter sees it done. */
			complete(&ctx->done);
		} else {
			dev_warn_ratelimited(&sd->pdev->dev,
					     "stale admin completion id %#x\n",
					     id);
		}
		if (++aq->cq_head == aq->depth) {
			aq->cq_head = 0;
			aq->phase ^= 1;
		}
		n++;
	}
	if (n)
		snic_wr(sd, SNIC_REG_AQ_CQ_HEAD, aq->cq_head);
	spin_unlock_irqrestore(&aq->lock, flags);
	return n ? IRQ_HANDLED : IRQ_NONE;
}

/*
 * Test only (docs/snic.md, "Admin queue"): sleep this many microseconds
 * between one admin command in eight completing and its caller reading
 * the result, so that a slow caller meets many fast ones
 * (tests/guest/snic_aq_stress.sh).  0, the default, never sleeps.
 */
static unsigned int aq_test_delay_us;
module_param(aq_test_delay_us, uint, 0644);
MODULE_PARM_DESC(aq_test_delay_us,
		 "test only: delay (us) before reading one admin result in 8");

static void snic_aq_test_delay(u16 cmd_id)
{
	unsigned int us = READ_ONCE(aq_test_delay_us);

	if (us && !((cmd_id >> SNIC_CMD_SLOT_BITS) & 7))
		usleep_range(us, us + us / 2);
}

/*
 * Run one admin command and wait for its completion.  Returns 0 or a
 * negative errno translated from the completion status.
 */
int snic_aq_exec(struct snic_dev *sd, struct snic_aq_cmd *cmd, u64 *result)
{
	struct snic_aq *aq = &sd->aq;
	struct snic_aq_ctx ctx;
	unsigned long flags;
	u32 id;
	u16 status;
	int ret;

	if (READ_ONCE(aq->broken))
		return -EIO;
	if (down_timeout(&aq->slots, msecs_to_jiffies(SNIC_AQ_TIMEOUT_MS)))
		return -ETIMEDOUT;

	init_completion(&ctx.done);
	spin_lock_irqsave(&aq->lock, flags);
	/* At most depth - 1 callers hold the semaphore: an id slot is free. */
	for (id = 0; aq->inflight[id]; id++)
		;
	aq->inflight[id] = &ctx;
	aq->gen++;
	ctx.cmd_id = id | ((aq->gen << SNIC_CMD_SLOT_BITS) & 0xffff);
	cmd->cmd_id = cpu_to_le16(ctx.cmd_id);
	memcpy(&aq->sq[aq->sq_tail], cmd, sizeof(*cmd));
	aq->sq_tail = (aq->sq_tail + 1) & (aq->depth - 1);
	/* The command must be in memory before the device sees the tail. */
	dma_wmb();
	snic_wr(sd, SNIC_REG_AQ_SQ_TAIL, aq->sq_tail);
	aq->cmds++;
	spin_unlock_irqrestore(&aq->lock, flags);

	if (!wait_for_completion_timeout(&ctx.done,
					 msecs_to_jiffies(SNIC_AQ_TIMEOUT_MS))) {
		spin_lock_irqsave(&aq->lock, flags);
		if (aq->inflight[id] == &ctx) {
			/* A late completion finds no waiter (stale). */
			aq->inflight[id] = NULL;
			aq->broken = true;
			aq->timeouts++;
			spin_unlock_irqrestore(&aq->lock, flags);
			dev_err(&sd->pdev->dev,
				"admin command %#x (opcode %#x) timed out, device error %u\n",
				ctx.cmd_id, cmd->opcode,
				snic_rd(sd, SNIC_REG_ERROR));
			/* The device may still read the command: keep its credit. */
			return -ETIMEDOUT;
		}
		/* It completed meanwhile (complete() ran under aq->lock). */
		spin_unlock_irqrestore(&aq->lock, flags);
	}
	/* The completion is in ctx, ours alone: others may go on. */
	up(&aq->slots);

	snic_aq_test_delay(ctx.cmd_id);
	status = le16_to_cpu(ctx.cqe.status);
	if (result)
		*result = le64_to_cpu(ctx.cqe.result);
	ret = snic_aq_status_errno(status);
	if (ret) {
		aq->errors++;
		dev_dbg(&sd->pdev->dev, "admin opcode %#x failed: %s\n",
			cmd->opcode, snic_aq_status_str(status));
	}
	return ret;
}
EXPORT_SYMBOL_NS_GPL(snic_aq_exec, SNIC_CORE);

/*
 * Run a command whose input or output is a buffer (struct snic_aq_buf):
 * @buf is copied into coherent memory for the device and back after it
 * completes, so callers may pass stack or kmalloc memory.
 */
int snic_aq_exec_buf(struct snic_dev *sd, u8 opcode, u32 id, u32 kind,
		     void *buf, size_t len, u64 *result)
{
	struct device *dev = &sd->pdev->dev;
	struct snic_aq_cmd cmd = {};
	dma_addr_t dma;
	void *dbuf;
	int ret;

	dbuf = dma_alloc_coherent(dev, len, &dma, GFP_KERNEL);
	if (!dbuf)
		return -ENOMEM;
	memcpy(dbuf, buf, len);
	cmd.opcode = opcode;
	cmd.buf.addr = cpu_to_le64(dma);
	cmd.buf.len = cpu_to_le32(len);
	cmd.buf.id = cpu_to_le32(id);
	cmd.buf.kind = cpu_to_le32(kind);
	ret = snic_aq_exec(sd, &cmd, result);
	if (!ret)
		memcpy(buf, dbuf, len);
	/* After a timeout the device may still write the buffer: leak it. */
	if (ret != -ETIMEDOUT)
		dma_free_coherent(dev, len, dbuf, dma);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(snic_aq_exec_buf, SNIC_CORE);

int snic_aq_identify(struct snic_dev *sd)
{
	struct device *dev = &sd->pdev->dev;
	struct snic_identify_data *id;
	struct snic_aq_cmd cmd = {};
	dma_addr_t dma;
	int ret;

	id = dma_alloc_coherent(dev, sizeof(*id), &dma, GFP_KERNEL);
	if (!id)
		return -ENOMEM;
	cmd.opcode = SNIC_AQ_IDENTIFY;
	cmd.identify.buf_addr = cpu_to_le64(dma);
	cmd.identify.buf_len = cpu_to_le32(sizeof(*id));
	ret = snic_aq_exec(sd, &cmd, NULL);
	if (!ret) {
		if (le32_to_cpu(id->magic) != SNIC_ID_MAGIC) {
			dev_err(dev, "IDENTIFY returned bad magic %#x\n",
				le32_to_cpu(id->magic));
			ret = -EIO;
		} else {
			memcpy(&sd->id, id, sizeof(*id));
			sd->id.fw_version[sizeof(sd->id.fw_version) - 1] = 0;
			sd->id.serial[sizeof(sd->id.serial) - 1] = 0;
		}
	}
	dma_free_coherent(dev, sizeof(*id), id, dma);
	return ret;
}
