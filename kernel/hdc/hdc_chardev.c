// SPDX-License-Identifier: GPL-2.0
/*
 * hdc: /dev/hdc, the D2D API (<d2d/hdc_ioctl.h>, docs/hdc.md "Driver").
 *
 * The top of the request path: HDC_IOC_SUBMIT has the request built
 * (hdc_build.c: validate, map, encode) and queued.  Without
 * HDC_REQ_NOWAIT it sleeps until the request ended; with it, the request
 * stays on the open file until HDC_IOC_WAIT collects it.  Results (a user
 * destination's data, the length, digests) are copied out here.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "hdc.h"

struct hdc_file {
	struct hdc_dev *hd;
	spinlock_t lock;	/* reqs, nreqs, next_id */
	struct list_head reqs;	/* NOWAIT requests not yet collected */
	u32 nreqs;
	u64 next_id;
};

/* A user destination is copied out only into the submitter's memory. */
static bool hdc_req_owner(struct hdc_request *req)
{
	return !req->dbounce || req->mm == current->mm;
}

/* Results of a completed request to the user: data, length, digests. */
static int hdc_req_results(struct hdc_request *req, u64 *result_len,
			   u8 digest[HDC_MAX_FUNCS][32])
{
	if (req->err)
		return req->err;
	if (req->dbounce && req->result) {
		if (!hdc_req_owner(req))
			return -EPERM;
		if (req->result > req->dbounce_len)
			return -EIO;
		if (copy_to_user(u64_to_user_ptr(req->user_dst), req->dbounce,
				 req->result))
			return -EFAULT;
	}
	*result_len = req->result + req->sw_sent;
	memcpy(digest, req->digest, sizeof(req->digest));
	return 0;
}

/*
 * A receive (socket source): run to its end; the engine's report is
 * copied out also when it failed, for the bytes it says are missing.
 */
static long hdc_ioc_recv(struct hdc_request *req, struct hdc_req *r,
			 struct hdc_req __user *ureq)
{
	const struct hdc_net_rx *rep = &req->rx_report;
	long ret = hdc_nic_rx_exec(req, r->timeout_ms);

	if (!ret)
		ret = hdc_req_results(req, &r->result_len, r->digest);
	r->id = 0;
	r->rx.received = le64_to_cpu(rep->received);
	r->rx.gap_lo = le64_to_cpu(rep->gap_lo);
	r->rx.gap_hi = le64_to_cpu(rep->gap_hi);
	r->rx.datagrams = le32_to_cpu(rep->datagrams);
	r->rx.dropped = le32_to_cpu(rep->dropped);
	hdc_req_put(req);
	if (copy_to_user(ureq, r, sizeof(*r)))
		return -EFAULT;
	return ret;
}

