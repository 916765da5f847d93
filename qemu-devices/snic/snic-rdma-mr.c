/*
 * snic: RDMA memory objects - PD and MR admin commands, memory keys and
 * their translation, DMA through MRs and scatter/gather lists, fast
 * registration and invalidation; keys of memory windows go to
 * snic-rdma-mw.c.  docs/snic-rdma.md "Admin commands".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "snic.h"

/* ---- PD ---- */

uint16_t snic_pd_create(SnicState *s, uint64_t *res)
{
    int i;

    for (i = 0; i < SNIC_MAX_PDS; i++) {
        if (!s->rdma.pds[i].valid) {
            s->rdma.pds[i].valid = true;
            s->rdma.pds[i].refs = 0;
            *res = i;
            return SNIC_AQ_OK;
        }
    }
    return SNIC_AQ_ENOSPC;
}

uint16_t snic_pd_destroy(SnicState *s, uint32_t pdn)
{
    SnicPd *pd = snic_pd(s, pdn);

    if (!pd) {
        return SNIC_AQ_ENOENT;
    }
    if (pd->refs) {
        return SNIC_AQ_EBUSY;
    }
    pd->valid = false;
    return SNIC_AQ_OK;
}

/* ---- MR ---- */

/* The access bits an MR keeps; others (relaxed ordering, ...) mean nothing */
#define SNIC_MR_ACCESS  (SNIC_ACCESS_LOCAL_WRITE | SNIC_ACCESS_REMOTE_WRITE | \
                         SNIC_ACCESS_REMOTE_READ | SNIC_ACCESS_REMOTE_ATOMIC | \
                         SNIC_ACCESS_MW_BIND)

/* Read @n page addresses at @pas into a new array (NULL on DMA error). */
static uint64_t *snic_mr_read_pages(SnicState *s, SnicQp *qp, uint64_t pas,
                                    uint32_t n)
{
    uint64_t *pages = g_new(uint64_t, n);
    uint32_t i;

    if (d2d_dma_read(&s->parent_obj, &s->pcie, qp ? &qp->pcie : NULL, pas,
                     pages, (uint64_t)n * 8) != MEMTX_OK) {
        s->stats.dma_errs++;
        g_free(pages);
        return NULL;
    }
    for (i = 0; i < n; i++) {
        le64_to_cpus(&pages[i]);
    }
    return pages;
}

/* Does [iova, iova + length) fit in @n pages of 2^shift bytes? */
static bool snic_mr_fits(uint64_t iova, uint64_t length, uint32_t n,
                         uint8_t shift)
{
    uint64_t off = iova & ((1ull << shift) - 1);

    return length <= ((uint64_t)n << shift) - off;
}

uint16_t snic_mr_create(SnicState *s, const struct snic_aq_cmd *c,
                               uint64_t *res)
{
    struct snic_mr_cfg cfg;
    uint16_t st;
    uint32_t pdn, flags, npages, access;
    SnicMr *mr;
    int i;

    st = snic_aq_read_buf(s, c, &cfg, sizeof(cfg));
    if (st != SNIC_AQ_OK) {
        return st;
    }
    pdn = le32_to_cpu(cfg.pdn);
    flags = le32_to_cpu(cfg.flags);
    access = le32_to_cpu(cfg.access) & SNIC_MR_ACCESS;
    npages = le32_to_cpu(cfg.npages);
    if (!snic_pd(s, pdn)) {
        return SNIC_AQ_ENOENT;
    }
    if ((flags & ~(SNIC_MR_F_PHYS | SNIC_MR_F_FAST_REG)) ||
        flags == (SNIC_MR_F_PHYS | SNIC_MR_F_FAST_REG)) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (!(flags & SNIC_MR_F_PHYS) &&
        (npages == 0 || npages > SNIC_MAX_MR_PAGES ||
         (!flags && (cfg.page_shift < 12 || cfg.page_shift > 30)))) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (!flags && !snic_mr_fits(le64_to_cpu(cfg.iova),
                                le64_to_cpu(cfg.length), npages,
                                cfg.page_shift)) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if ((flags & SNIC_MR_F_PHYS) &&
        le64_to_cpu(cfg.iova) + le64_to_cpu(cfg.length) <
        le64_to_cpu(cfg.iova) && le64_to_cpu(cfg.length) != UINT64_MAX) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (!(flags & SNIC_MR_F_PHYS) &&
        s->rdma.pages_used + npages > SNIC_RDMA_MAX_PAGES) {
        return SNIC_AQ_ENOSPC;
    }
    i = snic_rdma_key_index_alloc(s);
    if (!i) {
        return SNIC_AQ_ENOSPC;
    }
    mr = &s->rdma.mrs[i];
    memset(mr, 0, sizeof(*mr));
    mr->pdn = pdn;
    mr->flags = flags;
    mr->access = access;
    mr->tag = le32_to_cpu(cfg.key_tag) & 0xff;
    mr->iova = le64_to_cpu(cfg.iova);
    mr->length = le64_to_cpu(cfg.length);
    mr->page_shift = cfg.page_shift;
    if (flags == 0) {
        mr->pages = snic_mr_read_pages(s, NULL, le64_to_cpu(cfg.pas_addr),
                                       npages);
        if (!mr->pages) {
            return SNIC_AQ_EDMA;
        }
        mr->npages = npages;
    } else if (flags & SNIC_MR_F_FAST_REG) {
        mr->pages = g_new0(uint64_t, npages);
        mr->max_pages = npages;
    }
    if (!(flags & SNIC_MR_F_PHYS)) {
        s->rdma.pages_used += npages;
    }
    mr->valid = true;
    mr->live = !(flags & SNIC_MR_F_FAST_REG);
    s->rdma.pds[pdn].refs++;
    *res = SNIC_MAKE_KEY(i, mr->tag);
    return SNIC_AQ_OK;
}

