/*
 * snic device tier: the Ethernet data plane of docs/snic.md, driven through
 * qtest with no guest.
 *
 * Topology: two snic functions (A, B) on one QEMU hub, plus a third hub
 * port that is a datagram socket held by this program: it captures every
 * frame on the wire and injects frames no send queue can produce (runts).
 * An ivshmem BAR gives memory that can be unmapped under a live queue.
 * QMP reads QOM properties and toggles the link.
 *
 * Each test starts a fresh QEMU.  Rings and buffers are allocated from
 * guest RAM (256 MiB) above 16 MiB.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include "../lib/check.h"
#include "snic_dev.h"

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

static const uint8_t mac_a[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t mac_b[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x02 };
static const uint8_t mac_other[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x77 };
static const uint8_t mac_bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t mac_mcast[6] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };

/* The Microsoft RSS verification key. */
static const uint8_t ms_key[SNIC_RSS_KEY_SIZE] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
	0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
	0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
	0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
	0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* Its published IPv4 vectors: hash with ports, hash of addresses only. */
static const struct {
	uint32_t sip, dip;
	uint16_t sport, dport;
	uint32_t h_l4, h_ip;
} ms_vec[] = {
	{ IP4(66, 9, 149, 187), IP4(161, 142, 100, 80), 2794, 1766,
	  0x51ccc178, 0x323e8fc2 },
	{ IP4(199, 92, 111, 2), IP4(65, 69, 140, 83), 14230, 4739,
	  0xc626b0ea, 0xd718262a },
	{ IP4(24, 19, 198, 95), IP4(12, 22, 207, 184), 12898, 38024,
	  0x5c2b394a, 0xd2d0a5de },
	{ IP4(38, 27, 205, 30), IP4(209, 142, 163, 6), 48228, 2217,
	  0xafc7327f, 0x82989176 },
	{ IP4(153, 39, 163, 191), IP4(202, 188, 127, 2), 44251, 1303,
	  0x10e828a2, 0x5d1809c5 },
};

/* ------------------------------------------------------------------ */
/* Environment                                                         */
/* ------------------------------------------------------------------ */

static struct qt *qt;
static struct snic_dev dev[2];
#define A (&dev[0])
#define B (&dev[1])
static int inj = -1;		/* our end of the capture/injection port */
static int shm_devfn = -1;
static uint64_t heap;
static uint64_t msi_base[2];

static int dev_idx(struct snic_dev *d)
{
	return d == B;
}

static uint64_t msi_addr(struct snic_dev *d, int vec)
{
	return msi_base[dev_idx(d)] + 4 * vec;
}

static uint32_t msi_data(struct snic_dev *d, int vec)
{
	return 0xd2d00000u | dev_idx(d) << 8 | vec;
}

static uint32_t msi_read(struct snic_dev *d, int vec)
{
	return qt_readl(qt, msi_addr(d, vec));
}

static void msi_clear(struct snic_dev *d, int vec)
{
	qt_writel(qt, msi_addr(d, vec), 0);
}

/* Guest RAM, zeroed; freed all at once by the next env_start. */
static uint64_t galloc(size_t size, size_t align)
{
	uint64_t a = (heap + align - 1) & ~(uint64_t)(align - 1);

	if (a + size > HEAP_END) {
		fprintf(stderr, "test heap exhausted\n");
		exit(1);
	}
	heap = a + size;
	qt_memset(qt, a, 0, size);
	return a;
}

/* qtest lines are limited: move big buffers in pieces. */
static void mread(uint64_t addr, void *buf, size_t len)
{
	size_t off, n;

	for (off = 0; off < len; off += n) {
		n = len - off > 16384 ? 16384 : len - off;
		qt_memread(qt, addr + off, (uint8_t *)buf + off, n);
	}
}

static void mwrite(uint64_t addr, const void *buf, size_t len)
{
	size_t off, n;

	for (off = 0; off < len; off += n) {
		n = len - off > 16384 ? 16384 : len - off;
		qt_memwrite(qt, addr + off, (const uint8_t *)buf + off, n);
	}
}

/* Give the device a few main-loop turns (bottom halves) to act. */
static void settle(void)
{
	int i;

	for (i = 0; i < 16; i++)
		qt_readl(qt, A->bar0 + SNIC_REG_ID);
}

static int port_set(struct snic_dev *d, uint32_t flags, uint16_t mtu,
		    const uint8_t (*macs)[6], int nmacs, uint16_t async_eqn)
{
	struct snic_port_cfg c;
	int i;

	memset(&c, 0, sizeof(c));
	c.flags = flags;
	c.mtu = mtu;
	c.num_macs = nmacs;
	c.async_eqn = async_eqn;
	for (i = 0; i < nmacs && i < SNIC_MAX_MACS; i++)
		memcpy(c.macs[i], macs[i], 6);
	return snic_aq_buf(d, SNIC_AQ_SET_PORT, &c, sizeof(c), sizeof(c), 0, 0,
			   NULL, 0, NULL);
}

static int port_default(struct snic_dev *d, uint32_t flags, uint16_t mtu)
{
	const uint8_t (*mac)[6] = d == A ? &mac_a : &mac_b;

	return port_set(d, flags, mtu, mac, 1, SNIC_EQN_NONE);
}

static int port_query(struct snic_dev *d, struct snic_port_info *pi)
{
	memset(pi, 0xa5, sizeof(*pi));
	qt_memset(qt, d->scratch, 0xa5, sizeof(*pi));
	return snic_aq_buf(d, SNIC_AQ_QUERY_PORT, NULL, 0, sizeof(*pi), 0, 0,
			   pi, sizeof(*pi), NULL);
}

static bool pstats(struct snic_dev *d, struct snic_port_stats *s)
{
	return snic_query_stats(d, SNIC_STATS_PORT, 0, s, sizeof(*s)) == OK;
}

static bool qstats(struct snic_dev *d, uint32_t kind, uint32_t qn,
		   struct snic_queue_stats *s)
{
	return snic_query_stats(d, kind, qn, s, sizeof(*s)) == OK;
}

static void inj_close(void)
{
	if (inj >= 0)
		close(inj);
	inj = -1;
}

/* A connected pair of UDP sockets on loopback; *qfd goes to QEMU. */
static bool inj_open(int *qfd)
{
	return qt_udp_pair(qfd, &inj, 4 << 20);
}

static bool inj_send(const void *f, size_t len)
{
	return send(inj, f, len, 0) == (ssize_t)len;
}

