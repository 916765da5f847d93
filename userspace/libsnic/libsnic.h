/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * libsnic internals: the provider's objects (context, CQ, QP, SRQ) around
 * the libibverbs ones, the rings they map from snic.ko, and the ordering
 * rules between ring memory, doorbell records and doorbell MMIO.
 */
#ifndef LIBSNIC_LIBSNIC_H
#define LIBSNIC_LIBSNIC_H

#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <d2d/snic_verbs_abi.h>

#include "verbs_provider_abi.h"
#include "snic_abi.h"
#include "snic_barrier.h"
#include "snic_wqe.h"

#define snic_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* A create that the kernel refused: free @obj, errno = @err, NULL. */
static inline void *snic_create_failed(void *obj, int err)
{
	free(obj);
	errno = err;
	return NULL;
}

/*
 * Ordering: ring and record writes are visible to the device before the
 * doorbell that announces them (udma_to_device_barrier), a CQE's body is
 * read only after its owner bit (udma_from_device_barrier); snic_barrier.h.
 */

struct snic_qp;
struct snic_srq;
struct snicdv_qp_attr;
struct snicdv_llq_attr;

/* Pipe QPs: consumer record every this many elements (SNIC_PIPE_CI_EVERY). */
#define SNIC_PIPE_DEF_CI_EVERY	16

/* SSQs a context may map: one per NIC core, the device has at most 64. */
#define SNIC_CTX_MAX_SSQS	64

/* [off, off + len) lies inside a mapping of map_len bytes. */
static inline bool snic_fits(uint64_t off, uint64_t len, uint64_t map_len)
{
	return off <= map_len && len <= map_len - off;
}

struct snic_device {
	struct verbs_device vdev;
};

struct snic_context {
	struct verbs_context vctx;
	uint8_t *db;			/* this context's BAR2 doorbell page */
	uint32_t db_page;
	uint32_t max_inline;
	uint32_t max_sge;
	/* single small send WQEs go as WQE-by-MMIO lines (SNIC_MMIO_WQE) */
	bool mmio_wqe;
	pthread_mutex_t table_lock;	/* qp_table writers, ssq[] */
	struct snic_qp *qp_table[SNIC_MAX_QPS];
	/* this context's XRC SRQs by number (their CQEs name them) */
	struct snic_srq *xrc_srq[SNIC_MAX_SRQS];
	struct snic_ssq *ssq[SNIC_CTX_MAX_SSQS];	/* mapped on first use */
};

struct snic_cq {
	struct verbs_cq vcq;
	pthread_spinlock_t lock;
	struct snic_cqe *ring;
	volatile uint32_t *dbr;		/* le32 consumer counter */
	void *map;
	size_t map_len;
	uint32_t cqn;
	uint32_t log_size;
	uint32_t cons;			/* free running; device sees 16 bits */
	/* extended CQ (ibv_create_cq_ex): the completion being read */
	struct ibv_wc wc;
	uint64_t wc_ts;			/* its CQE's timestamp */
	uint32_t poll_start;		/* cons at ibv_start_poll */
};

/* Send queue: 64-byte basic blocks; per-BB bookkeeping of posted WQEs. */
struct snic_sq {
	uint8_t *ring;
	uint32_t log_bbs;
	uint32_t prod, cons;		/* in basic blocks */
	uint64_t *wr_id;		/* by first BB of each WQE */
	uint8_t *nbb;
	uint8_t *wc_op;			/* enum ibv_wc_opcode */
};

/* Receive queue of a QP or an SRQ: 2^log_size WQEs of 2^log_stride B. */
struct snic_rq {
	uint8_t *ring;
	uint32_t log_size;
	uint32_t log_stride;
	uint32_t prod, cons;		/* in WQEs */
};

/*
 * A shared send queue of the context (snic_ssq.c): ring.prod is the SSQ
 * producer in basic blocks (16 bits, as the device counts).
 */
struct snic_ssq {
	pthread_spinlock_t lock;	/* ring.prod, the ring */
	struct snic_sq ring;		/* ring, log_bbs, prod */
	volatile uint32_t *ci;		/* le32 consumer record */
	void *map;
	size_t map_len;
	uint64_t key;			/* mmap offset: the kernel's SSQ */
};

