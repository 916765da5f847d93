/*
 * snic device tier: the queue driver shared by the Ethernet, RDMA and sPIN
 * qtest programs (in the manner of QEMU's libqos drivers, e.g.
 * tests/qtest/libqos/e1000e.c).  Queue objects own their rings and
 * doorbell records in guest RAM (qt_alloc), ring their doorbells in BAR2
 * and follow the owner/phase bit of docs/snic.md: an entry written by the
 * device on an even pass of the ring has bit 0 of its owner byte set, on
 * an odd pass clear.
 *
 *   EQ  event queue            snic_eq_*   (EQEs, armed by doorbell)
 *   CQ  completion queue       snic_cq_*   (CQEs, consumer record + arm)
 *   SQ  Ethernet send queue    snic_sq_*   (64-byte WQE basic blocks)
 *   RQ  Ethernet receive queue snic_rq_*   (one buffer per descriptor)
 *   EVQ sPIN event ring        snic_evq_*  (handler faults, aborts)
 *
 * RDMA QPs (snic_rdma_env.h) build on the same ring helpers.
 */
#ifndef D2D_SNIC_Q_H
#define D2D_SNIC_Q_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "snic_dev.h"
#include "d2d/snic_spin_ifc.h"

struct snic_eq {
	struct snic_dev *d;
	uint32_t n, size, cons;
	uint64_t ring;
	uint16_t page;
	int vec;
};

struct snic_cq {
	struct snic_dev *d;
	uint32_t n, size, cons;
	uint64_t ring, dbr;
	uint16_t page;
};

struct snic_sq {
	struct snic_dev *d;
	uint32_t n, size, prod;
	uint64_t ring, dbr;
	uint16_t page;
};

struct snic_rq {
	struct snic_dev *d;
	uint32_t n, size, prod, buf_size;
	uint64_t ring, dbr, bufs;
	uint16_t page;
};

struct snic_evq {
	struct qt *qt;
	uint32_t size, cons;
	uint64_t ring, dbr;
};

/* ---- rings ---- */

/*
 * The entry of @esz bytes at consumer counter @cons of a ring of @size
 * entries at @ring, if the device wrote it this pass (bit 0 of byte
 * @owner_off).  Tries @tries reads.
 */
bool snic_ring_peek(struct qt *qt, uint64_t ring, uint32_t size,
		    uint32_t cons, void *q, size_t esz, size_t owner_off,
		    int tries);
/*
 * Write @len bytes of @p as the entry at producer counter @prod of a ring
 * of @size entries @stride bytes apart (wrapping).
 */
void snic_ring_put(struct qt *qt, uint64_t ring, uint32_t size,
		   uint32_t prod, size_t stride, const void *p, size_t len);
/* Give the device @n main-loop turns (bottom halves) to act. */
void snic_settle(struct snic_dev *d, int n);

/* ---- event queues ---- */

/* 2^@log EQEs, MSI-X vector @vec, moderation @mod_us/@mod_cnt. */
int snic_eq_create(struct snic_eq *e, struct snic_dev *d, int log, int vec,
		   int mod_us, int mod_cnt, int page);
bool snic_eq_peek(struct snic_eq *e, struct snic_eqe *q, int tries);
/* Peek (@tries reads) and consume the next EQE. */
bool snic_eq_poll(struct snic_eq *e, struct snic_eqe *q, int tries);
void snic_eq_arm(struct snic_eq *e);

/* ---- completion queues ---- */

/* 2^@log CQEs on EQ @eqn (or SNIC_EQN_NONE), doorbell page @page. */
int snic_cq_create(struct snic_cq *c, struct snic_dev *d, int log,
		   uint32_t eqn, int page);
/* The same with SNIC_CQ_F_* @flags. */
int snic_cq_create_flags(struct snic_cq *c, struct snic_dev *d, int log,
			 uint32_t eqn, int page, uint8_t flags);
bool snic_cq_peek(struct snic_cq *c, struct snic_cqe *q, int tries);
/* Consumer counter + 1, written to the CQ's doorbell record. */
void snic_cq_consume(struct snic_cq *c);
/*
 * Wait for the next CQE and consume it: up to @tries reads, with @turns
 * main-loop turns after each miss.
 */
bool snic_cq_poll(struct snic_cq *c, struct snic_cqe *q, int tries,
		  int turns);
void snic_cq_arm(struct snic_cq *c);

/* ---- Ethernet send queues ---- */

/* SQ on ring @ring and record @dbr (any guest address, for DMA tests). */
int snic_sq_create_at(struct snic_sq *s, struct snic_dev *d, int log,
		      uint32_t cqn, int page, uint64_t ring, uint64_t dbr);
int snic_sq_create(struct snic_sq *s, struct snic_dev *d, int log,
		   uint32_t cqn, int page);
/* Copy @nbb basic blocks at the producer counter; no doorbell. */
uint16_t snic_sq_put(struct snic_sq *s, const uint8_t *bbs, int nbb);
/* Doorbell record, then the doorbell. */
void snic_sq_ring(struct snic_sq *s);

/* ---- Ethernet receive queues ---- */

/*
 * RQ of @type (SNIC_RQ_*; strides 2^@lss bytes, 2^@lns of them) with one
 * @buf_size buffer per descriptor, filled with 0xee; record at @dbr.
 */
int snic_rq_create_at(struct snic_rq *r, struct snic_dev *d, int log,
		      uint32_t cqn, int page, int type, int lss, int lns,
		      uint32_t buf_size, uint64_t dbr);
/* Plain RQ, 2 KiB buffers. */
int snic_rq_create(struct snic_rq *r, struct snic_dev *d, int log,
		   uint32_t cqn, int page);
/* Guest address of the buffer of descriptor counter @ctr. */
uint64_t snic_rq_buf(struct snic_rq *r, uint32_t ctr);
/* Post @n descriptors; record always, doorbell if @db. */
void snic_rq_post(struct snic_rq *r, int n, bool db);

/* ---- sPIN event rings (docs/snic-spin.md) ---- */

/* 2^@log events and a consumer record, for a context's ev_ring/ev_dbr. */
void snic_evq_init(struct snic_evq *q, struct qt *qt, int log);
/* The next event, consumed (counter written to the record), or false. */
bool snic_evq_next(struct snic_evq *q, struct snic_spin_event *ev);
/*
 * SPIN_CREATE_CTX of @cfg with event ring @ev (events to EQ @eqn, or
 * SNIC_EQN_NONE) on @d; *id is the context.  Returns the status.
 */
int snic_spin_ctx_create(struct snic_dev *d, struct snic_spin_ctx_cfg *cfg,
			 const struct snic_evq *ev, uint32_t eqn, uint32_t *id);

#endif
