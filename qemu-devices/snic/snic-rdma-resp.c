/*
 * snic: RDMA responder - request processing with PSN checks (sequence
 * NAK, duplicates, RNR), SEND/WRITE data placement, READ and atomic
 * execution, receive completions, and the responder's half of the bottom
 * half: READ responses, atomic ACKs and coalesced ACK/NAKs.
 * docs/snic-rdma.md "Reliability".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "snic.h"

/* ---- ACK / NAK ---- */

/*
 * Queue an ACK or NAK for the bottom half.  A later one replaces it,
 * except that a sequence NAK never replaces an RNR NAK (same PSN, and the
 * RNR wait must reach the requester).
 */
static void snic_resp_ack(SnicState *s, SnicQp *qp, uint8_t syn, uint32_t psn)
{
    if (qp->ack_pending && (qp->ack_syn & AETH_TYPE_MASK) == AETH_RNR_NAK &&
        syn == (AETH_NAK | AETH_NAK_PSN_SEQ)) {
        return;
    }
    qp->ack_pending = true;
    qp->ack_syn = syn;
    qp->ack_psn = psn & ROCE_PSN_MASK;
    snic_rdma_kick(s, qp);
}

static void snic_resp_send_ack(SnicState *s, SnicQp *qp)
{
    uint8_t *f = s->rdma.frame;
    SnicRdmaStats *st = &s->rdma.st;
    SnicRoceHdr h;

    snic_rdma_hdr_init(s, qp, &h, ROCE_ACK, qp->ack_psn);
    h.syndrome = qp->ack_syn;
    h.msn = qp->msn;
    snic_roce_build(f, &h, 0);
    snic_rdma_xmit(s, qp, &h, f, snic_roce_finish(f, &h, 0));
    qp->ack_pending = false;
    switch (qp->ack_syn & AETH_TYPE_MASK) {
    case AETH_ACK:
        st->tx_acks++;
        break;
    case AETH_RNR_NAK:
        st->rnr_naks_sent++;
        break;
    default:
        switch (qp->ack_syn & 0x1f) {
        case AETH_NAK_PSN_SEQ:
            st->seq_naks_sent++;
            break;
        case AETH_NAK_INV_REQ:
            st->inv_req_naks_sent++;
            break;
        case AETH_NAK_REM_ACCESS:
            st->rem_access_naks_sent++;
            break;
        default:
            st->rem_op_naks_sent++;
            break;
        }
    }
}

/*
 * UC has no NAK and no retransmission: a message the responder cannot
 * take (a packet lost, no receive WQE, an R_Key, length or opcode error)
 * is dropped whole.  Its remaining packets are discarded up to the next
 * FIRST/ONLY; a receive WQE it held stays for the next message.
 */
static void snic_resp_uc_drop(SnicState *s, SnicQp *qp, const SnicRoceHdr *h,
                              const char *why)
{
    if (!qp->uc_drop) {
        s->rdma.st.uc_dropped++;
        qemu_log_mask(LOG_GUEST_ERROR, "snic: qp %u: UC message dropped at "
                      "psn %u: %s\n", qp->qpn, h->psn, why);
    }
    qp->uc_drop = true;
    qp->resp_op = 0;
}

/* Does a request error with this NAK only drop the message (UC)? */
static bool snic_resp_drops(const SnicQp *qp, uint8_t nak)
{
    return qp->type == SNIC_QPT_UC && nak != AETH_NAK_REM_OP;
}

/*
 * A fatal request error: RC NAKs it, and the QP goes to ERR.  On a UC QP
 * an invalid request or a remote access error drops the message and the
 * QP stays (no one to tell); a local error (remote operational) still
 * moves it to ERR.
 */
static void snic_resp_fail(SnicState *s, SnicQp *qp, const SnicRoceHdr *h,
                           uint8_t nak, uint8_t status)
{
    if (snic_resp_drops(qp, nak)) {
        snic_resp_uc_drop(s, qp, h, nak == AETH_NAK_REM_ACCESS ?
                          "remote access error" : "invalid request");
        return;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "snic: qp %u: request psn %u: NAK %u\n",
                  qp->qpn, h->psn, nak);
    s->rdma.st.resp_errors++;
    if (snic_qp_reliable(qp)) {
        snic_resp_ack(s, qp, AETH_NAK | nak, h->psn);
    }
    snic_rdma_qp_error(s, qp, status, false);
}