static long hdc_ioc_submit(struct hdc_file *hf, struct hdc_req __user *ureq)
{
	struct hdc_dev *hd = hf->hd;
	struct hdc_request *req;
	struct hdc_req r;
	bool nowait;
	long ret;

	if (copy_from_user(&r, ureq, sizeof(r)))
		return -EFAULT;
	if (r.size != sizeof(r) ||
	    (r.flags & ~(HDC_REQ_NOWAIT | HDC_REQ_SW_P2P)))
		return -EINVAL;
	nowait = r.flags & HDC_REQ_NOWAIT;
	if (nowait && (r.flags & HDC_REQ_SW_P2P))
		return -EINVAL;

	/*
	 * No driver-wide lock while the request is built: it copies user
	 * memory and calls into the file system, either of which may block
	 * for as long as the caller likes (userfaultfd, FUSE).  The request
	 * holds a reference on the device; after removal the queue refuses
	 * it (-ENODEV).
	 */
	if (READ_ONCE(hd->gone))
		return -ENODEV;
	if (nowait && READ_ONCE(hf->nreqs) >= HDC_MAX_PENDING)
		return -EAGAIN;
	ret = hdc_build_req(hd, &r, &req);
	if (ret)
		return ret;
	if (!req->src_nic && r.timeout_ms) {
		hdc_build_cancel(req);
		hdc_req_put(req);
		return -EINVAL;
	}
	if (req->src_nic)
		return hdc_ioc_recv(req, &r, ureq);
	if (nowait) {
		spin_lock(&hf->lock);
		req->id = ++hf->next_id;
		list_add_tail(&req->node, &hf->reqs);
		hf->nreqs++;
		kref_get(&req->ref);	/* the list's */
		spin_unlock(&hf->lock);
	}
	ret = hdc_build_submit(req);
	if (ret) {
		if (nowait) {
			spin_lock(&hf->lock);
			list_del_init(&req->node);
			hf->nreqs--;
			spin_unlock(&hf->lock);
			hdc_req_put(req);
		}
		hdc_req_put(req);
		return ret;
	}

	if (nowait) {
		ret = put_user(req->id, &ureq->id) ? -EFAULT : 0;
		hdc_req_put(req);
		return ret;
	}
	/* A signal leaves the request running; it finishes by itself. */
	if (wait_for_completion_interruptible(&req->done)) {
		hdc_req_put(req);
		return -EINTR;
	}
	ret = hdc_req_results(req, &r.result_len, r.digest);
	r.id = 0;
	hdc_req_put(req);
	if (!ret && copy_to_user(ureq, &r, sizeof(r)))
		ret = -EFAULT;
	return ret;
}

static long hdc_ioc_wait(struct hdc_file *hf, struct hdc_wait __user *uw)
{
	struct hdc_request *req = NULL, *it;
	struct hdc_wait w;
	bool took = false;
	long ret;

	if (copy_from_user(&w, uw, sizeof(w)))
		return -EFAULT;
	if (w.rsvd)
		return -EINVAL;
	spin_lock(&hf->lock);
	list_for_each_entry(it, &hf->reqs, node) {
		if (it->id == w.id) {
			req = it;
			kref_get(&req->ref);
			break;
		}
	}
	spin_unlock(&hf->lock);
	if (!req)
		return -ENOENT;
	/* Another process sharing the file may not take the result away. */
	if (!hdc_req_owner(req)) {
		hdc_req_put(req);
		return -EPERM;
	}

	if (w.timeout_ms) {
		ret = wait_for_completion_interruptible_timeout(&req->done,
								msecs_to_jiffies(w.timeout_ms));
		if (!ret)
			ret = -ETIMEDOUT;
	} else {
		ret = wait_for_completion_interruptible(&req->done);
	}
	if (ret < 0) {
		hdc_req_put(req);
		return ret == -ERESTARTSYS ? -EINTR : ret;
	}

	spin_lock(&hf->lock);
	if (!list_empty(&req->node)) {
		list_del_init(&req->node);
		hf->nreqs--;
		took = true;
	}
	spin_unlock(&hf->lock);
	if (!took) {		/* another thread collected it */
		hdc_req_put(req);
		return -ENOENT;
	}
	ret = hdc_req_results(req, &w.result_len, w.digest);
	hdc_req_put(req);	/* the list's */
	hdc_req_put(req);
	if (!ret && copy_to_user(uw, &w, sizeof(w)))
		ret = -EFAULT;
	return ret;
}

static long hdc_ioc_caps(struct hdc_file *hf, struct hdc_caps __user *uc)
{
	struct hdc_dev *hd = hf->hd;
	struct hdc_caps c = {};

	/* Probing the disk does block I/O: no driver-wide lock held. */
	if (READ_ONCE(hd->gone))
		return -ENODEV;
	if (!READ_ONCE(hd->disk_name[0]))
		hdc_map_find_disk(hd);
	c.version = hd->version;
	c.caps = hd->caps;
	if (!hd->nvme.running)
		c.caps &= ~HDC_CAP_NVME;
	c.queue_depth = hd->q.depth;
	c.lba_shift = hd->nvme.lba_shift;
	c.nvme_lbas = hd->nvme.nsze;
	c.buf_size = hd->buf_size;
	mutex_lock(&hd->bdev_lock);
	strscpy(c.nvme_disk, hd->disk_name, sizeof(c.nvme_disk));
	mutex_unlock(&hd->bdev_lock);
	return copy_to_user(uc, &c, sizeof(c)) ? -EFAULT : 0;
}

