// SPDX-License-Identifier: GPL-2.0
/*
 * snic data queues: the BAR2 doorbell page allocator, the admin commands
 * that create and destroy EQs, CQs, SQs and RQs at any bus address (shared
 * by the net_device and the peer-queue API), and queues whose rings and
 * doorbell records live in coherent host memory.
 *
 * Producer and consumer positions are free-running 16-bit counters; the
 * owner bit of an EQE/CQE is 1 on the first pass over the ring, so the
 * expected value is the inverse of bit log_size of the consumer counter.
 */
#include <linux/bitmap.h>
#include <linux/dma-mapping.h>
#include <linux/export.h>
#include <linux/io.h>
#include <linux/math64.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include "snic.h"

/* A free doorbell page, if more than @keep are free; else -ENOSPC. */
static int snic_db_page_take(struct snic_dev *sd, unsigned int keep)
{
	int page = -ENOSPC;

	spin_lock(&sd->db_lock);
	if (SNIC_DB_PAGES - bitmap_weight(sd->db_used, SNIC_DB_PAGES) > keep) {
		page = find_first_zero_bit(sd->db_used, SNIC_DB_PAGES);
		__set_bit(page, sd->db_used);
	}
	spin_unlock(&sd->db_lock);
	return page;
}

/* For the driver's own queues: may use the reserve. */
int snic_db_page_alloc(struct snic_dev *sd)
{
	return snic_db_page_take(sd, 0);
}
EXPORT_SYMBOL_NS_GPL(snic_db_page_alloc, SNIC_CORE);

/*
 * For a user context (one per open RDMA context): the last
 * SNIC_DB_KERNEL_RESERVE pages stay for the driver's queues (net_device
 * channels, peer queues, the sPIN EQ), however many contexts users open.
 * A refusal is counted (sysfs db_pages) and logged.
 */
int snic_db_page_alloc_user(struct snic_dev *sd)
{
	int page = snic_db_page_take(sd, SNIC_DB_KERNEL_RESERVE);

	if (page < 0) {
		atomic64_inc(&sd->db_user_refused);
		dev_info_ratelimited(&sd->pdev->dev,
				     "no doorbell page for a user context (%d kept for the driver)\n",
				     SNIC_DB_KERNEL_RESERVE);
	}
	return page;
}
EXPORT_SYMBOL_NS_GPL(snic_db_page_alloc_user, SNIC_CORE);

/*
 * Memory a user process makes the driver pin for it (sPIN host regions,
 * RDMA rings) is charged to its RLIMIT_MEMLOCK as ib_umem charges MRs
 * (mm->pinned_vm), unless it has CAP_IPC_LOCK.  Returns the mm to
 * uncharge later (held with mmgrab), NULL from a kernel thread (nothing
 * charged) or ERR_PTR(-ENOMEM), counted (sysfs pin_refused) and logged.
 */
struct mm_struct *snic_pin_charge(struct snic_dev *sd, unsigned long pages)
{
	struct mm_struct *mm = current->mm;
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;

	if (!mm)
		return NULL;
	if (atomic64_add_return(pages, &mm->pinned_vm) > limit &&
	    !capable(CAP_IPC_LOCK)) {
		atomic64_sub(pages, &mm->pinned_vm);
		atomic64_inc(&sd->pin_refused);
		dev_info_ratelimited(&sd->pdev->dev,
				     "%lu pages for pid %d: over its RLIMIT_MEMLOCK\n",
				     pages, task_tgid_nr(current));
		return ERR_PTR(-ENOMEM);
	}
	mmgrab(mm);
	return mm;
}
EXPORT_SYMBOL_NS_GPL(snic_pin_charge, SNIC_CORE);

void snic_pin_uncharge(struct mm_struct *mm, unsigned long pages)
{
	if (!mm)
		return;
	atomic64_sub(pages, &mm->pinned_vm);
	mmdrop(mm);
}
EXPORT_SYMBOL_NS_GPL(snic_pin_uncharge, SNIC_CORE);

unsigned int snic_db_pages_used(struct snic_dev *sd)
{
	unsigned int n;

	spin_lock(&sd->db_lock);
	n = bitmap_weight(sd->db_used, SNIC_DB_PAGES);
	spin_unlock(&sd->db_lock);
	return n;
}

