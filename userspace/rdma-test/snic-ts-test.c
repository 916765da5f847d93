// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * snic-ts-test -d DEV -e DEV2 [-P PREFIX]: RDMA completion timestamps
 * through libsnic (docs/snic-rdma.md "Completion timestamps"), between
 * two snic ports of one host.  ibv_query_device_ex gives the device
 * clock's rate (hca_core_clock, kHz) and mask, ibv_query_rt_values_ex its
 * value; an extended CQ made with IBV_WC_EX_WITH_COMPLETION_TIMESTAMP
 * gives each completion's time (ibv_wc_read_completion_ts).  Eight 64 KiB
 * RDMA WRITEs, one after the other, complete at increasing times between
 * the clock read before and after each; then forty WRITEs posted together:
 * the program prints "stream_gap_ns=D mtu=M", the mean time between the
 * completions of the 2nd to the 39th (the first has no WRITE ahead of it,
 * the last none behind it), which the caller compares with the cost
 * model's time per WRITE of a stream in timing mode.  Prints PASS/FAIL lines (PREFIX/name, default ts/name) and
 * "N passed, N failed".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "verbs_util.h"

#define MSG	(64 * 1024)
#define NWRITE	8
#define NSTREAM	40

#define TEST_LINES_PREFIX "ts"	/* -P: test names are PREFIX/name */
#include "test_lines.h"


/* The device clock in ns (ibv_query_rt_values_ex), 0 on failure. */
static uint64_t dev_clock(struct ibv_context *ctx)
{
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };

	if (ibv_query_rt_values_ex(ctx, &v) ||
	    !(v.comp_mask & IBV_VALUES_MASK_RAW_CLOCK))
		return 0;
	return (uint64_t)v.raw_clock.tv_sec * 1000000000ull +
	       (uint64_t)v.raw_clock.tv_nsec;
}

/*
 * Wait for @n completions on @cq (a few seconds at most); their
 * timestamps into @ts.  Returns how many came, all successful, or -1.
 */
static int wait_ts(struct ibv_cq_ex *cq, int n, uint64_t *ts)
{
	struct ibv_poll_cq_attr pa = { 0 };
	long spins;
	int got = 0;

	for (spins = 0; got < n && spins < 100000000L; spins++) {
		if (ibv_start_poll(cq, &pa))
			continue;
		do {
			if (cq->status != IBV_WC_SUCCESS ||
			    ibv_wc_read_opcode(cq) != IBV_WC_RDMA_WRITE) {
				ibv_end_poll(cq);
				return -1;
			}
			ts[got++] = ibv_wc_read_completion_ts(cq);
		} while (got < n && !ibv_next_poll(cq));
		ibv_end_poll(cq);
	}
	return got;
}

