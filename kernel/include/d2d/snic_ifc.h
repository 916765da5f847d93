/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * snic device interface: PCI identity, BAR0 register map, admin queue
 * command and completion formats, IDENTIFY data.
 *
 * One definition shared by the QEMU model (qemu-devices/snic), the driver
 * (kernel/snic) and the tests.  docs/snic.md describes every field; the
 * tests check this header against the document's tables.
 * All multi-byte fields are little endian.
 */
#ifndef _D2D_SNIC_IFC_H
#define _D2D_SNIC_IFC_H

#include <linux/types.h>
#include <d2d/pcie_ifc.h>

#define SNIC_PCI_VENDOR_ID	0x1234
#define SNIC_PCI_DEVICE_ID	0xd201

/* BAR numbers and sizes */
#define SNIC_BAR_REGS		0
#define SNIC_BAR_DB		2	/* doorbell pages */
#define SNIC_BAR_MSIX		4
#define SNIC_REGS_SIZE		0x1000
#define SNIC_NUM_MSIX		32

#define SNIC_ID_MAGIC		0x43494e53	/* "SNIC" */
#define SNIC_VERSION_MAJOR	0
#define SNIC_VERSION_MINOR	1
#define SNIC_VERSION		((SNIC_VERSION_MAJOR << 16) | SNIC_VERSION_MINOR)

/* BAR0 registers, 32 bit each */
#define SNIC_REG_ID		0x000	/* RO: SNIC_ID_MAGIC */
#define SNIC_REG_VERSION	0x004	/* RO: major << 16 | minor */
#define SNIC_REG_CAPS_LO	0x008	/* RO: SNIC_CAP_* bits 31:0 */
#define SNIC_REG_CAPS_HI	0x00c	/* RO: SNIC_CAP_* bits 63:32 */
#define SNIC_REG_CTRL		0x010	/* RW: SNIC_CTRL_* */
#define SNIC_REG_STATUS		0x014	/* RO: SNIC_STATUS_* */
#define SNIC_REG_ERROR		0x018	/* RW: last SNIC_ERR_*, write 0 to clear */
#define SNIC_REG_ERROR_COUNT	0x01c	/* RO: device errors since reset */
#define SNIC_REG_AQ_SQ_BASE_LO	0x020	/* RW: admin command ring bus address */
#define SNIC_REG_AQ_SQ_BASE_HI	0x024
#define SNIC_REG_AQ_CQ_BASE_LO	0x028	/* RW: admin completion ring bus address */
#define SNIC_REG_AQ_CQ_BASE_HI	0x02c
#define SNIC_REG_AQ_DEPTH	0x030	/* RW: entries in each ring, power of 2 */
#define SNIC_REG_AQ_MSIX	0x034	/* RW: MSI-X vector of admin completions */
#define SNIC_REG_AQ_SQ_TAIL	0x038	/* WO: doorbell, producer index */
#define SNIC_REG_AQ_CQ_HEAD	0x03c	/* RW: driver's consumer index */
#define SNIC_REG_AQ_SQ_HEAD	0x040	/* RO: device's consumer index */

/* BAR0 statistics, 32 bit each, RO, cleared by reset */
#define SNIC_REG_STAT_AQ_CMDS	0x100	/* admin commands executed */
#define SNIC_REG_STAT_AQ_ERRS	0x104	/* admin commands completed with error */
#define SNIC_REG_STAT_BAD_DB	0x108	/* doorbells out of range / in reset */
#define SNIC_REG_STAT_DMA_ERRS	0x10c	/* DMA accesses that failed */
#define SNIC_REG_STAT_BAD_REG	0x110	/* accesses to undefined registers */
#define SNIC_REG_STAT_IRQS	0x114	/* MSI-X messages sent */

/* CTRL */
#define SNIC_CTRL_RESET		(1u << 0)	/* held: device in reset */
#define SNIC_CTRL_AQ_ENABLE	(1u << 1)	/* admin queue on */

/* STATUS */
#define SNIC_STATUS_READY	(1u << 0)	/* out of reset */
#define SNIC_STATUS_AQ_ENABLED	(1u << 1)	/* admin queue accepted */
#define SNIC_STATUS_FATAL	(1u << 2)	/* admin queue stopped on error */

/* ERROR register codes */
enum snic_err {
	SNIC_ERR_NONE		= 0,
	SNIC_ERR_IN_RESET	= 1,	/* access needs the device out of reset */
	SNIC_ERR_AQ_DISABLED	= 2,	/* doorbell with admin queue off */
	SNIC_ERR_AQ_ALIGN	= 3,	/* ring base not SNIC_AQ_ALIGN aligned */
	SNIC_ERR_AQ_DEPTH	= 4,	/* depth not a power of 2 in range */
	SNIC_ERR_AQ_UNMAPPED	= 5,	/* ring base not reachable by DMA */
	SNIC_ERR_DB_RANGE	= 6,	/* doorbell index >= depth */
	SNIC_ERR_DMA		= 7,	/* DMA failed while running a command */
	SNIC_ERR_BAD_REG	= 8,	/* undefined or read-only register */
	SNIC_ERR_MSIX		= 9,	/* MSI-X vector out of range */
	SNIC_ERR_DB_PAGE	= 10,	/* doorbell on a page the queue is not on */
	SNIC_ERR_DB_QUEUE	= 11,	/* doorbell for a queue that does not exist */
	SNIC_ERR_CQ_OVERFLOW	= 12,	/* completion with the CQ full */
	SNIC_ERR_QUEUE_DMA	= 13,	/* a data queue's ring or record failed DMA */
	SNIC_ERR_MMIO_WQE	= 14,	/* WQE-by-MMIO line refused (partial, bad index) */
};

