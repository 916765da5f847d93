/*
 * fld device tier: a snic and an fld in one QEMU, this program playing the
 * driver (docs/fld.md).  It creates snic queues whose rings, doorbell
 * records and buffers are windows of FLD's BAR2 through snic's admin
 * queue, programs FLD's queue table, and checks that frames injected on
 * the wire come back echoed by FLD's echo accelerator with no per-packet
 * work by the "host" - plus bad input: accesses outside windows, an
 * exhausted descriptor pool, accelerator overflow, refused commands and a
 * doorbell that cannot be delivered; and the zuc accelerator.  The iotauth
 * and defrag accelerators are test_fld_accel.c; helpers in fld_dev.c.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include "fld_dev.h"
#include "d2d/fld_ifc.h"

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
 * The QOM "stats" read-out names every counter: FLD_STAT_COUNT lines
 * "name=value", each name non-empty, made of [a-z0-9_], and unique.
 */
static void stats_names(void)
{
	static char buf[16384];
	char seen[FLD_STAT_COUNT][32];
	char *line, *save = NULL;
	int i = 0, j;

	CHECK(env_start(""));
	CHECK(qt_qom_get_str(qt, "/machine/peripheral/fld0", "stats", buf,
			     sizeof(buf)));
	for (line = strtok_r(buf, "\n", &save); line && i < FLD_STAT_COUNT;
	     line = strtok_r(NULL, "\n", &save), i++) {
		size_t n = strcspn(line, "=");

		if (!n || n >= sizeof(seen[0]) || line[n] != '=' ||
		    strspn(line, "abcdefghijklmnopqrstuvwxyz0123456789_") != n) {
			check_fail(__FILE__, __LINE__, "counter %d: bad name in \"%s\"",
				   i, line);
			return;
		}
		memcpy(seen[i], line, n);
		seen[i][n] = 0;
		for (j = 0; j < i; j++) {
			if (!strcmp(seen[j], seen[i])) {
				check_fail(__FILE__, __LINE__,
					   "counters %d and %d both \"%s\"", j, i,
					   seen[i]);
				return;
			}
		}
	}
	CHECK_EQ(i, FLD_STAT_COUNT);
	CHECK(strncmp(line, "mem_", 4) == 0);
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

/*
 * Tenant isolation: two queue sets (UDP 7 -> RQ/SQ slot 0, UDP 9 -> RQ/SQ
 * slot 1).  Tenant A's send queue can never take its first frame (byte
 * quota below it), so A's queue in the accelerator FIFO stays stalled
 * while A floods: A keeps its share (64 / 2 RQs) and drops the rest,
 * counted against its RQ only; tenant B, arriving after A's flood, is
 * served completely.  Clearing A's RQ frees what it held.
 */
static void tenant_isolation(void)
{
	uint8_t f[2048], g[2048];
	struct flde a, b;
	int i, r, got = 0;

	CHECK(env_start(""));
	CHECK(flde_setup_at(&a, 0, 6, sq_db_addr_at(0), 512, UDP_PORT, 1, 0));
	CHECK(flde_setup_at(&b, 1, 6, sq_db_addr_at(1), 0, 9, 2, 0));
	for (i = 0; i < 50; i++) {
		size_t len = mk_udp(f, UDP_PORT, i ? 32 : 600, i);

		CHECK(send(inj, f, len, 0) == (ssize_t)len);
	}
	for (i = 0; i < 20; i++) {
		size_t len = mk_udp(f, 9, 100, 1000 + i);

		CHECK(send(inj, f, len, 0) == (ssize_t)len);
	}
	for (;;) {
		settle();
		r = cap_recv(g, sizeof(g), 500);
		if (r < 0)
			break;
		if (memcmp(g, mac_nic, 6)) {
			CHECK(r > 36 && g[34] == 0 && g[35] == 9);
			got++;
		}
	}
	CHECK_EQ(got, 20);
	CHECK_EQ(fld_rq_stat(0, FLD_RQ_STAT_ACCEL_RX), FLD_ACCEL_FIFO_PKTS / 2);
	CHECK_EQ(fld_rq_stat(0, FLD_RQ_STAT_ACCEL_DROPS),
		 50 - FLD_ACCEL_FIFO_PKTS / 2);
	CHECK_EQ(fld_rq_stat(0, FLD_RQ_STAT_ACCEL_TX), 0);
	CHECK_EQ(fld_rq_stat(0, FLD_RQ_STAT_HELD), FLD_ACCEL_FIFO_PKTS / 2);
	CHECK_EQ(fld_rq_stat(1, FLD_RQ_STAT_ACCEL_RX), 20);
	CHECK_EQ(fld_rq_stat(1, FLD_RQ_STAT_ACCEL_DROPS), 0);
	CHECK_EQ(fld_rq_stat(1, FLD_RQ_STAT_ACCEL_TX), 20);
	CHECK_EQ(fld_rq_stat(1, FLD_RQ_STAT_HELD), 0);
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_RX_DROPS), 50 - FLD_ACCEL_FIFO_PKTS / 2);
	CHECK(fld_stat(FLD_STAT_CREDIT_STALLS) > 0);
	/* Beyond the table: reads as zero, no error. */
	CHECK_EQ(fld_rd(FLD_REG_RQ_STATS + FLD_RQ_STATS_SIZE * FLD_MAX_RQS -
			4), 0);
	i = 0;
	CHECK_EQ(fld_cmd(FLD_CMD_RQ_CLEAR, 1, (uint32_t *)&i, NULL),
		 FLD_CMD_OK);
	CHECK_EQ(fld_rq_stat(0, FLD_RQ_STAT_HELD), 0);
	/* B still works, now with the whole FIFO. */
	for (i = 0; i < 3; i++) {
		size_t len = mk_udp(f, 9, 100, 2000 + i);

		CHECK(send(inj, f, len, 0) == (ssize_t)len);
	}
	got = 0;
	for (;;) {
		settle();
		r = cap_recv(g, sizeof(g), 500);
		if (r < 0)
			break;
		got += !!memcmp(g, mac_nic, 6);
	}
	CHECK_EQ(got, 3);
	CHECK_EQ(fld_rq_stat(1, FLD_RQ_STAT_ACCEL_TX), 23);
	CHECK_EQ(fld_rd(FLD_REG_ERROR_COUNT), 0);
	CHECK(qt_alive(qt));
}

