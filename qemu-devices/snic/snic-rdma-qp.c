/*
 * snic: RDMA queue pairs - CREATE/MODIFY/QUERY/DESTROY_QP, the verbs state
 * machine with its required attributes, the QP and SRQ doorbells.
 * docs/snic-rdma.md "State machine".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "hw/d2d/trace.h"
#include "snic.h"

static bool snic_cq_ok(SnicState *s, uint16_t cqn)
{
    return cqn < SNIC_MAX_CQS && s->cqs[cqn].valid;
}

/*
 * CREATE_QP's fields: SNIC_AQ_OK or the status to answer.  An XRC_TGT QP
 * has an XRC domain and a doorbell page, none of the rest (no PD, CQ,
 * SRQ or ring); an XRC_INI QP has no receive queue.
 */
static uint16_t snic_create_qp_check(SnicState *s,
                                     const struct snic_aq_create_qp *a)
{
    bool pipe = a->flags & SNIC_QP_F_PIPE;
    bool xrc = a->type == SNIC_QPT_XRC_INI;
    uint32_t pdn = le32_to_cpu(a->pdn);
    uint16_t srqn = le16_to_cpu(a->srqn);
    uint16_t scqn = le16_to_cpu(a->send_cqn);
    uint16_t rcqn = xrc ? scqn : le16_to_cpu(a->recv_cqn);

    if (a->type == SNIC_QPT_XRC_TGT) {
        if (a->flags || le16_to_cpu(a->db_page) >= SNIC_DB_PAGES) {
            return SNIC_AQ_EINVAL_PARAM;
        }
        return snic_xrc_qp_check(s, a);
    }
    if (!snic_pd(s, pdn) || !snic_cq_ok(s, scqn) || !snic_cq_ok(s, rcqn)) {
        return SNIC_AQ_ENOENT;
    }
    if (srqn != SNIC_SRQN_NONE &&
        (srqn >= SNIC_MAX_SRQS || !s->rdma.srqs[srqn].valid)) {
        return SNIC_AQ_ENOENT;
    }
    /* an XRC SRQ takes only XRC_TGT requests */
    if ((srqn != SNIC_SRQN_NONE && s->rdma.srqs[srqn].xrc) ||
        (xrc && (srqn != SNIC_SRQN_NONE || a->rq_log || pipe))) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (a->type > SNIC_QPT_XRC_INI ||
        (a->flags & ~(SNIC_QP_F_PRIV | SNIC_QP_F_SIG_ALL | SNIC_QP_F_PIPE |
                      SNIC_QP_F_SSQ)) ||
        ((a->flags & SNIC_QP_F_SSQ) && !pipe) ||
        a->sq_log < SNIC_MIN_LOG_SIZE || a->sq_log > SNIC_MAX_LOG_SIZE ||
        le16_to_cpu(a->db_page) >= SNIC_DB_PAGES ||
        le64_to_cpu(a->sq_addr) % SNIC_RING_ALIGN ||
        le64_to_cpu(a->dbr_addr) % 4 ||
        (srqn != SNIC_SRQN_NONE && s->rdma.srqs[srqn].pdn != pdn) ||
        (srqn == SNIC_SRQN_NONE && !xrc &&
         (a->rq_log < SNIC_MIN_LOG_SIZE || a->rq_log > SNIC_MAX_LOG_SIZE ||
          (!pipe && (a->rq_log_stride < 5 || a->rq_log_stride > 8)) ||
          le64_to_cpu(a->rq_addr) % SNIC_RING_ALIGN))) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    /*
     * A pipe QP: its own receive pipe of at least one line of RQEs, a
     * consumer record; the fields are zero on a doorbell QP.
     */
    if (pipe ? (a->type == SNIC_QPT_GSI || srqn != SNIC_SRQN_NONE ||
                a->rq_log < SNIC_PIPE_MIN_RQ_LOG || !a->ci_every ||
                le64_to_cpu(a->ci_addr) % 4) :
               (a->ci_every || a->ci_addr)) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if ((pipe && !snic_dma_probe(s, le64_to_cpu(a->ci_addr))) ||
        !snic_dma_probe(s, le64_to_cpu(a->sq_addr)) ||
        !snic_dma_probe(s, le64_to_cpu(a->dbr_addr)) ||
        (srqn == SNIC_SRQN_NONE && !xrc &&
         !snic_dma_probe(s, le64_to_cpu(a->rq_addr)))) {
        s->stats.dma_errs++;
        return SNIC_AQ_EDMA;
    }
    return SNIC_AQ_OK;
}

