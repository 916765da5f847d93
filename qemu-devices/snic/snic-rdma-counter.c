/*
 * snic: RDMA counter sets - the per-QP statistics of docs/snic-rdma.md
 * "Counter sets" (SNIC_AQ_SET_QP_COUNTER, SNIC_AQ_CLEAR_COUNTER, and
 * QUERY_STATS kind SNIC_STATS_RDMA with id = set).
 *
 * A QP bound to set n (1..SNIC_RDMA_COUNTER_SETS) has every transport
 * counter that moves while the device works for it - a packet received
 * for it, its roles run from the bottom half, its retransmission timer -
 * added to set n.  The device-wide counters stay totals; what was added
 * to any set is also kept in @attributed, so QUERY_STATS id 0 reports
 * the counts of no set (the total less the attributed), as a ConnectX
 * NIC's default counter does.  Below the roles: calls nothing above.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "snic.h"

#define STAT_WORDS (sizeof(SnicRdmaStats) / sizeof(uint64_t))

void snic_qp_count_begin(SnicState *s, const SnicQp *qp, SnicQpCountMark *m)
{
    m->set = qp ? qp->cnt_set : 0;
    if (m->set) {
        m->before = s->rdma.st;
    }
}

void snic_qp_count_end(SnicState *s, const SnicQpCountMark *m)
{
    const uint64_t *now = (const uint64_t *)&s->rdma.st;
    const uint64_t *before = (const uint64_t *)&m->before;
    uint64_t *set, *attr = (uint64_t *)&s->rdma.attributed;
    size_t i;

    if (!m->set) {
        return;
    }
    set = (uint64_t *)&s->rdma.sets[m->set - 1];
    for (i = 0; i < STAT_WORDS; i++) {
        set[i] += now[i] - before[i];
        attr[i] += now[i] - before[i];
    }
}

/* The counters QUERY_STATS id @id reports, in host order; false: no such. */
bool snic_rdma_counter_read(SnicState *s, uint32_t id, SnicRdmaStats *out)
{
    const uint64_t *tot = (const uint64_t *)&s->rdma.st;
    const uint64_t *attr = (const uint64_t *)&s->rdma.attributed;
    uint64_t *o = (uint64_t *)out;
    size_t i;

    if (id > SNIC_RDMA_COUNTER_SETS) {
        return false;
    }
    if (id) {
        *out = s->rdma.sets[id - 1];
        return true;
    }
    for (i = 0; i < STAT_WORDS; i++) {
        o[i] = tot[i] - attr[i];
    }
    return true;
}

uint16_t snic_rdma_counter_admin(SnicState *s, const struct snic_aq_cmd *c)
{
    struct snic_aq_qp_counter a;
    SnicQp *qp;
    uint32_t set;

    memcpy(&a, c->raw, sizeof(a));
    set = le32_to_cpu(a.set);
    if (set > SNIC_RDMA_COUNTER_SETS) {
        qemu_log_mask(LOG_GUEST_ERROR, "snic: counter set %u out of range\n",
                      set);
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (c->opcode == SNIC_AQ_CLEAR_COUNTER) {
        if (!set) {
            return SNIC_AQ_EINVAL_PARAM;
        }
        memset(&s->rdma.sets[set - 1], 0, sizeof(SnicRdmaStats));
        return SNIC_AQ_OK;
    }
    qp = snic_rdma_qp(s, le32_to_cpu(a.qpn));
    if (!qp) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    qp->cnt_set = set;
    return SNIC_AQ_OK;
}

void snic_rdma_counter_init(SnicState *s)
{
    s->rdma.sets = g_new0(SnicRdmaStats, SNIC_RDMA_COUNTER_SETS);
}

void snic_rdma_counter_reset(SnicState *s)
{
    memset(s->rdma.sets, 0, sizeof(SnicRdmaStats) * SNIC_RDMA_COUNTER_SETS);
    memset(&s->rdma.attributed, 0, sizeof(s->rdma.attributed));
}

void snic_rdma_counter_free(SnicState *s)
{
    g_free(s->rdma.sets);
}
