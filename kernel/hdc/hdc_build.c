// SPDX-License-Identifier: GPL-2.0
/*
 * hdc: a D2D request from the user's struct hdc_req (docs/hdc.md,
 * "Driver").
 *
 * Built in three steps: validate (the request, then its endpoints: file
 * descriptors checked by hdc_map.c, user buffers bounced through coherent
 * memory), map (file ranges to extents, hdc_map.c; this prepares the
 * destination file) and encode (the aux/extent buffer and the command).
 * Every check that can fail on bad input comes before the destination
 * file is touched.  The request's end_io hands a completed request to
 * the driver's workqueue, which gives its files back (file size, page
 * cache) before hdc_req_end() wakes its waiters, so that the destination
 * is final when they do.
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "hdc.h"

/* What validation found, for the steps after it. */
struct hdc_build {
	u64 out_len;		/* the most the chain writes */
	int ndeflate;
	struct hdc_extlist sx;	/* source extents */
	struct hdc_extlist dx;	/* destination extents */
};

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
		if (f == HDC_FN_DEFLATE || f == HDC_FN_GZIP)
			(*ndeflate)++;
	}
	return 0;
}

/*
 * The most a chain can write: deflate (and gzip, 18 bytes of framing more)
 * may expand incompressible data.
 */
D2D_VISIBLE_IF_KUNIT int hdc_out_bound(u64 len, int ndeflate, u64 *bound)
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

/* Validate, first step: the request itself (functions, types, length). */
static int hdc_build_validate(struct hdc_dev *hd, const struct hdc_req *r,
			      struct hdc_build *b)
{
	int ret;

	ret = hdc_check_funcs(hd, r, &b->ndeflate);
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
	if ((r->flags & HDC_REQ_SW_P2P) &&
	    (r->nfuncs || r->src.type != HDC_UEP_FD ||
	     r->dst.type != HDC_UEP_FD)) {
		hdc_uerr(hd, "software P2P: a file to a socket, no functions\n");
		return -EINVAL;
	}
	return hdc_out_bound(r->length, b->ndeflate, &b->out_len);
}

/*
 * Validate, second step: the endpoints.  Files are taken and checked, a
 * user source is copied in, a user destination gets its bounce buffer;
 * the destination file is not touched yet.
 */
static int hdc_build_endpoints(struct hdc_dev *hd, const struct hdc_req *r,
			       struct hdc_request *req, struct hdc_build *b)
{
	int ret;

	/* Source */
	if (r->src.type == HDC_UEP_FD) {
		req->src.file = fget(r->src.fd);
		if (!req->src.file)
			return -EBADF;
		if (S_ISSOCK(file_inode(req->src.file)->i_mode)) {
			/* The engine receives: the socket is not read. */
			req->src_nic = true;
			if (r->flags || r->src.offset) {
				hdc_uerr(hd, "a socket source: blocking, offset 0\n");
				return -EINVAL;
			}
			req->src_tcp = hdc_tcp_is_tcp(req->src.file);
			if (req->src_tcp)
				ret = hdc_tcp_rx_src(hd, req->src.file, req);
			else
				ret = hdc_nic_rx_src(hd, req->src.file, &req->rx);
			if (ret)
				return ret;
			goto dst;
		}
		req->src.off = r->src.offset;
		ret = hdc_map_check_file(hd, req->src.file, false);
		if (ret)
			return ret;
	} else {
		if (r->length > r->src.len || r->length > HDC_USER_MAX) {
			dev_info_ratelimited(&hd->pdev->dev, "%s: user source of %llu bytes (buffer %llu, at most %u)\n",
					     current->comm, r->length,
					     r->src.len, HDC_USER_MAX);
			return -EINVAL;
		}
		ret = hdc_req_bounce(req, false, r->length);
		if (ret)
			return ret;
		if (copy_from_user(req->sbounce, u64_to_user_ptr(r->src.addr),
				   r->length))
			return -EFAULT;
	}

dst:
	/* Destination: checks only */
	if (r->dst.type == HDC_UEP_FD) {
		struct inode *si, *di;

		req->dst.file = fget(r->dst.fd);
		if (!req->dst.file)
			return -EBADF;
		if (S_ISSOCK(file_inode(req->dst.file)->i_mode)) {
			/* The engine sends: the socket is not written to. */
			if (req->src_nic) {
				hdc_uerr(hd, "a socket to a socket\n");
				return -EINVAL;
			}
			req->dst_nic = true;
			req->dst_tcp = hdc_tcp_is_tcp(req->dst.file);
			if (req->dst_tcp)
				return hdc_tcp_check(hd, req->dst.file, r->flags,
						     r->nfuncs, r->src.type);
			return hdc_nic_flow(hd, req->dst.file, &req->flow);
		}
		req->dst.off = r->dst.offset;
		ret = hdc_map_check_file(hd, req->dst.file, true);
		if (ret)
			return ret;
		di = file_inode(req->dst.file);
		si = req->src.file ? file_inode(req->src.file) : NULL;
		if (si == di && req->dst.off < req->src.off + r->length &&
		    req->src.off < req->dst.off + b->out_len) {
			dev_info_ratelimited(&hd->pdev->dev, "%s: source and destination ranges overlap\n",
					     current->comm);
			return -EINVAL;
		}
	} else if (r->dst.type == HDC_UEP_USER) {
		u64 cap = min_t(u64, r->dst.len, HDC_USER_MAX);

		if (!b->ndeflate && r->dst.len < b->out_len)
			return -ENOSPC;
		if (!b->ndeflate && b->out_len > HDC_USER_MAX)
			return -EINVAL;
		if (!access_ok(u64_to_user_ptr(r->dst.addr), r->dst.len))
			return -EFAULT;
		req->user_dst = r->dst.addr;
		return hdc_req_bounce(req, true,
				      b->ndeflate ? cap : b->out_len);
	}
	return 0;
}

