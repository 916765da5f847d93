/*
 * snic: RDMA objects - PD, MR and SRQ admin commands, memory keys and
 * their translation, DMA through MRs and scatter/gather lists, receive
 * WQE fetch (QP receive ring or SRQ), RDMA statistics, and the RDMA part
 * of device init/reset.  docs/snic-rdma.md "Admin commands".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "snic.h"

void snic_rdma_init(SnicState *s)
{
    SnicRdma *r = &s->rdma;

    r->pds = g_new0(SnicPd, SNIC_MAX_PDS);
    r->mrs = g_new0(SnicMr, SNIC_MAX_MRS);
    r->srqs = g_new0(SnicSrq, SNIC_MAX_SRQS);
    r->qps = g_new0(SnicQp, SNIC_MAX_QPS);
    r->frame = g_malloc0(SNIC_RDMA_MAX_FRAME);
    r->bh = d2d_bh_new_guarded(s, snic_rdma_bh, s);
}

static void snic_rdma_drop_all(SnicState *s)
{
    SnicRdma *r = &s->rdma;
    int i;

    for (i = 0; i < SNIC_MAX_QPS; i++) {
        if (r->qps[i].valid) {
            snic_rdma_qp_free(s, &r->qps[i]);
        }
    }
    for (i = 0; i < SNIC_MAX_MRS; i++) {
        g_free(r->mrs[i].pages);
    }
    memset(r->pds, 0, sizeof(SnicPd) * SNIC_MAX_PDS);
    memset(r->mrs, 0, sizeof(SnicMr) * SNIC_MAX_MRS);
    memset(r->srqs, 0, sizeof(SnicSrq) * SNIC_MAX_SRQS);
    memset(r->qps, 0, sizeof(SnicQp) * SNIC_MAX_QPS);
    r->qps_hi = 0;
    r->nqps = 0;
    r->pages_used = 0;
}

void snic_rdma_free(SnicState *s)
{
    snic_rdma_drop_all(s);
    qemu_bh_delete(s->rdma.bh);
    g_free(s->rdma.pds);
    g_free(s->rdma.mrs);
    g_free(s->rdma.srqs);
    g_free(s->rdma.qps);
    g_free(s->rdma.frame);
}

/* Device reset: every RDMA object and counter is gone. */
void snic_rdma_reset(SnicState *s)
{
    snic_rdma_drop_all(s);
    memset(&s->rdma.st, 0, sizeof(s->rdma.st));
    memset(s->rdma.src, 0, sizeof(s->rdma.src));
}

/* ---- PD ---- */

static uint16_t snic_pd_create(SnicState *s, uint64_t *res)
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

static SnicPd *snic_pd(SnicState *s, uint32_t pdn)
{
    return pdn < SNIC_MAX_PDS && s->rdma.pds[pdn].valid ?
           &s->rdma.pds[pdn] : NULL;
}

static uint16_t snic_pd_destroy(SnicState *s, uint32_t pdn)
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
        pages[i] = le64_to_cpu(pages[i]);
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

