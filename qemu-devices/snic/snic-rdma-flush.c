/*
 * snic: RDMA errors and flush - a QP moving to the error state (ERR, or
 * SQE for a UD send error), flushing its send and receive queues with
 * their CQEs, and the send CQE every completion of a send WQE is.
 * Below the requester, responder and completer, which all call it.
 * docs/snic-rdma.md "Errors and flush", "CQEs for RDMA".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "hw/d2d/trace.h"
#include "snic.h"

void snic_rdma_req_cqe(SnicState *s, SnicQp *qp, const SnicSwqe *w,
                       uint8_t status)
{
    struct snic_cqe cqe = { 0 };

    cqe.opcode = status ? SNIC_CQE_REQ_ERR : SNIC_CQE_REQ;
    cqe.syndrome = status;
    cqe.wqe_counter = cpu_to_le16(w->idx);
    cqe.qn = cpu_to_le16(qp->qpn);
    cqe.rdma_qpn = cpu_to_le32(qp->qpn);
    cqe.wqe_opcode = w->opcode;
    if (!status && !w->local) {
        cqe.byte_cnt = cpu_to_le32(w->len);
    }
    if (status && status != SNIC_RST_WR_FLUSH) {
        s->rdma.st.req_errors++;
    }
    snic_cq_post(s, qp->scqn, &cqe, &qp->pcie);
}

static void snic_recv_flush_cqe(SnicState *s, SnicQp *qp, uint64_t cookie,
                                uint16_t counter)
{
    struct snic_cqe cqe = { 0 };

    cqe.opcode = SNIC_CQE_RECV_ERR;
    cqe.syndrome = SNIC_RST_WR_FLUSH;
    cqe.wqe_counter = cpu_to_le16(counter);
    cqe.qn = cpu_to_le16(qp->qpn);
    cqe.rdma_qpn = cpu_to_le32(qp->qpn);
    cqe.cookie = cpu_to_le64(cookie);
    snic_cq_post(s, qp->rcqn, &cqe, &qp->pcie);
}

/*
 * A posted WQE the requester never fetched (@ctrl its first basic block,
 * at most @avail basic blocks): flushed, the SQ consumer moves past it.
 */
static void snic_flush_posted(SnicState *s, SnicQp *qp,
                              const struct snic_wqe_ctrl *ctrl, uint16_t avail)
{
    SnicSwqe w = { 0 };
    unsigned nbb = DIV_ROUND_UP(ctrl->ds_cnt, 4);

    nbb = MAX(1, MIN(nbb, avail));
    w.opcode = ctrl->opcode;
    w.idx = qp->sq_fetch;
    w.nbb = nbb;
    snic_rdma_req_cqe(s, qp, &w, SNIC_RST_WR_FLUSH);
    qp->sq_fetch += nbb;
}

/* A pipe QP's posted WQEs: as long as the pipe has some (one pass). */
static void snic_flush_pipe(SnicState *s, SnicQp *qp)
{
    uint8_t bb[SNIC_WQEBB_SIZE];
    uint8_t st;
    unsigned n;

    for (n = 0; n < QP_SQ_SIZE(qp) && snic_pipe_sq_peek(s, qp, bb, &st) > 0;
         n++) {
        snic_flush_posted(s, qp, (const void *)bb,
                          MIN(SNIC_WQE_MAX_BBS, QP_SQ_SIZE(qp)));
        snic_pipe_sq_consumed(s, qp);
    }
}

