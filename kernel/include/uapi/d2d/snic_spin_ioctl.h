/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * /dev/snic-spinN: the host interface of the snic sPIN engine (snic.ko).
 *
 * An open file owns what it creates: allocations of program and handler
 * memory, execution contexts, their UDP attachments and host regions.
 * Only that file may change them; all of it is torn down when the file is
 * released (close + munmap of its regions).  Statistics of any context can
 * be read by anyone who can open the device.  Steering UDP ports needs
 * CAP_NET_ADMIN, raw sends (SNIC_SPIN_CTX_SEND) CAP_NET_RAW, a QP of
 * another process CAP_NET_ADMIN; kernel QPs are never attached.  docs/snic-spin.md ("Host
 * interface") documents every field and errno.
 */
#ifndef _UAPI_D2D_SNIC_SPIN_IOCTL_H
#define _UAPI_D2D_SNIC_SPIN_IOCTL_H

#include <linux/ioctl.h>
#include <linux/types.h>
#include <d2d/snic_spin_hpu.h>

#define SNIC_SPIN_DEV_PREFIX	"snic-spin"	/* /dev/snic-spin0, ... */

/*
 * What user space passes and reads as the device defines it: device
 * memories, host-region flags, event ring entries, statistics
 * (<d2d/snic_spin_ifc.h>, the device interface, takes them from here).
 */
/* Device memories (spin_mem.mem) */
#define SNIC_SPIN_MEM_PROG	0	/* program memory */
#define SNIC_SPIN_MEM_L2H	1	/* L2 handler memory */

#define SNIC_SPIN_REGION_READ	0x1	/* handlers may DMA from it */
#define SNIC_SPIN_REGION_WRITE	0x2	/* handlers may DMA / host-write to it */

/* Event ring entry types */
enum snic_spin_ev_type {
	SNIC_SPIN_EV_WATCHDOG	= 1,	/* ran past the watchdog */
	SNIC_SPIN_EV_MEM_FAULT	= 2,	/* load/store outside its windows */
	SNIC_SPIN_EV_FETCH_FAULT = 3,	/* pc outside the code window */
	SNIC_SPIN_EV_ILLEGAL	= 4,	/* illegal instruction, ecall, ebreak */
	SNIC_SPIN_EV_DMA_FAULT	= 5,	/* DMA outside a registered region */
	SNIC_SPIN_EV_CMD_FAULT	= 6,	/* bad command descriptor */
	SNIC_SPIN_EV_BAD_RETURN	= 7,	/* unknown return code: dropped */
	SNIC_SPIN_EV_MSG_TIMEOUT = 8,	/* message inactive: abandoned */
};

#define SNIC_SPIN_EV_MAX	16
#define SNIC_SPIN_EV_OWNER	0x1

/* Event ring entry, 32 bytes */
struct snic_spin_event {
	__u8 type;		/* enum snic_spin_ev_type */
	__u8 handler;		/* SPIN_HANDLER_* */
	__le16 ctx;
	__le32 msg_id;
	__le32 pc;		/* faulting instruction */
	__le32 addr;		/* faulting address, or the instruction */
	__le32 info;		/* return code, command opcode */
	__le32 insns;		/* instructions run before the abort */
	__le32 cycles;
	__u8 rsvd[3];
	__u8 owner;		/* SNIC_SPIN_EV_OWNER: phase, 1 on first pass */
};

struct snic_spin_handler_stats {
	__le64 invocations;
	__le64 insns, insns_min, insns_max;
	__le64 cycles, cycles_min, cycles_max;	/* mean = total / invocations */
};

struct snic_spin_ctx_stats {
	__le64 packets, bytes;
	__le64 messages, messages_done;
	__le64 pass, drop;
	struct snic_spin_handler_stats h[SPIN_NUM_HANDLERS];
	__le64 commands, cmd_dma_bytes;
	__le64 sends, host_writes, atomics;
	__le64 aborts;
	__le64 events, event_overflows;
	__le64 no_resources;	/* dropped: packet buffer or message slots full */
	__le64 busy_cycles;	/* HPU cycles spent on this context */
	__le64 first_cycle;	/* device cycle of the first packet */
	__le64 last_cycle;	/* device cycle the last handler ended */
	__le64 occupancy_ppm;	/* busy / (span * HPUs), parts per million */
	__le64 throughput_mbps;	/* bytes * 8 over the span, at the clock */
	__le64 sat_mbps;	/* bytes * 8 * HPUs * clock / busy_cycles */
	__le64 by_event[SNIC_SPIN_EV_MAX];	/* counts per event type */
};

struct snic_spin_dev_stats {
	__le32 clusters, hpus_per_cluster;
	__le32 clock_mhz, num_ctxs;
	__le64 packets;
	__le64 no_ctx;		/* steered to a context that is gone */
	__le64 no_resources;
	__le64 aborts;
	__le64 busy_cycles;
	__le64 now_cycle;	/* latest HPU cycle */
	__le64 l2p_used, l2p_peak;	/* packet buffer bytes */
	__le64 qp_wd_refused;	/* QP attach refused: watchdog above the cap */
};

/* SNIC_SPIN_IOC_INFO */
struct snic_spin_info {
	__u32 clusters;
	__u32 hpus_per_cluster;
	__u32 clock_mhz;
	__u32 max_ctxs;
	__u32 pmem_size;	/* program memory */
	__u32 l2h_size;		/* L2 handler memory */
	__u32 pmem_free;	/* still unallocated */
	__u32 l2h_free;
	__u32 max_regions;	/* per context */
	__u32 max_region_size;	/* bytes per host region */
	__u32 perm_denied;	/* operations refused for want of a capability */
	__u32 rsvd;
	__u64 ev_irqs;		/* interrupts that carried sPIN event EQEs */
	__u64 ev_eqes;		/* SNIC_EQE_SPIN_EVENT entries taken */
};

/*
 * SNIC_SPIN_IOC_MEM_ALLOC / SNIC_SPIN_IOC_MEM_FREE: a zeroed piece of
 * program memory (SNIC_SPIN_MEM_PROG) or L2 handler memory
 * (SNIC_SPIN_MEM_L2H).  Sizes are rounded up to SNIC_SPIN_MEM_ALIGN.
 */
#define SNIC_SPIN_MEM_ALIGN	64

struct snic_spin_mem_alloc {
	__u32 mem;		/* SNIC_SPIN_MEM_* */
	__u32 size;		/* bytes */
	__u32 id;		/* out: allocation; FREE: in */
	__u32 offset;		/* out: offset in the device memory */
};

/*
 * SNIC_SPIN_IOC_MEM_WRITE / SNIC_SPIN_IOC_MEM_READ: copy len bytes between
 * user memory at data and allocation id at offset.
 */
struct snic_spin_mem_rw {
	__u32 id;
	__u32 offset;		/* in the allocation */
	__u64 data;		/* user pointer */
	__u32 len;
	__u32 rsvd;
};

/* SNIC_SPIN_IOC_CTX_CREATE */
#define SNIC_SPIN_EV_LOG_DEF	8	/* event ring entries 2^n when 0 */
/*
 * Handlers may send raw frames (SPIN_CMD_SEND): the opener needs
 * CAP_NET_RAW, else EPERM.  Without it the device refuses their sends.
 */
#define SNIC_SPIN_CTX_SEND	0x1

struct snic_spin_ctx_create {
	__u32 entry[SPIN_NUM_HANDLERS];	/* HPU addresses, 0: none */
	__u32 code_id;		/* program memory allocation: code window */
	__u32 hmem_id;		/* L2 handler memory allocation */
	__u32 scratch_size;	/* per-message L1 scratch */
	__u32 copy_bytes;	/* packet bytes copied into L1 */
	__u32 watchdog;		/* cycles, 0: device default */
	__u32 timeout_us;	/* message inactivity, 0: device default */
	__u32 ev_log_size;	/* 0: SNIC_SPIN_EV_LOG_DEF */
	__u32 flags;		/* SNIC_SPIN_CTX_* */
	__u32 rsvd[3];
	__u32 ctx;		/* out: context number */
};

/* SNIC_SPIN_IOC_CTX_DESTROY */
struct snic_spin_ctx_ref {
	__u32 ctx;
	__u32 rsvd;
};

/* SNIC_SPIN_IOC_ATTACH / SNIC_SPIN_IOC_DETACH */
#define SNIC_SPIN_ATTACH_UDP	0	/* UDP/IPv4 destination port */
#define SNIC_SPIN_ATTACH_QP	1	/* RDMA RC QP: port = its qpn */
#define SNIC_SPIN_MAX_ATTACH	8	/* per context */
#define SNIC_SPIN_RULE_PRIO	0x80	/* ahead of ntuple (0x100+) and RSS */

struct snic_spin_attach {
	__u32 ctx;
	__u32 type;		/* SNIC_SPIN_ATTACH_* */
	__u32 port;		/* UDP: destination port, 1..65535; QP: qpn */
	__u32 id;		/* out: attachment; DETACH: in */
};

/*
 * SNIC_SPIN_IOC_REG_OPCODE: custom RoCE opcode @opcode (0xc0..0xdf) on the
 * RC QP ctx is attached to runs the handler at @entry (an HPU address in
 * the context's code window; 0: unregister).  Needs CAP_NET_ADMIN.
 */
struct snic_spin_reg_opcode {
	__u32 ctx;
	__u32 opcode;
	__u32 entry;
	__u32 rsvd;
};

/*
 * SNIC_SPIN_IOC_REGION_ADD: a zeroed, physically contiguous host buffer
 * that handlers of ctx may DMA to / from (flags SNIC_SPIN_REGION_*).  The
 * caller maps it with mmap(fd, offset = mmap_offset, length = size) and
 * gives the handler bus_addr (spinctl writes it into the handler's
 * spin_regions table).
 */
struct snic_spin_region_add {
	__u32 ctx;
	__u32 flags;		/* SNIC_SPIN_REGION_READ | _WRITE */
	__u64 size;		/* bytes, rounded up to pages */
	__u32 index;		/* out: region index in the context */
	__u32 rsvd;
	__u64 bus_addr;		/* out */
	__u64 mmap_offset;	/* out */
};

/*
 * SNIC_SPIN_IOC_EVENTS: take up to max events from ctx's event ring into
 * the user array at buf (struct snic_spin_event each).  Owner only.
 * The device signals each event with an EQE on the driver's sPIN EQ; its
 * interrupt wakes poll()/select() on the file that owns the context
 * (POLLIN: some context of the file has events on its ring).
 */
struct snic_spin_events {
	__u32 ctx;
	__u32 max;
	__u64 buf;
	__u32 count;		/* out: events copied */
	__u32 notifies;		/* out: event EQEs seen for ctx so far */
	__u64 total;		/* out: events taken from the ring so far */
};

/*
 * SNIC_SPIN_IOC_STATS: the device's statistics of ctx (struct
 * snic_spin_ctx_stats), or with ctx = SNIC_SPIN_CTX_DEV the engine's
 * (struct snic_spin_dev_stats).  len: bytes at buf, at most the struct.
 */
#define SNIC_SPIN_CTX_DEV	0xffffffffu

struct snic_spin_stats {
	__u32 ctx;
	__u32 len;
	__u64 buf;
};

#define SNIC_SPIN_IOC_MAGIC	'S'
#define SNIC_SPIN_IOC_INFO	_IOR(SNIC_SPIN_IOC_MAGIC, 0x00, struct snic_spin_info)
#define SNIC_SPIN_IOC_MEM_ALLOC	_IOWR(SNIC_SPIN_IOC_MAGIC, 0x01, struct snic_spin_mem_alloc)
#define SNIC_SPIN_IOC_MEM_FREE	_IOW(SNIC_SPIN_IOC_MAGIC, 0x02, struct snic_spin_mem_alloc)
#define SNIC_SPIN_IOC_MEM_WRITE	_IOW(SNIC_SPIN_IOC_MAGIC, 0x03, struct snic_spin_mem_rw)
#define SNIC_SPIN_IOC_MEM_READ	_IOW(SNIC_SPIN_IOC_MAGIC, 0x04, struct snic_spin_mem_rw)
#define SNIC_SPIN_IOC_CTX_CREATE _IOWR(SNIC_SPIN_IOC_MAGIC, 0x05, struct snic_spin_ctx_create)
#define SNIC_SPIN_IOC_CTX_DESTROY _IOW(SNIC_SPIN_IOC_MAGIC, 0x06, struct snic_spin_ctx_ref)
#define SNIC_SPIN_IOC_ATTACH	_IOWR(SNIC_SPIN_IOC_MAGIC, 0x07, struct snic_spin_attach)
#define SNIC_SPIN_IOC_DETACH	_IOW(SNIC_SPIN_IOC_MAGIC, 0x08, struct snic_spin_attach)
#define SNIC_SPIN_IOC_REGION_ADD _IOWR(SNIC_SPIN_IOC_MAGIC, 0x09, struct snic_spin_region_add)
#define SNIC_SPIN_IOC_EVENTS	_IOWR(SNIC_SPIN_IOC_MAGIC, 0x0a, struct snic_spin_events)
#define SNIC_SPIN_IOC_STATS	_IOW(SNIC_SPIN_IOC_MAGIC, 0x0b, struct snic_spin_stats)
#define SNIC_SPIN_IOC_REG_OPCODE _IOW(SNIC_SPIN_IOC_MAGIC, 0x0c, struct snic_spin_reg_opcode)

#endif /* _UAPI_D2D_SNIC_SPIN_IOCTL_H */
