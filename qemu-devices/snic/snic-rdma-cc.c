/*
 * snic: RDMA congestion control - the RoCEv2 notification point (a CNP
 * back to the sender of a CE-marked packet, at most one per QP per
 * cnp-interval-us) and the DCQCN reaction point on the requester (rate
 * cut on a CNP, alpha, fast recovery / additive / hyper increase from a
 * timer and a byte counter; in timing mode the requester's packets are
 * paced at the rate on the virtual clock).  The AIMD window of the
 * transport (snic-rdma.h) is the other mode (property cc=aimd|dcqcn).
 * Below the roles, above snic-rdma-net.c.  docs/snic-rdma.md
 * "Congestion control".
 *
 * Timers of the reaction point are kept lazily: each event (a packet
 * sent, a CNP, a query) first runs the alpha and rate-increase periods
 * that have passed since the last one, in order, so no timer runs while
 * a QP is idle.  Only pacing has a timer.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "snic.h"

#define ALPHA_ONE           65536u
/* Periods one event may catch up on; after that the clock jumps. */
#define CC_MAX_CATCHUP      4096

static int64_t snic_cc_now(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static uint64_t snic_cc_line_kbps(SnicState *s)
{
    return (uint64_t)s->timing.p.wire_mbps * 1000;
}

/* ---- properties ---- */

static char *snic_cc_get_mode(Object *obj, Error **errp)
{
    SnicState *s = SNIC(obj);

    return g_strdup(s->rdma.cc.dcqcn ? "dcqcn" : "aimd");
}

static void snic_cc_set_mode(Object *obj, const char *v, Error **errp)
{
    SnicState *s = SNIC(obj);

    if (!strcmp(v, "dcqcn")) {
        s->rdma.cc.dcqcn = true;
    } else if (!strcmp(v, "aimd")) {
        s->rdma.cc.dcqcn = false;
    } else {
        error_setg(errp, "snic: cc is 'aimd' or 'dcqcn', not '%s'", v);
    }
}

static bool snic_cc_get_spray(Object *obj, Error **errp)
{
    return SNIC(obj)->rdma.cc.spray;
}

static void snic_cc_set_spray(Object *obj, bool v, Error **errp)
{
    SNIC(obj)->rdma.cc.spray = v;
}

void snic_rdma_cc_props(SnicState *s, Object *obj)
{
    static const struct {
        const char *name;
        size_t off;
        uint32_t def;
    } u32[] = {
#define P(n, f, d) { n, offsetof(SnicCcParams, f), d }
        /* DCQCN paper (Zhu et al., SIGCOMM 2015); docs name the sources */
        P("cnp-interval-us", cnp_interval_us, 50),
        P("dcqcn-g-shift", g_shift, 8),
        P("dcqcn-alpha-us", alpha_us, 55),
        P("dcqcn-timer-us", timer_us, 55),
        P("dcqcn-bc-bytes", bc_bytes, 10 * 1024 * 1024),
        P("dcqcn-f", f, 5),
        P("dcqcn-rai-mbps", rai_mbps, 40),
        P("dcqcn-rhai-mbps", rhai_mbps, 400),
        P("dcqcn-min-mbps", min_mbps, 100),
#undef P
    };
    SnicCcParams *p = &s->rdma.cc;
    size_t i;

    object_property_add_str(obj, "cc", snic_cc_get_mode, snic_cc_set_mode);
    object_property_add_bool(obj, "spray", snic_cc_get_spray,
                             snic_cc_set_spray);
    for (i = 0; i < ARRAY_SIZE(u32); i++) {
        uint32_t *v = (uint32_t *)((uint8_t *)p + u32[i].off);

        *v = u32[i].def;
        object_property_add_uint32_ptr(obj, u32[i].name, v,
                                       OBJ_PROP_FLAG_READWRITE);
    }
}

const char *snic_rdma_cc_check(SnicState *s)
{
    const SnicCcParams *p = &s->rdma.cc;

    if (p->g_shift < 1 || p->g_shift > 16) {
        return "snic: dcqcn-g-shift is 1..16 (g = 2^-shift)";
    }
    if (!p->alpha_us || !p->timer_us || !p->bc_bytes || !p->rai_mbps ||
        !p->rhai_mbps || !p->min_mbps) {
        return "snic: dcqcn-alpha-us, -timer-us, -bc-bytes, -rai-mbps, "
               "-rhai-mbps and -min-mbps must not be 0";
    }
    if (p->min_mbps > s->timing.p.wire_mbps) {
        return "snic: dcqcn-min-mbps is above the line rate";
    }
    return NULL;
}

/* ---- QP state ---- */

static void snic_cc_timer(void *opaque)
{
    SnicQp *qp = opaque;

    if (qp->valid) {
        snic_rdma_kick(qp->s, qp);
    }
}

void snic_rdma_cc_qp_init(SnicState *s, SnicQp *qp)
{
    qp->cc.timer = d2d_timer_new_guarded(DEVICE(s), snic_cc_timer, qp);
    snic_rdma_cc_qp_reset(s, qp);
}

void snic_rdma_cc_qp_free(SnicQp *qp)
{
    d2d_timer_free_guarded(qp->cc.timer);
    qp->cc.timer = NULL;
}

void snic_rdma_cc_qp_reset(SnicState *s, SnicQp *qp)
{
    QEMUTimer *t = qp->cc.timer;
    int64_t now = snic_cc_now();

    if (t) {
        timer_del(t);
    }
    memset(&qp->cc, 0, sizeof(qp->cc));
    qp->cc.timer = t;
    qp->cc.rc_kbps = qp->cc.rt_kbps = snic_cc_line_kbps(s);
    qp->cc.alpha = ALPHA_ONE;
    qp->cc.alpha_t0 = qp->cc.timer_t0 = qp->cc.next_tx_ns = now;
}

/* ---- reaction point (DCQCN) ---- */

/* One rate increase event (timer or byte counter). */
static void snic_cc_increase(SnicState *s, SnicQp *qp)
{
    const SnicCcParams *p = &s->rdma.cc;
    SnicCc *c = &qp->cc;
    uint64_t line = snic_cc_line_kbps(s);
    uint32_t lo = MIN(c->t_cnt, c->bc_cnt), hi = MAX(c->t_cnt, c->bc_cnt);

    if (hi < p->f) {
        /* fast recovery: towards the rate before the cut */
    } else if (lo > p->f) {
        c->rt_kbps += (uint64_t)(lo - p->f) * p->rhai_mbps * 1000;
    } else {
        c->rt_kbps += (uint64_t)p->rai_mbps * 1000;
    }
    c->rt_kbps = MIN(c->rt_kbps, line);
    c->rc_kbps = MIN((c->rt_kbps + c->rc_kbps) / 2 + 1, line);
    s->rdma.st.cc_rate_increases++;
}

/* Run the alpha and rate-increase periods that passed before @now. */
static void snic_cc_advance(SnicState *s, SnicQp *qp, int64_t now)
{
    const SnicCcParams *p = &s->rdma.cc;
    SnicCc *c = &qp->cc;
    int64_t k = (int64_t)MAX(p->alpha_us, 1) * 1000;
    int64_t t = (int64_t)MAX(p->timer_us, 1) * 1000;
    unsigned g = MIN(MAX(p->g_shift, 1), 16), n;

    for (n = 0; now - c->alpha_t0 >= k && c->alpha; n++) {
        if (n == CC_MAX_CATCHUP) {
            c->alpha = 0;
            break;
        }
        c->alpha -= c->alpha >> g;
        c->alpha = c->alpha < (1u << g) ? 0 : c->alpha;
        c->alpha_t0 += k;
    }
    if (!c->alpha || now - c->alpha_t0 >= k) {
        c->alpha_t0 = now;
    }
    for (n = 0; now - c->timer_t0 >= t && c->rc_kbps < snic_cc_line_kbps(s);
         n++) {
        if (n == CC_MAX_CATCHUP) {
            break;
        }
        c->timer_t0 += t;
        c->t_cnt++;
        snic_cc_increase(s, qp);
    }
    if (c->rc_kbps >= snic_cc_line_kbps(s) || now - c->timer_t0 >= t) {
        c->timer_t0 = now;
    }
}

void snic_rdma_cc_cnp(SnicState *s, SnicQp *qp, const SnicRoceHdr *h)
{
    const SnicCcParams *p = &s->rdma.cc;
    SnicCc *c = &qp->cc;
    int64_t now = snic_cc_now();
    uint64_t min = (uint64_t)p->min_mbps * 1000;
    unsigned g = MIN(MAX(p->g_shift, 1), 16);

    s->rdma.st.cnp_rcvd++;
    if (!p->dcqcn || qp->type != SNIC_QPT_RC) {
        return;                 /* AIMD: counted only */
    }
    snic_cc_advance(s, qp, now);
    c->rt_kbps = c->rc_kbps;
    c->rc_kbps = c->rc_kbps * (2 * ALPHA_ONE - c->alpha) / (2 * ALPHA_ONE);
    c->rc_kbps = MAX(c->rc_kbps, min);
    c->alpha = c->alpha - (c->alpha >> g) + (ALPHA_ONE >> g);
    c->alpha = MIN(c->alpha, ALPHA_ONE);
    c->t_cnt = c->bc_cnt = 0;
    c->bc_bytes = 0;
    c->alpha_t0 = c->timer_t0 = now;
    s->rdma.st.cc_rate_decreases++;
}

bool snic_rdma_cc_may_send(SnicState *s, SnicQp *qp)
{
    int64_t now;

    if (!s->rdma.cc.dcqcn || !d2d_timing_on(&s->timing) ||
        qp->cc.rc_kbps >= snic_cc_line_kbps(s)) {
        return true;
    }
    now = snic_cc_now();
    if (qp->cc.next_tx_ns <= now) {
        return true;
    }
    timer_mod(qp->cc.timer, qp->cc.next_tx_ns);
    return false;
}

void snic_rdma_cc_sent(SnicState *s, SnicQp *qp, size_t len)
{
    const SnicCcParams *p = &s->rdma.cc;
    SnicCc *c = &qp->cc;
    int64_t now;

    if (!p->dcqcn || qp->type != SNIC_QPT_RC) {
        return;
    }
    now = snic_cc_now();
    snic_cc_advance(s, qp, now);
    c->bc_bytes += len;
    while (p->bc_bytes && c->bc_bytes >= p->bc_bytes) {
        c->bc_bytes -= p->bc_bytes;
        if (c->rc_kbps < snic_cc_line_kbps(s)) {
            c->bc_cnt++;
            snic_cc_increase(s, qp);
        }
    }
    /* (frame + preamble, FCS, gap) bits at the current rate */
    c->next_tx_ns = MAX(c->next_tx_ns, now) +
                    (int64_t)((len + D2D_WIRE_OVERHEAD) * 8000000ull /
                              MAX(c->rc_kbps, 1));
}

uint32_t snic_rdma_cc_window(SnicState *s, SnicQp *qp)
{
    if (s->rdma.cc.dcqcn) {
        return SNIC_RDMA_MAX_INFLIGHT;
    }
    return MIN(MAX(qp->cwnd, SNIC_RDMA_CWND_MIN), SNIC_RDMA_MAX_INFLIGHT);
}

uint32_t snic_rdma_cc_rate_mbps(SnicState *s, SnicQp *qp)
{
    if (!s->rdma.cc.dcqcn || qp->type != SNIC_QPT_RC) {
        return 0;
    }
    snic_cc_advance(s, qp, snic_cc_now());
    return qp->cc.rc_kbps / 1000;
}

uint32_t snic_rdma_cc_alpha(SnicQp *qp)
{
    return qp->cc.alpha;
}

/* ---- notification point ---- */

void snic_rdma_cc_ce(SnicState *s, SnicQp *qp)
{
    int64_t now = snic_cc_now();
    SnicCc *c = &qp->cc;

    s->rdma.st.ecn_marked++;
    if (c->cnp_ever &&
        now - c->cnp_ns < (int64_t)s->rdma.cc.cnp_interval_us * 1000) {
        return;
    }
    c->cnp_ever = true;
    c->cnp_ns = now;
    c->cnp_pending = true;
    snic_rdma_kick(s, qp);
}

void snic_rdma_cc_run(SnicState *s, SnicQp *qp)
{
    uint8_t *f = s->rdma.frame;
    SnicRoceHdr h;

    if (!qp->cc.cnp_pending) {
        return;
    }
    qp->cc.cnp_pending = false;
    /* IBA Annex A17.9.3: BTH (opcode 0x81, dest QP, BECN), 16 reserved */
    snic_rdma_hdr_init(s, qp, &h, ROCE_CNP, 0);
    h.tos &= ~D2D_ECN_MASK;     /* not ECN-capable: never marked */
    snic_roce_build(f, &h, 0);
    snic_rdma_xmit(s, qp, &h, f, snic_roce_finish(f, &h, 0));
    s->rdma.st.cnp_sent++;
}
