// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libsnic completion queues: the CQ ring and its doorbell record are
 * mapped from snic.ko; polling reads CQEs by their owner bit and writes
 * the consumer counter back to the record, arming rings the context's
 * doorbell page.  No system call on the data path.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "libsnic.h"

/* The driver data describes a ring and record inside the mapping. */
static bool snic_cq_resp_ok(const struct snic_create_cq_resp *r)
{
	return r->log_size <= SNIC_MAX_LOG_SIZE &&
	       (sizeof(struct snic_cqe) << r->log_size) <= r->dbr_offset &&
	       (uint64_t)r->dbr_offset + 4 <= r->mmap_len;
}

/*
 * Map the ring and record the kernel made for the new CQ @cq (@r: its
 * driver data); an errno, the CQ is then destroyed.
 */
static int snic_cq_map(struct snic_cq *cq, struct ibv_context *context,
		       const struct snic_create_cq_resp *r)
{
	void *map;
	int ret;

	if (!snic_cq_resp_ok(r)) {
		ret = EPROTO;
		goto err;
	}
	map = mmap(NULL, r->mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   context->cmd_fd, r->mmap_key);
	if (map == MAP_FAILED) {
		ret = errno;
		goto err;
	}
	cq->map = map;
	cq->map_len = r->mmap_len;
	cq->ring = map;
	cq->dbr = (volatile uint32_t *)((uint8_t *)map + r->dbr_offset);
	cq->cqn = r->cqn;
	cq->log_size = r->log_size;
	cq->cons = 0;
	return 0;
err:
	ibv_cmd_destroy_cq(&cq->vcq.cq);
	return ret;
}

struct ibv_cq *snic_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector)
{
	struct verbs_cmd_create_cq cmd;
	struct snic_create_cq_resp_full resp;
	struct snic_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_cq(context, cqe, channel, comp_vector,
				&cq->vcq.cq, &cmd, sizeof(cmd), &resp.ibv,
				sizeof(resp));
	if (!ret)
		ret = snic_cq_map(cq, context, &resp.drv);
	if (!ret)
		return &cq->vcq.cq;
	pthread_spin_destroy(&cq->lock);
	free(cq);
	errno = ret;
	return NULL;
}

int snic_destroy_cq(struct ibv_cq *ibcq)
{
	struct snic_cq *cq = to_scq(ibcq);
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	munmap(cq->map, cq->map_len);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}

/*
 * ibv_modify_cq (CQ moderation): the kernel sets the device's event
 * moderation; polling and arming here are unchanged.
 */
int snic_modify_cq(struct ibv_cq *ibcq, struct ibv_modify_cq_attr *attr)
{
	struct verbs_cmd_modify_cq cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_modify_cq(ibcq, attr, &cmd, sizeof(cmd));
}

/*
 * ibv_resize_cq: the kernel has the device move the CQEs not yet polled
 * to the start of a new ring (it reads our consumer counter from the
 * record); we switch to the new mapping and continue at counter 0.
 * Polling waits on the lock meanwhile.
 */
int snic_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct snic_cq *cq = to_scq(ibcq);
	struct snic_resize_cq_resp_full resp;
	struct verbs_cmd_resize_cq cmd;
	void *map;
	int ret;

	memset(&resp, 0, sizeof(resp));
	pthread_spin_lock(&cq->lock);
	udma_to_device_barrier();
	snic_set_record(cq->dbr, cq->cons);
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd, sizeof(cmd), &resp.ibv,
				sizeof(resp));
	if (ret)
		goto out;
	if (!snic_cq_resp_ok(&resp.drv) || resp.drv.cqn != cq->cqn) {
		ret = EPROTO;
		goto out;
	}
	map = mmap(NULL, resp.drv.mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   ibcq->context->cmd_fd, resp.drv.mmap_key);
	if (map == MAP_FAILED) {
		/* the device already writes the new ring: this CQ is lost */
		ret = errno;
		goto out;
	}
	munmap(cq->map, cq->map_len);
	cq->map = map;
	cq->map_len = resp.drv.mmap_len;
	cq->ring = map;
	cq->dbr = (volatile uint32_t *)((uint8_t *)map + resp.drv.dbr_offset);
	cq->log_size = resp.drv.log_size;
	cq->cons = 0;
