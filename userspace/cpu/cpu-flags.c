// SPDX-License-Identifier: GPL-2.0
/*
 * cpu-flags: does CMPXCHG8B/CMPXCHG16B leave RFLAGS as the architecture
 * says?  The instruction writes ZF (set if the compare matched) and leaves
 * CF, PF, AF, SF and OF as they were.
 *
 * Each case runs one straight-line block: POPF (which ends QEMU's
 * translation block, so the emulated CPU's saved condition-code state is
 * "a flags image"), a SUB of two equal registers holding a large value
 * (ZF and PF set, the value as the SUB's source operand), the instruction
 * under test, PUSHF.  The same block with a NOP instead of the instruction
 * gives the flags to expect: those of the SUB, with ZF as the compare went.
 * An emulator that computes the old flags inside the instruction from a
 * stale condition-code state hands back the SUB's source operand as flags
 * (docs/timing.md, "The double fault in timing mode").
 *
 * Usage: cpu-flags CASE, CASE one of the names in cases[] below.  Prints
 * "ok CASE flags 0x..." and exits 0, or prints what differs and exits 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define FLAG_ZF 0x40ul
/* Kept out of the bits the flags image may carry: no TF, IF, IOPL, VM. */
#define BIG 0xa5400000ul

struct regs {
	uint64_t rax, rdx, rbx, rcx;
};

static uint64_t mem[2] __attribute__((aligned(16)));

/*
 * The block for INSN; the red zone is stepped over (PUSHF/POPF use the
 * stack).  One function per instruction, each aligned so that its block
 * does not cross a page (a page boundary would end the translation block
 * between the SUB and INSN).
 */
#define FLAGS_BLOCK(fn, insn)						\
static __attribute__((noinline, aligned(256)))				\
uint64_t fn(struct regs *r)						\
{									\
	uint64_t out, f0 = 0x202;					\
	asm volatile("leaq -128(%%rsp), %%rsp\n\t"			\
		     "pushq %[f0]\n\t"					\
		     "popfq\n\t"					\
		     "movq %[big], %%r8\n\t"				\
		     "movq %%r8, %%r9\n\t"				\
		     "subq %%r8, %%r9\n\t"				\
		     insn "\n\t"					\
		     "pushfq\n\t"					\
		     "popq %[out]\n\t"					\
		     "leaq 128(%%rsp), %%rsp\n\t"			\
		     : [out] "=&r"(out), "+a"(r->rax), "+d"(r->rdx),	\
		       "+m"(mem)					\
		     : [f0] "r"(f0), [big] "r"(BIG), "b"(r->rbx),	\
		       "c"(r->rcx), "D"(mem)				\
		     : "r8", "r9", "cc", "memory");			\
	return out;							\
}

FLAGS_BLOCK(run_nop, "nop")
FLAGS_BLOCK(run_cmpxchg16b, "cmpxchg16b (%%rdi)")
FLAGS_BLOCK(run_lock_cmpxchg16b, "lock cmpxchg16b (%%rdi)")
FLAGS_BLOCK(run_cmpxchg8b, "cmpxchg8b (%%rdi)")
FLAGS_BLOCK(run_lock_cmpxchg8b, "lock cmpxchg8b (%%rdi)")

struct flags_case {
	const char *name;
	uint64_t (*run)(struct regs *r);
	int wide;	/* 16-byte operand (else 8) */
	int match;	/* EDX:EAX (RDX:RAX) equals the memory operand */
};

static const struct flags_case cases[] = {
	{ "cmpxchg16b", run_cmpxchg16b, 1, 1 },
	{ "cmpxchg16b_fail", run_cmpxchg16b, 1, 0 },
	{ "lock_cmpxchg16b", run_lock_cmpxchg16b, 1, 1 },
	{ "lock_cmpxchg16b_fail", run_lock_cmpxchg16b, 1, 0 },
	{ "cmpxchg8b", run_cmpxchg8b, 0, 1 },
	{ "cmpxchg8b_fail", run_cmpxchg8b, 0, 0 },
	{ "lock_cmpxchg8b", run_lock_cmpxchg8b, 0, 1 },
	{ "lock_cmpxchg8b_fail", run_lock_cmpxchg8b, 0, 0 },
};

static int run_case(const struct flags_case *c)
{
	const uint64_t lo = 0x11112222u, hi = 0x33334444u;
	struct regs r = { .rax = lo, .rdx = hi, .rbx = 0x5555u, .rcx = 0x6666u };
	uint64_t want, got;

	want = run_nop(&r);
	if (c->wide) {
		mem[0] = lo;
		mem[1] = hi;
	} else {
		mem[0] = hi << 32 | lo;
	}
	if (!c->match)
		r.rax = lo + 1;
	got = c->run(&r);
	want = (want & ~FLAG_ZF) | (c->match ? FLAG_ZF : 0);
	if (got != want) {
		printf("%s: flags 0x%llx after the instruction, want 0x%llx (bits 0x%llx differ)\n",
		       c->name, (unsigned long long)got,
		       (unsigned long long)want,
		       (unsigned long long)(got ^ want));
		return 1;
	}
	if (r.rax != lo) {
		printf("%s: rax 0x%llx after the instruction, want 0x%llx\n",
		       c->name, (unsigned long long)r.rax,
		       (unsigned long long)lo);
		return 1;
	}
	printf("ok %s flags 0x%llx\n", c->name, (unsigned long long)got);
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;

	for (i = 0; argc == 2 && i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!strcmp(argv[1], cases[i].name))
			return run_case(&cases[i]);
	fprintf(stderr, "usage: cpu-flags CASE; CASE is one of:");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		fprintf(stderr, " %s", cases[i].name);
	fprintf(stderr, "\n");
	return 2;
}