/* Drop whatever the capture port holds. */
static void cap_drain(void)
{
	uint8_t buf[65536];

	settle();
	while (recv(inj, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

/* Next captured frame, or -1 within @ms. */
static int cap_recv(void *buf, size_t len, int ms)
{
	struct pollfd p = { .fd = inj, .events = POLLIN };

	if (poll(&p, 1, ms) != 1)
		return -1;
	return recv(inj, buf, len, MSG_DONTWAIT);
}

static void shm_map(bool on)
{
	qt_pci_cfg_write(qt, shm_devfn, 0x04, 2, on ? 0x0002 : 0);
}

/*
 * Fresh QEMU with A and B, admin queues up (64 entries, vector 0), MSI-X
 * vectors 0..NVEC-1 wired to RAM, ports up with MTU 1500 and their own
 * MAC.
 */
static bool env_start(void)
{
	char args[2048];
	int qfd, i;

	qt_quit(qt);
	qt = NULL;
	inj_close();
	if (!inj_open(&qfd))
		return false;
	snprintf(args, sizeof(args),
		 "-netdev hubport,id=p0,hubid=0 -netdev hubport,id=p1,hubid=0 "
		 "-netdev dgram,id=inj,local.type=fd,local.str=%d "
		 "-netdev hubport,id=p2,hubid=0,netdev=inj "
		 "-device snic,id=snic0,netdev=p0,mac=52:54:00:00:00:01,serial=ETH-A "
		 "-device snic,id=snic1,netdev=p1,mac=52:54:00:00:00:02,serial=ETH-B "
		 "-object memory-backend-ram,id=shm,size=1M,share=on "
		 "-device ivshmem-plain,id=shm0,memdev=shm", qfd);
	qt = qt_start(args);
	close(qfd);
	if (!qt_alive(qt))
		return false;
	for (i = 0; i < 2; i++)
		if (!snic_dev_open(&dev[i], qt, i, BAR_BASE(i), RAM_BASE(i)))
			return false;
	shm_devfn = qt_pci_find(qt, 0x1af4, 0x1110, 0);
	if (shm_devfn < 0)
		return false;
	qt_pci_map_bar(qt, shm_devfn, 2, SHM_BAR);
	shm_map(true);
	heap = HEAP_BASE;
	for (i = 0; i < 2; i++) {
		int v;

		msi_base[i] = galloc(0x100, 0x100);
		for (v = 0; v < NVEC; v++)
			snic_dev_msix(&dev[i], v, msi_addr(&dev[i], v),
				      msi_data(&dev[i], v));
		if (!snic_aq_ready(&dev[i], 64))
			return false;
		if (port_default(&dev[i], SNIC_PORT_F_UP, MTU) != OK)
			return false;
	}
	cap_drain();
	return true;
}

/* ------------------------------------------------------------------ */
/* Queues                                                              */
/* ------------------------------------------------------------------ */

struct eq {
	struct snic_dev *d;
	uint32_t n, size, cons;
	uint64_t ring;
	uint16_t page;
	int vec;
};

struct cq {
	struct snic_dev *d;
	uint32_t n, size, cons;
	uint64_t ring, dbr;
	uint16_t page;
};

struct sq {
	struct snic_dev *d;
	uint32_t n, size, prod;
	uint64_t ring, dbr;
	uint16_t page;
};

struct rq {
	struct snic_dev *d;
	uint32_t n, size, prod, buf_size;
	uint64_t ring, dbr, bufs;
	uint16_t page;
};

static int eq_create(struct eq *e, struct snic_dev *d, int log, int vec,
		     int mod_us, int mod_cnt, int page)
{
	struct snic_aq_create_eq c = { 0 };
	uint64_t r = ~0ull;
	int st;

	memset(e, 0, sizeof(*e));
	e->d = d;
	e->size = 1u << log;
	e->ring = galloc(sizeof(struct snic_eqe) * e->size, 64);
	e->page = page;
	e->vec = vec;
	c.ring_addr = e->ring;
	c.log_size = log;
	c.msix = vec;
	c.mod_usecs = mod_us;
	c.mod_count = mod_cnt;
	c.db_page = page;
	st = snic_aq_cmd(d, SNIC_AQ_CREATE_EQ, &c, sizeof(c), &r);
	e->n = r;
	return st;
}

/*
 * The entry of @esz bytes at consumer counter @cons of a ring, if the
 * device wrote it this pass: bit 0 of byte @owner_off is 1 on even passes.
 */
static bool ring_peek(uint64_t ring, uint32_t size, uint32_t cons, void *q,
		      size_t esz, size_t owner_off, int tries)
{
	int want = !((cons / size) & 1);

	while (tries--) {
		qt_memread(qt, ring + (cons & (size - 1)) * esz, q, esz);
		if ((((uint8_t *)q)[owner_off] & 1) == want)
			return true;
	}
	return false;
}

/* The EQE at the consumer counter, if the device wrote it this pass. */
static bool eq_peek(struct eq *e, struct snic_eqe *q, int tries)
{
	return ring_peek(e->ring, e->size, e->cons, q, sizeof(*q),
			 offsetof(struct snic_eqe, owner), tries);
}

static bool eq_poll(struct eq *e, struct snic_eqe *q)
{
	if (!eq_peek(e, q, 200))
		return false;
	e->cons++;
	return true;
}

static bool eq_empty(struct eq *e)
{
	struct snic_eqe q;

	settle();
	return !eq_peek(e, &q, 4);
}

static void eq_arm(struct eq *e)
{
	snic_db(e->d, e->page, SNIC_DB_EQ_ARM, e->n, e->cons);
}

static int cq_create(struct cq *c, struct snic_dev *d, int log, uint32_t eqn,
		     int page)
{
	struct snic_aq_create_cq a = { 0 };
	uint64_t r = ~0ull;
	int st;

	memset(c, 0, sizeof(*c));
	c->d = d;
	c->size = 1u << log;
	c->ring = galloc(sizeof(struct snic_cqe) * c->size, 64);
	c->dbr = galloc(64, 64);
	c->page = page;
	a.ring_addr = c->ring;
	a.dbr_addr = c->dbr;
	a.log_size = log;
	a.eqn = eqn;
	a.db_page = page;
	st = snic_aq_cmd(d, SNIC_AQ_CREATE_CQ, &a, sizeof(a), &r);
	c->n = r;
	return st;
}

static bool cq_peek(struct cq *c, struct snic_cqe *q, int tries)
{
	return ring_peek(c->ring, c->size, c->cons, q, sizeof(*q),
			 offsetof(struct snic_cqe, op_own), tries);
}

/* Take the next CQE: consumer counter + 1, written to the record. */
static bool cq_poll(struct cq *c, struct snic_cqe *q)
{
	if (!cq_peek(c, q, 200))
		return false;
	c->cons++;
	qt_writel(qt, c->dbr, c->cons & 0xffff);
	return true;
}

static bool cq_empty(struct cq *c)
{
	struct snic_cqe q;

	settle();
	return !cq_peek(c, &q, 4);
}

static void cq_arm(struct cq *c)
{
	snic_db(c->d, c->page, SNIC_DB_CQ_ARM, c->n, c->cons);
}

static int sq_create_at(struct sq *s, struct snic_dev *d, int log,
			uint32_t cqn, int page, uint64_t ring, uint64_t dbr)
{
	struct snic_aq_create_sq a = { 0 };
	uint64_t r = ~0ull;
	int st;

	memset(s, 0, sizeof(*s));
	s->d = d;
	s->size = 1u << log;
	s->ring = ring;
	s->dbr = dbr;
	s->page = page;
	a.ring_addr = ring;
	a.dbr_addr = dbr;
	a.log_size = log;
	a.flags = SNIC_SQ_F_RAW_ETH;
	a.cqn = cqn;
	a.db_page = page;
	st = snic_aq_cmd(d, SNIC_AQ_CREATE_SQ, &a, sizeof(a), &r);
	s->n = r;
	return st;
}

static int sq_create(struct sq *s, struct snic_dev *d, int log, uint32_t cqn,
		     int page)
{
	uint64_t ring = galloc(SNIC_WQEBB_SIZE << log, 64);

	return sq_create_at(s, d, log, cqn, page, ring, galloc(64, 64));
}

/* Copy @nbb basic blocks at the producer counter (wrapping); no doorbell. */
static uint16_t sq_put(struct sq *s, const uint8_t *bbs, int nbb)
{
	uint16_t first = s->prod;
	int i;

	for (i = 0; i < nbb; i++, s->prod++)
		qt_memwrite(qt, s->ring + (s->prod & (s->size - 1)) *
			    SNIC_WQEBB_SIZE, bbs + i * SNIC_WQEBB_SIZE,
			    SNIC_WQEBB_SIZE);
	return first;
}

/* Doorbell record, then the doorbell. */
static void sq_ring(struct sq *s)
{
	qt_writel(qt, s->dbr, s->prod & 0xffff);
	snic_db(s->d, s->page, SNIC_DB_SQ, s->n, s->prod);
}

static int rq_create_at(struct rq *r, struct snic_dev *d, int log,
			uint32_t cqn, int page, int type, int lss, int lns,
			uint32_t buf_size, uint64_t dbr)
{
	struct snic_aq_create_rq a = { 0 };
	uint64_t res = ~0ull;
	int st;

	memset(r, 0, sizeof(*r));
	r->d = d;
	r->size = 1u << log;
	r->ring = galloc(sizeof(struct snic_rx_desc) * r->size, 64);
	r->dbr = dbr;
	r->buf_size = buf_size;
	r->bufs = galloc((size_t)buf_size * r->size, 64);
	qt_memset(qt, r->bufs, 0xee, (size_t)buf_size * r->size);
	r->page = page;
	a.ring_addr = r->ring;
	a.dbr_addr = dbr;
	a.log_size = log;
	a.type = type;
	a.cqn = cqn;
	a.db_page = page;
	a.log_stride_size = lss;
	a.log_num_strides = lns;
	st = snic_aq_cmd(d, SNIC_AQ_CREATE_RQ, &a, sizeof(a), &res);
	r->n = res;
	return st;
}

static int rq_create(struct rq *r, struct snic_dev *d, int log, uint32_t cqn,
		     int page)
{
	return rq_create_at(r, d, log, cqn, page, SNIC_RQ_PLAIN, 0, 0, 2048,
			    galloc(64, 64));
}

static uint64_t rq_buf(struct rq *r, uint32_t ctr)
{
	return r->bufs + (uint64_t)(ctr & (r->size - 1)) * r->buf_size;
}

/* Post @n descriptors; record always, doorbell if @db. */
static void rq_post(struct rq *r, int n, bool db)
{
	while (n--) {
		struct snic_rx_desc x = {
			.byte_count = r->buf_size,
			.lkey = 0,
			.addr = rq_buf(r, r->prod),
		};

		qt_memwrite(qt, r->ring + (r->prod & (r->size - 1)) *
			    sizeof(x), &x, sizeof(x));
		r->prod++;
	}
	qt_writel(qt, r->dbr, r->prod & 0xffff);
	if (db)
		snic_db(r->d, r->page, SNIC_DB_RQ, r->n, r->prod);
}

static int rule_add(struct snic_dev *d, const struct snic_steer_rule *r,
		    uint32_t *id)
{
	uint64_t res = ~0ull;
	int st = snic_aq_buf(d, SNIC_AQ_ADD_RULE, r, sizeof(*r), sizeof(*r),
			     0, 0, NULL, 0, &res);

	if (id)
		*id = res;
	return st;
}

static int rule_to_rq(struct snic_dev *d, uint16_t prio, uint32_t rqn,
		      uint32_t *id)
{
	struct snic_steer_rule r = {
		.priority = prio, .dest = SNIC_DEST_RQ, .dest_id = rqn,
	};

	return rule_add(d, &r, id);
}

static int rss_create(struct snic_dev *d, const uint8_t *key, uint32_t fields,
		      uint32_t tsize, const uint32_t *rqn, uint32_t *id)
{
	struct snic_rss_cfg c;
	uint64_t res = ~0ull;
	uint32_t i;
	int st;

	memset(&c, 0, sizeof(c));
	memcpy(c.key, key, SNIC_RSS_KEY_SIZE);
	c.hash_fields = fields;
	c.table_size = tsize;
	for (i = 0; i < tsize && i < SNIC_RSS_TABLE_SIZE; i++)
		c.rqn[i] = rqn[i];
	st = snic_aq_buf(d, SNIC_AQ_CREATE_RSS, &c, sizeof(c), sizeof(c), 0,
			 0, NULL, 0, &res);
	if (id)
		*id = res;
	return st;
}

static int modify_sq_rate(struct snic_dev *d, uint32_t sqn, uint64_t bps,
			  uint32_t burst)
{
	struct snic_aq_modify_sq m = {
		.sqn = sqn, .rate_bps = bps, .burst_bytes = burst,
	};

	return snic_aq_cmd(d, SNIC_AQ_MODIFY_SQ, &m, sizeof(m), NULL);
}

/* TX side: polled CQ (page 2) and an SQ on it. */
static bool tx_setup(struct snic_dev *d, struct cq *cq, struct sq *sq,
		     int sq_log)
{
	return cq_create(cq, d, 8, SNIC_EQN_NONE, 2) == OK &&
	       sq_create(sq, d, sq_log, cq->n, 2) == OK;
}

/* RX side: polled CQ (page 1), a plain RQ with @post buffers, catch-all. */
static bool rx_setup(struct snic_dev *d, struct cq *cq, struct rq *rq,
		     int post)
{
	if (cq_create(cq, d, 8, SNIC_EQN_NONE, 1) != OK ||
	    rq_create(rq, d, 6, cq->n, 1) != OK ||
	    rule_to_rq(d, 1000, rq->n, NULL) != OK)
		return false;
	rq_post(rq, post, true);
	return true;
}

/* ------------------------------------------------------------------ */
/* WQEs                                                                */
/* ------------------------------------------------------------------ */

struct txo {
	uint8_t opcode;		/* SNIC_WQE_* */
	uint8_t flags;		/* SNIC_WQE_F_* */
	uint8_t cs;		/* SNIC_ETH_CS_* */
	uint16_t mss;
	size_t inl;		/* inline header bytes */
	int nseg;		/* data segments for the rest */
	bool no_db;		/* leave the doorbell to the caller */
};

/*
 * Build an Ethernet WQE for @f: ctrl, eth with @o->inl inline bytes, the
 * rest in @o->nseg data segments gathered from fresh RAM.  Returns BBs.
 */
static int wqe_build(uint8_t *bb, uint16_t idx, const uint8_t *f, size_t len,
		     const struct txo *o)
{
	struct snic_wqe_ctrl *ctrl = (void *)bb;
	struct snic_wqe_eth *eth = (void *)(bb + 16);
	size_t inl = o->inl > len ? len : o->inl;
	size_t rest = len - inl, ext = inl > 10 ? (inl - 10 + 15) / 16 : 0;
	int nseg = rest ? (o->nseg ? o->nseg : 1) : 0;
	int ds = 2 + ext + nseg, i;
	uint64_t data = rest ? galloc(rest, 64) : 0;
	size_t off = 0;

	memset(bb, 0, SNIC_WQE_MAX_BBS * SNIC_WQEBB_SIZE);
	ctrl->opcode = o->opcode;
	ctrl->flags = o->flags;
	ctrl->wqe_idx = idx;
	ctrl->ds_cnt = ds;
	eth->cs_flags = o->cs;
	eth->mss = o->mss;
	eth->inline_hdr_sz = inl;
	memcpy(eth->inline_hdr, f, inl < 10 ? inl : 10);
	if (inl > 10)
		memcpy(bb + 32, f + 10, inl - 10);
	if (rest)
		mwrite(data, f + inl, rest);
	for (i = 0; i < nseg; i++) {
		struct snic_wqe_data *ds_ = (void *)(bb + 32 + 16 * (ext + i));
		size_t n = i == nseg - 1 ? rest - off : rest / nseg;

		ds_->byte_count = n;
		ds_->lkey = 0;
		ds_->addr = data + off;
		off += n;
	}
	return (ds + 3) / 4;
}

static uint16_t sq_send_o(struct sq *s, const uint8_t *f, size_t len,
			  const struct txo *o)
{
	uint8_t bb[SNIC_WQE_MAX_BBS * SNIC_WQEBB_SIZE];
	uint16_t first = s->prod;
	int n = wqe_build(bb, first, f, len, o);

	sq_put(s, bb, n);
	if (!o->no_db)
		sq_ring(s);
	return first;
}

/* Plain send: 14 inline bytes, one data segment. */
static uint16_t sq_send(struct sq *s, const uint8_t *f, size_t len,
			bool signal)
{
	struct txo o = {
		.opcode = SNIC_WQE_ETH_SEND,
		.flags = signal ? SNIC_WQE_F_SIGNAL : 0,
		.inl = ETH_HLEN, .nseg = 1,
	};

	return sq_send_o(s, f, len, &o);
}

/* ------------------------------------------------------------------ */
/* Frames, checksums, Toeplitz                                         */
/* ------------------------------------------------------------------ */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint16_t get16(const uint8_t *p)
{
	return p[0] << 8 | p[1];
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static uint32_t sum16(uint32_t s, const uint8_t *p, size_t n)
{
	for (; n > 1; p += 2, n -= 2)
		s += get16(p);
	if (n)
		s += p[0] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

/* Pseudo-header sum of the IPv4 header at @ip for @l4len bytes. */
static uint32_t pseudo(const uint8_t *ip, uint16_t l4len)
{
	return sum16(0, ip + 12, 8) + ip[9] + l4len;
}

static bool ip_ok(const uint8_t *f)
{
	return fold(sum16(0, f + ETH_HLEN, IP_HLEN)) == 0xffff;
}

static size_t l4_csum_off(const uint8_t *f)
{
	return ETH_HLEN + IP_HLEN + (f[ETH_HLEN + 9] == 6 ? 16 : 6);
}

/* TCP/UDP checksum of the frame (IP total length) verifies, nonzero. */
static bool l4_ok(const uint8_t *f)
{
	const uint8_t *ip = f + ETH_HLEN;
	uint16_t l4len = get16(ip + 2) - IP_HLEN;

	return get16(f + l4_csum_off(f)) != 0 &&
	       fold(sum16(pseudo(ip, l4len), ip + IP_HLEN, l4len)) == 0xffff;
}

/* What the device must produce: both checksums filled. */
static void fill_csum(uint8_t *f)
{
	uint8_t *ip = f + ETH_HLEN;
	uint16_t l4len = get16(ip + 2) - IP_HLEN, c;

	put16(ip + 10, 0);
	put16(ip + 10, ~fold(sum16(0, ip, IP_HLEN)));
	put16(f + l4_csum_off(f), 0);
	c = ~fold(sum16(pseudo(ip, l4len), ip + IP_HLEN, l4len));
	if (c == 0 && ip[9] == 17)
		c = 0xffff;
	put16(f + l4_csum_off(f), c);
}

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
static size_t mk_raw(uint8_t *f, const struct flow *fl, size_t plen,
		     unsigned seed)
{
	uint8_t *ip = f + ETH_HLEN, *l4 = ip + IP_HLEN, *pl;
	size_t l4len = (fl->proto == 6 ? TCP_HLEN : UDP_HLEN) + plen;
	size_t i;

	memcpy(f, fl->dmac ? fl->dmac : mac_b, 6);
	memcpy(f + 6, fl->smac ? fl->smac : mac_a, 6);
	put16(f + 12, 0x0800);
	memset(ip, 0, IP_HLEN);
	ip[0] = 0x45;
	put16(ip + 2, IP_HLEN + l4len);
	put16(ip + 4, fl->ip_id);
	put16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = fl->proto;
	put32(ip + 12, fl->sip);
	put32(ip + 16, fl->dip);
	if (fl->proto == 6) {
		memset(l4, 0, TCP_HLEN);
		put16(l4, fl->sport);
		put16(l4 + 2, fl->dport);
		put32(l4 + 4, fl->seq);
		put32(l4 + 8, 0x01020304);
		l4[12] = 0x50;
		l4[13] = fl->tcp_flags ? fl->tcp_flags : TCP_ACK | TCP_PSH;
		put16(l4 + 14, 0xffff);
		pl = l4 + TCP_HLEN;
	} else {
		put16(l4, fl->sport);
		put16(l4 + 2, fl->dport);
		put16(l4 + 4, l4len);
		put16(l4 + 6, 0);
		pl = l4 + UDP_HLEN;
	}
	for (i = 0; i < plen; i++)
		pl[i] = seed + i * 7 + (i >> 8);
	return ETH_HLEN + IP_HLEN + l4len;
}

static size_t mk_frame(uint8_t *f, const struct flow *fl, size_t plen,
		       unsigned seed)
{
	size_t n = mk_raw(f, fl, plen, seed);

	fill_csum(f);
	return n;
}

/* A good UDP frame A -> B of @len bytes in total (>= 42). */
static size_t mk_udp(uint8_t *f, const uint8_t *dmac, size_t len,
		     unsigned seed)
{
	struct flow fl = {
		.dmac = dmac, .sip = IP4(10, 0, 0, 1), .dip = IP4(10, 0, 0, 2),
		.sport = 1000, .dport = 2000, .proto = 17,
	};

	return mk_frame(f, &fl, len - ETH_HLEN - IP_HLEN - UDP_HLEN, seed);
}

static uint32_t toeplitz(const uint8_t *key, const uint8_t *in, size_t n)
{
	uint32_t v = get32(key), h = 0;
	size_t i;
	int b;

	for (i = 0; i < n; i++) {
		for (b = 0; b < 8; b++) {
			if (in[i] & (0x80 >> b))
				h ^= v;
			v = v << 1 | ((key[i + 4] >> (7 - b)) & 1);
		}
	}
	return h;
}

static uint32_t rss_hash(const uint8_t *key, uint32_t sip, uint32_t dip,
			 uint16_t sport, uint16_t dport, bool l4)
{
	uint8_t in[12];

	put32(in, sip);
	put32(in + 4, dip);
	put16(in + 8, sport);
	put16(in + 10, dport);
	return toeplitz(key, in, l4 ? 12 : 8);
}

/* The plain-RQ buffer of RX CQE @e holds exactly @f. */
static bool buf_eq(struct rq *rq, const struct snic_cqe *e, const uint8_t *f,
		   size_t len)
{
	static uint8_t got[70000];

	if (len > sizeof(got))
		return false;
	mread(rq_buf(rq, e->wqe_counter), got, len);
	return !memcmp(got, f, len);
}

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

/* ------------------------------------------------------------------ */
/* Tests                                                               */
/* ------------------------------------------------------------------ */

static void identify_caps(void)
{
	const uint64_t want = SNIC_CAP_ADMINQ | SNIC_CAP_ETH | SNIC_CAP_CSUM |
		SNIC_CAP_TSO | SNIC_CAP_RSS | SNIC_CAP_STEER | SNIC_CAP_VXLAN |
		SNIC_CAP_RATE | SNIC_CAP_STRIDING_RQ;
	struct snic_identify_data id;
	struct snic_port_info pi;
	uint64_t regcaps;
	uint8_t many[SNIC_MAX_MACS][6];
	int i;

	for (i = 0; i < SNIC_MAX_MACS; i++) {
		memcpy(many[i], mac_a, 6);
		many[i][5] = 0x80 + i;
	}

	CHECK(env_start());
	CHECK_EQ(snic_identify(A, &id), OK);
	CHECK_EQ(id.magic, SNIC_ID_MAGIC);
	CHECK_EQ(id.caps & want, want);
	regcaps = snic_rd(A, SNIC_REG_CAPS_LO) |
		  (uint64_t)snic_rd(A, SNIC_REG_CAPS_HI) << 32;
	CHECK_EQ(regcaps, id.caps);
	CHECK(!memcmp(id.mac, mac_a, 6));
	CHECK_EQ(id.max_mtu, SNIC_MAX_MTU);
	CHECK_EQ(id.max_eqs, SNIC_MAX_EQS);
	CHECK_EQ(id.max_cqs, SNIC_MAX_CQS);
	CHECK_EQ(id.max_sqs, SNIC_MAX_SQS);
	CHECK_EQ(id.max_rqs, SNIC_MAX_RQS);
	CHECK_EQ(id.max_rss, SNIC_MAX_RSS);
	CHECK_EQ(id.max_rules, SNIC_MAX_RULES);
	CHECK_EQ(id.db_pages, SNIC_DB_PAGES);
	CHECK_EQ(id.rss_table_size, SNIC_RSS_TABLE_SIZE);
	CHECK_EQ(snic_identify(B, &id), OK);
	CHECK(!memcmp(id.mac, mac_b, 6));

	CHECK_EQ(port_query(A, &pi), OK);
	CHECK_EQ(pi.flags, SNIC_PORT_F_UP);
	CHECK_EQ(pi.link_up, 1);
	CHECK_EQ(pi.speed_mbps, 100000);
	CHECK_EQ(pi.mtu, MTU);
	CHECK(!memcmp(pi.mac, mac_a, 6));
	/* SET_PORT range checks. */
	CHECK_EQ(port_default(A, SNIC_PORT_F_UP, SNIC_MIN_MTU - 1),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(port_default(A, SNIC_PORT_F_UP, SNIC_MAX_MTU + 1),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(port_set(A, SNIC_PORT_F_UP, MTU, many, SNIC_MAX_MACS + 1,
			  SNIC_EQN_NONE), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(port_set(A, SNIC_PORT_F_UP, MTU, many, SNIC_MAX_MACS,
			  SNIC_EQN_NONE), OK);
	CHECK_EQ(port_set(A, SNIC_PORT_F_UP, MTU, &mac_a, 1, 17),
		 SNIC_AQ_ENOENT);
	CHECK_EQ(port_default(A, SNIC_PORT_F_UP, 9000), OK);
	CHECK_EQ(port_query(A, &pi), OK);
	CHECK_EQ(pi.mtu, 9000);
}

/* Good creates return distinct in-range numbers; destroys undo them. */
static void objects_create_destroy(void)
{
	struct eq e, e2;
	struct cq c1, c2;
	struct sq s;
	struct rq r1, r2;
	uint32_t rss, ru[3], tbl[2];
	struct snic_steer_rule rule = { .dest = SNIC_DEST_DROP };
	uint32_t eqn[SNIC_MAX_EQS];
	int i, j;

	CHECK(env_start());
	CHECK_EQ(eq_create(&e, A, 3, 1, 0, 0, 1), OK);
	CHECK_EQ(cq_create(&c1, A, 4, e.n, 1), OK);
	CHECK_EQ(cq_create(&c2, A, 4, SNIC_EQN_NONE, 1), OK);
	CHECK(c1.n != c2.n);
	CHECK_EQ(sq_create(&s, A, 4, c1.n, 1), OK);
	CHECK_EQ(rq_create(&r1, A, 4, c2.n, 1), OK);
	CHECK_EQ(rq_create_at(&r2, A, 4, c2.n, 255, SNIC_RQ_STRIDING, 6, 4,
			      1024, galloc(64, 64)), OK);
	CHECK(r1.n != r2.n);
	tbl[0] = r1.n;
	tbl[1] = r2.n;
	CHECK_EQ(rss_create(A, ms_key, SNIC_RSS_HASH_IPV4, 2, tbl, &rss), OK);
	CHECK_EQ(rule_add(A, &rule, &ru[0]), OK);
	rule.dest = SNIC_DEST_RSS;
	rule.dest_id = rss;
	CHECK_EQ(rule_add(A, &rule, &ru[1]), OK);
	CHECK_EQ(rule_to_rq(A, 3, r1.n, &ru[2]), OK);
	CHECK(ru[0] != ru[1] && ru[1] != ru[2] && ru[0] != ru[2]);

	for (i = 0; i < 3; i++)
		CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DEL_RULE, ru[i]), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_RSS, rss), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_RQ, r1.n), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_RQ, r2.n), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_SQ, s.n), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_CQ, c1.n), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_CQ, c2.n), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_EQ, e.n), OK);
	/* Gone: a second destroy finds nothing. */
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DEL_RULE, ru[0]), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_RSS, rss), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_RQ, r1.n), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_SQ, s.n), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_CQ, c1.n), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_EQ, e.n), SNIC_AQ_ENOENT);
	/* SNIC_MAX_EQS distinct numbers, then ENOSPC; a freed one returns. */
	for (i = 0; i < SNIC_MAX_EQS; i++) {
		CHECK_EQ(eq_create(&e2, A, 1, 0, 0, 0, 0), OK);
		eqn[i] = e2.n;
		for (j = 0; j < i; j++)
			CHECK(eqn[j] != eqn[i]);
	}
	CHECK_EQ(eq_create(&e2, A, 1, 0, 0, 0, 0), SNIC_AQ_ENOSPC);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_EQ, eqn[5]), OK);
	CHECK_EQ(eq_create(&e2, A, 1, 0, 0, 0, 0), OK);
	CHECK_EQ(e2.n, eqn[5]);
}

static int try_eq(uint64_t ring, int log, int msix, int page)
{
	struct snic_aq_create_eq c = {
		.ring_addr = ring, .log_size = log, .msix = msix,
		.db_page = page,
	};

	return snic_aq_cmd(A, SNIC_AQ_CREATE_EQ, &c, sizeof(c), NULL);
}

static int try_cq(uint64_t ring, uint64_t dbr, int log, uint32_t eqn,
		  int page)
{
	struct snic_aq_create_cq c = {
		.ring_addr = ring, .dbr_addr = dbr, .log_size = log,
		.eqn = eqn, .db_page = page,
	};

	return snic_aq_cmd(A, SNIC_AQ_CREATE_CQ, &c, sizeof(c), NULL);
}

static int try_sq(uint64_t ring, uint64_t dbr, int log, uint32_t cqn,
		  int page)
{
	struct snic_aq_create_sq c = {
		.ring_addr = ring, .dbr_addr = dbr, .log_size = log,
		.flags = SNIC_SQ_F_RAW_ETH, .cqn = cqn, .db_page = page,
	};

	return snic_aq_cmd(A, SNIC_AQ_CREATE_SQ, &c, sizeof(c), NULL);
}

static int try_rq(uint64_t ring, uint64_t dbr, int log, int type,
		  uint32_t cqn, int page, int lss, int lns)
{
	struct snic_aq_create_rq c = {
		.ring_addr = ring, .dbr_addr = dbr, .log_size = log,
		.type = type, .cqn = cqn, .db_page = page,
		.log_stride_size = lss, .log_num_strides = lns,
	};

	return snic_aq_cmd(A, SNIC_AQ_CREATE_RQ, &c, sizeof(c), NULL);
}

/* A buffer command whose buffer is not reachable. */
static int try_buf_unmapped(uint8_t opcode, uint32_t len)
{
	struct snic_aq_cmd cmd = { .opcode = opcode };

	cmd.buf.addr = UNMAPPED;
	cmd.buf.len = len;
	return snic_aq_exec(A, &cmd, NULL);
}