uint16_t snic_rdma_create_qp(SnicState *s, const struct snic_aq_cmd *c,
                             uint64_t *res)
{
    struct snic_aq_create_qp a;
    uint32_t pdn, qpn;
    uint16_t srqn, scqn, rcqn, st;
    bool pipe, tgt;
    SnicQp *qp;

    memcpy(&a, c->raw, sizeof(a));
    st = snic_create_qp_check(s, &a);
    if (st != SNIC_AQ_OK) {
        return st;
    }
    pipe = a.flags & SNIC_QP_F_PIPE;
    tgt = a.type == SNIC_QPT_XRC_TGT;
    pdn = le32_to_cpu(a.pdn);
    srqn = le16_to_cpu(a.srqn);
    scqn = le16_to_cpu(a.send_cqn);
    rcqn = a.type == SNIC_QPT_XRC_INI ? scqn : le16_to_cpu(a.recv_cqn);
    if (a.type == SNIC_QPT_GSI) {
        if (s->rdma.qps[SNIC_GSI_QPN].valid) {
            return SNIC_AQ_EBUSY;
        }
        qpn = SNIC_GSI_QPN;
    } else {
        for (qpn = 2; qpn < SNIC_MAX_QPS && s->rdma.qps[qpn].valid; qpn++) {
            continue;
        }
        if (qpn == SNIC_MAX_QPS) {
            return SNIC_AQ_ENOSPC;
        }
    }
    qp = &s->rdma.qps[qpn];
    memset(qp, 0, sizeof(*qp));
    qp->db_page = le16_to_cpu(a.db_page);
    if ((a.flags & SNIC_QP_F_SSQ) && !snic_ssq_place(s, qp)) {
        return SNIC_AQ_ENOENT;      /* its context has no SSQ */
    }
    qp->valid = true;
    qp->s = s;
    qp->qpn = qpn;
    qp->type = a.type;
    qp->flags = a.flags;
    qp->state = SNIC_QPS_RESET;
    qp->pdn = pdn;
    qp->scqn = scqn;
    qp->rcqn = rcqn;
    qp->srqn = srqn;
    qp->db_page = le16_to_cpu(a.db_page);
    qp->sq_ring = le64_to_cpu(a.sq_addr);
    qp->rq.ring = le64_to_cpu(a.rq_addr);
    qp->dbr = le64_to_cpu(a.dbr_addr);
    qp->rq.dbr = qp->dbr;
    qp->sq_log = a.sq_log;
    qp->rq.log_size = srqn == SNIC_SRQN_NONE ? a.rq_log : 0;
    qp->rq.log_stride = a.rq_log_stride;
    qp->ci_every = a.ci_every;
    qp->ci_addr = le64_to_cpu(a.ci_addr);
    qp->path_mtu = SNIC_MTU_1024;
    qp->mtu = 1024;
    qp->qkey = a.type == SNIC_QPT_GSI ? SNIC_GSI_QKEY : 0;
    qp->win = g_new0(SnicSwqe, SNIC_RDMA_WIN);
    qp->retry_timer = d2d_timer_new_guarded(DEVICE(s), snic_rdma_retry_timer,
                                            qp);
    qp->rnr_timer = d2d_timer_new_guarded(DEVICE(s), snic_rdma_rnr_timer, qp);
    qp->probe_timer = d2d_timer_new_guarded(DEVICE(s), snic_rdma_probe_timer,
                                            qp);
    snic_rdma_cc_qp_init(s, qp);
    if (tgt) {
        snic_xrc_qp_init(s, qp, le16_to_cpu(a.xrcdn));
    } else {
        s->rdma.pds[pdn].refs++;
        s->cqs[scqn].refs++;
        s->cqs[rcqn].refs++;
    }
    if (srqn != SNIC_SRQN_NONE && !tgt) {
        s->rdma.srqs[srqn].refs++;
    }
    s->rdma.qps_hi = MAX(s->rdma.qps_hi, qpn + 1);
    s->rdma.nqps++;
    if (pipe && !(a.flags & SNIC_QP_F_SSQ)) {
        snic_pipe_add(s, qp);
    }
    /* an SSQ QP: which core's SSQ its SQEs go to, their generation */
    *res = qpn | ((a.flags & SNIC_QP_F_SSQ) ?
                  (uint64_t)qp->pipe_core << 32 |
                  (uint64_t)s->rdma.ssq_gen[qpn] << 40 : 0);
    return SNIC_AQ_OK;
}

