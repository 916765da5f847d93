/*
 * fld: the ZUC stream cipher and the 3GPP LTE algorithms built on it,
 * 128-EEA3 (confidentiality) and 128-EIA3 (integrity), as specified by
 * ETSI/SAGE ("Specification of the 3GPP Confidentiality and Integrity
 * Algorithms 128-EEA3 & 128-EIA3", Documents 1 and 2).  Used by the `zuc`
 * accelerator.  Pure C (no QEMU headers) so the host unit tests check it
 * against the published test sets (tests/unit/test_fld_zuc.c).
 *
 * Bit strings are bytes, most significant bit first, with a length in bits.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_D2D_FLD_ZUC_H
#define HW_D2D_FLD_ZUC_H

#include <stddef.h>
#include <stdint.h>

typedef struct FldZuc {
    uint32_t s[16];         /* LFSR cells, 31 bits each */
    uint32_t r1, r2;        /* the nonlinear function's memory */
} FldZuc;

/* Loads key and IV and runs the 32 initialisation rounds. */
void fld_zuc_init(FldZuc *z, const uint8_t key[16], const uint8_t iv[16]);
/* The next 32-bit keystream word. */
uint32_t fld_zuc_word(FldZuc *z);

/*
 * 128-EEA3: out = in XOR keystream over len_bits bits; the bits of the
 * last byte beyond len_bits are cleared.  in and out may be the same.
 */
void fld_eea3(const uint8_t key[16], uint32_t count, uint8_t bearer,
              uint8_t direction, const uint8_t *in, uint8_t *out,
              uint32_t len_bits);

/* 128-EIA3: the 32-bit MAC of the first len_bits bits of msg. */
uint32_t fld_eia3(const uint8_t key[16], uint32_t count, uint8_t bearer,
                  uint8_t direction, const uint8_t *msg, uint32_t len_bits);

#endif
