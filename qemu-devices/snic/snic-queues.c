/*
 * snic: data queue objects - event, completion, send and receive queues,
 * their admin commands, CQE/EQE posting and event moderation.
 *
 * Rings and doorbell records are bus addresses reached only by DMA, so a
 * queue may live in host RAM or in a peer device's BAR.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "snic.h"

void snic_eq_fire(SnicState *s, SnicEq *eq)
{
    eq->armed = false;
    eq->pending = 0;
    timer_del(eq->mod_timer);
    s->ps.eq_irqs++;
    snic_irq(s, eq->msix);
}

/* A moderated armed CQ's period ran out: raise its event now. */
static void snic_cq_mod_timer(void *opaque)
{
    SnicCqTimer *t = opaque;
    SnicCq *cq = &t->s->cqs[t->cqn];

    if (cq->valid && cq->armed && cq->mod_pending) {
        snic_cq_event(t->s, t->cqn);
    }
}

static bool snic_cq_line_flush(SnicState *s, uint16_t cqn);

/* A mini-CQE line's time ran out: write it as it is. */
static void snic_cq_line_timer(void *opaque)
{
    SnicCqTimer *t = opaque;

    if (t->s->cqs[t->cqn].valid) {
        snic_cq_line_flush(t->s, t->cqn);
    }
}

static void snic_eq_mod_timer(void *opaque)
{
    SnicEq *eq = opaque;

    if (eq->valid && eq->armed && eq->pending) {
        snic_eq_fire(eq->s, eq);
    }
}

void snic_queues_init(SnicState *s)
{
    int i;

    s->eqs = g_new0(SnicEq, SNIC_MAX_EQS);
    s->cqs = g_new0(SnicCq, SNIC_MAX_CQS);
    s->cq_timers = g_new0(SnicCqTimer, SNIC_MAX_CQS);
    s->sqs = g_new0(SnicSq, SNIC_MAX_SQS);
    s->rqs = g_new0(SnicRq, SNIC_MAX_RQS);
    s->rss = g_new0(SnicRss, SNIC_MAX_RSS);
    s->rules = g_new0(SnicRule, SNIC_MAX_RULES);
    s->mmio_wqe = g_new0(SnicMmioWqe, SNIC_DB_PAGES);
    for (i = 0; i < SNIC_MAX_EQS; i++) {
        s->eqs[i].s = s;
        s->eqs[i].mod_timer = d2d_timer_new_guarded(DEVICE(s),
                                                    snic_eq_mod_timer,
                                                    &s->eqs[i]);
    }
    for (i = 0; i < SNIC_MAX_CQS; i++) {
        s->cq_timers[i].s = s;
        s->cq_timers[i].cqn = i;
        s->cq_timers[i].timer = d2d_timer_new_guarded(DEVICE(s),
                                                      snic_cq_mod_timer,
                                                      &s->cq_timers[i]);
        s->cq_timers[i].line_timer =
            d2d_timer_new_guarded(DEVICE(s), snic_cq_line_timer,
                                  &s->cq_timers[i]);
    }
}

void snic_queues_free(SnicState *s)
{
    int i;

    for (i = 0; i < SNIC_MAX_EQS; i++) {
        d2d_timer_free_guarded(s->eqs[i].mod_timer);
    }
    for (i = 0; i < SNIC_MAX_CQS; i++) {
        d2d_timer_free_guarded(s->cq_timers[i].timer);
        d2d_timer_free_guarded(s->cq_timers[i].line_timer);
    }
    g_free(s->eqs);
    g_free(s->cqs);
    g_free(s->cq_timers);
    g_free(s->sqs);
    g_free(s->rqs);
    g_free(s->rss);
    g_free(s->rules);
    g_free(s->mmio_wqe);
}

