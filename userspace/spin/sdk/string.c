/*
 * Freestanding memcpy/memmove/memset/memcmp: clang emits calls to these
 * for struct copies and large initialisers even with -ffreestanding.
 * Word-at-a-time when both pointers are aligned.
 */
#include <spin.h>

void *memcpy(void *d, const void *s, size_t n)
{
	uint8_t *dp = d;
	const uint8_t *sp = s;

	if (!(((uintptr_t)dp | (uintptr_t)sp) & 3)) {
		for (; n >= 4; n -= 4, dp += 4, sp += 4)
			*(uint32_t *)dp = *(const uint32_t *)sp;
	}
	while (n--)
		*dp++ = *sp++;
	return d;
}

void *memmove(void *d, const void *s, size_t n)
{
	uint8_t *dp = d;
	const uint8_t *sp = s;

	if (dp <= sp || dp >= sp + n)
		return memcpy(d, s, n);
	while (n--)
		dp[n] = sp[n];
	return d;
}

void *memset(void *d, int c, size_t n)
{
	uint8_t *dp = d;
	uint32_t w = (uint8_t)c * 0x01010101u;

	if (!((uintptr_t)dp & 3)) {
		for (; n >= 4; n -= 4, dp += 4)
			*(uint32_t *)dp = w;
	}
	while (n--)
		*dp++ = (uint8_t)c;
	return d;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}
