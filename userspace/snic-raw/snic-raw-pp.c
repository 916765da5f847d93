// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snic-raw-pp: drive one snic function's RoCEv2 transport from user space,
 * without snic.ko, and serve the ibv_rc_pingpong protocol on it - so that
 * a stock ibv_rc_pingpong over Linux's rdma_rxe can talk to the snic
 * model (an interoperability test of docs/snic-rdma.md, guest test
 * snic_rdma_rxe_interop.sh).
 *
 * The function must be unbound from any driver.  BARs are mapped through
 * sysfs; DMA memory is locked anonymous memory whose bus addresses come
 * from /proc/self/pagemap (no IOMMU in the test guest).  Every ring fits in
 * one page; the data buffer is an MR over scattered pages.
 *
 * With "ud" as the last argument it serves ibv_ud_pingpong instead (UD QP,
 * qkey 0x11111111, the 40-byte GRH area in front of every receive).
 *
 * usage: snic-raw-pp BDF MY_IP PEER_MAC ITERS SIZE [TCP_PORT [rc|ud]]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <d2d/snic_rdma_if.h>

#define PAGE		4096
#define NPAGES		64
#define AQ_DEPTH	16
#define CQ_LOG		6
#define SQ_LOG		6
#define RQ_LOG		4
#define BUF_PAGES	16
#define DB_PAGE		1

static volatile uint32_t *bar0;
static volatile uint8_t *bar2;
static uint8_t *dma;
static uint64_t dma_pa[NPAGES];
static int next_page;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "snic-raw-pp: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static void *map_bar(const char *bdf, int bar, size_t len)
{
	char path[256];
	void *p;
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource%d", bdf,
		 bar);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0)
		die("open %s: %s", path, strerror(errno));
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap %s: %s", path, strerror(errno));
	close(fd);
	return p;
}

/* Memory decoding and bus mastering on. */
static void pci_enable(const char *bdf)
{
	char path[256];
	uint16_t cmd;
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", bdf);
	fd = open(path, O_RDWR);
	if (fd < 0 || pread(fd, &cmd, 2, 4) != 2)
		die("config %s", path);
	cmd |= 0x6;
	if (pwrite(fd, &cmd, 2, 4) != 2)
		die("config write");
	close(fd);
}

static void dma_init(void)
{
	int fd, i;

	dma = mmap(NULL, NPAGES * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED | MAP_POPULATE,
		   -1, 0);
	if (dma == MAP_FAILED)
		die("mmap dma: %s", strerror(errno));
	memset(dma, 0, NPAGES * PAGE);
	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		die("pagemap: %s", strerror(errno));
	for (i = 0; i < NPAGES; i++) {
		uint64_t e;
		uintptr_t va = (uintptr_t)(dma + i * PAGE);

		if (pread(fd, &e, 8, (va / PAGE) * 8) != 8 || !(e >> 63))
			die("page %d not present", i);
		dma_pa[i] = (e & ((1ull << 55) - 1)) * PAGE;
		if (!dma_pa[i])
			die("no PFN (need root)");
	}
	close(fd);
}

/* One zeroed page: its virtual and bus address. */
static void *page_alloc(uint64_t *pa)
{
	if (next_page >= NPAGES)
		die("out of DMA pages");
	*pa = dma_pa[next_page];
	return dma + PAGE * next_page++;
}

static uint32_t rd(uint32_t reg)
{
	return bar0[reg / 4];
}

static void wr(uint32_t reg, uint32_t v)
{
	bar0[reg / 4] = v;
}

static void db(uint32_t off, uint32_t qn, uint32_t ctr)
{
	__sync_synchronize();
	*(volatile uint32_t *)(bar2 + DB_PAGE * SNIC_DB_PAGE_SIZE + off) =
		SNIC_DB_VAL(qn, ctr);
}

/* ---- admin queue ---- */

static struct snic_aq_cmd *aq_sq;
static struct snic_aq_cqe *aq_cq;
static uint32_t aq_tail, aq_head;
static int aq_phase = 1;
static uint8_t *scratch;
static uint64_t scratch_pa;

