/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libd2d: a small C library over /dev/hdc, the D2D ioctl ABI of
 * <d2d/hdc_ioctl.h> (docs/hdc.md, "libd2d").  Every function returns 0 (or
 * a descriptor) on success and a negative errno on failure; errno is set
 * as well.
 */
#ifndef LIBD2D_H
#define LIBD2D_H

#include <stddef.h>
#include <stdint.h>
#include <d2d/hdc_ioctl.h>

#define D2D_DEV_DEFAULT "/dev/hdc"

/* A chain of near-device functions, applied in order. */
struct d2d_chain {
	unsigned int n;
	uint32_t funcs[HDC_MAX_FUNCS];	/* enum hdc_func */
	uint8_t aes_key[32];
	uint8_t aes_iv[16];
};

struct d2d_result {
	uint64_t len;			/* bytes written to the destination */
	uint8_t digest[HDC_MAX_FUNCS][32];	/* of funcs[i], if a digest */
};

/* Open the engine: $D2D_DEV or /dev/hdc. */
int d2d_open(void);

int d2d_caps(int hdc, struct hdc_caps *caps);
int d2d_stats(int hdc, struct hdc_stats *stats);

/* Raw requests: d2d_req_init() zeroes and sets the size field. */
void d2d_req_init(struct hdc_req *req);
void d2d_req_chain(struct hdc_req *req, const struct d2d_chain *chain);
/* A request's endpoint: a descriptor (file at offset, or socket)... */
void d2d_ep_fd(struct hdc_uendpoint *ep, int fd, uint64_t offset);
/* ... or len bytes of user memory at addr. */
void d2d_ep_user(struct hdc_uendpoint *ep, void *addr, uint64_t len);
int d2d_submit(int hdc, struct hdc_req *req);
int d2d_wait(int hdc, uint64_t id, uint32_t timeout_ms, struct hdc_wait *w);

/*
 * File to file on the engine's SSD: len bytes at src_off of src_fd through
 * chain (may be NULL) to dst_off of dst_fd (dst_fd < 0: nothing is
 * written, digests only).  Blocks until done.
 */
int d2d_copy(int hdc, int src_fd, uint64_t src_off, int dst_fd,
	     uint64_t dst_off, uint64_t len, const struct d2d_chain *chain,
	     struct d2d_result *res);

/*
 * A file range to the network: len bytes at off of fd through chain (may
 * be NULL) as UDP datagrams of the connected UDP/IPv4 socket sock, sent
 * by the engine on its own queues of the snic port the socket's route
 * leaves by (docs/hdc.md, "NIC queues").  res->len: payload bytes sent.
 * flags: 0, or HDC_REQ_SW_P2P (the software-controlled P2P baseline: the
 * driver runs it chunk by chunk; no functions).  sock may instead be a
 * connected TCP/IPv4 socket (no functions, flags 0): the engine sends the
 * bytes as that connection's segments and the socket carries on after
 * (docs/hdc.md, "TCP").
 */
int d2d_send(int hdc, int fd, uint64_t off, uint64_t len, int sock,
	     const struct d2d_chain *chain, uint32_t flags,
	     struct d2d_result *res);
/*
 * A UDP socket connected to host (dotted IPv4 address) and port (decimal);
 * the descriptor or -errno (EINVAL: malformed).
 */
int d2d_udp_connect(const char *host, const char *port);
/* The same for a TCP connection. */
int d2d_tcp_connect(const char *host, const char *port);

/*
 * A UDP socket bound to host:port (an address of a snic port), connected
 * to peer_host:peer_port unless peer_host is NULL; the descriptor or
 * -errno.
 */
int d2d_udp_bind(const char *host, const char *port, const char *peer_host,
		 const char *peer_port);

/*
 * The network to a file: len bytes of datagrams arriving at the bound UDP
 * socket sock (each headed by struct hdc_rx_hdr, <d2d/hdc_ifc.h>),
 * received by the engine on its own queues and written at off of fd
 * (fd < 0: nothing written, digests only) through chain (may be NULL;
 * e.g. HDC_FN_CRC32C), giving up after timeout_ms (0: never).  Blocks.
 * rep (may be NULL) gets the engine's report also on failure: -EREMOTEIO
 * with rep->gap_lo..gap_hi the first missing bytes (docs/hdc.md,
 * "Receiving").  Needs CAP_NET_RAW.  sock may also be a connected TCP
 * socket (e.g. d2d_tcp_connect(), or accepted): the engine receives the
 * connection's next len bytes, fewer if the peer's FIN comes first
 * (res->len says how many), and the socket carries on after
 * (docs/hdc.md, "TCP receive"); rep->datagrams counts segments.
 */
int d2d_recv(int hdc, int sock, int fd, uint64_t off, uint64_t len,
	     const struct d2d_chain *chain, uint32_t timeout_ms,
	     struct d2d_result *res, struct hdc_rx_report *rep);

/* Digest (HDC_FN_CRC32C, _MD5, _SHA256, _SHA1, _CRC32) of a file range. */
int d2d_digest(int hdc, int fd, uint64_t off, uint64_t len, uint32_t func,
	       uint8_t out[32]);

/* Function helpers */
const char *d2d_func_name(uint32_t func);
int d2d_func_by_name(const char *name);	/* -1 if unknown */
size_t d2d_digest_size(uint32_t func);	/* 0: not a digest */
int d2d_func_is_digest(uint32_t func);
/* deflate or gzip: the output's length is not the input's */
int d2d_func_compresses(uint32_t func);
/* Hex of a digest as md5sum/sha256sum print it (CRCs: 8 digits). */
void d2d_digest_hex(uint32_t func, const uint8_t *digest, char *out);
/* Advance a big-endian 128-bit CTR counter block by blocks. */
void d2d_iv_add(uint8_t iv[16], uint64_t blocks);

#endif /* LIBD2D_H */
