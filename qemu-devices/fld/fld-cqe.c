/*
 * fld: 64-byte CQE to 15-byte form and back (see fld-cqe.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "fld-cqe.h"
#include "../common/d2d-pkt.h"

/* Offsets of the snic CQE fields used (docs/snic.md, struct snic_cqe). */
#define RAW_BYTE_CNT    0
#define RAW_RSS_HASH    4
#define RAW_FLOW_TAG    8
#define RAW_WQE_COUNTER 12
#define RAW_QN          14
#define RAW_FLAGS       16
#define RAW_STRIDE_IDX  18
#define RAW_NUM_STRIDES 20
#define RAW_OPCODE      24
#define RAW_SYNDROME    25
#define RAW_RDMA_FLAGS  27
#define RAW_RDMA_QPN    28
#define RAW_COOKIE      40
#define RAW_WQE_OPCODE  62
#define F_TAG           0x20    /* SNIC_CQE_F_TAG */

/* struct snic_cqe_line: 7 mini-CQEs of 8 bytes, then these */
#define LINE_MINI       7
#define LINE_QN         56
#define LINE_FLOW_TAG   58
#define LINE_COUNT      60
#define RAW_OP_RX       0x02    /* SNIC_CQE_RX */

unsigned fld_cqe_line_split(const uint8_t line[64], uint8_t raw[][64])
{
    unsigned n = line[LINE_COUNT], i;

    if (n == 0 || n > LINE_MINI) {
        return 0;
    }
    for (i = 0; i < n; i++) {
        const uint8_t *m = line + 8 * i;
        uint16_t flags = d2d_rd16le(m + 6);

        memset(raw[i], 0, 64);
        memcpy(raw[i] + RAW_BYTE_CNT, m, 2);
        memcpy(raw[i] + RAW_WQE_COUNTER, m + 2, 2);
        memcpy(raw[i] + RAW_STRIDE_IDX, m + 4, 2);
        memcpy(raw[i] + RAW_FLAGS, m + 6, 2);
        memcpy(raw[i] + RAW_QN, line + LINE_QN, 2);
        if (flags & F_TAG) {
            memcpy(raw[i] + RAW_FLOW_TAG, line + LINE_FLOW_TAG, 2);
        }
        raw[i][RAW_OPCODE] = RAW_OP_RX;
    }
    return n;
}

bool fld_cqe_is_rdma(uint8_t opcode)
{
    return opcode == FLD_CQE_REQ || opcode == FLD_CQE_RECV ||
           opcode == FLD_CQE_REQ_ERR || opcode == FLD_CQE_RECV_ERR;
}

/* Little-endian bit stream writer/reader over 120 bits. */
static void put_bits(uint8_t *b, unsigned *pos, uint32_t v, unsigned n)
{
    unsigned i;

    for (i = 0; i < n; i++, (*pos)++) {
        if (v & (1u << i)) {
            b[*pos / 8] |= 1u << (*pos % 8);
        }
    }
}

static uint32_t get_bits(const uint8_t *b, unsigned *pos, unsigned n)
{
    uint32_t v = 0;
    unsigned i;

    for (i = 0; i < n; i++, (*pos)++) {
        if (b[*pos / 8] & (1u << (*pos % 8))) {
            v |= 1u << i;
        }
    }
    return v;
}

bool fld_cqe_compress(const uint8_t raw[64], uint8_t out[FLD_CQE_SIZE],
                      bool *tag_overflow)
{
    uint32_t byte_cnt = d2d_rd32le(raw + RAW_BYTE_CNT);
    uint32_t tag = d2d_rd32le(raw + RAW_FLOW_TAG);
    uint32_t word = d2d_rd32le(raw + RAW_RSS_HASH);
    uint32_t qn = d2d_rd16le(raw + RAW_QN);
    uint16_t flags = d2d_rd16le(raw + RAW_FLAGS);
    uint16_t sidx = d2d_rd16le(raw + RAW_STRIDE_IDX);
    uint16_t nstr = d2d_rd16le(raw + RAW_NUM_STRIDES);
    uint8_t op = raw[RAW_OPCODE], synd = raw[RAW_SYNDROME];
    unsigned pos = 0;
    bool fits;

    *tag_overflow = false;
    if (fld_cqe_is_rdma(op)) {
        /*
         * RDMA variant: the Ethernet-only fields carry the RDMA ones
         * (flags: RDMA flags, stride index: WQE opcode, RSS hash: cookie).
         */
        qn = d2d_rd32le(raw + RAW_RDMA_QPN);
        if (op == FLD_CQE_REQ_ERR || op == FLD_CQE_RECV_ERR) {
            byte_cnt = 0;
        }
        flags = raw[RAW_RDMA_FLAGS];
        sidx = raw[RAW_WQE_OPCODE];
        nstr = tag = 0;
        word = d2d_rd32le(raw + RAW_COOKIE);
    } else {
        if ((flags & F_TAG) && tag > FLD_MAX_FLOW_TAG) {
            *tag_overflow = true;
            flags &= ~F_TAG;
        }
        if (!(flags & F_TAG)) {
            tag = 0;
        }
    }
    fits = op <= 0xf && synd <= 0xf && qn <= 0x3ff && byte_cnt <= 0x3fff &&
           flags <= 0x7ff && sidx <= 0xff && nstr <= 0x1ff;
    memset(out, 0, FLD_CQE_SIZE);
    put_bits(out, &pos, op, 4);
    put_bits(out, &pos, synd, 4);
    put_bits(out, &pos, qn, 10);
    put_bits(out, &pos, d2d_rd16le(raw + RAW_WQE_COUNTER), 16);
    put_bits(out, &pos, byte_cnt, 14);
    put_bits(out, &pos, flags, 11);
    put_bits(out, &pos, sidx, 8);
    put_bits(out, &pos, nstr, 9);
    put_bits(out, &pos, tag, 12);
    put_bits(out, &pos, word, 32);
    return fits;
}

void fld_cqe_expand(const uint8_t in[FLD_CQE_SIZE], FldCqe *c)
{
    unsigned pos = 0;

    c->opcode = get_bits(in, &pos, 4);
    c->syndrome = get_bits(in, &pos, 4);
    c->qn = get_bits(in, &pos, 10);
    c->wqe_counter = get_bits(in, &pos, 16);
    c->byte_cnt = get_bits(in, &pos, 14);
    c->flags = get_bits(in, &pos, 11);
    c->stride_idx = get_bits(in, &pos, 8);
    c->num_strides = get_bits(in, &pos, 9);
    c->flow_tag = get_bits(in, &pos, 12);
    c->rss_hash = get_bits(in, &pos, 32);
    c->wqe_opcode = 0;
    c->cookie = 0;
    if (fld_cqe_is_rdma(c->opcode)) {
        c->wqe_opcode = c->stride_idx;
        c->cookie = c->rss_hash;
    }
}
