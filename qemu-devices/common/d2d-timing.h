/*
 * d2d: timing mode - a device's cost parameters as properties, its
 * timeline (d2d-cost.h), and the ordered deferral queues through which its
 * effects (DMA writes, MSI-X, frames) happen at their modeled virtual
 * time.  docs/timing.md documents it.
 *
 * With "timing" off (the default) nothing here runs: no timer, no queue,
 * every DMA, interrupt and frame happens when the model makes it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef D2D_TIMING_H
#define D2D_TIMING_H

#include "hw/pci/pci.h"
#include "qemu/queue.h"
#include "qemu/timer.h"
#include "d2d-cost.h"
#include "d2d-ecn.h"

typedef void D2DTimingFn(void *opaque, const uint8_t *data, size_t len);

typedef struct D2DDeferEntry D2DDeferEntry;

/* Entries run in order, each at its time, from a guarded virtual timer. */
typedef struct D2DDefer {
    QSIMPLEQ_HEAD(, D2DDeferEntry) q;
    QEMUTimer *timer;
    struct D2DTiming *t;
    uint32_t len;               /* entries queued */
} D2DDefer;

/* Bottom halves run in timing mode from a virtual timer (d2d_timing_bh). */
#define D2D_TIMING_MAX_BH 4
typedef struct D2DTimedBh {
    QEMUBH *bh;
    QEMUBHFunc *cb;
    void *opaque;
    QEMUTimer *timer;
} D2DTimedBh;

typedef struct D2DTiming {
    D2DTimingParams p;
    D2DTimedBh bhs[D2D_TIMING_MAX_BH];
    D2DTimeline tl;
    PCIDevice *pdev;
    D2DDefer fx;                /* posted PCIe effects: DMA writes, MSI-X */
    D2DDefer wire;              /* frames on their way to the far end */
    D2DDefer rx;                /* frames waiting in the switch queue */
    /*
     * ECN marking at the switch queue: the curve in timing mode
     * (timing-ecn-*), ecn-mark-every in either mode.
     */
    D2DEcn ecn;
    /* counters (QOM properties timing-*) */
    uint64_t deferred;          /* effects that waited for their time */
    uint64_t rx_queued;         /* frames that waited in the switch queue */
    uint64_t rx_drops;          /* frames the full switch queue dropped */
    uint64_t late_errors;       /* deferred DMA writes that failed */
} D2DTiming;

/* Checks the parameters, makes the queues; false with @errp set. */
bool d2d_timing_realize(D2DTiming *t, PCIDevice *pdev, Error **errp);
void d2d_timing_unrealize(D2DTiming *t);
/* Device reset: pending effects are dropped, the timeline starts over. */
void d2d_timing_reset(D2DTiming *t);
/*
 * The device stops (e.g. its queue is turned off): every DMA write and
 * MSI-X message it has queued is performed now, in order, so that none
 * lands after the register write that stopped it returns.
 */
void d2d_timing_flush(D2DTiming *t);
/*
 * From the device's instance_init: the defaults, the "timing" property and
 * every cost parameter as a property "timing-<name>" (settable until the
 * device is realized, e.g. with -global), the counters as read-only ones.
 */
void d2d_timing_init(Object *obj, D2DTiming *t);
/*
 * A device's own cost parameter @field as the uint32 property @name,
 * settable until the device is realized like the common ones.
 */
void d2d_timing_add_param(Object *obj, const char *name, uint32_t *field);

/*
 * From the instance_init of a device with a port (after d2d_timing_init):
 * the ECN marking properties of its switch queue, timing-ecn-kmin, -kmax,
 * -pmax, ecn-mark-every, and the counter ecn-marked.
 */
void d2d_timing_ecn_init(Object *obj, D2DTiming *t);

static inline bool d2d_timing_on(const D2DTiming *t)
{
    return t->p.on;
}

