/*
 * snic device-tier helpers shared by the qtest programs: find and map one
 * snic function, its BAR0 registers and BAR2 doorbell pages, and drive its
 * admin queue (raw ring access for the admin-queue tests, and a blocking
 * "execute one command" for everything built on top).
 */
#ifndef D2D_SNIC_DEV_H
#define D2D_SNIC_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "qtest.h"
#include "d2d/snic_ifc.h"
#include "d2d/snic_rdma_ifc.h"

struct snic_dev {
	struct qt *qt;
	int devfn;
	uint64_t bar0, bar2, bar4;
	/* Guest RAM used by the helpers: admin rings and a scratch buffer. */
	uint64_t aq_sq, aq_cq, scratch;
	uint32_t aq_depth;
	uint32_t aq_tail;	/* next command slot */
	uint32_t aq_head;	/* next completion slot */
	int aq_phase;		/* phase expected at aq_head */
	uint16_t cmd_id;
	/*
	 * Timing mode (docs/timing.md): completions come on the virtual
	 * clock, so the admin helpers step it while they wait.
	 */
	bool timed;
};

/* RAM the helpers use from @ram_base on. */
#define SNIC_DEV_RAM_SIZE	0x40000
#define SNIC_DEV_SCRATCH_SIZE	0x20000

/*
 * Find the @nth snic, map BAR0, BAR2 and BAR4 at @bar_base + 0, 1 and 2 MiB
 * and enable memory decoding and bus mastering.  Admin rings and the
 * scratch buffer go at @ram_base (SNIC_DEV_RAM_SIZE bytes).
 */
bool snic_dev_open(struct snic_dev *d, struct qt *qt, int nth,
		   uint64_t bar_base, uint64_t ram_base);
/* MSI-X vector @vec writes @data at guest RAM @addr. */
void snic_dev_msix(struct snic_dev *d, int vec, uint64_t addr, uint32_t data);

uint32_t snic_rd(struct snic_dev *d, uint32_t reg);
void snic_wr(struct snic_dev *d, uint32_t reg, uint32_t val);
/* Doorbell: SNIC_DB_VAL(@qn, @ctr) at offset @off of BAR2 page @page. */
void snic_db(struct snic_dev *d, uint32_t page, uint32_t off, uint32_t qn,
	     uint32_t ctr);
/* CTRL.RESET, then out of reset; true when READY again. */
bool snic_reset(struct snic_dev *d);

/* ---- admin queue, raw ---- */
void snic_aq_config(struct snic_dev *d, uint64_t sq, uint64_t cq,
		    uint32_t depth);
/* Zero the rings at aq_sq/aq_cq, configure @depth entries, enable. */
bool snic_aq_ready(struct snic_dev *d, uint32_t depth);
/* Write @cmd at the tail and ring the admin doorbell. */
void snic_aq_post(struct snic_dev *d, const struct snic_aq_cmd *cmd);
/* Poll completion slot @idx until its phase is @phase. */
bool snic_aq_wait(struct snic_dev *d, uint32_t idx, int phase,
		  struct snic_aq_cqe *cqe);

/* ---- admin queue, one command at a time ---- */
/*
 * Post @cmd (cmd_id assigned), wait for its completion, consume it.
 * Returns the completion status, or -1 if none came; *result if non-NULL.
 */
int snic_aq_exec(struct snic_dev *d, struct snic_aq_cmd *cmd,
		 uint64_t *result);
/* Command @opcode with @len bytes of payload @p (struct snic_aq_create_*). */
int snic_aq_cmd(struct snic_dev *d, uint8_t opcode, const void *p, size_t len,
		uint64_t *result);
/* Destroy-style command naming object @id. */
int snic_aq_obj(struct snic_dev *d, uint8_t opcode, uint32_t id);
/*
 * Buffer command: @in (@in_len bytes) is copied to the scratch buffer, the
 * command names it with length @buf_len, @id and @kind; afterwards
 * @out_len bytes of the buffer are copied to @out.
 */
int snic_aq_buf(struct snic_dev *d, uint8_t opcode, const void *in,
		size_t in_len, uint32_t buf_len, uint32_t id, uint32_t kind,
		void *out, size_t out_len, uint64_t *result);
/* SET_PORT: @flags (SNIC_PORT_F_*), @mtu, @nmacs MACs, async EQ. */
int snic_set_port(struct snic_dev *d, uint32_t flags, uint16_t mtu,
		  const uint8_t (*macs)[6], int nmacs, uint16_t async_eqn);
int snic_identify(struct snic_dev *d, struct snic_identify_data *id);
int snic_query_stats(struct snic_dev *d, uint32_t kind, uint32_t id,
		     void *out, size_t len);

/* ---- RDMA objects (docs/snic-rdma.md) ---- */
int snic_rdma_create_mr(struct snic_dev *d, const struct snic_mr_cfg *cfg,
			uint32_t *key);
int snic_rdma_modify_qp(struct snic_dev *d, uint32_t qpn,
			const struct snic_qp_attr *a);
int snic_rdma_query_qp(struct snic_dev *d, uint32_t qpn,
		       struct snic_qp_attr *a);

#endif
