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

/* Is @g (with QPs) the group of this IPv4 or IPv6 address? */
static bool snic_mcast_is(const SnicMcastGroup *g, bool v6, uint32_t group,
                          const uint8_t *group6)
{
    return g->nqps && g->v6 == v6 &&
           (v6 ? !memcmp(g->group6, group6, 16) : g->group == group);
}

const SnicMcastGroup *snic_rdma_mcast_group(SnicState *s, bool v6,
                                            uint32_t group,
                                            const uint8_t *group6)
{
    int i;

    for (i = 0; i < SNIC_MAX_MCAST_GRPS; i++) {
        if (snic_mcast_is(&s->rdma.mcast[i], v6, group, group6)) {
            return &s->rdma.mcast[i];
        }
    }
    return NULL;
}

/*
 * RFC 1112: 01:00:5e and the low 23 bits of an IPv4 group; RFC 2464:
 * 33:33 and the low 32 bits of an IPv6 group.
 */
bool snic_rdma_mcast_mac(SnicState *s, const uint8_t *dmac)
{
    bool v4 = dmac[0] == 0x01 && dmac[1] == 0x00 && dmac[2] == 0x5e &&
              !(dmac[3] & 0x80);
    bool v6 = dmac[0] == 0x33 && dmac[1] == 0x33;
    uint32_t low = (uint32_t)dmac[3] << 16 | dmac[4] << 8 | dmac[5];
    int i;

    for (i = 0; i < SNIC_MAX_MCAST_GRPS; i++) {
        const SnicMcastGroup *g = &s->rdma.mcast[i];

        if (!g->nqps) {
            continue;
        }
        if (v4 && !g->v6 && (g->group & 0x7fffff) == low) {
            return true;
        }
        if (v6 && g->v6 && !memcmp(g->group6 + 12, dmac + 2, 4)) {
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
            return true;
        }
    }
    return false;
}

static uint16_t snic_mcast_attach(SnicState *s, SnicQp *qp, bool v6,
                                  uint32_t group, const uint8_t *group6)
{
    SnicMcastGroup *g = NULL, *free_g = NULL;
    uint32_t i;

    for (i = 0; i < SNIC_MAX_MCAST_GRPS; i++) {
        SnicMcastGroup *e = &s->rdma.mcast[i];

        if (snic_mcast_is(e, v6, group, group6)) {
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
        g->v6 = v6;
        g->group = v6 ? 0 : group;
        memset(g->group6, 0, sizeof(g->group6));
        if (v6) {
            memcpy(g->group6, group6, sizeof(g->group6));
        }
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
    const SnicMcastGroup *g;
    uint32_t group;
    SnicQp *qp;
    bool v6;

    memcpy(&a, c->raw, sizeof(a));
    group = be32_to_cpu(a.group);
    v6 = a.flags & SNIC_MCAST_F_IPV6;
    qp = snic_rdma_qp(s, le32_to_cpu(a.qpn));
    if (!qp || qp->type != SNIC_QPT_UD || (a.flags & ~SNIC_MCAST_F_IPV6) ||
        (v6 ? a.group6[0] != 0xff : !snic_ip_is_mcast(group))) {
        qemu_log_mask(LOG_GUEST_ERROR, "snic: multicast: qp %u (UD?) or "
                      "group %08x (224.0.0.0/4? ff00::/8?) refused\n",
                      le32_to_cpu(a.qpn), v6 ? ldl_be_p(a.group6) : group);
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (c->opcode == SNIC_AQ_ATTACH_MCAST) {
        return snic_mcast_attach(s, qp, v6, group, a.group6);
    }
    g = snic_rdma_mcast_group(s, v6, group, a.group6);
    return g && snic_mcast_remove((SnicMcastGroup *)g, qp->qpn) ?
           SNIC_AQ_OK : SNIC_AQ_ENOENT;
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
