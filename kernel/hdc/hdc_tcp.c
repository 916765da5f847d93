// SPDX-License-Identifier: GPL-2.0
/*
 * hdc: connected TCP sockets as destinations (docs/hdc.md, "TCP").  The
 * engine sends the file's bytes as the socket's own segments; the driver
 * hands the connection over and takes it back, as TCP repair would:
 *
 * 1. The flow's Ethernet/IPv4 headers, route and next-hop MAC
 *    (hdc_nic_l3), the engine's queues on the route's snic port.
 * 2. lock_sock(), and wait (sleeping unlocked) until everything the
 *    socket sent is acked: the engine starts at snd_nxt == snd_una with
 *    an empty send queue.  While the socket is owned, the kernel's TCP
 *    timers defer and incoming segments go to its backlog.
 * 3. A steering rule sends the flow's incoming segments to the engine's
 *    receive queue; the TCP header template carries snd_nxt, rcv_nxt,
 *    the advertised window and the timestamps; the peer's window and
 *    scale, the MSS and the first RTO go in the flow.
 * 4. One internal command, SSD to NIC: the engine segments, takes ACKs,
 *    retransmits and does congestion control (hdc-tcp.c in the device).
 * 5. The rule goes; the engine's snd_una, snd_max, window and the peer's
 *    last TSval go back into the socket, and release_sock() lets it
 *    carry on.  If bytes were sent and not acked (the engine failed,
 *    the peer reset) the socket cannot resend them: it is reset with the
 *    error (the engine sent an RST unless the peer did).
 */
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/ip.h>
#include <linux/net.h>
#include <linux/tcp.h>
#include <net/inet_connection_sock.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "hdc.h"

#define HDC_TCP_DRAIN_MS	5000	/* wait for the send queue to empty */
#define HDC_TCP_EXEC_MS		120000	/* one transfer, at most */
/* The flow's bytes the engine writes back: snd_wnd .. ts_recent. */
#define HDC_TCP_OUT_LEN		(offsetof(struct hdc_net_flow, hdr) - \
				 offsetof(struct hdc_net_flow, snd_wnd))

bool hdc_tcp_is_tcp(struct file *file)
{
	struct socket *sock = sock_from_file(file);

	return sock && sock->sk->sk_type == SOCK_STREAM &&
	       sock->sk->sk_protocol == IPPROTO_TCP;
}

/* The request's own checks, before any file is mapped. */
int hdc_tcp_check(struct hdc_dev *hd, struct file *file, u32 flags,
		  u32 nfuncs, u32 src_type)
{
	struct sock *sk = sock_from_file(file)->sk;

	/* Like a raw socket: the segments pass no netfilter, tc or BPF. */
	if (!capable(CAP_NET_RAW)) {
		hdc_uerr(hd, "socket destinations need CAP_NET_RAW\n");
		return -EPERM;
	}
	if (sk->sk_family != AF_INET) {
		hdc_uerr(hd, "TCP destination is not IPv4\n");
		return -EPROTONOSUPPORT;
	}
	if (!(hd->caps & HDC_CAP_TCP)) {
		hdc_uerr(hd, "this engine has no TCP sender\n");
		return -EOPNOTSUPP;
	}
	if (flags || nfuncs || src_type != HDC_UEP_FD) {
		hdc_uerr(hd, "TCP: a file, no functions, no flags\n");
		return -EINVAL;
	}
	if (READ_ONCE(sk->sk_state) != TCP_ESTABLISHED) {
		hdc_uerr(hd, "TCP destination is not connected\n");
		return -ENOTCONN;
	}
	return 0;
}

static bool hdc_tcp_md5(struct tcp_sock *tp)
{
#ifdef CONFIG_TCP_MD5SIG
	return rcu_access_pointer(tp->md5sig_info);
#else
	return false;
#endif
}

/* A sender: ESTABLISHED, not shut down; a receiver also CLOSE_WAIT. */
static bool hdc_tcp_state_ok(struct sock *sk, bool rx)
{
	if (rx)
		return sk->sk_state == TCP_ESTABLISHED ||
		       sk->sk_state == TCP_CLOSE_WAIT;
	return sk->sk_state == TCP_ESTABLISHED &&
	       !(sk->sk_shutdown & SEND_SHUTDOWN);
}

/*
 * lock_sock(@sk) with nothing of it in flight (everything sent acked),
 * or an error and the socket not held.  @rx: for a receive, which may
 * also start after the peer's FIN (CLOSE_WAIT) or our shutdown.
 */
