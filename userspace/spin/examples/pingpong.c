/*
 * ping-pong: UDP echo answered by the NIC.  The header handler turns the
 * datagram around in L1 (MAC, IP and port swap keep both checksums valid)
 * and sends it back; the host never sees it.  Needs the whole frame in L1
 * (spinctl --copy at least the frame size); anything else is passed on.
 *
 * The context's steering rule (spinctl --port) only lets IPv4/UDP frames
 * with its destination port through, so the handler checks only what the
 * rule does not: an IPv4 header without options, not a fragment.
 */
#include <spin.h>
#include <spin_net.h>

static int pingpong(const struct spin_args *a)
{
	struct spin_udp_pkt *u = (struct spin_udp_pkt *)a->pkt;
	uint32_t len = a->full_len;

	if (a->pkt_len != len || len < SPIN_UDP_HLEN || u->ip.ver_ihl != 0x45 ||
	    (u->ip.frag & spin_htons(0x3fff)))
		return SPIN_PASS;
	spin_udp_swap(u);
	spin_send(u, len, 0);
	return SPIN_DROP;
}
SPIN_HEADER_HANDLER(pingpong);
