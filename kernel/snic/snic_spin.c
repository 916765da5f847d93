// SPDX-License-Identifier: GPL-2.0
/*
 * snic sPIN host interface: /dev/snic-spinN, one misc device per snic with
 * SNIC_CAP_SPIN.  This file holds the device's lifetime, open files, the
 * allocator of program and L2 handler memory, handler-memory copies and
 * the ioctl dispatch; contexts live in snic_spin_ctx.c.
 *
 * Everything an open file creates belongs to it and is torn down when the
 * file is released.  All state and every admin command are serialised by
 * sp->lock: the ioctls are control-path operations.  No user memory is
 * touched with sp->lock held (see snic_spin_ioctl).
 */
#include <linux/module.h>
#include <linux/bitmap.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "snic_spin_state.h"

#define SNIC_SPIN_XFER_CHUNK	SZ_64K	/* bytes per WRITE_MEM/READ_MEM */
#define SNIC_SPIN_MAX_ALLOCS	256	/* per file */

static DEFINE_IDA(snic_spin_ida);

static void snic_spin_release_sp(struct kref *ref)
{
	struct snic_spin *sp = container_of(ref, struct snic_spin, ref);

	ida_free(&snic_spin_ida, sp->idx);
	bitmap_free(sp->pmem_map);
	bitmap_free(sp->l2h_map);
	snic_dev_put(sp->sd);
	kfree(sp);
}

static void snic_spin_put(struct snic_spin *sp)
{
	kref_put(&sp->ref, snic_spin_release_sp);
}

static u32 snic_spin_mem_size(u8 mem)
{
	return mem == SNIC_SPIN_MEM_PROG ? SNIC_SPIN_PMEM_SIZE :
					   SNIC_SPIN_L2H_SIZE;
}

static unsigned long *snic_spin_mem_map(struct snic_spin *sp, u8 mem)
{
	return mem == SNIC_SPIN_MEM_PROG ? sp->pmem_map : sp->l2h_map;
}

static u32 snic_spin_mem_free_bytes(struct snic_spin *sp, u8 mem)
{
	u32 units = snic_spin_mem_size(mem) / SNIC_SPIN_MEM_ALIGN;

	return (units - bitmap_weight(snic_spin_mem_map(sp, mem), units)) *
	       SNIC_SPIN_MEM_ALIGN;
}

/* One WRITE_MEM/READ_MEM admin command: @n bytes at bus address @dma. */
static int snic_spin_mem_cmd(struct snic_spin *sp, u8 opcode, u8 mem,
			     u32 offset, dma_addr_t dma, u32 n)
{
	struct snic_aq_spin_mem *m;
	struct snic_aq_cmd cmd = {};

	BUILD_BUG_ON(sizeof(*m) > sizeof(cmd.raw));
	cmd.opcode = opcode;
	m = (struct snic_aq_spin_mem *)cmd.raw;
	m->host_addr = cpu_to_le64(dma);
	m->len = cpu_to_le32(n);
	m->offset = cpu_to_le32(offset);
	m->mem = mem;
	return snic_aq_exec(sp->sd, &cmd, NULL);
}

/* The bounce buffer of a transfer of @len bytes (zeroed), and its size. */
static void *snic_spin_bounce_alloc(struct snic_spin *sp, u32 len,
				    size_t *chunk, dma_addr_t *dma)
{
	*chunk = min_t(size_t, len, SNIC_SPIN_XFER_CHUNK);
	return dma_alloc_coherent(&sp->sd->pdev->dev, *chunk, dma, GFP_KERNEL);
}

/* After an admin timeout the device may still write the buffer: leaked. */
static void snic_spin_bounce_free(struct snic_spin *sp, void *buf,
				  size_t chunk, dma_addr_t dma, int ret)
{
	if (ret != -ETIMEDOUT)
		dma_free_coherent(&sp->sd->pdev->dev, chunk, buf, dma);
}

