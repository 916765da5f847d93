/*
 * Minimal test harness for the unit and device tiers.
 *
 * Every test prints one line, "PASS <name>" or "FAIL <name>: <why>"
 * (or "SKIP <name>: <why>"); tests/run-tier counts them.  A CHECK that
 * fails ends the current test function.
 */
#ifndef D2D_TEST_CHECK_H
#define D2D_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

static char check_why[512];
static int check_failures;

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

static inline void check_run(const char *name, void (*fn)(void))
{
	check_why[0] = 0;
	fn();
	if (check_why[0]) {
		printf("FAIL %s: %s\n", name, check_why);
		check_failures++;
	} else {
		printf("PASS %s\n", name);
	}
	fflush(stdout);
}

#define RUN(prefix, fn) check_run(prefix "/" #fn, fn)

#endif