/* ---- receive completions ---- */

static void snic_resp_recv_cqe(SnicState *s, SnicQp *qp, const SnicRecvWqe *w,
                               uint8_t status, uint8_t wqe_op, uint32_t bytes,
                               uint8_t rflags, uint32_t imm,
                               const SnicRoceHdr *h)
{
    struct snic_cqe cqe = { 0 };

    cqe.opcode = status ? SNIC_CQE_RECV_ERR : SNIC_CQE_RECV;
    cqe.syndrome = status;
    cqe.byte_cnt = cpu_to_le32(bytes);
    cqe.wqe_counter = cpu_to_le16(w->counter);
    cqe.qn = cpu_to_le16(qp->qpn);
    cqe.rdma_qpn = cpu_to_le32(qp->qpn);
    cqe.cookie = cpu_to_le64(w->cookie);
    cqe.wqe_opcode = wqe_op;
    cqe.rdma_flags = rflags;
    cqe.imm = cpu_to_be32(imm);
    if (qp->type == SNIC_QPT_XRC_TGT) {
        /* the WQE's XRC SRQ: the host finds its receive queue by it */
        cqe.rdma_flags |= SNIC_CQE_RF_XRC;
        cqe.src_qpn = cpu_to_le32(qp->srqn);
    } else if (h && !snic_qp_connected(qp)) {
        cqe.src_qpn = cpu_to_le32(h->sqpn);
        memcpy(cqe.smac, h->smac, 6);
        if (h->vlan) {
            cqe.rdma_flags |= SNIC_CQE_RF_VLAN;
            cqe.vlan_tci = cpu_to_le16(h->vlan_tci);
        }
    }
    snic_cq_post(s, qp->rcqn, &cqe, &qp->pcie);
}

/* Consume the receive WQE @w and complete it in error. */
static void snic_resp_recv_error(SnicState *s, SnicQp *qp, SnicRecvWqe *w,
                                 uint8_t status)
{
    snic_resp_recv_cqe(s, qp, w, status, 0, 0, 0, 0, NULL);
}

/*
 * snic_resp_fail() for a message that holds the receive WQE rwqe: it
 * completes with @wst first, unless the message is only dropped (UC),
 * which leaves the WQE to the next message.
 */
static void snic_resp_fail_wqe(SnicState *s, SnicQp *qp, const SnicRoceHdr *h,
                               uint8_t wst, uint8_t nak, uint8_t status)
{
    if (qp->have_rwqe && !snic_resp_drops(qp, nak)) {
        snic_resp_recv_error(s, qp, &qp->rwqe, wst);
        qp->have_rwqe = false;
    }
    snic_resp_fail(s, qp, h, nak, status);
}

/* ---- UD / GSI ---- */

static void snic_resp_ud(SnicState *s, SnicQp *qp, const SnicRoceHdr *h)
{
    uint32_t qkey = qp->type == SNIC_QPT_GSI ? SNIC_GSI_QKEY : qp->qkey;
    uint8_t grh[40] = { 0 };
    SnicRecvWqe w;
    uint8_t st;
    uint8_t rf = SNIC_CQE_RF_GRH | (h->se ? SNIC_CQE_RF_SOLICITED : 0);

    if (h->qkey != qkey) {
        s->rdma.st.rx_bad_qkey++;
        return;
    }
    if (!snic_rdma_recv_peek(s, qp, &w) || w.bad ||
        w.len < sizeof(grh) + h->paylen) {
        s->ps.rx_no_buffer++;
        return;
    }
    snic_rdma_recv_consume(s, qp);
    /*
     * The GRH area (RoCEv2): the IPv6 header as received, or 20 zero
     * bytes and the IPv4 header.
     */
    if (h->v6) {
        memcpy(grh, h->ip, 40);
        rf |= SNIC_CQE_RF_IPV6;
    } else {
        memcpy(grh + 20, h->ip, 20);
    }
    st = snic_rdma_sg_copy(s, qp, w.sge, w.nsge, 0, grh, sizeof(grh), true);
    if (!st && h->paylen) {
        st = snic_rdma_sg_copy(s, qp, w.sge, w.nsge, sizeof(grh),
                               (void *)h->payload, h->paylen, true);
    }
    if (st) {
        s->rdma.st.resp_errors++;
        snic_resp_recv_error(s, qp, &w, st == SNIC_RST_LOC_PROT ?
                             SNIC_RST_LOC_PROT : SNIC_RST_LOC_ACCESS);
        return;
    }
    if (h->opcode == ROCE_UD_SEND_ONLY_IMM) {
        rf |= SNIC_CQE_RF_IMM;
    }
    snic_resp_recv_cqe(s, qp, &w, SNIC_RST_OK,
                       rf & SNIC_CQE_RF_IMM ? SNIC_WQE_SEND_IMM : SNIC_WQE_SEND,
                       sizeof(grh) + h->paylen, rf, h->imm, h);
}

