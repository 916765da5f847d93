// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * crc32c - the CRC32C (Castagnoli) of files computed by the CPU, printed
 * as 'd2d digest --crc32c' prints the engine's: "<8 hex digits>  FILE".
 * The software reference of the tests ('d2d recv --crc32c').
 *   crc32c FILE...
 * Exit status 0 ok, 1 a file could not be read, 2 usage.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "crc32c.h"

int main(int argc, char **argv)
{
	static unsigned char buf[1 << 16];
	int i, fd, ret = 0;
	ssize_t n;

	if (argc < 2) {
		fprintf(stderr, "usage: crc32c FILE...\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		uint32_t crc = crc32c_init();

		fd = open(argv[i], O_RDONLY);
		if (fd < 0) {
			perror(argv[i]);
			ret = 1;
			continue;
		}
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			crc = crc32c_update(crc, buf, n);
		close(fd);
		if (n < 0) {
			perror(argv[i]);
			ret = 1;
			continue;
		}
		printf("%08x  %s\n", crc32c_final(crc), argv[i]);
	}
	return ret;
}
