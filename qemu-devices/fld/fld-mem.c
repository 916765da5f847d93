/*
 * fld: memory accounting model (see fld-mem.h, docs/fld.md).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fld-mem.h"

#define WQEBB       64      /* conventional send WQE */
#define FLD_DESC    8       /* FLD internal send descriptor */
#define CQE         64      /* conventional CQE */
#define FLD_CQE_X8  120     /* FLD compressed CQE: 120 bits (15 B) */
#define RWQE        16      /* conventional receive descriptor */
#define DBR         4       /* doorbell record / producer index */
#define IFG_PREAMBLE 20     /* Ethernet per-frame overhead on the wire */

const char *const fld_mem_row_names[FLD_MEM_TOTAL] = {
    [FLD_MEM_ROW_TX_RING] = "tx_ring",
    [FLD_MEM_ROW_TX_RING_MAP] = "tx_ring_map",
    [FLD_MEM_ROW_TX_BUF] = "tx_buffers",
    [FLD_MEM_ROW_TX_BUF_MAP] = "tx_buffer_map",
    [FLD_MEM_ROW_RX_BUF] = "rx_buffers",
    [FLD_MEM_ROW_CQ] = "cqs",
    [FLD_MEM_ROW_RQ_RING] = "rq_ring",
    [FLD_MEM_ROW_PI] = "producer_indices",
};

void fld_mem_params_paper(FldMemParams *p)
{
    p->linerate_gbps = 100;
    p->num_txq = 512;
    p->min_msg = 256;
    p->max_msg = 16384;
    p->lat_tx_us = 25;
    p->lat_rx_us = 5;
    p->tx_block = 256;
}

static unsigned log2_ceil(uint64_t v)
{
    unsigned n = 0;

    while (n < 63 && (1ull << n) < v) {
        n++;
    }
    return n;
}

static uint64_t pow2_ceil(uint64_t v)
{
    return 1ull << log2_ceil(v);
}

static uint64_t div_ceil(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

uint64_t fld_mem_cuckoo_bytes(uint64_t tag_range, uint64_t value_range)
{
    /* 4 banks x (2 x slots / 4) entries of (tag bits + value bits) */
    uint64_t entries = 2 * pow2_ceil(value_range);
    unsigned bits = log2_ceil(tag_range) + log2_ceil(value_range);

    return entries * bits / 8;
}

int fld_mem_compute(const FldMemParams *p, FldMemTable *t)
{
    uint64_t txd2, rxd2, tx_out, rx_out, blocks;
    int i;

    if (!p->linerate_gbps || !p->num_txq || !p->min_msg || !p->tx_block ||
        p->max_msg < p->min_msg || !p->lat_tx_us || !p->lat_rx_us ||
        p->linerate_gbps > 10000 || p->num_txq > 65536 ||
        p->lat_tx_us > 100000 || p->lat_rx_us > 100000 ||
        p->max_msg > (1u << 24) || p->tx_block > p->min_msg) {
        return -1;
    }
    for (i = 0; i < FLD_MEM_TOTAL; i++) {
        t->fld[i] = t->conv[i] = 0;
    }
    /*
     * Bandwidth-delay products: Gbit/s x us x 125 = bytes; descriptors
     * in flight at the minimum message size plus the 20 B of preamble
     * and inter-frame gap.
     */
    t->tx_bdp_bytes = (uint64_t)p->linerate_gbps * p->lat_tx_us * 125;
    t->rx_bdp_bytes = (uint64_t)p->linerate_gbps * p->lat_rx_us * 125;
    t->tx_descs = div_ceil(t->tx_bdp_bytes, p->min_msg + IFG_PREAMBLE);
    t->rx_descs = div_ceil(t->rx_bdp_bytes, p->min_msg + IFG_PREAMBLE);
    txd2 = pow2_ceil(t->tx_descs);
    rxd2 = pow2_ceil(t->rx_descs);

    /* Conventional: every queue's ring must absorb the whole BDP. */
    t->conv[FLD_MEM_ROW_TX_RING] = txd2 * p->num_txq * WQEBB;
    t->fld[FLD_MEM_ROW_TX_RING] = txd2 * FLD_DESC;
    t->fld[FLD_MEM_ROW_TX_RING_MAP] =
        fld_mem_cuckoo_bytes(txd2 * p->num_txq, t->tx_descs);

    /*
     * Conventional buffers are per descriptor and worst-case (max
     * message); FLD's are shared at tx_block grain, 2 x BDP for
     * fragmentation.
     */
    tx_out = 2 * t->tx_bdp_bytes;
    rx_out = 2 * t->rx_bdp_bytes;
    t->conv[FLD_MEM_ROW_TX_BUF] = t->tx_descs * p->max_msg;
    t->fld[FLD_MEM_ROW_TX_BUF] = tx_out;
    blocks = div_ceil(tx_out, p->tx_block);
    t->fld[FLD_MEM_ROW_TX_BUF_MAP] =
        fld_mem_cuckoo_bytes(div_ceil(tx_out * p->num_txq, p->tx_block),
                             blocks);
    t->conv[FLD_MEM_ROW_RX_BUF] = t->rx_descs * p->max_msg;
    t->fld[FLD_MEM_ROW_RX_BUF] = rx_out;

    /* One shared TX CQ and one RX CQ, each as deep as its ring. */
    t->conv[FLD_MEM_ROW_CQ] = (txd2 + rxd2) * CQE;
    t->fld[FLD_MEM_ROW_CQ] = (txd2 + rxd2) * FLD_CQE_X8 / 8;

    /* The striding RQ ring stays in host memory with FLD. */
    t->conv[FLD_MEM_ROW_RQ_RING] = rxd2 * RWQE;

    t->conv[FLD_MEM_ROW_PI] = t->fld[FLD_MEM_ROW_PI] =
        (uint64_t)DBR * p->num_txq + DBR;

    t->fld_total = t->conv_total = 0;
    for (i = 0; i < FLD_MEM_TOTAL; i++) {
        t->fld_total += t->fld[i];
        t->conv_total += t->conv[i];
    }
    return 0;
}
