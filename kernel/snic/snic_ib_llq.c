// SPDX-License-Identifier: GPL-2.0
/*
 * snic RDMA: low-latency QPs' receive rings.
 *
 * A user RC QP created with SNIC_CREATE_QP_LLQ gets a ring of fixed-size
 * slots and a consumer record in one buffer of its own, given to the
 * device with SNIC_AQ_SET_LLQ while the QP is in RESET and mapped to the
 * process; small SENDs land in the slots with no CQE.  The ring goes with
 * the QP.  docs/snic-rdma.md "Low-latency QPs".
 */
#include "snic_ib.h"

int snic_ib_llq_setup(struct snic_ib_dev *ibd, struct snic_ib_qp *qp)
{
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_SET_LLQ };
	struct snic_aq_set_llq a = {};
	size_t ring = (size_t)1 << (qp->llq_log + qp->llq_slot_log);
	int ret;

	BUILD_BUG_ON(sizeof(a) > sizeof(cmd.raw));
	ret = snic_ib_buf_alloc(ibd, &qp->llq_buf, ring + SNIC_RING_ALIGN,
				qp->user);
	if (ret)
		return ret;
	qp->llq_ci_off = ring;
	a.qpn = cpu_to_le32(qp->qpn);
	a.log_slots = qp->llq_log;
	a.slot_log = qp->llq_slot_log;
	a.ci_every = qp->llq_ci_every;
	a.ring_addr = cpu_to_le64(qp->llq_buf.dma);
	a.ci_addr = cpu_to_le64(qp->llq_buf.dma + ring);
	memcpy(cmd.raw, &a, sizeof(a));
	ret = snic_aq_exec(ibd->sd, &cmd, NULL);
	if (ret)
		snic_ib_buf_free(ibd, &qp->llq_buf);
	return ret;
}

/* Map the ring to the process: the response's llq_* words. */
int snic_ib_llq_map(struct snic_ib_ucontext *uc, struct snic_ib_qp *qp,
		    struct snic_create_qp_resp *resp)
{
	u64 key;

	qp->llq_mmap = snic_ib_mmap_buf(uc, &qp->llq_buf, &key);
	if (IS_ERR(qp->llq_mmap)) {
		int ret = PTR_ERR(qp->llq_mmap);

		qp->llq_mmap = NULL;
		return ret;
	}
	resp->llq_mmap_key = key;
	resp->llq_mmap_len = qp->llq_buf.size;
	resp->llq_ci_offset = qp->llq_ci_off;
	return 0;
}

/* Free the ring (now, or with its last mapping); the QP is gone. */
void snic_ib_llq_release(struct snic_ib_dev *ibd, struct snic_ib_qp *qp)
{
	if (qp->llq_buf.va || qp->llq_mmap)
		snic_ib_buf_release(ibd, &qp->llq_buf, qp->llq_mmap);
	qp->llq_mmap = NULL;
}
