/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The request/answer window loop of the fld traffic tools (fld-udp ping,
 * fld-zuc load and rdma-load): send requests 0..count-1 with at most
 * @window unanswered, count each answer right or wrong, and give up on
 * what is outstanding when nothing comes back in time.  The transport
 * (a UDP socket, an FLD-R RC QP) is the caller's, behind two callbacks.
 */
#ifndef FLD_WINDOW_H
#define FLD_WINDOW_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * The payload of datagram @seq (n bytes): byte i is seq * mul + i, then
 * seq itself over the first 4 bytes, so that an answer shows which
 * request it belongs to and whether any byte changed on the way.
 */
static inline void fld_fill(uint8_t *b, size_t n, uint32_t seq, unsigned mul)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(seq * mul + i);
	if (n >= 4)
		memcpy(b, &seq, 4);
}

/* recv's answers besides 1 (right) and 0 (wrong) */
#define FLD_WINDOW_IDLE		(-1)	/* nothing in time: the rest is lost */
#define FLD_WINDOW_STOP		(-2)	/* transport failed: the rest is lost */
#define FLD_WINDOW_MAX_IDLE	3	/* idle waits that end a run */

struct fld_window_io {
	/* Send request @seq: 0, or -1 (reported) to end the run. */
	int (*send)(void *ctx, long seq);
	/* Wait for one answer: 1, 0, FLD_WINDOW_IDLE or _STOP (reported). */
	int (*recv)(void *ctx);
	void *ctx;
};

struct fld_window_count {
	long sent;
	long got;		/* right answers */
	long bad;		/* wrong ones, and requests given up */
	double secs;
};

/* Seconds on the monotonic clock. */
double fld_now(void);

/*
 * Runs @count requests through @io, at most @window outstanding; fills
 * @c.  Returns -1 if a send failed (the run stopped there), else 0.
 */
int fld_window_run(const struct fld_window_io *io, long count, long window,
		   struct fld_window_count *c);

#endif /* FLD_WINDOW_H */
