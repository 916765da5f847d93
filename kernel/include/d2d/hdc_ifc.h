/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * hdc device interface: the HDC engine (DCS-ctrl) - PCI identity, BAR
 * layout, registers, the host command queue's D2D commands and
 * completions, NVMe extents, function ids and auxiliary data.
 *
 * One definition shared by qemu-devices/hdc, kernel/hdc and the tests;
 * docs/hdc.md describes every field.  Little endian.
 */
#ifndef _UAPI_D2D_HDC_IF_H
#define _UAPI_D2D_HDC_IF_H

#include <linux/types.h>
#include <d2d/hdc_ioctl.h>	/* enum hdc_func, HDC_MAX_FUNCS */

#define HDC_PCI_VENDOR_ID	0x1234
#define HDC_PCI_DEVICE_ID	0xd203

#define HDC_BAR_REGS		0	/* registers + MSI-X table, 16 KiB */
#define HDC_BAR_BUF		2	/* intermediate buffers (device RAM) */
#define HDC_BAR_NVMEQ		4	/* the engine's NVMe queues + PRP lists */
#define HDC_REGS_SIZE		0x4000
#define HDC_MSIX_OFFSET		0x2000	/* MSI-X table in BAR0 */
#define HDC_MSIX_PBA_OFFSET	0x3000
#define HDC_NUM_MSIX		4
#define HDC_BUF_SIZE_DEFAULT	(64u << 20)
#define HDC_CHUNK_SIZE		(64u << 10)
#define HDC_NVMEQ_SIZE		0x80000	/* 512 KiB */

#define HDC_ID_MAGIC		0x30434448	/* "HDC0" */

/* BAR0 registers, 32 bit */
#define HDC_REG_ID		0x000
#define HDC_REG_VERSION		0x004
#define HDC_REG_CAPS		0x008	/* HDC_CAP_* */
#define HDC_REG_CTRL		0x010	/* HDC_CTRL_* */
#define HDC_REG_STATUS		0x014	/* HDC_STATUS_* */
#define HDC_REG_ERROR		0x018	/* last enum hdc_err; write 0 clears */
#define HDC_REG_ERROR_COUNT	0x01c
#define HDC_REG_CMDQ_BASE_LO	0x020	/* command ring, HDC_QUEUE_DEPTH x 64 B */
#define HDC_REG_CMDQ_BASE_HI	0x024
#define HDC_REG_CPLQ_BASE_LO	0x028	/* completion ring, HDC_QUEUE_DEPTH x 16 B */
#define HDC_REG_CPLQ_BASE_HI	0x02c
#define HDC_REG_QUEUE_DEPTH	0x030	/* RO: HDC_QUEUE_DEPTH */
#define HDC_REG_MSIX		0x034	/* vector for completions */
#define HDC_REG_CMDQ_TAIL	0x038	/* doorbell: producer index */
#define HDC_REG_CPLQ_HEAD	0x03c	/* driver's consumer index */
#define HDC_REG_CMDQ_HEAD	0x040	/* RO: device's consumer index */
#define HDC_REG_NVME_BAR_LO	0x080	/* bus address of the owned NVMe BAR0 */
#define HDC_REG_NVME_BAR_HI	0x084
#define HDC_REG_NVME_CTRL	0x088	/* HDC_NVME_* : 1 = bring up */
#define HDC_REG_NVME_NSID	0x08c	/* namespace the engine uses (1) */
#define HDC_REG_NVME_LBA_SHIFT	0x090	/* RO: log2 LBA size, from IDENTIFY */
#define HDC_REG_NVME_NSZE_LO	0x094	/* RO: namespace size in LBAs */
#define HDC_REG_NVME_NSZE_HI	0x098
#define HDC_REG_NVME_STATUS	0x09c	/* RO: enum hdc_nvme_state */
#define HDC_REG_BUF_SIZE	0x0a0	/* RO: intermediate buffer bytes */
#define HDC_REG_DEVBUF_SIZE	0x0a4	/* BAR2 bytes for HDC_EP_DEVBUF, from 0 */
/*
 * The engine's NIC queues (docs/hdc.md, "NIC queues"): a snic SQ and its
 * CQ whose rings and doorbell records are in BAR4 (HDC_NVMEQ_NIC_*),
 * created by the driver through snic's peer-queue API.
 */