static void aq_init(void)
{
	uint64_t sq, cq;
	int i;

	wr(SNIC_REG_CTRL, SNIC_CTRL_RESET);
	wr(SNIC_REG_CTRL, 0);
	for (i = 0; i < 1000 && !(rd(SNIC_REG_STATUS) & SNIC_STATUS_READY); i++)
		usleep(1000);
	aq_sq = page_alloc(&sq);
	aq_cq = page_alloc(&cq);
	scratch = page_alloc(&scratch_pa);
	wr(SNIC_REG_AQ_SQ_BASE_LO, (uint32_t)sq);
	wr(SNIC_REG_AQ_SQ_BASE_HI, sq >> 32);
	wr(SNIC_REG_AQ_CQ_BASE_LO, (uint32_t)cq);
	wr(SNIC_REG_AQ_CQ_BASE_HI, cq >> 32);
	wr(SNIC_REG_AQ_DEPTH, AQ_DEPTH);
	wr(SNIC_REG_AQ_MSIX, 0);
	wr(SNIC_REG_CTRL, SNIC_CTRL_AQ_ENABLE);
	if (!(rd(SNIC_REG_STATUS) & SNIC_STATUS_AQ_ENABLED))
		die("admin queue not enabled (error %u)", rd(SNIC_REG_ERROR));
}

static int aq_exec(struct snic_aq_cmd *c, uint64_t *res)
{
	volatile struct snic_aq_cqe *e;
	int i;

	c->cmd_id = aq_tail;
	aq_sq[aq_tail] = *c;
	aq_tail = (aq_tail + 1) % AQ_DEPTH;
	__sync_synchronize();
	wr(SNIC_REG_AQ_SQ_TAIL, aq_tail);
	e = &aq_cq[aq_head];
	for (i = 0; i < 100000 && (e->flags & 1) != aq_phase; i++)
		usleep(10);
	if ((e->flags & 1) != aq_phase)
		die("admin command 0x%x timed out", c->opcode);
	if (res)
		*res = e->result;
	aq_head = (aq_head + 1) % AQ_DEPTH;
	if (!aq_head)
		aq_phase ^= 1;
	wr(SNIC_REG_AQ_CQ_HEAD, aq_head);
	return e->status;
}

static uint64_t aq_must(uint8_t op, const void *p, size_t len, uint32_t id,
			bool buf)
{
	struct snic_aq_cmd c = { .opcode = op };
	uint64_t res = 0;
	int st;

	if (buf) {
		memcpy(scratch, p, len);
		c.buf.addr = scratch_pa;
		c.buf.len = len;
		c.buf.id = id;
	} else if (p) {
		memcpy(c.raw, p, len);
	}
	st = aq_exec(&c, &res);
	if (st)
		die("admin command 0x%x failed: status %d", op, st);
	return res;
}

/* ---- CQs and QP ---- */

struct cq {
	uint32_t n, cons;
	volatile struct snic_cqe *ring;
	volatile uint32_t *dbr;
};

static void cq_create(struct cq *c)
{
	struct snic_aq_create_cq a = { 0 };
	uint64_t ring, dbr;

	c->ring = page_alloc(&ring);
	c->dbr = page_alloc(&dbr);
	a.ring_addr = ring;
	a.dbr_addr = dbr;
	a.log_size = CQ_LOG;
	a.eqn = SNIC_EQN_NONE;
	a.db_page = DB_PAGE;
	c->n = aq_must(SNIC_AQ_CREATE_CQ, &a, sizeof(a), 0, false);
}

/* Next CQE within @ms, or exit. */
static void cq_poll(struct cq *c, struct snic_cqe *out, int ms)
{
	int want = !((c->cons >> CQ_LOG) & 1);
	volatile struct snic_cqe *e = &c->ring[c->cons & ((1u << CQ_LOG) - 1)];
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((e->op_own & 1) != want) {
		/* leave the CPU to rdma_rxe's softirqs in the same guest */
		usleep(20);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000 > ms)
			die("no completion on CQ %u within %d ms", c->n, ms);
	}
	__sync_synchronize();
	memcpy(out, (const void *)e, sizeof(*out));
	c->cons++;
	*c->dbr = c->cons;
}

static struct cq scq, rcq;
static uint32_t qpn, pdn, key;
static uint8_t *sq_ring, *rq_ring;
static volatile uint32_t *qp_dbr;
static uint16_t sq_prod, rq_prod;
static uint8_t *buf;
static uint64_t buf_iova;
static bool ud;
static struct snic_wqe_ud ud_seg;

#define UD_QKEY		0x11111111u
#define GRH		40

static void post_recv(uint32_t len)
{
	uint8_t *w = rq_ring + (rq_prod & ((1u << RQ_LOG) - 1)) * 32;
	struct snic_recv_hdr *h = (void *)w;
	struct snic_wqe_data *d = (void *)(w + 16);

	h->cookie = rq_prod;
	h->num_sge = 1;
	d->byte_count = len + (ud ? GRH : 0);
	d->lkey = key;
	d->addr = buf_iova + BUF_PAGES / 2 * PAGE;
	rq_prod++;
	__sync_synchronize();
	qp_dbr[0] = rq_prod;
	db(SNIC_DB_QP_RQ, qpn, rq_prod);
}

