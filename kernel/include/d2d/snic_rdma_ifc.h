/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * snic RDMA (RoCEv2) device interface: admin commands for PDs, MRs, QPs
 * and SRQs, the RDMA send WQE segments, receive WQEs, the RDMA fields of
 * the CQE, QP doorbells, async events and transport statistics.
 *
 * Extends <d2d/snic_ifc.h> (admin queue, CQs, EQs, doorbell pages); one
 * definition shared by the QEMU model, snic.ko, libsnic and the tests.
 * docs/snic-rdma.md describes every field.  Little endian unless __be.
 */
#ifndef _D2D_SNIC_RDMA_IFC_H
#define _D2D_SNIC_RDMA_IFC_H

#include <linux/types.h>
#include <d2d/snic_ifc.h>
#include <d2d/snic_verbs_abi.h>	/* struct snic_av */

#define SNIC_CAP_RDMA		(1ull << 9)	/* RoCEv2 transport */
/* WQE-by-MMIO on RDMA QP send queues (SNIC_DB_QP_SQ_WQE) */
#define SNIC_CAP_RDMA_MMIO_WQE	(1ull << 15)

/* Admin opcodes 0x30..0x4f */
enum snic_aq_rdma_opcode {
	SNIC_AQ_CREATE_PD	= 0x30,	/* result: pdn */
	SNIC_AQ_DESTROY_PD	= 0x31,	/* obj */
	SNIC_AQ_CREATE_MR	= 0x32,	/* buf: struct snic_mr_cfg; result: key */
	SNIC_AQ_DESTROY_MR	= 0x33,	/* obj: key index (key >> 8) */
	SNIC_AQ_CREATE_QP	= 0x34,	/* create_qp; result: qpn */
	SNIC_AQ_MODIFY_QP	= 0x35,	/* buf: struct snic_qp_attr, id: qpn */
	SNIC_AQ_QUERY_QP	= 0x36,	/* buf: struct snic_qp_attr out, id: qpn */
	SNIC_AQ_DESTROY_QP	= 0x37,	/* obj: qpn */
	SNIC_AQ_CREATE_SRQ	= 0x38,	/* create_srq; result: srqn */
	SNIC_AQ_MODIFY_SRQ	= 0x39,	/* modify_srq */
	SNIC_AQ_DESTROY_SRQ	= 0x3a,	/* obj: srqn */
	SNIC_AQ_SET_SRC_ADDR	= 0x3b,	/* set_src_addr */
	SNIC_AQ_SET_QP_COUNTER	= 0x44,	/* qp_counter: bind qpn to set */
	SNIC_AQ_CLEAR_COUNTER	= 0x45,	/* qp_counter: zero set (qpn unused) */
	SNIC_AQ_ATTACH_MCAST	= 0x46,	/* mcast: a UD QP joins a group */
	SNIC_AQ_DETACH_MCAST	= 0x47,	/* mcast: it leaves the group */
	SNIC_AQ_CREATE_SSQ	= 0x48,	/* create_ssq; result: ssqn | cores << 16 */
	SNIC_AQ_DESTROY_SSQ	= 0x49,	/* obj: ssqn */
	SNIC_AQ_SET_LLQ		= 0x4a,	/* set_llq */
	SNIC_AQ_ALLOC_MW	= 0x4b,	/* alloc_mw; result: key */
	SNIC_AQ_DEALLOC_MW	= 0x4c,	/* obj: key index (key >> 8) */
	SNIC_AQ_CREATE_XRCD	= 0x4d,	/* result: xrcdn */
	SNIC_AQ_DESTROY_XRCD	= 0x4e,	/* obj: xrcdn */
};

/*
 * SET_SRC_ADDR: entry @index of the port's source address table (the
 * driver mirrors its GID table into it).  A user UD QP (no
 * SNIC_QP_F_PRIV) sends from the entry its WQE's AV names (sgid_index):
 * the AV's smac and sip (sip6 over IPv6) are replaced; an invalid entry,
 * or one of the other IP version than the AV's, fails the WQE with
 * SNIC_RST_LOC_QP_OP (counted in tx_bad_src).  valid 0 clears the entry.
 * The IPv6 entries are also the addresses the port takes UD and GSI
 * datagrams over IPv6 for (rx_bad_src otherwise).
 */
#define SNIC_SRC_ADDRS		128

struct snic_aq_set_src_addr {
	__u8 index;		/* < SNIC_SRC_ADDRS */
	__u8 valid;		/* 0 or 1 */
	__u8 mac[6];
	__be32 ip;		/* IPv4 (without SNIC_SRC_F_IPV6) */
	__u8 flags;		/* SNIC_SRC_F_* */
	__u8 rsvd0;
	__le16 vlan_id;		/* with SNIC_SRC_F_VLAN: 1..4094 */
	__u8 ip6[16];		/* with SNIC_SRC_F_IPV6 */
	__u8 rsvd[24];
};

/*
 * set_src_addr.flags: IPV6: the entry is the IPv6 address ip6 (ip
 * unused); VLAN: the address is on VLAN vlan_id (802.1Q-tagged frames).
 */
#define SNIC_SRC_F_IPV6		(1u << 0)
#define SNIC_SRC_F_VLAN		(1u << 1)