int hdc_tcp_hold(struct hdc_dev *hd, struct sock *sk, bool rx)
{
	struct tcp_sock *tp = tcp_sk(sk);
	int i, ret;

	lock_sock(sk);
	for (i = 0; ; i++) {
		if (sk->sk_err) {
			ret = -sk->sk_err;
			break;
		}
		if (!hdc_tcp_state_ok(sk, rx)) {
			ret = -EPIPE;
			break;
		}
		if (tp->repair || inet_csk(sk)->icsk_ulp_ops ||
		    hdc_tcp_md5(tp)) {
			/* Options the engine does not do (repair, ULP, MD5). */
			hdc_uerr(hd, "TCP socket in repair mode, with a ULP or MD5 signatures\n");
			ret = -EOPNOTSUPP;
			break;
		}
		if (tp->write_seq == tp->snd_una && tcp_write_queue_empty(sk) &&
		    tcp_rtx_queue_empty(sk))
			return 0;
		if (i >= HDC_TCP_DRAIN_MS / 10) {
			hdc_uerr(hd, "TCP send queue did not empty\n");
			ret = -EBUSY;
			break;
		}
		release_sock(sk);
		if (msleep_interruptible(10))
			return -EINTR;
		lock_sock(sk);
	}
	release_sock(sk);
	return ret;
}

/* The TCP header template and state from the held socket. */
void hdc_tcp_state(struct sock *sk, struct hdc_net_flow *f, u32 mtu)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcphdr *th = (struct tcphdr *)(f->hdr + f->l4_off);
	unsigned int opt = tp->rx_opt.tstamp_ok ? TCPOLEN_TSTAMP_ALIGNED : 0;
	u32 mss = min_t(u32, tp->mss_cache, mtu - sizeof(struct iphdr) -
			sizeof(*th) - opt);
	u32 win = tcp_receive_window(tp) >> tp->rx_opt.rcv_wscale;

	f->proto = HDC_NET_TCP;
	f->hdr_len = f->l4_off + sizeof(*th) + opt;
	f->mss = cpu_to_le16(min_t(u32, mss, HDC_NET_MSS_MAX));
	f->rto_ms = cpu_to_le16(min_t(u32, jiffies_to_msecs(inet_csk(sk)->icsk_rto),
				      U16_MAX));
	f->snd_wnd = cpu_to_le32(tp->snd_wnd);
	f->snd_wscale = tp->rx_opt.snd_wscale;
	f->snd_una = cpu_to_le32(tp->snd_una);
	f->snd_max = cpu_to_le32(tp->snd_nxt);
	f->ts_recent = cpu_to_le32(tp->rx_opt.ts_recent);
	th->seq = htonl(tp->snd_nxt);
	th->ack_seq = htonl(tp->rcv_nxt);
	th->doff = (sizeof(*th) + opt) / 4;
	th->ack = 1;
	th->psh = 1;
	th->window = htons(min_t(u32, win, U16_MAX));
	if (opt) {
		__be32 *p = (__be32 *)(th + 1);

		f->flags = cpu_to_le32(HDC_NET_F_TS);
		p[0] = htonl((TCPOPT_NOP << 24) | (TCPOPT_NOP << 16) |
			     (TCPOPT_TIMESTAMP << 8) | TCPOLEN_TIMESTAMP);
		/* One TSval for the transfer: it never goes back. */
		p[1] = htonl(tcp_time_stamp_raw() + tp->tsoffset);
		p[2] = htonl(tp->rx_opt.ts_recent);
	}
}

/*
 * The held socket lost bytes the engine took (sent and not acked,
 * received and not all placed): it cannot go on.  It is closed with
 * -@err as its error; the peer gets an RST from the engine, or from the
 * stack at its next segment.
 */
void hdc_tcp_reset(struct hdc_dev *hd, struct sock *sk, int err)
{
	hdc_stat_inc(hd, &hd->tcp_resets);
	sk->sk_err = -err;
	sk_error_report(sk);
	tcp_done(sk);
}

/*
 * Give the socket back the engine's state.  A socket whose sent bytes
 * are not all acked (or whose state the engine never wrote after it may
 * have sent) cannot go on: it is reset with @err.
 */
