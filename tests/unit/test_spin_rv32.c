/*
 * The sPIN HPU interpreter (qemu-devices/snic/snic-spin-rv32.c) on the
 * host: RV32IMA routines assembled by clang-14 from spin_rv32_prog.S and a
 * C workload (spin_rv32_c.c) compiled for riscv32 and natively, checked
 * for results, cycle accounting, faults, illegal instructions and the
 * watchdog.
 */
#include <stdlib.h>
#include "../lib/check.h"
#include "snic/snic-spin-rv32.h"
#include "spin_rv32_prog.h"	/* spin_prog[], SYM_* (generated) */
#include "spin_rv32_c.h"

#define CODE_BASE	0x00100000u
#define DATA_BASE	0x20000000u
#define DATA_SIZE	4096
#define STACK_BASE	0x10000000u
#define STACK_SIZE	0x10000u
#define EXIT_PC		0x0000f000u
#define DATA_COST	4
#define CODE_COST	2

static SpinRv32 cpu;
static uint8_t data[DATA_SIZE];
static uint8_t stack[STACK_SIZE];
static uint32_t mmio_stored;

static int test_mmio(SpinRv32 *c, uint32_t addr, unsigned size, bool write,
		     uint32_t *val)
{
	if (addr < 0x40000000u || addr >= 0x40000100u || size != 4)
		return 1;
	if (addr == 0x4000000cu) {
		c->abort_code = 5;
		c->abort_info = addr;
		return 2;
	}
	if (write)
		mmio_stored = *val;
	else
		*val = 42;
	c->cycles += 10;
	return 0;
}

static void setup(uint32_t entry, uint32_t arg)
{
	memset(&cpu, 0, sizeof(cpu));
	memset(data, 0, sizeof(data));
	cpu.code = spin_prog;
	cpu.code_base = CODE_BASE;
	cpu.code_size = sizeof(spin_prog);
	cpu.exit_pc = EXIT_PC;
	cpu.mmio = test_mmio;
	spin_rv32_add_window(&cpu, DATA_BASE, DATA_SIZE, data, DATA_COST, true);
	spin_rv32_add_window(&cpu, STACK_BASE, STACK_SIZE, stack, 0, true);
	spin_rv32_add_window(&cpu, CODE_BASE, sizeof(spin_prog),
			     (uint8_t *)spin_prog, CODE_COST, false);
	spin_rv32_reset(&cpu, entry);
	cpu.x[1] = EXIT_PC;
	cpu.x[2] = STACK_BASE + STACK_SIZE;
	cpu.x[10] = DATA_BASE;
	cpu.x[11] = arg;
	cpu.watchdog = 1000000;
}

static uint32_t w(unsigned off)
{
	return data[off] | data[off + 1] << 8 | data[off + 2] << 16 |
	       (uint32_t)data[off + 3] << 24;
}

static void alu(void)
{
	setup(SYM_t_alu, 0);
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_EXIT);
	CHECK_EQ(w(0), 4);
	CHECK_EQ(w(4), 10);
	CHECK_EQ(w(8), 0xf8000000u);
	CHECK_EQ(w(12), 0x08000000u);
	CHECK_EQ(w(16), 1);
	CHECK_EQ(w(20), 0);
	CHECK_EQ(w(24), 0xfffffff8u);
	CHECK_EQ(w(28), 0x12345678u);
	CHECK(w(32) > SYM_t_alu && w(32) < SYM_t_muldiv);
	CHECK_EQ(w(32), w(56));
	CHECK_EQ(w(36), 14);
	CHECK_EQ(w(40), 0xc0000000u);
	CHECK_EQ(w(44), 1);
	CHECK_EQ(w(48), 0xf0);
	CHECK_EQ(w(52), 0x80000007u);
}

