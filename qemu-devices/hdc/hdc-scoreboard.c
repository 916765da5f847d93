/*
 * hdc: scoreboard - each D2D command becomes device commands of at most one
 * 64 KiB chunk: READ(i) (source -> BAR2 chunk), FUNC(i) (the chunk through
 * the function chain, in stream order) and WRITE(i) (output -> destination).
 * An entry is issued when its dependencies are done and its controller is
 * free: NVMe command slots, BAR2 chunks.  Many D2D commands are in flight;
 * the host queue posts their completions in submission order.
 *
 * Data layout: a READ of an SSD source reads whole blocks into its chunk,
 * the stream's bytes starting data_off into it (the skip of an extent's
 * first block), and ends its chunk where the next extent's skip would
 * break the contiguity.  FUNC appends its output to the command's output
 * FIFO and hands the chunk to WRITE(i), which takes up to 64 KiB of the
 * FIFO (whole blocks for an SSD destination; the rest waits for the next
 * chunk).  Once the last FUNC ran, extra WRITEs drain the FIFO; the last
 * one pads an SSD destination's final block with zeros.
 *
 * Hazards: a command that reads what an older command in flight writes,
 * or writes what it reads or writes (SSD blocks, host memory, the device
 * buffer), opens no chunk until every such older command is done; others
 * overlap freely.  Completions are in order anyway, so this only keeps
 * the data what submission order says it is.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qapi/error.h"
#include "hdc.h"
#include "hw/d2d/trace.h"

void hdc_sb_init(HdcState *s)
{
    QTAILQ_INIT(&s->jobs);
    hdc_chunk_pool_init(s);
}

void hdc_sb_free(HdcState *s)
{
    hdc_sb_drop_all(s);
    hdc_chunk_pool_free(s);
}

/* ---- entries ---- */

static HdcEntry *hdc_entry_new(HdcJob *job, HdcEntryType type, HdcDev dev)
{
    HdcEntry *e = g_new0(HdcEntry, 1);

    e->job = job;
    e->type = type;
    e->dev = dev;
    e->chunk = -1;
    QTAILQ_INSERT_TAIL(&job->entries, e, link);
    job->nentries++;
    return e;
}

/* Orphan the NVMe commands @e still has outstanding (reset, drop). */
static void hdc_entry_orphan(HdcState *s, HdcEntry *e)
{
    unsigned i;

    for (i = 0; e->pending && i < HDC_NVME_SLOTS; i++) {
        HdcNvmeSlot *slot = &s->nv.slots[i];

        if (slot->busy && slot->entry == e) {
            slot->entry = NULL;
            hdc_chunk_orphan_get(s, slot->chunk);
            e->pending--;
        }
    }
}

static void hdc_entry_free(HdcState *s, HdcEntry *e)
{
    HdcJob *job = e->job;

    if (e->dev == HDC_DEV_NIC) {
        hdc_nic_orphan(s, e);
    } else {
        hdc_entry_orphan(s, e);
    }
    hdc_chunk_put(s, e->chunk);
    QTAILQ_REMOVE(&job->entries, e, link);
    job->nentries--;
    g_free(e->runs);
    g_free(e);
}

static HdcDev hdc_ep_dev(uint8_t type)
{
    switch (type) {
    case HDC_EP_NVME:
        return HDC_DEV_NVME;
    case HDC_EP_HOST:
        return HDC_DEV_HOST;
    case HDC_EP_DEVBUF:
        return HDC_DEV_DEVBUF;
    case HDC_EP_NIC:
        return HDC_DEV_NIC;
    default:
        return HDC_DEV_NONE;
    }
}

static void hdc_job_fail(HdcJob *job, uint16_t status)
{
    if (job->status == HDC_ST_OK) {
        job->status = status;
    }
}

/* ---- D2D command setup ---- */

static uint16_t hdc_ep_extents(HdcState *s, HdcEp *ep, uint32_t count,
                               uint64_t addr, bool is_src, uint64_t need)
{
    struct hdc_extent raw[HDC_EXT_BATCH];
    uint32_t bs, i = 0, j;
    uint64_t total = 0;

    if (s->nv.state != HDC_NVME_RUNNING || s->nv.stopping) {
        return HDC_ST_ENODEV;
    }
    if (count > HDC_MAX_EXTENTS) {
        return HDC_ST_EINVAL;
    }
    bs = 1u << s->nv.lba_shift;
    ep->ext = g_new(HdcExtent, MAX(count, 1));
    while (i < count) {
        uint32_t n = MIN(HDC_EXT_BATCH, count - i);

        if (d2d_dma_read(&s->parent_obj, &s->pcie, NULL,
                         addr + (uint64_t)i * sizeof(raw[0]), raw,
                         n * sizeof(raw[0])) != MEMTX_OK) {
            s->stats.dma_errs++;
            return HDC_ST_EDMA;
        }
        for (j = 0; j < n; j++) {
            HdcExtent *x = &ep->ext[i + j];

            x->lba = le64_to_cpu(raw[j].lba);
            x->nlb = le32_to_cpu(raw[j].nlb);
            x->skip = le16_to_cpu(raw[j].skip);
            x->flags = le16_to_cpu(raw[j].flags);
            if ((x->flags & ~HDC_EXT_ZERO) || !x->nlb || x->skip >= bs) {
                return HDC_ST_EINVAL;
            }
            if (!is_src && (x->skip || x->flags)) {
                return HDC_ST_EINVAL;
            }
            if (!(x->flags & HDC_EXT_ZERO) &&
                (x->lba >= s->nv.nsze || x->nlb > s->nv.nsze - x->lba)) {
                return HDC_ST_ERANGE;
            }
            total += ((uint64_t)x->nlb << s->nv.lba_shift) - x->skip;
            if (total > (1ull << 62)) {
                return HDC_ST_EINVAL;
            }
            ep->n = i + j + 1;
            if (is_src && total >= need) {
                goto done;
            }
        }
        i += n;
    }
done:
    ep->cap = total;
    return is_src && total < need ? HDC_ST_EINVAL : HDC_ST_OK;
}

