/*
 * docs/snic.md against kernel/include/uapi/d2d/snic_if.h: every constant
 * the header defines must appear in the document's tables with the same
 * value, and every SNIC_ name the tables give a value must be the header's.
 */
#include <stdlib.h>
#include "../lib/check.h"
#include "d2d/snic_if.h"

#define C(x) { #x, (unsigned long long)(x) }
static const struct { const char *name; unsigned long long val; } consts[] = {
	C(SNIC_PCI_VENDOR_ID), C(SNIC_PCI_DEVICE_ID), C(SNIC_BAR_REGS),
	C(SNIC_BAR_MSIX), C(SNIC_REGS_SIZE), C(SNIC_NUM_MSIX),
	C(SNIC_ID_MAGIC), C(SNIC_VERSION),
	C(SNIC_REG_ID), C(SNIC_REG_VERSION), C(SNIC_REG_CAPS_LO),
	C(SNIC_REG_CAPS_HI), C(SNIC_REG_CTRL), C(SNIC_REG_STATUS),
	C(SNIC_REG_ERROR), C(SNIC_REG_ERROR_COUNT), C(SNIC_REG_AQ_SQ_BASE_LO),
	C(SNIC_REG_AQ_SQ_BASE_HI), C(SNIC_REG_AQ_CQ_BASE_LO),
	C(SNIC_REG_AQ_CQ_BASE_HI), C(SNIC_REG_AQ_DEPTH), C(SNIC_REG_AQ_MSIX),
	C(SNIC_REG_AQ_SQ_TAIL), C(SNIC_REG_AQ_CQ_HEAD), C(SNIC_REG_AQ_SQ_HEAD),
	C(SNIC_REG_STAT_AQ_CMDS), C(SNIC_REG_STAT_AQ_ERRS),
	C(SNIC_REG_STAT_BAD_DB), C(SNIC_REG_STAT_DMA_ERRS),
	C(SNIC_REG_STAT_BAD_REG), C(SNIC_REG_STAT_IRQS),
	C(SNIC_CTRL_RESET), C(SNIC_CTRL_AQ_ENABLE), C(SNIC_STATUS_READY),
	C(SNIC_STATUS_AQ_ENABLED), C(SNIC_STATUS_FATAL),
	C(SNIC_ERR_NONE), C(SNIC_ERR_IN_RESET), C(SNIC_ERR_AQ_DISABLED),
	C(SNIC_ERR_AQ_ALIGN), C(SNIC_ERR_AQ_DEPTH), C(SNIC_ERR_AQ_UNMAPPED),
	C(SNIC_ERR_DB_RANGE), C(SNIC_ERR_DMA), C(SNIC_ERR_BAD_REG),
	C(SNIC_ERR_MSIX), C(SNIC_CAP_ADMINQ), C(SNIC_AQ_ALIGN),
	C(SNIC_AQ_MIN_DEPTH), C(SNIC_AQ_MAX_DEPTH), C(SNIC_AQ_CQE_PHASE),
	C(SNIC_AQ_NOP), C(SNIC_AQ_IDENTIFY),
	C(SNIC_AQ_OK), C(SNIC_AQ_EINVAL_OPCODE), C(SNIC_AQ_EINVAL_PARAM),
	C(SNIC_AQ_EDMA), C(SNIC_AQ_ENOSPC), C(SNIC_AQ_ENOENT), C(SNIC_AQ_EBUSY),
};
#define N_CONSTS (sizeof(consts) / sizeof(consts[0]))

static char doc[1 << 17];
static int seen[N_CONSTS];

static int lookup(const char *name, size_t len)
{
	unsigned int i;

	for (i = 0; i < N_CONSTS; i++)
		if (strlen(consts[i].name) == len &&
		    !strncmp(consts[i].name, name, len))
			return i;
	return -1;
}

/*
 * A table row with a cell that is exactly `SNIC_NAME` and a cell that is a
 * number: the number must be the header's value of SNIC_NAME.
 */
static void doc_values_match_header(void)
{
	char *line, *save = NULL;

	for (line = strtok_r(doc, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *cell, *next;
		int idx = -1, have_val = 0;
		unsigned long long val = 0;

		if (line[0] != '|')
			continue;
		for (cell = line + 1; (next = strchr(cell, '|')); cell = next + 1) {
			char *p = cell, *e = next, *q;

			while (p < e && *p == ' ')
				p++;
			while (e > p && e[-1] == ' ')
				e--;
			if (e - p > 7 && *p == '`' && e[-1] == '`' &&
			    !strncmp(p + 1, "SNIC_", 5)) {
				idx = lookup(p + 1, e - p - 2);
				if (idx < 0) {
					e[-1] = 0;
					check_fail(__FILE__, __LINE__,
						   "%s is not defined in snic_if.h", p + 1);
					return;
				}
			} else if (!have_val && p < e && *p >= '0' && *p <= '9') {
				val = strtoull(p, &q, 0);
				have_val = q == e;
			}
		}
		if (idx < 0 || !have_val)
			continue;
		if (val != consts[idx].val) {
			check_fail(__FILE__, __LINE__, "%s: doc %#llx, header %#llx",
				   consts[idx].name, val, consts[idx].val);
			return;
		}
		seen[idx] = 1;
	}
}

static void every_header_constant_documented(void)
{
	unsigned int i;

	for (i = 0; i < N_CONSTS; i++) {
		if (!seen[i]) {
			check_fail(__FILE__, __LINE__, "%s has no value in docs/snic.md",
				   consts[i].name);
			return;
		}
	}
}

static void struct_sizes_match_doc(void)
{
	CHECK_EQ(sizeof(struct snic_aq_cmd), 64);
	CHECK_EQ(sizeof(struct snic_aq_cqe), 16);
	CHECK_EQ(sizeof(struct snic_identify_data), 256);
	CHECK_EQ(__builtin_offsetof(struct snic_aq_cqe, status), 10);
	CHECK_EQ(__builtin_offsetof(struct snic_aq_cqe, flags), 15);
	CHECK_EQ(__builtin_offsetof(struct snic_identify_data, caps), 40);
	CHECK_EQ(__builtin_offsetof(struct snic_identify_data, serial), 64);
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "docs/snic.md";
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f) {
		printf("FAIL unit/snic_doc/open: cannot open %s\n", path);
		return 1;
	}
	n = fread(doc, 1, sizeof(doc) - 1, f);
	doc[n] = 0;
	fclose(f);
	RUN("unit/snic_doc", doc_values_match_header);
	RUN("unit/snic_doc", every_header_constant_documented);
	RUN("unit/snic_doc", struct_sizes_match_doc);
	return check_failures ? 1 : 0;
}
