/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * fld (FlexDriver) device interface: PCI identity, BAR0 registers and
 * commands, the BAR2 window map the NIC reaches over peer-to-peer PCIe,
 * the internal descriptor and compressed CQE forms, statistics and the
 * memory table.
 *
 * One definition shared by the QEMU model (qemu-devices/fld), the driver
 * (kernel/fld), fldctl and the tests; docs/fld.md describes every field
 * and tests/unit/test_fld_doc checks the document's tables against it.
 * All multi-byte fields are little endian.
 */
#ifndef _UAPI_D2D_FLD_IF_H
#define _UAPI_D2D_FLD_IF_H

#include <linux/types.h>

#define FLD_PCI_VENDOR_ID	0x1234
#define FLD_PCI_DEVICE_ID	0xd202

#define FLD_BAR_REGS		0	/* registers */
#define FLD_BAR_WIN		2	/* NIC-facing windows */
#define FLD_BAR_MSIX		4
#define FLD_REGS_SIZE		0x1000
#define FLD_NUM_MSIX		4

#define FLD_ID_MAGIC		0x30444c46	/* "FLD0" */
#define FLD_VERSION_MAJOR	0
#define FLD_VERSION_MINOR	1
#define FLD_VERSION		((FLD_VERSION_MAJOR << 16) | FLD_VERSION_MINOR)

/* ---- BAR0 registers, 32 bit ---- */
#define FLD_REG_ID		0x000	/* RO: FLD_ID_MAGIC */
#define FLD_REG_VERSION		0x004	/* RO */
#define FLD_REG_CAPS		0x008	/* RO: FLD_CAP_* */
#define FLD_REG_ACCEL		0x00c	/* RO: enum fld_accel of this instance */
#define FLD_REG_CTRL		0x010	/* RW: FLD_CTRL_* */
#define FLD_REG_STATUS		0x014	/* RO: FLD_STATUS_* */
#define FLD_REG_ERROR		0x018	/* RW: last enum fld_err, write 0 clears */
#define FLD_REG_ERROR_COUNT	0x01c	/* RO */
#define FLD_REG_ERR_MSIX	0x020	/* RW: vector for error interrupts */
#define FLD_REG_ERR_INFO	0x024	/* RO: detail of the last error */
#define FLD_REG_CMD		0x040	/* WO: enum fld_cmd, runs at once */
#define FLD_REG_CMD_STATUS	0x044	/* RO: enum fld_cmd_status */
#define FLD_REG_CMD_RESULT	0x048	/* RO */
#define FLD_REG_CMD_ARG0	0x050	/* RW: 8 arguments, 4 bytes apart */
#define FLD_CMD_NARGS		8
#define FLD_REG_WIN_SIZE	0x080	/* RO: BAR2 bytes */
#define FLD_REG_MAX_SQS		0x084	/* RO */
#define FLD_REG_MAX_CQS		0x088	/* RO */
#define FLD_REG_MAX_RQS		0x08c	/* RO */
#define FLD_REG_POOL_DESCS	0x090	/* RO: descriptor pool slots */
#define FLD_REG_POOL_BLOCKS	0x094	/* RO: TX buffer pool blocks */
#define FLD_REG_BLOCK_SIZE	0x098	/* RO: TX buffer block bytes */
#define FLD_REG_POOL_IN_USE	0x09c	/* RO: descriptors posted, not completed */
#define FLD_REG_BLOCKS_IN_USE	0x0a0	/* RO */
#define FLD_REG_UNIX_TIME	0x0a4	/* RW: Unix seconds (iotauth exp), 0: unset */
#define FLD_REG_SQ_SEL		0x0a8	/* RW: SQ slot the two credit registers show */
#define FLD_REG_SQ_CREDIT_DESCS	0x0ac	/* RO: its free ring slots (0: slot unused) */
#define FLD_REG_SQ_CREDIT_BYTES	0x0b0	/* RO: its buffer bytes left under its quota */
#define FLD_REG_STATS		0x400	/* RO: 64-bit counters, enum fld_stat */
#define FLD_REG_MEM		0x800	/* RO: memory table, 32 bytes a row */
#define FLD_MEM_ROW_SIZE	32

