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

struct ibv_cq *snic_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector)
{
	struct verbs_cmd_create_cq cmd;
	struct snic_create_cq_resp_full resp;
	struct snic_cq *cq;
	void *map;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_cq(context, cqe, channel, comp_vector,
				&cq->vcq.cq, &cmd, sizeof(cmd), &resp.ibv,
				sizeof(resp));
	if (ret) {
		errno = ret;
		goto err_free;
	}
	if (!snic_cq_resp_ok(&resp.drv)) {
		errno = EPROTO;
		goto err_destroy;
	}
	map = mmap(NULL, resp.drv.mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   context->cmd_fd, resp.drv.mmap_key);
	if (map == MAP_FAILED)
		goto err_destroy;
	cq->map = map;
	cq->map_len = resp.drv.mmap_len;
	cq->ring = map;
	cq->dbr = (volatile uint32_t *)((uint8_t *)map + resp.drv.dbr_offset);
	cq->cqn = resp.drv.cqn;
	cq->log_size = resp.drv.log_size;
	cq->cons = 0;
	return &cq->vcq.cq;

err_destroy:
	ret = errno;
	ibv_cmd_destroy_cq(&cq->vcq.cq);
	errno = ret;
err_free:
	pthread_spin_destroy(&cq->lock);
	free(cq);
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

int snic_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct snic_cq *cq = to_scq(ibcq);
	struct snic_context *ctx = to_sctx(ibcq->context);
	uint32_t mask = (1u << cq->log_size) - 1;
	uint32_t start;
	int n = 0;

	pthread_spin_lock(&cq->lock);
	start = cq->cons;
	while (n < num_entries) {
		struct snic_cqe *cqe = &cq->ring[cq->cons & mask];

		if (!snic_cqe_valid(cqe, cq->cons, cq->log_size))
			break;
		/* Body only after the owner bit says it is complete. */
		udma_from_device_barrier();
		if (snic_cqe_to_wc(ctx, cqe, &wc[n]))
			n++;
		cq->cons++;
	}
	if (cq->cons != start) {
		/* Reads of the consumed CQEs are done before the slots go back. */
		udma_from_device_barrier();
		snic_set_record(cq->dbr, cq->cons);
	}
	pthread_spin_unlock(&cq->lock);
	return n;
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
