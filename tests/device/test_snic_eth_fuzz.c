/*
 * snic device tier, Ethernet: hostile fuzzing of every input the device has at once.
 * The environment (two snics, the wire socket, queues, frames) is
 * snic_eth_env.h's; the tests are device/snic_eth/<name>.
 */
#include <stdlib.h>
#include "snic_eth_env.h"

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
	struct snic_eq eq;
	struct snic_cq tcq, rcq;
	struct snic_sq sq;
	struct snic_rq rq;
	struct snic_cqe e;
	uint8_t bb[4 * SNIC_WQEBB_SIZE], f[2048];
	uint64_t data;
	size_t len;
	int i, j, d;

	CHECK(env_start());
	CHECK_EQ(snic_eq_create(&eq, A, 4, 1, 0, 0, 3), OK);
	CHECK_EQ(snic_cq_create(&tcq, A, 4, eq.n, 3), OK);
	CHECK_EQ(snic_sq_create(&sq, A, 4, tcq.n, 3), OK);
	CHECK(rx_setup(B, &rcq, &rq, 64));
	data = qt_alloc(qt, 65536, 64);
	for (i = 0; i < 2048; i++)
		f[i] = rand();
	qt_memwrite(qt, data, f, 2048);
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
			snic_sq_put(&sq, bb, nbb);
			if (rand() % 8)
				snic_sq_ring(&sq);
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
			while (snic_cq_peek(&tcq, &e, 1))
				tcq.cons++;
			qt_writel(qt, tcq.dbr, rand() % 4 ? tcq.cons : rnd());
			while (snic_cq_peek(&rcq, &e, 1))
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
	RUN("device/snic_eth", hostile_fuzz);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
