/*
 * snic: RDMA completer - the requester's receive side: ACKs (coalesced,
 * implied NAKs), sequence/RNR/error NAKs, READ responses into the scatter
 * list, atomic ACKs; in-order send completions (signaled, unsignaled,
 * error); the retransmit and RNR timers on the virtual clock.
 * docs/snic-rdma.md "Reliability", "CQEs for RDMA".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "snic.h"

/* IB RNR timer codes (C9-XX table), in microseconds. */
int64_t snic_rdma_rnr_ns(uint8_t code)
{
    static const uint32_t us[32] = {
        655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
        1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
        40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
    };

    return (int64_t)us[code & 31] * 1000;
}

static bool snic_wqe_atomic(const SnicSwqe *w)
{
    return w->opcode == SNIC_WQE_ATOMIC_CS || w->opcode == SNIC_WQE_ATOMIC_FA;
}

/* Answered by READ responses (READ, CUSTOM) or an atomic ACK. */
static bool snic_rd_atomic(const SnicSwqe *w)
{
    return w->opcode == SNIC_WQE_RDMA_READ || w->opcode == SNIC_WQE_CUSTOM ||
           snic_wqe_atomic(w);
}

/* Complete finished WQEs at the head of the window, in order. */
bool snic_rdma_retire(SnicState *s, SnicQp *qp)
{
    bool rc = snic_qp_reliable(qp), progress = false;

    while (qp->win_head != qp->win_tail &&
           qp->state != SNIC_QPS_ERR && qp->state != SNIC_QPS_RESET) {
        SnicSwqe *w = &qp->win[qp->win_head % SNIC_RDMA_WIN];
        uint8_t st = w->status;

        if (st) {
            qp->win_head++;
            snic_rdma_req_cqe(s, qp, w, st);
            snic_rdma_qp_error(s, qp, st, true);
            return true;
        }
        if (!w->local &&
            (rc ? snic_psn_diff(qp->comp_psn, w->first_psn + w->npkts) < 0 :
                  !w->sent)) {
            break;
        }
        if ((w->flags & SNIC_WQE_F_SIGNAL) || (qp->flags & SNIC_QP_F_SIG_ALL)) {
            snic_rdma_req_cqe(s, qp, w, SNIC_RST_OK);
        }
        if (!rc && !w->local && snic_qp_connected(qp)) {
            /* UC: nothing to acknowledge; the PSN window moves on */
            qp->comp_psn = (w->first_psn + w->npkts) & ROCE_PSN_MASK;
        }
        qp->win_head++;
        progress = true;
    }
    if ((int32_t)(qp->tx_wqe - qp->win_head) < 0) {
        qp->tx_wqe = qp->win_head;
    }
    if (qp->state == SNIC_QPS_SQD && qp->win_head == qp->win_tail &&
        qp->sqd_notify && !qp->drained_sent) {
        qp->drained_sent = true;
        snic_rdma_event(s, SNIC_EQE_QP_SQ_DRAINED, qp->qpn, 0);
    }
    if (progress) {
        snic_rdma_kick(s, qp);
    }
    return progress;
}

/* ---- timers ---- */

void snic_rdma_probe_timer(void *opaque)
{
    SnicQp *qp = opaque;
    SnicState *s = qp->s;

    if (!qp->valid || (qp->state != SNIC_QPS_RTS && qp->state != SNIC_QPS_SQD)
        || qp->rnr_wait || !snic_rdma_outstanding(qp)) {
        return;
    }
    qp->req_ask |= SNIC_REQ_PROBE;
    snic_rdma_kick(s, qp);
    if (qp->pto_shift < SNIC_RDMA_PTO_MAX_SHIFT) {
        qp->pto_shift++;
    }
    snic_rdma_timer_update(s, qp);
}

static void snic_timer_restart(SnicState *s, SnicQp *qp)
{
    timer_del(qp->retry_timer);
    timer_del(qp->probe_timer);
    qp->pto_shift = 0;
    snic_rdma_timer_update(s, qp);
}

/* The WQE holding @psn fails with @st; the QP goes to ERR. */
static void snic_comp_fail(SnicState *s, SnicQp *qp, uint32_t psn, uint8_t st)
{
    uint32_t i;

    for (i = qp->win_head; i != qp->win_tail; i++) {
        SnicSwqe *w = &qp->win[i % SNIC_RDMA_WIN];

        if (!w->local && snic_psn_diff(psn, w->first_psn + w->npkts) < 0) {
            w->status = st;
            w->local = true;
            break;
        }
    }
    snic_rdma_retire(s, qp);
    if (qp->state != SNIC_QPS_ERR) {
        snic_rdma_qp_error(s, qp, st, true);
    }
}

