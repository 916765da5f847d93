/*
 * snic sPIN: the HPU command unit - descriptor registers, issue, test and
 * wait of DMA to/from host memory (inside the context's registered
 * regions), packet send with checksum offload, host-direct writes and
 * atomics on handler memory.  A command's effect happens at issue; its
 * modeled completion cycle is what STATUS and WAIT observe.
 * docs/snic-spin.md "Command unit".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "snic.h"

/* Host pointer for the HPU range [addr, addr + len) in one data window. */
static uint8_t *snic_spin_local(SpinRv32 *cpu, uint32_t addr, uint32_t len,
                                bool write)
{
    unsigned i;

    for (i = 0; i < cpu->nwin; i++) {
        SpinRvWindow *w = &cpu->win[i];
        uint32_t off = addr - w->base;

        if (addr >= w->base && off < w->size && len <= w->size - off) {
            return write && !w->writable ? NULL : w->host + off;
        }
    }
    return NULL;
}

static bool snic_spin_region_ok(SnicSpinCtx *ctx, uint64_t a, uint64_t len,
                                uint32_t need)
{
    unsigned i;

    for (i = 0; i < SNIC_SPIN_MAX_REGIONS; i++) {
        SnicSpinRegion *r = &ctx->regions[i];

        if (r->valid && (r->flags & need) == need && a >= r->addr &&
            len <= r->len && a - r->addr <= r->len - len) {
            return true;
        }
    }
    return false;
}

/* Abort the handler: event type @ev, the command's opcode and address. */
static int snic_spin_cmd_abort(SnicSpinRun *run, int ev, uint32_t op,
                               uint32_t addr, const char *why)
{
    qemu_log_mask(LOG_GUEST_ERROR, "snic: spin ctx %u: command %u: %s\n",
                  run->ctx_id, op, why);
    run->cpu.abort_code = ev;
    run->cpu.abort_info = op;
    run->ev_addr = addr;
    return 2;
}

