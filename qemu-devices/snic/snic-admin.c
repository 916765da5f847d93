/*
 * snic: admin queue - command ring and completion ring in host memory,
 * reached only by DMA; completions carry a phase bit and raise MSI-X.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "hw/pci/msix.h"
#include "hw/d2d/trace.h"
#include "../common/d2d-trace.h"
#include "snic.h"

void snic_aq_enable(SnicState *s)
{
    SnicAdminQueue *aq = &s->aq;

    if (!(s->status & SNIC_STATUS_READY)) {
        snic_raise_error(s, SNIC_ERR_IN_RESET, "admin queue enable in reset");
        return;
    }
    if (aq->depth < SNIC_AQ_MIN_DEPTH || aq->depth > SNIC_AQ_MAX_DEPTH ||
        !is_power_of_2(aq->depth)) {
        snic_raise_error(s, SNIC_ERR_AQ_DEPTH, "bad admin queue depth");
        return;
    }
    if (aq->sq_base % SNIC_AQ_ALIGN || aq->cq_base % SNIC_AQ_ALIGN) {
        snic_raise_error(s, SNIC_ERR_AQ_ALIGN, "unaligned admin ring base");
        return;
    }
    if (aq->msix >= SNIC_NUM_MSIX) {
        snic_raise_error(s, SNIC_ERR_MSIX, "admin MSI-X vector out of range");
        return;
    }
    if (!snic_dma_probe(s, aq->sq_base) || !snic_dma_probe(s, aq->cq_base)) {
        s->stats.dma_errs++;
        snic_raise_error(s, SNIC_ERR_AQ_UNMAPPED, "admin ring not mapped");
        return;
    }
    aq->sq_head = aq->sq_tail = 0;
    aq->cq_head = aq->cq_tail = 0;
    aq->phase = true;
    s->status |= SNIC_STATUS_AQ_ENABLED;
    s->status &= ~SNIC_STATUS_FATAL;
}

void snic_aq_disable(SnicState *s)
{
    s->status &= ~(SNIC_STATUS_AQ_ENABLED | SNIC_STATUS_FATAL);
    s->ctrl &= ~SNIC_CTRL_AQ_ENABLE;
}

void snic_aq_kick(SnicState *s)
{
    if (s->status & SNIC_STATUS_AQ_ENABLED) {
        d2d_timing_bh_schedule(&s->timing, s->aq.bh);
    }
}

void snic_aq_doorbell(SnicState *s, uint32_t tail)
{
    if (!(s->status & SNIC_STATUS_READY)) {
        s->stats.bad_db++;
        snic_raise_error(s, SNIC_ERR_IN_RESET, "admin doorbell in reset");
        return;
    }
    if (!(s->status & SNIC_STATUS_AQ_ENABLED)) {
        s->stats.bad_db++;
        snic_raise_error(s, SNIC_ERR_AQ_DISABLED,
                         "admin doorbell with queue disabled");
        return;
    }
    if (tail >= s->aq.depth) {
        s->stats.bad_db++;
        snic_raise_error(s, SNIC_ERR_DB_RANGE, "admin doorbell beyond ring");
        return;
    }
    s->aq.sq_tail = tail;
    snic_aq_kick(s);
}

/* The queue stops until the driver disables and re-enables it. */
static void snic_aq_fatal(SnicState *s, enum snic_err err, const char *why)
{
    s->stats.dma_errs++;
    s->status |= SNIC_STATUS_FATAL;
    snic_raise_error(s, err, why);
}

static uint16_t snic_cmd_identify(SnicState *s, const struct snic_aq_cmd *cmd)
{
    struct snic_identify_data id = { 0 };
    uint64_t addr = le64_to_cpu(cmd->identify.buf_addr);
    uint32_t len = le32_to_cpu(cmd->identify.buf_len);

    if (len == 0) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    id.magic = cpu_to_le32(SNIC_ID_MAGIC);
    id.version = cpu_to_le32(SNIC_VERSION);
    pstrcpy(id.fw_version, sizeof(id.fw_version), SNIC_FW_VERSION);
    id.caps = cpu_to_le64(SNIC_CAPS);
    memcpy(id.mac, s->conf.macaddr.a, sizeof(id.mac));
    id.max_mtu = cpu_to_le16(9000);
    id.num_msix = cpu_to_le32(SNIC_NUM_MSIX);
    id.aq_max_depth = cpu_to_le32(SNIC_AQ_MAX_DEPTH);
    pstrcpy(id.serial, sizeof(id.serial), s->serial ? s->serial : "");
    id.max_eqs = cpu_to_le16(SNIC_MAX_EQS);
    id.max_cqs = cpu_to_le16(SNIC_MAX_CQS);
    id.max_sqs = cpu_to_le16(SNIC_MAX_SQS);
    id.max_rqs = cpu_to_le16(SNIC_MAX_RQS);
    id.max_rss = cpu_to_le16(SNIC_MAX_RSS);
    id.max_rules = cpu_to_le16(SNIC_MAX_RULES);
    id.db_pages = cpu_to_le16(SNIC_DB_PAGES);
    id.rss_table_size = cpu_to_le16(SNIC_RSS_TABLE_SIZE);

    if (d2d_dma_write(&s->parent_obj, &s->pcie, NULL, addr, &id,
                      MIN(len, sizeof(id))) != MEMTX_OK) {
        s->stats.dma_errs++;
        return SNIC_AQ_EDMA;
    }
    return SNIC_AQ_OK;
}

