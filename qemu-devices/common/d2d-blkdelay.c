/*
 * d2d: "d2d-delay", a block filter driver for timing mode - every request
 * to its child completes on QEMU's virtual clock after the modeled media
 * time: a latency per request plus its bytes at the media's bandwidth,
 * with one media (busy until a virtual time) shared by reads and writes.
 * QEMU's NVMe controller completes a request as soon as its host I/O is
 * done; behind this filter it completes when the modeled SSD would.
 *
 *   -drive if=none,id=ssd,driver=d2d-delay,file.driver=file,
 *          file.filename=IMG[,read-latency-ns=N,...]
 *
 * Defaults: a datacenter NVMe SSD (docs/timing.md).  While the node is
 * drained (reset, shutdown, block jobs) requests are not delayed, so a
 * drain never waits for a stopped virtual clock.
 *
 * Under icount (timing mode) the virtual clock is held at a request's
 * modeled completion until the host's I/O for it is done and its
 * completion delivered: a timer on a timer list that nothing runs,
 * expiring then, bounds icount's deadline (the vCPU's instruction budget
 * and sleep=off's jumps to the next timer) until it is deleted.  So a
 * host slower than the model stops the guest, not its clock, and a run's
 * modeled times do not depend on the host.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "block/block_int.h"
#include "qapi/error.h"
#include "qemu/coroutine.h"
#include "qemu/module.h"
#include "qemu/option.h"
#include "qemu/timer.h"
#include "sysemu/cpu-timers.h"
#include "d2d-cost.h"

/* Intel D7-P5510 (PCIe Gen4 NVMe) product specification. */
#define D2D_DELAY_READ_NS       84000   /* 4 KiB random read latency */
#define D2D_DELAY_WRITE_NS      15000   /* 4 KiB random write latency */
#define D2D_DELAY_READ_MBPS     6500    /* sequential read, MB/s */
#define D2D_DELAY_WRITE_MBPS    3400    /* sequential write, MB/s */

typedef struct D2DDelayState {
    uint64_t read_ns, write_ns;
    uint64_t read_fs, write_fs;     /* femtoseconds per byte */
    int64_t busy;                   /* the media is busy until */
    unsigned draining;
    GSList *sleepers;               /* D2DDelaySleep of delayed requests */
    uint64_t delayed;               /* requests delayed */
    QEMUTimerListGroup hold;        /* icount: holds, never run */
    GSList *holds;                  /* D2DDelayHold not yet released */
} D2DDelayState;

/* A hold of the virtual clock (icount) and the timer that releases it. */
typedef struct D2DDelayHold {
    D2DDelayState *s;
    QEMUTimer hold;                 /* on s->hold: bounds the clock */
    QEMUTimer release;              /* the main loop's: deletes the hold */
} D2DDelayHold;

/*
 * A request sleeping until its modeled completion, on a virtual timer of
 * the main loop: under icount the vCPU thread runs those at their exact
 * deadline (an AioContext's virtual timer waits for the main loop to be
 * woken for it, which under icount can be missed while the clock is held).
 */
typedef struct D2DDelaySleep {
    Coroutine *co;
    QEMUTimer timer;
    bool woken;
} D2DDelaySleep;

/* One request in flight: when the media is done, the clock's hold. */
typedef struct D2DDelayReq {
    int64_t done;
    D2DDelayHold *h;
} D2DDelayReq;

static QemuOptsList d2d_delay_opts = {
    .name = "d2d-delay",
    .head = QTAILQ_HEAD_INITIALIZER(d2d_delay_opts.head),
    .desc = {
        { .name = "read-latency-ns", .type = QEMU_OPT_NUMBER,
          .help = "latency of a read (ns)" },
        { .name = "write-latency-ns", .type = QEMU_OPT_NUMBER,
          .help = "latency of a write (ns)" },
        { .name = "read-mbps", .type = QEMU_OPT_NUMBER,
          .help = "read bandwidth (MB/s)" },
        { .name = "write-mbps", .type = QEMU_OPT_NUMBER,
          .help = "write bandwidth (MB/s)" },
        { /* end of list */ }
    },
};

/* Femtoseconds per byte at @mbps MB/s (10^6 bytes per second). */
static uint64_t d2d_delay_fs(uint64_t mbps)
{
    return 1000000000ull / mbps;
}