/* Release what a QP holds (destroy and device reset). */
void snic_rdma_qp_free(SnicState *s, SnicQp *qp)
{
    s->spin_hook->qp_gone(s, qp);
    snic_rdma_mcast_qp_gone(s, qp->qpn);
    if (qp->flags & SNIC_QP_F_SSQ) {
        snic_ssq_unplace(s, qp);
        s->rdma.ssq_gen[qp->qpn]++;
    } else if (qp->flags & SNIC_QP_F_PIPE) {
        snic_pipe_remove(s, qp);
    }
    snic_rdma_custom_clear(qp);
    d2d_timer_free_guarded(qp->retry_timer);
    d2d_timer_free_guarded(qp->rnr_timer);
    d2d_timer_free_guarded(qp->probe_timer);
    snic_rdma_cc_qp_free(qp);
    g_free(qp->win);
    qp->retry_timer = qp->rnr_timer = qp->probe_timer = NULL;
    qp->win = NULL;
    qp->valid = false;
    s->rdma.nqps--;
}

uint16_t snic_rdma_destroy_qp(SnicState *s, uint32_t qpn)
{
    SnicQp *qp = snic_rdma_qp(s, qpn);

    if (!qp) {
        return SNIC_AQ_ENOENT;
    }
    if (qp->type == SNIC_QPT_XRC_TGT) {
        snic_xrc_qp_destroy(s, qp);
    } else {
        s->rdma.pds[qp->pdn].refs--;
        s->cqs[qp->scqn].refs--;
        s->cqs[qp->rcqn].refs--;
        if (qp->srqn != SNIC_SRQN_NONE) {
            s->rdma.srqs[qp->srqn].refs--;
        }
    }
    snic_mw_qp_gone(s, qpn);
    snic_rdma_qp_free(s, qp);
    return SNIC_AQ_OK;
}

/* RESET: back to creation state (rings start at counter 0 again). */
static void snic_qp_reset(SnicQp *qp)
{
    timer_del(qp->retry_timer);
    timer_del(qp->rnr_timer);
    timer_del(qp->probe_timer);
    qp->pto_shift = 0;
    qp->sq_pi = qp->sq_fetch = 0;
    qp->mmio_valid = false;
    qp->win_head = qp->win_tail = qp->tx_wqe = 0;
    qp->rq.pi = qp->rq.ci = 0;
    qp->resp_op = 0;
    qp->uc_drop = false;
    qp->have_rwqe = false;
    qp->ack_pending = false;
    qp->nak_sent = false;
    qp->comm_est = false;
    qp->job_head = qp->job_tail = 0;
    memset(qp->acache, 0, sizeof(qp->acache));
    snic_rdma_custom_clear(qp);
    qp->rnr_wait = false;
    qp->rewound = false;
    qp->probe = false;
    qp->req_ask = 0;
    qp->fetch_blocked = false;
    qp->drained_sent = false;
    qp->pkts_since_ack = 0;
    qp->msn = 0;
    memset(&qp->cnt, 0, sizeof(qp->cnt));
    snic_pipe_qp_reset(qp);
    snic_llq_qp_reset(qp);
}

