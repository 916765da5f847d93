/*
 * A program on the test harness (lib/check.h) with one passing and one
 * failing test, for tests/unit/tap.sh: its output is what the harness
 * prints, by default and in TAP form.  Not a test itself.
 */
#include "../lib/check.h"

static void passes(void)
{
	CHECK_EQ(1 + 1, 2);
}

static void fails(void)
{
	CHECK_EQ(1 + 1, 3);
}

int main(void)
{
	RUN("unit/tap_sample", passes);
	RUN("unit/tap_sample", fails);
	return check_failures ? 1 : 0;
}