static uint16_t snic_mr_create(SnicState *s, const struct snic_aq_cmd *c,
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
    /* other verbs access bits (relaxed ordering, ...) mean nothing here */
    access = le32_to_cpu(cfg.access) & 0xf;
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
    /* index 0 is never used, so no key is SNIC_LKEY_BUS */
    for (i = 1; i < SNIC_MAX_MRS && s->rdma.mrs[i].valid; i++) {
        continue;
    }
    if (i == SNIC_MAX_MRS) {
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

static uint16_t snic_mr_destroy(SnicState *s, uint32_t idx)
{
    SnicMr *mr;

    if (idx == 0 || idx >= SNIC_MAX_MRS || !s->rdma.mrs[idx].valid) {
        return SNIC_AQ_ENOENT;
    }
    mr = &s->rdma.mrs[idx];
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
    mr->access = le32_to_cpu(r->access) & 0xf;
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

/* ---- source addresses ---- */

static uint16_t snic_src_addr_set(SnicState *s, const struct snic_aq_cmd *c)
{
    struct snic_aq_set_src_addr a;
    SnicSrcAddr *e;

    memcpy(&a, c->raw, sizeof(a));
    if (a.index >= SNIC_SRC_ADDRS || a.valid > 1) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    e = &s->rdma.src[a.index];
    e->valid = a.valid;
    memcpy(e->mac, a.mac, 6);
    e->ip = a.ip;
    return SNIC_AQ_OK;
}

uint8_t snic_rdma_src_fill(SnicState *s, SnicQp *qp, struct snic_av *av)
{
    const SnicSrcAddr *e = av->sgid_index < SNIC_SRC_ADDRS ?
                           &s->rdma.src[av->sgid_index] : NULL;

    if (qp->flags & SNIC_QP_F_PRIV) {
        return SNIC_RST_OK;         /* the driver built the AV */
    }
    if (!e || !e->valid) {
        s->rdma.st.tx_bad_src++;
        qemu_log_mask(LOG_GUEST_ERROR, "snic: qp %u: UD source address %u "
                      "is not in the table\n", qp->qpn, av->sgid_index);
        return SNIC_RST_LOC_QP_OP;
    }
    memcpy(av->smac, e->mac, 6);
    av->sip = e->ip;
    return SNIC_RST_OK;
}

/* ---- SRQ ---- */

static SnicSrq *snic_srq(SnicState *s, uint32_t srqn)
{
    return srqn < SNIC_MAX_SRQS && s->rdma.srqs[srqn].valid ?
           &s->rdma.srqs[srqn] : NULL;
}

static uint16_t snic_srq_create(SnicState *s, const struct snic_aq_cmd *c,
                                uint64_t *res)
{
    struct snic_aq_create_srq a;
    uint32_t pdn;
    SnicSrq *q;
    int i;

    memcpy(&a, c->raw, sizeof(a));
    pdn = le32_to_cpu(a.pdn);
    if (!snic_pd(s, pdn)) {
        return SNIC_AQ_ENOENT;
    }
    if (a.log_size < SNIC_MIN_LOG_SIZE || a.log_size > SNIC_MAX_LOG_SIZE ||
        a.log_stride < 5 || a.log_stride > 8 ||
        le16_to_cpu(a.db_page) >= SNIC_DB_PAGES ||
        le64_to_cpu(a.ring_addr) % SNIC_RING_ALIGN ||
        le64_to_cpu(a.dbr_addr) % 4) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (!snic_dma_probe(s, le64_to_cpu(a.ring_addr)) ||
        !snic_dma_probe(s, le64_to_cpu(a.dbr_addr))) {
        s->stats.dma_errs++;
        return SNIC_AQ_EDMA;
    }
    for (i = 0; i < SNIC_MAX_SRQS && s->rdma.srqs[i].valid; i++) {
        continue;
    }
    if (i == SNIC_MAX_SRQS) {
        return SNIC_AQ_ENOSPC;
    }
    q = &s->rdma.srqs[i];
    memset(q, 0, sizeof(*q));
    q->valid = true;
    q->pdn = pdn;
    q->log_size = a.log_size;
    q->log_stride = a.log_stride;
    q->db_page = le16_to_cpu(a.db_page);
    q->ring = le64_to_cpu(a.ring_addr);
    q->dbr = le64_to_cpu(a.dbr_addr);
    q->limit = le32_to_cpu(a.limit);
    s->rdma.pds[pdn].refs++;
    *res = i;
    return SNIC_AQ_OK;
}

static uint16_t snic_srq_modify(SnicState *s, const struct snic_aq_cmd *c)
{
    struct snic_aq_modify_srq a;
    SnicSrq *q;

    memcpy(&a, c->raw, sizeof(a));
    q = snic_srq(s, le32_to_cpu(a.srqn));
    if (!q) {
        return SNIC_AQ_ENOENT;
    }
    if (le32_to_cpu(a.limit) > (1u << q->log_size)) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    q->limit = le32_to_cpu(a.limit);
    return SNIC_AQ_OK;
}

static uint16_t snic_srq_destroy(SnicState *s, uint32_t srqn)
{
    SnicSrq *q = snic_srq(s, srqn);

    if (!q) {
        return SNIC_AQ_ENOENT;
    }
    if (q->refs) {
        return SNIC_AQ_EBUSY;
    }
    s->rdma.pds[q->pdn].refs--;
    q->valid = false;
    return SNIC_AQ_OK;
}

uint16_t snic_rdma_srq_db(SnicState *s, uint16_t page, uint32_t srqn,
                          uint16_t ctr)
{
    SnicSrq *q = snic_srq(s, srqn);

    if (!q) {
        s->stats.bad_db++;
        snic_raise_error(s, SNIC_ERR_DB_QUEUE, "doorbell for no SRQ");
        return SNIC_ERR_DB_QUEUE;
    }
    if (page != q->db_page) {
        s->stats.bad_db++;
        snic_raise_error(s, SNIC_ERR_DB_PAGE, "SRQ doorbell on a foreign page");
        return SNIC_ERR_DB_PAGE;
    }
    if ((uint16_t)(ctr - q->ci) > (1u << q->log_size)) {
        s->stats.bad_db++;
        snic_raise_error(s, SNIC_ERR_DB_RANGE, "SRQ doorbell beyond ring");
        return SNIC_ERR_DB_RANGE;
    }
    q->pi = ctr;
    return SNIC_ERR_NONE;
}

/* ---- receive WQEs ---- */

/* Re-read a doorbell record's producer; false on DMA error or nonsense. */
static bool snic_recv_refresh(SnicState *s, SnicQp *qp, uint64_t dbr,
                              uint16_t ci, uint8_t log, uint16_t *pi)
{
    uint32_t v;

    if (d2d_dma_read(&s->parent_obj, &s->pcie, &qp->pcie, dbr, &v,
                     sizeof(v)) != MEMTX_OK) {
        s->stats.dma_errs++;
        return false;
    }
    v = le32_to_cpu(v);
    if ((uint16_t)((uint16_t)v - ci) > (1u << log)) {
        return false;
    }
    *pi = v;
    return true;
}

bool snic_rdma_recv_peek(SnicState *s, SnicQp *qp, SnicRecvWqe *w)
{
    SnicSrq *srq = qp->srqn != SNIC_SRQN_NONE ? snic_srq(s, qp->srqn) : NULL;
    uint64_t ring, dbr;
    uint16_t *pi, ci;
    uint8_t log, slog;
    struct snic_recv_hdr hdr;
    struct snic_wqe_data d[SNIC_MAX_SGE];
    uint64_t addr;
    unsigned i, max;

    if (qp->srqn != SNIC_SRQN_NONE) {
        if (!srq) {
            return false;
        }
        ring = srq->ring;
        dbr = srq->dbr;
        pi = &srq->pi;
        ci = srq->ci;
        log = srq->log_size;
        slog = srq->log_stride;
    } else {
        ring = qp->rq_ring;
        dbr = qp->dbr;
        pi = &qp->rq_pi;
        ci = qp->rq_ci;
        log = qp->rq_log;
        slog = qp->rq_stride_log;
    }
    if (*pi == ci && (!snic_recv_refresh(s, qp, dbr, ci, log, pi) ||
                      *pi == ci)) {
        return false;
    }
    addr = ring + ((uint64_t)(ci & ((1u << log) - 1)) << slog);
    if (d2d_dma_read(&s->parent_obj, &s->pcie, &qp->pcie, addr, &hdr,
                     sizeof(hdr)) != MEMTX_OK) {
        s->stats.dma_errs++;
        return false;
    }
    memset(w, 0, sizeof(*w));
    w->cookie = le64_to_cpu(hdr.cookie);
    w->counter = ci;
    max = MIN(SNIC_MAX_SGE, (1u << slog) / 16 - 1);
    w->nsge = le16_to_cpu(hdr.num_sge);
    if (le16_to_cpu(hdr.num_sge) > max) {
        w->bad = true;
        w->nsge = 0;
        return true;
    }
    if (w->nsge &&
        d2d_dma_read(&s->parent_obj, &s->pcie, &qp->pcie, addr + sizeof(hdr),
                     d, w->nsge * sizeof(d[0])) != MEMTX_OK) {
        s->stats.dma_errs++;
        return false;
    }
    for (i = 0; i < w->nsge; i++) {
        w->sge[i].len = le32_to_cpu(d[i].byte_count);
        w->sge[i].lkey = le32_to_cpu(d[i].lkey);
        w->sge[i].addr = le64_to_cpu(d[i].addr);
        w->len += w->sge[i].len;
    }
    return true;
}

void snic_rdma_recv_consume(SnicState *s, SnicQp *qp)
{
    SnicSrq *srq;
    uint16_t left;

    if (qp->srqn == SNIC_SRQN_NONE) {
        qp->rq_ci++;
        return;
    }
    srq = snic_srq(s, qp->srqn);
    if (!srq) {
        return;
    }
    srq->ci++;
    left = srq->pi - srq->ci;
    if (srq->limit && left < srq->limit) {
        srq->limit = 0;
        snic_rdma_event(s, SNIC_EQE_SRQ_LIMIT, srq - s->rdma.srqs, left);
    }
}

/* ---- admin dispatch and statistics ---- */

uint16_t snic_rdma_admin(SnicState *s, const struct snic_aq_cmd *c,
                         uint64_t *res)
{
    uint32_t id = le32_to_cpu(c->obj.id);

    switch (c->opcode) {
    case SNIC_AQ_CREATE_PD:
        return snic_pd_create(s, res);
    case SNIC_AQ_DESTROY_PD:
        return snic_pd_destroy(s, id);
    case SNIC_AQ_CREATE_MR:
        return snic_mr_create(s, c, res);
    case SNIC_AQ_DESTROY_MR:
        return snic_mr_destroy(s, id);
    case SNIC_AQ_CREATE_QP:
        return snic_rdma_create_qp(s, c, res);
    case SNIC_AQ_MODIFY_QP:
        return snic_rdma_modify_qp(s, c);
    case SNIC_AQ_QUERY_QP:
        return snic_rdma_query_qp(s, c);
    case SNIC_AQ_DESTROY_QP:
        return snic_rdma_destroy_qp(s, id);
    case SNIC_AQ_CREATE_SRQ:
        return snic_srq_create(s, c, res);
    case SNIC_AQ_MODIFY_SRQ:
        return snic_srq_modify(s, c);
    case SNIC_AQ_DESTROY_SRQ:
        return snic_srq_destroy(s, id);
    case SNIC_AQ_SET_SRC_ADDR:
        return snic_src_addr_set(s, c);
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "snic: unknown RDMA opcode 0x%x\n",
                      c->opcode);
        return SNIC_AQ_EINVAL_OPCODE;
    }
}

uint16_t snic_rdma_query_stats(SnicState *s, const struct snic_aq_cmd *c)
{
    /* SnicRdmaStats mirrors struct snic_rdma_stats field by field. */
    struct snic_rdma_stats o;
    const uint64_t *in = (const uint64_t *)&s->rdma.st;
    uint64_t *out = (uint64_t *)&o;
    size_t i;

    QEMU_BUILD_BUG_ON(sizeof(o) != sizeof(s->rdma.st));
    for (i = 0; i < sizeof(o) / sizeof(uint64_t); i++) {
        out[i] = cpu_to_le64(in[i]);
    }
    return snic_aq_write_buf(s, c, &o, sizeof(o));
}

void snic_rdma_stats_format(SnicState *s, GString *out)
{
    static const char *const names[] = {
        "tx_pkts", "tx_bytes", "rx_pkts", "rx_bytes", "tx_acks", "rx_acks",
        "retransmits", "timeouts", "seq_naks_sent", "seq_naks_rcvd",
        "rnr_naks_sent", "rnr_naks_rcvd", "rem_access_naks_sent",
        "rem_access_naks_rcvd", "rem_op_naks_sent", "rem_op_naks_rcvd",
        "inv_req_naks_sent", "inv_req_naks_rcvd", "dup_requests",
        "out_of_seq", "rx_icrc_errors", "rx_malformed", "rx_no_qp",
        "rx_bad_qkey", "loss_injected", "req_errors", "resp_errors",
        "read_resps", "atomics", "rx_bad_src", "tx_bad_src",
    };
    const uint64_t *v = (const uint64_t *)&s->rdma.st;
    size_t i;

    QEMU_BUILD_BUG_ON(ARRAY_SIZE(names) * 8 != sizeof(SnicRdmaStats));
    for (i = 0; i < ARRAY_SIZE(names); i++) {
        g_string_append_printf(out, "%s=%" PRIu64 "%s", names[i], v[i],
                               i + 1 < ARRAY_SIZE(names) ? " " : "\n");
    }
    for (i = 0; i < s->rdma.qps_hi; i++) {
        SnicQp *qp = &s->rdma.qps[i];

        if (!qp->valid) {
            continue;
        }
        g_string_append_printf(out, "qp %u: type=%u state=%u sq_psn=%u "
                               "rq_psn=%u outstanding=%u retransmits=%u "
                               "rnr_naks_rcvd=%u seq_naks_rcvd=%u cwnd=%u ",
                               qp->qpn, qp->type, qp->state, qp->next_psn,
                               qp->resp_psn, qp->win_tail - qp->win_head,
                               qp->cnt.retransmits, qp->cnt.rnr_naks_rcvd,
                               qp->cnt.seq_naks_rcvd, qp->cwnd);
        d2d_pcie_counters_format(out, &qp->pcie);
        g_string_append_c(out, '\n');
    }
}