static const char *mtu_name(enum ibv_mtu m)
{
	static char b[16];

	snprintf(b, sizeof(b), "%d", 128 << m);
	return b;
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 128,
		.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			    IBV_WC_EX_WITH_BYTE_LEN,
	};
	struct ibv_send_wr wr[NSTREAM], *bad;
	struct ibv_device_attr_ex da;
	struct ibv_sge sge;
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr ia;
	struct vu_dev a, b;
	struct vu_peer pa, pb;
	const char *na = NULL, *nb = NULL, *step = "";
	struct ibv_cq_ex *scq, *bad_cq;
	struct ibv_cq *rcq;
	struct ibv_qp *qa_qp, *qb_qp;
	struct ibv_mr *ma, *mb;
	static uint8_t bufa[2 * MSG], bufb[2 * MSG];
	uint64_t ts[NSTREAM], before, after;
	char why[160];
	int i, mono = 1, within = 1;

	if (two_devs(argc, argv, &na, &nb) || vu_dev_open(&a, na, 1, -1) ||
	    vu_dev_open(&b, nb, 1, -1)) {
		printf("FAIL %s/open: usage: snic-ts-test -d DEV -e DEV2\n",
		       prefix);
		return 1;
	}
	memset(&da, 0, sizeof(da));
	check("device_clock", !ibv_query_device_ex(a.ctx, NULL, &da) &&
	      da.hca_core_clock == 1000000 &&
	      da.completion_timestamp_mask == UINT64_MAX,
	      "hca_core_clock is not 1000000 kHz or the mask not 64 bits");
	before = dev_clock(a.ctx);
	after = dev_clock(a.ctx);
	check("rt_clock", before && after >= before,
	      "ibv_query_rt_values_ex gave no clock or it went back");

	/* a field the provider cannot give: refused */
	ca.wc_flags |= IBV_WC_EX_WITH_FLOW_TAG;
	bad_cq = ibv_create_cq_ex(a.ctx, &ca);
	check("cq_ex_unsupported", !bad_cq && errno == EOPNOTSUPP,
	      "a CQ with IBV_WC_EX_WITH_FLOW_TAG was not refused");
	ca.wc_flags &= ~(uint64_t)IBV_WC_EX_WITH_FLOW_TAG;
	scq = ibv_create_cq_ex(a.ctx, &ca);
	check("cq_ex", scq != NULL, strerror(errno));
	rcq = ibv_create_cq(b.ctx, 64, NULL, NULL, 0);
	ma = ibv_reg_mr(a.pd, bufa, sizeof(bufa), IBV_ACCESS_LOCAL_WRITE);
	mb = ibv_reg_mr(b.pd, bufb, sizeof(bufb), IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	if (!scq || !rcq || !ma || !mb) {
		printf("FAIL %s/objects: %s\n", prefix, strerror(errno));
		return 1;
	}
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(scq);
	qa_qp = ibv_create_qp(a.pd, &qa);
	qa.send_cq = qa.recv_cq = rcq;
	qb_qp = ibv_create_qp(b.pd, &qa);
	if (!qa_qp || !qb_qp) {
		printf("FAIL %s/qp: %s\n", prefix, strerror(errno));
		return 1;
	}
	memset(&pa, 0, sizeof(pa));
	memset(&pb, 0, sizeof(pb));
	pa.qpn = qa_qp->qp_num;
	pa.psn = 0x111;
	memcpy(pa.gid, a.gid.raw, 16);
	pb.qpn = qb_qp->qp_num;
	pb.psn = 0x222;
	memcpy(pb.gid, b.gid.raw, 16);
	if (vu_qp_connect(qa_qp, &a, &pb, pa.psn, &step) ||
	    vu_qp_connect(qb_qp, &b, &pa, pb.psn, &step)) {
		printf("FAIL %s/connect: %s\n", prefix, step);
		return 1;
	}
	sge.addr = (uintptr_t)bufa;
	sge.length = MSG;
	sge.lkey = ma->lkey;
	for (i = 0; i < NSTREAM; i++) {
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = i;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].wr.rdma.remote_addr = (uintptr_t)bufb + (i % 2) * MSG;
		wr[i].wr.rdma.rkey = mb->rkey;
		wr[i].next = i + 1 < NSTREAM ? &wr[i + 1] : NULL;
	}

	/* one WRITE at a time: each completes after the clock read before */
	for (i = 0; i < NWRITE; i++) {
		memset(bufa, i + 1, MSG);
		before = dev_clock(a.ctx);
		wr[0].next = NULL;
		if (ibv_post_send(qa_qp, &wr[0], &bad) ||
		    wait_ts(scq, 1, &ts[i]) != 1) {
			check("writes", 0, "a WRITE failed or did not complete");
			return 1;
		}
		after = dev_clock(a.ctx);
		if (ts[i] < before || ts[i] > after)
			within = 0;
		if (i && ts[i] <= ts[i - 1])
			mono = 0;
	}
	check("writes", bufb[MSG - 1] == NWRITE, "the data did not land");
	snprintf(why, sizeof(why), "timestamps %llu .. %llu not increasing",
		 (unsigned long long)ts[0], (unsigned long long)ts[NWRITE - 1]);
	check("ts_monotonic", mono, why);
	check("ts_within_clock", within,
	      "a timestamp lies outside the clock reads around its WRITE");

	/* a stream: WRITEs posted together complete one stream time apart */
	wr[0].next = &wr[1];
	if (ibv_post_send(qa_qp, &wr[0], &bad) ||
	    wait_ts(scq, NSTREAM, ts) != NSTREAM) {
		check("stream", 0, "the WRITEs did not complete");
		return 1;
	}
	for (i = 1, mono = 1; i < NSTREAM; i++)
		mono &= ts[i] > ts[i - 1];
	check("stream", mono, "completions out of order in time");
	memset(&attr, 0, sizeof(attr));
	ibv_query_qp(qa_qp, &attr, IBV_QP_PATH_MTU, &ia);
	printf("stream_gap_ns=%llu mtu=%s\n",
	       (unsigned long long)(ts[NSTREAM - 2] - ts[1]) / (NSTREAM - 3),
	       mtu_name(attr.path_mtu));

	ibv_destroy_qp(qa_qp);
	ibv_destroy_qp(qb_qp);
	ibv_dereg_mr(ma);
	ibv_dereg_mr(mb);
	ibv_destroy_cq(ibv_cq_ex_to_cq(scq));
	ibv_destroy_cq(rcq);
	vu_dev_close(&a);
	vu_dev_close(&b);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
