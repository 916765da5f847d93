/*
 * snic: the RDMA network layer below the requester, responder and
 * completer - finding a QP by number, async events, the kick that has
 * the RDMA bottom half run a QP's roles, arming the retransmit and loss
 * probe timers (the requester after sending, the completer after an ACK;
 * their handlers are the completer's), the headers every packet of a QP
 * shares, the source address table (SET_SRC_ADDR), the UD MTU, and
 * transmission with loss injection (through the port's one frame-output
 * path).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "qapi/visitor.h"
#include "snic.h"

SnicQp *snic_rdma_qp(SnicState *s, uint32_t qpn)
{
    return qpn < SNIC_MAX_QPS && s->rdma.qps[qpn].valid ?
           &s->rdma.qps[qpn] : NULL;
}

void snic_rdma_event(SnicState *s, uint8_t type, uint32_t obj, uint32_t data)
{
    if (s->port.async_eqn != SNIC_EQN_NONE) {
        snic_eq_post(s, s->port.async_eqn, type, obj, data);
    }
}

void snic_rdma_kick(SnicState *s, SnicQp *qp)
{
    qp->pending = true;
    d2d_timing_bh_schedule(&s->timing, s->rdma.bh);
}

/* ---- the transport timers (their handlers: the completer) ---- */

bool snic_rdma_outstanding(SnicQp *qp)
{
    return snic_psn_diff(qp->max_sent, qp->comp_psn) > 0;
}

void snic_rdma_timer_update(SnicState *s, SnicQp *qp)
{
    int64_t now, pto;

    if (!qp->timeout || qp->rnr_wait || !snic_rdma_outstanding(qp)) {
        timer_del(qp->retry_timer);
        timer_del(qp->probe_timer);
        return;
    }
    now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    if (!timer_pending(qp->retry_timer)) {
        timer_mod(qp->retry_timer, now + (4096ll << qp->timeout));
    }
    pto = SNIC_RDMA_PTO_NS << qp->pto_shift;
    if (!timer_pending(qp->probe_timer) && pto < (4096ll << qp->timeout)) {
        timer_mod(qp->probe_timer, now + pto);
    }
}

/* ---- transmission ---- */

static bool snic_rdma_lose(SnicRdma *r)
{
    r->loss_count++;
    if (r->loss_every && r->loss_count % r->loss_every == 0) {
        return true;
    }
    if (r->loss_ppm) {
        if (r->loss_seed_used != r->loss_seed || !r->loss_rng) {
            r->loss_seed_used = r->loss_seed;
            r->loss_rng = r->loss_seed * 0x9e3779b97f4a7c15ull + 1;
        }
        /* xorshift64 */
        r->loss_rng ^= r->loss_rng << 13;
        r->loss_rng ^= r->loss_rng >> 7;
        r->loss_rng ^= r->loss_rng << 17;
        return r->loss_rng % 1000000 < r->loss_ppm;
    }
    return false;
}

void snic_rdma_xmit(SnicState *s, SnicQp *qp, const SnicRoceHdr *h,
                    const uint8_t *f, size_t len)
{
    SnicRdma *r = &s->rdma;

    if (snic_rdma_lose(r)) {
        r->st.loss_injected++;
        return;
    }
    if (h->vlan) {
        /* the 802.1Q tag between the MAC addresses and the EtherType */
        len = snic_pkt_vlan_insert(r->tx_vlan_frame, f, len, h->vlan_tci);
        f = r->tx_vlan_frame;
    }
    d2d_timing_packet(&s->timing, s->timing.p.rdma_ns);
    snic_port_xmit(s, f, len, &r->st.tx_pkts, &r->st.tx_bytes);
}

void snic_rdma_hdr_init(SnicState *s, SnicQp *qp, SnicRoceHdr *h,
                        uint8_t opcode, uint32_t psn)
{
    memset(h, 0, sizeof(*h));
    memcpy(h->dmac, qp->av.dmac, 6);
    memcpy(h->smac, qp->av.smac, 6);
    if (qp->av.flags & SNIC_AV_F_IPV6) {
        h->v6 = true;
        memcpy(h->sip6, qp->sip6, 16);
        memcpy(h->dip6, qp->dip6, 16);
    } else {
        h->sip = be32_to_cpu(qp->av.sip);
        h->dip = be32_to_cpu(qp->av.dip);
    }
    h->vlan = qp->av.flags & SNIC_AV_F_VLAN;
    h->vlan_tci = h->vlan ? le16_to_cpu(qp->av.vlan_tci) : 0;
    h->ttl = qp->av.ttl;
    /* ECN-capable (ECT(0)): a switch queue may mark it CE */
    h->tos = (qp->av.tos & ~D2D_ECN_MASK) | D2D_ECN_ECT0;
    h->sport = le16_to_cpu(qp->av.udp_sport);
    if (s->rdma.cc.spray && qp->type == SNIC_QPT_RC) {
        /*
         * Multipath: the source port is the flow's entropy in ECMP; a
         * different one per PSN spreads a QP's packets over the paths.
         */
        h->sport = 0xc000 | ((h->sport ^ (psn * 0x9e3779b1u >> 9)) & 0x3fff);
    }
    h->opcode = opcode;
    h->dqpn = qp->dest_qpn;
    h->psn = psn & ROCE_PSN_MASK;
    h->pkey = ROCE_PKEY_DEFAULT;
    snic_rdma_hdr_xrc(qp, h, 0);
}