/*
 * Counter sets (per-QP statistics, docs/snic-rdma.md "Counter sets"):
 * SET_QP_COUNTER binds QP @qpn to set @set (1..SNIC_RDMA_COUNTER_SETS;
 * 0 unbinds); from then on the transport counters that move while the
 * device works for the QP are added to the set.  CLEAR_COUNTER zeroes
 * set @set.  QUERY_STATS kind SNIC_STATS_RDMA reads set @id, and id 0
 * the counts that went to no set.
 */
#define SNIC_RDMA_COUNTER_SETS	64

struct snic_aq_qp_counter {
	__le32 qpn;
	__le32 set;
	__u8 rsvd[48];
};

/*
 * Multicast (docs/snic-rdma.md "Multicast"): ATTACH_MCAST adds UD QP
 * @qpn to the group of IPv4 multicast address @group (224.0.0.0/4), or
 * with SNIC_MCAST_F_IPV6 of IPv6 multicast address @group6 (ff00::/8);
 * a RoCEv2 UD packet to that address and to SNIC_MCAST_QPN, untagged or
 * on any VLAN, is delivered to every QP of the group.  DETACH_MCAST
 * removes it; destroying the QP removes it from every group.
 */
#define SNIC_MAX_MCAST_GRPS	64
#define SNIC_MAX_MCAST_QP_ATTACH	16	/* QPs per group */
#define SNIC_MCAST_QPN		0xffffff

#define SNIC_MCAST_F_IPV6	(1u << 0)	/* the group is group6 */

struct snic_aq_mcast {
	__le32 qpn;
	__be32 group;		/* IPv4 multicast address */
	__u8 flags;		/* SNIC_MCAST_F_* */
	__u8 rsvd0[3];
	__u8 group6[16];	/* with SNIC_MCAST_F_IPV6 (group unused) */
	__u8 rsvd[28];
};

/* Extra admin status codes for RDMA objects */
#define SNIC_AQ_ESTATE		7	/* QP state transition not allowed */

#define SNIC_MAX_PDS		1024
#define SNIC_MAX_MRS		4096
#define SNIC_MAX_QPS		1024	/* qpn 0 unused, 1 is the GSI QP */
#define SNIC_MAX_SRQS		256
#define SNIC_MAX_MR_PAGES	(1u << 18)	/* page list entries per MR */
#define SNIC_MAX_SGE		15	/* send and receive scatter entries */
#define SNIC_MAX_RD_ATOMIC	16	/* outstanding READ/atomic per QP */
#define SNIC_MAX_MSG_SIZE	(1u << 31)
#define SNIC_GSI_QPN		1
#define SNIC_GSI_QKEY		0x80010000u
#define SNIC_ROCE_UDP_PORT	4791
#define SNIC_SRQN_NONE		0xffff
#define SNIC_MAX_XRCDS		256	/* XRC domains */

/*
 * Memory keys: bits 31:8 index the MR table, bits 7:0 are a tag the driver
 * chooses.  A key matches only when both parts do.  lkey 0 names bus
 * addresses directly and is accepted only on privileged (kernel) QPs.
 */
#define SNIC_KEY_INDEX(key)	((key) >> 8)
#define SNIC_KEY_TAG(key)	((key) & 0xff)
#define SNIC_MAKE_KEY(idx, tag)	(((__u32)(idx) << 8) | ((tag) & 0xff))
#define SNIC_LKEY_BUS		0

/* MR access flags (as the verbs access flags they carry) */
#define SNIC_ACCESS_LOCAL_WRITE		(1u << 0)
#define SNIC_ACCESS_REMOTE_WRITE	(1u << 1)
#define SNIC_ACCESS_REMOTE_READ		(1u << 2)
#define SNIC_ACCESS_REMOTE_ATOMIC	(1u << 3)
/* MR only: memory windows may be bound to it (SNIC_WQE_BIND_MW) */
#define SNIC_ACCESS_MW_BIND		(1u << 4)

#define SNIC_MR_F_PHYS		(1u << 0)	/* iova is a bus address, no pages */
#define SNIC_MR_F_FAST_REG	(1u << 1)	/* invalid until a REG_MR WQE */

/* CREATE_MR input buffer, 48 bytes (+ page list elsewhere) */
struct snic_mr_cfg {
	__le32 pdn;
	__le32 access;		/* SNIC_ACCESS_* */
	__le32 flags;		/* SNIC_MR_F_* */
	__le32 key_tag;		/* bits 7:0 of the key */
	__le64 iova;		/* first virtual address the key covers */
	__le64 length;		/* bytes */
	__le64 pas_addr;	/* bus address of npages __le64 page addresses */
	__le32 npages;		/* FAST_REG: maximum pages */
	__u8 page_shift;	/* 12..30 */
	__u8 rsvd[3];
};

/*
 * Memory windows (docs/snic-rdma.md "Memory windows"): ALLOC_MW makes an
 * unbound window of PD @pdn in the MR key space (key index and the
 * driver's tag, as CREATE_MR); a SNIC_WQE_BIND_MW WQE binds it to a
 * range of an MR with SNIC_ACCESS_MW_BIND.  Its key is then an rkey for
 * that range.  Type 2 windows are bound to the QP that bound them and
 * are invalidated by LOCAL_INV or a remote SEND with invalidate; type 1
 * windows only by a bind of length 0.
 */