/* Every bad-parameter case of the creation checks, ENOENT, EDMA, EBUSY. */
static void objects_bad_params(void)
{
	const int EINV = SNIC_AQ_EINVAL_PARAM, NOENT = SNIC_AQ_ENOENT;
	const int EDMA = SNIC_AQ_EDMA, BUSY = SNIC_AQ_EBUSY;
	struct eq e;
	struct cq c, c2;
	struct sq s;
	struct rq r1, r2;
	struct snic_steer_rule rule = { .dest = SNIC_DEST_RQ };
	struct snic_rss_cfg rc;
	uint64_t ring, dbr;
	uint32_t errs0, nbad = 0, rss, ru1, ru2, tbl[4];
	uint32_t no_eq, no_cq, no_rq;
	int i;

#define BAD(expr, want) do { CHECK_EQ(expr, want); nbad++; } while (0)
	CHECK(env_start());
	ring = galloc(0x10000, 0x1000);
	dbr = galloc(64, 64);
	CHECK_EQ(eq_create(&e, A, 3, 1, 0, 0, 1), OK);
	CHECK_EQ(cq_create(&c, A, 4, e.n, 1), OK);
	CHECK_EQ(cq_create(&c2, A, 4, SNIC_EQN_NONE, 1), OK);
	no_eq = (e.n + 9) % SNIC_MAX_EQS;
	no_cq = c.n + c2.n + 100;
	errs0 = snic_rd(A, SNIC_REG_STAT_AQ_ERRS);

	/* EQ */
	BAD(try_eq(ring + 8, 3, 0, 0), EINV);
	BAD(try_eq(ring + 32, 3, 0, 0), EINV);
	BAD(try_eq(ring, SNIC_MIN_LOG_SIZE - 1, 0, 0), EINV);
	BAD(try_eq(ring, SNIC_MAX_LOG_SIZE + 1, 0, 0), EINV);
	BAD(try_eq(ring, 3, 0, SNIC_DB_PAGES), EINV);
	BAD(try_eq(ring, 3, SNIC_NUM_MSIX, 0), EINV);
	BAD(try_eq(UNMAPPED, 3, 0, 0), EDMA);
	/* CQ */
	BAD(try_cq(ring + 32, dbr, 3, SNIC_EQN_NONE, 0), EINV);
	BAD(try_cq(ring, dbr + 2, 3, SNIC_EQN_NONE, 0), EINV);
	BAD(try_cq(ring, dbr, 0, SNIC_EQN_NONE, 0), EINV);
	BAD(try_cq(ring, dbr, 16, SNIC_EQN_NONE, 0), EINV);
	BAD(try_cq(ring, dbr, 3, SNIC_EQN_NONE, 256), EINV);
	BAD(try_cq(ring, dbr, 3, no_eq, 0), NOENT);
	BAD(try_cq(UNMAPPED, dbr, 3, SNIC_EQN_NONE, 0), EDMA);
	BAD(try_cq(ring, UNMAPPED, 3, SNIC_EQN_NONE, 0), EDMA);
	/* SQ */
	BAD(try_sq(ring + 16, dbr, 3, c.n, 0), EINV);
	BAD(try_sq(ring, dbr + 1, 3, c.n, 0), EINV);
	BAD(try_sq(ring, dbr, 0, c.n, 0), EINV);
	BAD(try_sq(ring, dbr, 16, c.n, 0), EINV);
	BAD(try_sq(ring, dbr, 3, c.n, 300), EINV);
	BAD(try_sq(ring, dbr, 3, no_cq, 0), NOENT);
	BAD(try_sq(UNMAPPED, dbr, 3, c.n, 0), EDMA);
	BAD(try_sq(ring, UNMAPPED + 64, 3, c.n, 0), EDMA);
	/* RQ */
	BAD(try_rq(ring + 16, dbr, 3, SNIC_RQ_PLAIN, c.n, 0, 0, 0), EINV);
	BAD(try_rq(ring, dbr + 3, 3, SNIC_RQ_PLAIN, c.n, 0, 0, 0), EINV);
	BAD(try_rq(ring, dbr, 0, SNIC_RQ_PLAIN, c.n, 0, 0, 0), EINV);
	BAD(try_rq(ring, dbr, 16, SNIC_RQ_PLAIN, c.n, 0, 0, 0), EINV);
	BAD(try_rq(ring, dbr, 3, SNIC_RQ_PLAIN, c.n, 999, 0, 0), EINV);
	BAD(try_rq(ring, dbr, 3, 2, c.n, 0, 0, 0), EINV);
	BAD(try_rq(ring, dbr, 3, SNIC_RQ_STRIDING, c.n, 0, 5, 4), EINV);
	BAD(try_rq(ring, dbr, 3, SNIC_RQ_STRIDING, c.n, 0, 14, 4), EINV);
	BAD(try_rq(ring, dbr, 3, SNIC_RQ_STRIDING, c.n, 0, 6, 0), EINV);
	BAD(try_rq(ring, dbr, 3, SNIC_RQ_STRIDING, c.n, 0, 6, 17), EINV);
	BAD(try_rq(ring, dbr, 3, SNIC_RQ_PLAIN, no_cq, 0, 0, 0), NOENT);
	BAD(try_rq(UNMAPPED, dbr, 3, SNIC_RQ_PLAIN, c.n, 0, 0, 0), EDMA);
	BAD(try_rq(ring, UNMAPPED, 3, SNIC_RQ_PLAIN, c.n, 0, 0, 0), EDMA);
	/* the boundaries themselves are good */
	CHECK_EQ(try_rq(ring, dbr, SNIC_MIN_LOG_SIZE, SNIC_RQ_STRIDING, c2.n,
			SNIC_DB_PAGES - 1, 13, 16), OK);
	CHECK_EQ(try_eq(ring, SNIC_MAX_LOG_SIZE, SNIC_NUM_MSIX - 1, 0), OK);

	CHECK_EQ(sq_create(&s, A, 4, c.n, 1), OK);
	CHECK_EQ(rq_create(&r1, A, 4, c2.n, 1), OK);
	CHECK_EQ(rq_create(&r2, A, 4, c2.n, 1), OK);
	no_rq = r1.n + r2.n + 100;

	/* RSS */
	tbl[0] = r1.n;
	tbl[1] = r1.n;
	tbl[2] = r1.n;
	tbl[3] = r1.n;
	BAD(rss_create(A, ms_key, SNIC_RSS_HASH_IPV4, 0, tbl, NULL), EINV);
	BAD(rss_create(A, ms_key, SNIC_RSS_HASH_IPV4, 3, tbl, NULL), EINV);
	memset(&rc, 0, sizeof(rc));
	rc.table_size = 2 * SNIC_RSS_TABLE_SIZE;
	BAD(snic_aq_buf(A, SNIC_AQ_CREATE_RSS, &rc, sizeof(rc), sizeof(rc), 0,
			0, NULL, 0, NULL), EINV);
	tbl[2] = no_rq;
	BAD(rss_create(A, ms_key, SNIC_RSS_HASH_IPV4, 4, tbl, NULL), NOENT);
	tbl[2] = r1.n;
	BAD(try_buf_unmapped(SNIC_AQ_CREATE_RSS, sizeof(rc)), EDMA);
	CHECK_EQ(rss_create(A, ms_key, SNIC_RSS_HASH_IPV4, 4, tbl, &rss), OK);
	rc.table_size = 1;
	rc.hash_fields = SNIC_RSS_HASH_IPV4;
	rc.rqn[0] = r1.n;
	BAD(snic_aq_buf(A, SNIC_AQ_MODIFY_RSS, &rc, sizeof(rc), sizeof(rc),
			rss + 50, 0, NULL, 0, NULL), NOENT);
	/* Rules */
	rule.dest = 0xff;	/* no such destination (3 is SNIC_DEST_SPIN) */
	BAD(rule_add(A, &rule, NULL), EINV);
	rule.dest = SNIC_DEST_RQ;
	rule.dest_id = no_rq;
	BAD(rule_add(A, &rule, NULL), NOENT);
	rule.dest = SNIC_DEST_RSS;
	rule.dest_id = rss + 50;
	BAD(rule_add(A, &rule, NULL), NOENT);
	BAD(try_buf_unmapped(SNIC_AQ_ADD_RULE, sizeof(rule)), EDMA);
	BAD(modify_sq_rate(A, s.n + 100, 1000000, 0), NOENT);

	/* Destroying what does not exist */
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_EQ, no_eq), NOENT);
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_CQ, no_cq), NOENT);
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_SQ, s.n + 100), NOENT);
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_RQ, no_rq), NOENT);
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_RSS, rss + 50), NOENT);
	BAD(snic_aq_obj(A, SNIC_AQ_DEL_RULE, 400), NOENT);

	/* In use: EBUSY, and nothing is destroyed */
	CHECK_EQ(rule_to_rq(A, 10, r2.n, &ru1), OK);
	rule.dest = SNIC_DEST_RSS;
	rule.dest_id = rss;
	CHECK_EQ(rule_add(A, &rule, &ru2), OK);
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_EQ, e.n), BUSY);	/* CQ c */
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_CQ, c.n), BUSY);	/* SQ s */
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_CQ, c2.n), BUSY);	/* RQs */
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_RQ, r1.n), BUSY);	/* RSS */
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_RQ, r2.n), BUSY);	/* rule */
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_RSS, rss), BUSY);	/* rule */
	CHECK_EQ(snic_rd(A, SNIC_REG_STAT_AQ_ERRS) - errs0, nbad);

	/* Unwound in order, everything goes. */
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DEL_RULE, ru2), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_RSS, rss), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_RQ, r1.n), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DEL_RULE, ru1), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_RQ, r2.n), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_SQ, s.n), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_CQ, c.n), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_EQ, e.n), OK);

	/* Out of numbers: SNIC_MAX_RSS groups, SNIC_MAX_RULES rules. */
	CHECK_EQ(rq_create(&r1, A, 4, c2.n, 1), OK);
	tbl[0] = r1.n;
	for (i = 0; i < SNIC_MAX_RSS; i++)
		CHECK_EQ(rss_create(A, ms_key, SNIC_RSS_HASH_IPV4, 1, tbl, NULL),
			 OK);
	CHECK_EQ(rss_create(A, ms_key, SNIC_RSS_HASH_IPV4, 1, tbl, NULL),
		 SNIC_AQ_ENOSPC);
	rule.dest = SNIC_DEST_DROP;
	for (i = 0; i < SNIC_MAX_RULES; i++)
		CHECK_EQ(rule_add(A, &rule, NULL), OK);
	CHECK_EQ(rule_add(A, &rule, NULL), SNIC_AQ_ENOSPC);
	CHECK(qt_alive(qt));
#undef BAD
}

/* A -> B through the hub: byte-exact frame, every CQE field. */
static void send_receive(void)
{
	struct cq tcq, rcq;
	struct sq sq;
	struct rq rq;
	struct snic_cqe e;
	struct flow tcp = {
		.sip = IP4(10, 0, 0, 1), .dip = IP4(10, 0, 0, 2),
		.sport = 33000, .dport = 80, .proto = 6, .seq = 12345,
	};
	struct txo o = { .opcode = SNIC_WQE_ETH_SEND,
			 .flags = SNIC_WQE_F_SIGNAL };
	uint8_t f[2048], f2[2048], cap[4096], tail[8];
	size_t len, len2;
	uint16_t w;
	int n;

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK(rx_setup(B, &rcq, &rq, 16));

	/* 14 inline bytes + 2 data segments, signaled */
	len = mk_udp(f, mac_b, 200, 1);
	o.inl = ETH_HLEN;
	o.nseg = 2;
	w = sq_send_o(&sq, f, len, &o);
	CHECK_EQ(w, 0);
	CHECK_TX(&tcq, &sq, w, len, &e);
	CHECK_EQ(e.op_own & SNIC_CQE_OWNER, 1);
	CHECK_RX(&rcq, &rq, f, len, &e);
	CHECK_EQ(e.wqe_counter, 0);
	CHECK_EQ(e.syndrome, 0);
	CHECK_EQ(e.l4_proto, 17);
	CHECK_EQ(e.flags & (RX_OK_FLAGS | SNIC_CQE_F_UDP | SNIC_CQE_F_TCP),
		 RX_OK_FLAGS | SNIC_CQE_F_UDP);
	CHECK_EQ(e.flags & (RX_BAD_FLAGS | SNIC_CQE_F_TAG | SNIC_CQE_F_DECAP |
			    SNIC_CQE_F_MPW_LAST), 0);
	/* nothing written past the frame */
	mread(rq_buf(&rq, 0) + len, tail, sizeof(tail));
	CHECK_EQ(tail[0], 0xee);
	CHECK_EQ(tail[7], 0xee);
	/* the wire carried exactly the frame */
	n = cap_recv(cap, sizeof(cap), 1000);
	CHECK_EQ(n, len);
	CHECK(!memcmp(cap, f, len));

	/* unsignaled, then signaled: one TX CQE, for the second */
	len = mk_udp(f, mac_b, 300, 2);
	sq_send(&sq, f, len, false);
	len2 = mk_frame(f2, &tcp, 500, 3);
	w = sq_send(&sq, f2, len2, true);
	CHECK_TX(&tcq, &sq, w, len2, &e);
	CHECK(cq_empty(&tcq));
	CHECK_RX(&rcq, &rq, f, len, &e);
	CHECK_EQ(e.wqe_counter, 1);
	CHECK_RX(&rcq, &rq, f2, len2, &e);
	CHECK_EQ(e.wqe_counter, 2);
	CHECK_EQ(e.l4_proto, 6);
	CHECK_EQ(e.flags & (RX_OK_FLAGS | SNIC_CQE_F_UDP | SNIC_CQE_F_TCP),
		 RX_OK_FLAGS | SNIC_CQE_F_TCP);

	/* all inline (no data segment), then nothing inline (3 segments) */
	len = mk_udp(f, mac_b, 100, 4);
	o.inl = 100;
	o.nseg = 0;
	w = sq_send_o(&sq, f, len, &o);
	CHECK_TX(&tcq, &sq, w, len, &e);
	CHECK_RX(&rcq, &rq, f, len, &e);
	len = mk_udp(f, mac_b, 1514, 5);
	o.inl = 0;
	o.nseg = 3;
	w = sq_send_o(&sq, f, len, &o);
	CHECK_TX(&tcq, &sq, w, len, &e);
	CHECK_RX(&rcq, &rq, f, len, &e);
	/* SNIC_MAX_INLINE inline bytes + 1 data segment (ds_cnt 15) */
	len = mk_udp(f, mac_b, 600, 6);
	o.inl = SNIC_MAX_INLINE;
	o.nseg = 1;
	w = sq_send_o(&sq, f, len, &o);
	CHECK_TX(&tcq, &sq, w, len, &e);
	CHECK_RX(&rcq, &rq, f, len, &e);
	/* B -> A works too (A has no rule: dropped as rx_no_dest) */
	CHECK(qt_alive(qt));
}

/* WQEs that wrap around the SQ end; owner bit over several CQ passes. */
static void ring_wrap(void)
{
	struct cq tcq, rcq;
	struct sq sq;
	struct rq rq;
	struct snic_cqe e;
	struct txo o = { .opcode = SNIC_WQE_ETH_SEND,
			 .flags = SNIC_WQE_F_SIGNAL, .inl = ETH_HLEN,
			 .nseg = 7 };	/* ds_cnt 10: 3 BBs */
	uint8_t f[2048];
	size_t len;
	int i;

	CHECK(env_start());
	CHECK_EQ(cq_create(&tcq, A, 2, SNIC_EQN_NONE, 2), OK);
	CHECK_EQ(sq_create(&sq, A, 3, tcq.n, 2), OK);
	CHECK_EQ(cq_create(&rcq, B, 2, SNIC_EQN_NONE, 1), OK);
	CHECK_EQ(rq_create(&rq, B, 2, rcq.n, 1), OK);
	CHECK_EQ(rule_to_rq(B, 1, rq.n, NULL), OK);
	rq_post(&rq, 4, true);
	for (i = 0; i < 13; i++) {
		uint16_t w;

		len = mk_udp(f, mac_b, 300 + 37 * i, i);
		w = sq_send_o(&sq, f, len, &o);
		CHECK_EQ(w, 3 * i);
		CHECK_TX(&tcq, &sq, w, len, &e);
		CHECK_RX(&rcq, &rq, f, len, &e);
		CHECK_EQ(e.wqe_counter, i);
		rq_post(&rq, 1, i & 1);
	}
}

/* Send @f with checksum flags @cs; return what B received in @got. */
static bool csum_round(struct sq *sq, struct cq *tcq, struct cq *rcq,
		       struct rq *rq, const uint8_t *f, size_t len, uint8_t cs,
		       uint8_t *got, struct snic_cqe *e)
{
	struct txo o = { .opcode = SNIC_WQE_ETH_SEND, .cs = cs,
			 .inl = ETH_HLEN + IP_HLEN + UDP_HLEN, .nseg = 1 };

	sq_send_o(sq, f, len, &o);
	if (!cq_poll(rcq, e) || e->opcode != SNIC_CQE_RX ||
	    e->byte_cnt != len)
		return false;
	mread(rq_buf(rq, e->wqe_counter), got, len);
	return cq_empty(tcq);	/* unsignaled */
}

static void checksum_offload(void)
{
	struct cq tcq, rcq;
	struct sq sq;
	struct rq rq;
	struct snic_cqe e;
	struct snic_port_stats sa0, sa, sb0, sb;
	struct flow udp = {
		.sip = IP4(192, 168, 1, 1), .dip = IP4(192, 168, 1, 2),
		.sport = 5353, .dport = 9999, .proto = 17, .ip_id = 77,
	};
	struct flow tcp = {
		.sip = IP4(172, 16, 0, 1), .dip = IP4(172, 16, 0, 2),
		.sport = 40000, .dport = 443, .proto = 6, .seq = 0xdeadbeef,
	};
	uint8_t f[2048], want[2048], got[2048];
	const size_t uoff = ETH_HLEN + IP_HLEN + 6;	/* UDP checksum */
	const size_t toff = ETH_HLEN + IP_HLEN + 16;	/* TCP checksum */
	size_t len, plen;
	uint16_t x;

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK(rx_setup(B, &rcq, &rq, 32));
	CHECK(pstats(A, &sa0));
	CHECK(pstats(B, &sb0));

	/* 1. UDP, both checksums left zero, L3|L4: the device fills them */
	len = mk_raw(f, &udp, 333, 1);
	memcpy(want, f, len);
	fill_csum(want);
	CHECK(csum_round(&sq, &tcq, &rcq, &rq, f, len,
			 SNIC_ETH_CS_L3 | SNIC_ETH_CS_L4, got, &e));
	CHECK(ip_ok(got));
	CHECK(l4_ok(got));
	CHECK(!memcmp(got, want, len));
	CHECK_EQ(e.flags & (RX_OK_FLAGS | RX_BAD_FLAGS), RX_OK_FLAGS);

	/* 2. TCP, same */
	len = mk_raw(f, &tcp, 1000, 2);
	memcpy(want, f, len);
	fill_csum(want);
	CHECK(csum_round(&sq, &tcq, &rcq, &rq, f, len,
			 SNIC_ETH_CS_L3 | SNIC_ETH_CS_L4, got, &e));
	CHECK(ip_ok(got));
	CHECK(l4_ok(got));
	CHECK(!memcmp(got, want, len));
	CHECK_EQ(e.flags & (RX_OK_FLAGS | RX_BAD_FLAGS), RX_OK_FLAGS);

	/* 3. a UDP datagram whose checksum computes to 0 goes out as 0xffff */
	plen = 100;
	len = mk_raw(f, &udp, plen, 3);
	put16(f + ETH_HLEN + 10, ~fold(sum16(0, f + ETH_HLEN, IP_HLEN)));
	put16(f + len - 2, 0);
	x = fold(sum16(pseudo(f + ETH_HLEN, UDP_HLEN + plen),
		       f + ETH_HLEN + IP_HLEN, UDP_HLEN + plen));
	put16(f + len - 2, ~x);
	CHECK(csum_round(&sq, &tcq, &rcq, &rq, f, len, SNIC_ETH_CS_L4, got,
			 &e));
	CHECK_EQ(get16(got + uoff), 0xffff);
	CHECK(l4_ok(got));
	CHECK(!memcmp(got, f, uoff));
	CHECK_EQ(e.flags & (RX_OK_FLAGS | RX_BAD_FLAGS), RX_OK_FLAGS);

	/* 4. no offload, zero IP checksum: B flags L3_BAD, never L3_OK */
	len = mk_raw(f, &udp, 200, 4);
	CHECK(csum_round(&sq, &tcq, &rcq, &rq, f, len, 0, got, &e));
	CHECK(!memcmp(got, f, len));
	CHECK(e.flags & SNIC_CQE_F_L3_BAD);
	CHECK(!(e.flags & SNIC_CQE_F_L3_OK));

	/* 5. good IP, corrupted UDP checksum: L3_OK, L4_BAD */
	len = mk_frame(f, &udp, 200, 5);
	f[uoff] ^= 0x55;
	CHECK(csum_round(&sq, &tcq, &rcq, &rq, f, len, 0, got, &e));
	CHECK(!memcmp(got, f, len));
	CHECK_EQ(e.flags & (RX_OK_FLAGS | RX_BAD_FLAGS),
		 SNIC_CQE_F_IPV4 | SNIC_CQE_F_L3_OK | SNIC_CQE_F_L4_BAD);

	/* 6. good IP, corrupted TCP checksum */
	len = mk_frame(f, &tcp, 200, 6);
	f[toff + 1] ^= 0x01;
	CHECK(csum_round(&sq, &tcq, &rcq, &rq, f, len, 0, got, &e));
	CHECK_EQ(e.flags & (RX_OK_FLAGS | RX_BAD_FLAGS),
		 SNIC_CQE_F_IPV4 | SNIC_CQE_F_L3_OK | SNIC_CQE_F_L4_BAD);

	/* 7. L3 only: IP checksum filled, TCP checksum left as it was (0) */
	len = mk_raw(f, &tcp, 64, 7);
	CHECK(csum_round(&sq, &tcq, &rcq, &rq, f, len, SNIC_ETH_CS_L3, got,
			 &e));
	CHECK(ip_ok(got));
	CHECK_EQ(get16(got + toff), 0);
	CHECK_EQ(e.flags & (RX_OK_FLAGS | RX_BAD_FLAGS),
		 SNIC_CQE_F_IPV4 | SNIC_CQE_F_L3_OK | SNIC_CQE_F_L4_BAD);

	/* 8. L4 only: TCP checksum filled, IP checksum left wrong (0) */
	len = mk_raw(f, &tcp, 64, 8);
	CHECK(csum_round(&sq, &tcq, &rcq, &rq, f, len, SNIC_ETH_CS_L4, got,
			 &e));
	CHECK_EQ(get16(got + ETH_HLEN + 10), 0);
	CHECK(l4_ok(got));
	CHECK(e.flags & SNIC_CQE_F_L3_BAD);

	CHECK(pstats(A, &sa));
	CHECK(pstats(B, &sb));
	CHECK_EQ(sa.tx_csum - sa0.tx_csum, 5);
	CHECK_EQ(sb.rx_bad_l3 - sb0.rx_bad_l3, 2);
	CHECK_EQ(sb.rx_bad_l4 - sb0.rx_bad_l4, 3);
	CHECK(sb.rx_csum_ok - sb0.rx_csum_ok >= 3);
	CHECK(sb.rx_csum_ok - sb0.rx_csum_ok <= 6);
}

