/*
 * snic sPIN engine: memories, execution contexts and their admin commands,
 * the match of steered frames to messages, scheduling of header / payload /
 * completion handlers on the HPUs of a cluster with per-HPU virtual cycle
 * counters, return codes, the event ring and per-context accounting.
 * Handlers are interpreted (snic-spin-rv32.c) in a bottom half with an
 * instruction budget per pass.  docs/snic-spin.md is the specification.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "snic.h"

/*
 * Instructions one bottom-half turn may interpret before yielding to the
 * main loop (a handler may be suspended in the middle).
 */
#define SNIC_SPIN_BH_BUDGET     (1000 * 1000)
/* snic_spin_invoke_run(): the budget ran out, the handler is suspended. */
#define SNIC_SPIN_RUN_MORE      (-2)
/* Half of each cluster's L1 holds message scratch, the rest HPU slots. */
#define SNIC_SPIN_SCRATCH_POOL  (SNIC_SPIN_L1_SIZE / 2)

static SnicSpinCtx *snic_spin_ctx(SnicState *s, uint32_t id)
{
    if (id >= SNIC_SPIN_MAX_CTXS || !s->spin.ctxs[id].valid) {
        return NULL;
    }
    return &s->spin.ctxs[id];
}

static bool snic_spin_ctx_exists(SnicState *s, uint32_t ctx)
{
    return snic_spin_ctx(s, ctx) != NULL;
}

static uint32_t *snic_spin_ctx_refs(SnicState *s, uint32_t ctx)
{
    return ctx < SNIC_SPIN_MAX_CTXS ? &s->spin.ctxs[ctx].refs : NULL;
}

/* Device cycle of virtual time @ns. */
static uint64_t snic_spin_cycle(SnicSpin *sp, int64_t ns)
{
    return (uint64_t)((unsigned __int128)ns * sp->clock_mhz / 1000);
}

int64_t snic_spin_cycle_ns(const SnicSpin *sp, uint64_t cycle)
{
    return (int64_t)(((unsigned __int128)cycle * 1000 + sp->clock_mhz - 1) /
                     sp->clock_mhz);
}

/* Cycles @len bytes take on the interconnect (at 1 GHz: 64 B a cycle). */
static uint64_t snic_spin_ic_cycles(SnicSpin *sp, uint64_t len)
{
    uint64_t bits = len * 8 * (uint64_t)sp->clock_mhz;

    return (bits + SNIC_SPIN_IC_MBPS - 1) / SNIC_SPIN_IC_MBPS;
}

/*
 * A packet of @len bytes arriving at cycle @now crosses the interconnect
 * into L2 after the packets before it: the cycle it is in L2.
 */
static uint64_t snic_spin_ic(SnicSpin *sp, uint64_t now, uint64_t len)
{
    sp->ic_free = MAX(now, sp->ic_free) + snic_spin_ic_cycles(sp, len);
    return sp->ic_free;
}

static const SnicSpinHook snic_spin_hook;

void snic_spin_init(SnicState *s)
{
    SnicSpin *sp = &s->spin;
    uint32_t i, n = sp->clusters * sp->hpus;

    s->spin_hook = &snic_spin_hook;
    sp->pmem = g_malloc0(SNIC_SPIN_PMEM_SIZE);
    sp->l2h = g_malloc0(SNIC_SPIN_L2H_SIZE);
    sp->frame = g_malloc0(SPIN_PKT_MAX);
    sp->pass_buf = g_malloc0(SPIN_PKT_MAX);
    sp->hpu = g_new0(SnicSpinHpu, n);
    for (i = 0; i < n; i++) {
        sp->hpu[i].l1 = g_malloc0(SPIN_L1_SLOT_SIZE);
        sp->hpu[i].last_ctx = -1;
    }
    sp->open_msgs = g_new0(uint32_t, sp->clusters);
    sp->scratch_used = g_new0(uint32_t, sp->clusters);
    sp->msgs = g_new0(SnicSpinMsg, sp->clusters * SNIC_SPIN_MSG_SLOTS);
    QSIMPLEQ_INIT(&sp->queue);
    sp->bh = d2d_bh_new_guarded(s, snic_spin_bh, s);
    sp->timer = d2d_timer_new_guarded(DEVICE(s), snic_spin_timer, s);
    if (!spin_l2_init(&sp->l2p_banks, SPIN_L2P_WORD_SHIFT) ||
        !spin_l2_init(&sp->l2h_banks, SPIN_L2H_WORD_SHIFT)) {
        g_error("snic: cannot allocate the sPIN L2 bank tables");
    }
}

static void snic_spin_msg_close(SnicSpin *sp, SnicSpinMsg *m)
{
    g_free(m->scratch);
    m->scratch = NULL;
    sp->open_msgs[m->cluster]--;
    sp->scratch_used[m->cluster] -= m->scratch_size;
    m->valid = false;
}

/* The bottom half's packet is done (or dropped): free it. */
static void snic_spin_job_end(SnicSpin *sp)
{
    sp->l2p_used -= sp->job.pkt->len;
    g_free(sp->job.pkt);
    sp->job.pkt = NULL;
    sp->job.running = false;
}

/* Drop queued packets and open messages (of @ctx, or all if -1). */
static void snic_spin_flush(SnicState *s, int ctx)
{
    SnicSpin *sp = &s->spin;
    SnicSpinPkt *p, *tmp;
    uint32_t i;

    if (sp->job.pkt && (ctx < 0 || sp->job.pkt->ctx == ctx)) {
        snic_spin_job_end(sp);     /* its handler is abandoned mid-run */
    }
    QSIMPLEQ_FOREACH_SAFE(p, &sp->queue, next, tmp) {
        if (ctx < 0 || p->ctx == ctx) {
            QSIMPLEQ_REMOVE(&sp->queue, p, SnicSpinPkt, next);
            sp->l2p_used -= p->len;
            g_free(p);
        }
    }
    for (i = 0; i < sp->clusters * SNIC_SPIN_MSG_SLOTS; i++) {
        if (sp->msgs[i].valid && (ctx < 0 || sp->msgs[i].ctx == ctx)) {
            snic_spin_msg_close(sp, &sp->msgs[i]);
        }
    }
}

void snic_spin_free(SnicState *s)
{
    SnicSpin *sp = &s->spin;
    uint32_t i;

    snic_spin_flush(s, -1);
    qemu_bh_delete(sp->bh);
    d2d_timer_free_guarded(sp->timer);
    for (i = 0; i < sp->clusters * sp->hpus; i++) {
        g_free(sp->hpu[i].l1);
    }
    g_free(sp->hpu);
    g_free(sp->open_msgs);
    g_free(sp->scratch_used);
    g_free(sp->msgs);
    g_free(sp->pmem);
    g_free(sp->l2h);
    g_free(sp->frame);
    g_free(sp->pass_buf);
    spin_l2_destroy(&sp->l2p_banks);
    spin_l2_destroy(&sp->l2h_banks);
}

