/*
 * fld: memory accounting model.
 *
 * For a configuration (line rate, send queues, message sizes, TX and RX
 * latency) computes the bytes of every structure FLD keeps and what a
 * conventional driver keeps for the same service: per-queue rings of
 * 64-byte WQEs, 64-byte CQEs and worst-case buffers.  The rows and the
 * formulas are those of the FlexDriver paper's analysis (ASPLOS 2022,
 * Table 3, from its public model acsl-technion/flexdriver-model); docs/fld.md
 * gives the derivation.  Pure C for tests/unit/test_fld_mem.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_D2D_FLD_MEM_H
#define HW_D2D_FLD_MEM_H

#include <stdint.h>
#include "d2d/fld_ifc.h"

typedef struct FldMemParams {
    uint32_t linerate_gbps;     /* e.g. 100 */
    uint32_t num_txq;           /* send queues, e.g. 512 */
    uint32_t min_msg;           /* bytes, e.g. 256 */
    uint32_t max_msg;           /* bytes, e.g. 16384 */
    uint32_t lat_tx_us;         /* doorbell to completion, e.g. 25 */
    uint32_t lat_rx_us;         /* packet to buffer recycled, e.g. 5 */
    uint32_t tx_block;          /* FLD TX buffer translation grain, 256 */
} FldMemParams;

/* Rows: enum fld_mem_row of fld_ifc.h (FLD_MEM_TOTAL real rows). */

typedef struct FldMemTable {
    uint64_t fld[FLD_MEM_TOTAL];
    uint64_t conv[FLD_MEM_TOTAL];
    uint64_t fld_total, conv_total;
    /* intermediate figures, reported for the docs */
    uint64_t tx_bdp_bytes, rx_bdp_bytes;
    uint64_t tx_descs, rx_descs;
} FldMemTable;

extern const char *const fld_mem_row_names[FLD_MEM_TOTAL];

/* The paper's analysis point: 100 Gbit/s, 512 SQs, 256 B..16 KiB, 25/5 us. */
void fld_mem_params_paper(FldMemParams *p);
/* 0, or -1 if a parameter is zero or out of range. */
int fld_mem_compute(const FldMemParams *p, FldMemTable *t);
/* Bytes of a 4-bank cuckoo table at load 1/2 for tag and value ranges. */
uint64_t fld_mem_cuckoo_bytes(uint64_t tag_range, uint64_t value_range);

#endif
