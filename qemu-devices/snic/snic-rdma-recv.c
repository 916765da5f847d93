/*
 * snic: RDMA receive dispatch - called from the netdev receive callback
 * before steering: a RoCEv2 frame for one of the port's addresses is
 * parsed, checked against its QP (state, type, path) and handed to the
 * responder (requests) or the completer (responses), as Linux rdma_rxe's
 * rxe_recv.c does; neither role calls the other.
 * docs/snic-rdma.md "Receive dispatch".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "snic.h"

static bool snic_rdma_for_us(SnicState *s, const uint8_t *dmac)
{
    int i;

    if (dmac[0] & 1) {
        return snic_rdma_mcast_mac(s, dmac);
    }
    for (i = 0; i < s->port.num_macs; i++) {
        if (!memcmp(dmac, s->port.macs[i], 6)) {
            return true;
        }
    }
    return false;
}

/* Is an opcode of these ROCE_F_* flags of @qp's transport class? */
static bool snic_rdma_class_ok(const SnicQp *qp, uint32_t fl)
{
    switch (qp->type) {
    case SNIC_QPT_RC:
        return !(fl & (ROCE_F_UC | ROCE_F_UD | ROCE_F_XRC));
    case SNIC_QPT_UC:
        return fl & ROCE_F_UC;
    case SNIC_QPT_XRC_INI:
        return (fl & ROCE_F_XRC) && (fl & ROCE_F_RESP);
    case SNIC_QPT_XRC_TGT:
        return (fl & ROCE_F_XRC) && (fl & ROCE_F_REQ);
    default:
        return fl & ROCE_F_UD;
    }
}

/*
 * Is @h from the path of connected @qp, i.e. from its peer (as rxe's
 * check_addr): the VLAN, both addresses and the IP version match the AV's?
 */
static bool snic_rdma_from_path(const SnicQp *qp, const SnicRoceHdr *h)
{
    if (snic_rdma_hdr_vid(h) != snic_rdma_av_vid(&qp->av)) {
        return false;
    }
    if (qp->av.flags & SNIC_AV_F_IPV6) {
        return h->v6 && !memcmp(h->sip6, qp->dip6, 16) &&
               !memcmp(h->dip6, qp->sip6, 16);
    }
    return !h->v6 && h->sip == be32_to_cpu(qp->av.dip) &&
           h->dip == be32_to_cpu(qp->av.sip);
}

/*
 * May a datagram QP take @h?  Over IPv4 without a VLAN tag, yes (the
 * qkey decides).  Over IPv6 or a VLAN it must be addressed to one of the
 * port's addresses on that VLAN (the source table, i.e. the driver's
 * GIDs) or be a multicast group's (its address matched the group in
 * snic_rdma_rx_mcast), over IPv6 from a unicast source: an unspecified,
 * loopback, multicast or IPv4-mapped source is no sender's.
 */
static bool snic_rdma_dgram_ok(SnicState *s, const SnicRoceHdr *h)
{
    static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
    static const uint8_t zero[15];

    if (!h->v6 && !snic_rdma_hdr_vid(h)) {
        return true;
    }
    if (h->v6 && (h->sip6[0] == 0xff || !memcmp(h->sip6, mapped, 12) ||
                  (!memcmp(h->sip6, zero, 15) && h->sip6[15] <= 1))) {
        return false;
    }
    return h->dqpn == SNIC_MCAST_QPN || snic_rdma_src_ours(s, h);
}

/* A packet @h of @len bytes for @qp (in RTR or later, of its class). */
static void snic_rdma_rx_qp(SnicState *s, SnicQp *qp, SnicRoceHdr *h,
                            uint32_t fl, size_t len)
{
    SnicRdmaStats *st = &s->rdma.st;

    /*
     * A connected QP takes packets only from its path (as rxe's
     * check_addr): another source is an injection attempt.
     */
    if (snic_qp_connected(qp) && !snic_rdma_from_path(qp, h)) {
        st->rx_bad_src++;
        qemu_log_mask(LOG_GUEST_ERROR, "snic: qp %u: IPv%d packet from "
                      "%08x to %08x is not from its path: dropped\n",
                      qp->qpn, h->v6 ? 6 : 4, h->sip, h->dip);
        return;
    }
    if (!snic_qp_connected(qp) && !snic_rdma_dgram_ok(s, h)) {
        st->rx_bad_src++;
        qemu_log_mask(LOG_GUEST_ERROR, "snic: qp %u: IPv%d datagram (VLAN "
                      "%u) not between a unicast source and a port address: "
                      "dropped\n", qp->qpn, h->v6 ? 6 : 4,
                      snic_rdma_hdr_vid(h));
        return;
    }
    st->rx_pkts++;
    if (h->vlan) {
        st->rx_vlan_pkts++;
    }
    st->rx_bytes += len;
    d2d_timing_latency(&s->timing, s->timing.p.rdma_ns);
    if (fl & ROCE_F_CNP) {
        snic_rdma_cc_cnp(s, qp, h);
        return;
    }
    /* from here on an XRC packet is handled as its RC opcode */
    snic_xrc_rx(h, &fl);
    if (qp->type == SNIC_QPT_RC && (h->tos & D2D_ECN_MASK) == D2D_ECN_CE) {
        /* the notification point: a CNP goes back to the sender */
        snic_rdma_cc_ce(s, qp);
    }
    if (fl & ROCE_F_RESP) {
        snic_rdma_comp_rx(s, qp, h);
    } else {
        snic_rdma_resp_rx(s, qp, h);
    }
}