void snic_spin_reset(SnicState *s)
{
    SnicSpin *sp = &s->spin;
    uint32_t i;

    if (!sp->pmem) {
        return;     /* not realized yet */
    }
    snic_spin_flush(s, -1);
    timer_del(sp->timer);
    memset(sp->ctxs, 0, sizeof(sp->ctxs));
    memset(sp->pmem, 0, SNIC_SPIN_PMEM_SIZE);
    memset(sp->l2h, 0, SNIC_SPIN_L2H_SIZE);
    for (i = 0; i < sp->clusters * sp->hpus; i++) {
        SnicSpinHpu *h = &sp->hpu[i];
        uint8_t *l1 = h->l1;

        memset(l1, 0, SPIN_L1_SLOT_SIZE);
        memset(h, 0, sizeof(*h));
        h->l1 = l1;
        h->last_ctx = -1;
    }
    sp->l2p_used = sp->l2p_peak = 0;
    sp->packets = sp->no_ctx = sp->no_resources = 0;
    sp->aborts = sp->busy_cycles = sp->now_cycle = sp->ic_free = 0;
    spin_l2_reset(&sp->l2p_banks);
    spin_l2_reset(&sp->l2h_banks);
    sp->l2p_next = 0;
}

/* ---- event ring ---- */

void snic_spin_event(SnicState *s, uint32_t ctx_id, uint8_t type,
                     uint8_t handler, uint32_t msg_id, uint32_t pc,
                     uint32_t addr, uint32_t info, uint32_t insns,
                     uint32_t cycles)
{
    SnicSpinCtx *ctx = &s->spin.ctxs[ctx_id];
    struct snic_spin_event ev = { 0 };
    uint32_t size = 1u << ctx->ev_log;
    __le32 ci;

    ctx->by_event[type % SNIC_SPIN_EV_MAX]++;
    if (!ctx->ev_ring) {
        return;
    }
    if (d2d_dma_read(&s->parent_obj, &s->pcie, NULL, ctx->ev_dbr, &ci,
                     sizeof(ci)) != MEMTX_OK) {
        s->stats.dma_errs++;
        ctx->event_overflows++;
        return;
    }
    if (ctx->ev_pi - le32_to_cpu(ci) >= size) {
        ctx->event_overflows++;
        return;
    }
    ev.type = type;
    ev.handler = handler;
    ev.ctx = cpu_to_le16(ctx_id);
    ev.msg_id = cpu_to_le32(msg_id);
    ev.pc = cpu_to_le32(pc);
    ev.addr = cpu_to_le32(addr);
    ev.info = cpu_to_le32(info);
    ev.insns = cpu_to_le32(insns);
    ev.cycles = cpu_to_le32(cycles);
    ev.owner = (ctx->ev_pi >> ctx->ev_log) & 1 ? 0 : SNIC_SPIN_EV_OWNER;
    if (d2d_dma_write_entry(&s->parent_obj, &s->pcie, NULL,
                            ctx->ev_ring + (uint64_t)(ctx->ev_pi & (size - 1)) *
                            sizeof(ev), &ev, sizeof(ev)) != MEMTX_OK) {
        s->stats.dma_errs++;
        ctx->event_overflows++;
        return;
    }
    ctx->ev_pi++;
    ctx->events++;
    if (ctx->ev_eqn != SNIC_EQN_NONE) {
        snic_eq_post(s, ctx->ev_eqn, SNIC_EQE_SPIN_EVENT, ctx_id, ctx->ev_pi);
    }
}

/* ---- admin commands ---- */