/* Capabilities */
#define SNIC_CAP_ADMINQ		(1ull << 0)
#define SNIC_CAP_ETH		(1ull << 1)	/* data queues, Ethernet port */
#define SNIC_CAP_CSUM		(1ull << 2)	/* TX/RX IPv4 TCP/UDP checksum */
#define SNIC_CAP_TSO		(1ull << 3)
#define SNIC_CAP_RSS		(1ull << 4)	/* Toeplitz, IPv4 + L4 ports */
#define SNIC_CAP_STEER		(1ull << 5)	/* steering rules */
#define SNIC_CAP_VXLAN		(1ull << 6)	/* VXLAN decap action */
#define SNIC_CAP_RATE		(1ull << 7)	/* per-SQ rate limiter */
#define SNIC_CAP_STRIDING_RQ	(1ull << 8)	/* multi-packet receive queues */
#define SNIC_CAP_VLAN		(1ull << 11)	/* 802.1Q insert, strip, filter */
#define SNIC_CAP_MMIO_WQE	(1ull << 13)	/* SQ WQE-by-MMIO (SNIC_DB_SQ_WQE) */
#define SNIC_CAP_MINI_CQE	(1ull << 14)	/* mini-CQE lines (SNIC_CQ_F_MINI) */

/* Admin queue geometry */
#define SNIC_AQ_ALIGN		64
#define SNIC_AQ_MIN_DEPTH	2
#define SNIC_AQ_MAX_DEPTH	4096

/* Admin opcodes */
enum snic_aq_opcode {
	SNIC_AQ_NOP		= 0x00,
	SNIC_AQ_IDENTIFY	= 0x01,
	SNIC_AQ_CREATE_EQ	= 0x10,	/* result: eqn */
	SNIC_AQ_DESTROY_EQ	= 0x11,
	SNIC_AQ_CREATE_CQ	= 0x12,	/* result: cqn */
	SNIC_AQ_DESTROY_CQ	= 0x13,
	SNIC_AQ_CREATE_SQ	= 0x14,	/* result: sqn */
	SNIC_AQ_DESTROY_SQ	= 0x15,
	SNIC_AQ_MODIFY_SQ	= 0x16,	/* rate limit */
	SNIC_AQ_CREATE_RQ	= 0x17,	/* result: rqn */
	SNIC_AQ_DESTROY_RQ	= 0x18,
	SNIC_AQ_CREATE_RSS	= 0x19,	/* result: rss group id */
	SNIC_AQ_MODIFY_RSS	= 0x1a,
	SNIC_AQ_DESTROY_RSS	= 0x1b,
	SNIC_AQ_ADD_RULE	= 0x1c,	/* result: rule id */
	SNIC_AQ_DEL_RULE	= 0x1d,
	SNIC_AQ_SET_PORT	= 0x1e,
	SNIC_AQ_QUERY_PORT	= 0x1f,
	SNIC_AQ_QUERY_STATS	= 0x20,
	SNIC_AQ_RESIZE_CQ	= 0x21,	/* result: CQEs moved (new producer) */
	SNIC_AQ_MODIFY_CQ	= 0x22,	/* completion event moderation */
	SNIC_AQ_SET_VLAN	= 0x23,	/* VLAN filter table (SNIC_CAP_VLAN) */
};

/* Admin completion status */
enum snic_aq_status {
	SNIC_AQ_OK		= 0,
	SNIC_AQ_EINVAL_OPCODE	= 1,
	SNIC_AQ_EINVAL_PARAM	= 2,
	SNIC_AQ_EDMA		= 3,	/* a buffer named by the command failed DMA */
	SNIC_AQ_ENOSPC		= 4,	/* out of device resources */
	SNIC_AQ_ENOENT		= 5,	/* object id does not exist */
	SNIC_AQ_EBUSY		= 6,	/* object still in use */
};

struct snic_aq_identify {
	__le64 buf_addr;	/* bus address of the host buffer */
	__le32 buf_len;		/* bytes; device writes min(len, sizeof data) */
	__le32 rsvd;
};

/*
 * Data queues.  Every ring base and doorbell record is a 64-bit bus
 * address reached only by DMA: host RAM or a peer device's BAR.
 * Ring sizes are 2^log_size entries; queue numbers (eqn, cqn, sqn, rqn)
 * are small integers allocated by the device.  db_page is the BAR2
 * doorbell page the queue answers to; a doorbell for it written to any
 * other page is refused (so a page can be given to one user process).
 */
