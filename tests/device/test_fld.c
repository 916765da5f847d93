/*
 * fld device tier: a snic and an fld in one QEMU, this program playing the
 * driver (docs/fld.md).  It creates snic queues whose rings, doorbell
 * records and buffers are windows of FLD's BAR2 through snic's admin
 * queue, programs FLD's queue table, and checks that frames injected on
 * the wire come back echoed by FLD's echo accelerator with no per-packet
 * work by the "host" - plus bad input: accesses outside windows, an
 * exhausted descriptor pool, accelerator overflow, refused commands and a
 * doorbell that cannot be delivered; and the iotauth accelerator (CoAP
 * messages carrying JSON Web Tokens checked against per-tenant keys).
 *
 * Topology: snic0 on a hub with a datagram socket held by this program
 * (capture and injection, as in test_snic_eth.c).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include <nettle/hmac.h>
#include "../lib/check.h"
#include "snic_dev.h"
#include "d2d/fld_if.h"
#include "fld/fld-defrag.h"

#define OK		SNIC_AQ_OK
#define SNIC_BAR	0xe0000000ull
#define FLD_BAR0	0xe0400000ull
#define FLD_BAR4	0xe0500000ull
#define FLD_BAR2	0xe2000000ull	/* 32 MiB, naturally aligned */
#define RAM_BASE	0x1000000ull
#define HEAP_BASE	0x1200000ull
#define HEAP_END	0xf000000ull
#define MTU		1500
#define SQ_PAGE		5
#define RQ_PAGE		6
#define CQ_PAGE		7
#define FLOW_TAG	0x5a
#define UDP_PORT	7

