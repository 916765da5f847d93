/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * snicdv: libsnic's direct verbs, the provider calls an application may
 * make besides the standard ibv_* ones (as mlx5dv.h is mlx5's).  Link with
 * libsnic-rdmav34.so.  docs/libsnic.md "Direct verbs".
 */
#ifndef SNICDV_H
#define SNICDV_H

#include <stdint.h>
#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

enum snicdv_qp_mode {
	SNICDV_QP_MODE_DOORBELL = 0,	/* rings + MMIO doorbells */
	SNICDV_QP_MODE_PIPE = 1,	/* pipes; sends through shared send queues */
	SNICDV_QP_MODE_PIPE_QP = 2,	/* pipes; a send pipe of the QP's own */
};

struct snicdv_qp_attr {
	uint32_t mode;			/* enum snicdv_qp_mode */
	uint32_t ci_every;		/* pipe: consumer record every n, 1..255 */
};

/*
 * ibv_create_qp on a snic device with the QP mode given here instead of
 * the SNIC_QP_MODE environment variable; NULL with errno set (EINVAL for
 * a bad attribute or a pipe QP with an SRQ or more than one receive
 * scatter entry, EOPNOTSUPP on another device).
 */
struct ibv_qp *snicdv_create_qp(struct ibv_pd *pd,
				struct ibv_qp_init_attr *attr,
				const struct snicdv_qp_attr *dv);

/* The QP's mode (enum snicdv_qp_mode), or -1 if not a snic QP. */
int snicdv_qp_mode(struct ibv_qp *qp);

/*
 * Low-latency QPs (docs/libsnic.md "Low-latency QPs"): an RC QP with a
 * ring of 2^log_slots slots of slot_size bytes (64..4096, a power of two)
 * that each SEND of at most slot_size - 8 bytes (no immediate) lands in,
 * with no receive WQE and no CQE; larger ones take the receive queue.
 * The device re-reads the consumer count every ci_every (1..255) slots.
 */
struct snicdv_llq_attr {
	uint32_t log_slots;		/* 1..15 */
	uint32_t slot_size;
	uint32_t ci_every;
};

/*
 * ibv_create_qp (RC, mode as SNIC_QP_MODE says) with a low-latency ring;
 * NULL with errno set (EINVAL: a bad attribute or not RC).
 */
struct ibv_qp *snicdv_create_llq_qp(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr,
				    const struct snicdv_llq_attr *llq);

/*
 * The next message of @qp's ring, if its valid byte says it has landed:
 * 1 with *data (in the slot) and *len set, 0 if none yet, -1 if @qp has
 * no ring.  The slot stays the application's until snicdv_llq_release.
 */
int snicdv_llq_poll(struct ibv_qp *qp, const void **data, uint32_t *len);

/* Give the oldest polled slot back to the device. */
void snicdv_llq_release(struct ibv_qp *qp);

#ifdef __cplusplus
}
#endif

#endif /* SNICDV_H */
