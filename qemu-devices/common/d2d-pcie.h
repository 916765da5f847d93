/*
 * d2d: DMA, MMIO and MSI-X helpers that account PCIe traffic.
 *
 * Every d2d device reaches memory only through these so that its counters
 * are complete.  A failed DMA is counted and returned, never fatal.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef D2D_PCIE_H
#define D2D_PCIE_H

#include "hw/pci/pci.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "pcie-tlp.h"
#include "d2d-guard.h"

/*
 * Every DMA the helpers below issue is refused (MEMTX_ACCESS_ERROR,
 * counted in dma_errors and self_dma, logged as a guest error) when any
 * byte of it falls into one of the device's own memory BARs
 * (d2d_dma_targets_self, d2d-guard.h).  A peer device's BAR is a valid
 * target (peer-to-peer DMA).
 */

/*
 * @c: the device's counters; @q: optional counters of the queue on whose
 * behalf the access is made (NULL if none).
 */
MemTxResult d2d_dma_read(PCIDevice *pdev, D2DPcieCounters *c,
                         D2DPcieCounters *q, dma_addr_t addr, void *buf,
                         dma_addr_t len);
MemTxResult d2d_dma_write(PCIDevice *pdev, D2DPcieCounters *c,
                          D2DPcieCounters *q, dma_addr_t addr,
                          const void *buf, dma_addr_t len);
/*
 * A DMA write whose last byte carries a valid/owner bit: the bytes before
 * it are visible first, so a CPU polling that bit never sees a torn entry.
 * Accounted as one write.
 */
MemTxResult d2d_dma_write_entry(PCIDevice *pdev, D2DPcieCounters *c,
                                D2DPcieCounters *q, dma_addr_t addr,
                                const void *buf, dma_addr_t len);

void d2d_msix_notify(PCIDevice *pdev, D2DPcieCounters *c, unsigned vector);
void d2d_mmio_account(D2DPcieCounters *c, bool write, hwaddr addr,
                      unsigned size);
/* Counter @i (enum d2d_pcie_stat) of @c. */
uint64_t d2d_pcie_counter(const D2DPcieCounters *c, unsigned i);
/* Formats counters as "name=value ..." for text dumps. */
void d2d_pcie_counters_format(GString *out, const D2DPcieCounters *c);

/*
 * MemoryRegionOps fields of a register file that takes only aligned
 * little-endian 32-bit accesses (other sizes are refused by the core).
 */
#define D2D_MMIO_OPS_32BIT                      \
    .endianness = DEVICE_LITTLE_ENDIAN,         \
    .valid = {                                  \
        .min_access_size = 4,                   \
        .max_access_size = 4,                   \
    },                                          \
    .impl = {                                   \
        .min_access_size = 4,                   \
        .max_access_size = 4,                   \
    }

/*
 * MemoryRegionOps fields of a memory window (rings, buffers) that takes
 * little-endian accesses of 1 to 8 bytes, as host memory would.
 */
#define D2D_MMIO_OPS_ANY_SIZE                   \
    .endianness = DEVICE_LITTLE_ENDIAN,         \
    .valid = {                                  \
        .min_access_size = 1,                   \
        .max_access_size = 8,                   \
    },                                          \
    .impl = {                                   \
        .min_access_size = 1,                   \
        .max_access_size = 8,                   \
    }

/* Adds the counters as read-only QOM properties "pcie-<name>". */
void d2d_pcie_counters_add_props(Object *obj, D2DPcieCounters *c);

#endif
