/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test lines of the single-file RDMA test programs (snic-dv-test,
 * snic-ts-test, snic-llq-test): check() prints "PASS PREFIX/name" or
 * "FAIL PREFIX/name: why" and counts it; the program ends with
 * "N passed, N failed".  Define TEST_LINES_PREFIX (the default prefix,
 * changed by -P) before including it.  two_devs() reads the options of
 * the two-device programs.
 */
#ifndef RDMA_TEST_TEST_LINES_H
#define RDMA_TEST_TEST_LINES_H

#include <stdio.h>
#include <unistd.h>

static int passed, failed;
static const char *prefix = TEST_LINES_PREFIX;

static void check(const char *name, int ok, const char *why)
{
	if (ok) {
		printf("PASS %s/%s\n", prefix, name);
		passed++;
	} else {
		printf("FAIL %s/%s: %s\n", prefix, name, why);
		failed++;
	}
}

/* -d DEV -e DEV2 [-P PREFIX]: 0 when both devices were named. */
static __attribute__((unused)) int two_devs(int argc, char **argv,
					    const char **na, const char **nb)
{
	int opt;

	while ((opt = getopt(argc, argv, "d:e:P:")) != -1) {
		if (opt == 'd')
			*na = optarg;
		else if (opt == 'e')
			*nb = optarg;
		else if (opt == 'P')
			prefix = optarg;
	}
	return *na && *nb ? 0 : -1;
}

#endif