/*
 * Check segment @i of @nseg of a TSO of template @hdr (54 bytes) with
 * payload @pl, @mss: lengths, id, seq, flags, checksums, payload.
 */
static bool tso_seg_ok(const uint8_t *g, size_t glen, const uint8_t *hdr,
		       const uint8_t *pl, size_t plen, size_t mss, int i,
		       int nseg, char *why)
{
	size_t off = (size_t)i * mss;
	size_t n = plen - off < mss ? plen - off : mss;
	uint8_t fl = hdr[ETH_HLEN + IP_HLEN + 13], want_fl = fl;
	const uint8_t *ip = g + ETH_HLEN, *th = ip + IP_HLEN;

	if (i != nseg - 1)
		want_fl &= ~(TCP_FIN | TCP_PSH);
	if (i != 0)
		want_fl &= ~TCP_CWR;
	if (glen != 54 + n)
		return sprintf(why, "seg %d len %zu want %zu", i, glen, 54 + n),
		       false;
	if (memcmp(g, hdr, ETH_HLEN + 2))
		return sprintf(why, "seg %d eth/ip hdr", i), false;
	if (get16(ip + 2) != IP_HLEN + TCP_HLEN + n)
		return sprintf(why, "seg %d tot_len %u", i, get16(ip + 2)),
		       false;
	if (get16(ip + 4) != (uint16_t)(get16(hdr + ETH_HLEN + 4) + i))
		return sprintf(why, "seg %d ip id %#x", i, get16(ip + 4)),
		       false;
	if (memcmp(ip + 6, hdr + ETH_HLEN + 6, 4) ||
	    memcmp(ip + 12, hdr + ETH_HLEN + 12, 8))
		return sprintf(why, "seg %d ip fields", i), false;
	if (get32(th + 4) !=
	    (uint32_t)(get32(hdr + ETH_HLEN + IP_HLEN + 4) + off))
		return sprintf(why, "seg %d seq %#x", i, get32(th + 4)), false;
	if (th[13] != want_fl)
		return sprintf(why, "seg %d tcp flags %#x want %#x", i, th[13],
			       want_fl), false;
	if (memcmp(th, hdr + ETH_HLEN + IP_HLEN, 4) ||
	    memcmp(th + 8, hdr + ETH_HLEN + IP_HLEN + 8, 5) ||
	    memcmp(th + 14, hdr + ETH_HLEN + IP_HLEN + 14, 2))
		return sprintf(why, "seg %d tcp fields", i), false;
	if (!ip_ok(g) || !l4_ok(g))
		return sprintf(why, "seg %d checksum", i), false;
	if (memcmp(th + TCP_HLEN, pl + off, n))
		return sprintf(why, "seg %d payload", i), false;
	return true;
}

#define CHECK_SEG(g, glen, hdr, pl, plen, mss, i, nseg) do {		\
	char _why[128] = "";						\
	if (!tso_seg_ok(g, glen, hdr, pl, plen, mss, i, nseg, _why)) {	\
		check_fail(__FILE__, __LINE__, "TSO %s", _why);		\
		return;							\
	}								\
} while (0)

static void tso(void)
{
	static uint8_t f[70000], g[4096];
	struct cq tcq, rcq;
	struct sq sq;
	struct rq rq;
	struct snic_cqe e;
	struct snic_port_stats s0, s;
	struct flow tcp = {
		.sip = IP4(10, 9, 8, 7), .dip = IP4(10, 9, 8, 6),
		.sport = 5001, .dport = 5002, .proto = 6, .seq = 0xfffff000,
		.ip_id = 0xfffe,
		.tcp_flags = TCP_ACK | TCP_PSH | TCP_FIN | TCP_CWR,
	};
	struct txo o = { .opcode = SNIC_WQE_ETH_TSO,
			 .flags = SNIC_WQE_F_SIGNAL,
			 .cs = SNIC_ETH_CS_L3 | SNIC_ETH_CS_L4,
			 .inl = 54, .nseg = 2 };
	const size_t hl = ETH_HLEN + IP_HLEN + TCP_HLEN;
	size_t len, plen;
	uint16_t w;
	int i, n;

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK(rx_setup(B, &rcq, &rq, 32));
	CHECK(pstats(A, &s0));

	/* 3500 bytes, mss 1000: 1000, 1000, 1000, 500; seq wraps */
	plen = 3500;
	len = mk_raw(f, &tcp, plen, 11);
	o.mss = 1000;
	w = sq_send_o(&sq, f, len, &o);
	CHECK(cq_poll(&tcq, &e));
	CHECK_EQ(e.opcode, SNIC_CQE_TX);
	CHECK_EQ(e.syndrome, 0);
	CHECK_EQ(e.wqe_counter, w);
	CHECK_EQ(e.segs, 4);
	CHECK_EQ(e.byte_cnt, 4 * hl + plen);
	for (i = 0; i < 4; i++) {
		CHECK(cq_poll(&rcq, &e));
		CHECK_EQ(e.opcode, SNIC_CQE_RX);
		CHECK_EQ(e.flags & (RX_OK_FLAGS | RX_BAD_FLAGS | SNIC_CQE_F_TCP),
			 RX_OK_FLAGS | SNIC_CQE_F_TCP);
		mread(rq_buf(&rq, e.wqe_counter), g, e.byte_cnt);
		CHECK_SEG(g, e.byte_cnt, f, f + hl, plen, 1000, i, 4);
		n = cap_recv(g, sizeof(g), 1000);
		CHECK(n > 0);
		CHECK_SEG(g, (size_t)n, f, f + hl, plen, 1000, i, 4);
	}
	CHECK(cq_empty(&rcq));

	/* 2500 bytes in one segment, mss 1200, no checksum flags: a TSO
	 * fills checksums anyway */
	tcp.seq = 1;
	tcp.ip_id = 100;
	plen = 2500;
	len = mk_raw(f, &tcp, plen, 12);
	o.mss = 1200;
	o.cs = 0;
	o.nseg = 1;
	sq_send_o(&sq, f, len, &o);
	CHECK(cq_poll(&tcq, &e));
	CHECK_EQ(e.segs, 3);
	CHECK_EQ(e.byte_cnt, 3 * hl + plen);
	for (i = 0; i < 3; i++) {
		CHECK(cq_poll(&rcq, &e));
		mread(rq_buf(&rq, e.wqe_counter), g, e.byte_cnt);
		CHECK_SEG(g, e.byte_cnt, f, f + hl, plen, 1200, i, 3);
	}

	/* payload below mss: one segment keeping every flag */
	plen = 700;
	len = mk_raw(f, &tcp, plen, 13);
	o.mss = 1000;
	o.cs = SNIC_ETH_CS_L3 | SNIC_ETH_CS_L4;
	sq_send_o(&sq, f, len, &o);
	CHECK(cq_poll(&tcq, &e));
	CHECK_EQ(e.segs, 1);
	CHECK(cq_poll(&rcq, &e));
	mread(rq_buf(&rq, e.wqe_counter), g, e.byte_cnt);
	CHECK_SEG(g, e.byte_cnt, f, f + hl, plen, 1000, 0, 1);

	/* the largest IPv4 template (total length 65535), mss 1460: 45 */
	tcp.seq = 777;
	plen = 65535 - IP_HLEN - TCP_HLEN;
	len = mk_raw(f, &tcp, plen, 14);
	o.mss = 1460;
	o.nseg = 2;
	rq_post(&rq, 24, true);
	sq_send_o(&sq, f, len, &o);
	CHECK(cq_poll(&tcq, &e));
	CHECK_EQ(e.opcode, SNIC_CQE_TX);
	CHECK_EQ(e.segs, (plen + 1459) / 1460);
	for (i = 0; i < 45; i++) {
		CHECK(cq_poll(&rcq, &e));
		mread(rq_buf(&rq, e.wqe_counter), g, e.byte_cnt);
		CHECK_SEG(g, e.byte_cnt, f, f + hl, plen, 1460, i, 45);
	}
	cap_drain();

	CHECK(pstats(A, &s));
	CHECK_EQ(s.tx_tso_frames - s0.tx_tso_frames, 4);
	CHECK_EQ(s.tx_tso_segs - s0.tx_tso_segs, 4 + 3 + 1 + 45);
}

/* Toeplitz per the Microsoft definition, checked, then the device. */
static void rss_toeplitz(void)
{
	struct cq tcq, rcq;
	struct sq sq;
	struct rq rq[4];
	struct snic_cqe e;
	struct snic_rss_cfg rc;
	uint32_t tbl[8], grp, h, want_rq;
	uint8_t f[512];
	size_t len;
	unsigned int i, used = 0;
	int k, proto;

	/* The reference implementation reproduces the published vectors. */
	for (i = 0; i < ARRAY_SIZE(ms_vec); i++) {
		CHECK_EQ(rss_hash(ms_key, ms_vec[i].sip, ms_vec[i].dip,
				  ms_vec[i].sport, ms_vec[i].dport, true),
			 ms_vec[i].h_l4);
		CHECK_EQ(rss_hash(ms_key, ms_vec[i].sip, ms_vec[i].dip, 0, 0,
				  false), ms_vec[i].h_ip);
	}

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK_EQ(cq_create(&rcq, B, 8, SNIC_EQN_NONE, 1), OK);
	for (k = 0; k < 4; k++) {
		CHECK_EQ(rq_create(&rq[k], B, 4, rcq.n, 1), OK);
		rq_post(&rq[k], 16, true);
	}
	/* indirection: hash & 7 -> rq[(hash & 7) % 4] */
	for (k = 0; k < 8; k++)
		tbl[k] = rq[k & 3].n;
	CHECK_EQ(rss_create(B, ms_key, SNIC_RSS_HASH_IPV4 | SNIC_RSS_HASH_L4,
			    8, tbl, &grp), OK);
	{
		struct snic_steer_rule r = { .priority = 1,
					     .dest = SNIC_DEST_RSS,
					     .dest_id = grp };

		CHECK_EQ(rule_add(B, &r, NULL), OK);
	}

	/* each published tuple, as TCP and as UDP */
	for (proto = 6; proto <= 17; proto += 11) {
		for (i = 0; i < ARRAY_SIZE(ms_vec); i++) {
			struct flow fl = {
				.sip = ms_vec[i].sip, .dip = ms_vec[i].dip,
				.sport = ms_vec[i].sport,
				.dport = ms_vec[i].dport, .proto = proto,
			};

			len = mk_frame(f, &fl, 64 + i, i);
			sq_send(&sq, f, len, false);
			h = ms_vec[i].h_l4;
			want_rq = tbl[h & 7];
			CHECK(cq_poll(&rcq, &e));
			CHECK_EQ(e.opcode, SNIC_CQE_RX);
			CHECK_EQ(e.qn, want_rq);
			CHECK(e.flags & SNIC_CQE_F_HASH);
			CHECK_EQ(e.rss_hash, h);
			for (k = 0; k < 4; k++)
				if (rq[k].n == want_rq)
					break;
			CHECK(k < 4);
			CHECK(buf_eq(&rq[k], &e, f, len));
			used |= 1u << k;
		}
	}
	/* the vectors spread over three different queues */
	CHECK_EQ(used, 0x1 | 0x4 | 0x8);

	/* MODIFY_RSS: addresses only, table of 2 */
	memset(&rc, 0, sizeof(rc));
	memcpy(rc.key, ms_key, sizeof(ms_key));
	rc.hash_fields = SNIC_RSS_HASH_IPV4;
	rc.table_size = 2;
	rc.rqn[0] = rq[3].n;
	rc.rqn[1] = rq[1].n;
	CHECK_EQ(snic_aq_buf(B, SNIC_AQ_MODIFY_RSS, &rc, sizeof(rc),
			     sizeof(rc), grp, 0, NULL, 0, NULL), OK);
	for (i = 0; i < ARRAY_SIZE(ms_vec); i++) {
		struct flow fl = {
			.sip = ms_vec[i].sip, .dip = ms_vec[i].dip,
			.sport = ms_vec[i].sport, .dport = ms_vec[i].dport,
			.proto = 6,
		};

		len = mk_frame(f, &fl, 80, i);
		sq_send(&sq, f, len, false);
		h = ms_vec[i].h_ip;
		CHECK(cq_poll(&rcq, &e));
		CHECK_EQ(e.rss_hash, h);
		CHECK_EQ(e.qn, rc.rqn[h & 1]);
	}
}

/* Shared by the steering tests: A sends, B has rq[0..nrq-1] on rcq. */
static struct {
	struct cq tcq, rcq;
	struct sq sq;
	struct rq rq[4];
	int nrq;
} fx;

static bool fx_setup(int nrq)
{
	int k;

	if (!env_start() || !tx_setup(A, &fx.tcq, &fx.sq, 6) ||
	    cq_create(&fx.rcq, B, 8, SNIC_EQN_NONE, 1) != OK)
		return false;
	for (k = 0; k < nrq; k++) {
		if (rq_create(&fx.rq[k], B, 5, fx.rcq.n, 1) != OK)
			return false;
		rq_post(&fx.rq[k], 32, true);
	}
	fx.nrq = nrq;
	return true;
}

/*
 * Send @f from A; the index of B's RQ that got it (contents checked), -1
 * if none did, -2 on a content mismatch.
 */
static int deliver(const uint8_t *f, size_t len, struct snic_cqe *e)
{
	int k;

	sq_send(&fx.sq, f, len, false);
	if (!cq_poll(&fx.rcq, e))
		return -1;
	for (k = 0; k < fx.nrq; k++)
		if (fx.rq[k].n == e->qn)
			return e->opcode == SNIC_CQE_RX && e->byte_cnt == len &&
			       buf_eq(&fx.rq[k], e, f, len) ? k : -2;
	return -3;
}

static size_t mk_flow(uint8_t *f, const uint8_t *dmac, uint8_t proto,
		      uint32_t sip, uint32_t dip, uint16_t sport,
		      uint16_t dport)
{
	struct flow fl = { .dmac = dmac, .sip = sip, .dip = dip,
			   .sport = sport, .dport = dport, .proto = proto };

	return mk_frame(f, &fl, 100, sport ^ dport);
}