/* Run the descriptor; 0 and the cost in cycles, or 2 (abort). */
static int snic_spin_cmd_exec(SnicSpinRun *run, SnicSpinSlot *slot,
                              uint64_t *cost)
{
    SnicState *s = run->s;
    SnicSpinCtx *ctx = run->ctx;
    const uint32_t *d = run->hpu->desc;
    struct spin_cmd c;
    uint64_t host;
    uint8_t *p;
    unsigned i;

    c.op = d[0];
    c.flags = d[1];
    c.local = d[2];
    c.len = d[3];
    c.host_lo = d[4];
    c.host_hi = d[5];
    c.arg0 = d[6];
    c.arg1 = d[7];
    for (i = 0; i < sizeof(c.imm); i++) {
        c.imm[i] = d[8 + i / 4] >> (8 * (i % 4));
    }
    host = (uint64_t)c.host_hi << 32 | c.host_lo;
    ctx->commands++;

    switch (c.op) {
    case SPIN_CMD_DMA_TO_HOST:
    case SPIN_CMD_DMA_FROM_HOST: {
        bool to_host = c.op == SPIN_CMD_DMA_TO_HOST;
        MemTxResult r;

        if (c.len == 0 || c.len > SPIN_DMA_MAX || c.flags) {
            return snic_spin_cmd_abort(run, SNIC_SPIN_EV_CMD_FAULT, c.op,
                                       c.len, "bad DMA length or flags");
        }
        p = snic_spin_local(&run->cpu, c.local, c.len, !to_host);
        if (!p) {
            return snic_spin_cmd_abort(run, SNIC_SPIN_EV_CMD_FAULT, c.op,
                                       c.local, "local buffer outside windows");
        }
        if (!snic_spin_region_ok(ctx, host, c.len, to_host ?
                                 SNIC_SPIN_REGION_WRITE :
                                 SNIC_SPIN_REGION_READ)) {
            return snic_spin_cmd_abort(run, SNIC_SPIN_EV_DMA_FAULT, c.op,
                                       c.host_lo, "outside registered regions");
        }
        r = to_host ?
            d2d_dma_write(&s->parent_obj, &s->pcie, NULL, host, p, c.len) :
            d2d_dma_read(&s->parent_obj, &s->pcie, NULL, host, p, c.len);
        if (r != MEMTX_OK) {
            s->stats.dma_errs++;
            return snic_spin_cmd_abort(run, SNIC_SPIN_EV_DMA_FAULT, c.op,
                                       c.host_lo, "DMA failed");
        }
        ctx->cmd_dma_bytes += c.len;
        *cost = (to_host ? SNIC_SPIN_COST_DMA_WRITE : SNIC_SPIN_COST_DMA_READ) +
                c.len / SNIC_SPIN_DMA_BYTES_PER_CYCLE;
        return 0;
    }
    case SPIN_CMD_SEND:
        if (ctx->no_send) {
            return snic_spin_cmd_abort(run, SNIC_SPIN_EV_CMD_FAULT, c.op,
                                       c.len, "sending not permitted");
        }
        if (c.len < SNIC_ETH_HLEN || c.len > SPIN_PKT_MAX ||
            (c.flags & ~(SPIN_SEND_CSUM_L3 | SPIN_SEND_CSUM_L4))) {
            return snic_spin_cmd_abort(run, SNIC_SPIN_EV_CMD_FAULT, c.op,
                                       c.len, "bad send length or flags");
        }
        p = snic_spin_local(&run->cpu, c.local, c.len, false);
        if (!p) {
            return snic_spin_cmd_abort(run, SNIC_SPIN_EV_CMD_FAULT, c.op,
                                       c.local, "frame outside windows");
        }
        memcpy(s->spin.frame, p, c.len);
        /* SPIN_SEND_CSUM_* have the values of SNIC_ETH_CS_*. */
        if (!snic_tx_frame_out(s, s->spin.frame, c.len, c.flags)) {
            return snic_spin_cmd_abort(run, SNIC_SPIN_EV_CMD_FAULT, c.op,
                                       c.len, "frame longer than the MTU");
        }
        ctx->sends++;
        ctx->cmd_dma_bytes += c.len;
        *cost = SNIC_SPIN_COST_SEND + c.len / SNIC_SPIN_DMA_BYTES_PER_CYCLE;
        return 0;
    case SPIN_CMD_HOST_WRITE:
        if (c.len == 0 || c.len > SPIN_HOST_WRITE_MAX || c.flags) {
            return snic_spin_cmd_abort(run, SNIC_SPIN_EV_CMD_FAULT, c.op,
                                       c.len, "bad host write length");
        }
        if (!snic_spin_region_ok(ctx, host, c.len, SNIC_SPIN_REGION_WRITE)) {
            return snic_spin_cmd_abort(run, SNIC_SPIN_EV_DMA_FAULT, c.op,
                                       c.host_lo, "outside registered regions");
        }
        if (d2d_dma_write(&s->parent_obj, &s->pcie, NULL, host, c.imm,
                          c.len) != MEMTX_OK) {
            s->stats.dma_errs++;
            return snic_spin_cmd_abort(run, SNIC_SPIN_EV_DMA_FAULT, c.op,
                                       c.host_lo, "DMA failed");
        }
        ctx->host_writes++;
        *cost = SNIC_SPIN_COST_HOST_WRITE;
        return 0;
    case SPIN_CMD_ATOMIC: {
        uint32_t off = c.local - SPIN_HMEM_BASE, old, nv;

        if (c.flags > SPIN_ATOMIC_MAXU || (c.local & 3) ||
            c.local < SPIN_HMEM_BASE || off >= ctx->hmem_size ||
            ctx->hmem_size - off < 4) {
            return snic_spin_cmd_abort(run, SNIC_SPIN_EV_CMD_FAULT, c.op,
                                       c.local, "bad atomic");
        }
        p = s->spin.l2h + ctx->hmem_off + off;
        old = ldl_le_p(p);
        switch (c.flags) {
        case SPIN_ATOMIC_ADD:
            nv = old + c.arg0;
            break;
        case SPIN_ATOMIC_SWAP:
            nv = c.arg0;
            break;
        case SPIN_ATOMIC_CAS:
            nv = old == c.arg1 ? c.arg0 : old;
            break;
        case SPIN_ATOMIC_AND:
            nv = old & c.arg0;
            break;
        case SPIN_ATOMIC_OR:
            nv = old | c.arg0;
            break;
        default:
            nv = MAX(old, c.arg0);
            break;
        }
        stl_le_p(p, nv);
        slot->result = old;
        ctx->atomics++;
        *cost = SNIC_SPIN_COST_ATOMIC;
        return 0;
    }
    case SPIN_CMD_RESP: {
        SnicSpinResp *r = run->resp;

        /* the response window holds the reply; len: its valid bytes */
        if (!r || r->sent || c.flags || c.len > r->len) {
            return snic_spin_cmd_abort(run, SNIC_SPIN_EV_CMD_FAULT, c.op,
                                       c.len, "bad response");
        }
        memset(r->data + c.len, 0, r->len - c.len);
        r->sent = true;
        ctx->cmd_dma_bytes += c.len;
        *cost = SNIC_SPIN_COST_SEND + c.len / SNIC_SPIN_DMA_BYTES_PER_CYCLE;
        return 0;
    }
    default:
        return snic_spin_cmd_abort(run, SNIC_SPIN_EV_CMD_FAULT, c.op, c.op,
                                   "unknown opcode");
    }
}