#define SNIC_MAX_EQS		64
#define SNIC_MAX_CQS		1024
#define SNIC_MAX_SQS		1024
#define SNIC_MAX_RQS		1024
#define SNIC_MAX_RSS		64
#define SNIC_MAX_RULES		512
#define SNIC_DB_PAGES		256
#define SNIC_DB_PAGE_SIZE	4096
#define SNIC_MIN_LOG_SIZE	1
#define SNIC_MAX_LOG_SIZE	15
#define SNIC_RING_ALIGN		64
#define SNIC_EQN_NONE		0xffff	/* CQ without events: polled */
#define SNIC_MAX_MTU		9000
#define SNIC_MIN_MTU		68

struct snic_aq_create_eq {
	__le64 ring_addr;	/* 16-byte EQEs */
	__u8 log_size;
	__u8 rsvd0;
	__le16 msix;		/* vector */
	__le16 mod_usecs;	/* interrupt moderation: delay after 1st event */
	__le16 mod_count;	/* ... or this many events, whichever first */
	__le16 db_page;
};

struct snic_aq_create_cq {
	__le64 ring_addr;	/* 64-byte CQEs */
	__le64 dbr_addr;	/* doorbell record: le32 consumer counter */
	__u8 log_size;
	__u8 flags;		/* SNIC_CQ_F_* */
	__le16 eqn;		/* SNIC_EQN_NONE: never raises events */
	__le16 db_page;
};

/*
 * CREATE_CQ flags.  SNIC_CQ_F_MINI (SNIC_CAP_MINI_CQE): Ethernet receive
 * completions are packed, up to SNIC_MINI_PER_LINE of them, into one CQ
 * entry, a mini-CQE line (struct snic_cqe_line, SNIC_CQE_MINI in op_own).
 */
#define SNIC_CQ_F_MINI		(1u << 0)
/*
 * SNIC_CQ_F_NO_HASH (SNIC_CAP_MINI_CQE): receive completions on this CQ
 * carry no RSS hash (no SNIC_CQE_F_HASH; RSS still picks the RQ with it),
 * so that with SNIC_CQ_F_MINI hashed frames go into lines too.
 */
#define SNIC_CQ_F_NO_HASH	(1u << 1)

/*
 * RESIZE_CQ: the CQ moves to a new ring and doorbell record.  The device
 * reads the consumer counter from the old record, copies the CQEs not yet
 * consumed to entries 0..n-1 of the new ring (first-pass owner bit) and
 * continues with producer n; the driver continues with consumer 0.
 */
struct snic_aq_resize_cq {
	__le64 ring_addr;
	__le64 dbr_addr;
	__u8 log_size;
	__u8 rsvd0[3];
	__le32 cqn;
};

/*
 * MODIFY_CQ: completion event moderation.  An armed CQ raises its event
 * when @count CQEs were written since arming, or @period_us after the
 * first of them, whichever comes first; 0 turns a bound off, count <= 1
 * with period 0 raises at every CQE (the default).
 */
#define SNIC_CQ_MAX_MOD_COUNT	0xffff
#define SNIC_CQ_MAX_MOD_PERIOD	0xffff	/* microseconds */

struct snic_aq_modify_cq {
	__le32 cqn;
	__le32 count;		/* CQEs; <= SNIC_CQ_MAX_MOD_COUNT */
	__le32 period_us;	/* <= SNIC_CQ_MAX_MOD_PERIOD */
};

#define SNIC_SQ_F_RAW_ETH	(1u << 0)	/* Ethernet send queue */
#define SNIC_SQ_F_LOOPBACK	(1u << 1)	/* frames to the port's own receive path */

struct snic_aq_create_sq {
	__le64 ring_addr;	/* 64-byte WQE basic blocks */
	__le64 dbr_addr;	/* le32 producer counter, in basic blocks */
	__u8 log_size;		/* basic blocks */
	__u8 flags;		/* SNIC_SQ_F_* */
	__le16 cqn;
	__le16 db_page;
};

struct snic_aq_modify_sq {
	__le32 sqn;
	__le32 rsvd;
	__le64 rate_bps;	/* token bucket rate, bits/s; 0 = unlimited */
	__le32 burst_bytes;	/* bucket depth; 0 = one MTU-sized frame */
};

enum snic_rq_type {
	SNIC_RQ_PLAIN		= 0,	/* one packet per descriptor */
	SNIC_RQ_STRIDING	= 1,	/* several packets per descriptor */
};

struct snic_aq_create_rq {
	__le64 ring_addr;	/* 16-byte receive descriptors */
	__le64 dbr_addr;	/* le32 producer counter, in descriptors */
	__u8 log_size;
	__u8 type;		/* enum snic_rq_type */
	__le16 cqn;
	__le16 db_page;
	__u8 log_stride_size;	/* striding: stride bytes = 2^n, 6..13 */
	__u8 log_num_strides;	/* striding: strides per descriptor, 1..16 */
};

/* Destroy commands and MODIFY_RSS/DESTROY_RSS/DEL_RULE name one object. */
struct snic_aq_obj {
	__le32 id;
};

