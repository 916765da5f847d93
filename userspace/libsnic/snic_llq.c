// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libsnic low-latency QPs: an RC QP whose small received SENDs land in a
 * ring of slots snic.ko maps to us, with no receive WQE and no CQE
 * (docs/snic-rdma.md "Low-latency QPs").  The application polls the next
 * slot's last byte (its valid byte: the owner phase of the slot counter),
 * reads length and payload, and returns the slot; the count of returned
 * slots goes to the consumer record the device re-reads every ci_every
 * slots.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "libsnic.h"
#include "snicdv.h"

int snic_llq_cmd(const struct snicdv_llq_attr *llq,
		 struct snic_create_qp_cmd *cmd)
{
	uint32_t slot_log = 0;

	while (slot_log < 31 && (1u << slot_log) < llq->slot_size)
		slot_log++;
	if (llq->log_slots < SNIC_MIN_LOG_SIZE ||
	    llq->log_slots > SNIC_MAX_LOG_SIZE ||
	    (1u << slot_log) != llq->slot_size ||
	    slot_log < SNIC_LLQ_MIN_SLOT_LOG ||
	    slot_log > SNIC_LLQ_MAX_SLOT_LOG ||
	    llq->ci_every < 1 || llq->ci_every > 255)
		return EINVAL;
	cmd->flags |= SNIC_CREATE_QP_LLQ;
	cmd->llq_log_slots = llq->log_slots;
	cmd->llq_slot_log = slot_log;
	cmd->llq_ci_every = llq->ci_every;
	return 0;
}

int snic_llq_map(struct snic_qp *qp, int cmd_fd,
		 const struct snic_create_qp_resp *r,
		 const struct snic_create_qp_cmd *cmd)
{
	uint64_t ring = (uint64_t)1 << (cmd->llq_log_slots + cmd->llq_slot_log);
	struct snic_llq *l;
	void *map;

	if (r->llq_ci_offset < ring || (r->llq_ci_offset & 3) ||
	    !snic_fits(r->llq_ci_offset, 4, r->llq_mmap_len))
		return EPROTO;
	l = calloc(1, sizeof(*l));
	if (!l)
		return ENOMEM;
	map = mmap(NULL, r->llq_mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   cmd_fd, r->llq_mmap_key);
	if (map == MAP_FAILED) {
		free(l);
		return errno;
	}
	l->map = map;
	l->map_len = r->llq_mmap_len;
	l->ring = map;
	l->ci = (volatile uint32_t *)((uint8_t *)map + r->llq_ci_offset);
	l->log_slots = cmd->llq_log_slots;
	l->slot_log = cmd->llq_slot_log;
	qp->llq = l;
	return 0;
}

void snic_llq_free(struct snic_qp *qp)
{
	if (!qp->llq)
		return;
	munmap(qp->llq->map, qp->llq->map_len);
	free(qp->llq);
	qp->llq = NULL;
}

/* Back in RESET: the device fills from slot 0 again, first pass. */
void snic_llq_reset(struct snic_qp *qp)
{
	struct snic_llq *l = qp->llq;

	if (!l)
		return;
	memset(l->ring, 0, (size_t)1 << (l->log_slots + l->slot_log));
	l->head = l->cons = 0;
	*l->ci = 0;
}

int snic_llq_poll(struct snic_llq *l, const void **data, uint32_t *len)
{
	uint32_t slot = 1u << l->slot_log, n;
	uint8_t *s;

	s = l->ring + (size_t)(l->head & ((1u << l->log_slots) - 1)) * slot;
	if (__atomic_load_n(s + slot - 1, __ATOMIC_ACQUIRE) !=
	    (((l->head >> l->log_slots) & 1) ^ 1))
		return 0;
	udma_from_device_barrier();	/* length and payload after the byte */
	memcpy(&n, s + slot - SNIC_LLQ_TRAILER, sizeof(n));
	*len = le32toh(n);
	*data = s;
	l->head++;
	return 1;
}

void snic_llq_release(struct snic_llq *l)
{
	if (l->cons == l->head)
		return;
	l->cons++;
	/* the slot's contents are read before the device may reuse it */
	__atomic_store_n(l->ci, htole32(l->cons), __ATOMIC_RELEASE);
}
