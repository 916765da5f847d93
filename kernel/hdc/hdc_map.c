// SPDX-License-Identifier: GPL-2.0
/*
 * hdc: file ranges -> extents of the engine's namespace.
 *
 * A file endpoint must be a regular file on the block device that shares
 * the namespace with the engine's NVMe controller.  That is proven once
 * per block device, by content: the driver reads the first 4 KiB of the
 * block device through the host's controller (a bio) and through the
 * engine's controller (a D2D command into host memory) and requires the
 * two to be equal and not all zero (docs/hdc.md, "Driver").
 *
 * The file system's extent map (fiemap; bmap if it has none) gives the
 * physical location of a range.  Holes and unwritten extents are read as
 * zeros (HDC_EXT_ZERO) without touching the SSD; dirty page cache is
 * written back before mapping; delayed allocations are written back and
 * the range mapped again.  While a request is in flight it holds the
 * inode's i_dio_count, as direct I/O does, so truncate and hole punching
 * wait for it and the blocks cannot be reused under the engine.
 *
 * A destination range is made of written blocks before the engine writes
 * it: whatever is a hole or unwritten is filled with zeros by a direct
 * I/O write from the zero page (fallocate would leave unwritten extents,
 * which the file system reads as zeros whatever the engine writes there).
 * The page cache of the range is written back and dropped before and
 * dropped again after the engine has written.
 */
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/bvec.h>
#include <linux/falloc.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/fsnotify.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include "hdc.h"

#define HDC_FIEMAP_BATCH	32
#define HDC_MAP_RETRIES		3
#define HDC_ZERO_BVECS		1024	/* 4 MiB per direct I/O write */
#define HDC_PROBE_BYTES		4096

