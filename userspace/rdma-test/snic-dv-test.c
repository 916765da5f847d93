// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * snic-dv-test -d DEV [-P PREFIX]: libsnic's direct verbs (snicdv.h),
 * linked as an application links them: snicdv_create_qp makes a pipe QP
 * (over shared send queues), a pipe QP with its own send pipe and a
 * doorbell QP whatever SNIC_QP_MODE says, snicdv_qp_mode tells them apart, bad
 * attributes (mode, ci_every, a pipe QP with an SRQ or two receive
 * scatter entries) fail with EINVAL, and a pipe QP refuses a receive with
 * two entries.  Prints PASS/FAIL lines (PREFIX/name, default dv/name) and
 * "N passed, N failed".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "snicdv.h"

#define TEST_LINES_PREFIX "dv"	/* -P: test names are PREFIX/name */
#include "test_lines.h"


static struct ibv_qp *dv_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			    struct ibv_srq *srq, uint32_t recv_sge,
			    uint32_t mode, uint32_t ci_every)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = srq ? 0 : 16,
			 .max_send_sge = 1, .max_recv_sge = recv_sge },
	};
	struct snicdv_qp_attr dv = { .mode = mode, .ci_every = ci_every };

	errno = 0;
	return snicdv_create_qp(pd, &a, &dv);
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_qp_attr init = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	struct ibv_recv_wr wr = { 0 }, *bad;
	struct ibv_sge sge[2];
	const char *name = NULL;
	struct ibv_qp *p, *d, *q;
	struct ibv_srq *srq;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	static char buf[4096];
	int i, opt;

	while ((opt = getopt(argc, argv, "d:P:")) != -1) {
		if (opt == 'd')
			name = optarg;
		else if (opt == 'P')
			prefix = optarg;
	}
	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (name && !strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		printf("FAIL %s/open: no device %s\n", prefix,
		       name ? name : "(-d DEV)");
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	srq = ibv_create_srq(pd, &sa);
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!pd || !cq || !srq || !mr) {
		printf("FAIL %s/objects: %s\n", prefix, strerror(errno));
		return 1;
	}
	p = dv_qp(pd, cq, NULL, 1, SNICDV_QP_MODE_PIPE, 8);
	check("create_pipe", p && snicdv_qp_mode(p) == SNICDV_QP_MODE_PIPE,
	      strerror(errno));
	d = dv_qp(pd, cq, NULL, 1, SNICDV_QP_MODE_DOORBELL, 0);
	check("create_doorbell",
	      d && snicdv_qp_mode(d) == SNICDV_QP_MODE_DOORBELL, strerror(errno));
	q = dv_qp(pd, cq, NULL, 1, SNICDV_QP_MODE_PIPE_QP, 8);
	check("create_pipe_qp",
	      q && snicdv_qp_mode(q) == SNICDV_QP_MODE_PIPE_QP, strerror(errno));
	if (q)
		ibv_destroy_qp(q);
	q = dv_qp(pd, cq, NULL, 1, 7, 8);
	check("bad_mode", !q && errno == EINVAL, "not EINVAL");
	q = dv_qp(pd, cq, NULL, 1, SNICDV_QP_MODE_PIPE, 0);
	check("bad_ci_every", !q && errno == EINVAL, "not EINVAL");
	q = dv_qp(pd, cq, srq, 1, SNICDV_QP_MODE_PIPE, 8);
	check("pipe_srq", !q && errno == EINVAL, "not EINVAL");
	q = dv_qp(pd, cq, NULL, 2, SNICDV_QP_MODE_PIPE, 8);
	check("pipe_two_recv_sge", !q && errno == EINVAL, "not EINVAL");
	if (p) {
		/* two scatter entries do not fit a 16-byte RQE */
		check("pipe_init", !ibv_modify_qp(p, &init, IBV_QP_STATE |
			IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
		      "modify to INIT");
		for (i = 0; i < 2; i++) {
			sge[i].addr = (uintptr_t)buf + 64 * i;
			sge[i].length = 64;
			sge[i].lkey = mr->lkey;
		}
		wr.sg_list = sge;
		wr.num_sge = 2;
		check("pipe_recv_two_sge",
		      ibv_post_recv(p, &wr, &bad) == EINVAL && bad == &wr,
		      "not EINVAL");
		wr.num_sge = 1;
		check("pipe_recv_one_sge", !ibv_post_recv(p, &wr, &bad),
		      "post_recv failed");
		ibv_destroy_qp(p);
	}
	if (d)
		ibv_destroy_qp(d);
	ibv_dereg_mr(mr);
	ibv_destroy_srq(srq);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
