/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snic RDMA: driver-private definitions of the ib_device (RoCEv2) that
 * snic.ko registers on top of the snic net_device.
 *
 * The device interface is <d2d/snic_rdma_ifc.h>, the provider ABI
 * <d2d/snic_verbs_abi.h>; docs/snic-rdma.md describes both.
 */
#ifndef _SNIC_IB_H
#define _SNIC_IB_H

#include <linux/idr.h>
#include <linux/xarray.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_umem.h>
#include <d2d/snic_rdma_ifc.h>
#include <d2d/snic_verbs_abi.h>
#include <d2d/kunit.h>
#include "snic.h"

#define SNIC_IB_PORT		1
#define SNIC_IB_CEQ_LOG		10	/* completion events in flight */
#define SNIC_IB_GID_TBL_LEN	128
#define SNIC_IB_MAX_SEND_SGE	(SNIC_WQE_MAX_DS - 2)	/* ctrl + raddr */
#define SNIC_IB_MAX_UD_SGE	(SNIC_WQE_MAX_DS - 6)	/* ctrl + ud + ud6 */
#define SNIC_IB_MAX_FRPL	1024	/* fast-registration pages per MR */
#define SNIC_IB_RECV_MIN_LOG	5
#define SNIC_IB_RECV_MAX_STRIDE	256	/* 16 * (1 + SNIC_MAX_SGE), rounded up */

/*
 * Every ring (a CQ, an SRQ, a QP's send and receive rings) is one
 * physically contiguous buffer with its 64-byte record after it: the
 * device takes one bus address per ring.  The page allocator hands out at
 * most SNIC_IB_BUF_MAX bytes at once, so the limits the ib_device
 * advertises are those whose buffers fit (checked at build time in
 * snic_ib_query_device); anything larger is EINVAL, and an allocation
 * that fails for want of memory is ENOMEM without a kernel warning.
 */
#define SNIC_IB_BUF_MAX		(PAGE_SIZE << (MAX_ORDER - 1))
#define SNIC_IB_MAX_QP_WR	4096	/* sends and receives of a QP */
#define SNIC_IB_MAX_SRQ_WR	8191	/* the ring has max_wr + 1 entries */
#define SNIC_IB_MAX_CQE		((1 << SNIC_MAX_LOG_SIZE) - 1)

/*
 * Memory shared with the device that may also be mapped into a process:
 * physically contiguous pages (one bus address for the whole ring) from
 * alloc_pages_exact(), so that each page has its own reference count and
 * a user mapping keeps it alive after the object is gone.
 */
struct snic_ib_buf {
	void *va;
	dma_addr_t dma;
	size_t size;		/* page multiple */
	struct mm_struct *mm;	/* user ring: charged to it (snic_pin_charge) */
};

enum snic_ib_mmap_type {
	SNIC_IB_MMAP_DB,	/* a BAR2 doorbell page */
	SNIC_IB_MMAP_BUF,	/* a ring buffer (struct snic_ib_buf) */
};

/* What an mmap offset names; freed with the last mapping of it. */
struct snic_ib_mmap {
	struct rdma_user_mmap_entry rdma;
	struct snic_ib_dev *ibd;
	enum snic_ib_mmap_type type;
	int db_page;			/* DB: freed in mmap_free */
	struct snic_ib_buf buf;		/* BUF: freed in mmap_free */
};

struct snic_ib_dev {
	struct ib_device ibdev;
	struct snic_dev *sd;
	struct net_device *netdev;
	int kdb_page;			/* doorbell page of kernel objects */
	struct notifier_block nb;	/* netdev events: the port's state */
	bool port_up;			/* last state dispatched; under RTNL */
	struct snic_eq ceq;		/* completion events, sd->rdma_vector */
	int irq;
	bool irq_on;
	struct xarray cqs;		/* cqn -> snic_ib_cq */
	struct xarray qps;		/* qpn -> snic_ib_qp */
	struct xarray srqs;		/* srqn -> snic_ib_srq */
	atomic_t key_tag;		/* tag of the next MR key */
	/* why CQEs were dropped or events ignored (sysfs-less counters) */
	atomic64_t cqe_no_qp;
	atomic64_t cqe_bad;
	atomic64_t events_no_obj;
	struct ida counter_ida;		/* device counter sets in use */
};

