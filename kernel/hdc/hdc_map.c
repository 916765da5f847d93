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
 * bmap(), one block at a time, gives the physical location of a range:
 * the extents never pass through user memory.  Holes and unwritten
 * extents are read as zeros (HDC_EXT_ZERO) without touching the SSD;
 * dirty page cache is written back before mapping.  The final mapping is
 * made under the inode's i_dio_count, taken under i_rwsem, and the
 * reference is held until the request is finished, as direct I/O does:
 * truncate, hole punching and extent moves wait for it and the blocks
 * cannot be reused under the engine.
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
#include <linux/buffer_head.h>
#include <linux/bvec.h>
#include <linux/falloc.h>
#include <linux/fileattr.h>
#include <linux/fs.h>
#include <linux/fsnotify.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <asm/unaligned.h>
#include "hdc.h"

#define HDC_ZERO_BVECS		1024	/* 4 MiB per direct I/O write */
#define HDC_PROBE_BYTES		4096

D2D_VISIBLE_IF_KUNIT void hdc_segs_free(struct hdc_segs *sg)
{
	kvfree(sg->s);
	sg->s = NULL;
	sg->n = 0;
	sg->cap = 0;
}

D2D_VISIBLE_IF_KUNIT int hdc_seg_add(struct hdc_segs *sg, u64 off, u64 len,
				     u64 phys, u8 kind)
{
	struct hdc_seg *last = sg->n ? &sg->s[sg->n - 1] : NULL;

	if (!len)
		return 0;
	if (last && last->kind == kind &&
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
	};
	return 0;
}

/*
 * bmap() and the block device's offsets are only proven right for ext4
 * with ordered or writeback data: with data=journal a block's current
 * contents may still be in the journal (and be written over the engine's
 * data at checkpoint), other file systems may have several devices
 * (btrfs, an XFS realtime device), copy on write or compression.
 */
#define HDC_EXT4_SB_OFFSET	1024
#define HDC_EXT4_SB_MAGIC	0x38	/* __le16 s_magic */
#define HDC_EXT4_SB_DEFM	0x100	/* __le32 s_default_mount_opts */
#define HDC_EXT4_MAGIC		0xef53
#define HDC_EXT4_DEFM_JMODE	0x0060
#define HDC_EXT4_DEFM_JDATA	0x0020
#define HDC_FS_BAD_FLAGS	(FS_INLINE_DATA_FL | FS_ENCRYPT_FL | \
				 FS_VERITY_FL | FS_COMPR_FL | FS_JOURNAL_DATA_FL)

/* The default data mode of the superblock (tune2fs -o journal_data). */
static bool hdc_ext4_default_jdata(struct super_block *sb)
{
	struct buffer_head *bh;
	u32 off = HDC_EXT4_SB_OFFSET % sb->s_blocksize;
	bool jdata = true;	/* unreadable: assume the worst */
	u8 *p;

	bh = sb_bread(sb, HDC_EXT4_SB_OFFSET / sb->s_blocksize);
	if (!bh)
		return jdata;
	p = bh->b_data + off;
	if (get_unaligned_le16(p + HDC_EXT4_SB_MAGIC) == HDC_EXT4_MAGIC)
		jdata = (get_unaligned_le32(p + HDC_EXT4_SB_DEFM) &
			 HDC_EXT4_DEFM_JMODE) == HDC_EXT4_DEFM_JDATA;
	brelse(bh);
	return jdata;
}

/* Is the file system mounted with data=journal? */
static int hdc_ext4_jdata(struct super_block *sb, bool *jdata)
{
	struct seq_file m = { .size = PAGE_SIZE };
	int ret;

	m.buf = kzalloc(m.size, GFP_KERNEL);
	if (!m.buf)
		return -ENOMEM;
	ret = sb->s_op->show_options(&m, sb->s_root);
	if (!ret && seq_has_overflowed(&m))
		ret = -E2BIG;
	if (!ret) {
		m.buf[min(m.count, m.size - 1)] = 0;
		/* Shown only if it differs from the superblock's default. */
		if (strstr(m.buf, ",data=journal"))
			*jdata = true;
		else if (strstr(m.buf, ",data="))
			*jdata = false;
		else
			*jdata = hdc_ext4_default_jdata(sb);
	}
	kfree(m.buf);
	return ret;
}

/*
 * The file system and the file's flags are ones whose blocks the engine
 * may read and write in place.  Checked when the request is built and
 * again under i_dio_count (changing a file's journalling mode waits for
 * it).
 */