/* Map the source, then prepare and map the destination. */
static int hdc_build_map(struct hdc_dev *hd, struct hdc_request *req,
			 struct hdc_build *b)
{
	bool same = req->src.file && req->dst.file &&
		    file_inode(req->src.file) == file_inode(req->dst.file);
	int ret;

	if (req->src.file && !req->src_nic) {
		ret = hdc_map_src(hd, req, &b->sx, !same);
		if (ret)
			return ret;
	}
	if (req->dst.file && !req->dst_nic) {
		/* A source in the same file: mapped again, under one pin. */
		if (same)
			b->sx.n = 0;
		ret = hdc_map_dst(hd, req, b->out_len, !b->ndeflate, &b->dx,
				  same ? &b->sx : NULL);
		if (ret)
			return ret;
		/* The peer's FIN may end a TCP stream short: size to it. */
		if (req->src_tcp && req->dst_orig_size <= req->dst.off)
			req->dst_resize = true;
	}
	return 0;
}

static void hdc_set_ep(struct hdc_endpoint *ep, u8 type, u64 count, u64 addr)
{
	ep->type = type;
	ep->count = cpu_to_le32(count);
	ep->addr = cpu_to_le64(addr);
}

/* Encode: the aux block, the extent lists and the command. */
static int hdc_build_encode(struct hdc_request *req, const struct hdc_req *r,
			    const struct hdc_build *b)
{
	size_t aux_len = ALIGN(sizeof(struct hdc_aux), 16);
	size_t slen = b->sx.n * sizeof(struct hdc_extent);
	size_t dlen = b->dx.n * sizeof(struct hdc_extent);
	u32 i;
	int ret;

	ret = hdc_req_alloc_dbuf(req, aux_len + slen + dlen +
				 (req->dst_nic ? sizeof(req->flow) : 0) +
				 (req->src_nic ? sizeof(req->rx) : 0) +
				 (req->src_tcp ? hdc_tcp_rx_dlen(req) : 0));
	if (ret)
		return ret;
	req->aux = req->dbuf;
	memcpy(req->aux->aes_key, r->aes_key, sizeof(r->aes_key));
	memcpy(req->aux->aes_iv, r->aes_iv, sizeof(r->aes_iv));
	memcpy(req->dbuf + aux_len, b->sx.ext, slen);
	memcpy(req->dbuf + aux_len + slen, b->dx.ext,
	       b->dx.n * sizeof(struct hdc_extent));

	req->cmd.opcode = HDC_OP_TRANSFER;
	req->cmd.nfuncs = r->nfuncs;
	for (i = 0; i < r->nfuncs; i++)
		req->cmd.funcs[i] = r->funcs[i];
	req->cmd.length = cpu_to_le64(r->length);
	req->cmd.aux_addr = cpu_to_le64(req->dbuf_dma);
	if (req->src_nic) {
		req->rx_dev = req->dbuf + aux_len + slen + dlen;
		memcpy(req->rx_dev, &req->rx, sizeof(req->rx));
		hdc_set_ep(&req->cmd.src, HDC_EP_NIC, 0,
			   req->dbuf_dma + aux_len + slen + dlen);
		if (req->src_tcp)
			hdc_tcp_rx_encode(req);
	} else if (req->src.file)
		hdc_set_ep(&req->cmd.src, HDC_EP_NVME, b->sx.n,
			   req->dbuf_dma + aux_len);
	else
		hdc_set_ep(&req->cmd.src, HDC_EP_HOST, req->sbounce_len,
			   req->sbounce_dma);
	if (req->dst_nic) {
		memcpy(req->dbuf + aux_len + slen + dlen, &req->flow,
		       sizeof(req->flow));
		hdc_set_ep(&req->cmd.dst, HDC_EP_NIC, 0,
			   req->dbuf_dma + aux_len + slen + dlen);
	} else if (req->dst.file && b->dx.n) {
		hdc_set_ep(&req->cmd.dst, HDC_EP_NVME, b->dx.n,
			   req->dbuf_dma + aux_len + slen);
	} else if (req->dbounce) {
		hdc_set_ep(&req->cmd.dst, HDC_EP_HOST, req->dbounce_len,
			   req->dbounce_dma);
	} else {
		hdc_set_ep(&req->cmd.dst, HDC_EP_NONE, 0, 0);
	}
	return 0;
}

