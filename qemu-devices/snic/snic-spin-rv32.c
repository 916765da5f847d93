/*
 * snic sPIN: RV32IMA interpreter (see snic-spin-rv32.h).  Decodes and
 * executes one instruction at a time; all guest-provided values are
 * handled without undefined behaviour (shifts masked, division edge cases
 * as the ISA defines them).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "snic-spin-rv32.h"

#define CSR_CYCLE       0xc00
#define CSR_INSTRET     0xc02
#define CSR_CYCLEH      0xc80
#define CSR_INSTRETH    0xc82
#define CSR_MHARTID     0xf14

void spin_rv32_reset(SpinRv32 *cpu, uint32_t entry)
{
    memset(cpu->x, 0, sizeof(cpu->x));
    cpu->pc = entry;
    cpu->insns = 0;
    cpu->cycles = 0;
    cpu->last_win = 0;
    cpu->resv_valid = false;
    cpu->fault_pc = 0;
    cpu->fault_addr = 0;
    cpu->abort_code = 0;
    cpu->abort_info = 0;
}

void spin_rv32_add_window(SpinRv32 *cpu, uint32_t base, uint32_t size,
                          uint8_t *host, uint32_t cost, bool writable)
{
    SpinRvWindow *w;

    if (cpu->nwin >= SPIN_RV_MAX_WINDOWS || !size) {
        return;
    }
    w = &cpu->win[cpu->nwin++];
    w->base = base;
    w->size = size;
    w->host = host;
    w->cost = cost;
    w->writable = writable;
    w->access = NULL;
    w->access_opaque = NULL;
}

void spin_rv32_window_access(SpinRv32 *cpu, uint32_t base, SpinRvAccess fn,
                             void *opaque)
{
    unsigned i;

    for (i = 0; i < cpu->nwin; i++) {
        if (cpu->win[i].base == base) {
            cpu->win[i].access = fn;
            cpu->win[i].access_opaque = opaque;
        }
    }
}

static inline bool spin_rv32_in(const SpinRvWindow *w, uint32_t addr,
                                unsigned len)
{
    uint32_t off = addr - w->base;

    return addr >= w->base && off < w->size && len <= w->size - off;
}

/*
 * Host pointer for [addr, addr + len) if one window holds all of it.  The
 * window of the last hit is tried first: handlers stay in one for a while.
 */
static uint8_t *spin_rv32_map(SpinRv32 *cpu, uint32_t addr, unsigned len,
                              bool write)
{
    SpinRvWindow *w = &cpu->win[cpu->last_win];
    unsigned i;

    if (cpu->last_win >= cpu->nwin || !spin_rv32_in(w, addr, len)) {
        for (i = 0; i < cpu->nwin; i++) {
            if (spin_rv32_in(&cpu->win[i], addr, len)) {
                break;
            }
        }
        if (i == cpu->nwin) {
            return NULL;
        }
        cpu->last_win = i;
        w = &cpu->win[i];
    }
    if (write && !w->writable) {
        return NULL;
    }
    if (w->access) {
        cpu->cycles += w->access(w->access_opaque, addr - w->base,
                                 cpu->cycle_base + cpu->cycles);
    }
    cpu->cycles += w->cost;
    return w->host + (addr - w->base);
}

static uint32_t ld_le(const uint8_t *p, unsigned size)
{
    switch (size) {
    case 1:
        return p[0];
    case 2:
        return p[0] | p[1] << 8;
    default:
        return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
    }
}

static void st_le(uint8_t *p, unsigned size, uint32_t v)
{
    p[0] = v;
    if (size > 1) {
        p[1] = v >> 8;
    }
    if (size > 2) {
        p[2] = v >> 16;
        p[3] = v >> 24;
    }
}

/* 0 ok, else the SpinRvStatus to stop with. */
static int spin_rv32_load(SpinRv32 *cpu, uint32_t addr, unsigned size,
                          uint32_t *val)
{
    uint8_t *p = spin_rv32_map(cpu, addr, size, false);
    int r;

    if (p) {
        *val = ld_le(p, size);
        return 0;
    }
    r = cpu->mmio ? cpu->mmio(cpu, addr, size, false, val) : 1;
    if (r == 0) {
        return 0;
    }
    cpu->fault_addr = addr;
    return r == 2 ? SPIN_RV_ABORT : SPIN_RV_MEM_FAULT;
}

