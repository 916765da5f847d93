/*
 * d2d: timing mode - the QEMU side of the cost model (see d2d-timing.h
 * and docs/timing.md).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "hw/qdev-core.h"
#include "hw/pci/msix.h"
#include "sysemu/dma.h"
#include "d2d-guard.h"
#include "d2d-timing.h"

typedef enum D2DDeferKind {
    D2D_FX_WRITE,
    D2D_FX_WRITE_ENTRY,         /* owner byte last (d2d_dma_write_entry) */
    D2D_FX_MSIX,
    D2D_FX_CALL,
} D2DDeferKind;

struct D2DDeferEntry {
    QSIMPLEQ_ENTRY(D2DDeferEntry) next;
    int64_t when;
    D2DDeferKind kind;
    uint64_t addr;              /* WRITE: bus address; MSIX: vector */
    D2DTimingFn *fn;
    void *opaque;
    size_t len;
    uint8_t data[];
};

/* Devices with timing on: DMA into their BARs charges their link too. */
static GSList *d2d_timed;

static int64_t d2d_now(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static void d2d_defer_run_one(D2DTiming *t, D2DDeferEntry *e)
{
    PCIDevice *pdev = t->pdev;
    MemTxResult r = MEMTX_OK;

    switch (e->kind) {
    case D2D_FX_WRITE:
        r = pci_dma_write(pdev, e->addr, e->data, e->len);
        break;
    case D2D_FX_WRITE_ENTRY:
        r = pci_dma_write(pdev, e->addr, e->data, e->len - 1);
        if (r == MEMTX_OK) {
            /* The entry's body must be visible before its owner byte. */
            smp_wmb();
            r = pci_dma_write(pdev, e->addr + e->len - 1,
                              e->data + e->len - 1, 1);
        }
        break;
    case D2D_FX_MSIX:
        if (msix_enabled(pdev)) {
            msix_notify(pdev, e->addr);
        }
        break;
    case D2D_FX_CALL:
        e->fn(e->opaque, e->data, e->len);
        break;
    }
    if (r != MEMTX_OK) {
        t->late_errors++;
        qemu_log_mask(LOG_GUEST_ERROR,
                      "%s: timed DMA write of %zu bytes at 0x%" PRIx64
                      " failed when it came due\n",
                      object_get_typename(OBJECT(pdev)), e->len, e->addr);
    }
}

/* Run the entries due by @until in order; the timer for the next one. */
static void d2d_defer_run_until(D2DDefer *d, int64_t until)
{
    D2DDeferEntry *e;

    while ((e = QSIMPLEQ_FIRST(&d->q)) && e->when <= until) {
        QSIMPLEQ_REMOVE_HEAD(&d->q, next);
        d->len--;
        d2d_defer_run_one(d->t, e);
        g_free(e);
    }
    e = QSIMPLEQ_FIRST(&d->q);
    if (e) {
        timer_mod(d->timer, e->when);
    } else {
        timer_del(d->timer);
    }
}

static void d2d_defer_timer(void *opaque)
{
    D2DDefer *d = opaque;

    d2d_defer_run_until(d, d2d_now());
}

static void d2d_defer_init(D2DDefer *d, D2DTiming *t)
{
    QSIMPLEQ_INIT(&d->q);
    d->t = t;
    d->len = 0;
    d->timer = d2d_timer_new_guarded(DEVICE(t->pdev), d2d_defer_timer, d);
}

static void d2d_defer_clear(D2DDefer *d)
{
    D2DDeferEntry *e;

    while ((e = QSIMPLEQ_FIRST(&d->q))) {
        QSIMPLEQ_REMOVE_HEAD(&d->q, next);
        g_free(e);
    }
    d->len = 0;
    if (d->timer) {
        timer_del(d->timer);
    }
}

/*
 * Queue an entry at @when (not before the last one: callers pass times
 * from d2d_tl_fx or the monotone receive queue).  Due now and nothing
 * ahead of it: run it at once.
 */
static void d2d_defer_add(D2DDefer *d, int64_t when, D2DDeferKind kind,
                          uint64_t addr, const void *data, size_t len,
                          D2DTimingFn *fn, void *opaque)
{
    D2DDeferEntry *e = g_malloc(sizeof(*e) + len);

    e->when = when;
    e->kind = kind;
    e->addr = addr;
    e->fn = fn;
    e->opaque = opaque;
    e->len = len;
    if (len) {
        memcpy(e->data, data, len);
    }
    if (QSIMPLEQ_EMPTY(&d->q) && when <= d2d_now()) {
        d2d_defer_run_one(d->t, e);
        g_free(e);
        return;
    }
    d->t->deferred++;
    QSIMPLEQ_INSERT_TAIL(&d->q, e, next);
    d->len++;
    if (QSIMPLEQ_FIRST(&d->q) == e) {
        timer_mod(d->timer, when);
    }
}

bool d2d_timing_realize(D2DTiming *t, PCIDevice *pdev, Error **errp)
{
    const char *why;

    t->pdev = pdev;
    if (!t->p.on) {
        return true;
    }
    why = d2d_timing_params_check(&t->p);
    if (!why) {
        why = d2d_ecn_check(&t->ecn);
    }
    if (why) {
        error_setg(errp, "%s: %s", object_get_typename(OBJECT(pdev)), why);
        return false;
    }
    d2d_tl_init(&t->tl, &t->p);
    d2d_defer_init(&t->fx, t);
    d2d_defer_init(&t->wire, t);
    d2d_defer_init(&t->rx, t);
    d2d_timed = g_slist_prepend(d2d_timed, t);
    return true;
}

static void d2d_timing_bh_timer(void *opaque)
{
    D2DTimedBh *b = opaque;

    b->cb(b->opaque);
}

void d2d_timing_bh_register(D2DTiming *t, QEMUBH *bh, QEMUBHFunc *cb,
                            void *opaque)
{
    int i;

    if (!t->p.on) {
        return;
    }
    for (i = 0; i < D2D_TIMING_MAX_BH; i++) {
        if (!t->bhs[i].bh) {
            t->bhs[i].bh = bh;
            t->bhs[i].cb = cb;
            t->bhs[i].opaque = opaque;
            t->bhs[i].timer = d2d_timer_new_guarded(DEVICE(t->pdev),
                                                    d2d_timing_bh_timer,
                                                    &t->bhs[i]);
            return;
        }
    }
    g_assert_not_reached();
}

void d2d_timing_bh_schedule(D2DTiming *t, QEMUBH *bh)
{
    int i;

    for (i = 0; t->p.on && i < D2D_TIMING_MAX_BH; i++) {
        if (t->bhs[i].bh == bh) {
            if (!timer_pending(t->bhs[i].timer)) {
                timer_mod(t->bhs[i].timer, d2d_now());
            }
            return;
        }
    }
    qemu_bh_schedule(bh);
}

void d2d_timing_unrealize(D2DTiming *t)
{
    int i;

    if (!t->p.on) {
        return;
    }
    for (i = 0; i < D2D_TIMING_MAX_BH; i++) {
        d2d_timer_free_guarded(t->bhs[i].timer);
        memset(&t->bhs[i], 0, sizeof(t->bhs[i]));
    }
    d2d_defer_clear(&t->fx);
    d2d_defer_clear(&t->wire);
    d2d_defer_clear(&t->rx);
    d2d_timer_free_guarded(t->fx.timer);
    d2d_timer_free_guarded(t->wire.timer);
    d2d_timer_free_guarded(t->rx.timer);
    t->fx.timer = t->wire.timer = t->rx.timer = NULL;
    d2d_timed = g_slist_remove(d2d_timed, t);
}

void d2d_timing_reset(D2DTiming *t)
{
    int i;

    if (!t->p.on) {
        return;
    }
    d2d_defer_clear(&t->fx);
    d2d_defer_clear(&t->wire);
    d2d_defer_clear(&t->rx);
    d2d_tl_init(&t->tl, &t->p);
    for (i = 0; i < D2D_TIMING_MAX_BH; i++) {
        if (t->bhs[i].timer) {
            timer_del(t->bhs[i].timer);
        }
    }
}

void d2d_timing_flush(D2DTiming *t)
{
    if (t->p.on) {
        d2d_defer_run_until(&t->fx, INT64_MAX);
    }
}

static bool d2d_timing_settable(Object *obj, const char *name, Error **errp)
{
    if (DEVICE(obj)->realized) {
        error_setg(errp, "%s: set it before the device is realized", name);
        return false;
    }
    return true;
}

static void d2d_timing_get_u32(Object *obj, Visitor *v, const char *name,
                               void *opaque, Error **errp)
{
    visit_type_uint32(v, name, opaque, errp);
}

static void d2d_timing_set_u32(Object *obj, Visitor *v, const char *name,
                               void *opaque, Error **errp)
{
    uint32_t val;

    if (d2d_timing_settable(obj, name, errp) &&
        visit_type_uint32(v, name, &val, errp)) {
        *(uint32_t *)opaque = val;
    }
}

static void d2d_timing_get_on(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    visit_type_bool(v, name, opaque, errp);
}

static void d2d_timing_set_on(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    bool val;

    if (d2d_timing_settable(obj, name, errp) &&
        visit_type_bool(v, name, &val, errp)) {
        *(bool *)opaque = val;
    }
}

/* timing-rx-queue-bytes: the switch queue's depth now (read-only). */
static void d2d_timing_get_rx_depth(Object *obj, Visitor *v, const char *name,
                                    void *opaque, Error **errp)
{
    D2DTiming *t = opaque;
    uint64_t depth = t->p.on ? d2d_tl_rx_depth(&t->tl, d2d_now()) : 0;

    visit_type_uint64(v, name, &depth, errp);
}

void d2d_timing_add_param(Object *obj, const char *name, uint32_t *field)
{
    object_property_add(obj, name, "uint32", d2d_timing_get_u32,
                        d2d_timing_set_u32, NULL, field);
}

void d2d_timing_init(Object *obj, D2DTiming *t)
{
    static const struct {
        const char *name;
        size_t off;
    } params[] = {
#define P(n, f) { "timing-" n, offsetof(D2DTimingParams, f) }
        P("pcie-gen", pcie_gen), P("pcie-lanes", pcie_lanes),
        P("pcie-read-ns", pcie_read_ns), P("wire-mbps", wire_mbps),
        P("wire-prop-ns", wire_prop_ns), P("switch-ns", switch_ns),
        P("switch-queue", switch_queue), P("pkt-ns", pkt_ns),
        P("pipe-ns", pipe_ns), P("db-ns", db_ns), P("rdma-ns", rdma_ns),
        P("ndp-mbps", ndp_mbps),
#undef P
    };
    size_t i;


    d2d_timing_params_default(&t->p);
    d2d_ecn_init(&t->ecn);
    object_property_add(obj, "timing", "bool", d2d_timing_get_on,
                        d2d_timing_set_on, NULL, &t->p.on);
    for (i = 0; i < ARRAY_SIZE(params); i++) {
        d2d_timing_add_param(obj, params[i].name,
                             (uint32_t *)((uint8_t *)&t->p + params[i].off));
    }
    object_property_add_uint64_ptr(obj, "timing-deferred", &t->deferred,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "timing-rx-queued", &t->rx_queued,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "timing-rx-drops", &t->rx_drops,
                                   OBJ_PROP_FLAG_READ);
    object_property_add(obj, "timing-rx-queue-bytes", "uint64",
                        d2d_timing_get_rx_depth, NULL, NULL, t);
    object_property_add_uint64_ptr(obj, "timing-late-errors",
                                   &t->late_errors, OBJ_PROP_FLAG_READ);
}

void d2d_timing_ecn_init(Object *obj, D2DTiming *t)
{
    static const struct {
        const char *name;
        size_t off;
    } ecn[] = {
        { "timing-ecn-kmin", offsetof(D2DEcn, kmin) },
        { "timing-ecn-kmax", offsetof(D2DEcn, kmax) },
        { "timing-ecn-pmax", offsetof(D2DEcn, pmax_ppm) },
        { "ecn-mark-every", offsetof(D2DEcn, mark_every) },
    };
    size_t i;

    for (i = 0; i < ARRAY_SIZE(ecn); i++) {
        object_property_add(obj, ecn[i].name, "uint32",
                            d2d_timing_get_u32, d2d_timing_set_u32, NULL,
                            (uint8_t *)&t->ecn + ecn[i].off);
    }
    object_property_add_uint64_ptr(obj, "ecn-marked", &t->ecn.marked,
                                   OBJ_PROP_FLAG_READ);
}

void d2d_timing_engine(D2DTiming *t, uint32_t ns)
{
    if (t->p.on) {
        d2d_tl_engine(&t->tl, d2d_now(), ns);
    }
}

void d2d_timing_packet(D2DTiming *t, uint32_t extra_ns)
{
    if (t->p.on) {
        d2d_tl_packet(&t->tl, d2d_now(), t->p.pkt_ns,
                      (int64_t)t->p.pipe_ns + extra_ns);
    }
}

void d2d_timing_unit(D2DTiming *t, uint64_t bytes, uint32_t mbytes_ps,
                     uint32_t lat_ns)
{
    int64_t now;

    if (t->p.on) {
        now = d2d_now();
        d2d_tl_engine(&t->tl, now,
                      d2d_bytes_ns(bytes, d2d_unit_fs_per_byte(mbytes_ps)));
        d2d_tl_packet(&t->tl, now, 0, lat_ns);
    }
}

void d2d_timing_ndp(D2DTiming *t, uint64_t bytes)
{
    d2d_timing_unit(t, bytes, t->p.ndp_mbps, 0);
}

void d2d_timing_latency(D2DTiming *t, uint32_t ns)
{
    if (t->p.on) {
        d2d_tl_latency(&t->tl, d2d_now(), ns);
    }
}

int64_t d2d_timing_through(D2DTiming *t)
{
    int64_t now = d2d_now();

    return t->p.on ? MAX(now, t->tl.pkt) : now;
}

void d2d_timing_until(D2DTiming *t, int64_t when)
{
    if (t->p.on) {
        d2d_tl_until(&t->tl, when);
    }
}

void d2d_timing_ready(D2DTiming *t, int64_t when)
{
    if (t->p.on) {
        d2d_tl_ready(&t->tl, when);
    }
}

void d2d_timing_sync(D2DTiming *t)
{
    if (t->p.on) {
        d2d_tl_sync(&t->tl, d2d_now());
    }
}

bool d2d_timing_frame_out(D2DTiming *t, const uint8_t *f, size_t len,
                          D2DTimingFn *fn, void *opaque)
{
    int64_t when;

    if (!t->p.on) {
        return false;
    }
    when = d2d_tl_frame(&t->tl, d2d_now(), len,
                        (int64_t)t->p.wire_prop_ns + t->p.switch_ns);
    /* in order behind the frames before it, not behind DMA writes */
    d2d_defer_add(&t->wire, when, D2D_FX_CALL, 0, f, len, fn, opaque);
    return true;
}

/* A copy of @f with CE set (docs/timing.md "ECN marking"), counted. */
static uint8_t *d2d_timing_ce_copy(D2DTiming *t, const uint8_t *f, size_t len)
{
    uint8_t *m = g_memdup2(f, len);

    d2d_ecn_set_ce(m, len);
    t->ecn.marked++;
    return m;
}

bool d2d_timing_frame_in(D2DTiming *t, const uint8_t *f, size_t len,
                         D2DTimingFn *fn, void *opaque)
{
    g_autofree uint8_t *marked = NULL;
    int64_t now, leave;
    uint64_t depth;

    if (!t->p.on) {
        if (!t->ecn.mark_every ||
            !d2d_ecn_decide(&t->ecn, f, len, 0, false)) {
            return false;
        }
        marked = d2d_timing_ce_copy(t, f, len);
        fn(opaque, marked, len);
        return true;
    }
    now = d2d_now();
    leave = d2d_tl_rx(&t->tl, now, len, t->p.switch_queue, &depth);
    if (leave < 0) {
        t->rx_drops++;
        return true;
    }
    if (d2d_ecn_decide(&t->ecn, f, len, depth, true)) {
        marked = d2d_timing_ce_copy(t, f, len);
        f = marked;
    }
    if (leave <= now && !t->rx.len) {
        if (!marked) {
            return false;
        }
        fn(opaque, f, len);
        return true;
    }
    t->rx_queued++;
    d2d_defer_add(&t->rx, leave, D2D_FX_CALL, 0, f, len, fn, opaque);
    return true;
}

D2DTiming *d2d_timing_of(PCIDevice *pdev)
{
    GSList *l;

    for (l = d2d_timed; l; l = l->next) {
        D2DTiming *t = l->data;

        if (t->pdev == pdev) {
            return t;
        }
    }
    return NULL;
}

/*
 * A peer-to-peer transfer crosses the link of the peer it targets too:
 * returns when it is through the peer's link (@now if it targets none).
 * @charge false: only the time, the peers' links stay as they are.
 */
static int64_t d2d_timing_peers(D2DTiming *t, int64_t now, D2DPcieOp op,
                                uint64_t addr, uint64_t len, bool charge)
{
    int64_t done = now;
    GSList *l;

    for (l = d2d_timed; l; l = l->next) {
        D2DTiming *o = l->data;
        D2DTimeline copy = o->tl;

        if (o != t && d2d_dma_targets_self(o->pdev, addr, len)) {
            done = MAX(done, d2d_tl_peer(charge ? &o->tl : &copy, now, op,
                                         addr, len));
        }
    }
    return done;
}

int64_t d2d_timing_write_at(PCIDevice *pdev, uint64_t addr, uint64_t len)
{
    D2DTiming *t = d2d_timing_of(pdev);
    int64_t now = d2d_now(), when;
    D2DTimeline copy;

    if (!t) {
        return now;
    }
    copy = t->tl;
    when = d2d_tl_write(&copy, now, D2D_PCIE_DMA_WRITE, addr, len);
    when = MAX(when, d2d_timing_peers(t, now, D2D_PCIE_DMA_WRITE, addr, len,
                                      false));
    return d2d_tl_fx(&copy, when);
}

void d2d_timing_dma_read(D2DTiming *t, uint64_t addr, uint64_t len)
{
    int64_t now = d2d_now();

    d2d_tl_read(&t->tl, now, addr, len, t->p.pcie_read_ns);
    /* the data is in when it has crossed both links */
    t->tl.ready = MAX(t->tl.ready,
                      d2d_timing_peers(t, now, D2D_PCIE_DMA_READ, addr, len,
                                       true));
}

MemTxResult d2d_timing_dma_write(D2DTiming *t, uint64_t addr,
                                 const void *buf, uint64_t len, bool entry)
{
    int64_t now = d2d_now(), when;

    /* Refused now, like the immediate write would be. */
    if (!dma_memory_valid(pci_get_address_space(t->pdev), addr, len,
                          DMA_DIRECTION_FROM_DEVICE,
                          MEMTXATTRS_UNSPECIFIED)) {
        return MEMTX_DECODE_ERROR;
    }
    when = d2d_tl_write(&t->tl, now, D2D_PCIE_DMA_WRITE, addr, len);
    /* a write to a peer lands when it has crossed the peer's link too */
    when = MAX(when, d2d_timing_peers(t, now, D2D_PCIE_DMA_WRITE, addr, len,
                                      true));
    d2d_defer_add(&t->fx, d2d_tl_fx(&t->tl, when),
                  entry && len > 1 ? D2D_FX_WRITE_ENTRY : D2D_FX_WRITE,
                  addr, buf, len, NULL, NULL);
    return MEMTX_OK;
}

void d2d_timing_msix(D2DTiming *t, unsigned vector)
{
    int64_t when = d2d_tl_write(&t->tl, d2d_now(), D2D_PCIE_MSIX, 0, 4);

    d2d_defer_add(&t->fx, d2d_tl_fx(&t->tl, when), D2D_FX_MSIX, vector,
                  NULL, 0, NULL, NULL);
}