/* Zero @len bytes of device memory; called with sp->lock held. */
static int snic_spin_mem_zero(struct snic_spin *sp, u8 mem, u32 offset,
			      u32 len)
{
	size_t chunk;
	dma_addr_t dma;
	void *buf;
	int ret = 0;

	lockdep_assert_held(&sp->lock);
	buf = snic_spin_bounce_alloc(sp, len, &chunk, &dma);
	if (!buf)
		return -ENOMEM;
	while (len && !ret) {
		u32 n = min_t(u32, len, chunk);

		ret = snic_spin_mem_cmd(sp, SNIC_AQ_SPIN_WRITE_MEM, mem, offset,
					dma, n);
		len -= n;
		offset += n;
	}
	snic_spin_bounce_free(sp, buf, chunk, dma, ret);
	return ret;
}

static void snic_spin_alloc_free(struct snic_spin *sp,
				 struct snic_spin_alloc *a)
{
	bitmap_clear(snic_spin_mem_map(sp, a->mem),
		     a->offset / SNIC_SPIN_MEM_ALIGN,
		     a->size / SNIC_SPIN_MEM_ALIGN);
	list_del(&a->node);
	kfree(a);
}

static int snic_spin_mem_alloc(struct snic_spin_file *f,
			       struct snic_spin_mem_alloc *req)
{
	struct snic_spin *sp = f->sp;
	struct snic_spin_alloc *a;
	unsigned long *map, start;
	u32 units, nr, n = 0;
	int ret;

	if (req->mem != SNIC_SPIN_MEM_PROG && req->mem != SNIC_SPIN_MEM_L2H)
		return -EINVAL;
	if (!req->size || req->size > snic_spin_mem_size(req->mem))
		return -EINVAL;
	list_for_each_entry(a, &f->allocs, node)
		n++;
	if (n >= SNIC_SPIN_MAX_ALLOCS)
		return -ENOSPC;
	map = snic_spin_mem_map(sp, req->mem);
	units = snic_spin_mem_size(req->mem) / SNIC_SPIN_MEM_ALIGN;
	nr = DIV_ROUND_UP(req->size, SNIC_SPIN_MEM_ALIGN);
	start = bitmap_find_next_zero_area(map, units, 0, nr, 0);
	if (start >= units)
		return -ENOSPC;
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	a->mem = req->mem;
	a->offset = start * SNIC_SPIN_MEM_ALIGN;
	a->size = nr * SNIC_SPIN_MEM_ALIGN;
	a->id = ++f->next_id;
	bitmap_set(map, start, nr);
	list_add_tail(&a->node, &f->allocs);
	/* What an earlier owner left there must not leak to this one. */
	ret = snic_spin_mem_zero(sp, a->mem, a->offset, a->size);
	if (ret) {
		snic_spin_alloc_free(sp, a);
		return ret;
	}
	req->id = a->id;
	req->offset = a->offset;
	req->size = a->size;
	return 0;
}

/* Allocation @id of @f if [@offset, @offset + @len) lies in it. */
static struct snic_spin_alloc *
snic_spin_alloc_range(struct snic_spin_file *f, u32 id, u32 offset, u32 len,
		      int *err)
{
	struct snic_spin_alloc *a = snic_spin_alloc_find(f, id);

	*err = !a ? -ENOENT : !len || offset > a->size ||
			      len > a->size - offset ? -EINVAL : 0;
	return *err ? NULL : a;
}

/*
 * SNIC_SPIN_IOC_MEM_WRITE/READ through a bounce buffer, one admin command
 * per SNIC_SPIN_XFER_CHUNK bytes.  The user copies run without sp->lock: a
 * user buffer that faults for ever (userfaultfd) stalls only this caller.
 * The lock is taken per chunk, and the allocation looked up again each
 * time (another thread of the owner may free it meanwhile: ENOENT).
 */
static int snic_spin_mem_rw(struct snic_spin_file *f, unsigned int cmd,
			    struct snic_spin_mem_rw *rw)
{
	u8 opcode = cmd == SNIC_SPIN_IOC_MEM_WRITE ? SNIC_AQ_SPIN_WRITE_MEM :
						    SNIC_AQ_SPIN_READ_MEM;
	u8 __user *user = u64_to_user_ptr(rw->data);
	u32 len = rw->len, pos = rw->offset;
	struct snic_spin *sp = f->sp;
	struct snic_spin_alloc *a;
	size_t chunk;
	dma_addr_t dma;
	void *buf;
	int ret;

