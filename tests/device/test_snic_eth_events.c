/*
 * snic device tier, Ethernet: EQs, CQ arming and interrupt moderation, statistics and link
 * state.
 * The environment (two snics, the wire socket, queues, frames) is
 * snic_eth_env.h's; the tests are device/snic_eth/<name>.
 */
#include "snic_eth_env.h"

/* CQ -> EQ -> MSI-X: arming, one-shot, arm-behind, moderation. */
static void events_and_moderation(void)
{
	struct snic_eq eq, eq2, eq3;
	struct snic_cq tcq, cq2, cq3, rcq;
	struct snic_sq sq, sq2, sq3;
	struct snic_rq rq;
	struct snic_eqe q;
	struct snic_cqe e;
	struct snic_port_stats s0, s;
	uint8_t f[256];
	size_t len;
	uint32_t irqs0;
	int k;

	CHECK(env_start());
	CHECK(rx_setup(B, &rcq, &rq, 60));
	CHECK_EQ(snic_eq_create(&eq, A, 3, 1, 0, 0, 3), OK);
	CHECK_EQ(snic_cq_create(&tcq, A, 4, eq.n, 3), OK);
	CHECK_EQ(snic_sq_create(&sq, A, 6, tcq.n, 3), OK);
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
	snic_cq_arm(&tcq);
	snic_eq_arm(&eq);
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
	CHECK(snic_cq_peek(&tcq, &e, 200));	/* left unconsumed */
	CHECK(eq_empty(&eq));
	CHECK_EQ(msi_read(A, 1), 0);

	/* arming behind the producer raises the event at once; the EQ is
	 * not armed, so no interrupt */
	snic_cq_arm(&tcq);
	CHECK(eq_poll(&eq, &q));
	CHECK_EQ(q.type, SNIC_EQE_COMPLETION);
	CHECK_EQ(q.obj, tcq.n);
	CHECK_EQ(msi_read(A, 1), 0);
	CHECK(cq_poll(&tcq, &e));
	CHECK(pstats(A, &s));
	CHECK_EQ(s.eq_events - s0.eq_events, 2);
	CHECK_EQ(s.eq_irqs - s0.eq_irqs, 1);

	/* mod_count 3: the interrupt waits for the third EQE */
	CHECK_EQ(snic_eq_create(&eq2, A, 3, 2, 0, 3, 3), OK);
	CHECK_EQ(snic_cq_create(&cq2, A, 4, eq2.n, 3), OK);
	CHECK_EQ(snic_sq_create(&sq2, A, 6, cq2.n, 3), OK);
	msi_clear(A, 2);
	snic_eq_arm(&eq2);
	for (k = 1; k <= 3; k++) {
		snic_cq_arm(&cq2);
		sq_send(&sq2, f, len, true);
		CHECK(cq_poll(&cq2, &e));
		CHECK(snic_eq_peek(&eq2, &q, 200));
		eq2.cons++;
		CHECK_EQ(q.obj, cq2.n);
		settle();
		CHECK_EQ(msi_read(A, 2), k < 3 ? 0 : msi_data(A, 2));
	}

	/* mod_usecs 100: the interrupt waits 100 us of virtual time */
	CHECK_EQ(snic_eq_create(&eq3, A, 3, 3, 100, 0, 4), OK);
	CHECK_EQ(snic_cq_create(&cq3, A, 4, eq3.n, 4), OK);
	CHECK_EQ(snic_sq_create(&sq3, A, 6, cq3.n, 4), OK);
	msi_clear(A, 3);
	snic_eq_arm(&eq3);
	snic_cq_arm(&cq3);
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
	struct snic_cq tcq, rcq;
	struct snic_sq sq;
	struct snic_rq rq;
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
	CHECK_EQ(snic_cq_create(&rcq, B, 8, SNIC_EQN_NONE, 1), OK);
	CHECK_EQ(snic_rq_create(&rq, B, 4, rcq.n, 1), OK);
	CHECK_EQ(rule_to_rq(B, 1, rq.n, NULL), OK);
	snic_rq_post(&rq, 5, true);
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
	struct snic_eq eq;
	struct snic_cq tcq, rcq;
	struct snic_sq sq;
	struct snic_rq rq;
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
	CHECK_EQ(snic_eq_create(&eq, A, 3, 4, 0, 0, 5), OK);
	CHECK_EQ(snic_set_port(A, SNIC_PORT_F_UP, MTU, &mac_a, 1, eq.n), OK);
	CHECK(pstats(A, &sa0));
	CHECK(pstats(B, &sb0));
	len = mk_udp(f, mac_b, 100, 1);
	msi_clear(A, 4);
	snic_eq_arm(&eq);

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

int main(void)
{
	RUN("device/snic_eth", events_and_moderation);
	RUN("device/snic_eth", statistics);
	RUN("device/snic_eth", link_state);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