static void muldiv_edges(void)
{
	uint64_t p = 123456789ull * 987654321ull;

	setup(SYM_t_muldiv, 0);
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_EXIT);
	CHECK_EQ(w(0), 0x80000000u);	/* INT_MIN / -1 overflows */
	CHECK_EQ(w(4), 0);		/* INT_MIN % -1 */
	CHECK_EQ(w(8), 0xffffffffu);	/* x / 0 = -1 */
	CHECK_EQ(w(12), 0xffffffffu);	/* x /u 0 = all ones */
	CHECK_EQ(w(16), 0x80000000u);	/* x % 0 = x */
	CHECK_EQ(w(20), 0x80000000u);
	CHECK_EQ(w(24), 0xfffffffdu);	/* -7 / 2 = -3 (toward zero) */
	CHECK_EQ(w(28), 0xffffffffu);	/* -7 % 2 = -1 */
	CHECK_EQ(w(32), 0);
	CHECK_EQ(w(36), 0xfffffffeu);
	CHECK_EQ(w(40), 0xffffffffu);
	CHECK_EQ(w(44), 0);
	CHECK_EQ(w(48), (uint32_t)p);
	CHECK_EQ(w(52), (uint32_t)(p >> 32));
	CHECK_EQ(w(56), 8);
	CHECK_EQ(w(60), 9);
}

static void branches_and_jumps(void)
{
	setup(SYM_t_branch, 10);
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_EXIT);
	CHECK_EQ(w(0), 55);
	CHECK_EQ(w(4), 2 | 8);
	CHECK(w(8) > SYM_t_branch && w(8) < SYM_t_mem && !(w(8) & 3));
	CHECK_EQ(w(12), 10);		/* jalr with bit 0 set skipped the ori */
	CHECK_EQ(w(16), 16);		/* link = jalr + 4 */
}

static void loads_stores(void)
{
	setup(SYM_t_mem, 0);
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_EXIT);
	CHECK_EQ(w(0), 0x80ff7f01u);
	CHECK_EQ(w(8), 1);
	CHECK_EQ(w(12), 0xffffff80u);
	CHECK_EQ(w(16), 0x80);
	CHECK_EQ(w(20), 0xffff80ffu);
	CHECK_EQ(w(24), 0x80ff);
	CHECK_EQ(w(28), 0xffffff01u);
	CHECK_EQ(w(32), 0xff7f01ffu);	/* misaligned halfword store */
	CHECK_EQ(w(36), 0x5580ff7fu);	/* misaligned word load */
}

static void atomics(void)
{
	setup(SYM_t_amo, 0);
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_EXIT);
	CHECK_EQ(w(4), 5);
	CHECK_EQ(w(8), 8);
	CHECK_EQ(w(12), 8);
	CHECK_EQ(w(16), 0x0f0f);
	CHECK_EQ(w(20), 0);
	CHECK_EQ(w(24), 0);
	CHECK_EQ(w(28), 0);		/* sc after lr succeeds */
	CHECK_EQ(w(32), 1);		/* second sc fails */
	CHECK_EQ(w(36), 1);		/* a store broke the reservation */
	CHECK_EQ(w(40), 5);
	setup(SYM_t_amo_misaligned, 0);
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_MEM_FAULT);
	CHECK_EQ(cpu.fault_addr, DATA_BASE + 2);
}

static void cycle_accounting(void)
{
	setup(SYM_t_cost, 0);
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_EXIT);
	CHECK_EQ(cpu.insns, 4);
	CHECK_EQ(cpu.cycles, 4 + 3 * DATA_COST);
	setup(SYM_t_load_code, 0);
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_EXIT);
	CHECK_EQ(cpu.x[10], spin_prog[SYM_t_load_code - CODE_BASE] |
		 spin_prog[SYM_t_load_code - CODE_BASE + 1] << 8 |
		 spin_prog[SYM_t_load_code - CODE_BASE + 2] << 16 |
		 (uint32_t)spin_prog[SYM_t_load_code - CODE_BASE + 3] << 24);
	CHECK_EQ(cpu.cycles, cpu.insns + CODE_COST);
	setup(SYM_t_mmio, 0);
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_EXIT);
	CHECK_EQ(cpu.x[10], 42);
	CHECK_EQ(mmio_stored, 77);
	CHECK_EQ(cpu.cycles, cpu.insns + 2 * 10);
}

