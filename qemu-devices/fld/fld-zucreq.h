/*
 * fld: the zuc accelerator's request engine - one request (64-byte
 * header + data, struct fld_zuc_hdr) in, one answer out, with 128-EEA3 or
 * 128-EIA3 from fld-zuc.c.  Transport-free pure C (the accelerator carries
 * requests over FLD-E UDP today, over FLD-R RDMA SENDs once snic has RDMA)
 * for tests/unit/test_fld_zucreq.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_D2D_FLD_ZUCREQ_H
#define HW_D2D_FLD_ZUCREQ_H

#include <stddef.h>
#include <stdint.h>
#include "d2d/fld_ifc.h"

/*
 * Runs request @req (@len bytes) into @resp (@resp_size bytes, at least
 * FLD_ZUC_HDR_SIZE).  Returns the answer's length: the header with a
 * status, plus the output for a good EEA3 request; -1 if @req is not a
 * request at all (short, wrong magic: drop it).
 */
long fld_zuc_request(const uint8_t *req, size_t len, uint8_t *resp,
                     size_t resp_size);

#endif
