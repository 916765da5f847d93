/*
 * d2d: the timing mode's cost model (see d2d-cost.h and docs/timing.md).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include "d2d-cost.h"

#define FS_PER_NS 1000000ull

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

void d2d_timing_params_default(D2DTimingParams *p)
{
    memset(p, 0, sizeof(*p));
    p->pcie_gen = D2D_TDEF_PCIE_GEN;
    p->pcie_lanes = D2D_TDEF_PCIE_LANES;
    p->pcie_read_ns = D2D_TDEF_PCIE_READ_NS;
    p->wire_mbps = D2D_TDEF_WIRE_MBPS;
    p->wire_prop_ns = D2D_TDEF_WIRE_PROP_NS;
    p->switch_ns = D2D_TDEF_SWITCH_NS;
    p->switch_queue = D2D_TDEF_SWITCH_QUEUE;
    p->pkt_ns = D2D_TDEF_PKT_NS;
    p->pipe_ns = D2D_TDEF_PIPE_NS;
    p->db_ns = D2D_TDEF_DB_NS;
    p->rdma_ns = D2D_TDEF_RDMA_NS;
    p->ndp_mbps = D2D_TDEF_NDP_MBPS;
}

const char *d2d_timing_params_check(const D2DTimingParams *p)
{
    if (!d2d_pcie_fs_per_byte(p->pcie_gen, p->pcie_lanes)) {
        return "timing-pcie-gen must be 1..5, timing-pcie-lanes 1, 2, 4, 8 "
               "or 16";
    }
    if (p->wire_mbps < 10 || p->wire_mbps > 1600000) {
        return "timing-wire-mbps must be 10..1600000";
    }
    if (p->ndp_mbps < 1 || p->ndp_mbps > D2D_UNIT_MBPS_MAX) {
        return "timing-ndp-mbps must be 1..1000000";
    }
    return NULL;
}

uint64_t d2d_pcie_fs_per_byte(uint32_t gen, uint32_t lanes)
{
    /* Transfer rate (MT/s) and line encoding (sent bits per data bit). */
    static const struct {
        uint32_t mts, enc_sent, enc_data;
    } g[] = {
        { 2500, 10, 8 }, { 5000, 10, 8 }, { 8000, 130, 128 },
        { 16000, 130, 128 }, { 32000, 130, 128 },
    };
    uint64_t num, den;

    if (gen < 1 || gen > 5 || !lanes || lanes > 16 || (lanes & (lanes - 1))) {
        return 0;
    }
    /* 8 bits per byte, 1e9 fs per us: fs/B = 8e9 * sent / (data * MT/s) */
    num = 8000000000ull * g[gen - 1].enc_sent;
    den = (uint64_t)g[gen - 1].enc_data * g[gen - 1].mts * lanes;
    return (num + den / 2) / den;
}

uint64_t d2d_wire_fs_per_byte(uint32_t mbps)
{
    return mbps ? (8000000000ull + mbps / 2) / mbps : 0;
}

uint64_t d2d_unit_fs_per_byte(uint32_t mbytes_ps)
{
    /* 10^6 bytes a second: 10^9 / MB/s femtoseconds a byte */
    return mbytes_ps ? 1000000000ull / mbytes_ps : 0;
}

int64_t d2d_bytes_ns(uint64_t bytes, uint64_t fs_per_byte)
{
    return (int64_t)((bytes * fs_per_byte + FS_PER_NS - 1) / FS_PER_NS);
}

void d2d_tl_init(D2DTimeline *tl, const D2DTimingParams *p)
{
    memset(tl, 0, sizeof(*tl));
    tl->pcie_fs = d2d_pcie_fs_per_byte(p->pcie_gen, p->pcie_lanes);
    tl->wire_fs = d2d_wire_fs_per_byte(p->wire_mbps);
}

void d2d_tl_engine(D2DTimeline *tl, int64_t now, int64_t ns)
{
    tl->issue = max64(now, tl->issue) + ns;
}

void d2d_tl_packet(D2DTimeline *tl, int64_t now, int64_t occ_ns,
                   int64_t lat_ns)
{
    d2d_tl_engine(tl, now, occ_ns);
    tl->pkt = max64(tl->issue, tl->ready) + lat_ns;
}

void d2d_tl_latency(D2DTimeline *tl, int64_t now, int64_t ns)
{
    tl->pkt = max64(now, tl->pkt) + ns;
}

void d2d_tl_until(D2DTimeline *tl, int64_t when)
{
    tl->pkt = max64(tl->pkt, when);
}

void d2d_tl_ready(D2DTimeline *tl, int64_t when)
{
    tl->ready = max64(tl->ready, when);
}

void d2d_tl_sync(D2DTimeline *tl, int64_t now)
{
    tl->issue = max64(max64(now, tl->issue), tl->ready);
}

/* @up bytes on the upstream link, from @from or when it is free. */
static int64_t d2d_tl_up(D2DTimeline *tl, int64_t from, uint64_t up)
{
    tl->pcie_up = max64(from, tl->pcie_up) + d2d_bytes_ns(up, tl->pcie_fs);
    return tl->pcie_up;
}

int64_t d2d_tl_read(D2DTimeline *tl, int64_t now, uint64_t addr,
                    uint64_t len, int64_t read_ns)
{
    uint64_t tlps, up, down;
    int64_t start;

    d2d_pcie_tlp_cost(D2D_PCIE_DMA_READ, addr, len, &tlps, &up, &down);
    d2d_tl_up(tl, max64(now, tl->issue), up);
    start = max64(tl->pcie_up + read_ns, tl->pcie_down);
    tl->pcie_down = start + d2d_bytes_ns(down, tl->pcie_fs);
    tl->ready = max64(tl->ready, tl->pcie_down);
    return tl->pcie_down;
}