static void counters_csr(void)
{
	setup(SYM_t_csr, 0);
	cpu.hartid = 0x0203;
	cpu.cycle_base = 0x100000000ull + 1000;
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_EXIT);
	CHECK_EQ(w(0), 0x0203);
	CHECK_EQ(w(4), 3);
	CHECK_EQ(w(8), 1000 + 5 + 2 * DATA_COST);
	CHECK_EQ(w(12), 1);
	setup(SYM_t_csr_write, 0);
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_ILLEGAL);
}

static void memory_faults(void)
{
	setup(SYM_t_null_load, 0);
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_MEM_FAULT);
	CHECK_EQ(cpu.fault_addr, 0);
	CHECK_EQ(cpu.fault_pc, SYM_t_null_load);
	setup(SYM_t_store_code, 0);
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_MEM_FAULT);
	CHECK_EQ(cpu.fault_addr, SYM_t_store_code);
	setup(SYM_t_edge, 0);
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_MEM_FAULT);
	CHECK_EQ(cpu.fault_addr, DATA_BASE - 2);
	/* a word straddling the window's end */
	setup(SYM_t_edge, 0);
	cpu.x[10] = DATA_BASE + DATA_SIZE + 1;
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_MEM_FAULT);
	setup(SYM_t_mmio_abort, 0);
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_ABORT);
	CHECK_EQ(cpu.abort_code, 5);
}

static void illegal_instructions(void)
{
	setup(SYM_t_illegal, 0);
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_ILLEGAL);
	CHECK_EQ(cpu.fault_pc, SYM_t_illegal);
	CHECK_EQ(cpu.fault_addr, 0);
	setup(SYM_t_ecall, 0);
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_ILLEGAL);
	CHECK_EQ(cpu.fault_addr, 0x00000073);
	setup(SYM_t_ebreak, 0);
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_ILLEGAL);
	setup(SYM_t_x0, 0);
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_EXIT);
	CHECK_EQ(cpu.x[0], 0);
	CHECK_EQ(cpu.x[10], 0);
}

static void fetch_faults(void)
{
	setup(SYM_t_wild_jump, 0);
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_FETCH_FAULT);
	CHECK_EQ(cpu.fault_addr, 0x00200000);
	setup(SYM_t_misaligned_jump, 0);
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_FETCH_FAULT);
	CHECK_EQ(cpu.fault_addr, SYM_t_loop + 2);
	/* Running off the end of the code window */
	setup(SYM_t_x0, 0);
	cpu.code_size = SYM_t_x0 - CODE_BASE + 4;
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_FETCH_FAULT);
	CHECK_EQ(cpu.fault_addr, SYM_t_x0 + 4);
}

static void watchdog_and_budget(void)
{
	setup(SYM_t_loop, 0);
	cpu.watchdog = 10000;
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_WATCHDOG);
	CHECK_EQ(cpu.cycles, 10000);
	CHECK_EQ(cpu.insns, 10000);
	CHECK_EQ(cpu.x[11], 5000);
	setup(SYM_t_loop, 0);
	CHECK_EQ(spin_rv32_run(&cpu, 100), SPIN_RV_BUDGET);
	CHECK_EQ(spin_rv32_run(&cpu, 100), SPIN_RV_BUDGET);
	CHECK_EQ(cpu.insns, 200);
}