static const uint8_t mac_nic[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t mac_peer[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x99 };

static struct qt *qt;
static struct snic_dev nic;
static int fld_devfn = -1;
static int inj = -1;
static uint64_t heap;

/* ---- environment ---- */

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

static uint32_t fld_rd(uint32_t reg)
{
	return qt_readl(qt, FLD_BAR0 + reg);
}

static void fld_wr(uint32_t reg, uint32_t val)
{
	qt_writel(qt, FLD_BAR0 + reg, val);
}

static uint64_t fld_stat(int i)
{
	return fld_rd(FLD_REG_STATS + 8 * i) |
	       (uint64_t)fld_rd(FLD_REG_STATS + 8 * i + 4) << 32;
}

static uint64_t fld_mem(int row, int col)
{
	uint32_t r = FLD_REG_MEM + row * FLD_MEM_ROW_SIZE + col * 8;

	return fld_rd(r) | (uint64_t)fld_rd(r + 4) << 32;
}

/* Run FLD command @op with @n arguments; returns CMD_STATUS. */
static uint32_t fld_cmd(uint32_t op, int n, const uint32_t *args,
			uint32_t *result)
{
	int i;

	for (i = 0; i < FLD_CMD_NARGS; i++)
		fld_wr(FLD_REG_CMD_ARG0 + 4 * i, i < n ? args[i] : 0);
	fld_wr(FLD_REG_CMD, op);
	if (result)
		*result = fld_rd(FLD_REG_CMD_RESULT);
	return fld_rd(FLD_REG_CMD_STATUS);
}

static void settle(void)
{
	int i;

	for (i = 0; i < 16; i++)
		qt_readl(qt, nic.bar0 + SNIC_REG_ID);
}

static bool inj_open(int *qfd)
{
	struct sockaddr_in a = { .sin_family = AF_INET }, b;
	socklen_t l = sizeof(b);
	int q, t, big = 4 << 20;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	q = socket(AF_INET, SOCK_DGRAM, 0);
	t = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (q < 0 || t < 0 || bind(q, (void *)&a, sizeof(a)) ||
	    bind(t, (void *)&a, sizeof(a)))
		return false;
	if (getsockname(t, (void *)&b, &l) || connect(q, (void *)&b, l))
		return false;
	l = sizeof(b);
	if (getsockname(q, (void *)&b, &l) || connect(t, (void *)&b, l))
		return false;
	setsockopt(t, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	inj = t;
	*qfd = q;
	return true;
}

static int cap_recv(void *buf, size_t len, int ms)
{
	struct pollfd p = { .fd = inj, .events = POLLIN };

	if (poll(&p, 1, ms) != 1)
		return -1;
	return recv(inj, buf, len, MSG_DONTWAIT);
}

static void cap_drain(void)
{
	uint8_t buf[16384];

	settle();
	while (recv(inj, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

static bool env_start(const char *fld_opts)
{
	struct snic_port_cfg c;
	char args[1024];
	int qfd;

	qt_quit(qt);
	qt = NULL;
	if (inj >= 0)
		close(inj);
	inj = -1;
	if (!inj_open(&qfd))
		return false;
	snprintf(args, sizeof(args),
		 "-netdev hubport,id=p0,hubid=0 "
		 "-netdev dgram,id=inj,local.type=fd,local.str=%d "
		 "-netdev hubport,id=p2,hubid=0,netdev=inj "
		 "-device snic,id=snic0,netdev=p0,mac=52:54:00:00:00:01 "
		 "-device fld,id=fld0%s", qfd, fld_opts);
	qt = qt_start(args);
	close(qfd);
	if (!qt_alive(qt) || !snic_dev_open(&nic, qt, 0, SNIC_BAR, RAM_BASE))
		return false;
	fld_devfn = qt_pci_find(qt, FLD_PCI_VENDOR_ID, FLD_PCI_DEVICE_ID, 0);
	if (fld_devfn < 0)
		return false;
	qt_pci_map_bar(qt, fld_devfn, FLD_BAR_REGS, FLD_BAR0);
	qt_pci_map_bar(qt, fld_devfn, FLD_BAR_WIN, FLD_BAR2);
	qt_pci_map_bar(qt, fld_devfn, FLD_BAR_MSIX, FLD_BAR4);
	qt_pci_enable(qt, fld_devfn);
	heap = HEAP_BASE;
	if (!snic_aq_ready(&nic, 64))
		return false;
	memset(&c, 0, sizeof(c));
	c.flags = SNIC_PORT_F_UP;
	c.mtu = MTU;
	c.num_macs = 1;
	c.async_eqn = SNIC_EQN_NONE;
	memcpy(c.macs[0], mac_nic, 6);
	if (snic_aq_buf(&nic, SNIC_AQ_SET_PORT, &c, sizeof(c), sizeof(c), 0, 0,
			NULL, 0, NULL) != OK)
		return false;
	fld_wr(FLD_REG_CTRL, FLD_CTRL_ENABLE);
	cap_drain();
	return true;
}

/* ---- FLD-E: snic queues in FLD's BAR, driven by the control plane ---- */

struct flde {
	uint32_t cqn, sqn, rqn, rule;
	uint64_t rq_ring;
	uint32_t rx_off;
};

/*
 * One CQ (log 8) shared by an SQ of 2^@sq_log basic blocks and a striding
 * RQ of 16 buffers x 8 strides of 2 KiB, all in FLD's windows (the RQ
 * ring itself in host RAM, written once); a rule steers UDP port 7 to the
 * RQ with a flow tag; the RQ's replies go out on the SQ.
 */
static bool flde_setup(struct flde *q, int sq_log, uint64_t sq_db,
		       uint32_t quota)
{
	struct snic_aq_create_cq cc = { 0 };
	struct snic_aq_create_sq sc = { 0 };
	struct snic_aq_create_rq rc = { 0 };
	struct snic_steer_rule r = { 0 };
	uint64_t res;
	uint32_t a[8], out;
	int k;

	/* FLD slots first: snic probes a ring when it creates the queue. */
	a[0] = 0; a[1] = FLD_QN_NONE; a[2] = 8;
	if (fld_cmd(FLD_CMD_CQ_SET, 3, a, &out) != FLD_CMD_OK ||
	    out != FLD_WIN_CQ)
		return false;
	a[0] = 0; a[1] = FLD_QN_NONE; a[2] = sq_log; a[3] = 0;
	a[4] = (uint32_t)sq_db; a[5] = sq_db >> 32; a[6] = quota;
	if (fld_cmd(FLD_CMD_SQ_SET, 7, a, &out) != FLD_CMD_OK ||
	    out != FLD_WIN_SQ)
		return false;
	a[0] = 0; a[1] = FLD_QN_NONE; a[2] = 4; a[3] = 11; a[4] = 3; a[5] = 0;
	a[6] = (uint32_t)(nic.bar2 + RQ_PAGE * SNIC_DB_PAGE_SIZE + SNIC_DB_RQ);
	a[7] = (nic.bar2 + RQ_PAGE * SNIC_DB_PAGE_SIZE) >> 32;
	if (fld_cmd(FLD_CMD_RQ_SET, 8, a, &q->rx_off) != FLD_CMD_OK)
		return false;

	cc.ring_addr = FLD_BAR2 + FLD_WIN_CQ;
	cc.dbr_addr = FLD_BAR2 + FLD_WIN_DBR + FLD_DBR_CQ;
	cc.log_size = 8;
	cc.eqn = SNIC_EQN_NONE;
	cc.db_page = CQ_PAGE;
	if (snic_aq_cmd(&nic, SNIC_AQ_CREATE_CQ, &cc, sizeof(cc), &res) != OK)
		return false;
	q->cqn = res;
	sc.ring_addr = FLD_BAR2 + FLD_WIN_SQ;
	sc.dbr_addr = FLD_BAR2 + FLD_WIN_DBR + FLD_DBR_SQ;
	sc.log_size = sq_log;
	sc.flags = SNIC_SQ_F_RAW_ETH;
	sc.cqn = q->cqn;
	sc.db_page = SQ_PAGE;
	if (snic_aq_cmd(&nic, SNIC_AQ_CREATE_SQ, &sc, sizeof(sc), &res) != OK)
		return false;
	q->sqn = res;
	/* The RQ ring: 16 descriptors naming FLD's receive window. */
	q->rq_ring = galloc(16 * sizeof(struct snic_rx_desc), 64);
	for (k = 0; k < 16; k++) {
		struct snic_rx_desc d = {
			.byte_count = 16384, .lkey = 0,
			.addr = FLD_BAR2 + q->rx_off + (uint64_t)k * 16384,
		};

		qt_memwrite(qt, q->rq_ring + k * sizeof(d), &d, sizeof(d));
	}
	rc.ring_addr = q->rq_ring;
	rc.dbr_addr = FLD_BAR2 + FLD_WIN_DBR + FLD_DBR_RQ;
	rc.log_size = 4;
	rc.type = SNIC_RQ_STRIDING;
	rc.cqn = q->cqn;
	rc.db_page = RQ_PAGE;
	rc.log_stride_size = 11;
	rc.log_num_strides = 3;
	if (snic_aq_cmd(&nic, SNIC_AQ_CREATE_RQ, &rc, sizeof(rc), &res) != OK)
		return false;
	q->rqn = res;

	a[0] = FLD_BIND_CQ; a[1] = 0; a[2] = q->cqn;
	if (fld_cmd(FLD_CMD_BIND, 3, a, NULL) != FLD_CMD_OK)
		return false;
	a[0] = FLD_BIND_SQ; a[1] = 0; a[2] = q->sqn;
	if (fld_cmd(FLD_CMD_BIND, 3, a, NULL) != FLD_CMD_OK)
		return false;
	a[0] = FLD_BIND_RQ; a[1] = 0; a[2] = q->rqn;
	if (fld_cmd(FLD_CMD_BIND, 3, a, NULL) != FLD_CMD_OK)
		return false;
	a[0] = 0; a[1] = 0;
	if (fld_cmd(FLD_CMD_RQ_ROUTE, 2, a, NULL) != FLD_CMD_OK)
		return false;

	r.match = SNIC_MATCH_IP_PROTO | SNIC_MATCH_DST_PORT;
	r.priority = 10;
	r.dest = SNIC_DEST_RQ;
	r.actions = SNIC_ACT_TAG | SNIC_ACT_COUNT;
	r.dest_id = q->rqn;
	r.flow_tag = FLOW_TAG;
	r.ip_proto = 17;
	r.dst_port = htons(UDP_PORT);
	if (snic_aq_buf(&nic, SNIC_AQ_ADD_RULE, &r, sizeof(r), sizeof(r), 0, 0,
			NULL, 0, &res) != OK)
		return false;
	q->rule = res;
	return true;
}

static uint64_t sq_db_addr(void)
{
	return nic.bar2 + SQ_PAGE * SNIC_DB_PAGE_SIZE + SNIC_DB_SQ;
}

/* ---- frames ---- */

static uint16_t csum(const uint8_t *p, size_t n, uint32_t s)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += p[i] << 8 | p[i + 1];
	if (n & 1)
		s += p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return ~s;
}

/* Ethernet/IPv4/UDP from the peer to the NIC, port @dport, @plen bytes. */
static size_t mk_udp(uint8_t *f, uint16_t dport, size_t plen, uint32_t seq)
{
	uint8_t *ip = f + 14, *udp = ip + 20;
	uint32_t s = 0;
	size_t i;

	memcpy(f, mac_nic, 6);
	memcpy(f + 6, mac_peer, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	ip[2] = (20 + 8 + plen) >> 8;
	ip[3] = 20 + 8 + plen;
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, (uint8_t[]){ 10, 0, 0, 2 }, 4);
	memcpy(ip + 16, (uint8_t[]){ 10, 0, 0, 1 }, 4);
	i = csum(ip, 20, 0);
	ip[10] = i >> 8;
	ip[11] = i;
	udp[0] = 0x30;
	udp[1] = 0x39;
	udp[2] = dport >> 8;
	udp[3] = dport;
	udp[4] = (8 + plen) >> 8;
	udp[5] = 8 + plen;
	udp[6] = udp[7] = 0;
	for (i = 0; i < plen; i++)
		udp[8 + i] = (uint8_t)(seq * 7 + i);
	if (plen >= 4)
		memcpy(udp + 8, &seq, 4);
	/* pseudo header */
	for (i = 12; i < 20; i += 2)
		s += ip[i] << 8 | ip[i + 1];
	s += 17 + 8 + plen;
	i = csum(udp, 8 + plen, s);
	if (i == 0)
		i = 0xffff;
	udp[6] = i >> 8;
	udp[7] = i;
	return 14 + 20 + 8 + plen;
}

/* @g is @f echoed: addresses and ports swapped, the rest identical. */
static bool is_echo(const uint8_t *g, size_t glen, const uint8_t *f,
		    size_t len)
{
	if (glen != len || memcmp(g, f + 6, 6) || memcmp(g + 6, f, 6) ||
	    memcmp(g + 12, f + 12, 14) || memcmp(g + 26, f + 30, 4) ||
	    memcmp(g + 30, f + 26, 4) || memcmp(g + 34, f + 36, 2) ||
	    memcmp(g + 36, f + 34, 2))
		return false;
	return !memcmp(g + 38, f + 38, len - 38);
}

/* Inject @n frames of @plen bytes, expect @n echoes in order. */
static bool echo_round(int n, size_t plen, uint32_t seq0, int *got)
{
	uint8_t f[2048], g[2048];
	int i, r;

	*got = 0;
	for (i = 0; i < n; i++) {
		size_t len = mk_udp(f, UDP_PORT, plen, seq0 + i);

		if (send(inj, f, len, 0) != (ssize_t)len)
			return false;
	}
	for (i = 0; i < n; i++) {
		size_t len = mk_udp(f, UDP_PORT, plen, seq0 + i);

		do {
			settle();
			r = cap_recv(g, sizeof(g), 2000);
		} while (r > 0 && !memcmp(g, mac_nic, 6));	/* our own */
		if (r < 0 || !is_echo(g, r, f, len))
			return false;
		(*got)++;
	}
	return true;
}

/* ---- tests ---- */

static void identity_and_registers(void)
{
	CHECK(env_start(""));
	CHECK_EQ(fld_rd(FLD_REG_ID), FLD_ID_MAGIC);
	CHECK_EQ(fld_rd(FLD_REG_VERSION), FLD_VERSION);
	CHECK_EQ(fld_rd(FLD_REG_ACCEL), FLD_ACCEL_ECHO);
	CHECK(fld_rd(FLD_REG_CAPS) & FLD_CAP_ECHO);
	CHECK_EQ(fld_rd(FLD_REG_WIN_SIZE), FLD_WIN_SIZE);
	CHECK_EQ(fld_rd(FLD_REG_MAX_SQS), FLD_MAX_SQS);
	CHECK_EQ(fld_rd(FLD_REG_POOL_DESCS), 2048);
	CHECK_EQ(fld_rd(FLD_REG_BLOCK_SIZE), FLD_BLOCK_SIZE);
	CHECK_EQ(fld_rd(FLD_REG_STATUS),
		 FLD_STATUS_READY | FLD_STATUS_ENABLED);
	CHECK_EQ(qt_pci_map_bar(qt, fld_devfn, FLD_BAR_WIN, FLD_BAR2),
		 FLD_WIN_SIZE);
}

/*
 * The paper's analysis point by default; the table follows MEM_PARAMS;
 * the instance reports what it allocated.
 */
static void memory_table(void)
{
	uint32_t a[7] = { 100, 1024, 256, 16384, 25, 5, 256 };
	uint64_t conv, fldb;

	CHECK(env_start(""));
	fldb = fld_mem(FLD_MEM_TOTAL, 0);
	conv = fld_mem(FLD_MEM_TOTAL, 1);
	CHECK(conv >= 85.3 * 1048576 * 0.99 && conv <= 85.3 * 1048576 * 1.01);
	CHECK(fldb >= 832.7 * 1024 * 0.99 && fldb <= 832.7 * 1024 * 1.01);
	CHECK(conv / fldb == 105);
	CHECK_EQ(fld_mem(FLD_MEM_ROW_TX_RING, 1), 64ull << 20);
	CHECK_EQ(fld_mem(FLD_MEM_ROW_TX_RING, 0), 16384);
	/* allocated: 2048 x 8-byte descriptors, 4096 x 256 B blocks */
	CHECK_EQ(fld_mem(FLD_MEM_ROW_TX_RING, 2), 2048 * 8);
	CHECK_EQ(fld_mem(FLD_MEM_ROW_TX_BUF, 2), 4096 * 256);
	CHECK_EQ(fld_cmd(FLD_CMD_MEM_PARAMS, 7, a, NULL), FLD_CMD_OK);
	CHECK_EQ(fld_mem(FLD_MEM_ROW_TX_RING, 1), 128ull << 20);
	CHECK_EQ(fld_mem(FLD_MEM_ROW_TX_RING, 0), 16384);
	a[2] = 0;
	CHECK_EQ(fld_cmd(FLD_CMD_MEM_PARAMS, 7, a, NULL), FLD_CMD_EINVAL);
	CHECK_EQ(fld_mem(FLD_MEM_ROW_TX_RING, 1), 128ull << 20);
}

/*
 * FLD-E echo: frames from the wire are steered into FLD's receive window,
 * echoed by the accelerator and sent through FLD's send window; 100
 * frames wrap the 64-slot send ring and recycle the 16 receive buffers.
 */
static void echo_through_flde(void)
{
	struct snic_queue_stats sqs;
	struct flde q;
	int got;

	CHECK(env_start(""));
	CHECK(flde_setup(&q, 6, sq_db_addr(), 0));
	CHECK(echo_round(100, 200, 1, &got));
	settle();
	CHECK_EQ(fld_stat(FLD_STAT_RX_PACKETS), 100);
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_RX), 100);
	CHECK_EQ(fld_stat(FLD_STAT_TX_POSTS), 100);
	CHECK_EQ(fld_stat(FLD_STAT_TX_DONE), 100);
	CHECK_EQ(fld_stat(FLD_STAT_WQE_READS), 100);
	CHECK_EQ(fld_stat(FLD_STAT_CQE_WRITES), 200);
	CHECK(fld_stat(FLD_STAT_RX_RECYCLED) >= 100 / 8 - 1);
	CHECK(fld_stat(FLD_STAT_DOORBELLS) >= 1);
	CHECK_EQ(fld_stat(FLD_STAT_BAD_READS), 0);
	CHECK_EQ(fld_stat(FLD_STAT_BAD_WRITES), 0);
	CHECK_EQ(fld_rd(FLD_REG_POOL_IN_USE), 0);
	CHECK_EQ(fld_rd(FLD_REG_BLOCKS_IN_USE), 0);
	CHECK_EQ(fld_rd(FLD_REG_ERROR_COUNT), 0);
	/* snic's view: the SQ's doorbells came from FLD, not from us */
	CHECK_EQ(snic_query_stats(&nic, SNIC_STATS_SQ, q.sqn, &sqs,
				  sizeof(sqs)), OK);
	CHECK_EQ(sqs.packets, 100);
	CHECK_EQ(sqs.errors, 0);
	CHECK(sqs.doorbells >= 1);
	CHECK_EQ(sqs.doorbells, fld_stat(FLD_STAT_DOORBELLS) -
		 fld_stat(FLD_STAT_RX_RECYCLED));
}

/* Frames of every size up to the MTU, one and several blocks each. */
static void echo_sizes(void)
{
	static const size_t sizes[] = { 18, 100, 214, 215, 1000, 1458 };
	struct flde q;
	unsigned i;
	int got;

	CHECK(env_start(""));
	CHECK(flde_setup(&q, 6, sq_db_addr(), 0));
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		CHECK(echo_round(3, sizes[i], 100 * i, &got));
	CHECK_EQ(fld_rd(FLD_REG_POOL_IN_USE), 0);
	CHECK_EQ(fld_rd(FLD_REG_ERROR_COUNT), 0);
}

/*
 * With a 16-slot descriptor pool, 40 frames at once: posts stall (counted)
 * and resume as completions free slots; every frame is echoed.
 */
static void pool_exhausted_stalls(void)
{
	uint8_t f[2048];
	struct flde q;
	int i, got = 0, r;

	CHECK(env_start(",pool-descs=16"));
	CHECK_EQ(fld_rd(FLD_REG_POOL_DESCS), 16);
	CHECK(flde_setup(&q, 6, sq_db_addr(), 0));
	fld_wr(FLD_REG_CTRL, 0);		/* hold the data plane */
	for (i = 0; i < 40; i++) {
		size_t len = mk_udp(f, UDP_PORT, 64, i);

		CHECK(send(inj, f, len, 0) == (ssize_t)len);
	}
	for (i = 0; i < 20; i++)
		settle();
	CHECK_EQ(fld_stat(FLD_STAT_CQE_WRITES), 40);
	CHECK_EQ(fld_stat(FLD_STAT_TX_POSTS), 0);
	fld_wr(FLD_REG_CTRL, FLD_CTRL_ENABLE);
	for (i = 0; i < 40; i++) {
		uint8_t g[2048];

		do {
			settle();
			r = cap_recv(g, sizeof(g), 2000);
		} while (r > 0 && !memcmp(g, mac_nic, 6));
		if (r > 0)
			got++;
	}
	CHECK_EQ(got, 40);
	CHECK(fld_stat(FLD_STAT_POOL_STALLS) >= 1);
	CHECK_EQ(fld_stat(FLD_STAT_TX_DONE), 40);
	CHECK_EQ(fld_rd(FLD_REG_POOL_IN_USE), 0);
	CHECK(qt_alive(qt));
}

/*
 * A 2-slot send ring and 100 frames held until enabled: the accelerator's
 * input FIFO overflows; overflow drops and counts, never back-pressures,
 * and what was accepted is echoed.
 */
static void accel_overflow_drops(void)
{
	uint8_t f[2048], g[2048];
	struct flde q;
	int i, got = 0;

	CHECK(env_start(""));
	CHECK(flde_setup(&q, 1, sq_db_addr(), 0));
	fld_wr(FLD_REG_CTRL, 0);
	for (i = 0; i < 100; i++) {
		size_t len = mk_udp(f, UDP_PORT, 32, i);

		CHECK(send(inj, f, len, 0) == (ssize_t)len);
	}
	for (i = 0; i < 30; i++)
		settle();
	fld_wr(FLD_REG_CTRL, FLD_CTRL_ENABLE);
	for (;;) {
		int r;

		settle();
		r = cap_recv(g, sizeof(g), 500);
		if (r < 0)
			break;
		if (memcmp(g, mac_nic, 6))
			got++;
	}
	CHECK_EQ(fld_stat(FLD_STAT_RX_PACKETS), 100);
	CHECK(fld_stat(FLD_STAT_ACCEL_RX_DROPS) > 0);
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_RX) + fld_stat(FLD_STAT_ACCEL_RX_DROPS),
		 100);
	CHECK_EQ((uint64_t)got, fld_stat(FLD_STAT_ACCEL_TX));
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_TX), fld_stat(FLD_STAT_ACCEL_RX));
	CHECK(fld_stat(FLD_STAT_CREDIT_STALLS) > 0);
}

