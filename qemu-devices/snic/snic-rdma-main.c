/*
 * snic: RDMA transport, the top of its files - the RDMA part of device
 * init, reset and free, the bottom half that runs each QP's roles
 * (responder, requester, completer) as Linux rdma_rxe's tasks do, the
 * admin dispatch of the RDMA commands to the object files, and RDMA
 * statistics.  docs/snic-rdma.md "Admin commands".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "snic.h"

void snic_rdma_init(SnicState *s)
{
    SnicRdma *r = &s->rdma;

    r->pds = g_new0(SnicPd, SNIC_MAX_PDS);
    r->mrs = g_new0(SnicMr, SNIC_MAX_MRS);
    r->srqs = g_new0(SnicSrq, SNIC_MAX_SRQS);
    r->qps = g_new0(SnicQp, SNIC_MAX_QPS);
    r->frame = g_malloc0(SNIC_RDMA_MAX_FRAME);
    r->tx_vlan_frame = g_malloc0(SNIC_RDMA_MAX_FRAME + 4);
    r->rx_vlan_frame = g_malloc0(SNIC_RDMA_MAX_FRAME + 4);
    r->bh = d2d_bh_new_guarded(s, snic_rdma_bh, s);
    snic_pipe_init(s);
    snic_ssq_init(s);
    snic_rdma_counter_init(s);
}

static void snic_rdma_drop_all(SnicState *s)
{
    SnicRdma *r = &s->rdma;
    int i;

    for (i = 0; i < SNIC_MAX_QPS; i++) {
        if (r->qps[i].valid) {
            snic_rdma_qp_free(s, &r->qps[i]);
        }
    }
    for (i = 0; i < SNIC_MAX_MRS; i++) {
        g_free(r->mrs[i].pages);
    }
    memset(r->pds, 0, sizeof(SnicPd) * SNIC_MAX_PDS);
    memset(r->mrs, 0, sizeof(SnicMr) * SNIC_MAX_MRS);
    memset(r->srqs, 0, sizeof(SnicSrq) * SNIC_MAX_SRQS);
    memset(r->xrcds, 0, sizeof(r->xrcds));
    memset(r->qps, 0, sizeof(SnicQp) * SNIC_MAX_QPS);
    r->qps_hi = 0;
    r->nqps = 0;
    r->pages_used = 0;
}

void snic_rdma_free(SnicState *s)
{
    snic_rdma_drop_all(s);
    snic_pipe_free(s);
    snic_ssq_free(s);
    snic_rdma_counter_free(s);
    qemu_bh_delete(s->rdma.bh);
    g_free(s->rdma.pds);
    g_free(s->rdma.mrs);
    g_free(s->rdma.srqs);
    g_free(s->rdma.qps);
    g_free(s->rdma.frame);
    g_free(s->rdma.tx_vlan_frame);
    g_free(s->rdma.rx_vlan_frame);
}

/* Device reset: every RDMA object and counter is gone. */
void snic_rdma_reset(SnicState *s)
{
    snic_rdma_drop_all(s);
    snic_pipe_reset(s);
    snic_ssq_reset(s);
    snic_rdma_counter_reset(s);
    snic_rdma_mcast_reset(s);
    memset(&s->rdma.st, 0, sizeof(s->rdma.st));
    memset(s->rdma.src, 0, sizeof(s->rdma.src));
}

/* ---- the bottom half ---- */

/* Run @qp's roles once; true if it has more to do. */
static bool snic_rdma_run_qp(SnicState *s, SnicQp *qp)
{
    int budget = SNIC_RDMA_BUDGET;
    bool more;

    if (qp->state == SNIC_QPS_ERR || qp->state == SNIC_QPS_SQE) {
        snic_rdma_resp_run(s, qp, &budget);
        snic_rdma_flush(s, qp);
        if (qp->state == SNIC_QPS_ERR) {
            return false;
        }
    }
    if (qp->state < SNIC_QPS_RTR) {
        return false;
    }
    snic_rdma_cc_run(s, qp);
    more = snic_rdma_resp_run(s, qp, &budget);
    more |= snic_rdma_req_run(s, qp, &budget);
    snic_rdma_retire(s, qp);
    return more;
}

void snic_rdma_bh(void *opaque)
{
    SnicState *s = opaque;
    bool again = false;
    uint32_t i;

    for (i = 0; i < s->rdma.qps_hi; i++) {
        SnicQp *qp = &s->rdma.qps[i];
        SnicQpCountMark mark;
        bool more;

        if (!qp->valid || !qp->pending) {
            continue;
        }
        qp->pending = false;
        snic_qp_count_begin(s, qp, &mark);
        more = snic_rdma_run_qp(s, qp);
        snic_qp_count_end(s, &mark);
        if (more) {
            qp->pending = true;
            again = true;
        }
    }
    if (again) {
        d2d_timing_bh_schedule(&s->timing, s->rdma.bh);
    }
}

/* ---- admin dispatch and statistics ---- */

