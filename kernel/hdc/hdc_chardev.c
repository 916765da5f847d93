// SPDX-License-Identifier: GPL-2.0
/*
 * hdc: /dev/hdc, the D2D API (<d2d/hdc_ioctl.h>, docs/hdc.md "Driver").
 *
 * HDC_IOC_SUBMIT checks a request against the descriptors it names,
 * maps file ranges to extents (hdc_map.c), bounces user buffers through
 * coherent memory and queues one D2D command.  Without HDC_REQ_NOWAIT it
 * sleeps until the command completed; with it, the request stays on the
 * open file until HDC_IOC_WAIT collects it.  A completed request is
 * finished by a work item (file size, page cache, statistics) before its
 * waiters wake, so that the destination is final when they do.
 */
#include <linux/dma-mapping.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
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

static const char *hdc_status_str(u16 status)
{
	switch (status) {
	case HDC_ST_OK:		return "ok";
	case HDC_ST_EINVAL:	return "invalid command";
	case HDC_ST_EDMA:	return "DMA error";
	case HDC_ST_ENVME:	return "NVMe command failed";
	case HDC_ST_ENOSPC:	return "destination too small";
	case HDC_ST_ENODEV:	return "NVMe controller not running";
	case HDC_ST_ERANGE:	return "extent beyond the namespace";
	default:		return "unknown status";
	}
}

static int hdc_status_errno(u16 status)
{
	switch (status) {
	case HDC_ST_OK:		return 0;
	case HDC_ST_EINVAL:	return -EINVAL;
	case HDC_ST_ENOSPC:	return -ENOSPC;
	case HDC_ST_ENODEV:	return -ENODEV;
	case HDC_ST_ERANGE:	return -ERANGE;
	default:		return -EIO;
	}
}

static void hdc_req_work(struct work_struct *work);

unsigned int hdc_user_mem_max_kib = 256 * 1024;
module_param_named(user_mem_max_kib, hdc_user_mem_max_kib, uint, 0644);
MODULE_PARM_DESC(user_mem_max_kib,
		 "coherent memory all users without CAP_IPC_LOCK may pin together (KiB)");

static unsigned long hdc_pages(size_t len)
{
	return PAGE_ALIGN(max_t(size_t, len, 1)) >> PAGE_SHIFT;
}

/*
 * Coherent buffers of a user's request are pinned memory: charged to the
 * user's RLIMIT_MEMLOCK (user->locked_vm, as io_uring does) and to a cap
 * on all unprivileged users together, which keeps a reserve for
 * CAP_IPC_LOCK callers and the driver's own commands (never charged).
 * The charge is given back when the buffer is freed, so a request that
 * runs on after its submitter was interrupted stays counted.
 */
static int hdc_req_charge(struct hdc_request *req, size_t len)
{
	struct hdc_dev *hd = req->hd;
	unsigned long pages = hdc_pages(len), limit, max;
	unsigned long flags;
	int ret;

	if (!req->user || req->unlimited)
		return 0;
	limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	max = (unsigned long)READ_ONCE(hdc_user_mem_max_kib) >> (PAGE_SHIFT - 10);
	ret = -ENOMEM;
	if (atomic_long_add_return(pages, &req->user->locked_vm) > limit)
		goto undo_user;
	ret = -EAGAIN;
	if (atomic_long_add_return(pages, &hd->user_pages) > max)
		goto undo_all;
	return 0;

undo_all:
	atomic_long_sub(pages, &hd->user_pages);
undo_user:
	atomic_long_sub(pages, &req->user->locked_vm);
	spin_lock_irqsave(&hd->stat_lock, flags);
	hd->mem_refused++;
	spin_unlock_irqrestore(&hd->stat_lock, flags);
	dev_info_ratelimited(&hd->pdev->dev,
			     "%s[%d]: %zu bytes of DMA memory over the %s limit\n",
			     current->comm, task_pid_nr(current), len,
			     ret == -ENOMEM ? "RLIMIT_MEMLOCK" : "user_mem_max_kib");
	return ret;
}