/* Capabilities: the accelerators this model implements. */
#define FLD_CAP_ECHO		(1u << 0)
#define FLD_CAP_ZUC		(1u << 1)
#define FLD_CAP_DEFRAG		(1u << 2)
#define FLD_CAP_IOTAUTH		(1u << 3)
#define FLD_CAP_STRIDING_RQ	(1u << 8)
#define FLD_CAP_RDMA		(1u << 9)	/* FLD-R: RC QP slots (zuc) */

enum fld_accel {
	FLD_ACCEL_NONE		= 0,
	FLD_ACCEL_ECHO		= 1,
	FLD_ACCEL_ZUC		= 2,
	FLD_ACCEL_DEFRAG	= 3,
	FLD_ACCEL_IOTAUTH	= 4,
};

#define FLD_CTRL_RESET		(1u << 0)	/* held: queues gone, stats 0 */
#define FLD_CTRL_ENABLE		(1u << 1)	/* data plane runs */
#define FLD_STATUS_READY	(1u << 0)
#define FLD_STATUS_ENABLED	(1u << 1)

enum fld_err {
	FLD_ERR_NONE		= 0,
	FLD_ERR_BAD_REG		= 1,	/* undefined / read-only register */
	FLD_ERR_BAD_CMD		= 2,	/* command refused, see CMD_STATUS */
	FLD_ERR_WIN_READ	= 3,	/* NIC read outside a configured window */
	FLD_ERR_WIN_WRITE	= 4,	/* NIC write outside a configured window */
	FLD_ERR_WQE_MISS	= 5,	/* NIC read a send slot with no descriptor */
	FLD_ERR_CQE_QUEUE	= 6,	/* CQE names a queue FLD does not know */
	FLD_ERR_DMA		= 7,	/* FLD's doorbell write to the NIC failed */
	FLD_ERR_NIC_CQE		= 8,	/* the NIC completed with an error */
	FLD_ERR_IN_RESET	= 9,
};

/* ---- Commands: arguments in CMD_ARG0..7, then the opcode in CMD ---- */
enum fld_cmd {
	FLD_CMD_NOP		= 0x00,
	FLD_CMD_SQ_SET		= 0x01,	/* slot, sqn, log_size, cq slot, db lo, db hi, quota */
	FLD_CMD_SQ_CLEAR	= 0x02,	/* slot */
	FLD_CMD_CQ_SET		= 0x03,	/* slot, cqn, log_size */
	FLD_CMD_CQ_CLEAR	= 0x04,	/* slot */
	FLD_CMD_RQ_SET		= 0x05,	/* slot, rqn, log_size, log_stride, log_nstrides, cq slot, db lo, db hi */
	FLD_CMD_RQ_CLEAR	= 0x06,	/* slot */
	FLD_CMD_RQ_ROUTE	= 0x07,	/* rq slot, sq slot for replies */
	FLD_CMD_MEM_PARAMS	= 0x08,	/* gbps, sqs, min, max, lat tx, lat rx, block */
	FLD_CMD_KEY_SET		= 0x09,	/* index, chunk | len << 8, 24 key bytes */
	FLD_CMD_BIND		= 0x0a,	/* kind, slot, NIC queue number, db lo, db hi */
	FLD_CMD_QP_SET		= 0x0b,	/* slot, sq slot, log sq, log rq, cq slot, db page lo, hi, quota */
	FLD_CMD_QP_CLEAR	= 0x0c,	/* slot (and its sq slot) */
	FLD_CMD_PCIE_SET	= 0x0d,	/* tx_signal, flags (FLD_PCIE_F_*) */
};

/*
 * FLD_CMD_PCIE_SET: the PCIe knobs of the Ethernet SQs (docs/fld.md "PCIe
 * efficiency"): signal one WQE in tx_signal (1..FLD_TX_SIGNAL_MAX), and
 * with FLD_PCIE_F_MMIO_WQE ring them with WQE-by-MMIO lines.  Until the
 * next reset, which restores the QEMU properties tx-signal and mmio-wqe.
 */