/* ---- RC requests ---- */

static uint32_t snic_read_npkts(SnicQp *qp, uint32_t len)
{
    return len ? DIV_ROUND_UP(len, qp->mtu) : 1;
}

static bool snic_resp_queue_job(SnicQp *qp, const SnicRdJob *j)
{
    if (qp->job_tail - qp->job_head >= SNIC_MAX_RD_ATOMIC) {
        return false;
    }
    qp->jobs[qp->job_tail % SNIC_MAX_RD_ATOMIC] = *j;
    qp->job_tail++;
    return true;
}

static void snic_resp_read(SnicState *s, SnicQp *qp, const SnicRoceHdr *h,
                           bool dup)
{
    SnicRdJob j = { 0 };
    SnicMr *mr;

    if (h->dlen > SNIC_MAX_MSG_SIZE) {
        /* more PSNs than the window could ever hold */
        if (!dup) {
            snic_resp_fail(s, qp, h, AETH_NAK_INV_REQ, SNIC_RST_REM_INV_REQ);
        }
        return;
    }
    if (!snic_rdma_key_ok(s, qp, h->rkey, h->va, h->dlen,
                          SNIC_ACCESS_REMOTE_READ, true, &mr)) {
        if (!dup) {
            snic_resp_fail(s, qp, h, AETH_NAK_REM_ACCESS,
                           SNIC_RST_REM_ACCESS);
        }
        return;
    }
    j.psn = h->psn;
    j.mtu = qp->mtu;
    j.pdn = qp->pdn;
    j.npkts = snic_read_npkts(qp, h->dlen);
    j.va = h->va;
    j.rkey = h->rkey;
    j.len = h->dlen;
    if ((!dup && qp->job_tail - qp->job_head >=
         MAX(1, qp->max_dest_rd_atomic)) || !snic_resp_queue_job(qp, &j)) {
        if (!dup) {
            snic_resp_fail(s, qp, h, AETH_NAK_INV_REQ, SNIC_RST_REM_INV_REQ);
        }
        return;
    }
    if (!dup) {
        qp->resp_psn = (qp->resp_psn + j.npkts) & ROCE_PSN_MASK;
        qp->msn++;
    }
    snic_rdma_kick(s, qp);
}

static void snic_resp_atomic(SnicState *s, SnicQp *qp, const SnicRoceHdr *h)
{
    SnicRdJob j = { 0 };
    uint64_t v, nv;
    SnicMr *mr;

    if (h->va & 7) {
        snic_resp_fail(s, qp, h, AETH_NAK_INV_REQ, SNIC_RST_REM_INV_REQ);
        return;
    }
    if (!snic_rdma_key_ok(s, qp, h->rkey, h->va, 8,
                          SNIC_ACCESS_REMOTE_ATOMIC, true, &mr)) {
        snic_resp_fail(s, qp, h, AETH_NAK_REM_ACCESS, SNIC_RST_REM_ACCESS);
        return;
    }
    if (qp->job_tail - qp->job_head >= MAX(1, qp->max_dest_rd_atomic)) {
        snic_resp_fail(s, qp, h, AETH_NAK_INV_REQ, SNIC_RST_REM_INV_REQ);
        return;
    }
    /* the target is little endian memory of the responder's host */
    if (!snic_rdma_mr_dma(s, qp, mr, h->va, &v, 8, false)) {
        snic_resp_fail(s, qp, h, AETH_NAK_REM_OP, SNIC_RST_REM_OP);
        return;
    }
    le64_to_cpus(&v);
    if (h->opcode == ROCE_CMP_SWAP) {
        nv = v == h->compare ? h->swap_add : v;
    } else {
        nv = v + h->swap_add;
    }
    cpu_to_le64s(&nv);
    if (!snic_rdma_mr_dma(s, qp, mr, h->va, &nv, 8, true)) {
        snic_resp_fail(s, qp, h, AETH_NAK_REM_OP, SNIC_RST_REM_OP);
        return;
    }
    s->rdma.st.atomics++;
    qp->acache[qp->acache_next % SNIC_MAX_RD_ATOMIC] =
        (SnicAtomicCache){ .valid = true, .psn = h->psn, .orig = v };
    qp->acache_next++;
    j.atomic = true;
    j.psn = h->psn;
    j.npkts = 1;
    j.orig = v;
    snic_resp_queue_job(qp, &j);
    qp->resp_psn = (qp->resp_psn + 1) & ROCE_PSN_MASK;
    qp->msn++;
    snic_rdma_kick(s, qp);
}

