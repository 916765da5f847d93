/*
 * snic device tier: the Ethernet test environment (snic_eth_env.h),
 * shared by the test_snic_eth_*.c programs.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "snic_eth_env.h"

const uint8_t mac_a[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x01 };
const uint8_t mac_b[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x02 };
const uint8_t mac_other[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x77 };
const uint8_t mac_bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
const uint8_t mac_mcast[6] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };

/* The Microsoft RSS verification key. */
const uint8_t ms_key[SNIC_RSS_KEY_SIZE] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
	0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
	0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
	0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
	0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* Its published IPv4 vectors: hash with ports, hash of addresses only. */
const struct ms_vec ms_vec[MS_NVEC] = {
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

struct qt *qt;
struct snic_dev dev[2];
int shm_devfn = -1;
uint64_t msi_base[2];

int dev_idx(struct snic_dev *d)
{
	return d == B;
}

uint64_t msi_addr(struct snic_dev *d, int vec)
{
	return msi_base[dev_idx(d)] + 4 * vec;
}

uint32_t msi_data(struct snic_dev *d, int vec)
{
	return 0xd2d00000u | dev_idx(d) << 8 | vec;
}

uint32_t msi_read(struct snic_dev *d, int vec)
{
	return qt_readl(qt, msi_addr(d, vec));
}

void msi_clear(struct snic_dev *d, int vec)
{
	qt_writel(qt, msi_addr(d, vec), 0);
}

/* Give the device a few main-loop turns (bottom halves) to act. */
void settle(void)
{
	snic_settle(A, 16);
}

int port_default(struct snic_dev *d, uint32_t flags, uint16_t mtu)
{
	const uint8_t (*mac)[6] = d == A ? &mac_a : &mac_b;

	return snic_set_port(d, flags, mtu, mac, 1, SNIC_EQN_NONE);
}

int port_query(struct snic_dev *d, struct snic_port_info *pi)
{
	memset(pi, 0xa5, sizeof(*pi));
	qt_memset(qt, d->scratch, 0xa5, sizeof(*pi));
	return snic_aq_buf(d, SNIC_AQ_QUERY_PORT, NULL, 0, sizeof(*pi), 0, 0,
			   pi, sizeof(*pi), NULL);
}

bool pstats(struct snic_dev *d, struct snic_port_stats *s)
{
	return snic_query_stats(d, SNIC_STATS_PORT, 0, s, sizeof(*s)) == OK;
}

bool qstats(struct snic_dev *d, uint32_t kind, uint32_t qn,
	    struct snic_queue_stats *s)
{
	return snic_query_stats(d, kind, qn, s, sizeof(*s)) == OK;
}

/* Drop whatever the capture port holds. */
void cap_drain(void)
{
	settle();
	qt_udp_drain(inj);
}

void shm_map(bool on)
{
	qt_pci_cfg_write(qt, shm_devfn, 0x04, 2, on ? 0x0002 : 0);
}

/*
 * Fresh QEMU with A and B, admin queues up (64 entries, vector 0), MSI-X
 * vectors 0..NVEC-1 wired to RAM, ports up with MTU 1500 and their own
 * MAC.
 */
bool env_start(void)
{
	return env_start_opts("");
}

bool env_start_opts(const char *opts)
{
	char args[2048];
	int qfd, i;

	qt_quit(qt);
	qt = NULL;
	if (!inj_open(&qfd, 4 << 20))
		return false;
	snprintf(args, sizeof(args),
		 "-netdev hubport,id=p0,hubid=0 -netdev hubport,id=p1,hubid=0 "
		 WIRE_QEMU_ARGS
		 "-device snic,id=snic0,netdev=p0,mac=52:54:00:00:00:01,serial=ETH-A%s "
		 "-device snic,id=snic1,netdev=p1,mac=52:54:00:00:00:02,serial=ETH-B%s "
		 "-object memory-backend-ram,id=shm,size=1M,share=on "
		 "-device ivshmem-plain,id=shm0,memdev=shm", qfd, opts, opts);
	qt = qt_start(args);
	close(qfd);
	if (!qt_alive(qt))
		return false;
	for (i = 0; i < 2; i++) {
		if (!snic_dev_open(&dev[i], qt, i, BAR_BASE(i), RAM_BASE(i)))
			return false;
		dev[i].timed = strstr(opts, "timing=on") != NULL;
	}
	shm_devfn = qt_pci_find(qt, 0x1af4, 0x1110, 0);
	if (shm_devfn < 0)
		return false;
	qt_pci_map_bar(qt, shm_devfn, 2, SHM_BAR);
	shm_map(true);
	qt_alloc_init(qt, HEAP_BASE, HEAP_END);
	for (i = 0; i < 2; i++) {
		int v;

		msi_base[i] = qt_alloc(qt, 0x100, 0x100);
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

/* Take the next EQE (200 reads). */
bool eq_poll(struct snic_eq *e, struct snic_eqe *q)
{
	return snic_eq_poll(e, q, 200);
}

bool eq_empty(struct snic_eq *e)
{
	struct snic_eqe q;

	settle();
	return !snic_eq_peek(e, &q, 4);
}

/* Take the next CQE (200 reads): consumer counter + 1 to the record. */
bool cq_poll(struct snic_cq *c, struct snic_cqe *q)
{
	return snic_cq_poll(c, q, 200, 0);
}

bool cq_empty(struct snic_cq *c)
{
	struct snic_cqe q;

	settle();
	return !snic_cq_peek(c, &q, 4);
}

int rule_add(struct snic_dev *d, const struct snic_steer_rule *r,
	     uint32_t *id)
{
	uint64_t res = ~0ull;
	int st = snic_aq_buf(d, SNIC_AQ_ADD_RULE, r, sizeof(*r), sizeof(*r),
			     0, 0, NULL, 0, &res);

	if (id)
		*id = res;
	return st;
}

int rule_to_rq(struct snic_dev *d, uint16_t prio, uint32_t rqn,
	       uint32_t *id)
{
	struct snic_steer_rule r = {
		.priority = prio, .dest = SNIC_DEST_RQ, .dest_id = rqn,
	};

	return rule_add(d, &r, id);
}

int rss_create(struct snic_dev *d, const uint8_t *key, uint32_t fields,
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

int modify_sq_rate(struct snic_dev *d, uint32_t sqn, uint64_t bps,
		   uint32_t burst)
{
	struct snic_aq_modify_sq m = {
		.sqn = sqn, .rate_bps = bps, .burst_bytes = burst,
	};

	return snic_aq_cmd(d, SNIC_AQ_MODIFY_SQ, &m, sizeof(m), NULL);
}

/* TX side: polled CQ (page 2) and an SQ on it. */
bool tx_setup(struct snic_dev *d, struct snic_cq *cq, struct snic_sq *sq,
	      int sq_log)
{
	return snic_cq_create(cq, d, 8, SNIC_EQN_NONE, 2) == OK &&
	       snic_sq_create(sq, d, sq_log, cq->n, 2) == OK;
}

/* RX side: polled CQ (page 1), a plain RQ with @post buffers, catch-all. */
bool rx_setup(struct snic_dev *d, struct snic_cq *cq, struct snic_rq *rq,
	      int post)
{
	if (snic_cq_create(cq, d, 8, SNIC_EQN_NONE, 1) != OK ||
	    snic_rq_create(rq, d, 6, cq->n, 1) != OK ||
	    rule_to_rq(d, 1000, rq->n, NULL) != OK)
		return false;
	snic_rq_post(rq, post, true);
	return true;
}

/* ------------------------------------------------------------------ */
/* WQEs                                                                */
/* ------------------------------------------------------------------ */

/*
 * Build an Ethernet WQE for @f: ctrl, eth with @o->inl inline bytes, the
 * rest in @o->nseg data segments gathered from fresh RAM.  Returns BBs.
 */
int wqe_build(uint8_t *bb, uint16_t idx, const uint8_t *f, size_t len,
	      const struct txo *o)
{
	struct snic_wqe_ctrl *ctrl = (void *)bb;
	struct snic_wqe_eth *eth = (void *)(bb + 16);
	size_t inl = o->inl > len ? len : o->inl;
	size_t rest = len - inl, ext = inl > 10 ? (inl - 10 + 15) / 16 : 0;
	int nseg = rest ? (o->nseg ? o->nseg : 1) : 0;
	int ds = 2 + ext + nseg, i;
	uint64_t data = rest ? qt_alloc(qt, rest, 64) : 0;
	size_t off = 0;

	memset(bb, 0, SNIC_WQE_MAX_BBS * SNIC_WQEBB_SIZE);
	ctrl->opcode = o->opcode;
	ctrl->flags = o->flags;
	ctrl->wqe_idx = idx;
	ctrl->ds_cnt = ds;
	eth->cs_flags = o->cs;
	if (o->vlan_on) {
		eth->flags = SNIC_ETH_F_VLAN;
		ctrl->vlan_tci = htons(o->vlan);
	}
	eth->mss = o->mss;
	eth->inline_hdr_sz = inl;
	memcpy(eth->inline_hdr, f, inl < 10 ? inl : 10);
	if (inl > 10)
		memcpy(bb + 32, f + 10, inl - 10);
	if (rest)
		qt_memwrite(qt, data, f + inl, rest);
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

uint16_t sq_send_o(struct snic_sq *s, const uint8_t *f, size_t len,
		   const struct txo *o)
{
	uint8_t bb[SNIC_WQE_MAX_BBS * SNIC_WQEBB_SIZE];
	uint16_t first = s->prod;
	int n = wqe_build(bb, first, f, len, o);

	snic_sq_put(s, bb, n);
	if (!o->no_db)
		snic_sq_ring(s);
	return first;
}

/* Plain send: 14 inline bytes, one data segment. */
uint16_t sq_send(struct snic_sq *s, const uint8_t *f, size_t len,
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

void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

uint16_t get16(const uint8_t *p)
{
	return p[0] << 8 | p[1];
}

uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

uint32_t sum16(uint32_t s, const uint8_t *p, size_t n)
{
	for (; n > 1; p += 2, n -= 2)
		s += get16(p);
	if (n)
		s += p[0] << 8;
	return s;
}

uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

/* Pseudo-header sum of the IPv4 header at @ip for @l4len bytes. */
uint32_t pseudo(const uint8_t *ip, uint16_t l4len)
{
	return sum16(0, ip + 12, 8) + ip[9] + l4len;
}

bool ip_ok(const uint8_t *f)
{
	return fold(sum16(0, f + ETH_HLEN, IP_HLEN)) == 0xffff;
}

size_t l4_csum_off(const uint8_t *f)
{
	return ETH_HLEN + IP_HLEN + (f[ETH_HLEN + 9] == 6 ? 16 : 6);
}

/* TCP/UDP checksum of the frame (IP total length) verifies, nonzero. */
bool l4_ok(const uint8_t *f)
{
	const uint8_t *ip = f + ETH_HLEN;
	uint16_t l4len = get16(ip + 2) - IP_HLEN;

	return get16(f + l4_csum_off(f)) != 0 &&
	       fold(sum16(pseudo(ip, l4len), ip + IP_HLEN, l4len)) == 0xffff;
}

/* What the device must produce: both checksums filled. */
void fill_csum(uint8_t *f)
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

/* Ethernet/IPv4/UDP|TCP with @plen payload bytes, checksums zero. */
size_t mk_raw(uint8_t *f, const struct flow *fl, size_t plen,
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

size_t mk_frame(uint8_t *f, const struct flow *fl, size_t plen,
		unsigned seed)
{
	size_t n = mk_raw(f, fl, plen, seed);

	fill_csum(f);
	return n;
}

/* A good UDP frame A -> B of @len bytes in total (>= 42). */
size_t mk_udp(uint8_t *f, const uint8_t *dmac, size_t len,
	      unsigned seed)
{
	struct flow fl = {
		.dmac = dmac, .sip = IP4(10, 0, 0, 1), .dip = IP4(10, 0, 0, 2),
		.sport = 1000, .dport = 2000, .proto = 17,
	};

	return mk_frame(f, &fl, len - ETH_HLEN - IP_HLEN - UDP_HLEN, seed);
}

uint32_t toeplitz(const uint8_t *key, const uint8_t *in, size_t n)
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

uint32_t rss_hash(const uint8_t *key, uint32_t sip, uint32_t dip,
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
bool buf_eq(struct snic_rq *rq, const struct snic_cqe *e, const uint8_t *f,
	    size_t len)
{
	static uint8_t got[70000];

	if (len > sizeof(got))
		return false;
	qt_memread(qt, snic_rq_buf(rq, e->wqe_counter), got, len);
	return !memcmp(got, f, len);
}

/* Shared by the steering tests: A sends, B has rq[0..nrq-1] on rcq. */
struct fx fx;

bool fx_setup(int nrq)
{
	int k;

	if (!env_start() || !tx_setup(A, &fx.tcq, &fx.sq, 6) ||
	    snic_cq_create(&fx.rcq, B, 8, SNIC_EQN_NONE, 1) != OK)
		return false;
	for (k = 0; k < nrq; k++) {
		if (snic_rq_create(&fx.rq[k], B, 5, fx.rcq.n, 1) != OK)
			return false;
		snic_rq_post(&fx.rq[k], 32, true);
	}
	fx.nrq = nrq;
	return true;
}

/*
 * Send @f from A; the index of B's RQ that got it (contents checked), -1
 * if none did, -2 on a content mismatch.
 */
int deliver(const uint8_t *f, size_t len, struct snic_cqe *e)
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
