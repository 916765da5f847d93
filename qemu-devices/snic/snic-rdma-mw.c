/*
 * snic: memory windows - ALLOC_MW/DEALLOC_MW, the bind WQE, remote access
 * through a window's rkey, invalidation of type 2 windows.  Windows are
 * entries of the MR key table (one key space, as IB's); the file sits
 * below snic-rdma-mr.c, which hands it the window entries its key check
 * and invalidation meet.  docs/snic-rdma.md "Memory windows".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "snic.h"

#define SNIC_MW_ACCESS  (SNIC_ACCESS_REMOTE_WRITE | SNIC_ACCESS_REMOTE_READ | \
                         SNIC_ACCESS_REMOTE_ATOMIC)

uint32_t snic_rdma_key_index_alloc(SnicState *s)
{
    uint32_t i;

    /* index 0 is never used, so no key is SNIC_LKEY_BUS */
    for (i = 1; i < SNIC_MAX_MRS; i++) {
        if (!s->rdma.mrs[i].valid) {
            return i;
        }
    }
    return 0;
}

static SnicMr *snic_mw(SnicState *s, uint32_t idx)
{
    if (idx == 0 || idx >= SNIC_MAX_MRS || !s->rdma.mrs[idx].valid ||
        !s->rdma.mrs[idx].mw_type) {
        return NULL;
    }
    return &s->rdma.mrs[idx];
}

uint16_t snic_mw_alloc(SnicState *s, const struct snic_aq_cmd *c,
                       uint64_t *res)
{
    const struct snic_aq_alloc_mw *a = (const void *)c->raw;
    uint32_t pdn = le32_to_cpu(a->pdn), idx;
    SnicMr *mw;

    if (!snic_pd(s, pdn)) {
        return SNIC_AQ_ENOENT;
    }
    if (a->type != SNIC_MW_TYPE_1 && a->type != SNIC_MW_TYPE_2) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    idx = snic_rdma_key_index_alloc(s);
    if (!idx) {
        return SNIC_AQ_ENOSPC;
    }
    mw = &s->rdma.mrs[idx];
    memset(mw, 0, sizeof(*mw));
    mw->valid = true;
    mw->mw_type = a->type;
    mw->pdn = pdn;
    mw->tag = a->key_tag;
    s->rdma.pds[pdn].refs++;
    *res = SNIC_MAKE_KEY(idx, mw->tag);
    return SNIC_AQ_OK;
}

/* @mw is no longer bound (it stays allocated). */
static void snic_mw_unbind(SnicState *s, SnicMr *mw)
{
    if (mw->live) {
        s->rdma.mrs[mw->mw_mr].mw_binds--;
    }
    mw->live = false;
    mw->mw_mr = mw->mw_qpn = 0;
    mw->iova = mw->length = 0;
    mw->access = 0;
}

uint16_t snic_mw_dealloc(SnicState *s, uint32_t idx)
{
    SnicMr *mw = snic_mw(s, idx);

    if (!mw) {
        return SNIC_AQ_ENOENT;
    }
    snic_mw_unbind(s, mw);
    s->rdma.pds[mw->pdn].refs--;
    memset(mw, 0, sizeof(*mw));
    return SNIC_AQ_OK;
}

static uint8_t snic_mw_bind_fail(SnicState *s, SnicQp *qp, uint32_t key,
                                 const char *why)
{
    s->rdma.st.mw_bind_errors++;
    qemu_log_mask(LOG_GUEST_ERROR, "snic: qp %u: bind of window 0x%x: %s\n",
                  qp->qpn, key, why);
    return SNIC_RST_MW_BIND;
}

/* The MR a bind names by its lkey (same checks as a local key), or NULL. */
static SnicMr *snic_mw_bind_mr(SnicState *s, SnicQp *qp, uint32_t key)
{
    uint32_t idx = SNIC_KEY_INDEX(key);
    SnicMr *mr;

    if (idx == 0 || idx >= SNIC_MAX_MRS) {
        return NULL;
    }
    mr = &s->rdma.mrs[idx];
    if (!mr->valid || mr->mw_type || !mr->live ||
        mr->tag != SNIC_KEY_TAG(key) || mr->pdn != qp->pdn) {
        return NULL;
    }
    return mr;
}

/* Is [addr, addr + len) inside [iova, iova + length)? */
static bool snic_mw_range_in(uint64_t addr, uint64_t len, uint64_t iova,
                             uint64_t length)
{
    return addr >= iova && addr - iova <= length &&
           len <= length - (addr - iova);
}

