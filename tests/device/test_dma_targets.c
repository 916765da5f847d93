/*
 * Self- and cross-DMA: one table of the guest-supplied DMA addresses of
 * snic and hdc (admin rings and buffers, EQ/CQ/SQ/RQ rings and doorbell
 * records, MR page lists, sPIN memory images, hdc command/completion rings,
 * host buffers and aux data), each pointed at BAR0 (its base and its CTRL
 * register), BAR2 and BAR4 of the device itself and of its peers (snic, hdc, fld on
 * one bus).  For every pair QEMU must survive; a target inside the
 * device's own BARs must be refused (docs/pcie-accounting.md: counted in
 * pcie-self_dma, reported as an error); afterwards the device must still
 * work (a normal command succeeds) and every peer still answers.  DMA into
 * a peer's BAR is peer-to-peer and allowed.
 */
#include <stdlib.h>
#include "../lib/check.h"
#include "snic_dev.h"
#include "d2d/hdc_ifc.h"
#include "d2d/fld_ifc.h"
#include "d2d/snic_spin_ifc.h"

#define SNIC_BAR	0xe0000000ull	/* BAR0, BAR2 +1 MiB, BAR4 +2 MiB */
#define FLD_BAR0	0xe0400000ull
#define FLD_BAR4	0xe0500000ull
#define HDC_BAR0	0xe0800000ull
#define HDC_BAR4	0xe0900000ull
#define FLD_BAR2	0xe2000000ull	/* 32 MiB */
#define HDC_BAR2	0xc0000000ull	/* buf-mib=16 */

#define SNIC_RAM	0x100000ull	/* SNIC_DEV_RAM_SIZE */
#define SNIC_MEM	0x200000ull	/* rings of the create commands */
#define HDC_CMDQ	0x300000ull
#define HDC_CPLQ	0x301000ull
#define HDC_AUX		0x302000ull
#define HDC_SRC		0x310000ull
#define HDC_DST		0x320000ull
#define MSI_ADDR	0x3f0000ull

enum dev { SNIC, HDC, FLD, NDEV };
static const char *const dev_name[NDEV] = { "snic", "hdc", "fld" };

static struct qt *qt;
static struct snic_dev nic;
static int hdc_devfn, fld_devfn;
static uint32_t hdc_tail, hdc_head;
static unsigned int hdc_phase;

/* ---- environment ---- */

static uint64_t self_dma(enum dev d)
{
	char path[64];
	uint64_t v = 0;

	snprintf(path, sizeof(path), "/machine/peripheral/%s0", dev_name[d]);
	if (!qt_qom_get_u64(qt, path, "pcie-self_dma", &v))
		return ~0ull;	/* no such counter */
	return v;
}

static void hdc_wr(uint32_t reg, uint32_t v)
{
	qt_writel(qt, HDC_BAR0 + reg, v);
}

static uint32_t hdc_rd(uint32_t reg)
{
	return qt_readl(qt, HDC_BAR0 + reg);
}

static bool hdc_queue(uint64_t cmdq, uint64_t cplq)
{
	qt_memset(qt, HDC_CMDQ, 0, HDC_QUEUE_DEPTH * sizeof(struct hdc_cmd));
	qt_memset(qt, HDC_CPLQ, 0, HDC_QUEUE_DEPTH * sizeof(struct hdc_cpl));
	hdc_wr(HDC_REG_CTRL, 0);
	hdc_wr(HDC_REG_CMDQ_BASE_LO, (uint32_t)cmdq);
	hdc_wr(HDC_REG_CMDQ_BASE_HI, cmdq >> 32);
	hdc_wr(HDC_REG_CPLQ_BASE_LO, (uint32_t)cplq);
	hdc_wr(HDC_REG_CPLQ_BASE_HI, cplq >> 32);
	hdc_wr(HDC_REG_MSIX, 0);
	hdc_wr(HDC_REG_CTRL, HDC_CTRL_ENABLE);
	hdc_tail = hdc_head = 0;
	hdc_phase = 1;
	return (hdc_rd(HDC_REG_STATUS) & HDC_STATUS_ENABLED) != 0;
}

