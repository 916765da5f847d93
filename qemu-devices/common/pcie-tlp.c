/*
 * d2d: PCIe TLP cost model (see pcie-tlp.h and docs/pcie-accounting.md).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "pcie-tlp.h"

uint64_t d2d_pcie_chunks(uint64_t addr, uint64_t len, uint64_t align)
{
    if (len == 0) {
        return 0;
    }
    return (addr + len - 1) / align - addr / align + 1;
}

void d2d_pcie_account(D2DPcieCounters *c, D2DPcieOp op,
                      uint64_t addr, uint64_t len)
{
    uint64_t req, cpl;

    switch (op) {
    case D2D_PCIE_DMA_READ:
        /* Read requests up to MRRS, completions up to MPS. */
        req = d2d_pcie_chunks(addr, len, D2D_PCIE_MRRS);
        cpl = d2d_pcie_chunks(addr, len, D2D_PCIE_MPS);
        c->dma_reads++;
        c->dma_read_bytes += len;
        c->tlps += req + cpl;
        c->tlp_bytes += req * D2D_PCIE_REQ_HDR + cpl * D2D_PCIE_CPL_HDR + len;
        break;
    case D2D_PCIE_DMA_WRITE:
        /* Posted writes, one TLP per MPS-aligned piece. */
        req = d2d_pcie_chunks(addr, len, D2D_PCIE_MPS);
        c->dma_writes++;
        c->dma_write_bytes += len;
        c->tlps += req;
        c->tlp_bytes += req * D2D_PCIE_REQ_HDR + len;
        break;
    case D2D_PCIE_MMIO_READ:
        c->mmio_reads++;
        c->mmio_read_bytes += len;
        c->tlps += 2;
        c->tlp_bytes += D2D_PCIE_REQ_HDR + D2D_PCIE_CPL_HDR + len;
        break;
    case D2D_PCIE_MMIO_WRITE:
        c->mmio_writes++;
        c->mmio_write_bytes += len;
        c->tlps += 1;
        c->tlp_bytes += D2D_PCIE_REQ_HDR + len;
        break;
    case D2D_PCIE_MSIX:
        /* An MSI-X message is a 4-byte posted write. */
        c->msix++;
        c->tlps += 1;
        c->tlp_bytes += D2D_PCIE_REQ_HDR + 4;
        break;
    }
}
