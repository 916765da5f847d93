// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libd2d: wrappers over the /dev/hdc ioctls (see libd2d.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "libd2d.h"

static int d2d_err(void)
{
	return -errno;
}

int d2d_open(void)
{
	const char *path = getenv("D2D_DEV");
	int fd = open(path && *path ? path : D2D_DEV_DEFAULT, O_RDWR | O_CLOEXEC);

	return fd < 0 ? d2d_err() : fd;
}

int d2d_caps(int hdc, struct hdc_caps *caps)
{
	memset(caps, 0, sizeof(*caps));
	return ioctl(hdc, HDC_IOC_CAPS, caps) ? d2d_err() : 0;
}

int d2d_stats(int hdc, struct hdc_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	return ioctl(hdc, HDC_IOC_STATS, stats) ? d2d_err() : 0;
}

void d2d_req_init(struct hdc_req *req)
{
	memset(req, 0, sizeof(*req));
	req->size = sizeof(*req);
}

void d2d_req_chain(struct hdc_req *req, const struct d2d_chain *chain)
{
	unsigned int i;

	if (!chain)
		return;
	req->nfuncs = chain->n;
	for (i = 0; i < chain->n && i < HDC_MAX_FUNCS; i++)
		req->funcs[i] = chain->funcs[i];
	memcpy(req->aes_key, chain->aes_key, sizeof(req->aes_key));
	memcpy(req->aes_iv, chain->aes_iv, sizeof(req->aes_iv));
}

void d2d_ep_fd(struct hdc_uendpoint *ep, int fd, uint64_t offset)
{
	ep->type = HDC_UEP_FD;
	ep->fd = fd;
	ep->offset = offset;
}

void d2d_ep_user(struct hdc_uendpoint *ep, void *addr, uint64_t len)
{
	ep->type = HDC_UEP_USER;
	ep->addr = (uintptr_t)addr;
	ep->len = len;
}

int d2d_submit(int hdc, struct hdc_req *req)
{
	return ioctl(hdc, HDC_IOC_SUBMIT, req) ? d2d_err() : 0;
}

int d2d_wait(int hdc, uint64_t id, uint32_t timeout_ms, struct hdc_wait *w)
{
	memset(w, 0, sizeof(*w));
	w->id = id;
	w->timeout_ms = timeout_ms;
	return ioctl(hdc, HDC_IOC_WAIT, w) ? d2d_err() : 0;
}

int d2d_copy(int hdc, int src_fd, uint64_t src_off, int dst_fd,
	     uint64_t dst_off, uint64_t len, const struct d2d_chain *chain,
	     struct d2d_result *res)
{
	struct hdc_req req;
	int ret;

	d2d_req_init(&req);
	d2d_ep_fd(&req.src, src_fd, src_off);
	if (dst_fd >= 0)
		d2d_ep_fd(&req.dst, dst_fd, dst_off);
	req.length = len;
	d2d_req_chain(&req, chain);
	ret = d2d_submit(hdc, &req);
	if (ret)
		return ret;
	if (res) {
		res->len = req.result_len;
		memcpy(res->digest, req.digest, sizeof(res->digest));
	}
	return 0;
}

/* HOST:PORT (dotted IPv4, decimal port 1..65535) into @sa. */
static int d2d_inet_addr(const char *host, const char *port,
			 struct sockaddr_in *sa)
{
	char *end;
	unsigned long p = strtoul(port, &end, 10);

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	if (inet_pton(AF_INET, host, &sa->sin_addr) != 1 || !*port || *end ||
	    !p || p > 65535) {
		errno = EINVAL;
		return -EINVAL;
	}
	sa->sin_port = htons(p);
	return 0;
}

/*
 * An IPv4 socket of @type (SOCK_DGRAM: UDP, SOCK_STREAM: TCP), bound to
 * @local if given, connected to @peer if given.
 */
static int d2d_inet_socket(int type, const struct sockaddr_in *local,
			   const struct sockaddr_in *peer)
{
	int fd, e;

	fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if ((local && bind(fd, (const struct sockaddr *)local,
			   sizeof(*local))) ||
	    (peer && connect(fd, (const struct sockaddr *)peer,
			     sizeof(*peer)))) {
		e = errno;
		close(fd);
		errno = e;
		return -e;
	}
	return fd;
}

int d2d_udp_connect(const char *host, const char *port)
{
	struct sockaddr_in sa;
	int ret = d2d_inet_addr(host, port, &sa);

	return ret ? ret : d2d_inet_socket(SOCK_DGRAM, NULL, &sa);
}

int d2d_tcp_connect(const char *host, const char *port)
{
	struct sockaddr_in sa;
	int ret = d2d_inet_addr(host, port, &sa);

	return ret ? ret : d2d_inet_socket(SOCK_STREAM, NULL, &sa);
}

