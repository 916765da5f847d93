// SPDX-License-Identifier: GPL-2.0
/*
 * snic-ctx-hog: open user contexts of one RDMA device (ibv_open_device)
 * until the kernel refuses one, print "held N (errno text)", keep them
 * until stdin reaches end of file, then close them and print "released".
 * Used to check that users cannot take the doorbell pages the driver
 * keeps for its own queues (tests/guest/snic_db_reserve.sh).
 *
 * usage: snic-ctx-hog -d DEV [-m MAX]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

int main(int argc, char **argv)
{
	struct ibv_device **l, *dev = NULL;
	struct ibv_context **ctx;
	const char *name = NULL;
	int c, i, n = 0, max = 1024, err = 0;
	char line[64];

	while ((c = getopt(argc, argv, "d:m:")) != -1) {
		switch (c) {
		case 'd': name = optarg; break;
		case 'm': max = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: snic-ctx-hog -d DEV [-m MAX]\n");
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
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin))
		;
	for (i = 0; i < n; i++)
		ibv_close_device(ctx[i]);
	ibv_free_device_list(l);
	printf("released\n");
	return 0;
}
