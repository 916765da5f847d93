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

#ifdef __cplusplus
}
#endif

#endif /* SNICDV_H */
