/*
 * A C workload compiled twice: by clang-14 for riscv32 (run on the sPIN
 * interpreter) and natively (the reference), by tests/unit/test_spin_rv32.c.
 */
#include "spin_rv32_c.h"

unsigned int c_work(unsigned int *v, unsigned int n)
{
	unsigned int i, j, crc = 0xffffffffu, acc = 0;

	/* insertion sort, signed */
	for (i = 1; i < n; i++) {
		int x = (int)v[i];

		for (j = i; j > 0 && (int)v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = (unsigned int)x;
	}
	/* CRC-32 of the sorted words and some mixed arithmetic */
	for (i = 0; i < n; i++) {
		unsigned int b;

		crc ^= v[i];
		for (b = 0; b < 32; b++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
		acc += (v[i] * 2654435761u) / ((v[i] & 0xff) | 1);
		acc ^= (unsigned int)((int)v[i] % 7) << (i & 15);
	}
	return ~crc ^ acc;
}
