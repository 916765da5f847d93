// SPDX-License-Identifier: GPL-2.0
/*
 * hdc: connected TCP sockets as sources (docs/hdc.md, "TCP receive").  The
 * engine receives the connection's next bytes into the destination; the
 * driver hands the receive side over and takes it back, as TCP repair
 * would:
 *
 * 1. Building the request: the flow's Ethernet/IPv4 headers, route and
 *    next-hop MAC (hdc_nic_l3), the engine's queues on the route's snic
 *    port, the filter (both addresses and ports); room in the request's
 *    coherent buffer for the ACK template and the unread bytes.
 * 2. Before the command goes (hdc_nic_rx.c): lock_sock() with everything
 *    sent acked (hdc_tcp_hold); the bytes the socket received and nobody
 *    read are taken out of it (tcp_read_sock) into the buffer: the
 *    stream's prefix, which the engine places first; the template carries
 *    rcv_nxt, the window offered and the timestamps.  A FIN already
 *    received ends the stream after the prefix.
 * 3. The steering rule sends the flow's segments to the engine's striding
 *    receive queue; the engine reassembles in order and acknowledges.
 * 4. The rule goes; rcv_nxt, the window offered and the peer's last TSval
 *    go back into the socket (copied_seq = rcv_nxt: the engine's bytes
 *    were read), and release_sock() lets it carry on.  A receive that
 *    failed after the socket's bytes were taken or acked cannot be
 *    undone: the socket is reset with the error (the engine sent an RST
 *    unless the peer did).
 */
#include <linux/file.h>
#include <linux/ip.h>
#include <linux/net.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "hdc.h"

/* Bytes received and unread when the socket is handed over, at most. */
#define HDC_TCP_PREFIX_MAX	(256u << 10)

/*
 * @file as a source: a connected TCP/IPv4 socket whose route leaves by a
 * snic port.  Fills req->rx (the filter) and req->flow (its Ethernet and
 * IPv4 headers).
 */
int hdc_tcp_rx_src(struct hdc_dev *hd, struct file *file,
		   struct hdc_request *req)
{
	struct sock *sk = sock_from_file(file)->sk;
	struct hdc_net_flow *f = &req->flow;
	const struct iphdr *iph;
	const __be16 *ports;
	u32 mtu;
	int ret;

	/* Like a raw socket: the segments pass no netfilter, tc or BPF. */
	if (!capable(CAP_NET_RAW)) {
		hdc_uerr(hd, "socket sources need CAP_NET_RAW\n");
		return -EPERM;
	}
	if (sk->sk_family != AF_INET) {
		hdc_uerr(hd, "TCP source is not IPv4\n");
		return -EPROTONOSUPPORT;
	}
	if (!(hd->caps & HDC_CAP_TCP) || !(hd->caps & HDC_CAP_NIC_RX)) {
		hdc_uerr(hd, "this engine has no TCP receiver\n");
		return -EOPNOTSUPP;
	}
	ret = hdc_nic_l3(hd, sk, IPPROTO_TCP, f, &mtu);
	if (ret)
		return ret;
	if (!READ_ONCE(hd->nic.rx_up)) {
		hdc_uerr(hd, "the engine has no receive queues\n");
		return -EOPNOTSUPP;
	}
	iph = (const struct iphdr *)(f->hdr + f->l3_off);
	ports = (const __be16 *)(f->hdr + f->l4_off);
	memset(&req->rx, 0, sizeof(req->rx));
	req->rx.proto = HDC_NET_TCP;
	req->rx.dst_ip = iph->saddr;
	req->rx.src_ip = iph->daddr;
	req->rx.dst_port = ports[0];
	req->rx.src_port = ports[1];
	f->mss = cpu_to_le16(min_t(u32, mtu, U16_MAX));	/* the MTU, for now */
	req->rx_prefix_max = min_t(u64, req->length, HDC_TCP_PREFIX_MAX);
	return 0;
}

/* The request's coherent bytes after its struct hdc_net_rx. */
size_t hdc_tcp_rx_dlen(const struct hdc_request *req)
{
	return sizeof(struct hdc_net_flow) + req->rx_prefix_max;
}

static struct hdc_net_flow *hdc_tcp_rx_flow(struct hdc_request *req)
{
	return (struct hdc_net_flow *)(req->rx_dev + 1);
}

/* The flow's bytes the engine writes back: snd_wnd .. ts_recent. */
#define HDC_TCP_RX_OUT		offsetof(struct hdc_net_flow, snd_wnd)
#define HDC_TCP_RX_OUT_LEN	(offsetof(struct hdc_net_flow, hdr) - \
				 HDC_TCP_RX_OUT)

/* The ACK template (its headers so far) after req->rx_dev in dbuf. */
void hdc_tcp_rx_encode(struct hdc_request *req)
{
	struct hdc_net_flow *f = hdc_tcp_rx_flow(req);
	size_t off = (u8 *)f - (u8 *)req->dbuf;
	dma_addr_t prefix = req->dbuf_dma + off + sizeof(*f);

	memcpy(f, &req->flow, sizeof(*f));
	req->rx_dev->prefix_lo = cpu_to_le32(lower_32_bits(prefix));
	req->rx_dev->prefix_hi = cpu_to_le32(upper_32_bits(prefix));
	/* The state the engine writes back outlives the buffer. */
	req->keep_off = off + HDC_TCP_RX_OUT;
	req->keep_len = HDC_TCP_RX_OUT_LEN;
}

struct hdc_tcp_prefix {
	u8 *buf;
	u32 room;
};