uint16_t snic_mr_destroy(SnicState *s, uint32_t idx)
{
    SnicMr *mr;

    if (idx == 0 || idx >= SNIC_MAX_MRS || !s->rdma.mrs[idx].valid ||
        s->rdma.mrs[idx].mw_type) {
        return SNIC_AQ_ENOENT;
    }
    mr = &s->rdma.mrs[idx];
    if (mr->mw_binds) {
        qemu_log_mask(LOG_GUEST_ERROR, "snic: destroy of MR %u: %u memory "
                      "windows bound to it\n", idx, mr->mw_binds);
        return SNIC_AQ_EBUSY;
    }
    if (!(mr->flags & SNIC_MR_F_PHYS)) {
        s->rdma.pages_used -= mr->max_pages ? mr->max_pages : mr->npages;
    }
    s->rdma.pds[mr->pdn].refs--;
    g_free(mr->pages);
    memset(mr, 0, sizeof(*mr));
    return SNIC_AQ_OK;
}

bool snic_rdma_key_ok(SnicState *s, SnicQp *qp, uint32_t key, uint64_t addr,
                      uint64_t len, uint32_t access, bool remote,
                      SnicMr **mrp)
{
    uint32_t idx = SNIC_KEY_INDEX(key);
    SnicMr *mr;

    *mrp = NULL;
    if (remote && len == 0) {
        /* zero-length RDMA: no memory is touched, no key is checked */
        return true;
    }
    if (!remote && key == SNIC_LKEY_BUS) {
        return (qp->flags & SNIC_QP_F_PRIV) && addr + len >= addr;
    }
    if (idx == 0 || idx >= SNIC_MAX_MRS) {
        return false;
    }
    mr = &s->rdma.mrs[idx];
    if (mr->valid && mr->mw_type) {
        /* a memory window: remote access only */
        if (!remote || (qp->access & access) != access) {
            return false;
        }
        *mrp = snic_mw_resolve(s, qp, mr, key, addr, len, access);
        return *mrp != NULL;
    }
    if (!mr->valid || !mr->live || mr->tag != SNIC_KEY_TAG(key) ||
        mr->pdn != qp->pdn || (mr->access & access) != access) {
        return false;
    }
    if (remote && (qp->access & access) != access) {
        return false;
    }
    if (len && (addr < mr->iova || addr - mr->iova > mr->length ||
                len > mr->length - (addr - mr->iova))) {
        return false;
    }
    *mrp = mr;
    return true;
}

bool snic_rdma_mr_dma(SnicState *s, SnicQp *qp, SnicMr *mr, uint64_t addr,
                      void *buf, uint64_t len, bool write)
{
    uint8_t *p = buf;

    while (len) {
        uint64_t bus, n;
        MemTxResult r;

        if (!mr || (mr->flags & SNIC_MR_F_PHYS)) {
            bus = addr;
            n = len;
        } else {
            uint64_t psz = 1ull << mr->page_shift;
            uint64_t off = addr - (mr->iova & ~(psz - 1));
            uint64_t pg = off >> mr->page_shift;

            if (pg >= mr->npages) {
                return false;
            }
            bus = (mr->pages[pg] & ~(psz - 1)) + (off & (psz - 1));
            n = MIN(len, psz - (off & (psz - 1)));
        }
        if (write) {
            r = d2d_dma_write(&s->parent_obj, &s->pcie, &qp->pcie, bus, p, n);
        } else {
            r = d2d_dma_read(&s->parent_obj, &s->pcie, &qp->pcie, bus, p, n);
        }
        if (r != MEMTX_OK) {
            s->stats.dma_errs++;
            return false;
        }
        addr += n;
        p += n;
        len -= n;
    }
    return true;
}

