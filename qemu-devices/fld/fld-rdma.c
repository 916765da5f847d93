/*
 * fld: FLD-R, RC QPs of the NIC whose queues live in FLD.
 *
 * A QP slot pairs an SQ slot marked rdma (its send ring is an ordinary SQ
 * window; fld-win.c asks fld_rdma_wqe() for the WQE, an RDMA SEND of the
 * answer in the SQ's transmit window, lkey 0) with a receive side FLD
 * synthesises: a receive ring window whose WQE k (snic_recv_hdr + one
 * data segment) names buffer k of the QP's receive window, and the QP
 * doorbell record (+0 receive producer, +4 send producer).  Receive
 * completions arrive in ring order, so a buffer is reposted by advancing
 * the producer once its message is copied to the accelerator's FIFO: no
 * ring memory exists anywhere.  Send completions (REQ) go through the
 * SQ path of fld-stream.c.  A receive error (the QP went to ERR) is
 * counted and reported, and the QP's buffers are no longer reposted (the
 * NIC would only flush them again).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "fld.h"
#include "hw/d2d/trace.h"

#define QP_RQ_STRIDE (1u << FLD_QP_RQ_LOG_STRIDE)

void fld_rdma_reset(FldState *s)
{
    unsigned i;

    for (i = 0; i < FLD_MAX_QPS; i++) {
        g_free(s->qps[i].buf);
        memset(&s->qps[i], 0, sizeof(s->qps[i]));
    }
}

/* slot, sq slot, log sq, log rq, cq slot, db page lo, db page hi, quota */
uint32_t fld_cmd_qp_set(FldState *s)
{
    uint32_t *a = s->cmd_args;
    uint32_t slot = a[0], sqs = a[1], lsq = a[2], lrq = a[3], cq = a[4];
    uint64_t page = a[5] | (uint64_t)a[6] << 32;
    FldQp *qp;
    FldSq *sq;

    if (slot >= FLD_MAX_QPS || sqs >= FLD_MAX_SQS ||
        lsq < SNIC_MIN_LOG_SIZE || lsq > FLD_SQ_MAX_LOG ||
        lrq < SNIC_MIN_LOG_SIZE || lrq > FLD_QP_MAX_LOG ||
        cq >= FLD_MAX_CQS || page % 4096) {
        return FLD_CMD_EINVAL;
    }
    if (!s->cqs[cq].valid) {
        return FLD_CMD_ENOENT;
    }
    qp = &s->qps[slot];
    sq = &s->sqs[sqs];
    if (qp->valid || sq->valid) {
        return FLD_CMD_EBUSY;
    }
    memset(sq, 0, sizeof(*sq));
    sq->valid = true;
    sq->rdma = true;
    sq->sqn = FLD_QN_NONE;
    sq->log_size = lsq;
    sq->cq = cq;
    sq->db_addr = page ? page + SNIC_DB_QP_SQ : 0;
    sq->quota = a[7] ? a[7] : s->pool_blocks * FLD_BLOCK_SIZE;
    memset(qp, 0, sizeof(*qp));
    qp->valid = true;
    qp->qpn = FLD_QN_NONE;
    qp->sq = sqs;
    qp->cq = cq;
    qp->log_rq = lrq;
    qp->db_page = page;
    /* Every receive WQE is posted once; recycling advances the counter. */
    qp->pi = 1u << lrq;
    qp->db_pi = qp->pi;
    qp->buf = g_malloc0((size_t)FLD_QP_BUF_SIZE << lrq);
    trace_fld_qp_state(slot, qp->qpn, "set");
    s->cmd_result = FLD_WIN_QP_RQ + slot * FLD_QP_RQ_WIN_SIZE;
    return FLD_CMD_OK;
}

uint32_t fld_cmd_qp_clear(FldState *s, uint32_t slot)
{
    FldQp *qp;

    if (slot >= FLD_MAX_QPS) {
        return FLD_CMD_EINVAL;
    }
    qp = &s->qps[slot];
    if (!qp->valid) {
        return FLD_CMD_ENOENT;
    }
    fld_inq_flush(s, FLD_INQ_QP(slot));  /* nothing left to answer on it */
    fld_sq_drop(s, qp->sq);
    trace_fld_qp_state(slot, qp->qpn, "cleared");
    g_free(qp->buf);
    memset(qp, 0, sizeof(*qp));
    return FLD_CMD_OK;
}

uint32_t fld_rdma_bind(FldState *s, uint32_t slot, uint32_t qpn,
                       uint64_t db_page)
{
    FldQp *qp;

    if (slot >= FLD_MAX_QPS || db_page % 4096 ||
        (qpn >= SNIC_MAX_QPS && qpn != FLD_QN_NONE)) {
        return FLD_CMD_EINVAL;
    }
    qp = &s->qps[slot];
    if (!qp->valid) {
        return FLD_CMD_ENOENT;
    }
    qp->qpn = qpn;
    s->sqs[qp->sq].sqn = qpn;
    if (db_page) {
        qp->db_page = db_page;
        s->sqs[qp->sq].db_addr = db_page + SNIC_DB_QP_SQ;
    }
    trace_fld_qp_state(slot, qpn, "bound");
    return FLD_CMD_OK;
}

