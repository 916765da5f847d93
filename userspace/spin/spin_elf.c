/*
 * spin_elf: ELF32 RISC-V handler images (see spin_elf.h).  Every offset
 * and size read from the file is checked against the file size before it
 * is used: a truncated or hostile file gives an error, not a crash.
 */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spin_elf.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* Little-endian readers: the host may be of any byte order. */
static uint16_t rd16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static int in_file(size_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

static void find_symtab(struct spin_elf *e, uint32_t shoff, uint16_t shnum,
			uint16_t shentsize)
{
	uint16_t i;

	if (!shoff || shentsize < sizeof(Elf32_Shdr) ||
	    !in_file(e->size, shoff, (uint64_t)shnum * shentsize))
		return;
	for (i = 0; i < shnum; i++) {
		const uint8_t *sh = e->image + shoff + (size_t)i * shentsize;
		uint32_t off = rd32(sh + offsetof(Elf32_Shdr, sh_offset));
		uint32_t sz = rd32(sh + offsetof(Elf32_Shdr, sh_size));
		uint32_t link = rd32(sh + offsetof(Elf32_Shdr, sh_link));
		const uint8_t *str;
		uint32_t soff, ssz;

		if (rd32(sh + offsetof(Elf32_Shdr, sh_type)) != SHT_SYMTAB ||
		    link >= shnum || !in_file(e->size, off, sz))
			continue;
		str = e->image + shoff + (size_t)link * shentsize;
		soff = rd32(str + offsetof(Elf32_Shdr, sh_offset));
		ssz = rd32(str + offsetof(Elf32_Shdr, sh_size));
		if (!ssz || !in_file(e->size, soff, ssz))
			continue;
		e->symtab = e->image + off;
		e->nsyms = sz / sizeof(Elf32_Sym);
		e->strtab = (const char *)e->image + soff;
		e->strsz = ssz;
		return;
	}
}

int spin_elf_parse(struct spin_elf *e, uint8_t *image, size_t size,
		   char *err, size_t errlen)
{
	const uint8_t *h = image;
	uint32_t phoff, shoff;
	uint16_t phnum, phentsize, i;

	memset(e, 0, sizeof(*e));
	e->image = image;
	e->size = size;
	if (size < sizeof(Elf32_Ehdr) || memcmp(h, ELFMAG, SELFMAG))
		return fail(err, errlen, "not an ELF file");
	if (h[EI_CLASS] != ELFCLASS32 || h[EI_DATA] != ELFDATA2LSB)
		return fail(err, errlen,
			    "not a 32-bit little-endian ELF (build with sdk/spin.mk)");
	if (rd16(h + offsetof(Elf32_Ehdr, e_machine)) != EM_RISCV)
		return fail(err, errlen, "not a RISC-V ELF (e_machine %u)",
			    rd16(h + offsetof(Elf32_Ehdr, e_machine)));
	if (rd16(h + offsetof(Elf32_Ehdr, e_type)) != ET_EXEC)
		return fail(err, errlen,
			    "not an executable (link it with sdk/spin.ld)");
	e->entry = rd32(h + offsetof(Elf32_Ehdr, e_entry));
	phoff = rd32(h + offsetof(Elf32_Ehdr, e_phoff));
	phnum = rd16(h + offsetof(Elf32_Ehdr, e_phnum));
	phentsize = rd16(h + offsetof(Elf32_Ehdr, e_phentsize));
	if (phnum && (phentsize < sizeof(Elf32_Phdr) ||
		      !in_file(size, phoff, (uint64_t)phnum * phentsize)))
		return fail(err, errlen, "program headers outside the file");
	for (i = 0; i < phnum; i++) {
		const uint8_t *ph = image + phoff + (size_t)i * phentsize;
		struct spin_elf_seg *s;
		uint32_t off;

		if (rd32(ph + offsetof(Elf32_Phdr, p_type)) != PT_LOAD)
			continue;
		if (e->nsegs == SPIN_ELF_MAX_SEGS)
			return fail(err, errlen, "more than %d loadable segments",
				    SPIN_ELF_MAX_SEGS);
		s = &e->segs[e->nsegs];
		off = rd32(ph + offsetof(Elf32_Phdr, p_offset));
		s->vaddr = rd32(ph + offsetof(Elf32_Phdr, p_vaddr));
		s->filesz = rd32(ph + offsetof(Elf32_Phdr, p_filesz));
		s->memsz = rd32(ph + offsetof(Elf32_Phdr, p_memsz));
		s->flags = rd32(ph + offsetof(Elf32_Phdr, p_flags));
		if (s->memsz < s->filesz)
			return fail(err, errlen,
				    "segment %u: memory size below file size", i);
		if (!in_file(size, off, s->filesz))
			return fail(err, errlen, "segment %u outside the file", i);
		if ((uint64_t)s->vaddr + s->memsz > 0x100000000ull)
			return fail(err, errlen,
				    "segment %u wraps the 32-bit address space", i);
		if (!s->memsz)
			continue;
		s->data = image + off;
		e->nsegs++;
	}
	if (!e->nsegs)
		return fail(err, errlen, "no loadable segment");
	shoff = rd32(h + offsetof(Elf32_Ehdr, e_shoff));
	find_symtab(e, shoff, rd16(h + offsetof(Elf32_Ehdr, e_shnum)),
		    rd16(h + offsetof(Elf32_Ehdr, e_shentsize)));
	return 0;
}

int spin_elf_load(struct spin_elf *e, const char *path, char *err,
		  size_t errlen)
{
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0, r;
	FILE *f = fopen(path, "rb");

	if (!f)
		return fail(err, errlen, "%s: %s", path, strerror(errno));
	do {
		if (n == cap) {
			uint8_t *nb;

			cap = cap ? cap * 2 : 65536;
			if (cap > (64u << 20)) {
				free(buf);
				fclose(f);
				return fail(err, errlen, "%s: larger than 64 MiB",
					    path);
			}
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return fail(err, errlen, "out of memory");
			}
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r);
	fclose(f);
	if (spin_elf_parse(e, buf, n, err, errlen)) {
		size_t l = strlen(err);

		/* Prefix the file name for the caller's message. */
		if (l + strlen(path) + 3 < errlen) {
			memmove(err + strlen(path) + 2, err, l + 1);
			memcpy(err, path, strlen(path));
			memcpy(err + strlen(path), ": ", 2);
		}
		free(buf);
		e->image = NULL;
		return -1;
	}
	return 0;
}

void spin_elf_release(struct spin_elf *e)
{
	free(e->image);
	e->image = NULL;
}

int spin_elf_sym(const struct spin_elf *e, const char *name, uint32_t *addr)
{
	uint32_t i;

	for (i = 0; i < e->nsyms; i++) {
		const uint8_t *s = e->symtab + (size_t)i * sizeof(Elf32_Sym);
		uint32_t n = rd32(s + offsetof(Elf32_Sym, st_name));
		unsigned int type = ELF32_ST_TYPE(s[offsetof(Elf32_Sym, st_info)]);

		if (n >= e->strsz || (type != STT_FUNC && type != STT_OBJECT &&
				      type != STT_NOTYPE))
			continue;
		if (strnlen(e->strtab + n, e->strsz - n) == e->strsz - n)
			continue;	/* not terminated inside the table */
		if (!strcmp(e->strtab + n, name) &&
		    rd16(s + offsetof(Elf32_Sym, st_shndx)) != SHN_UNDEF) {
			*addr = rd32(s + offsetof(Elf32_Sym, st_value));
			return 0;
		}
	}
	return -1;
}
