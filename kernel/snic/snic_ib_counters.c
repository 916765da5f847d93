// SPDX-License-Identifier: GPL-2.0
/*
 * snic_ib hardware counters: the port's hw_counters and the counters of
 * ib_core's counter API (`rdma statistic qp ...`), on the device's
 * counter sets (docs/snic-rdma.md "Counter sets", docs/snic-ib.md
 * "Counters").
 *
 * One name table, generated from the SNIC_RDMA_STATS list of the device
 * interface, serves both.  A counter ib_core allocates takes a free set
 * (1..SNIC_RDMA_COUNTER_SETS), zeroed; each QP bound to it is bound to
 * that set in the device, which from then on counts the QP's transport
 * events there and no longer in the port's own figures (QUERY_STATS
 * id 0), as a ConnectX q counter does; ib_core adds the counters to the
 * port's hw_counters, so every event is counted once.
 */
#include <linux/slab.h>
#include <rdma/rdma_counter.h>
#include "snic_ib.h"

/*
 * Port hw_counters (/sys/class/infiniband/<dev>/ports/1/hw_counters):
 * the device's transport statistics, named and ordered by the
 * SNIC_RDMA_STATS list of struct snic_rdma_stats, then the driver's own.
 */
#define SNIC_IB_STAT_DESC(id, field) { .name = #field },

static const struct rdma_stat_desc snic_ib_stat_descs[] = {
	SNIC_RDMA_STATS(SNIC_IB_STAT_DESC)
	/* driver side */
	{ .name = "drv_cqe_no_qp" }, { .name = "drv_cqe_bad" },
	{ .name = "drv_events_no_obj" },
};

#define SNIC_IB_DEV_STATS	SNIC_RDMA_STAT_COUNT

struct rdma_hw_stats *snic_ib_alloc_port_stats(struct ib_device *ibdev,
					       u32 port)
{
	BUILD_BUG_ON(ARRAY_SIZE(snic_ib_stat_descs) != SNIC_IB_DEV_STATS + 3);
	BUILD_BUG_ON(sizeof(struct snic_rdma_stats) !=
		     SNIC_IB_DEV_STATS * sizeof(__le64));
	return rdma_alloc_hw_stats_struct(snic_ib_stat_descs,
					  ARRAY_SIZE(snic_ib_stat_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/* The device's counters of set @set (0: of no set) into @stats. */
static int snic_ib_read_stats(struct snic_ib_dev *ibd, u32 set,
			      struct rdma_hw_stats *stats)
{
	struct snic_rdma_stats *s;
	__le64 *v;
	int i, ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	ret = snic_cmd_query_stats(ibd->sd, SNIC_STATS_RDMA, set, s, sizeof(*s));
	if (!ret) {
		v = (__le64 *)s;
		for (i = 0; i < SNIC_IB_DEV_STATS; i++)
			stats->value[i] = le64_to_cpu(v[i]);
	}
	kfree(s);
	return ret;
}

int snic_ib_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			 u32 port, int index)
{
	struct snic_ib_dev *ibd = to_sibdev(ibdev);
	int i = SNIC_IB_DEV_STATS, ret;

	ret = snic_ib_read_stats(ibd, 0, stats);
	if (ret)
		return ret;
	stats->value[i++] = atomic64_read(&ibd->cqe_no_qp);
	stats->value[i++] = atomic64_read(&ibd->cqe_bad);
	stats->value[i++] = atomic64_read(&ibd->events_no_obj);
	return i;
}

static int snic_ib_set_counter(struct snic_ib_dev *ibd, u8 opcode, u32 qpn,
			       u32 set)
{
	struct snic_aq_cmd cmd = { .opcode = opcode };
	struct snic_aq_qp_counter a = {
		.qpn = cpu_to_le32(qpn),
		.set = cpu_to_le32(set),
	};

	BUILD_BUG_ON(sizeof(a) > sizeof(cmd.raw));
	memcpy(cmd.raw, &a, sizeof(a));
	return snic_aq_exec(ibd->sd, &cmd, NULL);
}

/* Bind @qp to @counter's set, taking a zeroed set on its first QP. */
int snic_ib_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *qp)
{
	struct snic_ib_dev *ibd = to_sibdev(qp->device);
	bool fresh = !counter->id;
	int ret;

	if (fresh) {
		ret = ida_alloc_range(&ibd->counter_ida, 1,
				      SNIC_RDMA_COUNTER_SETS, GFP_KERNEL);
		if (ret < 0)
			return ret;
		counter->id = ret;
		ret = snic_ib_set_counter(ibd, SNIC_AQ_CLEAR_COUNTER, 0,
					  counter->id);
		if (ret)
			goto err;
	}
	ret = snic_ib_set_counter(ibd, SNIC_AQ_SET_QP_COUNTER,
				  to_sibqp(qp)->qpn, counter->id);
	if (ret)
		goto err;
	qp->counter = counter;
	return 0;
err:
	if (fresh) {
		ida_free(&ibd->counter_ida, counter->id);
		counter->id = 0;
	}
	return ret;
}

int snic_ib_counter_unbind_qp(struct ib_qp *qp)
{
	int ret;

	ret = snic_ib_set_counter(to_sibdev(qp->device), SNIC_AQ_SET_QP_COUNTER,
				  to_sibqp(qp)->qpn, 0);
	if (ret)
		return ret;
	qp->counter = NULL;
	return 0;
}

int snic_ib_counter_dealloc(struct rdma_counter *counter)
{
	if (counter->id)
		ida_free(&to_sibdev(counter->device)->counter_ida, counter->id);
	return 0;
}

struct rdma_hw_stats *snic_ib_counter_alloc_stats(struct rdma_counter *counter)
{
	return rdma_alloc_hw_stats_struct(snic_ib_stat_descs, SNIC_IB_DEV_STATS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int snic_ib_counter_update_stats(struct rdma_counter *counter)
{
	return snic_ib_read_stats(to_sibdev(counter->device), counter->id,
				  counter->stats);
}
