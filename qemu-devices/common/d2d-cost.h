/*
 * d2d: the timing mode's cost model - parameters, their defaults, and the
 * arithmetic that turns work the models count (TLP bytes, frame bytes,
 * packets) into modeled nanoseconds on a device's timeline.
 *
 * Pure C with no QEMU dependency so that the host unit tests can check it;
 * the QEMU side (properties, the deferral queue, the timer) is
 * d2d-timing.c.  docs/timing.md documents every parameter and its source.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef D2D_COST_H
#define D2D_COST_H

#include <stdbool.h>
#include <stdint.h>
#include "pcie-tlp.h"

/*
 * Defaults: the one place each is defined (docs/timing.md names sources).
 * A ConnectX-5-class NIC: 100 Gbit/s Ethernet on PCIe Gen3 x16.
 */
#define D2D_TDEF_PCIE_GEN       3       /* 8 GT/s, 128b/130b */
#define D2D_TDEF_PCIE_LANES     16
#define D2D_TDEF_PCIE_READ_NS   500     /* DMA read round trip (host RAM) */
#define D2D_TDEF_WIRE_MBPS      100000  /* line rate */
#define D2D_TDEF_WIRE_PROP_NS   10      /* 2 m cable at ~5 ns/m */
#define D2D_TDEF_SWITCH_NS      300     /* switch port-to-port latency */
#define D2D_TDEF_SWITCH_QUEUE   (1u << 20)  /* switch egress queue, bytes */
#define D2D_TDEF_PKT_NS         7       /* pipeline occupancy per packet */
#define D2D_TDEF_PIPE_NS        250     /* pipeline latency per packet */
#define D2D_TDEF_DB_NS          50      /* doorbell decode and dispatch */
#define D2D_TDEF_RDMA_NS        40      /* RoCE transport work per packet */
#define D2D_TDEF_NDP_MBPS       4000    /* near-data unit throughput, MB/s */
/*
 * The FLD on an Innova-2 Flex card: its FPGA's PCIe link and its
 * accelerator units (each at the card's 25 Gbit/s line rate).
 */
#define D2D_TDEF_FLD_PCIE_GEN   4
#define D2D_TDEF_FLD_PCIE_LANES 8
#define D2D_TDEF_FLD_UNIT_MBPS  3125    /* 25 Gbit/s in MB/s */
#define D2D_TDEF_FLD_ACCEL_NS   200     /* FLD's latency per packet */
/* A unit's throughput in MB/s (10^6 bytes a second) is accepted in 1..this */
#define D2D_UNIT_MBPS_MAX       1000000

/* Bytes on the wire per frame beyond what the model hands the net layer. */
#define D2D_WIRE_OVERHEAD       24      /* preamble+SFD 8, FCS 4, IFG 12 */

typedef struct D2DTimingParams {
    bool on;                    /* timing mode; off: every cost is 0 */
    uint32_t pcie_gen;          /* 1..5 */
    uint32_t pcie_lanes;        /* 1, 2, 4, 8, 16 */
    uint32_t pcie_read_ns;      /* read request to first completion */
    uint32_t wire_mbps;         /* line rate, Mbit/s */
    uint32_t wire_prop_ns;      /* propagation delay of the cable */
    uint32_t switch_ns;         /* switch/hub latency, port to port */
    uint32_t switch_queue;      /* switch queue in front of the port, bytes */
    uint32_t pkt_ns;            /* device pipeline: occupancy per packet */
    uint32_t pipe_ns;           /* device pipeline: latency per packet */
    uint32_t db_ns;             /* doorbell processing */
    uint32_t rdma_ns;           /* RDMA transport processing per packet */
    uint32_t ndp_mbps;          /* near-data (function) unit, MB/s */
} D2DTimingParams;

/* The defaults above as a parameter set (timing off). */
void d2d_timing_params_default(D2DTimingParams *p);
/* NULL if @p is usable, else what is wrong with it. */
const char *d2d_timing_params_check(const D2DTimingParams *p);

/*
 * Femtoseconds per byte of one PCIe direction (gen, lanes: after line
 * encoding), 0 for an unknown generation or lane count.
 */