void snic_db_page_free(struct snic_dev *sd, int page)
{
	if (page < 0 || page >= SNIC_DB_PAGES)
		return;
	spin_lock(&sd->db_lock);
	__clear_bit(page, sd->db_used);
	spin_unlock(&sd->db_lock);
}
EXPORT_SYMBOL_NS_GPL(snic_db_page_free, SNIC_CORE);

void snic_db_write(struct snic_dev *sd, u16 page, u32 offset, u32 qn,
		   u16 ctr)
{
	/* iowrite32 orders earlier writes to rings and records before it. */
	iowrite32(SNIC_DB_VAL(qn, ctr),
		  sd->db + (size_t)page * SNIC_DB_PAGE_SIZE + offset);
}
EXPORT_SYMBOL_NS_GPL(snic_db_write, SNIC_CORE);

/* ---- admin commands on bus addresses ---- */

static int snic_cmd_create(struct snic_dev *sd, struct snic_aq_cmd *cmd,
			   u32 *id)
{
	u64 res = 0;
	int ret;

	ret = snic_aq_exec(sd, cmd, &res);
	if (!ret)
		*id = res;
	return ret;
}

int snic_cmd_create_eq(struct snic_dev *sd, u64 ring, u8 log_size, u16 msix,
		       u16 db_page, u32 *eqn)
{
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_CREATE_EQ };

	cmd.create_eq.ring_addr = cpu_to_le64(ring);
	cmd.create_eq.log_size = log_size;
	cmd.create_eq.msix = cpu_to_le16(msix);
	cmd.create_eq.db_page = cpu_to_le16(db_page);
	return snic_cmd_create(sd, &cmd, eqn);
}

/*
 * MODIFY_CQ: the CQ's event moderation, for ethtool -C and ib_modify_cq.
 * An armed CQ raises its event after @count CQEs or @period_us after the
 * first of them, whichever comes first; 0/0 raises at every CQE.
 */
int snic_cmd_modify_cq(struct snic_dev *sd, u32 cqn, u32 count, u32 period_us)
{
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_MODIFY_CQ };

	cmd.modify_cq.cqn = cpu_to_le32(cqn);
	cmd.modify_cq.count = cpu_to_le32(count);
	cmd.modify_cq.period_us = cpu_to_le32(period_us);
	return snic_aq_exec(sd, &cmd, NULL);
}
EXPORT_SYMBOL_NS_GPL(snic_cmd_modify_cq, SNIC_CORE);

/*
 * CREATE_CQ, CREATE_SQ and CREATE_RQ begin alike (<d2d/snic_ifc.h>): ring and
 * record addresses, log_size, a byte (CQ, SQ: flags; RQ: type), the queue
 * it reports to (CQ: its EQ; SQ, RQ: their CQ) and the doorbell page.
 */
static void snic_cmd_ring(struct snic_aq_cmd *cmd, u64 ring, u64 dbr,
			  u8 log_size, u8 kind, u16 to, u16 db_page)
{
	struct snic_aq_create_sq *r = &cmd->create_sq;

	BUILD_BUG_ON(offsetof(struct snic_aq_create_sq, dbr_addr) !=
		     offsetof(struct snic_aq_create_cq, dbr_addr));
	BUILD_BUG_ON(offsetof(struct snic_aq_create_sq, log_size) !=
		     offsetof(struct snic_aq_create_cq, log_size));
	BUILD_BUG_ON(offsetof(struct snic_aq_create_sq, flags) !=
		     offsetof(struct snic_aq_create_cq, flags));
	BUILD_BUG_ON(offsetof(struct snic_aq_create_sq, db_page) !=
		     offsetof(struct snic_aq_create_cq, db_page));
	BUILD_BUG_ON(offsetof(struct snic_aq_create_sq, cqn) !=
		     offsetof(struct snic_aq_create_cq, eqn));
	BUILD_BUG_ON(offsetof(struct snic_aq_create_sq, dbr_addr) !=
		     offsetof(struct snic_aq_create_rq, dbr_addr));
	BUILD_BUG_ON(offsetof(struct snic_aq_create_sq, log_size) !=
		     offsetof(struct snic_aq_create_rq, log_size));
	BUILD_BUG_ON(offsetof(struct snic_aq_create_sq, cqn) !=
		     offsetof(struct snic_aq_create_rq, cqn));
	BUILD_BUG_ON(offsetof(struct snic_aq_create_sq, db_page) !=
		     offsetof(struct snic_aq_create_rq, db_page));
	BUILD_BUG_ON(offsetof(struct snic_aq_create_sq, flags) !=
		     offsetof(struct snic_aq_create_rq, type));
	r->ring_addr = cpu_to_le64(ring);
	r->dbr_addr = cpu_to_le64(dbr);
	r->log_size = log_size;
	r->flags = kind;
	r->cqn = cpu_to_le16(to);
	r->db_page = cpu_to_le16(db_page);
}

