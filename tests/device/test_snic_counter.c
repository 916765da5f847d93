/*
 * snic counter sets (docs/snic-rdma.md "Counter sets"): a QP bound to a
 * set has what the device counts while working for it - the packets it
 * sends, the ACKs it receives - added to that set and not to the counts
 * of no set (QUERY_STATS id 0); unbinding stops that; CLEAR_COUNTER
 * zeroes a set; out-of-range sets and unknown QPs are refused.
 */
#define _GNU_SOURCE
#include "../lib/check.h"
#include "qtest.h"
#include "snic_rdma_env.h"

static struct side a2, b2;

static int bind(struct snic_dev *d, uint32_t qpn, uint32_t set)
{
	struct snic_aq_qp_counter c = { .qpn = qpn, .set = set };

	return snic_aq_cmd(d, SNIC_AQ_SET_QP_COUNTER, &c, sizeof(c), NULL);
}

static int clear(struct snic_dev *d, uint32_t set)
{
	struct snic_aq_qp_counter c = { .set = set };

	return snic_aq_cmd(d, SNIC_AQ_CLEAR_COUNTER, &c, sizeof(c), NULL);
}

static bool set_stats(struct snic_dev *d, uint32_t id,
		      struct snic_rdma_stats *s)
{
	return snic_query_stats(d, SNIC_STATS_RDMA, id, s, sizeof(*s)) == OK;
}

/* A signalled 4 KiB WRITE from @s to @peer, completed. */
static bool write4k(struct side *s, const struct side *peer)
{
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, peer->mr.iova, peer->mr.key);
	w_data(&w, 4096, s->mr.key, s->mr.iova);
	idx = qp_post(&s->qp, &w);
	return cq_wait(&s->scq, &e, 1000000) && e.syndrome == SNIC_RST_OK &&
	       e.wqe_counter == idx;
}

static bool two_pairs(void)
{
	return env_start() && pair_up(&conn_default) &&
	       side_make(&a2, A, SNIC_QPT_RC) && side_make(&b2, B, SNIC_QPT_RC) &&
	       qp_connect(&a2.qp, &b2.qp, &conn_default, 100, 5000) &&
	       qp_connect(&b2.qp, &a2.qp, &conn_default, 5000, 100);
}

static void bound_qp_counts_in_its_set(void)
{
	struct snic_rdma_stats set, none, set2;

	CHECK(two_pairs());
	CHECK_EQ(clear(A, 1), OK);
	CHECK_EQ(bind(A, sa.qp.qpn, 1), OK);
	CHECK(write4k(&sa, &sb));
	CHECK(write4k(&a2, &b2));
	CHECK(set_stats(A, 1, &set));
	CHECK(set_stats(A, 0, &none));
	/* the same WRITE on each QP: the set has one, no set the other */
	CHECK(set.tx_pkts > 0);
	CHECK_EQ(set.tx_pkts, none.tx_pkts);
	CHECK_EQ(set.tx_bytes, none.tx_bytes);
	CHECK(set.rx_acks > 0);
	CHECK_EQ(set.rx_acks, none.rx_acks);
	/* another set saw nothing */
	CHECK(set_stats(A, 2, &set2));
	CHECK_EQ(set2.tx_pkts, 0);
	/* unbound: the next WRITE of that QP goes to no set */
	CHECK_EQ(bind(A, sa.qp.qpn, 0), OK);
	CHECK(write4k(&sa, &sb));
	CHECK(set_stats(A, 1, &set2));
	CHECK_EQ(set2.tx_pkts, set.tx_pkts);
	CHECK(set_stats(A, 0, &set2));
	CHECK_EQ(set2.tx_pkts, 2 * none.tx_pkts);
	/* cleared */
	CHECK_EQ(clear(A, 1), OK);
	CHECK(set_stats(A, 1, &set2));
	CHECK_EQ(set2.tx_pkts, 0);
	CHECK_EQ(set2.rx_acks, 0);
}

static void bad_sets_refused(void)
{
	struct snic_rdma_stats s;

	CHECK(two_pairs());
	CHECK_EQ(bind(A, sa.qp.qpn, SNIC_RDMA_COUNTER_SETS + 1),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(bind(A, 999, 1), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(clear(A, 0), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(clear(A, SNIC_RDMA_COUNTER_SETS + 1), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(snic_query_stats(A, SNIC_STATS_RDMA, SNIC_RDMA_COUNTER_SETS + 1,
				  &s, sizeof(s)), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(bind(A, sa.qp.qpn, SNIC_RDMA_COUNTER_SETS), OK);
	CHECK(write4k(&sa, &sb));
	CHECK(set_stats(A, SNIC_RDMA_COUNTER_SETS, &s));
	CHECK(s.tx_pkts > 0);
}

int main(void)
{
	RUN("device/snic_counter", bound_qp_counts_in_its_set);
	RUN("device/snic_counter", bad_sets_refused);
	qt_quit(qt);
	return check_failures ? 1 : 0;
}