/* SSQs of a context (snic_ib_ssq.c): one per NIC core, made on first use */
#define SNIC_IB_MAX_SSQS	64	/* the device has at most 64 NIC cores */
#define SNIC_IB_SSQ_LOG		12	/* 2^n basic blocks per SSQ */
#define SNIC_IB_SSQ_CI_EVERY	16	/* consumer record every n blocks */

struct snic_ib_ssq {
	struct snic_ib_buf buf;		/* ring, then the consumer record */
	struct snic_ib_mmap *mmap;	/* owns buf */
	u64 key;			/* its mmap offset */
	u32 ssqn;
	u32 ci_off;			/* consumer record, in buf */
};

struct snic_ib_ucontext {
	struct ib_ucontext ibuc;
	int db_page;			/* or -errno: no page, no queues */
	struct rdma_user_mmap_entry *db_entry;	/* NULL without a page */
	struct mutex ssq_lock;		/* creation of the SSQs */
	u32 nssq;			/* SSQs made (0 until the first SSQ QP) */
	struct snic_ib_ssq ssq[SNIC_IB_MAX_SSQS];
};

struct snic_ib_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

struct snic_ib_xrcd {
	struct ib_xrcd ibxrcd;
	u32 xrcdn;
};

struct snic_ib_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;
	/* page list the device reads (CREATE_MR, REG_MR WQEs) */
	__le64 *pages;
	dma_addr_t pages_dma;
	u32 max_pages;
	u32 npages;
	bool live;
};

/* A memory window: the device holds its state, the key is in ibmw. */
struct snic_ib_mw {
	struct ib_mw ibmw;
};

struct snic_ib_cq {
	struct ib_cq ibcq;
	struct snic_cq cq;		/* ring (cq.r), cqn, consumer counter */
	struct snic_ib_buf buf;
	struct snic_ib_mmap *mmap;	/* user CQ: owns buf */
	spinlock_t lock;		/* poll, arm, ring switch */
	bool resizing;			/* RESIZE_CQ running: poll nothing */
	struct mutex resize_lock;	/* one resize at a time */
};

struct snic_ib_srq {
	struct ib_srq ibsrq;
	struct snic_ib_buf buf;
	struct snic_ib_mmap *mmap;
	u32 srqn;
	u32 size;			/* receive WQEs */
	u8 log_size;
	u8 log_stride;
	u32 max_sge;
	u16 prod;
	u16 cons;
	u16 db_page;
	__le32 *dbr;
	u32 limit;
	spinlock_t lock;		/* prod, cons */
};

/* Kernel QP send-ring bookkeeping, indexed by a WQE's first basic block. */
struct snic_ib_swqe {
	u64 wr_id;
	u8 bbs;
};