/* Byte quota smaller than a frame's blocks: credit stall, no post. */
static void credit_quota(void)
{
	uint8_t f[2048], g[2048];
	struct flde q;
	int got;

	CHECK(env_start(""));
	CHECK(flde_setup(&q, 6, sq_db_addr(), 512));
	CHECK(echo_round(2, 400, 1, &got));	/* 442 B: 2 blocks, fits */
	mk_udp(f, UDP_PORT, 600, 9);		/* 642 B: 3 blocks > 512 */
	CHECK(send(inj, f, 642, 0) == 642);
	settle();
	CHECK(cap_recv(g, sizeof(g), 300) < 0 || !memcmp(g, mac_nic, 6));
	CHECK(fld_stat(FLD_STAT_CREDIT_STALLS) > 0);
	CHECK_EQ(fld_stat(FLD_STAT_TX_POSTS), 2);
	CHECK(qt_alive(qt));
}

/*
 * The NIC reaching outside FLD's configured windows: a snic CQ whose ring
 * is in an unused part of BAR2 (its CQEs are refused), a snic SQ on an
 * unconfigured FLD send window (its probe is refused); and stray reads
 * and writes of every window kind.  All counted and reported, zeros
 * returned, QEMU and the configured queues unharmed.
 */
static void nic_outside_windows(void)
{
	struct snic_aq_create_cq cc = { 0 };
	struct snic_aq_create_rq rc = { 0 };
	struct snic_steer_rule r = { 0 };
	uint64_t res, bad, badw;
	uint8_t f[2048];
	struct flde q;
	int got, k;

	CHECK(env_start(""));
	CHECK(flde_setup(&q, 6, sq_db_addr(), 0));
	fld_wr(FLD_REG_ERR_MSIX, 0);

	/* CPU-side strays: each refused and counted. */
	bad = fld_stat(FLD_STAT_BAD_READS);
	CHECK_EQ(qt_readl(qt, FLD_BAR2 + 0x1c00000), 0);	/* no window */
	CHECK_EQ(qt_readl(qt, FLD_BAR2 + FLD_WIN_SQ + 5 * FLD_SQ_WIN_SIZE), 0);
	CHECK_EQ(qt_readl(qt, FLD_BAR2 + FLD_WIN_SQ + 64 * 64), 0); /* ring end */
	CHECK_EQ(qt_readl(qt, FLD_BAR2 + FLD_WIN_TXBUF + 0x100), 0); /* unmapped */
	CHECK_EQ(qt_readl(qt, FLD_BAR2 + FLD_WIN_DBR + FLD_DBR_RQ + 4), 0);
	CHECK_EQ(fld_stat(FLD_STAT_BAD_READS), bad + 5);
	CHECK_EQ(fld_rd(FLD_REG_ERROR), FLD_ERR_WIN_READ);
	badw = fld_stat(FLD_STAT_BAD_WRITES);
	qt_writel(qt, FLD_BAR2 + FLD_WIN_SQ, 0xdeadbeef);
	qt_writel(qt, FLD_BAR2 + FLD_WIN_RXBUF + FLD_RQ_BUF_SIZE, 1);
	qt_writel(qt, FLD_BAR2 + FLD_WIN_CQ + 256 * 64, 1);
	qt_writel(qt, FLD_BAR2 + 0x1f00000, 1);
	CHECK_EQ(fld_stat(FLD_STAT_BAD_WRITES), badw + 4);
	CHECK_EQ(fld_rd(FLD_REG_ERROR), FLD_ERR_WIN_WRITE);
	/* a WQE fetch of an empty slot */
	CHECK_EQ(qt_readq(qt, FLD_BAR2 + FLD_WIN_SQ + 3 * 64), 0);
	CHECK_EQ(fld_stat(FLD_STAT_WQE_MISSES), 1);

	/* The NIC itself: an RQ whose CQ ring lies outside every window. */
	cc.ring_addr = FLD_BAR2 + 0x1c00000;
	cc.dbr_addr = FLD_BAR2 + 0x1c10000;
	cc.log_size = 4;
	cc.eqn = SNIC_EQN_NONE;
	cc.db_page = 9;
	bad = fld_stat(FLD_STAT_BAD_READS);
	CHECK_EQ(snic_aq_cmd(&nic, SNIC_AQ_CREATE_CQ, &cc, sizeof(cc), &res),
		 OK);
	CHECK(fld_stat(FLD_STAT_BAD_READS) >= bad + 2);	/* the probes */
	rc.ring_addr = galloc(4 * 16, 64);
	rc.dbr_addr = galloc(64, 64);
	rc.log_size = 2;
	rc.type = SNIC_RQ_PLAIN;
	rc.cqn = res;
	rc.db_page = 10;
	for (k = 0; k < 4; k++) {
		struct snic_rx_desc d = {
			.byte_count = 2048, .addr = FLD_BAR2 + 0x1d00000 + k * 2048,
		};

		qt_memwrite(qt, rc.ring_addr + 16 * k, &d, sizeof(d));
	}
	qt_writel(qt, rc.dbr_addr, 4);
	CHECK_EQ(snic_aq_cmd(&nic, SNIC_AQ_CREATE_RQ, &rc, sizeof(rc), &res),
		 OK);
	r.match = SNIC_MATCH_IP_PROTO | SNIC_MATCH_DST_PORT;
	r.priority = 5;
	r.dest = SNIC_DEST_RQ;
	r.dest_id = res;
	r.ip_proto = 17;
	r.dst_port = htons(9);
	CHECK_EQ(snic_aq_buf(&nic, SNIC_AQ_ADD_RULE, &r, sizeof(r), sizeof(r),
			     0, 0, NULL, 0, NULL), OK);
	badw = fld_stat(FLD_STAT_BAD_WRITES);
	CHECK(send(inj, f, mk_udp(f, 9, 100, 1), 0) > 0);
	settle();
	settle();
	/* frame bytes and CQE bytes: refused piece by piece */
	CHECK(fld_stat(FLD_STAT_BAD_WRITES) > badw);
	CHECK(qt_alive(qt));
	/* the error interrupt fired (vector 0 is not wired: just no crash) */
	CHECK(fld_rd(FLD_REG_ERROR_COUNT) > 0);
	fld_wr(FLD_REG_ERROR, 0);
	CHECK_EQ(fld_rd(FLD_REG_ERROR), FLD_ERR_NONE);
	/* FLD-E still echoes */
	CHECK(echo_round(5, 64, 50, &got));
}