static void steering_rules(void)
{
	const uint32_t ip1 = IP4(10, 0, 0, 1), ip2 = IP4(10, 0, 0, 2);
	struct snic_steer_rule r;
	struct snic_rule_stats rs;
	struct snic_port_stats s0, s;
	struct snic_cqe e;
	uint32_t c, h, h2, rdrop, rdm, id;
	uint8_t f[2048];
	size_t len, l1, l2;

	CHECK(fx_setup(3));
	CHECK(pstats(B, &s0));
	len = mk_flow(f, mac_b, 17, ip1, ip2, 1000, 4000);
	CHECK_EQ(deliver(f, len, &e), -1);		/* no rule at all */
	CHECK_EQ(rule_to_rq(B, 100, fx.rq[0].n, &c), OK);
	CHECK_EQ(deliver(f, len, &e), 0);
	CHECK_EQ(e.flags & SNIC_CQE_F_TAG, 0);

	/* priority: lower value first; equal priority, lower id first */
	CHECK_EQ(rule_to_rq(B, 10, fx.rq[1].n, &h), OK);
	CHECK_EQ(deliver(f, len, &e), 1);
	CHECK_EQ(rule_to_rq(B, 10, fx.rq[2].n, &h2), OK);
	CHECK_EQ(deliver(f, len, &e), h < h2 ? 1 : 2);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DEL_RULE, h < h2 ? h : h2), OK);
	CHECK_EQ(deliver(f, len, &e), h < h2 ? 2 : 1);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DEL_RULE, h < h2 ? h2 : h), OK);
	CHECK_EQ(deliver(f, len, &e), 0);
	/* a low-priority rule added later does not win */
	CHECK_EQ(rule_to_rq(B, 200, fx.rq[2].n, &id), OK);
	CHECK_EQ(deliver(f, len, &e), 0);

	/* destination port + TAG */
	memset(&r, 0, sizeof(r));
	r.match = SNIC_MATCH_DST_PORT;
	r.priority = 5;
	r.dest = SNIC_DEST_RQ;
	r.dest_id = fx.rq[1].n;
	r.actions = SNIC_ACT_TAG;
	r.flow_tag = 0xabc123;
	r.dst_port = htons(5000);
	CHECK_EQ(rule_add(B, &r, NULL), OK);
	len = mk_flow(f, mac_b, 17, ip1, ip2, 1000, 5000);
	CHECK_EQ(deliver(f, len, &e), 1);
	CHECK(e.flags & SNIC_CQE_F_TAG);
	CHECK_EQ(e.flow_tag, 0xabc123);
	len = mk_flow(f, mac_b, 6, ip1, ip2, 1000, 5000);	/* TCP too */
	CHECK_EQ(deliver(f, len, &e), 1);
	len = mk_flow(f, mac_b, 17, ip1, ip2, 1000, 5001);
	CHECK_EQ(deliver(f, len, &e), 0);
	CHECK_EQ(e.flags & SNIC_CQE_F_TAG, 0);

	/* destination IP under mask AND protocol */
	memset(&r, 0, sizeof(r));
	r.match = SNIC_MATCH_DST_IP | SNIC_MATCH_IP_PROTO;
	r.priority = 6;
	r.dest_id = fx.rq[2].n;
	r.dst_ip = htonl(IP4(10, 1, 2, 0));
	r.dst_ip_mask = htonl(0xffffff00);
	r.ip_proto = 6;
	CHECK_EQ(rule_add(B, &r, NULL), OK);
	len = mk_flow(f, mac_b, 6, ip1, IP4(10, 1, 2, 9), 1, 7000);
	CHECK_EQ(deliver(f, len, &e), 2);
	len = mk_flow(f, mac_b, 17, ip1, IP4(10, 1, 2, 9), 1, 7000);
	CHECK_EQ(deliver(f, len, &e), 0);
	len = mk_flow(f, mac_b, 6, ip1, IP4(10, 1, 3, 9), 1, 7000);
	CHECK_EQ(deliver(f, len, &e), 0);

	/* source IP /16 AND source port */
	memset(&r, 0, sizeof(r));
	r.match = SNIC_MATCH_SRC_IP | SNIC_MATCH_SRC_PORT;
	r.priority = 7;
	r.dest_id = fx.rq[1].n;
	r.src_ip = htonl(IP4(10, 7, 0, 0));
	r.src_ip_mask = htonl(0xffff0000);
	r.src_port = htons(1234);
	CHECK_EQ(rule_add(B, &r, NULL), OK);
	len = mk_flow(f, mac_b, 17, IP4(10, 7, 200, 1), ip2, 1234, 80);
	CHECK_EQ(deliver(f, len, &e), 1);
	len = mk_flow(f, mac_b, 17, IP4(10, 7, 200, 1), ip2, 1235, 80);
	CHECK_EQ(deliver(f, len, &e), 0);
	len = mk_flow(f, mac_b, 17, IP4(10, 8, 200, 1), ip2, 1234, 80);
	CHECK_EQ(deliver(f, len, &e), 0);

	/* destination MAC + COUNT */
	memset(&r, 0, sizeof(r));
	r.match = SNIC_MATCH_DMAC;
	r.priority = 8;
	r.dest_id = fx.rq[2].n;
	r.actions = SNIC_ACT_COUNT;
	memcpy(r.dmac, mac_bcast, 6);
	CHECK_EQ(rule_add(B, &r, &rdm), OK);
	l1 = mk_flow(f, mac_bcast, 17, ip1, ip2, 9, 9);
	CHECK_EQ(deliver(f, l1, &e), 2);
	l2 = mk_udp(f, mac_bcast, 777, 9);
	CHECK_EQ(deliver(f, l2, &e), 2);
	len = mk_flow(f, mac_b, 17, ip1, ip2, 9, 9);
	CHECK_EQ(deliver(f, len, &e), 0);
	CHECK_EQ(snic_query_stats(B, SNIC_STATS_RULE, rdm, &rs, sizeof(rs)),
		 OK);
	CHECK_EQ(rs.packets, 2);
	CHECK_EQ(rs.bytes, l1 + l2);

	/* ethertype, on a non-IP frame */
	memset(&r, 0, sizeof(r));
	r.match = SNIC_MATCH_ETHERTYPE;
	r.priority = 9;
	r.dest_id = fx.rq[1].n;
	r.ethertype = htons(0x88b5);
	CHECK_EQ(rule_add(B, &r, NULL), OK);
	memcpy(f, mac_b, 6);
	memcpy(f + 6, mac_a, 6);
	put16(f + 12, 0x88b5);
	memset(f + 14, 0x3c, 100);
	CHECK_EQ(deliver(f, 114, &e), 1);
	CHECK_EQ(e.flags & (SNIC_CQE_F_IPV4 | SNIC_CQE_F_L3_OK |
			    SNIC_CQE_F_L4_OK | SNIC_CQE_F_TCP |
			    SNIC_CQE_F_UDP), 0);

	/* DROP beats everything at priority 1, and counts */
	memset(&r, 0, sizeof(r));
	r.match = SNIC_MATCH_DST_PORT;
	r.priority = 1;
	r.dest = SNIC_DEST_DROP;
	r.actions = SNIC_ACT_COUNT;
	r.dst_port = htons(5000);
	CHECK_EQ(rule_add(B, &r, &rdrop), OK);
	len = mk_flow(f, mac_b, 17, ip1, ip2, 1000, 5000);
	CHECK_EQ(deliver(f, len, &e), -1);
	CHECK_EQ(snic_query_stats(B, SNIC_STATS_RULE, rdrop, &rs, sizeof(rs)),
		 OK);
	CHECK_EQ(rs.packets, 1);
	CHECK_EQ(rs.bytes, len);

	/* without the catch-all (and the low one), no destination */
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DEL_RULE, c), OK);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DEL_RULE, id), OK);
	len = mk_flow(f, mac_b, 17, ip1, ip2, 1000, 4001);
	CHECK_EQ(deliver(f, len, &e), -1);
	CHECK(pstats(B, &s));
	CHECK_EQ(s.rx_rule_drop - s0.rx_rule_drop, 1);
	CHECK_EQ(s.rx_no_dest - s0.rx_no_dest, 2);
}

/* Outer Ethernet/IPv4/UDP(@dport)/VXLAN(@vni) around @in. */
static size_t mk_vxlan(uint8_t *f, uint32_t vni, uint16_t dport,
		       const uint8_t *in, size_t in_len)
{
	struct flow fl = { .sip = IP4(10, 0, 0, 1), .dip = IP4(10, 0, 0, 2),
			   .sport = 40000, .dport = dport, .proto = 17 };
	size_t len = mk_raw(f, &fl, 8 + in_len, 0);
	uint8_t *vx = f + ETH_HLEN + IP_HLEN + UDP_HLEN;

	memset(vx, 0, 8);
	vx[0] = 0x08;
	vx[4] = vni >> 16;
	vx[5] = vni >> 8;
	vx[6] = vni;
	memcpy(vx + 8, in, in_len);
	fill_csum(f);
	return len;
}

static void vxlan_decap(void)
{
	static const uint8_t imac_d[6] = { 0x02, 0, 0, 0, 0, 0x0b };
	static const uint8_t imac_s[6] = { 0x02, 0, 0, 0, 0, 0x0a };
	struct flow ifl = { .dmac = imac_d, .smac = imac_s,
			    .sip = IP4(192, 168, 7, 1),
			    .dip = IP4(192, 168, 7, 2),
			    .sport = 3333, .dport = 4444, .proto = 17 };
	struct snic_steer_rule r;
	struct snic_port_stats s0, s;
	struct snic_rule_stats rs;
	struct snic_cqe e;
	uint8_t in[512], f[600];
	uint32_t rid, grp, tbl[2], h;
	size_t ilen, len;

	CHECK(fx_setup(4));
	CHECK(pstats(B, &s0));
	CHECK_EQ(rule_to_rq(B, 100, fx.rq[0].n, NULL), OK);
	memset(&r, 0, sizeof(r));
	r.match = SNIC_MATCH_VNI;
	r.priority = 1;
	r.dest_id = fx.rq[1].n;
	r.actions = SNIC_ACT_DECAP | SNIC_ACT_TAG | SNIC_ACT_COUNT;
	r.flow_tag = 0x42;
	r.vni = 42;
	CHECK_EQ(rule_add(B, &r, &rid), OK);

	/* VNI 42: the inner frame, byte for byte, flagged DECAP + TAG */
	ilen = mk_frame(in, &ifl, 150, 21);
	len = mk_vxlan(f, 42, SNIC_VXLAN_PORT, in, ilen);
	CHECK_EQ(len, ilen + 50);
	sq_send(&fx.sq, f, len, false);
	CHECK_RX(&fx.rcq, &fx.rq[1], in, ilen, &e);
	CHECK_EQ(e.flags & (SNIC_CQE_F_DECAP | SNIC_CQE_F_TAG | RX_BAD_FLAGS),
		 SNIC_CQE_F_DECAP | SNIC_CQE_F_TAG);
	CHECK_EQ(e.flow_tag, 0x42);
	CHECK_EQ(snic_query_stats(B, SNIC_STATS_RULE, rid, &rs, sizeof(rs)),
		 OK);
	CHECK_EQ(rs.packets, 1);

	/* another VNI, or another UDP port: the outer frame, untouched */
	len = mk_vxlan(f, 43, SNIC_VXLAN_PORT, in, ilen);
	CHECK_EQ(deliver(f, len, &e), 0);
	CHECK_EQ(e.flags & SNIC_CQE_F_DECAP, 0);
	len = mk_vxlan(f, 42, SNIC_VXLAN_PORT + 1, in, ilen);
	CHECK_EQ(deliver(f, len, &e), 0);
	CHECK_EQ(e.flags & SNIC_CQE_F_DECAP, 0);

	/* DECAP to an RSS group: the hash is the inner flow's */
	tbl[0] = fx.rq[2].n;
	tbl[1] = fx.rq[3].n;
	CHECK_EQ(rss_create(B, ms_key, SNIC_RSS_HASH_IPV4 | SNIC_RSS_HASH_L4,
			    2, tbl, &grp), OK);
	r.vni = 0x123456;
	r.dest = SNIC_DEST_RSS;
	r.dest_id = grp;
	r.actions = SNIC_ACT_DECAP;
	CHECK_EQ(rule_add(B, &r, NULL), OK);
	len = mk_vxlan(f, 0x123456, SNIC_VXLAN_PORT, in, ilen);
	h = rss_hash(ms_key, ifl.sip, ifl.dip, ifl.sport, ifl.dport, true);
	sq_send(&fx.sq, f, len, false);
	CHECK_RX(&fx.rcq, &fx.rq[2 + (h & 1)], in, ilen, &e);
	CHECK(e.flags & SNIC_CQE_F_DECAP);
	CHECK(e.flags & SNIC_CQE_F_HASH);
	CHECK_EQ(e.rss_hash, h);
	CHECK_EQ(e.flags & SNIC_CQE_F_TAG, 0);

	CHECK(pstats(B, &s));
	CHECK_EQ(s.rx_decap - s0.rx_decap, 2);
}

static void mac_filter(void)
{
	const uint8_t two[2][6] = {
		{ 0x52, 0x54, 0x00, 0x00, 0x00, 0x02 },
		{ 0x52, 0x54, 0x00, 0x00, 0x00, 0x77 },
	};
	struct snic_port_stats s0, s;
	struct snic_cqe e;
	uint8_t f[512];
	size_t len;

	CHECK(fx_setup(1));
	CHECK_EQ(rule_to_rq(B, 100, fx.rq[0].n, NULL), OK);
	CHECK(pstats(B, &s0));
	len = mk_udp(f, mac_b, 100, 1);
	CHECK_EQ(deliver(f, len, &e), 0);
	len = mk_udp(f, mac_other, 100, 2);
	CHECK_EQ(deliver(f, len, &e), -1);
	len = mk_udp(f, mac_bcast, 100, 3);
	CHECK_EQ(deliver(f, len, &e), 0);
	len = mk_udp(f, mac_mcast, 100, 4);
	CHECK_EQ(deliver(f, len, &e), -1);
	CHECK(pstats(B, &s));
	CHECK_EQ(s.rx_filtered - s0.rx_filtered, 2);

	/* ALLMULTI: any multicast, still no foreign unicast */
	CHECK_EQ(port_default(B, SNIC_PORT_F_UP | SNIC_PORT_F_ALLMULTI, MTU),
		 OK);
	len = mk_udp(f, mac_mcast, 100, 5);
	CHECK_EQ(deliver(f, len, &e), 0);
	len = mk_udp(f, mac_other, 100, 6);
	CHECK_EQ(deliver(f, len, &e), -1);
	/* PROMISC: everything */
	CHECK_EQ(port_default(B, SNIC_PORT_F_UP | SNIC_PORT_F_PROMISC, MTU),
		 OK);
	len = mk_udp(f, mac_other, 100, 7);
	CHECK_EQ(deliver(f, len, &e), 0);
	/* a second configured unicast address, no promisc */
	CHECK_EQ(port_set(B, SNIC_PORT_F_UP, MTU, two, 2, SNIC_EQN_NONE), OK);
	len = mk_udp(f, mac_other, 100, 8);
	CHECK_EQ(deliver(f, len, &e), 0);
	len = mk_udp(f, mac_b, 100, 9);
	CHECK_EQ(deliver(f, len, &e), 0);
	len = mk_udp(f, mac_mcast, 100, 10);
	CHECK_EQ(deliver(f, len, &e), -1);
	CHECK(pstats(B, &s));
	CHECK_EQ(s.rx_filtered - s0.rx_filtered, 4);
}

/* Multi-packet RQ: 16 strides of 64 bytes per descriptor. */
static void striding_rq(void)
{
	/* send (0: none) before looking for the next CQE, and that CQE */
	static const struct {
		size_t send, len;
		uint16_t desc, stride, nstr;
		bool last;
	} step[] = {
		{ 64, 64, 0, 0, 1, false },
		{ 100, 100, 0, 1, 2, false },
		{ 200, 200, 0, 3, 4, false },
		{ 300, 300, 0, 7, 5, false },
		{ 300, 0, 0, 12, 4, true },	/* filler: 300 does not fit */
		{ 0, 300, 1, 0, 5, false },
		{ 700, 700, 1, 5, 11, true },	/* takes the last stride */
		{ 64, 64, 2, 0, 1, false },
		{ 1024, 0, 2, 1, 15, true },	/* filler */
		{ 0, 1024, 3, 0, 16, true },	/* a whole buffer */
	};
	struct cq tcq, rcq;
	struct sq sq;
	struct rq rq;
	struct snic_cqe e;
	uint8_t f[2048], got[2048];
	size_t len = 0;
	unsigned int i;

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK_EQ(cq_create(&rcq, B, 6, SNIC_EQN_NONE, 1), OK);
	CHECK_EQ(rq_create_at(&rq, B, 2, rcq.n, 1, SNIC_RQ_STRIDING, 6, 4,
			      1024, galloc(64, 64)), OK);
	CHECK_EQ(rule_to_rq(B, 1, rq.n, NULL), OK);
	rq_post(&rq, 4, true);
	for (i = 0; i < ARRAY_SIZE(step); i++) {
		if (step[i].send) {
			len = mk_udp(f, mac_b, step[i].send, i);
			sq_send(&sq, f, len, false);
		}
		CHECK(cq_poll(&rcq, &e));
		CHECK_EQ(e.opcode, SNIC_CQE_RX);
		CHECK_EQ(e.qn, rq.n);
		CHECK_EQ(e.byte_cnt, step[i].len);
		CHECK_EQ(e.wqe_counter, step[i].desc);
		CHECK_EQ(e.stride_idx, step[i].stride);
		CHECK_EQ(e.num_strides, step[i].nstr);
		CHECK_EQ(!!(e.flags & SNIC_CQE_F_MPW_LAST), step[i].last);
		if (step[i].len) {
			mread(rq_buf(&rq, step[i].desc) + 64 * step[i].stride,
			      got, len);
			CHECK(!memcmp(got, f, len));
			CHECK_EQ(e.flags & RX_OK_FLAGS, RX_OK_FLAGS);
		}
	}
	CHECK(cq_empty(&rcq));
}

/* Take every CQE already written; returns how many, keeps the last. */
static int cq_drain(struct cq *c, struct snic_cqe *last, int *nerr)
{
	struct snic_cqe e;
	int n = 0;

	settle();
	while (cq_peek(c, &e, 2)) {
		c->cons++;
		qt_writel(qt, c->dbr, c->cons & 0xffff);
		if (nerr && e.opcode != SNIC_CQE_TX)
			(*nerr)++;

		*last = e;
		n++;
	}
	return n;
}

static void rate_limiter(void)
{
	struct cq tcq, rcq;
	struct sq sq;
	struct rq rq;
	struct snic_cqe e, first;
	struct snic_port_stats s0, s;
	struct txo o = { .opcode = SNIC_WQE_ETH_SEND,
			 .flags = SNIC_WQE_F_SIGNAL, .inl = ETH_HLEN,
			 .nseg = 1, .no_db = true };
	uint8_t f[1500];
	size_t len;
	int i, t, total, n, nerr = 0;

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK(rx_setup(B, &rcq, &rq, 32));
	CHECK(pstats(A, &s0));
	/* 8 Mbit/s = 1 byte per microsecond; default bucket: one frame */
	CHECK_EQ(modify_sq_rate(A, sq.n, 8000000, 0), OK);
	len = mk_udp(f, mac_b, 1000, 1);
	for (i = 0; i < 10; i++)
		sq_send_o(&sq, f, len, &o);
	sq_ring(&sq);
	total = cq_drain(&tcq, &first, &nerr);
	CHECK(total >= 1);
	CHECK(total <= 3);
	for (t = 1; t <= 15 && total < 10; t++) {
		qt_clock_step(qt, 1000000);
		n = cq_drain(&tcq, &e, &nerr);
		total += n;
		/* never faster than the rate plus the bucket */
		CHECK(total <= t + 3);
		if (t == 5)
			CHECK(total < 10);
	}
	CHECK_EQ(nerr, 0);
	CHECK_EQ(total, 10);
	CHECK(e.timestamp - first.timestamp >= 6500000);
	CHECK(e.timestamp - first.timestamp <= 12000000);
	CHECK(pstats(A, &s));
	CHECK(s.tx_rate_delays > s0.tx_rate_delays);
	CHECK_EQ(s.tx_packets - s0.tx_packets, 10);

	/* rate 0: no limit, ten frames at once */
	CHECK_EQ(modify_sq_rate(A, sq.n, 0, 0), OK);
	for (i = 0; i < 10; i++)
		sq_send_o(&sq, f, len, &o);
	sq_ring(&sq);
	CHECK_EQ(cq_drain(&tcq, &e, &nerr), 10);
	CHECK_EQ(nerr, 0);

	/* a deep bucket lets a burst through, then the rate holds again */
	CHECK_EQ(modify_sq_rate(A, sq.n, 8000000, 5500), OK);
	for (i = 0; i < 10; i++)
		sq_send_o(&sq, f, len, &o);
	sq_ring(&sq);
	n = cq_drain(&tcq, &e, &nerr);
	CHECK(n >= 5);
	CHECK(n <= 7);
	qt_clock_step(qt, 1000000);
	n += cq_drain(&tcq, &e, &nerr);
	CHECK(n <= 8);
	qt_clock_step(qt, 10000000);
	n += cq_drain(&tcq, &e, &nerr);
	CHECK_EQ(n, 10);
}