bool fld_rdma_cq_in_use(FldState *s, unsigned cq)
{
    unsigned i;

    for (i = 0; i < FLD_MAX_QPS; i++) {
        if (s->qps[i].valid && s->qps[i].cq == cq) {
            return true;
        }
    }
    return false;
}

void fld_rdma_wqe(FldState *s, unsigned slot, uint16_t idx,
                  const struct fld_txd *t, uint8_t wqe[SNIC_WQEBB_SIZE])
{
    struct snic_wqe_ctrl *c = (void *)wqe;
    struct snic_wqe_data *d = (void *)(wqe + 16);
    uint64_t win = pci_get_bar_addr(&s->parent_obj, FLD_BAR_WIN);

    c->opcode = SNIC_WQE_SEND;
    c->flags = SNIC_WQE_F_SIGNAL;
    c->wqe_idx = cpu_to_le16(idx);
    c->ds_cnt = 2;
    d->byte_count = cpu_to_le32(le16_to_cpu(t->len));
    d->lkey = cpu_to_le32(SNIC_LKEY_BUS);
    d->addr = cpu_to_le64(win + FLD_WIN_TXBUF + slot * FLD_TXBUF_WIN_SIZE +
                          (uint64_t)le16_to_cpu(t->vblock) * FLD_BLOCK_SIZE);
}

static int fld_qp_by_qpn(FldState *s, uint16_t qpn)
{
    unsigned i;

    for (i = 0; i < FLD_MAX_QPS; i++) {
        if (s->qps[i].valid && s->qps[i].qpn == qpn &&
            qpn != FLD_QN_NONE) {
            return i;
        }
    }
    return -1;
}

void fld_rdma_recv_cqe(FldState *s, const FldCqe *c)
{
    int slot = fld_qp_by_qpn(s, c->qn);
    FldQp *qp;
    FldPkt *p;

    if (slot < 0) {
        s->stats[FLD_STAT_CQE_BAD_QUEUE]++;
        fld_raise_error(s, FLD_ERR_CQE_QUEUE, c->qn, "RECV CQE for no QP");
        return;
    }
    qp = &s->qps[slot];
    if (c->wqe_counter != qp->ci) {
        s->stats[FLD_STAT_CQE_BAD_QUEUE]++;
        fld_raise_error(s, FLD_ERR_CQE_QUEUE, c->wqe_counter,
                        "RECV CQE out of ring order");
        return;
    }
    qp->ci++;
    if (c->opcode == FLD_CQE_RECV_ERR) {
        s->stats[FLD_STAT_NIC_ERR_CQES]++;
        s->stats[FLD_STAT_QP_ERR_CQES]++;
        if (!qp->broken) {
            trace_fld_qp_state(slot, qp->qpn, "error");
            fld_raise_error(s, FLD_ERR_NIC_CQE, c->syndrome << 16 | slot,
                            "NIC reported an RDMA receive error");
        }
        qp->broken = true;
        return;
    }
    if (!qp->broken) {
        qp->pi++;               /* the buffer is copied out below: repost */
        s->stats[FLD_STAT_RX_RECYCLED]++;
    }
    s->stats[FLD_STAT_RX_PACKETS]++;
    s->stats[FLD_STAT_RX_BYTES] += c->byte_cnt;
    if ((c->wqe_opcode != SNIC_WQE_SEND && c->wqe_opcode != SNIC_WQE_SEND_IMM &&
         c->wqe_opcode != SNIC_WQE_SEND_INV) ||
        c->byte_cnt > FLD_QP_BUF_SIZE || c->byte_cnt > FLD_MAX_FRAME) {
        /* RDMA WRITE with immediate: nothing to serve */
        s->stats[FLD_STAT_ACCEL_BAD]++;
        return;
    }
    s->stats[FLD_STAT_QP_RECVS]++;
    p = fld_inq_admit(s, FLD_INQ_QP(slot));
    if (!p) {
        s->stats[FLD_STAT_ACCEL_RX_DROPS]++;
        return;
    }
    p->m.rdma = true;
    p->m.qp = slot;
    p->m.routed = true;
    p->m.reply_sq = qp->sq;
    p->len = c->byte_cnt;
    memcpy(p->data, qp->buf + (size_t)(c->wqe_counter &
           ((1u << qp->log_rq) - 1)) * FLD_QP_BUF_SIZE, p->len);
    s->stats[FLD_STAT_ACCEL_RX]++;
}

