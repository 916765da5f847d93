/*
 * insn-mark ID - mark a point in a guest for the insn-meter TCG plugin.
 *
 * Executes the no-op 0f 1f 84 00 44 32 44 ID; the plugin records the
 * instruction count at that point as "mark ID COUNT".  The no-op is written
 * into a fresh executable page because ID is part of its encoding.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	static const unsigned char tmpl[] = {
		0x0f, 0x1f, 0x84, 0x00, 0x44, 0x32, 0x44, 0x00,	/* nopl */
		0xc3,						/* ret */
	};
	unsigned char *page;
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
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		fprintf(stderr, "insn-mark: mmap: %s\n", strerror(errno));
		return 1;
	}
	memcpy(page, tmpl, sizeof(tmpl));
	page[7] = (unsigned char)id;
	((void (*)(void))page)();
	munmap(page, 4096);
	return 0;
}