/* A low-latency QP's ring of slots (snic_llq.c). */
struct snic_llq {
	uint8_t *ring;
	volatile uint32_t *ci;		/* le32 slots returned */
	void *map;
	size_t map_len;
	uint32_t log_slots, slot_log;
	uint32_t head;			/* next slot to poll */
	uint32_t cons;			/* slots returned */
};

struct snic_srq {
	struct verbs_srq vsrq;
	pthread_spinlock_t lock;
	struct snic_rq rq;
	volatile uint32_t *dbr;		/* le32 producer counter */
	void *map;
	size_t map_len;
	uint32_t srqn;
	bool xrc;			/* an XRC SRQ (snic_xrc.c) */
};

struct snic_qp {
	struct verbs_qp vqp;
	pthread_spinlock_t sq_lock;
	pthread_spinlock_t rq_lock;
	struct snic_sq sq;
	struct snic_rq rq;		/* unused with an SRQ */
	struct snic_srq *srq;
	volatile uint32_t *dbr;		/* [0] RQ producer, [1] SQ producer */
	void *map;
	size_t map_len;
	struct snic_sq_params params;
	uint32_t qpn;
	enum ibv_qp_state state;	/* as last set through modify_qp */
	/* DMA-only notification pipe QP (snic_pipe.c): no doorbells */
	bool pipe;
	volatile uint32_t *ci;		/* consumer record: [0] RQ, [1] SQ */
	uint64_t *rq_wr_id;		/* by RQE slot (RQEs carry none) */
	struct snic_ssq *ssq;		/* pipe QP sending through an SSQ */
	uint8_t ssq_gen;		/* its SQEs' generation (create_qp) */
	struct snic_llq *llq;		/* low-latency receive ring */
};

static inline struct snic_context *to_sctx(struct ibv_context *c)
{
	return snic_container_of(c, struct snic_context, vctx.context);
}

static inline struct snic_cq *to_scq(struct ibv_cq *c)
{
	return snic_container_of(c, struct snic_cq, vcq.cq);
}

static inline struct snic_qp *to_sqp(struct ibv_qp *q)
{
	return snic_container_of(q, struct snic_qp, vqp.qp);
}

static inline struct snic_srq *to_ssrq(struct ibv_srq *s)
{
	return snic_container_of(s, struct snic_srq, vsrq.srq);
}

/* Doorbell: 32-bit little-endian MMIO write on the context's page. */
static inline void snic_ring_db(struct snic_context *ctx, uint32_t offset,
				uint32_t qn, uint32_t counter)
{
	volatile uint32_t *reg = (volatile uint32_t *)(ctx->db + offset);

	*reg = htole32(SNIC_DB_VAL(qn, counter));
	mmio_flush_writes();
}

/*
 * WQE-by-MMIO (BlueFlame style): the first basic block of the WQE just
 * put in the ring, with ctrl.db_qn = @qn, as 16 32-bit stores at @offset
 * (SNIC_DB_QP_SQ_WQE) instead of a doorbell; the device takes the line
 * when all of it has arrived.
 */
static inline void snic_ring_wqe_line(struct snic_context *ctx,
				      uint32_t offset, uint32_t qn,
				      const uint8_t *bb)
{
	volatile uint32_t *reg = (volatile uint32_t *)(ctx->db + offset);
	uint32_t line[SNIC_WQEBB_SIZE / 4];
	unsigned int i;

	memcpy(line, bb, sizeof(line));
	((struct snic_wqe_ctrl *)line)->db_qn = htole16(qn);
	for (i = 0; i < SNIC_WQEBB_SIZE / 4; i++)
		reg[i] = line[i];
	mmio_flush_writes();
}

/* a single WQE of at most this many basic blocks goes by WQE-by-MMIO */
#define SNIC_MMIO_WQE_MAX_BBS	2

static inline void snic_set_record(volatile uint32_t *rec, uint32_t counter)
{
	*rec = htole32(counter & 0xffff);
}

/*
 * Announce ring entries up to @counter: the entries, then doorbell record
 * @rec, then the doorbell (@offset in the context's page, queue @qn), each
 * visible to the device before the next.
 */
static inline void snic_publish(struct snic_context *ctx,
				volatile uint32_t *rec, uint32_t offset,
				uint32_t qn, uint32_t counter)
{
	udma_to_device_barrier();
	snic_set_record(rec, counter);
	udma_to_device_barrier();
	snic_ring_db(ctx, offset, qn, counter);
}