static uint16_t snic_aq_execute(SnicState *s, const struct snic_aq_cmd *cmd,
                                uint64_t *result)
{
    *result = 0;
    switch (cmd->opcode) {
    case SNIC_AQ_NOP:
        return SNIC_AQ_OK;
    case SNIC_AQ_IDENTIFY:
        return snic_cmd_identify(s, cmd);
    case SNIC_AQ_CREATE_EQ:
        return snic_cmd_create_eq(s, cmd, result);
    case SNIC_AQ_CREATE_CQ:
        return snic_cmd_create_cq(s, cmd, result);
    case SNIC_AQ_RESIZE_CQ:
        return snic_cmd_resize_cq(s, cmd, result);
    case SNIC_AQ_MODIFY_CQ:
        return snic_cmd_modify_cq(s, cmd);
    case SNIC_AQ_CREATE_SQ:
        return snic_cmd_create_sq(s, cmd, result);
    case SNIC_AQ_MODIFY_SQ:
        return snic_cmd_modify_sq(s, cmd);
    case SNIC_AQ_CREATE_RQ:
        return snic_cmd_create_rq(s, cmd, result);
    case SNIC_AQ_DESTROY_EQ:
    case SNIC_AQ_DESTROY_CQ:
    case SNIC_AQ_DESTROY_SQ:
    case SNIC_AQ_DESTROY_RQ:
        return snic_cmd_destroy(s, cmd);
    case SNIC_AQ_CREATE_RSS:
    case SNIC_AQ_MODIFY_RSS:
    case SNIC_AQ_DESTROY_RSS:
        return snic_cmd_rss(s, cmd, result);
    case SNIC_AQ_ADD_RULE:
        return snic_cmd_add_rule(s, cmd, result);
    case SNIC_AQ_DEL_RULE:
        return snic_cmd_del_rule(s, cmd);
    case SNIC_AQ_SET_PORT:
        return snic_cmd_set_port(s, cmd);
    case SNIC_AQ_QUERY_PORT:
        return snic_cmd_query_port(s, cmd);
    case SNIC_AQ_SET_VLAN:
        return snic_cmd_set_vlan(s, cmd);
    case SNIC_AQ_QUERY_STATS:
        return snic_cmd_query_stats(s, cmd);
    case SNIC_AQ_CREATE_PD ... SNIC_AQ_SET_SRC_ADDR:
    case SNIC_AQ_SET_QP_COUNTER ... SNIC_AQ_DETACH_MCAST:
    case SNIC_AQ_CREATE_SSQ:
    case SNIC_AQ_DESTROY_SSQ:
    case SNIC_AQ_SET_LLQ:
    case SNIC_AQ_CREATE_XRCD:
    case SNIC_AQ_DESTROY_XRCD:
    case SNIC_AQ_ALLOC_MW:
    case SNIC_AQ_DEALLOC_MW:
        return snic_rdma_admin(s, cmd, result);
    case SNIC_AQ_SPIN_WRITE_MEM ... SNIC_AQ_SPIN_REG_OPCODE:
        return snic_spin_admin(s, cmd, result);
    default:
        D2D_GUEST_ERR(snic_bad_opcode, "unknown admin opcode 0x%x",
                      cmd->opcode);
        return SNIC_AQ_EINVAL_OPCODE;
    }
}

static bool snic_aq_cq_full(SnicAdminQueue *aq)
{
    return (aq->cq_tail + 1) % aq->depth == aq->cq_head;
}

void snic_aq_bh(void *opaque)
{
    SnicState *s = opaque;
    SnicAdminQueue *aq = &s->aq;
    bool posted = false;

    while ((s->status & SNIC_STATUS_AQ_ENABLED) &&
           !(s->status & SNIC_STATUS_FATAL) &&
           aq->sq_head != aq->sq_tail && !snic_aq_cq_full(aq)) {
        struct snic_aq_cmd cmd;
        struct snic_aq_cqe cqe = { 0 };
        uint64_t result;
        uint16_t status;

        if (d2d_dma_read(&s->parent_obj, &s->pcie, NULL,
                         aq->sq_base + (uint64_t)aq->sq_head * sizeof(cmd),
                         &cmd, sizeof(cmd)) != MEMTX_OK) {
            snic_aq_fatal(s, SNIC_ERR_DMA, "admin command read failed");
            break;
        }
        aq->sq_head = (aq->sq_head + 1) % aq->depth;

        status = snic_aq_execute(s, &cmd, &result);
        trace_snic_aq_cmd(cmd.opcode, le16_to_cpu(cmd.cmd_id), status);
        if (!(s->status & SNIC_STATUS_AQ_ENABLED)) {
            break;      /* the command reset or disabled the queue */
        }
        s->stats.aq_cmds++;
        if (status != SNIC_AQ_OK) {
            s->stats.aq_errs++;
        }
        if (s->aq_drop_opcode && cmd.opcode == s->aq_drop_opcode) {
            /* fault injection: the host's admin timeout path runs */
            s->aq_dropped++;
            trace_snic_aq_drop(cmd.opcode, le16_to_cpu(cmd.cmd_id));
            continue;
        }

        cqe.result = cpu_to_le64(result);
        cqe.cmd_id = cmd.cmd_id;
        cqe.status = cpu_to_le16(status);
        cqe.sq_head = cpu_to_le16(aq->sq_head);
        cqe.flags = aq->phase ? SNIC_AQ_CQE_PHASE : 0;
        if (d2d_dma_write(&s->parent_obj, &s->pcie, NULL,
                          aq->cq_base + (uint64_t)aq->cq_tail * sizeof(cqe),
                          &cqe, sizeof(cqe)) != MEMTX_OK) {
            snic_aq_fatal(s, SNIC_ERR_DMA, "admin completion write failed");
            break;
        }
        aq->cq_tail = (aq->cq_tail + 1) % aq->depth;
        if (aq->cq_tail == 0) {
            aq->phase = !aq->phase;
        }
        posted = true;
    }

    if (posted) {
        snic_irq(s, aq->msix);
    }
}