#define SNIC_MW_TYPE_1		1
#define SNIC_MW_TYPE_2		2
#define SNIC_MAX_MWS		SNIC_MAX_MRS	/* they share the key table */

struct snic_aq_alloc_mw {
	__le32 pdn;
	__u8 type;		/* SNIC_MW_TYPE_* */
	__u8 key_tag;		/* bits 7:0 of the key */
	__u8 rsvd[50];
};

enum snic_qp_type {
	SNIC_QPT_RC		= 0,
	SNIC_QPT_UD		= 1,
	SNIC_QPT_GSI		= 2,	/* UD on qpn 1: RoCE CM MADs */
	SNIC_QPT_UC		= 3,	/* unreliable connected */
	SNIC_QPT_XRC_INI	= 4,	/* XRC initiator: send queue only */
	SNIC_QPT_XRC_TGT	= 5,	/* XRC target: no queues, an XRCD */
};

#define SNIC_QP_F_PRIV		(1u << 0)	/* kernel QP: lkey 0 allowed */
#define SNIC_QP_F_SIG_ALL	(1u << 1)	/* every send WQE completes */
#define SNIC_QP_F_PIPE		(1u << 2)	/* DMA-only notification pipe */
#define SNIC_QP_F_SSQ		(1u << 3)	/* with PIPE: sends via SSQs */

/*
 * CREATE_QP (inline, 56 bytes).  The send ring is 64-byte basic blocks,
 * the receive ring 2^rq_log_stride-byte WQEs.  The doorbell record holds
 * two le32 producer counters: receive WQEs at +0, send basic blocks at +4.
 * srqn SNIC_SRQN_NONE: the QP has its own receive ring.
 */
struct snic_aq_create_qp {
	__u8 type;		/* enum snic_qp_type */
	__u8 flags;		/* SNIC_QP_F_* */
	__u8 sq_log;		/* basic blocks, SNIC_MIN..MAX_LOG_SIZE */
	__u8 rq_log;		/* WQEs; 0 with an SRQ */
	__u8 rq_log_stride;	/* 5..8: 32..256 bytes per receive WQE */
	__u8 ci_every;		/* SNIC_QP_F_PIPE: consumer record every n */
	__le16 db_page;
	__le32 pdn;
	__le16 send_cqn;
	__le16 recv_cqn;
	__le16 srqn;
	__le16 xrcdn;		/* SNIC_QPT_XRC_TGT: its XRC domain */
	__le64 sq_addr;
	__le64 rq_addr;
	__le64 dbr_addr;
	__le64 ci_addr;		/* SNIC_QP_F_PIPE: consumer record */
};

/* QP states, numbered as the verbs enum ib_qp_state */
enum snic_qp_state {
	SNIC_QPS_RESET		= 0,
	SNIC_QPS_INIT		= 1,
	SNIC_QPS_RTR		= 2,
	SNIC_QPS_RTS		= 3,
	SNIC_QPS_SQD		= 4,
	SNIC_QPS_SQE		= 5,
	SNIC_QPS_ERR		= 6,
};

/* Path MTU, numbered as enum ib_mtu */
#define SNIC_MTU_256		1
#define SNIC_MTU_512		2
#define SNIC_MTU_1024		3
#define SNIC_MTU_2048		4
#define SNIC_MTU_4096		5

/* MODIFY_QP mask bits (which fields of struct snic_qp_attr apply) */
#define SNIC_QP_ATTR_STATE		(1u << 0)
#define SNIC_QP_ATTR_CUR_STATE		(1u << 1)
#define SNIC_QP_ATTR_ACCESS		(1u << 2)
#define SNIC_QP_ATTR_PKEY_INDEX		(1u << 3)
#define SNIC_QP_ATTR_QKEY		(1u << 4)
#define SNIC_QP_ATTR_AV			(1u << 5)
#define SNIC_QP_ATTR_PATH_MTU		(1u << 6)
#define SNIC_QP_ATTR_TIMEOUT		(1u << 7)
#define SNIC_QP_ATTR_RETRY_CNT		(1u << 8)
#define SNIC_QP_ATTR_RNR_RETRY		(1u << 9)
#define SNIC_QP_ATTR_RQ_PSN		(1u << 10)
#define SNIC_QP_ATTR_MAX_RD_ATOMIC	(1u << 11)
#define SNIC_QP_ATTR_MIN_RNR_TIMER	(1u << 12)
#define SNIC_QP_ATTR_SQ_PSN		(1u << 13)
#define SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC	(1u << 14)
#define SNIC_QP_ATTR_DEST_QPN		(1u << 15)
#define SNIC_QP_ATTR_SQD_NOTIFY		(1u << 16)