static bool env_start(void)
{
	qt_quit(qt);
	qt = qt_start("-device snic,id=snic0 -device hdc,id=hdc0,buf-mib=16 "
		      "-device fld,id=fld0");
	if (!qt_alive(qt) || !snic_dev_open(&nic, qt, 0, SNIC_BAR, SNIC_RAM))
		return false;
	hdc_devfn = qt_pci_find(qt, HDC_PCI_VENDOR_ID, HDC_PCI_DEVICE_ID, 0);
	fld_devfn = qt_pci_find(qt, FLD_PCI_VENDOR_ID, FLD_PCI_DEVICE_ID, 0);
	if (hdc_devfn < 0 || fld_devfn < 0)
		return false;
	qt_pci_map_bar(qt, hdc_devfn, HDC_BAR_REGS, HDC_BAR0);
	qt_pci_map_bar(qt, hdc_devfn, HDC_BAR_BUF, HDC_BAR2);
	qt_pci_map_bar(qt, hdc_devfn, HDC_BAR_NVMEQ, HDC_BAR4);
	qt_pci_enable(qt, hdc_devfn);
	qt_pci_map_bar(qt, fld_devfn, FLD_BAR_REGS, FLD_BAR0);
	qt_pci_map_bar(qt, fld_devfn, FLD_BAR_WIN, FLD_BAR2);
	qt_pci_map_bar(qt, fld_devfn, FLD_BAR_MSIX, FLD_BAR4);
	qt_pci_enable(qt, fld_devfn);
	qt_pci_msix_setup(qt, hdc_devfn, HDC_BAR0 + HDC_MSIX_OFFSET, 0,
			  MSI_ADDR, 1);
	snic_dev_msix(&nic, 0, MSI_ADDR + 16, 2);
	return snic_aq_ready(&nic, 16) && hdc_queue(HDC_CMDQ, HDC_CPLQ);
}

/* ---- snic: one admin command, its status ---- */

static int snic_cmd(uint8_t op, const void *p, size_t len)
{
	return snic_aq_cmd(&nic, op, p, len, NULL);
}

static int snic_raw(uint8_t op, const void *p, size_t len)
{
	struct snic_aq_cmd c = { .opcode = op };

	memcpy(c.raw, p, len);
	return snic_aq_exec(&nic, &c, NULL);
}

static bool snic_aq_at(uint64_t sq, uint64_t cq)
{
	uint32_t err;

	snic_wr(&nic, SNIC_REG_CTRL, 0);
	snic_aq_config(&nic, sq, cq, 16);
	snic_wr(&nic, SNIC_REG_CTRL, SNIC_CTRL_AQ_ENABLE);
	err = snic_rd(&nic, SNIC_REG_ERROR);
	return !(snic_rd(&nic, SNIC_REG_STATUS) & SNIC_STATUS_AQ_ENABLED) &&
	       (err == SNIC_ERR_AQ_UNMAPPED || err == SNIC_ERR_AQ_ALIGN);
}

static bool snic_aq_sq(uint64_t a)
{
	return snic_aq_at(a, nic.aq_cq);
}

static bool snic_aq_cq(uint64_t a)
{
	return snic_aq_at(nic.aq_sq, a);
}

static bool snic_identify_buf(uint64_t a)
{
	struct snic_aq_cmd c = { .opcode = SNIC_AQ_IDENTIFY };

	c.identify.buf_addr = a;
	c.identify.buf_len = sizeof(struct snic_identify_data);
	return snic_aq_exec(&nic, &c, NULL) == SNIC_AQ_EDMA;
}

static bool snic_stats_buf(uint64_t a)
{
	struct snic_aq_buf b = { .addr = a,
				 .len = sizeof(struct snic_port_stats),
				 .kind = SNIC_STATS_PORT };

	return snic_cmd(SNIC_AQ_QUERY_STATS, &b, sizeof(b)) != SNIC_AQ_OK;
}

static bool snic_eq_ring(uint64_t a)
{
	struct snic_aq_create_eq e = { .ring_addr = a, .log_size = 6 };

	return snic_cmd(SNIC_AQ_CREATE_EQ, &e, sizeof(e)) != SNIC_AQ_OK;
}