/* Refused commands and register accesses: status, error, counter. */
static void bad_commands(void)
{
	uint32_t a[8] = { 0 };
	uint32_t n;

	CHECK(env_start(""));
	n = fld_stat(FLD_STAT_BAD_CMDS);
	a[0] = 0; a[1] = 0; a[2] = 20;		/* log too big */
	CHECK_EQ(fld_cmd(FLD_CMD_CQ_SET, 3, a, NULL), FLD_CMD_EINVAL);
	CHECK_EQ(fld_rd(FLD_REG_ERROR), FLD_ERR_BAD_CMD);
	a[0] = 200;				/* slot */
	CHECK_EQ(fld_cmd(FLD_CMD_SQ_SET, 4, a, NULL), FLD_CMD_EINVAL);
	a[0] = 0; a[1] = 0; a[2] = 4; a[3] = 3;	/* CQ slot not set */
	CHECK_EQ(fld_cmd(FLD_CMD_SQ_SET, 4, a, NULL), FLD_CMD_ENOENT);
	a[0] = 0; a[1] = 0; a[2] = 4;
	CHECK_EQ(fld_cmd(FLD_CMD_CQ_SET, 3, a, NULL), FLD_CMD_OK);
	CHECK_EQ(fld_cmd(FLD_CMD_CQ_SET, 3, a, NULL), FLD_CMD_EBUSY);
	a[0] = 0; a[1] = 0; a[2] = 4; a[3] = 11; a[4] = 1; a[5] = 0;
	CHECK_EQ(fld_cmd(FLD_CMD_RQ_SET, 6, a, NULL), FLD_CMD_EINVAL);
	a[0] = 0; a[1] = 0; a[2] = 8; a[3] = 13; a[4] = 8; a[5] = 0;
	CHECK_EQ(fld_cmd(FLD_CMD_RQ_SET, 6, a, NULL), FLD_CMD_EINVAL);
	a[0] = 7; a[1] = 0; a[2] = 0;
	CHECK_EQ(fld_cmd(FLD_CMD_BIND, 3, a, NULL), FLD_CMD_EINVAL);
	a[0] = FLD_BIND_SQ; a[1] = 3; a[2] = 1;
	CHECK_EQ(fld_cmd(FLD_CMD_BIND, 3, a, NULL), FLD_CMD_ENOENT);
	CHECK_EQ(fld_cmd(0x7f, 0, a, NULL), FLD_CMD_EOPNOTSUPP);
	CHECK_EQ(fld_stat(FLD_STAT_BAD_CMDS), n + 9);
	a[0] = 0;
	CHECK_EQ(fld_cmd(FLD_CMD_CQ_CLEAR, 1, a, NULL), FLD_CMD_OK);
	CHECK_EQ(fld_cmd(FLD_CMD_CQ_CLEAR, 1, a, NULL), FLD_CMD_ENOENT);
	n = fld_rd(FLD_REG_ERROR_COUNT);
	fld_wr(0xffc, 1);			/* undefined */
	fld_wr(FLD_REG_ID, 1);			/* read-only */
	CHECK_EQ(fld_rd(0xf00), 0);
	CHECK_EQ(fld_rd(FLD_REG_ERROR), FLD_ERR_BAD_REG);
	CHECK_EQ(fld_rd(FLD_REG_ERROR_COUNT), n + 3);
	/* reset clears queues and statistics */
	fld_wr(FLD_REG_CTRL, FLD_CTRL_RESET);
	CHECK_EQ(fld_rd(FLD_REG_STATUS), 0);
	a[0] = 0; a[1] = 0; a[2] = 4;
	CHECK_EQ(fld_cmd(FLD_CMD_CQ_SET, 3, a, NULL), FLD_CMD_ESTATE);
	fld_wr(FLD_REG_CTRL, 0);
	CHECK_EQ(fld_rd(FLD_REG_STATUS), FLD_STATUS_READY);
	CHECK_EQ(fld_stat(FLD_STAT_BAD_CMDS), 1);	/* the one in reset */
	CHECK_EQ(fld_cmd(FLD_CMD_CQ_SET, 3, a, NULL), FLD_CMD_OK);
}