out:
	pthread_spin_unlock(&cq->lock);
	return ret;
}

/* Turn one CQE into @wc; false if it belongs to no QP we know. */
static bool snic_cqe_to_wc(struct snic_context *ctx, const struct snic_cqe *cqe,
			   struct ibv_wc *wc)
{
	uint32_t qpn = le32toh(cqe->rdma_qpn);
	struct snic_qp *qp;
	enum ibv_wc_opcode op;

	/* an XRC SRQ's WQE: its SRQ is named, its XRC_RECV QP may be another's */
	if ((cqe->opcode == SNIC_CQE_RECV || cqe->opcode == SNIC_CQE_RECV_ERR) &&
	    (cqe->rdma_flags & SNIC_CQE_RF_XRC)) {
		if (!snic_xrc_srq_retire(ctx, le32toh(cqe->src_qpn)))
			return false;
		snic_wc_from_recv_cqe(wc, cqe);
		wc->src_qp = 0;		/* a connected QP's: none */
		return true;
	}
	if (qpn >= SNIC_MAX_QPS)
		return false;
	qp = __atomic_load_n(&ctx->qp_table[qpn], __ATOMIC_ACQUIRE);
	if (!qp)
		return false;

	switch (cqe->opcode) {
	case SNIC_CQE_REQ:
	case SNIC_CQE_REQ_ERR:
		memset(wc, 0, sizeof(*wc));
		wc->wr_id = snic_sq_retire(qp, le16toh(cqe->wqe_counter), &op);
		wc->opcode = op;
		wc->qp_num = qpn;
		wc->byte_len = le32toh(cqe->byte_cnt);
		if (cqe->opcode == SNIC_CQE_REQ) {
			wc->status = IBV_WC_SUCCESS;
		} else {
			wc->status = snic_wc_status(cqe->syndrome);
			if (wc->status == IBV_WC_SUCCESS)
				wc->status = IBV_WC_GENERAL_ERR;
			wc->vendor_err = cqe->syndrome;
		}
		return true;
	case SNIC_CQE_RECV:
	case SNIC_CQE_RECV_ERR:
		snic_wc_from_recv_cqe(wc, cqe);
		if (qp->pipe)
			wc->wr_id = snic_pipe_recv_wr_id(qp,
						le16toh(cqe->wqe_counter));
		snic_rq_retire(qp);
		return true;
	default:
		return false;
	}
}

/*
 * Take the CQE at the consumer counter into @wc (and its timestamp into
 * *@ts): 1, or 0 for a completion of no QP we know (skipped), -1 if the
 * ring holds none.  Called with the CQ's lock held.
 */
static int snic_cq_take(struct snic_cq *cq, struct snic_context *ctx,
			struct ibv_wc *wc, uint64_t *ts)
{
	struct snic_cqe *cqe = &cq->ring[cq->cons & ((1u << cq->log_size) - 1)];
	bool ok;

	if (!snic_cqe_valid(cqe, cq->cons, cq->log_size))
		return -1;
	/* Body only after the owner bit says it is complete. */
	udma_from_device_barrier();
	ok = snic_cqe_to_wc(ctx, cqe, wc);
	*ts = le64toh(cqe->timestamp);
	cq->cons++;
	return ok;
}

/* The consumed CQEs' slots go back to the device (lock held). */
static void snic_cq_release(struct snic_cq *cq, uint32_t start)
{
	if (cq->cons != start) {
		/* Reads of the consumed CQEs are done before the slots go back. */
		udma_from_device_barrier();
		snic_set_record(cq->dbr, cq->cons);
	}
}

