/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * snic sPIN: what a handler running on an HPU sees - its address map, the
 * argument block, the command-unit registers and descriptor, command
 * opcodes and return codes.
 *
 * Freestanding on purpose (no includes, compiler-provided fixed-width
 * types) so that the handler SDK compiles it with
 * clang --target=riscv32 -ffreestanding and the host, the kernel and the
 * QEMU model include it through <d2d/snic_spin_ifc.h>.  docs/snic-spin.md
 * describes every field.  All fields are little endian (RV32 is).
 */
#ifndef _UAPI_D2D_SNIC_SPIN_HPU_H
#define _UAPI_D2D_SNIC_SPIN_HPU_H

/*
 * A little-endian 32-bit field the device writes and the handler reads.
 * The handler reads it as it is (RV32 is little endian); under sparse
 * (__CHECKER__, where <linux/types.h> is always included first) it is
 * __le32, so the device model must convert each value it stores
 * (tools/sparse-models.sh).
 */
#ifdef __CHECKER__
#define __spin_le32	__le32
#else
#define __spin_le32	__UINT32_TYPE__
#endif

/*
 * HPU address map.  Every window is per handler: the code window and the
 * handler-memory window are the context's, L1 is the HPU's own slot, the
 * scratch window is the message's, the packet-buffer window is the
 * packet's.  Any other address aborts the handler.
 */
#define SPIN_CODE_BASE		0x00100000	/* context's code (program memory) */
#define SPIN_EXIT_ADDR		0x0000f000	/* ra at entry: jumping here returns */
#define SPIN_L1_BASE		0x10000000	/* the HPU's L1 slot */
#define SPIN_L1_SLOT_SIZE	0x10000
#define SPIN_ARGS_ADDR		0x10000000	/* struct spin_args, a0 at entry */
#define SPIN_PKT_ADDR		0x10000100	/* first copy_bytes of the packet */
#define SPIN_PKT_MAX		0x2400		/* largest frame: 9216 bytes */
#define SPIN_STACK_TOP		0x10010000	/* sp at entry */
#define SPIN_SCRATCH_BASE	0x10100000	/* per-message scratch in L1 */
#define SPIN_SCRATCH_MAX	0x1000
#define SPIN_HMEM_BASE		0x20000000	/* context's L2 handler memory */
#define SPIN_PKTBUF_BASE	0x30000000	/* whole packet, L2 packet buffer */
#define SPIN_CMD_BASE		0x40000000	/* command unit of this HPU */
#define SPIN_CMD_SIZE		0x100
#define SPIN_CUSTOM_ADDR	0x10000040	/* struct spin_custom (custom handler) */
#define SPIN_RESP_BASE		0x50000000	/* custom handler: its response */

/* Handler kinds (spin_args.handler, statistics index) */
#define SPIN_HANDLER_HEADER	0
#define SPIN_HANDLER_PAYLOAD	1
#define SPIN_HANDLER_COMPLETION	2
#define SPIN_NUM_HANDLERS	3
#define SPIN_HANDLER_CUSTOM	3	/* spin_args.handler of a custom handler */

/* Return codes (a0 when the handler returns) */
#define SPIN_DROP		0	/* packet consumed by the NIC */
#define SPIN_PASS		1	/* deliver the packet to the host */
#define SPIN_PASS_CSUM		2	/* refill IPv4/UDP/TCP checksums, then deliver */

/* spin_args.flags */
#define SPIN_ARG_F_FIRST	0x1	/* first packet of its message */
#define SPIN_ARG_F_LAST		0x2	/* last packet of its message */

/* Handler argument block at SPIN_ARGS_ADDR, 64 bytes */
struct spin_args {
	__spin_le32 pkt;		/* SPIN_PKT_ADDR (0: no packet) */
	__spin_le32 pkt_len;	/* bytes copied there */
	__spin_le32 pkt_l2;		/* SPIN_PKTBUF_BASE (0: no packet) */
	__spin_le32 full_len;	/* whole packet in the packet buffer */
	__spin_le32 msg_id;		/* per context, from 0 */
	__spin_le32 pkt_idx;	/* packet index in the message */
	__spin_le32 flags;		/* SPIN_ARG_F_* */
	__spin_le32 handler;	/* SPIN_HANDLER_* */
	__spin_le32 hmem;		/* SPIN_HMEM_BASE */
	__spin_le32 hmem_size;
	__spin_le32 scratch;	/* SPIN_SCRATCH_BASE (0: none) */
	__spin_le32 scratch_size;
	__spin_le32 ctx_id;
	__spin_le32 msg_pkts;	/* completion: packets in the message */
	__spin_le32 msg_bytes;	/* completion: bytes in the message */
	__spin_le32 hpu;		/* cluster << 8 | HPU in cluster */
};