/*
 * Commands whose input does not fit 56 bytes (CREATE_RSS, MODIFY_RSS,
 * ADD_RULE, SET_PORT) and output commands (QUERY_PORT, QUERY_STATS) point
 * at a buffer in host memory.
 */
struct snic_aq_buf {
	__le64 addr;
	__le32 len;
	__le32 id;		/* object id where the opcode needs one */
	__le32 kind;		/* QUERY_STATS: enum snic_stats_kind */
};

/* 64-byte admin command */
struct snic_aq_cmd {
	__u8 opcode;		/* enum snic_aq_opcode */
	__u8 flags;
	__le16 cmd_id;		/* echoed in the completion */
	__le32 rsvd;
	union {
		struct snic_aq_identify identify;
		struct snic_aq_create_eq create_eq;
		struct snic_aq_create_cq create_cq;
		struct snic_aq_resize_cq resize_cq;
		struct snic_aq_modify_cq modify_cq;
		struct snic_aq_create_sq create_sq;
		struct snic_aq_modify_sq modify_sq;
		struct snic_aq_create_rq create_rq;
		struct snic_aq_obj obj;
		struct snic_aq_buf buf;
		__u8 raw[56];
	};
};

#define SNIC_AQ_CQE_PHASE	(1u << 0)

/* 16-byte admin completion */
struct snic_aq_cqe {
	__le64 result;		/* opcode specific */
	__le16 cmd_id;
	__le16 status;		/* enum snic_aq_status */
	__le16 sq_head;		/* device consumer index after this command */
	__u8 rsvd;
	__u8 flags;		/* SNIC_AQ_CQE_PHASE: 1 on the first pass */
};

/* IDENTIFY data, 256 bytes */
struct snic_identify_data {
	__le32 magic;		/* SNIC_ID_MAGIC */
	__le32 version;		/* as SNIC_REG_VERSION */
	char fw_version[32];	/* NUL terminated */
	__le64 caps;		/* SNIC_CAP_* */
	__u8 mac[6];		/* permanent MAC address */
	__le16 max_mtu;
	__le32 num_msix;
	__le32 aq_max_depth;
	char serial[16];	/* NUL terminated */
	__le16 max_eqs;
	__le16 max_cqs;
	__le16 max_sqs;
	__le16 max_rqs;
	__le16 max_rss;
	__le16 max_rules;
	__le16 db_pages;
	__le16 rss_table_size;	/* SNIC_RSS_TABLE_SIZE */
	__u8 rsvd[160];
};

/* ---- Doorbell pages (BAR2) ---- */

/*
 * 32-bit writes: bits 31:16 the queue number, bits 15:0 a 16-bit wrapping
 * counter (SQ/RQ: producer; CQ/EQ: consumer).  An SQ doorbell makes the
 * device fetch and run WQEs up to the producer counter; the RQ doorbell is
 * optional (the device re-reads the RQ's doorbell record when it runs out
 * of descriptors).  The *_ARM offsets also request one event (CQ: an EQE
 * for the next completion; EQ: an MSI-X message for the next EQE).
 */
#define SNIC_DB_SQ		0x00
#define SNIC_DB_RQ		0x04
#define SNIC_DB_CQ		0x08
#define SNIC_DB_CQ_ARM		0x0c
#define SNIC_DB_EQ		0x10
#define SNIC_DB_EQ_ARM		0x14
#define SNIC_DB_VAL(qn, ctr)	(((__u32)(qn) << 16) | ((ctr) & 0xffff))

/*
 * WQE-by-MMIO (SNIC_CAP_MMIO_WQE): the first basic block of an Ethernet
 * WQE, written as 32-bit (or 64-bit) stores to these 64 bytes of the SQ's
 * doorbell page (write-combining), is the doorbell: ctrl.db_qn names the
 * SQ, ctrl.wqe_idx the WQE's counter, and the producer becomes wqe_idx +
 * its basic blocks.  The device runs the WQE from these bytes instead of
 * reading its first basic block from the ring.
 */
#define SNIC_DB_SQ_WQE		0x800
#define SNIC_DB_SQ_WQE_SIZE	64

/* ---- Send queue WQE: 1 to 4 basic blocks of 64 bytes ---- */

#define SNIC_WQEBB_SIZE		64
#define SNIC_WQE_MAX_BBS	4
#define SNIC_WQE_MAX_DS		(SNIC_WQE_MAX_BBS * SNIC_WQEBB_SIZE / 16)

enum snic_wqe_opcode {
	SNIC_WQE_NOP		= 0x00,
	SNIC_WQE_ETH_SEND	= 0x01,	/* one frame */
	SNIC_WQE_ETH_TSO	= 0x02,	/* TCP segmentation by eth.mss */
};

#define SNIC_WQE_F_SIGNAL	(1u << 0)	/* write a CQE when done */