static void snic_qp_set_psn(SnicQp *qp, uint32_t psn)
{
    qp->next_psn = qp->tx_psn = qp->comp_psn = qp->max_sent = psn;
    qp->cwnd = SNIC_RDMA_CWND_INIT;
}

/*
 * Is @from -> @to a verbs transition, and which attributes must come with
 * it?  Returns false if not allowed.
 */
static bool snic_qp_transition(SnicQp *qp, uint8_t from, uint8_t to,
                               uint32_t *req)
{
    bool rc = snic_qp_reliable(qp), conn = snic_qp_connected(qp);

    *req = 0;
    if (to == SNIC_QPS_RESET || to == SNIC_QPS_ERR) {
        return true;
    }
    switch (from) {
    case SNIC_QPS_RESET:
        if (to != SNIC_QPS_INIT) {
            return false;
        }
        *req = SNIC_QP_ATTR_PKEY_INDEX |
               (conn ? SNIC_QP_ATTR_ACCESS : SNIC_QP_ATTR_QKEY);
        return true;
    case SNIC_QPS_INIT:
        if (to == SNIC_QPS_RTR) {
            /* an XRC_INI QP has no responder */
            *req = (conn ? SNIC_QP_ATTR_AV | SNIC_QP_ATTR_PATH_MTU |
                           SNIC_QP_ATTR_DEST_QPN | SNIC_QP_ATTR_RQ_PSN : 0) |
                   (rc && qp->type != SNIC_QPT_XRC_INI ?
                    SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC |
                    SNIC_QP_ATTR_MIN_RNR_TIMER : 0);
            return true;
        }
        return to == SNIC_QPS_INIT;
    case SNIC_QPS_RTR:
        if (to != SNIC_QPS_RTS) {
            return false;
        }
        /* an XRC_TGT QP has no requester */
        *req = SNIC_QP_ATTR_SQ_PSN |
               (qp->type == SNIC_QPT_XRC_TGT ? SNIC_QP_ATTR_TIMEOUT :
                rc ? SNIC_QP_ATTR_TIMEOUT | SNIC_QP_ATTR_RETRY_CNT |
                     SNIC_QP_ATTR_RNR_RETRY | SNIC_QP_ATTR_MAX_RD_ATOMIC : 0);
        return true;
    case SNIC_QPS_RTS:
        return to == SNIC_QPS_RTS || to == SNIC_QPS_SQD;
    case SNIC_QPS_SQD:
        return to == SNIC_QPS_RTS || to == SNIC_QPS_SQD;
    case SNIC_QPS_SQE:
        return to == SNIC_QPS_RTS;
    default:
        return false;
    }
}