static uint16_t hdc_ep_setup(HdcState *s, HdcEp *ep,
                             const struct hdc_endpoint *e, bool is_src,
                             uint64_t need)
{
    uint32_t count = le32_to_cpu(e->count);
    uint64_t addr = le64_to_cpu(e->addr);

    ep->type = e->type;
    switch (e->type) {
    case HDC_EP_NONE:
        if (is_src) {
            return HDC_ST_EINVAL;
        }
        ep->cap = UINT64_MAX;
        return HDC_ST_OK;
    case HDC_EP_HOST:
        if (addr + count < addr) {
            return HDC_ST_EINVAL;
        }
        break;
    case HDC_EP_DEVBUF:
        if (addr > s->devbuf_size || count > s->devbuf_size - addr) {
            return HDC_ST_EINVAL;
        }
        break;
    case HDC_EP_NVME:
        return hdc_ep_extents(s, ep, count, addr, is_src, need);
    case HDC_EP_NIC:
        if (is_src) {
            if (!s->nicrx.enabled) {
                return HDC_ST_ENODEV;
            }
            ep->addr = addr;
            ep->cap = need;
            return HDC_ST_OK;
        }
        if (!s->nic.enabled) {
            return HDC_ST_ENODEV;
        }
        ep->addr = addr;
        ep->cap = UINT64_MAX;
        return HDC_ST_OK;
    default:
        D2D_GUEST_ERR(hdc_bad_ep_type, "unknown endpoint type %u", e->type);
        return HDC_ST_EINVAL;
    }
    ep->addr = addr;
    ep->cap = count;
    return is_src && count < need ? HDC_ST_EINVAL : HDC_ST_OK;
}

/* An HDC_EP_NIC destination's struct hdc_net_flow, read and checked. */
static uint16_t hdc_flow_setup(HdcState *s, HdcJob *job)
{
    struct hdc_net_flow f;
    HdcFlow *fl = &job->flow;
    const char *why = NULL;

    if (d2d_dma_read(&s->parent_obj, &s->pcie, NULL, job->dst.addr, &f,
                     sizeof(f)) != MEMTX_OK) {
        s->stats.dma_errs++;
        return HDC_ST_EDMA;
    }
    hdc_flow_load(fl, &f);
    if (f.proto == HDC_NET_TCP) {
        return hdc_tcp_flow_setup(s, job, &f);
    }
    if (f.proto != HDC_NET_UDP) {
        why = "protocol not UDP or TCP";
    } else if (le32_to_cpu(f.flags)) {
        why = "flags not 0";
    } else if (fl->l3_off < 14 || fl->l4_off < fl->l3_off + 20 ||
               fl->hdr_len != fl->l4_off + 8 ||
               fl->hdr_len > HDC_NET_HDR_MAX) {
        why = "header offsets or length";
    } else if (!fl->mss || fl->mss > HDC_NET_MSS_MAX) {
        why = "mss";
    }
    if (why) {
        D2D_GUEST_ERR(hdc_bad_flow, "%s", why);
        return HDC_ST_EINVAL;
    }
    memcpy(fl->hdr, f.hdr, fl->hdr_len);
    return HDC_ST_OK;
}

/* An HDC_EP_NIC source's struct hdc_net_rx, read and checked. */
static uint16_t hdc_rx_setup(HdcState *s, HdcJob *job)
{
    struct hdc_net_rx r;
    HdcRx *rx = &job->rx;
    const char *why = NULL;

    if (d2d_dma_read(&s->parent_obj, &s->pcie, NULL, job->src.addr, &r,
                     offsetof(struct hdc_net_rx, received)) != MEMTX_OK) {
        s->stats.dma_errs++;
        return HDC_ST_EDMA;
    }
    if (r.proto != HDC_NET_UDP && r.proto != HDC_NET_TCP) {
        why = "protocol not UDP or TCP";
    } else if (le32_to_cpu(r.flags) &
               ~(r.proto == HDC_NET_TCP ? HDC_NET_RX_F_FIN : 0)) {
        why = "unknown flags";
    } else if (!r.dst_port) {
        why = "no destination port";
    } else if (r.proto == HDC_NET_TCP &&
               (!r.dst_ip || !r.src_ip || !r.src_port)) {
        why = "TCP receive without both addresses and ports";
    }
    if (why) {
        D2D_GUEST_ERR(hdc_bad_flow, "%s", why);
        return HDC_ST_EINVAL;
    }
    rx->dst_ip = be32_to_cpu(r.dst_ip);
    rx->src_ip = be32_to_cpu(r.src_ip);
    rx->dst_port = be16_to_cpu(r.dst_port);
    rx->src_port = be16_to_cpu(r.src_port);
    rx->tcp = r.proto == HDC_NET_TCP;
    if (rx->tcp) {
        rx->fin = le32_to_cpu(r.flags) & HDC_NET_RX_F_FIN;
        rx->prefix_addr = le32_to_cpu(r.prefix_lo) |
                          (uint64_t)le32_to_cpu(r.prefix_hi) << 32;
        rx->prefix_len = MIN(le32_to_cpu(r.prefix_len), job->length);
        return hdc_tcp_rx_setup(s, job, job->src.addr + sizeof(r));
    }
    return HDC_ST_OK;
}