uint8_t snic_rdma_sg_copy(SnicState *s, SnicQp *qp, const SnicSge *sge,
                          unsigned nsge, uint64_t off, void *buf, size_t len,
                          bool to_mem)
{
    uint8_t *p = buf;
    unsigned i;

    for (i = 0; i < nsge && len; i++) {
        uint64_t n;
        SnicMr *mr;

        if (off >= sge[i].len) {
            off -= sge[i].len;
            continue;
        }
        n = MIN(len, sge[i].len - off);
        if (!snic_rdma_key_ok(s, qp, sge[i].lkey, sge[i].addr + off, n,
                              to_mem ? SNIC_ACCESS_LOCAL_WRITE : 0, false,
                              &mr)) {
            return SNIC_RST_LOC_PROT;
        }
        if (!snic_rdma_mr_dma(s, qp, mr, sge[i].addr + off, p, n, to_mem)) {
            return SNIC_RST_GENERAL;
        }
        p += n;
        len -= n;
        off = 0;
    }
    return len ? SNIC_RST_LOC_LEN : SNIC_RST_OK;
}

/* ---- fast registration and invalidation (send WQEs) ---- */

uint8_t snic_rdma_fast_reg(SnicState *s, SnicQp *qp,
                           const struct snic_wqe_reg *r)
{
    uint32_t key = le32_to_cpu(r->key), idx = SNIC_KEY_INDEX(key);
    uint32_t n = le32_to_cpu(r->npages);
    uint64_t *pages;
    SnicMr *mr;

    if (idx == 0 || idx >= SNIC_MAX_MRS) {
        return SNIC_RST_LOC_PROT;
    }
    mr = &s->rdma.mrs[idx];
    if (!mr->valid || !(mr->flags & SNIC_MR_F_FAST_REG) || mr->live ||
        mr->pdn != qp->pdn || n == 0 || n > mr->max_pages ||
        r->page_shift < 12 || r->page_shift > 30 ||
        !snic_mr_fits(le64_to_cpu(r->iova), le64_to_cpu(r->length), n,
                      r->page_shift)) {
        return SNIC_RST_LOC_PROT;
    }
    pages = snic_mr_read_pages(s, qp, le64_to_cpu(r->pas_addr), n);
    if (!pages) {
        return SNIC_RST_GENERAL;
    }
    memcpy(mr->pages, pages, (uint64_t)n * 8);
    g_free(pages);
    mr->npages = n;
    mr->page_shift = r->page_shift;
    mr->iova = le64_to_cpu(r->iova);
    mr->length = le64_to_cpu(r->length);
    mr->access = le32_to_cpu(r->access) & SNIC_MR_ACCESS;
    mr->tag = SNIC_KEY_TAG(key);
    mr->live = true;
    return SNIC_RST_OK;
}

uint8_t snic_rdma_invalidate(SnicState *s, SnicQp *qp, uint32_t key)
{
    uint32_t idx = SNIC_KEY_INDEX(key);
    SnicMr *mr;

    if (idx == 0 || idx >= SNIC_MAX_MRS) {
        return SNIC_RST_LOC_PROT;
    }
    mr = &s->rdma.mrs[idx];
    if (mr->valid && mr->mw_type) {
        return snic_mw_invalidate(s, qp, mr, key);
    }
    if (!mr->valid || mr->tag != SNIC_KEY_TAG(key) || mr->pdn != qp->pdn) {
        return SNIC_RST_LOC_PROT;
    }
    /* Only a fast-registration MR can be invalidated (IB 10.6.6.2). */
    if (!(mr->flags & SNIC_MR_F_FAST_REG)) {
        qemu_log_mask(LOG_GUEST_ERROR, "snic: qp %u: invalidate of key 0x%x:"
                      " not a fast-registration MR\n", qp->qpn, key);
        return SNIC_RST_LOC_PROT;
    }
    mr->live = false;
    return SNIC_RST_OK;
}