/* Reset: every queue, group and rule is gone. */
void snic_queues_reset(SnicState *s)
{
    int i;

    for (i = 0; i < SNIC_MAX_EQS; i++) {
        QEMUTimer *t = s->eqs[i].mod_timer;

        timer_del(t);
        memset(&s->eqs[i], 0, sizeof(s->eqs[i]));
        s->eqs[i].mod_timer = t;
        s->eqs[i].s = s;
    }
    for (i = 0; i < SNIC_MAX_CQS; i++) {
        timer_del(s->cq_timers[i].timer);
        timer_del(s->cq_timers[i].line_timer);
    }
    memset(s->cqs, 0, sizeof(SnicCq) * SNIC_MAX_CQS);
    memset(s->sqs, 0, sizeof(SnicSq) * SNIC_MAX_SQS);
    memset(s->rqs, 0, sizeof(SnicRq) * SNIC_MAX_RQS);
    memset(s->rss, 0, sizeof(SnicRss) * SNIC_MAX_RSS);
    memset(s->rules, 0, sizeof(SnicRule) * SNIC_MAX_RULES);
    memset(s->mmio_wqe, 0, sizeof(SnicMmioWqe) * SNIC_DB_PAGES);
    s->sqs_hi = 0;
    s->rules_hi = 0;
    memset(&s->port, 0, sizeof(s->port));
    s->port.async_eqn = SNIC_EQN_NONE;
    s->port.mtu = 1500;
    memset(&s->ps, 0, sizeof(s->ps));
    s->rx_loop_cqn = -1;
    timer_del(s->rate_timer);
}

/* Checks shared by every CREATE: ring alignment, size, record, page. */
static uint16_t snic_check_ring(SnicState *s, uint64_t ring, uint64_t dbr,
                                bool has_dbr, uint8_t log_size,
                                uint16_t db_page)
{
    if (ring % SNIC_RING_ALIGN || (has_dbr && dbr % 4) ||
        log_size < SNIC_MIN_LOG_SIZE || log_size > SNIC_MAX_LOG_SIZE ||
        db_page >= SNIC_DB_PAGES) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (!snic_dma_probe(s, ring) || (has_dbr && !snic_dma_probe(s, dbr))) {
        s->stats.dma_errs++;
        return SNIC_AQ_EDMA;
    }
    return SNIC_AQ_OK;
}

/* First free slot of an object table, or @max if full. */
#define SNIC_ALLOC(arr, max, idx) do {                  \
        (idx) = 0;                                      \
        while ((idx) < (max) && (arr)[idx].valid) {     \
            (idx)++;                                    \
        }                                               \
    } while (0)

uint16_t snic_cmd_create_eq(SnicState *s, const struct snic_aq_cmd *c,
                            uint64_t *res)
{
    const struct snic_aq_create_eq *a = &c->create_eq;
    uint16_t st;
    SnicEq *eq;
    int n;

    if (le16_to_cpu(a->msix) >= SNIC_NUM_MSIX) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    st = snic_check_ring(s, le64_to_cpu(a->ring_addr), 0, false, a->log_size,
                         le16_to_cpu(a->db_page));
    if (st) {
        return st;
    }
    SNIC_ALLOC(s->eqs, SNIC_MAX_EQS, n);
    if (n == SNIC_MAX_EQS) {
        return SNIC_AQ_ENOSPC;
    }
    eq = &s->eqs[n];
    eq->valid = true;
    eq->ring = le64_to_cpu(a->ring_addr);
    eq->log_size = a->log_size;
    eq->pi = eq->ci = 0;
    eq->msix = le16_to_cpu(a->msix);
    eq->mod_usecs = le16_to_cpu(a->mod_usecs);
    eq->mod_count = le16_to_cpu(a->mod_count);
    eq->db_page = le16_to_cpu(a->db_page);
    eq->armed = false;
    eq->pending = 0;
    eq->refs = 0;
    *res = n;
    return SNIC_AQ_OK;
}

