/*
 * snic: receive pipeline - port checks, MAC filter, header and checksum
 * validation, steering, VXLAN decap, RSS, delivery into plain or striding
 * receive queues; loopback SQ frames enter here too, with the loop guard.
 * docs/snic.md "Receive pipeline" gives the order.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "snic.h"

typedef struct SnicRxMeta {
    uint16_t flags;
    uint32_t hash;
    uint32_t tag;
    uint8_t l4_proto;
    uint16_t vlan_tci;      /* with SNIC_CQE_F_VLAN */
} SnicRxMeta;

static bool snic_rx_mac_ok(SnicState *s, const uint8_t *dmac)
{
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    int i;

    if ((s->port.flags & SNIC_PORT_F_PROMISC) || !memcmp(dmac, bcast, 6)) {
        return true;
    }
    if ((dmac[0] & 1) && (s->port.flags & SNIC_PORT_F_ALLMULTI)) {
        return true;
    }
    for (i = 0; i < s->port.num_macs; i++) {
        if (!memcmp(dmac, s->port.macs[i], 6)) {
            return true;
        }
    }
    return false;
}

/*
 * CQE flags from a parsed frame.  With @count, the port's bad/verified
 * checksum counters count it (once per frame from the wire).
 */
static uint16_t snic_rx_csum_flags(SnicState *s, const SnicPktInfo *pi,
                                   bool count)
{
    uint16_t f = 0;

    if (pi->l3_bad) {
        s->ps.rx_bad_l3 += count;
        return SNIC_CQE_F_L3_BAD;
    }
    if (!pi->ipv4) {
        return 0;
    }
    f |= SNIC_CQE_F_IPV4 | SNIC_CQE_F_L3_OK;
    if (pi->tcp || pi->udp) {
        f |= pi->tcp ? SNIC_CQE_F_TCP : SNIC_CQE_F_UDP;
        if (pi->l4_bad) {
            s->ps.rx_bad_l4 += count;
            return f | SNIC_CQE_F_L4_BAD;
        }
        f |= SNIC_CQE_F_L4_OK;
    }
    s->ps.rx_csum_ok += count;
    return f;
}

static void snic_rx_cqe(SnicState *s, SnicRq *rq, uint8_t opcode,
                        uint8_t synd, uint32_t bytes, const SnicRxMeta *m,
                        uint16_t stride_idx, uint16_t nstrides, uint16_t extra)
{
    struct snic_cqe cqe = { 0 };

    cqe.opcode = opcode;
    cqe.syndrome = synd;
    cqe.byte_cnt = cpu_to_le32(bytes);
    cqe.wqe_counter = cpu_to_le16(rq->ci);
    cqe.qn = cpu_to_le16(rq - s->rqs);
    cqe.flags = cpu_to_le16((m ? m->flags : 0) | extra);
    cqe.rss_hash = cpu_to_le32(m ? m->hash : 0);
    cqe.flow_tag = cpu_to_le32(m ? m->tag : 0);
    cqe.l4_proto = m ? m->l4_proto : 0;
    cqe.vlan_tci = cpu_to_le16(m ? m->vlan_tci : 0);
    cqe.stride_idx = cpu_to_le16(stride_idx);
    cqe.num_strides = cpu_to_le16(nstrides);
    snic_cq_post(s, rq->cqn, &cqe, &rq->st.pcie);
}

static void snic_rx_drop_nobuf(SnicState *s, SnicRq *rq)
{
    s->ps.rx_no_buffer++;
    rq->st.drops++;
}

static void snic_rx_plain(SnicState *s, SnicRq *rq, const uint8_t *f,
                          size_t len, const SnicRxMeta *m)
{
    struct snic_rx_desc d;

    if (!snic_rq_next_desc(s, rq, &d)) {
        snic_rx_drop_nobuf(s, rq);
        return;
    }
    if (len > le32_to_cpu(d.byte_count) || d.lkey) {
        rq->st.errors++;
        snic_rx_cqe(s, rq, SNIC_CQE_RX_ERR,
                    d.lkey ? SNIC_SYND_BAD_LKEY : SNIC_SYND_BAD_LEN, len, m,
                    0, 0, 0);
        rq->ci++;
        return;
    }
    if (d2d_dma_write(&s->parent_obj, &s->pcie, &rq->st.pcie,
                      le64_to_cpu(d.addr), f, len) != MEMTX_OK) {
        s->stats.dma_errs++;
        rq->st.errors++;
        snic_rx_cqe(s, rq, SNIC_CQE_RX_ERR, SNIC_SYND_DMA, len, m, 0, 0, 0);
        rq->ci++;
        return;
    }
    rq->st.packets++;
    rq->st.bytes += len;
    s->ps.rx_packets++;
    s->ps.rx_bytes += len;
    snic_rx_cqe(s, rq, SNIC_CQE_RX, SNIC_SYND_OK, len, m, 0, 0, 0);
    rq->ci++;
}