uint16_t snic_rdma_admin(SnicState *s, const struct snic_aq_cmd *c,
                         uint64_t *res)
{
    uint32_t id = le32_to_cpu(c->obj.id);

    switch (c->opcode) {
    case SNIC_AQ_CREATE_PD:
        return snic_pd_create(s, res);
    case SNIC_AQ_DESTROY_PD:
        return snic_pd_destroy(s, id);
    case SNIC_AQ_CREATE_MR:
        return snic_mr_create(s, c, res);
    case SNIC_AQ_DESTROY_MR:
        return snic_mr_destroy(s, id);
    case SNIC_AQ_CREATE_QP:
        return snic_rdma_create_qp(s, c, res);
    case SNIC_AQ_MODIFY_QP:
        return snic_rdma_modify_qp(s, c);
    case SNIC_AQ_QUERY_QP:
        return snic_rdma_query_qp(s, c);
    case SNIC_AQ_DESTROY_QP:
        return snic_rdma_destroy_qp(s, id);
    case SNIC_AQ_CREATE_SRQ:
        return snic_srq_create(s, c, res);
    case SNIC_AQ_MODIFY_SRQ:
        return snic_srq_modify(s, c);
    case SNIC_AQ_DESTROY_SRQ:
        return snic_srq_destroy(s, id);
    case SNIC_AQ_SET_SRC_ADDR:
        return snic_src_addr_set(s, c);
    case SNIC_AQ_CREATE_SSQ:
        return snic_ssq_create(s, c, res);
    case SNIC_AQ_DESTROY_SSQ:
        return snic_ssq_destroy(s, id);
    case SNIC_AQ_SET_QP_COUNTER:
    case SNIC_AQ_CLEAR_COUNTER:
        return snic_rdma_counter_admin(s, c);
    case SNIC_AQ_ATTACH_MCAST:
    case SNIC_AQ_DETACH_MCAST:
        return snic_rdma_mcast_admin(s, c);
    case SNIC_AQ_SET_LLQ:
        return snic_llq_set(s, c);
    case SNIC_AQ_CREATE_XRCD:
        return snic_xrcd_create(s, res);
    case SNIC_AQ_DESTROY_XRCD:
        return snic_xrcd_destroy(s, id);
    case SNIC_AQ_ALLOC_MW:
        return snic_mw_alloc(s, c, res);
    case SNIC_AQ_DEALLOC_MW:
        return snic_mw_dealloc(s, id);
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "snic: unknown RDMA opcode 0x%x\n",
                      c->opcode);
        return SNIC_AQ_EINVAL_OPCODE;
    }
}

uint16_t snic_rdma_query_stats(SnicState *s, const struct snic_aq_cmd *c)
{
    /* SnicRdmaStats mirrors struct snic_rdma_stats field by field. */
    struct snic_rdma_stats o;
    SnicRdmaStats v;
    const uint64_t *in = (const uint64_t *)&v;
    __le64 *out = (__le64 *)&o;
    size_t i;

    QEMU_BUILD_BUG_ON(sizeof(o) != sizeof(v));
    if (!snic_rdma_counter_read(s, le32_to_cpu(c->buf.id), &v)) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    for (i = 0; i < sizeof(o) / sizeof(uint64_t); i++) {
        out[i] = cpu_to_le64(in[i]);
    }
    return snic_aq_write_buf(s, c, &o, sizeof(o));
}

void snic_rdma_stats_format(SnicState *s, GString *out)
{
    static const char *const names[] = { SNIC_RDMA_STATS(SNIC_STAT_NAME) };
    const uint64_t *v = (const uint64_t *)&s->rdma.st;
    size_t i;

    QEMU_BUILD_BUG_ON(ARRAY_SIZE(names) != SNIC_RDMA_STAT_COUNT);
    QEMU_BUILD_BUG_ON(sizeof(SnicRdmaStats) !=
                      SNIC_RDMA_STAT_COUNT * sizeof(uint64_t));
    for (i = 0; i < ARRAY_SIZE(names); i++) {
        g_string_append_printf(out, "%s=%" PRIu64 "%s", names[i], v[i],
                               i + 1 < ARRAY_SIZE(names) ? " " : "\n");
    }
    for (i = 0; i < s->rdma.qps_hi; i++) {
        SnicQp *qp = &s->rdma.qps[i];

        if (!qp->valid) {
            continue;
        }
        g_string_append_printf(out, "qp %u: type=%u state=%u sq_psn=%u "
                               "acked_psn=%u rq_psn=%u outstanding=%u "
                               "retransmits=%u "
                               "rnr_naks_rcvd=%u seq_naks_rcvd=%u cwnd=%u "
                               "rate_mbps=%u alpha=%u ",
                               qp->qpn, qp->type, qp->state, qp->next_psn,
                               qp->comp_psn, qp->resp_psn,
                               qp->win_tail - qp->win_head,
                               qp->cnt.retransmits, qp->cnt.rnr_naks_rcvd,
                               qp->cnt.seq_naks_rcvd, qp->cwnd,
                               snic_rdma_cc_rate_mbps(s, qp),
                               snic_rdma_cc_alpha(qp));
        if (qp->flags & SNIC_QP_F_PIPE) {
            g_string_append_printf(out, "pipe_core=%u ", qp->pipe_core);
        }
        d2d_pcie_counters_format(out, &qp->pcie);
        g_string_append_c(out, '\n');
    }
    snic_pipe_format(s, out);
    snic_ssq_format(s, out);
}