#define FLD_PCIE_F_MMIO_WQE	(1u << 0)
#define FLD_TX_SIGNAL_MAX	256

/*
 * A slot is set before the NIC queue exists (the NIC probes its ring when
 * it creates it) with queue number FLD_QN_NONE, then bound to the number
 * the NIC gave it (and the doorbell address, if known only then).
 */
#define FLD_QN_NONE		0xffff
enum fld_bind_kind {
	FLD_BIND_SQ		= 0,
	FLD_BIND_RQ		= 1,
	FLD_BIND_CQ		= 2,
	FLD_BIND_QP		= 3,	/* qn: the RC QP's qpn (also its SQ slot's) */
};

/*
 * Accelerator keys (iotauth: the per-tenant HMAC-SHA256 keys, indexed by
 * the NIC's steering flow tag): FLD_CMD_KEY_SET writes chunk c (bytes
 * 24c..24c+23) of key @index and sets its length; length 0 removes it.
 */
#define FLD_NUM_KEYS		256
#define FLD_KEY_MAX		64
#define FLD_KEY_CHUNK		24

/*
 * zuc accelerator requests: a 64-byte header, then the data (EEA3: the
 * ceil(length_bits / 8) bytes to cipher; EIA3: the message).  The answer
 * is the header with status (and mac) filled, then for EEA3 the output.
 * The IV comes from count, bearer and direction as 3GPP defines it.
 */
#define FLD_ZUC_MAGIC		0x3143555a	/* "ZUC1" */
#define FLD_ZUC_HDR_SIZE	64
#define FLD_ZUC_MAX_BITS	65536		/* data per request */

enum fld_zuc_op {
	FLD_ZUC_OP_EEA3		= 1,	/* 128-EEA3 confidentiality */
	FLD_ZUC_OP_EIA3		= 2,	/* 128-EIA3 integrity (MAC) */
};

enum fld_zuc_status {
	FLD_ZUC_OK		= 0,
	FLD_ZUC_EOP		= 1,	/* unknown operation */
	FLD_ZUC_EPARAM		= 2,	/* bearer, direction or length out of range */
	FLD_ZUC_ELEN		= 3,	/* data shorter or longer than length_bits */
	FLD_ZUC_EHDR		= 4,	/* FLD-R: message shorter than the header or bad magic */
};

struct fld_zuc_hdr {
	__le32 magic;		/* FLD_ZUC_MAGIC */
	__u8 op;		/* enum fld_zuc_op */
	__u8 status;		/* answer: enum fld_zuc_status */
	__u8 bearer;		/* 0..31 */
	__u8 direction;		/* 0..1 */
	__le32 count;
	__le32 length_bits;	/* 1..FLD_ZUC_MAX_BITS */
	__le64 request_id;	/* echoed */
	__u8 key[16];		/* CK or IK */
	__le32 mac;		/* answer to EIA3 */
	__u8 rsvd[20];
};

enum fld_cmd_status {
	FLD_CMD_OK		= 0,
	FLD_CMD_EINVAL		= 1,	/* an argument out of range */
	FLD_CMD_EBUSY		= 2,	/* slot in use / still referenced */
	FLD_CMD_ENOENT		= 3,	/* slot not configured */
	FLD_CMD_EOPNOTSUPP	= 4,	/* unknown command */
	FLD_CMD_ESTATE		= 5,	/* device in reset or not enabled */
};

