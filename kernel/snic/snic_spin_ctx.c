// SPDX-License-Identifier: GPL-2.0
/*
 * snic sPIN execution contexts as seen from an open /dev/snic-spinN:
 * creating one (windows from the file's allocations, an event ring in
 * coherent host memory), attaching it to UDP ports with steering rules
 * whose destination is SNIC_DEST_SPIN or to an RDMA RC QP
 * (SNIC_AQ_SPIN_ATTACH_QP), host regions for handler DMA, and
 * taking events off its ring (the device signals them on the sPIN EQ,
 * snic_spin_ev.c).  Called with sp->lock held, but for snic_spin_events,
 * which takes it itself.
 */
#include <linux/dma-mapping.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <net/net_namespace.h>
#include <linux/uaccess.h>
#include <d2d/snic_rdma_ifc.h>
#include "snic_spin_state.h"

/* 0 with sp->lock held, or -ENODEV (not held) once the function is gone. */
int snic_spin_lock_live(struct snic_spin *sp)
{
	mutex_lock(&sp->lock);
	if (!sp->dead)
		return 0;
	mutex_unlock(&sp->lock);
	return -ENODEV;
}

/* A refused operation: counted (INFO perm_denied) and logged. */
static int snic_spin_refused(struct snic_spin_file *f, const char *what)
{
	f->sp->perm_denied++;
	dev_info_ratelimited(&f->sp->sd->pdev->dev,
			     "sPIN: %s refused to uid %u\n", what,
			     from_kuid(&init_user_ns, f->filp->f_cred->uid));
	return -EPERM;
}

/*
 * 0 if the opener of @f has @cap over the snic's network namespace, else
 * the refusal.  As the network stack does for a socket, the credentials
 * are those of the file (who opened it), not of whoever calls the ioctl.
 */
static int snic_spin_capable(struct snic_spin_file *f, int cap,
			     const char *what)
{
	struct net_device *nd = f->sp->sd->netdev;

	if (file_ns_capable(f->filp, nd ? dev_net(nd)->user_ns : &init_user_ns,
			    cap))
		return 0;
	return snic_spin_refused(f, what);
}

/* The file's allocation @id: a context's code or handler memory. */
struct snic_spin_alloc *snic_spin_alloc_find(struct snic_spin_file *f, u32 id)
{
	struct snic_spin_alloc *a;

	list_for_each_entry(a, &f->allocs, node)
		if (a->id == id)
			return a;
	return NULL;
}

/* The context's owner is the only file that may name it. */
struct snic_spin_ctx *snic_spin_ctx_find(struct snic_spin_file *f, u32 ctx,
					 int *err)
{
	struct snic_spin_file *o;
	struct snic_spin_ctx *c;

	lockdep_assert_held(&f->sp->lock);
	list_for_each_entry(o, &f->sp->files, node) {
		list_for_each_entry(c, &o->ctxs, node) {
			if (c->id != ctx)
				continue;
			if (o != f) {
				*err = -EPERM;
				return NULL;
			}
			*err = 0;
			return c;
		}
	}
	*err = -ENOENT;
	return NULL;
}

bool snic_spin_ctx_live(struct snic_spin *sp, u32 ctx)
{
	struct snic_spin_file *o;
	struct snic_spin_ctx *c;

	lockdep_assert_held(&sp->lock);
	list_for_each_entry(o, &sp->files, node)
		list_for_each_entry(c, &o->ctxs, node)
			if (c->id == ctx)
				return true;
	return false;
}

static void snic_spin_region_free(struct snic_spin *sp,
				  struct snic_spin_region *r, bool unmap)
{
	unsigned int i;

	if (unmap)
		dma_unmap_page(&sp->sd->pdev->dev, r->dma, r->size,
			       DMA_BIDIRECTIONAL);
	/* Pages still mapped by the user keep the mapping's reference. */
	for (i = 0; i < (1u << r->order); i++)
		__free_page(r->page + i);
	snic_pin_uncharge(r->mm, 1ul << r->order);
	kfree(r);
}

