/*
 * Minimal test harness for the unit and device tiers.
 *
 * Every test prints one line, "PASS <name>" or "FAIL <name>: <why>"
 * (or "SKIP <name>: <why>"); tests/run-tier counts them.  A CHECK that
 * fails ends the current test function.
 *
 * With D2D_TAP=1 in the environment the lines are TAP instead: "ok N -
 * <name>" or "not ok N - <name> # <why>", and the plan "1..N" when the
 * program exits (a program that dies early has no plan, which a TAP
 * consumer reports as a failure).
 */
#ifndef D2D_TEST_CHECK_H
#define D2D_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static char check_why[512];
static int check_failures;
static int check_count;		/* tests run so far */
static int check_tap = -1;	/* D2D_TAP set; -1 until first asked */

static inline void check_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (check_why[0])
		return;
	n = snprintf(check_why, sizeof(check_why), "%s:%d: ", file, line);
	va_start(ap, fmt);
	vsnprintf(check_why + n, sizeof(check_why) - n, fmt, ap);
	va_end(ap);
}

/* @got is positive and within @pct percent of @want (modeled times). */
static inline int within_pct(int64_t got, int64_t want, int pct)
{
	int64_t d = got > want ? got - want : want - got;

	return got > 0 && d * 100 <= want * pct;
}

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		check_fail(__FILE__, __LINE__, "%s", #cond);		\
		return;							\
	}								\
} while (0)

#define CHECK_EQ(a, b) do {						\
	unsigned long long _a = (a), _b = (b);				\
	if (_a != _b) {							\
		check_fail(__FILE__, __LINE__, "%s == %#llx, want %s == %#llx", \
			   #a, _a, #b, _b);				\
		return;							\
	}								\
} while (0)

#define CHECK_STR(a, b) do {						\
	const char *_a = (a), *_b = (b);				\
	if (strcmp(_a, _b)) {						\
		check_fail(__FILE__, __LINE__, "%s == \"%s\", want \"%s\"", \
			   #a, _a, _b);					\
		return;							\
	}								\
} while (0)

static inline void check_tap_plan(void)
{
	printf("1..%d\n", check_count);
	fflush(stdout);
}

static inline int check_tap_on(void)
{
	if (check_tap < 0) {
		const char *e = getenv("D2D_TAP");

		check_tap = e && *e && strcmp(e, "0");
		if (check_tap)
			atexit(check_tap_plan);
	}
	return check_tap;
}

static inline void check_run(const char *name, void (*fn)(void))
{
	check_why[0] = 0;
	fn();
	check_count++;
	if (check_why[0])
		check_failures++;
	if (check_tap_on() && check_why[0])
		printf("not ok %d - %s # %s\n", check_count, name, check_why);
	else if (check_tap_on())
		printf("ok %d - %s\n", check_count, name);
	else if (check_why[0])
		printf("FAIL %s: %s\n", name, check_why);
	else
		printf("PASS %s\n", name);
	fflush(stdout);
}

#define RUN(prefix, fn) check_run(prefix "/" #fn, fn)

#endif