static void c_workload(void)
{
	uint32_t ref[200];
	unsigned i, n = 200;
	uint32_t seed = 12345, want;

	setup(SYM_c_work, n);
	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		ref[i] = seed ^ (seed >> 7);
		memcpy(data + 4 * i, &ref[i], 4);
	}
	want = c_work(ref, n);
	CHECK_EQ(spin_rv32_run(&cpu, 0), SPIN_RV_EXIT);
	CHECK_EQ(cpu.x[10], want);
	for (i = 0; i < n; i++)
		CHECK_EQ(w(4 * i), ref[i]);
	CHECK(cpu.cycles > cpu.insns);
}

/*
 * Random code and random registers: every run ends with a defined status,
 * x0 stays 0, nothing outside the windows is touched (the run is also
 * clean under -fsanitize=address,undefined).
 */
static void random_code(void)
{
	static uint8_t code[1024];
	uint8_t guard[64];
	uint32_t seed = 0x5eed, i, r, k;
	unsigned status_seen = 0;

	memset(guard, 0x77, sizeof(guard));
	for (r = 0; r < 3000; r++) {
		for (i = 0; i < sizeof(code); i += 4) {
			uint32_t w;

			seed = seed * 1664525u + 1013904223u;
			w = seed;
			/* bias towards real opcodes so execution goes on */
			if (seed & 0x10000)
				w = (w & ~0x7fu) | (uint32_t[]){ 0x37, 0x17, 0x6f,
					0x67, 0x63, 0x03, 0x23, 0x13, 0x33,
					0x0f, 0x73, 0x2f }[(seed >> 20) % 12];
			if ((seed >> 8) % 32 == 0)
				w = 0x0000006f;		/* j . */
			memcpy(code + i, &w, 4);
		}
		memset(&cpu, 0, sizeof(cpu));
		cpu.code = code;
		cpu.code_base = CODE_BASE;
		cpu.code_size = sizeof(code);
		cpu.exit_pc = EXIT_PC;
		cpu.mmio = test_mmio;
		spin_rv32_add_window(&cpu, DATA_BASE, 256, data, DATA_COST, true);
		spin_rv32_add_window(&cpu, CODE_BASE, sizeof(code), code, 1,
				     false);
		spin_rv32_reset(&cpu, CODE_BASE + 4 * (seed % 64));
		for (k = 1; k < 32; k++) {
			seed = seed * 1664525u + 1013904223u;
			cpu.x[k] = k & 1 ? DATA_BASE + (seed & 0x1ff) : seed;
		}
		cpu.watchdog = 5000;
		k = spin_rv32_run(&cpu, 0);
		CHECK(k >= SPIN_RV_EXIT && k <= SPIN_RV_ABORT);
		CHECK_EQ(cpu.x[0], 0);
		CHECK(cpu.cycles <= 5000 + 10 + DATA_COST);
		status_seen |= 1u << k;
	}
	/* the mix reached faults, illegal encodings and the watchdog */
	CHECK(status_seen & (1u << SPIN_RV_ILLEGAL));
	CHECK(status_seen & (1u << SPIN_RV_MEM_FAULT));
	CHECK(status_seen & (1u << SPIN_RV_FETCH_FAULT));
	CHECK(status_seen & (1u << SPIN_RV_WATCHDOG));
	for (i = 0; i < sizeof(guard); i++)
		CHECK_EQ(guard[i], 0x77);
}

int main(void)
{
	RUN("unit/spin_rv32", alu);
	RUN("unit/spin_rv32", muldiv_edges);
	RUN("unit/spin_rv32", branches_and_jumps);
	RUN("unit/spin_rv32", loads_stores);
	RUN("unit/spin_rv32", atomics);
	RUN("unit/spin_rv32", cycle_accounting);
	RUN("unit/spin_rv32", counters_csr);
	RUN("unit/spin_rv32", memory_faults);
	RUN("unit/spin_rv32", illegal_instructions);
	RUN("unit/spin_rv32", fetch_faults);
	RUN("unit/spin_rv32", watchdog_and_budget);
	RUN("unit/spin_rv32", c_workload);
	RUN("unit/spin_rv32", random_code);
	return check_failures ? 1 : 0;
}
