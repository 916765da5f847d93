/*
 * d2d: self-DMA check and guarded timers (d2d-guard.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/range.h"
#include "d2d-guard.h"

bool d2d_dma_targets_self(PCIDevice *pdev, dma_addr_t addr, dma_addr_t len)
{
    int i;

    for (i = 0; i < PCI_NUM_REGIONS; i++) {
        const PCIIORegion *r = &pdev->io_regions[i];

        if (r->size && r->addr != PCI_BAR_UNMAPPED &&
            !(r->type & PCI_BASE_ADDRESS_SPACE_IO) &&
            ranges_overlap(addr, len ? len : 1, r->addr, r->size)) {
            return true;
        }
    }
    return false;
}

typedef struct D2DGuardedTimer {
    QEMUTimerCB *cb;
    void *opaque;
    MemReentrancyGuard *guard;
} D2DGuardedTimer;

static void d2d_guarded_timer_cb(void *opaque)
{
    D2DGuardedTimer *g = opaque;
    MemReentrancyGuard *guard = g->guard;   /* @g may be freed by cb */
    bool was = guard->engaged_in_io;

    guard->engaged_in_io = true;
    g->cb(g->opaque);
    guard->engaged_in_io = was;
}

QEMUTimer *d2d_timer_new_guarded(DeviceState *dev, QEMUTimerCB *cb,
                                 void *opaque)
{
    D2DGuardedTimer *g = g_new(D2DGuardedTimer, 1);

    g->cb = cb;
    g->opaque = opaque;
    g->guard = &dev->mem_reentrancy_guard;
    return timer_new_ns(QEMU_CLOCK_VIRTUAL, d2d_guarded_timer_cb, g);
}

void d2d_timer_free_guarded(QEMUTimer *t)
{
    if (t) {
        g_free(t->opaque);
        timer_free(t);
    }
}