/* A UD packet to a multicast group: a copy to each of its live QPs. */
static void snic_rdma_rx_mcast(SnicState *s, SnicRoceHdr *h, uint32_t fl,
                               size_t len)
{
    const SnicMcastGroup *g = snic_rdma_mcast_group(s, h->v6, h->dip,
                                                    h->dip6);
    uint32_t i;

    if (!g || !(fl & ROCE_F_UD)) {
        s->rdma.st.rx_no_qp++;
        return;
    }
    for (i = 0; i < g->nqps; i++) {
        SnicQp *qp = snic_rdma_qp(s, g->qpn[i]);
        SnicQpCountMark mark;
        SnicRoceHdr copy = *h;

        if (!qp || qp->state < SNIC_QPS_RTR || qp->state == SNIC_QPS_ERR) {
            continue;
        }
        snic_qp_count_begin(s, qp, &mark);
        snic_rdma_rx_qp(s, qp, &copy, fl, len);
        snic_qp_count_end(s, &mark);
    }
}

/*
 * A frame from the port: @vlan is the TCI of the 802.1Q tag the port
 * stripped, or -1; a frame that still has its tag is untagged here.
 */
bool snic_rdma_rx(SnicState *s, const uint8_t *f, size_t len, int32_t vlan)
{
    SnicRdmaStats *st = &s->rdma.st;
    SnicQpCountMark mark;
    SnicRoceHdr h;
    uint32_t fl;
    SnicQp *qp;

    /*
     * Without any QP the RDMA engine is not in use: RoCE frames take the
     * Ethernet path, so a software RoCE stack over the net_device works.
     */
    if (!s->rdma.nqps || len < SNIC_ETH_HLEN || !snic_rdma_for_us(s, f)) {
        return false;
    }
    if (vlan < 0 && len >= SNIC_ETH_HLEN + 4 &&
        lduw_be_p(f + 12) == SNIC_ETH_P_8021Q &&
        len - 4 <= SNIC_RDMA_MAX_FRAME) {
        vlan = lduw_be_p(f + 14);
        memcpy(s->rdma.rx_vlan_frame, f, 12);
        memcpy(s->rdma.rx_vlan_frame + 12, f + 16, len - 16);
        f = s->rdma.rx_vlan_frame;
        len -= 4;
    }
    switch (snic_roce_parse(f, len, &h)) {
    case ROCE_NOT_ROCE:
        return false;
    case ROCE_MALFORMED:
        st->rx_malformed++;
        return true;
    case ROCE_BAD_ICRC:
        st->rx_icrc_errors++;
        return true;
    case ROCE_OK:
        break;
    }
    h.frame = f;
    h.frame_len = len;
    h.vlan = vlan >= 0;
    h.vlan_tci = h.vlan ? vlan : 0;
    fl = snic_roce_opflags(h.opcode);
    if (h.dqpn == SNIC_MCAST_QPN) {
        snic_rdma_rx_mcast(s, &h, fl, len);
        return true;
    }
    qp = snic_rdma_qp(s, h.dqpn);
    if (!qp || qp->state < SNIC_QPS_RTR || qp->state == SNIC_QPS_ERR ||
        !snic_rdma_class_ok(qp, fl)) {
        st->rx_no_qp++;
        return true;
    }
    snic_qp_count_begin(s, qp, &mark);
    snic_rdma_rx_qp(s, qp, &h, fl, len);
    snic_qp_count_end(s, &mark);
    return true;
}