/*
 * Command unit, at SPIN_CMD_BASE.  The runtime stores a descriptor at
 * offset 0, then a 32-bit load of SPIN_CMD_REG_ISSUE issues it and returns
 * its handle (0..SPIN_CMD_SLOTS-1; with every slot busy the load waits for
 * the oldest).  A load of SPIN_CMD_REG_STATUS + 4 * handle tests it, of
 * SPIN_CMD_REG_WAIT + 4 * handle waits for it; SPIN_CMD_REG_RESULT +
 * 4 * handle is an atomic's old value.  A bad descriptor, a DMA outside
 * the context's registered host regions or a local buffer outside the
 * handler's windows aborts the handler.
 */
#define SPIN_CMD_REG_DESC	0x00	/* struct spin_cmd, 64 bytes */
#define SPIN_CMD_REG_ISSUE	0x40	/* load: issue, returns the handle */
#define SPIN_CMD_REG_STATUS	0x80	/* + 4 * handle, load: SPIN_CMD_ST_* */
#define SPIN_CMD_REG_WAIT	0xa0	/* + 4 * handle, load: wait, SPIN_CMD_ST_* */
#define SPIN_CMD_REG_RESULT	0xc0	/* + 4 * handle, load: atomic old value */
#define SPIN_CMD_SLOTS		8

#define SPIN_CMD_ST_DONE	0
#define SPIN_CMD_ST_PENDING	1
#define SPIN_CMD_ST_IDLE	2	/* handle never issued */

/* Command opcodes (spin_cmd.op) */
#define SPIN_CMD_DMA_TO_HOST	1	/* local -> host_addr, len bytes */
#define SPIN_CMD_DMA_FROM_HOST	2	/* host_addr -> local, len bytes */
#define SPIN_CMD_SEND		3	/* send the frame at local, len bytes */
#define SPIN_CMD_HOST_WRITE	4	/* imm[0..len) -> host_addr, len <= 32 */
#define SPIN_CMD_ATOMIC		5	/* on the handler-memory word at local */
#define SPIN_CMD_RESP		6	/* custom handler: send the response */

#define SPIN_HOST_WRITE_MAX	32
#define SPIN_DMA_MAX		0x10000	/* bytes per DMA command */

/* spin_cmd.flags for SPIN_CMD_SEND: checksum offload */
#define SPIN_SEND_CSUM_L3	0x1	/* fill the IPv4 header checksum */
#define SPIN_SEND_CSUM_L4	0x2	/* fill the UDP/TCP checksum */

/* spin_cmd.flags for SPIN_CMD_ATOMIC: the operation (32-bit words) */
#define SPIN_ATOMIC_ADD		0	/* *p += arg0 */
#define SPIN_ATOMIC_SWAP	1	/* *p = arg0 */
#define SPIN_ATOMIC_CAS		2	/* if (*p == arg1) *p = arg0 */
#define SPIN_ATOMIC_AND		3
#define SPIN_ATOMIC_OR		4
#define SPIN_ATOMIC_MAXU	5	/* unsigned maximum */

/* Command descriptor, 64 bytes at SPIN_CMD_BASE + SPIN_CMD_REG_DESC */
struct spin_cmd {
	__UINT32_TYPE__ op;		/* SPIN_CMD_* opcode */
	__UINT32_TYPE__ flags;		/* SPIN_SEND_* or SPIN_ATOMIC_* */
	__UINT32_TYPE__ local;		/* HPU address of the local buffer/word */
	__UINT32_TYPE__ len;		/* bytes */
	__UINT32_TYPE__ host_lo;	/* host bus address */
	__UINT32_TYPE__ host_hi;
	__UINT32_TYPE__ arg0;		/* atomic operand */
	__UINT32_TYPE__ arg1;		/* atomic compare value */
	__UINT8_TYPE__ imm[32];		/* host-direct write data */
};

/*
 * A custom-opcode request, at SPIN_CUSTOM_ADDR in a custom handler's L1
 * (docs/snic-spin.md "Offload engine").  The response window at
 * SPIN_RESP_BASE holds resp_len zeroed bytes; SPIN_CMD_RESP sends them.
 */
struct spin_custom {
	__spin_le32 opcode;		/* BTH opcode */
	__spin_le32 qpn;		/* the responder's QP */
	__spin_le32 psn;		/* the request's PSN */
	__spin_le32 resp_len;	/* RETH length: response bytes */
	__spin_le32 va_lo;		/* RETH virtual address (argument) */
	__spin_le32 va_hi;
	__spin_le32 rkey;		/* RETH rkey (argument) */
	__spin_le32 req;		/* request payload: packet-buffer address */
	__spin_le32 req_len;	/* its bytes */
	__spin_le32 rsvd[7];
};

#endif /* _UAPI_D2D_SNIC_SPIN_HPU_H */
