/*
 * snic device tier: N RC flows sharing one port, for the congestion
 * control test (test_snic_cc.c) and bench (bench_snic_cc.c); docs/timing.md
 * "The congestion control bench".
 *
 * One QEMU in timing mode with 1 + senders snics on one hub (the RDMA
 * environment of snic_rdma_env.h): snic0 receives, flow k sends from
 * snic(1 + k % senders) to a QP of its own on snic0, so the senders' line
 * rates meet in the switch queue in front of snic0's port.  Each flow
 * keeps CC_OUTSTANDING signalled RDMA WRITEs of CC_MSG bytes posted from
 * its start on (flow k starts at k x stagger_us), refilled from its CQ.
 * The harness steps the virtual clock itself (CC_STEP_NS at a time, no
 * wall clock) and samples at the end of every bucket: each flow's bytes
 * acknowledged (the QP's acked_psn in the QOM rdma-stats; every packet
 * is a full 4096-byte one), its DCQCN rate and AIMD window, and the
 * receiver's switch queue, ECN marks, CNPs and drops.
 */
#ifndef D2D_SNIC_CC_FLOWS_H
#define D2D_SNIC_CC_FLOWS_H

#include <stdbool.h>
#include <stdint.h>

#define CC_MAX_FLOWS	4
#define CC_MSG		(64 * 1024)	/* bytes per WRITE */
#define CC_OUTSTANDING	16		/* WRITEs posted per flow */
#define CC_STEP_NS	2000		/* the harness's clock step */

struct cc_cfg {
	const char *mode;	/* the snics' cc property: dcqcn or aimd */
	int flows;		/* 1..CC_MAX_FLOWS */
	int senders;		/* sender ports, 1..ENV_MAX_DEVS - 1 */
	uint32_t bucket_us;	/* a multiple of CC_STEP_NS / 1000 */
	int buckets;
	uint32_t stagger_us;	/* flow k starts at k x stagger_us */
};

/* One bucket: what happened in it, and the state at its end. */
struct cc_bucket {
	uint64_t t_us;			/* its end, from the first flow's start */
	double gbps[CC_MAX_FLOWS];	/* payload acknowledged in it, Gbit/s */
	uint64_t acked[CC_MAX_FLOWS];	/* ... and until its end, bytes */
	uint32_t rate_mbps[CC_MAX_FLOWS];	/* DCQCN Rc (0 with aimd) */
	uint32_t cwnd[CC_MAX_FLOWS];	/* AIMD window, packets */
	uint64_t qbytes;		/* the receiver's switch queue */
	uint64_t marks, cnps, drops;	/* at the receiver, in the bucket */
};

/*
 * Run @c: @b gets c->buckets buckets.  False (and a reason on stderr) if
 * the environment did not start or a WRITE completed in error.
 */
bool cc_run(const struct cc_cfg *c, struct cc_bucket *b);
/* Each flow's mean of the buckets' Gbit/s over @from..@n - 1 into @gbps. */
void cc_mean(const struct cc_bucket *b, int from, int n, int flows,
	     double *gbps);
/* The same from the byte counts, over buckets @from (>= 1)..@n - 1. */
void cc_goodput(const struct cc_cfg *c, const struct cc_bucket *b, int from,
		int n, double *gbps);
/* Jain's index (sum x)^2 / (n sum x^2) of @x[0..n-1]: 1 = fair. */
double cc_jain(const double *x, int n);
/*
 * Convergence: the time (us) from the last flow's start to the end of the
 * first window of @win buckets from which on every flow's Gbit/s,
 * averaged over each window, stays within @tol (0.2 = 20%) of an even
 * share of the steady state (the second half's goodput, all flows, / the
 * flows); -1 if that never happens.
 */
int64_t cc_converge_us(const struct cc_cfg *c, const struct cc_bucket *b,
		       int win, double tol);

#endif