/* CQ -> EQ -> MSI-X: arming, one-shot, arm-behind, moderation. */
static void events_and_moderation(void)
{
	struct eq eq, eq2, eq3;
	struct cq tcq, cq2, cq3, rcq;
	struct sq sq, sq2, sq3;
	struct rq rq;
	struct snic_eqe q;
	struct snic_cqe e;
	struct snic_port_stats s0, s;
	uint8_t f[256];
	size_t len;
	uint32_t irqs0;
	int k;

	CHECK(env_start());
	CHECK(rx_setup(B, &rcq, &rq, 60));
	CHECK_EQ(eq_create(&eq, A, 3, 1, 0, 0, 3), OK);
	CHECK_EQ(cq_create(&tcq, A, 4, eq.n, 3), OK);
	CHECK_EQ(sq_create(&sq, A, 6, tcq.n, 3), OK);
	len = mk_udp(f, mac_b, 100, 1);
	CHECK(pstats(A, &s0));
	msi_clear(A, 1);
	irqs0 = snic_rd(A, SNIC_REG_STAT_IRQS);

	/* not armed: the CQE, no EQE, no interrupt */
	sq_send(&sq, f, len, true);
	CHECK(cq_poll(&tcq, &e));
	CHECK(eq_empty(&eq));
	CHECK_EQ(msi_read(A, 1), 0);

	/* CQ armed, EQ armed: one EQE and one MSI-X write */
	cq_arm(&tcq);
	eq_arm(&eq);
	settle();
	CHECK(eq_empty(&eq));
	sq_send(&sq, f, len, true);
	CHECK(cq_poll(&tcq, &e));
	CHECK(eq_poll(&eq, &q));
	CHECK_EQ(q.type, SNIC_EQE_COMPLETION);
	CHECK_EQ(q.obj, tcq.n);
	CHECK_EQ(q.owner & SNIC_EQE_OWNER, 1);
	CHECK_EQ(msi_read(A, 1), msi_data(A, 1));
	/* admin completions (vector 0) are counted too: at least one more */
	CHECK(snic_rd(A, SNIC_REG_STAT_IRQS) - irqs0 >= 1);

	/* both disarmed now: another completion raises nothing */
	msi_clear(A, 1);
	sq_send(&sq, f, len, true);
	CHECK(cq_peek(&tcq, &e, 200));	/* left unconsumed */
	CHECK(eq_empty(&eq));
	CHECK_EQ(msi_read(A, 1), 0);

	/* arming behind the producer raises the event at once; the EQ is
	 * not armed, so no interrupt */
	cq_arm(&tcq);
	CHECK(eq_poll(&eq, &q));
	CHECK_EQ(q.type, SNIC_EQE_COMPLETION);
	CHECK_EQ(q.obj, tcq.n);
	CHECK_EQ(msi_read(A, 1), 0);
	CHECK(cq_poll(&tcq, &e));
	CHECK(pstats(A, &s));
	CHECK_EQ(s.eq_events - s0.eq_events, 2);
	CHECK_EQ(s.eq_irqs - s0.eq_irqs, 1);

	/* mod_count 3: the interrupt waits for the third EQE */
	CHECK_EQ(eq_create(&eq2, A, 3, 2, 0, 3, 3), OK);
	CHECK_EQ(cq_create(&cq2, A, 4, eq2.n, 3), OK);
	CHECK_EQ(sq_create(&sq2, A, 6, cq2.n, 3), OK);
	msi_clear(A, 2);
	eq_arm(&eq2);
	for (k = 1; k <= 3; k++) {
		cq_arm(&cq2);
		sq_send(&sq2, f, len, true);
		CHECK(cq_poll(&cq2, &e));
		CHECK(eq_peek(&eq2, &q, 200));
		eq2.cons++;
		CHECK_EQ(q.obj, cq2.n);
		settle();
		CHECK_EQ(msi_read(A, 2), k < 3 ? 0 : msi_data(A, 2));
	}

	/* mod_usecs 100: the interrupt waits 100 us of virtual time */
	CHECK_EQ(eq_create(&eq3, A, 3, 3, 100, 0, 4), OK);
	CHECK_EQ(cq_create(&cq3, A, 4, eq3.n, 4), OK);
	CHECK_EQ(sq_create(&sq3, A, 6, cq3.n, 4), OK);
	msi_clear(A, 3);
	eq_arm(&eq3);
	cq_arm(&cq3);
	sq_send(&sq3, f, len, true);
	CHECK(cq_poll(&cq3, &e));
	CHECK(eq_poll(&eq3, &q));
	settle();
	CHECK_EQ(msi_read(A, 3), 0);
	qt_clock_step(qt, 50000);
	settle();
	CHECK_EQ(msi_read(A, 3), 0);
	qt_clock_step(qt, 60000);
	settle();
	CHECK_EQ(msi_read(A, 3), msi_data(A, 3));
}

static void statistics(void)
{
	struct cq tcq, rcq;
	struct sq sq;
	struct rq rq;
	struct snic_cqe e;
	struct snic_port_stats pa0, pa, pb0, pb;
	struct snic_pcie_stats dev0, dev1;
	struct snic_queue_stats sqs0, sqs, sqs2, rqs;
	uint8_t f[256], small[8];
	uint64_t qom;
	char text[8192];
	size_t len;
	int i;

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK_EQ(cq_create(&rcq, B, 8, SNIC_EQN_NONE, 1), OK);
	CHECK_EQ(rq_create(&rq, B, 4, rcq.n, 1), OK);
	CHECK_EQ(rule_to_rq(B, 1, rq.n, NULL), OK);
	rq_post(&rq, 5, true);
	CHECK(pstats(A, &pa0));
	CHECK(pstats(B, &pb0));
	CHECK_EQ(snic_query_stats(A, SNIC_STATS_PCIE, 0, &dev0, sizeof(dev0)),
		 OK);
	CHECK(qstats(A, SNIC_STATS_SQ, sq.n, &sqs0));
	CHECK_EQ(sqs0.packets, 0);
	CHECK_EQ(sqs0.doorbells, 0);

	len = mk_udp(f, mac_b, 200, 1);
	for (i = 0; i < 5; i++) {
		sq_send(&sq, f, len, true);
		CHECK(cq_poll(&tcq, &e));
		CHECK(cq_poll(&rcq, &e));
	}
	CHECK(pstats(A, &pa));
	CHECK(pstats(B, &pb));
	CHECK_EQ(pa.tx_packets - pa0.tx_packets, 5);
	CHECK_EQ(pa.tx_bytes - pa0.tx_bytes, 5 * len);
	CHECK_EQ(pb.rx_packets - pb0.rx_packets, 5);
	CHECK_EQ(pb.rx_bytes - pb0.rx_bytes, 5 * len);

	/* per-queue counters, PCIe traffic on the queue's behalf */
	CHECK(qstats(A, SNIC_STATS_SQ, sq.n, &sqs));
	CHECK_EQ(sqs.packets, 5);
	CHECK_EQ(sqs.bytes, 5 * len);
	CHECK_EQ(sqs.errors, 0);
	CHECK_EQ(sqs.doorbells, 5);
	CHECK(sqs.pcie.dma_reads >= 10);		/* WQE + data */
	CHECK(sqs.pcie.dma_read_bytes >= 5 * (64 + len - ETH_HLEN));
	CHECK(sqs.pcie.dma_writes >= 5);		/* CQEs */
	CHECK(sqs.pcie.dma_write_bytes >= 5 * 64);
	CHECK(sqs.pcie.mmio_writes >= 5);		/* doorbells */
	CHECK(sqs.pcie.tlps > 0);
	CHECK(sqs.pcie.tlp_bytes > sqs.pcie.dma_read_bytes);
	CHECK(qstats(B, SNIC_STATS_RQ, rq.n, &rqs));
	CHECK_EQ(rqs.packets, 5);
	CHECK_EQ(rqs.bytes, 5 * len);
	CHECK_EQ(rqs.drops, 0);
	CHECK_EQ(rqs.doorbells, 1);
	CHECK(rqs.pcie.dma_reads >= 1);			/* descriptors */
	CHECK(rqs.pcie.dma_writes >= 10);		/* data + CQEs */
	CHECK(rqs.pcie.dma_write_bytes >= 5 * (len + 64));

	/* one more frame: the SQ's PCIe counters move */
	sq_send(&sq, f, len, true);
	CHECK(cq_poll(&tcq, &e));
	CHECK(qstats(A, SNIC_STATS_SQ, sq.n, &sqs2));
	CHECK(sqs2.pcie.dma_reads > sqs.pcie.dma_reads);
	CHECK(sqs2.pcie.dma_writes > sqs.pcie.dma_writes);
	CHECK_EQ(sqs2.doorbells, 6);

	/* the RQ ran out (5 buffers, 6 frames): a drop */
	CHECK(qstats(B, SNIC_STATS_RQ, rq.n, &rqs));
	CHECK_EQ(rqs.drops, 1);
	CHECK(pstats(B, &pb));
	CHECK_EQ(pb.rx_no_buffer - pb0.rx_no_buffer, 1);

	/* the device totals cover the queues', and QOM agrees */
	CHECK_EQ(snic_query_stats(A, SNIC_STATS_PCIE, 0, &dev1, sizeof(dev1)),
		 OK);
	CHECK(dev1.dma_reads >= dev0.dma_reads + sqs2.pcie.dma_reads);
	CHECK(dev1.dma_writes >= dev0.dma_writes + sqs2.pcie.dma_writes);
	CHECK(dev1.mmio_writes >= dev0.mmio_writes + 6);
	CHECK(qt_qom_get_u64(qt, "/machine/peripheral/snic0",
			     "pcie-dma_reads", &qom));
	CHECK(qom >= dev1.dma_reads);
	CHECK(qom <= dev1.dma_reads + 2);
	CHECK(qt_qom_get_str(qt, "/machine/peripheral/snic0", "queue-stats",
			     text, sizeof(text)));
	CHECK(strlen(text) > 0);

	/* bad queries */
	CHECK_EQ(snic_query_stats(A, SNIC_STATS_PORT, 0, small, sizeof(small)),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(snic_query_stats(A, SNIC_STATS_SQ, sq.n, &sqs,
				  sizeof(sqs) - 8), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(snic_query_stats(A, 99, 0, &pa, sizeof(pa)),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(snic_query_stats(A, SNIC_STATS_SQ, sq.n + 100, &sqs,
				  sizeof(sqs)), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_query_stats(A, SNIC_STATS_RQ, 999, &sqs, sizeof(sqs)),
		 SNIC_AQ_ENOENT);
	CHECK_EQ(snic_query_stats(A, SNIC_STATS_RULE, 400, &sqs, 16),
		 SNIC_AQ_ENOENT);
}

/* Carrier (QMP set_link) and administrative port state. */
static void link_state(void)
{
	struct eq eq;
	struct cq tcq, rcq;
	struct sq sq;
	struct rq rq;
	struct snic_eqe q;
	struct snic_cqe e;
	struct snic_port_info pi;
	struct snic_port_stats sa0, sa, sb0, sb;
	uint8_t f[256];
	size_t len;
	uint16_t w;

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK(rx_setup(B, &rcq, &rq, 16));
	CHECK_EQ(eq_create(&eq, A, 3, 4, 0, 0, 5), OK);
	CHECK_EQ(port_set(A, SNIC_PORT_F_UP, MTU, &mac_a, 1, eq.n), OK);
	CHECK(pstats(A, &sa0));
	CHECK(pstats(B, &sb0));
	len = mk_udp(f, mac_b, 100, 1);
	msi_clear(A, 4);
	eq_arm(&eq);

	CHECK(qt_set_link(qt, "p0", false));
	CHECK(eq_poll(&eq, &q));
	CHECK_EQ(q.type, SNIC_EQE_LINK);
	CHECK_EQ(q.data, 0);
	settle();
	CHECK_EQ(msi_read(A, 4), msi_data(A, 4));
	CHECK_EQ(port_query(A, &pi), OK);
	CHECK_EQ(pi.link_up, 0);
	/* down: dropped, counted, still completed (as a good TX) */
	w = sq_send(&sq, f, len, true);
	CHECK(cq_poll(&tcq, &e));
	CHECK_EQ(e.opcode, SNIC_CQE_TX);
	CHECK_EQ(e.wqe_counter, w);
	CHECK(cq_empty(&rcq));
	CHECK(pstats(A, &sa));
	CHECK_EQ(sa.tx_link_down - sa0.tx_link_down, 1);

	CHECK(qt_set_link(qt, "p0", true));
	CHECK(eq_poll(&eq, &q));
	CHECK_EQ(q.type, SNIC_EQE_LINK);
	CHECK_EQ(q.data, 1);
	CHECK_EQ(port_query(A, &pi), OK);
	CHECK_EQ(pi.link_up, 1);
	sq_send(&sq, f, len, true);
	CHECK(cq_poll(&tcq, &e));
	CHECK_RX(&rcq, &rq, f, len, &e);

	/* B administratively down: frames from the wire are dropped */
	CHECK_EQ(port_default(B, 0, MTU), OK);
	CHECK_EQ(port_query(B, &pi), OK);
	CHECK_EQ(pi.flags & SNIC_PORT_F_UP, 0);
	sq_send(&sq, f, len, true);
	CHECK(cq_poll(&tcq, &e));
	CHECK(cq_empty(&rcq));
	CHECK(pstats(B, &sb));
	CHECK_EQ(sb.rx_link_down - sb0.rx_link_down, 1);
	CHECK_EQ(port_default(B, SNIC_PORT_F_UP, MTU), OK);
	sq_send(&sq, f, len, true);
	CHECK(cq_poll(&tcq, &e));
	CHECK_RX(&rcq, &rq, f, len, &e);
}

/*
 * A one-BB Ethernet WQE: ctrl, eth with @inl inline bytes of @hdr (10 in
 * the eth segment, up to 16 more in the next), one data segment.
 */
static void wqe_raw(uint8_t *bb, uint8_t opcode, uint8_t ds, uint16_t inl,
		    const uint8_t *hdr, uint32_t bc, uint32_t lkey,
		    uint64_t addr, uint16_t mss)
{
	struct snic_wqe_ctrl *c = (void *)bb;
	struct snic_wqe_eth *eth = (void *)(bb + 16);
	struct snic_wqe_data *d = (void *)(bb + 48);

	memset(bb, 0, SNIC_WQEBB_SIZE);
	c->opcode = opcode;
	c->ds_cnt = ds;
	eth->mss = mss;
	eth->inline_hdr_sz = inl;
	memcpy(eth->inline_hdr, hdr, 10);
	memcpy(bb + 32, hdr + 10, 4);
	d->byte_count = bc;
	d->lkey = lkey;
	d->addr = addr;
}

/* The next CQE is a TX_ERR with syndrome @s (or @s2) for WQE @w. */
#define CHECK_ERR(cq, sq, w, s, s2) do {				\
	struct snic_cqe _e;						\
	CHECK(cq_poll((cq), &_e));					\
	CHECK_EQ(_e.opcode, SNIC_CQE_TX_ERR);				\
	CHECK_EQ(_e.qn, (sq)->n);					\
	CHECK_EQ(_e.wqe_counter, (uint16_t)(w));			\
	if (_e.syndrome != (s) && _e.syndrome != (s2))			\
		CHECK_EQ(_e.syndrome, (s));				\
} while (0)

static void bad_wqes(void)
{
	struct cq tcq, rcq;
	struct sq sq;
	struct rq rq;
	struct snic_cqe e;
	struct snic_port_stats s0, s;
	struct snic_queue_stats qs;
	struct flow tcp = { .sip = IP4(10, 0, 0, 1), .dip = IP4(10, 0, 0, 2),
			    .sport = 1, .dport = 2, .proto = 6 };
	uint8_t bb[8 * SNIC_WQEBB_SIZE], nop[4 * SNIC_WQEBB_SIZE];
	uint8_t f[2048], th[64];
	uint64_t data, big;
	uint32_t dma0;
	size_t len;
	uint16_t w;
	int i, nerr = 0;

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 8));
	CHECK(rx_setup(B, &rcq, &rq, 16));
	CHECK(pstats(A, &s0));
	dma0 = snic_rd(A, SNIC_REG_STAT_DMA_ERRS);
	len = mk_udp(f, mac_b, 1614, 1);
	data = galloc(2048, 64);
	mwrite(data, f + ETH_HLEN, len - ETH_HLEN);
	big = galloc(80000, 64);
	mk_raw(th, &tcp, 0, 0);
	mwrite(big, f, 2048);
	memset(nop, 0, sizeof(nop));
	for (i = 0; i < 4; i++)
		nop[i * SNIC_WQEBB_SIZE + 4] = 1;	/* NOP, ds_cnt 1 */

#define ONE(op, ds, inl, bc, lkey, addr, mss, s1, s2) do {		\
	wqe_raw(bb, op, ds, inl, f, bc, lkey, addr, mss);		\
	w = sq_put(&sq, bb, 1);						\
	sq_ring(&sq);							\
	CHECK_ERR(&tcq, &sq, w, s1, s2);				\
	nerr++;								\
} while (0)
	/* bad opcode */
	ONE(0x7f, 4, 14, 100, 0, data, 0, SNIC_SYND_BAD_OPCODE, 0xff);
	/* ds_cnt 0 and 17; NOPs after them whatever length they are given */
	wqe_raw(bb, SNIC_WQE_ETH_SEND, 0, 14, f, 100, 0, data, 0);
	memcpy(bb + SNIC_WQEBB_SIZE, nop, 4 * SNIC_WQEBB_SIZE);
	w = sq_put(&sq, bb, 5);
	sq_ring(&sq);
	CHECK_ERR(&tcq, &sq, w, SNIC_SYND_BAD_DS, 0xff);
	nerr++;
	wqe_raw(bb, SNIC_WQE_ETH_SEND, 17, 14, f, 100, 0, data, 0);
	w = sq_put(&sq, bb, 5);
	sq_ring(&sq);
	CHECK_ERR(&tcq, &sq, w, SNIC_SYND_BAD_DS, 0xff);
	nerr++;
	/* ds_cnt too small for the opcode, for the inline header */
	ONE(SNIC_WQE_ETH_SEND, 1, 14, 100, 0, data, 0, SNIC_SYND_BAD_DS, 0xff);
	ONE(SNIC_WQE_ETH_SEND, 3, 42, 100, 0, data, 0, SNIC_SYND_BAD_DS, 0xff);
	/* lengths: zero / oversized segment, frame over MTU + 18 */
	ONE(SNIC_WQE_ETH_SEND, 4, 14, 0, 0, data, 0, SNIC_SYND_BAD_LEN, 0xff);
	ONE(SNIC_WQE_ETH_SEND, 4, 14, 65537, 0, big, 0, SNIC_SYND_BAD_LEN,
	    0xff);
	ONE(SNIC_WQE_ETH_SEND, 4, 14, MTU + 18 - 14 + 1, 0, data, 0,
	    SNIC_SYND_BAD_LEN, 0xff);
	/* frame under 14 bytes: 10 inline bytes, no data segment */
	ONE(SNIC_WQE_ETH_SEND, 2, 10, 0, 0, 0, 0, SNIC_SYND_BAD_LEN, 0xff);
	/* lkey, unmapped data */
	ONE(SNIC_WQE_ETH_SEND, 4, 14, 100, 0x100, data, 0,
	    SNIC_SYND_BAD_LKEY, 0xff);
	ONE(SNIC_WQE_ETH_SEND, 4, 14, 100, 0, UNMAPPED, 0, SNIC_SYND_DMA,
	    0xff);
	/* inline header over SNIC_MAX_INLINE (220 bytes fit ds_cnt 16) */
	memset(bb, 0, sizeof(bb));
	wqe_raw(bb, SNIC_WQE_ETH_SEND, 16, 220, f, 0, 0, 0, 0);
	memcpy(bb + 32, f + 10, 210);
	w = sq_put(&sq, bb, 4);
	sq_ring(&sq);
	CHECK_ERR(&tcq, &sq, w, SNIC_SYND_BAD_LEN, SNIC_SYND_BAD_DS);
	nerr++;
	/* TSO: mss 0, mss over the MTU, payload over 64 KiB */
	memcpy(f, th, 54);
	memset(bb, 0, sizeof(bb));
	for (i = 0; i < 3; i++) {
		struct snic_wqe_ctrl *c = (void *)bb;
		struct snic_wqe_eth *eth = (void *)(bb + 16);
		struct snic_wqe_data *d = (void *)(bb + 80);

		memset(bb, 0, sizeof(bb));
		c->opcode = SNIC_WQE_ETH_TSO;
		c->ds_cnt = 2 + 3 + 2;	/* 54 inline bytes, two segments */
		eth->inline_hdr_sz = 54;
		eth->mss = i == 0 ? 0 : i == 1 ? MTU + 1 : 1000;
		memcpy(eth->inline_hdr, th, 10);
		memcpy(bb + 32, th + 10, 44);
		d[0].byte_count = i == 2 ? 40000 : 1000;
		d[0].addr = big;
		d[1].byte_count = i == 2 ? 40000 : 1000;
		d[1].addr = big + 40000;
		w = sq_put(&sq, bb, 2);
		sq_ring(&sq);
		CHECK_ERR(&tcq, &sq, w, i < 2 ? SNIC_SYND_BAD_MSS :
			  SNIC_SYND_BAD_LEN, 0xff);
		nerr++;
	}
	/* second data segment unmapped */
	{
		struct snic_wqe_data *d = (void *)(bb + 64);

		len = mk_udp(f, mac_b, 300, 2);
		wqe_raw(bb, SNIC_WQE_ETH_SEND, 5, 14, f, 100, 0, data, 0);
		memset(bb + 64, 0, 64);
		d->byte_count = 186;
		d->addr = UNMAPPED + 0x1000;
		w = sq_put(&sq, bb, 2);
		sq_ring(&sq);
		CHECK_ERR(&tcq, &sq, w, SNIC_SYND_DMA, 0xff);
		nerr++;
	}