static void snic_spin_ev_free(struct snic_spin *sp, struct snic_spin_ctx *c)
{
	if (c->ev_ring)
		dma_free_coherent(&sp->sd->pdev->dev, c->ev_bytes, c->ev_ring,
				  c->ev_dma);
	c->ev_ring = NULL;
}

/* SNIC_AQ_SPIN_ATTACH_QP: context @c to RC QP @qpn (or SNIC_SPIN_QPN_NONE). */
static int snic_spin_qp_cmd(struct snic_spin *sp, struct snic_spin_ctx *c,
			    u32 qpn)
{
	struct snic_aq_spin_attach_qp *aq;
	struct snic_aq_cmd cmd = {};

	BUILD_BUG_ON(sizeof(*aq) > sizeof(cmd.raw));
	cmd.opcode = SNIC_AQ_SPIN_ATTACH_QP;
	aq = (struct snic_aq_spin_attach_qp *)cmd.raw;
	aq->ctx = cpu_to_le32(c->id);
	aq->qpn = cpu_to_le32(qpn);
	return snic_aq_exec(sp->sd, &cmd, NULL);
}

static void snic_spin_rule_del(struct snic_spin *sp, struct snic_spin_ctx *c,
			       int i)
{
	int ret;

	if (!c->att[i].live)
		return;
	if (c->att[i].qp)
		ret = snic_spin_qp_cmd(sp, c, SNIC_SPIN_QPN_NONE);
	else
		ret = snic_cmd_destroy(sp->sd, SNIC_AQ_DEL_RULE,
				       c->att[i].rule_id);
	if (ret)
		dev_warn(&sp->sd->pdev->dev,
			 "sPIN: context %u: deleting rule %u failed: %d\n",
			 c->id, c->att[i].rule_id, ret);
	c->att[i].live = false;
}

/*
 * Detach, destroy on the device, then free the host memory the device
 * could write.  If the device refuses the destroy (it is broken), the
 * ring and regions are leaked rather than handed back while it may still
 * DMA into them.
 */
void snic_spin_ctx_destroy(struct snic_spin *sp, struct snic_spin_ctx *c)
{
	bool device_done;
	int i, ret;

	lockdep_assert_held(&sp->lock);
	snic_spin_ev_owner(sp, c, false);
	for (i = 0; i < SNIC_SPIN_MAX_ATTACH; i++)
		snic_spin_rule_del(sp, c, i);
	ret = snic_cmd_destroy(sp->sd, SNIC_AQ_SPIN_DESTROY_CTX, c->id);
	device_done = !ret || ret == -ENOENT;
	if (!device_done)
		dev_err(&sp->sd->pdev->dev,
			"sPIN: destroying context %u failed: %d, leaking its memory\n",
			c->id, ret);
	for (i = 0; i < SNIC_SPIN_MAX_REGIONS; i++)
		if (c->regions[i] && device_done)
			snic_spin_region_free(sp, c->regions[i], true);
	if (device_done)
		snic_spin_ev_free(sp, c);
	if (c->code)
		c->code->users--;
	if (c->hmem)
		c->hmem->users--;
	list_del(&c->node);
	kfree(c);
}

int snic_spin_ctx_create(struct snic_spin_file *f,
			 struct snic_spin_ctx_create *req)
{
	struct snic_spin *sp = f->sp;
	struct device *dev = &sp->sd->pdev->dev;
	struct snic_spin_alloc *code, *hmem;
	struct snic_spin_ctx_cfg cfg = {};
	struct snic_spin_ctx *c;
	u32 log = req->ev_log_size ? req->ev_log_size : SNIC_SPIN_EV_LOG_DEF;
	size_t ring;
	u64 id;
	int i, ret;