static int d2d_delay_open(BlockDriverState *bs, QDict *options, int flags,
                          Error **errp)
{
    D2DDelayState *s = bs->opaque;
    uint64_t rmb, wmb;
    QemuOpts *opts;
    int ret;

    ret = bdrv_open_file_child(NULL, options, "file", bs, errp);
    if (ret < 0) {
        return ret;
    }
    bs->supported_write_flags = bs->file->bs->supported_write_flags;
    bs->supported_zero_flags = bs->file->bs->supported_zero_flags;
    opts = qemu_opts_create(&d2d_delay_opts, NULL, 0, &error_abort);
    if (!qemu_opts_absorb_qdict(opts, options, errp)) {
        qemu_opts_del(opts);
        return -EINVAL;
    }
    s->read_ns = qemu_opt_get_number(opts, "read-latency-ns",
                                     D2D_DELAY_READ_NS);
    s->write_ns = qemu_opt_get_number(opts, "write-latency-ns",
                                      D2D_DELAY_WRITE_NS);
    rmb = qemu_opt_get_number(opts, "read-mbps", D2D_DELAY_READ_MBPS);
    wmb = qemu_opt_get_number(opts, "write-mbps", D2D_DELAY_WRITE_MBPS);
    qemu_opts_del(opts);
    if (!rmb || !wmb || rmb > 1000000 || wmb > 1000000 ||
        s->read_ns > 10 * NANOSECONDS_PER_SECOND ||
        s->write_ns > 10 * NANOSECONDS_PER_SECOND) {
        error_setg(errp, "d2d-delay: read-mbps and write-mbps must be "
                   "1..1000000, latencies at most 10 s");
        return -EINVAL;
    }
    s->read_fs = d2d_delay_fs(rmb);
    s->write_fs = d2d_delay_fs(wmb);
    return 0;
}

static void d2d_delay_close(BlockDriverState *bs)
{
    D2DDelayState *s = bs->opaque;

    while (s->holds) {
        D2DDelayHold *h = s->holds->data;

        timer_del(&h->hold);
        timer_del(&h->release);
        s->holds = g_slist_remove(s->holds, h);
        g_free(h);
    }
    if (s->hold.tl[QEMU_CLOCK_VIRTUAL]) {
        timerlist_free(s->hold.tl[QEMU_CLOCK_VIRTUAL]);
    }
}

/*
 * The virtual time the modeled media has done @bytes of a request that
 * arrives now (0 while drained).  Taken when the request arrives, before
 * the host does its I/O, so the host's speed does not move it.
 */
static int64_t d2d_delay_charge(BlockDriverState *bs, int64_t bytes,
                                bool write)
{
    D2DDelayState *s = bs->opaque;
    int64_t now;

    if (s->draining) {
        return 0;
    }
    now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    s->busy = MAX(now, s->busy) +
              d2d_bytes_ns(bytes, write ? s->write_fs : s->read_fs);
    s->delayed++;
    return s->busy + (write ? s->write_ns : s->read_ns);
}

/* Never called: nothing runs the hold list. */
static void d2d_delay_hold_cb(void *opaque)
{
}

/* The request's completion has been delivered: let the clock go on. */
static void d2d_delay_release_cb(void *opaque)
{
    D2DDelayHold *h = opaque;

    timer_del(&h->hold);
    h->s->holds = g_slist_remove(h->s->holds, h);
    g_free(h);
}

/*
 * A request arrives: charge the media for @bytes (nothing if !@charge,
 * a flush) and, under icount, hold the virtual clock at its completion
 * (or now, when nothing is charged) until d2d_delay_end() released it.
 */
static void d2d_delay_begin(BlockDriverState *bs, D2DDelayReq *r,
                            int64_t bytes, bool write, bool charge)
{
    D2DDelayState *s = bs->opaque;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    r->done = charge ? d2d_delay_charge(bs, bytes, write) : 0;
    r->h = NULL;
    if (!icount_enabled()) {
        return;
    }
    if (!s->hold.tl[QEMU_CLOCK_VIRTUAL]) {
        /*
         * Made on first use: icount is configured after the drives are
         * opened.  A timer armed on it kicks the vCPU to recompute its
         * instruction budget.
         */
        s->hold.tl[QEMU_CLOCK_VIRTUAL] =
            timerlist_new(QEMU_CLOCK_VIRTUAL, qemu_timer_notify_cb, NULL);
    }
    r->h = g_new0(D2DDelayHold, 1);
    r->h->s = s;
    timer_init_full(&r->h->hold, &s->hold, QEMU_CLOCK_VIRTUAL, SCALE_NS, 0,
                    d2d_delay_hold_cb, r->h);
    timer_init_full(&r->h->release, NULL, QEMU_CLOCK_VIRTUAL, SCALE_NS, 0,
                    d2d_delay_release_cb, r->h);
    s->holds = g_slist_prepend(s->holds, r->h);
    timer_mod(&r->h->hold, MAX(r->done, now));
}

/* Wake a sleeping request (its time has come, or the node is drained). */
static void d2d_delay_wake(D2DDelaySleep *w)
{
    timer_del(&w->timer);
    if (!w->woken) {
        w->woken = true;
        aio_co_wake(w->co);
    }
}

static void d2d_delay_wake_cb(void *opaque)
{
    d2d_delay_wake(opaque);
}

/*
 * The host's I/O of @r is done: sleep until the media is (not while
 * drained), then release the hold.  Not at once: the caller's completion
 * (QEMU's NVMe controller posts its CQE from a bottom half) must happen
 * before the clock may move on, or icount's sleep=off could jump it to
 * the guest's next timer in between.  The release is a virtual timer of
 * the main loop, due now: the main loop runs it after its next dispatch
 * of bottom halves (or the vCPU thread when it would run on), and the
 * clock cannot pass it while the hold is there.
 */