int snic_cmd_create_cq(struct snic_dev *sd, u64 ring, u64 dbr, u8 log_size,
		       u8 flags, u16 eqn, u16 db_page, u32 *cqn)
{
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_CREATE_CQ };

	snic_cmd_ring(&cmd, ring, dbr, log_size, flags, eqn, db_page);
	return snic_cmd_create(sd, &cmd, cqn);
}
EXPORT_SYMBOL_NS_GPL(snic_cmd_create_cq, SNIC_CORE);

int snic_cmd_create_sq(struct snic_dev *sd, u64 ring, u64 dbr, u8 log_size,
		       u16 cqn, u16 db_page, u32 *sqn)
{
	return snic_cmd_create_sq_flags(sd, ring, dbr, log_size,
					SNIC_SQ_F_RAW_ETH, cqn, db_page, sqn);
}

int snic_cmd_create_sq_flags(struct snic_dev *sd, u64 ring, u64 dbr,
			     u8 log_size, u8 flags, u16 cqn, u16 db_page,
			     u32 *sqn)
{
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_CREATE_SQ };

	snic_cmd_ring(&cmd, ring, dbr, log_size, flags, cqn, db_page);
	return snic_cmd_create(sd, &cmd, sqn);
}

int snic_cmd_create_rq(struct snic_dev *sd, u64 ring, u64 dbr, u8 log_size,
		       u8 type, u8 log_stride_size, u8 log_num_strides,
		       u16 cqn, u16 db_page, u32 *rqn)
{
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_CREATE_RQ };

	snic_cmd_ring(&cmd, ring, dbr, log_size, type, cqn, db_page);
	cmd.create_rq.log_stride_size = log_stride_size;
	cmd.create_rq.log_num_strides = log_num_strides;
	return snic_cmd_create(sd, &cmd, rqn);
}

int snic_cmd_destroy(struct snic_dev *sd, u8 opcode, u32 id)
{
	struct snic_aq_cmd cmd = { .opcode = opcode };

	cmd.obj.id = cpu_to_le32(id);
	return snic_aq_exec(sd, &cmd, NULL);
}
EXPORT_SYMBOL_NS_GPL(snic_cmd_destroy, SNIC_CORE);

/*
 * Rate limit an SQ.  The bucket holds 10 ms worth of bytes (at least two
 * jumbo frames): with the device's default of one frame, every late refill
 * (timer or scheduling jitter) would be lost for good and the SQ would run
 * below its rate; a deeper bucket lets it catch up while the long-term
 * rate stays the configured one.
 */
int snic_cmd_sq_rate(struct snic_dev *sd, u32 sqn, u64 rate_bps)
{
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_MODIFY_SQ };
	u64 burst = div_u64(rate_bps, 8 * 100);

	burst = clamp_t(u64, burst, 2 * (SNIC_MAX_MTU + SNIC_FRAME_OVERHEAD),
			U32_MAX);
	cmd.modify_sq.sqn = cpu_to_le32(sqn);
	cmd.modify_sq.rate_bps = cpu_to_le64(rate_bps);
	cmd.modify_sq.burst_bytes = cpu_to_le32(rate_bps ? burst : 0);
	return snic_aq_exec(sd, &cmd, NULL);
}

int snic_cmd_query_stats(struct snic_dev *sd, u32 kind, u32 id, void *buf,
			 size_t len)
{
	return snic_aq_exec_buf(sd, SNIC_AQ_QUERY_STATS, id, kind, buf, len,
				NULL);
}
EXPORT_SYMBOL_NS_GPL(snic_cmd_query_stats, SNIC_CORE);