/* 16 bytes, first in every WQE */
struct snic_wqe_ctrl {
	__u8 opcode;		/* enum snic_wqe_opcode */
	__u8 flags;		/* SNIC_WQE_F_* */
	__le16 wqe_idx;		/* producer counter of this WQE's first BB */
	__u8 ds_cnt;		/* 16-byte segments in the WQE, ctrl included */
	__u8 owner;		/* RDMA pipe QPs: SNIC_WQE_OWNER (phase), else 0 */
	__le16 xrc_srqn;	/* RDMA XRC_INI QPs: the remote XRC SRQ, else 0 */
	__be32 imm;		/* RDMA: immediate data, or the rkey to invalidate */
	__be16 vlan_tci;	/* Ethernet with SNIC_ETH_F_VLAN: tag to insert */
	__le16 db_qn;		/* WQE-by-MMIO line: its SQ; ignored in the ring */
};

#define SNIC_ETH_CS_L3		(1u << 0)	/* fill the IPv4 header checksum */
#define SNIC_ETH_CS_L4		(1u << 1)	/* fill the TCP/UDP checksum */

/* snic_wqe_eth.flags (SNIC_CAP_VLAN) */
#define SNIC_ETH_F_VLAN		(1u << 0)	/* insert ctrl.vlan_tci, 802.1Q */

/*
 * 16 bytes after ctrl in Ethernet WQEs.  The first inline_hdr_sz bytes of
 * the frame follow inline: 10 here, the rest in the next 16-byte segments
 * (padded to 16).  Data segments come after.
 */
struct snic_wqe_eth {
	__u8 cs_flags;		/* SNIC_ETH_CS_* */
	__u8 flags;		/* SNIC_ETH_F_* */
	__le16 mss;		/* TSO: TCP payload bytes per segment */
	__le16 inline_hdr_sz;	/* 0..SNIC_MAX_INLINE */
	__u8 inline_hdr[10];
};

#define SNIC_MAX_INLINE		202	/* 10 + 12 segments of 16 */

/* 16 bytes: gather from a bus address */
struct snic_wqe_data {
	__le32 byte_count;	/* 1..65536 */
	__le32 lkey;		/* 0: addr is a bus address */
	__le64 addr;
};

/* ---- Receive descriptor, 16 bytes ---- */

struct snic_rx_desc {
	__le32 byte_count;	/* buffer bytes (striding: whole buffer) */
	__le32 lkey;		/* 0 */
	__le64 addr;
};

/* ---- Completion queue entry, 64 bytes ---- */

enum snic_cqe_opcode {
	SNIC_CQE_TX		= 0x01,
	SNIC_CQE_RX		= 0x02,
	SNIC_CQE_TX_ERR		= 0x0d,
	SNIC_CQE_RX_ERR		= 0x0e,
};

/* CQE flags (RX) */
#define SNIC_CQE_F_L3_OK	(1u << 0)	/* IPv4 header checksum good */
#define SNIC_CQE_F_L4_OK	(1u << 1)	/* TCP/UDP checksum good */
#define SNIC_CQE_F_IPV4		(1u << 2)
#define SNIC_CQE_F_TCP		(1u << 3)
#define SNIC_CQE_F_UDP		(1u << 4)
#define SNIC_CQE_F_TAG		(1u << 5)	/* flow_tag valid */
#define SNIC_CQE_F_HASH		(1u << 6)	/* rss_hash valid */
#define SNIC_CQE_F_DECAP	(1u << 7)	/* VXLAN outer headers removed */
#define SNIC_CQE_F_L3_BAD	(1u << 8)	/* IPv4 header checksum wrong */
#define SNIC_CQE_F_L4_BAD	(1u << 9)	/* TCP/UDP checksum wrong */
#define SNIC_CQE_F_MPW_LAST	(1u << 10)	/* striding: descriptor retired */
#define SNIC_CQE_F_VLAN		(1u << 11)	/* 802.1Q tag stripped: vlan_tci */

/* Error syndromes (TX_ERR / RX_ERR) */
enum snic_cqe_syndrome {
	SNIC_SYND_OK		= 0,
	SNIC_SYND_BAD_OPCODE	= 1,
	SNIC_SYND_BAD_DS	= 2,	/* ds_cnt 0, too big, or too few for opcode */
	SNIC_SYND_BAD_LEN	= 3,	/* zero, oversized or inconsistent length */
	SNIC_SYND_DMA		= 4,	/* a data segment or buffer failed DMA */
	SNIC_SYND_BAD_LKEY	= 5,
	SNIC_SYND_BAD_MSS	= 6,
	SNIC_SYND_RATE		= 7,	/* rate limiter refused (never for Ethernet) */
};

#define SNIC_CQE_OWNER		(1u << 0)	/* in op_own: phase, 1 on first pass */
#define SNIC_CQE_MINI		(1u << 1)	/* in op_own: a mini-CQE line */