static int spin_rv32_store(SpinRv32 *cpu, uint32_t addr, unsigned size,
                           uint32_t val)
{
    uint8_t *p = spin_rv32_map(cpu, addr, size, true);
    int r;

    if (p) {
        st_le(p, size, val);
        /* Any store to the reserved word breaks an LR/SC pair. */
        if (cpu->resv_valid && addr < cpu->resv_addr + 4 &&
            cpu->resv_addr < addr + size) {
            cpu->resv_valid = false;
        }
        return 0;
    }
    r = cpu->mmio ? cpu->mmio(cpu, addr, size, true, &val) : 1;
    if (r == 0) {
        return 0;
    }
    cpu->fault_addr = addr;
    return r == 2 ? SPIN_RV_ABORT : SPIN_RV_MEM_FAULT;
}

static uint32_t spin_rv32_mulh(uint32_t a, uint32_t b, int kind)
{
    int64_t sa = (int32_t)a, sb = (int32_t)b;

    switch (kind) {
    case 1:     /* MULH */
        return (uint32_t)((uint64_t)(sa * sb) >> 32);
    case 2:     /* MULHSU */
        return (uint32_t)((uint64_t)(sa * (int64_t)(uint64_t)b) >> 32);
    default:    /* MULHU */
        return (uint32_t)(((uint64_t)a * b) >> 32);
    }
}

static uint32_t spin_rv32_muldiv(uint32_t f3, uint32_t a, uint32_t b)
{
    int32_t sa = (int32_t)a, sb = (int32_t)b;

    switch (f3) {
    case 0:
        return a * b;
    case 1:
        return spin_rv32_mulh(a, b, 1);
    case 2:
        return spin_rv32_mulh(a, b, 2);
    case 3:
        return spin_rv32_mulh(a, b, 3);
    case 4:     /* DIV */
        if (b == 0) {
            return UINT32_MAX;
        }
        if (a == 0x80000000u && sb == -1) {
            return a;
        }
        return (uint32_t)(sa / sb);
    case 5:     /* DIVU */
        return b ? a / b : UINT32_MAX;
    case 6:     /* REM */
        if (b == 0) {
            return a;
        }
        if (a == 0x80000000u && sb == -1) {
            return 0;
        }
        return (uint32_t)(sa % sb);
    default:    /* REMU */
        return b ? a % b : a;
    }
}

/* Arithmetic of OP and OP-IMM; false if the encoding is not valid. */
static bool spin_rv32_alu(uint32_t f3, uint32_t f7, bool imm, uint32_t a,
                          uint32_t b, uint32_t *out)
{
    uint32_t sh = b & 31;

    switch (f3) {
    case 0:
        if (imm || f7 == 0) {
            *out = a + b;
        } else if (f7 == 0x20) {
            *out = a - b;
        } else {
            return false;
        }
        return true;
    case 1:
        if (f7 != 0) {
            return false;
        }
        *out = a << sh;
        return true;
    case 2:
        *out = (int32_t)a < (int32_t)b;
        break;
    case 3:
        *out = a < b;
        break;
    case 4:
        *out = a ^ b;
        break;
    case 5:
        if (f7 == 0) {
            *out = a >> sh;
        } else if (f7 == 0x20) {
            /* Arithmetic shift without relying on signed >>. */
            *out = (a >> sh) | ((a & 0x80000000u) && sh ?
                                ~(UINT32_MAX >> sh) : 0);
        } else {
            return false;
        }
        return true;
    case 6:
        *out = a | b;
        break;
    default:
        *out = a & b;
        break;
    }
    return imm || f7 == 0;
}