static int snic_cq(uint64_t ring, uint64_t dbr, uint64_t *cqn)
{
	struct snic_aq_create_cq c = { .ring_addr = ring, .dbr_addr = dbr,
				       .log_size = 6, .eqn = SNIC_EQN_NONE };

	return snic_aq_cmd(&nic, SNIC_AQ_CREATE_CQ, &c, sizeof(c), cqn);
}

static bool snic_cq_ring(uint64_t a)
{
	return snic_cq(a, SNIC_MEM + 0x8000, NULL) != SNIC_AQ_OK;
}

static bool snic_cq_dbr(uint64_t a)
{
	return snic_cq(SNIC_MEM, a, NULL) != SNIC_AQ_OK;
}

static bool snic_sq(uint64_t ring, uint64_t dbr)
{
	struct snic_aq_create_sq q = { .ring_addr = ring, .dbr_addr = dbr,
				       .log_size = 6, .db_page = 1 };
	uint64_t cqn;

	if (snic_cq(SNIC_MEM, SNIC_MEM + 0x8000, &cqn) != SNIC_AQ_OK)
		return false;
	q.cqn = cqn;
	return snic_cmd(SNIC_AQ_CREATE_SQ, &q, sizeof(q)) != SNIC_AQ_OK;
}

static bool snic_sq_ring(uint64_t a)
{
	return snic_sq(a, SNIC_MEM + 0x9000);
}

static bool snic_sq_dbr(uint64_t a)
{
	return snic_sq(SNIC_MEM + 0x10000, a);
}

static bool snic_rq(uint64_t ring, uint64_t dbr)
{
	struct snic_aq_create_rq q = { .ring_addr = ring, .dbr_addr = dbr,
				       .log_size = 6, .type = SNIC_RQ_PLAIN,
				       .db_page = 2 };
	uint64_t cqn;

	if (snic_cq(SNIC_MEM, SNIC_MEM + 0x8000, &cqn) != SNIC_AQ_OK)
		return false;
	q.cqn = cqn;
	return snic_cmd(SNIC_AQ_CREATE_RQ, &q, sizeof(q)) != SNIC_AQ_OK;
}

static bool snic_rq_ring(uint64_t a)
{
	return snic_rq(a, SNIC_MEM + 0x9000);
}

static bool snic_rq_dbr(uint64_t a)
{
	return snic_rq(SNIC_MEM + 0x10000, a);
}

static bool snic_mr_pages(uint64_t a)
{
	struct snic_mr_cfg m = { .access = SNIC_ACCESS_LOCAL_WRITE,
				 .iova = 0x10000, .length = 0x2000,
				 .pas_addr = a, .npages = 2,
				 .page_shift = 12 };
	uint64_t pdn;

	if (snic_aq_cmd(&nic, SNIC_AQ_CREATE_PD, NULL, 0, &pdn) != SNIC_AQ_OK)
		return false;
	m.pdn = pdn;
	return snic_rdma_create_mr(&nic, &m, NULL) != SNIC_AQ_OK;
}

static bool snic_spin_image(uint64_t a)
{
	struct snic_aq_spin_mem m = { .host_addr = a, .len = 256,
				      .mem = SNIC_SPIN_MEM_PROG };

	return snic_raw(SNIC_AQ_SPIN_WRITE_MEM, &m, sizeof(m)) != SNIC_AQ_OK;
}

/* IDENTIFY into RAM: the admin queue works and answers the truth. */
static bool snic_works(void)
{
	struct snic_identify_data id;

	if (!snic_reset(&nic) || !snic_aq_ready(&nic, 16))
		return false;
	memset(&id, 0, sizeof(id));
	return snic_identify(&nic, &id) == SNIC_AQ_OK &&
	       id.magic == SNIC_ID_MAGIC;
}

/* ---- hdc: one command, its completion status ---- */

