/*
 * crt0 of sPIN handlers.  The device enters a handler with the C calling
 * convention already set up (pc = entry, a0 = &spin_args, sp = top of the
 * HPU's L1 stack, ra = SPIN_EXIT_ADDR), so a handler is a plain C function
 * and costs no entry glue; .data is loaded and .bss zeroed by the host
 * once per context, not per invocation.  What is left for crt0:
 *
 * - spin_sdk_abi: the SDK's ABI marker that spinctl checks, so that an
 *   ELF not built against this SDK (another address map) is refused;
 * - spin_handler_pass / spin_handler_drop: ready-made trivial handlers
 *   (the "empty" example uses them to measure the runtime overhead).
 */
#include <spin.h>

const uint32_t spin_sdk_abi[4]
	__attribute__((section(".rodata.spin_abi"), used)) = {
	0x4e495053,		/* "SPIN" */
	1,			/* SDK ABI version */
	SPIN_CODE_BASE,
	SPIN_HMEM_BASE,
};

int spin_handler_pass(const struct spin_args *a)
{
	(void)a;
	return SPIN_PASS;
}

int spin_handler_drop(const struct spin_args *a)
{
	(void)a;
	return SPIN_DROP;
}
