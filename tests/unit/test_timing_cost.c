/*
 * Timing mode cost model (qemu-devices/common/d2d-cost.c): link rates,
 * TLP bytes per direction, busy-until resources and the RDMA WRITE
 * prediction, against figures worked by hand in docs/timing.md.
 */
#include "../lib/check.h"
#include "common/d2d-cost.h"

static void pcie_rates(void)
{
	/* Gen3: 8 GT/s, 128b/130b: 1.015625 ns per byte and lane */
	CHECK_EQ(d2d_pcie_fs_per_byte(3, 1), 1015625);
	CHECK_EQ(d2d_pcie_fs_per_byte(3, 16), 63477);
	/* Gen1 x1: 2.5 GT/s, 8b/10b: 4 ns per byte */
	CHECK_EQ(d2d_pcie_fs_per_byte(1, 1), 4000000);
	CHECK_EQ(d2d_pcie_fs_per_byte(2, 4), 500000);
	CHECK_EQ(d2d_pcie_fs_per_byte(4, 16), 31738);
	CHECK_EQ(d2d_pcie_fs_per_byte(5, 16), 15869);
	/* unknown generations and lane counts */
	CHECK_EQ(d2d_pcie_fs_per_byte(0, 16), 0);
	CHECK_EQ(d2d_pcie_fs_per_byte(6, 16), 0);
	CHECK_EQ(d2d_pcie_fs_per_byte(3, 3), 0);
	CHECK_EQ(d2d_pcie_fs_per_byte(3, 32), 0);
}

static void wire_rates(void)
{
	CHECK_EQ(d2d_wire_fs_per_byte(100000), 80000);
	CHECK_EQ(d2d_wire_fs_per_byte(25000), 320000);
	CHECK_EQ(d2d_wire_fs_per_byte(0), 0);
	/* 1500 + 24 bytes at 100 Gbit/s: 121.92 ns, rounded up */
	CHECK_EQ(d2d_bytes_ns(1524, 80000), 122);
	CHECK_EQ(d2d_bytes_ns(0, 80000), 0);
}

static void tlp_directions(void)
{
	uint64_t tlps, up, down;

	/* a 4 KiB read: 8 requests up, 16 completions down */
	d2d_pcie_tlp_cost(D2D_PCIE_DMA_READ, 0x2000, 4096, &tlps, &up, &down);
	CHECK_EQ(tlps, 24);
	CHECK_EQ(up, 8 * 24);
	CHECK_EQ(down, 16 * 20 + 4096);
	d2d_pcie_tlp_cost(D2D_PCIE_DMA_WRITE, 0x1000, 64, &tlps, &up, &down);
	CHECK_EQ(up, 24 + 64);
	CHECK_EQ(down, 0);
	d2d_pcie_tlp_cost(D2D_PCIE_MMIO_WRITE, 0x38, 4, &tlps, &up, &down);
	CHECK_EQ(up, 0);
	CHECK_EQ(down, 24 + 4);
	d2d_pcie_tlp_cost(D2D_PCIE_MSIX, 0, 4, &tlps, &up, &down);
	CHECK_EQ(up, 28);
}

static void params(void)
{
	D2DTimingParams p;

	d2d_timing_params_default(&p);
	CHECK(!p.on);
	CHECK(d2d_timing_params_check(&p) == NULL);
	p.pcie_lanes = 3;
	CHECK(d2d_timing_params_check(&p) != NULL);
	d2d_timing_params_default(&p);
	p.wire_mbps = 0;
	CHECK(d2d_timing_params_check(&p) != NULL);
}

/* Reads pipeline on the link; the engine waits for them only on sync. */
static void reads_pipeline(void)
{
	D2DTimingParams p;
	D2DTimeline tl;
	int64_t a, b;

	d2d_timing_params_default(&p);
	d2d_tl_init(&tl, &p);
	/* 64 B at 1000: request 24 B (2 ns) up, 500 ns, 84 B (6 ns) down */
	a = d2d_tl_read(&tl, 1000, 0, 64, 500);
	CHECK_EQ(a, 1000 + 2 + 500 + 6);
	/* a second read issued at once: its completion queues behind */
	b = d2d_tl_read(&tl, 1000, 0, 64, 500);
	CHECK_EQ(b, a + 6);
	CHECK_EQ(tl.issue, 0);
	d2d_tl_sync(&tl, 1000);
	CHECK_EQ(tl.issue, b);
	/* a write cannot start before the packet in hand is through */
	d2d_tl_packet(&tl, 1000, 7, 250);
	CHECK_EQ(tl.pkt, b + 7 + 250);
	a = d2d_tl_write(&tl, 1000, D2D_PCIE_DMA_WRITE, 0, 64);
	CHECK_EQ(a, tl.pkt + 6);
}

/* The wire: serialization back to back, then propagation. */
static void wire_busy(void)
{
	D2DTimingParams p;
	D2DTimeline tl;
	uint64_t depth;

	d2d_timing_params_default(&p);
	d2d_tl_init(&tl, &p);
	/* 1476 + 24 bytes: 120 ns */
	CHECK_EQ(d2d_tl_frame(&tl, 0, 1476, 310), 120 + 310);
	CHECK_EQ(d2d_tl_frame(&tl, 0, 1476, 310), 240 + 310);
	/* receive queue: empty, then one frame (1500 B) ahead */
	CHECK_EQ(d2d_tl_rx(&tl, 0, 1476, 4000, &depth), 0);
	CHECK_EQ(depth, 0);
	CHECK_EQ(d2d_tl_rx(&tl, 0, 1476, 4000, &depth), 120);
	CHECK_EQ(depth, 1500);
	CHECK_EQ(d2d_tl_rx(&tl, 0, 1476, 4000, &depth), 240);
	/* 4500 bytes ahead: more than the queue holds, dropped */
	CHECK_EQ(d2d_tl_rx(&tl, 0, 1476, 4000, &depth), -1);
	CHECK_EQ(depth, 4500);
	CHECK_EQ(d2d_tl_rx(&tl, 360, 1476, 4000, &depth), 360);
	/* effects keep their order */
	CHECK_EQ(d2d_tl_fx(&tl, 500), 500);
	CHECK_EQ(d2d_tl_fx(&tl, 400), 500);
	CHECK_EQ(d2d_tl_fx(&tl, 600), 600);
}

/*
 * 64 KiB RDMA WRITE, MTU 4096, defaults: the wire is the bottleneck
 * (16 x 4170 B + RETH + overhead at 12.5 GB/s); docs/timing.md works it.
 */
static void predict_rdma_write(void)
{
	D2DTimingParams p;
	int64_t t, stream;

	d2d_timing_params_default(&p);
	t = d2d_predict_rdma_write_ns(&p, 65536, 4096);
	stream = d2d_bytes_ns(65536 + 16 * (58 + 24) + 16, 80000);
	CHECK_EQ(stream, 5350);
	CHECK(t > stream + 2 * (p.wire_prop_ns + p.switch_ns));
	CHECK_EQ(t, 8226);
	/* a slower link makes PCIe the bottleneck */
	p.pcie_lanes = 4;
	CHECK(d2d_predict_rdma_write_ns(&p, 65536, 4096) > t + 10000);
}

int main(void)
{
	RUN("unit/timing_cost", pcie_rates);
	RUN("unit/timing_cost", wire_rates);
	RUN("unit/timing_cost", tlp_directions);
	RUN("unit/timing_cost", params);
	RUN("unit/timing_cost", reads_pipeline);
	RUN("unit/timing_cost", wire_busy);
	RUN("unit/timing_cost", predict_rdma_write);
	return check_failures ? 1 : 0;
}