/* MODIFY_QP input / QUERY_QP output buffer, 96 bytes */
struct snic_qp_attr {
	__le32 mask;		/* SNIC_QP_ATTR_*; QUERY: all valid */
	__u8 state;		/* enum snic_qp_state */
	__u8 cur_state;
	__u8 path_mtu;		/* SNIC_MTU_* */
	__u8 timeout;		/* local ACK timeout: 4.096 us << timeout */
	__u8 retry_cnt;		/* 0..7 */
	__u8 rnr_retry;		/* 0..7, 7 = infinite */
	__u8 min_rnr_timer;	/* IB RNR timer code, 0..31 */
	__u8 max_rd_atomic;	/* READ/atomic we may have outstanding */
	__u8 max_dest_rd_atomic;	/* ... the remote may have at us */
	__u8 sqd_notify;
	__le16 pkey_index;
	__le32 dest_qpn;
	__le32 rq_psn;		/* expected PSN of the next request */
	__le32 sq_psn;		/* PSN of the next request we send */
	__le32 qkey;
	__le32 access;		/* SNIC_ACCESS_REMOTE_* the QP allows */
	struct snic_av av;
	/* QUERY_QP only: transport counters of this QP */
	__le32 retransmits;
	__le32 rnr_naks_rcvd;
	__le32 seq_naks_rcvd;
	__le32 sq_outstanding;	/* WQEs sent and not yet acknowledged */
	__le32 cc_rate_mbps;	/* DCQCN: current rate, Mbit/s (0: AIMD) */
	__u8 rsvd[8];
	/* with SNIC_QP_ATTR_AV and av.flags SNIC_AV_F_IPV6: the IPv6 path */
	__u8 sip6[16];
	__u8 dip6[16];
};

/*
 * struct snic_av flags.  IPV6: RoCEv2 over IPv6; the AV's sip/dip are
 * unused.  RC and UC QPs take the addresses from snic_qp_attr's
 * sip6/dip6; a UD or GSI WQE carries them in a struct snic_wqe_ud6
 * segment right after its ud segment.
 */
#define SNIC_AV_F_IPV6		(1u << 0)
/*
 * VLAN: the path's frames carry an 802.1Q tag, TCI = the AV's vlan_tci
 * (PCP in bits 15:13, VID in 11:0); received frames must carry that VID.
 * A user UD QP's VID is its source address table entry's (PCP the AV's).
 */
#define SNIC_AV_F_VLAN		(1u << 1)
#define SNIC_AV_F_ALL		(SNIC_AV_F_IPV6 | SNIC_AV_F_VLAN)

/*
 * CREATE_SRQ (inline).  2^log_size receive WQEs of 2^log_stride bytes;
 * the doorbell record is one le32 producer counter.  With SNIC_SRQ_F_XRC
 * an XRC SRQ of domain xrcdn: XRC_TGT QPs of that domain receive into it
 * (the XRCETH of a request names it) and complete on CQ cqn.
 */
#define SNIC_SRQ_F_XRC		(1u << 0)

struct snic_aq_create_srq {
	__le32 pdn;
	__u8 log_size;
	__u8 log_stride;	/* 5..8 */
	__le16 db_page;
	__le64 ring_addr;
	__le64 dbr_addr;
	__le32 limit;		/* arm the limit event at this many WQEs */
	__u8 flags;		/* SNIC_SRQ_F_* */
	__u8 rsvd0;
	__le16 xrcdn;		/* SNIC_SRQ_F_XRC: its XRC domain */
	__le16 cqn;		/* SNIC_SRQ_F_XRC: its completion queue */
	__u8 rsvd1[6];
};

/* MODIFY_SRQ (inline): (re)arm the limit event */
struct snic_aq_modify_srq {
	__le32 srqn;
	__le32 limit;		/* SNIC_EQE_SRQ_LIMIT when fewer WQEs remain */
};

/* ---- RDMA send WQE (send ring of an RC/UD/GSI QP) ----
 * ctrl (struct snic_wqe_ctrl: opcode, flags, wqe_idx, ds_cnt, imm) then,
 * by opcode:
 *   SEND / SEND_IMM / SEND_INV         [ud] data...
 *   RDMA_WRITE / RDMA_WRITE_IMM        raddr data...
 *   RDMA_READ                          raddr data... (scatter list)
 *   ATOMIC_CS / ATOMIC_FA              raddr atomic data (one 8-byte sge)
 *   REG_MR                             reg
 *   LOCAL_INV                          (ctrl.imm: key)
 *   CUSTOM                             raddr inline data... (ctrl.imm: the
 *                                      custom BTH opcode; inline: the
 *                                      request; data: the response's
 *                                      scatter list)
 * UD and GSI QPs put the ud segment after ctrl.  With SNIC_WQE_F_INLINE the
 * data segments are replaced by one inline segment.
 */
enum snic_wqe_rdma_opcode {
	SNIC_WQE_SEND		= 0x08,
	SNIC_WQE_SEND_IMM	= 0x09,
	SNIC_WQE_SEND_INV	= 0x0a,	/* ctrl.imm: rkey the receiver invalidates */
	SNIC_WQE_RDMA_WRITE	= 0x0b,
	SNIC_WQE_RDMA_WRITE_IMM	= 0x0c,
	SNIC_WQE_RDMA_READ	= 0x0d,
	SNIC_WQE_ATOMIC_CS	= 0x0e,
	SNIC_WQE_ATOMIC_FA	= 0x0f,
	SNIC_WQE_REG_MR		= 0x10,
	SNIC_WQE_LOCAL_INV	= 0x11,
	SNIC_WQE_CUSTOM		= 0x12,	/* custom-opcode request (RC) */
	SNIC_WQE_BIND_MW	= 0x13,	/* bind: struct snic_wqe_bind */
};