	ret = snic_spin_lock_live(sp);
	if (ret)
		return ret;
	a = snic_spin_alloc_range(f, rw->id, pos, len, &ret);
	mutex_unlock(&sp->lock);
	if (!a)
		return ret;
	buf = snic_spin_bounce_alloc(sp, len, &chunk, &dma);
	if (!buf)
		return -ENOMEM;
	while (len) {
		u32 n = min_t(u32, len, chunk);

		if (opcode == SNIC_AQ_SPIN_WRITE_MEM &&
		    copy_from_user(buf, user, n)) {
			ret = -EFAULT;
			break;
		}
		ret = snic_spin_lock_live(sp);
		if (ret)
			break;
		a = snic_spin_alloc_range(f, rw->id, pos, n, &ret);
		if (a)
			ret = snic_spin_mem_cmd(sp, opcode, a->mem,
						a->offset + pos, dma, n);
		mutex_unlock(&sp->lock);
		if (ret)
			break;
		if (opcode == SNIC_AQ_SPIN_READ_MEM &&
		    copy_to_user(user, buf, n)) {
			ret = -EFAULT;
			break;
		}
		len -= n;
		pos += n;
		user += n;
	}
	snic_spin_bounce_free(sp, buf, chunk, dma, ret);
	return ret;
}

static void snic_spin_info_fill(struct snic_spin *sp, struct snic_spin_info *i)
{
	memset(i, 0, sizeof(*i));
	i->clusters = sp->clusters;
	i->hpus_per_cluster = sp->hpus;
	i->clock_mhz = sp->clock_mhz;
	i->max_ctxs = SNIC_SPIN_MAX_CTXS;
	i->pmem_size = SNIC_SPIN_PMEM_SIZE;
	i->l2h_size = SNIC_SPIN_L2H_SIZE;
	i->pmem_free = snic_spin_mem_free_bytes(sp, SNIC_SPIN_MEM_PROG);
	i->l2h_free = snic_spin_mem_free_bytes(sp, SNIC_SPIN_MEM_L2H);
	i->max_regions = SNIC_SPIN_MAX_REGIONS;
	i->max_region_size = PAGE_SIZE << (MAX_ORDER - 1);
	i->perm_denied = sp->perm_denied;
	spin_lock_irq(&sp->ev_lock);
	i->ev_irqs = sp->ev_irqs;
	i->ev_eqes = sp->ev_eqes;
	spin_unlock_irq(&sp->ev_lock);
}

/*
 * Any context's counters, or the engine's: readable by every opener.
 * Takes sp->lock itself.
 */
