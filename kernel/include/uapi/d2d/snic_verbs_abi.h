/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * snic uverbs ABI: the driver-specific parts of the uverbs commands
 * (udata) exchanged between snic.ko and the libsnic provider.
 *
 * Rings live in coherent memory the kernel allocates (the device needs one
 * contiguous bus address per ring); user space maps them with mmap() at
 * the offsets returned here.  Each ucontext owns one BAR2 doorbell page.
 * docs/snic-rdma.md, "Provider ABI".
 */
#ifndef _UAPI_D2D_SNIC_VERBS_ABI_H
#define _UAPI_D2D_SNIC_VERBS_ABI_H

#include <linux/types.h>

#define SNIC_UVERBS_ABI_VERSION	1

/*
 * Address vector, 32 bytes: everything the transport needs to build
 * Ethernet / IPv4 / UDP headers.  The driver resolves GIDs (IPv4-mapped)
 * and neighbours; the device keeps no GID table.  User space gets it from
 * create_ah and puts it in UD WQEs; the device takes it as is
 * (<d2d/snic_rdma_ifc.h>).
 */
struct snic_av {
	__u8 dmac[6];
	__u8 smac[6];
	__be32 sip;
	__be32 dip;
	__u8 ttl;
	__u8 tos;		/* traffic class */
	__le16 udp_sport;	/* RoCEv2 source port (flow entropy) */
	__u8 sgid_index;	/* user UD QPs: source address table entry */
	__u8 flags;		/* SNIC_AV_F_* (<d2d/snic_rdma_ifc.h>) */
	__le16 vlan_tci;	/* with SNIC_AV_F_VLAN: 802.1Q PCP and VID */
	__u8 rsvd[4];
};

struct snic_alloc_ucontext_resp {
	__u32 db_page;		/* BAR2 page this context rings (NO_DB: errno) */
	__u32 max_inline;	/* bytes of inline send data */
	__aligned_u64 db_mmap_key;	/* mmap offset of that page */
	__u32 cqe_size;		/* sizeof(struct snic_cqe) */
	__u32 wqebb_size;	/* SNIC_WQEBB_SIZE */
	__u32 max_sge;
	__u32 flags;		/* SNIC_UCTX_F_* */
};

/* The device takes WQE-by-MMIO lines on QP send queues (SNIC_DB_QP_SQ_WQE). */
#define SNIC_UCTX_F_MMIO_WQE	(1u << 0)
/*
 * The context has no doorbell page (db_page holds the positive errno why,
 * ENOSPC when user contexts have taken all theirs): it cannot create CQs,
 * QPs or SRQs (they fail with that errno); libsnic fails the open with it.
 */
#define SNIC_UCTX_F_NO_DB	(1u << 1)

/* A ring mapping: ring bytes, then the doorbell record at dbr_offset. */
struct snic_create_cq_resp {
	__u32 cqn;
	__u32 log_size;		/* 2^log_size CQEs */
	__aligned_u64 mmap_key;
	__u32 mmap_len;
	__u32 dbr_offset;	/* le32 consumer counter */
};

/*
 * create_qp's driver words (optional: a shorter command is a doorbell QP).
 * SNIC_CREATE_QP_PIPE: a DMA-only notification pipe QP (no doorbell;
 * docs/snic-rdma.md "DMA-only notification pipes"), whose device writes
 * its consumer record every ci_every (1..255) elements.
 * SNIC_CREATE_QP_SSQ (with PIPE): the QP sends through its context's
 * shared send queues ("Scalable shared send queues"): the kernel creates
 * one SSQ per NIC core for the context on its first such QP, the device
 * places the QP on the least-loaded one and the response names it.
 */
#define SNIC_CREATE_QP_PIPE	(1u << 0)
#define SNIC_CREATE_QP_SSQ	(1u << 1)
/*
 * SNIC_CREATE_QP_LLQ (RC): a low-latency QP ("Low-latency QPs"): the
 * kernel gives it a ring of 2^llq_log_slots slots of 2^llq_slot_log
 * bytes that small SENDs are placed into; the response maps it.  The
 * llq_* words are read only with this flag (an older provider's 8-byte
 * command is still accepted).
 */
#define SNIC_CREATE_QP_LLQ	(1u << 2)

struct snic_create_qp_cmd {
	__u32 flags;		/* SNIC_CREATE_QP_* */
	__u32 ci_every;
	__u8 llq_log_slots;	/* SNIC_CREATE_QP_LLQ: 1..15 */
	__u8 llq_slot_log;	/* 6..12 */
	__u8 llq_ci_every;	/* 1..255 */
	__u8 rsvd[5];
};

/*
 * One mapping: send ring, receive ring, doorbell record (rq +0, sq +4);
 * a pipe QP: 16-byte RQEs (rq_log_stride 4) and the consumer record at
 * ci_offset (rq +0, sq +4).  SNIC_CREATE_QP_SSQ: the send ring is not
 * used; the QP's SSQ is ssq_index (its NIC core) of the context, one
 * mapping of its own (ssq_mmap_key, ssq_mmap_len): 2^ssq_log 64-byte
 * basic blocks at 0, the le32 SSQ consumer record at ssq_ci_offset.
 * Every QP on that SSQ gets the same key.  Its SQEs carry ssq_gen in
 * bits 31:24 of the QPN word (docs/snic-rdma.md).
 */
struct snic_create_qp_resp {
	__u32 qpn;
	__u32 max_inline;
	__u8 sq_log;		/* basic blocks */
	__u8 rq_log;		/* receive WQEs; 0 with an SRQ */
	__u8 rq_log_stride;
	__u8 flags;		/* SNIC_CREATE_QP_* in effect */
	__u8 rsvd[4];
	__aligned_u64 mmap_key;
	__u32 mmap_len;
	__u32 sq_offset;
	__u32 rq_offset;
	__u32 dbr_offset;
	__u32 ci_offset;	/* SNIC_CREATE_QP_PIPE */
	__u32 rsvd2;
	/* SNIC_CREATE_QP_SSQ */
	__u8 ssq_index;		/* the context's SSQ (= NIC core) */
	__u8 ssq_log;		/* basic blocks */
	__u8 ssq_gen;		/* the QP's SSQ generation */
	__u8 rsvd3;
	__u32 ssq_ci_offset;
	__aligned_u64 ssq_mmap_key;
	__u32 ssq_mmap_len;
	__u32 rsvd4;
	/* SNIC_CREATE_QP_LLQ: the slots at 0, le32 consumer at llq_ci_offset */
	__aligned_u64 llq_mmap_key;
	__u32 llq_mmap_len;
	__u32 llq_ci_offset;
};

struct snic_create_srq_resp {
	__u32 srqn;
	__u8 log_size;
	__u8 log_stride;
	__u8 rsvd[2];
	__aligned_u64 mmap_key;
	__u32 mmap_len;
	__u32 dbr_offset;	/* le32 producer counter */
};

/* The resolved address vector the provider copies into UD WQEs. */
/*
 * With SNIC_AV_F_IPV6 in av.flags the datagram goes over IPv6 between
 * sip6 and dip6: a UD WQE carries them after its ud segment.
 */
struct snic_create_ah_resp {
	struct snic_av av;
	__u8 sip6[16];
	__u8 dip6[16];
};

#endif /* _UAPI_D2D_SNIC_VERBS_ABI_H */
