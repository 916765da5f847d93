/*
 * The FLD paper's PCIe model (§6, Figure 7a; d2d_pcie_fld_model_ctrl in
 * qemu-devices/common/pcie-tlp.c, docs/pcie-accounting.md) for the bench:
 * "bench_pcie_model SIZE..." prints "size=S model=M", the NIC<->FLD
 * control bytes per echoed packet of S-byte frames, one line per size.
 */
#include <stdio.h>
#include <stdlib.h>
#include "common/pcie-tlp.h"

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		unsigned long s = strtoul(argv[i], NULL, 0);

		printf("size=%lu model=%.1f\n", s, d2d_pcie_fld_model_ctrl(s));
	}
	return 0;
}