static int snic_spin_stats(struct snic_spin *sp, struct snic_spin_stats *s)
{
	void *buf;
	u32 kind = s->ctx == SNIC_SPIN_CTX_DEV ? SNIC_STATS_SPIN_DEV :
						   SNIC_STATS_SPIN;
	size_t size = kind == SNIC_STATS_SPIN_DEV ?
		      sizeof(struct snic_spin_dev_stats) :
		      sizeof(struct snic_spin_ctx_stats);
	int ret;

	if (!s->len || s->len > size)
		return -EINVAL;
	if (kind == SNIC_STATS_SPIN && s->ctx >= SNIC_SPIN_MAX_CTXS)
		return -EINVAL;
	buf = kzalloc(size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = snic_spin_lock_live(sp);
	if (ret)
		goto out;
	/* The device may keep counters of a freed slot: not a context. */
	if (kind == SNIC_STATS_SPIN && !snic_spin_ctx_live(sp, s->ctx))
		ret = -ENOENT;
	else
		ret = snic_cmd_query_stats(sp->sd, kind,
					   kind == SNIC_STATS_SPIN ? s->ctx : 0,
					   buf, size);
	mutex_unlock(&sp->lock);
	/* Copied out without sp->lock (see snic_spin_mem_rw). */
	if (!ret && copy_to_user(u64_to_user_ptr(s->buf), buf, s->len))
		ret = -EFAULT;
out:
	kfree(buf);
	return ret;
}

static int snic_spin_open(struct inode *inode, struct file *file)
{
	struct miscdevice *misc = file->private_data;
	struct snic_spin *sp = container_of(misc, struct snic_spin, misc);
	struct snic_spin_file *f;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	INIT_LIST_HEAD(&f->allocs);
	INIT_LIST_HEAD(&f->ctxs);
	init_waitqueue_head(&f->wq);
	f->sp = sp;
	f->filp = file;
	mutex_lock(&sp->lock);
	if (sp->dead) {
		mutex_unlock(&sp->lock);
		kfree(f);
		return -ENODEV;
	}
	kref_get(&sp->ref);
	list_add_tail(&f->node, &sp->files);
	mutex_unlock(&sp->lock);
	file->private_data = f;
	return nonseekable_open(inode, file);
}

/* Contexts first (they use the allocations as windows), then memory. */
static void snic_spin_file_teardown(struct snic_spin_file *f)
{
	struct snic_spin_ctx *c, *cn;
	struct snic_spin_alloc *a, *an;

	list_for_each_entry_safe(c, cn, &f->ctxs, node)
		snic_spin_ctx_destroy(f->sp, c);
	list_for_each_entry_safe(a, an, &f->allocs, node)
		snic_spin_alloc_free(f->sp, a);
}

static int snic_spin_release(struct inode *inode, struct file *file)
{
	struct snic_spin_file *f = file->private_data;
	struct snic_spin *sp = f->sp;

	mutex_lock(&sp->lock);
	snic_spin_file_teardown(f);
	list_del(&f->node);
	mutex_unlock(&sp->lock);
	kfree(f);
	snic_spin_put(sp);
	return 0;
}

union snic_spin_ioc_arg {
	struct snic_spin_info info;
	struct snic_spin_mem_alloc alloc;
	struct snic_spin_mem_rw rw;
	struct snic_spin_ctx_create ctx_create;
	struct snic_spin_ctx_ref ref;
	struct snic_spin_attach attach;
	struct snic_spin_reg_opcode op;
	struct snic_spin_region_add reg;
	struct snic_spin_events events;
	struct snic_spin_stats stats;
};

/* The ioctls that touch no user memory: called with sp->lock held. */
static long snic_spin_ioctl_locked(struct snic_spin_file *f, unsigned int cmd,
				   union snic_spin_ioc_arg *u)
{
	struct snic_spin *sp = f->sp;
	struct snic_spin_alloc *a;
	struct snic_spin_ctx *c;
	int ret;

	lockdep_assert_held(&sp->lock);
	switch (cmd) {
	case SNIC_SPIN_IOC_INFO:
		snic_spin_info_fill(sp, &u->info);
		return 0;
	case SNIC_SPIN_IOC_MEM_ALLOC:
		return snic_spin_mem_alloc(f, &u->alloc);
	case SNIC_SPIN_IOC_MEM_FREE:
		a = snic_spin_alloc_find(f, u->alloc.id);
		ret = !a ? -ENOENT : a->users ? -EBUSY : 0;
		if (!ret)
			snic_spin_alloc_free(sp, a);
		return ret;
	case SNIC_SPIN_IOC_CTX_CREATE:
		return snic_spin_ctx_create(f, &u->ctx_create);
	case SNIC_SPIN_IOC_CTX_DESTROY:
		c = snic_spin_ctx_find(f, u->ref.ctx, &ret);
		if (c)
			snic_spin_ctx_destroy(sp, c);
		return ret;
	case SNIC_SPIN_IOC_ATTACH:
		return snic_spin_attach(f, &u->attach);
	case SNIC_SPIN_IOC_DETACH:
		return snic_spin_detach(f, &u->attach);
	case SNIC_SPIN_IOC_REGION_ADD:
		return snic_spin_region_add(f, &u->reg);
	case SNIC_SPIN_IOC_REG_OPCODE:
		return snic_spin_reg_opcode(f, &u->op);
	default:
		return -ENOTTY;
	}
}

/*
 * The argument is copied in before and out after sp->lock, and the ioctls
 * that copy user buffers (MEM_WRITE/READ, EVENTS, STATS) take the lock
 * only around their device work: no user fault is ever taken with sp->lock
 * held, so a stalled user page (userfaultfd, a slow file mapping) holds up
 * only its own caller, never other users, unbind or rmmod.
 */
static long snic_spin_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	struct snic_spin_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;
	struct snic_spin *sp = f->sp;
	size_t size = _IOC_SIZE(cmd);
	union snic_spin_ioc_arg u;
	long ret;

	if (_IOC_TYPE(cmd) != SNIC_SPIN_IOC_MAGIC || size > sizeof(u))
		return -ENOTTY;
	if ((_IOC_DIR(cmd) & _IOC_WRITE) && copy_from_user(&u, uarg, size))
		return -EFAULT;

	switch (cmd) {
	case SNIC_SPIN_IOC_MEM_WRITE:
	case SNIC_SPIN_IOC_MEM_READ:
		ret = snic_spin_mem_rw(f, cmd, &u.rw);
		break;
	case SNIC_SPIN_IOC_EVENTS:
		ret = snic_spin_events(f, &u.events);
		break;
	case SNIC_SPIN_IOC_STATS:
		ret = snic_spin_stats(sp, &u.stats);
		break;
	default:
		ret = snic_spin_lock_live(sp);
		if (ret)
			break;
		ret = snic_spin_ioctl_locked(f, cmd, &u);
		mutex_unlock(&sp->lock);
	}
	if (!ret && (_IOC_DIR(cmd) & _IOC_READ) && copy_to_user(uarg, &u, size))
		ret = -EFAULT;
	return ret;
}

