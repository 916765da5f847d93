/*
 * insn-mark ID - mark a point in a guest for the insn-meter TCG plugin
 * (insn_mark.h: the no-op the plugin recognises).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "insn_mark.h"

int main(int argc, char **argv)
{
	char *end;
	long id;

	if (argc != 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fprintf(stderr, "usage: insn-mark ID   (ID 0..255)\n"
			"Records the guest instruction count at this point when QEMU\n"
			"runs with the insn-meter plugin (tools/vm --insn-count FILE).\n");
		return argc == 2 ? 0 : 2;
	}
	id = strtol(argv[1], &end, 0);
	if (*end || id < 0 || id > 255) {
		fprintf(stderr, "insn-mark: ID must be 0..255, got '%s'\n", argv[1]);
		return 2;
	}
	if (insn_mark((unsigned char)id)) {
		fprintf(stderr, "insn-mark: mmap: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
