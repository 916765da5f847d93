/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PCIe traffic counters every d2d device model keeps (D2DPcieCounters,
 * docs/pcie-accounting.md) and snic reports through QUERY_STATS (struct
 * snic_pcie_stats, ethtool -S pcie_<name>): one list X(id, field), every
 * counter once in index order; the models' struct, their QOM properties
 * pcie-<name> and text dumps, the wire struct and the driver's names are
 * all generated from it.  New counters go at the end.
 */
#ifndef _D2D_PCIE_IFC_H
#define _D2D_PCIE_IFC_H

#define D2D_PCIE_STATS(X) \
	X(D2D_PCIE_STAT_DMA_READS, dma_reads)		/* DMA reads issued */ \
	X(D2D_PCIE_STAT_DMA_READ_BYTES, dma_read_bytes) \
	X(D2D_PCIE_STAT_DMA_WRITES, dma_writes)		/* DMA writes issued */ \
	X(D2D_PCIE_STAT_DMA_WRITE_BYTES, dma_write_bytes) \
	X(D2D_PCIE_STAT_MMIO_READS, mmio_reads)		/* reads of the BARs */ \
	X(D2D_PCIE_STAT_MMIO_READ_BYTES, mmio_read_bytes) \
	X(D2D_PCIE_STAT_MMIO_WRITES, mmio_writes)	/* writes, doorbells too */ \
	X(D2D_PCIE_STAT_MMIO_WRITE_BYTES, mmio_write_bytes) \
	X(D2D_PCIE_STAT_MSIX, msix)			/* MSI-X messages */ \
	X(D2D_PCIE_STAT_TLPS, tlps)			/* TLPs on the link */ \
	X(D2D_PCIE_STAT_TLP_BYTES, tlp_bytes)		/* and their bytes */ \
	X(D2D_PCIE_STAT_DMA_ERRORS, dma_errors)		/* failed DMA accesses */ \
	X(D2D_PCIE_STAT_SELF_DMA, self_dma)		/* refused: own BAR */

#define D2D_PCIE_STAT_ID(id, field) id,
#define D2D_PCIE_STAT_NAME(id, field) #field,
enum d2d_pcie_stat {
	D2D_PCIE_STATS(D2D_PCIE_STAT_ID)
	D2D_PCIE_STAT_COUNT,	/* number of counters */
};

#endif /* _D2D_PCIE_IFC_H */
