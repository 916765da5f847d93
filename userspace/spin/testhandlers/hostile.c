/*
 * hostile: a handler that misbehaves on request, for the protection tests.
 * The first payload byte of each datagram picks what it does:
 *
 *	'L' infinite loop (watchdog)        'W' store to a wild pointer
 *	'I' illegal instruction             'F' jump outside the code
 *	'H' DMA past the end of its region  'O' DMA outside every region
 *	'C' DMA longer than SPIN_DMA_MAX    'R' unknown return code
 *	'S' stack overflow (unbounded recursion)
 *	anything else: behave (count it and drop)
 *
 * hostile_good counts the datagrams it handled normally.
 */
#include <spin.h>
#include <spin_net.h>

uint32_t hostile_good;
uint32_t hostile_sink;

static uint32_t __attribute__((noinline)) recurse(volatile uint32_t *p,
						  uint32_t n)
{
	volatile uint32_t frame[1024];	/* 4 KiB: the 64 KiB slot runs out fast */

	frame[n & 1023] = n;
	if (n == 0xffffffffu)	/* never: the stack runs out long before */
		return 0;
	return recurse(frame, n + 1) + p[0];
}

static int hostile(const struct spin_args *a)
{
	struct spin_udp_pkt *u = spin_udp_parse((void *)a->pkt, a->pkt_len);
	uint8_t mode;

	if (!u || a->pkt_len <= SPIN_UDP_HLEN)
		return SPIN_DROP;
	mode = *((const uint8_t *)u + SPIN_UDP_HLEN);
	switch (mode) {
	case 'L':
		for (;;)
			hostile_sink++;
	case 'W':
		*(volatile uint32_t *)0x50000000 = 1;
		break;
	case 'I':
		__asm__ volatile(".word 0xffffffff");
		break;
	case 'F':
		((void (*)(void))0x00000100)();
		break;
	case 'H':
		/* 8 KiB from L1 (inside the slot) into a 4 KiB region */
		spin_wait(spin_dma_to_host(0, 0, (void *)a->pkt,
					   spin_region_size(0) + 4096));
		break;
	case 'O':
		spin_wait(spin_dma_to_host(0, spin_region_size(0) + 4096,
					   (void *)a->pkt, 64));
		break;
	case 'C':
		spin_wait(spin_dma_to_host(0, 0, (void *)a->pkt,
					   SPIN_DMA_MAX + 1));
		break;
	case 'R':
		return 77;
	case 'S':
		hostile_sink = recurse(&hostile_sink, 0);
		break;
	default:
		spin_amo_add(&hostile_good, 1);
		return SPIN_DROP;
	}
	return SPIN_DROP;
}
SPIN_HEADER_HANDLER(hostile);