static void snic_retry_expired(SnicState *s, SnicQp *qp)
{
    s->rdma.st.timeouts++;
    if (!qp->retry_left) {
        snic_comp_fail(s, qp, qp->comp_psn, SNIC_RST_RETRY_EXC);
        return;
    }
    qp->retry_left--;
    qp->rewound = false;
    qp->probe = true;
    qp->cwnd = SNIC_RDMA_CWND_MIN;
    qp->req_ask |= SNIC_REQ_REWIND;
    snic_rdma_kick(s, qp);
}

void snic_rdma_retry_timer(void *opaque)
{
    SnicQp *qp = opaque;
    SnicState *s = qp->s;
    SnicQpCountMark mark;

    if (!qp->valid || (qp->state != SNIC_QPS_RTS && qp->state != SNIC_QPS_SQD)
        || !snic_rdma_outstanding(qp)) {
        return;
    }
    snic_qp_count_begin(s, qp, &mark);
    snic_retry_expired(s, qp);
    snic_qp_count_end(s, &mark);
}

void snic_rdma_rnr_timer(void *opaque)
{
    SnicQp *qp = opaque;

    if (qp->valid && qp->rnr_wait) {
        qp->rnr_wait = false;
        snic_rdma_kick(qp->s, qp);
    }
}

/* ---- responses ---- */

/*
 * Everything before @upto is acknowledged, except that a READ/atomic
 * still missing its responses stops the walk.  Returns true if @upto
 * passes such a READ/atomic: its responses were lost (implied NAK).
 */
static bool snic_ack_upto(SnicQp *qp, uint32_t upto)
{
    uint32_t i;

    for (i = qp->win_head; i != qp->win_tail; i++) {
        SnicSwqe *w = &qp->win[i % SNIC_RDMA_WIN];
        uint32_t end = (w->first_psn + w->npkts) & ROCE_PSN_MASK;

        if (w->local || snic_psn_diff(qp->comp_psn, end) >= 0) {
            continue;
        }
        if (snic_psn_diff(upto, w->first_psn) <= 0) {
            break;
        }
        if (snic_rd_atomic(w)) {
            return true;
        }
        if (snic_psn_diff(upto, end) < 0) {
            qp->comp_psn = upto & ROCE_PSN_MASK;
            break;
        }
        qp->comp_psn = end;
    }
    return false;
}

/* Go back to the first unacknowledged PSN, once per position. */
static void snic_comp_gap(SnicState *s, SnicQp *qp)
{
    if (qp->rewound && qp->rewound_at == qp->comp_psn) {
        return;
    }
    qp->rewound = true;
    qp->rewound_at = qp->comp_psn;
    qp->cwnd = MAX(qp->cwnd / 2, SNIC_RDMA_CWND_MIN);
    qp->req_ask |= SNIC_REQ_REWIND;
}

static SnicSwqe *snic_comp_wqe(SnicQp *qp, uint32_t psn)
{
    uint32_t i;

    for (i = qp->win_head; i != qp->win_tail; i++) {
        SnicSwqe *w = &qp->win[i % SNIC_RDMA_WIN];

        if (!w->local && snic_psn_diff(psn, w->first_psn) >= 0 &&
            snic_psn_diff(psn, w->first_psn + w->npkts) < 0) {
            return w;
        }
    }
    return NULL;
}

/* READ response or atomic ACK at PSN h->psn for WQE @w. */
static void snic_comp_data(SnicState *s, SnicQp *qp, SnicSwqe *w,
                           const SnicRoceHdr *h)
{
    uint64_t off, want;
    uint8_t buf[8];
    int32_t d;
    uint8_t st;

    if (snic_ack_upto(qp, w->first_psn) ||
        snic_psn_diff(qp->comp_psn, w->first_psn) < 0) {
        /* an earlier READ/atomic is still missing its responses */
        snic_comp_gap(s, qp);
        return;
    }
    d = snic_psn_diff(h->psn, qp->comp_psn);
    if (d < 0) {
        return;                 /* duplicate */
    }
    if (d > 0) {
        snic_comp_gap(s, qp);
        return;
    }
    if (!snic_wqe_atomic(w)) {
        off = (uint64_t)snic_psn_diff(h->psn, w->first_psn) * w->mtu;
        want = MIN(w->mtu, w->len - off);
        if (h->paylen != want) {
            s->rdma.st.rx_malformed++;
            return;
        }
        st = snic_rdma_sg_copy(s, qp, w->sge, w->nsge, off, (void *)h->payload,
                               h->paylen, true);
    } else {
        stq_le_p(buf, h->orig);
        st = snic_rdma_sg_copy(s, qp, w->sge, w->nsge, 0, buf, 8, true);
    }
    if (st) {
        snic_comp_fail(s, qp, h->psn, st);
        return;
    }
    qp->comp_psn = (h->psn + 1) & ROCE_PSN_MASK;
}