int snic_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct snic_cq *cq = to_scq(ibcq);
	struct snic_context *ctx = to_sctx(ibcq->context);
	uint32_t start;
	uint64_t ts;
	int n = 0, r = 0;

	pthread_spin_lock(&cq->lock);
	start = cq->cons;
	while (n < num_entries && r >= 0) {
		r = snic_cq_take(cq, ctx, &wc[n], &ts);
		n += r > 0;
	}
	snic_cq_release(cq, start);
	pthread_spin_unlock(&cq->lock);
	return n;
}

/*
 * ---- Extended CQs (ibv_create_cq_ex) ----
 *
 * The ibv_start_poll / ibv_next_poll / ibv_end_poll API, as rdma-core
 * providers give it: each step takes one CQE into cq->wc (the same
 * parsing as snic_poll_cq) and the ibv_wc_read_* calls return its fields.
 * ibv_wc_read_completion_ts is the CQE's timestamp, the device clock (ns)
 * when the CQE landed (docs/snic-rdma.md "Completion timestamps").  The
 * CQ's lock is held from start_poll to end_poll.
 */
static int snic_cq_ex_step(struct snic_cq *cq)
{
	struct snic_context *ctx = to_sctx(cq->vcq.cq.context);
	int r;

	do {
		r = snic_cq_take(cq, ctx, &cq->wc, &cq->wc_ts);
	} while (!r);
	if (r < 0)
		return ENOENT;
	cq->vcq.cq_ex.wr_id = cq->wc.wr_id;
	cq->vcq.cq_ex.status = cq->wc.status;
	return 0;
}

static int snic_start_poll(struct ibv_cq_ex *ibcq,
			   struct ibv_poll_cq_attr *attr)
{
	struct snic_cq *cq = to_scq(ibv_cq_ex_to_cq(ibcq));
	int ret;

	if (attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	cq->poll_start = cq->cons;
	ret = snic_cq_ex_step(cq);
	if (ret) {
		/* nothing to poll: the caller does not call end_poll */
		snic_cq_release(cq, cq->poll_start);
		pthread_spin_unlock(&cq->lock);
	}
	return ret;
}

static int snic_next_poll(struct ibv_cq_ex *ibcq)
{
	return snic_cq_ex_step(to_scq(ibv_cq_ex_to_cq(ibcq)));
}

static void snic_end_poll(struct ibv_cq_ex *ibcq)
{
	struct snic_cq *cq = to_scq(ibv_cq_ex_to_cq(ibcq));

	snic_cq_release(cq, cq->poll_start);
	pthread_spin_unlock(&cq->lock);
}

static struct ibv_wc *snic_cq_ex_wc(struct ibv_cq_ex *ibcq)
{
	return &to_scq(ibv_cq_ex_to_cq(ibcq))->wc;
}

static enum ibv_wc_opcode snic_wc_read_opcode(struct ibv_cq_ex *ibcq)
{
	return snic_cq_ex_wc(ibcq)->opcode;
}

static uint32_t snic_wc_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return snic_cq_ex_wc(ibcq)->vendor_err;
}

static uint32_t snic_wc_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return snic_cq_ex_wc(ibcq)->byte_len;
}

static __be32 snic_wc_read_imm_data(struct ibv_cq_ex *ibcq)
{
	return snic_cq_ex_wc(ibcq)->imm_data;
}

static uint32_t snic_wc_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return snic_cq_ex_wc(ibcq)->qp_num;
}

static uint32_t snic_wc_read_src_qp(struct ibv_cq_ex *ibcq)
{
	return snic_cq_ex_wc(ibcq)->src_qp;
}

static unsigned int snic_wc_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	return snic_cq_ex_wc(ibcq)->wc_flags;
}

static uint32_t snic_wc_read_slid(struct ibv_cq_ex *ibcq)
{
	return snic_cq_ex_wc(ibcq)->slid;
}