/*
 * POLLIN while any context of this file has an event on its ring; the sPIN
 * EQ interrupt wakes f->wq.  POLLERR once the PCI function is gone.
 */
static __poll_t snic_spin_poll(struct file *file, poll_table *wait)
{
	struct snic_spin_file *f = file->private_data;
	struct snic_spin *sp = f->sp;
	struct snic_spin_ctx *c;
	__poll_t mask = 0;

	poll_wait(file, &f->wq, wait);
	mutex_lock(&sp->lock);
	if (sp->dead) {
		mask = EPOLLERR;
	} else {
		list_for_each_entry(c, &f->ctxs, node) {
			if (snic_spin_ev_pending(c)) {
				mask = EPOLLIN | EPOLLRDNORM;
				break;
			}
		}
	}
	mutex_unlock(&sp->lock);
	return mask;
}

/* A host region, mapped whole or in part from its start. */
static int snic_spin_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct snic_spin_file *f = file->private_data;
	unsigned long len = vma->vm_end - vma->vm_start, i;
	struct snic_spin_region *r;
	int ret = 0;

	mutex_lock(&f->sp->lock);
	r = snic_spin_region_by_pgoff(f, vma->vm_pgoff);
	if (!r || len > r->size) {
		ret = -EINVAL;
		goto out;
	}
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	/* The mapping holds its own page references: safe after destroy. */
	for (i = 0; i < len >> PAGE_SHIFT && !ret; i++)
		ret = vm_insert_page(vma, vma->vm_start + (i << PAGE_SHIFT),
				     r->page + i);
out:
	mutex_unlock(&f->sp->lock);
	return ret;
}

static const struct file_operations snic_spin_fops = {
	.owner = THIS_MODULE,
	.open = snic_spin_open,
	.release = snic_spin_release,
	.unlocked_ioctl = snic_spin_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = snic_spin_mmap,
	.poll = snic_spin_poll,
	.llseek = no_llseek,
};