uint16_t snic_cmd_create_cq(SnicState *s, const struct snic_aq_cmd *c,
                            uint64_t *res)
{
    const struct snic_aq_create_cq *a = &c->create_cq;
    uint16_t eqn = le16_to_cpu(a->eqn);
    uint16_t st;
    SnicCq *cq;
    int n;

    if (eqn != SNIC_EQN_NONE &&
        (eqn >= SNIC_MAX_EQS || !s->eqs[eqn].valid)) {
        return SNIC_AQ_ENOENT;
    }
    if (a->flags & ~(SNIC_CQ_F_MINI | SNIC_CQ_F_NO_HASH)) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    st = snic_check_ring(s, le64_to_cpu(a->ring_addr),
                         le64_to_cpu(a->dbr_addr), true, a->log_size,
                         le16_to_cpu(a->db_page));
    if (st) {
        return st;
    }
    SNIC_ALLOC(s->cqs, SNIC_MAX_CQS, n);
    if (n == SNIC_MAX_CQS) {
        return SNIC_AQ_ENOSPC;
    }
    cq = &s->cqs[n];
    memset(cq, 0, sizeof(*cq));
    cq->valid = true;
    cq->ring = le64_to_cpu(a->ring_addr);
    cq->dbr = le64_to_cpu(a->dbr_addr);
    cq->log_size = a->log_size;
    cq->eqn = eqn;
    cq->db_page = le16_to_cpu(a->db_page);
    cq->flags = a->flags;
    if (eqn != SNIC_EQN_NONE) {
        s->eqs[eqn].refs++;
    }
    *res = n;
    return SNIC_AQ_OK;
}

static bool snic_cq_exists(SnicState *s, uint16_t cqn)
{
    return cqn < SNIC_MAX_CQS && s->cqs[cqn].valid;
}

/*
 * RESIZE_CQ (docs/snic.md): the unconsumed CQEs move to the start of the
 * new ring.  Admin commands run between CQE posts, so none is lost; on
 * any failure the CQ stays as it was.
 */
uint16_t snic_cmd_resize_cq(SnicState *s, const struct snic_aq_cmd *c,
                            uint64_t *res)
{
    const struct snic_aq_resize_cq *a = &c->resize_cq;
    uint32_t cqn = le32_to_cpu(a->cqn);
    __le32 rec;
    uint64_t ring = le64_to_cpu(a->ring_addr);
    struct snic_cqe cqe;
    uint16_t st, ci, n, k;
    SnicCq *cq;

    if (cqn >= SNIC_MAX_CQS || !snic_cq_exists(s, cqn)) {
        return SNIC_AQ_ENOENT;
    }
    cq = &s->cqs[cqn];
    if (cq->error) {
        return SNIC_AQ_EINVAL_PARAM;    /* overflowed: only destroy helps */
    }
    st = snic_check_ring(s, ring, le64_to_cpu(a->dbr_addr), true,
                         a->log_size, cq->db_page);
    if (st) {
        return st;
    }
    if (!snic_cq_line_flush(s, cqn)) {
        return SNIC_AQ_EDMA;
    }
    if (d2d_dma_read(&s->parent_obj, &s->pcie, NULL, cq->dbr, &rec,
                     sizeof(rec)) != MEMTX_OK) {
        return SNIC_AQ_EDMA;
    }
    ci = le32_to_cpu(rec);
    n = cq->pi - ci;
    if (n > RING_SIZE(cq) || n > (1u << a->log_size)) {
        return SNIC_AQ_EINVAL_PARAM;    /* bad record, or too small */
    }
    for (k = 0; k < n; k++) {
        if (d2d_dma_read(&s->parent_obj, &s->pcie, NULL,
                         cq->ring + ((ci + k) & RING_MASK(cq)) * sizeof(cqe),
                         &cqe, sizeof(cqe)) != MEMTX_OK) {
            return SNIC_AQ_EDMA;
        }
        /* first pass of the new ring */
        cqe.op_own = SNIC_CQE_OWNER | (cqe.op_own & SNIC_CQE_MINI);
        if (d2d_dma_write_entry(&s->parent_obj, &s->pcie, NULL,
                                ring + k * sizeof(cqe), &cqe, sizeof(cqe))
            != MEMTX_OK) {
            return SNIC_AQ_EDMA;
        }
    }
    cq->ring = ring;
    cq->dbr = le64_to_cpu(a->dbr_addr);
    cq->log_size = a->log_size;
    cq->pi = n;
    cq->ci = 0;
    *res = n;
    return SNIC_AQ_OK;
}

/*
 * MODIFY_CQ (docs/snic.md): new moderation bounds, effective from the
 * next CQE; a period already running keeps its deadline.
 */