/* snic_cq.c */
struct ibv_cq *snic_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector);
struct ibv_cq_ex *snic_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr);
int snic_destroy_cq(struct ibv_cq *cq);
int snic_resize_cq(struct ibv_cq *cq, int cqe);
int snic_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
int snic_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
int snic_req_notify_cq(struct ibv_cq *cq, int solicited_only);
void snic_cq_clean(struct snic_cq *cq, uint32_t qpn);

/* snic_qp.c */
struct ibv_qp *snic_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
/* create_qp in the mode @dv names (snicdv_create_qp, SNIC_QP_MODE). */
struct ibv_qp *snic_create_qp_mode(struct ibv_pd *pd,
				   struct ibv_qp_init_attr *attr,
				   const struct snicdv_qp_attr *dv,
				   const struct snicdv_llq_attr *llq);
int snic_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		  struct ibv_qp_init_attr *init_attr);
int snic_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);
int snic_destroy_qp(struct ibv_qp *qp);
int snic_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr);
/* snic_mw.c: memory windows */
struct ibv_mw *snic_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int snic_dealloc_mw(struct ibv_mw *mw);
int snic_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind);
int snic_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr);
struct ibv_srq *snic_create_srq(struct ibv_pd *pd,
				struct ibv_srq_init_attr *attr);
int snic_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		    int attr_mask);
int snic_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr);
int snic_destroy_srq(struct ibv_srq *srq);
int snic_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);
/* Map the ring of a created SRQ the response describes; an errno value. */
int snic_srq_map(struct snic_srq *srq, struct ibv_context *context,
		 const struct snic_create_srq_resp *r);
void snic_srq_free(struct snic_srq *srq);
void snic_qp_free(struct snic_qp *qp);

/* snic_xrc.c: XRC domains, XRC SRQs, XRC_RECV QPs */
struct ibv_xrcd *snic_open_xrcd(struct ibv_context *context,
				struct ibv_xrcd_init_attr *attr);
int snic_close_xrcd(struct ibv_xrcd *xrcd);
struct ibv_srq *snic_create_srq_ex(struct ibv_context *context,
				   struct ibv_srq_init_attr_ex *attr);
int snic_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num);
struct ibv_qp *snic_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr);
struct ibv_qp *snic_open_qp(struct ibv_context *context,
			    struct ibv_qp_open_attr *attr);

/* snic_wq.c: called by the CQ poller, one completion of @qp's WQE */
uint64_t snic_sq_retire(struct snic_qp *qp, uint32_t wqe_counter,
			enum ibv_wc_opcode *op);
void snic_rq_retire(struct snic_qp *qp);
/* A WQE of this context's XRC SRQ @srqn completed; false if none such. */
bool snic_xrc_srq_retire(struct snic_context *ctx, uint32_t srqn);

/* snic_pipe.c */
/* The mode SNIC_QP_MODE / SNIC_PIPE_CI_EVERY ask for; EINVAL if bad. */
int snic_pipe_env(struct snicdv_qp_attr *dv);
void snic_pipe_put_wqe(struct snic_sq *sq, uint32_t prod, uint8_t *wqe,
		       unsigned int nbb);
int snic_pipe_post_recv(struct snic_qp *qp, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr);
uint64_t snic_pipe_recv_wr_id(struct snic_qp *qp, uint32_t counter);
void snic_pipe_reset(struct snic_qp *qp);

/* snic_llq.c */
/* The create_qp words of @llq; EINVAL if out of range. */
int snic_llq_cmd(const struct snicdv_llq_attr *llq,
		 struct snic_create_qp_cmd *cmd);
/* Map the ring the response names; an errno value. */
int snic_llq_map(struct snic_qp *qp, int cmd_fd,
		 const struct snic_create_qp_resp *r,
		 const struct snic_create_qp_cmd *cmd);
void snic_llq_free(struct snic_qp *qp);
void snic_llq_reset(struct snic_qp *qp);
/* The next filled slot (1), none (0); give it back with snic_llq_release. */
int snic_llq_poll(struct snic_llq *l, const void **data, uint32_t *len);
void snic_llq_release(struct snic_llq *l);

/* snic_ssq.c */
struct snic_ssq *snic_ssq_get(struct snic_context *ctx,
			      const struct snic_create_qp_resp *r);
void snic_ssq_free_all(struct snic_context *ctx);
int snic_ssq_put_wqe(struct snic_qp *qp, uint8_t *wqe, unsigned int nbb);

#endif /* LIBSNIC_LIBSNIC_H */
