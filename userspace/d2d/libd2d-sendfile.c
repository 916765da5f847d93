// SPDX-License-Identifier: GPL-2.0
/*
 * libd2d-sendfile.so: LD_PRELOAD it into a stock application and its
 * sendfile(2) from a regular file to a connected TCP/IPv4 socket becomes
 * one d2d transfer (docs/hdc.md, "TCP hand-over"): the HDC engine reads
 * the file from its SSD and sends it as the connection's own segments.
 * Whenever d2d cannot serve the call - fewer than D2D_SENDFILE_MIN bytes
 * (default 65536), not a regular file or not a TCP/IPv4 socket, no
 * /dev/hdc, no CAP_NET_RAW, a file not on the engine's SSD, an engine
 * without TCP, a send queue that does not drain - the real sendfile(2)
 * runs instead, so the application sees sendfile's semantics either way.
 * Errors of a transfer the engine started (the peer reset, timed out,
 * the NIC went away) are returned as sendfile errors.
 *
 * D2D_SENDFILE_LOG=FILE appends one line per call: "d2d BYTES" or
 * "fallback BYTES ERRNO-NAME" (why d2d did not serve it).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "libd2d.h"

typedef ssize_t sendfile_fn(int, int, off_t *, size_t);

static int engine = -1;		/* /dev/hdc, opened on first use */
static pid_t engine_pid;	/* ... by this process (not a parent) */
static const char *log_path;	/* D2D_SENDFILE_LOG */
static size_t min_bytes = 65536;	/* D2D_SENDFILE_MIN */

/*
 * The settings, read when the library is loaded: applications such as
 * nginx replace their environment before their workers call sendfile.
 */
__attribute__((constructor)) static void d2d_sendfile_init(void)
{
	const char *v = getenv("D2D_SENDFILE_MIN");

	if (v)
		min_bytes = strtoull(v, NULL, 0);
	v = getenv("D2D_SENDFILE_LOG");
	if (v)
		log_path = strdup(v);
}

static void note(const char *what, size_t n, int err)
{
	const char *path = log_path;
	char line[96];
	int fd, len;

	if (!path)
		return;
	len = snprintf(line, sizeof(line), "%s %zu%s%s\n", what, n,
		       err ? " " : "", err ? strerrorname_np(err) : "");
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, len) != len)
		len = -1;
	close(fd);
}

/* A connected TCP/IPv4 socket? */
static int is_tcp4(int fd)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int v;
	socklen_t vl = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &v, &vl) || v != IPPROTO_TCP)
		return 0;
	return !getsockname(fd, (struct sockaddr *)&sa, &len) &&
	       sa.sin_family == AF_INET;
}

/* Errors with which nothing was sent: the real sendfile may still. */
static int d2d_refused(int err)
{
	switch (err) {
	case EPERM: case EOPNOTSUPP: case EXDEV: case EINVAL: case ENODEV:
	case EPROTONOSUPPORT: case ENOTCONN: case EBUSY: case ENOENT:
	case EACCES: case ENOTTY: case EHOSTUNREACH: case ENETUNREACH:
	case EISDIR: case EBADF: case ENOMEM:
		return 1;
	default:
		return 0;
	}
}

/*
 * The d2d transfer of @count bytes at *@off: the bytes sent (then *@off
 * advanced), or -1 with errno; *@refused: d2d did not try or sent nothing.
 */
static ssize_t d2d_sendfile(int out_fd, int in_fd, off_t *off, size_t count,
			    int *refused)
{
	struct stat st;
	struct d2d_result res;
	int ret;

	*refused = 1;
	if (fstat(in_fd, &st) || !S_ISREG(st.st_mode)) {
		errno = EINVAL;
		return -1;
	}
	if (*off < 0 || *off >= st.st_size) {
		errno = EINVAL;
		return -1;
	}
	if ((off_t)count > st.st_size - *off)
		count = st.st_size - *off;
	if (count < min_bytes) {
		errno = EMSGSIZE;
		return -1;
	}
	if (!is_tcp4(out_fd)) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	if (engine < 0 || engine_pid != getpid()) {
		engine = open("/dev/hdc", O_RDWR | O_CLOEXEC);
		engine_pid = getpid();
		if (engine < 0)
			return -1;
	}
	ret = d2d_send(engine, in_fd, *off, count, out_fd, NULL, 0, &res);
	if (ret) {
		*refused = d2d_refused(-ret);
		errno = -ret;
		return -1;
	}
	*refused = 0;
	*off += count;
	return count;
}

static ssize_t do_sendfile(sendfile_fn *real, int out_fd, int in_fd,
			   off_t *offset, size_t count)
{
	off_t pos = offset ? *offset : lseek(in_fd, 0, SEEK_CUR);
	int refused, e;
	ssize_t n;

	if (pos >= 0) {
		n = d2d_sendfile(out_fd, in_fd, &pos, count, &refused);
		if (n >= 0) {
			if (offset)
				*offset = pos;
			else
				lseek(in_fd, pos, SEEK_SET);
			note("d2d", n, 0);
			return n;
		}
		if (!refused) {
			e = errno;
			note("error", count, e);
			errno = e;
			return -1;
		}
		note("fallback", count, errno);
	}
	return real(out_fd, in_fd, offset, count);
}

#define D2D_EXPORT __attribute__((visibility("default")))

D2D_EXPORT ssize_t sendfile(int out_fd, int in_fd, off_t *offset, size_t count)
{
	static sendfile_fn *real;

	if (!real)
		real = (sendfile_fn *)dlsym(RTLD_NEXT, "sendfile");
	return do_sendfile(real, out_fd, in_fd, offset, count);
}

D2D_EXPORT ssize_t sendfile64(int out_fd, int in_fd, off_t *offset,
			      size_t count)
{
	static sendfile_fn *real;

	if (!real)
		real = (sendfile_fn *)dlsym(RTLD_NEXT, "sendfile64");
	return do_sendfile(real, out_fd, in_fd, offset, count);
}