static uint16_t hdc_job_setup(HdcState *s, HdcJob *job,
                              const struct hdc_cmd *cmd)
{
    struct hdc_aux aux = { 0 };
    Error *err = NULL;
    uint16_t st;
    unsigned i;

    switch (cmd->opcode) {
    case HDC_OP_NOP:
        return HDC_ST_OK;
    case HDC_OP_TRANSFER:
        break;
    default:
        D2D_GUEST_ERR(hdc_bad_opcode, "unknown opcode 0x%x", cmd->opcode);
        return HDC_ST_EINVAL;
    }
    if (le32_to_cpu(cmd->flags) || cmd->nfuncs > HDC_MAX_FUNCS) {
        return HDC_ST_EINVAL;
    }
    job->nfuncs = cmd->nfuncs;
    for (i = 0; i < job->nfuncs; i++) {
        job->funcs[i] = cmd->funcs[i];
        if (!job->funcs[i] || job->funcs[i] > HDC_FN_MAX) {
            D2D_GUEST_ERR(hdc_bad_func, "unknown function %u",
                          job->funcs[i]);
            return HDC_ST_EINVAL;
        }
    }
    job->length = le64_to_cpu(cmd->length);
    job->aux_addr = le64_to_cpu(cmd->aux_addr);
    if (hdc_func_needs_aux(job->funcs, job->nfuncs)) {
        if (!job->aux_addr) {
            return HDC_ST_EINVAL;
        }
        if (d2d_dma_read(&s->parent_obj, &s->pcie, NULL, job->aux_addr,
                         &aux, offsetof(struct hdc_aux, digest)) !=
            MEMTX_OK) {
            s->stats.dma_errs++;
            return HDC_ST_EDMA;
        }
    }
    st = hdc_ep_setup(s, &job->src, &cmd->src, true, job->length);
    if (st != HDC_ST_OK) {
        return st;
    }
    st = hdc_ep_setup(s, &job->dst, &cmd->dst, false, 0);
    if (st != HDC_ST_OK) {
        return st;
    }
    if (job->src.type == HDC_EP_NIC) {
        st = hdc_rx_setup(s, job);
        if (st != HDC_ST_OK) {
            return st;
        }
    }
    if (job->dst.type == HDC_EP_NIC) {
        st = hdc_flow_setup(s, job);
        if (st != HDC_ST_OK) {
            return st;
        }
    }
    if (!hdc_func_resizes(job->funcs, job->nfuncs) &&
        job->length > job->dst.cap) {
        return HDC_ST_ENOSPC;
    }
    if (job->nfuncs) {
        job->fc = hdc_func_new(job->funcs, job->nfuncs, &aux, &err);
        if (!job->fc) {
            D2D_GUEST_ERR(hdc_bad_func_chain, "%s", error_get_pretty(err));
            error_free(err);
            return HDC_ST_EINVAL;
        }
    }
    return HDC_ST_OK;
}

/* ---- hazards ---- */