uint64_t d2d_pcie_fs_per_byte(uint32_t gen, uint32_t lanes);
/* Femtoseconds per byte at @mbps (0 if @mbps is 0). */
uint64_t d2d_wire_fs_per_byte(uint32_t mbps);
/* Femtoseconds per byte at @mbytes_ps MB/s (0 if @mbytes_ps is 0). */
uint64_t d2d_unit_fs_per_byte(uint32_t mbytes_ps);
/* Nanoseconds @bytes take at @fs_per_byte, rounded up. */
int64_t d2d_bytes_ns(uint64_t bytes, uint64_t fs_per_byte);
/*
 * A device's timeline.  Every resource is busy until a virtual time;
 * charging work to it returns when that work is done:
 * max(ready, busy_until) + cost.
 *
 * issue: the engine, where new work starts (doorbells, per-packet
 *        occupancy); work never starts before "now".
 * ready: when the data read so far is in (DMA reads done).  Reads are
 *        pipelined: they start at issue, not at ready, until d2d_tl_sync()
 *        makes the engine wait for them (a WQE is read before its payload).
 * pkt:   when the packet in hand has passed the pipeline: the earliest
 *        time its writes and its frame may start.
 * pcie_up / pcie_down: the device's PCIe link, per direction.
 * wire: the port's egress.  rxq: the switch queue in front of the port.
 * last_fx: the latest effect time handed out; effects of one device
 *          never overtake each other (PCIe posted-write ordering).
 */
typedef struct D2DTimeline {
    int64_t issue, ready, pkt;
    int64_t pcie_up, pcie_down;
    int64_t wire, rxq;
    int64_t last_fx;
    uint64_t pcie_fs, wire_fs;  /* from the parameters */
} D2DTimeline;

void d2d_tl_init(D2DTimeline *tl, const D2DTimingParams *p);
/* The engine is busy @ns from max(now, issue). */
void d2d_tl_engine(D2DTimeline *tl, int64_t now, int64_t ns);
/*
 * A packet enters the pipeline (after the data it needs is ready): it
 * occupies the engine @occ_ns and is through it @lat_ns later.
 */
void d2d_tl_packet(D2DTimeline *tl, int64_t now, int64_t occ_ns,
                   int64_t lat_ns);
/* The packet in hand takes @ns longer (e.g. transport processing). */
void d2d_tl_latency(D2DTimeline *tl, int64_t now, int64_t ns);
/* The packet in hand is not through before @when. */
void d2d_tl_until(D2DTimeline *tl, int64_t when);
/* Data the engine waits for is not there before @when (the next packets). */
void d2d_tl_ready(D2DTimeline *tl, int64_t when);
/* The engine waits for everything read so far. */
void d2d_tl_sync(D2DTimeline *tl, int64_t now);
/*
 * A DMA read of @len bytes at @addr: returns when its data is in.
 * @read_ns: round trip of its first byte.
 */
int64_t d2d_tl_read(D2DTimeline *tl, int64_t now, uint64_t addr,
                    uint64_t len, int64_t read_ns);
/* A posted write (DMA write, MSI-X): returns when it reaches its target. */
int64_t d2d_tl_write(D2DTimeline *tl, int64_t now, D2DPcieOp op,
                     uint64_t addr, uint64_t len);
/*
 * Charge the link of the peer a peer-to-peer transfer reaches: returns
 * when the transfer is through that link (a write's data down it, a
 * read's completions up it).
 */
int64_t d2d_tl_peer(D2DTimeline *tl, int64_t now, D2DPcieOp op, uint64_t addr,
                 uint64_t len);
/*
 * A frame of @len bytes leaves the port: returns when its last bit is at
 * the far end of the cable and through the switch.
 */
int64_t d2d_tl_frame(D2DTimeline *tl, int64_t now, uint64_t len,
                     int64_t prop_ns);
/*
 * A frame of @len bytes arrives at now from the switch into the port's
 * queue: returns when it leaves the queue (now if the queue is empty), or
 * -1 if the queue already holds more than @qbytes (dropped).  *depth: the
 * bytes queued ahead of it.
 */
int64_t d2d_tl_rx(D2DTimeline *tl, int64_t now, uint64_t len,
                  uint64_t qbytes, uint64_t *depth);
/* The bytes in the port's queue at @now (not yet through it). */
uint64_t d2d_tl_rx_depth(const D2DTimeline *tl, int64_t now);
/* An effect at @when, ordered after every earlier effect: its time. */
int64_t d2d_tl_fx(D2DTimeline *tl, int64_t when);

/*
 * The model's own prediction of an RC RDMA WRITE of @bytes (path MTU
 * @mtu) between two devices with parameters @p, from the doorbell to the
 * requester's CQE write: the fixed latencies of the critical path plus the
 * message's bytes at the slower of PCIe and the wire.  For calibration
 * tests and benches.
 */
int64_t d2d_predict_rdma_write_ns(const D2DTimingParams *p, uint64_t bytes,
                                  uint32_t mtu);

#endif