static long hdc_ioc_stats(struct hdc_file *hf, struct hdc_stats __user *us)
{
	struct hdc_dev *hd = hf->hd;
	struct hdc_stats s = {};
	unsigned long flags;

	down_read(&hd->gone_lock);
	if (!hd->gone)
		hdc_stats_sync(hd);
	up_read(&hd->gone_lock);
	spin_lock_irqsave(&hd->stat_lock, flags);
	s.requests = hd->requests;
	s.errors = hd->errors;
	s.bytes_in = hd->bytes_in;
	s.bytes_out = hd->bytes_out;
	s.dev_cmds = hd->dev_cmds;
	s.nvme_cmds = hd->nvme_cmds;
	spin_unlock_irqrestore(&hd->stat_lock, flags);
	s.inflight = atomic_read(&hd->inflight);
	return copy_to_user(us, &s, sizeof(s)) ? -EFAULT : 0;
}

static long hdc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct hdc_file *hf = file->private_data;
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case HDC_IOC_SUBMIT:
		return hdc_ioc_submit(hf, argp);
	case HDC_IOC_WAIT:
		return hdc_ioc_wait(hf, argp);
	case HDC_IOC_CAPS:
		return hdc_ioc_caps(hf, argp);
	case HDC_IOC_STATS:
		return hdc_ioc_stats(hf, argp);
	default:
		return -ENOTTY;
	}
}

static int hdc_open(struct inode *inode, struct file *file)
{
	struct miscdevice *misc = file->private_data;
	struct hdc_dev *hd = container_of(misc, struct hdc_dev, misc);
	struct hdc_file *hf;

	hf = kzalloc(sizeof(*hf), GFP_KERNEL);
	if (!hf)
		return -ENOMEM;
	kref_get(&hd->ref);
	hf->hd = hd;
	spin_lock_init(&hf->lock);
	INIT_LIST_HEAD(&hf->reqs);
	file->private_data = hf;
	return nonseekable_open(inode, file);
}

/* Uncollected requests run to completion on their own. */
static int hdc_release(struct inode *inode, struct file *file)
{
	struct hdc_file *hf = file->private_data;
	struct hdc_request *req, *tmp;
	LIST_HEAD(reqs);

	spin_lock(&hf->lock);
	list_splice_init(&hf->reqs, &reqs);
	hf->nreqs = 0;
	spin_unlock(&hf->lock);
	list_for_each_entry_safe(req, tmp, &reqs, node) {
		list_del_init(&req->node);
		hdc_req_put(req);
	}
	hdc_dev_put(hf->hd);
	kfree(hf);
	return 0;
}

static const struct file_operations hdc_fops = {
	.owner = THIS_MODULE,
	.open = hdc_open,
	.release = hdc_release,
	.unlocked_ioctl = hdc_ioctl,
	.llseek = no_llseek,
};

int hdc_chardev_register(struct hdc_dev *hd)
{
	int ret;

	hd->misc.minor = MISC_DYNAMIC_MINOR;
	hd->misc.name = HDC_DRV_NAME;
	hd->misc.fops = &hdc_fops;
	hd->misc.parent = &hd->pdev->dev;
	hd->misc.groups = hdc_misc_groups;
	hd->misc.mode = 0666;
	ret = misc_register(&hd->misc);
	if (ret) {
		dev_err(&hd->pdev->dev, "cannot register /dev/%s (only one engine is supported): %d\n",
			HDC_DRV_NAME, ret);
		return ret;
	}
	hd->misc_registered = true;
	return 0;
}

void hdc_chardev_unregister(struct hdc_dev *hd)
{
	if (hd->misc_registered)
		misc_deregister(&hd->misc);
	hd->misc_registered = false;
}
