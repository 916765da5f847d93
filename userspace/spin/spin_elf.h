/*
 * spin_elf: reads a sPIN handler image, an ELF32 little-endian RISC-V
 * executable built with the SDK (sdk/spin.mk), without libelf: its PT_LOAD
 * segments (what goes into program and handler memory) and the addresses
 * of named symbols (the handler entry points).
 */
#ifndef SPIN_ELF_H
#define SPIN_ELF_H

#include <stddef.h>
#include <stdint.h>

#define SPIN_ELF_MAX_SEGS	16

struct spin_elf_seg {
	uint32_t vaddr;
	uint32_t filesz;
	uint32_t memsz;		/* >= filesz; the rest is zero (.bss) */
	uint32_t flags;		/* PF_R/PF_W/PF_X */
	const uint8_t *data;	/* filesz bytes inside the image */
};

struct spin_elf {
	uint8_t *image;		/* the whole file */
	size_t size;
	uint32_t entry;
	int nsegs;
	struct spin_elf_seg segs[SPIN_ELF_MAX_SEGS];
	/* symbol table, when the file has one */
	const uint8_t *symtab;
	uint32_t nsyms;
	const char *strtab;
	uint32_t strsz;
};

/*
 * Parse @size bytes at @image (the struct keeps the pointer; the caller
 * frees it after spin_elf_release).  Returns 0 or -1 with a reason in
 * @err (@errlen bytes).
 */
int spin_elf_parse(struct spin_elf *e, uint8_t *image, size_t size,
		   char *err, size_t errlen);
/* Read the file at @path and parse it; spin_elf_release frees it. */
int spin_elf_load(struct spin_elf *e, const char *path, char *err,
		  size_t errlen);
void spin_elf_release(struct spin_elf *e);
/* Address of the function or object @name: 0 found, -1 not. */
int spin_elf_sym(const struct spin_elf *e, const char *name, uint32_t *addr);

#endif