struct snic_ib_qp {
	struct ib_qp ibqp;
	struct snic_ib_buf buf;		/* send ring, receive ring, record */
	struct snic_ib_mmap *mmap;
	u32 qpn;
	u8 type;			/* enum snic_qp_type */
	u8 state;			/* enum ib_qp_state, as last set */
	u8 sq_log;
	u8 rq_log;
	u8 rq_log_stride;
	u8 port;
	bool user;
	struct pid *owner;		/* user QP: the creating process */
	bool sig_all;
	bool pipe;			/* DMA-only notification pipe QP */
	bool ssq;			/* pipe: sends through the context's SSQs */
	u8 ssq_core;			/* ssq: the SSQ the device placed it on */
	u8 ssq_gen;			/* ssq: generation its SQEs carry */
	/* low-latency receive ring (snic_ib_llq.c); llq_log 0: none */
	u8 llq_log, llq_slot_log, llq_ci_every;
	u32 llq_ci_off;
	struct snic_ib_buf llq_buf;
	struct snic_ib_mmap *llq_mmap;
	u8 ci_every;			/* pipe: consumer record every n */
	u16 db_page;
	u32 sq_size;			/* basic blocks */
	u32 rq_size;			/* receive WQEs */
	u32 sq_off, rq_off, dbr_off;	/* in buf */
	u32 ci_off;			/* pipe: consumer record, in buf */
	u32 max_send_sge, max_recv_sge, max_inline, max_send_wr;
	u16 sq_prod, sq_cons;		/* basic-block counters */
	u16 rq_prod, rq_cons;		/* WQE counters */
	struct snic_ib_swqe *swqe;	/* sq_size entries (kernel QPs) */
	struct snic_ib_srq *srq;
	u32 qkey;
	spinlock_t sq_lock;		/* sq_prod, sq_cons, swqe */
	spinlock_t rq_lock;		/* rq_prod, rq_cons */
	/* last attributes set, for query_qp when the device cannot answer */
	struct ib_qp_attr attr;
};

struct snic_ib_ah {
	struct ib_ah ibah;
	struct snic_av av;
	struct snic_wqe_ud6 ud6;	/* with SNIC_AV_F_IPV6 in av.flags */
	/* what query_ah gives back (the AV holds the resolved headers) */
	union ib_gid dgid;
	u32 flow_label;
	u8 sgid_index, hop_limit, tclass, sl;
	u32 port;
};

/*
 * Transport classes of a QP: UD and GSI QPs are datagram QPs (an AH in
 * every send WQE); RC, UC and XRC are connected, RC and XRC reliable
 * (READ, atomics, SEND with invalidate).
 */
static inline bool snic_ib_qp_ud(const struct snic_ib_qp *qp)
{
	return qp->type == SNIC_QPT_UD || qp->type == SNIC_QPT_GSI;
}

/* An IPv4-mapped GID: RoCE v2 over IPv4 (others: over IPv6). */
static inline bool snic_ib_gid_v4(const union ib_gid *gid)
{
	return ipv6_addr_v4mapped((const struct in6_addr *)gid->raw);
}

static inline struct snic_ib_dev *to_sibdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct snic_ib_dev, ibdev);
}

static inline struct snic_ib_ucontext *to_sibuc(struct ib_ucontext *uc)
{
	return container_of(uc, struct snic_ib_ucontext, ibuc);
}

static inline struct snic_ib_pd *to_sibpd(struct ib_pd *pd)
{
	return container_of(pd, struct snic_ib_pd, ibpd);
}

static inline struct snic_ib_xrcd *to_sibxrcd(struct ib_xrcd *xrcd)
{
	return container_of(xrcd, struct snic_ib_xrcd, ibxrcd);
}

static inline struct snic_ib_mr *to_sibmr(struct ib_mr *mr)
{
	return container_of(mr, struct snic_ib_mr, ibmr);
}

static inline struct snic_ib_cq *to_sibcq(struct ib_cq *cq)
{
	return container_of(cq, struct snic_ib_cq, ibcq);
}

static inline struct snic_ib_srq *to_sibsrq(struct ib_srq *srq)
{
	return container_of(srq, struct snic_ib_srq, ibsrq);
}

static inline struct snic_ib_qp *to_sibqp(struct ib_qp *qp)
{
	return container_of(qp, struct snic_ib_qp, ibqp);
}

static inline struct snic_ib_ah *to_sibah(struct ib_ah *ah)
{
	return container_of(ah, struct snic_ib_ah, ibah);
}