/* ---- BAR2: windows the NIC reaches (docs/fld.md) ---- */
#define FLD_WIN_SIZE		0x2000000	/* 32 MiB */
#define FLD_WIN_SQ		0x0000000	/* send rings, one window per SQ */
#define FLD_SQ_WIN_SIZE		0x10000
#define FLD_MAX_SQS		128
#define FLD_SQ_MAX_LOG		10		/* 1024 basic blocks */
#define FLD_WIN_CQ		0x0800000	/* completion rings */
#define FLD_CQ_WIN_SIZE		0x20000
#define FLD_MAX_CQS		16
#define FLD_CQ_MAX_LOG		11		/* 2048 CQEs */
#define FLD_WIN_DBR		0x0a00000	/* doorbell records, 4 bytes each */
#define FLD_DBR_SQ		0x000		/* + 4 x slot: SQ producer counter */
#define FLD_DBR_CQ		0x200		/* + 4 x slot: CQ consumer counter */
#define FLD_DBR_RQ		0x400		/* + 4 x slot: RQ producer counter */
#define FLD_DBR_SIZE		0x1000
#define FLD_WIN_RXBUF		0x0c00000	/* receive buffers */
#define FLD_RQ_BUF_SIZE		0x80000		/* per RQ slot */
#define FLD_MAX_RQS		8
#define FLD_RQ_MAX_LOG		8		/* 256 descriptors */
#define FLD_RQ_MIN_LOG_STRIDE	6
#define FLD_RQ_MAX_LOG_STRIDE	13
#define FLD_RQ_MAX_LOG_NSTRIDES	8
#define FLD_WIN_TXBUF		0x1000000	/* transmit buffers, one window per SQ */
#define FLD_TXBUF_WIN_SIZE	0x20000
#define FLD_BLOCK_SIZE		256		/* TX buffer translation grain */
#define FLD_WQE_INLINE		26		/* frame bytes inline in an Ethernet WQE */
#define FLD_MAX_FRAME		9018
#define FLD_MAX_FLOW_TAG	0xfff		/* tags the compressed CQE keeps */

/*
 * FLD-R: RC QP slots.  A QP slot pairs an SQ slot (its send ring: the SQ
 * window, WQEs synthesised as RDMA SENDs) with a receive ring FLD
 * synthesises (2^log rq WQEs of 32 bytes: snic_recv_hdr + one data
 * segment naming buffer k of the QP's receive window) and the QP
 * doorbell record at FLD_DBR_QP + 8 x slot (+0 receive producer, +4
 * send producer).
 */
#define FLD_MAX_QPS		8
#define FLD_QP_MAX_LOG		4		/* 16 receive buffers */
#define FLD_QP_RQ_LOG_STRIDE	5		/* 32-byte receive WQEs */
#define FLD_WIN_QP_RQ		0x1800000	/* receive rings, one window per QP */
#define FLD_QP_RQ_WIN_SIZE	0x1000
#define FLD_WIN_QP_BUF		0x1900000	/* receive buffers, one window per QP */
#define FLD_QP_BUF_WIN_SIZE	0x40000
#define FLD_QP_BUF_SIZE		0x2400		/* per receive WQE: 64 + 8192 fits */
#define FLD_DBR_QP		0x800		/* + 8 x slot: QP doorbell record */

/*
 * Internal send descriptor, 8 bytes: what FLD keeps per posted packet.
 * The NIC sees it as a 64-byte WQE (ctrl + eth + one data segment) built
 * when it reads the slot.
 */
struct fld_txd {
	__le16 len;		/* frame bytes */
	__le16 vblock;		/* first block in the SQ's TX buffer window */
	__u8 cs_flags;		/* SNIC_ETH_CS_* */
	__u8 nblocks;		/* blocks the frame spans */
	__u8 flags;		/* FLD_TXD_F_* */
	__u8 rsvd;
};

#define FLD_TXD_F_SIGNAL	0x1	/* its WQE asks for a CQE */

/*
 * Compressed CQE: 15 bytes, 120 bits packed from bit 0 of byte 0 up:
 * opcode 4, syndrome 4, qn 10, wqe_counter 16, byte_cnt 14, flags 11,
 * stride_idx 8, num_strides 9, flow_tag 12, rss_hash 32.
 * RDMA CQEs (SNIC_CQE_REQ/RECV and _ERR) use the same 120 bits: qn holds
 * rdma_qpn, flags rdma_flags, stride_idx wqe_opcode, rss_hash the low 32
 * bits of cookie; error forms keep byte_cnt 0.
 */
#define FLD_CQE_SIZE		15

/* ---- Statistics: 64-bit counters at FLD_REG_STATS + 8 x index ---- */
/*
 * Every counter once, in index order: X(enum name, "name" as the QOM
 * stats read-out, sysfs and fldctl print it).  The enum and every name
 * table are generated from this list; new counters go at the end.
 */