static void hdc_tcp_handback(struct hdc_dev *hd, struct sock *sk,
			     const struct hdc_net_flow *f, bool state, int err)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 una = le32_to_cpu(f->snd_una), max = le32_to_cpu(f->snd_max);
	u32 wnd = le32_to_cpu(f->snd_wnd);

	tp->bytes_sent += max - tp->snd_nxt;
	tp->bytes_acked += una - tp->snd_una;
	tp->snd_una = una;
	tp->snd_nxt = max;
	tp->write_seq = max;
	tp->pushed_seq = max;
	tp->snd_up = max;
	tp->snd_sml = max;
	tp->snd_wnd = wnd;
	tp->snd_wl1 = tp->rcv_nxt;
	tp->max_window = max(tp->max_window, wnd);
	if (tp->rx_opt.tstamp_ok) {
		tp->rx_opt.ts_recent = le32_to_cpu(f->ts_recent);
		tp->rx_opt.ts_recent_stamp = ktime_get_seconds();
	}
	tp->rcv_tstamp = tcp_jiffies32;
	tp->lsndtime = tcp_jiffies32;
	tp->tcp_mstamp = tcp_clock_us();
	if ((err && !state) || una != max || err == -ECONNRESET)
		hdc_tcp_reset(hd, sk, err ? err : -EIO);
}

struct hdc_tcp_xfer {
	const struct hdc_extent *x;
	u32 n;
	u64 len;
	struct hdc_net_flow flow;
	bool state;		/* the engine wrote the state back */
};

/* The internal command: the file's extents to the NIC, the flow after. */
static void hdc_tcp_fill(struct hdc_request *r, const void *arg)
{
	const struct hdc_tcp_xfer *c = arg;
	size_t xlen = c->n * sizeof(*c->x);

	hdc_req_nvme_src(r, c->x, c->n, c->len);
	memcpy(r->dbuf + xlen, &c->flow, sizeof(c->flow));
	r->cmd.dst.type = HDC_EP_NIC;
	r->cmd.dst.addr = cpu_to_le64(r->dbuf_dma + xlen);
	/* The state the engine writes back outlives the buffer. */
	r->keep_off = xlen + offsetof(struct hdc_net_flow, snd_wnd);
	r->keep_len = HDC_TCP_OUT_LEN;
}

static void hdc_tcp_done(struct hdc_request *r, void *arg)
{
	struct hdc_tcp_xfer *c = arg;
	struct hdc_net_flow out;

	u32 seq = le32_to_cpu(c->flow.snd_una), una, max;

	memcpy((u8 *)&out + offsetof(struct hdc_net_flow, snd_wnd), r->keep,
	       HDC_TCP_OUT_LEN);
	if (!(le16_to_cpu(out.out_flags) & HDC_NET_OUT_STATE))
		return;
	/* snd_nxt <= snd_una <= snd_max <= snd_nxt + len, or no state */
	una = le32_to_cpu(out.snd_una) - seq;
	max = le32_to_cpu(out.snd_max) - seq;
	if (una > max || max > c->len) {
		dev_err_ratelimited(&r->hd->pdev->dev,
				    "engine returned TCP state out of range (una +%u max +%u of %llu)\n",
				    una, max, c->len);
		return;
	}
	c->flow.snd_wnd = out.snd_wnd;
	c->flow.snd_una = out.snd_una;
	c->flow.snd_max = out.snd_max;
	c->flow.ts_recent = out.ts_recent;
	c->state = true;
}

/*
 * Send [0, len) of the mapped file (@n extents @x) on TCP socket @file:
 * the bytes sent, or -errno.
 */
s64 hdc_tcp_send(struct hdc_dev *hd, struct file *file,
		 const struct hdc_extent *x, u32 n, u64 len)
{
	struct sock *sk = sock_from_file(file)->sk;
	struct hdc_tcp_xfer *c;
	u32 mtu;
	int ret;

	if (!len)
		return 0;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->x = x;
	c->n = n;
	c->len = len;
	ret = hdc_nic_l3(hd, sk, IPPROTO_TCP, &c->flow, &mtu);
	if (!ret && !hd->nic.ack_up) {
		hdc_uerr(hd, "the engine has no ACK queue for TCP\n");
		ret = -ENODEV;
	}
	if (!ret)
		ret = hdc_tcp_hold(hd, sk, false);
	if (ret)
		goto out;
	hdc_tcp_state(sk, &c->flow, mtu);
	hdc_stat_inc(hd, &hd->tcp_sends);
	ret = hdc_nic_steer_tcp(hd, &c->flow);
	if (!ret) {
		ret = hdc_nic_step(hd, n * sizeof(*x) + sizeof(c->flow),
				   hdc_tcp_fill, hdc_tcp_done, c,
				   HDC_TCP_EXEC_MS);
		ret = hdc_gone_err(hd, ret);
		hdc_nic_unsteer(hd);
		hdc_tcp_handback(hd, sk, &c->flow, c->state, ret);
	}
	release_sock(sk);
	if (ret)
		hdc_uerr(hd, "TCP transfer to %pI4:%u failed: %d\n",
			 &inet_sk(sk)->inet_daddr,
			 ntohs(inet_sk(sk)->inet_dport), ret);
out:
	kfree(c);
	return ret ? ret : (s64)len;
}
