// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cfr - copy a file in the kernel with copy_file_range(2) (default) or
 * sendfile(2): the CPU baselines of 'make bench-hdc' besides cp.
 *   cfr [--sendfile] SRC DST
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int use_sendfile = 0, sfd, dfd;
	struct stat st;
	off_t left;

	if (argc > 1 && !strcmp(argv[1], "--sendfile")) {
		use_sendfile = 1;
		argc--;
		argv++;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: cfr [--sendfile] SRC DST\n");
		return 2;
	}
	sfd = open(argv[1], O_RDONLY);
	if (sfd < 0 || fstat(sfd, &st)) {
		fprintf(stderr, "cfr: %s: %s\n", argv[1], strerror(errno));
		if (sfd >= 0)
			close(sfd);
		return 1;
	}
	dfd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, st.st_mode & 0777);
	if (dfd < 0) {
		fprintf(stderr, "cfr: %s: %s\n", argv[2], strerror(errno));
		close(sfd);
		return 1;
	}
	for (left = st.st_size; left > 0;) {
		ssize_t n = use_sendfile ?
			sendfile(dfd, sfd, NULL, left > (1 << 30) ? (1 << 30) : left) :
			copy_file_range(sfd, NULL, dfd, NULL, left, 0);

		if (n <= 0) {
			fprintf(stderr, "cfr: %s: %s\n",
				use_sendfile ? "sendfile" : "copy_file_range",
				n ? strerror(errno) : "unexpected end of file");
			close(sfd);
			close(dfd);
			return 1;
		}
		left -= n;
	}
	close(sfd);
	return close(dfd) ? 1 : 0;
}