static gint hdc_range_cmp(gconstpointer a, gconstpointer b)
{
    const HdcRange *x = a, *y = b;

    if (x->space != y->space) {
        return x->space < y->space ? -1 : 1;
    }
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The bytes @ep touches (a source: its first @len), appended to @out. */
static void hdc_ep_ranges(HdcState *s, const HdcEp *ep, bool is_src,
                          uint64_t len, GArray *out)
{
    HdcRange r = { .space = hdc_ep_dev(ep->type) };
    uint32_t i;

    switch (ep->type) {
    case HDC_EP_NVME:
        for (i = 0; i < ep->n; i++) {
            const HdcExtent *x = &ep->ext[i];

            if (x->flags & HDC_EXT_ZERO) {
                continue;
            }
            r.lo = x->lba << s->nv.lba_shift;
            r.hi = r.lo + ((uint64_t)x->nlb << s->nv.lba_shift);
            g_array_append_val(out, r);
        }
        break;
    case HDC_EP_HOST:
    case HDC_EP_DEVBUF:
        r.lo = ep->addr;
        r.hi = ep->addr + (is_src ? MIN(len, ep->cap) : ep->cap);
        if (r.hi > r.lo) {
            g_array_append_val(out, r);
        }
        break;
    }
}

/* Sort and merge: one range per run of touching or overlapping ones. */
static GArray *hdc_ranges_finish(GArray *a)
{
    guint i, n = 0;

    if (!a->len) {
        g_array_free(a, true);
        return NULL;
    }
    g_array_sort(a, hdc_range_cmp);
    for (i = 1; i < a->len; i++) {
        HdcRange *last = &g_array_index(a, HdcRange, n);
        HdcRange *r = &g_array_index(a, HdcRange, i);

        if (r->space == last->space && r->lo <= last->hi) {
            last->hi = MAX(last->hi, r->hi);
        } else {
            g_array_index(a, HdcRange, ++n) = *r;
        }
    }
    g_array_set_size(a, n + 1);
    return a;
}

static void hdc_job_ranges(HdcState *s, HdcJob *job)
{
    GArray *rd = g_array_new(false, false, sizeof(HdcRange));
    GArray *wr = g_array_new(false, false, sizeof(HdcRange));

    hdc_ep_ranges(s, &job->src, true, job->length, rd);
    hdc_ep_ranges(s, &job->dst, false, 0, wr);
    job->rd_ranges = hdc_ranges_finish(rd);
    job->wr_ranges = hdc_ranges_finish(wr);
}

/* Do two sorted, merged range lists share a byte? */
static bool hdc_ranges_overlap(const GArray *a, const GArray *b)
{
    guint i = 0, j = 0;

    while (a && b && i < a->len && j < b->len) {
        const HdcRange *x = &g_array_index(a, HdcRange, i);
        const HdcRange *y = &g_array_index(b, HdcRange, j);

        if (x->space != y->space) {
            if (x->space < y->space) {
                i++;
            } else {
                j++;
            }
        } else if (x->hi <= y->lo) {
            i++;
        } else if (y->hi <= x->lo) {
            j++;
        } else {
            return true;
        }
    }
    return false;
}

static bool hdc_jobs_conflict(const HdcJob *young, const HdcJob *old)
{
    return hdc_ranges_overlap(young->rd_ranges, old->wr_ranges) ||
           hdc_ranges_overlap(young->wr_ranges, old->rd_ranges) ||
           hdc_ranges_overlap(young->wr_ranges, old->wr_ranges);
}

/*
 * May @job start?  Not while an older command it conflicts with is not
 * done.  While it waits, the youngest such command (job->after) is looked
 * up by seq first; only when that one is done or gone is the rest of the
 * queue checked again.
 */
static bool hdc_job_hazard_clear(HdcState *s, HdcJob *job)
{
    HdcJob *k;

    if (job->hazard_checked) {
        return true;
    }
    if (job->waits) {
        for (k = QTAILQ_PREV(job, link); k && k->seq >= job->after;
             k = QTAILQ_PREV(k, link)) {
            if (k->seq == job->after && !k->done) {
                return false;
            }
        }
    }
    for (k = QTAILQ_PREV(job, link); k; k = QTAILQ_PREV(k, link)) {
        if (!k->done && hdc_jobs_conflict(job, k)) {
            if (!job->waits) {
                s->stats.hazard_waits++;
                job->waits = true;
            }
            job->after = k->seq;
            return false;
        }
    }
    job->waits = false;
    job->hazard_checked = true;
    return true;
}

HdcJob *hdc_job_new(HdcState *s, const struct hdc_cmd *cmd)
{
    HdcJob *job = g_new0(HdcJob, 1);

    job->seq = s->next_seq++;
    job->cmd_id = le16_to_cpu(cmd->cmd_id);
    job->opcode = cmd->opcode;
    QTAILQ_INIT(&job->entries);
    job->fifo = g_byte_array_new();
    job->status = hdc_job_setup(s, job, cmd);
    if (job->status != HDC_ST_OK || job->opcode == HDC_OP_NOP) {
        job->done = true;
    } else {
        hdc_job_ranges(s, job);
    }
    return job;
}

void hdc_job_free(HdcState *s, HdcJob *job)
{
    HdcEntry *e, *next;

    if (s->tcp.job == job) {
        s->tcp.job = NULL;      /* dropped by a reset */
    }
    if (s->tcprx.job == job) {
        s->tcprx.job = NULL;
    }
    QTAILQ_FOREACH_SAFE(e, &job->entries, link, next) {
        hdc_entry_free(s, e);
    }
    g_free(job->src.ext);
    g_free(job->dst.ext);
    if (job->rd_ranges) {
        g_array_free(job->rd_ranges, true);
    }
    if (job->wr_ranges) {
        g_array_free(job->wr_ranges, true);
    }
    hdc_func_free(job->fc);
    g_byte_array_free(job->fifo, true);
    g_free(job);
}

void hdc_sb_drop_all(HdcState *s)
{
    HdcJob *job, *next;

    QTAILQ_FOREACH_SAFE(job, &s->jobs, link, next) {
        QTAILQ_REMOVE(&s->jobs, job, link);
        hdc_job_free(s, job);
    }
    s->njobs = 0;
}

/* ---- chunks and runs ---- */

/* The next chunk of an SSD source: whole blocks, one run per command. */
static void hdc_read_runs(HdcState *s, HdcJob *job, HdcEntry *r)
{
    HdcEp *ep = &job->src;
    uint32_t shift = s->nv.lba_shift, bs = 1u << shift;
    uint32_t max_blk = s->nv.max_xfer >> shift;
    uint64_t need = job->length - job->rd_pos, got = 0;
    uint32_t buf = 0;
    bool first = true;

    r->runs = g_new(HdcRun, HDC_CHUNK_SIZE >> shift);
    while (got < need && ep->next < ep->n) {
        HdcExtent *x = &ep->ext[ep->next];
        uint32_t head = ep->blk == 0 ? x->skip : 0;
        uint64_t nblk;
        HdcRun *run;

        if (!first && head) {
            break;      /* the skipped bytes would split the data */
        }
        if (HDC_CHUNK_SIZE - buf < bs) {
            break;
        }
        nblk = MIN(x->nlb - ep->blk, (HDC_CHUNK_SIZE - buf) >> shift);
        nblk = MIN(nblk, DIV_ROUND_UP(need - got + head, bs));
        nblk = MIN(nblk, max_blk);
        if (first) {
            r->data_off = head;
        }
        run = &r->runs[r->nruns++];
        run->lba = x->lba + ep->blk;
        run->nlb = nblk;
        run->off = buf;
        run->zero = x->flags & HDC_EXT_ZERO;
        got += MIN((nblk << shift) - head, need - got);
        buf += nblk << shift;
        ep->blk += nblk;
        if (ep->blk == x->nlb) {
            ep->next++;
            ep->blk = 0;
        }
        first = false;
    }
    r->len = got;
}

/* The blocks of an SSD destination that WRITE @w's @plen bytes go to. */
static void hdc_write_runs(HdcState *s, HdcJob *job, HdcEntry *w,
                           uint32_t plen)
{
    HdcEp *ep = &job->dst;
    uint32_t shift = s->nv.lba_shift;
    uint32_t max_blk = s->nv.max_xfer >> shift;
    uint32_t blocks = plen >> shift, off = 0;

    w->runs = g_new(HdcRun, MAX(blocks, 1));
    while (blocks && ep->next < ep->n) {
        HdcExtent *x = &ep->ext[ep->next];
        uint32_t nblk = MIN(MIN(x->nlb - ep->blk, blocks), max_blk);
        HdcRun *run = &w->runs[w->nruns++];

        run->lba = x->lba + ep->blk;
        run->nlb = nblk;
        run->off = off;
        run->zero = false;
        off += nblk << shift;
        blocks -= nblk;
        ep->blk += nblk;
        if (ep->blk == x->nlb) {
            ep->next++;
            ep->blk = 0;
        }
    }
}

/* READ(i), FUNC(i) and WRITE(i) of the next chunk of the source. */
static void hdc_job_open_chunk(HdcState *s, HdcJob *job)
{
    HdcEntry *r, *f, *w = NULL;

    r = hdc_entry_new(job, HDC_E_READ, hdc_ep_dev(job->src.type));
    r->idx = job->chunks;
    r->pos = job->rd_pos;
    if (job->src.type == HDC_EP_NVME) {
        hdc_read_runs(s, job, r);
    } else {
        r->len = MIN(HDC_CHUNK_SIZE, job->length - job->rd_pos);
    }
    job->rd_pos += r->len;
    r->last = job->rd_pos == job->length;
    r->state = HDC_ES_READY;
    if (!r->last && !r->len) {
        /* Cannot happen with a validated source; never spin on it. */
        hdc_job_fail(job, HDC_ST_EINVAL);
        r->last = true;
    }
    job->all_read = r->last;

    f = hdc_entry_new(job, HDC_E_FUNC, HDC_DEV_FUNC);
    f->idx = job->chunks;
    f->last = r->last;
    f->read = r;
    f->state = HDC_ES_WAIT;
    if (job->dst.type != HDC_EP_NONE) {
        w = hdc_entry_new(job, HDC_E_WRITE, hdc_ep_dev(job->dst.type));
        w->idx = job->writes++;
        w->state = HDC_ES_WAIT;
    }
    f->write = w;
    job->chunks++;
    job->reads_open++;
}

/* ---- issuing ---- */

static void hdc_entry_complete(HdcState *s, HdcEntry *e)
{
    HdcJob *job = e->job;

    if (e->type == HDC_E_WRITE) {
        if (job->status == HDC_ST_OK) {
            job->written += e->len;
        }
        hdc_entry_free(s, e);
    } else {
        e->state = HDC_ES_DONE;
    }
}

/* Hand @e's remaining runs to the NVMe controller; true if any went. */
static bool hdc_entry_submit(HdcState *s, HdcEntry *e)
{
    HdcJob *job = e->job;
    bool progress = false;

    if (e->dev == HDC_DEV_NIC) {
        int r = job->status != HDC_ST_OK ? 0 :
                job->flow.proto == HDC_NET_TCP ? hdc_tcp_submit(s, e) :
                hdc_nic_submit(s, e);

        if (r < 0) {
            hdc_job_fail(job, HDC_ST_ENET);
        }
        progress = r > 0;
        if (job->status != HDC_ST_OK) {
            e->next_run = e->nruns;
        }
        if (e->next_run == e->nruns && !e->pending &&
            hdc_tcp_acked(s, e)) {
            hdc_entry_complete(s, e);
            progress = true;
        }
        return progress;
    }

    while (e->next_run < e->nruns && job->status == HDC_ST_OK) {
        HdcRun *run = &e->runs[e->next_run];
        int r;

        if (run->zero) {
            memset(hdc_chunk_ptr(s, e->chunk) + run->off, 0,
                   (size_t)run->nlb << s->nv.lba_shift);
            e->next_run++;
            progress = true;
            continue;
        }
        r = hdc_nvme_submit(s, e, run, e->type == HDC_E_WRITE);
        if (r == 0) {
            break;      /* no free command slot: later */
        }
        if (r < 0) {
            hdc_job_fail(job, HDC_ST_ENVME);
            break;
        }
        e->next_run++;
        e->pending++;
        progress = true;
    }
    if (job->status != HDC_ST_OK) {
        e->next_run = e->nruns;
    }
    if (e->next_run == e->nruns && !e->pending) {
        hdc_entry_complete(s, e);
        progress = true;
    }
    return progress;
}

void hdc_sb_nvme_done(HdcState *s, HdcEntry *e, bool ok)
{
    HdcJob *job = e->job;

    e->pending--;
    if (!ok) {
        hdc_job_fail(job, HDC_ST_ENVME);
        e->next_run = e->nruns;
    }
    if (!e->pending && e->next_run == e->nruns) {
        hdc_entry_complete(s, e);
    }
}

void hdc_sb_nic_done(HdcState *s, HdcEntry *e, bool ok)
{
    if (!ok) {
        hdc_job_fail(e->job, HDC_ST_ENET);
        e->next_run = e->nruns;
    }
    if (!e->pending && e->next_run == e->nruns &&
        (e->job->status != HDC_ST_OK || hdc_tcp_acked(s, e))) {
        hdc_entry_complete(s, e);
    }
}

static bool hdc_issue_read(HdcState *s, HdcJob *job, HdcEntry *r)
{
    uint8_t *p;

    r->chunk = hdc_chunk_alloc(s, job);
    if (r->chunk < 0) {
        return false;
    }
    p = hdc_chunk_ptr(s, r->chunk);
    s->stats.dev_cmds++;
    switch (r->dev) {
    case HDC_DEV_HOST:
        s->budget -= r->len;
        if (r->len && d2d_dma_read(&s->parent_obj, &s->pcie, NULL,
                                   job->src.addr + r->pos, p, r->len) !=
            MEMTX_OK) {
            s->stats.dma_errs++;
            hdc_job_fail(job, HDC_ST_EDMA);
        }
        r->state = HDC_ES_DONE;
        return true;
    case HDC_DEV_DEVBUF:
        s->budget -= r->len;
        memcpy(p, s->buf_ptr + job->src.addr + r->pos, r->len);
        r->state = HDC_ES_DONE;
        return true;
    case HDC_DEV_NIC:
        /* Received datagrams fill it (hdc_sb_rx_deliver). */
        r->state = r->len ? HDC_ES_ISSUE : HDC_ES_DONE;
        if (s->nicrx.waiting) {
            hdc_kick(s);
        }
        return true;
    default:
        r->state = HDC_ES_ISSUE;
        hdc_entry_submit(s, r);
        return true;
    }
}

static bool hdc_issue_write(HdcState *s, HdcJob *job, HdcEntry *w)
{
    uint8_t *p = hdc_chunk_ptr(s, w->chunk);

    s->stats.dev_cmds++;
    switch (w->dev) {
    case HDC_DEV_HOST:
        s->budget -= w->len;
        if (d2d_dma_write(&s->parent_obj, &s->pcie, NULL,
                          job->dst.addr + w->pos, p, w->len) != MEMTX_OK) {
            s->stats.dma_errs++;
            hdc_job_fail(job, HDC_ST_EDMA);
        }
        hdc_entry_complete(s, w);
        return true;
    case HDC_DEV_DEVBUF:
        s->budget -= w->len;
        memcpy(s->buf_ptr + job->dst.addr + w->pos, p, w->len);
        hdc_entry_complete(s, w);
        return true;
    default:
        w->state = HDC_ES_ISSUE;
        hdc_entry_submit(s, w);
        return true;
    }
}

/*
 * Give WRITE @w up to a chunk of the output FIFO in @chunk: whole blocks
 * for an SSD unless this is the end of the output, which is padded.
 */
static void hdc_write_prepare(HdcState *s, HdcJob *job, HdcEntry *w,
                              int32_t chunk)
{
    uint32_t n = MIN(job->fifo->len, HDC_CHUNK_SIZE), plen = n;
    bool final = job->funcs_done && n == job->fifo->len;
    uint8_t *p = hdc_chunk_ptr(s, chunk);

    w->chunk = chunk;
    if (job->dst.type == HDC_EP_NVME) {
        uint32_t bs = 1u << s->nv.lba_shift;

        if (!final) {
            n &= ~(bs - 1);
        }
        plen = ROUND_UP(n, bs);
    } else if (job->dst.type == HDC_EP_NIC && !final) {
        n -= n % job->flow.mss;     /* whole datagrams */
        plen = n;
    }
    if (!n) {
        hdc_entry_free(s, w);
        return;
    }
    if (n > job->dst.cap || job->out_pos > job->dst.cap - n) {
        hdc_job_fail(job, HDC_ST_ENOSPC);
        hdc_entry_free(s, w);
        return;
    }
    memcpy(p, job->fifo->data, n);
    memset(p + n, 0, plen - n);
    g_byte_array_remove_range(job->fifo, 0, n);
    w->len = n;
    w->pos = job->out_pos;
    job->out_pos += n;
    if (job->dst.type == HDC_EP_NVME) {
        hdc_write_runs(s, job, w, plen);
    } else if (job->dst.type == HDC_EP_NIC) {
        w->nruns = DIV_ROUND_UP(n, job->flow.mss);
    }
    w->state = HDC_ES_READY;
}

static void hdc_run_func(HdcState *s, HdcJob *job, HdcEntry *f)
{
    HdcEntry *r = f->read, *w = f->write;
    size_t before = job->fifo->len;
    Error *err = NULL;
    int32_t chunk;

    s->stats.dev_cmds++;
    s->budget -= r->len;
    if (job->fc) {
        s->stats.fn_bytes += r->len;
        /* timing mode: the chain's units process the chunk */
        d2d_timing_ndp(&s->timing, r->len);
    }
    if (!hdc_func_run(job->fc, hdc_chunk_ptr(s, r->chunk) + r->data_off,
                      r->len, f->last, job->fifo, &err)) {
        D2D_GUEST_ERR(hdc_func_failed, "%s", error_get_pretty(err));
        error_free(err);
        hdc_job_fail(job, HDC_ST_EINVAL);
    }
    job->produced += job->fifo->len - before;
    chunk = r->chunk;
    r->chunk = -1;
    hdc_entry_free(s, r);
    job->reads_open--;
    job->func_next++;
    if (f->last) {
        job->funcs_done = true;
    }
    hdc_entry_free(s, f);
    if (!w || job->status != HDC_ST_OK) {
        g_byte_array_set_size(job->fifo, 0);
        hdc_chunk_put(s, chunk);
        if (w) {
            hdc_entry_free(s, w);
        }
        return;
    }
    hdc_write_prepare(s, job, w, chunk);
}

/* ---- receiving (HDC_EP_NIC sources) ---- */

/* The receive's report into its struct hdc_net_rx, before completion. */
static void hdc_rx_report(HdcState *s, HdcJob *job)
{
    struct hdc_net_rx r;
    size_t off = offsetof(struct hdc_net_rx, received);

    r.received = cpu_to_le64(job->rx.next);
    r.gap_lo = cpu_to_le64(job->rx.gap_lo);
    r.gap_hi = cpu_to_le64(job->rx.gap_hi);
    r.datagrams = cpu_to_le32(job->rx.dgrams);
    r.dropped = cpu_to_le32(job->rx.dropped);
    if (d2d_dma_write(&s->parent_obj, &s->pcie, NULL, job->src.addr + off,
                      (uint8_t *)&r + off, sizeof(r) - off) != MEMTX_OK) {
        s->stats.dma_errs++;
        hdc_job_fail(job, HDC_ST_EDMA);
    }
}

/* The command receiving now: the oldest live one with a NIC source. */
static HdcJob *hdc_rx_job(HdcState *s)
{
    HdcJob *job;

    QTAILQ_FOREACH(job, &s->jobs, link) {
        if (job->src.type == HDC_EP_NIC && !job->done &&
            job->status == HDC_ST_OK && !job->all_read_rx) {
            return job;
        }
    }
    return NULL;
}

/* Is @d of the receive's flow? */
static bool hdc_rx_match(const HdcRx *rx, const HdcRxDgram *d)
{
    return d->proto == (rx->tcp ? HDC_NET_TCP : HDC_NET_UDP) &&
           d->dst_port == rx->dst_port &&
           (!rx->dst_ip || d->dst_ip == rx->dst_ip) &&
           (!rx->src_ip || d->src_ip == rx->src_ip) &&
           (!rx->src_port || d->src_port == rx->src_port);
}

static int hdc_rx_place(HdcState *s, HdcJob *job, uint64_t off,
                        const uint8_t *data, uint32_t len);

/*
 * The peer's FIN after byte @n (rx.next) of a TCP receive: the stream
 * ends there.  READ entries past it go (with their FUNC and WRITE), the
 * one holding byte n - 1 (or one opened at n, empty) becomes the last.
 */
static void hdc_rx_end_at(HdcState *s, HdcJob *job)
{
    uint64_t n = job->rx.next;
    HdcEntry *e, *next, *last = NULL;

    job->length = n;
    job->all_read_rx = true;
    QTAILQ_FOREACH(e, &job->entries, link) {
        if (e->type == HDC_E_READ && e->pos <= n && e->pos + e->len > n) {
            last = e;           /* holds byte n, or is at n */
        }
    }
    if (!last) {
        QTAILQ_FOREACH(e, &job->entries, link) {
            if (e->type == HDC_E_READ && e->pos == n) {
                last = e;
            }
        }
    }
again:
    QTAILQ_FOREACH(e, &job->entries, link) {
        if (e->type == HDC_E_FUNC && e->read != last && e->read->pos >= n) {
            if (e->write) {
                hdc_entry_free(s, e->write);
            }
            hdc_entry_free(s, e);
            goto again;     /* the walk's next entry may have gone */
        }
    }
    QTAILQ_FOREACH_SAFE(e, &job->entries, link, next) {
        if (e->type == HDC_E_READ && e != last && e->pos >= n) {
            hdc_entry_free(s, e);
            job->reads_open--;
        }
    }
    if (last) {
        last->len = n - last->pos;
        last->last = true;
        if (last->state == HDC_ES_ISSUE) {
            last->state = HDC_ES_DONE;
        }
        QTAILQ_FOREACH(e, &job->entries, link) {
            if (e->type == HDC_E_FUNC && e->read == last) {
                e->last = true;
            }
        }
        job->all_read = true;
    } else {
        /* Nothing open at n: the next READ opened is empty and last. */
        job->all_read = false;
    }
    job->rd_pos = n;
}

/*
 * Segment @d of TCP receive @job: its new bytes placed in order, an
 * out-of-order or old one dropped (the ACKs due are hdc-tcp-rx.c's), an
 * RST failing the receive, a FIN ending the stream.
 */
static int hdc_rx_deliver_tcp(HdcState *s, HdcJob *job, const HdcRxDgram *d)
{
    HdcTcpSeg g;
    int r = HDC_RX_PLACED;

    if (job->rx.next < job->rx.prefix_len) {
        return HDC_RX_WAIT;     /* the prefix goes first */
    }
    switch (hdc_tcp_rx_seg(s, job, d, &g)) {
    case HDC_TCP_SEG_RESET:
        hdc_job_fail(job, HDC_ST_ECONNRESET);
        hdc_kick(s);
        return HDC_RX_DROPPED;
    case HDC_TCP_SEG_DROP:
        job->rx.dropped++;
        return HDC_RX_DROPPED;
    }
    if (g.len) {
        r = hdc_rx_place(s, job, g.off, d->data + g.skip, g.len);
        if (r == HDC_RX_WAIT) {
            return r;
        }
        job->rx.dgrams++;
    }
    if (hdc_tcp_rx_took(s, job, d) && !job->all_read_rx) {
        hdc_rx_end_at(s, job);
        hdc_kick(s);
    }
    return r;
}

/*
 * Place datagram @d of the receiving command: its payload goes into the
 * chunks of the READ entries it covers, in offset order only (a TCP
 * receive's segments: hdc_rx_deliver_tcp).  A
 * datagram past the next expected byte ends the command with
 * HDC_ST_EGAP; one before it (a duplicate) or outside the command's
 * range is dropped and counted.  NULL: a bad frame, counted.
 */
int hdc_sb_rx_deliver(HdcState *s, const HdcRxDgram *d)
{
    HdcJob *job = hdc_rx_job(s);
    HdcRx *rx;

    if (!job) {
        return HDC_RX_DROPPED;
    }
    rx = &job->rx;
    if (d && rx->tcp && hdc_rx_match(rx, d)) {
        return hdc_rx_deliver_tcp(s, job, d);
    }
    if (!d || !hdc_rx_match(rx, d) || d->off >= job->length ||
        d->len > job->length - d->off || d->off < rx->next) {
        rx->dropped++;
        return HDC_RX_DROPPED;
    }
    if (d->off > rx->next) {
        rx->gap_lo = rx->next;
        rx->gap_hi = d->off;
        rx->dropped++;
        D2D_GUEST_ERR(hdc_nic_rx_gap, "bytes %" PRIu64 "..%" PRIu64
                      " missing", rx->gap_lo, rx->gap_hi);
        hdc_job_fail(job, HDC_ST_EGAP);
        hdc_kick(s);
        return HDC_RX_DROPPED;
    }
    if (hdc_rx_place(s, job, d->off, d->data, d->len) == HDC_RX_WAIT) {
        return HDC_RX_WAIT;
    }
    rx->dgrams++;
    return HDC_RX_PLACED;
}

/*
 * A TCP receive's prefix (bytes the socket had taken in) from host memory
 * into the stream, as far as its READ entries are open; with
 * HDC_NET_RX_F_FIN the stream ends after it.
 */
static void hdc_rx_prefix(HdcState *s, HdcJob *job)
{
    HdcRx *rx = &job->rx;
    uint8_t buf[4096];

    while (rx->next < rx->prefix_len && job->status == HDC_ST_OK) {
        uint32_t n = MIN(sizeof(buf), rx->prefix_len - rx->next);

        if (d2d_dma_read(&s->parent_obj, &s->pcie, NULL,
                         rx->prefix_addr + rx->next, buf, n) != MEMTX_OK) {
            s->stats.dma_errs++;
            hdc_job_fail(job, HDC_ST_EDMA);
            return;
        }
        if (hdc_rx_place(s, job, rx->next, buf, n) == HDC_RX_WAIT) {
            return;
        }
    }
    if (rx->next == rx->prefix_len && rx->fin && !job->all_read_rx) {
        hdc_tcp_rx_fin(s, job);
        hdc_rx_end_at(s, job);
    }
}

/*
 * Copy @len received bytes at stream offset @off (the next expected byte)
 * into the chunks of the READ entries they cover; HDC_RX_WAIT if one of
 * those has no chunk yet.
 */
static int hdc_rx_place(HdcState *s, HdcJob *job, uint64_t off,
                        const uint8_t *data, uint32_t len)
{
    HdcRx *rx = &job->rx;
    HdcEntry *e;
    uint64_t end = off + len;

    /* Every READ it covers must hold its chunk before any byte moves. */
    QTAILQ_FOREACH(e, &job->entries, link) {
        if (e->type == HDC_E_READ && e->pos < end &&
            e->pos + e->len > off && e->state != HDC_ES_ISSUE) {
            return HDC_RX_WAIT;
        }
    }
    if (job->rd_pos < end) {
        return HDC_RX_WAIT;     /* its READ is not open yet */
    }
    QTAILQ_FOREACH(e, &job->entries, link) {
        uint64_t lo, hi;

        if (e->type != HDC_E_READ || e->pos >= end ||
            e->pos + e->len <= off) {
            continue;
        }
        lo = MAX(e->pos, off);
        hi = MIN(e->pos + e->len, end);
        memcpy(hdc_chunk_ptr(s, e->chunk) + (lo - e->pos),
               data + (lo - off), hi - lo);
        s->budget -= hi - lo;
        if (hi == e->pos + e->len) {
            e->state = HDC_ES_DONE;
        }
    }
    rx->next = end;
    if (end == job->length) {
        job->all_read_rx = true;
    }
    hdc_kick(s);
    return HDC_RX_PLACED;
}

/* Every command with a NIC source fails with @status (queues gone, abort). */
void hdc_sb_rx_fail(HdcState *s, uint16_t status)
{
    HdcJob *job;

    QTAILQ_FOREACH(job, &s->jobs, link) {
        if (job->src.type == HDC_EP_NIC && !job->done) {
            hdc_job_fail(job, status);
        }
    }
    hdc_kick(s);
}

/*
 * One pass over a command's entries; true if anything changed.  Issuing
 * or running an entry may free others, so the walk restarts after each.
 */
static bool hdc_job_step(HdcState *s, HdcJob *job)
{
    HdcEntry *e;
    bool progress = false;

    if (job->done || !hdc_job_hazard_clear(s, job)) {
        return false;
    }
    while (job->status == HDC_ST_OK && !job->all_read &&
           job->reads_open < HDC_READ_WINDOW) {
        hdc_job_open_chunk(s, job);
        progress = true;
    }
again:
    QTAILQ_FOREACH(e, &job->entries, link) {
        if (s->budget <= 0) {
            return progress;
        }
        if (job->status != HDC_ST_OK) {
            /* Failed: drop what is not waiting for the SSD. */
            if (!e->pending) {
                hdc_entry_free(s, e);
                progress = true;
                goto again;
            }
            continue;
        }
        switch (e->state) {
        case HDC_ES_READY:
            if (e->type == HDC_E_READ ? hdc_issue_read(s, job, e) :
                hdc_issue_write(s, job, e)) {
                progress = true;
                goto again;
            }
            break;
        case HDC_ES_ISSUE:
            if (e->next_run < e->nruns && hdc_entry_submit(s, e)) {
                progress = true;
                goto again;
            }
            break;
        case HDC_ES_WAIT:
            if (e->type == HDC_E_FUNC && e->read->state == HDC_ES_DONE &&
                job->func_next == e->idx) {
                hdc_run_func(s, job, e);
                progress = true;
                goto again;
            }
            break;
        }
    }
    if (job->src.type == HDC_EP_NIC && job->rx.tcp && !job->all_read_rx &&
        job->rx.next <= job->rx.prefix_len && job->status == HDC_ST_OK) {
        uint64_t before = job->rx.next;

        hdc_rx_prefix(s, job);
        progress |= job->rx.next != before || job->all_read_rx;
    }
    /* Output beyond the per-chunk WRITEs: drain it with extra WRITEs. */
    while (job->status == HDC_ST_OK && job->funcs_done && job->fifo->len &&
           job->dst.type != HDC_EP_NONE && s->budget > 0) {
        int32_t chunk = hdc_chunk_alloc(s, job);

        if (chunk < 0) {
            break;
        }
        e = hdc_entry_new(job, HDC_E_WRITE, hdc_ep_dev(job->dst.type));
        e->idx = job->writes++;
        hdc_write_prepare(s, job, e, chunk);
        progress = true;
    }
    if (QTAILQ_EMPTY(&job->entries) &&
        (job->status != HDC_ST_OK ||
         (job->funcs_done && !job->fifo->len))) {
        if (job->src.type == HDC_EP_NIC) {
            hdc_tcp_rx_job_end(s, job);
            hdc_rx_report(s, job);
        }
        job->done = true;
        hdc_tcp_job_end(s, job);
        progress = true;
    }
    return progress;
}

void hdc_sb_run(HdcState *s)
{
    HdcJob *job;
    bool progress;

    s->budget = HDC_PASS_BUDGET;
    do {
        progress = false;
        s->chunk_starved = false;
        QTAILQ_FOREACH(job, &s->jobs, link) {
            progress |= hdc_job_step(s, job);
            if (s->budget <= 0) {
                /* Let the rest of QEMU run; continue in the next pass. */
                hdc_kick(s);
                return;
            }
        }
    } while (progress);
}

/* ---- dump ---- */

static const char *hdc_dev_name(uint8_t dev)
{
    static const char *const names[] = {
        [HDC_DEV_NONE] = "none", [HDC_DEV_NVME] = "nvme",
        [HDC_DEV_HOST] = "host", [HDC_DEV_DEVBUF] = "devbuf",
        [HDC_DEV_FUNC] = "func",
    };

    return dev < ARRAY_SIZE(names) ? names[dev] : "?";
}

static const char *hdc_ep_name(uint8_t type)
{
    return type == HDC_EP_NONE ? "none" : hdc_dev_name(hdc_ep_dev(type));
}

static const char *hdc_state_name(uint8_t state)
{
    static const char *const names[] = {
        [HDC_ES_WAIT] = "wait", [HDC_ES_READY] = "ready",
        [HDC_ES_ISSUE] = "issue", [HDC_ES_DONE] = "done",
    };

    return state < ARRAY_SIZE(names) ? names[state] : "?";
}

void hdc_sb_format(HdcState *s, GString *out)
{
    HdcJob *job;
    HdcEntry *e;
    unsigned i;

    g_string_append_printf(out,
                                                      "jobs=%u chunks_free=%u/%u nvme=%s slots=%u/%u"
                           " hazard_waits=%" PRIu64 "\n",
                           s->njobs, s->chunks_free,
                           s->nchunks - s->pool_start,
                           hdc_nvme_state_name(s->nv.state),
                           s->nv.slots_used, HDC_NVME_SLOTS,
                           s->stats.hazard_waits);
    QTAILQ_FOREACH(job, &s->jobs, link) {
        g_string_append_printf(out, "job seq=%" PRIu64 " id=0x%04x op=%s"
                               " len=%" PRIu64 " src=%s dst=%s funcs=",
                               job->seq, job->cmd_id,
                               job->opcode == HDC_OP_NOP ? "nop" :
                               job->opcode == HDC_OP_TRANSFER ? "transfer" :
                               "?", job->length, hdc_ep_name(job->src.type),
                               hdc_ep_name(job->dst.type));
        for (i = 0; i < job->nfuncs; i++) {
            g_string_append_printf(out, "%s%s", i ? "," : "",
                                   hdc_func_name(job->funcs[i]));
        }
        g_string_append_printf(out, "%s status=%u read=%" PRIu64
                               " produced=%" PRIu64 " out=%" PRIu64
                               " written=%" PRIu64 " done=%d",
                               job->nfuncs ? "" : "-", job->status,
                               job->rd_pos, job->produced, job->out_pos,
                               job->written, job->done);
        if (job->waits) {
            g_string_append_printf(out, " after=%" PRIu64, job->after);
        }
        g_string_append_c(out, '\n');
        QTAILQ_FOREACH(e, &job->entries, link) {
            g_string_append_printf(out, "  %c%u dev=%s state=%s chunk=%d"
                                   " pos=%" PRIu64 " len=%u runs=%u/%u"
                                   " pending=%u\n",
                                   "RFW"[e->type], e->idx,
                                   hdc_dev_name(e->dev),
                                   hdc_state_name(e->state), e->chunk,
                                   e->pos, e->len, e->next_run, e->nruns,
                                   e->pending);
        }
    }
    g_string_append(out, "nvme-pcie ");
    d2d_pcie_counters_format(out, &s->nv.pcie);
    g_string_append_c(out, '\n');
}
