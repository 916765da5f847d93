/*
 * d2d: PCIe traffic accounting - counters and the TLP cost model.
 *
 * Pure C with no QEMU dependency so that the host unit tests can check the
 * arithmetic.  docs/pcie-accounting.md documents the model.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef D2D_PCIE_TLP_H
#define D2D_PCIE_TLP_H

#include <stdint.h>
#include "d2d/pcie_ifc.h"

/* A PCIe Gen3 link as configured on the modelled platform. */
#define D2D_PCIE_MPS            256 /* max payload size */
#define D2D_PCIE_MRRS           512 /* max read request size */
#define D2D_PCIE_REQ_HDR        24  /* request / write TLP overhead */
#define D2D_PCIE_CPL_HDR        20  /* completion TLP overhead */

typedef enum D2DPcieOp {
    D2D_PCIE_DMA_READ,      /* device reads memory (host RAM or a peer BAR) */
    D2D_PCIE_DMA_WRITE,     /* device writes memory */
    D2D_PCIE_MMIO_READ,     /* CPU or peer reads one of our BARs */
    D2D_PCIE_MMIO_WRITE,    /* CPU or peer writes one of our BARs */
    D2D_PCIE_MSIX,          /* device sends an MSI-X message */
} D2DPcieOp;

/* One uint64_t per entry of D2D_PCIE_STATS (d2d/pcie_ifc.h), in its order. */
#define D2D_PCIE_U64(id, field) uint64_t field;
typedef struct D2DPcieCounters {
    D2D_PCIE_STATS(D2D_PCIE_U64)
} D2DPcieCounters;

/* Number of pieces [addr, addr + len) splits into at @align boundaries. */
uint64_t d2d_pcie_chunks(uint64_t addr, uint64_t len, uint64_t align);

/*
 * One transaction's TLPs and their bytes per direction: @up from the device
 * towards the root complex (its writes, read requests, MSI-X, completions
 * of reads of its BARs), @down towards the device (completions of its
 * reads, MMIO writes and read requests to its BARs).
 */
void d2d_pcie_tlp_cost(D2DPcieOp op, uint64_t addr, uint64_t len,
                       uint64_t *tlps, uint64_t *up, uint64_t *down);

/* Count one transaction of @len bytes at @addr. */
void d2d_pcie_account(D2DPcieCounters *c, D2DPcieOp op,
                      uint64_t addr, uint64_t len);

/*
 * The FLD paper's PCIe model (FlexDriver, ASPLOS 2022, section 6, Figure
 * 7a) of the NIC<->FLD control bytes per echoed packet of @frame bytes:
 * every byte on the link but the frame's own, both ways - the headers of
 * the received frame's write TLPs, the NIC's 64-byte WQE read (request
 * and completion), the FLD's 4-byte doorbell, the headers of the
 * transmitted frame's read (requests and completions), and one 64-byte
 * CQE write per 16 packets on each side.  Link as above (MPS 256, MRRS
 * 512, 24 / 20 bytes per TLP), buffers aligned.  docs/pcie-accounting.md.
 */
#define D2D_FLD_MODEL_CQE_MOD   16
double d2d_pcie_fld_model_ctrl(uint64_t frame);

#endif
