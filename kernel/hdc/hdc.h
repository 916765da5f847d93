/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hdc: driver-private definitions.
 *
 * The device interface is defined once in <d2d/hdc_ifc.h>, the /dev/hdc
 * ABI in <d2d/hdc_ioctl.h>; docs/hdc.md documents both and this driver.
 */
#ifndef _HDC_H
#define _HDC_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <d2d/hdc_ifc.h>
#include <d2d/kunit.h>
#include <d2d/hdc_ioctl.h>
#include <d2d/snic_peer.h>
#include <linux/netdevice.h>

#define HDC_DRV_NAME		"hdc"

/* A request refused for bad input: one rate-limited line naming the caller. */
#define hdc_uerr(hd, fmt, ...)						\
	dev_info_ratelimited(&(hd)->pdev->dev, "%s[%d]: " fmt,		\
			     current->comm, task_pid_nr(current), ##__VA_ARGS__)
#define HDC_CMD_VECTOR		0
#define HDC_RESET_TIMEOUT_MS	1000
#define HDC_NVME_TIMEOUT_MS	15000
#define HDC_DRAIN_TIMEOUT_MS	10000
#define HDC_EXEC_TIMEOUT_MS	10000
#define HDC_MAX_BDEVS		4
#define HDC_USER_MAX		(4u << 20)	/* bounce buffer per user endpoint */
#define HDC_MAX_PENDING		1024		/* NOWAIT requests per open file */

/* The host command queue (hdc_queue.c). */
struct hdc_queue {
	struct hdc_cmd *cmdq;
	struct hdc_cpl *cplq;
	dma_addr_t cmdq_dma;
	dma_addr_t cplq_dma;
	u32 depth;
	u32 tail;		/* next command slot */
	u32 head;		/* next completion slot */
	u8 phase;
	u16 gen;		/* upper bits of cmd_id, catches stale completions */
	u32 posted;		/* commands the device owns */
	bool dead;		/* no more submissions (device going away) */
	spinlock_t lock;	/* everything above, slot[], backlog */
	struct hdc_request **slot;
	u16 *slot_id;
	struct list_head backlog;	/* requests waiting for a ring slot */
	wait_queue_head_t idle;		/* posted == 0 and backlog empty */
	u64 stale;
};

/* The engine's NVMe controller (hdc_nvme.c). */
struct hdc_nvme {
	struct pci_dev *pdev;
	bool enabled;		/* we enabled it as a PCI bus master */
	bool running;		/* HDC_REG_NVME_STATUS said RUNNING */
	u32 lba_shift;
	u64 nsze;		/* namespace size in LBAs */
};

/* The engine's NIC queues on a snic port (hdc_nic.c). */
struct hdc_nic {
	struct mutex lock;	/* everything below */
	struct snic_peer *snic;	/* NULL: not set up */
	struct list_head node;	/* in hdc_nic.c's engines, while snic is set */
	struct snic_peer_queue sq;
	struct snic_peer_queue cq;
	struct snic_peer_queue ack_rq;	/* TCP: ACKs to the engine (hdc_tcp.c) */
	struct snic_peer_queue ack_rcq;
	bool ack_up;			/* ack_rq and ack_rcq exist */
	bool ack_rule;			/* a TCP transfer's steering rule is in */
	u32 ack_rule_id;
	char ifname[IFNAMSIZ];
	struct mutex sw_lock;	/* one HDC_REQ_SW_P2P transfer at a time */
	/* the receive queues (sockets as sources), up and down with the above */
	bool rx_up;
	struct snic_peer_queue rq;
	struct snic_peer_queue rcq;
	bool have_rule;		/* a receive's steering rule is installed */
	u32 rule_id;
	u16 rx_port;		/* its port, 0 if none (sysfs nic_rx_port) */
	struct mutex rx_lock;	/* one receive at a time; taken before lock */
};

struct hdc_dev {
	struct kref ref;	/* probe, open files, requests */
	struct pci_dev *pdev;
	void __iomem *regs;
	struct rw_semaphore gone_lock;	/* readers: register reads of ioctls */
	bool gone;		/* removed: -ENODEV from now on */
	struct hdc_queue q;
	struct hdc_nvme nvme;
	struct hdc_nic nic;
	struct workqueue_struct *wq;	/* finishes completed requests */
	struct miscdevice misc;
	bool misc_registered;
	int num_vectors;
	u32 version;
	u32 caps;
	u32 buf_size;

	/* Block devices proven to be the engine's namespace (hdc_map.c). */
	struct mutex bdev_lock;
	dev_t bdevs[HDC_MAX_BDEVS];
	int nbdevs;
	char disk_name[32];

	/* Statistics (struct hdc_stats, sysfs). */
	spinlock_t stat_lock;
	u64 requests;
	u64 errors;
	u64 bytes_in;
	u64 bytes_out;
	u64 dev_cmds;
	u64 nvme_cmds;
	u32 raw_dev_cmds;
	u32 raw_nvme_cmds;
	u64 mem_refused;	/* requests refused for pinned memory */
	u64 tcp_sends;		/* TCP sockets handed over to send */
	u64 tcp_recvs;		/* ... to receive */
	u64 tcp_resets;		/* ... reset at the hand-back */
	atomic_t inflight;
	atomic_long_t user_pages;	/* coherent pages of unprivileged requests */
};

/* A file endpoint of a request. */
struct hdc_fdep {
	struct file *file;
	u64 off;
	bool dio;		/* holds an i_dio_count reference */
};

/* An extent list being built (hdc_build.c, hdc_map.c). */
/* A file range as the file system maps it (hdc_map.c) */
enum hdc_seg_kind {
	HDC_SEG_DATA,
	HDC_SEG_HOLE,		/* or unwritten: read as zeros */
};

struct hdc_seg {
	u64 off;		/* file offset */
	u64 len;
	u64 phys;		/* byte address on the file system's device */
	u8 kind;		/* enum hdc_seg_kind */
};

struct hdc_segs {
	struct hdc_seg *s;
	u32 n;
	u32 cap;
};

struct hdc_extlist {
	struct hdc_extent *ext;
	u32 n;
	u32 cap;
};

/*
 * One D2D request (hdc_req.c).  References: the submitter, the open
 * file's list of NOWAIT requests, and the device while it is in flight
 * (dropped by hdc_req_end()).
 */
struct hdc_request {
	struct kref ref;
	struct hdc_dev *hd;
	struct list_head node;		/* hdc_file.reqs */
	struct list_head qnode;		/* backlog, completion batch */
	u64 id;
	struct hdc_cmd cmd;

	/* aux + extent lists, one coherent buffer */
	void *dbuf;
	dma_addr_t dbuf_dma;
	size_t dbuf_len;
	struct hdc_aux *aux;
	/* bounce buffers of HDC_UEP_USER endpoints and internal reads */
	void *sbounce;
	dma_addr_t sbounce_dma;
	size_t sbounce_len;
	void *dbounce;
	dma_addr_t dbounce_dma;
	size_t dbounce_len;
	u64 user_dst;			/* user address for the result */
	const void *mm;			/* submitter's mm (identity only) */
	struct user_struct *user;	/* charged for the coherent buffers */
	bool unlimited;			/* CAP_IPC_LOCK: not charged */

	struct hdc_fdep src;
	struct hdc_fdep dst;
	bool dst_nic;			/* dst.file is a socket: the NIC */
	bool dst_tcp;			/* ... a TCP one (hdc_tcp.c) */
	bool src_nic;			/* src.file is a socket: a receive */
	bool src_tcp;			/* ... a TCP one (hdc_tcp_rx.c) */
	u32 rx_prefix_max;		/* TCP: room for the unread bytes */
	struct sock *tcp_sk;		/* TCP: the socket held (a reference) */
	struct hdc_net_rx rx;		/* its filter */
	struct hdc_net_rx *rx_dev;	/* in dbuf: what the engine reads/writes */
	struct hdc_net_rx rx_report;	/* the engine's report, at completion */
	u64 sw_sent;			/* HDC_REQ_SW_P2P, TCP: bytes the driver sent */
	struct hdc_net_flow flow;	/* its header template */
	u64 length;
	u64 dst_cap;			/* bytes of blocks prepared */
	loff_t dst_orig_size;		/* i_size before the request */
	loff_t dst_prep_size;		/* i_size the preparation left */
	bool dst_prepared;		/* the destination file was changed */
	bool dst_resize;		/* set i_size after completion (deflate) */
	bool dst_frozen;		/* holds the destination's sb_start_write */
	bool internal;			/* the driver's own, not counted */
	bool drv_done;			/* ran while built: no command */
	/* dbuf bytes [keep_off, + keep_len) copied to keep at the end */
	u32 keep_off;
	u32 keep_len;
	u8 keep[32];

	/*
	 * Set by the request's builder; the queue calls it once when the
	 * device completed the request or it was failed (drv_err), in any
	 * context (hard IRQ).  It defers to work, which ends with
	 * hdc_req_end().
	 */
	void (*end_io)(struct hdc_request *req);

	/* results */
	int drv_err;			/* failed by the driver, not the device */
	u16 status;
	u64 result;
	int err;
	u8 digest[HDC_MAX_FUNCS][32];
	struct work_struct work;
	struct completion done;
};

static inline u32 hdc_rd(struct hdc_dev *hd, u32 reg)
{
	return ioread32(hd->regs + reg);
}

static inline void hdc_wr(struct hdc_dev *hd, u32 reg, u32 val)
{
	iowrite32(val, hd->regs + reg);
}

/*
 * A request's error as its caller sees it: whatever failed once the
 * device was removed (its NIC queues taken down under a transfer, the
 * engine reset) failed because the device went away: -ENODEV.
 */
static inline int hdc_gone_err(struct hdc_dev *hd, int err)
{
	return err && READ_ONCE(hd->gone) ? -ENODEV : err;
}

/*
 * The files by layer, top first; each calls only the ones below it
 * (docs/hdc.md, "Driver").  hdc_main.c (PCI probe/remove) is the top and
 * has no entry points for the others.
 */

/* hdc_chardev.c: /dev/hdc and its ioctls */
int hdc_chardev_register(struct hdc_dev *hd);
void hdc_chardev_unregister(struct hdc_dev *hd);

/* hdc_sysfs.c: attributes of /dev/hdc */
extern const struct attribute_group *hdc_misc_groups[];
void hdc_sysfs_init(void);

/* hdc_build.c: a request from struct hdc_req (validate, map, encode) */
int hdc_build_req(struct hdc_dev *hd, const struct hdc_req *r,
		  struct hdc_request **out);
int hdc_build_submit(struct hdc_request *req);
void hdc_build_cancel(struct hdc_request *req);

/* hdc_map.c: file ranges to extents, the proof of the engine's SSD */
int hdc_map_check_file(struct hdc_dev *hd, struct file *file, bool dst);
int hdc_map_src(struct hdc_dev *hd, struct hdc_request *req,
		struct hdc_extlist *xl, bool pin);
int hdc_map_dst(struct hdc_dev *hd, struct hdc_request *req, u64 out_len,
		bool exact, struct hdc_extlist *xl, struct hdc_extlist *sx);
void hdc_map_dst_finish(struct hdc_request *req, int err);
void hdc_map_src_finish(struct hdc_request *req);
int hdc_map_find_disk(struct hdc_dev *hd);

/* hdc_req.c: the life of a request; the device structure's last put */
void hdc_dev_put(struct hdc_dev *hd);
struct hdc_request *hdc_req_alloc(struct hdc_dev *hd);
int hdc_req_alloc_dbuf(struct hdc_request *req, size_t len);
int hdc_req_bounce(struct hdc_request *req, bool dst, size_t len);
void hdc_req_nvme_src(struct hdc_request *req, const struct hdc_extent *x,
		      u32 n, u64 len);
int hdc_req_submit(struct hdc_request *req);
int hdc_req_start_done(struct hdc_request *req);
int hdc_req_exec_sync(struct hdc_request *req);
/* The same with a timeout of @ms instead of HDC_EXEC_TIMEOUT_MS. */
int hdc_req_exec_timeout(struct hdc_request *req, unsigned int ms);
int hdc_req_status(struct hdc_request *req);
void hdc_req_end(struct hdc_request *req, int err);
void hdc_req_put(struct hdc_request *req);

/* hdc_queue.c: the host command queue, the device's command counters */
int hdc_queue_init(struct hdc_dev *hd);
void hdc_queue_destroy(struct hdc_dev *hd);
irqreturn_t hdc_queue_irq(int irq, void *data);
int hdc_queue_submit(struct hdc_dev *hd, struct hdc_request *req);
void hdc_queue_stop(struct hdc_dev *hd);
void hdc_stats_sync(struct hdc_dev *hd);
void hdc_stat_inc(struct hdc_dev *hd, u64 *counter);

/* hdc_nvme.c: the engine's NVMe controller */
int hdc_nvme_attach(struct hdc_dev *hd);
void hdc_nvme_detach(struct hdc_dev *hd);
const char *hdc_nvme_state_str(u32 state);

/* hdc_nic.c: the engine's NIC queues, sockets as endpoints */
void hdc_nic_init(struct hdc_dev *hd);
void hdc_nic_detach(struct hdc_dev *hd);
int hdc_nic_register(void);
void hdc_nic_unregister(void);
int hdc_nic_flow(struct hdc_dev *hd, struct file *file,
		 struct hdc_net_flow *f);
s64 hdc_nic_sw_p2p(struct hdc_dev *hd, const struct hdc_extent *x, u32 n,
		   u64 len, struct hdc_net_flow *flow);
int hdc_nic_bind(struct hdc_dev *hd, struct net_device *dev);
struct sock;
int hdc_nic_l3(struct hdc_dev *hd, struct sock *sk, u8 proto,
	       struct hdc_net_flow *f, u32 *mtu);
int hdc_nic_step(struct hdc_dev *hd, size_t dlen,
		 void (*fill)(struct hdc_request *r, const void *arg),
		 void (*done)(struct hdc_request *r, void *arg), void *arg,
		 unsigned int ms);

int hdc_nic_steer_tcp(struct hdc_dev *hd, const struct hdc_net_flow *f);
void hdc_nic_unsteer(struct hdc_dev *hd);

/* ... and its receive queues: sockets as sources, their steering rule */
int hdc_nic_rx_src(struct hdc_dev *hd, struct file *file,
		   struct hdc_net_rx *rx);
int hdc_nic_rx_steer(struct hdc_dev *hd, const struct hdc_net_rx *rx);
void hdc_nic_rx_unsteer(struct hdc_dev *hd);

/* hdc_nic_rx.c: a receive run to its end */
int hdc_nic_rx_exec(struct hdc_request *req, u32 timeout_ms);

/* hdc_tcp.c: TCP sockets as destinations, the state handover */
bool hdc_tcp_is_tcp(struct file *file);
int hdc_tcp_check(struct hdc_dev *hd, struct file *file, u32 flags,
		  u32 nfuncs, u32 src_type);
s64 hdc_tcp_send(struct hdc_dev *hd, struct file *file,
		 const struct hdc_extent *x, u32 n, u64 len);
int hdc_tcp_hold(struct hdc_dev *hd, struct sock *sk, bool rx);
void hdc_tcp_state(struct sock *sk, struct hdc_net_flow *f, u32 mtu);
void hdc_tcp_reset(struct hdc_dev *hd, struct sock *sk, int err);

/* hdc_tcp_rx.c: TCP sockets as sources, the receive side's handover */
int hdc_tcp_rx_src(struct hdc_dev *hd, struct file *file,
		   struct hdc_request *req);
size_t hdc_tcp_rx_dlen(const struct hdc_request *req);
void hdc_tcp_rx_encode(struct hdc_request *req);
int hdc_tcp_rx_take(struct hdc_request *req);
void hdc_tcp_rx_give(struct hdc_request *req, int err, bool ran);

#if IS_ENABLED(CONFIG_KUNIT)
/* helpers under test (hdc_kunit.c) */
void hdc_segs_free(struct hdc_segs *sg);
int hdc_seg_add(struct hdc_segs *sg, u64 off, u64 len, u64 phys, u8 kind);
int hdc_out_bound(u64 len, int ndeflate, u64 *bound);
int hdc_ext_slice(const struct hdc_extent *x, u32 n, u32 shift, u64 off,
		  u64 len, struct hdc_extent *out, u32 max);
#endif

#endif /* _HDC_H */
