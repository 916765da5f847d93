/*
 * snic device tier: the Ethernet data plane of docs/snic.md, driven through
 * qtest with no guest - the environment shared by the test_snic_eth_*.c
 * programs (one per feature; their tests are device/snic_eth/<name>).
 *
 * Topology: two snic functions (A, B) on one QEMU hub, plus a third hub
 * port that is a datagram socket held by the test program: it captures
 * every frame on the wire and injects frames no send queue can produce
 * (runts).  An ivshmem BAR gives memory that can be unmapped under a live
 * queue.  QMP reads QOM properties and toggles the link.
 *
 * Each test starts a fresh QEMU.  Rings and buffers are allocated from
 * guest RAM (256 MiB) above 16 MiB; queues are snic_q.h's.
 */
#ifndef D2D_SNIC_ETH_ENV_H
#define D2D_SNIC_ETH_ENV_H

#include <arpa/inet.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../lib/check.h"
#include "snic_q.h"
#include "wire.h"

#define OK		SNIC_AQ_OK
#define BAR_BASE(i)	(0xe0000000ull + (uint64_t)(i) * 0x400000ull)
#define SHM_BAR		0xe1000000ull	/* ivshmem BAR2 */
#define SHM_SIZE	0x100000u
#define RAM_BASE(i)	(0x1000000ull + (uint64_t)(i) * SNIC_DEV_RAM_SIZE)
#define HEAP_BASE	0x1200000ull
#define HEAP_END	0xf000000ull
#define UNMAPPED	0x4000000000ull	/* no RAM, no BAR */
#define MTU		1500
#define NVEC		8		/* MSI-X vectors wired to RAM */