#undef ONE
	/* nothing went on the wire, and the SQ still works */
	CHECK(cq_empty(&rcq));
	CHECK(cq_empty(&tcq));
	len = mk_udp(f, mac_b, 300, 3);
	w = sq_send(&sq, f, len, true);
	CHECK_TX(&tcq, &sq, w, len, &e);
	CHECK_RX(&rcq, &rq, f, len, &e);
	CHECK(pstats(A, &s));
	CHECK_EQ(s.tx_errors - s0.tx_errors, nerr);
	CHECK_EQ(s.tx_packets - s0.tx_packets, 1);
	CHECK(qstats(A, SNIC_STATS_SQ, sq.n, &qs));
	CHECK_EQ(qs.errors, nerr);
	CHECK_EQ(qs.packets, 1);
	CHECK(snic_rd(A, SNIC_REG_STAT_DMA_ERRS) - dma0 >= 2);
	CHECK(qt_alive(qt));
}

/*
 * Rings and records in a peer BAR (ivshmem) that disappears under a live
 * queue: SQ ring, RQ doorbell record, CQ ring.
 */
static void queue_dma_errors(void)
{
	struct eq eq, eqb;
	struct cq tcq, rcq, cq3, cq4;
	struct sq sq, sq2, sq3, sq4;
	struct rq rq;
	struct snic_eqe q;
	struct snic_cqe e;
	struct snic_pcie_stats p0, p1;
	struct snic_steer_rule rule = { .priority = 1, .dest = SNIC_DEST_RQ };
	uint8_t f[256], bb[4 * SNIC_WQEBB_SIZE], cap[2048];
	struct txo o = { .opcode = SNIC_WQE_ETH_SEND,
			 .flags = SNIC_WQE_F_SIGNAL, .inl = ETH_HLEN,
			 .nseg = 1 };
	size_t len;
	uint32_t dma0;
	int n;

	CHECK(env_start());
	len = mk_udp(f, mac_b, 120, 1);

	/* 1. SQ ring in the BAR; the BAR goes away; the doorbell comes */
	CHECK_EQ(eq_create(&eq, A, 3, 1, 0, 0, 3), OK);
	CHECK_EQ(cq_create(&tcq, A, 4, eq.n, 3), OK);
	CHECK_EQ(sq_create_at(&sq, A, 4, tcq.n, 3, SHM_BAR, galloc(64, 64)),
		 OK);
	CHECK_EQ(snic_query_stats(A, SNIC_STATS_PCIE, 0, &p0, sizeof(p0)), OK);
	/* a ring in a peer's BAR works like one in RAM */
	n = wqe_build(bb, sq.prod, f, len, &o);
	sq_put(&sq, bb, n);
	sq_ring(&sq);
	CHECK(cq_poll(&tcq, &e));
	CHECK_EQ(e.opcode, SNIC_CQE_TX);
	CHECK_EQ(e.qn, sq.n);
	CHECK_EQ(cap_recv(cap, sizeof(cap), 1000), len);
	CHECK(!memcmp(cap, f, len));
	dma0 = snic_rd(A, SNIC_REG_STAT_DMA_ERRS);
	n = wqe_build(bb, sq.prod, f, len, &o);
	sq_put(&sq, bb, n);		/* written while still mapped */
	shm_map(false);
	cap_drain();
	sq_ring(&sq);
	CHECK(eq_poll(&eq, &q));
	CHECK_EQ(q.type, SNIC_EQE_SQ_ERROR);
	CHECK_EQ(q.obj, sq.n);
	CHECK_EQ(snic_rd(A, SNIC_REG_ERROR), SNIC_ERR_QUEUE_DMA);
	CHECK(snic_rd(A, SNIC_REG_STAT_DMA_ERRS) > dma0);
	CHECK_EQ(snic_query_stats(A, SNIC_STATS_PCIE, 0, &p1, sizeof(p1)), OK);
	CHECK(p1.dma_errors > p0.dma_errors);
	CHECK(cq_empty(&tcq));
	/* the SQ stays in error even with the memory back */
	shm_map(true);
	sq_put(&sq, bb, n);
	sq_ring(&sq);
	CHECK(cq_empty(&tcq));
	CHECK_EQ(cap_recv(cap, sizeof(cap), 50), -1);
	/* destroyed and replaced, the CQ carries on */
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_SQ, sq.n), OK);
	CHECK_EQ(sq_create(&sq2, A, 4, tcq.n, 3), OK);
	sq_send(&sq2, f, len, true);
	CHECK(cq_poll(&tcq, &e));
	CHECK_EQ(e.opcode, SNIC_CQE_TX);
	CHECK_EQ(e.qn, sq2.n);
	n = cap_recv(cap, sizeof(cap), 1000);
	CHECK_EQ(n, len);

	/* 2. RQ doorbell record in the BAR: read when the RQ looks empty */
	snic_wr(B, SNIC_REG_ERROR, 0);
	CHECK_EQ(eq_create(&eqb, B, 3, 1, 0, 0, 3), OK);
	CHECK_EQ(cq_create(&rcq, B, 4, eqb.n, 3), OK);
	CHECK_EQ(rq_create_at(&rq, B, 4, rcq.n, 3, SNIC_RQ_PLAIN, 0, 0, 2048,
			      SHM_BAR + 0x1000), OK);
	rule.dest_id = rq.n;
	CHECK_EQ(rule_add(B, &rule, NULL), OK);
	rq_post(&rq, 4, false);		/* record only, no doorbell */
	shm_map(false);
	dma0 = snic_rd(B, SNIC_REG_STAT_DMA_ERRS);
	sq_send(&sq2, f, len, true);
	CHECK(cq_poll(&tcq, &e));
	CHECK(eq_poll(&eqb, &q));
	CHECK_EQ(q.type, SNIC_EQE_RQ_ERROR);
	CHECK_EQ(q.obj, rq.n);
	CHECK_EQ(snic_rd(B, SNIC_REG_ERROR), SNIC_ERR_QUEUE_DMA);
	CHECK(snic_rd(B, SNIC_REG_STAT_DMA_ERRS) > dma0);
	CHECK(cq_empty(&rcq));
	shm_map(true);
	rq_post(&rq, 1, true);
	sq_send(&sq2, f, len, true);
	CHECK(cq_poll(&tcq, &e));
	CHECK(cq_empty(&rcq));		/* the RQ stays in error */

	/* 3. CQ ring in the BAR: the CQE write fails, CQ error event */
	snic_wr(A, SNIC_REG_ERROR, 0);
	{
		struct snic_aq_create_cq a = {
			.ring_addr = SHM_BAR + 0x8000,
			.dbr_addr = galloc(64, 64), .log_size = 4,
			.eqn = eq.n, .db_page = 3,
		};
		uint64_t r;

		CHECK_EQ(snic_aq_cmd(A, SNIC_AQ_CREATE_CQ, &a, sizeof(a), &r),
			 OK);
		memset(&cq3, 0, sizeof(cq3));
		cq3.n = r;
	}
	CHECK_EQ(sq_create(&sq3, A, 4, cq3.n, 3), OK);
	shm_map(false);
	sq_send(&sq3, f, len, true);
	CHECK(eq_poll(&eq, &q));
	CHECK_EQ(q.type, SNIC_EQE_CQ_ERROR);
	CHECK_EQ(q.obj, cq3.n);
	CHECK_EQ(q.data, SNIC_ERR_QUEUE_DMA);
	CHECK_EQ(snic_rd(A, SNIC_REG_ERROR), SNIC_ERR_QUEUE_DMA);
	shm_map(true);

	/* 4. CQ doorbell record in the BAR: read when the CQ looks full */
	snic_wr(A, SNIC_REG_ERROR, 0);
	{
		struct snic_aq_create_cq a = {
			.ring_addr = galloc(2 * sizeof(struct snic_cqe), 64),
			.dbr_addr = SHM_BAR + 0x2000, .log_size = 1,
			.eqn = eq.n, .db_page = 3,
		};
		uint64_t r;

		CHECK_EQ(snic_aq_cmd(A, SNIC_AQ_CREATE_CQ, &a, sizeof(a), &r),
			 OK);
		memset(&cq4, 0, sizeof(cq4));
		cq4.n = r;
	}
	CHECK_EQ(sq_create(&sq4, A, 4, cq4.n, 3), OK);
	sq_send(&sq4, f, len, true);
	sq_send(&sq4, f, len, true);	/* the CQ is full now */
	settle();
	CHECK(eq_empty(&eq));
	shm_map(false);
	sq_send(&sq4, f, len, true);
	CHECK(eq_poll(&eq, &q));
	CHECK_EQ(q.type, SNIC_EQE_CQ_ERROR);
	CHECK_EQ(q.obj, cq4.n);
	CHECK_EQ(q.data, SNIC_ERR_QUEUE_DMA);
	CHECK_EQ(snic_rd(A, SNIC_REG_ERROR), SNIC_ERR_QUEUE_DMA);
	shm_map(true);
	CHECK(qt_alive(qt));
}

/* Doorbells on the wrong page, for missing queues, beyond the ring. */
static void doorbell_errors(void)
{
	struct cq tcq, rcq;
	struct sq sq;
	struct rq rq;
	struct eq eq;
	struct snic_cqe e;
	uint8_t f[256], bb[4 * SNIC_WQEBB_SIZE], cap[2048];
	struct txo o = { .opcode = SNIC_WQE_ETH_SEND,
			 .flags = SNIC_WQE_F_SIGNAL, .inl = ETH_HLEN,
			 .nseg = 1 };
	size_t len;
	uint16_t w[8];
	uint32_t bad0[2], nbad[2] = { 0, 0 };
	int n, k;

	CHECK(env_start());
	CHECK_EQ(cq_create(&tcq, A, 4, SNIC_EQN_NONE, 7), OK);
	CHECK_EQ(sq_create(&sq, A, 3, tcq.n, 7), OK);	/* 8 BBs, page 7 */
	CHECK_EQ(eq_create(&eq, A, 3, 1, 0, 0, 7), OK);
	CHECK(rx_setup(B, &rcq, &rq, 16));
	len = mk_udp(f, mac_b, 100, 1);
	n = wqe_build(bb, 0, f, len, &o);	/* 1 BB */
	sq_put(&sq, bb, n);
	qt_writel(qt, sq.dbr, sq.prod);
	bad0[0] = snic_rd(A, SNIC_REG_STAT_BAD_DB);
	bad0[1] = snic_rd(B, SNIC_REG_STAT_BAD_DB);

#define REFUSED(d, page, off, qn, ctr, err) do {			\
	int _i = dev_idx(d);						\
	snic_wr(d, SNIC_REG_ERROR, 0);					\
	snic_db(d, page, off, qn, ctr);					\
	nbad[_i]++;							\
	CHECK_EQ(snic_rd(d, SNIC_REG_ERROR), err);			\
	CHECK_EQ(snic_rd(d, SNIC_REG_STAT_BAD_DB) - bad0[_i], nbad[_i]);	\
} while (0)
	REFUSED(A, 8, SNIC_DB_SQ, sq.n, sq.prod, SNIC_ERR_DB_PAGE);
	REFUSED(A, 0, SNIC_DB_SQ, sq.n, sq.prod, SNIC_ERR_DB_PAGE);
	REFUSED(A, 7, SNIC_DB_SQ, sq.n + 500, sq.prod, SNIC_ERR_DB_QUEUE);
	REFUSED(A, 7, SNIC_DB_SQ, 0xffff, sq.prod, SNIC_ERR_DB_QUEUE);
	REFUSED(A, 7, SNIC_DB_SQ, sq.n, 9, SNIC_ERR_DB_RANGE);
	REFUSED(A, 7, SNIC_DB_SQ, sq.n, 0xffff, SNIC_ERR_DB_RANGE);
	REFUSED(A, 7, SNIC_DB_SQ, sq.n, 0x8000, SNIC_ERR_DB_RANGE);
	REFUSED(A, 7, SNIC_DB_CQ, tcq.n + 500, 0, SNIC_ERR_DB_QUEUE);
	REFUSED(A, 6, SNIC_DB_CQ_ARM, tcq.n, 0, SNIC_ERR_DB_PAGE);
	REFUSED(A, 7, SNIC_DB_EQ_ARM, (eq.n + 9) % SNIC_MAX_EQS, 0,
		SNIC_ERR_DB_QUEUE);
	REFUSED(A, 1, SNIC_DB_EQ, eq.n, 0, SNIC_ERR_DB_PAGE);
	REFUSED(B, 1, SNIC_DB_RQ, rq.n + 500, 0, SNIC_ERR_DB_QUEUE);
	REFUSED(B, 2, SNIC_DB_RQ, rq.n, rq.prod, SNIC_ERR_DB_PAGE);
	REFUSED(B, 1, SNIC_DB_RQ, rq.n, rq.prod + 100, SNIC_ERR_DB_RANGE);
	REFUSED(B, 7, SNIC_DB_RQ, rq.n, rq.prod, SNIC_ERR_DB_PAGE);
#undef REFUSED
	/* none of these ran anything */
	CHECK(cq_empty(&tcq));
	CHECK(cq_empty(&rcq));
	CHECK_EQ(cap_recv(cap, sizeof(cap), 20), -1);
	/* the right doorbell runs the WQE, exactly once */
	snic_db(A, 7, SNIC_DB_SQ, sq.n, sq.prod);
	CHECK_TX(&tcq, &sq, 0, len, &e);
	CHECK_RX(&rcq, &rq, f, len, &e);
	CHECK(cq_empty(&tcq));
	CHECK(cq_empty(&rcq));
	/* exactly a ring's worth ahead is fine: eight 1-BB WQEs */
	for (k = 0; k < 8; k++) {
		n = wqe_build(bb, sq.prod, f, len, &o);
		CHECK_EQ(n, 1);
		w[k] = sq_put(&sq, bb, n);
	}
	sq_ring(&sq);
	for (k = 0; k < 8; k++) {
		CHECK_TX(&tcq, &sq, w[k], len, &e);
		CHECK_RX(&rcq, &rq, f, len, &e);
	}
	CHECK_EQ(snic_rd(A, SNIC_REG_STAT_BAD_DB) - bad0[0], nbad[0]);
}

/* A two-entry CQ that nobody consumes. */
static void cq_overflow(void)
{
	struct eq eq;
	struct cq cq, tcq2;
	struct sq sq, sq2;
	struct snic_eqe q;
	struct snic_cqe e;
	struct snic_port_stats s0, s;
	uint8_t f[256];
	size_t len;
	int i;

	CHECK(env_start());
	CHECK_EQ(eq_create(&eq, A, 3, 2, 0, 0, 3), OK);
	CHECK_EQ(cq_create(&cq, A, 1, eq.n, 3), OK);
	CHECK_EQ(sq_create(&sq, A, 6, cq.n, 3), OK);
	CHECK(pstats(A, &s0));
	msi_clear(A, 2);
	eq_arm(&eq);
	len = mk_udp(f, mac_b, 100, 1);
	for (i = 0; i < 3; i++)
		sq_send(&sq, f, len, true);
	CHECK(eq_poll(&eq, &q));
	CHECK_EQ(q.type, SNIC_EQE_CQ_ERROR);
	CHECK_EQ(q.obj, cq.n);
	CHECK_EQ(q.data, SNIC_ERR_CQ_OVERFLOW);
	settle();
	CHECK_EQ(msi_read(A, 2), msi_data(A, 2));
	CHECK_EQ(snic_rd(A, SNIC_REG_ERROR), SNIC_ERR_CQ_OVERFLOW);
	CHECK(pstats(A, &s));
	CHECK_EQ(s.cq_overflows - s0.cq_overflows, 1);
	/* the two that fitted are intact, nothing overwrote them */
	CHECK(cq_peek(&cq, &e, 2));
	CHECK_EQ(e.opcode, SNIC_CQE_TX);
	CHECK_EQ(e.wqe_counter, 0);
	cq.cons++;
	CHECK(cq_peek(&cq, &e, 2));
	CHECK_EQ(e.opcode, SNIC_CQE_TX);
	CHECK_EQ(e.wqe_counter, 1);	/* one-BB WQEs */
	/* everything else works */
	CHECK(tx_setup(A, &tcq2, &sq2, 6));
	sq_send(&sq2, f, len, true);
	CHECK(cq_poll(&tcq2, &e));
	CHECK_EQ(e.opcode, SNIC_CQE_TX);
}

