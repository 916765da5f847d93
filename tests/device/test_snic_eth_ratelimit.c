/*
 * snic device tier, Ethernet: the per-SQ rate limiter.
 * The environment (two snics, the wire socket, queues, frames) is
 * snic_eth_env.h's; the tests are device/snic_eth/<name>.
 */
#include "snic_eth_env.h"

/* Take every CQE already written; returns how many, keeps the last. */
static int cq_drain(struct snic_cq *c, struct snic_cqe *last, int *nerr)
{
	struct snic_cqe e;
	int n = 0;

	settle();
	while (snic_cq_peek(c, &e, 2)) {
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
	struct snic_cq tcq, rcq;
	struct snic_sq sq;
	struct snic_rq rq;
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
	snic_sq_ring(&sq);
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
	snic_sq_ring(&sq);
	CHECK_EQ(cq_drain(&tcq, &e, &nerr), 10);
	CHECK_EQ(nerr, 0);

	/* a deep bucket lets a burst through, then the rate holds again */
	CHECK_EQ(modify_sq_rate(A, sq.n, 8000000, 5500), OK);
	for (i = 0; i < 10; i++)
		sq_send_o(&sq, f, len, &o);
	snic_sq_ring(&sq);
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

int main(void)
{
	RUN("device/snic_eth", rate_limiter);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
