// SPDX-License-Identifier: GPL-2.0
/*
 * snic RDMA: a user context's shared send queues (SSQs).
 *
 * The first SNIC_CREATE_QP_SSQ QP of a ucontext creates one SSQ per NIC
 * core for the context's doorbell page (SNIC_AQ_CREATE_SSQ; the answer to
 * the first one tells how many cores the device has), each a send pipe in
 * a buffer of its own that libsnic maps; the device places every SSQ QP
 * on the least-loaded SSQ of its context.  The SSQs live until the
 * context goes (all its QPs are gone by then).  docs/snic-rdma.md
 * "Scalable shared send queues".
 */
#include "snic_ib.h"

static int snic_ib_ssq_create(struct snic_ib_dev *ibd,
			      struct snic_ib_ucontext *uc, u8 core,
			      u32 *ncores)
{
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_CREATE_SSQ };
	struct snic_ib_ssq *q = &uc->ssq[core];
	struct snic_aq_create_ssq c = {};
	u32 ring = SNIC_WQEBB_SIZE << SNIC_IB_SSQ_LOG;
	u64 res;
	int ret;

	BUILD_BUG_ON(sizeof(c) > sizeof(cmd.raw));
	ret = snic_ib_buf_alloc(ibd, &q->buf, ring + SNIC_RING_ALIGN, true);
	if (ret)
		return ret;
	c.log_size = SNIC_IB_SSQ_LOG;
	c.ci_every = SNIC_IB_SSQ_CI_EVERY;
	c.db_page = cpu_to_le16(uc->db_page);
	c.core = core;
	c.ring_addr = cpu_to_le64(q->buf.dma);
	c.ci_addr = cpu_to_le64(q->buf.dma + ring);
	memcpy(cmd.raw, &c, sizeof(c));
	ret = snic_aq_exec(ibd->sd, &cmd, &res);
	if (ret)
		goto err_buf;
	q->ssqn = res & 0xffff;
	*ncores = (res >> 16) & 0xffff;
	q->mmap = snic_ib_mmap_buf(uc, &q->buf, &q->key);
	if (IS_ERR(q->mmap)) {
		ret = PTR_ERR(q->mmap);
		q->mmap = NULL;
		if (snic_cmd_destroy(ibd->sd, SNIC_AQ_DESTROY_SSQ, q->ssqn))
			return ret;	/* the device may still read it: leak */
		goto err_buf;
	}
	q->ci_off = ring;
	return 0;

err_buf:
	snic_ib_buf_free(ibd, &q->buf);
	return ret;
}

/* Destroy SSQ @core of @uc; its pages go with their last mapping. */
static void snic_ib_ssq_destroy(struct snic_ib_dev *ibd,
				struct snic_ib_ucontext *uc, u8 core)
{
	struct snic_ib_ssq *q = &uc->ssq[core];
	int ret;

	ret = snic_cmd_destroy(ibd->sd, SNIC_AQ_DESTROY_SSQ, q->ssqn);
	if (ret) {
		dev_warn(&ibd->sd->pdev->dev,
			 "DESTROY_SSQ %u failed: %d, keeping its ring\n",
			 q->ssqn, ret);
		/* the entry goes, the pages stay (the device may read them) */
		q->mmap->buf.va = NULL;
	}
	rdma_user_mmap_entry_remove(&q->mmap->rdma);
	q->mmap = NULL;
}

/*
 * The SSQs of @uc, created on first use: one per NIC core, at most
 * SNIC_IB_MAX_SSQS.  All or nothing.
 */
int snic_ib_ssq_setup(struct snic_ib_dev *ibd, struct snic_ib_ucontext *uc)
{
	u32 ncores = 0, n, i;
	int ret = 0;

	mutex_lock(&uc->ssq_lock);
	if (uc->nssq)
		goto out;
	ret = snic_ib_ssq_create(ibd, uc, 0, &ncores);
	if (ret)
		goto out;
	n = clamp_t(u32, ncores, 1, SNIC_IB_MAX_SSQS);
	for (i = 1; i < n; i++) {
		ret = snic_ib_ssq_create(ibd, uc, i, &ncores);
		if (ret)
			break;
	}
	if (ret) {
		while (i--)
			snic_ib_ssq_destroy(ibd, uc, i);
		goto out;
	}
	uc->nssq = n;
out:
	mutex_unlock(&uc->ssq_lock);
	return ret;
}

void snic_ib_ssq_teardown(struct snic_ib_dev *ibd, struct snic_ib_ucontext *uc)
{
	u32 i;

	for (i = 0; i < uc->nssq; i++)
		snic_ib_ssq_destroy(ibd, uc, i);
	uc->nssq = 0;
}

/* The create_qp response words of SSQ QP @qp, on SSQ @core of @uc. */
int snic_ib_ssq_resp(struct snic_ib_ucontext *uc, u8 core, u8 gen,
		     struct snic_create_qp_resp *resp)
{
	struct snic_ib_ssq *q;

	if (core >= uc->nssq)
		return -EIO;	/* the device named an SSQ we did not make */
	q = &uc->ssq[core];
	resp->ssq_index = core;
	resp->ssq_gen = gen;
	resp->ssq_log = SNIC_IB_SSQ_LOG;
	resp->ssq_ci_offset = q->ci_off;
	resp->ssq_mmap_key = q->key;
	resp->ssq_mmap_len = q->buf.size;
	return 0;
}
