// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * snic-llq-test: a SEND ping-pong over one RC QP, the receiver either
 * polling a low-latency ring (snicdv_create_llq_qp, -m llq: the message
 * lands in a slot, no receive WQE, no CQE) or posting receives and
 * polling its CQ (-m cq, plain verbs).
 *
 *   snic-llq-test [-d DEV] [-p PORT] [-m llq|cq] [-n ITERS] [-s SIZE]
 *		   [-y] [-P PREFIX] [HOST]
 *
 * Without HOST it serves: it answers each message with one of the same
 * size.  With HOST the client sends ITERS messages of SIZE bytes (inline,
 * byte j of message i = i + j), checks every answer (the server's bytes
 * are its message's plus 1) and prints PASS/FAIL lines (PREFIX/name),
 * "LAT mode=M size=S iters=N avg_ns=X" (guest clock: modeled time in
 * timing mode) and "N passed, N failed".  In llq mode the client also
 * checks that no receive CQE came, and ends with a message one byte
 * larger than a slot's payload, which takes the server's receive queue
 * (fallback): the server answers 1 if it arrived there intact.  -y: an
 * empty poll yields the CPU (sched_yield), so that client and server can
 * share one vCPU without each waiting out the other's time slice.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "snicdv.h"
#include "verbs_util.h"

#define SLOT		64
#define SLOTS_LOG	6
#define DEPTH		64
#define BUF		4096

#define TEST_LINES_PREFIX "llq"	/* -P: test names are PREFIX/name */
#include "test_lines.h"
static bool yield;		/* -y: an empty poll yields the CPU */

static void idle(void)
{
	if (yield)
		sched_yield();
}


struct ep {
	struct vu_dev d;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;		/* [0, BUF) send, [BUF, 2 BUF) receive */
	bool llq;
	unsigned int sent, done;
};

static void die(const char *what)
{
	fprintf(stderr, "snic-llq-test: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void post_recv(struct ep *e)
{
	struct ibv_sge sg = { .addr = (uintptr_t)e->buf + BUF, .length = BUF,
			      .lkey = e->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sg, .num_sge = 1 }, *bad;

	errno = ibv_post_recv(e->qp, &wr, &bad);
	if (errno)
		die("post_recv");
}

/* Send @len bytes of the send buffer; reap send completions as we go. */
static void send_msg(struct ep *e, uint32_t len)
{
	struct ibv_sge sg = { .addr = (uintptr_t)e->buf, .length = len,
			      .lkey = e->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sg, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;

	if (len <= SLOT)
		wr.send_flags |= IBV_SEND_INLINE;
	/* at most DEPTH / 2 sends outstanding */
	for (;;) {
		int n = ibv_poll_cq(e->scq, 1, &wc);

		if (n < 0 || (n == 1 && wc.status))
			die("send completion");
		if (n == 1)
			e->done++;
		else if (e->sent - e->done < DEPTH / 2)
			break;
	}
	errno = ibv_post_send(e->qp, &wr, &bad);
	if (errno)
		die("post_send");
	e->sent++;
}

/* The next message: into @out, its length returned.  Busy-polls. */
static uint32_t recv_msg(struct ep *e, uint8_t *out, bool fallback)
{
	struct ibv_wc wc;
	const void *p;
	uint32_t len;

	if (e->llq && !fallback) {
		while (snicdv_llq_poll(e->qp, &p, &len) != 1)
			idle();
		memcpy(out, p, len);
		snicdv_llq_release(e->qp);
		return len;
	}
	while (ibv_poll_cq(e->rcq, 1, &wc) != 1)
		idle();
	if (wc.status)
		die("receive completion");
	memcpy(out, e->buf + BUF, wc.byte_len);
	post_recv(e);
	return wc.byte_len;
}

static void setup(struct ep *e, const char *dev, bool llq)
{
	struct ibv_qp_init_attr a = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = SLOT },
	};
	struct snicdv_llq_attr la = { .log_slots = SLOTS_LOG,
				      .slot_size = SLOT, .ci_every = 8 };

	if (vu_dev_open(&e->d, dev, 1, -1))
		exit(2);
	e->llq = llq;
	e->buf = aligned_alloc(4096, 2 * BUF);
	e->scq = ibv_create_cq(e->d.ctx, DEPTH, NULL, NULL, 0);
	e->rcq = ibv_create_cq(e->d.ctx, DEPTH, NULL, NULL, 0);
	if (!e->buf || !e->scq || !e->rcq)
		die("cq");
	e->mr = ibv_reg_mr(e->d.pd, e->buf, 2 * BUF, IBV_ACCESS_LOCAL_WRITE);
	if (!e->mr)
		die("reg_mr");
	a.send_cq = e->scq;
	a.recv_cq = e->rcq;
	e->qp = llq ? snicdv_create_llq_qp(e->d.pd, &a, &la) :
		      ibv_create_qp(e->d.pd, &a);
	if (!e->qp)
		die("create_qp");
}

static void connect_qp(struct ep *e, int fd)
{
	struct vu_peer me = { .qpn = e->qp->qp_num, .psn = 100 }, peer;
	const char *step;
	int ret, i;

	memcpy(me.gid, e->d.gid.raw, 16);
	vu_xchg(fd, &me, &peer, sizeof(me));
	ret = vu_qp_connect(e->qp, &e->d, &peer, me.psn, &step);
	if (ret) {
		errno = ret;
		die(step);
	}
	/* receives before the peer may send (llq: for the fallback only) */
	for (i = 0; i < (e->llq ? 1 : DEPTH / 2); i++)
		post_recv(e);
	vu_xchg(fd, &me, &peer, sizeof(me));	/* both in RTS */
}

int main(int argc, char **argv)
{
	unsigned int iters = 1000, size = 32, i, j, bad = 0;
	const char *dev = NULL, *mode = "llq";
	static uint8_t in[BUF];
	struct timespec t0, t1;
	struct ibv_wc wc;
	struct ep e = { 0 };
	int port = 18700, fd, opt, cqes;
	double ns;

	while ((opt = getopt(argc, argv, "d:p:m:n:s:yP:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'm': mode = optarg; break;
		case 'n': iters = atoi(optarg); break;
		case 's': size = atoi(optarg); break;
		case 'y': yield = true; break;
		case 'P': prefix = optarg; break;
		default: return 2;
		}
	}
	if ((strcmp(mode, "llq") && strcmp(mode, "cq")) || !size ||
	    size > SLOT - 8 || !iters) {
		fprintf(stderr, "snic-llq-test: -m llq|cq, -s 1..%d\n", SLOT - 8);
		return 2;
	}
	setup(&e, dev, !strcmp(mode, "llq"));
	fd = optind < argc ? vu_tcp_connect(argv[optind], port) :
			     vu_tcp_accept(port);
	if (fd < 0)
		return 2;
	connect_qp(&e, fd);

	if (optind >= argc) {
		/* server: answer each message with its bytes plus 1 */
		for (i = 0; i < iters; i++) {
			uint32_t n = recv_msg(&e, in, false);

			for (j = 0; j < n; j++)
				e.buf[j] = in[j] + 1;
			send_msg(&e, n);
		}
		if (e.llq) {
			uint32_t n = recv_msg(&e, in, true);

			for (j = 0; j < n && in[j] == (uint8_t)j; j++)
				;
			e.buf[0] = n == SLOT - 7 && j == n;
			send_msg(&e, 1);
		}
		vu_xchg(fd, &i, &j, sizeof(i));	/* the client is done */
		return 0;
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < iters; i++) {
		uint32_t n;

		for (j = 0; j < size; j++)
			e.buf[j] = i + j;
		send_msg(&e, size);
		n = recv_msg(&e, in, false);
		for (j = 0; j < size; j++)
			bad += in[j] != (uint8_t)(i + j + 1);
		bad += n != size;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ns = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) /
	     iters;
	check("data", !bad, "answers differ from what was sent");
	if (e.llq) {
		cqes = ibv_poll_cq(e.rcq, 1, &wc);
		check("no_recv_cqe", cqes == 0, "a receive CQE came");
		/* one byte over a slot: the server's receive queue */
		for (j = 0; j < SLOT - 7; j++)
			e.buf[j] = j;
		send_msg(&e, SLOT - 7);
		recv_msg(&e, in, false);
		check("fallback_rq", in[0] == 1, "the server did not get it");
	}
	printf("LAT mode=%s size=%u iters=%u avg_ns=%.0f\n", mode, size,
	       iters, ns);
	vu_xchg(fd, &i, &j, sizeof(i));
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
