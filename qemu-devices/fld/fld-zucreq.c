/*
 * fld: zuc accelerator request engine (see fld-zucreq.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "fld-zucreq.h"
#include "fld-zuc.h"
#include "../common/d2d-pkt.h"

long fld_zuc_request(const uint8_t *req, size_t len, uint8_t *resp,
                     size_t resp_size)
{
    const struct fld_zuc_hdr *h = (const void *)req;
    struct fld_zuc_hdr *a = (void *)resp;
    uint32_t bits, count;
    size_t nbytes;

    if (len < FLD_ZUC_HDR_SIZE || resp_size < FLD_ZUC_HDR_SIZE ||
        d2d_rd32le((const uint8_t *)&h->magic) != FLD_ZUC_MAGIC) {
        return -1;
    }
    memcpy(resp, req, FLD_ZUC_HDR_SIZE);
    d2d_wr32le((uint8_t *)&a->mac, 0);
    bits = d2d_rd32le((const uint8_t *)&h->length_bits);
    count = d2d_rd32le((const uint8_t *)&h->count);
    nbytes = (bits + 7) / 8;
    if (h->op != FLD_ZUC_OP_EEA3 && h->op != FLD_ZUC_OP_EIA3) {
        a->status = FLD_ZUC_EOP;
        return FLD_ZUC_HDR_SIZE;
    }
    if (h->bearer > 31 || h->direction > 1 || bits == 0 ||
        bits > FLD_ZUC_MAX_BITS ||
        (h->op == FLD_ZUC_OP_EEA3 &&
         FLD_ZUC_HDR_SIZE + nbytes > resp_size)) {
        a->status = FLD_ZUC_EPARAM;
        return FLD_ZUC_HDR_SIZE;
    }
    if (len - FLD_ZUC_HDR_SIZE != nbytes) {
        a->status = FLD_ZUC_ELEN;
        return FLD_ZUC_HDR_SIZE;
    }
    a->status = FLD_ZUC_OK;
    if (h->op == FLD_ZUC_OP_EIA3) {
        d2d_wr32le((uint8_t *)&a->mac,
                 fld_eia3(h->key, count, h->bearer, h->direction,
                          req + FLD_ZUC_HDR_SIZE, bits));
        return FLD_ZUC_HDR_SIZE;
    }
    fld_eea3(h->key, count, h->bearer, h->direction, req + FLD_ZUC_HDR_SIZE,
             resp + FLD_ZUC_HDR_SIZE, bits);
    return FLD_ZUC_HDR_SIZE + nbytes;
}