/* snic_ib_xa.c */
void snic_ib_sync_events(struct snic_ib_dev *ibd);
int snic_ib_xa_publish(struct xarray *xa, u32 n, void *obj);
void snic_ib_xa_drop(struct xarray *xa, u32 n, void *obj);

/* snic_ib_ctx.c: ucontext, mmap */
int snic_ib_alloc_ucontext(struct ib_ucontext *uc, struct ib_udata *udata);
void snic_ib_dealloc_ucontext(struct ib_ucontext *uc);
int snic_ib_mmap(struct ib_ucontext *uc, struct vm_area_struct *vma);
void snic_ib_mmap_free(struct rdma_user_mmap_entry *entry);
int snic_ib_db_page(struct snic_ib_dev *ibd, struct ib_udata *udata);

/* snic_ib_buf.c: ring buffers and their mmap entries */
int snic_ib_buf_alloc(struct snic_ib_dev *ibd, struct snic_ib_buf *b,
		      size_t size, bool user);
void snic_ib_buf_free(struct snic_ib_dev *ibd, struct snic_ib_buf *b);
struct snic_ib_mmap *snic_ib_mmap_insert(struct snic_ib_ucontext *uc,
					 struct snic_ib_mmap *m, size_t len,
					 u64 *key);
struct snic_ib_mmap *snic_ib_mmap_buf(struct snic_ib_ucontext *uc,
				      struct snic_ib_buf *b, u64 *key);
void snic_ib_buf_release(struct snic_ib_dev *ibd, struct snic_ib_buf *b,
			 struct snic_ib_mmap *m);

/* snic_ib_ssq.c: a context's shared send queues */
int snic_ib_ssq_setup(struct snic_ib_dev *ibd, struct snic_ib_ucontext *uc);
void snic_ib_ssq_teardown(struct snic_ib_dev *ibd, struct snic_ib_ucontext *uc);
int snic_ib_ssq_resp(struct snic_ib_ucontext *uc, u8 core, u8 gen,
		     struct snic_create_qp_resp *resp);

/* snic_ib_llq.c: low-latency QPs' receive rings */
int snic_ib_llq_setup(struct snic_ib_dev *ibd, struct snic_ib_qp *qp);
int snic_ib_llq_map(struct snic_ib_ucontext *uc, struct snic_ib_qp *qp,
		    struct snic_create_qp_resp *resp);
void snic_ib_llq_release(struct snic_ib_dev *ibd, struct snic_ib_qp *qp);

/* snic_ib_xrc.c: XRC domains, XRC SRQs' fields, XRC_TGT QPs */
int snic_ib_alloc_xrcd(struct ib_xrcd *xrcd, struct ib_udata *udata);
int snic_ib_dealloc_xrcd(struct ib_xrcd *xrcd, struct ib_udata *udata);
int snic_ib_xrc_srq_cmd(struct snic_aq_create_srq *c,
			const struct ib_srq_init_attr *init);
int snic_ib_create_tgt_qp(struct snic_ib_dev *ibd, struct snic_ib_qp *qp,
			  const struct ib_qp_init_attr *init);

/* snic_ib_mr.c */
int snic_ib_alloc_pd(struct ib_pd *pd, struct ib_udata *udata);
int snic_ib_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata);
struct ib_mr *snic_ib_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *snic_ib_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				  u64 iova, int access, struct ib_udata *udata);
struct ib_mr *snic_ib_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			       u32 max_num_sg);
int snic_ib_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int nents,
		      unsigned int *sg_offset);
int snic_ib_dereg_mr(struct ib_mr *mr, struct ib_udata *udata);
/* The next key tag (snic_ib_mr.c): MRs and memory windows */
u8 snic_ib_next_tag(struct snic_ib_dev *ibd);
/* snic_ib_mw.c: memory windows */
int snic_ib_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int snic_ib_dealloc_mw(struct ib_mw *ibmw);

/* snic_ib_cq.c */
int snic_ib_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
		      struct ib_udata *udata);