	lockdep_assert_held(&sp->lock);
	for (i = 0; i < ARRAY_SIZE(req->rsvd); i++)
		if (req->rsvd[i])
			return -EINVAL;
	if (req->flags & ~SNIC_SPIN_CTX_SEND)
		return -EINVAL;
	if (req->flags & SNIC_SPIN_CTX_SEND) {
		ret = snic_spin_capable(f, CAP_NET_RAW, "raw send (no CAP_NET_RAW)");
		if (ret)
			return ret;
	}
	code = snic_spin_alloc_find(f, req->code_id);
	hmem = snic_spin_alloc_find(f, req->hmem_id);
	if (!code || !hmem)
		return -ENOENT;
	if (code->mem != SNIC_SPIN_MEM_PROG || hmem->mem != SNIC_SPIN_MEM_L2H)
		return -EINVAL;
	if (log < SNIC_SPIN_MIN_LOG_EV || log > SNIC_SPIN_MAX_LOG_EV)
		return -EINVAL;
	/* The device checks the rest (entry points, sizes, watchdog). */

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->owner = f;
	c->ev_size = 1u << log;
	ring = ALIGN((size_t)c->ev_size * sizeof(struct snic_spin_event),
		     SNIC_RING_ALIGN);
	c->ev_bytes = ring + SNIC_RING_ALIGN;
	/* Zeroed: no owner bit set yet, consumer counter 0. */
	c->ev_ring = dma_alloc_coherent(dev, c->ev_bytes, &c->ev_dma,
					GFP_KERNEL);
	if (!c->ev_ring) {
		kfree(c);
		return -ENOMEM;
	}
	c->ev_dbr = c->ev_ring + ring;

	for (i = 0; i < SPIN_NUM_HANDLERS; i++)
		cfg.entry[i] = cpu_to_le32(req->entry[i]);
	cfg.code_off = cpu_to_le32(code->offset);
	cfg.code_size = cpu_to_le32(code->size);
	cfg.hmem_off = cpu_to_le32(hmem->offset);
	cfg.hmem_size = cpu_to_le32(hmem->size);
	cfg.scratch_size = cpu_to_le32(req->scratch_size);
	cfg.copy_bytes = cpu_to_le32(req->copy_bytes);
	cfg.watchdog = cpu_to_le32(req->watchdog);
	cfg.timeout_us = cpu_to_le32(req->timeout_us);
	cfg.match = cpu_to_le32(SNIC_SPIN_MATCH_STEER);
	if (!(req->flags & SNIC_SPIN_CTX_SEND))
		cfg.flags = cpu_to_le32(SNIC_SPIN_CFG_F_NO_SEND);
	cfg.ev_ring = cpu_to_le64(c->ev_dma);
	cfg.ev_dbr = cpu_to_le64(c->ev_dma + ring);
	cfg.ev_log_size = log;
	/* Each event is signalled on the sPIN EQ: it wakes poll(). */
	cfg.ev_eqn = cpu_to_le16(sp->eq.eqn);
	ret = snic_aq_exec_buf(sp->sd, SNIC_AQ_SPIN_CREATE_CTX, 0, 0, &cfg,
			       sizeof(cfg), &id);
	if (ret) {
		snic_spin_ev_free(sp, c);
		kfree(c);
		return ret;
	}
	c->id = id;
	c->serial = ++f->next_id;
	c->code = code;
	c->hmem = hmem;
	code->users++;
	hmem->users++;
	list_add_tail(&c->node, &f->ctxs);
	snic_spin_ev_owner(sp, c, true);
	req->ctx = c->id;
	return 0;
}

/*
 * An RDMA RC QP, named by its number (docs/snic-spin.md, "Permissions"):
 * a user QP of the calling process, or with CAP_NET_ADMIN any user QP;
 * never a kernel QP (EPERM).  The QPN stays pinned from the check to the
 * device's answer, so no destroy and re-create can slip a different QP
 * under the number checked.  One QP per context; the device refuses a QP
 * that already has a context (EBUSY), an unknown one (ENOENT) or a non-RC
 * one (EINVAL).
 */
static int snic_spin_attach_qp(struct snic_spin_file *f,
			       struct snic_spin_ctx *c,
			       struct snic_spin_attach *a)
{
	struct snic_spin *sp = f->sp;
	int i, free = -1, ret;

