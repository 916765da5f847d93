// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libsnic XRC (docs/snic-rdma.md "XRC"): XRC domains, XRC SRQs (an SRQ
 * of a domain completing on its own CQ), XRC_SEND QPs (RC send queues
 * whose WQEs name the remote SRQ: snic_wqe.c) and XRC_RECV QPs, which
 * have no queue in user space: snic.ko creates them for the domain, a
 * process may create one or open another's by number.  Their receive
 * completions come on an SRQ's CQ, each naming its SRQ (snic_wq.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libsnic.h"

struct ibv_xrcd *snic_open_xrcd(struct ibv_context *context,
				struct ibv_xrcd_init_attr *attr)
{
	struct verbs_cmd_open_xrcd cmd;
	struct ib_uverbs_open_xrcd_resp resp;
	struct verbs_xrcd *x;
	int ret;

	x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	ret = ibv_cmd_open_xrcd(context, x, sizeof(*x), attr, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	if (ret)
		return snic_create_failed(x, ret);
	return &x->xrcd;
}

int snic_close_xrcd(struct ibv_xrcd *xrcd)
{
	struct verbs_xrcd *x = snic_container_of(xrcd, struct verbs_xrcd, xrcd);
	int ret;

	ret = ibv_cmd_close_xrcd(x);
	if (ret)
		return ret;
	free(x);
	return 0;
}

/* A basic SRQ through the extended call: the legacy path. */
static struct ibv_srq *snic_create_basic_srq(struct ibv_srq_init_attr_ex *a)
{
	struct ibv_srq_init_attr legacy = {
		.srq_context = a->srq_context,
		.attr = a->attr,
	};
	struct ibv_srq *srq;

	if (!(a->comp_mask & IBV_SRQ_INIT_ATTR_PD) ||
	    (a->comp_mask & ~(IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	srq = snic_create_srq(a->pd, &legacy);
	if (srq)
		a->attr = legacy.attr;
	return srq;
}

struct ibv_srq *snic_create_srq_ex(struct ibv_context *context,
				   struct ibv_srq_init_attr_ex *attr)
{
	struct snic_context *ctx = to_sctx(context);
	struct verbs_cmd_create_xsrq cmd;
	struct snic_create_srq_resp_full resp;
	struct snic_srq *srq;
	int ret;

	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) ||
	    attr->srq_type != IBV_SRQT_XRC)
		return snic_create_basic_srq(attr);
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	memset(&resp, 0, sizeof(resp));
	memset(&cmd, 0, sizeof(cmd));
	ret = ibv_cmd_create_srq_ex(context, &srq->vsrq, attr, &cmd,
				    sizeof(cmd), &resp.ibv, sizeof(resp));
	if (ret) {
		pthread_spin_destroy(&srq->lock);
		free(srq);
		errno = ret;
		return NULL;
	}
	ret = snic_srq_map(srq, context, &resp.drv);
	if (!ret && srq->srqn >= SNIC_MAX_SRQS)
		ret = EPROTO;
	if (ret) {
		ibv_cmd_destroy_srq(&srq->vsrq.srq);
		snic_srq_free(srq);
		errno = ret;
		return NULL;
	}
	srq->xrc = true;
	__atomic_store_n(&ctx->xrc_srq[srq->srqn], srq, __ATOMIC_RELEASE);
	return &srq->vsrq.srq;
}

int snic_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	struct snic_srq *srq = to_ssrq(ibsrq);

	if (!srq->xrc)
		return EINVAL;
	*srq_num = srq->srqn;
	return 0;
}

/* An XRC_RECV QP: the kernel's, with no queue here. */
static struct snic_qp *snic_tgt_alloc(void)
{
	struct snic_qp *qp = calloc(1, sizeof(*qp));

	if (!qp)
		return NULL;
	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	qp->state = IBV_QPS_RESET;
	qp->params.qp_type = IBV_QPT_XRC_RECV;
	return qp;
}

static struct ibv_qp *snic_tgt_done(struct snic_qp *qp, int ret)
{
	if (ret) {
		snic_qp_free(qp);
		errno = ret;
		return NULL;
	}
	qp->qpn = qp->vqp.qp.qp_num;
	return &qp->vqp.qp;
}

struct ibv_qp *snic_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr)
{
	struct verbs_cmd_create_qp cmd;
	struct ib_uverbs_create_qp_resp resp;
	struct snic_qp *qp;

	/* the extended send API (ibv_qp_ex) is not provided */
	if (attr->qp_type != IBV_QPT_XRC_RECV ||
	    attr->comp_mask != IBV_QP_INIT_ATTR_XRCD) {
		if (attr->qp_type == IBV_QPT_XRC_RECV ||
		    attr->comp_mask != IBV_QP_INIT_ATTR_PD) {
			errno = EOPNOTSUPP;
			return NULL;
		}
		return snic_create_qp(attr->pd, (struct ibv_qp_init_attr *)attr);
	}
	qp = snic_tgt_alloc();
	if (!qp)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	return snic_tgt_done(qp, ibv_cmd_create_qp_ex(context, &qp->vqp, attr,
						      &cmd, sizeof(cmd), &resp,
						      sizeof(resp)));
}

struct ibv_qp *snic_open_qp(struct ibv_context *context,
			    struct ibv_qp_open_attr *attr)
{
	struct verbs_cmd_open_qp cmd;
	struct ib_uverbs_create_qp_resp resp;
	struct snic_qp *qp;

	qp = snic_tgt_alloc();
	if (!qp)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	return snic_tgt_done(qp, ibv_cmd_open_qp(context, &qp->vqp,
						 sizeof(qp->vqp), attr, &cmd,
						 sizeof(cmd), &resp,
						 sizeof(resp)));
}