uint16_t snic_cmd_modify_cq(SnicState *s, const struct snic_aq_cmd *c)
{
    const struct snic_aq_modify_cq *a = &c->modify_cq;
    uint32_t cqn = le32_to_cpu(a->cqn);
    uint32_t count = le32_to_cpu(a->count);
    uint32_t period = le32_to_cpu(a->period_us);
    SnicCq *cq;

    if (cqn >= SNIC_MAX_CQS || !snic_cq_exists(s, cqn)) {
        return SNIC_AQ_ENOENT;
    }
    if (count > SNIC_CQ_MAX_MOD_COUNT || period > SNIC_CQ_MAX_MOD_PERIOD) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    cq = &s->cqs[cqn];
    cq->mod_count = count;
    cq->mod_period = period;
    if (!period) {
        timer_del(s->cq_timers[cqn].timer);
    }
    /* now-unmoderated, or count already reached: raise what is owed */
    if (cq->armed && cq->mod_pending &&
        ((count <= 1 && !period) || (count && cq->mod_pending >= count))) {
        snic_cq_event(s, cqn);
    }
    return SNIC_AQ_OK;
}

/* What CREATE_SQ and CREATE_RQ check alike: the CQ, the ring, the record. */
static uint16_t snic_wq_check(SnicState *s, uint16_t cqn, uint64_t ring,
                              uint64_t dbr, uint8_t log_size,
                              uint16_t db_page)
{
    if (!snic_cq_exists(s, cqn)) {
        return SNIC_AQ_ENOENT;
    }
    return snic_check_ring(s, ring, dbr, true, log_size, db_page);
}

uint16_t snic_cmd_create_sq(SnicState *s, const struct snic_aq_cmd *c,
                            uint64_t *res)
{
    const struct snic_aq_create_sq *a = &c->create_sq;
    uint16_t cqn = le16_to_cpu(a->cqn);
    uint16_t st;
    SnicSq *sq;
    int n;

    st = snic_wq_check(s, cqn, le64_to_cpu(a->ring_addr),
                       le64_to_cpu(a->dbr_addr), a->log_size,
                       le16_to_cpu(a->db_page));
    if (st) {
        return st;
    }
    SNIC_ALLOC(s->sqs, SNIC_MAX_SQS, n);
    if (n == SNIC_MAX_SQS) {
        return SNIC_AQ_ENOSPC;
    }
    sq = &s->sqs[n];
    s->sqs_hi = MAX(s->sqs_hi, n + 1);
    memset(sq, 0, sizeof(*sq));
    sq->valid = true;
    sq->ring = le64_to_cpu(a->ring_addr);
    sq->dbr = le64_to_cpu(a->dbr_addr);
    sq->log_size = a->log_size;
    sq->flags = a->flags;
    sq->cqn = cqn;
    sq->db_page = le16_to_cpu(a->db_page);
    s->cqs[cqn].refs++;
    *res = n;
    return SNIC_AQ_OK;
}

uint16_t snic_cmd_create_rq(SnicState *s, const struct snic_aq_cmd *c,
                            uint64_t *res)
{
    const struct snic_aq_create_rq *a = &c->create_rq;
    uint16_t cqn = le16_to_cpu(a->cqn);
    uint16_t st;
    SnicRq *rq;
    int n;

    if (a->type != SNIC_RQ_PLAIN && a->type != SNIC_RQ_STRIDING) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if (a->type == SNIC_RQ_STRIDING &&
        (a->log_stride_size < 6 || a->log_stride_size > 13 ||
         a->log_num_strides < 1 || a->log_num_strides > 16)) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    st = snic_wq_check(s, cqn, le64_to_cpu(a->ring_addr),
                       le64_to_cpu(a->dbr_addr), a->log_size,
                       le16_to_cpu(a->db_page));
    if (st) {
        return st;
    }
    SNIC_ALLOC(s->rqs, SNIC_MAX_RQS, n);
    if (n == SNIC_MAX_RQS) {
        return SNIC_AQ_ENOSPC;
    }
    rq = &s->rqs[n];
    memset(rq, 0, sizeof(*rq));
    rq->valid = true;
    rq->ring = le64_to_cpu(a->ring_addr);
    rq->dbr = le64_to_cpu(a->dbr_addr);
    rq->log_size = a->log_size;
    rq->type = a->type;
    rq->log_stride = a->log_stride_size;
    rq->log_nstrides = a->log_num_strides;
    rq->cqn = cqn;
    rq->db_page = le16_to_cpu(a->db_page);
    s->cqs[cqn].refs++;
    *res = n;
    return SNIC_AQ_OK;
}

