/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * /dev/hdc: the D2D API.  A request names a source and a destination (a
 * file descriptor with an offset, a user buffer, or nothing), a length and
 * a chain of near-device functions.  Permissions are those of the
 * descriptors: the source must be open for reading, the destination for
 * writing.  docs/hdc.md documents every field and errno.
 */
#ifndef _UAPI_D2D_HDC_IOCTL_H
#define _UAPI_D2D_HDC_IOCTL_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Near-device functions, as requests name them and the engine runs them */
enum hdc_func {
	HDC_FN_NONE		= 0,
	HDC_FN_CRC32C		= 1,	/* digest: 4 bytes, little endian */
	HDC_FN_MD5		= 2,	/* digest: 16 bytes */
	HDC_FN_SHA256		= 3,	/* digest: 32 bytes */
	HDC_FN_AES256_CTR	= 4,	/* transform: key and IV from aux */
	HDC_FN_DEFLATE		= 5,	/* transform: zlib stream */
	HDC_FN_SHA1		= 6,	/* digest: 20 bytes */
	HDC_FN_CRC32		= 7,	/* digest: IEEE 802.3 CRC, 4 bytes LE */
	HDC_FN_GZIP		= 8,	/* transform: gzip member (RFC 1952) */
	HDC_FN_MAX		= 8,
};

#define HDC_MAX_FUNCS		4

enum hdc_uep_type {
	HDC_UEP_NONE		= 0,	/* destination only: consume (digest) */
	HDC_UEP_FD		= 1,	/* regular file on the engine's SSD */
	HDC_UEP_USER		= 2,	/* user memory buffer */
};

struct hdc_uendpoint {
	__u32 type;		/* enum hdc_uep_type */
	__s32 fd;
	__u64 offset;		/* FD: byte offset in the file */
	__u64 addr;		/* USER: buffer address */
	__u64 len;		/* USER: buffer bytes */
};

#define HDC_REQ_NOWAIT		(1u << 0)	/* return at once; HDC_IOC_WAIT later */
/*
 * File to socket only, no functions, blocking: the software-controlled
 * peer-to-peer baseline - the driver runs it chunk by chunk (SSD to the
 * engine's device buffer, then that buffer to the NIC), one interrupt
 * per step, instead of handing the whole transfer to the engine.
 */
#define HDC_REQ_SW_P2P		(1u << 1)

struct hdc_req {
	__u32 size;		/* sizeof(struct hdc_req) */
	__u32 flags;		/* HDC_REQ_* */
	struct hdc_uendpoint src;
	struct hdc_uendpoint dst;
	__u64 length;		/* source bytes */
	__u32 nfuncs;
	__u32 funcs[HDC_MAX_FUNCS];	/* enum hdc_func, in order */
	__u8 aes_key[32];
	__u8 aes_iv[16];
	__u32 timeout_ms;	/* socket source: give up after (0: never) */
	/* out */
	__u64 id;		/* request id (for NOWAIT) */
	__u64 result_len;	/* bytes written to the destination */
	__u8 digest[HDC_MAX_FUNCS][32];
	struct hdc_rx_report {	/* socket source, also when it failed */
		__u64 received;	/* bytes received in order */
		__u64 gap_lo;	/* EREMOTEIO: bytes [gap_lo, gap_hi) missing */
		__u64 gap_hi;
		__u32 datagrams;	/* placed */
		__u32 dropped;	/* malformed, outside the range, duplicates */
	} rx;
};

struct hdc_wait {
	__u64 id;
	__u32 timeout_ms;	/* 0: forever */
	__u32 rsvd;
	/* out: as in struct hdc_req */
	__u64 result_len;
	__u8 digest[HDC_MAX_FUNCS][32];
};

/* HDC_IOC_CAPS: the device's version and capabilities, as it reports them */
#define HDC_VERSION		0x00000001	/* major << 16 | minor */

#define HDC_CAP_NVME		(1u << 0)
#define HDC_CAP_CRC32C		(1u << 1)
#define HDC_CAP_MD5		(1u << 2)
#define HDC_CAP_SHA256		(1u << 3)
#define HDC_CAP_AES256_CTR	(1u << 4)
#define HDC_CAP_DEFLATE		(1u << 5)
#define HDC_CAP_SHA1		(1u << 6)
#define HDC_CAP_CRC32		(1u << 7)
#define HDC_CAP_GZIP		(1u << 8)
#define HDC_CAP_NIC		(1u << 16)	/* HDC_EP_NIC destinations */
#define HDC_CAP_NIC_RX		(1u << 17)	/* HDC_EP_NIC sources */
#define HDC_CAP_TCP		(1u << 18)	/* HDC_EP_NIC destinations of TCP flows */

struct hdc_caps {
	__u32 version;		/* HDC_VERSION */
	__u32 caps;		/* HDC_CAP_* */
	__u32 queue_depth;
	__u32 lba_shift;
	__u64 nvme_lbas;
	__u64 buf_size;
	char nvme_disk[32];	/* the host block device sharing the namespace */
};

struct hdc_stats {
	__u64 requests;
	__u64 errors;
	__u64 bytes_in;		/* source bytes */
	__u64 bytes_out;	/* destination bytes */
	__u64 dev_cmds;		/* scoreboard device commands */
	__u64 nvme_cmds;
	__u64 inflight;
};

#define HDC_IOC_MAGIC		'H'
#define HDC_IOC_SUBMIT		_IOWR(HDC_IOC_MAGIC, 1, struct hdc_req)
#define HDC_IOC_WAIT		_IOWR(HDC_IOC_MAGIC, 2, struct hdc_wait)
#define HDC_IOC_CAPS		_IOR(HDC_IOC_MAGIC, 3, struct hdc_caps)
#define HDC_IOC_STATS		_IOR(HDC_IOC_MAGIC, 4, struct hdc_stats)

#endif /* _UAPI_D2D_HDC_IOCTL_H */
