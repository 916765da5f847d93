/*
 * The fld tools' request/answer window loop (userspace/fld/fld_window.c)
 * over a fake transport: never more than the window outstanding, right
 * and wrong answers counted, three idle waits end a run and give up what
 * is outstanding, a failed transport ends it at once, a failed send is
 * an error.
 */
#include "../lib/check.h"
#include "fld_window.h"

struct fake {
	long sent, answered, max_out;
	long fail_send_at;	/* -1: never */
	int answer;		/* what recv returns */
	int recvs;
};

static int fake_send(void *ctx, long seq)
{
	struct fake *f = ctx;

	if (seq == f->fail_send_at)
		return -1;
	f->sent = seq + 1;
	if (f->sent - f->answered > f->max_out)
		f->max_out = f->sent - f->answered;
	return 0;
}

static int fake_recv(void *ctx)
{
	struct fake *f = ctx;

	f->recvs++;
	if (f->answer == 0 || f->answer == 1)
		f->answered++;
	return f->answer;
}

static int run(struct fake *f, long count, long window,
	       struct fld_window_count *c)
{
	struct fld_window_io io = { fake_send, fake_recv, f };

	return fld_window_run(&io, count, window, c);
}

static void all_answered_within_window(void)
{
	struct fake f = { .fail_send_at = -1, .answer = 1 };
	struct fld_window_count c;

	CHECK_EQ(run(&f, 100, 8, &c), 0);
	CHECK_EQ(c.sent, 100);
	CHECK_EQ(c.got, 100);
	CHECK_EQ(c.bad, 0);
	CHECK_EQ(f.max_out, 8);
	CHECK(c.secs >= 0);
}

static void wrong_answers_are_bad(void)
{
	struct fake f = { .fail_send_at = -1, .answer = 0 };
	struct fld_window_count c;

	CHECK_EQ(run(&f, 10, 4, &c), 0);
	CHECK_EQ(c.sent, 10);
	CHECK_EQ(c.got, 0);
	CHECK_EQ(c.bad, 10);
}

/* Each idle wait gives up the window; the third ends the run. */
static void three_idle_waits_end_the_run(void)
{
	struct fake f = { .fail_send_at = -1, .answer = FLD_WINDOW_IDLE };
	struct fld_window_count c;

	CHECK_EQ(run(&f, 100, 5, &c), 0);
	CHECK_EQ(f.recvs, FLD_WINDOW_MAX_IDLE);
	CHECK_EQ(c.sent, 5 * FLD_WINDOW_MAX_IDLE);
	CHECK_EQ(c.got, 0);
	CHECK_EQ(c.bad, c.sent);
}

static void stop_ends_the_run(void)
{
	struct fake f = { .fail_send_at = -1, .answer = FLD_WINDOW_STOP };
	struct fld_window_count c;

	CHECK_EQ(run(&f, 100, 5, &c), 0);
	CHECK_EQ(f.recvs, 1);
	CHECK_EQ(c.sent, 5);
	CHECK_EQ(c.bad, 5);
}

static void failed_send_is_an_error(void)
{
	struct fake f = { .fail_send_at = 3, .answer = 1 };
	struct fld_window_count c;

	CHECK_EQ(run(&f, 10, 8, &c), -1);
	CHECK_EQ(c.sent, 3);
}

int main(void)
{
	RUN("unit/fld_window", all_answered_within_window);
	RUN("unit/fld_window", wrong_answers_are_bad);
	RUN("unit/fld_window", three_idle_waits_end_the_run);
	RUN("unit/fld_window", stop_ends_the_run);
	RUN("unit/fld_window", failed_send_is_an_error);
	return check_failures ? 1 : 0;
}