struct snic_cqe {
	__le32 byte_cnt;	/* RX: frame bytes; TX: bytes put on the wire */
	__le32 rss_hash;
	__le32 flow_tag;
	__le16 wqe_counter;	/* TX: wqe_idx; RX: descriptor counter */
	__le16 qn;		/* sqn or rqn */
	__le16 flags;		/* SNIC_CQE_F_* */
	__le16 stride_idx;	/* striding: first stride of this frame */
	__le16 num_strides;	/* striding: strides it used */
	union {
		__le16 segs;		/* TX TSO: frames sent */
		__le16 vlan_tci;	/* RX with SNIC_CQE_F_VLAN: stripped tag */
	};
	__u8 opcode;		/* enum snic_cqe_opcode */
	__u8 syndrome;		/* enum snic_cqe_syndrome */
	__u8 l4_proto;
	__u8 rdma_flags;	/* RDMA: SNIC_CQE_RF_* (snic_rdma_ifc.h) */
	__le32 rdma_qpn;	/* RDMA: local QP */
	__le64 timestamp;	/* ns, QEMU virtual clock */
	__le64 cookie;		/* RDMA receive: snic_recv_hdr.cookie */
	__be32 imm;		/* RDMA: immediate data or invalidated rkey */
	__le32 src_qpn;		/* RDMA UD receive: sender's QP */
	__u8 smac[6];		/* RDMA UD receive: sender's MAC */
	__u8 wqe_opcode;	/* RDMA: the work's SNIC_WQE_* opcode */
	__u8 op_own;		/* SNIC_CQE_OWNER */
};

/*
 * A mini-CQE: one Ethernet receive completion (opcode SNIC_CQE_RX,
 * syndrome 0) of a line.  num_strides is ceil(byte_cnt / stride size), 1
 * for a filler (byte_cnt 0); rss_hash, l4_proto, vlan_tci and timestamp
 * are not carried (a completion with SNIC_CQE_F_HASH or SNIC_CQE_F_VLAN
 * is written whole).
 */
struct snic_mini_cqe {
	__le16 byte_cnt;
	__le16 wqe_counter;
	__le16 stride_idx;
	__le16 flags;		/* SNIC_CQE_F_* */
};

#define SNIC_MINI_PER_LINE	7

/* 64 bytes, one CQ entry: completions of one RQ, in order */
struct snic_cqe_line {
	struct snic_mini_cqe mini[SNIC_MINI_PER_LINE];
	__le16 qn;		/* their rqn */
	__le16 flow_tag;	/* of every entry with SNIC_CQE_F_TAG */
	__u8 count;		/* entries, 1..SNIC_MINI_PER_LINE */
	__u8 rsvd[2];
	__u8 op_own;		/* SNIC_CQE_OWNER | SNIC_CQE_MINI */
};

/* ---- Event queue entry, 16 bytes ---- */

enum snic_eqe_type {
	SNIC_EQE_COMPLETION	= 0x01,	/* obj: cqn */
	SNIC_EQE_CQ_ERROR	= 0x02,	/* obj: cqn, data: enum snic_err */
	SNIC_EQE_SQ_ERROR	= 0x03,	/* obj: sqn */
	SNIC_EQE_RQ_ERROR	= 0x04,	/* obj: rqn */
	SNIC_EQE_LINK		= 0x05,	/* data: 1 up, 0 down */
};

#define SNIC_EQE_OWNER		(1u << 0)

struct snic_eqe {
	__u8 type;		/* enum snic_eqe_type */
	__u8 rsvd0[3];
	__le32 obj;
	__le32 data;
	__u8 rsvd1[3];
	__u8 owner;		/* SNIC_EQE_OWNER */
};

/* ---- RSS groups ---- */

#define SNIC_RSS_KEY_SIZE	40
#define SNIC_RSS_TABLE_SIZE	128

#define SNIC_RSS_HASH_IPV4	(1u << 0)	/* src/dst IPv4 */
#define SNIC_RSS_HASH_L4	(1u << 1)	/* + TCP/UDP ports */

/* CREATE_RSS / MODIFY_RSS input buffer */
struct snic_rss_cfg {
	__u8 key[SNIC_RSS_KEY_SIZE];	/* Toeplitz key */
	__le32 hash_fields;		/* SNIC_RSS_HASH_* */
	__le32 table_size;		/* power of 2, 1..SNIC_RSS_TABLE_SIZE */
	__le32 rqn[SNIC_RSS_TABLE_SIZE];	/* indirection table */
};

/* ---- Steering rules ---- */

/* Fields a rule compares (exact match, IPv4 under mask) */
#define SNIC_MATCH_DMAC		(1u << 0)
#define SNIC_MATCH_ETHERTYPE	(1u << 1)
#define SNIC_MATCH_IP_PROTO	(1u << 2)
#define SNIC_MATCH_SRC_IP	(1u << 3)
#define SNIC_MATCH_DST_IP	(1u << 4)
#define SNIC_MATCH_SRC_PORT	(1u << 5)
#define SNIC_MATCH_DST_PORT	(1u << 6)
#define SNIC_MATCH_VNI		(1u << 7)	/* VXLAN (outer UDP 4789) VNI */

enum snic_rule_dest {
	SNIC_DEST_RQ		= 0,	/* dest_id: rqn */
	SNIC_DEST_RSS		= 1,	/* dest_id: rss group */
	SNIC_DEST_DROP		= 2,
	SNIC_DEST_SPIN		= 3,	/* dest_id: sPIN context (snic_spin_ifc.h) */
};

