/*
 * snic sPIN: RV32IMA interpreter for handler processing units (HPUs).
 *
 * Pure C with no QEMU dependency so the host unit test
 * (tests/unit/test_spin_rv32.c) drives it directly.  Memory is a small
 * table of windows (guest address range -> host buffer, extra cycle cost,
 * writable); any other address goes to an MMIO callback (the command
 * unit) or faults.  Every instruction costs one cycle plus the window's
 * cost per access; the run stops at the exit address, a fault, an illegal
 * instruction or the watchdog.  No compressed instructions (-march=rv32ima).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_D2D_SNIC_SPIN_RV32_H
#define HW_D2D_SNIC_SPIN_RV32_H

#include <stdbool.h>
#include <stdint.h>

#define SPIN_RV_MAX_WINDOWS 8

typedef enum SpinRvStatus {
    SPIN_RV_BUDGET = 0,     /* instruction budget used up, can resume */
    SPIN_RV_EXIT,           /* jumped to exit_pc: a0 is the return code */
    SPIN_RV_FETCH_FAULT,    /* pc outside the code window or misaligned */
    SPIN_RV_MEM_FAULT,      /* load/store outside every window */
    SPIN_RV_ILLEGAL,        /* unknown encoding, ecall, ebreak, bad CSR */
    SPIN_RV_WATCHDOG,       /* cycles reached the watchdog */
    SPIN_RV_ABORT,          /* the MMIO callback asked for an abort */
} SpinRvStatus;

/*
 * A window's access hook: a load/store at byte @off of the window, issued
 * at absolute cycle @cycle (cycle_base + cycles); returns the cycles it
 * waits on top of the window's cost (e.g. for a busy memory bank).
 */
typedef uint32_t (*SpinRvAccess)(void *opaque, uint32_t off, uint64_t cycle);

typedef struct SpinRvWindow {
    uint32_t base;
    uint32_t size;
    uint8_t *host;
    uint32_t cost;          /* extra cycles per load/store */
    bool writable;
    SpinRvAccess access;    /* optional */
    void *access_opaque;
} SpinRvWindow;

struct SpinRv32;

/*
 * MMIO for addresses outside the windows.  Returns 0 and fills *val (load)
 * or consumes val (store); 1 for "no such address" (memory fault); 2 to
 * abort the handler (the callback sets abort_code/abort_info).  It may add
 * stall cycles to cpu->cycles.
 */
typedef int (*SpinRvMmio)(struct SpinRv32 *cpu, uint32_t addr, unsigned size,
                          bool write, uint32_t *val);

typedef struct SpinRv32 {
    uint32_t x[32];
    uint32_t pc;
    uint64_t insns;
    uint64_t cycles;        /* since the start of this run */
    uint64_t watchdog;      /* abort when cycles reach it (0: never) */
    uint64_t cycle_base;    /* added to cycles for the cycle CSR */
    uint32_t hartid;
    uint32_t exit_pc;

    const uint8_t *code;    /* instruction fetch window */
    uint32_t code_base;
    uint32_t code_size;
    SpinRvWindow win[SPIN_RV_MAX_WINDOWS];
    unsigned nwin;
    unsigned last_win;      /* window of the last data access */
    SpinRvMmio mmio;
    void *opaque;

    bool resv_valid;        /* LR/SC reservation */
    uint32_t resv_addr;

    /* Why the run stopped (faults) */
    uint32_t fault_pc;
    uint32_t fault_addr;    /* bad address, or the illegal instruction */
    int abort_code;         /* SPIN_RV_ABORT: set by the MMIO callback */
    uint32_t abort_info;
} SpinRv32;

/* Registers cleared, pc = entry, counters 0. */
void spin_rv32_reset(SpinRv32 *cpu, uint32_t entry);
void spin_rv32_add_window(SpinRv32 *cpu, uint32_t base, uint32_t size,
                          uint8_t *host, uint32_t cost, bool writable);
/* Run until a stop condition or @budget instructions (0: no budget). */
/* The window at @base (if any) calls @fn(@opaque, ...) on every load/store. */
void spin_rv32_window_access(SpinRv32 *cpu, uint32_t base, SpinRvAccess fn,
                             void *opaque);
SpinRvStatus spin_rv32_run(SpinRv32 *cpu, uint64_t budget);

#endif