/* ---- queues in host memory ---- */

static size_t snic_ring_total(size_t bytes)
{
	return ALIGN(bytes, SNIC_RING_ALIGN) + SNIC_RING_ALIGN;
}

static int snic_ring_alloc(struct snic_dev *sd, struct snic_ring *r,
			   size_t bytes)
{
	size_t off = ALIGN(bytes, SNIC_RING_ALIGN);

	/* Zeroed: owner bits 0 (nothing valid yet), records 0. */
	r->buf = dma_alloc_coherent(&sd->pdev->dev, snic_ring_total(bytes),
				    &r->dma, GFP_KERNEL);
	if (!r->buf)
		return -ENOMEM;
	r->bytes = bytes;
	r->dbr = r->buf + off;
	r->dbr_dma = r->dma + off;
	return 0;
}

static void snic_ring_free(struct snic_dev *sd, struct snic_ring *r)
{
	if (!r->buf)
		return;
	dma_free_coherent(&sd->pdev->dev, snic_ring_total(r->bytes), r->buf,
			  r->dma);
	r->buf = NULL;
}

/*
 * Destroy a device object before freeing its memory.  If the device did
 * not confirm, it may still write the ring: keep the memory (leak) rather
 * than let it be reused under the device.
 */
static void snic_obj_destroy(struct snic_dev *sd, struct snic_ring *r,
			     bool *live, u8 opcode, u32 id)
{
	int ret;

	if (*live) {
		ret = snic_cmd_destroy(sd, opcode, id);
		*live = false;
		if (ret) {
			dev_warn(&sd->pdev->dev,
				 "destroy opcode %#x id %u failed: %d, keeping its ring\n",
				 opcode, id, ret);
			r->buf = NULL;
			return;
		}
	}
	snic_ring_free(sd, r);
}