#define HDC_REG_NIC_SQN		0x0c0	/* the snic SQ number */
#define HDC_REG_NIC_DB_LO	0x0c4	/* bus address of its SQ doorbell */
#define HDC_REG_NIC_DB_HI	0x0c8
#define HDC_REG_NIC_CTRL	0x0cc	/* HDC_NIC_* */
#define HDC_REG_NIC_STATUS	0x0d0	/* RO: 1 = the queues are in use */
/*
 * The engine's receive queues (docs/hdc.md, "Receiving"): a striding snic
 * RQ and its CQ, rings and records in BAR4 (HDC_NVMEQ_NIC_RQ / _RCQ),
 * buffers in BAR2 chunks the engine takes from its pool on enable.
 */
#define HDC_REG_NIC_RX_CTRL	0x0d4	/* WO: HDC_NIC_RX_* */
#define HDC_REG_NIC_RX_STATUS	0x0d8	/* RO: 1 = the receive queues are in use */
/*
 * The engine's ACK queue (TCP sender, docs/hdc.md "TCP"): a plain snic
 * RQ whose ring, doorbell record and buffers are in BAR4
 * (HDC_NVMEQ_NIC_ARQ, _ARXBUF) and its CQ (HDC_NVMEQ_NIC_ARCQ).  Written
 * before HDC_NIC_ENABLE; an ARQ doorbell of 0 means no ACK queue.
 */
#define HDC_REG_NIC_ARQN	0x0dc	/* the snic RQ number */
#define HDC_REG_NIC_ARQ_DB_LO	0x0e0	/* bus address of its RQ doorbell */
#define HDC_REG_NIC_ARQ_DB_HI	0x0e4
/* Statistics, RO, 32 bit (low halves of 64-bit counters) */
#define HDC_REG_STAT_CMDS	0x100	/* D2D commands completed */
#define HDC_REG_STAT_ERRS	0x104	/* ... with an error status */
#define HDC_REG_STAT_DEV_CMDS	0x108	/* device commands the scoreboard issued */
#define HDC_REG_STAT_NVME_CMDS	0x10c	/* NVMe commands sent */
#define HDC_REG_STAT_NVME_ERRS	0x110	/* NVMe completions with error */
#define HDC_REG_STAT_RD_KIB	0x114	/* KiB read from the SSD */
#define HDC_REG_STAT_WR_KIB	0x118	/* KiB written to the SSD */
#define HDC_REG_STAT_FN_KIB	0x11c	/* KiB through near-device functions */
#define HDC_REG_STAT_INFLIGHT	0x120	/* D2D commands in the scoreboard now */
#define HDC_REG_STAT_BAD_DB	0x124
#define HDC_REG_STAT_DMA_ERRS	0x128
#define HDC_REG_STAT_BAD_REG	0x12c
#define HDC_REG_STAT_STALE_CPL	0x130	/* NVMe completions of no live command */
#define HDC_REG_STAT_NIC_TX	0x134	/* datagrams the NIC sent for the engine */
#define HDC_REG_STAT_NIC_ERRS	0x138	/* NIC error completions */
#define HDC_REG_STAT_NIC_RX	0x13c	/* datagrams placed into a receive */
#define HDC_REG_STAT_NIC_RX_DROP 0x140	/* datagrams dropped (bad, outside, no receive) */
#define HDC_REG_STAT_TCP_ACKS	0x144	/* TCP segments received and used */
#define HDC_REG_STAT_TCP_REXMIT	0x148	/* TCP segments sent again */
#define HDC_REG_STAT_TCP_RTO	0x14c	/* TCP retransmission timeouts */
#define HDC_REG_STAT_TCP_RX	0x150	/* TCP receive: segments placed */
#define HDC_REG_STAT_TCP_RX_OOO	0x154	/* ... dropped: out of order or old */
#define HDC_REG_STAT_TCP_RX_ACK	0x158	/* ... ACKs the engine sent */
#define HDC_REG_STAT_TCP_DUPACK	0x15c	/* TCP send: duplicate ACKs received */

#define HDC_NIC_ENABLE		1	/* start using the NIC queues */
#define HDC_NIC_DISABLE		2	/* stop (the driver destroys them after) */

#define HDC_NIC_RX_ENABLE	1	/* post the RQ's buffers, start receiving */
#define HDC_NIC_RX_DISABLE	2	/* stop; receives fail with HDC_ST_ENET */
#define HDC_NIC_RX_ABORT	3	/* receives in flight fail with HDC_ST_EABORT */