/* Custom BTH opcodes (manufacturer specific) a CUSTOM WQE may name */
#define SNIC_CUSTOM_OP_FIRST	0xc0
#define SNIC_CUSTOM_OP_LAST	0xdf
/* Largest response of a custom request (its RETH length) */
#define SNIC_CUSTOM_RESP_MAX	0x10000

/* ctrl.flags, besides SNIC_WQE_F_SIGNAL */
#define SNIC_WQE_F_SOLICITED	(1u << 1)
#define SNIC_WQE_F_FENCE	(1u << 2)	/* wait for earlier READ/atomic */
#define SNIC_WQE_F_INLINE	(1u << 3)

struct snic_wqe_raddr {
	__le64 addr;
	__le32 rkey;
	__le32 rsvd;
};

struct snic_wqe_atomic {
	__le64 swap_add;	/* CS: swap value; FA: addend */
	__le64 compare;		/* CS only */
};

struct snic_wqe_ud {
	struct snic_av av;
	__le32 dest_qpn;
	__le32 qkey;
	__u8 rsvd[8];
};

/*
 * UD/GSI over IPv6 (av.flags SNIC_AV_F_IPV6): the addresses, 32 bytes,
 * after the ud segment.  A user UD QP's sip6 is replaced by its source
 * address table entry's, as its smac is.
 */
struct snic_wqe_ud6 {
	__u8 sip6[16];
	__u8 dip6[16];
};

/* Inline data: this 4-byte header, then the bytes, padded to 16 */
#define SNIC_INLINE_SEG		(1u << 31)
struct snic_wqe_inline {
	__le32 byte_count;	/* SNIC_INLINE_SEG | length */
};

#define SNIC_MAX_RDMA_INLINE	(SNIC_WQE_MAX_BBS * SNIC_WQEBB_SIZE - 16 - \
				 sizeof(struct snic_wqe_ud) - 4)
/* Inline data of a UD QP: room for the IPv6 addresses too */
#define SNIC_MAX_UD_INLINE	(SNIC_MAX_RDMA_INLINE - \
				 sizeof(struct snic_wqe_ud6))

/* Fast registration of a SNIC_MR_F_FAST_REG MR, 48 bytes */
struct snic_wqe_reg {
	__le32 key;		/* new key: same index, new tag */
	__le32 access;		/* SNIC_ACCESS_* */
	__le64 iova;
	__le64 length;
	__le64 pas_addr;	/* bus address of the page list */
	__le32 npages;
	__u8 page_shift;
	__u8 rsvd[11];
};

/* Bind a memory window (SNIC_WQE_BIND_MW), 32 bytes */
struct snic_wqe_bind {
	__le32 mw_key;		/* the window's new key: its index, a new tag */
	__le32 mr_key;		/* the MR's lkey (SNIC_ACCESS_MW_BIND) */
	__le32 access;		/* SNIC_ACCESS_REMOTE_* the window grants */
	__le32 rsvd;
	__le64 addr;		/* first virtual address of the window */
	__le64 length;		/* 0: unbind (type 1 only) */
};

/* ---- Receive WQE (QP receive ring or SRQ): header + scatter list ---- */

struct snic_recv_hdr {
	__le64 cookie;		/* echoed in the CQE (wr_id) */
	__le16 num_sge;		/* struct snic_wqe_data entries that follow */
	__u8 rsvd[6];
};

/*
 * ---- DMA-only notification pipes (SNIC_QP_F_PIPE) ----
 * No doorbell: the host writes elements whose owner (phase) bit is 1 on
 * the first pass over the ring, 0 on the second, and so on; the device
 * polls.  Send pipe: 64-byte WQE basic blocks, SNIC_WQE_OWNER in the
 * first one's ctrl.owner.  Receive pipe: 16-byte struct snic_pipe_rqe,
 * four per 64-byte line.  The device writes its consumer counters to the
 * consumer record at ci_addr (le32 receive at +0, le32 send basic blocks
 * at +4) every ci_every elements and when it finds the pipe empty.
 */
#define SNIC_WQE_OWNER		(1u << 0)	/* ctrl.owner of a pipe SQE */
#define SNIC_PIPE_RQE_OWNER	(1u << 31)	/* in snic_pipe_rqe.byte_count */
#define SNIC_PIPE_RQE_SIZE	16
#define SNIC_PIPE_MIN_RQ_LOG	2		/* at least one line of RQEs */

/*
 * Scalable shared send queues: one send pipe per NIC core and doorbell
 * page (context), shared by that context's SNIC_QP_F_SSQ QPs on the core;
 * each SQE names its QP at byte SNIC_SSQ_QPN_OFF of its ctrl segment
 * (le32).  CREATE_SSQ (inline, 56 bytes); the consumer record holds the
 * le32 SSQ consumer (basic blocks) at +0.
 */
#define SNIC_MAX_SSQS		1024
#define SNIC_SSQ_QPN_OFF	12

struct snic_aq_create_ssq {
	__u8 log_size;		/* 2^n basic blocks, SNIC_MIN..MAX_LOG_SIZE */
	__u8 ci_every;		/* consumer record every n, 1..255 */
	__le16 db_page;		/* the context it serves */
	__u8 core;		/* NIC core, < the device's nic-cores */
	__u8 rsvd0[3];
	__le64 ring_addr;	/* 64-byte aligned */
	__le64 ci_addr;		/* 4-byte aligned */
	__u8 rsvd1[32];
};

