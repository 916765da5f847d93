/*
 * FLD memory accounting model (qemu-devices/fld/fld-mem.c) against the
 * FlexDriver paper's memory table (ASPLOS 2022): at 100 Gbit/s, 512 send
 * queues, 256 B..16 KiB messages, 25 us TX and 5 us RX latency a
 * conventional driver needs 85.3 MiB and FLD 832.7 KiB, x105.  Each row is
 * checked within 1% of the paper's figure (as its public model prints
 * them, docs/fld.md).
 */
#include "../lib/check.h"
#include "fld/fld-mem.h"

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)

static int within_1pct(double got, double want)
{
	if (want == 0)
		return got == 0;
	return got >= want * 0.99 && got <= want * 1.01;
}

#define CHECK_ROW(got, want) do {					\
	if (!within_1pct((double)(got), (want))) {			\
		check_fail(__FILE__, __LINE__, "%s = %.0f B, paper %.0f B", \
			   #got, (double)(got), (double)(want));	\
		return;							\
	}								\
} while (0)

static FldMemTable paper(void)
{
	FldMemParams p;
	FldMemTable t;

	fld_mem_params_paper(&p);
	if (fld_mem_compute(&p, &t))
		memset(&t, 0, sizeof(t));
	return t;
}

static void intermediate_figures(void)
{
	FldMemTable t = paper();

	/* 45.29 Mpps at 256 B: 1133 descriptors in 25 us, 227 in 5 us */
	CHECK_EQ(t.tx_descs, 1133);
	CHECK_EQ(t.rx_descs, 227);
	CHECK_EQ(t.tx_bdp_bytes, 312500);
	CHECK_EQ(t.rx_bdp_bytes, 62500);
}

static void conventional_rows(void)
{
	FldMemTable t = paper();

	CHECK_ROW(t.conv[FLD_MEM_ROW_TX_RING], 64 * MIB);
	CHECK_ROW(t.conv[FLD_MEM_ROW_TX_RING_MAP], 0);
	CHECK_ROW(t.conv[FLD_MEM_ROW_TX_BUF], 17.703125 * MIB);
	CHECK_ROW(t.conv[FLD_MEM_ROW_TX_BUF_MAP], 0);
	CHECK_ROW(t.conv[FLD_MEM_ROW_RX_BUF], 3.546875 * MIB);
	CHECK_ROW(t.conv[FLD_MEM_ROW_CQ], 144 * KIB);
	CHECK_ROW(t.conv[FLD_MEM_ROW_RQ_RING], 4 * KIB);
	CHECK_ROW(t.conv[FLD_MEM_ROW_PI], 2052);
}

static void fld_rows(void)
{
	FldMemTable t = paper();

	CHECK_ROW(t.fld[FLD_MEM_ROW_TX_RING], 16 * KIB);
	CHECK_ROW(t.fld[FLD_MEM_ROW_TX_RING_MAP], 15.5 * KIB);
	CHECK_ROW(t.fld[FLD_MEM_ROW_TX_BUF], 610.351562 * KIB);
	CHECK_ROW(t.fld[FLD_MEM_ROW_TX_BUF_MAP], 33 * KIB);
	CHECK_ROW(t.fld[FLD_MEM_ROW_RX_BUF], 122.070312 * KIB);
	CHECK_ROW(t.fld[FLD_MEM_ROW_CQ], 33.75 * KIB);
	CHECK_ROW(t.fld[FLD_MEM_ROW_RQ_RING], 0);
	CHECK_ROW(t.fld[FLD_MEM_ROW_PI], 2052);
}

static void totals_85_3_mib_vs_832_7_kib_x105(void)
{
	FldMemTable t = paper();
	double ratio;

	CHECK_ROW(t.conv_total, 85.3 * MIB);
	CHECK_ROW(t.fld_total, 832.7 * KIB);
	ratio = (double)t.conv_total / (double)t.fld_total;
	CHECK(ratio >= 104.5 && ratio < 105.5);
}

/* More queues cost the conventional driver rings; FLD only indices. */
static void scales_with_queues(void)
{
	FldMemParams p;
	FldMemTable a, b;

	fld_mem_params_paper(&p);
	CHECK_EQ(fld_mem_compute(&p, &a), 0);
	p.num_txq *= 2;
	CHECK_EQ(fld_mem_compute(&p, &b), 0);
	CHECK_EQ(b.conv[FLD_MEM_ROW_TX_RING], 2 * a.conv[FLD_MEM_ROW_TX_RING]);
	CHECK_EQ(b.fld[FLD_MEM_ROW_TX_RING], a.fld[FLD_MEM_ROW_TX_RING]);
	CHECK(b.fld_total - a.fld_total < 8 * KIB);
}

static void bad_params_refused(void)
{
	FldMemParams p;
	FldMemTable t;

	fld_mem_params_paper(&p);
	p.min_msg = 0;
	CHECK(fld_mem_compute(&p, &t) < 0);
	fld_mem_params_paper(&p);
	p.max_msg = 64;
	CHECK(fld_mem_compute(&p, &t) < 0);
	fld_mem_params_paper(&p);
	p.num_txq = 0;
	CHECK(fld_mem_compute(&p, &t) < 0);
	fld_mem_params_paper(&p);
	p.linerate_gbps = 1u << 31;
	CHECK(fld_mem_compute(&p, &t) < 0);
	/* the largest accepted configuration computes without overflow */
	p.linerate_gbps = 10000;
	p.lat_tx_us = p.lat_rx_us = 100000;
	p.num_txq = 65536;
	p.min_msg = 256;
	p.max_msg = 1u << 24;
	CHECK_EQ(fld_mem_compute(&p, &t), 0);
	CHECK(t.conv_total > t.conv[FLD_MEM_ROW_TX_RING]);
	CHECK(t.conv[FLD_MEM_ROW_TX_BUF] / p.max_msg == t.tx_descs);
}

int main(void)
{
	RUN("unit/fld_mem", intermediate_figures);
	RUN("unit/fld_mem", conventional_rows);
	RUN("unit/fld_mem", fld_rows);
	RUN("unit/fld_mem", totals_85_3_mib_vs_832_7_kib_x105);
	RUN("unit/fld_mem", scales_with_queues);
	RUN("unit/fld_mem", bad_params_refused);
	return check_failures ? 1 : 0;
}