#define HDC_CTRL_RESET		(1u << 0)	/* held: in reset */
#define HDC_CTRL_ENABLE		(1u << 1)	/* host command queue on */

#define HDC_STATUS_READY	(1u << 0)
#define HDC_STATUS_ENABLED	(1u << 1)
#define HDC_STATUS_NVME_READY	(1u << 2)

#define HDC_NVME_BRINGUP	1
#define HDC_NVME_SHUTDOWN	2

enum hdc_nvme_state {
	HDC_NVME_OFF		= 0,
	HDC_NVME_INIT		= 1,	/* bring-up in progress */
	HDC_NVME_RUNNING	= 2,
	HDC_NVME_FAILED		= 3,	/* see HDC_REG_ERROR */
};

enum hdc_err {
	HDC_ERR_NONE		= 0,
	HDC_ERR_IN_RESET	= 1,
	HDC_ERR_DISABLED	= 2,	/* doorbell with the queue off */
	HDC_ERR_ALIGN		= 3,	/* ring base not 64-byte aligned */
	HDC_ERR_UNMAPPED	= 4,	/* ring base not reachable */
	HDC_ERR_DB_RANGE	= 5,	/* doorbell index >= depth */
	HDC_ERR_DMA		= 6,	/* host-side DMA failed */
	HDC_ERR_BAD_REG		= 7,
	HDC_ERR_NVME_BAR	= 8,	/* no NVMe controller at NVME_BAR */
	HDC_ERR_NVME_TIMEOUT	= 9,	/* controller did not become ready */
	HDC_ERR_NVME_CMD	= 10,	/* an admin command of the bring-up failed */
};

#define HDC_QUEUE_DEPTH		64

/* D2D command opcodes */
enum hdc_opcode {
	HDC_OP_NOP		= 0,
	HDC_OP_TRANSFER		= 1,	/* src -> functions -> dst */
};

/* Endpoint types */
enum hdc_ep_type {
	HDC_EP_NONE		= 0,	/* dst only: data is consumed (digests) */
	HDC_EP_NVME		= 1,	/* extent list in host memory */
	HDC_EP_HOST		= 2,	/* host memory buffer (bus address) */
	HDC_EP_DEVBUF		= 3,	/* offset into the BAR2 buffer */
	HDC_EP_NIC		= 4,	/* NIC queues: dst sends, src receives */
};

/*
 * An HDC_EP_NIC endpoint's addr: the flow in host memory.  The engine
 * sends the stream as datagrams of mss payload bytes (the last one
 * shorter), each headed by a copy of hdr with the IPv4 total length and
 * id (id + datagram number) and the UDP length filled in; the NIC fills
 * both checksums.  The fields after proto leave room for TCP.
 */
#define HDC_NET_HDR_MAX		128
#define HDC_NET_UDP		17	/* proto: IPv4/UDP */
#define HDC_NET_TCP		6	/* proto: IPv4/TCP, state below */
#define HDC_NET_F_TS		(1u << 0)	/* TCP: hdr has NOP NOP TS */
#define HDC_NET_OUT_STATE	(1u << 0)	/* the engine wrote the state */
#define HDC_NET_OUT_FIN		(1u << 1)	/* TCP receive: the peer's FIN came */
#define HDC_NET_RX_F_FIN	(1u << 0)	/* TCP receive: the stream ends after the prefix */
#define HDC_NET_MSS_MAX		9000	/* payload bytes per datagram, at most */

struct hdc_net_flow {
	__u8 proto;		/* HDC_NET_UDP */
	__u8 hdr_len;		/* Ethernet + IPv4 + L4 header bytes */
	__u8 l3_off;		/* IPv4 header offset in hdr (14) */
	__u8 l4_off;		/* UDP header offset in hdr */
	__le16 mss;		/* payload bytes per datagram (segment) */
	__le16 rto_ms;		/* TCP: first retransmission timeout */
	__le32 flags;		/* UDP: 0; TCP: HDC_NET_F_* */
	/*
	 * TCP state.  In: the sequence number of the first byte, the ack
	 * number, the window and the timestamps are in hdr's TCP header;
	 * snd_wnd is the peer's window in bytes, snd_wscale its scale.
	 * Out (written by the engine before it completes the command):
	 * snd_una and snd_max (sequence numbers acked / sent), snd_wnd and
	 * ts_recent (the peer's last TSval) as the engine left them.
	 */
	__le32 snd_wnd;
	__le32 snd_una;
	__le32 snd_max;
	__u8 snd_wscale;
	__u8 max_retries;	/* timeouts in a row before HDC_ST_ETIMEDOUT */
	__le16 out_flags;	/* out: HDC_NET_OUT_STATE */
	__le32 ts_recent;
	__u8 hdr[HDC_NET_HDR_MAX];
};