static void snic_resp_rnr(SnicState *s, SnicQp *qp, const SnicRoceHdr *h)
{
    if (qp->type == SNIC_QPT_UC) {
        snic_resp_uc_drop(s, qp, h, "no receive WQE");
        return;
    }
    snic_resp_ack(s, qp, AETH_RNR_NAK | qp->min_rnr_timer, h->psn);
    /* later packets of the burst are dropped until this PSN comes again */
    qp->nak_sent = true;
}

/* ---- custom requests (docs/snic-rdma.md "Custom opcodes") ---- */

void snic_rdma_custom_clear(SnicQp *qp)
{
    int i;

    for (i = 0; i < SNIC_MAX_RD_ATOMIC; i++) {
        g_free(qp->ccache[i].data);
    }
    memset(qp->ccache, 0, sizeof(qp->ccache));
    qp->ccache_next = 0;
}

/* Queue the response in slot @c from PSN @psn on (a duplicate: mid-way). */
static void snic_resp_custom_job(SnicState *s, SnicQp *qp, SnicCustomResp *c,
                                 uint32_t psn)
{
    SnicRdJob j = { .custom = true, .cslot = c - qp->ccache, .psn = c->psn,
                    .npkts = c->npkts, .mtu = qp->mtu, .len = c->len };

    j.sent = snic_psn_diff(psn, c->psn);
    if (snic_resp_queue_job(qp, &j)) {
        snic_rdma_kick(s, qp);
    }
}

/*
 * A new custom request: the QP's handler for its opcode answers it with
 * h->dlen bytes, sent as READ responses; it takes that many PSNs and one
 * MSN, as a READ does.  No handler: invalid request NAK (as for any
 * opcode the responder does not support).
 */
static void snic_resp_custom(SnicState *s, SnicQp *qp, const SnicRoceHdr *h)
{
    SnicCustomResp *c = &qp->ccache[qp->ccache_next % SNIC_MAX_RD_ATOMIC];
    uint8_t *data;
    int r;

    if (h->dlen > SNIC_CUSTOM_RESP_MAX ||
        qp->job_tail - qp->job_head >= MAX(1, qp->max_dest_rd_atomic)) {
        snic_resp_fail(s, qp, h, AETH_NAK_INV_REQ, SNIC_RST_REM_INV_REQ);
        return;
    }
    data = g_malloc0(MAX(h->dlen, 1));
    r = s->spin_hook->custom_in(s, qp, h, data);
    if (r != SNIC_CUSTOM_OK) {
        g_free(data);
    }
    switch (r) {
    case SNIC_CUSTOM_OK:
        break;
    case SNIC_CUSTOM_NO_RES:
        snic_resp_rnr(s, qp, h);
        return;
    case SNIC_CUSTOM_NO_HANDLER:
        s->rdma.st.custom_no_handler++;
        snic_resp_fail(s, qp, h, AETH_NAK_INV_REQ, SNIC_RST_REM_INV_REQ);
        return;
    default:
        s->rdma.st.custom_failed++;
        snic_resp_fail(s, qp, h, AETH_NAK_REM_OP, SNIC_RST_REM_OP);
        return;
    }
    g_free(c->data);
    c->data = data;
    c->psn = h->psn;
    c->len = h->dlen;
    c->npkts = snic_read_npkts(qp, h->dlen);
    qp->ccache_next++;
    s->rdma.st.custom_reqs++;
    qp->resp_psn = (qp->resp_psn + c->npkts) & ROCE_PSN_MASK;
    qp->msn = (qp->msn + 1) & ROCE_PSN_MASK;
    snic_resp_custom_job(s, qp, c, h->psn);
}