/* FLD's doorbell to the NIC lands nowhere: counted and reported. */
static void doorbell_unreachable(void)
{
	uint8_t f[2048];
	struct flde q;
	int i;

	CHECK(env_start(""));
	CHECK(flde_setup(&q, 6, 0x5000000000ull, 0));
	CHECK(send(inj, f, mk_udp(f, UDP_PORT, 64, 1), 0) > 0);
	for (i = 0; i < 4; i++)
		settle();
	CHECK_EQ(fld_stat(FLD_STAT_TX_POSTS), 1);
	CHECK(fld_stat(FLD_STAT_DB_ERRORS) >= 1);
	CHECK_EQ(fld_rd(FLD_REG_ERROR), FLD_ERR_DMA);
	CHECK(qt_alive(qt));
}

/*
 * Malformed frames to the echo accelerator (steered by ethertype, so bad
 * IPv4 headers reach it): an IHL beyond the frame, a frame too short for
 * an IPv4 header.  Echoed with what can be swapped swapped; QEMU lives.
 */
static void echo_malformed(void)
{
	struct snic_steer_rule rule = { 0 };
	uint8_t f[2048], g[2048];
	struct flde q;
	size_t len;
	int r, got;

	CHECK(env_start(""));
	CHECK(flde_setup(&q, 6, sq_db_addr(), 0));
	rule.match = SNIC_MATCH_ETHERTYPE;
	rule.priority = 20;
	rule.dest = SNIC_DEST_RQ;
	rule.dest_id = q.rqn;
	rule.ethertype = htons(0x0800);
	CHECK_EQ(snic_aq_buf(&nic, SNIC_AQ_ADD_RULE, &rule, sizeof(rule),
			     sizeof(rule), 0, 0, NULL, 0, NULL), OK);
	len = mk_udp(f, UDP_PORT, 40, 3);
	f[14] = 0x4f;			/* IHL 60 bytes */
	CHECK(send(inj, f, len, 0) == (ssize_t)len);
	do {
		settle();
		r = cap_recv(g, sizeof(g), 2000);
	} while (r > 0 && !memcmp(g, mac_nic, 6));
	CHECK_EQ(r, (int)len);
	CHECK(!memcmp(g, mac_peer, 6) && !memcmp(g + 6, mac_nic, 6));
	len = 20;			/* Ethernet + 6 bytes of "IPv4" */
	CHECK(send(inj, f, len, 0) == (ssize_t)len);
	do {
		settle();
		r = cap_recv(g, sizeof(g), 2000);
	} while (r > 0 && !memcmp(g, mac_nic, 6));
	CHECK_EQ(r, 20);
	CHECK(!memcmp(g, mac_peer, 6) && !memcmp(g + 12, f + 12, 8));
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_TX), 2);
	CHECK(echo_round(3, 64, 10, &got));
	CHECK(qt_alive(qt));
}

/* ---- iotauth ---- */

