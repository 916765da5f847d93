// SPDX-License-Identifier: GPL-2.0
/*
 * snic core's side of the RDMA driver (snic_ib.ko, the driver of
 * snic.rdma.N): what the core calls in it while it is bound - RDMA async
 * events from the admin interrupt (snic_port.c), sPIN's QP owner check
 * (snic_spin_ctx.c) - through the struct snic_rdma_ops it publishes.
 */
#include <linux/export.h>
#include <linux/rcupdate.h>
#include "snic.h"

/*
 * The RDMA driver's entry points, published by its probe.  Callers run in
 * the admin interrupt or in process context, under RCU: once
 * snic_rdma_ops_clear() returns none is running and none will start, so
 * the driver may free its objects and its module may go.
 */
void snic_rdma_ops_set(struct snic_dev *sd, const struct snic_rdma_ops *ops)
{
	rcu_assign_pointer(sd->rdma_ops, ops);
}
EXPORT_SYMBOL_NS_GPL(snic_rdma_ops_set, SNIC_CORE);

void snic_rdma_ops_clear(struct snic_dev *sd)
{
	RCU_INIT_POINTER(sd->rdma_ops, NULL);
	synchronize_rcu();
}
EXPORT_SYMBOL_NS_GPL(snic_rdma_ops_clear, SNIC_CORE);

void snic_rdma_async_event(struct snic_dev *sd, struct snic_eqe *eqe)
{
	const struct snic_rdma_ops *ops;

	rcu_read_lock();
	ops = rcu_dereference(sd->rdma_ops);
	if (ops)
		ops->async_event(sd, eqe);
	rcu_read_unlock();
}

static int snic_rdma_qp_owner(struct snic_dev *sd, u32 qpn)
{
	const struct snic_rdma_ops *ops;
	int ret = -ENOENT;

	rcu_read_lock();
	ops = rcu_dereference(sd->rdma_ops);
	if (ops)
		ret = ops->qp_owner(sd, qpn);
	rcu_read_unlock();
	return ret;
}

/*
 * The owner check of QP @qpn for a sPIN attach (snic_ib_qp_owner's
 * answer, -ENOENT without an RDMA driver), with the QPN pinned until
 * snic_rdma_qp_unpin(): QP destroy takes sd->qpn_lock for writing, so the
 * QP checked is the QP the caller then attaches.
 */
int snic_rdma_qp_pin(struct snic_dev *sd, u32 qpn)
{
	down_read(&sd->qpn_lock);
	return snic_rdma_qp_owner(sd, qpn);
}

void snic_rdma_qp_unpin(struct snic_dev *sd)
{
	up_read(&sd->qpn_lock);
}