static int spin_rv32_amo(SpinRv32 *cpu, uint32_t insn, uint32_t rd,
                         uint32_t a, uint32_t b)
{
    uint32_t f5 = insn >> 27;
    uint32_t old, nv;
    uint8_t *p;

    if (((insn >> 12) & 7) != 2) {
        return SPIN_RV_ILLEGAL;
    }
    if (a & 3) {
        cpu->fault_addr = a;
        return SPIN_RV_MEM_FAULT;
    }
    if (f5 == 0x02) {   /* LR.W */
        if ((insn >> 20) & 31) {
            return SPIN_RV_ILLEGAL;
        }
        p = spin_rv32_map(cpu, a, 4, false);
        if (!p) {
            cpu->fault_addr = a;
            return SPIN_RV_MEM_FAULT;
        }
        cpu->resv_valid = true;
        cpu->resv_addr = a;
        if (rd) {
            cpu->x[rd] = ld_le(p, 4);
        }
        return 0;
    }
    p = spin_rv32_map(cpu, a, 4, true);
    if (!p) {
        cpu->fault_addr = a;
        return SPIN_RV_MEM_FAULT;
    }
    if (f5 == 0x03) {   /* SC.W */
        bool ok = cpu->resv_valid && cpu->resv_addr == a;

        if (ok) {
            st_le(p, 4, b);
        }
        cpu->resv_valid = false;
        if (rd) {
            cpu->x[rd] = ok ? 0 : 1;
        }
        return 0;
    }
    old = ld_le(p, 4);
    switch (f5) {
    case 0x00:
        nv = old + b;
        break;
    case 0x01:
        nv = b;
        break;
    case 0x04:
        nv = old ^ b;
        break;
    case 0x08:
        nv = old | b;
        break;
    case 0x0c:
        nv = old & b;
        break;
    case 0x10:
        nv = (int32_t)old < (int32_t)b ? old : b;
        break;
    case 0x14:
        nv = (int32_t)old > (int32_t)b ? old : b;
        break;
    case 0x18:
        nv = old < b ? old : b;
        break;
    case 0x1c:
        nv = old > b ? old : b;
        break;
    default:
        return SPIN_RV_ILLEGAL;
    }
    st_le(p, 4, nv);
    if (cpu->resv_valid && cpu->resv_addr == a) {
        cpu->resv_valid = false;
    }
    if (rd) {
        cpu->x[rd] = old;
    }
    return 0;
}

/* Read-only counters through csrrs/csrrc rd, csr, x0 (and the imm forms). */
static int spin_rv32_csr(SpinRv32 *cpu, uint32_t insn, uint32_t rd)
{
    uint32_t f3 = (insn >> 12) & 7;
    uint32_t src = (insn >> 15) & 31;
    uint32_t csr = insn >> 20;
    uint64_t cyc = cpu->cycle_base + cpu->cycles;
    uint32_t v;

    if ((f3 & 3) < 2 || src != 0) {
        return SPIN_RV_ILLEGAL;     /* csrrw*, or a write attempt */
    }
    switch (csr) {
    case CSR_CYCLE:
        v = (uint32_t)cyc;
        break;
    case CSR_CYCLEH:
        v = (uint32_t)(cyc >> 32);
        break;
    case CSR_INSTRET:
        v = (uint32_t)cpu->insns;
        break;
    case CSR_INSTRETH:
        v = (uint32_t)(cpu->insns >> 32);
        break;
    case CSR_MHARTID:
        v = cpu->hartid;
        break;
    default:
        return SPIN_RV_ILLEGAL;
    }
    if (rd) {
        cpu->x[rd] = v;
    }
    return 0;
}

static int32_t imm_i(uint32_t insn)
{
    return (int32_t)insn >> 20;
}

static int32_t imm_s(uint32_t insn)
{
    return (int32_t)(((insn >> 20) & ~31u) | ((insn >> 7) & 31)) |
           ((insn & 0x80000000u) ? (int32_t)0xfffff000 : 0);
}

static int32_t imm_b(uint32_t insn)
{
    uint32_t v = ((insn >> 7) & 0x1e) | ((insn >> 20) & 0x7e0) |
                 ((insn << 4) & 0x800) | ((insn >> 19) & 0x1000);

    return (insn & 0x80000000u) ? (int32_t)(v | 0xffffe000u) : (int32_t)v;
}

static int32_t imm_j(uint32_t insn)
{
    uint32_t v = ((insn >> 20) & 0x7fe) | ((insn >> 9) & 0x800) |
                 (insn & 0xff000) | ((insn >> 11) & 0x100000);

    return (insn & 0x80000000u) ? (int32_t)(v | 0xffe00000u) : (int32_t)v;
}

