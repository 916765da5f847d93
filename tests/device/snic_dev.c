/*
 * snic device-tier helpers (see snic_dev.h).
 */
#include <string.h>
#include "snic_dev.h"

#define AQ_POLLS	200

bool snic_dev_open(struct snic_dev *d, struct qt *qt, int nth,
		   uint64_t bar_base, uint64_t ram_base)
{
	memset(d, 0, sizeof(*d));
	d->qt = qt;
	d->devfn = qt_pci_find(qt, SNIC_PCI_VENDOR_ID, SNIC_PCI_DEVICE_ID, nth);
	if (d->devfn < 0)
		return false;
	d->bar0 = bar_base;
	d->bar2 = bar_base + 0x100000;
	d->bar4 = bar_base + 0x200000;
	d->aq_sq = ram_base;
	d->aq_cq = ram_base + 0x10000;
	d->scratch = ram_base + 0x20000;
	qt_pci_map_bar(qt, d->devfn, SNIC_BAR_REGS, d->bar0);
	qt_pci_map_bar(qt, d->devfn, SNIC_BAR_DB, d->bar2);
	qt_pci_map_bar(qt, d->devfn, SNIC_BAR_MSIX, d->bar4);
	qt_pci_enable(qt, d->devfn);
	return true;
}

void snic_dev_msix(struct snic_dev *d, int vec, uint64_t addr, uint32_t data)
{
	qt_pci_msix_setup(d->qt, d->devfn, d->bar4, vec, addr, data);
}

uint32_t snic_rd(struct snic_dev *d, uint32_t reg)
{
	return qt_readl(d->qt, d->bar0 + reg);
}

void snic_wr(struct snic_dev *d, uint32_t reg, uint32_t val)
{
	qt_writel(d->qt, d->bar0 + reg, val);
}

void snic_db(struct snic_dev *d, uint32_t page, uint32_t off, uint32_t qn,
	     uint32_t ctr)
{
	qt_writel(d->qt, d->bar2 + (uint64_t)page * SNIC_DB_PAGE_SIZE + off,
		  SNIC_DB_VAL(qn, ctr));
}

bool snic_reset(struct snic_dev *d)
{
	int i;

	snic_wr(d, SNIC_REG_CTRL, SNIC_CTRL_RESET);
	snic_wr(d, SNIC_REG_CTRL, 0);
	for (i = 0; i < 100; i++)
		if (snic_rd(d, SNIC_REG_STATUS) & SNIC_STATUS_READY)
			return true;
	return false;
}

void snic_aq_config(struct snic_dev *d, uint64_t sq, uint64_t cq,
		    uint32_t depth)
{
	snic_wr(d, SNIC_REG_CTRL, 0);
	snic_wr(d, SNIC_REG_AQ_SQ_BASE_LO, (uint32_t)sq);
	snic_wr(d, SNIC_REG_AQ_SQ_BASE_HI, sq >> 32);
	snic_wr(d, SNIC_REG_AQ_CQ_BASE_LO, (uint32_t)cq);
	snic_wr(d, SNIC_REG_AQ_CQ_BASE_HI, cq >> 32);
	snic_wr(d, SNIC_REG_AQ_DEPTH, depth);
	snic_wr(d, SNIC_REG_AQ_MSIX, 0);
	snic_wr(d, SNIC_REG_CTRL, SNIC_CTRL_AQ_ENABLE);
}

bool snic_aq_ready(struct snic_dev *d, uint32_t depth)
{
	qt_memset(d->qt, d->aq_sq, 0, depth * sizeof(struct snic_aq_cmd));
	qt_memset(d->qt, d->aq_cq, 0, depth * sizeof(struct snic_aq_cqe));
	snic_aq_config(d, d->aq_sq, d->aq_cq, depth);
	d->aq_depth = depth;
	d->aq_tail = 0;
	d->aq_head = 0;
	d->aq_phase = 1;
	return snic_rd(d, SNIC_REG_STATUS) & SNIC_STATUS_AQ_ENABLED;
}

void snic_aq_post(struct snic_dev *d, const struct snic_aq_cmd *cmd)
{
	qt_memwrite(d->qt, d->aq_sq + d->aq_tail * sizeof(*cmd), cmd,
		    sizeof(*cmd));
	d->aq_tail = (d->aq_tail + 1) % d->aq_depth;
	snic_wr(d, SNIC_REG_AQ_SQ_TAIL, d->aq_tail);
}

bool snic_aq_wait(struct snic_dev *d, uint32_t idx, int phase,
		  struct snic_aq_cqe *cqe)
{
	int i;

	for (i = 0; i < AQ_POLLS; i++) {
		qt_memread(d->qt, d->aq_cq + idx * sizeof(*cqe), cqe,
			   sizeof(*cqe));
		if ((int)(cqe->flags & SNIC_AQ_CQE_PHASE) == phase)
			return true;
		if (d->timed)
			qt_clock_step_next(d->qt);
	}
	return false;
}

