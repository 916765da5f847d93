/*
 * ping-pong: UDP echo answered by the NIC.  The header handler turns the
 * datagram around in L1 (MAC, IP and port swap keep both checksums valid)
 * and sends it back; the host never sees it.  Needs the whole frame in L1
 * (spinctl --copy at least the frame size); anything else is passed on.
 */
#include <spin.h>
#include <spin_net.h>

static int pingpong(const struct spin_args *a)
{
	struct spin_udp_pkt *u = (struct spin_udp_pkt *)a->pkt;

	if (a->pkt_len != a->full_len || !spin_udp_parse(u, a->pkt_len))
		return SPIN_PASS;
	spin_udp_swap(u);
	spin_send(u, a->full_len, 0);
	return SPIN_DROP;
}
SPIN_HEADER_HANDLER(pingpong);