static const char b64u[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static size_t b64url(const uint8_t *in, size_t n, char *out)
{
	size_t i, o = 0;
	uint32_t acc = 0;
	int bits = 0;

	for (i = 0; i < n; i++) {
		acc = acc << 8 | in[i];
		bits += 8;
		while (bits >= 6) {
			bits -= 6;
			out[o++] = b64u[(acc >> bits) & 63];
		}
	}
	if (bits)
		out[o++] = b64u[(acc << (6 - bits)) & 63];
	out[o] = 0;
	return o;
}

/* An HS256 JWT for @claims signed with @key (header {"alg":"HS256"...}). */
static size_t mk_jwt(char *out, const char *alg, const char *claims,
		     const char *key)
{
	struct hmac_sha256_ctx c;
	char hdr[128];
	uint8_t mac[32];
	size_t n;

	snprintf(hdr, sizeof(hdr), "{\"alg\":\"%s\",\"typ\":\"JWT\"}", alg);
	n = b64url((const uint8_t *)hdr, strlen(hdr), out);
	out[n++] = '.';
	n += b64url((const uint8_t *)claims, strlen(claims), out + n);
	hmac_sha256_set_key(&c, strlen(key), (const uint8_t *)key);
	hmac_sha256_update(&c, n, (const uint8_t *)out);
	hmac_sha256_digest(&c, 32, mac);
	out[n++] = '.';
	n += b64url(mac, 32, out + n);
	return n;
}

/*
 * A CoAP POST (token, Uri-Path "auth") whose payload is @jwt, as the UDP
 * payload of a frame to the NIC's port 7.
 */
static size_t mk_coap(uint8_t *f, const char *jwt, uint8_t ver)
{
	uint8_t c[1024];
	size_t n = 0, jl = strlen(jwt), len;

	c[n++] = ver << 6 | 2;		/* CON, token length 2 */
	c[n++] = 0x02;			/* POST */
	c[n++] = 0x12;
	c[n++] = 0x34;
	c[n++] = 0xaa;
	c[n++] = 0xbb;
	c[n++] = 0xb4;			/* Uri-Path (11), 4 bytes */
	memcpy(c + n, "auth", 4);
	n += 4;
	c[n++] = 0xff;
	memcpy(c + n, jwt, jl);
	n += jl;
	len = mk_udp(f, UDP_PORT, n, 0);
	memcpy(f + 42, c, n);
	/* redo the UDP checksum over the CoAP bytes */
	{
		uint8_t *ip = f + 14, *udp = ip + 20;
		uint32_t sum = 0;
		size_t i;

		udp[6] = udp[7] = 0;
		for (i = 12; i < 20; i += 2)
			sum += ip[i] << 8 | ip[i + 1];
		sum += 17 + 8 + n;
		i = csum(udp, 8 + n, sum);
		if (i == 0)
			i = 0xffff;
		udp[6] = i >> 8;
		udp[7] = i;
	}
	return len;
}

static void key_set(uint32_t idx, const char *key)
{
	uint32_t a[8];
	size_t kl = strlen(key), c, i;

	for (c = 0; c * FLD_KEY_CHUNK < kl || (kl == 0 && c == 0); c++) {
		memset(a, 0, sizeof(a));
		a[0] = idx;
		a[1] = c | kl << 8;
		for (i = 0; i < FLD_KEY_CHUNK && c * FLD_KEY_CHUNK + i < kl; i++)
			a[2 + i / 4] |= (uint32_t)(uint8_t)key[c * FLD_KEY_CHUNK + i]
					<< (8 * (i % 4));
		fld_cmd(FLD_CMD_KEY_SET, 8, a, NULL);
	}
}

/* Send @f; true if FLD passed it on (an answer came back). */
static bool iot_passes(const uint8_t *f, size_t len)
{
	uint8_t g[2048];
	int r;

	if (send(inj, f, len, 0) != (ssize_t)len)
		return false;
	do {
		settle();
		r = cap_recv(g, sizeof(g), 400);
	} while (r > 0 && !memcmp(g, mac_nic, 6));
	return r == (int)len && !memcmp(g, f + 6, 6) &&
	       !memcmp(g + 42, f + 42, len - 42);
}

/*
 * iotauth: tenant 0x5a (the rule's flow tag) has a key; tokens signed with
 * it pass, anything else is dropped and counted - wrong key, "none"
 * algorithm, no key for the tenant, not CoAP, not a JWT, bad checksum.
 */
static void iotauth_tokens(void)
{
	static const char key[] = "tenant-5a-secret-key-of-40-bytes-length!";
	static const char claims[] = "{\"sub\":\"sensor-17\",\"iat\":1700000000}";
	uint8_t f[2048];
	char jwt[512];
	struct flde q;
	size_t len;
	uint32_t a[8] = { FLD_NUM_KEYS, 1 << 8 };

	CHECK(env_start(",accel=iotauth"));
	CHECK_EQ(fld_rd(FLD_REG_ACCEL), FLD_ACCEL_IOTAUTH);
	CHECK(fld_rd(FLD_REG_CAPS) & FLD_CAP_IOTAUTH);
	CHECK(flde_setup(&q, 6, sq_db_addr(), 0));
	CHECK_EQ(fld_cmd(FLD_CMD_KEY_SET, 8, a, NULL), FLD_CMD_EINVAL);
	key_set(FLOW_TAG, key);

	mk_jwt(jwt, "HS256", claims, key);
	len = mk_coap(f, jwt, 1);
	CHECK(iot_passes(f, len));
	CHECK(iot_passes(f, len));
	mk_jwt(jwt, "HS256", claims, "some-other-key");
	CHECK(!iot_passes(f, mk_coap(f, jwt, 1)));
	mk_jwt(jwt, "none", claims, key);
	CHECK(!iot_passes(f, mk_coap(f, jwt, 1)));
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_DROPS), 2);

	mk_jwt(jwt, "HS256", claims, key);
	CHECK(!iot_passes(f, mk_coap(f, jwt, 2)));		/* CoAP version 2 */
	CHECK(!iot_passes(f, mk_coap(f, "not.a-jwt", 1)));	/* base64 */
	CHECK(!iot_passes(f, mk_coap(f, "nodots", 1)));
	len = mk_coap(f, jwt, 1);
	f[len - 1] ^= 0x20;					/* UDP checksum */
	CHECK(!iot_passes(f, len));
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_BAD), 4);

	key_set(FLOW_TAG, "");					/* tenant gone */
	CHECK(!iot_passes(f, mk_coap(f, jwt, 1)));
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_DROPS), 3);
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_TX), 2);
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_RX), 9);
	CHECK(qt_alive(qt));
}


/*
 * iotauth expiry and verdict counters: FLD_REG_UNIX_TIME unset drops
 * tokens carrying exp; once set it advances with the virtual clock, so a
 * token valid now is dropped after its exp; each reason has its counter.
 */
static void iotauth_expiry_reasons(void)
{
	static const char key[] = "tenant-5a-expiry-key";
	const uint32_t t0 = 1800000000;
	char claims[128], jwt[512];
	uint8_t f[2048];
	struct flde q;
	size_t len;

	CHECK(env_start(",accel=iotauth"));
	CHECK(flde_setup(&q, 6, sq_db_addr(), 0));
	key_set(FLOW_TAG, key);
	CHECK_EQ(fld_rd(FLD_REG_UNIX_TIME), 0);
	snprintf(claims, sizeof(claims), "{\"sub\":\"s1\",\"exp\":%u}", t0 + 100);
	mk_jwt(jwt, "HS256", claims, key);
	len = mk_coap(f, jwt, 1);
	CHECK(!iot_passes(f, len));			/* no time: fail closed */
	CHECK_EQ(fld_stat(FLD_STAT_IOT_EXPIRED), 1);

	fld_wr(FLD_REG_UNIX_TIME, t0);
	CHECK_EQ(fld_rd(FLD_REG_UNIX_TIME), t0);
	CHECK(iot_passes(f, len));
	CHECK_EQ(fld_stat(FLD_STAT_IOT_VALID), 1);
	qt_clock_step(qt, 99ull * 1000000000);
	CHECK(iot_passes(f, len));			/* t0 + 99 < exp */
	qt_clock_step(qt, 1ull * 1000000000);
	CHECK(fld_rd(FLD_REG_UNIX_TIME) >= t0 + 100);
	CHECK(!iot_passes(f, len));			/* t0 + 100: expired */
	CHECK_EQ(fld_stat(FLD_STAT_IOT_EXPIRED), 2);
	CHECK_EQ(fld_stat(FLD_STAT_IOT_VALID), 2);

	mk_jwt(jwt, "HS256", claims, "forged");
	CHECK(!iot_passes(f, mk_coap(f, jwt, 1)));
	CHECK_EQ(fld_stat(FLD_STAT_IOT_BAD_SIG), 1);
	mk_jwt(jwt, "none", claims, key);
	CHECK(!iot_passes(f, mk_coap(f, jwt, 1)));
	CHECK_EQ(fld_stat(FLD_STAT_IOT_BAD_ALG), 1);
	mk_jwt(jwt, "HS256", "{\"exp\":\"tomorrow\"}", key);
	CHECK(!iot_passes(f, mk_coap(f, jwt, 1)));
	CHECK(!iot_passes(f, mk_coap(f, "nodots", 1)));
	CHECK_EQ(fld_stat(FLD_STAT_IOT_MALFORMED), 2);
	key_set(FLOW_TAG, "");
	CHECK(!iot_passes(f, mk_coap(f, jwt, 1)));
	CHECK_EQ(fld_stat(FLD_STAT_IOT_NO_TENANT), 1);
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_DROPS), 5);
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_BAD), 2);
	/* reset forgets the time */
	fld_wr(FLD_REG_CTRL, FLD_CTRL_RESET);
	fld_wr(FLD_REG_CTRL, 0);
	CHECK_EQ(fld_rd(FLD_REG_UNIX_TIME), 0);
	CHECK(qt_alive(qt));
}

/* ---- defrag ---- */

/* The inner frame: Ethernet to the peer, IPv4/UDP with @plen bytes. */
static size_t mk_inner(uint8_t *f, size_t plen, uint16_t id)
{
	size_t len = mk_udp(f, 5000, plen, id);
	uint16_t c;

	memcpy(f, mac_peer, 6);		/* to the next receiver on the wire */
	memcpy(f + 6, mac_nic, 6);
	f[18] = id >> 8;
	f[19] = id;
	f[24] = f[25] = 0;
	c = csum(f + 14, 20, 0);
	f[24] = c >> 8;
	f[25] = c;
	return len;
}