void fld_rdma_doorbells(FldState *s)
{
    unsigned i;

    for (i = 0; i < FLD_MAX_QPS; i++) {
        FldQp *qp = &s->qps[i];

        if (qp->valid && qp->db_pi != qp->pi && qp->qpn != FLD_QN_NONE &&
            qp->db_page) {
            qp->db_pi = qp->pi;
            fld_doorbell(s, qp->db_page + SNIC_DB_QP_RQ,
                         SNIC_DB_VAL(qp->qpn, qp->pi));
        }
    }
}

/* Receive WQE @k of QP @slot as the NIC reads it. */
static void fld_rdma_recv_wqe(FldState *s, unsigned slot, unsigned k,
                              uint8_t w[QP_RQ_STRIDE])
{
    struct snic_recv_hdr *h = (void *)w;
    struct snic_wqe_data *d = (void *)(w + sizeof(*h));
    uint64_t win = pci_get_bar_addr(&s->parent_obj, FLD_BAR_WIN);

    memset(w, 0, QP_RQ_STRIDE);
    h->cookie = cpu_to_le64(k);
    h->num_sge = cpu_to_le16(1);
    d->byte_count = cpu_to_le32(FLD_QP_BUF_SIZE);
    d->lkey = cpu_to_le32(SNIC_LKEY_BUS);
    d->addr = cpu_to_le64(win + FLD_WIN_QP_BUF + slot * FLD_QP_BUF_WIN_SIZE +
                          (uint64_t)k * FLD_QP_BUF_SIZE);
}

bool fld_rdma_win_read(FldState *s, hwaddr addr, unsigned size,
                       uint64_t *val)
{
    if (addr >= FLD_WIN_QP_RQ &&
        addr < FLD_WIN_QP_RQ + FLD_MAX_QPS * FLD_QP_RQ_WIN_SIZE) {
        unsigned slot = (addr - FLD_WIN_QP_RQ) / FLD_QP_RQ_WIN_SIZE;
        uint32_t off = (addr - FLD_WIN_QP_RQ) % FLD_QP_RQ_WIN_SIZE;
        FldQp *qp = &s->qps[slot];
        uint8_t w[QP_RQ_STRIDE];

        if (!qp->valid || off + size > (QP_RQ_STRIDE << qp->log_rq) ||
            off % QP_RQ_STRIDE + size > QP_RQ_STRIDE) {
            s->stats[FLD_STAT_BAD_READS]++;
            fld_raise_error(s, FLD_ERR_WIN_READ, addr,
                            "read outside a QP receive ring");
            *val = 0;
            return true;
        }
        fld_rdma_recv_wqe(s, slot, off / QP_RQ_STRIDE, w);
        *val = ldn_le_p(w + off % QP_RQ_STRIDE, size);
        return true;
    }
    if (addr >= FLD_WIN_DBR + FLD_DBR_QP &&
        addr < FLD_WIN_DBR + FLD_DBR_QP + 8 * FLD_MAX_QPS) {
        uint32_t off = addr - FLD_WIN_DBR - FLD_DBR_QP;
        FldQp *qp = &s->qps[off / 8];
        uint32_t v;

        if (!qp->valid || addr % 4 + size > 4) {
            s->stats[FLD_STAT_BAD_READS]++;
            fld_raise_error(s, FLD_ERR_WIN_READ, addr,
                            "QP doorbell record of no QP");
            *val = 0;
            return true;
        }
        v = off % 8 < 4 ? qp->pi : s->sqs[qp->sq].pi;
        s->stats[FLD_STAT_DBR_READS]++;
        *val = extract64(v, 8 * (addr % 4), 8 * size);
        return true;
    }
    return false;
}

bool fld_rdma_win_write(FldState *s, hwaddr addr, const uint8_t *b,
                        unsigned size)
{
    unsigned slot;
    uint32_t off;
    FldQp *qp;

    if (addr < FLD_WIN_QP_BUF ||
        addr >= FLD_WIN_QP_BUF + FLD_MAX_QPS * FLD_QP_BUF_WIN_SIZE) {
        return false;
    }
    slot = (addr - FLD_WIN_QP_BUF) / FLD_QP_BUF_WIN_SIZE;
    off = (addr - FLD_WIN_QP_BUF) % FLD_QP_BUF_WIN_SIZE;
    qp = &s->qps[slot];
    if (!qp->valid || off + size > ((uint32_t)FLD_QP_BUF_SIZE << qp->log_rq)) {
        s->stats[FLD_STAT_BAD_WRITES]++;
        fld_raise_error(s, FLD_ERR_WIN_WRITE, addr,
                        "write outside QP receive buffers");
        return true;
    }
    memcpy(qp->buf + off, b, size);
    s->stats[FLD_STAT_RXBUF_WRITE_BYTES] += size;
    return true;
}
