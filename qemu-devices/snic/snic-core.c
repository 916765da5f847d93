/*
 * snic: the bottom layer every other file of the model may call - the
 * error register, the DMA probe of ring bases, an admin command's
 * input and output buffers, the port's state, its frame output and
 * loopback, and interrupts.  It calls nothing else of the model: the
 * loopback and interrupts go through the callbacks the PCI glue sets.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "hw/d2d/trace.h"
#include "../common/d2d-trace.h"
#include "snic.h"

void snic_raise_error(SnicState *s, enum snic_err err, const char *why)
{
    s->error = err;
    s->error_count++;
    D2D_GUEST_ERR(snic_error, "error %d: %s", err, why);
}

/* Does @addr answer a DMA read?  Used to validate ring bases. */
bool snic_dma_probe(SnicState *s, uint64_t addr)
{
    uint8_t byte;

    return d2d_dma_read(&s->parent_obj, &s->pcie, NULL, addr, &byte, 1) ==
           MEMTX_OK;
}

bool snic_wqe_bb_wanted(const struct snic_wqe_ctrl *ctrl, unsigned i,
                        unsigned avail, unsigned *nbb)
{
    if (i == 1) {
        *nbb = DIV_ROUND_UP(ctrl->ds_cnt, 4);
        return *nbb > 1 && *nbb <= SNIC_WQE_MAX_BBS && *nbb <= avail;
    }
    return i == 0 || i < *nbb;
}

uint16_t snic_ring_record_check(SnicState *s, uint64_t ring, uint64_t record)
{
    if (ring % SNIC_RING_ALIGN || record % 4) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (!snic_dma_probe(s, ring) || !snic_dma_probe(s, record)) {
        s->stats.dma_errs++;
        return SNIC_AQ_EDMA;
    }
    return SNIC_AQ_OK;
}

uint16_t snic_aq_read_buf(SnicState *s, const struct snic_aq_cmd *c,
                          void *out, size_t len)
{
    if (le32_to_cpu(c->buf.len) < len) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (d2d_dma_read(&s->parent_obj, &s->pcie, NULL, le64_to_cpu(c->buf.addr),
                     out, len) != MEMTX_OK) {
        s->stats.dma_errs++;
        return SNIC_AQ_EDMA;
    }
    return SNIC_AQ_OK;
}

uint16_t snic_aq_write_buf(SnicState *s, const struct snic_aq_cmd *c,
                           const void *data, size_t len)
{
    if (le32_to_cpu(c->buf.len) < len) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (d2d_dma_write(&s->parent_obj, &s->pcie, NULL,
                      le64_to_cpu(c->buf.addr), data, len) != MEMTX_OK) {
        s->stats.dma_errs++;
        return SNIC_AQ_EDMA;
    }
    return SNIC_AQ_OK;
}

bool snic_port_up(SnicState *s)
{
    return (s->port.flags & SNIC_PORT_F_UP) &&
           !qemu_get_queue(s->nic)->link_down;
}

static void snic_port_send(void *opaque, const uint8_t *f, size_t len)
{
    SnicState *s = opaque;

    qemu_send_packet(qemu_get_queue(s->nic), f, len);
}

/*
 * The port's one frame-output path: @f to the wire if the port is up,
 * counted in *@pkts and *@bytes; false (tx_link_down) if it is down.
 */
bool snic_port_xmit(SnicState *s, const uint8_t *f, size_t len,
                    uint64_t *pkts, uint64_t *bytes)
{
    if (!snic_port_up(s)) {
        s->ps.tx_link_down++;
        return false;
    }
    (*pkts)++;
    *bytes += len;
    /* timing mode: it reaches the far end after the wire's delays */
    if (!d2d_timing_frame_out(&s->timing, f, len, snic_port_send, s)) {
        snic_port_send(s, f, len);
    }
    return true;
}

void snic_port_loopback(SnicState *s, const uint8_t *f, size_t len,
                        uint16_t cqn)
{
    s->ps.tx_loopback++;
    s->port_rx(s, f, len, cqn);
}

void snic_irq(SnicState *s, unsigned vector)
{
    s->stats.irqs++;
    s->notify(s, vector);
}
