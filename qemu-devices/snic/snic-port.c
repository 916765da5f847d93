/*
 * snic: the Ethernet port - configuration (MTU, MAC filter, flags), link
 * state and events, and the QUERY_STATS command.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "snic.h"

void snic_port_link_changed(SnicState *s, bool up)
{
    if (s->port.async_eqn != SNIC_EQN_NONE) {
        snic_eq_post(s, s->port.async_eqn, SNIC_EQE_LINK, 0, up);
    }
}

uint16_t snic_cmd_set_port(SnicState *s, const struct snic_aq_cmd *c)
{
    struct snic_port_cfg cfg;
    uint16_t st;
    uint16_t mtu, n, eqn;
    int i;

    st = snic_aq_read_buf(s, c, &cfg, sizeof(cfg));
    if (st != SNIC_AQ_OK) {
        return st;
    }
    mtu = le16_to_cpu(cfg.mtu);
    n = le16_to_cpu(cfg.num_macs);
    eqn = le16_to_cpu(cfg.async_eqn);
    if (mtu < SNIC_MIN_MTU || mtu > SNIC_MAX_MTU || n > SNIC_MAX_MACS ||
        (le32_to_cpu(cfg.flags) & ~(SNIC_PORT_F_PROMISC |
                                    SNIC_PORT_F_ALLMULTI | SNIC_PORT_F_UP |
                                    SNIC_PORT_F_VLAN_STRIP |
                                    SNIC_PORT_F_VLAN_FILTER))) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (eqn != SNIC_EQN_NONE && (eqn >= SNIC_MAX_EQS || !s->eqs[eqn].valid)) {
        return SNIC_AQ_ENOENT;
    }
    s->port.flags = le32_to_cpu(cfg.flags);
    s->port.mtu = mtu;
    s->port.num_macs = n;
    for (i = 0; i < n; i++) {
        memcpy(s->port.macs[i], cfg.macs[i], 6);
    }
    s->port.async_eqn = eqn;
    return SNIC_AQ_OK;
}

/* The VLAN filter table; SNIC_PORT_F_VLAN_FILTER turns it on. */
uint16_t snic_cmd_set_vlan(SnicState *s, const struct snic_aq_cmd *c)
{
    struct snic_vlan_table t;
    uint16_t st;

    st = snic_aq_read_buf(s, c, &t, sizeof(t));
    if (st == SNIC_AQ_OK) {
        memcpy(s->port.vlans, t.bitmap, sizeof(s->port.vlans));
    }
    return st;
}

uint16_t snic_cmd_query_port(SnicState *s, const struct snic_aq_cmd *c)
{
    struct snic_port_info info = { 0 };

    info.flags = cpu_to_le32(s->port.flags);
    info.link_up = cpu_to_le32(!qemu_get_queue(s->nic)->link_down);
    info.speed_mbps = cpu_to_le32(SNIC_SPEED_MBPS);
    info.mtu = cpu_to_le16(s->port.mtu);
    memcpy(info.mac, s->conf.macaddr.a, 6);
    return snic_aq_write_buf(s, c, &info, sizeof(info));
}

/* @n host-order counters into the little-endian wire struct at @out. */
static void snic_stats_to_le(void *out, const void *in, size_t n)
{
    const uint64_t *v = in;
    __le64 *o = out;
    size_t i;

    for (i = 0; i < n; i++) {
        o[i] = cpu_to_le64(v[i]);
    }
}

/* Both sides come from one list each: D2D_PCIE_STATS, SNIC_QUEUE_STATS. */
QEMU_BUILD_BUG_ON(sizeof(struct snic_pcie_stats) != sizeof(D2DPcieCounters));
QEMU_BUILD_BUG_ON(sizeof(struct snic_queue_stats) != sizeof(SnicQueueStats));
QEMU_BUILD_BUG_ON(offsetof(SnicQueueStats, pcie) !=
                  SNIC_QUEUE_STAT_COUNT * sizeof(uint64_t));

uint16_t snic_cmd_query_stats(SnicState *s, const struct snic_aq_cmd *c)
{
    uint32_t id = le32_to_cpu(c->buf.id);

    switch (le32_to_cpu(c->buf.kind)) {
    case SNIC_STATS_PORT: {
        /* SnicPortStats mirrors struct snic_port_stats field by field. */
        struct snic_port_stats o;

        QEMU_BUILD_BUG_ON(sizeof(o) != sizeof(s->ps));
        QEMU_BUILD_BUG_ON(sizeof(s->ps) !=
                          SNIC_PORT_STAT_COUNT * sizeof(uint64_t));
        snic_stats_to_le(&o, &s->ps, SNIC_PORT_STAT_COUNT);
        return snic_aq_write_buf(s, c, &o, sizeof(o));
    }
    case SNIC_STATS_PCIE: {
        struct snic_pcie_stats o;

        snic_stats_to_le(&o, &s->pcie, D2D_PCIE_STAT_COUNT);
        return snic_aq_write_buf(s, c, &o, sizeof(o));
    }
    case SNIC_STATS_SQ:
    case SNIC_STATS_RQ: {
        struct snic_queue_stats o;
        bool sq = le32_to_cpu(c->buf.kind) == SNIC_STATS_SQ;

        if (id >= (sq ? SNIC_MAX_SQS : SNIC_MAX_RQS) ||
            !(sq ? s->sqs[id].valid : s->rqs[id].valid)) {
            return SNIC_AQ_ENOENT;
        }
        snic_stats_to_le(&o, sq ? &s->sqs[id].st : &s->rqs[id].st,
                         sizeof(o) / sizeof(uint64_t));
        return snic_aq_write_buf(s, c, &o, sizeof(o));
    }
    case SNIC_STATS_RDMA:
        return snic_rdma_query_stats(s, c);
    case SNIC_STATS_SPIN:
    case SNIC_STATS_SPIN_DEV:
        return snic_spin_query_stats(s, c);
    case SNIC_STATS_RULE: {
        struct snic_rule_stats o;

        if (id >= SNIC_MAX_RULES || !s->rules[id].valid) {
            return SNIC_AQ_ENOENT;
        }
        o.packets = cpu_to_le64(s->rules[id].packets);
        o.bytes = cpu_to_le64(s->rules[id].bytes);
        return snic_aq_write_buf(s, c, &o, sizeof(o));
    }
    default:
        return SNIC_AQ_EINVAL_PARAM;
    }
}
