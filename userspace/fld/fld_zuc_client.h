/* SPDX-License-Identifier: GPL-2.0 */
/*
 * FLD-R client library: zuc requests (struct fld_zuc_hdr + data) to a
 * remote FLD accelerator - or any server speaking the same messages - as
 * RDMA SENDs on an RC QP connected with librdmacm, answers received by
 * SEND.  Up to @depth requests in flight; answers come back in request
 * order (one QP, served in order), each into the receive posted with its
 * request.  Also the server side (fzc_listen/fzc_accept) that fld-zuc's
 * host CPU baseline uses.
 */
#ifndef FLD_ZUC_CLIENT_H
#define FLD_ZUC_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <rdma/rdma_cma.h>
#include "d2d/fld_ifc.h"

#define FZC_DEFAULT_PORT	"7471"
#define FZC_MSG_MAX		(FLD_ZUC_HDR_SIZE + FLD_ZUC_MAX_BITS / 8)
#define FZC_SLOT		12288	/* FZC_MSG_MAX, room for oversize tests */
#define FZC_OVERSIZE		10000	/* more than FLD_QP_BUF_SIZE */
#define FZC_MAX_DEPTH		64

struct fzc {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_comp_channel *cc;	/* server: sleeps between requests */
	struct ibv_mr *mr;
	uint8_t *buf;		/* depth request slots, then depth answer slots */
	unsigned int depth;
	unsigned int sends_out;	/* SENDs not yet completed */
	char err[128];
};

/* Connect to HOST:PORT ("host" or "host:port"); 0 or -1 (c->err says). */
int fzc_connect(struct fzc *c, const char *hostport, unsigned int depth);
void fzc_close(struct fzc *c);

/* The request buffer of @slot (FZC_SLOT bytes) and its answer buffer. */
uint8_t *fzc_req(struct fzc *c, unsigned int slot);
uint8_t *fzc_ans(struct fzc *c, unsigned int slot);

/*
 * Post the receive for @slot's answer, then SEND the @len bytes of its
 * request buffer.  0 or -1.
 */
int fzc_send(struct fzc *c, unsigned int slot, size_t len);

/*
 * The next answer: its slot in *slot and its length; -1 on an error
 * completion or after @timeout_ms without one.
 */
long fzc_wait(struct fzc *c, unsigned int *slot, int timeout_ms);

/* One request and its answer (slot 0): the answer's length or -1. */
long fzc_call(struct fzc *c, const void *req, size_t len, void *ans,
	      size_t ans_size, int timeout_ms);

/*
 * Server side (the host CPU baseline): listen on @port, then accept one
 * connection at a time into @c (depth receives posted, SEND answers).
 */
struct rdma_cm_id *fzc_listen(struct rdma_event_channel **ch,
			      const char *port);
int fzc_accept(struct fzc *c, struct rdma_event_channel *ch,
	       unsigned int depth);
/*
 * Serve the accepted connection until it goes away (answer = @fn); the
 * thread sleeps on the CQ's completion channel while no request waits.
 */
typedef long (*fzc_serve_fn)(const uint8_t *req, size_t len, uint8_t *ans,
			     size_t size);
int fzc_serve(struct fzc *c, fzc_serve_fn fn);

#endif
