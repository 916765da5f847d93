// SPDX-License-Identifier: GPL-2.0
/*
 * snic-ctx-hog: open user contexts of one RDMA device (ibv_open_device)
 * until the kernel refuses one, print "held N (errno text)", keep them
 * until stdin reaches end of file, then close them and print "released".
 * Used to check that users cannot take the doorbell pages the driver
 * keeps for its own queues (tests/guest/snic_db_reserve.sh).
 *
 * With -r, after the refusal it opens one more context the way a process
 * without libsnic can, with the uverbs write() commands: the kernel makes
 * it without a doorbell page (SNIC_UCTX_F_NO_DB, db_page = the errno)
 * and must refuse a CQ on it.  Prints "raw: no_db ERRNO create_cq TEXT".
 *
 * usage: snic-ctx-hog -d DEV [-m MAX] [-r]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <d2d/snic_verbs_abi.h>

/* One uverbs write() command: header, command, no driver input. */
static int uverbs_cmd(int fd, uint32_t op, void *cmd, size_t len,
		      size_t out_len)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		uint8_t cmd[64];
	} w = {};

	w.hdr.command = op;
	w.hdr.in_words = (sizeof(w.hdr) + len) / 4;
	w.hdr.out_words = out_len / 4;
	memcpy(w.cmd, cmd, len);
	if (write(fd, &w, sizeof(w.hdr) + len) < 0)
		return errno;
	return 0;
}

/* -r: a context without libsnic, then a CQ on it. */
static int raw_context(struct ibv_device *dev)
{
	struct {
		struct ib_uverbs_get_context_resp core;
		struct snic_alloc_ucontext_resp drv;
	} ctx_resp = {};
	struct {
		struct ib_uverbs_create_cq_resp core;
		struct snic_create_cq_resp drv;
	} cq_resp = {};
	struct ib_uverbs_get_context gc = {};
	struct ib_uverbs_create_cq cq = {};
	char path[96];
	int fd, ret;

	snprintf(path, sizeof(path), "/dev/infiniband/%s", dev->dev_name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	gc.response = (uintptr_t)&ctx_resp;
	ret = uverbs_cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &gc, sizeof(gc),
			 sizeof(ctx_resp));
	if (ret) {
		printf("raw: get_context %s\n", strerror(ret));
		close(fd);
		return 1;
	}
	cq.response = (uintptr_t)&cq_resp;
	cq.cqe = 16;
	cq.comp_channel = -1;
	ret = uverbs_cmd(fd, IB_USER_VERBS_CMD_CREATE_CQ, &cq, sizeof(cq),
			 sizeof(cq_resp));
	printf("raw: no_db %u create_cq %s\n",
	       ctx_resp.drv.flags & SNIC_UCTX_F_NO_DB ? ctx_resp.drv.db_page : 0,
	       ret ? strerror(ret) : "created");
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_device **l, *dev = NULL;
	struct ibv_context **ctx;
	const char *name = NULL;
	int c, i, n = 0, max = 1024, err = 0, raw = 0, rc = 0;
	char line[64];

	while ((c = getopt(argc, argv, "d:m:r")) != -1) {
		switch (c) {
		case 'd': name = optarg; break;
		case 'm': max = atoi(optarg); break;
		case 'r': raw = 1; break;
		default:
			fprintf(stderr, "usage: snic-ctx-hog -d DEV [-m MAX] [-r]\n");
			return 2;
		}
	}
	l = ibv_get_device_list(NULL);
	for (i = 0; name && l && l[i]; i++)
		if (!strcmp(ibv_get_device_name(l[i]), name))
			dev = l[i];
	ctx = calloc(max > 0 ? max : 1, sizeof(*ctx));
	if (!dev || !ctx) {
		fprintf(stderr, "snic-ctx-hog: no device %s\n", name ? name : "");
		return 2;
	}
	while (n < max) {
		ctx[n] = ibv_open_device(dev);
		if (!ctx[n]) {
			err = errno;
			break;
		}
		n++;
	}
	printf("held %d (%s)\n", n, err ? strerror(err) : "limit reached");
	if (raw)
		rc = raw_context(dev);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin))
		;
	for (i = 0; i < n; i++)
		ibv_close_device(ctx[i]);
	ibv_free_device_list(l);
	printf("released\n");
	return rc;
}