static int snic_spin_cmd_issue(SnicSpinRun *run, uint32_t *val)
{
    SpinRv32 *cpu = &run->cpu;
    SnicSpinHpu *h = run->hpu;
    SnicSpinSlot *slot = NULL;
    uint64_t cost = 0;
    unsigned i;
    int r;

    /* A free slot, else wait for the one that completes first. */
    for (i = 0; i < SPIN_CMD_SLOTS; i++) {
        if (!h->slot[i].used || h->slot[i].done <= cpu->cycles) {
            slot = &h->slot[i];
            break;
        }
        if (!slot || h->slot[i].done < slot->done) {
            slot = &h->slot[i];
        }
    }
    if (slot->used && slot->done > cpu->cycles) {
        cpu->cycles = slot->done;
    }
    slot->result = 0;
    /* timing mode: the command's DMA or frame starts at its issue cycle */
    d2d_timing_until(&run->s->timing,
                     snic_spin_cycle_ns(&run->s->spin,
                                        cpu->cycle_base + cpu->cycles));
    r = snic_spin_cmd_exec(run, slot, &cost);
    if (r) {
        return r;
    }
    slot->used = true;
    slot->done = cpu->cycles + cost;
    *val = slot - h->slot;
    return 0;
}

int snic_spin_cmd_mmio(SpinRv32 *cpu, uint32_t addr, unsigned size,
                       bool write, uint32_t *val)
{
    SnicSpinRun *run = cpu->opaque;
    SnicSpinSlot *slot;
    uint32_t off = addr - SPIN_CMD_BASE;

    if (addr < SPIN_CMD_BASE || off >= SPIN_CMD_SIZE || size != 4 ||
        (off & 3)) {
        return 1;
    }
    cpu->cycles += SNIC_SPIN_COST_CMD;
    if (off < SPIN_CMD_REG_ISSUE) {
        if (write) {
            run->hpu->desc[off / 4] = *val;
        } else {
            *val = run->hpu->desc[off / 4];
        }
        return 0;
    }
    if (write) {
        return 1;
    }
    if (off == SPIN_CMD_REG_ISSUE) {
        return snic_spin_cmd_issue(run, val);
    }
    if (off < SPIN_CMD_REG_STATUS || off >= SPIN_CMD_REG_RESULT +
        4 * SPIN_CMD_SLOTS) {
        return 1;
    }
    slot = &run->hpu->slot[(off - SPIN_CMD_REG_STATUS) / 4 % SPIN_CMD_SLOTS];
    switch ((off - SPIN_CMD_REG_STATUS) / (4 * SPIN_CMD_SLOTS)) {
    case 0:     /* STATUS: test */
        *val = !slot->used ? SPIN_CMD_ST_IDLE :
               slot->done > cpu->cycles ? SPIN_CMD_ST_PENDING :
               SPIN_CMD_ST_DONE;
        break;
    case 1:     /* WAIT */
        if (!slot->used) {
            *val = SPIN_CMD_ST_IDLE;
            break;
        }
        if (slot->done > cpu->cycles) {
            cpu->cycles = slot->done;
        }
        *val = SPIN_CMD_ST_DONE;
        break;
    default:    /* RESULT */
        *val = slot->result;
        break;
    }
    return 0;
}