/*
 * Low-latency QP receive ring (LLQ): SET_LLQ (inline, 56 bytes) gives an
 * RC QP in RESET or INIT a ring of 2^log_slots slots of 2^slot_log bytes.
 * A SEND_ONLY (no immediate, no invalidate) whose payload fits a slot is
 * placed in the next slot instead of a receive WQE, with no CQE: payload
 * at +0, then the 8-byte trailer at the slot's end, written after the
 * payload: le32 length, 3 bytes 0, the valid byte last (bit 0 the owner
 * phase of the slot counter, 1 on the first pass).  The host returns
 * slots by writing the le32 count it consumed at ci_addr; the device
 * re-reads it every ci_every slots and whenever the ring looks full.  A
 * full ring answers RNR NAK; a larger message takes the receive queue.
 * log_slots 0 removes the ring.
 */
#define SNIC_LLQ_TRAILER	8
#define SNIC_LLQ_VALID		(1u << 0)	/* owner phase in the valid byte */
#define SNIC_LLQ_MIN_SLOT_LOG	6		/* 64-byte slots: 56 bytes payload */
#define SNIC_LLQ_MAX_SLOT_LOG	12

struct snic_aq_set_llq {
	__le32 qpn;
	__u8 log_slots;		/* 2^n slots, SNIC_MIN..MAX_LOG_SIZE; 0: none */
	__u8 slot_log;		/* SNIC_LLQ_MIN..MAX_SLOT_LOG */
	__u8 ci_every;		/* re-read the consumer record every n, 1..255 */
	__u8 rsvd0;
	__le64 ring_addr;	/* 64-byte aligned */
	__le64 ci_addr;		/* 4-byte aligned le32: slots consumed */
	__u8 rsvd1[32];
};

struct snic_pipe_rqe {
	__le64 addr;		/* one scatter entry; byte count 0: none */
	__le32 lkey;
	__le32 byte_count;	/* bits 30:0 length, bit 31 owner (phase) */
};

/* ---- CQE (struct snic_cqe) for RDMA work ----
 * opcode SNIC_CQE_REQ / SNIC_CQE_RECV, or *_ERR with syndrome an
 * enum snic_rdma_status.  Fields used: byte_cnt, wqe_counter (send: the
 * WQE's wqe_idx; a completion also retires unsignaled WQEs before it),
 * rdma_qpn, rdma_flags, wqe_opcode, cookie (receive), imm, src_qpn and
 * smac (UD receive).
 */
enum snic_cqe_rdma_opcode {
	SNIC_CQE_REQ		= 0x04,
	SNIC_CQE_RECV		= 0x05,
	SNIC_CQE_REQ_ERR	= 0x0b,
	SNIC_CQE_RECV_ERR	= 0x0c,
};

/* cqe.rdma_flags */
#define SNIC_CQE_RF_IMM		(1u << 0)	/* imm valid */
#define SNIC_CQE_RF_INV		(1u << 1)	/* imm is the invalidated rkey */
#define SNIC_CQE_RF_GRH		(1u << 2)	/* UD: 40-byte GRH area filled */
#define SNIC_CQE_RF_SOLICITED	(1u << 3)
#define SNIC_CQE_RF_IPV6	(1u << 4)	/* UD: the GRH area is an IPv6 header */
#define SNIC_CQE_RF_VLAN	(1u << 5)	/* UD: vlan_tci is the frame's 802.1Q tag */
#define SNIC_CQE_RF_XRC		(1u << 6)	/* XRC_TGT: src_qpn is the XRC SRQ */

enum snic_rdma_status {
	SNIC_RST_OK		= 0,
	SNIC_RST_LOC_LEN	= 1,	/* local length error */
	SNIC_RST_LOC_QP_OP	= 2,	/* local QP operation error */
	SNIC_RST_LOC_PROT	= 3,	/* local protection (lkey) error */
	SNIC_RST_WR_FLUSH	= 4,	/* flushed: QP in error */
	SNIC_RST_BAD_RESP	= 5,	/* unexpected response */
	SNIC_RST_LOC_ACCESS	= 6,	/* local access error */
	SNIC_RST_REM_INV_REQ	= 7,	/* remote invalid request */
	SNIC_RST_REM_ACCESS	= 8,	/* remote access error */
	SNIC_RST_REM_OP		= 9,	/* remote operational error */
	SNIC_RST_RETRY_EXC	= 10,	/* transport retry counter exceeded */
	SNIC_RST_RNR_RETRY_EXC	= 11,	/* RNR retry counter exceeded */
	SNIC_RST_GENERAL	= 12,
	SNIC_RST_MW_BIND	= 13,	/* memory window bind refused */
};

/* ---- QP doorbells (BAR2, SNIC_DB_VAL(qpn or srqn, counter)) ---- */
#define SNIC_DB_CQ_ARM_SE	0x18	/* event on the next solicited/error CQE */
#define SNIC_DB_QP_SQ		0x1c	/* send producer, in basic blocks */
#define SNIC_DB_QP_RQ		0x20	/* receive producer, in WQEs */
#define SNIC_DB_SRQ		0x24	/* SRQ producer */
/*
 * WQE-by-MMIO on a QP's send queue (SNIC_CAP_RDMA_MMIO_WQE, BlueFlame
 * style): the first basic block of the send WQE just put in the ring,
 * ctrl.db_qn = qpn, ctrl.wqe_idx = its counter, written here as 16
 * dwords instead of the SNIC_DB_QP_SQ doorbell.  SNIC_DB_SQ_WQE_SIZE bytes.
 */
