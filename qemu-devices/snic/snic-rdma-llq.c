/*
 * snic: low-latency QPs (FlexiNS's direct placement) - an RC QP given a
 * ring of fixed-size slots (SNIC_AQ_SET_LLQ) takes each SEND_ONLY whose
 * payload fits a slot into the next slot instead of a receive WQE, and
 * writes no CQE: the payload, then the slot's trailer (length, and the
 * valid byte with the owner phase last).  The host polls the valid byte
 * and returns slots through a consumer record the device re-reads every
 * ci_every slots and when the ring looks full; a full ring is an RNR NAK.
 *
 * Called by the QP admin (reset) and the responder; below them.
 * docs/snic-rdma.md "Low-latency QPs".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "snic.h"

uint16_t snic_llq_set(SnicState *s, const struct snic_aq_cmd *c)
{
    struct snic_aq_set_llq a;
    uint16_t st;
    SnicQp *qp;

    memcpy(&a, c->raw, sizeof(a));
    qp = snic_rdma_qp(s, le32_to_cpu(a.qpn));
    if (!qp) {
        return SNIC_AQ_ENOENT;
    }
    if (qp->type != SNIC_QPT_RC) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (qp->state != SNIC_QPS_RESET && qp->state != SNIC_QPS_INIT) {
        return SNIC_AQ_ESTATE;      /* not while messages may arrive */
    }
    if (!a.log_slots) {
        qp->llq_log = 0;
        return SNIC_AQ_OK;
    }
    if (a.log_slots < SNIC_MIN_LOG_SIZE || a.log_slots > SNIC_MAX_LOG_SIZE ||
        a.slot_log < SNIC_LLQ_MIN_SLOT_LOG ||
        a.slot_log > SNIC_LLQ_MAX_SLOT_LOG || !a.ci_every) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    st = snic_ring_record_check(s, le64_to_cpu(a.ring_addr),
                                le64_to_cpu(a.ci_addr));
    if (st != SNIC_AQ_OK) {
        return st;
    }
    qp->llq_log = a.log_slots;
    qp->llq_slot_log = a.slot_log;
    qp->llq_ci_every = a.ci_every;
    qp->llq_ring = le64_to_cpu(a.ring_addr);
    qp->llq_ci_addr = le64_to_cpu(a.ci_addr);
    snic_llq_qp_reset(qp);
    return SNIC_AQ_OK;
}

void snic_llq_qp_reset(SnicQp *qp)
{
    qp->llq_pi = qp->llq_ci = qp->llq_ci_read_at = 0;
}

/* The host's consumer record; false if it cannot be read. */
static bool snic_llq_read_ci(SnicState *s, SnicQp *qp)
{
    uint32_t v;

    s->rdma.st.llq_ci_reads++;
    qp->llq_ci_read_at = qp->llq_pi;
    if (d2d_dma_read(&s->parent_obj, &s->pcie, &qp->pcie, qp->llq_ci_addr,
                     &v, sizeof(v)) != MEMTX_OK) {
        s->stats.dma_errs++;
        return false;
    }
    le32_to_cpus(&v);
    /* a count beyond what was filled is the host's error: ignore it */
    if (v - qp->llq_ci <= qp->llq_pi - qp->llq_ci) {
        qp->llq_ci = v;
    }
    return true;
}

int snic_llq_rx(SnicState *s, SnicQp *qp, const SnicRoceHdr *h, uint32_t fl)
{
    uint32_t size = 1u << qp->llq_log, slot = 1u << qp->llq_slot_log;
    uint8_t trailer[SNIC_LLQ_TRAILER] = { 0 };
    uint64_t at;

    if ((fl & (ROCE_F_SEND | ROCE_F_ONLY | ROCE_F_IMM | ROCE_F_IETH)) !=
        (ROCE_F_SEND | ROCE_F_ONLY) ||
        h->paylen > slot - SNIC_LLQ_TRAILER) {
        return SNIC_LLQ_PASS;
    }
    if ((qp->llq_pi - qp->llq_ci >= size ||
         qp->llq_pi - qp->llq_ci_read_at >= qp->llq_ci_every) &&
        !snic_llq_read_ci(s, qp)) {
        return SNIC_LLQ_FAULT;
    }
    if (qp->llq_pi - qp->llq_ci >= size) {
        s->rdma.st.llq_full++;
        return SNIC_LLQ_FULL;
    }
    at = qp->llq_ring + (uint64_t)(qp->llq_pi & (size - 1)) * slot;
    stl_le_p(trailer, h->paylen);
    trailer[SNIC_LLQ_TRAILER - 1] = ((qp->llq_pi >> qp->llq_log) & 1) ^ 1;
    /* payload first, then the trailer: its valid byte is seen last */
    if ((h->paylen &&
         d2d_dma_write(&s->parent_obj, &s->pcie, &qp->pcie, at, h->payload,
                       h->paylen) != MEMTX_OK) ||
        d2d_dma_write(&s->parent_obj, &s->pcie, &qp->pcie,
                      at + slot - SNIC_LLQ_TRAILER, trailer,
                      sizeof(trailer)) != MEMTX_OK) {
        s->stats.dma_errs++;
        qemu_log_mask(LOG_GUEST_ERROR, "snic: qp %u: LLQ slot %u is not "
                      "writable\n", qp->qpn, qp->llq_pi);
        return SNIC_LLQ_FAULT;
    }
    qp->llq_pi++;
    s->rdma.st.llq_msgs++;
    return SNIC_LLQ_PLACED;
}