/* Retire the current striding descriptor. */
static void snic_rx_retire(SnicRq *rq)
{
    rq->ci++;
    rq->stride = 0;
    rq->desc_valid = false;
}

/*
 * The striding descriptor in use: read from the ring once, when its
 * first stride is taken, and kept until it retires.
 */
static bool snic_rx_stride_desc(SnicState *s, SnicRq *rq,
                                struct snic_rx_desc *d)
{
    if (!rq->desc_valid) {
        if (!snic_rq_next_desc(s, rq, &rq->desc)) {
            return false;
        }
        rq->desc_valid = true;
    }
    *d = rq->desc;
    return true;
}

static void snic_rx_striding(SnicState *s, SnicRq *rq, const uint8_t *f,
                             size_t len, const SnicRxMeta *m)
{
    uint32_t stride = 1u << rq->log_stride;
    uint32_t nstr = 1u << rq->log_nstrides;
    uint32_t need = DIV_ROUND_UP(len, stride);
    struct snic_rx_desc d;

    if (need > nstr) {
        /* Could never fit; do not waste a descriptor on it. */
        rq->st.errors++;
        rq->st.drops++;
        return;
    }
    if (!snic_rx_stride_desc(s, rq, &d)) {
        snic_rx_drop_nobuf(s, rq);
        return;
    }
    if (le32_to_cpu(d.byte_count) < (uint64_t)stride * nstr || d.lkey) {
        rq->st.errors++;
        snic_rx_cqe(s, rq, SNIC_CQE_RX_ERR,
                    d.lkey ? SNIC_SYND_BAD_LKEY : SNIC_SYND_BAD_LEN, 0, m,
                    rq->stride, nstr - rq->stride, SNIC_CQE_F_MPW_LAST);
        snic_rx_retire(rq);
        return;
    }
    if (rq->stride + need > nstr) {
        /* Filler: the rest of this buffer is skipped, in posting order. */
        snic_rx_cqe(s, rq, SNIC_CQE_RX, SNIC_SYND_OK, 0, NULL, rq->stride,
                    nstr - rq->stride, SNIC_CQE_F_MPW_LAST);
        snic_rx_retire(rq);
        if (!snic_rx_stride_desc(s, rq, &d)) {
            snic_rx_drop_nobuf(s, rq);
            return;
        }
    }
    if (d2d_dma_write(&s->parent_obj, &s->pcie, &rq->st.pcie,
                      le64_to_cpu(d.addr) + (uint64_t)rq->stride * stride,
                      f, len) != MEMTX_OK) {
        s->stats.dma_errs++;
        rq->st.errors++;
        snic_rx_cqe(s, rq, SNIC_CQE_RX_ERR, SNIC_SYND_DMA, len, m,
                    rq->stride, need, 0);
        rq->stride += need;
    } else {
        rq->st.packets++;
        rq->st.bytes += len;
        s->ps.rx_packets++;
        s->ps.rx_bytes += len;
        snic_rx_cqe(s, rq, SNIC_CQE_RX, SNIC_SYND_OK, len, m, rq->stride,
                    need, rq->stride + need == nstr ? SNIC_CQE_F_MPW_LAST : 0);
        rq->stride += need;
    }
    if (rq->stride == nstr) {
        snic_rx_retire(rq);
    }
}

static void snic_rx_deliver(SnicState *s, uint32_t rqn, const uint8_t *f,
                            size_t len, const SnicRxMeta *m)
{
    SnicRq *rq;

    if (rqn >= SNIC_MAX_RQS || !s->rqs[rqn].valid) {
        s->ps.rx_no_dest++;
        return;
    }
    rq = &s->rqs[rqn];
    if (s->rx_loop_cqn >= 0 && rq->cqn == s->rx_loop_cqn) {
        /* Loop guard: a looped frame never returns to its sender's queues. */
        s->ps.rx_loop_drops++;
        return;
    }
    if (rq->error) {
        snic_rx_drop_nobuf(s, rq);
        return;
    }
    if (rq->type == SNIC_RQ_STRIDING) {
        snic_rx_striding(s, rq, f, len, m);
    } else {
        snic_rx_plain(s, rq, f, len, m);
    }
}

/*
 * Steps 3 to 6.  @passed: a frame a sPIN handler passed on; its checksums
 * were counted when it came from the wire and sPIN rules are skipped.
 * @vlan: the TCI of the 802.1Q tag stripped from the frame, or -1.
 */
