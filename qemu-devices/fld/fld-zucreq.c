/*
 * fld: zuc accelerator request engine (see fld-zucreq.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "fld-zucreq.h"
#include "fld-zuc.h"

static uint32_t le32(const uint8_t *p)
{
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = v;
    p[1] = v >> 8;
    p[2] = v >> 16;
    p[3] = v >> 24;
}

long fld_zuc_request(const uint8_t *req, size_t len, uint8_t *resp,
                     size_t resp_size)
{
    const struct fld_zuc_hdr *h = (const void *)req;
    struct fld_zuc_hdr *a = (void *)resp;
    uint32_t bits, count;
    size_t nbytes;

    if (len < FLD_ZUC_HDR_SIZE || resp_size < FLD_ZUC_HDR_SIZE ||
        le32((const uint8_t *)&h->magic) != FLD_ZUC_MAGIC) {
        return -1;
    }
    memcpy(resp, req, FLD_ZUC_HDR_SIZE);
    put_le32((uint8_t *)&a->mac, 0);
    bits = le32((const uint8_t *)&h->length_bits);
    count = le32((const uint8_t *)&h->count);
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
        put_le32((uint8_t *)&a->mac,
                 fld_eia3(h->key, count, h->bearer, h->direction,
                          req + FLD_ZUC_HDR_SIZE, bits));
        return FLD_ZUC_HDR_SIZE;
    }
    fld_eea3(h->key, count, h->bearer, h->direction, req + FLD_ZUC_HDR_SIZE,
             resp + FLD_ZUC_HDR_SIZE, bits);
    return FLD_ZUC_HDR_SIZE + nbytes;
}
