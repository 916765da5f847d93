/*
 * hdc: near-device functions - a chain of up to HDC_MAX_FUNCS digests and
 * transforms that a D2D command's data streams through, chunk by chunk.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_D2D_HDC_FUNC_H
#define HW_D2D_HDC_FUNC_H

#include "d2d/hdc_ifc.h"

typedef struct HdcFuncChain HdcFuncChain;

/* deflate or gzip: a transform whose output length is not its input's */
bool hdc_func_compresses(uint8_t fn);
/* Does the chain need struct hdc_aux (a digest's output or a key)? */
bool hdc_func_needs_aux(const uint8_t *funcs, unsigned n);
/* Can the chain change the stream's length? */
bool hdc_func_resizes(const uint8_t *funcs, unsigned n);
/* NULL on failure; key and iv from @aux (may be NULL without AES). */
HdcFuncChain *hdc_func_new(const uint8_t *funcs, unsigned n,
                           const struct hdc_aux *aux, Error **errp);
/*
 * Run @len bytes through the chain and append its output to @out; @last
 * flushes the transforms (end of the stream).
 */
bool hdc_func_run(HdcFuncChain *fc, const uint8_t *in, size_t len,
                  bool last, GByteArray *out, Error **errp);
/* Digest of function @i after the last chunk; returns its size, or 0. */
size_t hdc_func_digest(HdcFuncChain *fc, unsigned i, uint8_t out[32]);
void hdc_func_free(HdcFuncChain *fc);
const char *hdc_func_name(uint8_t fn);

#endif
