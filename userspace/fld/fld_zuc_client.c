// SPDX-License-Identifier: GPL-2.0
/*
 * FLD-R client library (fld_zuc_client.h): librdmacm connection set-up,
 * one registered buffer of request and answer slots, SEND / RECV work
 * requests on one CQ polled by the caller's thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fld_zuc_client.h"

#define WR_SEND		(1ull << 32)	/* wr_id flag: a SEND, else a RECV */

static int fzc_fail(struct fzc *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return -1;
}

static double fzc_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Wait up to @ms for the next CM event, expect @want. */
static int fzc_event(struct fzc *c, struct rdma_event_channel *ch,
		     enum rdma_cm_event_type want, struct rdma_cm_id **id,
		     int ms)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int got;

	if (poll(&p, 1, ms) != 1)
		return fzc_fail(c, "no %s within %d ms", rdma_event_str(want),
				ms);
	if (rdma_get_cm_event(ch, &ev))
		return fzc_fail(c, "rdma_get_cm_event: %s", strerror(errno));
	got = ev->event;
	if (id)
		*id = ev->id;
	if (got != (int)want) {
		fzc_fail(c, "%s (status %d) instead of %s",
			 rdma_event_str(ev->event), ev->status,
			 rdma_event_str(want));
		rdma_ack_cm_event(ev);
		return -1;
	}
	rdma_ack_cm_event(ev);
	return 0;
}

uint8_t *fzc_req(struct fzc *c, unsigned int slot)
{
	return c->buf + (size_t)slot * FZC_SLOT;
}

uint8_t *fzc_ans(struct fzc *c, unsigned int slot)
{
	return c->buf + (size_t)(c->depth + slot) * FZC_SLOT;
}

/* PD, CQ (@events: with a completion channel), QP, buffer on @id. */
static int fzc_resources(struct fzc *c, struct rdma_cm_id *id,
			 unsigned int depth, bool events)
{
	struct ibv_qp_init_attr qa = {};

	if (!depth || depth > FZC_MAX_DEPTH)
		return fzc_fail(c, "depth %u not in 1..%u", depth,
				FZC_MAX_DEPTH);
	c->depth = depth;
	c->pd = ibv_alloc_pd(id->verbs);
	if (events) {
		c->cc = ibv_create_comp_channel(id->verbs);
		if (!c->cc)
			return fzc_fail(c, "ibv_create_comp_channel: %s",
					strerror(errno));
	}
	c->cq = c->pd ? ibv_create_cq(id->verbs, 4 * depth, NULL, c->cc, 0) :
			NULL;
	c->buf = aligned_alloc(4096, 2 * (size_t)depth * FZC_SLOT);
	if (!c->pd || !c->cq || !c->buf)
		return fzc_fail(c, "PD/CQ/buffer: %s", strerror(errno));
	c->mr = ibv_reg_mr(c->pd, c->buf, 2 * (size_t)depth * FZC_SLOT,
			   IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr)
		return fzc_fail(c, "ibv_reg_mr: %s", strerror(errno));
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = depth;
	qa.cap.max_recv_wr = depth;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, c->pd, &qa))
		return fzc_fail(c, "rdma_create_qp: %s", strerror(errno));
	c->id = id;
	return 0;
}