static void hdc_req_uncharge(struct hdc_request *req, size_t len)
{
	unsigned long pages = hdc_pages(len);

	if (!req->user || req->unlimited)
		return;
	atomic_long_sub(pages, &req->hd->user_pages);
	atomic_long_sub(pages, &req->user->locked_vm);
}

struct hdc_request *hdc_req_alloc(struct hdc_dev *hd)
{
	struct hdc_request *req = kzalloc(sizeof(*req), GFP_KERNEL);

	if (!req)
		return NULL;
	kref_init(&req->ref);
	kref_get(&hd->ref);
	req->hd = hd;
	INIT_LIST_HEAD(&req->node);
	INIT_LIST_HEAD(&req->qnode);
	INIT_WORK(&req->work, hdc_req_work);
	init_completion(&req->done);
	return req;
}

int hdc_req_alloc_dbuf(struct hdc_request *req, size_t len)
{
	int ret = hdc_req_charge(req, len);

	if (ret)
		return ret;
	req->dbuf = dma_alloc_coherent(&req->hd->pdev->dev, len,
				       &req->dbuf_dma, GFP_KERNEL);
	if (!req->dbuf) {
		hdc_req_uncharge(req, len);
		return -ENOMEM;
	}
	req->dbuf_len = len;
	return 0;
}

/* A coherent bounce buffer for a host-memory endpoint. */
int hdc_req_bounce(struct hdc_request *req, bool dst, size_t len)
{
	struct device *dev = &req->hd->pdev->dev;
	dma_addr_t dma;
	void *buf;
	int ret;

	ret = hdc_req_charge(req, len);
	if (ret)
		return ret;
	buf = dma_alloc_coherent(dev, max_t(size_t, len, 1), &dma, GFP_KERNEL);
	if (!buf) {
		hdc_req_uncharge(req, len);
		return -ENOMEM;
	}
	if (dst) {
		req->dbounce = buf;
		req->dbounce_dma = dma;
		req->dbounce_len = len;
	} else {
		req->sbounce = buf;
		req->sbounce_dma = dma;
		req->sbounce_len = len;
	}
	return 0;
}

static void hdc_req_free_dma(struct hdc_request *req, bool dst_bounce)
{
	struct device *dev = &req->hd->pdev->dev;

	if (req->dbuf) {
		dma_free_coherent(dev, req->dbuf_len, req->dbuf, req->dbuf_dma);
		hdc_req_uncharge(req, req->dbuf_len);
	}
	req->dbuf = NULL;
	req->aux = NULL;
	if (req->sbounce) {
		dma_free_coherent(dev, max_t(size_t, req->sbounce_len, 1),
				  req->sbounce, req->sbounce_dma);
		hdc_req_uncharge(req, req->sbounce_len);
	}
	req->sbounce = NULL;
	if (dst_bounce && req->dbounce) {
		dma_free_coherent(dev, max_t(size_t, req->dbounce_len, 1),
				  req->dbounce, req->dbounce_dma);
		hdc_req_uncharge(req, req->dbounce_len);
		req->dbounce = NULL;
	}
}

/* Give the files back: inode references, page cache, file size. */
static void hdc_req_finish_files(struct hdc_request *req, int err)
{
	if (req->src.file) {
		hdc_map_src_finish(req);
		fput(req->src.file);
		req->src.file = NULL;
	}
	if (req->dst.file) {
		hdc_map_dst_finish(req, err);
		fput(req->dst.file);
		req->dst.file = NULL;
	}
}

static void hdc_req_release(struct kref *ref)
{
	struct hdc_request *req = container_of(ref, struct hdc_request, ref);
	struct hdc_dev *hd = req->hd;

	hdc_req_finish_files(req, -ECANCELED);
	hdc_req_free_dma(req, true);
	if (req->user)
		free_uid(req->user);
	kfree(req);
	hdc_dev_put(hd);
}

void hdc_req_put(struct hdc_request *req)
{
	kref_put(&req->ref, hdc_req_release);
}