uint16_t snic_cmd_destroy(SnicState *s, const struct snic_aq_cmd *c)
{
    uint32_t id = le32_to_cpu(c->obj.id);

    switch (c->opcode) {
    case SNIC_AQ_DESTROY_EQ:
        if (id >= SNIC_MAX_EQS || !s->eqs[id].valid) {
            return SNIC_AQ_ENOENT;
        }
        if (s->eqs[id].refs || s->port.async_eqn == id) {
            return SNIC_AQ_EBUSY;
        }
        timer_del(s->eqs[id].mod_timer);
        s->eqs[id].valid = false;
        return SNIC_AQ_OK;
    case SNIC_AQ_DESTROY_CQ:
        if (id >= SNIC_MAX_CQS || !s->cqs[id].valid) {
            return SNIC_AQ_ENOENT;
        }
        if (s->cqs[id].refs) {
            return SNIC_AQ_EBUSY;
        }
        if (s->cqs[id].eqn != SNIC_EQN_NONE) {
            s->eqs[s->cqs[id].eqn].refs--;
        }
        timer_del(s->cq_timers[id].timer);
        timer_del(s->cq_timers[id].line_timer);
        s->cqs[id].valid = false;
        return SNIC_AQ_OK;
    case SNIC_AQ_DESTROY_SQ:
        if (id >= SNIC_MAX_SQS || !s->sqs[id].valid) {
            return SNIC_AQ_ENOENT;
        }
        s->cqs[s->sqs[id].cqn].refs--;
        s->sqs[id].valid = false;
        return SNIC_AQ_OK;
    case SNIC_AQ_DESTROY_RQ:
        if (id >= SNIC_MAX_RQS || !s->rqs[id].valid) {
            return SNIC_AQ_ENOENT;
        }
        if (s->rqs[id].refs) {
            return SNIC_AQ_EBUSY;
        }
        s->cqs[s->rqs[id].cqn].refs--;
        s->rqs[id].valid = false;
        return SNIC_AQ_OK;
    default:
        return SNIC_AQ_EINVAL_OPCODE;
    }
}

/* A data queue's ring or record failed DMA: stop it and tell the driver. */
void snic_queue_error(SnicState *s, uint8_t eqe_type, uint16_t cqn,
                      uint32_t qn, const char *why)
{
    snic_raise_error(s, SNIC_ERR_QUEUE_DMA, why);
    s->stats.dma_errs++;
    if (snic_cq_exists(s, cqn) && s->cqs[cqn].eqn != SNIC_EQN_NONE) {
        snic_eq_post(s, s->cqs[cqn].eqn, eqe_type, qn, SNIC_ERR_QUEUE_DMA);
    }
}

void snic_eq_post(SnicState *s, uint16_t eqn, uint8_t type, uint32_t obj,
                  uint32_t data)
{
    struct snic_eqe eqe = { 0 };
    SnicEq *eq;

    if (eqn >= SNIC_MAX_EQS || !s->eqs[eqn].valid) {
        return;
    }
    eq = &s->eqs[eqn];
    if ((uint16_t)(eq->pi - eq->ci) >= RING_SIZE(eq)) {
        eq->overflows++;
        return;
    }
    eqe.type = type;
    eqe.obj = cpu_to_le32(obj);
    eqe.data = cpu_to_le32(data);
    eqe.owner = ((eq->pi >> eq->log_size) & 1) ^ 1;
    if (d2d_dma_write_entry(&s->parent_obj, &s->pcie, NULL,
                            eq->ring + (eq->pi & RING_MASK(eq)) * sizeof(eqe),
                            &eqe, sizeof(eqe)) != MEMTX_OK) {
        s->stats.dma_errs++;
        snic_raise_error(s, SNIC_ERR_QUEUE_DMA, "EQE write failed");
        return;
    }
    eq->pi++;
    s->ps.eq_events++;
    if (!eq->armed) {
        return;
    }
    eq->pending++;
    if ((!eq->mod_usecs && !eq->mod_count) ||
        (eq->mod_count && eq->pending >= eq->mod_count)) {
        snic_eq_fire(s, eq);
    } else if (eq->mod_usecs && !timer_pending(eq->mod_timer)) {
        timer_mod(eq->mod_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                  (int64_t)eq->mod_usecs * 1000);
    } else if (!eq->mod_usecs && eq->pending >= eq->mod_count) {
        snic_eq_fire(s, eq);
    }
}

