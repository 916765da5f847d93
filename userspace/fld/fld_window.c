// SPDX-License-Identifier: GPL-2.0
/* The fld tools' request/answer window loop (fld_window.h). */
#include <string.h>
#include <time.h>
#include "fld_window.h"

double fld_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int fld_window_run(const struct fld_window_io *io, long count, long window,
		   struct fld_window_count *c)
{
	double t0 = fld_now();
	int idle = 0, r;

	memset(c, 0, sizeof(*c));
	while (c->got + c->bad < count && idle < FLD_WINDOW_MAX_IDLE) {
		while (c->sent < count && c->sent - c->got - c->bad < window) {
			if (io->send(io->ctx, c->sent))
				return -1;
			c->sent++;
		}
		r = io->recv(io->ctx);
		if (r == 1) {
			c->got++;
		} else if (r == 0) {
			c->bad++;
		} else {
			/* lost: let the window move on */
			c->bad += c->sent - c->got - c->bad;
			if (r == FLD_WINDOW_STOP)
				break;
			idle++;
		}
	}
	c->secs = fld_now() - t0;
	return 0;
}
