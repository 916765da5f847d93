/*
 * hdc: host command queue - a ring of D2D commands and a ring of
 * completions in host memory, reached only by DMA.  Commands run
 * concurrently in the scoreboard; completions are posted in submission
 * order with a phase bit, and each batch raises MSI-X.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "hdc.h"
#include "hw/d2d/trace.h"

#define HDC_CMD_SIZE sizeof(struct hdc_cmd)
#define HDC_CPL_SIZE sizeof(struct hdc_cpl)

/* Do the first and the last byte of [addr, addr + len) answer DMA reads? */
static bool hdc_dma_probe(HdcState *s, uint64_t addr, uint64_t len)
{
    uint8_t byte;

    if (addr + len < addr) {
        return false;
    }
    return d2d_dma_read(&s->parent_obj, &s->pcie, NULL, addr, &byte, 1) ==
           MEMTX_OK &&
           d2d_dma_read(&s->parent_obj, &s->pcie, NULL, addr + len - 1,
                        &byte, 1) == MEMTX_OK;
}

void hdc_cmdq_enable(HdcState *s)
{
    HdcCmdQueue *q = &s->q;

    if (!(s->status & HDC_STATUS_READY)) {
        hdc_raise_error(s, HDC_ERR_IN_RESET, "queue enable in reset");
        return;
    }
    if (q->cmd_base % HDC_CMD_SIZE || q->cpl_base % HDC_CMD_SIZE) {
        hdc_raise_error(s, HDC_ERR_ALIGN, "unaligned ring base");
        return;
    }
    if (!hdc_dma_probe(s, q->cmd_base, HDC_QUEUE_DEPTH * HDC_CMD_SIZE) ||
        !hdc_dma_probe(s, q->cpl_base, HDC_QUEUE_DEPTH * HDC_CPL_SIZE)) {
        s->stats.dma_errs++;
        hdc_raise_error(s, HDC_ERR_UNMAPPED, "ring not mapped");
        return;
    }
    q->cmd_head = q->cmd_tail = 0;
    q->cpl_head = q->cpl_tail = 0;
    q->phase = true;
    s->status |= HDC_STATUS_ENABLED;
}

/* Queue off: commands in flight are dropped without completions. */
void hdc_cmdq_disable(HdcState *s)
{
    s->status &= ~HDC_STATUS_ENABLED;
    s->ctrl &= ~HDC_CTRL_ENABLE;
    hdc_sb_drop_all(s);
}

void hdc_cmdq_doorbell(HdcState *s, uint32_t tail)
{
    if (!(s->status & HDC_STATUS_READY)) {
        s->stats.bad_db++;
        hdc_raise_error(s, HDC_ERR_IN_RESET, "doorbell in reset");
        return;
    }
    if (!(s->status & HDC_STATUS_ENABLED)) {
        s->stats.bad_db++;
        hdc_raise_error(s, HDC_ERR_DISABLED, "doorbell with queue disabled");
        return;
    }
    if (tail >= HDC_QUEUE_DEPTH) {
        s->stats.bad_db++;
        hdc_raise_error(s, HDC_ERR_DB_RANGE, "doorbell beyond ring");
        return;
    }
    s->q.cmd_tail = tail;
    hdc_kick(s);
}

/*
 * The queue turned off with the engine running (CTRL.ENABLE cleared, a
 * ring out of reach): its commands are dropped, and in timing mode what
 * the engine already wrote lands now, not later into buffers the driver
 * has taken back (docs/timing.md).
 */
void hdc_cmdq_stop(HdcState *s)
{
    hdc_cmdq_disable(s);
    d2d_timing_flush(&s->timing);
}

/* A ring could not be reached: the queue stops until re-enabled. */
static void hdc_cmdq_fatal(HdcState *s, const char *why)
{
    s->stats.dma_errs++;
    hdc_raise_error(s, HDC_ERR_DMA, why);
    hdc_cmdq_stop(s);
}