void snic_cq_event(SnicState *s, uint16_t cqn)
{
    SnicCq *cq = &s->cqs[cqn];

    cq->armed = false;
    cq->mod_pending = 0;
    timer_del(s->cq_timers[cqn].timer);
    if (cq->eqn != SNIC_EQN_NONE) {
        snic_eq_post(s, cq->eqn, SNIC_EQE_COMPLETION, cqn, 0);
    }
}

/*
 * An armed CQ got a CQE that counts: raise its event now, or once
 * mod_count of them are in, or mod_period after the first (MODIFY_CQ).
 */
static void snic_cq_moderate(SnicState *s, uint16_t cqn)
{
    SnicCq *cq = &s->cqs[cqn];
    QEMUTimer *t = s->cq_timers[cqn].timer;

    cq->mod_pending++;
    if ((cq->mod_count <= 1 && !cq->mod_period) ||
        (cq->mod_count && cq->mod_pending >= cq->mod_count)) {
        snic_cq_event(s, cqn);
    } else if (cq->mod_period && !timer_pending(t)) {
        timer_mod(t, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                  (int64_t)cq->mod_period * 1000);
    }
}

/*
 * Write the 64-byte entry @e (a CQE or a mini-CQE line, its op_own
 * SNIC_CQE_MINI bit set by the caller) at the CQ's producer.  Returns
 * false if the CQ is in error or full (then it enters the error state).
 */
static bool snic_cq_put(SnicState *s, uint16_t cqn, uint8_t *e,
                        D2DPcieCounters *q)
{
    SnicCq *cq = &s->cqs[cqn];
    uint8_t *op_own = e + SNIC_CQE_SIZE - 1;
    uint64_t addr;

    if (cq->error) {
        return false;
    }
    if ((uint16_t)(cq->pi - cq->ci) >= RING_SIZE(cq)) {
        __le32 dbr;

        /* Looks full: the driver may have consumed without a doorbell. */
        if (d2d_dma_read(&s->parent_obj, &s->pcie, q, cq->dbr, &dbr,
                         sizeof(dbr)) != MEMTX_OK) {
            cq->error = true;
            snic_queue_error(s, SNIC_EQE_CQ_ERROR, cqn, cqn,
                             "CQ doorbell record read failed");
            return false;
        }
        if ((uint16_t)(cq->pi - (uint16_t)le32_to_cpu(dbr)) <= RING_SIZE(cq)) {
            cq->ci = le32_to_cpu(dbr);
        }
        if ((uint16_t)(cq->pi - cq->ci) >= RING_SIZE(cq)) {
            cq->error = true;
            s->ps.cq_overflows++;
            snic_raise_error(s, SNIC_ERR_CQ_OVERFLOW, "completion queue full");
            if (cq->eqn != SNIC_EQN_NONE) {
                snic_eq_post(s, cq->eqn, SNIC_EQE_CQ_ERROR, cqn,
                             SNIC_ERR_CQ_OVERFLOW);
            }
            return false;
        }
    }
    addr = cq->ring + (cq->pi & RING_MASK(cq)) * SNIC_CQE_SIZE;
    if (!(*op_own & SNIC_CQE_MINI)) {
        struct snic_cqe *cqe = (struct snic_cqe *)e;

        /* the completion time: when the CQE lands (timing mode), else now */
        cqe->timestamp = cpu_to_le64(d2d_timing_write_at(&s->parent_obj,
                                                         addr, SNIC_CQE_SIZE));
    }
    *op_own = (*op_own & SNIC_CQE_MINI) |
              (((cq->pi >> cq->log_size) & 1) ^ 1);
    if (d2d_dma_write_entry(&s->parent_obj, &s->pcie, q, addr, e,
                            SNIC_CQE_SIZE) != MEMTX_OK) {
        cq->error = true;
        snic_queue_error(s, SNIC_EQE_CQ_ERROR, cqn, cqn, "CQE write failed");
        return false;
    }
    cq->pi++;
    return true;
}