#define FLD_STATS(X) \
	X(FLD_STAT_RX_PACKETS, "rx_packets")		/* frames the NIC delivered into RX windows */ \
	X(FLD_STAT_RX_BYTES, "rx_bytes") \
	X(FLD_STAT_TX_POSTS, "tx_posts")		/* descriptors posted to send queues */ \
	X(FLD_STAT_TX_BYTES, "tx_bytes") \
	X(FLD_STAT_TX_DONE, "tx_done")			/* TX completions that freed a descriptor */ \
	X(FLD_STAT_WQE_READS, "wqe_reads")		/* 64-byte WQEs synthesised for the NIC */ \
	X(FLD_STAT_CQE_WRITES, "cqe_writes")		/* CQEs compressed */ \
	X(FLD_STAT_DBR_READS, "dbr_reads") \
	X(FLD_STAT_TXBUF_READ_BYTES, "txbuf_read_bytes") \
	X(FLD_STAT_RXBUF_WRITE_BYTES, "rxbuf_write_bytes") \
	X(FLD_STAT_BAD_READS, "bad_reads")		/* NIC reads outside any window */ \
	X(FLD_STAT_BAD_WRITES, "bad_writes")		/* NIC writes outside any window */ \
	X(FLD_STAT_WQE_MISSES, "wqe_misses")		/* reads of slots with no descriptor */ \
	X(FLD_STAT_POOL_STALLS, "pool_stalls")		/* posts stalled: descriptor pool full */ \
	X(FLD_STAT_BUF_STALLS, "buf_stalls")		/* posts stalled: buffer pool full */ \
	X(FLD_STAT_CREDIT_STALLS, "credit_stalls")	/* posts stalled: queue credits */ \
	X(FLD_STAT_ACCEL_RX, "accel_rx")		/* packets handed to the accelerator */ \
	X(FLD_STAT_ACCEL_RX_DROPS, "accel_rx_drops")	/* accelerator input overflow */ \
	X(FLD_STAT_ACCEL_TX, "accel_tx")		/* packets the accelerator sent */ \
	X(FLD_STAT_ACCEL_BAD, "accel_bad")		/* malformed requests dropped */ \
	X(FLD_STAT_NIC_ERR_CQES, "nic_err_cqes")	/* error CQEs from the NIC */ \
	X(FLD_STAT_CQE_BAD_QUEUE, "cqe_bad_queue")	/* CQEs for unknown queues */ \
	X(FLD_STAT_CQE_TAG_OVERFLOW, "cqe_tag_overflow")	/* flow tags above FLD_MAX_FLOW_TAG */ \
	X(FLD_STAT_DOORBELLS, "doorbells")		/* doorbells FLD wrote to the NIC */ \
	X(FLD_STAT_DB_ERRORS, "db_errors") \
	X(FLD_STAT_RX_RECYCLED, "rx_recycled")		/* receive buffers reposted */ \
	X(FLD_STAT_BAD_CMDS, "bad_cmds") \
	X(FLD_STAT_ACCEL_DROPS, "accel_drops")		/* dropped by the accelerator's policy */ \
	X(FLD_STAT_DF_REASSEMBLED, "df_reassembled")	/* defrag: datagrams made whole */ \
	X(FLD_STAT_DF_EVICTED, "df_evicted")		/* defrag: incomplete datagrams evicted */ \
	X(FLD_STAT_DF_DROPPED, "df_dropped")		/* defrag: overlapping, oversize, malformed */ \
	X(FLD_STAT_DF_OVERLAPS, "df_overlaps")		/* defrag: datagrams dropped for an overlap */ \
	X(FLD_STAT_DF_DUPLICATES, "df_duplicates")	/* defrag: repeated fragments dropped */ \
	X(FLD_STAT_DF_TOO_BIG, "df_too_big")		/* defrag: datagrams beyond a frame */ \
	X(FLD_STAT_DF_TOO_MANY, "df_too_many")		/* defrag: more than 64 fragments */ \
	X(FLD_STAT_DF_TIMEOUTS, "df_timeouts")		/* defrag: incomplete after the timeout */ \
	X(FLD_STAT_DF_MALFORMED, "df_malformed")	/* defrag: bad IPv4 or fragment fields */ \
	X(FLD_STAT_IOT_VALID, "iot_valid")		/* iotauth: tokens verified, forwarded */ \
	X(FLD_STAT_IOT_MALFORMED, "iot_malformed")	/* iotauth: not UDP/CoAP/JWT/JSON */ \
	X(FLD_STAT_IOT_BAD_ALG, "iot_bad_alg")		/* iotauth: header not HS256 */ \
	X(FLD_STAT_IOT_BAD_SIG, "iot_bad_sig")		/* iotauth: HMAC mismatch */ \
	X(FLD_STAT_IOT_EXPIRED, "iot_expired")		/* iotauth: exp/nbf, or no time set */ \
	X(FLD_STAT_IOT_NO_TENANT, "iot_no_tenant")	/* iotauth: no key for the flow tag */ \
	X(FLD_STAT_QP_RECVS, "qp_recvs")		/* FLD-R: SEND messages received on QP slots */ \
	X(FLD_STAT_QP_SENDS, "qp_sends")		/* FLD-R: answers posted as SENDs */ \
	X(FLD_STAT_QP_BAD_MSGS, "qp_bad_msgs")		/* FLD-R: short header / bad magic (EHDR) */ \
	X(FLD_STAT_QP_ERR_CQES, "qp_err_cqes")		/* FLD-R: RDMA error completions */

