/*
 * Bench (not a test) for make bench-flexins: the send latency of an RC
 * SEND of 64 bytes rung by a doorbell and by a WQE-by-MMIO line
 * (docs/snic-rdma.md), in timing mode: modeled time from the post to the
 * send CQE, NSEND of each, one at a time.  Prints "snic-qp-lat
 * mode=doorbell|mmio sends=N ns_mean=T".
 */
#include <stdio.h>
#include <string.h>
#include "../lib/check.h"
#include "snic_rdma_env.h"

#define NSEND	16
#define LEN	64

static double mean_ns(bool mmio)
{
	struct snic_cqe e;
	struct wqe w;
	int64_t sum = 0, t;
	uint64_t t0;
	uint16_t idx;
	int k;

	for (k = 0; k < NSEND; k++) {
		qp_recv(&sb.qp, k, LEN, sb.mr.key, sb.mr.iova);
		w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
		w_data(&w, LEN, sa.mr.key, sa.mr.iova);
		t0 = qt_clock_now(qt);
		idx = mmio ? qp_post_mmio(&sa.qp, &w) : qp_post(&sa.qp, &w);
		t = cq_wait_timed(&sa.scq, idx, t0, &e);
		if (t < 0 || !cq_wait(&sb.rcq, &e, 1000))
			return -1;
		sum += t;
	}
	return (double)sum / NSEND;
}

int main(void)
{
	double d, m;

	if (!env_start_opts(",timing=on") || !pair_up(&conn_default)) {
		fprintf(stderr, "bench_snic_qp_mmio: set-up failed\n");
		return 1;
	}
	d = mean_ns(false);
	m = mean_ns(true);
	printf("snic-qp-lat mode=doorbell sends=%d ns_mean=%.1f\n", NSEND, d);
	printf("snic-qp-lat mode=mmio sends=%d ns_mean=%.1f\n", NSEND, m);
	qt_quit(qt);
	return d < 0 || m < 0;
}
