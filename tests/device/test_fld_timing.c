/*
 * fld timing mode (docs/timing.md): a packet's trip through an
 * accelerator unit takes the time the cost model gives it (its bytes at
 * the unit's rate, FLD's latency per packet, the doorbell on FLD's link)
 * within 5%, and the same again within 1%; peer-to-peer transfers between
 * snic and fld wait for FLD's link too (a slower FLD link makes the echo
 * round trip longer by at least the frame crossing it twice); bad unit
 * parameters are refused.
 *
 * Modeled time is read off the virtual clock, which moves only when the
 * test steps it (from timer deadline to timer deadline): no wall clock.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "common/d2d-cost.h"
#include "fld_dev.h"

#define IOT_KEY		"tenant-5a-timing-key"

/*
 * Send @f and step the clock deadline by deadline until FLD's answer is
 * on the wire: the virtual ns from the send to then, -1 if none comes.
 */
static int64_t timed_answer(const uint8_t *f, size_t len)
{
	uint64_t t0 = qt_clock_now(qt), t = t0;
	uint8_t g[2048];
	int i, r;

	if (!inj_send(f, len))
		return -1;
	for (i = 0; i < 4000; i++) {
		settle();
		while ((r = cap_recv(g, sizeof(g), 0)) > 0) {
			if (memcmp(g, mac_nic, 6))
				return (int64_t)(t - t0);
		}
		t = qt_clock_step_next(qt);
	}
	return -1;
}

/* An iotauth message that passes (tenant FLOW_TAG's key): its length. */
static size_t iot_frame(uint8_t *f)
{
	static const char claims[] = "{\"sub\":\"sensor-17\",\"iat\":1700000000}";
	char jwt[512];

	mk_jwt(jwt, "HS256", claims, IOT_KEY);
	return mk_coap(f, jwt, 1);
}

/*
 * The model for one message through FLD alone (snic untimed, so the NIC's
 * part is immediate): FLD's latency, the message at the unit's rate, the
 * doorbell write up FLD's link (Gen4 x8 by default).
 */
static int64_t fld_predict(size_t len, uint32_t unit_mbps)
{
	uint64_t tlps, up, down;

	d2d_pcie_tlp_cost(D2D_PCIE_DMA_WRITE, sq_db_addr(), 4, &tlps, &up,
			  &down);
	return D2D_TDEF_FLD_ACCEL_NS +
	       d2d_bytes_ns(len, d2d_unit_fs_per_byte(unit_mbps)) +
	       d2d_bytes_ns(up, d2d_pcie_fs_per_byte(D2D_TDEF_FLD_PCIE_GEN,
						     D2D_TDEF_FLD_PCIE_LANES));
}

/* iotauth at @unit_mbps: the measured time of two identical messages. */
static bool iot_run(const char *opts, uint32_t unit_mbps, int64_t *t1,
		    int64_t *t2, size_t *len)
{
	uint8_t f[2048];
	struct flde q;

	*t1 = *t2 = -1;
	if (!env_start(opts) || !flde_setup(&q, 6, sq_db_addr(), 0))
		return false;
	key_set(FLOW_TAG, IOT_KEY);
	*len = iot_frame(f);
	*t1 = timed_answer(f, *len);
	*t2 = timed_answer(f, *len);
	fprintf(stderr, "fld_timing: iotauth %zu B at %u MB/s: %lld, %lld ns,"
		" model %lld ns\n", *len, unit_mbps, (long long)*t1,
		(long long)*t2, (long long)fld_predict(*len, unit_mbps));
	return fld_stat(FLD_STAT_IOT_VALID) == 2;
}

static void unit_time_model(void)
{
	int64_t t1, t2, pred;
	size_t len;

	CHECK(iot_run(",accel=iotauth,timing=on", D2D_TDEF_FLD_UNIT_MBPS,
		      &t1, &t2, &len));
	pred = fld_predict(len, D2D_TDEF_FLD_UNIT_MBPS);
	CHECK(within_pct(t1, pred, 5));
	CHECK(within_pct(t2, t1, 1));
	/* a unit of 10 MB/s: the message's bytes now dominate */
	CHECK(iot_run(",accel=iotauth,timing=on,timing-iotauth-mbps=10", 10,
		      &t1, &t2, &len));
	pred = fld_predict(len, 10);
	CHECK(within_pct(t1, pred, 5));
	CHECK(within_pct(t2, t1, 1));
	CHECK(qt_alive(qt));
}