#define hdc_uerr(hd, fmt, ...)						\
	dev_info_ratelimited(&(hd)->pdev->dev, "%s[%d]: " fmt,		\
			     current->comm, task_pid_nr(current), ##__VA_ARGS__)

enum hdc_seg_kind {
	HDC_SEG_DATA,
	HDC_SEG_HOLE,
	HDC_SEG_UNWRITTEN,
};

struct hdc_seg {
	u64 off;		/* file offset */
	u64 len;
	u64 phys;		/* byte address on the file system's device */
	u8 kind;		/* enum hdc_seg_kind */
	bool shared;
};

struct hdc_segs {
	struct hdc_seg *s;
	u32 n;
	u32 cap;
};

static void hdc_segs_free(struct hdc_segs *sg)
{
	kvfree(sg->s);
	sg->s = NULL;
	sg->n = 0;
	sg->cap = 0;
}

static int hdc_seg_add(struct hdc_segs *sg, u64 off, u64 len, u64 phys,
		       u8 kind, bool shared)
{
	struct hdc_seg *last = sg->n ? &sg->s[sg->n - 1] : NULL;

	if (!len)
		return 0;
	if (last && last->kind == kind && last->shared == shared &&
	    last->off + last->len == off &&
	    (kind != HDC_SEG_DATA || last->phys + last->len == phys)) {
		last->len += len;
		return 0;
	}
	if (sg->n == sg->cap) {
		u32 cap = sg->cap ? sg->cap * 2 : 16;
		struct hdc_seg *s;

		if (sg->cap >= HDC_MAX_EXTENTS)
			return -E2BIG;
		s = kvmalloc_array(cap, sizeof(*s), GFP_KERNEL);
		if (!s)
			return -ENOMEM;
		if (sg->n)
			memcpy(s, sg->s, sg->n * sizeof(*s));
		kvfree(sg->s);
		sg->s = s;
		sg->cap = cap;
	}
	sg->s[sg->n++] = (struct hdc_seg) {
		.off = off, .len = len, .phys = phys, .kind = kind,
		.shared = shared,
	};
	return 0;
}

/* One fiemap extent, clipped to [*pos, end); holes before it are added. */
static int hdc_seg_fiemap(struct hdc_segs *sg, const struct fiemap_extent *fe,
			  u64 *pos, u64 end)
{
	u64 ls = fe->fe_logical, le = fe->fe_logical + fe->fe_length;
	u32 f = fe->fe_flags;
	u64 s, e;
	int ret;

	if (le <= *pos || ls >= end)
		return 0;
	if (ls > *pos) {
		ret = hdc_seg_add(sg, *pos, ls - *pos, 0, HDC_SEG_HOLE, false);
		if (ret)
			return ret;
		*pos = ls;
	}
	if (f & (FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN))
		return -EAGAIN;
	if (f & (FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_DATA_ENCRYPTED |
		 FIEMAP_EXTENT_NOT_ALIGNED | FIEMAP_EXTENT_DATA_INLINE |
		 FIEMAP_EXTENT_DATA_TAIL))
		return -EOPNOTSUPP;
	s = *pos;
	e = min(le, end);
	ret = hdc_seg_add(sg, s, e - s, fe->fe_physical + (s - ls),
			  (f & FIEMAP_EXTENT_UNWRITTEN) ? HDC_SEG_UNWRITTEN :
			  HDC_SEG_DATA, f & FIEMAP_EXTENT_SHARED);
	*pos = e;
	return ret;
}

/*
 * The file system's fiemap fills a user-space array; give it a page of the
 * calling process's address space and copy the extents back from there.
 */
static int hdc_map_fiemap(struct inode *inode, u64 off, u64 len,
			  struct hdc_segs *sg)
{
	const size_t ulen = PAGE_ALIGN(HDC_FIEMAP_BATCH * sizeof(struct fiemap_extent));
	struct fiemap_extent *fe;
	u64 pos = off, end = off + len;
	unsigned long uaddr;
	int ret = 0;
	u32 i, n;

	if (!current->mm)
		return -EOPNOTSUPP;
	fe = kmalloc_array(HDC_FIEMAP_BATCH, sizeof(*fe), GFP_KERNEL);
	if (!fe)
		return -ENOMEM;
	uaddr = vm_mmap(NULL, 0, ulen, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, 0);
	if (IS_ERR_VALUE(uaddr)) {
		kfree(fe);
		return (int)uaddr;
	}
	while (pos < end) {
		struct fiemap_extent_info fi = {
			.fi_extents_max = HDC_FIEMAP_BATCH,
			.fi_extents_start = (struct fiemap_extent __user *)uaddr,
		};

		ret = inode->i_op->fiemap(inode, &fi, pos, end - pos);
		if (ret)
			break;
		n = fi.fi_extents_mapped;
		if (n > HDC_FIEMAP_BATCH) {
			ret = -EIO;
			break;
		}
		if (copy_from_user(fe, (void __user *)uaddr, n * sizeof(*fe))) {
			ret = -EFAULT;
			break;
		}
		for (i = 0; i < n && !ret; i++)
			ret = hdc_seg_fiemap(sg, &fe[i], &pos, end);
		if (ret || n < HDC_FIEMAP_BATCH ||
		    (fe[n - 1].fe_flags & FIEMAP_EXTENT_LAST))
			break;
		cond_resched();
	}
	if (!ret && pos < end)
		ret = hdc_seg_add(sg, pos, end - pos, 0, HDC_SEG_HOLE, false);
	vm_munmap(uaddr, ulen);
	kfree(fe);
	return ret;
}

/* File systems without fiemap: one bmap() per block. */
static int hdc_map_bmap(struct inode *inode, u64 off, u64 len,
			struct hdc_segs *sg)
{
	unsigned int bits = inode->i_blkbits;
	u64 end = off + len, blk;
	int ret;

	for (blk = off >> bits; (blk << bits) < end; blk++) {
		u64 bs = blk << bits, s = max(off, bs);
		u64 e = min(end, bs + (1ull << bits));
		sector_t b = blk;

		ret = bmap(inode, &b);
		if (ret)
			return ret == -EINVAL ? -EOPNOTSUPP : ret;
		if (b)
			ret = hdc_seg_add(sg, s, e - s, ((u64)b << bits) + (s - bs),
					  HDC_SEG_DATA, false);
		else
			ret = hdc_seg_add(sg, s, e - s, 0, HDC_SEG_HOLE, false);
		if (ret)
			return ret;
		cond_resched();
	}
	return 0;
}

/* Map [off, off + len) of a file, writing back delayed allocations. */
static int hdc_map_range(struct hdc_dev *hd, struct file *file, u64 off,
			 u64 len, struct hdc_segs *sg)
{
	struct inode *inode = file_inode(file);
	int tries, ret = -EAGAIN;

	for (tries = 0; tries < HDC_MAP_RETRIES && ret == -EAGAIN; tries++) {
		hdc_segs_free(sg);
		if (tries) {
			ret = filemap_write_and_wait_range(file->f_mapping, off,
							   off + len - 1);
			if (ret)
				return ret;
		}
		if (inode->i_op->fiemap)
			ret = hdc_map_fiemap(inode, off, len, sg);
		else if (file->f_mapping->a_ops->bmap)
			ret = hdc_map_bmap(inode, off, len, sg);
		else
			ret = -EOPNOTSUPP;
	}
	if (ret == -EOPNOTSUPP)
		hdc_uerr(hd, "%pD: blocks not mappable (inline, encrypted, compressed?)\n",
			 file);
	else if (ret == -E2BIG)
		hdc_uerr(hd, "%pD: more than %u extents in the range\n", file,
			 HDC_MAX_EXTENTS);
	else if (ret == -EAGAIN)
		hdc_uerr(hd, "%pD: range still being allocated after write-back\n",
			 file);
	if (ret)
		hdc_segs_free(sg);
	return ret;
}

static int hdc_ext_add(struct hdc_extlist *xl, u64 lba, u32 nlb, u16 skip,
		       u16 flags)
{
	if (xl->n == xl->cap) {
		u32 cap = xl->cap ? xl->cap * 2 : 16;
		struct hdc_extent *x;

		if (xl->cap >= HDC_MAX_EXTENTS)
			return -E2BIG;
		x = kvmalloc_array(cap, sizeof(*x), GFP_KERNEL);
		if (!x)
			return -ENOMEM;
		if (xl->n)
			memcpy(x, xl->ext, xl->n * sizeof(*x));
		kvfree(xl->ext);
		xl->ext = x;
		xl->cap = cap;
	}
	xl->ext[xl->n++] = (struct hdc_extent) {
		.lba = cpu_to_le64(lba), .nlb = cpu_to_le32(nlb),
		.skip = cpu_to_le16(skip), .flags = cpu_to_le16(flags),
	};
	return 0;
}

/*
 * Segments -> hdc_extents in LBAs of the namespace.  Only the first extent
 * starts inside a block (skip); every other one starts and, but for the
 * last, ends on a block boundary, so that the concatenation of the
 * extents is exactly the file range.
 */
static int hdc_segs_to_ext(struct hdc_dev *hd, struct file *file,
			   struct hdc_segs *sg, struct hdc_extlist *xl)
{
	struct block_device *bdev = file_inode(file)->i_sb->s_bdev;
	u64 part = (u64)get_start_sect(bdev) << SECTOR_SHIFT;
	u32 shift = hd->nvme.lba_shift, lbs = 1u << shift;
	u32 i;
	int ret;

	for (i = 0; i < sg->n; i++) {
		struct hdc_seg *s = &sg->s[i];
		bool data = s->kind == HDC_SEG_DATA;
		u64 start = data ? part + s->phys : s->off;
		u64 lba = data ? start >> shift : 0;
		u32 skip = start & (lbs - 1);
		u64 nlb = DIV_ROUND_UP(skip + s->len, lbs);

		if ((i && skip) ||
		    (i + 1 < sg->n && ((skip + s->len) & (lbs - 1)))) {
			hdc_uerr(hd, "%pD: extent at %llu not aligned to the %u-byte LBA\n",
				 file, s->off, lbs);
			return -EOPNOTSUPP;
		}
		if (data && (lba > hd->nvme.nsze || nlb > hd->nvme.nsze - lba)) {
			hdc_uerr(hd, "%pD: extent at LBA %llu beyond the namespace\n",
				 file, lba);
			return -EIO;
		}
		while (nlb) {
			u32 n = min_t(u64, nlb, U32_MAX);

			ret = hdc_ext_add(xl, lba, n, skip,
					  data ? 0 : HDC_EXT_ZERO);
			if (ret)
				return ret;
			if (data)
				lba += n;
			nlb -= n;
			skip = 0;
		}
	}
	return 0;
}

/* Read the first bytes of a block device through the host's controller. */
static int hdc_probe_host(struct block_device *bdev, u64 off, void *buf)
{
	struct page *page = alloc_page(GFP_KERNEL);
	struct bio *bio;
	int ret;

	if (!page)
		return -ENOMEM;
	bio = bio_alloc(bdev, 1, REQ_OP_READ | REQ_SYNC, GFP_KERNEL);
	bio->bi_iter.bi_sector = off >> SECTOR_SHIFT;
	__bio_add_page(bio, page, HDC_PROBE_BYTES, 0);
	ret = submit_bio_wait(bio);
	bio_put(bio);
	if (!ret)
		memcpy(buf, page_address(page), HDC_PROBE_BYTES);
	__free_page(page);
	return ret;
}

/* ... and through the engine's: a D2D command from the SSD to memory. */
static int hdc_probe_engine(struct hdc_dev *hd, u64 byte, void *buf)
{
	struct hdc_request *req;
	struct hdc_extent *x;
	int ret;

	req = hdc_req_alloc(hd);
	if (!req)
		return -ENOMEM;
	ret = hdc_req_alloc_dbuf(req, sizeof(*x));
	if (!ret)
		ret = hdc_req_bounce(req, true, HDC_PROBE_BYTES);
	if (ret)
		goto out;
	x = req->dbuf;
	x->lba = cpu_to_le64(byte >> hd->nvme.lba_shift);
	x->nlb = cpu_to_le32(HDC_PROBE_BYTES >> hd->nvme.lba_shift);
	req->length = HDC_PROBE_BYTES;
	req->cmd.opcode = HDC_OP_TRANSFER;
	req->cmd.length = cpu_to_le64(HDC_PROBE_BYTES);
	req->cmd.src.type = HDC_EP_NVME;
	req->cmd.src.count = cpu_to_le32(1);
	req->cmd.src.addr = cpu_to_le64(req->dbuf_dma);
	req->cmd.dst.type = HDC_EP_HOST;
	req->cmd.dst.count = cpu_to_le32(HDC_PROBE_BYTES);
	req->cmd.dst.addr = cpu_to_le64(req->dbounce_dma);
	ret = hdc_exec_sync(req);
	if (!ret)
		memcpy(buf, req->dbounce, HDC_PROBE_BYTES);
out:
	hdc_req_put(req);
	return ret;
}

/* Is bdev (a whole disk or a partition) on the engine's namespace? */
static int hdc_verify_bdev(struct hdc_dev *hd, struct block_device *bdev)
{
	static const u64 probe_off[] = { 0, 65536 };
	u32 lbs = 1u << hd->nvme.lba_shift;
	u64 part = (u64)get_start_sect(bdev) << SECTOR_SHIFT;
	struct gendisk *disk = bdev->bd_disk;
	void *a, *b;
	int i, tries, ret = -EXDEV;

	if (strncmp(disk->disk_name, "nvme", 4) ||
	    bdev_logical_block_size(bdev) != lbs ||
	    get_capacity(disk) != hd->nvme.nsze << (hd->nvme.lba_shift - SECTOR_SHIFT))
		return -EXDEV;

	a = kmalloc(HDC_PROBE_BYTES, GFP_KERNEL);
	b = kmalloc(HDC_PROBE_BYTES, GFP_KERNEL);
	if (!a || !b) {
		ret = -ENOMEM;
		goto out;
	}
	/* Equal and not all zero at the first offset that has data. */
	for (i = 0; i < ARRAY_SIZE(probe_off); i++) {
		if (probe_off[i] + HDC_PROBE_BYTES > bdev_nr_bytes(bdev))
			break;
		/* A concurrent superblock write may make one try differ. */
		for (tries = 0; tries < 3; tries++) {
			ret = hdc_probe_host(bdev, probe_off[i], a);
			if (!ret)
				ret = hdc_probe_engine(hd, part + probe_off[i], b);
			if (ret)
				goto out;
			if (!memcmp(a, b, HDC_PROBE_BYTES))
				break;
			msleep(20);
		}
		ret = -EXDEV;
		if (tries == 3)
			break;
		if (memchr_inv(a, 0, HDC_PROBE_BYTES)) {
			ret = 0;
			break;
		}
	}
out:
	kfree(a);
	kfree(b);
	return ret;
}

static int hdc_same_ssd(struct hdc_dev *hd, struct block_device *bdev)
{
	int i, ret;

	if (!bdev)
		return -EXDEV;
	mutex_lock(&hd->bdev_lock);
	for (i = 0; i < hd->nbdevs; i++) {
		if (hd->bdevs[i] == bdev->bd_dev) {
			mutex_unlock(&hd->bdev_lock);
			return 0;
		}
	}
	ret = hdc_verify_bdev(hd, bdev);
	if (!ret) {
		if (hd->nbdevs == HDC_MAX_BDEVS)
			hd->nbdevs--;
		memmove(&hd->bdevs[1], &hd->bdevs[0],
			hd->nbdevs * sizeof(hd->bdevs[0]));
		hd->bdevs[0] = bdev->bd_dev;
		hd->nbdevs++;
		if (!hd->disk_name[0])
			strscpy(hd->disk_name, bdev->bd_disk->disk_name,
				sizeof(hd->disk_name));
		dev_info(&hd->pdev->dev, "%pg shares the engine's namespace\n",
			 bdev);
	}
	mutex_unlock(&hd->bdev_lock);
	return ret;
}

/*
 * For struct hdc_caps: find the host's disk of the namespace if no file
 * has named it yet (nvmeXnY, whole disks only).
 */
int hdc_map_find_disk(struct hdc_dev *hd)
{
	struct block_device *bdev;
	char path[32];
	int c, n, ret;
	dev_t devt;

	if (!hd->nvme.running)
		return -ENODEV;
	for (c = 0; c < 8; c++) {
		for (n = 1; n <= 4; n++) {
			if (READ_ONCE(hd->disk_name[0]))
				return 0;
			snprintf(path, sizeof(path), "/dev/nvme%dn%d", c, n);
			if (lookup_bdev(path, &devt))
				continue;
			bdev = blkdev_get_by_dev(devt, FMODE_READ, NULL);
			if (IS_ERR(bdev))
				continue;
			ret = hdc_same_ssd(hd, bdev);
			blkdev_put(bdev, FMODE_READ);
			if (!ret)
				return 0;
		}
	}
	return -ENODEV;
}

int hdc_map_check_file(struct hdc_dev *hd, struct file *file, bool dst)
{
	struct inode *inode = file_inode(file);
	const char *what = dst ? "destination" : "source";
	int ret;

	if (S_ISDIR(inode->i_mode)) {
		hdc_uerr(hd, "%s is a directory\n", what);
		return -EISDIR;
	}
	if (!S_ISREG(inode->i_mode)) {
		hdc_uerr(hd, "%s is not a regular file (pipe, socket or device?)\n",
			 what);
		return -EINVAL;
	}
	if (!dst && !(file->f_mode & FMODE_READ)) {
		hdc_uerr(hd, "source %pD is not open for reading\n", file);
		return -EBADF;
	}
	if (dst && (!(file->f_mode & FMODE_WRITE) ||
		    (file->f_flags & O_APPEND))) {
		hdc_uerr(hd, "destination %pD is not open for writing (or is O_APPEND)\n",
			 file);
		return -EBADF;
	}
	if (dst && (IS_IMMUTABLE(inode) || IS_APPEND(inode))) {
		hdc_uerr(hd, "destination %pD is immutable or append-only\n", file);
		return -EPERM;
	}
	if (dst && IS_SWAPFILE(inode))
		return -ETXTBSY;
	if (IS_ENCRYPTED(inode) || IS_VERITY(inode) || IS_DAX(inode)) {
		hdc_uerr(hd, "%pD is encrypted, verity-protected or DAX\n", file);
		return -EOPNOTSUPP;
	}
	if (!hd->nvme.running) {
		hdc_uerr(hd, "the engine's SSD is not running\n");
		return -ENODEV;
	}
	ret = hdc_same_ssd(hd, inode->i_sb->s_bdev);
	if (ret == -EXDEV)
		hdc_uerr(hd, "%s %pD is not on the engine's SSD (%s)\n", what,
			 file, hd->disk_name[0] ? hd->disk_name : "nvme namespace");
	if (ret)
		return ret;
	if (i_blocksize(inode) < (1u << hd->nvme.lba_shift)) {
		hdc_uerr(hd, "%pD: file system block smaller than the LBA\n", file);
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * Map the source range.  pin: hold i_dio_count from before the mapping
 * until the request is finished (without: only a check, mapped again
 * later, for a source that is also the destination, whose preparation may
 * truncate the file and so wait for i_dio_count).
 */
int hdc_map_src(struct hdc_dev *hd, struct hdc_request *req,
		struct hdc_extlist *xl, bool pin)
{
	struct file *file = req->src.file;
	struct inode *inode = file_inode(file);
	u64 off = req->src.off, len = req->length;
	struct hdc_segs sg = {};
	int ret;

	if (off > i_size_read(inode) || len > i_size_read(inode) - off) {
		hdc_uerr(hd, "source range %llu+%llu is beyond the end of %pD (%lld bytes)\n",
			 off, len, file, i_size_read(inode));
		return -EINVAL;
	}
	if (!len)	/* nothing to read: one block of zeros */
		return hdc_ext_add(xl, 0, 1, 0, HDC_EXT_ZERO);

	ret = filemap_write_and_wait_range(file->f_mapping, off, off + len - 1);
	if (ret)
		return ret;
	if (pin) {
		inode_dio_begin(inode);
		req->src.dio = true;
	}
	/* Truncation waits for us from here on; check again. */
	if (off > i_size_read(inode) || len > i_size_read(inode) - off) {
		hdc_uerr(hd, "%pD shrank under the request\n", file);
		return -EINVAL;
	}
	ret = hdc_map_range(hd, file, off, len, &sg);
	if (!ret)
		ret = hdc_segs_to_ext(hd, file, &sg, xl);
	hdc_segs_free(&sg);
	return ret;
}

void hdc_map_src_finish(struct hdc_request *req)
{
	if (req->src.dio) {
		inode_dio_end(file_inode(req->src.file));
		req->src.dio = false;
	}
}

/* Write zeros over [pos, pos + len) with direct I/O from the zero page. */
static int hdc_zero_fill(struct file *file, u64 pos, u64 len)
{
	struct bio_vec *bv;
	struct iov_iter it;
	struct kiocb kiocb;
	ssize_t ret = 0;
	u32 i, n;

	bv = kmalloc_array(HDC_ZERO_BVECS, sizeof(*bv), GFP_KERNEL);
	if (!bv)
		return -ENOMEM;
	while (len) {
		u64 chunk = min_t(u64, len, (u64)HDC_ZERO_BVECS * PAGE_SIZE);

		n = DIV_ROUND_UP(chunk, PAGE_SIZE);
		for (i = 0; i < n; i++) {
			bv[i].bv_page = ZERO_PAGE(0);
			bv[i].bv_offset = 0;
			bv[i].bv_len = PAGE_SIZE;
		}
		bv[n - 1].bv_len = chunk - (u64)(n - 1) * PAGE_SIZE;
		iov_iter_bvec(&it, ITER_SOURCE, bv, n, chunk);
		init_sync_kiocb(&kiocb, file);
		kiocb.ki_pos = pos;
		kiocb.ki_flags |= IOCB_DIRECT;
		ret = vfs_iocb_iter_write(file, &kiocb, &it);
		if (ret <= 0) {
			ret = ret ? ret : -EIO;
			break;
		}
		pos += ret;
		len -= ret;
		ret = 0;
	}
	kfree(bv);
	return ret;
}

/*
 * ftruncate() without its permission check: the descriptor is open for
 * writing, as ftruncate() requires (vfs_truncate() would check the inode's
 * permission bits, which a file created read-only fails).
 */
static int hdc_set_size(struct file *file, loff_t size)
{
	struct dentry *dentry = file->f_path.dentry;
	struct inode *inode = file_inode(file);
	struct iattr ia = {
		.ia_valid = ATTR_SIZE | ATTR_FILE | ATTR_MTIME | ATTR_CTIME,
		.ia_size = size,
		.ia_file = file,
	};
	int ret;

	sb_start_write(inode->i_sb);
	inode_lock(inode);
	ret = notify_change(file_mnt_user_ns(file), dentry, &ia, NULL);
	inode_unlock(inode);
	sb_end_write(inode->i_sb);
	return ret;
}

static int hdc_dst_update_time(struct file *file)
{
	struct inode *inode = file_inode(file);
	int ret;

	sb_start_write(inode->i_sb);
	inode_lock(inode);
	ret = file_modified(file);
	inode_unlock(inode);
	sb_end_write(inode->i_sb);
	return ret;
}

/*
 * Prepare [off, off + out_len) of the destination for the engine and map
 * it.  exact: the output is out_len bytes; otherwise (deflate) at most
 * out_len bytes and the file size is set when the request completes.
 */
int hdc_map_dst(struct hdc_dev *hd, struct hdc_request *req, u64 out_len,
		bool exact, struct hdc_extlist *xl)
{
	struct file *file = req->dst.file;
	struct inode *inode = file_inode(file);
	struct address_space *mapping = file->f_mapping;
	u32 bs = i_blocksize(inode);
	u64 off = req->dst.off, cap, end, new_size;
	loff_t size = i_size_read(inode);
	struct hdc_segs sg = {};
	u32 i;
	int ret;

	if (off & (bs - 1)) {
		hdc_uerr(hd, "destination offset %llu: not a multiple of the %u-byte block\n",
			 off, bs);
		return -EINVAL;
	}
	cap = round_up(out_len, bs);
	if (cap < out_len || off + cap < off ||
	    off + cap > inode->i_sb->s_maxbytes) {
		hdc_uerr(hd, "destination range %llu+%llu too large\n", off,
			 out_len);
		return -EFBIG;
	}
	if (!exact && off < size) {
		hdc_uerr(hd, "deflate: destination offset %llu before the end of %pD (%lld)\n",
			 off, file, size);
		return -EINVAL;
	}
	end = off + out_len;
	if (exact && end < size && (end & (bs - 1))) {
		hdc_uerr(hd, "%pD: range %llu+%llu ends inside a block inside the file\n",
			 file, off, out_len);
		return -EINVAL;
	}
	if (!out_len)
		return 0;	/* nothing is written */

	new_size = exact ? max_t(u64, size, end) : off + cap;
	req->dst_orig_size = size;
	ret = hdc_dst_update_time(file);
	if (ret)
		return ret;
	ret = filemap_write_and_wait_range(mapping, off, off + cap - 1);
	if (ret)
		return ret;

	/* Make the whole range written blocks. */
	ret = hdc_map_range(hd, file, off, cap, &sg);
	if (ret)
		return ret;
	req->dst_prepared = true;
	req->dst_cap = cap;
	req->dst_prep_size = size;
	for (i = 0; i < sg.n && !ret; i++) {
		if (sg.s[i].shared) {
			hdc_uerr(hd, "%pD: destination blocks are shared (reflink)\n",
				 file);
			ret = -EOPNOTSUPP;
		} else if (sg.s[i].kind != HDC_SEG_DATA) {
			ret = hdc_zero_fill(file, sg.s[i].off, sg.s[i].len);
		}
	}
	hdc_segs_free(&sg);
	if (!ret && i_size_read(inode) != new_size)
		ret = hdc_set_size(file, new_size);
	req->dst_prep_size = i_size_read(inode);
	if (ret) {
		hdc_uerr(hd, "%pD: cannot allocate the destination range: %d\n",
			 file, ret);
		return ret;
	}

	/* No page cache over what the engine writes. */
	ret = filemap_write_and_wait_range(mapping, off, off + cap - 1);
	if (ret)
		return ret;
	invalidate_inode_pages2_range(mapping, off >> PAGE_SHIFT,
				      (off + cap - 1) >> PAGE_SHIFT);

	inode_dio_begin(inode);
	req->dst.dio = true;
	ret = hdc_map_range(hd, file, off, cap, &sg);
	for (i = 0; !ret && i < sg.n; i++) {
		if (sg.s[i].kind != HDC_SEG_DATA || sg.s[i].shared) {
			hdc_uerr(hd, "%pD changed while it was prepared\n", file);
			ret = -EAGAIN;
		}
	}
	if (!ret)
		ret = hdc_segs_to_ext(hd, file, &sg, xl);
	hdc_segs_free(&sg);
	req->dst_resize = !exact;
	return ret;
}

/*
 * After the engine wrote (or failed): drop the page cache of the range,
 * release the inode, and set the file size: to the output's end after a
 * deflate, back to the old size after a failure.  The size is only
 * touched if nobody changed it since the preparation.
 */
void hdc_map_dst_finish(struct hdc_request *req, int err)
{
	struct file *file = req->dst.file;
	struct inode *inode = file_inode(file);
	u64 off = req->dst.off;
	loff_t size, target;
	int ret;

	if (req->dst_prepared) {
		ret = invalidate_inode_pages2_range(file->f_mapping,
						    off >> PAGE_SHIFT,
						    (off + req->dst_cap - 1) >> PAGE_SHIFT);
		if (ret)
			dev_dbg(&req->hd->pdev->dev,
				"%pD: page cache still mapped: %d\n", file, ret);
	}
	if (req->dst.dio) {
		inode_dio_end(inode);
		req->dst.dio = false;
	}
	if (!req->dst_prepared)
		return;
	size = i_size_read(inode);
	target = size;
	if (err && req->dst_orig_size < size)
		target = req->dst_orig_size;
	else if (!err && req->dst_resize)
		target = off + min_t(u64, req->result, req->dst_cap);
	if (size == req->dst_prep_size && target != size) {
		ret = hdc_set_size(file, target);
		if (ret)
			dev_warn_ratelimited(&req->hd->pdev->dev,
					     "%pD: cannot set size %lld: %d\n",
					     file, target, ret);
	}
	if (!err)
		fsnotify_modify(file);
	req->dst_prepared = false;
}