/* Give the files back: inode references, page cache, file size. */
static void hdc_build_put_files(struct hdc_request *req, int err)
{
	if (req->src.file) {
		if (!req->src_nic)
			hdc_map_src_finish(req);
		fput(req->src.file);
		req->src.file = NULL;
	}
	if (req->dst.file) {
		if (!req->dst_nic)
			hdc_map_dst_finish(req, err);
		fput(req->dst.file);
		req->dst.file = NULL;
	}
}

/* A completed request, in process context: digests, files, the end. */
static void hdc_build_work(struct work_struct *work)
{
	struct hdc_request *req = container_of(work, struct hdc_request, work);
	int err = hdc_req_status(req);

	if (!err && req->aux)
		memcpy(req->digest, req->aux->digest, sizeof(req->digest));
	if (req->rx_dev)
		memcpy(&req->rx_report, req->rx_dev, sizeof(req->rx_report));
	hdc_build_put_files(req, err);
	hdc_req_end(req, err);
}

/* Called by the queue, in any context, when the device is done with req. */
static void hdc_build_end_io(struct hdc_request *req)
{
	queue_work(req->hd->wq, &req->work);
}

/* Build a request from the user's struct hdc_req: validate, map, encode. */
int hdc_build_req(struct hdc_dev *hd, const struct hdc_req *r,
		  struct hdc_request **out)
{
	struct hdc_build b = {};
	struct hdc_request *req;
	int ret;

	/* It copies user memory and calls into file systems: no driver lock. */
	lockdep_assert_not_held(&hd->gone_lock);
	lockdep_assert_not_held(&hd->bdev_lock);
	ret = hdc_build_validate(hd, r, &b);
	if (ret)
		return ret;

	req = hdc_req_alloc(hd);
	if (!req)
		return -ENOMEM;
	req->end_io = hdc_build_end_io;
	INIT_WORK(&req->work, hdc_build_work);
	req->length = r->length;
	req->mm = current->mm;
	req->user = get_current_user();
	req->unlimited = capable(CAP_IPC_LOCK);

	ret = hdc_build_endpoints(hd, r, req, &b);
	if (!ret && (r->flags & HDC_REQ_SW_P2P) && !req->dst_nic) {
		hdc_uerr(hd, "software P2P: the destination is not a socket\n");
		ret = -EINVAL;
	}
	if (!ret)
		ret = hdc_build_map(hd, req, &b);
	if (!ret && req->dst_tcp) {
		/* The transfer runs now, the socket handed over. */
		s64 sent = hdc_tcp_send(hd, req->dst.file, b.sx.ext, b.sx.n,
					r->length);

		if (sent < 0)
			ret = sent;
		else
			req->sw_sent = sent;
		req->drv_done = true;
	} else if (!ret && (r->flags & HDC_REQ_SW_P2P)) {
		/* The transfer runs now. */
		s64 sent = hdc_nic_sw_p2p(hd, b.sx.ext, b.sx.n, r->length,
					  &req->flow);

		if (sent < 0)
			ret = sent;
		else
			req->sw_sent = sent;
		req->drv_done = true;
	} else if (!ret) {
		ret = hdc_build_encode(req, r, &b);
	}
	kvfree(b.sx.ext);
	kvfree(b.dx.ext);
	if (ret) {
		hdc_build_put_files(req, ret);
		hdc_req_put(req);
		return ret;
	}
	*out = req;
	return 0;
}

/* A built request that will not be queued: its files back, unchanged. */
void hdc_build_cancel(struct hdc_request *req)
{
	hdc_build_put_files(req, -ECANCELED);
}

/*
 * Queue a built request; one the driver already ran (drv_done) ends
 * here, in the caller's process context, without a command to the
 * engine.  Refused (the device is going away): its files are given back
 * now, as if it had been cancelled.
 */
int hdc_build_submit(struct hdc_request *req)
{
	int ret = req->drv_done ? hdc_req_start_done(req) :
		  hdc_req_submit(req);

	if (ret)
		hdc_build_cancel(req);
	else if (req->drv_done)
		hdc_build_work(&req->work);
	return ret;
}