#define SNIC_ACT_COUNT		(1u << 0)	/* count packets/bytes */
#define SNIC_ACT_DECAP		(1u << 1)	/* strip VXLAN outer headers */
#define SNIC_ACT_TAG		(1u << 2)	/* report flow_tag in the CQE */

#define SNIC_VXLAN_PORT		4789

/* ADD_RULE input buffer, 64 bytes.  Lower priority value matches first. */
struct snic_steer_rule {
	__le32 match;		/* SNIC_MATCH_* */
	__le16 priority;
	__u8 dest;		/* enum snic_rule_dest */
	__u8 actions;		/* SNIC_ACT_* */
	__le32 dest_id;
	__le32 flow_tag;
	__u8 dmac[6];
	__be16 ethertype;
	__be32 src_ip;
	__be32 src_ip_mask;
	__be32 dst_ip;
	__be32 dst_ip_mask;
	__be16 src_port;
	__be16 dst_port;
	__u8 ip_proto;
	__u8 rsvd0[3];
	__le32 vni;
	__u8 rsvd1[12];
};

/* ---- Port ---- */

#define SNIC_PORT_F_PROMISC	(1u << 0)
#define SNIC_PORT_F_ALLMULTI	(1u << 1)
#define SNIC_PORT_F_UP		(1u << 2)	/* administratively up */
#define SNIC_PORT_F_VLAN_STRIP	(1u << 3)	/* SNIC_CAP_VLAN: strip 802.1Q */
#define SNIC_PORT_F_VLAN_FILTER	(1u << 4)	/* SNIC_CAP_VLAN: SET_VLAN table */
#define SNIC_MAX_MACS		32

/* SET_PORT input buffer */
struct snic_port_cfg {
	__le32 flags;		/* SNIC_PORT_F_* */
	__le16 mtu;		/* SNIC_MIN_MTU..SNIC_MAX_MTU, L3 bytes */
	__le16 num_macs;	/* unicast + multicast addresses accepted */
	__le16 async_eqn;	/* EQ for link events, SNIC_EQN_NONE: none */
	__u8 rsvd[6];
	__u8 macs[SNIC_MAX_MACS][8];	/* 6 bytes each, padded */
};

/*
 * SET_VLAN input buffer: bit V (byte V / 8, bit V % 8) accepts tagged
 * frames of VLAN ID V while SNIC_PORT_F_VLAN_FILTER is set.  Untagged and
 * priority-tagged (VID 0) frames always pass.  All zero after reset.
 */
#define SNIC_VLAN_N		4096
struct snic_vlan_table {
	__u8 bitmap[SNIC_VLAN_N / 8];
};

/* QUERY_PORT output buffer */
struct snic_port_info {
	__le32 flags;		/* as configured */
	__le32 link_up;		/* carrier: the QEMU netdev's link */
	__le32 speed_mbps;
	__le16 mtu;
	__u8 mac[6];
};

/* ---- Statistics (QUERY_STATS) ---- */

enum snic_stats_kind {
	SNIC_STATS_PORT		= 0,	/* struct snic_port_stats */
	SNIC_STATS_PCIE		= 1,	/* struct snic_pcie_stats, device */
	SNIC_STATS_SQ		= 2,	/* struct snic_queue_stats, id = sqn */
	SNIC_STATS_RQ		= 3,	/* struct snic_queue_stats, id = rqn */
	SNIC_STATS_RULE		= 4,	/* struct snic_rule_stats, id = rule */
};

/*
 * Statistics lists: X(enum name, field), every counter once in index
 * order.  The field is the le64 of the wire struct and, as a string, the
 * name tools print.  The enum, the struct and every name table are
 * generated from the list; new counters go at the end.
 * SNIC_..._STATS(SNIC_STAT_ENUM): the enum; (SNIC_STAT_NAME): the names;
 * (SNIC_STAT_LE64): the fields of the wire struct.
 */
#define SNIC_STAT_ENUM(id, field) id,
#define SNIC_STAT_NAME(id, field) #field,
#define SNIC_STAT_LE64(id, field) __le64 field;

