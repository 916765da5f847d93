// SPDX-License-Identifier: GPL-2.0
/*
 * hdc: the life of a request (docs/hdc.md, "Driver").
 *
 * Allocation, the coherent buffers (aux/extent buffer, bounce buffers)
 * and their charge to the submitter's RLIMIT_MEMLOCK, submission to the
 * queue, the end of a completed request (errno, statistics, waking its
 * waiters) and the last put.  Whoever builds a request sets its end_io,
 * which the queue calls when the device completed it (or it was failed);
 * the builder finishes its own state (files, digests) from there and then
 * calls hdc_req_end().  Requests and open files hold references on the
 * device structure, which is freed here too.
 */
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include "hdc.h"

static unsigned int hdc_user_mem_max_kib = 256 * 1024;
module_param_named(user_mem_max_kib, hdc_user_mem_max_kib, uint, 0644);
MODULE_PARM_DESC(user_mem_max_kib,
		 "coherent memory all users without CAP_IPC_LOCK may pin together (KiB)");

static void hdc_dev_release(struct kref *ref)
{
	struct hdc_dev *hd = container_of(ref, struct hdc_dev, ref);

	pci_dev_put(hd->pdev);
	kfree(hd);
}

void hdc_dev_put(struct hdc_dev *hd)
{
	kref_put(&hd->ref, hdc_dev_release);
}

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
	case HDC_ST_ENET:	return "NIC refused a datagram or went away";
	case HDC_ST_EGAP:	return "received datagrams skipped bytes";
	case HDC_ST_EABORT:	return "receive stopped";
	case HDC_ST_ETIMEDOUT:	return "TCP peer acked nothing";
	case HDC_ST_ECONNRESET:	return "TCP peer reset the connection";
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
	case HDC_ST_ENET:	return -ENETDOWN;
	case HDC_ST_EGAP:	return -EREMOTEIO;
	case HDC_ST_EABORT:	return -ETIMEDOUT;
	case HDC_ST_ETIMEDOUT:	return -ETIMEDOUT;
	case HDC_ST_ECONNRESET:	return -ECONNRESET;
	default:		return -EIO;
	}
}

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
	hdc_stat_inc(hd, &hd->mem_refused);
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

/*
 * An internal transfer's source: @n file extents copied to the start of
 * @req's device buffer, @len bytes from the SSD; the caller sets the
 * destination.
 */
void hdc_req_nvme_src(struct hdc_request *req, const struct hdc_extent *x,
		      u32 n, u64 len)
{
	memcpy(req->dbuf, x, n * sizeof(*x));
	req->length = len;
	req->cmd.opcode = HDC_OP_TRANSFER;
	req->cmd.length = cpu_to_le64(len);
	req->cmd.src.type = HDC_EP_NVME;
	req->cmd.src.count = cpu_to_le32(n);
	req->cmd.src.addr = cpu_to_le64(req->dbuf_dma);
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

/* The builder has given its files back (hdc_build.c) before the last put. */
static void hdc_req_release(struct kref *ref)
{
	struct hdc_request *req = container_of(ref, struct hdc_request, ref);
	struct hdc_dev *hd = req->hd;

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

/* The errno of a completed request, logged if the device failed it. */
int hdc_req_status(struct hdc_request *req)
{
	struct hdc_dev *hd = req->hd;
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
	return err;
}

/*
 * The end of a completed request, in process context, after its builder
 * finished its files: free what the engine used (a user destination's
 * bounce buffer stays until the result is collected), count it, wake the
 * waiters and drop the device's reference.
 */
void hdc_req_end(struct hdc_request *req, int err)
{
	struct hdc_dev *hd = req->hd;
	unsigned long flags;

	if (req->dbuf && req->keep_len <= sizeof(req->keep) &&
	    req->keep_off + req->keep_len <= req->dbuf_len)
		memcpy(req->keep, req->dbuf + req->keep_off, req->keep_len);
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

/*
 * Queue req; its end_io (and work, if end_io defers to it) must be set.
 * The device holds a reference until hdc_req_end().
 */
int hdc_req_submit(struct hdc_request *req)
{
	int ret;

	kref_get(&req->ref);
	ret = hdc_queue_submit(req->hd, req);
	if (ret)
		hdc_req_put(req);
	return ret;
}

/*
 * A request the driver ran while it built it (a TCP send, software P2P):
 * in flight with the device's reference as if queued, for hdc_req_end()
 * right away, without a command to the engine.  -ENODEV once the device
 * is going away, as the stopped queue would.
 */
int hdc_req_start_done(struct hdc_request *req)
{
	struct hdc_dev *hd = req->hd;

	if (READ_ONCE(hd->gone))
		return -ENODEV;
	kref_get(&req->ref);
	atomic_inc(&hd->inflight);
	return 0;
}

static void hdc_req_sync_work(struct work_struct *work)
{
	struct hdc_request *req = container_of(work, struct hdc_request, work);

	hdc_req_end(req, hdc_req_status(req));
}

static void hdc_req_sync_end_io(struct hdc_request *req)
{
	queue_work(req->hd->wq, &req->work);
}

/* Run a driver-internal command and wait for it. */
int hdc_req_exec_sync(struct hdc_request *req)
{
	return hdc_req_exec_timeout(req, HDC_EXEC_TIMEOUT_MS);
}

int hdc_req_exec_timeout(struct hdc_request *req, unsigned int ms)
{
	int ret;

	req->internal = true;
	req->end_io = hdc_req_sync_end_io;
	INIT_WORK(&req->work, hdc_req_sync_work);
	ret = hdc_req_submit(req);
	if (ret)
		return ret;
	if (!wait_for_completion_timeout(&req->done,
					 msecs_to_jiffies(ms))) {
		dev_err(&req->hd->pdev->dev, "internal command timed out\n");
		return -ETIMEDOUT;
	}
	return req->err;
}