static void snic_rx_steer(SnicState *s, const uint8_t *buf, size_t size,
                          bool passed, int32_t vlan)
{
    const struct snic_steer_rule *r;
    SnicRxMeta m = { 0 };
    SnicPktInfo pi;
    SnicRule *rule;
    uint32_t rqn;

    snic_pkt_parse(buf, size, true, &pi);
    /* Step 3: validated and counted for every frame, delivered or not. */
    m.flags = snic_rx_csum_flags(s, &pi, !passed);

    rule = snic_steer_match(s, buf, size, &pi, passed);
    if (!rule) {
        s->ps.rx_no_dest++;
        return;
    }
    r = &rule->r;
    if (r->actions & SNIC_ACT_COUNT) {
        rule->packets++;
        rule->bytes += size;
    }
    if (r->dest == SNIC_DEST_DROP) {
        s->ps.rx_rule_drop++;
        return;
    }
    if ((r->actions & SNIC_ACT_DECAP) && pi.vxlan) {
        size_t outer = pi.l4_off + 8 + SNIC_VXLAN_HLEN;

        if (size - outer < SNIC_ETH_HLEN) {
            s->ps.rx_runt++;
            return;
        }
        buf += outer;
        size -= outer;
        snic_pkt_parse(buf, size, true, &pi);
        /* The CQE reports the inner frame's checksums. */
        m.flags = snic_rx_csum_flags(s, &pi, false) | SNIC_CQE_F_DECAP;
        s->ps.rx_decap++;
    }
    m.l4_proto = pi.ipv4 ? pi.ip_proto : 0;
    if (vlan >= 0) {
        m.flags |= SNIC_CQE_F_VLAN;
        m.vlan_tci = vlan;
    }
    if (r->actions & SNIC_ACT_TAG) {
        m.flags |= SNIC_CQE_F_TAG;
        m.tag = le32_to_cpu(r->flow_tag);
    }

    rqn = le32_to_cpu(r->dest_id);
    if (r->dest == SNIC_DEST_SPIN) {
        s->spin_hook->rx(s, rqn, buf, size);
        return;
    }
    if (r->dest == SNIC_DEST_RSS) {
        SnicRss *g = &s->rss[rqn];
        uint32_t idx = 0;

        if (g->fields && snic_rss_hash(g->key, g->fields & SNIC_RSS_HASH_L4,
                                       &pi, &m.hash)) {
            m.flags |= SNIC_CQE_F_HASH;
            idx = m.hash & (g->table_size - 1);
        }
        rqn = g->rqn[idx];
    }
    snic_rx_deliver(s, rqn, buf, size, &m);
}

void snic_rx_spin_pass(SnicState *s, const uint8_t *buf, size_t size)
{
    snic_rx_steer(s, buf, size, true, -1);
}

/*
 * Local loopback: a frame sent on an SNIC_SQ_F_LOOPBACK SQ takes the
 * receive path a wire frame takes (MAC filter, RDMA, checksums, steering,
 * RSS).  Loop guard: while it does, RQs completing on the sending SQ's CQ
 * - the sender's own input - are not delivered to (rx_loop_drops), so a
 * peer re-injecting through the NIC cannot be fed its own frame again.
 */
void snic_rx_loopback(SnicState *s, const uint8_t *buf, size_t size,
                      uint16_t cqn)
{
    s->rx_loop_cqn = cqn;
    snic_rx_frame(s, buf, size);
    s->rx_loop_cqn = -1;
}

ssize_t snic_rx_frame(SnicState *s, const uint8_t *buf, size_t size)
{
    const ssize_t consumed = size;   /* the net layer wants the wire size */
    int32_t vlan = -1;

    if (!snic_port_up(s)) {
        s->ps.rx_link_down++;
        return consumed;
    }
    if (size < SNIC_ETH_HLEN) {
        s->ps.rx_runt++;
        return consumed;
    }
    if (size > (size_t)s->port.mtu + SNIC_ETH_HLEN + 4) {
        s->ps.rx_oversize++;
        return consumed;
    }
    /* the MAC filter, or a multicast group of RDMA QPs */
    if (!snic_rx_mac_ok(s, buf) && !snic_rdma_mcast_mac(s, buf)) {
        s->ps.rx_filtered++;
        return consumed;
    }
    d2d_timing_packet(&s->timing, 0);
    /* 802.1Q: the VLAN filter table, then stripping into the CQE. */
    if (size >= SNIC_ETH_HLEN + 4 &&
        lduw_be_p(buf + 12) == SNIC_ETH_P_8021Q) {
        uint16_t tci = lduw_be_p(buf + 14), vid = tci & 0xfff;

        if ((s->port.flags & SNIC_PORT_F_VLAN_FILTER) && vid &&
            !(s->port.vlans[vid / 8] & (1u << (vid % 8)))) {
            s->ps.rx_vlan_filtered++;
            return consumed;
        }
        if (s->port.flags & SNIC_PORT_F_VLAN_STRIP) {
            memcpy(s->rx_vlan_frame, buf, 12);
            memcpy(s->rx_vlan_frame + 12, buf + 16, size - 16);
            buf = s->rx_vlan_frame;
            size -= 4;
            vlan = tci;
            s->ps.rx_vlan_stripped++;
        }
    }
    /* RoCEv2 to our own address: the RDMA engine, before steering. */
    if (snic_rdma_rx(s, buf, size, vlan)) {
        return consumed;
    }
    snic_rx_steer(s, buf, size, false, vlan);
    return consumed;
}