/* Echo round trip (snic and fld timed), FLD's link PCIe @gen x@lanes. */
static int64_t echo_rtt(unsigned int gen, unsigned int lanes, size_t plen)
{
	char opts[160];
	uint8_t f[2048];
	struct flde q;
	int64_t t;

	snprintf(opts, sizeof(opts), ",accel=echo,timing=on,timing-pcie-gen=%u,"
		 "timing-pcie-lanes=%u -global snic.timing=on", gen, lanes);
	if (!env_start(opts) || !flde_setup(&q, 6, sq_db_addr(), 0))
		return -1;
	t = timed_answer(f, mk_udp(f, UDP_PORT, plen, 1));
	fprintf(stderr, "fld_timing: echo %zu B, FLD Gen%u x%u: %lld ns\n",
		plen, gen, lanes, (long long)t);
	return t;
}

/* TLP bytes of @op (@len bytes at FLD's BAR) that cross FLD's link. */
static uint64_t fld_link_bytes(int op, uint64_t len)
{
	uint64_t tlps, up, down;

	d2d_pcie_tlp_cost(op, FLD_BAR2, len, &tlps, &up, &down);
	return up + down;
}

/*
 * Peer-to-peer: the NIC writes the frame into FLD's receive window, FLD
 * rings, the NIC reads the frame from FLD's transmit window, one after
 * the other.  On a Gen1 x1 FLD link (250 MB/s) the round trip therefore
 * takes at least the frame's bytes crossing it twice, and at most the
 * default's plus every TLP byte of the trip (frame, CQE, doorbell, WQE)
 * at that rate.
 */
static void p2p_fld_link(void)
{
	const size_t plen = 1024, flen = 14 + 20 + 8 + plen;
	uint64_t fs = d2d_pcie_fs_per_byte(1, 1);
	uint64_t trip = fld_link_bytes(D2D_PCIE_DMA_WRITE, flen) +
			fld_link_bytes(D2D_PCIE_DMA_READ, flen) +
			fld_link_bytes(D2D_PCIE_DMA_WRITE, sizeof(struct snic_cqe)) +
			fld_link_bytes(D2D_PCIE_DMA_WRITE, 4) +
			fld_link_bytes(D2D_PCIE_DMA_READ, SNIC_WQEBB_SIZE);
	int64_t t_def, t_slow, lower, upper;

	t_def = echo_rtt(D2D_TDEF_FLD_PCIE_GEN, D2D_TDEF_FLD_PCIE_LANES, plen);
	t_slow = echo_rtt(1, 1, plen);
	lower = 2 * d2d_bytes_ns(flen, fs);
	upper = t_def + d2d_bytes_ns(trip, fs);
	fprintf(stderr, "fld_timing: Gen1 x1 %lld ns: at least %lld, at most "
		"%lld\n", (long long)t_slow, (long long)lower, (long long)upper);
	CHECK(t_def > 0);
	CHECK(t_slow >= lower);
	CHECK(t_slow <= upper);
	CHECK(qt_alive(qt));
}

static void bad_params_refused(void)
{
	CHECK(!env_start(",timing=on,timing-zuc-mbps=0"));
	CHECK(!env_start(",timing=on,timing-defrag-mbps=2000000"));
	CHECK(!env_start(",timing=on,timing-pcie-lanes=3"));
	/* off: the parameters are not used, so not checked */
	CHECK(env_start(",timing-zuc-mbps=0"));
	/* a realized device's model does not change under it */
	CHECK(!qt_qom_set_u64(qt, "/machine/peripheral/fld0",
			      "timing-iotauth-mbps", 100));
}

/* Timing off (the default): the answer is there without the clock moving. */
static void timing_off_immediate(void)
{
	uint8_t f[2048];
	struct flde q;

	CHECK(env_start(",accel=iotauth"));
	CHECK(flde_setup(&q, 6, sq_db_addr(), 0));
	key_set(FLOW_TAG, IOT_KEY);
	CHECK_EQ(timed_answer(f, iot_frame(f)), 0);
}

int main(void)
{
	RUN("device/fld_timing", unit_time_model);
	RUN("device/fld_timing", p2p_fld_link);
	RUN("device/fld_timing", bad_params_refused);
	RUN("device/fld_timing", timing_off_immediate);
	qt_quit(qt);
	if (inj >= 0)
		close(inj);
	return check_failures ? 1 : 0;
}