uint16_t snic_rdma_modify_qp(SnicState *s, const struct snic_aq_cmd *c)
{
    struct snic_qp_attr a;
    uint16_t st;
    uint32_t mask, req;
    uint8_t to;
    SnicQp *qp;

    qp = snic_rdma_qp(s, le32_to_cpu(c->buf.id));
    if (!qp) {
        return SNIC_AQ_ENOENT;
    }
    st = snic_aq_read_buf(s, c, &a, sizeof(a));
    if (st != SNIC_AQ_OK) {
        return st;
    }
    mask = le32_to_cpu(a.mask);
    to = (mask & SNIC_QP_ATTR_STATE) ? a.state : qp->state;
    if (to > SNIC_QPS_ERR || (mask & ~0x1ffffu)) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if ((mask & SNIC_QP_ATTR_CUR_STATE) && a.cur_state != qp->state) {
        return SNIC_AQ_ESTATE;
    }
    if (mask & SNIC_QP_ATTR_STATE) {
        if (!snic_qp_transition(qp, qp->state, to, &req)) {
            return SNIC_AQ_ESTATE;
        }
        if ((mask & req) != req) {
            return SNIC_AQ_EINVAL_PARAM;
        }
    }
    /*
     * PSNs only before traffic (INIT->RTR, RTR->RTS): changing them under
     * outstanding work would break the PSN bookkeeping.
     */
    if (((mask & SNIC_QP_ATTR_RQ_PSN) && qp->state > SNIC_QPS_INIT) ||
        ((mask & SNIC_QP_ATTR_SQ_PSN) && qp->state > SNIC_QPS_RTR)) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (((mask & SNIC_QP_ATTR_PATH_MTU) &&
         (a.path_mtu < SNIC_MTU_256 || a.path_mtu > SNIC_MTU_4096)) ||
        ((mask & SNIC_QP_ATTR_RETRY_CNT) && a.retry_cnt > 7) ||
        ((mask & SNIC_QP_ATTR_RNR_RETRY) && a.rnr_retry > 7) ||
        ((mask & SNIC_QP_ATTR_MIN_RNR_TIMER) && a.min_rnr_timer > 31) ||
        ((mask & SNIC_QP_ATTR_TIMEOUT) && a.timeout > 31) ||
        ((mask & SNIC_QP_ATTR_MAX_RD_ATOMIC) &&
         a.max_rd_atomic > SNIC_MAX_RD_ATOMIC) ||
        ((mask & SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC) &&
         a.max_dest_rd_atomic > SNIC_MAX_RD_ATOMIC) ||
        ((mask & SNIC_QP_ATTR_PKEY_INDEX) && a.pkey_index) ||
        ((mask & SNIC_QP_ATTR_RQ_PSN) &&
         le32_to_cpu(a.rq_psn) > ROCE_PSN_MASK) ||
        ((mask & SNIC_QP_ATTR_SQ_PSN) &&
         le32_to_cpu(a.sq_psn) > ROCE_PSN_MASK) ||
        ((mask & SNIC_QP_ATTR_DEST_QPN) &&
         le32_to_cpu(a.dest_qpn) > ROCE_PSN_MASK) ||
        ((mask & SNIC_QP_ATTR_AV) && ((a.av.flags & ~SNIC_AV_F_ALL) ||
                                      snic_rdma_av_vid(&a.av) > 4094))) {
        return SNIC_AQ_EINVAL_PARAM;
    }

    /* Accepted: apply. */
    if (mask & SNIC_QP_ATTR_STATE && to == SNIC_QPS_RESET) {
        snic_qp_reset(qp);
        snic_rdma_cc_qp_reset(s, qp);
    }
    if (mask & SNIC_QP_ATTR_ACCESS) {
        qp->access = le32_to_cpu(a.access) & 0xf;
    }
    if (mask & SNIC_QP_ATTR_QKEY && qp->type != SNIC_QPT_GSI) {
        qp->qkey = le32_to_cpu(a.qkey);
    }
    if (mask & SNIC_QP_ATTR_AV) {
        qp->av = a.av;
        memcpy(qp->sip6, a.sip6, 16);
        memcpy(qp->dip6, a.dip6, 16);
    }
    if (mask & SNIC_QP_ATTR_PATH_MTU) {
        qp->path_mtu = a.path_mtu;
        qp->mtu = 128u << a.path_mtu;
    }
    if (mask & SNIC_QP_ATTR_TIMEOUT) {
        qp->timeout = a.timeout;
    }
    if (mask & SNIC_QP_ATTR_RETRY_CNT) {
        qp->retry_cnt = a.retry_cnt;
        qp->retry_left = a.retry_cnt;
    }
    if (mask & SNIC_QP_ATTR_RNR_RETRY) {
        qp->rnr_retry = a.rnr_retry;
        qp->rnr_left = a.rnr_retry;
    }
    if (mask & SNIC_QP_ATTR_MIN_RNR_TIMER) {
        qp->min_rnr_timer = a.min_rnr_timer;
    }
    if (mask & SNIC_QP_ATTR_MAX_RD_ATOMIC) {
        qp->max_rd_atomic = a.max_rd_atomic;
    }
    if (mask & SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC) {
        qp->max_dest_rd_atomic = a.max_dest_rd_atomic;
    }
    if (mask & SNIC_QP_ATTR_SQD_NOTIFY) {
        qp->sqd_notify = a.sqd_notify;
    }
    if (mask & SNIC_QP_ATTR_DEST_QPN) {
        qp->dest_qpn = le32_to_cpu(a.dest_qpn);
    }
    if (mask & SNIC_QP_ATTR_RQ_PSN) {
        qp->resp_psn = le32_to_cpu(a.rq_psn);
    }
    if (mask & SNIC_QP_ATTR_SQ_PSN) {
        snic_qp_set_psn(qp, le32_to_cpu(a.sq_psn));
        snic_rdma_cc_qp_reset(s, qp);
    }
    if (mask & SNIC_QP_ATTR_STATE) {
        uint8_t from = qp->state;

        trace_snic_qp_state(qp->qpn, from, to);
        qp->state = to;
        if (to == SNIC_QPS_ERR && from != SNIC_QPS_ERR) {
            snic_rdma_flush(s, qp);
            if (qp->srqn != SNIC_SRQN_NONE) {
                snic_rdma_event(s, SNIC_EQE_QP_LAST_WQE, qp->qpn, 0);
            }
        }
        if (to == SNIC_QPS_SQD) {
            qp->drained_sent = false;
        }
        if (to == SNIC_QPS_RTS && from == SNIC_QPS_SQE) {
            qp->fetch_blocked = false;
        }
        if (to == SNIC_QPS_RTS && (qp->flags & SNIC_QP_F_SSQ)) {
            snic_ssq_wake(s);
        } else if (to == SNIC_QPS_RTS && (qp->flags & SNIC_QP_F_PIPE)) {
            snic_pipe_wake(s);
        }
    }
    snic_rdma_kick(s, qp);
    return SNIC_AQ_OK;
}