/* A duplicate custom request: its kept response, from that PSN on. */
static void snic_resp_custom_dup(SnicState *s, SnicQp *qp, const SnicRoceHdr *h)
{
    int i;

    for (i = 0; i < SNIC_MAX_RD_ATOMIC; i++) {
        SnicCustomResp *c = &qp->ccache[i];
        int32_t k = snic_psn_diff(h->psn, c->psn);

        if (c->data && k >= 0 && k < (int32_t)c->npkts) {
            snic_resp_custom_job(s, qp, c, h->psn);
            return;
        }
    }
}

static void snic_resp_dup(SnicState *s, SnicQp *qp, const SnicRoceHdr *h,
                          uint32_t fl)
{
    int i;

    s->rdma.st.dup_requests++;
    if (fl & ROCE_F_CUSTOM) {
        snic_resp_custom_dup(s, qp, h);
        return;
    }
    if (fl & ROCE_F_READ) {
        snic_resp_read(s, qp, h, true);
        return;
    }
    if (fl & ROCE_F_ATOMIC) {
        for (i = 0; i < SNIC_MAX_RD_ATOMIC; i++) {
            SnicAtomicCache *c = &qp->acache[i];

            if (c->valid && c->psn == h->psn) {
                SnicRdJob j = { .atomic = true, .psn = h->psn, .npkts = 1,
                                .orig = c->orig };

                snic_resp_queue_job(qp, &j);
                snic_rdma_kick(s, qp);
                return;
            }
        }
        return;
    }
    snic_resp_ack(s, qp, AETH_ACK | AETH_ACK_UNLIMITED, qp->resp_psn - 1);
}

/* Opcode sequence: does @fl continue (or start) what is in progress? */
static bool snic_resp_seq_ok(SnicQp *qp, uint32_t fl)
{
    if (qp->resp_op) {
        return (fl & (ROCE_F_MIDDLE | ROCE_F_LAST)) && !(fl & ROCE_F_FIRST) &&
               (fl & qp->resp_op);
    }
    return (fl & ROCE_F_FIRST) || !(fl & (ROCE_F_SEND | ROCE_F_WRITE));
}

/*
 * RC: the PSN and opcode sequence of a request - sequence NAK, duplicate.
 * False: the packet is dealt with.
 */
static bool snic_resp_rc_sync(SnicState *s, SnicQp *qp, const SnicRoceHdr *h,
                              uint32_t fl, int32_t d)
{
    if (d > 0) {
        s->rdma.st.out_of_seq++;
        if (!qp->nak_sent) {
            qp->nak_sent = true;
            snic_resp_ack(s, qp, AETH_NAK | AETH_NAK_PSN_SEQ, qp->resp_psn);
        }
        return false;
    }
    if (d < 0) {
        snic_resp_dup(s, qp, h, fl);
        return false;
    }
    if (!snic_resp_seq_ok(qp, fl)) {
        s->rdma.st.rx_malformed++;
        return false;
    }
    qp->nak_sent = false;
    return true;
}

/*
 * UC (no NAKs, no duplicates): a packet that does not continue the
 * message in progress at the expected PSN drops that message; a FIRST or
 * ONLY always starts a new message at its own PSN.  False: discarded.
 */
static bool snic_resp_uc_sync(SnicState *s, SnicQp *qp, const SnicRoceHdr *h,
                              uint32_t fl, int32_t d)
{
    if (!qp->uc_drop && d == 0 && snic_resp_seq_ok(qp, fl)) {
        return true;
    }
    if (!(fl & ROCE_F_FIRST)) {
        snic_resp_uc_drop(s, qp, h, "packet lost before it");
        return false;
    }
    if (qp->resp_op) {
        snic_resp_uc_drop(s, qp, h, "its last packet was lost");
    }
    qp->uc_drop = false;
    qp->resp_op = 0;
    qp->resp_psn = h->psn;
    return true;
}

