/*
 * snic sPIN: the programmable offload engine (FlexiNS) - custom RoCE
 * opcodes registered per context (SNIC_AQ_SPIN_REG_OPCODE), and what a
 * custom handler sees: the request (struct spin_custom in its L1) and its
 * response window, which SPIN_CMD_RESP hands to the responder.  The
 * engine runs the handler (snic-spin-engine.c); the responder sends the
 * response as READ response packets (snic-rdma-resp.c).
 * docs/snic-spin.md "Offload engine".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "snic.h"

uint16_t snic_spin_offload_reg(SnicState *s, const struct snic_aq_cmd *c)
{
    struct snic_aq_spin_reg_opcode r;
    uint32_t id, op, entry;
    SnicSpinCtx *ctx;

    memcpy(&r, c->raw, sizeof(r));
    id = le32_to_cpu(r.ctx);
    op = le32_to_cpu(r.opcode);
    entry = le32_to_cpu(r.entry);
    if (id >= SNIC_SPIN_MAX_CTXS || !s->spin.ctxs[id].valid) {
        return SNIC_AQ_ENOENT;
    }
    ctx = &s->spin.ctxs[id];
    if (r.rsvd || op < SNIC_CUSTOM_OP_FIRST || op > SNIC_CUSTOM_OP_LAST ||
        (entry && ((entry & 3) || entry < SPIN_CODE_BASE ||
                   entry - SPIN_CODE_BASE >= ctx->code_size))) {
        qemu_log_mask(LOG_GUEST_ERROR, "snic: spin ctx %u: REG_OPCODE 0x%x "
                      "entry 0x%x refused\n", id, op, entry);
        return SNIC_AQ_EINVAL_PARAM;
    }
    ctx->op_entry[op - SNIC_CUSTOM_OP_FIRST] = entry;
    return SNIC_AQ_OK;
}

uint32_t snic_spin_offload_entry(SnicSpinCtx *ctx, uint8_t opcode)
{
    if (opcode < SNIC_CUSTOM_OP_FIRST || opcode > SNIC_CUSTOM_OP_LAST) {
        return 0;
    }
    return ctx->op_entry[opcode - SNIC_CUSTOM_OP_FIRST];
}

void snic_spin_offload_prepare(SnicSpinRun *run, SnicQp *qp,
                               const SnicRoceHdr *h, uint32_t entry,
                               SnicSpinResp *resp)
{
    uint8_t *l1 = run->hpu->l1;
    struct spin_args *a = (struct spin_args *)l1;
    struct spin_custom cu = { 0 };
    SpinRv32 *cpu = &run->cpu;

    cu.opcode = cpu_to_le32(h->opcode);
    cu.qpn = cpu_to_le32(qp->qpn);
    cu.psn = cpu_to_le32(h->psn);
    cu.resp_len = cpu_to_le32(h->dlen);
    cu.va_lo = cpu_to_le32((uint32_t)h->va);
    cu.va_hi = cpu_to_le32(h->va >> 32);
    cu.rkey = cpu_to_le32(h->rkey);
    cu.req = cpu_to_le32(SPIN_PKTBUF_BASE + (h->payload - h->frame));
    cu.req_len = cpu_to_le32(h->paylen);
    memcpy(l1 + (SPIN_CUSTOM_ADDR - SPIN_L1_BASE), &cu, sizeof(cu));
    a->handler = cpu_to_le32(SPIN_HANDLER_CUSTOM);
    run->resp = resp;
    if (resp->len) {
        spin_rv32_add_window(cpu, SPIN_RESP_BASE, resp->len, resp->data,
                             SNIC_SPIN_COST_L2, true);
    }
    cpu->pc = entry;
}
