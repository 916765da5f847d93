/*
 * d2d: DMA, MMIO and MSI-X helpers that account PCIe traffic.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "hw/pci/pci.h"
#include "hw/pci/msix.h"
#include "qapi/visitor.h"
#include "qom/object.h"
#include "d2d-pcie.h"
#include "d2d-timing.h"

static void d2d_dma_account(D2DPcieCounters *c, D2DPcieCounters *q,
                            MemTxResult r, D2DPcieOp op, dma_addr_t addr,
                            dma_addr_t len)
{
    if (r != MEMTX_OK) {
        c->dma_errors++;
        if (q) {
            q->dma_errors++;
        }
        return;
    }
    d2d_pcie_account(c, op, addr, len);
    if (q) {
        d2d_pcie_account(q, op, addr, len);
    }
}

/* Refuses (counts, logs) a DMA that targets the device's own BARs. */
static bool d2d_dma_refuse_self(PCIDevice *pdev, D2DPcieCounters *c,
                                D2DPcieCounters *q, bool write,
                                dma_addr_t addr, dma_addr_t len)
{
    if (!d2d_dma_targets_self(pdev, addr, len)) {
        return false;
    }
    c->dma_errors++;
    c->self_dma++;
    if (q) {
        q->dma_errors++;
        q->self_dma++;
    }
    qemu_log_mask(LOG_GUEST_ERROR,
                  "%s: DMA %s of %" PRIu64 " bytes at 0x%" PRIx64
                  " targets its own BAR: refused\n",
                  object_get_typename(OBJECT(pdev)), write ? "write" : "read",
                  (uint64_t)len, (uint64_t)addr);
    return true;
}

MemTxResult d2d_dma_read(PCIDevice *pdev, D2DPcieCounters *c,
                         D2DPcieCounters *q, dma_addr_t addr, void *buf,
                         dma_addr_t len)
{
    D2DTiming *t;
    MemTxResult r;

    if (d2d_dma_refuse_self(pdev, c, q, false, addr, len)) {
        return MEMTX_ACCESS_ERROR;
    }
    r = pci_dma_read(pdev, addr, buf, len);

    d2d_dma_account(c, q, r, D2D_PCIE_DMA_READ, addr, len);
    t = r == MEMTX_OK ? d2d_timing_of(pdev) : NULL;
    if (t) {
        d2d_timing_dma_read(t, addr, len);
    }
    return r;
}

/*
 * A DMA write; @entry: its last byte is an owner/valid bit, written after
 * the rest is visible.  In timing mode the write is deferred to its
 * modeled time by the timing layer, which keeps that order itself.
 */
static MemTxResult d2d_dma_write_as(PCIDevice *pdev, D2DPcieCounters *c,
                                    D2DPcieCounters *q, dma_addr_t addr,
                                    const void *buf, dma_addr_t len,
                                    bool entry)
{
    D2DTiming *t = d2d_timing_of(pdev);
    MemTxResult r;

    if (d2d_dma_refuse_self(pdev, c, q, true, addr, len)) {
        return MEMTX_ACCESS_ERROR;
    }
    if (t) {
        r = d2d_timing_dma_write(t, addr, buf, len, entry);
    } else if (!entry) {
        r = pci_dma_write(pdev, addr, buf, len);
    } else {
        r = pci_dma_write(pdev, addr, buf, len - 1);
        if (r == MEMTX_OK) {
            /* The entry's body must be visible before its owner byte. */
            smp_wmb();
            r = pci_dma_write(pdev, addr + len - 1,
                              (const uint8_t *)buf + len - 1, 1);
        }
    }
    d2d_dma_account(c, q, r, D2D_PCIE_DMA_WRITE, addr, len);
    return r;
}

MemTxResult d2d_dma_write(PCIDevice *pdev, D2DPcieCounters *c,
                          D2DPcieCounters *q, dma_addr_t addr,
                          const void *buf, dma_addr_t len)
{
    return d2d_dma_write_as(pdev, c, q, addr, buf, len, false);
}

MemTxResult d2d_dma_write_entry(PCIDevice *pdev, D2DPcieCounters *c,
                                D2DPcieCounters *q, dma_addr_t addr,
                                const void *buf, dma_addr_t len)
{
    return d2d_dma_write_as(pdev, c, q, addr, buf, len, true);
}

void d2d_msix_notify(PCIDevice *pdev, D2DPcieCounters *c, unsigned vector)
{
    D2DTiming *t;

    if (!msix_enabled(pdev)) {
        return;
    }
    d2d_pcie_account(c, D2D_PCIE_MSIX, 0, 4);
    t = d2d_timing_of(pdev);
    if (t) {
        d2d_timing_msix(t, vector);
        return;
    }
    msix_notify(pdev, vector);
}

void d2d_mmio_account(D2DPcieCounters *c, bool write, hwaddr addr,
                      unsigned size)
{
    d2d_pcie_account(c, write ? D2D_PCIE_MMIO_WRITE : D2D_PCIE_MMIO_READ,
                     addr, size);
}

static const char *const d2d_pcie_names[] = {
    D2D_PCIE_STATS(D2D_PCIE_STAT_NAME)
};
QEMU_BUILD_BUG_ON(ARRAY_SIZE(d2d_pcie_names) != D2D_PCIE_STAT_COUNT);
QEMU_BUILD_BUG_ON(sizeof(D2DPcieCounters) !=
                  D2D_PCIE_STAT_COUNT * sizeof(uint64_t));

uint64_t d2d_pcie_counter(const D2DPcieCounters *c, unsigned i)
{
    assert(i < D2D_PCIE_STAT_COUNT);
    return ((const uint64_t *)c)[i];
}

void d2d_pcie_counters_format(GString *out, const D2DPcieCounters *c)
{
    unsigned i;

    for (i = 0; i < D2D_PCIE_STAT_COUNT; i++) {
        g_string_append_printf(out, "%s%s=%" PRIu64, i ? " " : "",
                               d2d_pcie_names[i], d2d_pcie_counter(c, i));
    }
}

static void d2d_get_u64(Object *obj, Visitor *v, const char *name,
                        void *opaque, Error **errp)
{
    uint64_t val = *(uint64_t *)opaque;

    visit_type_uint64(v, name, &val, errp);
}

void d2d_pcie_counters_add_props(Object *obj, D2DPcieCounters *c)
{
    unsigned i;

    for (i = 0; i < D2D_PCIE_STAT_COUNT; i++) {
        g_autofree char *name = g_strdup_printf("pcie-%s", d2d_pcie_names[i]);

        object_property_add(obj, name, "uint64", d2d_get_u64, NULL, NULL,
                            (uint64_t *)c + i);
    }
}
