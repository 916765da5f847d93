/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * snic sPIN engine device interface: admin commands (handler memory,
 * execution contexts, host DMA regions), the context configuration, the
 * event ring entry, statistics and the modeled costs.  What a handler sees
 * on its HPU is in <d2d/snic_spin_hpu.h>, included here.
 *
 * Extends <d2d/snic_ifc.h>; one definition shared by the QEMU model,
 * snic.ko, spinctl and the tests.  docs/snic-spin.md describes every
 * field.  Little endian.
 */
#ifndef _D2D_SNIC_SPIN_IFC_H
#define _D2D_SNIC_SPIN_IFC_H

#include <linux/types.h>
#include <d2d/snic_ifc.h>
#include <d2d/snic_spin_hpu.h>
/* memories, region flags, the event ring entry, the statistics */
#include <d2d/snic_spin_ioctl.h>

#define SNIC_CAP_SPIN		(1ull << 10)	/* sPIN engine */

/* Admin opcodes 0x50..0x6f */
enum snic_aq_spin_opcode {
	SNIC_AQ_SPIN_WRITE_MEM	= 0x50,	/* spin_mem: host buffer -> device memory */
	SNIC_AQ_SPIN_READ_MEM	= 0x51,	/* spin_mem: device memory -> host buffer */
	SNIC_AQ_SPIN_CREATE_CTX	= 0x52,	/* buf: struct snic_spin_ctx_cfg; result: ctx */
	SNIC_AQ_SPIN_DESTROY_CTX = 0x53,	/* obj: ctx */
	SNIC_AQ_SPIN_ADD_REGION	= 0x54,	/* spin_region; result: region index */
	SNIC_AQ_SPIN_DEL_REGION	= 0x55,	/* spin_region: ctx, index */
	SNIC_AQ_SPIN_ATTACH_QP	= 0x56,	/* spin_attach_qp: ctx to an RC QP */
	SNIC_AQ_SPIN_REG_OPCODE	= 0x57,	/* spin_reg_opcode: custom opcode handler */
};

/* Geometry */
#define SNIC_SPIN_PMEM_SIZE	0x100000	/* program memory, 1 MiB */
#define SNIC_SPIN_L2H_SIZE	0x400000	/* L2 handler memory, 4 MiB */
#define SNIC_SPIN_L2P_SIZE	0x400000	/* L2 packet buffer, 4 MiB */
#define SNIC_SPIN_L1_SIZE	0x100000	/* L1 per cluster, 1 MiB */
#define SNIC_SPIN_MSG_SLOTS	64	/* open messages per cluster */
#define SNIC_SPIN_MAX_CTXS	64
#define SNIC_SPIN_MAX_REGIONS	8	/* host DMA regions per context */
#define SNIC_SPIN_MAX_CLUSTERS	16
#define SNIC_SPIN_MAX_HPUS	16	/* per cluster */
#define SNIC_SPIN_DEF_CLUSTERS	4
#define SNIC_SPIN_DEF_HPUS	8
#define SNIC_SPIN_DEF_CLOCK_MHZ	1000
#define SNIC_SPIN_WATCHDOG_DEF	100000	/* cycles per invocation */
#define SNIC_SPIN_WATCHDOG_MAX	10000000
/*
 * Contexts on an RDMA QP run their handlers inside the device's receive
 * path (the handler's fate decides the ACK), so their watchdog is capped:
 * CREATE_CTX with SNIC_SPIN_MATCH_QP or ATTACH_QP of a context whose
 * watchdog is larger answers SNIC_AQ_EINVAL_PARAM (counted).
 */
#define SNIC_SPIN_WATCHDOG_QP_MAX	200000
#define SNIC_SPIN_TIMEOUT_DEF_US	10000	/* message inactivity */
#define SNIC_SPIN_MIN_LOG_EV	1
#define SNIC_SPIN_MAX_LOG_EV	12

/*
 * Modeled cycle costs: every instruction costs SNIC_SPIN_COST_INSN; a load
 * or store to L2 (handler memory, packet buffer) adds SNIC_SPIN_COST_L2, to
 * program memory SNIC_SPIN_COST_PMEM, to the command unit
 * SNIC_SPIN_COST_CMD.  Commands complete asynchronously after their cost;
 * DMA adds len / SNIC_SPIN_DMA_BYTES_PER_CYCLE.  Each invocation costs
 * SNIC_SPIN_COST_DISPATCH on its HPU before the first instruction.
 */