	if (a->port == SNIC_SPIN_QPN_NONE)
		return -EINVAL;
	/* The QP checked is the QP attached: pinned across both. */
	ret = snic_rdma_qp_pin(sp->sd, a->port);
	if (ret == -EACCES)
		ret = snic_spin_capable(f, CAP_NET_ADMIN,
					"attaching another process's QP (no CAP_NET_ADMIN)");
	else if (ret == -EPERM)
		ret = snic_spin_refused(f, "attaching a kernel QP");
	for (i = 0; i < SNIC_SPIN_MAX_ATTACH && !ret; i++) {
		if (c->att[i].live && c->att[i].qp)
			ret = -EBUSY;
		if (!c->att[i].live && free < 0)
			free = i;
	}
	if (!ret && free < 0)
		ret = -ENOSPC;
	if (!ret)
		ret = snic_spin_qp_cmd(sp, c, a->port);
	snic_rdma_qp_unpin(sp->sd);
	if (ret)
		return ret;
	c->att[free].qp = true;
	c->att[free].qpn = a->port;
	c->att[free].live = true;
	a->id = free;
	return 0;
}

/* A UDP port is steered to one context of the device at a time. */
static bool snic_spin_port_taken(struct snic_spin *sp, u16 port)
{
	struct snic_spin_file *o;
	struct snic_spin_ctx *c;
	int i;

	list_for_each_entry(o, &sp->files, node)
		list_for_each_entry(c, &o->ctxs, node)
			for (i = 0; i < SNIC_SPIN_MAX_ATTACH; i++)
				if (c->att[i].live && !c->att[i].qp &&
				    c->att[i].port == port)
					return true;
	return false;
}

int snic_spin_attach(struct snic_spin_file *f, struct snic_spin_attach *a)
{
	struct snic_spin *sp = f->sp;
	struct snic_steer_rule r = {};
	struct snic_spin_ctx *c;
	int i, ret;
	u64 id;

	c = snic_spin_ctx_find(f, a->ctx, &ret);
	if (!c)
		return ret;
	if (a->type == SNIC_SPIN_ATTACH_QP)
		return snic_spin_attach_qp(f, c, a);
	if (a->type != SNIC_SPIN_ATTACH_UDP || !a->port || a->port > 0xffff)
		return -EINVAL;
	ret = snic_spin_capable(f, CAP_NET_ADMIN,
				"UDP port steering (no CAP_NET_ADMIN)");
	if (ret)
		return ret;
	if (snic_spin_port_taken(sp, a->port))
		return -EBUSY;
	for (i = 0; i < SNIC_SPIN_MAX_ATTACH && c->att[i].live; i++)
		;
	if (i == SNIC_SPIN_MAX_ATTACH)
		return -ENOSPC;

	r.match = cpu_to_le32(SNIC_MATCH_ETHERTYPE | SNIC_MATCH_IP_PROTO |
			      SNIC_MATCH_DST_PORT);
	r.priority = cpu_to_le16(SNIC_SPIN_RULE_PRIO);
	r.dest = SNIC_DEST_SPIN;
	r.actions = SNIC_ACT_COUNT;
	r.dest_id = cpu_to_le32(c->id);
	r.ethertype = htons(ETH_P_IP);
	r.ip_proto = IPPROTO_UDP;
	r.dst_port = htons(a->port);
	ret = snic_aq_exec_buf(sp->sd, SNIC_AQ_ADD_RULE, 0, 0, &r, sizeof(r),
			       &id);
	if (ret)
		return ret;
	c->att[i].qp = false;
	c->att[i].rule_id = id;
	c->att[i].port = a->port;
	c->att[i].live = true;
	a->id = i;
	return 0;
}

int snic_spin_detach(struct snic_spin_file *f, struct snic_spin_attach *a)
{
	struct snic_spin_ctx *c;
	int ret;

	c = snic_spin_ctx_find(f, a->ctx, &ret);
	if (!c)
		return ret;
	if (a->id >= SNIC_SPIN_MAX_ATTACH || !c->att[a->id].live)
		return -ENOENT;
	snic_spin_rule_del(f->sp, c, a->id);
	return 0;
}

