/*
 * bench_snic_cc: DCQCN vs the AIMD window with N flows sharing one
 * 100 Gbit/s port, in modeled time (docs/timing.md "The congestion
 * control bench").  A benchmark run by tests/bench/flexins-cc.sh, not a
 * test.
 *
 *   bench_snic_cc [MODE FLOWS STAGGER_US MS]...
 *
 * Each run (default: dcqcn and aimd with 2 and with 4 flows, flow k
 * starting at k x 1000 us, 100 ms) is one QEMU in timing mode with three
 * snics on one hub: snic0 receives, the flows alternate between the
 * sender ports snic1 and snic2, so two senders at line rate feed one port
 * and the switch queue in front of it builds and marks ECN
 * (snic_cc_flows.h).  Two sender ports, not one per flow: the hub hands
 * every frame to every port, so a sender's switch queue would carry the
 * other senders' data too.  A run is cut into BUCKETS buckets (a multiple
 * of BUCKET_US each); per bucket it prints
 *
 *   BENCH cc mode=M flows=N t_us=T f0=G f1=G ... q=B marks=N cnps=N
 *         drops=N r0=G ... (dcqcn: Rc, Gbit/s) | w0=P ... (aimd: window)
 *
 * (T: the bucket's end from the first flow's start; fK: flow K's
 * payload acknowledged in the bucket, Gbit/s; q: the receiver's switch queue at
 * the bucket's end, bytes; marks (CE-marked packets taken), cnps, drops:
 * at the receiver in the bucket), then per run
 *
 *   BENCH cc-summary mode=M flows=N stagger_us=S steady_us=A-B f0=G ...
 *         total=G jain=J converge_us=T|never
 *
 * (fK: acknowledged payload, Gbit/s, over the steady state: the run's
 * second half; jain: Jain's index over them; converge_us: from the last
 * flow's start until every flow's rate, averaged over CONV_WIN buckets,
 * stays within 20% of an even share of the steady state's total; see
 * cc_converge_us), and "BENCH-DONE" at the end.  Modeled time only: the
 * clock moves when this program steps it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "qtest.h"
#include "snic_cc_flows.h"
#include "snic_rdma_env.h"

#define BUCKETS		400	/* per run, at least BUCKET_US each */
#define BUCKET_US	50
#define CONV_WIN	4	/* buckets averaged for convergence */
#define CONV_TOL	0.2
#define SENDERS		2

static void print_bucket(const struct cc_cfg *c, const struct cc_bucket *b)
{
	bool dcqcn = !strcmp(c->mode, "dcqcn");
	int k;

	printf("BENCH cc mode=%s flows=%d t_us=%llu", c->mode, c->flows,
	       (unsigned long long)b->t_us);
	for (k = 0; k < c->flows; k++)
		printf(" f%d=%.2f", k, b->gbps[k]);
	printf(" q=%llu marks=%llu cnps=%llu drops=%llu",
	       (unsigned long long)b->qbytes, (unsigned long long)b->marks,
	       (unsigned long long)b->cnps, (unsigned long long)b->drops);
	for (k = 0; k < c->flows; k++) {
		if (dcqcn)
			printf(" r%d=%.2f", k, b->rate_mbps[k] / 1000.0);
		else
			printf(" w%d=%u", k, b->cwnd[k]);
	}
	printf("\n");
}

static bool run(const char *mode, int flows, unsigned int stagger_us,
		unsigned int ms)
{
	struct cc_cfg c = {
		.mode = mode, .flows = flows, .senders = SENDERS,
		.stagger_us = stagger_us,
	};
	struct cc_bucket *b;
	double g[CC_MAX_FLOWS], total = 0;
	int64_t conv;
	int i, half;

	/* BUCKETS buckets, each a multiple of BUCKET_US */
	c.bucket_us = (ms * 1000 / BUCKETS + BUCKET_US - 1) / BUCKET_US *
		      BUCKET_US;
	c.bucket_us = c.bucket_us ? c.bucket_us : BUCKET_US;
	c.buckets = ms * 1000 / c.bucket_us;
	half = c.buckets / 2;
	b = calloc(c.buckets, sizeof(*b));
	if (!b || c.buckets < 2 * CONV_WIN || !cc_run(&c, b)) {
		printf("BENCH-ERROR cc mode=%s flows=%d: run failed\n", mode,
		       flows);
		free(b);
		return false;
	}
	for (i = 0; i < c.buckets; i++)
		print_bucket(&c, &b[i]);
	cc_goodput(&c, b, half, c.buckets, g);
	printf("BENCH cc-summary mode=%s flows=%d stagger_us=%u steady_us=%llu-%llu",
	       mode, flows, stagger_us,
	       (unsigned long long)b[half].t_us - c.bucket_us,
	       (unsigned long long)b[c.buckets - 1].t_us);
	for (i = 0; i < flows; i++) {
		printf(" f%d=%.2f", i, g[i]);
		total += g[i];
	}
	conv = cc_converge_us(&c, b, CONV_WIN, CONV_TOL);
	printf(" total=%.2f jain=%.3f converge_us=", total, cc_jain(g, flows));
	if (conv < 0)
		printf("never\n");
	else
		printf("%lld\n", (long long)conv);
	fflush(stdout);
	free(b);
	return true;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = { "dcqcn", "aimd" };
	bool ok = true;
	int i, m, n;

	if (argc > 1 && (argc - 1) % 4) {
		fprintf(stderr, "usage: %s [MODE FLOWS STAGGER_US MS]...\n",
			argv[0]);
		return 2;
	}
	if (argc > 1) {
		for (i = 1; i < argc; i += 4)
			ok &= run(argv[i], atoi(argv[i + 1]), atoi(argv[i + 2]),
				  atoi(argv[i + 3]));
	} else {
		for (n = 2; n <= 4; n += 2)
			for (m = 0; m < 2; m++)
				ok &= run(modes[m], n, 1000, 100);
	}
	printf("BENCH-DONE\n");
	qt_quit(qt);
	inj_close();
	return ok ? 0 : 1;
}