int snic_aq_exec(struct snic_dev *d, struct snic_aq_cmd *cmd,
		 uint64_t *result)
{
	struct snic_aq_cqe cqe;

	cmd->cmd_id = ++d->cmd_id;
	snic_aq_post(d, cmd);
	if (!snic_aq_wait(d, d->aq_head, d->aq_phase, &cqe))
		return -1;
	d->aq_head = (d->aq_head + 1) % d->aq_depth;
	if (d->aq_head == 0)
		d->aq_phase ^= 1;
	snic_wr(d, SNIC_REG_AQ_CQ_HEAD, d->aq_head);
	if (cqe.cmd_id != cmd->cmd_id)
		return -1;
	if (result)
		*result = cqe.result;
	return cqe.status;
}

int snic_aq_cmd(struct snic_dev *d, uint8_t opcode, const void *p, size_t len,
		uint64_t *result)
{
	struct snic_aq_cmd cmd = { .opcode = opcode };

	if (len > sizeof(cmd.raw))
		len = sizeof(cmd.raw);
	if (p)
		memcpy(cmd.raw, p, len);
	return snic_aq_exec(d, &cmd, result);
}

int snic_aq_obj(struct snic_dev *d, uint8_t opcode, uint32_t id)
{
	struct snic_aq_obj o = { .id = id };

	return snic_aq_cmd(d, opcode, &o, sizeof(o), NULL);
}

int snic_aq_buf(struct snic_dev *d, uint8_t opcode, const void *in,
		size_t in_len, uint32_t buf_len, uint32_t id, uint32_t kind,
		void *out, size_t out_len, uint64_t *result)
{
	struct snic_aq_cmd cmd = { .opcode = opcode };
	int st;

	if (in && in_len)
		qt_memwrite(d->qt, d->scratch, in, in_len);
	cmd.buf.addr = d->scratch;
	cmd.buf.len = buf_len;
	cmd.buf.id = id;
	cmd.buf.kind = kind;
	st = snic_aq_exec(d, &cmd, result);
	if (out && out_len)
		qt_memread(d->qt, d->scratch, out, out_len);
	return st;
}

int snic_set_port(struct snic_dev *d, uint32_t flags, uint16_t mtu,
		  const uint8_t (*macs)[6], int nmacs, uint16_t async_eqn)
{
	struct snic_port_cfg c;
	int i;

	memset(&c, 0, sizeof(c));
	c.flags = flags;
	c.mtu = mtu;
	c.num_macs = nmacs;
	c.async_eqn = async_eqn;
	for (i = 0; i < nmacs && i < SNIC_MAX_MACS; i++)
		memcpy(c.macs[i], macs[i], 6);
	return snic_aq_buf(d, SNIC_AQ_SET_PORT, &c, sizeof(c), sizeof(c), 0, 0,
			   NULL, 0, NULL);
}

int snic_identify(struct snic_dev *d, struct snic_identify_data *id)
{
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_IDENTIFY };
	int st;

	qt_memset(d->qt, d->scratch, 0, sizeof(*id));
	cmd.identify.buf_addr = d->scratch;
	cmd.identify.buf_len = sizeof(*id);
	st = snic_aq_exec(d, &cmd, NULL);
	qt_memread(d->qt, d->scratch, id, sizeof(*id));
	return st;
}

int snic_query_stats(struct snic_dev *d, uint32_t kind, uint32_t id,
		     void *out, size_t len)
{
	qt_memset(d->qt, d->scratch, 0xa5, len);
	return snic_aq_buf(d, SNIC_AQ_QUERY_STATS, NULL, 0, len, id, kind,
			   out, len, NULL);
}

int snic_rdma_create_mr(struct snic_dev *d, const struct snic_mr_cfg *cfg,
			uint32_t *key)
{
	uint64_t res = ~0ull;
	int st = snic_aq_buf(d, SNIC_AQ_CREATE_MR, cfg, sizeof(*cfg),
			     sizeof(*cfg), 0, 0, NULL, 0, &res);

	if (key)
		*key = res;
	return st;
}

int snic_rdma_modify_qp(struct snic_dev *d, uint32_t qpn,
			const struct snic_qp_attr *a)
{
	return snic_aq_buf(d, SNIC_AQ_MODIFY_QP, a, sizeof(*a), sizeof(*a), qpn,
			   0, NULL, 0, NULL);
}

int snic_rdma_query_qp(struct snic_dev *d, uint32_t qpn,
		       struct snic_qp_attr *a)
{
	qt_memset(d->qt, d->scratch, 0xa5, sizeof(*a));
	return snic_aq_buf(d, SNIC_AQ_QUERY_QP, NULL, 0, sizeof(*a), qpn, 0, a,
			   sizeof(*a), NULL);
}