/* Execute one instruction; 0 to continue or a SpinRvStatus. */
static int spin_rv32_step(SpinRv32 *cpu)
{
    uint32_t pc = cpu->pc, off = pc - cpu->code_base;
    uint32_t insn, rd, rs1v, rs2v, f3, f7, v, next = pc + 4;
    int r;

    if (pc == cpu->exit_pc) {
        return SPIN_RV_EXIT;
    }
    if ((pc & 3) || pc < cpu->code_base || off >= cpu->code_size ||
        cpu->code_size - off < 4) {
        cpu->fault_addr = pc;
        return SPIN_RV_FETCH_FAULT;
    }
    insn = cpu->code[off] | cpu->code[off + 1] << 8 |
           cpu->code[off + 2] << 16 | (uint32_t)cpu->code[off + 3] << 24;
    cpu->insns++;
    cpu->cycles++;
    rd = (insn >> 7) & 31;
    f3 = (insn >> 12) & 7;
    f7 = insn >> 25;
    rs1v = cpu->x[(insn >> 15) & 31];
    rs2v = cpu->x[(insn >> 20) & 31];

    switch (insn & 0x7f) {
    case 0x37:  /* LUI */
        v = insn & 0xfffff000u;
        break;
    case 0x17:  /* AUIPC */
        v = pc + (insn & 0xfffff000u);
        break;
    case 0x6f:  /* JAL */
        v = next;
        next = pc + imm_j(insn);
        break;
    case 0x67:  /* JALR */
        if (f3) {
            goto illegal;
        }
        v = next;
        next = (rs1v + imm_i(insn)) & ~1u;
        break;
    case 0x63: {    /* branches */
        bool t;

        switch (f3) {
        case 0:
            t = rs1v == rs2v;
            break;
        case 1:
            t = rs1v != rs2v;
            break;
        case 4:
            t = (int32_t)rs1v < (int32_t)rs2v;
            break;
        case 5:
            t = (int32_t)rs1v >= (int32_t)rs2v;
            break;
        case 6:
            t = rs1v < rs2v;
            break;
        case 7:
            t = rs1v >= rs2v;
            break;
        default:
            goto illegal;
        }
        if (t) {
            next = pc + imm_b(insn);
        }
        rd = 0;
        v = 0;
        break;
    }
    case 0x03: {    /* loads */
        unsigned size = 1u << (f3 & 3);

        if (f3 == 3 || f3 > 5) {
            goto illegal;
        }
        r = spin_rv32_load(cpu, rs1v + imm_i(insn), size, &v);
        if (r) {
            goto fault;
        }
        if (f3 == 0) {
            v = (uint32_t)(int32_t)(int8_t)v;
        } else if (f3 == 1) {
            v = (uint32_t)(int32_t)(int16_t)v;
        }
        break;
    }
    case 0x23:  /* stores */
        if (f3 > 2) {
            goto illegal;
        }
        r = spin_rv32_store(cpu, rs1v + imm_s(insn), 1u << f3, rs2v);
        if (r) {
            goto fault;
        }
        rd = 0;
        v = 0;
        break;
    case 0x13:  /* OP-IMM */
        if (f3 == 1 || f3 == 5) {
            /* shifts: imm[11:5] is the funct7 */
            if (!spin_rv32_alu(f3, f7, false, rs1v, (insn >> 20) & 31, &v)) {
                goto illegal;
            }
        } else {
            spin_rv32_alu(f3, 0, true, rs1v, (uint32_t)imm_i(insn), &v);
        }
        break;
    case 0x33:  /* OP, M extension */
        if (f7 == 1) {
            v = spin_rv32_muldiv(f3, rs1v, rs2v);
        } else if (!spin_rv32_alu(f3, f7, false, rs1v, rs2v, &v)) {
            goto illegal;
        }
        break;
    case 0x0f:  /* FENCE, FENCE.I: one HPU, nothing to order */
        if (f3 > 1) {
            goto illegal;
        }
        rd = 0;
        v = 0;
        break;
    case 0x73:  /* SYSTEM: only counter reads */
        if (f3 == 0 || f3 == 4) {
            goto illegal;       /* ecall, ebreak, wfi, mret, ... */
        }
        r = spin_rv32_csr(cpu, insn, rd);
        if (r) {
            goto illegal;
        }
        rd = 0;
        v = 0;
        break;
    case 0x2f:  /* A extension */
        r = spin_rv32_amo(cpu, insn, rd, rs1v, rs2v);
        if (r == SPIN_RV_ILLEGAL) {
            goto illegal;
        }
        if (r) {
            goto fault;
        }
        rd = 0;
        v = 0;
        break;
    default:
        goto illegal;
    }
    if (rd) {
        cpu->x[rd] = v;
    }
    cpu->pc = next;
    return 0;

illegal:
    cpu->fault_addr = insn;
    r = SPIN_RV_ILLEGAL;
fault:
    cpu->fault_pc = pc;
    return r;
}

SpinRvStatus spin_rv32_run(SpinRv32 *cpu, uint64_t budget)
{
    uint64_t n = 0;
    int r;

    for (;;) {
        if (cpu->watchdog && cpu->cycles >= cpu->watchdog) {
            cpu->fault_pc = cpu->pc;
            return SPIN_RV_WATCHDOG;
        }
        if (budget && n++ >= budget) {
            return SPIN_RV_BUDGET;
        }
        r = spin_rv32_step(cpu);
        if (r) {
            if (r == SPIN_RV_FETCH_FAULT) {
                cpu->fault_pc = cpu->pc;
            }
            return r;
        }
    }
}