#define SNIC_DB_QP_SQ_WQE	0x840
/*
 * Read-only in every doorbell page: the device clock, the time base of
 * the CQE timestamps, in ns (SNIC_CLOCK_KHZ).  Reading LO latches HI.
 */
#define SNIC_DB_CLOCK_LO	0x28
#define SNIC_DB_CLOCK_HI	0x2c
#define SNIC_CLOCK_KHZ		1000000	/* 1 ns per tick */

/* ---- Async events on the port's async EQ ---- */
enum snic_eqe_rdma_type {
	SNIC_EQE_QP_ERROR	= 0x10,	/* obj: qpn, data: enum snic_rdma_status */
	SNIC_EQE_QP_SQ_DRAINED	= 0x11,	/* obj: qpn */
	SNIC_EQE_QP_COMM_EST	= 0x12,	/* obj: qpn, first packet in RTR */
	SNIC_EQE_QP_LAST_WQE	= 0x13,	/* obj: qpn, SRQ QP reached error */
	SNIC_EQE_SRQ_LIMIT	= 0x14,	/* obj: srqn */
};

/* ---- Statistics: QUERY_STATS kind SNIC_STATS_RDMA ---- */
#define SNIC_STATS_RDMA		5

/*
 * Every RDMA counter once, in index order: X(enum name, field).  The
 * field is the le64 of struct snic_rdma_stats and, as a string, the
 * name the QOM rdma-stats read-out and the ib port's hw_counters print.
 * The enum, the struct and every name table are generated from this
 * list; new counters go at the end.
 */