/*
 * A custom RoCE opcode for the context's QP (SNIC_AQ_SPIN_REG_OPCODE):
 * its handler answers remote requests with transport responses, as
 * steering a UDP port does, so it needs CAP_NET_ADMIN.
 */
int snic_spin_reg_opcode(struct snic_spin_file *f,
			 struct snic_spin_reg_opcode *r)
{
	struct snic_aq_spin_reg_opcode *aq;
	struct snic_aq_cmd cmd = {};
	struct snic_spin_ctx *c;
	int ret;

	c = snic_spin_ctx_find(f, r->ctx, &ret);
	if (!c)
		return ret;
	if (r->rsvd || r->opcode < SNIC_CUSTOM_OP_FIRST ||
	    r->opcode > SNIC_CUSTOM_OP_LAST)
		return -EINVAL;
	ret = snic_spin_capable(f, CAP_NET_ADMIN,
				"custom opcode (no CAP_NET_ADMIN)");
	if (ret)
		return ret;
	BUILD_BUG_ON(sizeof(*aq) > sizeof(cmd.raw));
	cmd.opcode = SNIC_AQ_SPIN_REG_OPCODE;
	aq = (struct snic_aq_spin_reg_opcode *)cmd.raw;
	aq->ctx = cpu_to_le32(c->id);
	aq->opcode = cpu_to_le32(r->opcode);
	aq->entry = cpu_to_le32(r->entry);
	return snic_aq_exec(f->sp->sd, &cmd, NULL);
}

int snic_spin_region_add(struct snic_spin_file *f,
			 struct snic_spin_region_add *req)
{
	struct snic_spin *sp = f->sp;
	struct device *dev = &sp->sd->pdev->dev;
	struct snic_aq_spin_region *ar;
	struct snic_spin_region *r;
	struct snic_aq_cmd cmd = {};
	struct snic_spin_ctx *c;
	unsigned int order;
	u64 index;
	int ret;

	lockdep_assert_held(&sp->lock);
	BUILD_BUG_ON(sizeof(*ar) > sizeof(cmd.raw));
	c = snic_spin_ctx_find(f, req->ctx, &ret);
	if (!c)
		return ret;
	if (!req->flags || req->flags & ~(SNIC_SPIN_REGION_READ |
					  SNIC_SPIN_REGION_WRITE))
		return -EINVAL;
	if (!req->size || req->size > (PAGE_SIZE << (MAX_ORDER - 1)))
		return -EINVAL;
	order = get_order(req->size);
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->order = order;
	r->size = PAGE_SIZE << order;
	/* Pinned for the caller: charged to its RLIMIT_MEMLOCK. */
	r->mm = snic_pin_charge(sp->sd, 1ul << order);
	if (IS_ERR(r->mm)) {
		kfree(r);
		return -ENOMEM;
	}
	r->page = alloc_pages(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN, order);
	if (!r->page) {
		snic_pin_uncharge(r->mm, 1ul << order);
		kfree(r);
		return -ENOMEM;
	}
	/* Single refcounted pages: each can be mapped and outlive us. */
	split_page(r->page, order);
	r->dma = dma_map_page(dev, r->page, 0, r->size, DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dev, r->dma)) {
		snic_spin_region_free(sp, r, false);
		return -ENOMEM;
	}

	cmd.opcode = SNIC_AQ_SPIN_ADD_REGION;
	ar = (struct snic_aq_spin_region *)cmd.raw;
	ar->addr = cpu_to_le64(r->dma);
	ar->len = cpu_to_le64(r->size);
	ar->ctx = cpu_to_le32(c->id);
	ar->flags = cpu_to_le32(req->flags);
	ret = snic_aq_exec(sp->sd, &cmd, &index);
	if (!ret && (index >= SNIC_SPIN_MAX_REGIONS || c->regions[index]))
		ret = -EIO;	/* the device's answer makes no sense */
	if (ret) {
		snic_spin_region_free(sp, r, true);
		return ret;
	}
	r->index = index;
	r->pgoff = f->next_pgoff;
	f->next_pgoff += 1ul << order;
	c->regions[index] = r;
	req->index = index;
	req->size = r->size;
	req->bus_addr = r->dma;
	req->mmap_offset = (u64)r->pgoff << PAGE_SHIFT;
	return 0;
}

