/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snic: driver-private definitions.
 *
 * The device interface (registers, admin commands) is defined once in
 * <d2d/snic_if.h> and documented in docs/snic.md.
 */
#ifndef _SNIC_H
#define _SNIC_H

#include <linux/pci.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/completion.h>
#include <d2d/snic_if.h>

#define SNIC_DRV_NAME		"snic"
#define SNIC_AQ_DEPTH		64
#define SNIC_AQ_TIMEOUT_MS	5000
#define SNIC_AQ_VECTOR		0

/* One in-flight admin command, indexed by its command ring slot. */
struct snic_aq_ctx {
	struct completion done;
	struct snic_aq_cqe cqe;
	u16 cmd_id;
	bool waiting;
};

struct snic_aq {
	struct snic_aq_cmd *sq;
	struct snic_aq_cqe *cq;
	dma_addr_t sq_dma;
	dma_addr_t cq_dma;
	u32 depth;
	u32 sq_tail;
	u32 cq_head;
	u8 phase;
	u16 gen;		/* upper bits of cmd_id, catches stale CQEs */
	spinlock_t lock;	/* sq_tail, cq_head, ctx[] */
	struct semaphore slots;	/* at most depth - 1 commands in flight */
	struct snic_aq_ctx *ctx;
	bool broken;		/* a command timed out: device needs reset */
	u64 cmds;
	u64 errors;
	u64 timeouts;
};

struct snic_dev {
	struct pci_dev *pdev;
	void __iomem *regs;
	struct snic_aq aq;
	struct snic_identify_data id;
	int num_vectors;
};

static inline u32 snic_rd(struct snic_dev *sd, u32 reg)
{
	return ioread32(sd->regs + reg);
}

static inline void snic_wr(struct snic_dev *sd, u32 reg, u32 val)
{
	iowrite32(val, sd->regs + reg);
}

/* snic_admin.c */
int snic_aq_init(struct snic_dev *sd);
void snic_aq_destroy(struct snic_dev *sd);
irqreturn_t snic_aq_irq(int irq, void *data);
int snic_aq_exec(struct snic_dev *sd, struct snic_aq_cmd *cmd, u64 *result);
int snic_aq_identify(struct snic_dev *sd);

/* snic_sysfs.c */
extern const struct attribute_group *snic_dev_groups[];

#endif /* _SNIC_H */