static int hdc_tcp_rx_copy(read_descriptor_t *desc, struct sk_buff *skb,
			   unsigned int off, size_t len)
{
	struct hdc_tcp_prefix *p = desc->arg.data;
	size_t n = min_t(size_t, len, desc->count);

	if (skb_copy_bits(skb, off, p->buf + desc->written, n))
		return -EFAULT;
	desc->written += n;
	desc->count -= n;
	return n;
}

/*
 * Hold the request's socket and give its receive side to the engine:
 * the unread bytes into the prefix, the state into the ACK template.
 * 0 with the socket held, or -errno and the socket as it was.
 */
int hdc_tcp_rx_take(struct hdc_request *req)
{
	struct hdc_dev *hd = req->hd;
	struct sock *sk = sock_from_file(req->src.file)->sk;
	struct tcp_sock *tp = tcp_sk(sk);
	struct hdc_net_flow *f = hdc_tcp_rx_flow(req);
	struct hdc_tcp_prefix p = { .buf = (u8 *)(f + 1),
				    .room = req->rx_prefix_max };
	read_descriptor_t desc = { .arg.data = &p, .count = p.room };
	u32 mtu = le16_to_cpu(f->mss);
	int ret, unread;

	ret = hdc_tcp_hold(hd, sk, true);
	if (ret)
		return ret;
	/* The request's files go when it completes: keep the socket. */
	sock_hold(sk);
	req->tcp_sk = sk;
	unread = tcp_inq(sk);
	if (unread > p.room) {
		hdc_uerr(hd, "TCP source has %d bytes unread, more than %u\n",
			 unread, p.room);
		hdc_tcp_rx_give(req, -EBUSY, false);
		return -EBUSY;
	}
	if (unread) {
		ret = tcp_read_sock(sk, &desc, hdc_tcp_rx_copy);
		if (ret < 0 || desc.written != unread) {
			/* Bytes may have left the socket: it cannot go on. */
			hdc_uerr(hd, "TCP source: unread bytes not taken: %d\n",
				 ret);
			req->rx.prefix_len = cpu_to_le32(desc.written);
			hdc_tcp_rx_give(req, ret < 0 ? ret : -EIO, false);
			return ret < 0 ? ret : -EIO;
		}
	}
	req->rx_dev->prefix_len = cpu_to_le32(unread);
	req->rx.prefix_len = req->rx_dev->prefix_len;
	hdc_stat_inc(hd, &hd->tcp_recvs);
	if (sk->sk_shutdown & RCV_SHUTDOWN)
		req->rx_dev->flags = cpu_to_le32(HDC_NET_RX_F_FIN);
	hdc_tcp_state(sk, f, mtu);
	/* The socket's receive window and scale: the engine offers it. */
	f->snd_wnd = cpu_to_le32(max(tcp_receive_window(tp), tp->rcv_wnd));
	f->snd_wscale = tp->rx_opt.rcv_wscale;
	f->snd_una = 0;
	f->snd_max = 0;
	f->out_flags = 0;
	return 0;
}

/*
 * Give the held socket back the engine's receive state (the request
 * ended with @err; @ran: it reached the engine) and release it.  If the
 * socket lost bytes (taken out or acked by the engine, not all in the
 * destination) it is reset.
 */
void hdc_tcp_rx_give(struct hdc_request *req, int err, bool ran)
{
	struct sock *sk = req->tcp_sk;
	struct tcp_sock *tp = tcp_sk(sk);
	struct hdc_net_flow out = {}, *f = &out;
	bool lost = le32_to_cpu(req->rx.prefix_len);
	u32 flags, nxt, got;

	/* After the completion the buffer is gone, its state kept. */
	if (completion_done(&req->done))
		memcpy((u8 *)f + HDC_TCP_RX_OUT, req->keep, HDC_TCP_RX_OUT_LEN);
	else if (ran)
		memcpy((u8 *)f + HDC_TCP_RX_OUT,
		       (u8 *)hdc_tcp_rx_flow(req) + HDC_TCP_RX_OUT,
		       HDC_TCP_RX_OUT_LEN);
	flags = le16_to_cpu(f->out_flags);
	nxt = le32_to_cpu(f->snd_una);
	got = nxt - tp->rcv_nxt;

	if ((flags & HDC_NET_OUT_STATE) && got <= req->length) {
		tp->bytes_received += got;
		WRITE_ONCE(tp->rcv_nxt, nxt);
		WRITE_ONCE(tp->copied_seq, nxt);
		tp->rcv_wup = nxt;
		tp->rcv_wnd = le32_to_cpu(f->snd_wnd);
		tp->rcvq_space.seq = nxt;
		if (tp->rx_opt.tstamp_ok) {
			tp->rx_opt.ts_recent = le32_to_cpu(f->ts_recent);
			tp->rx_opt.ts_recent_stamp = ktime_get_seconds();
		}
		tp->rcv_tstamp = tcp_jiffies32;
		inet_csk(sk)->icsk_ack.lrcvtime = tcp_jiffies32;
		lost |= got != 0;
	} else if (flags & HDC_NET_OUT_STATE) {
		dev_err_ratelimited(&req->hd->pdev->dev,
				    "engine returned TCP receive state out of range (+%u of %llu)\n",
				    got, req->length);
		lost = true;
	} else if (ran) {
		lost = true;	/* the engine may have acked bytes */
	}
	if (err && (lost || err == -ECONNRESET))
		hdc_tcp_reset(req->hd, sk, err);
	release_sock(sk);
	req->tcp_sk = NULL;
	sock_put(sk);
}
