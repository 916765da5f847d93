/*
 * ping-pong: UDP echo answered by the NIC.  The header handler turns the
 * datagram around in L1 (MAC, IP and port swap keep both checksums valid)
 * and sends it back; the host never sees it.  Needs the whole frame in L1
 * (spinctl --copy at least the frame size); anything else is passed on.
 *
 * What it checks is only what the NIC has not: the context's steering
 * rule (spinctl --port) matches IPv4 + UDP + destination port, and the
 * NIC's parser matches ports only in a well-formed IPv4 datagram that is
 * not a fragment and whose UDP header lies in the frame (docs/snic-spin.md,
 * "Handler argument block"), so the frame has at least 42 bytes.  Left to
 * check: the whole frame was copied to L1, and no IP options (the swap
 * assumes the UDP header at byte 34).  A header or payload handler always
 * finds its packet at SPIN_PKT_ADDR, so the address is a constant, not a
 * load from the argument block.
 */
#include <spin.h>
#include <spin_net.h>

static int pingpong(const struct spin_args *a)
{
	struct spin_udp_pkt *u = (struct spin_udp_pkt *)SPIN_PKT_ADDR;
	uint32_t len = a->full_len;

	/* pkt_len = min(copy_bytes, full_len): short means not all in L1 */
	if (a->pkt_len < len || u->ip.ver_ihl != 0x45)
		return SPIN_PASS;
	spin_udp_swap(u);
	spin_send(u, len, 0);
	return SPIN_DROP;
}
SPIN_HEADER_HANDLER(pingpong);