static int hdc_run(struct hdc_cmd *c)
{
	struct hdc_cpl cpl;
	int i;

	c->cmd_id = 0x77;
	qt_memwrite(qt, HDC_CMDQ + hdc_tail * sizeof(*c), c, sizeof(*c));
	hdc_tail = (hdc_tail + 1) % HDC_QUEUE_DEPTH;
	hdc_wr(HDC_REG_CMDQ_TAIL, hdc_tail);
	for (i = 0; i < 1000; i++) {
		qt_memread(qt, HDC_CPLQ + hdc_head * sizeof(cpl), &cpl,
			   sizeof(cpl));
		if ((cpl.flags & HDC_CPL_PHASE) == hdc_phase) {
			hdc_head = (hdc_head + 1) % HDC_QUEUE_DEPTH;
			if (!hdc_head)
				hdc_phase ^= 1;
			hdc_wr(HDC_REG_CPLQ_HEAD, hdc_head);
			return cpl.status;
		}
		qt_clock_step(qt, 100000);
	}
	return -1;
}

static int hdc_xfer(uint64_t src, uint64_t dst, uint64_t aux)
{
	struct hdc_cmd c = { .opcode = HDC_OP_TRANSFER, .length = 256,
			     .src = { .type = HDC_EP_HOST, .count = 256,
				      .addr = src },
			     .dst = { .type = HDC_EP_HOST, .count = 256,
				      .addr = dst } };

	if (aux) {
		c.nfuncs = 1;
		c.funcs[0] = HDC_FN_CRC32C;
		c.aux_addr = aux;
	}
	return hdc_run(&c);
}

static bool hdc_err_after(uint32_t errs0)
{
	return hdc_rd(HDC_REG_ERROR_COUNT) > errs0 ||
	       hdc_rd(HDC_REG_STAT_DMA_ERRS) > 0;
}

static bool hdc_cmdq(uint64_t a)
{
	uint32_t errs0 = hdc_rd(HDC_REG_ERROR_COUNT);

	if (!hdc_queue(a, HDC_CPLQ))
		return hdc_err_after(errs0);
	hdc_wr(HDC_REG_CMDQ_TAIL, 1);
	qt_clock_step(qt, 1000000);
	return hdc_err_after(errs0);
}

static bool hdc_cplq(uint64_t a)
{
	struct hdc_cmd c = { .opcode = HDC_OP_NOP };
	uint32_t errs0 = hdc_rd(HDC_REG_ERROR_COUNT);

	if (!hdc_queue(HDC_CMDQ, a))
		return hdc_err_after(errs0);
	qt_memwrite(qt, HDC_CMDQ, &c, sizeof(c));
	hdc_wr(HDC_REG_CMDQ_TAIL, 1);
	qt_clock_step(qt, 1000000);
	return hdc_err_after(errs0);
}

static bool hdc_src(uint64_t a)
{
	return hdc_xfer(a, HDC_DST, 0) == HDC_ST_EDMA;
}

static bool hdc_dst(uint64_t a)
{
	return hdc_xfer(HDC_SRC, a, 0) == HDC_ST_EDMA;
}

static bool hdc_aux(uint64_t a)
{
	return hdc_xfer(HDC_SRC, HDC_DST, a) == HDC_ST_EDMA;
}

/* A queue in RAM and a host-to-host transfer that completes OK. */
static bool hdc_works(void)
{
	return hdc_queue(HDC_CMDQ, HDC_CPLQ) &&
	       hdc_xfer(HDC_SRC, HDC_DST, 0) == HDC_ST_OK;
}

/* ---- the table ---- */

struct dma_field {
	const char *name;
	enum dev dev;
	/* Use @addr for the field; true if the device reported an error. */
	bool (*aim)(uint64_t addr);
	/* Alignment the field must have: a misaligned one is refused first. */
	uint64_t align;
};