/*
 * An HDC_EP_NIC source's addr: what the engine accepts, and (out) its
 * report, written before the completion.  UDP: datagrams carry a struct
 * hdc_rx_hdr after the UDP header; the engine places payloads in offset
 * order and ends the command with HDC_ST_EGAP at the first one that skips
 * bytes.  TCP (proto HDC_NET_TCP, all four addresses and ports set): a
 * struct hdc_net_flow follows at addr + 64, the template of the ACKs the
 * engine sends (its hdr's ack number is the sequence number of the
 * stream's byte prefix_len; snd_wnd is the receive window the socket
 * offered in bytes, which the engine offers beyond every ACK, snd_wscale
 * its receive scale); out: snd_wnd the window last
 * offered, snd_una the ack number last sent (rcv_nxt), ts_recent the
 * peer's last TSval, out_flags HDC_NET_OUT_STATE and HDC_NET_OUT_FIN.
 */
struct hdc_net_rx {
	__u8 proto;		/* HDC_NET_UDP or HDC_NET_TCP */
	__u8 rsvd0[3];
	__le32 flags;		/* 0; TCP: HDC_NET_RX_F_FIN */
	__be32 dst_ip;		/* 0: any */
	__be32 src_ip;		/* 0: any */
	__be16 dst_port;	/* not 0 */
	__be16 src_port;	/* 0: any */
	/*
	 * TCP: bytes the socket had received and not passed on, in host
	 * memory: the stream's first prefix_len bytes (0: none).
	 */
	__le32 prefix_lo;
	__le32 prefix_hi;
	__le32 prefix_len;
	/* out */
	__le64 received;	/* bytes received in order from offset 0 */
	__le64 gap_lo;		/* HDC_ST_EGAP: the first missing bytes ... */
	__le64 gap_hi;		/* ... [gap_lo, gap_hi) */
	__le32 datagrams;	/* placed */
	__le32 dropped;		/* bad, outside the range or duplicate */
};

/* The application header of a received datagram (network byte order). */
#define HDC_RX_MAGIC		0x44324455	/* "D2DU" */

struct hdc_rx_hdr {
	__be32 magic;		/* HDC_RX_MAGIC */
	__be32 len;		/* payload bytes after this header, not 0 */
	__be64 off;		/* the payload's byte offset in the stream */
};

struct hdc_endpoint {
	__u8 type;		/* enum hdc_ep_type */
	__u8 rsvd[3];
	__le32 count;		/* NVME: extents; HOST/DEVBUF: capacity bytes */
	__le64 addr;		/* NVME: extent list; HOST: bus addr; DEVBUF: offset */
};

/*
 * An extent of the SSD namespace.  A file range maps to a list of them;
 * the data is the concatenation of every extent's bytes, the first one
 * starting skip bytes into its first block.
 */
#define HDC_EXT_ZERO		(1u << 0)	/* a hole: reads as zeros */
#define HDC_MAX_EXTENTS		65536	/* per endpoint */

struct hdc_extent {
	__le64 lba;
	__le32 nlb;		/* blocks */
	__le16 skip;		/* bytes to skip in the first block */
	__le16 flags;		/* HDC_EXT_* */
};


/* Auxiliary data in host memory, read at start, digests written back */
struct hdc_aux {
	__u8 aes_key[32];
	__u8 aes_iv[16];	/* initial counter block, big-endian counter */
	__u8 digest[HDC_MAX_FUNCS][32];	/* out: digest of funcs[i] */
};

/* 64-byte D2D command */
struct hdc_cmd {
	__u8 opcode;		/* enum hdc_opcode */
	__u8 nfuncs;		/* 0..HDC_MAX_FUNCS */
	__le16 cmd_id;
	__le32 flags;
	__le64 length;		/* source bytes */
	struct hdc_endpoint src;
	struct hdc_endpoint dst;
	__u8 funcs[HDC_MAX_FUNCS];	/* enum hdc_func, applied in order */
	__le32 rsvd;
	__le64 aux_addr;	/* struct hdc_aux, or 0 */
};