int snic_eq_create(struct snic_dev *sd, struct snic_eq *eq, u8 log_size,
		   u16 msix, u16 db_page)
{
	int ret;

	eq->size = 1u << log_size;
	eq->cons = 0;
	eq->db_page = db_page;
	ret = snic_ring_alloc(sd, &eq->r, eq->size * sizeof(struct snic_eqe));
	if (ret)
		return ret;
	ret = snic_cmd_create_eq(sd, eq->r.dma, log_size, msix, db_page,
				 &eq->eqn);
	if (ret) {
		snic_ring_free(sd, &eq->r);
		return ret;
	}
	eq->live = true;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(snic_eq_create, SNIC_CORE);

void snic_eq_destroy(struct snic_dev *sd, struct snic_eq *eq)
{
	snic_obj_destroy(sd, &eq->r, &eq->live, SNIC_AQ_DESTROY_EQ, eq->eqn);
}
EXPORT_SYMBOL_NS_GPL(snic_eq_destroy, SNIC_CORE);

/*
 * Entry @cons of a ring of @size entries of @esize bytes whose owner bit
 * (bit 0 of the byte at @own_off) flips on every pass, 1 on the first:
 * the entry if the device has written it on this pass, else NULL.
 */
static void *snic_ring_next(void *buf, u16 cons, u32 size, size_t esize,
			    size_t own_off)
{
	u8 *e = buf + (size_t)(cons & (size - 1)) * esize;
	u8 phase = ((cons / size) & 1) ^ 1;

	if ((READ_ONCE(e[own_off]) & 1) != phase)
		return NULL;
	/* Read the entry only after its owner bit. */
	dma_rmb();
	return e;
}

struct snic_eqe *snic_eq_next(struct snic_eq *eq)
{
	BUILD_BUG_ON(SNIC_EQE_OWNER != 1);
	return snic_ring_next(eq->r.buf, eq->cons, eq->size,
			      sizeof(struct snic_eqe),
			      offsetof(struct snic_eqe, owner));
}
EXPORT_SYMBOL_NS_GPL(snic_eq_next, SNIC_CORE);

void snic_eq_arm(struct snic_dev *sd, struct snic_eq *eq)
{
	snic_db_write(sd, eq->db_page, SNIC_DB_EQ_ARM, eq->eqn, eq->cons);
}
EXPORT_SYMBOL_NS_GPL(snic_eq_arm, SNIC_CORE);

int snic_cq_create(struct snic_dev *sd, struct snic_cq *cq, u8 log_size,
		   u8 flags, u16 eqn, u16 db_page)
{
	int ret;

	cq->size = 1u << log_size;
	cq->cons = 0;
	cq->db_page = db_page;
	cq->flags = flags;
	ret = snic_ring_alloc(sd, &cq->r, cq->size * sizeof(struct snic_cqe));
	if (ret)
		return ret;
	ret = snic_cmd_create_cq(sd, cq->r.dma, cq->r.dbr_dma, log_size, flags,
				 eqn, db_page, &cq->cqn);
	if (ret) {
		snic_ring_free(sd, &cq->r);
		return ret;
	}
	cq->live = true;
	return 0;
}

void snic_cq_destroy(struct snic_dev *sd, struct snic_cq *cq)
{
	snic_obj_destroy(sd, &cq->r, &cq->live, SNIC_AQ_DESTROY_CQ, cq->cqn);
}

struct snic_cqe *snic_cq_next(struct snic_cq *cq)
{
	BUILD_BUG_ON(SNIC_CQE_OWNER != 1);
	return snic_ring_next(cq->r.buf, cq->cons, cq->size,
			      sizeof(struct snic_cqe),
			      offsetof(struct snic_cqe, op_own));
}
EXPORT_SYMBOL_NS_GPL(snic_cq_next, SNIC_CORE);

/* Tell the device (through the record) which CQEs it may overwrite. */
void snic_cq_update(struct snic_cq *cq)
{
	WRITE_ONCE(*cq->r.dbr, cpu_to_le32(cq->cons));
}
EXPORT_SYMBOL_NS_GPL(snic_cq_update, SNIC_CORE);

void snic_cq_arm(struct snic_dev *sd, struct snic_cq *cq)
{
	snic_cq_update(cq);
	snic_db_write(sd, cq->db_page, SNIC_DB_CQ_ARM, cq->cqn, cq->cons);
}

static void snic_wq_init(struct snic_wq *wq, u8 log_size, u16 db_page)
{
	wq->size = 1u << log_size;
	wq->prod = 0;
	wq->cons = 0;
	wq->rung = 0;
	wq->db_page = db_page;
}

int snic_sq_create(struct snic_dev *sd, struct snic_wq *sq, u8 log_size,
		   u16 cqn, u16 db_page)
{
	int ret;

	snic_wq_init(sq, log_size, db_page);
	ret = snic_ring_alloc(sd, &sq->r, sq->size * SNIC_WQEBB_SIZE);
	if (ret)
		return ret;
	ret = snic_cmd_create_sq(sd, sq->r.dma, sq->r.dbr_dma, log_size, cqn,
				 db_page, &sq->qn);
	if (ret) {
		snic_ring_free(sd, &sq->r);
		return ret;
	}
	sq->live = true;
	return 0;
}

int snic_rq_create(struct snic_dev *sd, struct snic_wq *rq, u8 log_size,
		   u16 cqn, u16 db_page)
{
	int ret;

	snic_wq_init(rq, log_size, db_page);
	ret = snic_ring_alloc(sd, &rq->r,
			      rq->size * sizeof(struct snic_rx_desc));
	if (ret)
		return ret;
	ret = snic_cmd_create_rq(sd, rq->r.dma, rq->r.dbr_dma, log_size,
				 SNIC_RQ_PLAIN, 0, 0, cqn, db_page, &rq->qn);
	if (ret) {
		snic_ring_free(sd, &rq->r);
		return ret;
	}
	rq->live = true;
	return 0;
}

void snic_wq_destroy(struct snic_dev *sd, struct snic_wq *wq, u8 opcode)
{
	snic_obj_destroy(sd, &wq->r, &wq->live, opcode, wq->qn);
}

/* Publish the producer counter in the record, then ring the doorbell. */
void snic_wq_ring(struct snic_dev *sd, struct snic_wq *wq, u32 db_offset)
{
	dma_wmb();
	WRITE_ONCE(*wq->r.dbr, cpu_to_le32(wq->prod));
	snic_db_write(sd, wq->db_page, db_offset, wq->qn, wq->prod);
	wq->rung = wq->prod;
}