/* Fragment [off, off + n) of the inner frame's IP payload, VXLAN-wrapped. */
static size_t mk_vxlan_frag(uint8_t *o, const uint8_t *inner, size_t off,
			    size_t n, bool last, uint32_t vni)
{
	uint8_t *ip, *udp, *vx, *in;
	uint16_t c, fr = off / 8 | (last ? 0 : 0x2000);
	size_t ilen = 14 + 20 + n, tot = 20 + 8 + 8 + ilen;

	memcpy(o, mac_nic, 6);
	memcpy(o + 6, mac_peer, 6);
	o[12] = 0x08;
	o[13] = 0x00;
	ip = o + 14;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	ip[2] = tot >> 8;
	ip[3] = tot;
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, (uint8_t[]){ 10, 0, 0, 9 }, 4);
	memcpy(ip + 16, (uint8_t[]){ 10, 0, 0, 1 }, 4);
	c = csum(ip, 20, 0);
	ip[10] = c >> 8;
	ip[11] = c;
	udp = ip + 20;
	udp[0] = 0xc0;
	udp[1] = 0x00;
	udp[2] = SNIC_VXLAN_PORT >> 8;
	udp[3] = SNIC_VXLAN_PORT & 0xff;
	udp[4] = (8 + 8 + ilen) >> 8;
	udp[5] = 8 + 8 + ilen;
	udp[6] = udp[7] = 0;		/* no UDP checksum */
	vx = udp + 8;
	memset(vx, 0, 8);
	vx[0] = 0x08;
	vx[4] = vni >> 16;
	vx[5] = vni >> 8;
	vx[6] = vni;
	in = vx + 8;
	memcpy(in, inner, 14 + 20);
	memcpy(in + 34, inner + 34 + off, n);
	in[16] = (20 + n) >> 8;
	in[17] = 20 + n;
	in[20] = fr >> 8;
	in[21] = fr;
	in[24] = in[25] = 0;
	c = csum(in + 14, 20, 0);
	in[24] = c >> 8;
	in[25] = c;
	return 14 + tot;
}

/* Next frame on the wire not sent by us (the NIC's own MAC as source). */
static int wire_recv(uint8_t *g, size_t len, int ms)
{
	int r;

	do {
		settle();
		r = cap_recv(g, len, ms);
	} while (r > 0 && !memcmp(g, mac_nic, 6));
	return r;
}

/*
 * defrag: VXLAN frames whose inner IPv4 datagrams are fragmented reach
 * FLD decapsulated (a VNI rule with DECAP); FLD sends each datagram out
 * whole, byte for byte the unfragmented inner frame, in any fragment
 * order; overlapping fragments are dropped, unfragmented frames pass.
 */
static void defrag_vxlan(void)
{
	struct snic_steer_rule r = { 0 };
	static const int order[] = { 2, 0, 3, 1 };
	uint8_t inner[2048], o[2048], g[2048];
	size_t ilen, ipl, k;
	struct flde q;
	int n, i;

	CHECK(env_start(",accel=defrag"));
	CHECK_EQ(fld_rd(FLD_REG_ACCEL), FLD_ACCEL_DEFRAG);
	CHECK(flde_setup(&q, 6, sq_db_addr(), 0));
	r.match = SNIC_MATCH_VNI;
	r.priority = 5;
	r.dest = SNIC_DEST_RQ;
	r.actions = SNIC_ACT_DECAP | SNIC_ACT_COUNT;
	r.dest_id = q.rqn;
	r.vni = 42;
	CHECK_EQ(snic_aq_buf(&nic, SNIC_AQ_ADD_RULE, &r, sizeof(r), sizeof(r),
			     0, 0, NULL, 0, NULL), OK);

	/* 1200 bytes of IP payload in 4 fragments of 304, 304, 304, 288 */
	ilen = mk_inner(inner, 1192, 0x77);
	ipl = ilen - 34;
	for (i = 0; i < 4; i++) {
		k = order[i] * 304;
		n = mk_vxlan_frag(o, inner, k, ipl - k < 304 ? ipl - k : 304,
				  k + 304 >= ipl, 42);
		CHECK(send(inj, o, n, 0) == n);
	}
	n = wire_recv(g, sizeof(g), 2000);
	CHECK_EQ(n, (int)ilen);
	CHECK(!memcmp(g, inner, ilen));
	CHECK_EQ(fld_stat(FLD_STAT_DF_REASSEMBLED), 1);
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_RX), 4);

	/* overlapping fragments: the datagram is dropped */
	ilen = mk_inner(inner, 592, 0x78);
	ipl = ilen - 34;
	n = mk_vxlan_frag(o, inner, 0, 304, false, 42);
	CHECK(send(inj, o, n, 0) == n);
	n = mk_vxlan_frag(o, inner, 296, ipl - 296, true, 42);
	CHECK(send(inj, o, n, 0) == n);
	CHECK(wire_recv(g, sizeof(g), 500) < 0);
	CHECK_EQ(fld_stat(FLD_STAT_DF_DROPPED), 1);

	/* an unfragmented inner frame passes as it is */
	ilen = mk_inner(inner, 100, 0x79);
	n = mk_vxlan_frag(o, inner, 0, ilen - 34, true, 42);
	CHECK(send(inj, o, n, 0) == n);
	n = wire_recv(g, sizeof(g), 2000);
	CHECK_EQ(n, (int)ilen);
	CHECK(!memcmp(g, inner, ilen));
	CHECK_EQ(fld_stat(FLD_STAT_DF_REASSEMBLED), 1);
	CHECK_EQ(fld_rd(FLD_REG_POOL_IN_USE), 0);
	CHECK(qt_alive(qt));
}


/* A fragment of @inner ([off, off + n) of its IP payload) on the wire. */
static void df_send(const uint8_t *inner, size_t off, size_t n, bool last)
{
	uint8_t o[2048];
	size_t len = mk_vxlan_frag(o, inner, off, n, last, 42);

	CHECK(send(inj, o, len, 0) == (ssize_t)len);
}

/*
 * defrag limits: a datagram not whole within FLD_DF_TIMEOUT_MS of virtual
 * time is dropped; an exact duplicate fragment is dropped alone (the
 * datagram still completes, byte for byte); more than FLD_DF_MAX_FRAGS
 * pieces drop the datagram.  Each is counted.
 */
static void defrag_limits_timeout(void)
{
	struct snic_steer_rule r = { 0 };
	uint8_t inner[2048], g[2048];
	size_t ilen, ipl, i;
	struct flde q;

	CHECK(env_start(",accel=defrag"));
	CHECK(flde_setup(&q, 6, sq_db_addr(), 0));
	r.match = SNIC_MATCH_VNI;
	r.priority = 5;
	r.dest = SNIC_DEST_RQ;
	r.actions = SNIC_ACT_DECAP | SNIC_ACT_COUNT;
	r.dest_id = q.rqn;
	r.vni = 42;
	CHECK_EQ(snic_aq_buf(&nic, SNIC_AQ_ADD_RULE, &r, sizeof(r), sizeof(r),
			     0, 0, NULL, 0, NULL), OK);

	/* timeout: the second half comes too late */
	ilen = mk_inner(inner, 600, 0x90);
	ipl = ilen - 34;
	df_send(inner, 0, 304, false);
	settle();
	qt_clock_step(qt, (FLD_DF_TIMEOUT_MS + 1) * 1000000ull);
	df_send(inner, 304, ipl - 304, true);
	CHECK(wire_recv(g, sizeof(g), 500) < 0);
	CHECK_EQ(fld_stat(FLD_STAT_DF_TIMEOUTS), 1);
	/* ... and its first half again, in time: now whole */
	df_send(inner, 0, 304, false);
	CHECK_EQ(wire_recv(g, sizeof(g), 2000), (int)ilen);
	CHECK(!memcmp(g, inner, ilen));

	/* duplicate first fragment: dropped alone */
	ilen = mk_inner(inner, 600, 0x91);
	df_send(inner, 0, 304, false);
	df_send(inner, 0, 304, false);
	df_send(inner, 304, ipl - 304, true);
	CHECK_EQ(wire_recv(g, sizeof(g), 2000), (int)ilen);
	CHECK(!memcmp(g, inner, ilen));
	CHECK_EQ(fld_stat(FLD_STAT_DF_DUPLICATES), 1);
	CHECK_EQ(fld_stat(FLD_STAT_DF_REASSEMBLED), 2);

	/* 8-byte pieces: the (FLD_DF_MAX_FRAGS + 1)th drops the datagram */
	ilen = mk_inner(inner, 8 * FLD_DF_MAX_FRAGS + 100, 0x92);
	ipl = ilen - 34;
	for (i = 0; i <= FLD_DF_MAX_FRAGS; i++)
		df_send(inner, 8 * i, 8, false);
	df_send(inner, 8 * i, ipl - 8 * i, true);
	CHECK(wire_recv(g, sizeof(g), 500) < 0);
	CHECK_EQ(fld_stat(FLD_STAT_DF_TOO_MANY), 1);
	CHECK_EQ(fld_stat(FLD_STAT_DF_DROPPED), 1);
	CHECK_EQ(fld_stat(FLD_STAT_DF_REASSEMBLED), 2);
	CHECK(qt_alive(qt));
}