/* The message is complete: receive CQE (SEND, WRITE with immediate). */
static void snic_resp_msg_done(SnicState *s, SnicQp *qp, const SnicRoceHdr *h,
                               uint32_t fl)
{
    uint8_t rf = h->se ? SNIC_CQE_RF_SOLICITED : 0, op;
    uint32_t imm = 0, bytes = qp->resp_off;
    bool spin = qp->spin_msg;

    if (fl & ROCE_F_IETH) {
        if (snic_rdma_invalidate(s, qp, h->ieth)) {
            snic_resp_fail(s, qp, h, AETH_NAK_INV_REQ, SNIC_RST_REM_INV_REQ);
            return;
        }
        rf |= SNIC_CQE_RF_INV;
        imm = h->ieth;
        op = SNIC_WQE_SEND_INV;
    } else if (fl & ROCE_F_IMM) {
        rf |= SNIC_CQE_RF_IMM;
        imm = h->imm;
        op = (fl & ROCE_F_WRITE) ? SNIC_WQE_RDMA_WRITE_IMM : SNIC_WQE_SEND_IMM;
    } else {
        op = SNIC_WQE_SEND;
    }
    if (fl & ROCE_F_WRITE) {
        bytes = qp->w_len;
    }
    if (spin) {
        bytes = qp->spin_placed;    /* what handlers passed to the host */
    }
    snic_resp_recv_cqe(s, qp, &qp->rwqe, SNIC_RST_OK, op, bytes, rf, imm,
                       NULL);
    qp->have_rwqe = false;
}