#define SNIC_RDMA_STATS(X) \
	X(SNIC_RDMA_STAT_TX_PKTS, tx_pkts)		/* RoCEv2 packets sent */ \
	X(SNIC_RDMA_STAT_TX_BYTES, tx_bytes)		/* their frame bytes */ \
	X(SNIC_RDMA_STAT_RX_PKTS, rx_pkts)		/* RoCEv2 packets accepted */ \
	X(SNIC_RDMA_STAT_RX_BYTES, rx_bytes)		/* their frame bytes */ \
	X(SNIC_RDMA_STAT_TX_ACKS, tx_acks)		/* ACKs sent */ \
	X(SNIC_RDMA_STAT_RX_ACKS, rx_acks)		/* ACKs and atomic ACKs received */ \
	X(SNIC_RDMA_STAT_RETRANSMITS, retransmits)	/* packets sent again */ \
	X(SNIC_RDMA_STAT_TIMEOUTS, timeouts)		/* retransmit timer expiries */ \
	X(SNIC_RDMA_STAT_SEQ_NAKS_SENT, seq_naks_sent)	/* PSN sequence NAKs */ \
	X(SNIC_RDMA_STAT_SEQ_NAKS_RCVD, seq_naks_rcvd) \
	X(SNIC_RDMA_STAT_RNR_NAKS_SENT, rnr_naks_sent)	/* receiver not ready NAKs */ \
	X(SNIC_RDMA_STAT_RNR_NAKS_RCVD, rnr_naks_rcvd) \
	X(SNIC_RDMA_STAT_REM_ACCESS_NAKS_SENT, rem_access_naks_sent)	/* remote access NAKs */ \
	X(SNIC_RDMA_STAT_REM_ACCESS_NAKS_RCVD, rem_access_naks_rcvd) \
	X(SNIC_RDMA_STAT_REM_OP_NAKS_SENT, rem_op_naks_sent)	/* remote operational NAKs */ \
	X(SNIC_RDMA_STAT_REM_OP_NAKS_RCVD, rem_op_naks_rcvd) \
	X(SNIC_RDMA_STAT_INV_REQ_NAKS_SENT, inv_req_naks_sent)	/* invalid request NAKs */ \
	X(SNIC_RDMA_STAT_INV_REQ_NAKS_RCVD, inv_req_naks_rcvd) \
	X(SNIC_RDMA_STAT_DUP_REQUESTS, dup_requests)	/* re-ACKed or re-executed */ \
	X(SNIC_RDMA_STAT_OUT_OF_SEQ, out_of_seq)	/* requests past the expected PSN */ \
	X(SNIC_RDMA_STAT_RX_ICRC_ERRORS, rx_icrc_errors)	/* dropped: bad ICRC */ \
	X(SNIC_RDMA_STAT_RX_MALFORMED, rx_malformed)	/* dropped: truncated or bad headers */ \
	X(SNIC_RDMA_STAT_RX_NO_QP, rx_no_qp)		/* dropped: unknown or wrong-state QP */ \
	X(SNIC_RDMA_STAT_RX_BAD_QKEY, rx_bad_qkey)	/* UD: qkey mismatch */ \
	X(SNIC_RDMA_STAT_LOSS_INJECTED, loss_injected)	/* dropped by the loss-injection knob */ \
	X(SNIC_RDMA_STAT_REQ_ERRORS, req_errors)	/* error send completions */ \
	X(SNIC_RDMA_STAT_RESP_ERRORS, resp_errors)	/* error receive completions */ \
	X(SNIC_RDMA_STAT_READ_RESPS, read_resps)	/* READ response packets sent */ \
	X(SNIC_RDMA_STAT_ATOMICS, atomics)		/* atomics executed */ \
	X(SNIC_RDMA_STAT_RX_BAD_SRC, rx_bad_src)	/* RC: dropped, not from the QP's path */ \
	X(SNIC_RDMA_STAT_TX_BAD_SRC, tx_bad_src)	/* user UD WQEs naming no source address */ \
	X(SNIC_RDMA_STAT_PIPE_POLLS, pipe_polls)	/* send pipe lines the device read */ \
	X(SNIC_RDMA_STAT_PIPE_EMPTY_POLLS, pipe_empty_polls)	/* of them: no new SQE */ \
	X(SNIC_RDMA_STAT_PIPE_SQES, pipe_sqes)		/* SQEs taken from send pipes */ \
	X(SNIC_RDMA_STAT_PIPE_RQES, pipe_rqes)		/* RQEs taken from receive pipes */ \
	X(SNIC_RDMA_STAT_PIPE_RQ_LINES, pipe_rq_lines)	/* receive pipe lines read */ \
	X(SNIC_RDMA_STAT_PIPE_CI_WRITES, pipe_ci_writes)	/* consumer record writebacks */ \
	X(SNIC_RDMA_STAT_PIPE_ERRORS, pipe_errors)	/* malformed pipe elements */ \
	X(SNIC_RDMA_STAT_PIPE_SQ_VISITS, pipe_sq_visits)	/* pipe SQs the poller served */ \
	X(SNIC_RDMA_STAT_MMIO_DOORBELLS, mmio_doorbells)	/* QP SQ/RQ doorbell writes */ \
	X(SNIC_RDMA_STAT_SSQ_SQES, ssq_sqes)		/* SQEs taken from shared send queues */ \
	X(SNIC_RDMA_STAT_CUSTOM_REQS, custom_reqs)	/* custom requests a handler answered */ \
	X(SNIC_RDMA_STAT_CUSTOM_RESPS, custom_resps)	/* their response packets sent */ \
	X(SNIC_RDMA_STAT_CUSTOM_NO_HANDLER, custom_no_handler)	/* NAKed: no handler for the opcode */ \
	X(SNIC_RDMA_STAT_CUSTOM_FAILED, custom_failed)	/* NAKed: handler aborted or gave no response */ \
	X(SNIC_RDMA_STAT_ECN_MARKED, ecn_marked)	/* RC packets received with CE set */ \
	X(SNIC_RDMA_STAT_CNP_SENT, cnp_sent)		/* CNPs sent (notification point) */ \
	X(SNIC_RDMA_STAT_CNP_RCVD, cnp_rcvd)		/* CNPs taken (reaction point) */ \
	X(SNIC_RDMA_STAT_CC_RATE_DECREASES, cc_rate_decreases)	/* DCQCN rate cuts */ \
	X(SNIC_RDMA_STAT_CC_RATE_INCREASES, cc_rate_increases)	/* DCQCN rate increase steps */ \
	X(SNIC_RDMA_STAT_UC_DROPPED, uc_dropped)	/* UC messages the responder dropped */ \
	X(SNIC_RDMA_STAT_LLQ_MSGS, llq_msgs)		/* SENDs placed in low-latency rings */ \
	X(SNIC_RDMA_STAT_LLQ_FULL, llq_full)		/* SENDs RNR-NAKed: low-latency ring full */ \
	X(SNIC_RDMA_STAT_LLQ_CI_READS, llq_ci_reads)	/* consumer record reads */ \
	X(SNIC_RDMA_STAT_RX_VLAN_PKTS, rx_vlan_pkts)	/* of rx_pkts: 802.1Q-tagged */ \
	X(SNIC_RDMA_STAT_MMIO_WQE, mmio_wqe)		/* QP WQE-by-MMIO lines taken as doorbells */ \
	X(SNIC_RDMA_STAT_WQE_FETCH_SAVED, wqe_fetch_saved)	/* QP WQEs run from a line */ \
	X(SNIC_RDMA_STAT_MMIO_WQE_ERRORS, mmio_wqe_errors)	/* QP lines refused: torn, bad QP or index */ \
	X(SNIC_RDMA_STAT_XRC_BAD_SRQN, xrc_bad_srqn)	/* XRC requests NAKed: SRQ unknown or of another XRCD */ \
	X(SNIC_RDMA_STAT_MW_BINDS, mw_binds)		/* memory window binds done */ \
	X(SNIC_RDMA_STAT_MW_BIND_ERRORS, mw_bind_errors)	/* binds refused (SNIC_RST_MW_BIND) */ \
	X(SNIC_RDMA_STAT_MW_INVALIDATES, mw_invalidates)	/* windows invalidated (LOCAL_INV, SEND_INV) */

/* The list helpers SNIC_STAT_ENUM, _NAME and _LE64: snic_ifc.h. */
enum snic_rdma_stat {
	SNIC_RDMA_STATS(SNIC_STAT_ENUM)
	SNIC_RDMA_STAT_COUNT,	/* number of counters */
};

struct snic_rdma_stats {
	SNIC_RDMA_STATS(SNIC_STAT_LE64)
};

#endif /* _D2D_SNIC_RDMA_IFC_H */
