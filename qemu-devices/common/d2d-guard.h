/*
 * d2d: the guards every device model stands on - whether an address falls
 * into the device's own BARs, and timers and bottom halves that run with
 * the device's memory re-entrancy guard engaged.  The bottom of the
 * common layer: it calls nothing else of d2d.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef D2D_GUARD_H
#define D2D_GUARD_H

#include "hw/pci/pci.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"

/*
 * Whether any byte of [@addr, @addr + @len) falls into one of @pdev's own
 * memory BARs: a device never DMAs into its own registers, doorbells or
 * MSI-X table (d2d-pcie.h refuses such DMA).
 */
bool d2d_dma_targets_self(PCIDevice *pdev, dma_addr_t addr, dma_addr_t len);

/*
 * A QEMU_CLOCK_VIRTUAL timer whose callback runs with @dev's memory
 * re-entrancy guard engaged, like a bottom half made by
 * qemu_bh_new_guarded(): while it runs, MMIO to @dev is refused by the
 * memory core.  Free with d2d_timer_free_guarded().
 */
QEMUTimer *d2d_timer_new_guarded(DeviceState *dev, QEMUTimerCB *cb,
                                 void *opaque);
void d2d_timer_free_guarded(QEMUTimer *t);
/* A bottom half with @dev's memory re-entrancy guard. */
#define d2d_bh_new_guarded(dev, cb, opaque) \
    qemu_bh_new_guarded((cb), (opaque), &DEVICE(dev)->mem_reentrancy_guard)

#endif