static const struct dma_field fields[] = {
	{ "snic_aq_sq_base", SNIC, snic_aq_sq, SNIC_AQ_ALIGN },
	{ "snic_aq_cq_base", SNIC, snic_aq_cq, SNIC_AQ_ALIGN },
	{ "snic_identify_buf", SNIC, snic_identify_buf, 1 },
	{ "snic_query_stats_buf", SNIC, snic_stats_buf, 1 },
	{ "snic_eq_ring", SNIC, snic_eq_ring, SNIC_RING_ALIGN },
	{ "snic_cq_ring", SNIC, snic_cq_ring, SNIC_RING_ALIGN },
	{ "snic_cq_dbr", SNIC, snic_cq_dbr, 4 },
	{ "snic_sq_ring", SNIC, snic_sq_ring, SNIC_RING_ALIGN },
	{ "snic_sq_dbr", SNIC, snic_sq_dbr, 4 },
	{ "snic_rq_ring", SNIC, snic_rq_ring, SNIC_RING_ALIGN },
	{ "snic_rq_dbr", SNIC, snic_rq_dbr, 4 },
	{ "snic_mr_page_list", SNIC, snic_mr_pages, 1 },
	{ "snic_spin_image", SNIC, snic_spin_image, 1 },
	{ "hdc_cmdq_base", HDC, hdc_cmdq, sizeof(struct hdc_cmd) },
	{ "hdc_cplq_base", HDC, hdc_cplq, sizeof(struct hdc_cmd) },
	{ "hdc_src_buf", HDC, hdc_src, 1 },
	{ "hdc_dst_buf", HDC, hdc_dst, 1 },
	{ "hdc_aux", HDC, hdc_aux, 1 },
};

struct dma_target {
	const char *name;
	enum dev dev;
	uint64_t addr;
};

static const struct dma_target targets[] = {
	{ "snic_bar0", SNIC, SNIC_BAR },
	{ "snic_bar0_ctrl", SNIC, SNIC_BAR + SNIC_REG_CTRL },
	{ "snic_bar2", SNIC, SNIC_BAR + 0x100000 },
	{ "snic_bar4", SNIC, SNIC_BAR + 0x200000 },
	{ "hdc_bar0", HDC, HDC_BAR0 },
	{ "hdc_bar0_ctrl", HDC, HDC_BAR0 + HDC_REG_CTRL },
	{ "hdc_bar2", HDC, HDC_BAR2 },
	{ "hdc_bar4", HDC, HDC_BAR4 },
	{ "fld_bar0", FLD, FLD_BAR0 },
	{ "fld_bar0_ctrl", FLD, FLD_BAR0 + FLD_REG_CTRL },
	{ "fld_bar2", FLD, FLD_BAR2 },
	{ "fld_bar4", FLD, FLD_BAR4 },
};

static bool (*const works[NDEV])(void) = { snic_works, hdc_works, NULL };

static const struct dma_field *cur_f;
static const struct dma_target *cur_t;

static void one_case(void)
{
	const struct dma_field *f = cur_f;
	const struct dma_target *t = cur_t;
	bool self = f->dev == t->dev, reported;
	uint64_t before;

	CHECK(env_start());
	before = self_dma(f->dev);
	reported = f->aim(t->addr);
	if (!qt_alive(qt)) {
		check_fail(__FILE__, __LINE__, "QEMU died (%s into %s)",
			   f->name, t->name);
		return;
	}
	if (self) {
		/* refused: by the DMA check, or misaligned before any DMA */
		CHECK(before != ~0ull);
		if (t->addr % f->align == 0)
			CHECK(self_dma(f->dev) > before);
		CHECK(reported);
	}
	CHECK(works[f->dev]());
	/* the peers still answer */
	CHECK_EQ(snic_rd(&nic, SNIC_REG_ID), SNIC_ID_MAGIC);
	CHECK_EQ(hdc_rd(HDC_REG_ID), HDC_ID_MAGIC);
	CHECK_EQ(qt_readl(qt, FLD_BAR0 + FLD_REG_ID), FLD_ID_MAGIC);
}

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	size_t i, j;
	char name[128];

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		for (j = 0; j < sizeof(targets) / sizeof(targets[0]); j++) {
			cur_f = &fields[i];
			cur_t = &targets[j];
			snprintf(name, sizeof(name), "device/dma_targets/%s->%s",
				 cur_f->name, cur_t->name);
			if (only && !strstr(name, only))
				continue;
			check_run(name, one_case);
		}
	}
	qt_quit(qt);
	return check_failures ? 1 : 0;
}
