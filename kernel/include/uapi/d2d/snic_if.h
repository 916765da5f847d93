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
#ifndef _UAPI_D2D_SNIC_IF_H
#define _UAPI_D2D_SNIC_IF_H

#include <linux/types.h>

#define SNIC_PCI_VENDOR_ID	0x1234
#define SNIC_PCI_DEVICE_ID	0xd201

/* BAR numbers and sizes */
#define SNIC_BAR_REGS		0
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
};

/* Capabilities */
#define SNIC_CAP_ADMINQ		(1ull << 0)

/* Admin queue geometry */
#define SNIC_AQ_ALIGN		64
#define SNIC_AQ_MIN_DEPTH	2
#define SNIC_AQ_MAX_DEPTH	4096

/* Admin opcodes */
enum snic_aq_opcode {
	SNIC_AQ_NOP		= 0x00,
	SNIC_AQ_IDENTIFY	= 0x01,
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

/* 64-byte admin command */
struct snic_aq_cmd {
	__u8 opcode;		/* enum snic_aq_opcode */
	__u8 flags;
	__le16 cmd_id;		/* echoed in the completion */
	__le32 rsvd;
	union {
		struct snic_aq_identify identify;
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
	__u8 rsvd[176];
};

#endif /* _UAPI_D2D_SNIC_IF_H */