static int hdc_map_fs_ok(struct hdc_dev *hd, struct file *file)
{
	struct inode *inode = file_inode(file);
	struct super_block *sb = inode->i_sb;
	struct fileattr fa = {};
	bool jdata = true;
	int ret;

	if (strcmp(sb->s_type->name, "ext4") || !sb->s_op->show_options) {
		hdc_uerr(hd, "%pD: file system %s is not supported (ext4 only)\n",
			 file, sb->s_type->name);
		return -EOPNOTSUPP;
	}
	ret = hdc_ext4_jdata(sb, &jdata);
	if (ret)
		return ret;
	if (jdata) {
		hdc_uerr(hd, "%pD: ext4 mounted with data=journal is not supported\n",
			 file);
		return -EOPNOTSUPP;
	}
	ret = vfs_fileattr_get(file->f_path.dentry, &fa);
	if (ret)
		return ret == -ENOIOCTLCMD ? -EOPNOTSUPP : ret;
	if (fa.flags & HDC_FS_BAD_FLAGS) {
		hdc_uerr(hd, "%pD: inline, encrypted, verity, compressed or journalled (%#x)\n",
			 file, fa.flags & HDC_FS_BAD_FLAGS);
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * Map [off, off + len) with bmap(), one file system block at a time.
 * Extents never pass through user memory: ->fiemap() could only report
 * them into the caller's address space, where another thread could
 * rewrite them before they are read back.  bmap() reports only written,
 * mapped blocks (holes, unwritten and delayed extents are 0, read as
 * zeros); dirty ranges are written back by the callers before mapping.
 */
static int hdc_map_range(struct hdc_dev *hd, struct file *file, u64 off,
			 u64 len, struct hdc_segs *sg)
{
	struct inode *inode = file_inode(file);
	unsigned int bits = inode->i_blkbits;
	u64 end = off + len, blk;
	int ret = 0;

	hdc_segs_free(sg);
	if (!file->f_mapping->a_ops->bmap)
		ret = -EOPNOTSUPP;
	for (blk = off >> bits; !ret && (blk << bits) < end; blk++) {
		u64 bs = blk << bits, s = max(off, bs);
		u64 e = min(end, bs + (1ull << bits));
		sector_t b = blk;

		ret = bmap(inode, &b);
		if (ret) {
			ret = ret == -EINVAL ? -EOPNOTSUPP : ret;
			break;
		}
		if (b)
			ret = hdc_seg_add(sg, s, e - s, ((u64)b << bits) + (s - bs),
					  HDC_SEG_DATA);
		else
			ret = hdc_seg_add(sg, s, e - s, 0, HDC_SEG_HOLE);
		if (fatal_signal_pending(current))
			ret = -EINTR;
		cond_resched();
	}
	if (ret == -EOPNOTSUPP)
		hdc_uerr(hd, "%pD: blocks not mappable\n", file);
	else if (ret == -E2BIG)
		hdc_uerr(hd, "%pD: more than %u extents in the range\n", file,
			 HDC_MAX_EXTENTS);
	if (ret)
		hdc_segs_free(sg);
	return ret;
}

/*
 * Holding i_dio_count across the mapping keeps it valid: truncate, hole
 * punching, collapse/insert range and extent moves wait for it.  But they
 * wait holding i_rwsem, which bmap() takes too: a request holding
 * i_dio_count while bmap() waits for i_rwsem would deadlock with them.
 * So a watchdog gives the reference up when i_rwsem stays contended while
 * the range is being mapped, and the mapping is then done again.
 */
#define HDC_PIN_TICK		msecs_to_jiffies(10)
#define HDC_PIN_STRIKES		2
#define HDC_PIN_TRIES		5

struct hdc_pin {
	struct timer_list timer;
	struct inode *inode;
	atomic_t pinned;
	int strikes;
};

static void hdc_pin_watch(struct timer_list *t)
{
	struct hdc_pin *p = from_timer(p, t, timer);

	if (!rwsem_is_contended(&p->inode->i_rwsem)) {
		p->strikes = 0;
	} else if (++p->strikes >= HDC_PIN_STRIKES) {
		if (atomic_xchg(&p->pinned, 0))
			inode_dio_end(p->inode);
		return;
	}
	mod_timer(&p->timer, jiffies + HDC_PIN_TICK);
}

/* A range to map under one i_dio_count reference. */
struct hdc_range {
	u64 off;
	u64 len;
	bool in_file;		/* must lie inside i_size */
	struct hdc_segs *sg;
};

/*
 * Take i_dio_count (fdep->dio) and map the ranges under it.  The
 * reference is taken under i_rwsem, so no truncation is half done, and
 * the ranges are checked against i_size there.
 */
static int hdc_map_pinned(struct hdc_dev *hd, struct hdc_fdep *fdep,
			  struct hdc_range *r, int nr)
{
	struct inode *inode = file_inode(fdep->file);
	struct hdc_pin p = { .inode = inode };
	int i, tries, ret = -EAGAIN;
	loff_t size;

	for (tries = 0; tries < HDC_PIN_TRIES && ret == -EAGAIN; tries++) {
		inode_lock_shared(inode);
		size = i_size_read(inode);
		for (i = 0; i < nr; i++) {
			if (r[i].in_file &&
			    (r[i].off > size || r[i].len > size - r[i].off)) {
				inode_unlock_shared(inode);
				hdc_uerr(hd, "%pD shrank under the request\n",
					 fdep->file);
				return -EINVAL;
			}
		}
		inode_dio_begin(inode);
		inode_unlock_shared(inode);

		ret = hdc_map_fs_ok(hd, fdep->file);
		if (ret) {
			inode_dio_end(inode);
			return ret;
		}
		atomic_set(&p.pinned, 1);
		p.strikes = 0;
		timer_setup_on_stack(&p.timer, hdc_pin_watch, 0);
		mod_timer(&p.timer, jiffies + HDC_PIN_TICK);
		for (i = 0, ret = 0; i < nr && !ret; i++)
			ret = hdc_map_range(hd, fdep->file, r[i].off, r[i].len,
					    r[i].sg);
		del_timer_sync(&p.timer);
		destroy_timer_on_stack(&p.timer);
		if (atomic_read(&p.pinned)) {
			fdep->dio = true;
			break;
		}
		/* Given up for a truncation: the blocks may have moved. */
		for (i = 0; i < nr; i++)
			hdc_segs_free(r[i].sg);
		if (!ret)
			ret = -EAGAIN;
	}
	if (ret && fdep->dio) {
		inode_dio_end(inode);
		fdep->dio = false;
	}
	if (ret == -EAGAIN)
		hdc_uerr(hd, "%pD: range changed under the request %d times\n",
			 fdep->file, HDC_PIN_TRIES);
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
	ret = hdc_req_exec_sync(req);
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

	lockdep_assert_not_held(&hd->bdev_lock);
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

static bool hdc_bdev_known(struct hdc_dev *hd, dev_t dev)
{
	int i;

	lockdep_assert_held(&hd->bdev_lock);
	for (i = 0; i < hd->nbdevs; i++)
		if (hd->bdevs[i] == dev)
			return true;
	return false;
}

/*
 * The proof does block I/O and an engine command: bdev_lock only guards
 * the cache, it is not held across them (two callers may prove the same
 * device at once, harmlessly).
 */
static int hdc_same_ssd(struct hdc_dev *hd, struct block_device *bdev)
{
	bool known;
	int ret;

	if (!bdev)
		return -EXDEV;
	mutex_lock(&hd->bdev_lock);
	known = hdc_bdev_known(hd, bdev->bd_dev);
	mutex_unlock(&hd->bdev_lock);
	if (known)
		return 0;
	ret = hdc_verify_bdev(hd, bdev);
	if (ret)
		return ret;
	mutex_lock(&hd->bdev_lock);
	if (!hdc_bdev_known(hd, bdev->bd_dev)) {
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
	return 0;
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
	ret = hdc_map_fs_ok(hd, file);
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
		struct hdc_range r = {
			.off = off, .len = len, .in_file = true, .sg = &sg,
		};

		ret = hdc_map_pinned(hd, &req->src, &r, 1);
	} else {
		ret = hdc_map_range(hd, file, off, len, &sg);
	}
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
 * ftruncate() of the destination without its permission check: the
 * descriptor is open for writing, as ftruncate() requires (vfs_truncate()
 * would check the inode's permission bits, which a file created read-only
 * fails).  The request holds the file system's write (freeze) protection,
 * hdc_dst_freeze(), which lockdep does not track (it is handed to the
 * work item): the request's flag is asserted instead.
 */
static int hdc_set_size(struct hdc_request *req, loff_t size)
{
	struct file *file = req->dst.file;
	struct dentry *dentry = file->f_path.dentry;
	struct inode *inode = file_inode(file);
	struct iattr ia = {
		.ia_valid = ATTR_SIZE | ATTR_FILE | ATTR_MTIME | ATTR_CTIME,
		.ia_size = size,
		.ia_file = file,
	};
	int ret;

	lockdep_assert(req->dst_frozen);
	inode_lock(inode);
	ret = notify_change(file_mnt_user_ns(file), dentry, &ia, NULL);
	inode_unlock(inode);
	return ret;
}

/*
 * Freeze protection of a destination, from its preparation until the
 * engine has written and the file is finished, as asynchronous direct
 * I/O holds it: fsfreeze waits for the request, and a request for a
 * frozen file system waits for the thaw, as write(2) does.  It is given
 * back by another task (the work item), so lockdep is told, as aio does.
 */
static void hdc_dst_freeze(struct hdc_request *req)
{
	struct super_block *sb = file_inode(req->dst.file)->i_sb;

	sb_start_write(sb);
	__sb_writers_release(sb, SB_FREEZE_WRITE);
	req->dst_frozen = true;
}

static void hdc_dst_thaw(struct hdc_request *req)
{
	struct super_block *sb = file_inode(req->dst.file)->i_sb;

	if (!req->dst_frozen)
		return;
	__sb_writers_acquired(sb, SB_FREEZE_WRITE);
	sb_end_write(sb);
	req->dst_frozen = false;
}

static int hdc_dst_update_time(struct file *file)
{
	struct inode *inode = file_inode(file);
	int ret;

	inode_lock(inode);
	ret = file_modified(file);
	inode_unlock(inode);
	return ret;
}

/*
 * Prepare [off, off + out_len) of the destination for the engine and map
 * it.  exact: the output is out_len bytes; otherwise (deflate) at most
 * out_len bytes and the file size is set when the request completes.
 */
int hdc_map_dst(struct hdc_dev *hd, struct hdc_request *req, u64 out_len,
		bool exact, struct hdc_extlist *xl, struct hdc_extlist *sx)
{
	struct file *file = req->dst.file;
	struct inode *inode = file_inode(file);
	struct address_space *mapping = file->f_mapping;
	u32 bs = i_blocksize(inode);
	u64 off = req->dst.off, cap, end, new_size;
	loff_t size = i_size_read(inode);
	struct hdc_segs sg = {}, ssg = {};
	struct hdc_range r[2] = {
		{ .off = off, .sg = &sg },
		{ .off = req->src.off, .len = req->length, .in_file = true,
		  .sg = &ssg },
	};
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
	if (!out_len)	/* nothing is written */
		return sx ? hdc_map_src(hd, req, sx, true) : 0;

	hdc_dst_freeze(req);
	size = i_size_read(inode);
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
	for (i = 0; i < sg.n && !ret; i++)
		if (sg.s[i].kind != HDC_SEG_DATA)
			ret = hdc_zero_fill(file, sg.s[i].off, sg.s[i].len);
	hdc_segs_free(&sg);
	if (!ret && i_size_read(inode) != new_size)
		ret = hdc_set_size(req, new_size);
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
	if (sx && req->length) {
		ret = filemap_write_and_wait_range(mapping, req->src.off,
						   req->src.off + req->length - 1);
		if (ret)
			return ret;
	}
	r[0].len = cap;

	/* A source in the same file is mapped under the same reference. */
	ret = hdc_map_pinned(hd, &req->dst, r, sx && req->length ? 2 : 1);
	for (i = 0; !ret && i < sg.n; i++) {
		if (sg.s[i].kind != HDC_SEG_DATA) {
			hdc_uerr(hd, "%pD changed while it was prepared\n", file);
			ret = -EAGAIN;
		}
	}
	if (!ret)
		ret = hdc_segs_to_ext(hd, file, &sg, xl);
	if (!ret && sx)
		ret = req->length ? hdc_segs_to_ext(hd, file, &ssg, sx) :
		      hdc_ext_add(sx, 0, 1, 0, HDC_EXT_ZERO);
	hdc_segs_free(&sg);
	hdc_segs_free(&ssg);
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
		goto out;
	size = i_size_read(inode);
	target = size;
	if (err && req->dst_orig_size < size)
		target = req->dst_orig_size;
	else if (!err && req->dst_resize)
		target = off + min_t(u64, req->result, req->dst_cap);
	if (size == req->dst_prep_size && target != size) {
		ret = hdc_set_size(req, target);
		if (ret)
			dev_warn_ratelimited(&req->hd->pdev->dev,
					     "%pD: cannot set size %lld: %d\n",
					     file, target, ret);
	}
	if (!err)
		fsnotify_modify(file);
	req->dst_prepared = false;
out:
	hdc_dst_thaw(req);
}
