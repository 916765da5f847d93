// SPDX-License-Identifier: GPL-2.0
/*
 * Verbs helpers shared by the RDMA test programs: device opening with
 * RoCE v2 GID selection and the QP state walk to RTS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "verbs_util.h"

/* First RoCE v2 GID that is an IPv4-mapped address, else index 0. */
static int vu_pick_gid(struct vu_dev *d)
{
	static const uint8_t v4_prefix[12] = { [10] = 0xff, [11] = 0xff };
	struct ibv_gid_entry e;
	int i;

	for (i = 0; i < d->pattr.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(d->ctx, d->port, i, &e, 0))
			continue;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    !memcmp(e.gid.raw, v4_prefix, sizeof(v4_prefix)))
			return i;
	}
	return 0;
}

int vu_dev_open(struct vu_dev *d, const char *name, uint8_t port, int gidx)
{
	struct ibv_device **list;
	int i, n;

	memset(d, 0, sizeof(*d));
	d->port = port;
	list = ibv_get_device_list(&n);
	if (!list || !n) {
		fprintf(stderr, "no RDMA devices\n");
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!name || !strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (i < n)
		d->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (i == n) {
		fprintf(stderr, "no device %s\n", name);
		return -1;
	}
	if (!d->ctx) {
		fprintf(stderr, "ibv_open_device %s: %s\n", name ? name : "",
			strerror(errno));
		return -1;
	}
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd || ibv_query_port(d->ctx, d->port, &d->pattr)) {
		fprintf(stderr, "PD / port %u: %s\n", port, strerror(errno));
		return -1;
	}
	d->gidx = gidx >= 0 ? gidx : vu_pick_gid(d);
	if (ibv_query_gid(d->ctx, d->port, d->gidx, &d->gid)) {
		fprintf(stderr, "no GID %d\n", d->gidx);
		return -1;
	}
	return 0;
}

void vu_dev_close(struct vu_dev *d)
{
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->ctx)
		ibv_close_device(d->ctx);
	memset(d, 0, sizeof(*d));
}

void vu_fill_ah(struct ibv_ah_attr *ah, const struct vu_dev *d,
		const struct vu_peer *p)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->port_num = d->port;
	ah->dlid = p->lid;
	memcpy(ah->grh.dgid.raw, p->gid, 16);
	ah->grh.sgid_index = d->gidx;
	ah->grh.hop_limit = 64;
}

int vu_qp_connect(struct ibv_qp *qp, const struct vu_dev *d,
		  const struct vu_peer *p, uint32_t my_psn, const char **step)
{
	bool ud = qp->qp_type == IBV_QPT_UD;
	struct ibv_qp_attr a;
	int m;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = d->port;
	if (ud) {
		a.qkey = VU_QKEY;
		m = IBV_QP_QKEY;
	} else {
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
		m = IBV_QP_ACCESS_FLAGS;
	}
	*step = "INIT";
	if (ibv_modify_qp(qp, &a, m | IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT))
		return errno;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	m = IBV_QP_STATE;
	if (!ud) {
		a.path_mtu = d->pattr.active_mtu;
		a.dest_qp_num = p->qpn;
		a.rq_psn = p->psn;
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 12;
		vu_fill_ah(&a.ah_attr, d, p);
		m |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
		     IBV_QP_MIN_RNR_TIMER;
	}
	*step = "RTR";
	if (ibv_modify_qp(qp, &a, m))
		return errno;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = my_psn;
	m = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (!ud) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 4;
		m |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		     IBV_QP_MAX_QP_RD_ATOMIC;
	}
	*step = "RTS";
	if (ibv_modify_qp(qp, &a, m))
		return errno;
	return 0;
}

/* ---- TCP side channel ---- */

static int xfull(int fd, void *p, size_t n, bool wr)
{
	uint8_t *b = p;

	while (n) {
		ssize_t r = wr ? write(fd, b, n) : read(fd, b, n);

		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return -1;
		}
		b += r;
		n -= r;
	}
	return 0;
}

/* Both sides send @n bytes and receive the peer's @n bytes. */
int vu_xchg(int fd, const void *mine, void *theirs, size_t n)
{
	if (xfull(fd, (void *)mine, n, true) || xfull(fd, theirs, n, false)) {
		fprintf(stderr, "%s: TCP exchange failed: %s\n",
			program_invocation_short_name,
			strerror(errno));
		exit(2);
	}
	return 0;
}

int vu_tcp_connect(const char *host, int port)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai;
	char ps[16];
	int fd = -1, i;

	snprintf(ps, sizeof(ps), "%d", port);
	if (getaddrinfo(host, ps, &hints, &ai)) {
		fprintf(stderr, "%s: cannot resolve %s\n",
			program_invocation_short_name, host);
		return -1;
	}
	/* The server may still be starting: retry for a while. */
	for (i = 0; i < 600; i++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			break;
		if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		close(fd);
		fd = -1;
		usleep(100000);
	}
	freeaddrinfo(ai);
	if (fd < 0)
		fprintf(stderr, "%s: cannot connect to %s:%d\n",
			program_invocation_short_name, host, port);
	return fd;
}

int vu_tcp_accept(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	int one = 1, lfd, fd;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		return -1;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1)) {
		fprintf(stderr, "%s: cannot listen on %d: %s\n",
			program_invocation_short_name, port, strerror(errno));
		close(lfd);
		return -1;
	}
	fd = accept(lfd, NULL, NULL);
	close(lfd);
	return fd;
}
