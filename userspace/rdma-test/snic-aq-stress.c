// SPDX-License-Identifier: GPL-2.0
/*
 * snic-aq-stress: many processes create and destroy MRs and RC QPs on one
 * RDMA device at once, so that many admin commands are in flight
 * together, and check every key and QP number the kernel hands back:
 * in range, and not live in any other process at the same time (a table
 * in shared memory claims each one while it lives).  A waiter that read
 * another command's completion would return someone else's key or QPN,
 * or a destroy would fail.
 *
 * usage: snic-aq-stress -d DEV [-n PROCS] [-t SECONDS] [-P PREFIX]
 * Prints "PASS PREFIX/aq_stress" or "FAIL PREFIX/aq_stress: why" and a
 * "# ..." line with the operation count.  Exit status 0 pass, 1 fail.
 */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <d2d/snic_rdma_ifc.h>

#define MAX_PROCS	32

/* Shared between the processes: who holds each key index and QPN. */
struct shared {
	uint32_t mr_owner[SNIC_MAX_MRS];
	uint32_t qp_owner[SNIC_MAX_QPS];
	uint64_t ops[MAX_PROCS];
	char why[MAX_PROCS][200];
	uint32_t first;		/* 1 + the worker that failed first */
};

static struct shared *sh;

static int claim(uint32_t *slot, uint32_t me)
{
	uint32_t none = 0;

	return __atomic_compare_exchange_n(slot, &none, me, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static void unclaim(uint32_t *slot)
{
	__atomic_store_n(slot, 0, __ATOMIC_SEQ_CST);
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; l && l[i]; i++)
		if (!strcmp(ibv_get_device_name(l[i]), name))
			ctx = ibv_open_device(l[i]);
	if (l)
		ibv_free_device_list(l);
	return ctx;
}

/* One worker; 0 or 1 with sh->why[idx] set. */
static int worker(int idx, const char *dev, time_t end)
{
	uint32_t me = getpid();
	char *why = sh->why[idx];
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	static char buf[4096];

	ctx = open_dev(dev);
	if (!ctx) {
		snprintf(why, 200, "cannot open %s", dev);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	if (!cq) {
		snprintf(why, 200, "PD/CQ: %s", strerror(errno));
		return 1;
	}
	while (time(NULL) < end) {
		struct ibv_qp_init_attr ia = {
			.qp_type = IBV_QPT_RC, .send_cq = cq, .recv_cq = cq,
			.cap = { .max_send_wr = 4, .max_recv_wr = 4,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};
		uint32_t ki, qpn;
		struct ibv_mr *mr;
		struct ibv_qp *qp;

		mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE);
		if (!mr) {
			snprintf(why, 200, "ibv_reg_mr: %s", strerror(errno));
			return 1;
		}
		ki = SNIC_KEY_INDEX(mr->lkey);
		if (mr->lkey != mr->rkey || !ki || ki >= SNIC_MAX_MRS) {
			snprintf(why, 200, "MR keys 0x%x/0x%x out of range",
				 mr->lkey, mr->rkey);
			return 1;
		}
		if (!claim(&sh->mr_owner[ki], me)) {
			snprintf(why, 200, "MR key 0x%x (index %u) also live in pid %u",
				 mr->lkey, ki, sh->mr_owner[ki]);
			return 1;
		}
		qp = ibv_create_qp(pd, &ia);
		if (!qp) {
			snprintf(why, 200, "ibv_create_qp: %s", strerror(errno));
			return 1;
		}
		qpn = qp->qp_num;
		if (qpn < 2 || qpn >= SNIC_MAX_QPS) {
			snprintf(why, 200, "QPN %u out of range", qpn);
			return 1;
		}
		if (!claim(&sh->qp_owner[qpn], me)) {
			snprintf(why, 200, "QPN %u also live in pid %u", qpn,
				 sh->qp_owner[qpn]);
			return 1;
		}
		unclaim(&sh->qp_owner[qpn]);
		if (ibv_destroy_qp(qp)) {
			snprintf(why, 200, "ibv_destroy_qp %u: %s", qpn,
				 strerror(errno));
			return 1;
		}
		unclaim(&sh->mr_owner[ki]);
		if (ibv_dereg_mr(mr)) {
			snprintf(why, 200, "ibv_dereg_mr 0x%x: %s", ki << 8,
				 strerror(errno));
			return 1;
		}
		sh->ops[idx] += 4;
	}
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *prefix = "aq";
	int procs = 8, secs = 20, c, i, failed = 0, st;
	pid_t pids[MAX_PROCS];
	uint64_t ops = 0;
	time_t end;

	while ((c = getopt(argc, argv, "d:n:t:P:")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'n': procs = atoi(optarg); break;
		case 't': secs = atoi(optarg); break;
		case 'P': prefix = optarg; break;
		default:
			fprintf(stderr, "usage: snic-aq-stress -d DEV [-n PROCS] "
				"[-t SECONDS] [-P PREFIX]\n");
			return 2;
		}
	}
	if (!dev || procs < 1 || procs > MAX_PROCS || secs < 1) {
		fprintf(stderr, "snic-aq-stress: need -d DEV, 1..%d procs\n",
			MAX_PROCS);
		return 2;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	end = time(NULL) + secs;
	for (i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			int r = worker(i, dev, end);
			uint32_t none = 0;

			if (r)
				__atomic_compare_exchange_n(&sh->first, &none,
							    i + 1, false,
							    __ATOMIC_SEQ_CST,
							    __ATOMIC_SEQ_CST);
			_exit(r);
		}
		if (pids[i] < 0) {
			perror("fork");
			return 2;
		}
	}
	for (i = 0; i < procs; i++) {
		if (waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st)) {
			printf("# worker %d: %s\n", i,
			       sh->why[i][0] ? sh->why[i] : "died");
			failed = 1;
		}
		ops += sh->ops[i];
	}
	/* the first to fail explains; the others may only follow from it */
	if (failed) {
		i = sh->first ? (int)sh->first - 1 : 0;
		printf("FAIL %s/aq_stress: worker %d: %s\n", prefix, i,
		       sh->why[i][0] ? sh->why[i] : "died");
	}
	printf("# aq_stress: %d processes, %llu admin operations in %d s\n",
	       procs, (unsigned long long)ops, secs);
	if (!failed)
		printf("PASS %s/aq_stress\n", prefix);
	return failed;
}
