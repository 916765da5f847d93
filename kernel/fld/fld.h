/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fld.ko: control plane of the FlexDriver endpoint (PCI 1234:d202).
 *
 * fld_main.c binds the device (BARs, reset, the error interrupt, the
 * command interface); fld_flde.c builds FLD-E - raw Ethernet queues of a
 * snic whose rings, doorbell records and buffers are windows of FLD's
 * BAR2, created through snic's peer-queue API, one queue set per tenant,
 * and steering rules that send each tenant's UDP port to its set;
 * fld_sysfs.c shows counters, queues and the
 * memory table and takes flow changes (what fldctl uses).
 * Register map and commands: docs/fld.md, <d2d/fld_if.h>.
 */
#ifndef _FLD_H
#define _FLD_H

#include <linux/pci.h>
#include <linux/mutex.h>
#include <d2d/fld_if.h>
#include <d2d/snic_peer.h>

#define FLDE_SQ_LOG	6	/* send ring: 64 basic blocks */
#define FLDE_CQ_LOG	8
#define FLDE_RQ_LOG	4	/* 16 striding buffers ... */
#define FLDE_LOG_STRIDE	11	/* ... of 8 strides of 2 KiB */
#define FLDE_LOG_NSTR	3
#define FLDE_RULE_PRIO	0x80	/* before ethtool rules and the catch-all */

/*
 * FLD-E tenants: each has its own FLD slots (CQ, SQ, RQ = its index), snic
 * queues, UDP port (udp_port + index) and flow tag (tenant + index), and
 * its SQ its own snic rate limit; FLD's accelerator gives each RQ an
 * equal share of its input FIFO.
 */
#define FLDE_MAX_TENANTS	4

struct fld_flde_q {
	struct snic_peer_queue cq, sq, rq;
	u32 rule_id;
	bool have_rule;
	u64 rate_bps;		/* snic rate limit of the SQ, 0: none */
	u32 rx_off;		/* BAR2 offset of the RQ's buffers */
	struct snic_rx_desc *rq_ring;	/* host memory, written once */
	dma_addr_t rq_ring_dma;
};

struct fld_flde {
	bool up;
	struct snic_dev *sd;
	unsigned int ntenants;
	bool loopback;		/* SQs deliver to the snic's receive path */
	u16 udp_port;		/* tenant k: udp_port + k (0: no rules) */
	u16 tenant;		/* tenant k's flow tag: tenant + k */
	u32 vni;		/* VXLAN VNI decapsulated to tenant 0, 0: none */
	u32 vni_rule_id;
	bool have_vni_rule;
	struct fld_flde_q q[FLDE_MAX_TENANTS];
};

struct fld_dev {
	struct pci_dev *pdev;
	void __iomem *regs;
	u64 win_bus;		/* BAR2 bus address */
	struct mutex lock;	/* commands, FLD-E state */
	atomic64_t err_irqs;
	u32 last_error, last_info;
	struct fld_flde e;
};

u32 fld_rd(struct fld_dev *fd, u32 reg);
void fld_wr(struct fld_dev *fd, u32 reg, u32 val);
u64 fld_rd64(struct fld_dev *fd, u32 reg);
/* Runs command @op with @n arguments; 0 or -errno; *result if not NULL. */
int fld_cmd(struct fld_dev *fd, u32 op, const u32 *args, int n, u32 *result);

int fld_flde_start(struct fld_dev *fd, const char *ifname, u16 udp_port,
		   u16 tenant, unsigned int ntenants, bool loopback);
void fld_flde_stop(struct fld_dev *fd);
int fld_flde_set_port(struct fld_dev *fd, u16 udp_port);
int fld_flde_set_vni(struct fld_dev *fd, u32 vni);
int fld_flde_set_rate(struct fld_dev *fd, unsigned int k, u64 rate_bps);

extern const struct attribute_group *fld_groups[];

#endif /* _FLD_H */