static void post_send(uint32_t len)
{
	uint8_t w[2 * SNIC_WQEBB_SIZE] = { 0 };
	struct snic_wqe_ctrl *c = (void *)w;
	struct snic_wqe_data *d;
	unsigned int ds = 1, i;

	c->opcode = SNIC_WQE_SEND;
	c->flags = SNIC_WQE_F_SIGNAL;
	c->wqe_idx = sq_prod;
	if (ud) {
		memcpy(w + 16, &ud_seg, sizeof(ud_seg));
		ds += sizeof(ud_seg) / 16;
	}
	d = (void *)(w + 16 * ds++);
	d->byte_count = len;
	d->lkey = key;
	d->addr = buf_iova;
	c->ds_cnt = ds;
	for (i = 0; i < (ds + 3) / 4; i++, sq_prod++)
		memcpy(sq_ring + (sq_prod & ((1u << SQ_LOG) - 1)) *
		       SNIC_WQEBB_SIZE, w + i * SNIC_WQEBB_SIZE,
		       SNIC_WQEBB_SIZE);
	__sync_synchronize();
	qp_dbr[1] = sq_prod;
	db(SNIC_DB_QP_SQ, qpn, sq_prod);
}

static void modify(uint8_t state, uint32_t mask, struct snic_qp_attr *a)
{
	a->mask = mask | SNIC_QP_ATTR_STATE;
	a->state = state;
	aq_must(SNIC_AQ_MODIFY_QP, a, sizeof(*a), qpn, true);
}

/* Are the @n bytes at @p (the MR's receive half, scattered pages) 0x7b? */
static bool all_7b(const uint8_t *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (p[i] != 0x7b)
			return false;
	return true;
}

static void parse_mac(const char *s, uint8_t *mac)
{
	if (sscanf(s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1],
		   &mac[2], &mac[3], &mac[4], &mac[5]) != 6)
		die("bad MAC %s", s);
}

