// SPDX-License-Identifier: GPL-2.0
/*
 * snic RDMA: user contexts and what they map.
 *
 * A ucontext owns one BAR2 doorbell page (from the driver's doorbell page
 * allocator; the device refuses doorbells of this context's queues on any
 * other page), or none when the user pages are used up: then it has no
 * queues.  CQ, QP and SRQ rings are physically contiguous host pages
 * the device reaches at one bus address; user space maps doorbell page and
 * rings through rdma_user_mmap_entry offsets.  A ring's pages belong to its
 * mmap entry and are freed with it, after the last mapping is gone.
 */
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <rdma/uverbs_ioctl.h>
#include "snic_ib.h"

/*
 * Doorbell page for an object: the context's for user objects, or the
 * negative errno of why the context has none (the object is refused).
 */
int snic_ib_db_page(struct snic_ib_dev *ibd, struct ib_udata *udata)
{
	struct snic_ib_ucontext *uc;

	if (!udata)
		return ibd->kdb_page;
	uc = rdma_udata_to_drv_context(udata, struct snic_ib_ucontext, ibuc);
	return uc->db_page;
}

/* The context's doorbell page and its mmap entry: 0 or a negative errno. */
static int snic_ib_ctx_db(struct snic_ib_dev *ibd, struct snic_ib_ucontext *uc,
			  u64 *key)
{
	struct snic_ib_mmap *m;
	int page;

	page = snic_db_page_alloc_user(ibd->sd);
	if (page < 0)
		return page;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m) {
		snic_db_page_free(ibd->sd, page);
		return -ENOMEM;
	}
	m->ibd = ibd;
	m->type = SNIC_IB_MMAP_DB;
	m->db_page = page;
	m = snic_ib_mmap_insert(uc, m, PAGE_SIZE, key);
	if (IS_ERR(m)) {
		snic_db_page_free(ibd->sd, page);
		return PTR_ERR(m);
	}
	uc->db_entry = &m->rdma;
	uc->db_page = page;
	return 0;
}

/*
 * alloc_ucontext never fails: Linux 6.1's ib_core frees a context whose
 * alloc_ucontext failed without rdma_restrack_put() on the ioctl path
 * (UVERBS_METHOD_GET_CONTEXT), leaking the opener's task_struct.  A
 * context that cannot have a doorbell page (user pages used up, no
 * memory) is made without one: the response says so with
 * SNIC_UCTX_F_NO_DB and the errno in db_page, libsnic fails
 * ibv_open_device with it, and its CQs, QPs and SRQs are refused.
 */
int snic_ib_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct snic_ib_ucontext *uc = to_sibuc(ibuc);
	struct snic_ib_dev *ibd = to_sibdev(ibuc->device);
	struct snic_alloc_ucontext_resp resp = {};
	u64 key = 0;
	int ret;

	mutex_init(&uc->ssq_lock);
	ret = snic_ib_ctx_db(ibd, uc, &key);
	if (ret) {
		uc->db_page = ret;
		resp.flags |= SNIC_UCTX_F_NO_DB;
		resp.db_page = -ret;
	} else {
		resp.db_page = uc->db_page;
		resp.db_mmap_key = key;
	}
	resp.max_inline = SNIC_MAX_RDMA_INLINE;
	resp.cqe_size = sizeof(struct snic_cqe);
	resp.wqebb_size = SNIC_WQEBB_SIZE;
	resp.max_sge = SNIC_MAX_SGE;
	if (snic_has(ibd->sd, SNIC_CAP_RDMA_MMIO_WQE))
		resp.flags |= SNIC_UCTX_F_MMIO_WQE;
	/*
	 * A caller that cannot take the response holds a context it cannot
	 * use (closing the file frees it): failing here would leak, above.
	 */
	if (ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen)))
		ibdev_dbg(&ibd->ibdev, "alloc_ucontext: response not copied\n");
	return 0;
}

void snic_ib_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	struct snic_ib_ucontext *uc = to_sibuc(ibuc);

	/* its QPs are gone: the SSQs have none left */
	snic_ib_ssq_teardown(to_sibdev(ibuc->device), uc);
	if (uc->db_entry)
		rdma_user_mmap_entry_remove(uc->db_entry);
}

static int snic_ib_mmap_pages(struct vm_area_struct *vma,
			      struct snic_ib_buf *b)
{
	unsigned long off;
	int ret;

	/* Each page gets a reference held by the mapping. */
	for (off = 0; off < b->size; off += PAGE_SIZE) {
		ret = vm_insert_page(vma, vma->vm_start + off,
				     virt_to_page(b->va + off));
		if (ret)
			return ret;
	}
	return 0;
}

int snic_ib_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct snic_ib_dev *ibd = to_sibdev(ibuc->device);
	struct rdma_user_mmap_entry *e;
	struct snic_ib_mmap *m;
	unsigned long pfn;
	int ret;

	e = rdma_user_mmap_entry_get(ibuc, vma);
	if (!e)
		return -EINVAL;
	m = container_of(e, struct snic_ib_mmap, rdma);
	if (m->type == SNIC_IB_MMAP_DB) {
		if (vma->vm_flags & VM_EXEC) {
			ret = -EPERM;
			goto out;
		}
		pfn = (pci_resource_start(ibd->sd->pdev, SNIC_BAR_DB) +
		       (resource_size_t)m->db_page * SNIC_DB_PAGE_SIZE) >>
		      PAGE_SHIFT;
		ret = rdma_user_mmap_io(ibuc, vma, pfn, PAGE_SIZE,
					pgprot_noncached(vma->vm_page_prot), e);
	} else {
		ret = snic_ib_mmap_pages(vma, &m->buf);
	}
out:
	rdma_user_mmap_entry_put(e);
	return ret;
}

void snic_ib_mmap_free(struct rdma_user_mmap_entry *e)
{
	struct snic_ib_mmap *m = container_of(e, struct snic_ib_mmap, rdma);

	if (m->type == SNIC_IB_MMAP_DB)
		snic_db_page_free(m->ibd->sd, m->db_page);
	else
		snic_ib_buf_free(m->ibd, &m->buf);
	kfree(m);
}