/* Called by the queue when the device completed req (or gave up on it). */
void hdc_req_complete(struct hdc_request *req)
{
	queue_work(req->hd->wq, &req->work);
}

static void hdc_req_work(struct work_struct *work)
{
	struct hdc_request *req = container_of(work, struct hdc_request, work);
	struct hdc_dev *hd = req->hd;
	unsigned long flags;
	int err;

	err = req->drv_err;
	if (!err) {
		err = hdc_status_errno(req->status);
		if (err)
			dev_info_ratelimited(&hd->pdev->dev,
					     "request %llu failed: %s (status %u, device error %u)\n",
					     req->id, hdc_status_str(req->status),
					     req->status,
					     hd->gone ? 0 : hdc_rd(hd, HDC_REG_ERROR));
	}
	if (!err && req->aux)
		memcpy(req->digest, req->aux->digest, sizeof(req->digest));
	hdc_req_finish_files(req, err);
	hdc_req_free_dma(req, false);

	if (!req->internal) {
		spin_lock_irqsave(&hd->stat_lock, flags);
		hd->requests++;
		if (err) {
			hd->errors++;
		} else {
			hd->bytes_in += req->length;
			hd->bytes_out += req->result;
		}
		spin_unlock_irqrestore(&hd->stat_lock, flags);
	}
	atomic_dec(&hd->inflight);
	req->err = err;
	complete_all(&req->done);
	hdc_req_put(req);	/* the device's reference */
}

static int hdc_req_queue(struct hdc_request *req)
{
	int ret;

	kref_get(&req->ref);	/* for the device, dropped by hdc_req_work */
	ret = hdc_queue_submit(req->hd, req);
	if (ret)
		hdc_req_put(req);
	return ret;
}

/* Run a driver-internal command and wait for it. */
int hdc_exec_sync(struct hdc_request *req)
{
	int ret;

	req->internal = true;
	ret = hdc_req_queue(req);
	if (ret)
		return ret;
	if (!wait_for_completion_timeout(&req->done,
					 msecs_to_jiffies(HDC_EXEC_TIMEOUT_MS))) {
		dev_err(&req->hd->pdev->dev, "internal command timed out\n");
		return -ETIMEDOUT;
	}
	return req->err;
}

static int hdc_check_funcs(struct hdc_dev *hd, const struct hdc_req *r,
			   int *ndeflate)
{
	u32 i, f;

	if (r->nfuncs > HDC_MAX_FUNCS) {
		dev_info_ratelimited(&hd->pdev->dev, "%s: %u functions (at most %u)\n",
				     current->comm, r->nfuncs, HDC_MAX_FUNCS);
		return -EINVAL;
	}
	for (i = 0; i < HDC_MAX_FUNCS; i++) {
		f = r->funcs[i];
		if (i >= r->nfuncs) {
			if (f)
				return -EINVAL;
			continue;
		}
		if (f == HDC_FN_NONE || f > HDC_FN_MAX) {
			dev_info_ratelimited(&hd->pdev->dev, "%s: unknown function id %u\n",
					     current->comm, f);
			return -EINVAL;
		}
		if (!(hd->caps & BIT(f))) {
			dev_info_ratelimited(&hd->pdev->dev, "%s: function %u not offered by this engine\n",
					     current->comm, f);
			return -EOPNOTSUPP;
		}
		if (f == HDC_FN_DEFLATE)
			(*ndeflate)++;
	}
	return 0;
}

/* The most a chain can write: deflate may expand incompressible data. */
static int hdc_out_bound(u64 len, int ndeflate, u64 *bound)
{
	while (ndeflate--) {
		u64 b = len + (len >> 8) + 4096;

		if (b < len)
			return -EFBIG;
		len = b;
	}
	*bound = len;
	return 0;
}

static void hdc_set_ep(struct hdc_endpoint *ep, u8 type, u64 count, u64 addr)
{
	ep->type = type;
	ep->count = cpu_to_le32(count);
	ep->addr = cpu_to_le64(addr);
}