uint16_t snic_rdma_query_qp(SnicState *s, const struct snic_aq_cmd *c)
{
    struct snic_qp_attr a;
    SnicQp *qp = snic_rdma_qp(s, le32_to_cpu(c->buf.id));

    if (!qp) {
        return SNIC_AQ_ENOENT;
    }
    memset(&a, 0, sizeof(a));
    a.mask = cpu_to_le32(0x1ffff);
    a.state = a.cur_state = qp->state;
    a.path_mtu = qp->path_mtu;
    a.timeout = qp->timeout;
    a.retry_cnt = qp->retry_cnt;
    a.rnr_retry = qp->rnr_retry;
    a.min_rnr_timer = qp->min_rnr_timer;
    a.max_rd_atomic = qp->max_rd_atomic;
    a.max_dest_rd_atomic = qp->max_dest_rd_atomic;
    a.sqd_notify = qp->sqd_notify;
    a.dest_qpn = cpu_to_le32(qp->dest_qpn);
    a.rq_psn = cpu_to_le32(qp->resp_psn);
    a.sq_psn = cpu_to_le32(qp->next_psn);
    a.qkey = cpu_to_le32(qp->qkey);
    a.access = cpu_to_le32(qp->access);
    a.av = qp->av;
    memcpy(a.sip6, qp->sip6, 16);
    memcpy(a.dip6, qp->dip6, 16);
    a.retransmits = cpu_to_le32(qp->cnt.retransmits);
    a.rnr_naks_rcvd = cpu_to_le32(qp->cnt.rnr_naks_rcvd);
    a.seq_naks_rcvd = cpu_to_le32(qp->cnt.seq_naks_rcvd);
    a.sq_outstanding = cpu_to_le32(qp->win_tail - qp->win_head);
    a.cc_rate_mbps = cpu_to_le32(snic_rdma_cc_rate_mbps(s, qp));
    return snic_aq_write_buf(s, c, &a, sizeof(a));
}

/* ---- doorbells ---- */

/*
 * A WQE-by-MMIO line for the send queue of QP ctrl.db_qn: the first basic
 * block of its WQE at ctrl.wqe_idx, and the doorbell making the producer
 * wqe_idx + ceil(ds_cnt / 4).  Refused (false): no such QP on @page, a
 * pipe or SSQ QP (no producer doorbell), ds_cnt 0 or over 16, a counter
 * behind the producer the device has or a WQE past the ring.
 */
