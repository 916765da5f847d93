/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Verbs helpers shared by the RDMA test programs (snic-verbs-test,
 * snic-hostile): open a device and pick its RoCE v2 GID, and walk a QP
 * RESET -> INIT -> RTR -> RTS towards a peer.  Plain libibverbs.
 */
#ifndef RDMA_TEST_VERBS_UTIL_H
#define RDMA_TEST_VERBS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#define VU_QKEY		0x11111111u

struct vu_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_port_attr pattr;
	uint8_t port;
	int gidx;
	union ibv_gid gid;
};

/* The other end of a QP. */
struct vu_peer {
	uint32_t qpn;
	uint32_t psn;
	uint16_t lid;
	uint8_t gid[16];
};

/*
 * Open device @name (NULL: the first), port @port, GID index @gidx (< 0:
 * the first RoCE v2 IPv4-mapped GID, else 0).  0 or -1 with a message on
 * stderr.
 */
int vu_dev_open(struct vu_dev *d, const char *name, uint8_t port, int gidx);
void vu_dev_close(struct vu_dev *d);

/* Address vector towards @p through @d's port and GID. */
void vu_fill_ah(struct ibv_ah_attr *ah, const struct vu_dev *d,
		const struct vu_peer *p);

/*
 * Bring @qp (RC or UD) to RTS: RC connects to @p, UD uses VU_QKEY.
 * Returns 0 or an errno value; *step names the transition that failed.
 */
int vu_qp_connect(struct ibv_qp *qp, const struct vu_dev *d,
		  const struct vu_peer *p, uint32_t my_psn, const char **step);

/*
 * TCP side channel: connect to @host:@port (retrying while the server
 * starts), accept one connection on @port; -1 on failure.  vu_xchg sends
 * @n bytes and receives the peer's @n (exits with status 2 on failure).
 */
int vu_tcp_connect(const char *host, int port);
int vu_tcp_accept(int port);
int vu_xchg(int fd, const void *mine, void *theirs, size_t n);

#endif /* RDMA_TEST_VERBS_UTIL_H */
