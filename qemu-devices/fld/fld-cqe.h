/*
 * fld: the 15-byte compressed completion form.
 *
 * The NIC writes 64-byte CQEs into FLD's completion window; FLD keeps only
 * the 120 bits it needs (opcode, syndrome, queue, counter, length, flags,
 * stride position, flow tag, RSS hash, see fld_ifc.h and docs/fld.md).
 * Pure C, checked by tests/unit/test_fld_cqe.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_D2D_FLD_CQE_H
#define HW_D2D_FLD_CQE_H

#include <stdbool.h>
#include <stdint.h>
#include "d2d/fld_ifc.h"

/* The fields of a compressed CQE, unpacked. */
typedef struct FldCqe {
    uint8_t opcode;         /* SNIC_CQE_*, 4 bits */
    uint8_t syndrome;       /* 4 bits */
    uint16_t qn;            /* 10 bits */
    uint16_t wqe_counter;
    uint16_t byte_cnt;      /* 14 bits */
    uint16_t flags;         /* SNIC_CQE_F_*, 11 bits */
    uint8_t stride_idx;     /* 8 bits */
    uint16_t num_strides;   /* 9 bits */
    uint16_t flow_tag;      /* 12 bits */
    uint32_t rss_hash;
    /* RDMA CQEs: qn is rdma_qpn and flags rdma_flags; these two from */
    uint8_t wqe_opcode;     /* ... stride_idx: SNIC_WQE_* of the work */
    uint32_t cookie;        /* ... rss_hash: low 32 bits of the cookie */
} FldCqe;

/* snic's RDMA CQE opcodes (enum snic_cqe_rdma_opcode), kept pure C here */
#define FLD_CQE_REQ         0x04
#define FLD_CQE_RECV        0x05
#define FLD_CQE_REQ_ERR     0x0b
#define FLD_CQE_RECV_ERR    0x0c

bool fld_cqe_is_rdma(uint8_t opcode);

/*
 * Compress the 64-byte snic CQE @raw into @out (FLD_CQE_SIZE bytes).
 * Returns false if a field does not fit its width (the caller counts it);
 * a flow tag above FLD_MAX_FLOW_TAG is dropped (TAG flag cleared) and
 * *tag_overflow set, the rest still compressed.  RDMA CQEs take the
 * variant fld_ifc.h describes (rdma_qpn, rdma_flags, wqe_opcode, cookie).
 */
bool fld_cqe_compress(const uint8_t raw[64], uint8_t out[FLD_CQE_SIZE],
                      bool *tag_overflow);
void fld_cqe_expand(const uint8_t in[FLD_CQE_SIZE], FldCqe *c);

/*
 * A 64-byte mini-CQE line (snic's struct snic_cqe_line, SNIC_CQE_MINI in
 * its last byte) as the 64-byte CQEs it stands for: returns how many it
 * wrote to @raw (1..7), 0 for a line with no or too many entries.
 */
unsigned fld_cqe_line_split(const uint8_t line[64], uint8_t raw[][64]);

#endif