static void coroutine_fn d2d_delay_end(BlockDriverState *bs, D2DDelayReq *r)
{
    D2DDelayState *s = bs->opaque;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    if (!s->draining && r->done > now) {
        D2DDelaySleep w = { .co = qemu_coroutine_self() };

        timer_init_full(&w.timer, NULL, QEMU_CLOCK_VIRTUAL, SCALE_NS, 0,
                        d2d_delay_wake_cb, &w);
        s->sleepers = g_slist_prepend(s->sleepers, &w);
        timer_mod(&w.timer, r->done);
        qemu_coroutine_yield();
        s->sleepers = g_slist_remove(s->sleepers, &w);
    }
    if (r->h) {
        timer_mod(&r->h->release, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    }
}

/* A read or write of @bytes: the host's I/O, then the media's time. */
static int coroutine_fn d2d_delay_co_rw(BlockDriverState *bs, bool write,
                                        int64_t offset, int64_t bytes,
                                        QEMUIOVector *qiov,
                                        BdrvRequestFlags flags)
{
    D2DDelayReq r;
    int ret;

    d2d_delay_begin(bs, &r, bytes, write, true);
    if (write) {
        ret = bdrv_co_pwritev(bs->file, offset, bytes, qiov, flags);
    } else {
        ret = bdrv_co_preadv(bs->file, offset, bytes, qiov, flags);
    }
    d2d_delay_end(bs, &r);
    return ret;
}

static int coroutine_fn d2d_delay_co_preadv(BlockDriverState *bs,
                                            int64_t offset, int64_t bytes,
                                            QEMUIOVector *qiov,
                                            BdrvRequestFlags flags)
{
    return d2d_delay_co_rw(bs, false, offset, bytes, qiov, flags);
}

static int coroutine_fn d2d_delay_co_pwritev(BlockDriverState *bs,
                                             int64_t offset, int64_t bytes,
                                             QEMUIOVector *qiov,
                                             BdrvRequestFlags flags)
{
    return d2d_delay_co_rw(bs, true, offset, bytes, qiov, flags);
}

static int coroutine_fn d2d_delay_co_pwrite_zeroes(BlockDriverState *bs,
                                                   int64_t offset,
                                                   int64_t bytes,
                                                   BdrvRequestFlags flags)
{
    D2DDelayReq r;
    int ret;

    d2d_delay_begin(bs, &r, 0, true, true);
    ret = bdrv_co_pwrite_zeroes(bs->file, offset, bytes, flags);
    d2d_delay_end(bs, &r);
    return ret;
}

static int coroutine_fn d2d_delay_co_pdiscard(BlockDriverState *bs,
                                              int64_t offset, int64_t bytes)
{
    D2DDelayReq r;
    int ret;

    d2d_delay_begin(bs, &r, 0, true, true);
    ret = bdrv_co_pdiscard(bs->file, offset, bytes);
    d2d_delay_end(bs, &r);
    return ret;
}

/* A flush costs the media nothing; the clock waits for the host's. */
static int coroutine_fn d2d_delay_co_flush(BlockDriverState *bs)
{
    D2DDelayReq r;
    int ret;

    d2d_delay_begin(bs, &r, 0, true, false);
    ret = bdrv_co_flush(bs->file->bs);
    d2d_delay_end(bs, &r);
    return ret;
}

static int64_t d2d_delay_getlength(BlockDriverState *bs)
{
    return bdrv_getlength(bs->file->bs);
}

static void coroutine_fn d2d_delay_co_drain_begin(BlockDriverState *bs)
{
    D2DDelayState *s = bs->opaque;
    GSList *l;

    if (s->draining++) {
        return;
    }
    for (l = s->sleepers; l; l = l->next) {
        d2d_delay_wake(l->data);
    }
}

static void coroutine_fn d2d_delay_co_drain_end(BlockDriverState *bs)
{
    D2DDelayState *s = bs->opaque;

    assert(s->draining);
    s->draining--;
}

static const char *const d2d_delay_strong_opts[] = {
    "read-latency-ns", "write-latency-ns", "read-mbps", "write-mbps", NULL
};

static BlockDriver bdrv_d2d_delay = {
    .format_name            = "d2d-delay",
    .instance_size          = sizeof(D2DDelayState),
    .bdrv_open              = d2d_delay_open,
    .bdrv_close             = d2d_delay_close,
    .bdrv_child_perm        = bdrv_default_perms,
    .bdrv_getlength         = d2d_delay_getlength,
    .bdrv_co_preadv         = d2d_delay_co_preadv,
    .bdrv_co_pwritev        = d2d_delay_co_pwritev,
    .bdrv_co_pwrite_zeroes  = d2d_delay_co_pwrite_zeroes,
    .bdrv_co_pdiscard       = d2d_delay_co_pdiscard,
    .bdrv_co_flush          = d2d_delay_co_flush,
    .bdrv_co_drain_begin    = d2d_delay_co_drain_begin,
    .bdrv_co_drain_end      = d2d_delay_co_drain_end,
    .is_filter              = true,
    .strong_runtime_opts    = d2d_delay_strong_opts,
};

static void bdrv_d2d_delay_init(void)
{
    bdrv_register(&bdrv_d2d_delay);
}

block_init(bdrv_d2d_delay_init);