int snic_ib_destroy_cq(struct ib_cq *cq, struct ib_udata *udata);
int snic_ib_poll_cq(struct ib_cq *cq, int n, struct ib_wc *wc);
int snic_ib_resize_cq(struct ib_cq *cq, int cqe, struct ib_udata *udata);
int snic_ib_modify_cq(struct ib_cq *cq, u16 cq_count, u16 cq_period);
int snic_ib_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags);
void snic_ib_cq_event(struct snic_ib_dev *ibd, u32 cqn);

/* snic_ib_qp.c */
int snic_ib_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int snic_ib_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);

/* snic_ib_counters.c: hw_counters and the counter API */
struct rdma_hw_stats *snic_ib_alloc_port_stats(struct ib_device *ibdev,
					       u32 port);
int snic_ib_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			 u32 port, int index);
int snic_ib_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *qp);
int snic_ib_counter_unbind_qp(struct ib_qp *qp);
int snic_ib_counter_dealloc(struct rdma_counter *counter);
struct rdma_hw_stats *snic_ib_counter_alloc_stats(struct rdma_counter *counter);
int snic_ib_counter_update_stats(struct rdma_counter *counter);

int snic_ib_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *init,
		      struct ib_udata *udata);
int snic_ib_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		      struct ib_udata *udata);
int snic_ib_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		     struct ib_qp_init_attr *init);
int snic_ib_destroy_qp(struct ib_qp *qp, struct ib_udata *udata);
int snic_ib_create_srq(struct ib_srq *srq, struct ib_srq_init_attr *init,
		       struct ib_udata *udata);
int snic_ib_modify_srq(struct ib_srq *srq, struct ib_srq_attr *attr,
		       enum ib_srq_attr_mask mask, struct ib_udata *udata);
int snic_ib_query_srq(struct ib_srq *srq, struct ib_srq_attr *attr);
int snic_ib_destroy_srq(struct ib_srq *srq, struct ib_udata *udata);
int snic_ib_create_ah(struct ib_ah *ah, struct rdma_ah_init_attr *init,
		      struct ib_udata *udata);
int snic_ib_query_ah(struct ib_ah *ah, struct rdma_ah_attr *attr);
int snic_ib_destroy_ah(struct ib_ah *ah, u32 flags);
int snic_ib_resolve_av(struct snic_ib_dev *ibd,
		       const struct rdma_ah_attr *ah, u32 lqpn, u32 rqpn,
		       struct snic_av *av, u8 *sip6, u8 *dip6);
int snic_ib_modify_cmd(struct snic_ib_dev *ibd, u32 qpn,
		       enum ib_qp_type type, enum ib_qp_state cur,
		       const struct ib_qp_attr *a, int mask, u32 dqpn);
int snic_ib_qp_owner(struct snic_dev *sd, u32 qpn);

/* snic_ib_post.c */
int snic_ib_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
		      const struct ib_send_wr **bad);
int snic_ib_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad);
int snic_ib_post_srq_recv(struct ib_srq *srq, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad);
void snic_ib_fill_wc(struct snic_ib_qp *qp, const struct snic_cqe *cqe,
		     struct ib_wc *wc);

/* A send WQE as it is built before it is copied into the ring. */
struct snic_ib_wqe_buf {
	u8 b[SNIC_WQE_MAX_BBS * SNIC_WQEBB_SIZE] __aligned(16);
};

#if IS_ENABLED(CONFIG_KUNIT)
/* snic_ib_post.c's helpers under test (snic_ib_kunit.c) */
int snic_ib_wqe_opcode(const struct snic_ib_qp *qp, enum ib_wr_opcode op);
int snic_ib_build_wqe(struct snic_ib_qp *qp, const struct ib_send_wr *wr,
		      struct snic_ib_wqe_buf *w);
enum ib_wc_status snic_ib_wc_status(u8 syndrome);
#endif

#endif /* _SNIC_IB_H */