static int snic_spin_probe(struct snic_dev *sd)
{
	struct device *dev = &sd->pdev->dev;
	struct snic_spin_dev_stats ds;
	struct snic_spin *sp;
	int ret;

	if (!snic_has(sd, SNIC_CAP_SPIN | SNIC_CAP_STEER))
		return 0;
	ret = snic_cmd_query_stats(sd, SNIC_STATS_SPIN_DEV, 0, &ds, sizeof(ds));
	if (ret) {
		dev_err(dev, "sPIN: cannot query the engine: %d\n", ret);
		return ret;
	}
	sp = kzalloc(sizeof(*sp), GFP_KERNEL);
	if (!sp)
		return -ENOMEM;
	sp->pmem_map = bitmap_zalloc(SNIC_SPIN_PMEM_SIZE / SNIC_SPIN_MEM_ALIGN,
				     GFP_KERNEL);
	sp->l2h_map = bitmap_zalloc(SNIC_SPIN_L2H_SIZE / SNIC_SPIN_MEM_ALIGN,
				    GFP_KERNEL);
	sp->idx = ida_alloc(&snic_spin_ida, GFP_KERNEL);
	if (!sp->pmem_map || !sp->l2h_map || sp->idx < 0) {
		ret = sp->idx < 0 ? sp->idx : -ENOMEM;
		if (sp->idx >= 0)
			ida_free(&snic_spin_ida, sp->idx);
		bitmap_free(sp->pmem_map);
		bitmap_free(sp->l2h_map);
		kfree(sp);
		return ret;
	}
	kref_init(&sp->ref);
	kref_get(&sd->ref);
	sp->sd = sd;
	mutex_init(&sp->lock);
	spin_lock_init(&sp->ev_lock);
	INIT_LIST_HEAD(&sp->files);
	sp->clusters = le32_to_cpu(ds.clusters);
	sp->hpus = le32_to_cpu(ds.hpus_per_cluster);
	sp->clock_mhz = le32_to_cpu(ds.clock_mhz);
	snprintf(sp->name, sizeof(sp->name), SNIC_SPIN_DEV_PREFIX "%d",
		 sp->idx);
	ret = snic_spin_eq_init(sp);
	if (ret) {
		dev_err(dev, "sPIN: cannot create the event EQ: %d\n", ret);
		snic_spin_put(sp);
		return ret;
	}
	/* The EQ's interrupt may look at sp from now on. */
	WRITE_ONCE(sd->spin, sp);
	sp->misc.minor = MISC_DYNAMIC_MINOR;
	sp->misc.name = sp->name;
	sp->misc.fops = &snic_spin_fops;
	sp->misc.parent = dev;
	sp->misc.mode = 0666;
	ret = misc_register(&sp->misc);
	if (ret) {
		dev_err(dev, "sPIN: cannot register /dev/%s: %d\n", sp->name,
			ret);
		WRITE_ONCE(sd->spin, NULL);
		snic_spin_eq_cleanup(sp);
		snic_spin_put(sp);
		return ret;
	}
	sp->misc_live = true;
	dev_info(dev, "sPIN: /dev/%s, %u x %u HPUs at %u MHz\n", sp->name,
		 sp->clusters, sp->hpus, sp->clock_mhz);
	return 0;
}

/*
 * The function goes away: no new opens, every context is destroyed while
 * the device can still be told; open files only get -ENODEV from now on
 * and free the rest when they are released.
 */
static void snic_spin_remove(struct snic_dev *sd)
{
	struct snic_spin *sp = sd->spin;
	struct snic_spin_file *f;
	struct snic_spin_ctx *c, *cn;

	if (!sp)
		return;
	if (sp->misc_live)
		misc_deregister(&sp->misc);
	mutex_lock(&sp->lock);
	list_for_each_entry(f, &sp->files, node)
		list_for_each_entry_safe(c, cn, &f->ctxs, node)
			snic_spin_ctx_destroy(sp, c);
	sp->dead = true;
	/* Sleepers in poll() wake up to EPOLLERR. */
	list_for_each_entry(f, &sp->files, node)
		wake_up_interruptible(&f->wq);
	mutex_unlock(&sp->lock);
	/* No context is left to use the EQ; the interrupt forgets sp. */
	WRITE_ONCE(sd->spin, NULL);
	snic_spin_eq_cleanup(sp);
	snic_spin_put(sp);
}

static int snic_spin_adev_probe(struct auxiliary_device *adev,
				const struct auxiliary_device_id *id)
{
	struct snic_dev *sd = snic_adev_sd(adev);
	/* The NIC works without its sPIN engine: not fatal. */
	if (snic_spin_probe(sd))
		dev_warn(&sd->pdev->dev, "sPIN engine not available\n");
	return 0;
}

static void snic_spin_adev_remove(struct auxiliary_device *adev)
{
	snic_spin_remove(snic_adev_sd(adev));
}

static const struct auxiliary_device_id snic_spin_adev_ids[] = {
	{ .name = KBUILD_MODNAME ".spin" },
	{ }
};
MODULE_DEVICE_TABLE(auxiliary, snic_spin_adev_ids);

struct auxiliary_driver snic_spin_driver = {
	.name = "spin",
	.probe = snic_spin_adev_probe,
	.remove = snic_spin_adev_remove,
	.id_table = snic_spin_adev_ids,
};