/* ---- zuc ---- */

/* A UDP frame to port 7 whose payload is a zuc request of @rlen bytes. */
static size_t mk_zuc(uint8_t *f, const uint8_t *req, size_t rlen)
{
	size_t len = mk_udp(f, UDP_PORT, rlen, 0);
	uint8_t *ip = f + 14, *udp = ip + 20;
	uint32_t sum = 0;
	size_t i;

	memcpy(f + 42, req, rlen);
	udp[6] = udp[7] = 0;
	for (i = 12; i < 20; i += 2)
		sum += ip[i] << 8 | ip[i + 1];
	sum += 17 + 8 + rlen;
	i = csum(udp, 8 + rlen, sum);
	if (i == 0)
		i = 0xffff;
	udp[6] = i >> 8;
	udp[7] = i;
	return len;
}

static size_t zuc_req(uint8_t *req, uint8_t op, const uint8_t *key,
		      uint32_t count, uint8_t bearer, uint8_t dir,
		      uint32_t bits, const uint32_t *w, unsigned int nw)
{
	struct fld_zuc_hdr h;
	unsigned int i;

	memset(&h, 0, sizeof(h));
	h.magic = FLD_ZUC_MAGIC;
	h.op = op;
	h.bearer = bearer;
	h.direction = dir;
	h.count = count;
	h.length_bits = bits;
	h.request_id = 42;
	memcpy(h.key, key, 16);
	memcpy(req, &h, sizeof(h));
	for (i = 0; i < nw; i++) {
		req[64 + 4 * i] = w[i] >> 24;
		req[64 + 4 * i + 1] = w[i] >> 16;
		req[64 + 4 * i + 2] = w[i] >> 8;
		req[64 + 4 * i + 3] = w[i];
	}
	return 64 + (bits + 7) / 8;
}

/* The answer frame's checksums are valid (the NIC filled them). */
static bool answer_csums_ok(const uint8_t *g, size_t n)
{
	uint32_t sum = 0;
	size_t i, ulen = g[38] << 8 | g[39];

	if (csum(g + 14, 20, 0) != 0 || 34 + ulen != n)
		return false;
	for (i = 26; i < 34; i += 2)
		sum += g[i] << 8 | g[i + 1];
	sum += 17 + ulen;
	return csum(g + 34, ulen, sum) == 0;
}

/*
 * zuc over FLD-E: 3GPP EEA3 set 1 and EIA3 set 2 as requests, answered
 * with the published ciphertext and MAC; a request with a bad bearer is
 * answered with its error, a payload that is no request is dropped.
 */
static void zuc_requests(void)
{
	static const uint8_t k1[16] = {
		0x17, 0x3d, 0x14, 0xba, 0x50, 0x03, 0x73, 0x1d,
		0x7a, 0x60, 0x04, 0x94, 0x70, 0xf0, 0x0a, 0x29,
	};
	static const uint32_t p1[] = {
		0x6cf65340, 0x735552ab, 0x0c9752fa, 0x6f9025fe,
		0x0bd675d9, 0x005875b2, 0x00000000,
	};
	static const uint8_t c1[25] = {
		0xa6, 0xc8, 0x5f, 0xc6, 0x6a, 0xfb, 0x85, 0x33, 0xaa, 0xfc,
		0x25, 0x18, 0xdf, 0xe7, 0x84, 0x94, 0x0e, 0xe1, 0xe4, 0xb0,
		0x30, 0x23, 0x8c, 0xc8, 0x00,
	};
	static const uint8_t k2[16] = {
		0xc9, 0xe6, 0xce, 0xc4, 0x60, 0x7c, 0x72, 0xdb,
		0x00, 0x0a, 0xef, 0xa8, 0x83, 0x85, 0xab, 0x0a,
	};
	static const uint32_t m2[] = {
		0x983b41d4, 0x7d780c9e, 0x1ad11d7e, 0xb70391b1,
		0xde0b35da, 0x2dc62f83, 0xe7b78d63, 0x06ca0ea0,
		0x7e941b7b, 0xe91348f9, 0xfcb170e2, 0x217fecd9,
		0x7f9f68ad, 0xb16e5d7d, 0x21e569d2, 0x80ed775c,
		0xebde3f40, 0x93c53881, 0x00000000,
	};
	uint8_t req[512], f[2048], g[2048];
	struct fld_zuc_hdr a;
	struct flde q;
	size_t rl, len;
	int n;

	CHECK(env_start(",accel=zuc"));
	CHECK_EQ(fld_rd(FLD_REG_ACCEL), FLD_ACCEL_ZUC);
	CHECK(flde_setup(&q, 6, sq_db_addr(), 0));

	rl = zuc_req(req, FLD_ZUC_OP_EEA3, k1, 0x66035492, 0x0f, 0, 193, p1, 7);
	len = mk_zuc(f, req, rl);
	CHECK(send(inj, f, len, 0) == (ssize_t)len);
	n = wire_recv(g, sizeof(g), 2000);
	CHECK_EQ(n, (int)(42 + 64 + 25));
	CHECK(!memcmp(g, mac_peer, 6));
	CHECK(answer_csums_ok(g, n));
	memcpy(&a, g + 42, sizeof(a));
	CHECK_EQ(a.status, FLD_ZUC_OK);
	CHECK_EQ(a.request_id, 42);
	CHECK(!memcmp(g + 42 + 64, c1, 25));

	rl = zuc_req(req, FLD_ZUC_OP_EIA3, k2, 0xa94059da, 0x0a, 1, 577, m2, 19);
	len = mk_zuc(f, req, rl);
	CHECK(send(inj, f, len, 0) == (ssize_t)len);
	n = wire_recv(g, sizeof(g), 2000);
	CHECK_EQ(n, 42 + 64);
	memcpy(&a, g + 42, sizeof(a));
	CHECK_EQ(a.status, FLD_ZUC_OK);
	CHECK_EQ(a.mac, 0xfae8ff0b);

	rl = zuc_req(req, FLD_ZUC_OP_EEA3, k1, 1, 40, 0, 193, p1, 7);
	len = mk_zuc(f, req, rl);
	CHECK(send(inj, f, len, 0) == (ssize_t)len);
	n = wire_recv(g, sizeof(g), 2000);
	CHECK_EQ(n, 42 + 64);
	memcpy(&a, g + 42, sizeof(a));
	CHECK_EQ(a.status, FLD_ZUC_EPARAM);

	req[0] ^= 0xff;					/* not a request */
	len = mk_zuc(f, req, rl);
	CHECK(send(inj, f, len, 0) == (ssize_t)len);
	CHECK(wire_recv(g, sizeof(g), 500) < 0);
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_BAD), 2);
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_TX), 3);
	CHECK(qt_alive(qt));
}

int main(void)
{
	RUN("device/fld", identity_and_registers);
	RUN("device/fld", memory_table);
	RUN("device/fld", echo_through_flde);
	RUN("device/fld", echo_sizes);
	RUN("device/fld", pool_exhausted_stalls);
	RUN("device/fld", accel_overflow_drops);
	RUN("device/fld", credit_quota);
	RUN("device/fld", nic_outside_windows);
	RUN("device/fld", bad_commands);
	RUN("device/fld", doorbell_unreachable);
	RUN("device/fld", echo_malformed);
	RUN("device/fld", iotauth_tokens);
	RUN("device/fld", defrag_vxlan);
	RUN("device/fld", iotauth_expiry_reasons);
	RUN("device/fld", defrag_limits_timeout);
	RUN("device/fld", zuc_requests);
	qt_quit(qt);
	if (inj >= 0)
		close(inj);
	return check_failures ? 1 : 0;
}
