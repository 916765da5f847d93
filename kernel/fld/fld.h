/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fld.ko: control plane of the FlexDriver endpoint (PCI 1234:d202).
 *
 * fld_main.c binds the device (BARs, reset, the error interrupt, the
 * command interface); fld_flde.c builds FLD-E - raw Ethernet queues of a
 * snic whose rings, doorbell records and buffers are windows of FLD's
 * BAR2, created through snic's peer-queue API, one queue set per tenant,
 * and steering rules that send each tenant's UDP port to its set;
 * fld_fldr.c builds FLD-R - RC QPs of the snic on FLD windows, connected
 * through rdma_cm, for the zuc accelerator; fld_sysfs.c shows counters,
 * queues and the
 * memory table and takes flow changes (what fldctl uses).
 * Register map and commands: docs/fld.md, <d2d/fld_ifc.h>.
 */
#ifndef _FLD_H
#define _FLD_H

#include <linux/pci.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <d2d/fld_ifc.h>
#include <linux/socket.h>
#include <d2d/snic_peer.h>

#define FLDE_SQ_LOG	6	/* send ring: 64 basic blocks */
#define FLDE_CQ_LOG	8
/*
 * The striding RQ: 4 buffers of 256 strides of 512 bytes (FLD's whole
 * receive window of the slot); snic reads a descriptor once per buffer,
 * which holds 256 frames of up to 512 bytes, 85 of 1500 or 14 of 9000.
 */
#define FLDE_RQ_LOG	2
#define FLDE_LOG_STRIDE	9
#define FLDE_LOG_NSTR	8
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

/* FLD-E's PCIe knobs (module parameters; docs/fld.md "PCIe efficiency") */
struct fld_pcie_knobs {
	u32 tx_signal;		/* signal one Ethernet WQE in this many */
	bool mmio_wqe;		/* WQE-by-MMIO lines instead of doorbells */
	bool mini_cqe;		/* FLD-E CQs with mini-CQE lines */
};

struct fld_flde {
	bool up;
	struct fld_pcie_knobs knobs;	/* in effect */
	struct snic_peer *snic;
	unsigned int ntenants;
	bool loopback;		/* SQs deliver to the snic's receive path */
	u16 udp_port;		/* tenant k: udp_port + k (0: no rules) */
	u16 tenant;		/* tenant k's flow tag: tenant + k */
	u32 vni;		/* VXLAN VNI decapsulated to tenant 0, 0: none */
	u32 vni_rule_id;
	bool have_vni_rule;
	struct fld_flde_q q[FLDE_MAX_TENANTS];
};

/* FLD-R: rdma_cm connections on FLD QP slots (fld_fldr.c) */
#define FLDR_MAX_CONNS	FLD_MAX_QPS
#define FLDR_CQ_SLOT	FLDE_MAX_TENANTS	/* FLD-E tenants: 0.. */
#define FLDR_CQ_LOG	10		/* every QP's send and receive CQEs */
#define FLDR_SQ_LOG	6		/* 64 basic blocks per QP */
#define FLDR_RQ_LOG	4		/* 16 receive buffers per QP */
#define FLDR_SQ_SLOT(n)	(FLDE_MAX_TENANTS + (n))	/* SQ slot of QP n */
#define FLDR_DEFAULT_PORT 7471

struct fld_dev;
struct rdma_cm_id;

struct fld_fldr_conn {
	struct fld_dev *fd;
	struct rdma_cm_id *id;	/* NULL: free, or being torn down */
	bool have_qp;
	bool established;
	u32 qpn;
	struct sockaddr_storage peer;
};

struct fld_fldr {
	bool up;
	struct snic_peer *snic;
	struct rdma_cm_id *listen;
	struct fld_fldr_conn lconn;	/* the listener's context */
	u16 port;
	bool have_cq_slot;
	struct snic_peer_queue cq;
	struct fld_fldr_conn conns[FLDR_MAX_CONNS];
	u64 accepts, rejects;
};

struct fld_dev {
	struct pci_dev *pdev;
	struct list_head node;	/* fld_main.c's FLDs, under fld_bind_lock */
	struct snic_peer *snic;	/* the snic FLD-E/FLD-R use, NULL: none */
	void __iomem *regs;
	u64 win_bus;		/* BAR2 bus address */
	struct mutex lock;	/* commands, FLD-E state */
	atomic64_t err_irqs;
	u32 last_error, last_info;
	struct fld_flde e;
	struct fld_fldr r;
};

u32 fld_rd(struct fld_dev *fd, u32 reg);
void fld_wr(struct fld_dev *fd, u32 reg, u32 val);
u64 fld_rd64(struct fld_dev *fd, u32 reg);
/* SQ slot @slot's transmit credits: free ring slots, bytes under its quota. */
void fld_sq_credits(struct fld_dev *fd, u32 slot, u32 *descs, u32 *bytes);
/* Runs command @op with @n arguments; 0 or -errno; *result if not NULL. */
int fld_cmd(struct fld_dev *fd, u32 op, const u32 *args, int n, u32 *result);

int fld_flde_start(struct fld_dev *fd, u16 udp_port, u16 tenant,
		   unsigned int ntenants, bool loopback,
		   const struct fld_pcie_knobs *knobs);
void fld_flde_stop(struct fld_dev *fd);
int fld_flde_set_port(struct fld_dev *fd, u16 udp_port);
int fld_flde_set_vni(struct fld_dev *fd, u32 vni);
int fld_flde_set_rate(struct fld_dev *fd, unsigned int k, u64 rate_bps);

int fld_fldr_start(struct fld_dev *fd, u16 port);
void fld_fldr_stop(struct fld_dev *fd);
int fld_fldr_set_port(struct fld_dev *fd, u16 port);
/* Appends FLD-R's state to sysfs buffer @buf at @n; returns the new n. */
int fld_fldr_show(struct fld_dev *fd, char *buf, int n);

extern const struct attribute_group *fld_groups[];

#endif /* _FLD_H */