/* Write the CQ's mini-CQE line, if it has one.  False if that failed. */
static bool snic_cq_line_flush(SnicState *s, uint16_t cqn)
{
    SnicCq *cq = &s->cqs[cqn];
    uint16_t rqn = le16_to_cpu(cq->line.qn);
    bool ok;

    if (!cq->line.count) {
        return true;
    }
    timer_del(s->cq_timers[cqn].line_timer);
    cq->line.op_own = SNIC_CQE_MINI;
    ok = snic_cq_put(s, cqn, (uint8_t *)&cq->line,
                     rqn < SNIC_MAX_RQS ? &s->rqs[rqn].st.pcie : NULL);
    memset(&cq->line, 0, sizeof(cq->line));
    if (ok && cq->armed && !cq->arm_se) {
        snic_cq_moderate(s, cqn);
    }
    s->ps.rx_mini_lines += ok;
    return ok;
}

/*
 * Add Ethernet receive completion @cqe to the CQ's line if it can go in
 * one (docs/snic.md "Mini-CQE lines"); a full line is written at once, a
 * line's first entry starts its SNIC_CQ_LINE_NS.  False: write it whole.
 */
static bool snic_cq_line_add(SnicState *s, uint16_t cqn,
                             const struct snic_cqe *cqe)
{
    SnicCq *cq = &s->cqs[cqn];
    struct snic_cqe_line *l = &cq->line;
    uint16_t flags = le16_to_cpu(cqe->flags);
    uint32_t tag = le32_to_cpu(cqe->flow_tag);
    struct snic_mini_cqe *m;
    unsigned i;

    if (cqe->opcode != SNIC_CQE_RX || cqe->syndrome != SNIC_SYND_OK ||
        le32_to_cpu(cqe->byte_cnt) > UINT16_MAX ||
        (flags & (SNIC_CQE_F_HASH | SNIC_CQE_F_VLAN)) ||
        ((flags & SNIC_CQE_F_TAG) && tag > UINT16_MAX)) {
        return false;
    }
    for (i = 0; i < l->count; i++) {
        if (le16_to_cpu(l->mini[i].flags) & SNIC_CQE_F_TAG) {
            break;
        }
    }
    if (l->count && (l->qn != cqe->qn ||
                     ((flags & SNIC_CQE_F_TAG) && i < l->count &&
                      le16_to_cpu(l->flow_tag) != tag))) {
        if (!snic_cq_line_flush(s, cqn)) {
            return true;    /* the CQ is in error: nothing more goes in */
        }
    }
    if (!l->count) {
        l->qn = cqe->qn;
        timer_mod(s->cq_timers[cqn].line_timer,
                  qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + SNIC_CQ_LINE_NS);
    }
    if (flags & SNIC_CQE_F_TAG) {
        l->flow_tag = cpu_to_le16(tag);
    }
    m = &l->mini[l->count++];
    m->byte_cnt = cpu_to_le16(le32_to_cpu(cqe->byte_cnt));
    m->wqe_counter = cqe->wqe_counter;
    m->stride_idx = cqe->stride_idx;
    m->flags = cqe->flags;
    s->ps.rx_mini_cqes++;
    if (l->count == SNIC_MINI_PER_LINE) {
        snic_cq_line_flush(s, cqn);
    }
    return true;
}

/*
 * Write one CQE, or add it to the CQ's mini-CQE line.  Returns false if
 * the CQ is gone, in error or full (then it enters the error state).  @q:
 * counters of the queue it completes.
 */