void hdc_cmdq_fetch(HdcState *s)
{
    HdcCmdQueue *q = &s->q;

    while ((s->status & HDC_STATUS_ENABLED) && q->cmd_head != q->cmd_tail &&
           s->njobs < HDC_QUEUE_DEPTH) {
        struct hdc_cmd cmd;
        HdcJob *job;

        if (d2d_dma_read(&s->parent_obj, &s->pcie, NULL,
                         q->cmd_base + (uint64_t)q->cmd_head * HDC_CMD_SIZE,
                         &cmd, sizeof(cmd)) != MEMTX_OK) {
            hdc_cmdq_fatal(s, "command read failed");
            return;
        }
        trace_hdc_cmd(q->cmd_head, le16_to_cpu(cmd.cmd_id), cmd.opcode);
        /* timing mode: command decode and set-up */
        d2d_timing_engine(&s->timing, s->timing.p.db_ns);
        q->cmd_head = (q->cmd_head + 1) % HDC_QUEUE_DEPTH;
        job = hdc_job_new(s, &cmd);
        QTAILQ_INSERT_TAIL(&s->jobs, job, link);
        s->njobs++;
    }
}

static bool hdc_cpl_full(HdcCmdQueue *q)
{
    return (q->cpl_tail + 1) % HDC_QUEUE_DEPTH == q->cpl_head;
}

/* Digests go to struct hdc_aux before the completion says so. */
static uint16_t hdc_write_digests(HdcState *s, HdcJob *job)
{
    unsigned i;

    for (i = 0; i < job->nfuncs; i++) {
        uint8_t d[32];
        size_t n = hdc_func_digest(job->fc, i, d);

        if (n && d2d_dma_write(&s->parent_obj, &s->pcie, NULL,
                               job->aux_addr +
                               offsetof(struct hdc_aux, digest) + i * 32,
                               d, n) != MEMTX_OK) {
            s->stats.dma_errs++;
            return HDC_ST_EDMA;
        }
    }
    return HDC_ST_OK;
}

void hdc_cmdq_post(HdcState *s)
{
    HdcCmdQueue *q = &s->q;
    HdcJob *job;
    bool posted = false;

    while ((s->status & HDC_STATUS_ENABLED) &&
           (job = QTAILQ_FIRST(&s->jobs)) && job->done && !hdc_cpl_full(q)) {
        struct hdc_cpl cpl = { 0 };

        if (job->status == HDC_ST_OK && job->fc) {
            job->status = hdc_write_digests(s, job);
        }
        s->stats.cmds++;
        if (job->status != HDC_ST_OK) {
            s->stats.errs++;
            D2D_GUEST_ERR(hdc_cmd_failed,
                          "command %" PRIu64 " (id 0x%x) failed: status %u",
                          job->seq, job->cmd_id, job->status);
        }
        cpl.result = cpu_to_le64(job->dst.type == HDC_EP_NONE ?
                                 job->produced : job->written);
        cpl.cmd_id = cpu_to_le16(job->cmd_id);
        cpl.status = cpu_to_le16(job->status);
        cpl.cmdq_head = cpu_to_le16(q->cmd_head);
        cpl.flags = q->phase ? HDC_CPL_PHASE : 0;
        trace_hdc_cpl(job->cmd_id, job->status, le64_to_cpu(cpl.result));
        if (d2d_dma_write_entry(&s->parent_obj, &s->pcie, NULL,
                                q->cpl_base +
                                (uint64_t)q->cpl_tail * HDC_CPL_SIZE,
                                &cpl, sizeof(cpl)) != MEMTX_OK) {
            hdc_cmdq_fatal(s, "completion write failed");
            break;
        }
        QTAILQ_REMOVE(&s->jobs, job, link);
        s->njobs--;
        hdc_job_free(s, job);
        q->cpl_tail = (q->cpl_tail + 1) % HDC_QUEUE_DEPTH;
        if (q->cpl_tail == 0) {
            q->phase = !q->phase;
        }
        posted = true;
    }
    if (posted) {
        d2d_msix_notify(&s->parent_obj, &s->pcie, q->msix);
        /* Room in the scoreboard: take the commands that waited for it. */
        if (q->cmd_head != q->cmd_tail) {
            hdc_kick(s);
        }
    }
}