static uint16_t snic_spin_mem_cmd(SnicState *s, const struct snic_aq_cmd *c)
{
    struct snic_aq_spin_mem m;
    uint32_t len, off, size;
    uint64_t host;
    uint8_t *mem;
    MemTxResult r;

    memcpy(&m, c->raw, sizeof(m));
    len = le32_to_cpu(m.len);
    off = le32_to_cpu(m.offset);
    host = le64_to_cpu(m.host_addr);
    if (m.mem == SNIC_SPIN_MEM_PROG) {
        mem = s->spin.pmem;
        size = SNIC_SPIN_PMEM_SIZE;
    } else if (m.mem == SNIC_SPIN_MEM_L2H) {
        mem = s->spin.l2h;
        size = SNIC_SPIN_L2H_SIZE;
    } else {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (len == 0 || off >= size || len > size - off) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (c->opcode == SNIC_AQ_SPIN_WRITE_MEM) {
        r = d2d_dma_read(&s->parent_obj, &s->pcie, NULL, host, mem + off, len);
    } else {
        r = d2d_dma_write(&s->parent_obj, &s->pcie, NULL, host, mem + off,
                          len);
    }
    if (r != MEMTX_OK) {
        s->stats.dma_errs++;
        return SNIC_AQ_EDMA;
    }
    return SNIC_AQ_OK;
}

static bool snic_spin_window_ok(uint32_t off, uint32_t size, uint32_t mem)
{
    return off < mem && size <= mem - off;
}

/* ---- attachment to an RDMA QP ---- */

/* The RC QP @qpn a context may take: exists, RC, no context yet. */
static uint16_t snic_spin_qp_free_for(SnicState *s, uint32_t qpn, SnicQp **out)
{
    SnicQp *qp = snic_rdma_qp(s, qpn);

    if (!qp) {
        return SNIC_AQ_ENOENT;
    }
    if (qp->type != SNIC_QPT_RC) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (qp->spin_ctx) {
        return SNIC_AQ_EBUSY;
    }
    *out = qp;
    return SNIC_AQ_OK;
}

static void snic_spin_qp_detach(SnicState *s, SnicSpinCtx *ctx)
{
    SnicQp *qp = ctx->qp_attached ? snic_rdma_qp(s, ctx->qpn) : NULL;

    if (qp && qp->spin_ctx == ctx - s->spin.ctxs + 1) {
        qp->spin_ctx = 0;
    }
    ctx->qp_attached = false;
}

static void snic_spin_qp_attach(SnicState *s, SnicSpinCtx *ctx, SnicQp *qp)
{
    ctx->qp_attached = true;
    ctx->qpn = qp->qpn;
    qp->spin_ctx = ctx - s->spin.ctxs + 1;
}

static void snic_spin_qp_gone(SnicState *s, SnicQp *qp)
{
    uint32_t id = qp->spin_ctx - 1;

    if (qp->spin_ctx && id < SNIC_SPIN_MAX_CTXS) {
        s->spin.ctxs[id].qp_attached = false;
    }
    qp->spin_ctx = 0;
}

static uint16_t snic_spin_attach_qp(SnicState *s, const struct snic_aq_cmd *c)
{
    struct snic_aq_spin_attach_qp a;
    SnicSpinCtx *ctx;
    uint32_t qpn;
    SnicQp *qp;
    uint16_t st;

    memcpy(&a, c->raw, sizeof(a));
    ctx = snic_spin_ctx(s, le32_to_cpu(a.ctx));
    qpn = le32_to_cpu(a.qpn);
    if (!ctx) {
        return SNIC_AQ_ENOENT;
    }
    if (a.rsvd[0] || a.rsvd[1]) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (qpn == SNIC_SPIN_QPN_NONE) {
        snic_spin_qp_detach(s, ctx);
        return SNIC_AQ_OK;
    }
    if (ctx->qp_attached) {
        return ctx->qpn == qpn ? SNIC_AQ_OK : SNIC_AQ_EBUSY;
    }
    /* QP handlers run inside the receive path: their watchdog is capped. */
    if (ctx->watchdog > SNIC_SPIN_WATCHDOG_QP_MAX) {
        s->spin.qp_wd_refused++;
        return SNIC_AQ_EINVAL_PARAM;
    }
    st = snic_spin_qp_free_for(s, qpn, &qp);
    if (st == SNIC_AQ_OK) {
        snic_spin_qp_attach(s, ctx, qp);
    }
    return st;
}

static uint16_t snic_spin_create_ctx(SnicState *s, const struct snic_aq_cmd *c,
                                     uint64_t *res)
{
    SnicQp *qp = NULL;
    uint16_t st;
    SnicSpin *sp = &s->spin;
    struct snic_spin_ctx_cfg cfg;
    SnicSpinCtx *ctx;
    uint32_t id, i, wd, tmo;
    uint16_t eqn;

    st = snic_aq_read_buf(s, c, &cfg, sizeof(cfg));
    if (st != SNIC_AQ_OK) {
        return st;
    }
    wd = le32_to_cpu(cfg.watchdog);
    tmo = le32_to_cpu(cfg.timeout_us);
    eqn = le16_to_cpu(cfg.ev_eqn);
    if (le32_to_cpu(cfg.code_size) == 0 ||
        !snic_spin_window_ok(le32_to_cpu(cfg.code_off),
                             le32_to_cpu(cfg.code_size), SNIC_SPIN_PMEM_SIZE) ||
        (le32_to_cpu(cfg.hmem_size) &&
         !snic_spin_window_ok(le32_to_cpu(cfg.hmem_off),
                              le32_to_cpu(cfg.hmem_size),
                              SNIC_SPIN_L2H_SIZE)) ||
        le32_to_cpu(cfg.scratch_size) > SPIN_SCRATCH_MAX ||
        le32_to_cpu(cfg.copy_bytes) > SPIN_PKT_MAX ||
        wd > SNIC_SPIN_WATCHDOG_MAX ||
        (le32_to_cpu(cfg.flags) & ~SNIC_SPIN_CFG_F_NO_SEND) ||
        (le32_to_cpu(cfg.match) != SNIC_SPIN_MATCH_STEER &&
         le32_to_cpu(cfg.match) != SNIC_SPIN_MATCH_QP)) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    for (i = 0; i < SPIN_NUM_HANDLERS; i++) {
        uint32_t e = le32_to_cpu(cfg.entry[i]);

        if (e && (e & 3 || e < SPIN_CODE_BASE ||
                  e - SPIN_CODE_BASE >= le32_to_cpu(cfg.code_size))) {
            return SNIC_AQ_EINVAL_PARAM;
        }
    }
    if (cfg.ev_ring) {
        if (le64_to_cpu(cfg.ev_ring) % SNIC_RING_ALIGN ||
            le64_to_cpu(cfg.ev_dbr) % 4 ||
            cfg.ev_log_size < SNIC_SPIN_MIN_LOG_EV ||
            cfg.ev_log_size > SNIC_SPIN_MAX_LOG_EV) {
            return SNIC_AQ_EINVAL_PARAM;
        }
        if (!snic_dma_probe(s, le64_to_cpu(cfg.ev_ring)) ||
            !snic_dma_probe(s, le64_to_cpu(cfg.ev_dbr))) {
            return SNIC_AQ_EDMA;
        }
    }
    if (eqn != SNIC_EQN_NONE && (eqn >= SNIC_MAX_EQS || !s->eqs[eqn].valid)) {
        return SNIC_AQ_ENOENT;
    }
    if (le32_to_cpu(cfg.match) == SNIC_SPIN_MATCH_QP) {
        /* Handlers on a QP run in the receive path: bounded stall. */
        if ((wd ? wd : SNIC_SPIN_WATCHDOG_DEF) > SNIC_SPIN_WATCHDOG_QP_MAX) {
            sp->qp_wd_refused++;
            return SNIC_AQ_EINVAL_PARAM;
        }
        st = snic_spin_qp_free_for(s, le32_to_cpu(cfg.match_id), &qp);
        if (st != SNIC_AQ_OK) {
            return st;
        }
    }
    for (id = 0; id < SNIC_SPIN_MAX_CTXS && sp->ctxs[id].valid; id++) {
        /* first free context */
    }
    if (id == SNIC_SPIN_MAX_CTXS) {
        return SNIC_AQ_ENOSPC;
    }
    ctx = &sp->ctxs[id];
    memset(ctx, 0, sizeof(*ctx));
    ctx->valid = true;
    for (i = 0; i < SPIN_NUM_HANDLERS; i++) {
        ctx->entry[i] = le32_to_cpu(cfg.entry[i]);
        ctx->h[i].insns_min = UINT64_MAX;
        ctx->h[i].cycles_min = UINT64_MAX;
    }
    ctx->code_off = le32_to_cpu(cfg.code_off);
    ctx->code_size = le32_to_cpu(cfg.code_size);
    ctx->hmem_off = le32_to_cpu(cfg.hmem_off);
    ctx->hmem_size = le32_to_cpu(cfg.hmem_size);
    ctx->scratch_size = le32_to_cpu(cfg.scratch_size);
    ctx->copy_bytes = le32_to_cpu(cfg.copy_bytes);
    ctx->watchdog = wd ? wd : SNIC_SPIN_WATCHDOG_DEF;
    ctx->no_send = le32_to_cpu(cfg.flags) & SNIC_SPIN_CFG_F_NO_SEND;
    ctx->timeout_ns = (uint64_t)(tmo ? tmo : SNIC_SPIN_TIMEOUT_DEF_US) * 1000;
    ctx->ev_ring = le64_to_cpu(cfg.ev_ring);
    ctx->ev_dbr = le64_to_cpu(cfg.ev_dbr);
    ctx->ev_log = cfg.ev_log_size;
    ctx->ev_eqn = eqn;
    if (eqn != SNIC_EQN_NONE) {
        s->eqs[eqn].refs++;
    }
    if (qp) {
        snic_spin_qp_attach(s, ctx, qp);
    }
    *res = id;
    return SNIC_AQ_OK;
}

static uint16_t snic_spin_destroy_ctx(SnicState *s, uint32_t id)
{
    SnicSpinCtx *ctx = snic_spin_ctx(s, id);

    if (!ctx) {
        return SNIC_AQ_ENOENT;
    }
    if (ctx->refs) {
        return SNIC_AQ_EBUSY;
    }
    snic_spin_qp_detach(s, ctx);
    snic_spin_flush(s, id);
    if (ctx->ev_eqn != SNIC_EQN_NONE) {
        s->eqs[ctx->ev_eqn].refs--;
    }
    ctx->valid = false;
    return SNIC_AQ_OK;
}

static uint16_t snic_spin_region_cmd(SnicState *s, const struct snic_aq_cmd *c,
                                     uint64_t *res)
{
    struct snic_aq_spin_region r;
    SnicSpinCtx *ctx;
    uint64_t addr, len;
    uint32_t flags, i;

    memcpy(&r, c->raw, sizeof(r));
    ctx = snic_spin_ctx(s, le32_to_cpu(r.ctx));
    if (!ctx) {
        return SNIC_AQ_ENOENT;
    }
    if (c->opcode == SNIC_AQ_SPIN_DEL_REGION) {
        i = le32_to_cpu(r.index);
        if (i >= SNIC_SPIN_MAX_REGIONS || !ctx->regions[i].valid) {
            return SNIC_AQ_ENOENT;
        }
        ctx->regions[i].valid = false;
        return SNIC_AQ_OK;
    }
    addr = le64_to_cpu(r.addr);
    len = le64_to_cpu(r.len);
    flags = le32_to_cpu(r.flags);
    if (len == 0 || addr + len < addr || !flags ||
        (flags & ~(SNIC_SPIN_REGION_READ | SNIC_SPIN_REGION_WRITE))) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    for (i = 0; i < SNIC_SPIN_MAX_REGIONS && ctx->regions[i].valid; i++) {
        /* first free slot */
    }
    if (i == SNIC_SPIN_MAX_REGIONS) {
        return SNIC_AQ_ENOSPC;
    }
    ctx->regions[i].valid = true;
    ctx->regions[i].addr = addr;
    ctx->regions[i].len = len;
    ctx->regions[i].flags = flags;
    *res = i;
    return SNIC_AQ_OK;
}

uint16_t snic_spin_admin(SnicState *s, const struct snic_aq_cmd *c,
                         uint64_t *res)
{
    switch (c->opcode) {
    case SNIC_AQ_SPIN_WRITE_MEM:
    case SNIC_AQ_SPIN_READ_MEM:
        return snic_spin_mem_cmd(s, c);
    case SNIC_AQ_SPIN_CREATE_CTX:
        return snic_spin_create_ctx(s, c, res);
    case SNIC_AQ_SPIN_DESTROY_CTX:
        return snic_spin_destroy_ctx(s, le32_to_cpu(c->obj.id));
    case SNIC_AQ_SPIN_ADD_REGION:
    case SNIC_AQ_SPIN_DEL_REGION:
        return snic_spin_region_cmd(s, c, res);
    case SNIC_AQ_SPIN_ATTACH_QP:
        return snic_spin_attach_qp(s, c);
    case SNIC_AQ_SPIN_REG_OPCODE:
        return snic_spin_offload_reg(s, c);
    default:
        return SNIC_AQ_EINVAL_OPCODE;
    }
}

/* ---- statistics ---- */

static uint64_t snic_spin_div(unsigned __int128 a, uint64_t b)
{
    return b ? (uint64_t)(a / b) : 0;
}

uint16_t snic_spin_query_stats(SnicState *s, const struct snic_aq_cmd *c)
{
    SnicSpin *sp = &s->spin;
    uint32_t hpus = sp->clusters * sp->hpus;
    uint64_t addr = le64_to_cpu(c->buf.addr);
    uint32_t len = le32_to_cpu(c->buf.len);
    const void *out;
    size_t size;
    struct snic_spin_ctx_stats o;
    struct snic_spin_dev_stats d;

    if (le32_to_cpu(c->buf.kind) == SNIC_STATS_SPIN) {
        SnicSpinCtx *x = snic_spin_ctx(s, le32_to_cpu(c->buf.id));
        uint64_t span;
        int i;

        if (!x) {
            return SNIC_AQ_ENOENT;
        }
        memset(&o, 0, sizeof(o));
        span = x->seen && x->last_cycle > x->first_cycle ?
               x->last_cycle - x->first_cycle : 0;
        o.packets = cpu_to_le64(x->packets);
        o.bytes = cpu_to_le64(x->bytes);
        o.messages = cpu_to_le64(x->messages);
        o.messages_done = cpu_to_le64(x->messages_done);
        o.pass = cpu_to_le64(x->pass);
        o.drop = cpu_to_le64(x->drop);
        for (i = 0; i < SPIN_NUM_HANDLERS; i++) {
            const SnicSpinHStats *h = &x->h[i];

            o.h[i].invocations = cpu_to_le64(h->inv);
            o.h[i].insns = cpu_to_le64(h->insns);
            o.h[i].insns_min = cpu_to_le64(h->inv ? h->insns_min : 0);
            o.h[i].insns_max = cpu_to_le64(h->insns_max);
            o.h[i].cycles = cpu_to_le64(h->cycles);
            o.h[i].cycles_min = cpu_to_le64(h->inv ? h->cycles_min : 0);
            o.h[i].cycles_max = cpu_to_le64(h->cycles_max);
        }
        o.commands = cpu_to_le64(x->commands);
        o.cmd_dma_bytes = cpu_to_le64(x->cmd_dma_bytes);
        o.sends = cpu_to_le64(x->sends);
        o.host_writes = cpu_to_le64(x->host_writes);
        o.atomics = cpu_to_le64(x->atomics);
        o.aborts = cpu_to_le64(x->aborts);
        o.events = cpu_to_le64(x->events);
        o.event_overflows = cpu_to_le64(x->event_overflows);
        o.no_resources = cpu_to_le64(x->no_resources);
        o.busy_cycles = cpu_to_le64(x->busy_cycles);
        o.first_cycle = cpu_to_le64(x->first_cycle);
        o.last_cycle = cpu_to_le64(x->last_cycle);
        o.occupancy_ppm = cpu_to_le64(
            snic_spin_div((unsigned __int128)x->busy_cycles * 1000000,
                          span * hpus));
        o.throughput_mbps = cpu_to_le64(
            snic_spin_div((unsigned __int128)x->bytes * 8 * sp->clock_mhz,
                          span));
        /* every HPU busy, but never past the interconnect */
        o.sat_mbps = cpu_to_le64(MIN(
            snic_spin_div((unsigned __int128)x->bytes * 8 * hpus *
                          sp->clock_mhz, x->busy_cycles),
            snic_spin_div((unsigned __int128)x->bytes * SNIC_SPIN_IC_MBPS,
                          x->ic_bytes)));
        for (i = 0; i < SNIC_SPIN_EV_MAX; i++) {
            o.by_event[i] = cpu_to_le64(x->by_event[i]);
        }
        out = &o;
        size = sizeof(o);
    } else {
        uint32_t i, n = 0;

        for (i = 0; i < SNIC_SPIN_MAX_CTXS; i++) {
            n += sp->ctxs[i].valid;
        }
        memset(&d, 0, sizeof(d));
        d.clusters = cpu_to_le32(sp->clusters);
        d.hpus_per_cluster = cpu_to_le32(sp->hpus);
        d.clock_mhz = cpu_to_le32(sp->clock_mhz);
        d.num_ctxs = cpu_to_le32(n);
        d.packets = cpu_to_le64(sp->packets);
        d.no_ctx = cpu_to_le64(sp->no_ctx);
        d.no_resources = cpu_to_le64(sp->no_resources);
        d.aborts = cpu_to_le64(sp->aborts);
        d.busy_cycles = cpu_to_le64(sp->busy_cycles);
        d.now_cycle = cpu_to_le64(sp->now_cycle);
        d.l2p_used = cpu_to_le64(sp->l2p_used);
        d.l2p_peak = cpu_to_le64(sp->l2p_peak);
        d.qp_wd_refused = cpu_to_le64(sp->qp_wd_refused);
        out = &d;
        size = sizeof(d);
    }
    if (len < size) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (d2d_dma_write(&s->parent_obj, &s->pcie, NULL, addr, out, size) !=
        MEMTX_OK) {
        s->stats.dma_errs++;
        return SNIC_AQ_EDMA;
    }
    return SNIC_AQ_OK;
}

/* ---- messages ---- */

/*
 * Open message @id (the context's next number if negative) in its home
 * cluster, else in the least loaded one that has a slot and scratch room.
 * NULL when every cluster is full.
 */
static SnicSpinMsg *snic_spin_msg_open(SnicSpin *sp, uint32_t ctx_id,
                                       SnicSpinCtx *ctx, int64_t id)
{
    uint32_t mid = id < 0 ? ctx->next_msg : (uint32_t)id;
    uint32_t home = mid % sp->clusters, c, best = UINT32_MAX, i;
    SnicSpinMsg *m = NULL;

    for (c = 0; c < sp->clusters; c++) {
        if (sp->open_msgs[c] >= sp->msg_slots ||
            sp->scratch_used[c] + ctx->scratch_size > SNIC_SPIN_SCRATCH_POOL) {
            continue;
        }
        if (c == home) {
            best = c;
            break;
        }
        if (best == UINT32_MAX || sp->open_msgs[c] < sp->open_msgs[best]) {
            best = c;
        }
    }
    if (best == UINT32_MAX) {
        return NULL;
    }
    for (i = 0; i < SNIC_SPIN_MSG_SLOTS; i++) {
        if (!sp->msgs[best * SNIC_SPIN_MSG_SLOTS + i].valid) {
            m = &sp->msgs[best * SNIC_SPIN_MSG_SLOTS + i];
            break;
        }
    }
    if (!m) {
        return NULL;    /* open_msgs and the slots disagree: cannot be */
    }
    memset(m, 0, sizeof(*m));
    m->valid = true;
    m->ctx = ctx_id;
    m->id = mid;
    if (id < 0) {
        ctx->next_msg++;
    }
    m->cluster = best;
    m->scratch_size = ctx->scratch_size;
    m->scratch = ctx->scratch_size ? g_malloc0(ctx->scratch_size) : NULL;
    sp->open_msgs[best]++;
    sp->scratch_used[best] += ctx->scratch_size;
    ctx->messages++;
    return m;
}

/* The open message of flow @key that still expects packets. */
static SnicSpinMsg *snic_spin_msg_find(SnicSpin *sp, uint32_t ctx_id,
                                       uint64_t key)
{
    uint32_t i;

    for (i = 0; i < sp->clusters * SNIC_SPIN_MSG_SLOTS; i++) {
        SnicSpinMsg *m = &sp->msgs[i];

        if (m->valid && m->ctx == ctx_id && m->key == key && !m->last_seen) {
            return m;
        }
    }
    return NULL;
}

/*
 * Admit one packet of a message for context @ctx_id into the L2 packet
 * buffer: the generic entry of the match.  @key names the flow whose
 * messages follow one another (an RDMA QP); @first / @last come from the
 * transport (SEND/WRITE first, middle, last); @id is the message number
 * (negative: the context's next).  A middle or last packet with no open
 * message of its flow is dropped.  NULL if dropped; *nores tells whether
 * for lack of resources.
 */
static SnicSpinPkt *snic_spin_admit(SnicState *s, uint32_t ctx_id,
                                    uint64_t key, bool first, bool last,
                                    int64_t id, const uint8_t *f, size_t len,
                                    bool *nores)
{
    SnicSpin *sp = &s->spin;
    SnicSpinCtx *ctx = snic_spin_ctx(s, ctx_id);
    SnicSpinMsg *m;
    SnicSpinPkt *p;

    *nores = false;
    sp->packets++;
    if (!ctx) {
        sp->no_ctx++;
        return NULL;
    }
    ctx->packets++;
    ctx->bytes += len;
    if (len > SPIN_PKT_MAX || sp->l2p_used + len > sp->l2p_size) {
        goto no_resources;
    }
    if (first) {
        m = snic_spin_msg_open(sp, ctx_id, ctx, id);
        if (!m) {
            goto no_resources;
        }
        m->key = key;
    } else {
        m = snic_spin_msg_find(sp, ctx_id, key);
        if (!m) {
            ctx->drop++;
            return NULL;
        }
    }
    p = g_malloc(sizeof(*p) + len);
    p->ctx = ctx_id;
    p->msg = m - sp->msgs;
    p->idx = m->pkts;
    p->first = first;
    p->last = last;
    p->in_l1 = false;
    /*
     * in L2 once it has crossed the interconnect, from when it is through
     * the NIC's pipeline (timing mode; else now)
     */
    p->arrival = snic_spin_ic(sp, snic_spin_cycle(sp,
                                  d2d_timing_through(&s->timing)), len);
    ctx->ic_bytes += len;
    p->l2_off = sp->l2p_next % sp->l2p_size;
    sp->l2p_next += ROUND_UP(len, 1u << SPIN_L2P_WORD_SHIFT);
    p->len = len;
    memcpy(p->data, f, len);
    m->pkts++;
    m->bytes += len;
    m->last_seen = p->last;
    m->last_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    if (!ctx->seen) {
        ctx->seen = true;
        /* when its first byte began to cross the interconnect */
        ctx->first_cycle = p->arrival - snic_spin_ic_cycles(sp, len);
    }
    sp->l2p_used += len;
    sp->l2p_peak = MAX(sp->l2p_peak, sp->l2p_used);
    return p;

no_resources:
    ctx->no_resources++;
    ctx->drop++;
    sp->no_resources++;
    *nores = true;
    return NULL;
}

void snic_spin_packet_in(SnicState *s, uint32_t ctx_id, uint64_t key,
                         bool first, bool last, const uint8_t *f, size_t len)
{
    bool nores;
    SnicSpinPkt *p = snic_spin_admit(s, ctx_id, key, first, last, -1, f, len,
                                     &nores);

    if (p) {
        QSIMPLEQ_INSERT_TAIL(&s->spin.queue, p, next);
        d2d_timing_bh_schedule(&s->timing, s->spin.bh);
    }
}

/* A frame a steering rule gave to context @ctx_id: a one-packet message. */
static void snic_spin_rx(SnicState *s, uint32_t ctx_id, const uint8_t *f,
                         size_t len)
{
    snic_spin_packet_in(s, ctx_id, 0, true, true, f, len);
}

/* ---- handler invocation ---- */

static void snic_spin_hstat(SnicSpinHStats *h, uint64_t insns, uint64_t cyc)
{
    h->inv++;
    h->insns += insns;
    h->insns_min = MIN(h->insns_min, insns);
    h->insns_max = MAX(h->insns_max, insns);
    h->cycles += cyc;
    h->cycles_min = MIN(h->cycles_min, cyc);
    h->cycles_max = MAX(h->cycles_max, cyc);
}

static const uint8_t snic_spin_ev_of[] = {
    [SPIN_RV_FETCH_FAULT] = SNIC_SPIN_EV_FETCH_FAULT,
    [SPIN_RV_MEM_FAULT] = SNIC_SPIN_EV_MEM_FAULT,
    [SPIN_RV_ILLEGAL] = SNIC_SPIN_EV_ILLEGAL,
    [SPIN_RV_WATCHDOG] = SNIC_SPIN_EV_WATCHDOG,
};

/*
 * L2 bank contention: a handler's load/store to handler memory or to its
 * packet in the packet buffer takes its bank's next free cycle.
 */
static uint32_t snic_spin_l2h_access(void *opaque, uint32_t off,
                                     uint64_t cycle)
{
    SnicSpinRun *run = opaque;

    return spin_l2_access(&run->s->spin.l2h_banks,
                          (uint64_t)run->ctx->hmem_off + off, cycle);
}

static uint32_t snic_spin_l2p_access(void *opaque, uint32_t off,
                                     uint64_t cycle)
{
    SnicSpinRun *run = opaque;

    return spin_l2_access(&run->s->spin.l2p_banks,
                          (uint64_t)run->pkt->l2_off + off, cycle);
}

/*
 * Start handler @kind of message @m (packet @p, NULL for completion) in
 * @run on the first free HPU of the message's cluster, not before cycle
 * @ready; snic_spin_invoke_run() interprets it.
 */
static void snic_spin_invoke_start(SnicState *s, SnicSpinMsg *m,
                                   SnicSpinPkt *p, int kind, uint64_t ready,
                                   SnicSpinRun *run)
{
    SnicSpin *sp = &s->spin;
    SnicSpinCtx *ctx = &sp->ctxs[m->ctx];
    SnicSpinHpu *h = &sp->hpu[m->cluster * sp->hpus];   /* hpus >= 1 */
    struct spin_args *a;
    SpinRv32 *cpu = &run->cpu;
    uint32_t i, hpu_idx = 0, copy;
    uint64_t start;

    for (i = 1; i < sp->hpus; i++) {
        SnicSpinHpu *c = &sp->hpu[m->cluster * sp->hpus + i];

        if (c->free_at < h->free_at) {
            h = c;
            hpu_idx = i;
        }
    }
    start = MAX(ready, h->free_at);
    /*
     * The packet's copy into its cluster's L1 crosses the interconnect
     * too, once per packet: a delay before its first handler starts
     * (handlers are run in invocation, not time order, so it reserves no
     * share of ic_free; its bytes count in the interconnect's cap on
     * sat_mbps).
     */
    if (p && ctx->copy_bytes && !p->in_l1) {
        start += snic_spin_ic_cycles(sp, MIN(ctx->copy_bytes, p->len));
        ctx->ic_bytes += MIN(ctx->copy_bytes, p->len);
        /* in the cluster's L1 now: its next handler needs no copy */
        p->in_l1 = true;
    }

    /* The HPU's L1 slot: nothing of another context may remain. */
    if (h->last_ctx != (int32_t)m->ctx) {
        memset(h->l1, 0, SPIN_L1_SLOT_SIZE);
        h->last_ctx = m->ctx;
    }
    memset(h->slot, 0, sizeof(h->slot));
    a = (struct spin_args *)h->l1;
    memset(a, 0, sizeof(*a));
    copy = p ? MIN(ctx->copy_bytes, p->len) : 0;
    if (p) {
        memcpy(h->l1 + (SPIN_PKT_ADDR - SPIN_L1_BASE), p->data, copy);
        a->pkt = cpu_to_le32(SPIN_PKT_ADDR);
        a->pkt_len = cpu_to_le32(copy);
        a->pkt_l2 = cpu_to_le32(SPIN_PKTBUF_BASE);
        a->full_len = cpu_to_le32(p->len);
        a->pkt_idx = cpu_to_le32(p->idx);
        a->flags = cpu_to_le32((p->first ? SPIN_ARG_F_FIRST : 0) |
                               (p->last ? SPIN_ARG_F_LAST : 0));
    }
    a->msg_id = cpu_to_le32(m->id);
    a->handler = cpu_to_le32(kind);
    a->hmem = cpu_to_le32(SPIN_HMEM_BASE);
    a->hmem_size = cpu_to_le32(ctx->hmem_size);
    a->scratch = cpu_to_le32(m->scratch_size ? SPIN_SCRATCH_BASE : 0);
    a->scratch_size = cpu_to_le32(m->scratch_size);
    a->ctx_id = cpu_to_le32(m->ctx);
    a->msg_pkts = cpu_to_le32(m->pkts);
    a->msg_bytes = cpu_to_le32(m->bytes);
    a->hpu = cpu_to_le32(m->cluster << 8 | hpu_idx);

    memset(run, 0, sizeof(*run));
    run->s = s;
    run->ctx = ctx;
    run->ctx_id = m->ctx;
    run->hpu = h;
    run->pkt = p;
    run->msg = m;
    run->kind = kind;
    run->start = start;
    cpu->code = sp->pmem + ctx->code_off;
    cpu->code_base = SPIN_CODE_BASE;
    cpu->code_size = ctx->code_size;
    cpu->exit_pc = SPIN_EXIT_ADDR;
    cpu->watchdog = ctx->watchdog;
    cpu->cycle_base = start + SNIC_SPIN_COST_DISPATCH;
    cpu->hartid = m->cluster << 8 | hpu_idx;
    cpu->mmio = sp->cmd_mmio;
    cpu->opaque = run;
    spin_rv32_add_window(cpu, SPIN_L1_BASE, SPIN_L1_SLOT_SIZE, h->l1, 0, true);
    spin_rv32_add_window(cpu, SPIN_HMEM_BASE, ctx->hmem_size,
                         sp->l2h + ctx->hmem_off, SNIC_SPIN_COST_L2, true);
    spin_rv32_window_access(cpu, SPIN_HMEM_BASE, snic_spin_l2h_access, run);
    if (p) {
        spin_rv32_add_window(cpu, SPIN_PKTBUF_BASE, p->len, p->data,
                             SNIC_SPIN_COST_L2, true);
        spin_rv32_window_access(cpu, SPIN_PKTBUF_BASE, snic_spin_l2p_access,
                                run);
    }
    if (m->scratch_size) {
        spin_rv32_add_window(cpu, SPIN_SCRATCH_BASE, m->scratch_size,
                             m->scratch, 0, true);
    }
    spin_rv32_add_window(cpu, SPIN_CODE_BASE, ctx->code_size, sp->pmem +
                         ctx->code_off, SNIC_SPIN_COST_PMEM, false);
    spin_rv32_reset(cpu, ctx->entry[kind]);
    cpu->x[1] = SPIN_EXIT_ADDR;
    cpu->x[2] = SPIN_STACK_TOP;
    cpu->x[10] = SPIN_ARGS_ADDR;
}

/*
 * Interpret the handler started in @run for at most @budget instructions
 * (0: no limit), *insns of them this call.  SNIC_SPIN_RUN_MORE when the
 * budget ran out first (call again to resume); otherwise the handler's
 * return code, or -1 if it aborted, and *end is the cycle it ended.
 */
static int snic_spin_invoke_run(SnicState *s, SnicSpinRun *run,
                                uint64_t budget, uint64_t *end,
                                uint64_t *insns)
{
    SnicSpin *sp = &s->spin;
    SnicSpinCtx *ctx = run->ctx;
    SnicSpinMsg *m = run->msg;
    SnicSpinHpu *h = run->hpu;
    SpinRv32 *cpu = &run->cpu;
    uint64_t before = cpu->insns, start = run->start, cyc;
    int kind = run->kind;
    SpinRvStatus st;
    int ret;

    st = spin_rv32_run(cpu, budget);
    *insns = cpu->insns - before;
    if (st == SPIN_RV_BUDGET) {
        return SNIC_SPIN_RUN_MORE;
    }

    cyc = SNIC_SPIN_COST_DISPATCH + cpu->cycles;
    *end = start + cyc;
    h->free_at = *end;
    snic_spin_hstat(&ctx->h[kind], cpu->insns, cyc);
    ctx->busy_cycles += cyc;
    ctx->last_cycle = MAX(ctx->last_cycle, *end);
    sp->busy_cycles += cyc;
    sp->now_cycle = MAX(sp->now_cycle, *end);

    if (st == SPIN_RV_EXIT) {
        ret = cpu->x[10];
        if (ret == SPIN_DROP || ret == SPIN_PASS || ret == SPIN_PASS_CSUM) {
            return ret;
        }
        snic_spin_event(s, m->ctx, SNIC_SPIN_EV_BAD_RETURN, kind, m->id,
                        cpu->pc, 0, ret, cpu->insns, cyc);
        return -1;
    }
    ctx->aborts++;
    sp->aborts++;
    qemu_log_mask(LOG_GUEST_ERROR,
                  "snic: spin ctx %u: handler %d aborted (%d) at pc 0x%x\n",
                  m->ctx, kind, st, cpu->fault_pc);
    if (st == SPIN_RV_ABORT) {
        snic_spin_event(s, m->ctx, cpu->abort_code, kind, m->id,
                        cpu->fault_pc, run->ev_addr, cpu->abort_info,
                        cpu->insns, cyc);
    } else {
        snic_spin_event(s, m->ctx, st < ARRAY_SIZE(snic_spin_ev_of) ?
                        snic_spin_ev_of[st] : SNIC_SPIN_EV_ILLEGAL, kind,
                        m->id, cpu->fault_pc, cpu->fault_addr, 0, cpu->insns,
                        cyc);
    }
    return -1;
}

enum {
    SNIC_SPIN_JOB_HEADER,
    SNIC_SPIN_JOB_PAYLOAD,
    SNIC_SPIN_JOB_FATE,
    SNIC_SPIN_JOB_COMPLETION,
    SNIC_SPIN_JOB_CLOSE,
};

static void snic_spin_job_begin(SnicSpinJob *j, SnicSpinPkt *p, bool deliver)
{
    memset(j, 0, sizeof(*j));
    j->pkt = p;
    j->deliver = deliver;
    j->verdict = SPIN_DROP;
    j->stage = SNIC_SPIN_JOB_HEADER;
    j->end = p->arrival;
}

/* Start handler @kind of job @j's message, not before cycle @ready. */
static void snic_spin_job_invoke(SnicState *s, SnicSpinJob *j, int kind,
                                 uint64_t ready)
{
    SnicSpinPkt *p = j->pkt;

    snic_spin_invoke_start(s, &s->spin.msgs[p->msg],
                           kind == SPIN_HANDLER_COMPLETION ? NULL : p, kind,
                           ready, &j->run);
    j->running = true;
}

/*
 * All handlers of job @j's packet, in order: header (first packet),
 * payload, then completion once the message's last packet is done.  With
 * j->deliver a passed frame goes to the host's receive path (UDP);
 * j->fate is the packet's fate either way (SPIN_DROP, SPIN_PASS,
 * SPIN_PASS_CSUM).  Interprets until *spent reaches @budget (0: no limit),
 * adding the instructions to *spent; true when the packet is done, false
 * when a handler is suspended (call again to resume).
 */
static bool snic_spin_job_step(SnicState *s, SnicSpinJob *j, uint64_t budget,
                               uint64_t *spent)
{
    SnicSpin *sp = &s->spin;
    SnicSpinPkt *p = j->pkt;
    SnicSpinMsg *m = &sp->msgs[p->msg];
    SnicSpinCtx *ctx = &sp->ctxs[p->ctx];
    uint64_t end, n;
    int r;

    for (;;) {
        if (j->running) {
            if (budget && *spent >= budget) {
                return false;
            }
            r = snic_spin_invoke_run(s, &j->run, budget ? budget - *spent : 0,
                                     &end, &n);
            *spent += n;
            if (r == SNIC_SPIN_RUN_MORE) {
                return false;
            }
            j->running = false;
            j->end = MAX(j->end, end);
            if (j->stage == SNIC_SPIN_JOB_HEADER) {
                m->hh_end = end;
                j->aborted |= r < 0;
                j->verdict = r > 0 ? r : j->verdict;
                j->stage = SNIC_SPIN_JOB_PAYLOAD;
            } else if (j->stage == SNIC_SPIN_JOB_PAYLOAD) {
                m->ph_end = MAX(m->ph_end, end);
                j->aborted |= r < 0;
                j->verdict = r >= 0 ? r : j->verdict;
                j->stage = SNIC_SPIN_JOB_FATE;
            } else {
                j->stage = SNIC_SPIN_JOB_CLOSE;
            }
            continue;
        }
        switch (j->stage) {
        case SNIC_SPIN_JOB_HEADER:
            if (p->first) {
                m->hh_end = p->arrival;
                if (ctx->entry[SPIN_HANDLER_HEADER]) {
                    snic_spin_job_invoke(s, j, SPIN_HANDLER_HEADER,
                                         p->arrival);
                    continue;
                }
            }
            j->stage = SNIC_SPIN_JOB_PAYLOAD;
            /* fall through */
        case SNIC_SPIN_JOB_PAYLOAD:
            m->ph_end = MAX(m->ph_end, m->hh_end);
            if (ctx->entry[SPIN_HANDLER_PAYLOAD]) {
                snic_spin_job_invoke(s, j, SPIN_HANDLER_PAYLOAD,
                                     MAX(p->arrival, m->hh_end));
                continue;
            }
            j->stage = SNIC_SPIN_JOB_FATE;
            /* fall through */
        case SNIC_SPIN_JOB_FATE:
            j->fate = j->aborted ? SPIN_DROP : j->verdict;
            if (j->fate != SPIN_DROP) {
                ctx->pass++;
                if (j->deliver) {
                    if (j->verdict == SPIN_PASS_CSUM) {
                        snic_pkt_fill_csum(p->data, p->len, true, true);
                    }
                    /* timing mode: to the host when its handlers ended */
                    d2d_timing_until(&s->timing,
                                     snic_spin_cycle_ns(sp, j->end));
                    snic_rx_spin_pass(s, p->data, p->len);
                }
            } else {
                ctx->drop++;
            }
            m->pkts_done++;
            if (!m->last_seen || m->pkts_done != m->pkts) {
                return true;
            }
            if (ctx->entry[SPIN_HANDLER_COMPLETION]) {
                j->stage = SNIC_SPIN_JOB_COMPLETION;
                snic_spin_job_invoke(s, j, SPIN_HANDLER_COMPLETION,
                                     m->ph_end);
                continue;
            }
            /* fall through */
        default:
            ctx->messages_done++;
            snic_spin_msg_close(sp, m);
            return true;
        }
    }
}

/*
 * Run every handler of packet @p now; *fate as snic_spin_job_step(), *end
 * the cycle its last handler ended.
 */
static void snic_spin_packet(SnicState *s, SnicSpinPkt *p, bool deliver,
                             int *fate, uint64_t *end)
{
    SnicSpinJob j;
    uint64_t spent = 0;

    snic_spin_job_begin(&j, p, deliver);
    snic_spin_job_step(s, &j, 0, &spent);
    *fate = j.fate;
    *end = j.end;
}

/* Run the bottom half's suspended packet to its end now. */
static void snic_spin_job_drain(SnicState *s)
{
    SnicSpin *sp = &s->spin;
    uint64_t spent = 0;

    if (sp->job.pkt) {
        snic_spin_job_step(s, &sp->job, 0, &spent);
        snic_spin_job_end(sp);
    }
}

/* Multi-packet messages still waiting for packets: watch them. */
static void snic_spin_watch(SnicSpin *sp)
{
    uint32_t i;

    timer_del(sp->timer);
    for (i = 0; i < sp->clusters * SNIC_SPIN_MSG_SLOTS; i++) {
        if (sp->msgs[i].valid && !sp->msgs[i].last_seen) {
            timer_mod(sp->timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                      SCALE_MS);
            break;
        }
    }
}

/*
 * UDP packets in arrival order, at most SNIC_SPIN_BH_BUDGET instructions
 * per turn: a handler still running then is suspended and resumed on the
 * next turn, so the main loop serves other I/O in between.
 */
void snic_spin_bh(void *opaque)
{
    SnicState *s = opaque;
    SnicSpin *sp = &s->spin;
    SnicSpinJob *j = &sp->job;
    uint64_t spent = 0;

    while (spent < SNIC_SPIN_BH_BUDGET) {
        if (!j->pkt) {
            SnicSpinPkt *p = QSIMPLEQ_FIRST(&sp->queue);

            if (!p) {
                break;
            }
            QSIMPLEQ_REMOVE_HEAD(&sp->queue, next);
            snic_spin_job_begin(j, p, true);
        }
        if (!snic_spin_job_step(s, j, SNIC_SPIN_BH_BUDGET, &spent)) {
            sp->bh_yields++;
            break;
        }
        snic_spin_job_end(sp);
    }
    if (j->pkt || !QSIMPLEQ_EMPTY(&sp->queue)) {
        d2d_timing_bh_schedule(&s->timing, sp->bh);
    }
    snic_spin_watch(sp);
}

/*
 * An RDMA request packet: its handlers run right away (in the receive
 * path, before the responder places its payload), so the transport knows
 * the packet's fate before it advances its PSN and ACKs; packets of one QP
 * reach the engine once each, in PSN order.  Message id: the responder's
 * MSN of the message.  A first packet abandons a message of the QP that
 * never got its last packet (QP reset).  A packet with no open message
 * (timed out) is dropped.
 */
static int snic_spin_rdma_in(SnicState *s, SnicQp *qp, const SnicRoceHdr *h,
                             uint32_t opflags, const uint8_t **payload)
{
    SnicSpin *sp = &s->spin;
    uint32_t ctx_id = qp->spin_ctx - 1;
    bool first = opflags & ROCE_F_FIRST, last = opflags & ROCE_F_LAST;
    uint64_t key = qp->qpn;
    SnicSpinMsg *old;
    SnicSpinPkt *p;
    uint64_t end;
    bool nores;
    int fate;

    /* Handlers run here at once: the suspended one first ends its run. */
    snic_spin_job_drain(s);
    old = first ? snic_spin_msg_find(sp, ctx_id, key) : NULL;
    if (old && old->pkts_done == old->pkts) {
        snic_spin_event(s, ctx_id, SNIC_SPIN_EV_MSG_TIMEOUT,
                        SPIN_HANDLER_PAYLOAD, old->id, 0, 0, old->pkts, 0, 0);
        snic_spin_msg_close(sp, old);
    }
    p = snic_spin_admit(s, ctx_id, key, first, last, qp->msn, h->frame,
                        h->frame_len, &nores);
    if (!p) {
        return nores ? -1 : SPIN_DROP;
    }
    snic_spin_packet(s, p, false, &fate, &end);
    /* timing mode: the transport goes on when the handlers have ended */
    d2d_timing_until(&s->timing, snic_spin_cycle_ns(sp, end));
    sp->l2p_used -= p->len;
    if (fate != SPIN_DROP) {
        /* the payload as the handlers left it in the packet buffer */
        memcpy(sp->pass_buf, p->data, p->len);
        *payload = sp->pass_buf + (h->payload - h->frame);
        fate = SPIN_PASS;
    }
    g_free(p);
    snic_spin_watch(sp);
    return fate;
}

/*
 * A custom-opcode request (docs/snic-spin.md "Offload engine"): the
 * handler registered for its opcode on the QP's context runs at once, in
 * the receive path like the QP's other handlers, on the request as a
 * one-packet message (msg_id: the MSN), and fills @resp; in timing mode
 * what the responder does next waits for the handler's end.
 */
static int snic_spin_custom_in(SnicState *s, SnicQp *qp, const SnicRoceHdr *h,
                               uint8_t *resp)
{
    SnicSpin *sp = &s->spin;
    uint32_t ctx_id = qp->spin_ctx - 1;
    SnicSpinCtx *ctx = qp->spin_ctx ? snic_spin_ctx(s, ctx_id) : NULL;
    uint32_t entry = ctx ? snic_spin_offload_entry(ctx, h->opcode) : 0;
    SnicSpinResp r = { .data = resp, .len = h->dlen };
    SnicSpinRun run;
    SnicSpinPkt *p;
    SnicSpinMsg *m;
    uint64_t end, insns;
    bool nores;
    int ret;

    if (!entry) {
        return SNIC_CUSTOM_NO_HANDLER;
    }
    snic_spin_job_drain(s);
    /* its own flow: a SEND or WRITE of the QP may be in progress */
    p = snic_spin_admit(s, ctx_id, (uint64_t)1 << 32 | qp->qpn, true, true,
                        qp->msn, h->frame, h->frame_len, &nores);
    if (!p) {
        return nores ? SNIC_CUSTOM_NO_RES : SNIC_CUSTOM_FAILED;
    }
    m = &sp->msgs[p->msg];
    snic_spin_invoke_start(s, m, p, SPIN_HANDLER_PAYLOAD, p->arrival, &run);
    snic_spin_offload_prepare(&run, qp, h, entry, &r);
    ret = snic_spin_invoke_run(s, &run, 0, &end, &insns);
    /* timing mode: the answer (or the NAK) leaves when the handler ended */
    d2d_timing_ready(&s->timing, snic_spin_cycle_ns(sp, end));
    if (ret >= 0 && r.sent) {
        ctx->pass++;
    } else {
        ctx->drop++;
    }
    ctx->messages_done++;
    snic_spin_msg_close(sp, m);
    sp->l2p_used -= p->len;
    g_free(p);
    return ret >= 0 && r.sent ? SNIC_CUSTOM_OK : SNIC_CUSTOM_FAILED;
}

/* Abandon messages with no packet for their context's timeout. */
void snic_spin_timer(void *opaque)
{
    SnicState *s = opaque;
    SnicSpin *sp = &s->spin;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    bool open = false;
    uint32_t i;

    for (i = 0; i < sp->clusters * SNIC_SPIN_MSG_SLOTS; i++) {
        SnicSpinMsg *m = &sp->msgs[i];
        SnicSpinCtx *ctx = &sp->ctxs[m->ctx];

        if (!m->valid || m->last_seen) {
            continue;
        }
        /* Only once its queued packets ran: nothing refers to it then. */
        if (m->pkts_done == m->pkts &&
            now - m->last_ns >= (int64_t)ctx->timeout_ns) {
            snic_spin_event(s, m->ctx, SNIC_SPIN_EV_MSG_TIMEOUT,
                            SPIN_HANDLER_PAYLOAD, m->id, 0, 0, m->pkts, 0, 0);
            snic_spin_msg_close(sp, m);
            continue;
        }
        open = true;
    }
    if (open) {
        timer_mod(sp->timer, now + SCALE_MS);
    }
}

/* The engine's receive hook for the layers below it (SnicSpinHook). */
static const SnicSpinHook snic_spin_hook = {
    .rx = snic_spin_rx,
    .rdma_in = snic_spin_rdma_in,
    .custom_in = snic_spin_custom_in,
    .ctx_exists = snic_spin_ctx_exists,
    .ctx_refs = snic_spin_ctx_refs,
    .qp_gone = snic_spin_qp_gone,
};