/* Port counters (struct snic_port_stats; ethtool -S port_<name>). */
#define SNIC_PORT_STATS(X) \
	X(SNIC_PORT_STAT_RX_PACKETS, rx_packets)	/* frames delivered into RQs */ \
	X(SNIC_PORT_STAT_RX_BYTES, rx_bytes)		/* their bytes */ \
	X(SNIC_PORT_STAT_TX_PACKETS, tx_packets)	/* frames put on the wire */ \
	X(SNIC_PORT_STAT_TX_BYTES, tx_bytes)		/* their bytes */ \
	X(SNIC_PORT_STAT_RX_RUNT, rx_runt)		/* shorter than 14 bytes */ \
	X(SNIC_PORT_STAT_RX_OVERSIZE, rx_oversize)	/* longer than MTU + 18 */ \
	X(SNIC_PORT_STAT_RX_FILTERED, rx_filtered)	/* MAC filter */ \
	X(SNIC_PORT_STAT_RX_NO_DEST, rx_no_dest)	/* no rule and no default */ \
	X(SNIC_PORT_STAT_RX_RULE_DROP, rx_rule_drop)	/* dropped by a rule */ \
	X(SNIC_PORT_STAT_RX_NO_BUFFER, rx_no_buffer)	/* destination RQ empty */ \
	X(SNIC_PORT_STAT_RX_BAD_L3, rx_bad_l3)		/* bad IPv4 header or checksum */ \
	X(SNIC_PORT_STAT_RX_BAD_L4, rx_bad_l4)		/* bad TCP/UDP checksum */ \
	X(SNIC_PORT_STAT_RX_CSUM_OK, rx_csum_ok)	/* frames with checksums verified */ \
	X(SNIC_PORT_STAT_RX_DECAP, rx_decap)		/* VXLAN decapsulated */ \
	X(SNIC_PORT_STAT_RX_LINK_DOWN, rx_link_down)	/* arrived while the link was down */ \
	X(SNIC_PORT_STAT_TX_CSUM, tx_csum)		/* frames checksummed by the device */ \
	X(SNIC_PORT_STAT_TX_TSO_FRAMES, tx_tso_frames)	/* TSO WQEs */ \
	X(SNIC_PORT_STAT_TX_TSO_SEGS, tx_tso_segs)	/* frames TSO produced */ \
	X(SNIC_PORT_STAT_TX_ERRORS, tx_errors)		/* error CQEs */ \
	X(SNIC_PORT_STAT_TX_LINK_DOWN, tx_link_down)	/* dropped, link down */ \
	X(SNIC_PORT_STAT_TX_RATE_DELAYS, tx_rate_delays)	/* rate limiter pauses of an SQ */ \
	X(SNIC_PORT_STAT_EQ_EVENTS, eq_events)		/* EQEs written */ \
	X(SNIC_PORT_STAT_EQ_IRQS, eq_irqs)		/* MSI-X sent for EQs */ \
	X(SNIC_PORT_STAT_CQ_OVERFLOWS, cq_overflows)	/* CQ full: the CQ went to error */ \
	X(SNIC_PORT_STAT_TX_LOOPBACK, tx_loopback)	/* loopback SQ frames looped back */ \
	X(SNIC_PORT_STAT_RX_LOOP_DROPS, rx_loop_drops)	/* looped frames for the sender: dropped */ \
	X(SNIC_PORT_STAT_RX_VLAN_FILTERED, rx_vlan_filtered)	/* tagged, VLAN not in the SET_VLAN table */ \
	X(SNIC_PORT_STAT_RX_VLAN_STRIPPED, rx_vlan_stripped)	/* 802.1Q tags moved into the CQE */ \
	X(SNIC_PORT_STAT_TX_VLAN_INSERTED, tx_vlan_inserted)	/* 802.1Q tags inserted (SNIC_ETH_F_VLAN) */ \
	X(SNIC_PORT_STAT_TX_MMIO_WQE, tx_mmio_wqe)	/* WQE-by-MMIO lines taken as doorbells */ \
	X(SNIC_PORT_STAT_TX_WQE_FETCH_SAVED, tx_wqe_fetch_saved)	/* WQE ring reads saved by them */ \
	X(SNIC_PORT_STAT_TX_MMIO_WQE_ERRORS, tx_mmio_wqe_errors)	/* lines refused: partial, bad queue or index */ \
	X(SNIC_PORT_STAT_RX_MINI_CQES, rx_mini_cqes)	/* receive completions written as mini-CQEs */ \
	X(SNIC_PORT_STAT_RX_MINI_LINES, rx_mini_lines)	/* mini-CQE lines written */

enum snic_port_stat {
	SNIC_PORT_STATS(SNIC_STAT_ENUM)
	SNIC_PORT_STAT_COUNT,	/* number of counters */
};

struct snic_port_stats {
	SNIC_PORT_STATS(SNIC_STAT_LE64)
};

/* PCIe counters (device or queue; ethtool -S pcie_<name>), pcie_ifc.h */
struct snic_pcie_stats {
	D2D_PCIE_STATS(SNIC_STAT_LE64)
};

/* Queue counters (ethtool -S {tx,rx}<n>_hw_<name>), then the queue's PCIe. */
#define SNIC_QUEUE_STATS(X) \
	X(SNIC_QUEUE_STAT_PACKETS, packets) \
	X(SNIC_QUEUE_STAT_BYTES, bytes) \
	X(SNIC_QUEUE_STAT_ERRORS, errors)	/* error CQEs */ \
	X(SNIC_QUEUE_STAT_DROPS, drops)		/* RQ: no buffer */ \
	X(SNIC_QUEUE_STAT_DOORBELLS, doorbells)

enum snic_queue_stat {
	SNIC_QUEUE_STATS(SNIC_STAT_ENUM)
	SNIC_QUEUE_STAT_COUNT,	/* number of counters before pcie */
};

struct snic_queue_stats {
	SNIC_QUEUE_STATS(SNIC_STAT_LE64)
	struct snic_pcie_stats pcie;	/* traffic on behalf of this queue */
};

struct snic_rule_stats {
	__le64 packets, bytes;
};

#endif /* _D2D_SNIC_IFC_H */
