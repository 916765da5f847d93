/*
 * snic Ethernet in timing mode (docs/timing.md, "Effects happen at their
 * time"): nothing lands after its completion.  A sends frames to B, all in
 * flight at once.  As each TX CQE appears, the send buffer and the WQE's
 * ring slot are the driver's again: they are scribbled over; as each RX
 * CQE appears, the receive buffer must already hold the whole frame, and
 * is scribbled over too, as a stack reusing it would.  The clock then runs
 * 100 ms on: no byte of the scribbled memory changes, and the frames on
 * the wire are the ones posted (the device read them before completing).
 *
 * Modeled time is read off the virtual clock, which moves only when the
 * test steps it (from timer deadline to timer deadline): no wall clock.
 */
#include <string.h>
#include "qtest.h"
#include "snic_eth_env.h"

#define NFRAMES	16
#define FLEN	1400
#define SCRIBBLE	0x5a

struct region {
	uint64_t addr;
	size_t len;
};

static void scribble(const struct region *r)
{
	uint8_t pat[FLEN];

	memset(pat, SCRIBBLE, sizeof(pat));
	qt_memwrite(qt, r->addr, pat, r->len);
}

/* Bytes of @r that are no longer the scribble. */
static size_t changed(const struct region *r)
{
	uint8_t buf[FLEN];
	size_t bad = 0, i;

	qt_memread(qt, r->addr, buf, r->len);
	for (i = 0; i < r->len; i++)
		bad += buf[i] != SCRIBBLE;
	return bad;
}

/*
 * The WQE slot of send @w and its data buffer.  sq_send's layout: ctrl
 * (16 bytes), the Ethernet segment with 14 inline header bytes (16 + one
 * 16-byte extension), then one data segment for the rest of the frame.
 */
static void tx_regions(struct snic_sq *sq, uint16_t w, struct region *slot,
		       struct region *data)
{
	struct snic_wqe_data ds;

	slot->addr = sq->ring + (uint64_t)(w & (sq->size - 1)) * SNIC_WQEBB_SIZE;
	slot->len = SNIC_WQEBB_SIZE;
	qt_memread(qt, slot->addr + 48, &ds, sizeof(ds));
	data->addr = ds.addr;
	data->len = ds.byte_count;
}

static void timing_nothing_after_completion(void)
{
	static uint8_t f[NFRAMES][FLEN];
	struct region txs[NFRAMES], txd[NFRAMES], rx[NFRAMES];
	struct snic_cq tcq, rcq;
	struct snic_sq sq;
	struct snic_rq rq;
	struct snic_cqe e;
	uint8_t got[FLEN];
	int i, ntx = 0, nrx = 0, steps, n, early = 0;
	size_t bad = 0;
	uint64_t t0;

	CHECK(env_start_opts(",timing=on"));
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK(rx_setup(B, &rcq, &rq, NFRAMES));
	for (i = 0; i < NFRAMES; i++) {
		uint16_t w;

		mk_udp(f[i], mac_b, FLEN, 40 + i);
		w = sq_send(&sq, f[i], FLEN, true);
		tx_regions(&sq, w, &txs[i], &txd[i]);
		CHECK_EQ(txd[i].len, FLEN - ETH_HLEN);
	}
	t0 = qt_clock_now(qt);
	for (steps = 0; (ntx < NFRAMES || nrx < NFRAMES) && steps < 100000;
	     steps++) {
		while (ntx < NFRAMES && snic_cq_peek(&tcq, &e, 1)) {
			snic_cq_consume(&tcq);
			CHECK_EQ(e.opcode, SNIC_CQE_TX);
			CHECK_EQ(e.syndrome, SNIC_SYND_OK);
			CHECK_EQ(e.wqe_counter, (uint16_t)ntx);
			scribble(&txs[ntx]);
			scribble(&txd[ntx]);
			ntx++;
		}
		while (nrx < NFRAMES && snic_cq_peek(&rcq, &e, 1)) {
			snic_cq_consume(&rcq);
			CHECK_EQ(e.opcode, SNIC_CQE_RX);
			CHECK_EQ(e.byte_cnt, FLEN);
			rx[nrx] = (struct region){
				snic_rq_buf(&rq, e.wqe_counter), FLEN };
			/* the frame is whole when its CQE is visible */
			qt_memread(qt, rx[nrx].addr, got, FLEN);
			early += !!memcmp(got, f[nrx], FLEN);
			scribble(&rx[nrx]);
			nrx++;
		}
		if (ntx < NFRAMES || nrx < NFRAMES)
			qt_clock_step_next(qt);
	}
	CHECK_EQ(ntx, NFRAMES);
	CHECK_EQ(nrx, NFRAMES);
	while (qt_clock_now(qt) - t0 < 100000000ull && steps++ < 200000)
		qt_clock_step_next(qt);
	qt_clock_step(qt, 100000000ull);
	settle();
	for (i = 0; i < NFRAMES; i++) {
		size_t b = changed(&txs[i]) + changed(&txd[i]) + changed(&rx[i]);

		if (b)
			fprintf(stderr, "snic_eth_timing: %zu bytes written "
				"after the completions of frame %d\n", b, i);
		bad += b;
	}
	if (early)
		fprintf(stderr, "snic_eth_timing: %d frames not whole when "
			"their RX CQE was visible\n", early);
	CHECK_EQ(early, 0);
	CHECK_EQ(bad, 0);
	/* what left is what was posted, not the scribble */
	for (i = 0; i < NFRAMES; i++) {
		n = cap_recv(got, sizeof(got), 1000);
		CHECK_EQ(n, FLEN);
		CHECK(!memcmp(got, f[i], FLEN));
	}
}

int main(void)
{
	RUN("device/snic_eth", timing_nothing_after_completion);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