/*
 * Bottom halves: a bottom half runs whenever the main loop gets to it,
 * while the vCPU runs on under icount, so the virtual time its work starts
 * at would depend on the host.  In timing mode a bottom half registered
 * here (@bh made for @cb(@opaque), from realize, after
 * d2d_timing_realize) is instead run from a virtual timer at the time it
 * is scheduled: the vCPU stops there until it has run.
 * d2d_timing_bh_schedule is qemu_bh_schedule outside timing mode.
 */
void d2d_timing_bh_register(D2DTiming *t, QEMUBH *bh, QEMUBHFunc *cb,
                            void *opaque);
void d2d_timing_bh_schedule(D2DTiming *t, QEMUBH *bh);

/* Engine work of @ns (doorbell processing). */
void d2d_timing_engine(D2DTiming *t, uint32_t ns);
/* A packet enters the pipeline; @extra_ns more latency (transport). */
void d2d_timing_packet(D2DTiming *t, uint32_t extra_ns);
/*
 * A near-data unit (a function chain, pipelined) processes @bytes at
 * timing-ndp-mbps; what the engine writes next waits for it.
 */
void d2d_timing_ndp(D2DTiming *t, uint64_t bytes);
/*
 * A pipelined processing unit (an accelerator) takes @bytes at @mbytes_ps
 * MB/s (0: no throughput limit) and @lat_ns of latency; what the device
 * writes next waits for it.
 */
void d2d_timing_unit(D2DTiming *t, uint64_t bytes, uint32_t mbytes_ps,
                     uint32_t lat_ns);
/* The packet in hand takes @ns longer. */
void d2d_timing_latency(D2DTiming *t, uint32_t ns);
/*
 * When the packet in hand is through the pipeline (the virtual time now
 * with timing off, or if that is later): where an engine behind the
 * pipeline starts on it.
 */
int64_t d2d_timing_through(D2DTiming *t);
/*
 * The packet in hand is not through before virtual time @when (e.g. an
 * engine with its own clock finished it then): its writes and frames
 * start no earlier.
 */
void d2d_timing_until(D2DTiming *t, int64_t when);
/*
 * What the device sends next waits for data ready at virtual time @when
 * (e.g. a response an engine with its own clock finishes then, sent by a
 * later packet of the device): like a DMA read completing then.
 */
void d2d_timing_ready(D2DTiming *t, int64_t when);
/* The engine waits for what it has read (e.g. a fetched descriptor). */
void d2d_timing_sync(D2DTiming *t);
/*
 * A frame leaves the port: true if timing is on and @fn(@opaque, frame)
 * will be called when it reaches the far end (the caller sends nothing);
 * false: send it now.
 */
bool d2d_timing_frame_out(D2DTiming *t, const uint8_t *f, size_t len,
                          D2DTimingFn *fn, void *opaque);
/*
 * A frame arrives from the wire: true if timing is on and the switch
 * queue in front of the port holds frames (@fn is called when it leaves
 * the queue) or is full (dropped, counted), or if the queue set CE on it
 * (@fn has the marked copy, now or when it leaves the queue); false:
 * take it now, as it is.
 */
bool d2d_timing_frame_in(D2DTiming *t, const uint8_t *f, size_t len,
                         D2DTimingFn *fn, void *opaque);

/*
 * Used by d2d-pcie.c: the timing state of @pdev if its timing mode is on,
 * NULL otherwise; the charges of its DMA and MSI-X.
 */
D2DTiming *d2d_timing_of(PCIDevice *pdev);
void d2d_timing_dma_read(D2DTiming *t, uint64_t addr, uint64_t len);
MemTxResult d2d_timing_dma_write(D2DTiming *t, uint64_t addr,
                                 const void *buf, uint64_t len, bool entry);
void d2d_timing_msix(D2DTiming *t, unsigned vector);
/*
 * The virtual time a DMA write of @len bytes at @addr made now by the
 * device of @pdev will land (its completion time, e.g. for a CQE's
 * timestamp), without charging it; the virtual time now with timing off.
 */
int64_t d2d_timing_write_at(PCIDevice *pdev, uint64_t addr, uint64_t len);

#endif
