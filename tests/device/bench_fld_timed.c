/*
 * bench_fld_timed: FLD-E echo throughput against frame size in modeled
 * time (docs/timing.md), the FlexDriver paper's Figure 7a seen from the
 * wire.  A benchmark run by TIMING=1 tests/bench/fld.sh, not a test.
 *
 * snic and fld both timed (defaults: a 100 Gbit/s port, FLD on PCIe Gen4
 * x8); FRAMES UDP frames of one size arrive at snic's port back to back
 * (the switch queue in front of the port lets them in at the line rate),
 * snic writes them into FLD's receive window, FLD's echo accelerator
 * answers each, snic reads the answers from FLD's transmit window and
 * sends them.  The throughput is the answers' bytes over the virtual time
 * from the first answer on the wire to the last: what the whole path
 * sustains once it is full, whichever of its parts is the slowest.
 *
 * Beside it, the paper's PCIe model (d2d_pcie_fld_model_ctrl: the control
 * bytes per echoed packet, docs/pcie-accounting.md) on FLD's link: each
 * direction carries the frame once, and the model's control bytes of
 * both directions are charged to one of them, so the link allows at most
 * rate x S / (S + ctrl); and the wire's line rate for S-byte frames
 * (S / (S + 24) of it: preamble, FCS, gap).
 *
 * Prints one line per frame size S (Ethernet bytes without FCS):
 *   BENCH fld-tput size=S frames=N answered=M ns=T gbps=G model=P wire=W
 * (Gbit/s of frame bytes) and "BENCH-DONE" at the end.  Modeled time is read off the virtual
 * clock, which moves only when this program steps it: no wall clock.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "common/d2d-cost.h"
#include "common/pcie-tlp.h"
#include "fld_dev.h"

#define FRAMES		64	/* under the RQ's 128 strides: none dropped */
#define HDR		42	/* Ethernet, IPv4 and UDP headers */

static const size_t sizes[] = { 64, 128, 256, 512, 1024, 1500 };

/*
 * @n frames of @frame bytes at once; the virtual ns from the first answer
 * on the wire to the last, and how many answers came (*@got).
 */
static int64_t burst(size_t frame, int n, int *got)
{
	uint64_t first = 0, last = 0, t;
	uint8_t f[2048], g[2048];
	int i, r, idle = 0;

	*got = 0;
	for (i = 0; i < n; i++) {
		if (!inj_send(f, mk_udp(f, UDP_PORT, frame - HDR, i)))
			return -1;
	}
	settle();
	while (*got < n && idle < 4000) {
		settle();
		t = qt_clock_now(qt);
		while ((r = cap_recv(g, sizeof(g), 0)) > 0) {
			if (!memcmp(g, mac_nic, 6))
				continue;	/* not an answer */
			if (!*got)
				first = t;
			last = t;
			(*got)++;
			idle = 0;
		}
		qt_clock_step_next(qt);
		idle++;
	}
	return *got > 1 ? (int64_t)(last - first) : -1;
}

/*
 * Gbit/s of @frame-byte frames through a link of @fs femtoseconds/byte
 * that carries @extra more bytes per frame: 8 x 10^6 / fs is Gbit/s.
 */
static double gbps(size_t frame, double extra, uint64_t fs)
{
	return 8e6 / fs * frame / (frame + extra);
}

int main(void)
{
	uint64_t link = d2d_pcie_fs_per_byte(D2D_TDEF_FLD_PCIE_GEN,
					     D2D_TDEF_FLD_PCIE_LANES);
	uint64_t wire = d2d_wire_fs_per_byte(D2D_TDEF_WIRE_MBPS);
	struct flde q;
	size_t k;

	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		int64_t ns;
		int got;

		if (!env_start(",accel=echo,timing=on -global snic.timing=on") ||
		    !flde_setup(&q, 6, sq_db_addr(), 0)) {
			printf("BENCH-ERROR fld-tput size=%zu: no environment\n",
			       sizes[k]);
			return 1;
		}
		ns = burst(sizes[k], FRAMES, &got);
		/* bits per ns = Gbit/s; the first answer opens the interval */
		printf("BENCH fld-tput size=%zu frames=%d answered=%d ns=%lld "
		       "gbps=%.2f model=%.2f wire=%.2f\n", sizes[k], FRAMES,
		       got, (long long)ns,
		       ns > 0 ? (got - 1) * sizes[k] * 8.0 / ns : 0.0,
		       gbps(sizes[k], d2d_pcie_fld_model_ctrl(sizes[k]), link),
		       gbps(sizes[k], 24, wire));
		fflush(stdout);
	}
	printf("BENCH-DONE\n");
	qt_quit(qt);
	if (inj >= 0)
		close(inj);
	return 0;
}