void snic_rdma_comp_rx(SnicState *s, SnicQp *qp, const SnicRoceHdr *h)
{
    SnicRdmaStats *st = &s->rdma.st;
    uint32_t fl = snic_roce_opflags(h->opcode), old = qp->comp_psn;
    uint8_t type = h->syndrome & AETH_TYPE_MASK;
    SnicSwqe *w;

    if (!snic_qp_reliable(qp) ||
        (qp->state != SNIC_QPS_RTS && qp->state != SNIC_QPS_SQD)) {
        st->rx_no_qp++;
        return;
    }
    /* a response for a PSN never sent */
    if (snic_psn_diff(h->psn, qp->max_sent) >= 0) {
        st->rx_malformed++;
        return;
    }
    if (fl & ROCE_F_READ || h->opcode == ROCE_ATOMIC_ACK) {
        w = snic_comp_wqe(qp, h->psn);
        if (!w || (h->opcode == ROCE_ATOMIC_ACK) != snic_wqe_atomic(w) ||
            !snic_rd_atomic(w)) {
            if (snic_psn_diff(h->psn, qp->comp_psn) >= 0) {
                st->rx_malformed++;
            }
            return;
        }
        st->rx_acks += h->opcode == ROCE_ATOMIC_ACK;
        snic_comp_data(s, qp, w, h);
    } else if (type == AETH_ACK) {
        st->rx_acks++;
        if (snic_ack_upto(qp, h->psn + 1)) {
            snic_comp_gap(s, qp);
        }
    } else if (type == AETH_RNR_NAK) {
        st->rnr_naks_rcvd++;
        qp->cnt.rnr_naks_rcvd++;
        if (snic_psn_diff(h->psn, qp->comp_psn) < 0) {
            return;
        }
        snic_ack_upto(qp, h->psn);
        if (qp->rnr_retry != 7) {
            if (!qp->rnr_left) {
                snic_comp_fail(s, qp, h->psn, SNIC_RST_RNR_RETRY_EXC);
                return;
            }
            qp->rnr_left--;
        }
        snic_rdma_retire(s, qp);
        qp->rnr_wait = true;
        qp->req_ask |= SNIC_REQ_REWIND;
        timer_del(qp->retry_timer);
        timer_mod(qp->rnr_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                  snic_rdma_rnr_ns(h->syndrome));
        return;
    } else if (type == AETH_NAK) {
        uint8_t code = h->syndrome & 0x1f;

        if (snic_psn_diff(h->psn, qp->comp_psn) < 0) {
            return;
        }
        snic_ack_upto(qp, h->psn);
        switch (code) {
        case AETH_NAK_PSN_SEQ:
            st->seq_naks_rcvd++;
            qp->cnt.seq_naks_rcvd++;
            snic_comp_gap(s, qp);
            break;
        case AETH_NAK_INV_REQ:
            st->inv_req_naks_rcvd++;
            snic_comp_fail(s, qp, h->psn, SNIC_RST_REM_INV_REQ);
            return;
        case AETH_NAK_REM_ACCESS:
            st->rem_access_naks_rcvd++;
            snic_comp_fail(s, qp, h->psn, SNIC_RST_REM_ACCESS);
            return;
        case AETH_NAK_REM_OP:
            st->rem_op_naks_rcvd++;
            snic_comp_fail(s, qp, h->psn, SNIC_RST_REM_OP);
            return;
        default:
            st->rx_malformed++;
            return;
        }
    } else {
        st->rx_malformed++;
        return;
    }
    if (qp->comp_psn != old) {
        /* forward progress: fresh retry budget, timer restarted */
        qp->retry_left = qp->retry_cnt;
        qp->rnr_left = qp->rnr_retry;
        qp->probe = false;
        qp->cwnd = MIN(qp->cwnd + 1, SNIC_RDMA_MAX_INFLIGHT);
        if (snic_psn_diff(qp->tx_psn, qp->comp_psn) < 0) {
            qp->req_ask |= SNIC_REQ_REWIND;
        }
        snic_rdma_retire(s, qp);
        snic_timer_restart(s, qp);
    }
    snic_rdma_kick(s, qp);
}
