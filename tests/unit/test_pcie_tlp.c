/*
 * PCIe TLP cost model (qemu-devices/common/pcie-tlp.c) against hand-worked
 * examples from docs/pcie-accounting.md.
 */
#include "../lib/check.h"
#include "common/pcie-tlp.h"

static void chunks_at_boundaries(void)
{
	CHECK_EQ(d2d_pcie_chunks(0, 0, 256), 0);
	CHECK_EQ(d2d_pcie_chunks(0, 1, 256), 1);
	CHECK_EQ(d2d_pcie_chunks(0, 256, 256), 1);
	CHECK_EQ(d2d_pcie_chunks(0, 257, 256), 2);
	CHECK_EQ(d2d_pcie_chunks(255, 2, 256), 2);
	CHECK_EQ(d2d_pcie_chunks(128, 256, 256), 2);
	CHECK_EQ(d2d_pcie_chunks(4096, 4096, 512), 8);
}

/*
 * The FLD paper's model, worked by hand: 44 * ceil(n / 256) + 24 *
 * ceil(n / 512) for the frame both ways, 108 for the WQE read, 28 for the
 * doorbell, 2 * 88 / 16 for the CQEs.
 */
static void fld_paper_model(void)
{
	CHECK(d2d_pcie_fld_model_ctrl(64) == 24 + 44 + 108 + 28 + 11.0);
	CHECK(d2d_pcie_fld_model_ctrl(64) == 215.0);
	CHECK(d2d_pcie_fld_model_ctrl(256) == 215.0);
	CHECK(d2d_pcie_fld_model_ctrl(257) == 215.0 + 44);
	CHECK(d2d_pcie_fld_model_ctrl(1500) == 44 * 6 + 24 * 3 + 147.0);
	CHECK(d2d_pcie_fld_model_ctrl(1500) == 483.0);
	CHECK(d2d_pcie_fld_model_ctrl(4096) == 1043.0);
	CHECK(d2d_pcie_fld_model_ctrl(9000) == 44 * 36 + 24 * 18 + 147.0);
	CHECK(d2d_pcie_fld_model_ctrl(9000) == 2163.0);
}

static void dma_write_64b_cqe(void)
{
	D2DPcieCounters c = { 0 };

	d2d_pcie_account(&c, D2D_PCIE_DMA_WRITE, 0x1000, 64);
	CHECK_EQ(c.dma_writes, 1);
	CHECK_EQ(c.dma_write_bytes, 64);
	CHECK_EQ(c.tlps, 1);
	CHECK_EQ(c.tlp_bytes, 24 + 64);
}

static void dma_write_4k_page(void)
{
	D2DPcieCounters c = { 0 };

	/* 4096 / MPS 256 = 16 posted writes */
	d2d_pcie_account(&c, D2D_PCIE_DMA_WRITE, 0x2000, 4096);
	CHECK_EQ(c.tlps, 16);
	CHECK_EQ(c.tlp_bytes, 16 * 24 + 4096);
}

static void dma_read_4k_page(void)
{
	D2DPcieCounters c = { 0 };

	/* 8 read requests (MRRS 512) and 16 completions (MPS 256) */
	d2d_pcie_account(&c, D2D_PCIE_DMA_READ, 0x2000, 4096);
	CHECK_EQ(c.dma_reads, 1);
	CHECK_EQ(c.tlps, 8 + 16);
	CHECK_EQ(c.tlp_bytes, 8 * 24 + 16 * 20 + 4096);
}

static void dma_read_unaligned(void)
{
	D2DPcieCounters c = { 0 };

	/* 100 bytes crossing a 256 B boundary: 1 request, 2 completions */
	d2d_pcie_account(&c, D2D_PCIE_DMA_READ, 0x10c0, 100);
	CHECK_EQ(c.tlps, 3);
	CHECK_EQ(c.tlp_bytes, 24 + 2 * 20 + 100);
}

static void mmio_and_msix(void)
{
	D2DPcieCounters c = { 0 };

	d2d_pcie_account(&c, D2D_PCIE_MMIO_WRITE, 0x38, 4);
	d2d_pcie_account(&c, D2D_PCIE_MMIO_READ, 0x14, 4);
	d2d_pcie_account(&c, D2D_PCIE_MSIX, 0, 4);
	CHECK_EQ(c.mmio_writes, 1);
	CHECK_EQ(c.mmio_reads, 1);
	CHECK_EQ(c.msix, 1);
	CHECK_EQ(c.tlps, 1 + 2 + 1);
	CHECK_EQ(c.tlp_bytes, (24 + 4) + (24 + 20 + 4) + (24 + 4));
}

int main(void)
{
	RUN("unit/pcie_tlp", fld_paper_model);
	RUN("unit/pcie_tlp", chunks_at_boundaries);
	RUN("unit/pcie_tlp", dma_write_64b_cqe);
	RUN("unit/pcie_tlp", dma_write_4k_page);
	RUN("unit/pcie_tlp", dma_read_4k_page);
	RUN("unit/pcie_tlp", dma_read_unaligned);
	RUN("unit/pcie_tlp", mmio_and_msix);
	return check_failures ? 1 : 0;
}