int main(int argc, char **argv)
{
	struct snic_identify_data id;
	struct snic_port_cfg pc;
	struct snic_mr_cfg mc;
	struct snic_aq_create_qp qc;
	struct snic_qp_attr a;
	struct snic_rdma_stats st;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	uint8_t peer_mac[6], gid[16];
	char msg[sizeof("0000:000000:000000:00000000000000000000000000000000")];
	uint32_t my_ip, peer_qpn, peer_psn, my_psn = 0x1234, iters, size, i;
	uint64_t pas_pa, *pas, pa;
	int ls, fd, one = 1;

	if (argc < 6)
		die("usage: snic-raw-pp BDF MY_IP PEER_MAC ITERS SIZE [PORT [rc|ud]]");
	ud = argc > 7 && !strcmp(argv[7], "ud");
	if (inet_pton(AF_INET, argv[2], &my_ip) != 1)
		die("bad IP %s", argv[2]);
	parse_mac(argv[3], peer_mac);
	iters = atoi(argv[4]);
	size = atoi(argv[5]);
	if (size + GRH > BUF_PAGES / 2 * PAGE)
		die("size too large");
	pci_enable(argv[1]);
	bar0 = map_bar(argv[1], SNIC_BAR_REGS, SNIC_REGS_SIZE);
	bar2 = map_bar(argv[1], SNIC_BAR_DB, SNIC_DB_PAGES * SNIC_DB_PAGE_SIZE);
	if (rd(SNIC_REG_ID) != SNIC_ID_MAGIC)
		die("not a snic");
	dma_init();
	aq_init();

	memset(&id, 0, sizeof(id));
	{
		struct snic_aq_cmd c = { .opcode = SNIC_AQ_IDENTIFY };

		c.identify.buf_addr = scratch_pa;
		c.identify.buf_len = sizeof(id);
		if (aq_exec(&c, NULL))
			die("IDENTIFY failed");
		memcpy(&id, scratch, sizeof(id));
	}
	if (!(id.caps & SNIC_CAP_RDMA))
		die("no SNIC_CAP_RDMA");
	memset(&pc, 0, sizeof(pc));
	pc.flags = SNIC_PORT_F_UP;
	pc.mtu = 1500;
	pc.num_macs = 1;
	pc.async_eqn = SNIC_EQN_NONE;
	memcpy(pc.macs[0], id.mac, 6);
	aq_must(SNIC_AQ_SET_PORT, &pc, sizeof(pc), 0, true);

	pdn = aq_must(SNIC_AQ_CREATE_PD, NULL, 0, 0, false);
	cq_create(&scq);
	cq_create(&rcq);
	/* the data buffer: scattered pages behind one MR */
	pas = page_alloc(&pas_pa);
	buf = dma + PAGE * next_page;
	buf_iova = (uintptr_t)buf;
	for (i = 0; i < BUF_PAGES; i++) {
		page_alloc(&pa);
		pas[i] = pa;
	}
	memset(&mc, 0, sizeof(mc));
	mc.pdn = pdn;
	mc.access = SNIC_ACCESS_LOCAL_WRITE | SNIC_ACCESS_REMOTE_WRITE |
		    SNIC_ACCESS_REMOTE_READ;
	mc.key_tag = 0x42;
	mc.iova = buf_iova;
	mc.length = BUF_PAGES * PAGE;
	mc.pas_addr = pas_pa;
	mc.npages = BUF_PAGES;
	mc.page_shift = 12;
	key = aq_must(SNIC_AQ_CREATE_MR, &mc, sizeof(mc), 0, true);
	memset(&qc, 0, sizeof(qc));
	qc.type = ud ? SNIC_QPT_UD : SNIC_QPT_RC;
	qc.sq_log = SQ_LOG;
	qc.rq_log = RQ_LOG;
	qc.rq_log_stride = 5;
	qc.db_page = DB_PAGE;
	qc.pdn = pdn;
	qc.send_cqn = scq.n;
	qc.recv_cqn = rcq.n;
	qc.srqn = SNIC_SRQN_NONE;
	sq_ring = page_alloc(&pa);
	qc.sq_addr = pa;
	rq_ring = page_alloc(&pa);
	qc.rq_addr = pa;
	qp_dbr = page_alloc(&pa);
	qc.dbr_addr = pa;
	qpn = aq_must(SNIC_AQ_CREATE_QP, &qc, sizeof(qc), 0, false);
	memset(&a, 0, sizeof(a));
	a.access = SNIC_ACCESS_REMOTE_WRITE | SNIC_ACCESS_REMOTE_READ;
	a.qkey = UD_QKEY;
	modify(SNIC_QPS_INIT, SNIC_QP_ATTR_PKEY_INDEX |
	       (ud ? SNIC_QP_ATTR_QKEY : SNIC_QP_ATTR_ACCESS), &a);
	for (i = 0; i < 8; i++)
		post_recv(size);

	/* ibv_rc_pingpong's exchange: the client speaks first */
	ls = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_port = htons(argc > 6 ? atoi(argv[6]) : 18515);
	if (ls < 0 || bind(ls, (void *)&sa, sizeof(sa)) || listen(ls, 1))
		die("listen: %s", strerror(errno));
	printf("snic-raw-pp: mac %02x:%02x:%02x:%02x:%02x:%02x qpn %u listening\n",
	       id.mac[0], id.mac[1], id.mac[2], id.mac[3], id.mac[4], id.mac[5],
	       qpn);
	fflush(stdout);
	fd = accept(ls, NULL, NULL);
	if (fd < 0 || read(fd, msg, sizeof(msg)) != sizeof(msg))
		die("reading the client's address");
	{
		unsigned int lid, q, p;
		char g[33];

		if (sscanf(msg, "%x:%x:%x:%32s", &lid, &q, &p, g) != 4)
			die("bad client message %s", msg);
		peer_qpn = q;
		peer_psn = p;
		for (i = 0; i < 16; i++)
			sscanf(g + 2 * i, "%2hhx", &gid[i]);
	}
	memset(&a, 0, sizeof(a));
	memcpy(a.av.dmac, peer_mac, 6);
	memcpy(a.av.smac, id.mac, 6);
	a.av.sip = my_ip;
	memcpy(&a.av.dip, gid + 12, 4);
	a.av.ttl = 64;
	a.av.udp_sport = 0xc123;
	if (ud) {
		/* the address goes into every WQE; the QP just comes up */
		ud_seg.av = a.av;
		ud_seg.dest_qpn = peer_qpn;
		ud_seg.qkey = UD_QKEY;
		memset(&a, 0, sizeof(a));
		modify(SNIC_QPS_RTR, 0, &a);
		a.sq_psn = my_psn;
		modify(SNIC_QPS_RTS, SNIC_QP_ATTR_SQ_PSN, &a);
		goto connected;
	}
	a.path_mtu = SNIC_MTU_1024;
	a.dest_qpn = peer_qpn;
	a.rq_psn = peer_psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	modify(SNIC_QPS_RTR, SNIC_QP_ATTR_AV | SNIC_QP_ATTR_PATH_MTU |
	       SNIC_QP_ATTR_DEST_QPN | SNIC_QP_ATTR_RQ_PSN |
	       SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC | SNIC_QP_ATTR_MIN_RNR_TIMER, &a);
	memset(&a, 0, sizeof(a));
	a.sq_psn = my_psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	modify(SNIC_QPS_RTS, SNIC_QP_ATTR_SQ_PSN | SNIC_QP_ATTR_TIMEOUT |
	       SNIC_QP_ATTR_RETRY_CNT | SNIC_QP_ATTR_RNR_RETRY |
	       SNIC_QP_ATTR_MAX_RD_ATOMIC, &a);
connected:
	{
		uint8_t mine[16] = { [10] = 0xff, [11] = 0xff };
		char g[33];

		memcpy(mine + 12, &my_ip, 4);
		for (i = 0; i < 16; i++)
			sprintf(g + 2 * i, "%02x", mine[i]);
		snprintf(msg, sizeof(msg), "%04x:%06x:%06x:%s", 0, qpn, my_psn,
			 g);
	}
	if (write(fd, msg, sizeof(msg)) != sizeof(msg) ||
	    read(fd, msg, sizeof(msg)) <= 0)
		die("exchange with the client");

	/* ping-pong: each receive is answered by a send of @size bytes */
	for (i = 0; i < iters; i++) {
		struct snic_cqe e;

		uint8_t *rx = buf + BUF_PAGES / 2 * PAGE;

		cq_poll(&rcq, &e, 20000);
		if (e.opcode != SNIC_CQE_RECV ||
		    e.byte_cnt != size + (ud ? GRH : 0))
			die("iteration %u: receive CQE opcode %u status %u bytes %u",
			    i, e.opcode, e.syndrome, e.byte_cnt);
		if (ud) {
			uint32_t src;

			/* GRH area: 20 zero bytes, then the IPv4 header */
			memcpy(&src, rx + 20 + 12, 4);
			if (rx[20] != 0x45 || rx[20 + 9] != 17 ||
			    src != ud_seg.av.dip || e.src_qpn != peer_qpn ||
			    !(e.rdma_flags & SNIC_CQE_RF_GRH) ||
			    memcmp(e.smac, peer_mac, 6))
				die("iteration %u: bad UD receive", i);
			rx += GRH;
		}
		/*
		 * ibv_*_pingpong fill their buffer with 0x7b and send back
		 * what they received: any corruption either way shows here.
		 */
		if (!all_7b(rx, size))
			die("iteration %u: received data corrupted", i);
		post_recv(size);
		memset(buf, 0x7b, size);
		post_send(size);
		cq_poll(&scq, &e, 20000);
		if (e.opcode != SNIC_CQE_REQ || e.syndrome)
			die("iteration %u: send CQE opcode %u status %u", i,
			    e.opcode, e.syndrome);
	}
	{
		struct snic_aq_cmd c = { .opcode = SNIC_AQ_QUERY_STATS };

		c.buf.addr = scratch_pa;
		c.buf.len = sizeof(st);
		c.buf.kind = SNIC_STATS_RDMA;
		if (aq_exec(&c, NULL))
			die("QUERY_STATS failed");
		memcpy(&st, scratch, sizeof(st));
	}
	printf("snic-raw-pp: %u iterations of %u bytes; tx %llu rx %llu "
	       "retransmits %llu timeouts %llu seq_naks_rcvd %llu "
	       "rnr_naks_rcvd %llu dup %llu oos %llu "
	       "icrc_errors %llu malformed %llu no_qp %llu "
	       "lost %llu\n", iters, size, (unsigned long long)st.tx_pkts,
	       (unsigned long long)st.rx_pkts,
	       (unsigned long long)st.retransmits,
	       (unsigned long long)st.timeouts,
	       (unsigned long long)st.seq_naks_rcvd,
	       (unsigned long long)st.rnr_naks_rcvd,
	       (unsigned long long)st.dup_requests,
	       (unsigned long long)st.out_of_seq,
	       (unsigned long long)st.rx_icrc_errors,
	       (unsigned long long)st.rx_malformed,
	       (unsigned long long)st.rx_no_qp,
	       (unsigned long long)st.loss_injected);
	close(fd);
	return st.rx_icrc_errors || st.rx_malformed ? 1 : 0;
}