/* Port counters of snic0. */
static bool port_stats(struct snic_port_stats *ps)
{
	return snic_query_stats(&nic, SNIC_STATS_PORT, 0, ps,
				sizeof(*ps)) == OK;
}

/*
 * snic local loopback: queue set A (UDP 7) answers on a loopback SQ, so
 * its echo (to UDP 12345, MACs both the NIC's) enters snic's receive path
 * instead of the wire: steered by a rule to queue set B (another CQ),
 * echoed again by FLD on B's ordinary SQ, out on the wire.  Then the rule
 * points at A's own RQ: the loop guard drops the looped frame there
 * (rx_loop_drops) instead of feeding A its own output for ever.
 */
static void loopback_reinject(void)
{
	struct snic_steer_rule r = { 0 };
	struct snic_port_stats p0, p;
	struct snic_queue_stats qs;
	uint8_t f[2048], g[2048];
	struct flde a, b;
	uint64_t res;
	size_t len;
	int rr, got = 0;

	CHECK(env_start(""));
	CHECK(flde_setup_at(&a, 0, 6, sq_db_addr_at(0), 0, UDP_PORT, 1,
			    SNIC_SQ_F_LOOPBACK));
	CHECK(flde_setup_at(&b, 1, 6, sq_db_addr_at(1), 0, 12345, 2, 0));
	CHECK(port_stats(&p0));
	len = mk_udp(f, UDP_PORT, 100, 1);
	memcpy(f + 6, mac_nic, 6);	/* so that the echo is addressed to us */
	CHECK(send(inj, f, len, 0) == (ssize_t)len);
	for (;;) {
		settle();
		rr = cap_recv(g, sizeof(g), 500);
		if (rr < 0)
			break;
		got += rr == (int)len && !memcmp(g + 14, f + 14, len - 14);
	}
	CHECK_EQ(got, 1);		/* B's echo: the datagram as sent */
	CHECK(port_stats(&p));
	CHECK_EQ(p.tx_loopback - p0.tx_loopback, 1);
	CHECK_EQ(p.tx_packets - p0.tx_packets, 1);	/* B's only */
	CHECK_EQ(p.rx_loop_drops - p0.rx_loop_drops, 0);
	CHECK_EQ(p.rx_csum_ok - p0.rx_csum_ok, 2);	/* wire + looped */
	CHECK_EQ(snic_query_stats(&nic, SNIC_STATS_SQ, a.sqn, &qs,
				  sizeof(qs)), OK);
	CHECK_EQ(qs.packets, 1);
	CHECK_EQ(fld_rq_stat(0, FLD_RQ_STAT_ACCEL_TX), 1);
	CHECK_EQ(fld_rq_stat(1, FLD_RQ_STAT_ACCEL_RX), 1);
	CHECK_EQ(fld_rq_stat(1, FLD_RQ_STAT_ACCEL_TX), 1);

	/* UDP 12345 now to A itself: the guard refuses the looped frame. */
	CHECK_EQ(snic_aq_obj(&nic, SNIC_AQ_DEL_RULE, b.rule), OK);
	r.match = SNIC_MATCH_IP_PROTO | SNIC_MATCH_DST_PORT;
	r.priority = 10;
	r.dest = SNIC_DEST_RQ;
	r.actions = SNIC_ACT_TAG | SNIC_ACT_COUNT;
	r.dest_id = a.rqn;
	r.flow_tag = 1;
	r.ip_proto = 17;
	r.dst_port = htons(12345);
	CHECK_EQ(snic_aq_buf(&nic, SNIC_AQ_ADD_RULE, &r, sizeof(r), sizeof(r),
			     0, 0, NULL, 0, &res), OK);
	CHECK(send(inj, f, len, 0) == (ssize_t)len);
	for (rr = 0; rr < 20; rr++)
		settle();
	cap_drain();
	CHECK(port_stats(&p0));
	CHECK_EQ(p0.tx_loopback - p.tx_loopback, 1);
	CHECK_EQ(p0.rx_loop_drops - p.rx_loop_drops, 1);
	CHECK_EQ(p0.tx_packets, p.tx_packets);		/* nothing on the wire */
	CHECK_EQ(fld_rq_stat(0, FLD_RQ_STAT_ACCEL_RX), 2);
	CHECK_EQ(fld_rd(FLD_REG_ERROR_COUNT), 0);
	CHECK(qt_alive(qt));
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
	/* the credit read-out: both echoes completed, so all of it is back */
	fld_wr(FLD_REG_SQ_SEL, 0);
	CHECK_EQ(fld_rd(FLD_REG_SQ_SEL), 0);
	CHECK_EQ(fld_rd(FLD_REG_SQ_CREDIT_DESCS), 64);
	CHECK_EQ(fld_rd(FLD_REG_SQ_CREDIT_BYTES), 512);
	fld_wr(FLD_REG_SQ_SEL, 7);			/* a slot not set */
	CHECK_EQ(fld_rd(FLD_REG_SQ_CREDIT_DESCS), 0);
	CHECK_EQ(fld_rd(FLD_REG_SQ_CREDIT_BYTES), 0);
	fld_wr(FLD_REG_SQ_SEL, 0xffffffff);		/* beyond every slot */
	CHECK_EQ(fld_rd(FLD_REG_SQ_CREDIT_DESCS), 0);
	CHECK_EQ(fld_rd(FLD_REG_ERROR_COUNT), 0);
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
 * The doorbell address is FLD's one guest-supplied DMA target: pointed at
 * FLD's own BAR0 (CTRL), BAR2 or BAR4 it is refused like an unreachable
 * one (FLD_STAT_DB_ERRORS, FLD_ERR_DMA) and counted in pcie-self_dma; FLD
 * stays enabled.  (snic and hdc's fields: test_dma_targets.c.)
 */
static void doorbell_into_own_bar(void)
{
	static const uint64_t own[] = {
		FLD_BAR0 + FLD_REG_CTRL, FLD_BAR2, FLD_BAR4,
	};
	uint64_t self;
	uint8_t f[2048];
	struct flde q;
	unsigned int i, j;

	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		CHECK(env_start(""));
		CHECK(flde_setup(&q, 6, own[i], 0));
		CHECK(send(inj, f, mk_udp(f, UDP_PORT, 64, 1), 0) > 0);
		for (j = 0; j < 4; j++)
			settle();
		CHECK(qt_alive(qt));
		CHECK_EQ(fld_stat(FLD_STAT_TX_POSTS), 1);
		CHECK(fld_stat(FLD_STAT_DB_ERRORS) >= 1);
		CHECK_EQ(fld_rd(FLD_REG_ERROR), FLD_ERR_DMA);
		CHECK(qt_qom_get_u64(qt, "/machine/peripheral/fld0",
				     "pcie-self_dma", &self));
		CHECK(self >= 1);
		CHECK_EQ(fld_rd(FLD_REG_STATUS),
			 FLD_STATUS_READY | FLD_STATUS_ENABLED);
	}
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
	RUN("device/fld", stats_names);
	RUN("device/fld", memory_table);
	RUN("device/fld", echo_through_flde);
	RUN("device/fld", echo_sizes);
	RUN("device/fld", pool_exhausted_stalls);
	RUN("device/fld", accel_overflow_drops);
	RUN("device/fld", tenant_isolation);
	RUN("device/fld", loopback_reinject);
	RUN("device/fld", credit_quota);
	RUN("device/fld", nic_outside_windows);
	RUN("device/fld", bad_commands);
	RUN("device/fld", doorbell_unreachable);
	RUN("device/fld", doorbell_into_own_bar);
	RUN("device/fld", echo_malformed);
	RUN("device/fld", zuc_requests);
	qt_quit(qt);
	if (inj >= 0)
		close(inj);
	return check_failures ? 1 : 0;
}