/* Complete every send WQE not yet completed, and posted ones. */
static void snic_flush_send(SnicState *s, SnicQp *qp)
{
    uint64_t dbr = qp->dbr + 4;
    __le32 v;

    while (qp->win_head != qp->win_tail) {
        SnicSwqe *w = &qp->win[qp->win_head % SNIC_RDMA_WIN];

        snic_rdma_req_cqe(s, qp, w, w->status ? w->status : SNIC_RST_WR_FLUSH);
        qp->win_head++;
    }
    qp->tx_wqe = qp->win_head;
    qp->job_head = qp->job_tail;
    qp->rnr_wait = false;
    timer_del(qp->retry_timer);
    timer_del(qp->rnr_timer);
    timer_del(qp->probe_timer);
    if (!snic_qp_has_sq(qp)) {
        return;     /* XRC_TGT: responder jobs only */
    }
    if (qp->flags & SNIC_QP_F_SSQ) {
        return;     /* its posted WQEs are flushed as the SSQ reaches them */
    }
    if (qp->flags & SNIC_QP_F_PIPE) {
        snic_flush_pipe(s, qp);
        return;
    }
    /* posted but not fetched: read the record, complete each WQE */
    if (d2d_dma_read(&s->parent_obj, &s->pcie, &qp->pcie, dbr, &v,
                     sizeof(v)) == MEMTX_OK &&
        (uint16_t)((uint16_t)le32_to_cpu(v) - qp->sq_fetch) <= QP_SQ_SIZE(qp)) {
        qp->sq_pi = le32_to_cpu(v);
    }
    while (qp->sq_fetch != qp->sq_pi) {
        struct snic_wqe_ctrl ctrl;

        if (d2d_dma_read(&s->parent_obj, &s->pcie, &qp->pcie,
                         qp->sq_ring + (uint64_t)(qp->sq_fetch &
                         (QP_SQ_SIZE(qp) - 1)) * SNIC_WQEBB_SIZE, &ctrl,
                         sizeof(ctrl)) != MEMTX_OK) {
            s->stats.dma_errs++;
            break;
        }
        snic_flush_posted(s, qp, &ctrl, qp->sq_pi - qp->sq_fetch);
    }
}

static void snic_flush_recv(SnicState *s, SnicQp *qp)
{
    SnicRecvWqe w;

    if (qp->have_rwqe) {
        snic_recv_flush_cqe(s, qp, qp->rwqe.cookie, qp->rwqe.counter);
        qp->have_rwqe = false;
    }
    qp->resp_op = 0;
    if (qp->srqn != SNIC_SRQN_NONE || snic_qp_xrc(qp)) {
        return;     /* an SRQ keeps its WQEs; XRC QPs have no RQ */
    }
    while (snic_rdma_recv_peek(s, qp, &w)) {
        snic_recv_flush_cqe(s, qp, w.cookie, w.counter);
        snic_rdma_recv_consume(s, qp);
    }
}

void snic_rdma_flush(SnicState *s, SnicQp *qp)
{
    if (qp->state == SNIC_QPS_ERR) {
        snic_flush_send(s, qp);
        snic_flush_recv(s, qp);
    } else if (qp->state == SNIC_QPS_SQE) {
        snic_flush_send(s, qp);
    }
}

void snic_rdma_qp_error(SnicState *s, SnicQp *qp, uint8_t status,
                        bool send_side)
{
    if (qp->state == SNIC_QPS_ERR || qp->state == SNIC_QPS_RESET) {
        return;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "snic: qp %u: error %u, to %s\n",
                  qp->qpn, status,
                  send_side && qp->type != SNIC_QPT_RC ? "SQE" : "ERR");
    if (send_side && qp->type != SNIC_QPT_RC) {
        trace_snic_qp_state(qp->qpn, qp->state, SNIC_QPS_SQE);
        qp->state = SNIC_QPS_SQE;
    } else {
        trace_snic_qp_state(qp->qpn, qp->state, SNIC_QPS_ERR);
        qp->state = SNIC_QPS_ERR;
    }
    snic_rdma_event(s, SNIC_EQE_QP_ERROR, qp->qpn, status);
    snic_rdma_flush(s, qp);
    if (qp->state == SNIC_QPS_ERR && qp->srqn != SNIC_SRQN_NONE) {
        snic_rdma_event(s, SNIC_EQE_QP_LAST_WQE, qp->qpn, 0);
    }
}