uint8_t snic_mw_bind(SnicState *s, SnicQp *qp, const struct snic_wqe_bind *b)
{
    uint32_t key = le32_to_cpu(b->mw_key), mr_key = le32_to_cpu(b->mr_key);
    uint32_t access = le32_to_cpu(b->access) & ~SNIC_ACCESS_LOCAL_WRITE;
    uint64_t addr = le64_to_cpu(b->addr), len = le64_to_cpu(b->length);
    SnicMr *mw = snic_mw(s, SNIC_KEY_INDEX(key)), *mr = NULL;

    if (!mw) {
        return snic_mw_bind_fail(s, qp, key, "no such window");
    }
    if (mw->pdn != qp->pdn) {
        return snic_mw_bind_fail(s, qp, key, "window of another PD");
    }
    if (access & ~SNIC_MW_ACCESS) {
        return snic_mw_bind_fail(s, qp, key, "unknown access bits");
    }
    if (mw->mw_type == SNIC_MW_TYPE_2 && mw->live) {
        return snic_mw_bind_fail(s, qp, key, "type 2 window still bound");
    }
    if (mw->mw_type == SNIC_MW_TYPE_2 && !len) {
        return snic_mw_bind_fail(s, qp, key, "type 2 bind of length 0");
    }
    if (len) {
        mr = snic_mw_bind_mr(s, qp, mr_key);
        if (!mr) {
            return snic_mw_bind_fail(s, qp, key, "bad MR key");
        }
        if (!(mr->access & SNIC_ACCESS_MW_BIND)) {
            return snic_mw_bind_fail(s, qp, key, "MR without MW_BIND");
        }
        /* IBA C10-74: remote writes need a locally writable MR */
        if ((access & (SNIC_ACCESS_REMOTE_WRITE | SNIC_ACCESS_REMOTE_ATOMIC))
            && !(mr->access & SNIC_ACCESS_LOCAL_WRITE)) {
            return snic_mw_bind_fail(s, qp, key, "MR not locally writable");
        }
        if (!snic_mw_range_in(addr, len, mr->iova, mr->length)) {
            return snic_mw_bind_fail(s, qp, key, "window outside the MR");
        }
    }
    snic_mw_unbind(s, mw);
    mw->tag = SNIC_KEY_TAG(key);
    if (mr) {
        mw->live = true;
        mw->mw_mr = mr - s->rdma.mrs;
        mw->mw_qpn = mw->mw_type == SNIC_MW_TYPE_2 ? qp->qpn : 0;
        mw->iova = addr;
        mw->length = len;
        mw->access = access;
        mr->mw_binds++;
    }
    s->rdma.st.mw_binds++;
    return SNIC_RST_OK;
}

SnicMr *snic_mw_resolve(SnicState *s, SnicQp *qp, SnicMr *mw, uint32_t key,
                        uint64_t addr, uint64_t len, uint32_t access)
{
    SnicMr *mr;

    if (!mw->live || mw->tag != SNIC_KEY_TAG(key) || mw->pdn != qp->pdn ||
        (mw->access & access) != access ||
        (mw->mw_type == SNIC_MW_TYPE_2 && mw->mw_qpn != qp->qpn) ||
        !snic_mw_range_in(addr, len, mw->iova, mw->length)) {
        return NULL;
    }
    mr = &s->rdma.mrs[mw->mw_mr];
    /* a fast-registration MR may have been invalidated under it */
    if (!mr->live || !snic_mw_range_in(addr, len, mr->iova, mr->length)) {
        return NULL;
    }
    return mr;
}

uint8_t snic_mw_invalidate(SnicState *s, SnicQp *qp, SnicMr *mw,
                           uint32_t key)
{
    if (mw->mw_type != SNIC_MW_TYPE_2) {
        qemu_log_mask(LOG_GUEST_ERROR, "snic: qp %u: invalidate of key 0x%x:"
                      " a type 1 window\n", qp->qpn, key);
        return SNIC_RST_LOC_PROT;
    }
    if (!mw->live || mw->tag != SNIC_KEY_TAG(key) || mw->pdn != qp->pdn ||
        mw->mw_qpn != qp->qpn) {
        qemu_log_mask(LOG_GUEST_ERROR, "snic: qp %u: invalidate of key 0x%x:"
                      " window not bound to this QP\n", qp->qpn, key);
        return SNIC_RST_LOC_PROT;
    }
    snic_mw_unbind(s, mw);
    s->rdma.st.mw_invalidates++;
    return SNIC_RST_OK;
}

void snic_mw_qp_gone(SnicState *s, uint32_t qpn)
{
    uint32_t i;

    for (i = 1; i < SNIC_MAX_MRS; i++) {
        SnicMr *mw = &s->rdma.mrs[i];

        if (mw->valid && mw->mw_type == SNIC_MW_TYPE_2 && mw->live &&
            mw->mw_qpn == qpn) {
            snic_mw_unbind(s, mw);
        }
    }
}
