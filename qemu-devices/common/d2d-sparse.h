/*
 * d2d: typed byte-order conversions for the sparse check of the device
 * models (tools/sparse-models.sh, forced in with -include; never part of
 * a build).
 *
 * The device-interface headers (kernel/include/d2d/*_ifc.h) declare every
 * field the guest shares with a device as __le16/__le32/__le64 (or __be*
 * for wire formats), which sparse treats as restricted types.  QEMU's
 * conversions take and return plain integers, so sparse would flag every
 * correct conversion and miss the wrong ones.  Under sparse (__CHECKER__)
 * this header puts typed wrappers in their place: le32_to_cpu() accepts
 * only an __le32 and cpu_to_le32() yields one, so a field read or written
 * without its conversion, or with the wrong width or byte order, is a
 * warning.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef D2D_SPARSE_H
#define D2D_SPARSE_H

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include <linux/types.h>

#ifdef __CHECKER__

#ifndef __force
#define __force __attribute__((force))
#endif

#define D2D_SPARSE_CONV(endian, bits)                                        \
static inline uint##bits##_t                                                 \
d2d_sparse_##endian##bits##_to_cpu(__##endian##bits v)                       \
{                                                                            \
    return endian##bits##_to_cpu((__force uint##bits##_t)v);                 \
}                                                                            \
static inline __##endian##bits d2d_sparse_cpu_to_##endian##bits(uint##bits##_t v) \
{                                                                            \
    return (__force __##endian##bits)cpu_to_##endian##bits(v);               \
}

D2D_SPARSE_CONV(le, 16)
D2D_SPARSE_CONV(le, 32)
D2D_SPARSE_CONV(le, 64)
D2D_SPARSE_CONV(be, 16)
D2D_SPARSE_CONV(be, 32)
D2D_SPARSE_CONV(be, 64)

#define le16_to_cpu d2d_sparse_le16_to_cpu
#define le32_to_cpu d2d_sparse_le32_to_cpu
#define le64_to_cpu d2d_sparse_le64_to_cpu
#define be16_to_cpu d2d_sparse_be16_to_cpu
#define be32_to_cpu d2d_sparse_be32_to_cpu
#define be64_to_cpu d2d_sparse_be64_to_cpu
#define cpu_to_le16 d2d_sparse_cpu_to_le16
#define cpu_to_le32 d2d_sparse_cpu_to_le32
#define cpu_to_le64 d2d_sparse_cpu_to_le64
#define cpu_to_be16 d2d_sparse_cpu_to_be16
#define cpu_to_be32 d2d_sparse_cpu_to_be32
#define cpu_to_be64 d2d_sparse_cpu_to_be64

#endif /* __CHECKER__ */
#endif /* D2D_SPARSE_H */
