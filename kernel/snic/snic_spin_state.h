/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snic sPIN host interface: driver-private state of /dev/snic-spinN.
 *
 * snic_spin.c     the char device, open files, memory allocation, ioctls
 * snic_spin_ctx.c execution contexts: create/destroy, UDP attachments,
 *                 host regions, the event ring
 * snic_spin_ev.c  the sPIN EQ: its interrupt wakes the owner's poll()
 */
#ifndef _SNIC_SPIN_STATE_H
#define _SNIC_SPIN_STATE_H

#include <linux/miscdevice.h>
#include <linux/kref.h>
#include <linux/wait.h>
#include <d2d/snic_spin_ifc.h>
#include <d2d/snic_spin_ioctl.h>
#include "snic.h"

/* A piece of program or handler memory owned by one file. */
struct snic_spin_alloc {
	struct list_head node;
	u32 id;
	u8 mem;			/* SNIC_SPIN_MEM_* */
	u32 offset;
	u32 size;
	int users;		/* contexts using it as a window */
};

/* A host buffer handlers may DMA to; pages split so each is refcounted. */
struct snic_spin_region {
	struct page *page;	/* first of 1 << order */
	unsigned int order;
	size_t size;
	dma_addr_t dma;
	u32 index;		/* device region index */
	unsigned long pgoff;	/* mmap offset in pages */
	struct mm_struct *mm;	/* charged to (snic_pin_charge) */
};

struct snic_spin_attach_slot {
	u32 rule_id;		/* UDP: the steering rule */
	u16 port;
	bool live;
	bool qp;		/* an RDMA QP (SNIC_AQ_SPIN_ATTACH_QP), qpn */
	u32 qpn;
};

struct snic_spin_file;

struct snic_spin_ctx {
	struct list_head node;
	struct snic_spin_file *owner;
	u32 id;
	struct snic_spin_alloc *code;
	struct snic_spin_alloc *hmem;
	/* event ring + the le32 consumer record after it */
	void *ev_ring;
	dma_addr_t ev_dma;
	size_t ev_bytes;
	__le32 *ev_dbr;
	u32 ev_size;
	u32 ev_cons;
	u64 ev_total;
	u32 ev_notifies;	/* event EQEs seen; under sp->ev_lock */
	u32 serial;		/* unique in its file (ids are device slots) */
	bool ev_reading;	/* SNIC_SPIN_IOC_EVENTS copying out */
	struct snic_spin_attach_slot att[SNIC_SPIN_MAX_ATTACH];
	struct snic_spin_region *regions[SNIC_SPIN_MAX_REGIONS];
};

struct snic_spin {
	struct snic_dev *sd;
	struct kref ref;
	/* everything below, and device commands; never across a user copy */
	struct mutex lock;
	bool dead;		/* the PCI function is gone */
	int idx;
	char name[24];
	struct miscdevice misc;
	bool misc_live;
	struct list_head files;
	unsigned long *pmem_map;	/* SNIC_SPIN_MEM_ALIGN units */
	unsigned long *l2h_map;
	u32 clusters;
	u32 hpus;
	u32 clock_mhz;

	/*
	 * The sPIN EQ, polled by the admin-vector interrupt handler: the
	 * device posts SNIC_EQE_SPIN_EVENT (obj = context) after each event
	 * it writes to a ring.  ev_lock guards owner[] (who to wake), the
	 * contexts' ev_notifies and the counters, from hard-IRQ context.
	 */
	struct snic_eq eq;
	bool eq_on;
	spinlock_t ev_lock;	/* owner[], ev_notifies, counters */
	struct snic_spin_ctx *owner[SNIC_SPIN_MAX_CTXS];
	u64 ev_irqs;
	u64 ev_eqes;
	u64 ev_stray;		/* EQEs for no context of ours */
	u32 perm_denied;	/* operations refused: capability, QP owner */
};

struct snic_spin_file {
	struct snic_spin *sp;
	struct file *filp;	/* its opener's credentials decide */
	struct list_head node;
	struct list_head allocs;
	struct list_head ctxs;
	u32 next_id;
	unsigned long next_pgoff;
	wait_queue_head_t wq;	/* poll(): woken by the sPIN EQ interrupt */
};

/* snic_spin_ctx.c */
int snic_spin_lock_live(struct snic_spin *sp);
/* snic_spin_ctx.c: called with sp->lock held */
struct snic_spin_alloc *snic_spin_alloc_find(struct snic_spin_file *f,
					     u32 id);
struct snic_spin_ctx *snic_spin_ctx_find(struct snic_spin_file *f, u32 ctx,
					 int *err);
bool snic_spin_ctx_live(struct snic_spin *sp, u32 ctx);
int snic_spin_ctx_create(struct snic_spin_file *f,
			 struct snic_spin_ctx_create *req);
void snic_spin_ctx_destroy(struct snic_spin *sp, struct snic_spin_ctx *c);
int snic_spin_attach(struct snic_spin_file *f, struct snic_spin_attach *a);
int snic_spin_detach(struct snic_spin_file *f, struct snic_spin_attach *a);
int snic_spin_reg_opcode(struct snic_spin_file *f,
			 struct snic_spin_reg_opcode *r);
int snic_spin_region_add(struct snic_spin_file *f,
			 struct snic_spin_region_add *r);
struct snic_spin_region *snic_spin_region_by_pgoff(struct snic_spin_file *f,
						   unsigned long pgoff);
/* takes sp->lock itself */
int snic_spin_events(struct snic_spin_file *f, struct snic_spin_events *ev);
bool snic_spin_ev_pending(struct snic_spin_ctx *c);

/* snic_spin_ev.c */
int snic_spin_eq_init(struct snic_spin *sp);
void snic_spin_eq_cleanup(struct snic_spin *sp);
void snic_spin_ev_owner(struct snic_spin *sp, struct snic_spin_ctx *c,
			bool set);

#endif /* _SNIC_SPIN_STATE_H */