#define SNIC_SPIN_COST_INSN	1
#define SNIC_SPIN_COST_L2	4
#define SNIC_SPIN_COST_PMEM	2
#define SNIC_SPIN_COST_CMD	2
#define SNIC_SPIN_COST_DISPATCH	4
#define SNIC_SPIN_COST_DMA_READ	500	/* host read round trip */
#define SNIC_SPIN_COST_DMA_WRITE	100	/* posted host write */
#define SNIC_SPIN_COST_SEND	50
#define SNIC_SPIN_COST_HOST_WRITE	50
#define SNIC_SPIN_COST_ATOMIC	10
#define SNIC_SPIN_DMA_BYTES_PER_CYCLE	32

struct snic_aq_spin_mem {
	__le64 host_addr;	/* bus address of the host buffer */
	__le32 len;		/* bytes, 1..the memory's size */
	__le32 offset;		/* in the device memory */
	__u8 mem;		/* SNIC_SPIN_MEM_* */
	__u8 rsvd[7];
};

struct snic_aq_spin_region {
	__le64 addr;		/* bus address */
	__le64 len;
	__le32 ctx;
	__le32 flags;		/* SNIC_SPIN_REGION_*; DEL_REGION: unused */
	__le32 index;		/* DEL_REGION: the region */
	__le32 rsvd;
};

/* Which packets reach the context */
#define SNIC_SPIN_MATCH_STEER	0	/* steering rules with SNIC_DEST_SPIN */
#define SNIC_SPIN_MATCH_QP	1	/* an RDMA RC QP (match_id = qpn) */

/*
 * ATTACH_QP: RDMA SEND and WRITE requests arriving on RC QP qpn become
 * messages of context ctx (one context per QP, one QP per context);
 * qpn = SNIC_SPIN_QPN_NONE detaches ctx from its QP.
 */
#define SNIC_SPIN_QPN_NONE	0xffffffff

struct snic_aq_spin_attach_qp {
	__le32 ctx;
	__le32 qpn;		/* RC QP, or SNIC_SPIN_QPN_NONE */
	__le32 rsvd[2];
};

/*
 * REG_OPCODE: custom RoCE opcode @opcode (SNIC_CUSTOM_OP_FIRST..LAST) of
 * the context's QP runs the handler at @entry (an HPU address in the code
 * window); entry 0 unregisters it.  docs/snic-spin.md "Offload engine".
 */
struct snic_aq_spin_reg_opcode {
	__le32 ctx;
	__le32 opcode;
	__le32 entry;
	__le32 rsvd;
};

/* CREATE_CTX input buffer, 128 bytes */
/*
 * snic_spin_ctx_cfg.flags: SNIC_SPIN_CFG_F_NO_SEND - the context's handlers
 * may not put frames on the wire: SPIN_CMD_SEND aborts the handler with
 * SNIC_SPIN_EV_CMD_FAULT.  Other bits: SNIC_AQ_EINVAL_PARAM.
 */
#define SNIC_SPIN_CFG_F_NO_SEND	0x1

struct snic_spin_ctx_cfg {
	__le32 entry[SPIN_NUM_HANDLERS];	/* HPU addresses, 0: none */
	__le32 code_off;	/* code window in program memory */
	__le32 code_size;
	__le32 hmem_off;	/* handler-memory window in L2 */
	__le32 hmem_size;
	__le32 scratch_size;	/* per-message L1 scratch, 0..SPIN_SCRATCH_MAX */
	__le32 copy_bytes;	/* packet bytes copied to L1, 0..SPIN_PKT_MAX */
	__le32 watchdog;	/* cycles per invocation, 0: default */
	__le32 timeout_us;	/* message inactivity, 0: default */
	__le32 match;		/* SNIC_SPIN_MATCH_* */
	__le32 match_id;	/* MATCH_QP: qpn */
	__le32 flags;		/* SNIC_SPIN_CFG_F_* */
	__le64 ev_ring;		/* event ring bus address, 32-byte entries */
	__le64 ev_dbr;		/* le32 consumer counter written by the host */
	__u8 ev_log_size;	/* SNIC_SPIN_MIN_LOG_EV..SNIC_SPIN_MAX_LOG_EV */
	__u8 rsvd1;
	__le16 ev_eqn;		/* EQ for SNIC_EQE_SPIN_EVENT, SNIC_EQN_NONE */
	__u8 rsvd2[52];
};

#define SNIC_EQE_SPIN_EVENT	0x20	/* obj: ctx, data: event counter */

/* QUERY_STATS kinds */
#define SNIC_STATS_SPIN		8	/* struct snic_spin_ctx_stats, id: ctx */
#define SNIC_STATS_SPIN_DEV	9	/* struct snic_spin_dev_stats */

#endif /* _D2D_SNIC_SPIN_IFC_H */