int d2d_udp_bind(const char *host, const char *port, const char *peer_host,
		 const char *peer_port)
{
	struct sockaddr_in sa, pa;
	int ret = d2d_inet_addr(host, port, &sa);

	if (!ret && peer_host)
		ret = d2d_inet_addr(peer_host, peer_port, &pa);
	return ret ? ret : d2d_inet_socket(SOCK_DGRAM, &sa, peer_host ? &pa : NULL);
}

int d2d_recv(int hdc, int sock, int fd, uint64_t off, uint64_t len,
	     const struct d2d_chain *chain, uint32_t timeout_ms,
	     struct d2d_result *res, struct hdc_rx_report *rep)
{
	struct hdc_req req;
	int ret;

	d2d_req_init(&req);
	d2d_ep_fd(&req.src, sock, 0);
	d2d_ep_fd(&req.dst, fd, off);
	if (fd < 0)
		req.dst.type = HDC_UEP_NONE;
	req.length = len;
	req.timeout_ms = timeout_ms;
	d2d_req_chain(&req, chain);
	ret = d2d_submit(hdc, &req);
	if (!ret && res) {
		res->len = req.result_len;
		memcpy(res->digest, req.digest, sizeof(res->digest));
	}
	if (rep)
		*rep = req.rx;
	return ret;
}

int d2d_send(int hdc, int fd, uint64_t off, uint64_t len, int sock,
	     const struct d2d_chain *chain, uint32_t flags,
	     struct d2d_result *res)
{
	struct hdc_req req;
	int ret;

	d2d_req_init(&req);
	req.flags = flags;
	d2d_ep_fd(&req.src, fd, off);
	d2d_ep_fd(&req.dst, sock, 0);
	req.length = len;
	d2d_req_chain(&req, chain);
	ret = d2d_submit(hdc, &req);
	if (!ret && res) {
		res->len = req.result_len;
		memcpy(res->digest, req.digest, sizeof(res->digest));
	}
	return ret;
}

int d2d_digest(int hdc, int fd, uint64_t off, uint64_t len, uint32_t func,
	       uint8_t out[32])
{
	struct d2d_chain chain = { .n = 1, .funcs = { func } };
	struct d2d_result res;
	int ret;

	if (!d2d_func_is_digest(func)) {
		errno = EINVAL;
		return -EINVAL;
	}
	ret = d2d_copy(hdc, fd, off, -1, 0, len, &chain, &res);
	if (!ret)
		memcpy(out, res.digest[0], 32);
	return ret;
}

static const char *const d2d_names[] = {
	[HDC_FN_CRC32C] = "crc32c",
	[HDC_FN_MD5] = "md5",
	[HDC_FN_SHA256] = "sha256",
	[HDC_FN_AES256_CTR] = "aes256-ctr",
	[HDC_FN_DEFLATE] = "deflate",
	[HDC_FN_SHA1] = "sha1",
	[HDC_FN_CRC32] = "crc32",
	[HDC_FN_GZIP] = "gzip",
};

const char *d2d_func_name(uint32_t func)
{
	if (func >= 1 && func <= HDC_FN_MAX)
		return d2d_names[func];
	return "?";
}

int d2d_func_by_name(const char *name)
{
	int f;

	for (f = 1; f <= HDC_FN_MAX; f++)
		if (!strcasecmp(name, d2d_names[f]))
			return f;
	return -1;
}

size_t d2d_digest_size(uint32_t func)
{
	switch (func) {
	case HDC_FN_CRC32C:
	case HDC_FN_CRC32:
		return 4;
	case HDC_FN_MD5:
		return 16;
	case HDC_FN_SHA1:
		return 20;
	case HDC_FN_SHA256:
		return 32;
	default:
		return 0;
	}
}

int d2d_func_is_digest(uint32_t func)
{
	return d2d_digest_size(func) != 0;
}

int d2d_func_compresses(uint32_t func)
{
	return func == HDC_FN_DEFLATE || func == HDC_FN_GZIP;
}

void d2d_digest_hex(uint32_t func, const uint8_t *digest, char *out)
{
	size_t i, n = d2d_digest_size(func);

	/* CRCs are little endian on the wire, printed as a value */
	if (func == HDC_FN_CRC32C || func == HDC_FN_CRC32) {
		uint32_t v = digest[0] | digest[1] << 8 | digest[2] << 16 |
			     (uint32_t)digest[3] << 24;

		sprintf(out, "%08x", v);
		return;
	}
	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", digest[i]);
	out[2 * n] = 0;
}

void d2d_iv_add(uint8_t iv[16], uint64_t blocks)
{
	unsigned int carry = 0;
	int i;

	for (i = 15; i >= 0; i--) {
		unsigned int v = iv[i] + (unsigned int)(blocks & 0xff) + carry;

		iv[i] = v & 0xff;
		carry = v >> 8;
		blocks >>= 8;
		if (!blocks && !carry)
			break;
	}
}