/* Plain RQ: a frame too long for its buffer; running out of buffers. */
static void rx_buffers(void)
{
	struct cq tcq, rcq;
	struct sq sq;
	struct rq rq;
	struct snic_cqe e;
	struct snic_pcie_stats p0, p1;
	struct snic_port_stats s0, s;
	uint8_t f[2048], tail[4];
	size_t len;

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK_EQ(cq_create(&rcq, B, 4, SNIC_EQN_NONE, 1), OK);
	CHECK_EQ(rq_create_at(&rq, B, 2, rcq.n, 1, SNIC_RQ_PLAIN, 0, 0, 256,
			      galloc(64, 64)), OK);
	CHECK_EQ(rule_to_rq(B, 1, rq.n, NULL), OK);
	CHECK(pstats(B, &s0));
	rq_post(&rq, 2, true);
	/* 300 bytes into 256: RX_ERR, descriptor consumed, buffer intact */
	len = mk_udp(f, mac_b, 300, 1);
	sq_send(&sq, f, len, false);
	CHECK(cq_poll(&rcq, &e));
	CHECK_EQ(e.opcode, SNIC_CQE_RX_ERR);
	CHECK_EQ(e.syndrome, SNIC_SYND_BAD_LEN);
	CHECK_EQ(e.qn, rq.n);
	CHECK_EQ(e.wqe_counter, 0);
	mread(rq_buf(&rq, 0) + 256, tail, sizeof(tail));
	CHECK_EQ(tail[0], 0xee);
	/* 256 exactly fits the next one */
	len = mk_udp(f, mac_b, 256, 2);
	sq_send(&sq, f, len, false);
	CHECK_RX(&rcq, &rq, f, len, &e);
	CHECK_EQ(e.wqe_counter, 1);
	/* empty: dropped and counted */
	sq_send(&sq, f, len, false);
	CHECK(cq_empty(&rcq));
	CHECK(pstats(B, &s));
	CHECK_EQ(s.rx_no_buffer - s0.rx_no_buffer, 1);
	/* a buffer posted through the record only is found */
	rq_post(&rq, 1, false);
	len = mk_udp(f, mac_b, 200, 3);
	sq_send(&sq, f, len, false);
	CHECK_RX(&rcq, &rq, f, len, &e);
	CHECK_EQ(e.wqe_counter, 2);
	/* a buffer the device cannot write: RX_ERR (DMA), the RQ goes on */
	{
		struct snic_rx_desc x = { .byte_count = 256, .lkey = 0,
					  .addr = UNMAPPED };

		qt_memwrite(qt, rq.ring + (rq.prod & (rq.size - 1)) *
			    sizeof(x), &x, sizeof(x));
		rq.prod++;
		rq_post(&rq, 1, true);
	}
	CHECK_EQ(snic_query_stats(B, SNIC_STATS_PCIE, 0, &p0, sizeof(p0)), OK);
	sq_send(&sq, f, len, false);
	CHECK(cq_poll(&rcq, &e));
	CHECK_EQ(e.opcode, SNIC_CQE_RX_ERR);
	CHECK_EQ(e.syndrome, SNIC_SYND_DMA);
	CHECK_EQ(e.wqe_counter, 3);
	CHECK_EQ(snic_query_stats(B, SNIC_STATS_PCIE, 0, &p1, sizeof(p1)), OK);
	CHECK(p1.dma_errors > p0.dma_errors);
	len = mk_udp(f, mac_b, 222, 4);
	sq_send(&sq, f, len, false);
	CHECK_RX(&rcq, &rq, f, len, &e);
	CHECK_EQ(e.wqe_counter, 4);
}

/*
 * Step 3 of the receive pipeline (checksum verdicts and their counters)
 * comes before step 4 (steering): frames that a rule drops, or that no
 * rule takes, are still checked and counted.
 */
static void rx_csum_counted_before_steering(void)
{
	struct snic_steer_rule r = { .match = SNIC_MATCH_DMAC,
				     .priority = 1, .dest = SNIC_DEST_DROP };
	struct flow udp = { .sip = IP4(10, 0, 0, 1), .dip = IP4(10, 0, 0, 2),
			    .sport = 7, .dport = 6666, .proto = 17 };
	struct snic_port_stats s0, s;
	struct snic_cqe e;
	uint8_t f[512];
	size_t len;

	CHECK(fx_setup(1));
	memcpy(r.dmac, mac_b, 6);
	CHECK_EQ(rule_add(B, &r, NULL), OK);
	CHECK(pstats(B, &s0));
	/* dropped by the rule: bad IP checksum, bad UDP checksum */
	len = mk_frame(f, &udp, 100, 1);
	f[ETH_HLEN + 10] ^= 0x40;
	CHECK_EQ(deliver(f, len, &e), -1);
	len = mk_frame(f, &udp, 100, 2);
	f[len - 1] ^= 0x40;
	CHECK_EQ(deliver(f, len, &e), -1);
	/* no rule takes a broadcast */
	udp.dmac = mac_bcast;
	len = mk_frame(f, &udp, 100, 3);
	f[len - 1] ^= 0x40;
	CHECK_EQ(deliver(f, len, &e), -1);
	CHECK(pstats(B, &s));
	CHECK_EQ(s.rx_rule_drop - s0.rx_rule_drop, 2);
	CHECK_EQ(s.rx_no_dest - s0.rx_no_dest, 1);
	CHECK_EQ(s.rx_bad_l3 - s0.rx_bad_l3, 1);
	CHECK_EQ(s.rx_bad_l4 - s0.rx_bad_l4, 2);
}

/* Bad frames from the wire: counted, dropped or delivered flagged. */
static void malformed_frames(void)
{
	struct snic_port_stats s0, s;
	struct snic_cqe e;
	struct flow udp = { .sip = IP4(10, 0, 0, 1), .dip = IP4(10, 0, 0, 2),
			    .sport = 7, .dport = 9, .proto = 17 };
	struct flow tcp = { .sip = IP4(10, 0, 0, 1), .dip = IP4(10, 0, 0, 2),
			    .sport = 7, .dport = 9, .proto = 6 };
	uint8_t f[4096], runt[10];
	size_t len;
	int k;

	CHECK(fx_setup(1));
	CHECK_EQ(rule_to_rq(B, 100, fx.rq[0].n, NULL), OK);
	CHECK_EQ(port_default(A, SNIC_PORT_F_UP, 9000), OK);
	CHECK(pstats(B, &s0));

	/* runt, injected on the wire (no SQ can send one) */
	memcpy(runt, mac_b, 6);
	memcpy(runt + 6, mac_a, 4);
	CHECK(inj_send(runt, sizeof(runt)));
	settle();
	CHECK(cq_empty(&fx.rcq));
	/* oversize for B's MTU 1500 (A's MTU is 9000) */
	len = mk_udp(f, mac_b, 2000, 1);
	CHECK_EQ(deliver(f, len, &e), -1);
	CHECK(pstats(B, &s));
	CHECK_EQ(s.rx_runt - s0.rx_runt, 1);
	CHECK_EQ(s.rx_oversize - s0.rx_oversize, 1);
	/* MTU + 18 is still fine */
	len = mk_udp(f, mac_b, MTU + 18, 2);
	CHECK_EQ(deliver(f, len, &e), 0);

	/* IPv4 header faults: IHL 4, total length beyond the frame,
	 * version 6, header checksum */
	for (k = 0; k < 4; k++) {
		len = mk_frame(f, &udp, 100, k);
		if (k == 0)
			f[ETH_HLEN] = 0x44;
		if (k == 1)
			put16(f + ETH_HLEN + 2, get16(f + ETH_HLEN + 2) + 100);
		if (k == 2)
			f[ETH_HLEN] = 0x65;
		if (k < 3) {	/* keep the header checksum right */
			put16(f + ETH_HLEN + 10, 0);
			put16(f + ETH_HLEN + 10,
			      ~fold(sum16(0, f + ETH_HLEN, IP_HLEN)));
		} else {
			f[ETH_HLEN + 10] ^= 0xff;
		}
		CHECK_EQ(deliver(f, len, &e), 0);
		CHECK(e.flags & SNIC_CQE_F_L3_BAD);
		CHECK_EQ(e.flags & (SNIC_CQE_F_L3_OK | SNIC_CQE_F_L4_OK), 0);
	}
	/* L4 checksum faults */
	len = mk_frame(f, &udp, 100, 5);
	f[len - 1] ^= 0x10;
	CHECK_EQ(deliver(f, len, &e), 0);
	CHECK_EQ(e.flags & (RX_OK_FLAGS | RX_BAD_FLAGS),
		 SNIC_CQE_F_IPV4 | SNIC_CQE_F_L3_OK | SNIC_CQE_F_L4_BAD);
	len = mk_frame(f, &tcp, 100, 6);
	f[len - 1] ^= 0x10;
	CHECK_EQ(deliver(f, len, &e), 0);
	CHECK_EQ(e.flags & (RX_OK_FLAGS | RX_BAD_FLAGS),
		 SNIC_CQE_F_IPV4 | SNIC_CQE_F_L3_OK | SNIC_CQE_F_L4_BAD);
	/* a TCP header cut short by the IP total length is never L4_OK */
	len = mk_frame(f, &tcp, 0, 7);
	put16(f + ETH_HLEN + 2, IP_HLEN + 10);
	put16(f + ETH_HLEN + 10, 0);
	put16(f + ETH_HLEN + 10, ~fold(sum16(0, f + ETH_HLEN, IP_HLEN)));
	CHECK_EQ(deliver(f, len, &e), 0);
	CHECK_EQ(e.flags & SNIC_CQE_F_L4_OK, 0);
	/* Ethernet padding after a good datagram is not an error */
	len = mk_frame(f, &udp, 4, 8);
	memset(f + len, 0, 20);
	CHECK_EQ(deliver(f, len + 20, &e), 0);
	CHECK_EQ(e.flags & (RX_OK_FLAGS | RX_BAD_FLAGS), RX_OK_FLAGS);
	CHECK(pstats(B, &s));
	CHECK_EQ(s.rx_bad_l3 - s0.rx_bad_l3, 4);
	CHECK(s.rx_bad_l4 - s0.rx_bad_l4 >= 2);
	CHECK(s.rx_bad_l4 - s0.rx_bad_l4 <= 3);

	/* garbage, injected: delivered or dropped, QEMU lives, B works */
	for (k = 0; k < 50; k++) {
		size_t n = 14 + rand() % 1500, i;

		for (i = 0; i < n; i++)
			f[i] = rand();
		memcpy(f, k & 1 ? mac_b : mac_bcast, 6);
		if (k & 2)
			put16(f + 12, 0x0800);
		if (k & 4)
			f[14] = 0x45;
		CHECK(inj_send(f, n));
	}
	settle();
	k = 0;
	while (cq_peek(&fx.rcq, &e, 2)) {
		fx.rcq.cons++;
		k++;
	}
	qt_writel(qt, fx.rcq.dbr, fx.rcq.cons);
	rq_post(&fx.rq[0], k, true);	/* what the garbage consumed */
	CHECK(qt_alive(qt));
	len = mk_udp(f, mac_b, 300, 9);
	CHECK_EQ(deliver(f, len, &e), 0);
}

static uint32_t rnd(void)
{
	return (uint32_t)rand() << 16 ^ (uint32_t)rand();
}

/* A data address: mostly good RAM, else anything nasty. */
static uint64_t fuzz_addr(uint64_t data)
{
	switch (rand() % 10) {
	case 0:
		return (uint64_t)rnd() << 32 | rnd();
	case 1:
		return 0xe0000000ull + rnd() % 0x800000;	/* our BARs */
	case 2:
		return 0x0ffff000ull + rnd() % 0x2000;	/* end of RAM */
	case 3:
		return SHM_BAR + rnd() % (SHM_SIZE + 0x1000);
	default:
		return data + rnd() % 60000;
	}
}

/* Random bytes that mostly parse as Ethernet/IPv4/TCP|UDP. */
static size_t fuzz_frame(uint8_t *f)
{
	size_t len = 14 + rand() % 1490, i;
	uint8_t *ip = f + ETH_HLEN;

	for (i = 0; i < len; i++)
		f[i] = rand();
	if (rand() % 2)
		memcpy(f, mac_b, 6);
	if (rand() % 5)
		put16(f + 12, 0x0800);
	if (len < ETH_HLEN + 40)
		return len;
	if (rand() % 5 < 3)
		ip[0] = 0x45;
	if (rand() % 2)
		put16(ip + 2, len - ETH_HLEN);
	if (rand() % 2)
		put16(ip + 6, 0);
	if (rand() % 10 < 7)
		ip[9] = rand() % 2 ? 6 : 17;
	if (rand() % 2)
		ip[IP_HLEN + 12] = 0x50;
	if (rand() % 4 == 0)
		put16(ip + IP_HLEN + 2, SNIC_VXLAN_PORT);
	return len;
}

static void hostile_fuzz(void)
{
	struct eq eq;
	struct cq tcq, rcq;
	struct sq sq;
	struct rq rq;
	struct snic_cqe e;
	uint8_t bb[4 * SNIC_WQEBB_SIZE], f[2048];
	uint64_t data;
	size_t len;
	int i, j, d;

	CHECK(env_start());
	CHECK_EQ(eq_create(&eq, A, 4, 1, 0, 0, 3), OK);
	CHECK_EQ(cq_create(&tcq, A, 4, eq.n, 3), OK);
	CHECK_EQ(sq_create(&sq, A, 4, tcq.n, 3), OK);
	CHECK(rx_setup(B, &rcq, &rq, 64));
	data = galloc(65536, 64);
	for (i = 0; i < 2048; i++)
		f[i] = rand();
	mwrite(data, f, 2048);
	srand(4321);
	for (i = 0; i < 4000; i++) {
		int what = rand() % 10;

		if (what < 2) {
			/* a well-formed WQE around a hostile frame */
			struct txo o = {
				.opcode = rand() % 2 ? SNIC_WQE_ETH_SEND :
						       SNIC_WQE_ETH_TSO,
				.flags = rand() % 2 ? SNIC_WQE_F_SIGNAL : 0,
				.cs = rand() % 4,
				.mss = rand() % 20 ? 64 + rand() % 1400 :
						     rand() % 2000,
				.inl = rand() % (SNIC_MAX_INLINE + 1),
				.nseg = 1 + rand() % 2,
			};

			len = fuzz_frame(f);
			sq_send_o(&sq, f, len, &o);
		} else if (what < 4) {
			struct snic_wqe_ctrl *c = (void *)bb;
			struct snic_wqe_eth *eth = (void *)(bb + 16);
			int nbb = 1 + rand() % 4;

			for (j = 0; j < (int)sizeof(bb); j++)
				bb[j] = rand();
			if (rand() % 4)
				c->opcode = rand() % 3;
			if (rand() % 2)
				c->ds_cnt = rand() % 20;
			c->flags &= SNIC_WQE_F_SIGNAL;
			if (rand() % 2)
				eth->inline_hdr_sz = rand() % 260;
			eth->mss = rand() % 50 ? (uint32_t)(536 + rand() % 1000) : rnd();
			for (j = 2; j < 16; j++) {
				struct snic_wqe_data *ds = (void *)(bb + 16 * j);

				if (rand() % 3 == 0)
					continue;
				ds->byte_count = rand() % 3000;
				ds->lkey = rand() % 8 ? 0 : rnd();
				ds->addr = fuzz_addr(data);
			}
			sq_put(&sq, bb, nbb);
			if (rand() % 8)
				sq_ring(&sq);
			else
				snic_db(A, 3, SNIC_DB_SQ, sq.n, rnd());
		} else if (what < 8) {
			uint32_t page = rand() % 4 ? (rand() % 2 ? 3 : 1) :
					rand() % SNIC_DB_PAGES;
			uint32_t off = rand() % 4 ? (rand() % 6) * 4 :
				       (rand() % 1024) * 4;
			uint32_t qn = rand() % 3 ? (uint32_t)(rand() % 4) : rnd();
			uint32_t ctr = rand() % 2 ? rnd() : sq.prod + rand() % 3;

			d = rand() % 2;
			qt_writel(qt, dev[d].bar2 + page * SNIC_DB_PAGE_SIZE +
				  off, SNIC_DB_VAL(qn, ctr));
		} else if (what < 9) {
			/* completions consumed, or a nonsense record */
			while (cq_peek(&tcq, &e, 1))
				tcq.cons++;
			qt_writel(qt, tcq.dbr, rand() % 4 ? tcq.cons : rnd());
			while (cq_peek(&rcq, &e, 1))
				rcq.cons++;
			qt_writel(qt, rcq.dbr, rcq.cons);
			qt_writel(qt, rq.dbr, rq.prod + rand() % 100);
		} else {
			size_t n = rand() % 1600, k;

			for (k = 0; k < n; k++)
				f[k] = rand();
			if (n > 6)
				memcpy(f, rand() % 2 ? mac_b : mac_a, 6);
			inj_send(f, n);
		}
	}
	CHECK(qt_alive(qt));
	CHECK_EQ(snic_rd(A, SNIC_REG_ID), SNIC_ID_MAGIC);
	CHECK_EQ(snic_rd(B, SNIC_REG_ID), SNIC_ID_MAGIC);
	/* the fuzz reached the device: refused doorbells, error CQEs, frames */
	{
		struct snic_port_stats pa, pb;

		CHECK(pstats(A, &pa));
		CHECK(pstats(B, &pb));
		CHECK(pa.tx_errors > 0);
		CHECK(snic_rd(A, SNIC_REG_STAT_BAD_DB) > 0);
		CHECK(pb.rx_packets + pb.rx_runt + pb.rx_filtered > 0);
	}

	/* a clean reset makes both usable again */
	for (d = 0; d < 2; d++) {
		CHECK(snic_reset(&dev[d]));
		CHECK(snic_aq_ready(&dev[d], 64));
		CHECK_EQ(port_default(&dev[d], SNIC_PORT_F_UP, MTU), OK);
	}
	/* ... and left nothing behind: objects and statistics are gone */
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_SQ, sq.n), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_EQ, eq.n), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_RQ, rq.n), SNIC_AQ_ENOENT);
	snic_db(A, 3, SNIC_DB_SQ, sq.n, 1);
	CHECK_EQ(snic_rd(A, SNIC_REG_ERROR), SNIC_ERR_DB_QUEUE);
	{
		struct snic_port_stats ps;

		CHECK(pstats(A, &ps));
		CHECK_EQ(ps.tx_packets + ps.tx_errors, 0);
	}
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK(rx_setup(B, &rcq, &rq, 8));
	cap_drain();
	len = mk_udp(f, mac_b, 400, 1);
	sq_send(&sq, f, len, true);
	CHECK_TX(&tcq, &sq, 0, len, &e);
	CHECK_RX(&rcq, &rq, f, len, &e);
	CHECK(qt_alive(qt));
}

int main(void)
{
	srand(1);
	RUN("device/snic_eth", identify_caps);
	RUN("device/snic_eth", objects_create_destroy);
	RUN("device/snic_eth", objects_bad_params);
	RUN("device/snic_eth", send_receive);
	RUN("device/snic_eth", ring_wrap);
	RUN("device/snic_eth", checksum_offload);
	RUN("device/snic_eth", tso);
	RUN("device/snic_eth", rss_toeplitz);
	RUN("device/snic_eth", steering_rules);
	RUN("device/snic_eth", vxlan_decap);
	RUN("device/snic_eth", mac_filter);
	RUN("device/snic_eth", striding_rq);
	RUN("device/snic_eth", rate_limiter);
	RUN("device/snic_eth", events_and_moderation);
	RUN("device/snic_eth", statistics);
	RUN("device/snic_eth", link_state);
	RUN("device/snic_eth", bad_wqes);
	RUN("device/snic_eth", rx_buffers);
	RUN("device/snic_eth", rx_csum_counted_before_steering);
	RUN("device/snic_eth", queue_dma_errors);
	RUN("device/snic_eth", doorbell_errors);
	RUN("device/snic_eth", cq_overflow);
	RUN("device/snic_eth", malformed_frames);
	RUN("device/snic_eth", hostile_fuzz);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