struct snic_spin_region *snic_spin_region_by_pgoff(struct snic_spin_file *f,
						   unsigned long pgoff)
{
	struct snic_spin_ctx *c;
	int i;

	lockdep_assert_held(&f->sp->lock);
	list_for_each_entry(c, &f->ctxs, node)
		for (i = 0; i < SNIC_SPIN_MAX_REGIONS; i++)
			if (c->regions[i] && c->regions[i]->pgoff == pgoff)
				return c->regions[i];
	return NULL;
}

/* Ring entry @idx (a consumer count) if the device has written it. */
static struct snic_spin_event *snic_spin_ev_at(struct snic_spin_ctx *c,
					       u32 idx)
{
	struct snic_spin_event *e = c->ev_ring +
		(idx & (c->ev_size - 1)) * sizeof(*e);
	u8 phase = !((idx / c->ev_size) & 1);

	if ((READ_ONCE(e->owner) & SNIC_SPIN_EV_OWNER) != phase)
		return NULL;
	/* Read the entry only after its owner bit. */
	dma_rmb();
	return e;
}

bool snic_spin_ev_pending(struct snic_spin_ctx *c)
{
	return c->ev_ring && snic_spin_ev_at(c, c->ev_cons);
}

/*
 * Take events off the ring: entry cons & (size - 1) is valid when its
 * owner bit equals the pass parity (1 on the first pass).  The entries are
 * copied to a kernel buffer under sp->lock and to the user without it;
 * only the entries that reached the user are handed back to the device
 * (the consumer record), even after a fault.  One reader per context at a
 * time (EBUSY); a context destroyed meanwhile gives ENOENT.
 */
int snic_spin_events(struct snic_spin_file *f, struct snic_spin_events *ev)
{
	struct snic_spin *sp = f->sp;
	struct snic_spin_event *kbuf = NULL, *e;
	u32 n = 0, done, serial, max;
	struct snic_spin_ctx *c;
	unsigned long left;
	int ret, gone;

	ret = snic_spin_lock_live(sp);
	if (ret)
		return ret;
	c = snic_spin_ctx_find(f, ev->ctx, &ret);
	if (c && c->ev_reading)
		ret = -EBUSY;
	if (ret)
		goto unlock;
	max = min(ev->max, c->ev_size);
	if (max) {
		kbuf = kvmalloc_array(max, sizeof(*kbuf), GFP_KERNEL);
		if (!kbuf) {
			ret = -ENOMEM;
			goto unlock;
		}
	}
	for (; n < max && (e = snic_spin_ev_at(c, c->ev_cons + n)); n++)
		kbuf[n] = *e;
	c->ev_reading = true;
	serial = c->serial;
	mutex_unlock(&sp->lock);

	left = n ? copy_to_user(u64_to_user_ptr(ev->buf), kbuf,
				n * sizeof(*kbuf)) : 0;
	done = n - DIV_ROUND_UP(left, sizeof(*kbuf));
	if (left)
		ret = -EFAULT;
	kvfree(kbuf);

	/* Even after unbind: the contexts are gone then, ENOENT. */
	mutex_lock(&sp->lock);
	c = snic_spin_ctx_find(f, ev->ctx, &gone);
	if (!c || c->serial != serial) {
		ret = -ENOENT;
		goto unlock;
	}
	c->ev_reading = false;
	c->ev_cons += done;
	c->ev_total += done;
	/* Free the taken entries for the device even after a fault. */
	if (done)
		WRITE_ONCE(*c->ev_dbr, cpu_to_le32(c->ev_cons));
	ev->count = done;
	ev->total = c->ev_total;
	spin_lock_irq(&sp->ev_lock);
	ev->notifies = c->ev_notifies;
	spin_unlock_irq(&sp->ev_lock);
unlock:
	mutex_unlock(&sp->lock);
	return ret;
}