bool snic_rdma_db_wqe(SnicState *s, uint16_t page, const uint8_t *line)
{
    const struct snic_wqe_ctrl *ctrl = (const void *)line;
    SnicQp *qp = snic_rdma_qp(s, le16_to_cpu(ctrl->db_qn));
    uint16_t idx = le16_to_cpu(ctrl->wqe_idx);
    unsigned nbb = DIV_ROUND_UP(ctrl->ds_cnt, 4);
    uint16_t ahead;

    if (!qp || qp->db_page != page || !snic_qp_has_sq(qp) ||
        (qp->flags & (SNIC_QP_F_PIPE | SNIC_QP_F_SSQ))) {
        return false;
    }
    ahead = idx - qp->sq_fetch;
    if (ctrl->ds_cnt == 0 || nbb > SNIC_WQE_MAX_BBS ||
        ahead < (uint16_t)(qp->sq_pi - qp->sq_fetch) ||
        ahead + nbb > QP_SQ_SIZE(qp)) {
        return false;
    }
    d2d_mmio_account(&qp->pcie, true,
                     page * SNIC_DB_PAGE_SIZE + SNIC_DB_QP_SQ_WQE,
                     SNIC_DB_SQ_WQE_SIZE);
    s->rdma.st.mmio_wqe++;
    memcpy(qp->mmio_bb, line, SNIC_WQEBB_SIZE);
    qp->mmio_idx = idx;
    qp->mmio_valid = true;
    qp->sq_pi = idx + nbb;
    snic_rdma_kick(s, qp);
    return true;
}

bool snic_rdma_db(SnicState *s, uint16_t page, uint32_t off, uint32_t qn,
                  uint16_t ctr)
{
    SnicQp *qp;

    switch (off) {
    case SNIC_DB_QP_SQ:
    case SNIC_DB_QP_RQ:
        break;
    case SNIC_DB_SRQ:
        snic_rdma_srq_db(s, page, qn, ctr);
        return true;
    default:
        return false;
    }
    qp = snic_rdma_qp(s, qn);
    if (!qp) {
        s->stats.bad_db++;
        snic_raise_error(s, SNIC_ERR_DB_QUEUE, "doorbell for no QP");
        return true;
    }
    if (page != qp->db_page) {
        s->stats.bad_db++;
        snic_raise_error(s, SNIC_ERR_DB_PAGE, "QP doorbell on a foreign page");
        return true;
    }
    if (off == SNIC_DB_QP_RQ ? snic_qp_xrc(qp) : !snic_qp_has_sq(qp)) {
        s->stats.bad_db++;
        snic_raise_error(s, SNIC_ERR_DB_QUEUE,
                         "doorbell for a queue the XRC QP does not have");
        return true;
    }
    d2d_mmio_account(&qp->pcie, true, page * SNIC_DB_PAGE_SIZE + off, 4);
    s->rdma.st.mmio_doorbells++;
    if (qp->flags & SNIC_QP_F_PIPE) {
        /* no producer counters: only a hint to look at the pipes now */
        snic_rdma_kick(s, qp);
        return true;
    }
    if (off == SNIC_DB_QP_SQ) {
        if ((uint16_t)(ctr - qp->sq_fetch) > QP_SQ_SIZE(qp)) {
            s->stats.bad_db++;
            snic_raise_error(s, SNIC_ERR_DB_RANGE,
                             "QP SQ doorbell beyond ring");
            return true;
        }
        qp->sq_pi = ctr;
    } else {
        if (qp->srqn != SNIC_SRQN_NONE ||
            (uint16_t)(ctr - qp->rq.ci) > (1u << qp->rq.log_size)) {
            s->stats.bad_db++;
            snic_raise_error(s, SNIC_ERR_DB_RANGE,
                             "QP RQ doorbell beyond ring");
            return true;
        }
        qp->rq.pi = ctr;
    }
    snic_rdma_kick(s, qp);
    return true;
}
