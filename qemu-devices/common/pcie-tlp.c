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

void d2d_pcie_tlp_cost(D2DPcieOp op, uint64_t addr, uint64_t len,
                       uint64_t *tlps, uint64_t *up, uint64_t *down)
{
    uint64_t req, cpl;

    *up = *down = 0;
    switch (op) {
    case D2D_PCIE_DMA_READ:
        /* Read requests up to MRRS go up, completions up to MPS come down. */
        req = d2d_pcie_chunks(addr, len, D2D_PCIE_MRRS);
        cpl = d2d_pcie_chunks(addr, len, D2D_PCIE_MPS);
        *tlps = req + cpl;
        *up = req * D2D_PCIE_REQ_HDR;
        *down = cpl * D2D_PCIE_CPL_HDR + len;
        break;
    case D2D_PCIE_DMA_WRITE:
        /* Posted writes, one TLP per MPS-aligned piece. */
        req = d2d_pcie_chunks(addr, len, D2D_PCIE_MPS);
        *tlps = req;
        *up = req * D2D_PCIE_REQ_HDR + len;
        break;
    case D2D_PCIE_MMIO_READ:
        *tlps = 2;
        *down = D2D_PCIE_REQ_HDR;
        *up = D2D_PCIE_CPL_HDR + len;
        break;
    case D2D_PCIE_MMIO_WRITE:
        *tlps = 1;
        *down = D2D_PCIE_REQ_HDR + len;
        break;
    case D2D_PCIE_MSIX:
        /* An MSI-X message is a 4-byte posted write. */
        *tlps = 1;
        *up = D2D_PCIE_REQ_HDR + 4;
        break;
    default:
        *tlps = 0;
        break;
    }
}

void d2d_pcie_account(D2DPcieCounters *c, D2DPcieOp op,
                      uint64_t addr, uint64_t len)
{
    uint64_t tlps, up, down;

    d2d_pcie_tlp_cost(op, addr, len, &tlps, &up, &down);
    c->tlps += tlps;
    c->tlp_bytes += up + down;
    switch (op) {
    case D2D_PCIE_DMA_READ:
        c->dma_reads++;
        c->dma_read_bytes += len;
        break;
    case D2D_PCIE_DMA_WRITE:
        c->dma_writes++;
        c->dma_write_bytes += len;
        break;
    case D2D_PCIE_MMIO_READ:
        c->mmio_reads++;
        c->mmio_read_bytes += len;
        break;
    case D2D_PCIE_MMIO_WRITE:
        c->mmio_writes++;
        c->mmio_write_bytes += len;
        break;
    case D2D_PCIE_MSIX:
        c->msix++;
        break;
    }
}

/* Bytes on the link of one DMA or MMIO write of @len bytes, less them. */
static uint64_t d2d_pcie_overhead(D2DPcieOp op, uint64_t len)
{
    uint64_t tlps, up, down;

    d2d_pcie_tlp_cost(op, 0, len, &tlps, &up, &down);
    return up + down - len;
}

double d2d_pcie_fld_model_ctrl(uint64_t frame)
{
    uint64_t wqe = 64, cqe = 64, db = 4;
    double per = 0;

    per += d2d_pcie_overhead(D2D_PCIE_DMA_WRITE, frame);    /* RX frame */
    per += d2d_pcie_overhead(D2D_PCIE_DMA_READ, frame);     /* TX frame */
    per += d2d_pcie_overhead(D2D_PCIE_DMA_READ, wqe) + wqe; /* WQE fetch */
    per += d2d_pcie_overhead(D2D_PCIE_MMIO_WRITE, db) + db; /* doorbell */
    /* an RX and a TX CQE, each 1 in D2D_FLD_MODEL_CQE_MOD packets */
    per += 2.0 * (d2d_pcie_overhead(D2D_PCIE_DMA_WRITE, cqe) + cqe) /
           D2D_FLD_MODEL_CQE_MOD;
    return per;
}