bool snic_cq_post(SnicState *s, uint16_t cqn, struct snic_cqe *cqe,
                  D2DPcieCounters *q)
{
    SnicCq *cq;

    if (!snic_cq_exists(s, cqn) || s->cqs[cqn].error) {
        return false;
    }
    cq = &s->cqs[cqn];
    if (cq->flags & SNIC_CQ_F_NO_HASH) {
        cqe->flags &= ~cpu_to_le16(SNIC_CQE_F_HASH);
        cqe->rss_hash = 0;
    }
    if (cq->flags & SNIC_CQ_F_MINI) {
        if (snic_cq_line_add(s, cqn, cqe)) {
            return !cq->error;
        }
        /* completions stay in order: the line goes first */
        if (!snic_cq_line_flush(s, cqn)) {
            return false;
        }
    }
    cqe->op_own = 0;
    if (!snic_cq_put(s, cqn, (uint8_t *)cqe, q)) {
        return false;
    }
    if (cq->armed && (!cq->arm_se ||
                      (cqe->rdma_flags & SNIC_CQE_RF_SOLICITED) ||
                      cqe->opcode == SNIC_CQE_REQ_ERR ||
                      cqe->opcode == SNIC_CQE_RECV_ERR)) {
        snic_cq_moderate(s, cqn);
    }
    return true;
}

/*
 * The descriptor at the RQ's consumer counter, re-reading the doorbell
 * record if the RQ looks empty.  Does not consume it.
 */
bool snic_rq_next_desc(SnicState *s, SnicRq *rq, struct snic_rx_desc *d)
{
    uint32_t rqn = rq - s->rqs;

    if (rq->error) {
        return false;
    }
    if (rq->pi == rq->ci) {
        __le32 dbr;
        uint16_t pi;

        if (d2d_dma_read(&s->parent_obj, &s->pcie, &rq->st.pcie, rq->dbr,
                         &dbr, sizeof(dbr)) != MEMTX_OK) {
            rq->error = true;
            snic_queue_error(s, SNIC_EQE_RQ_ERROR, rq->cqn, rqn,
                             "RQ doorbell record read failed");
            return false;
        }
        pi = le32_to_cpu(dbr);
        if ((uint16_t)(pi - rq->ci) > RING_SIZE(rq)) {
            s->stats.bad_db++;
            snic_raise_error(s, SNIC_ERR_DB_RANGE,
                             "RQ doorbell record beyond ring");
            return false;
        }
        rq->pi = pi;
        if (rq->pi == rq->ci) {
            return false;
        }
    }
    if (d2d_dma_read(&s->parent_obj, &s->pcie, &rq->st.pcie,
                     rq->ring + (rq->ci & RING_MASK(rq)) * sizeof(*d),
                     d, sizeof(*d)) != MEMTX_OK) {
        rq->error = true;
        snic_queue_error(s, SNIC_EQE_RQ_ERROR, rq->cqn, rqn,
                         "RQ descriptor read failed");
        return false;
    }
    return true;
}

static void snic_queue_line(GString *out, const char *kind, int n,
                            const SnicQueueStats *st, bool error)
{
    static const char *const names[] = { SNIC_QUEUE_STATS(SNIC_STAT_NAME) };
    const uint64_t *v = (const uint64_t *)st;
    size_t i;

    QEMU_BUILD_BUG_ON(ARRAY_SIZE(names) != SNIC_QUEUE_STAT_COUNT);
    g_string_append_printf(out, "%s %d%s:", kind, n, error ? " (error)" : "");
    for (i = 0; i < SNIC_QUEUE_STAT_COUNT; i++) {
        g_string_append_printf(out, " %s=%" PRIu64, names[i], v[i]);
    }
    g_string_append_c(out, ' ');
    d2d_pcie_counters_format(out, &st->pcie);
    g_string_append_c(out, '\n');
}

void snic_queue_stats_format(SnicState *s, GString *out)
{
    int i;

    for (i = 0; i < SNIC_MAX_SQS; i++) {
        if (s->sqs[i].valid) {
            snic_queue_line(out, "sq", i, &s->sqs[i].st, s->sqs[i].error);
        }
    }
    for (i = 0; i < SNIC_MAX_RQS; i++) {
        if (s->rqs[i].valid) {
            snic_queue_line(out, "rq", i, &s->rqs[i].st, s->rqs[i].error);
        }
    }
}
