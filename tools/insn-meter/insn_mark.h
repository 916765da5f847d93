/*
 * insn_mark(ID): mark a point in a guest for the insn-meter TCG plugin.
 *
 * Executes the no-op 0f 1f 84 00 44 32 44 ID; the plugin records the
 * instruction count at that point as "mark ID COUNT".  The no-op is written
 * into a fresh executable page because ID is part of its encoding.
 * Returns 0, or -1 with errno set if the page cannot be mapped.
 */
#ifndef D2D_INSN_MARK_H
#define D2D_INSN_MARK_H

#include <string.h>
#include <sys/mman.h>

static inline int insn_mark(unsigned char id)
{
	static const unsigned char tmpl[] = {
		0x0f, 0x1f, 0x84, 0x00, 0x44, 0x32, 0x44, 0x00,	/* nopl */
		0xc3,						/* ret */
	};
	unsigned char *page;

	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return -1;
	memcpy(page, tmpl, sizeof(tmpl));
	page[7] = id;
	((void (*)(void))page)();
	munmap(page, 4096);
	return 0;
}

#endif