enum hdc_status {
	HDC_ST_OK		= 0,
	HDC_ST_EINVAL		= 1,	/* bad opcode, endpoint, function, length */
	HDC_ST_EDMA		= 2,	/* host memory (extents, aux, buffer) DMA failed */
	HDC_ST_ENVME		= 3,	/* an NVMe command failed */
	HDC_ST_ENOSPC		= 4,	/* destination capacity too small */
	HDC_ST_ENODEV		= 5,	/* NVMe endpoint with the controller not running */
	HDC_ST_ERANGE		= 6,	/* extent beyond the namespace */
	HDC_ST_ENET		= 7,	/* the NIC refused a datagram or went away */
	HDC_ST_EGAP		= 8,	/* a received datagram skipped bytes */
	HDC_ST_EABORT		= 9,	/* HDC_NIC_RX_ABORT stopped the receive */
	HDC_ST_ETIMEDOUT	= 10,	/* TCP: the peer acked nothing for max_retries timeouts */
	HDC_ST_ECONNRESET	= 11,	/* TCP: the peer reset the connection */
};

#define HDC_CPL_PHASE		(1u << 0)

/* 16-byte completion */
struct hdc_cpl {
	__le64 result;		/* bytes written to dst (after transforms) */
	__le16 cmd_id;
	__le16 status;		/* enum hdc_status */
	__le16 cmdq_head;
	__u8 rsvd;
	__u8 flags;		/* HDC_CPL_PHASE, 1 on the first pass */
};

/*
 * BAR4 layout: the queues and buffers the engine uses to drive its NVMe
 * controller.  The controller DMAs into this window; a write into a CQ
 * region tells the engine a completion arrived.
 */
#define HDC_NVMEQ_ASQ		0x00000	/* admin SQ, 32 x 64 B */
#define HDC_NVMEQ_ACQ		0x01000	/* admin CQ, 32 x 16 B */
#define HDC_NVMEQ_IOSQ		0x02000	/* I/O SQ, 64 x 64 B */
#define HDC_NVMEQ_IOCQ		0x03000	/* I/O CQ, 64 x 16 B */
#define HDC_NVMEQ_IDENT		0x04000	/* 4 KiB identify buffer */
#define HDC_NVMEQ_PRP		0x08000	/* PRP lists, 256 B per I/O slot */
#define HDC_NVMEQ_PRP_SLOT	256
#define HDC_NVMEQ_NIC_SQ	0x10000	/* NIC SQ, 1024 x 64-byte basic blocks */
#define HDC_NVMEQ_NIC_CQ	0x20000	/* NIC CQ, 1024 x 64-byte CQEs */
/*
 * Doorbell records, le32: SQ producer, +4 CQ consumer, +8 RQ producer,
 * +12 receive CQ consumer, +16 ARQ producer, +20 ACK CQ consumer.
 */
#define HDC_NVMEQ_NIC_DBR	0x30000
#define HDC_NVMEQ_NIC_RQ	0x30100	/* RQ, 2^HDC_NIC_RQ_LOG 16-byte descriptors */
#define HDC_NVMEQ_NIC_RCQ	0x38000	/* receive CQ, 2^HDC_NIC_RCQ_LOG CQEs */
#define HDC_NIC_RQ_LOG		3
#define HDC_NIC_RCQ_LOG		9
#define HDC_NIC_RX_LOG_STRIDE	11	/* 2 KiB strides ... */
#define HDC_NIC_RX_LOG_NSTR	5	/* ... 32 per descriptor: one BAR2 chunk */
#define HDC_NVMEQ_NIC_ARQ	0x40000	/* ACK RQ, 16 x 16-byte descriptors */
#define HDC_NVMEQ_NIC_ARCQ	0x41000	/* its CQ, 16 x 64-byte CQEs */
#define HDC_NVMEQ_NIC_ARXBUF	0x44000	/* 16 receive buffers of 2 KiB */
#define HDC_NIC_ARQ_LOG		4
#define HDC_NIC_ARXBUF_SIZE	2048
#define HDC_NIC_SQ_LOG		10
#define HDC_NIC_CQ_LOG		10
#define HDC_NVME_ADMIN_DEPTH	32
#define HDC_NVME_IO_DEPTH	64

#endif /* _UAPI_D2D_HDC_IF_H */