static void snic_resp_rc(SnicState *s, SnicQp *qp, const SnicRoceHdr *h)
{
    uint32_t fl = snic_roce_opflags(h->opcode);
    int32_t d = snic_psn_diff(h->psn, qp->resp_psn);
    const uint8_t *pl = h->payload;
    bool place = true;
    SnicMr *mr;
    uint8_t st;
    int fate;

    if (!(fl & ROCE_F_REQ) || (fl & ROCE_F_UD)) {
        s->rdma.st.rx_no_qp++;
        return;
    }
    if (qp->type == SNIC_QPT_UC ? !snic_resp_uc_sync(s, qp, h, fl, d) :
                                  !snic_resp_rc_sync(s, qp, h, fl, d)) {
        return;
    }
    /* XRC_TGT: the request goes to the XRC SRQ its XRCETH names */
    if (qp->type == SNIC_QPT_XRC_TGT && !snic_xrc_bind(s, qp, h->xrc_srqn)) {
        snic_resp_fail(s, qp, h, AETH_NAK_INV_REQ, SNIC_RST_REM_INV_REQ);
        return;
    }
    if (h->paylen > qp->mtu ||
        (!(fl & ROCE_F_LAST) && (fl & ROCE_F_PAYLOAD) &&
         h->paylen != qp->mtu)) {
        snic_resp_fail(s, qp, h, AETH_NAK_INV_REQ, SNIC_RST_REM_INV_REQ);
        return;
    }
    if ((fl & ROCE_F_WRITE) && (fl & ROCE_F_RETH) &&
        h->dlen > SNIC_MAX_MSG_SIZE) {
        snic_resp_fail(s, qp, h, AETH_NAK_INV_REQ, SNIC_RST_REM_INV_REQ);
        return;
    }
    if (fl & ROCE_F_READ) {
        snic_resp_read(s, qp, h, false);
        return;
    }
    if (fl & ROCE_F_ATOMIC) {
        snic_resp_atomic(s, qp, h);
        return;
    }
    if (fl & ROCE_F_CUSTOM) {
        snic_resp_custom(s, qp, h);
        return;
    }

    /* low-latency QP: a small SEND goes into its ring, with no CQE */
    if (qp->llq_log && !qp->have_rwqe && !qp->spin_ctx) {
        switch (snic_llq_rx(s, qp, h, fl)) {
        case SNIC_LLQ_PLACED:
            qp->resp_psn = (qp->resp_psn + 1) & ROCE_PSN_MASK;
            qp->msn = (qp->msn + 1) & ROCE_PSN_MASK;
            if (h->ackreq) {
                snic_resp_ack(s, qp, AETH_ACK | AETH_ACK_UNLIMITED, h->psn);
            }
            return;
        case SNIC_LLQ_FULL:
            snic_resp_rnr(s, qp, h);
            return;
        case SNIC_LLQ_FAULT:
            snic_resp_fail(s, qp, h, AETH_NAK_REM_OP, SNIC_RST_LOC_PROT);
            return;
        }
    }
    /* a receive WQE: SEND at its first packet, WRITE_IMM at its last */
    if (!qp->have_rwqe &&
        (((fl & ROCE_F_SEND) && (fl & ROCE_F_FIRST)) ||
         ((fl & ROCE_F_WRITE) && (fl & ROCE_F_IMM)))) {
        if (!snic_rdma_recv_peek(s, qp, &qp->rwqe)) {
            snic_resp_rnr(s, qp, h);
            return;
        }
        snic_rdma_recv_consume(s, qp);
        qp->have_rwqe = true;
        if (qp->rwqe.bad) {
            snic_resp_fail_wqe(s, qp, h, SNIC_RST_LOC_QP_OP, AETH_NAK_REM_OP,
                               SNIC_RST_LOC_QP_OP);
            return;
        }
    }
    if (fl & ROCE_F_FIRST) {
        qp->resp_off = 0;
        if (fl & ROCE_F_WRITE) {
            if (!snic_rdma_key_ok(s, qp, h->rkey, h->va, h->dlen,
                                  SNIC_ACCESS_REMOTE_WRITE, true, &mr)) {
                /* WRITE_ONLY_IMM: the WQE is not used after all */
                snic_resp_fail_wqe(s, qp, h, SNIC_RST_WR_FLUSH,
                                   AETH_NAK_REM_ACCESS, SNIC_RST_REM_ACCESS);
                return;
            }
            qp->w_va = h->va;
            qp->w_rkey = h->rkey;
            qp->w_len = h->dlen;
        }
        qp->spin_msg = qp->spin_ctx != 0;
        qp->spin_placed = 0;
    }
    if ((fl & ROCE_F_SEND) && qp->resp_off + h->paylen > qp->rwqe.len) {
        snic_resp_fail_wqe(s, qp, h, SNIC_RST_LOC_LEN, AETH_NAK_INV_REQ,
                           SNIC_RST_LOC_LEN);
        return;
    }
    if (!(fl & ROCE_F_SEND) && qp->resp_off + h->paylen > qp->w_len) {
        snic_resp_fail(s, qp, h, AETH_NAK_INV_REQ, SNIC_RST_REM_INV_REQ);
        return;
    }
    /*
     * sPIN: the packet is accepted (in sequence, receive WQE and RETH
     * checked), so its handlers run exactly once for its PSN; their fate
     * decides whether the payload is placed.  No room in the engine: RNR
     * NAK, the requester sends the packet again later.
     */
    if (qp->spin_msg && qp->spin_ctx) {
        fate = s->spin_hook->rdma_in(s, qp, h, fl, &pl);
        if (fate < 0) {
            snic_resp_rnr(s, qp, h);
            return;
        }
        place = fate != SPIN_DROP;
        qp->spin_placed += place ? h->paylen : 0;
    } else if (qp->spin_msg) {
        place = false;      /* context detached mid-message */
    }
    if (!place) {
        /* consumed by the NIC: no data placement */
    } else if (fl & ROCE_F_SEND) {
        st = snic_rdma_sg_copy(s, qp, qp->rwqe.sge, qp->rwqe.nsge,
                               qp->resp_off, (void *)pl, h->paylen, true);
        if (st) {
            snic_resp_fail_wqe(s, qp, h, st == SNIC_RST_LOC_PROT ?
                               SNIC_RST_LOC_PROT : SNIC_RST_LOC_ACCESS,
                               AETH_NAK_REM_OP, SNIC_RST_LOC_PROT);
            return;
        }
    } else {
        if (h->paylen &&
            (!snic_rdma_key_ok(s, qp, qp->w_rkey, qp->w_va + qp->resp_off,
                               h->paylen, SNIC_ACCESS_REMOTE_WRITE, true,
                               &mr) ||
             !snic_rdma_mr_dma(s, qp, mr, qp->w_va + qp->resp_off,
                               (void *)pl, h->paylen, true))) {
            snic_resp_fail(s, qp, h, AETH_NAK_REM_ACCESS, SNIC_RST_REM_ACCESS);
            return;
        }
    }
    qp->resp_off += h->paylen;
    qp->resp_psn = (qp->resp_psn + 1) & ROCE_PSN_MASK;
    if (fl & ROCE_F_LAST) {
        if ((fl & ROCE_F_WRITE) && qp->resp_off != qp->w_len) {
            snic_resp_fail(s, qp, h, AETH_NAK_INV_REQ, SNIC_RST_REM_INV_REQ);
            return;
        }
        qp->resp_op = 0;
        qp->msn = (qp->msn + 1) & ROCE_PSN_MASK;
        /* (a UC QP may hold a WQE a dropped SEND left: not for a WRITE) */
        if (qp->have_rwqe && (fl & (ROCE_F_SEND | ROCE_F_IMM))) {
            snic_resp_msg_done(s, qp, h, fl);
        }
        qp->spin_msg = false;
    } else {
        qp->resp_op = fl & (ROCE_F_SEND | ROCE_F_WRITE);
    }
    if (h->ackreq && snic_qp_reliable(qp) && qp->state != SNIC_QPS_ERR) {
        snic_resp_ack(s, qp, AETH_ACK | AETH_ACK_UNLIMITED, h->psn);
    }
}