void snic_rdma_hdr_xrc(const SnicQp *qp, SnicRoceHdr *h, uint16_t srqn)
{
    if (snic_qp_xrc(qp) && !(h->opcode & ROCE_OP_CLASS_MASK)) {
        h->opcode |= ROCE_OP_XRC;
        h->xrc_srqn = srqn;
    }
}

/*
 * UD/GSI messages on the path of @av: the largest IB MTU whose packet (IP
 * header: IPv4 20 bytes, IPv6 40; UDP, BTH, DETH, ImmDt, ICRC: 36) fits
 * the port MTU.  The port MTU is an IP MTU: an 802.1Q tag is not part of
 * it (the port takes frames of MTU + 18 bytes, tag included).
 */
uint32_t snic_rdma_ud_mtu(SnicState *s, const struct snic_av *av)
{
    uint32_t hdrs = (av->flags & SNIC_AV_F_IPV6 ? 40 : 20) + 36;
    uint32_t mtu = 4096;

    while (mtu > 256 && mtu + hdrs > s->port.mtu) {
        mtu >>= 1;
    }
    return mtu;
}

/* ---- source addresses ---- */

uint16_t snic_src_addr_set(SnicState *s, const struct snic_aq_cmd *c)
{
    struct snic_aq_set_src_addr a;
    SnicSrcAddr *e;

    memcpy(&a, c->raw, sizeof(a));
    if (a.index >= SNIC_SRC_ADDRS || a.valid > 1 ||
        (a.flags & ~(SNIC_SRC_F_IPV6 | SNIC_SRC_F_VLAN)) ||
        ((a.flags & SNIC_SRC_F_VLAN) &&
         (le16_to_cpu(a.vlan_id) < 1 || le16_to_cpu(a.vlan_id) > 4094))) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    e = &s->rdma.src[a.index];
    e->valid = a.valid;
    e->v6 = a.flags & SNIC_SRC_F_IPV6;
    e->vid = (a.flags & SNIC_SRC_F_VLAN) ? le16_to_cpu(a.vlan_id) : 0;
    memcpy(e->mac, a.mac, 6);
    e->ip = e->v6 ? 0 : a.ip;
    memcpy(e->ip6, a.ip6, 16);
    if (!e->v6) {
        memset(e->ip6, 0, 16);
    }
    return SNIC_AQ_OK;
}

/*
 * A user UD WQE's source: smac, sip (@sip6 over IPv6) and VLAN from the
 * table entry its AV names, which must be of the AV's IP version (the
 * AV's PCP is kept).
 */
uint8_t snic_rdma_src_fill(SnicState *s, SnicQp *qp, struct snic_av *av,
                           uint8_t *sip6)
{
    bool v6 = av->flags & SNIC_AV_F_IPV6;
    const SnicSrcAddr *e = av->sgid_index < SNIC_SRC_ADDRS ?
                           &s->rdma.src[av->sgid_index] : NULL;

    if (qp->flags & SNIC_QP_F_PRIV) {
        return SNIC_RST_OK;         /* the driver built the AV */
    }
    if (!e || !e->valid || e->v6 != v6) {
        s->rdma.st.tx_bad_src++;
        qemu_log_mask(LOG_GUEST_ERROR, "snic: qp %u: UD source address %u "
                      "is not an IPv%d entry of the table\n", qp->qpn,
                      av->sgid_index, v6 ? 6 : 4);
        return SNIC_RST_LOC_QP_OP;
    }
    memcpy(av->smac, e->mac, 6);
    if (v6) {
        memcpy(sip6, e->ip6, 16);
    } else {
        av->sip = e->ip;
    }
    av->flags &= ~SNIC_AV_F_VLAN;
    if (e->vid) {
        av->flags |= SNIC_AV_F_VLAN;
        av->vlan_tci = cpu_to_le16((le16_to_cpu(av->vlan_tci) & 0xe000) |
                                   e->vid);
    }
    return SNIC_RST_OK;
}

uint16_t snic_rdma_av_vid(const struct snic_av *av)
{
    return (av->flags & SNIC_AV_F_VLAN) ? le16_to_cpu(av->vlan_tci) & 0xfff
                                        : 0;
}

uint16_t snic_rdma_hdr_vid(const SnicRoceHdr *h)
{
    return h->vlan ? h->vlan_tci & 0xfff : 0;
}

/*
 * Is the destination of received @h one of the port's addresses on the
 * frame's VLAN (a valid table entry of that IP version and VLAN)?
 */
bool snic_rdma_src_ours(SnicState *s, const SnicRoceHdr *h)
{
    uint16_t vid = snic_rdma_hdr_vid(h);
    int i;

    for (i = 0; i < SNIC_SRC_ADDRS; i++) {
        const SnicSrcAddr *e = &s->rdma.src[i];

        if (!e->valid || e->v6 != h->v6 || e->vid != vid) {
            continue;
        }
        if (h->v6 ? !memcmp(e->ip6, h->dip6, 16)
                  : be32_to_cpu(e->ip) == h->dip) {
            return true;
        }
    }
    return false;
}

/* ---- loss injection properties ---- */

void snic_rdma_loss_props(SnicState *s, Object *obj)
{
    object_property_add_uint32_ptr(obj, "loss-every", &s->rdma.loss_every,
                                   OBJ_PROP_FLAG_READWRITE);
    object_property_add_uint32_ptr(obj, "loss-ppm", &s->rdma.loss_ppm,
                                   OBJ_PROP_FLAG_READWRITE);
    object_property_add_uint64_ptr(obj, "loss-seed", &s->rdma.loss_seed,
                                   OBJ_PROP_FLAG_READWRITE);
}
