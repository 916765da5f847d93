/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * crc32c.h - CRC32C (Castagnoli) on the CPU, for the userspace tools that
 * check or stand in for the engine's crc32c unit (crc32c, udprecv): the
 * SSE4.2 crc32 instruction where the CPU has it, else a table.
 * crc32c_update(crc32c_init(), ...), then crc32c_final().
 */
#ifndef D2D_CRC32C_H
#define D2D_CRC32C_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t crc32c_init(void)
{
	return 0xffffffff;
}

static inline uint32_t crc32c_final(uint32_t crc)
{
	return crc ^ 0xffffffff;
}

static uint32_t crc32c_sw(uint32_t crc, const uint8_t *p, size_t n)
{
	static uint32_t table[256];
	uint32_t i, k, c;

	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			c = i;
			for (k = 0; k < 8; k++)
				c = c & 1 ? (c >> 1) ^ 0x82f63b78 : c >> 1;
			table[i] = c;
		}
	}
	while (n--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc32c_hw(uint32_t crc, const uint8_t *p, size_t n)
{
	uint64_t c = crc, v;

	for (; n >= 8; n -= 8, p += 8) {
		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
	}
	crc = c;
	while (n--)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return crc;
}
#endif

static inline uint32_t crc32c_update(uint32_t crc, const void *buf, size_t n)
{
#if defined(__x86_64__)
	if (__builtin_cpu_supports("sse4.2"))
		return crc32c_hw(crc, buf, n);
#endif
	return crc32c_sw(crc, buf, n);
}

#endif /* D2D_CRC32C_H */