/*
 * Build a request from the user's struct hdc_req: every check that can
 * fail on bad input comes before the destination file is touched.
 */
static int hdc_req_build(struct hdc_dev *hd, const struct hdc_req *r,
			 struct hdc_request **out)
{
	struct hdc_extlist sx = {}, dx = {};
	struct hdc_request *req;
	size_t aux_len = ALIGN(sizeof(struct hdc_aux), 16);
	u64 out_len;
	int ndeflate = 0, ret;
	bool same;
	u32 i;

	ret = hdc_check_funcs(hd, r, &ndeflate);
	if (ret)
		return ret;
	if (r->src.type != HDC_UEP_FD && r->src.type != HDC_UEP_USER) {
		dev_info_ratelimited(&hd->pdev->dev, "%s: bad source type %u\n",
				     current->comm, r->src.type);
		return -EINVAL;
	}
	if (r->dst.type > HDC_UEP_USER) {
		dev_info_ratelimited(&hd->pdev->dev, "%s: bad destination type %u\n",
				     current->comm, r->dst.type);
		return -EINVAL;
	}
	ret = hdc_out_bound(r->length, ndeflate, &out_len);
	if (ret)
		return ret;

	req = hdc_req_alloc(hd);
	if (!req)
		return -ENOMEM;
	req->length = r->length;
	req->mm = current->mm;
	req->user = get_current_user();
	req->unlimited = capable(CAP_IPC_LOCK);

	/* Source */
	if (r->src.type == HDC_UEP_FD) {
		req->src.file = fget(r->src.fd);
		ret = -EBADF;
		if (!req->src.file)
			goto err;
		req->src.off = r->src.offset;
		ret = hdc_map_check_file(hd, req->src.file, false);
		if (ret)
			goto err;
	} else {
		ret = -EINVAL;
		if (r->length > r->src.len || r->length > HDC_USER_MAX) {
			dev_info_ratelimited(&hd->pdev->dev, "%s: user source of %llu bytes (buffer %llu, at most %u)\n",
					     current->comm, r->length,
					     r->src.len, HDC_USER_MAX);
			goto err;
		}
		ret = hdc_req_bounce(req, false, r->length);
		if (ret)
			goto err;
		ret = -EFAULT;
		if (copy_from_user(req->sbounce, u64_to_user_ptr(r->src.addr),
				   r->length))
			goto err;
	}

	/* Destination: checks only */
	if (r->dst.type == HDC_UEP_FD) {
		struct inode *si, *di;

		req->dst.file = fget(r->dst.fd);
		ret = -EBADF;
		if (!req->dst.file)
			goto err;
		req->dst.off = r->dst.offset;
		ret = hdc_map_check_file(hd, req->dst.file, true);
		if (ret)
			goto err;
		di = file_inode(req->dst.file);
		si = req->src.file ? file_inode(req->src.file) : NULL;
		if (si == di && req->dst.off < req->src.off + r->length &&
		    req->src.off < req->dst.off + out_len) {
			dev_info_ratelimited(&hd->pdev->dev, "%s: source and destination ranges overlap\n",
					     current->comm);
			ret = -EINVAL;
			goto err;
		}
	} else if (r->dst.type == HDC_UEP_USER) {
		u64 cap = min_t(u64, r->dst.len, HDC_USER_MAX);

		ret = -ENOSPC;
		if (!ndeflate && r->dst.len < out_len)
			goto err;
		ret = -EINVAL;
		if (!ndeflate && out_len > HDC_USER_MAX)
			goto err;
		ret = -EFAULT;
		if (!access_ok(u64_to_user_ptr(r->dst.addr), r->dst.len))
			goto err;
		req->user_dst = r->dst.addr;
		ret = hdc_req_bounce(req, true, ndeflate ? cap : out_len);
		if (ret)
			goto err;
	}

