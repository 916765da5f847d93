/*
 * snic: RDMA multicast - the groups of UD QPs that SNIC_AQ_ATTACH_MCAST
 * and SNIC_AQ_DETACH_MCAST manage, and the multicast MACs the receive
 * path takes for RoCE (docs/snic-rdma.md "Multicast").  The delivery to
 * each QP of a group is the receive dispatch's (snic-rdma-recv.c); this
 * file holds only the table.  Below the QP admin: calls nothing above.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "snic.h"

static bool snic_ip_is_mcast(uint32_t ip)
{
    return (ip >> 28) == 0xe;
}

const SnicMcastGroup *snic_rdma_mcast_group(SnicState *s, uint32_t group)
{
    int i;

    for (i = 0; i < SNIC_MAX_MCAST_GRPS; i++) {
        if (s->rdma.mcast[i].group == group && s->rdma.mcast[i].nqps) {
            return &s->rdma.mcast[i];
        }
    }
    return NULL;
}

/* RFC 1112: 01:00:5e and the low 23 bits of the group. */
bool snic_rdma_mcast_mac(SnicState *s, const uint8_t *dmac)
{
    uint32_t low;
    int i;

    if (dmac[0] != 0x01 || dmac[1] != 0x00 || dmac[2] != 0x5e ||
        (dmac[3] & 0x80)) {
        return false;
    }
    low = (uint32_t)dmac[3] << 16 | dmac[4] << 8 | dmac[5];
    for (i = 0; i < SNIC_MAX_MCAST_GRPS; i++) {
        const SnicMcastGroup *g = &s->rdma.mcast[i];

        if (g->nqps && (g->group & 0x7fffff) == low) {
            return true;
        }
    }
    return false;
}

/* Take @qpn out of @g; false if it was not in it. */
static bool snic_mcast_remove(SnicMcastGroup *g, uint32_t qpn)
{
    uint32_t i;

    for (i = 0; i < g->nqps; i++) {
        if (g->qpn[i] == qpn) {
            g->qpn[i] = g->qpn[--g->nqps];
            if (!g->nqps) {
                g->group = 0;
            }
            return true;
        }
    }
    return false;
}

static uint16_t snic_mcast_attach(SnicState *s, SnicQp *qp, uint32_t group)
{
    SnicMcastGroup *g = NULL, *free_g = NULL;
    uint32_t i;

    for (i = 0; i < SNIC_MAX_MCAST_GRPS; i++) {
        SnicMcastGroup *e = &s->rdma.mcast[i];

        if (e->nqps && e->group == group) {
            g = e;
        } else if (!e->nqps && !free_g) {
            free_g = e;
        }
    }
    if (!g) {
        if (!free_g) {
            return SNIC_AQ_ENOSPC;
        }
        g = free_g;
        g->group = group;
    }
    for (i = 0; i < g->nqps; i++) {
        if (g->qpn[i] == qp->qpn) {
            return SNIC_AQ_OK;          /* attached already */
        }
    }
    if (g->nqps == SNIC_MAX_MCAST_QP_ATTACH) {
        return SNIC_AQ_ENOSPC;
    }
    g->qpn[g->nqps++] = qp->qpn;
    return SNIC_AQ_OK;
}

uint16_t snic_rdma_mcast_admin(SnicState *s, const struct snic_aq_cmd *c)
{
    struct snic_aq_mcast a;
    uint32_t group;
    SnicQp *qp;
    int i;

    memcpy(&a, c->raw, sizeof(a));
    group = be32_to_cpu(a.group);
    qp = snic_rdma_qp(s, le32_to_cpu(a.qpn));
    if (!qp || qp->type != SNIC_QPT_UD || !snic_ip_is_mcast(group)) {
        qemu_log_mask(LOG_GUEST_ERROR, "snic: multicast: qp %u (UD?) or "
                      "group %08x (224.0.0.0/4?) refused\n",
                      le32_to_cpu(a.qpn), group);
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (c->opcode == SNIC_AQ_ATTACH_MCAST) {
        return snic_mcast_attach(s, qp, group);
    }
    for (i = 0; i < SNIC_MAX_MCAST_GRPS; i++) {
        if (s->rdma.mcast[i].nqps && s->rdma.mcast[i].group == group) {
            return snic_mcast_remove(&s->rdma.mcast[i], qp->qpn) ?
                   SNIC_AQ_OK : SNIC_AQ_ENOENT;
        }
    }
    return SNIC_AQ_ENOENT;
}

void snic_rdma_mcast_qp_gone(SnicState *s, uint32_t qpn)
{
    int i;

    for (i = 0; i < SNIC_MAX_MCAST_GRPS; i++) {
        snic_mcast_remove(&s->rdma.mcast[i], qpn);
    }
}

void snic_rdma_mcast_reset(SnicState *s)
{
    memset(s->rdma.mcast, 0, sizeof(s->rdma.mcast));
}
