/*
 * empty: header, payload and completion handlers that return at once.
 * The benchmark uses it to measure what every packet costs beyond the
 * handlers themselves (dispatch and the return).
 */
#include <spin.h>

static int empty(const struct spin_args *a)
{
	(void)a;
	return SPIN_DROP;
}
SPIN_HEADER_HANDLER(empty);
SPIN_PAYLOAD_HANDLER(empty);
SPIN_COMPLETION_HANDLER(empty);