#define ETH_HLEN	14
#define IP_HLEN		20
#define UDP_HLEN	8
#define TCP_HLEN	20
#define TCP_ACK		0x10
#define TCP_PSH		0x08
#define TCP_FIN		0x01
#define TCP_CWR		0x80

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define IP4(a, b, c, d)	((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

extern const uint8_t mac_a[6], mac_b[6], mac_other[6];
extern const uint8_t mac_bcast[6], mac_mcast[6];

/* The Microsoft RSS verification key and its published IPv4 vectors. */
extern const uint8_t ms_key[SNIC_RSS_KEY_SIZE];
struct ms_vec {
	uint32_t sip, dip;
	uint16_t sport, dport;
	uint32_t h_l4, h_ip;	/* hash with ports, of addresses only */
};
#define MS_NVEC		5
extern const struct ms_vec ms_vec[MS_NVEC];

/* ---- environment ---- */

extern struct qt *qt;
extern struct snic_dev dev[2];
#define A (&dev[0])
#define B (&dev[1])
extern int shm_devfn;
extern uint64_t msi_base[2];

/* MSI-X vector @vec of @d writes msi_data() at msi_addr(). */
int dev_idx(struct snic_dev *d);
uint64_t msi_addr(struct snic_dev *d, int vec);
uint32_t msi_data(struct snic_dev *d, int vec);
uint32_t msi_read(struct snic_dev *d, int vec);
void msi_clear(struct snic_dev *d, int vec);
/* Give the device a few main-loop turns (bottom halves) to act. */
void settle(void);
/* Port of @d with its own MAC, no async EQ. */
int port_default(struct snic_dev *d, uint32_t flags, uint16_t mtu);
int port_query(struct snic_dev *d, struct snic_port_info *pi);
bool pstats(struct snic_dev *d, struct snic_port_stats *s);
bool qstats(struct snic_dev *d, uint32_t kind, uint32_t qn,
	    struct snic_queue_stats *s);
/* Drop whatever the wire (wire.h) holds. */
void cap_drain(void);
/* ivshmem memory decoding on (mapped) or off. */
void shm_map(bool on);
/*
 * Fresh QEMU with A and B, admin queues up (64 entries, vector 0), MSI-X
 * vectors 0..NVEC-1 wired to RAM, ports up with MTU 1500 and their own
 * MAC.
 */
bool env_start(void);
/* The same with @opts (",prop=value...") on both snics' -device. */
bool env_start_opts(const char *opts);

/* ---- queues: snic_q.h's, polled the way these tests wait ---- */

bool eq_poll(struct snic_eq *e, struct snic_eqe *q);
bool eq_empty(struct snic_eq *e);
bool cq_poll(struct snic_cq *c, struct snic_cqe *q);
bool cq_empty(struct snic_cq *c);
int rule_add(struct snic_dev *d, const struct snic_steer_rule *r,
	     uint32_t *id);
int rule_to_rq(struct snic_dev *d, uint16_t prio, uint32_t rqn,
	       uint32_t *id);
int rss_create(struct snic_dev *d, const uint8_t *key, uint32_t fields,
	       uint32_t tsize, const uint32_t *rqn, uint32_t *id);
int modify_sq_rate(struct snic_dev *d, uint32_t sqn, uint64_t bps,
		   uint32_t burst);
/* TX side: polled CQ (page 2) and an SQ on it. */
bool tx_setup(struct snic_dev *d, struct snic_cq *cq, struct snic_sq *sq,
	      int sq_log);
/* RX side: polled CQ (page 1), a plain RQ with @post buffers, catch-all. */
bool rx_setup(struct snic_dev *d, struct snic_cq *cq, struct snic_rq *rq,
	      int post);

/* ---- WQEs ---- */

struct txo {
	uint8_t opcode;		/* SNIC_WQE_* */
	uint8_t flags;		/* SNIC_WQE_F_* */
	uint8_t cs;		/* SNIC_ETH_CS_* */
	uint16_t mss;
	size_t inl;		/* inline header bytes */
	int nseg;		/* data segments for the rest */
	bool no_db;		/* leave the doorbell to the caller */
	bool vlan_on;		/* insert an 802.1Q tag (SNIC_ETH_F_VLAN) */
	uint16_t vlan;		/* its TCI */
};

/*
 * Build an Ethernet WQE for @f: ctrl, eth with @o->inl inline bytes, the
 * rest in @o->nseg data segments gathered from fresh RAM.  Returns BBs.
 */
int wqe_build(uint8_t *bb, uint16_t idx, const uint8_t *f, size_t len,
	      const struct txo *o);
uint16_t sq_send_o(struct snic_sq *s, const uint8_t *f, size_t len,
		   const struct txo *o);
/* Plain send: 14 inline bytes, one data segment. */
uint16_t sq_send(struct snic_sq *s, const uint8_t *f, size_t len,
		 bool signal);

/* ---- frames, checksums, Toeplitz ---- */

void put16(uint8_t *p, uint16_t v);
void put32(uint8_t *p, uint32_t v);
uint16_t get16(const uint8_t *p);
uint32_t get32(const uint8_t *p);
uint32_t sum16(uint32_t s, const uint8_t *p, size_t n);
uint16_t fold(uint32_t s);
/* Pseudo-header sum of the IPv4 header at @ip for @l4len bytes. */
uint32_t pseudo(const uint8_t *ip, uint16_t l4len);
bool ip_ok(const uint8_t *f);
size_t l4_csum_off(const uint8_t *f);
/* TCP/UDP checksum of the frame (IP total length) verifies, nonzero. */
bool l4_ok(const uint8_t *f);
/* What the device must produce: both checksums filled. */
void fill_csum(uint8_t *f);

struct flow {
	const uint8_t *dmac, *smac;
	uint32_t sip, dip;
	uint16_t sport, dport;
	uint8_t proto;		/* 6 TCP, 17 UDP */
	uint8_t tcp_flags;
	uint32_t seq;
	uint16_t ip_id;
};

/* Ethernet/IPv4/UDP|TCP with @plen payload bytes, checksums zero. */
size_t mk_raw(uint8_t *f, const struct flow *fl, size_t plen,
	      unsigned seed);
/* The same with both checksums filled. */
size_t mk_frame(uint8_t *f, const struct flow *fl, size_t plen,
		unsigned seed);
/* A good UDP frame A -> B of @len bytes in total (>= 42). */
size_t mk_udp(uint8_t *f, const uint8_t *dmac, size_t len,
	      unsigned seed);
uint32_t toeplitz(const uint8_t *key, const uint8_t *in, size_t n);
uint32_t rss_hash(const uint8_t *key, uint32_t sip, uint32_t dip,
		  uint16_t sport, uint16_t dport, bool l4);
/* The plain-RQ buffer of RX CQE @e holds exactly @f. */
bool buf_eq(struct snic_rq *rq, const struct snic_cqe *e, const uint8_t *f,
	    size_t len);

/* ---- delivery through steering: A sends, B has rq[0..nrq-1] on rcq ---- */

struct fx {
	struct snic_cq tcq, rcq;
	struct snic_sq sq;
	struct snic_rq rq[4];
	int nrq;
};
extern struct fx fx;
bool fx_setup(int nrq);
/*
 * Send @f from A; the index of B's RQ that got it (contents checked), -1
 * if none did, -2 on a content mismatch.
 */
int deliver(const uint8_t *f, size_t len, struct snic_cqe *e);

/* The next CQE of @cq is the RX of frame @f on @rq (contents compared). */
#define CHECK_RX(cq, rq, f, len, e) do {				\
	CHECK(cq_poll((cq), (e)));					\
	CHECK_EQ((e)->opcode, SNIC_CQE_RX);				\
	CHECK_EQ((e)->qn, (rq)->n);					\
	CHECK_EQ((e)->byte_cnt, (len));					\
	CHECK(buf_eq((rq), (e), (f), (len)));				\
} while (0)

/* The next CQE of @cq is a good TX completion of WQE @w on @sq. */
#define CHECK_TX(cq, sq, w, len, e) do {				\
	CHECK(cq_poll((cq), (e)));					\
	CHECK_EQ((e)->opcode, SNIC_CQE_TX);				\
	CHECK_EQ((e)->syndrome, SNIC_SYND_OK);				\
	CHECK_EQ((e)->qn, (sq)->n);					\
	CHECK_EQ((e)->wqe_counter, (uint16_t)(w));			\
	CHECK_EQ((e)->byte_cnt, (len));					\
} while (0)

#define RX_OK_FLAGS	(SNIC_CQE_F_IPV4 | SNIC_CQE_F_L3_OK | SNIC_CQE_F_L4_OK)
#define RX_BAD_FLAGS	(SNIC_CQE_F_L3_BAD | SNIC_CQE_F_L4_BAD)

#endif