int fzc_connect(struct fzc *c, const char *hostport, unsigned int depth)
{
	struct rdma_conn_param cp = {};
	struct addrinfo *ai = NULL, hints = { .ai_family = AF_INET };
	char host[256], *colon;
	const char *port = FZC_DEFAULT_PORT;
	struct rdma_cm_id *id;
	int ret;

	memset(c, 0, sizeof(*c));
	snprintf(host, sizeof(host), "%s", hostport);
	colon = strrchr(host, ':');
	if (colon) {
		*colon = 0;
		port = colon + 1;
	}
	ret = getaddrinfo(host, port, &hints, &ai);
	if (ret)
		return fzc_fail(c, "%s: %s", hostport, gai_strerror(ret));
	c->ch = rdma_create_event_channel();
	if (!c->ch || rdma_create_id(c->ch, &id, c, RDMA_PS_TCP)) {
		freeaddrinfo(ai);
		return fzc_fail(c, "rdma_create_id: %s", strerror(errno));
	}
	c->id = id;
	ret = rdma_resolve_addr(id, NULL, ai->ai_addr, 2000);
	freeaddrinfo(ai);
	if (ret || fzc_event(c, c->ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL,
			     3000))
		return ret ? fzc_fail(c, "rdma_resolve_addr: %s",
				      strerror(errno)) : -1;
	if (rdma_resolve_route(id, 2000) ||
	    fzc_event(c, c->ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, 3000))
		return c->err[0] ? -1 : fzc_fail(c, "rdma_resolve_route: %s",
						 strerror(errno));
	if (fzc_resources(c, id, depth, false))
		return -1;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	if (rdma_connect(id, &cp))
		return fzc_fail(c, "rdma_connect: %s", strerror(errno));
	return fzc_event(c, c->ch, RDMA_CM_EVENT_ESTABLISHED, NULL, 10000);
}

void fzc_close(struct fzc *c)
{
	if (c->id) {
		rdma_disconnect(c->id);
		if (c->id->qp)
			rdma_destroy_qp(c->id);
	}
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->cc)
		ibv_destroy_comp_channel(c->cc);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->ch)
		rdma_destroy_event_channel(c->ch);
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

static int fzc_post_recv(struct fzc *c, uint8_t *p, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)p, .length = FZC_SLOT, .lkey = c->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	if (ibv_post_recv(c->id->qp, &wr, &bad))
		return fzc_fail(c, "ibv_post_recv: %s", strerror(errno));
	return 0;
}

static int fzc_post_send(struct fzc *c, uint8_t *p, size_t len,
			 uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)p, .length = len, .lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id | WR_SEND, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (ibv_post_send(c->id->qp, &wr, &bad))
		return fzc_fail(c, "ibv_post_send: %s", strerror(errno));
	c->sends_out++;
	return 0;
}

int fzc_send(struct fzc *c, unsigned int slot, size_t len)
{
	if (slot >= c->depth || len > FZC_SLOT)
		return fzc_fail(c, "slot %u / length %zu out of range", slot,
				len);
	if (fzc_post_recv(c, fzc_ans(c, slot), slot))
		return -1;
	return fzc_post_send(c, fzc_req(c, slot), len, slot);
}

long fzc_wait(struct fzc *c, unsigned int *slot, int timeout_ms)
{
	double end = fzc_now_ms() + timeout_ms;
	struct ibv_wc wc;
	int n;

	for (;;) {
		n = ibv_poll_cq(c->cq, 1, &wc);
		if (n < 0)
			return fzc_fail(c, "ibv_poll_cq failed");
		if (n == 0) {
			if (fzc_now_ms() > end)
				return fzc_fail(c, "no answer within %d ms",
						timeout_ms);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS)
			return fzc_fail(c, "%s completion: %s",
					wc.wr_id & WR_SEND ? "send" : "receive",
					ibv_wc_status_str(wc.status));
		if (wc.wr_id & WR_SEND) {
			c->sends_out--;
			continue;
		}
		*slot = (unsigned int)wc.wr_id;
		return wc.byte_len;
	}
}

long fzc_call(struct fzc *c, const void *req, size_t len, void *ans,
	      size_t ans_size, int timeout_ms)
{
	unsigned int slot;
	long n;

	if (len > FZC_SLOT)
		return fzc_fail(c, "request of %zu bytes too long", len);
	memcpy(fzc_req(c, 0), req, len);
	if (fzc_send(c, 0, len))
		return -1;
	n = fzc_wait(c, &slot, timeout_ms);
	if (n < 0)
		return -1;
	memcpy(ans, fzc_ans(c, slot), (size_t)n < ans_size ? (size_t)n :
	       ans_size);
	return n;
}

/* ---- server side ---- */

struct rdma_cm_id *fzc_listen(struct rdma_event_channel **ch,
			      const char *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_cm_id *id;

	sin.sin_port = htons(atoi(port));
	*ch = rdma_create_event_channel();
	if (!*ch || rdma_create_id(*ch, &id, NULL, RDMA_PS_TCP))
		return NULL;
	if (rdma_bind_addr(id, (struct sockaddr *)&sin) || rdma_listen(id, 4)) {
		rdma_destroy_id(id);
		return NULL;
	}
	return id;
}