static uint8_t snic_wc_read_sl(struct ibv_cq_ex *ibcq)
{
	return snic_cq_ex_wc(ibcq)->sl;
}

static uint8_t snic_wc_read_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	return snic_cq_ex_wc(ibcq)->dlid_path_bits;
}

static uint64_t snic_wc_read_completion_ts(struct ibv_cq_ex *ibcq)
{
	return to_scq(ibv_cq_ex_to_cq(ibcq))->wc_ts;
}

/* The work completion fields an extended CQ can give. */
#define SNIC_WC_EX_FLAGS (IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | \
			  IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP | \
			  IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL | \
			  IBV_WC_EX_WITH_DLID_PATH_BITS | \
			  IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)

struct ibv_cq_ex *snic_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr)
{
	struct verbs_cmd_create_cq_ex cmd;
	struct snic_create_cq_ex_resp_full resp;
	struct ibv_cq_ex *ex;
	struct snic_cq *cq;
	int ret;

	if ((attr->wc_flags & ~(uint64_t)SNIC_WC_EX_FLAGS) ||
	    (attr->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     (attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	memset(&resp, 0, sizeof(resp));
	memset(&cmd, 0, sizeof(cmd));
	ret = ibv_cmd_create_cq_ex(context, attr, &cq->vcq, &cmd, sizeof(cmd),
				   &resp.ibv, sizeof(resp), 0);
	if (!ret)
		ret = snic_cq_map(cq, context, &resp.drv);
	if (ret) {
		pthread_spin_destroy(&cq->lock);
		free(cq);
		errno = ret;
		return NULL;
	}
	ex = &cq->vcq.cq_ex;
	ex->start_poll = snic_start_poll;
	ex->next_poll = snic_next_poll;
	ex->end_poll = snic_end_poll;
	ex->read_opcode = snic_wc_read_opcode;
	ex->read_vendor_err = snic_wc_read_vendor_err;
	ex->read_wc_flags = snic_wc_read_wc_flags;
	ex->read_byte_len = snic_wc_read_byte_len;
	ex->read_imm_data = snic_wc_read_imm_data;
	ex->read_qp_num = snic_wc_read_qp_num;
	ex->read_src_qp = snic_wc_read_src_qp;
	ex->read_slid = snic_wc_read_slid;
	ex->read_sl = snic_wc_read_sl;
	ex->read_dlid_path_bits = snic_wc_read_dlid_path_bits;
	ex->read_completion_ts = snic_wc_read_completion_ts;
	return ex;
}

int snic_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct snic_cq *cq = to_scq(ibcq);
	struct snic_context *ctx = to_sctx(ibcq->context);
	uint32_t cons;

	pthread_spin_lock(&cq->lock);
	cons = cq->cons;
	pthread_spin_unlock(&cq->lock);
	udma_to_device_barrier();
	snic_ring_db(ctx, solicited_only ? SNIC_DB_CQ_ARM_SE : SNIC_DB_CQ_ARM,
		     cq->cqn, cons);
	return 0;
}

/*
 * A QP was destroyed: completions of it still in the ring must not be
 * reported (its qpn may be reused).  The kernel has already destroyed it
 * in the device, so no more arrive; mark those present as foreign.
 */
void snic_cq_clean(struct snic_cq *cq, uint32_t qpn)
{
	uint32_t mask = (1u << cq->log_size) - 1;
	uint32_t c;

	pthread_spin_lock(&cq->lock);
	for (c = cq->cons; c - cq->cons <= mask; c++) {
		struct snic_cqe *cqe = &cq->ring[c & mask];

		if (!snic_cqe_valid(cqe, c, cq->log_size))
			break;
		udma_from_device_barrier();
		if (le32toh(cqe->rdma_qpn) == qpn)
			cqe->rdma_qpn = htole32(UINT32_MAX);
	}
	pthread_spin_unlock(&cq->lock);
}