int64_t d2d_tl_write(D2DTimeline *tl, int64_t now, D2DPcieOp op,
                     uint64_t addr, uint64_t len)
{
    uint64_t tlps, up, down;

    d2d_pcie_tlp_cost(op, addr, len, &tlps, &up, &down);
    return d2d_tl_up(tl, max64(now, tl->pkt), up);
}

int64_t d2d_tl_peer(D2DTimeline *tl, int64_t now, D2DPcieOp op,
                    uint64_t addr, uint64_t len)
{
    uint64_t tlps, up, down;

    /* What the issuer sends up comes down this link, and the reverse. */
    d2d_pcie_tlp_cost(op, addr, len, &tlps, &up, &down);
    tl->pcie_down = max64(now, tl->pcie_down) + d2d_bytes_ns(up, tl->pcie_fs);
    if (!down) {
        return tl->pcie_down;
    }
    return d2d_tl_up(tl, tl->pcie_down, down);
}

int64_t d2d_tl_frame(D2DTimeline *tl, int64_t now, uint64_t len,
                     int64_t prop_ns)
{
    int64_t start = max64(max64(now, tl->pkt), tl->wire);

    tl->wire = start + d2d_bytes_ns(len + D2D_WIRE_OVERHEAD, tl->wire_fs);
    return tl->wire + prop_ns;
}

uint64_t d2d_tl_rx_depth(const D2DTimeline *tl, int64_t now)
{
    int64_t leave = max64(now, tl->rxq);

    return tl->wire_fs ? (uint64_t)(leave - now) * FS_PER_NS / tl->wire_fs
                       : 0;
}

int64_t d2d_tl_rx(D2DTimeline *tl, int64_t now, uint64_t len,
                  uint64_t qbytes, uint64_t *depth)
{
    int64_t leave = max64(now, tl->rxq);

    *depth = d2d_tl_rx_depth(tl, now);
    if (*depth > qbytes) {
        return -1;
    }
    tl->rxq = leave + d2d_bytes_ns(len + D2D_WIRE_OVERHEAD, tl->wire_fs);
    return leave;
}

int64_t d2d_tl_fx(D2DTimeline *tl, int64_t when)
{
    tl->last_fx = max64(tl->last_fx, when);
    return tl->last_fx;
}

/* RoCEv2 over IPv4 without VLAN: Ethernet, IPv4, UDP, BTH, ICRC. */
#define ROCE_BASE_HDRS  (14 + 20 + 8 + 12 + 4)
#define ROCE_RETH       16
#define ROCE_AETH       4
#define WQE_BB          64

int64_t d2d_predict_rdma_write_ns(const D2DTimingParams *p, uint64_t bytes,
                                  uint32_t mtu)
{
    uint64_t pcie_fs = d2d_pcie_fs_per_byte(p->pcie_gen, p->pcie_lanes);
    uint64_t wire_fs = d2d_wire_fs_per_byte(p->wire_mbps);
    uint64_t npkts = bytes ? (bytes + mtu - 1) / mtu : 1;
    uint64_t tlps, up, down, first = bytes < mtu ? bytes : mtu;
    uint64_t wire_bytes, pcie_bytes = 0, off;
    int64_t lat = p->pipe_ns + p->rdma_ns, t, hop, stream, last;

    hop = p->wire_prop_ns + p->switch_ns;
    /* doorbell, then the WQE (one basic block) is read */
    d2d_pcie_tlp_cost(D2D_PCIE_DMA_READ, 0, WQE_BB, &tlps, &up, &down);
    t = p->db_ns + d2d_bytes_ns(up, pcie_fs) + p->pcie_read_ns +
        d2d_bytes_ns(down, pcie_fs);
    /* the message streams at the slower of the link and the wire */
    wire_bytes = bytes + npkts * (ROCE_BASE_HDRS + D2D_WIRE_OVERHEAD) +
                 ROCE_RETH;
    for (off = 0; off < bytes; off += mtu) {
        uint64_t n = bytes - off < mtu ? bytes - off : mtu;

        d2d_pcie_tlp_cost(D2D_PCIE_DMA_READ, off, n, &tlps, &up, &down);
        pcie_bytes += down;
    }
    d2d_pcie_tlp_cost(D2D_PCIE_DMA_READ, 0, first, &tlps, &up, &down);
    last = d2d_bytes_ns(mtu + ROCE_BASE_HDRS + D2D_WIRE_OVERHEAD, wire_fs);
    stream = d2d_bytes_ns(wire_bytes, wire_fs);
    if (d2d_bytes_ns(pcie_bytes, pcie_fs) + last > stream) {
        stream = d2d_bytes_ns(pcie_bytes, pcie_fs) + last;
        down = 0;   /* the first completion is inside the stream */
    }
    t += d2d_bytes_ns(up, pcie_fs) + p->pcie_read_ns +
         d2d_bytes_ns(down, pcie_fs) + p->pkt_ns + lat + stream + hop;
    /* the responder takes the last packet, ACKs it */
    t += p->pkt_ns + lat +
         d2d_bytes_ns(ROCE_BASE_HDRS + ROCE_AETH + D2D_WIRE_OVERHEAD,
                      wire_fs) + hop;
    /* the requester takes the ACK and writes the CQE */
    d2d_pcie_tlp_cost(D2D_PCIE_DMA_WRITE, 0, 64, &tlps, &up, &down);
    t += p->pkt_ns + lat + d2d_bytes_ns(up, pcie_fs);
    return t;
}
