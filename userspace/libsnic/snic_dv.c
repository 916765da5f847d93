// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libsnic direct verbs (snicdv.h): the entry points an application calls
 * to choose a QP's mode (doorbell, pipe over shared send queues, per-QP
 * pipe), to create a low-latency QP and to poll and return its slots.
 * The top of the provider: each checks that the object is libsnic's and
 * calls down into the QP, pipe and low-latency ring files.
 */
#include <errno.h>
#include <stdlib.h>

#include "libsnic.h"
#include "snicdv.h"

__attribute__((visibility("default")))
struct ibv_qp *snicdv_create_qp(struct ibv_pd *pd,
				struct ibv_qp_init_attr *attr,
				const struct snicdv_qp_attr *dv)
{
	if (pd->context->ops.post_send != snic_post_send) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!dv || dv->mode > SNICDV_QP_MODE_PIPE_QP ||
	    (dv->mode != SNICDV_QP_MODE_DOORBELL &&
	     (dv->ci_every < 1 || dv->ci_every > 255))) {
		errno = EINVAL;
		return NULL;
	}
	return snic_create_qp_mode(pd, attr, dv, NULL);
}

__attribute__((visibility("default")))
int snicdv_qp_mode(struct ibv_qp *qp)
{
	if (qp->context->ops.post_send != snic_post_send)
		return -1;
	if (to_sqp(qp)->ssq)
		return SNICDV_QP_MODE_PIPE;
	return to_sqp(qp)->pipe ? SNICDV_QP_MODE_PIPE_QP :
				  SNICDV_QP_MODE_DOORBELL;
}

__attribute__((visibility("default")))
struct ibv_qp *snicdv_create_llq_qp(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr,
				    const struct snicdv_llq_attr *llq)
{
	struct snicdv_qp_attr dv;
	int ret;

	if (pd->context->ops.post_send != snic_post_send) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ret = snic_pipe_env(&dv);
	if (!llq || ret) {
		errno = EINVAL;
		return NULL;
	}
	return snic_create_qp_mode(pd, attr, &dv, llq);
}

__attribute__((visibility("default")))
int snicdv_llq_poll(struct ibv_qp *ibqp, const void **data, uint32_t *len)
{
	if (ibqp->context->ops.post_send != snic_post_send ||
	    !to_sqp(ibqp)->llq)
		return -1;
	return snic_llq_poll(to_sqp(ibqp)->llq, data, len);
}

__attribute__((visibility("default")))
void snicdv_llq_release(struct ibv_qp *ibqp)
{
	if (ibqp->context->ops.post_send != snic_post_send ||
	    !to_sqp(ibqp)->llq)
		return;
	snic_llq_release(to_sqp(ibqp)->llq);
}