/* FLD_STATS(FLD_STAT_ENUM): the enum; FLD_STATS(FLD_STAT_NAME): names. */
#define FLD_STAT_ENUM(id, name) id,
#define FLD_STAT_NAME(id, name) name,

enum fld_stat {
	FLD_STATS(FLD_STAT_ENUM)
	FLD_STAT_COUNT,		/* number of counters */
};

/*
 * Memory table at FLD_REG_MEM: one 32-byte row per structure, index
 * enum fld_mem_row; each row is four 64-bit values: FLD model bytes,
 * conventional driver bytes, bytes this instance allocated, reserved.
 * Row FLD_MEM_TOTAL sums them.
 */
enum fld_mem_row {
	FLD_MEM_ROW_TX_RING	= 0,
	FLD_MEM_ROW_TX_RING_MAP	= 1,
	FLD_MEM_ROW_TX_BUF	= 2,
	FLD_MEM_ROW_TX_BUF_MAP	= 3,
	FLD_MEM_ROW_RX_BUF	= 4,
	FLD_MEM_ROW_CQ		= 5,
	FLD_MEM_ROW_RQ_RING	= 6,
	FLD_MEM_ROW_PI		= 7,
	FLD_MEM_TOTAL		= 8,
	FLD_MEM_NROWS		= 9,
};

/*
 * Per-RQ accelerator admission (tenant isolation): every configured RQ
 * slot owns an equal share of the accelerator input FIFO and is served
 * round robin; its counters, 64-bit each, at FLD_REG_RQ_STATS +
 * FLD_RQ_STATS_SIZE x slot + 8 x enum fld_rq_stat.  Cleared by
 * FLD_CMD_RQ_SET and reset.
 */
#define FLD_ACCEL_FIFO_PKTS	64	/* accelerator input FIFO, packets */
#define FLD_REG_RQ_STATS	0x300	/* RO: FLD_MAX_RQS x FLD_RQ_STATS_SIZE */
#define FLD_RQ_STATS_SIZE	32
enum fld_rq_stat {
	FLD_RQ_STAT_ACCEL_RX	= 0,	/* packets admitted to the accelerator */
	FLD_RQ_STAT_ACCEL_DROPS	= 1,	/* dropped: the RQ's FIFO share full */
	FLD_RQ_STAT_ACCEL_TX	= 2,	/* packets the accelerator sent for it */
	FLD_RQ_STAT_HELD	= 3,	/* packets waiting now (a gauge) */
	FLD_RQ_STAT_COUNT	= 4,
};

#endif /* _UAPI_D2D_FLD_IF_H */