void snic_rdma_resp_rx(SnicState *s, SnicQp *qp, const SnicRoceHdr *h)
{
    if (qp->state == SNIC_QPS_RTR && !qp->comm_est) {
        qp->comm_est = true;
        snic_rdma_event(s, SNIC_EQE_QP_COMM_EST, qp->qpn, 0);
    }
    if (snic_qp_connected(qp)) {
        snic_resp_rc(s, qp, h);
    } else if (snic_roce_opflags(h->opcode) & ROCE_F_UD) {
        snic_resp_ud(s, qp, h);
    } else {
        s->rdma.st.rx_no_qp++;
    }
}

/* ---- responder bottom half: READ responses, atomic ACKs, ACKs ---- */

static uint8_t snic_read_resp_opcode(const SnicRdJob *j)
{
    bool first = j->sent == 0, last = j->sent + 1 == j->npkts;

    return first && last ? ROCE_READ_RESP_ONLY : first ? ROCE_READ_RESP_FIRST :
           last ? ROCE_READ_RESP_LAST : ROCE_READ_RESP_MIDDLE;
}

bool snic_rdma_resp_run(SnicState *s, SnicQp *qp, int *budget)
{
    uint8_t *f = s->rdma.frame;

    while (qp->job_head != qp->job_tail) {
        SnicRdJob *j = &qp->jobs[qp->job_head % SNIC_MAX_RD_ATOMIC];
        SnicRoceHdr h;
        size_t hl, len = 0;

        if (*budget <= 0) {
            return true;
        }
        if (qp->state == SNIC_QPS_ERR) {
            qp->job_head = qp->job_tail;
            break;
        }
        if (j->atomic) {
            snic_rdma_hdr_init(s, qp, &h, ROCE_ATOMIC_ACK, j->psn);
            h.orig = j->orig;
        } else {
            snic_rdma_hdr_init(s, qp, &h, snic_read_resp_opcode(j),
                               j->psn + j->sent);
            len = MIN(j->mtu, j->len - (uint64_t)j->sent * j->mtu);
        }
        h.syndrome = AETH_ACK | AETH_ACK_UNLIMITED;
        h.msn = qp->msn;
        hl = snic_roce_build(f, &h, len);
        if (j->custom) {
            SnicCustomResp *c = &qp->ccache[j->cslot];

            if (!c->data || c->psn != j->psn) {
                qp->job_head++;     /* overwritten: the requester retries */
                continue;
            }
            memcpy(f + hl, c->data + (uint64_t)j->sent * j->mtu, len);
            s->rdma.st.custom_resps++;
        } else if (len) {
            uint64_t va = j->va + (uint64_t)j->sent * j->mtu;
            SnicMr *mr;

            if (qp->type == SNIC_QPT_XRC_TGT) {
                qp->pdn = j->pdn;   /* its SRQ's PD, as at the request */
            }

            /* the MR may have been invalidated since the request */
            if (!snic_rdma_key_ok(s, qp, j->rkey, va, len,
                                  SNIC_ACCESS_REMOTE_READ, true, &mr) ||
                !snic_rdma_mr_dma(s, qp, mr, va, f + hl, len, false)) {
                SnicRoceHdr e = { .psn = j->psn + j->sent };

                qp->job_head++;
                snic_resp_fail(s, qp, &e, AETH_NAK_REM_ACCESS,
                               SNIC_RST_REM_ACCESS);
                continue;
            }
        }
        if (!j->atomic && !j->custom) {
            s->rdma.st.read_resps++;
        }
        snic_rdma_xmit(s, qp, &h, f, snic_roce_finish(f, &h, len));
        (*budget)--;
        if (++j->sent >= j->npkts) {
            qp->job_head++;
        }
    }
    if (qp->ack_pending && *budget > 0) {
        snic_resp_send_ack(s, qp);
        (*budget)--;
    }
    return qp->ack_pending;
}