int fzc_accept(struct fzc *c, struct rdma_event_channel *ch,
	       unsigned int depth)
{
	struct rdma_conn_param cp = {};
	struct rdma_cm_id *id;
	unsigned int k;

	memset(c, 0, sizeof(*c));
	/* events of the previous connection (DISCONNECTED, ...) are skipped */
	for (;;) {
		struct rdma_cm_event *ev;

		if (rdma_get_cm_event(ch, &ev))
			return fzc_fail(c, "rdma_get_cm_event: %s",
					strerror(errno));
		id = ev->id;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			rdma_ack_cm_event(ev);
			break;
		}
		rdma_ack_cm_event(ev);
	}
	if (fzc_resources(c, id, depth, true))
		return -1;
	for (k = 0; k < depth; k++)
		if (fzc_post_recv(c, fzc_req(c, k), k))
			return -1;
	cp.rnr_retry_count = 7;
	if (rdma_accept(id, &cp))
		return fzc_fail(c, "rdma_accept: %s", strerror(errno));
	return fzc_event(c, ch, RDMA_CM_EVENT_ESTABLISHED, NULL, 10000);
}

/*
 * Nothing in the (armed, and polled again since) CQ: sleep until a
 * completion event or a CM event; 1 if the client disconnected.
 */
static int fzc_sleep(struct fzc *c)
{
	struct pollfd p[2] = {
		{ .fd = c->cc->fd, .events = POLLIN },
		{ .fd = c->id->channel->fd, .events = POLLIN },
	};
	struct rdma_cm_event *ev;
	struct ibv_cq *cq;
	void *ctx;
	int e;

	if (poll(p, 2, 1000) < 1)
		return 0;
	if (p[0].revents & POLLIN) {
		if (!ibv_get_cq_event(c->cc, &cq, &ctx))
			ibv_ack_cq_events(cq, 1);
	}
	if ((p[1].revents & POLLIN) && !rdma_get_cm_event(c->id->channel, &ev)) {
		e = ev->event;
		rdma_ack_cm_event(ev);
		if (e == RDMA_CM_EVENT_DISCONNECTED)
			return 1;
	}
	return 0;
}

int fzc_serve(struct fzc *c, fzc_serve_fn fn)
{
	bool armed = false;
	struct ibv_wc wc;
	long n;

	for (;;) {
		if (ibv_poll_cq(c->cq, 1, &wc) != 1) {
			/* arm, poll once more (the race), then sleep */
			if (!armed) {
				if (ibv_req_notify_cq(c->cq, 0))
					return fzc_fail(c, "ibv_req_notify_cq failed");
				armed = true;
			} else {
				armed = false;
				if (fzc_sleep(c))
					return 0;
			}
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS)
			return wc.status == IBV_WC_WR_FLUSH_ERR ? 0 :
			       fzc_fail(c, "completion: %s",
					ibv_wc_status_str(wc.status));
		if (wc.wr_id & WR_SEND) {
			/* the answer is out: the request slot is free again */
			unsigned int k = (unsigned int)wc.wr_id;

			if (fzc_post_recv(c, fzc_req(c, k), k))
				return -1;
			continue;
		}
		n = fn(fzc_req(c, wc.wr_id), wc.byte_len, fzc_ans(c, wc.wr_id),
		       FZC_SLOT);
		if (n < 0) {
			/* not a request: answered like FLD-R does */
			uint8_t *a = fzc_ans(c, wc.wr_id);
			struct fld_zuc_hdr h = {};

			memcpy(&h, fzc_req(c, wc.wr_id),
			       wc.byte_len < sizeof(h) ? wc.byte_len : sizeof(h));
			h.magic = FLD_ZUC_MAGIC;
			h.status = FLD_ZUC_EHDR;
			h.mac = 0;
			memcpy(a, &h, sizeof(h));
			n = sizeof(h);
		}
		if (fzc_post_send(c, fzc_ans(c, wc.wr_id), n, wc.wr_id))
			return -1;
	}
}