	/* Map the source, then prepare and map the destination. */
	same = req->src.file && req->dst.file &&
	       file_inode(req->src.file) == file_inode(req->dst.file);
	if (req->src.file) {
		ret = hdc_map_src(hd, req, &sx, !same);
		if (ret)
			goto err;
	}
	if (req->dst.file) {
		/* A source in the same file: mapped again, under one pin. */
		if (same)
			sx.n = 0;
		ret = hdc_map_dst(hd, req, out_len, !ndeflate, &dx,
				  same ? &sx : NULL);
		if (ret)
			goto err;
	}

	ret = hdc_req_alloc_dbuf(req, aux_len +
				 (sx.n + dx.n) * sizeof(struct hdc_extent));
	if (ret)
		goto err;
	req->aux = req->dbuf;
	memcpy(req->aux->aes_key, r->aes_key, sizeof(r->aes_key));
	memcpy(req->aux->aes_iv, r->aes_iv, sizeof(r->aes_iv));
	memcpy(req->dbuf + aux_len, sx.ext, sx.n * sizeof(struct hdc_extent));
	memcpy(req->dbuf + aux_len + sx.n * sizeof(struct hdc_extent), dx.ext,
	       dx.n * sizeof(struct hdc_extent));

	req->cmd.opcode = HDC_OP_TRANSFER;
	req->cmd.nfuncs = r->nfuncs;
	for (i = 0; i < r->nfuncs; i++)
		req->cmd.funcs[i] = r->funcs[i];
	req->cmd.length = cpu_to_le64(r->length);
	req->cmd.aux_addr = cpu_to_le64(req->dbuf_dma);
	if (req->src.file)
		hdc_set_ep(&req->cmd.src, HDC_EP_NVME, sx.n,
			   req->dbuf_dma + aux_len);
	else
		hdc_set_ep(&req->cmd.src, HDC_EP_HOST, req->sbounce_len,
			   req->sbounce_dma);
	if (req->dst.file && dx.n)
		hdc_set_ep(&req->cmd.dst, HDC_EP_NVME, dx.n, req->dbuf_dma +
			   aux_len + sx.n * sizeof(struct hdc_extent));
	else if (req->dbounce)
		hdc_set_ep(&req->cmd.dst, HDC_EP_HOST, req->dbounce_len,
			   req->dbounce_dma);
	else
		hdc_set_ep(&req->cmd.dst, HDC_EP_NONE, 0, 0);
	kvfree(sx.ext);
	kvfree(dx.ext);
	*out = req;
	return 0;

err:
	kvfree(sx.ext);
	kvfree(dx.ext);
	hdc_req_finish_files(req, ret);
	hdc_req_put(req);
	return ret;
}

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
	*result_len = req->result;
	memcpy(digest, req->digest, sizeof(req->digest));
	return 0;
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
	if (r.size != sizeof(r) || (r.flags & ~HDC_REQ_NOWAIT) || r.rsvd)
		return -EINVAL;
	nowait = r.flags & HDC_REQ_NOWAIT;

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
	ret = hdc_req_build(hd, &r, &req);
	if (ret)
		return ret;
	if (nowait) {
		spin_lock(&hf->lock);
		req->id = ++hf->next_id;
		list_add_tail(&req->node, &hf->reqs);
		hf->nreqs++;
		kref_get(&req->ref);	/* the list's */
		spin_unlock(&hf->lock);
	}
	ret = hdc_req_queue(req);
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

/* Fold the device's 32-bit counters into 64-bit ones. */
void hdc_stats_sync(struct hdc_dev *hd)
{
	u32 dev_cmds = hdc_rd(hd, HDC_REG_STAT_DEV_CMDS);
	u32 nvme_cmds = hdc_rd(hd, HDC_REG_STAT_NVME_CMDS);
	unsigned long flags;

	spin_lock_irqsave(&hd->stat_lock, flags);
	hd->dev_cmds += (u32)(dev_cmds - hd->raw_dev_cmds);
	hd->nvme_cmds += (u32)(nvme_cmds - hd->raw_nvme_cmds);
	hd->raw_dev_cmds = dev_cmds;
	hd->raw_nvme_cmds = nvme_cmds;
	spin_unlock_irqrestore(&hd->stat_lock, flags);
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
