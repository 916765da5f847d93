// SPDX-License-Identifier: GPL-2.0
/*
 * hdc: the engine's receive side (docs/hdc.md, "Receiving").  The
 * engine's striding receive queue and its CQ have their rings and records
 * in the engine's BAR4 (HDC_NVMEQ_NIC_RQ / _RCQ) and their buffers in its
 * BAR2; this file creates them through snic's peer-queue API next to the
 * send queue (hdc_nic.c brings both up and down), and runs a receive: a
 * request whose source is a bound UDP/IPv4 socket.  While the engine's
 * command is in flight a steering rule sends the socket's flow (its local
 * address and port; the peer's too if it is connected) to the engine's
 * RQ, so no datagram of it reaches the host's stack; the engine places
 * the payloads into the file's blocks by the offset of each datagram's
 * application header (struct hdc_rx_hdr).
 *
 * One receive at a time per engine (nic.rx_lock).  It ends with the
 * command: complete, a gap (-EREMOTEIO), the timeout or a signal (the
 * driver aborts the engine's receive: -ETIMEDOUT / -EINTR) or the snic
 * going away (its remove callback disables the receive queues: -ENETDOWN).
 */
#include <linux/file.h>
#include <linux/inetdevice.h>
#include <linux/net.h>
#include <net/inet_sock.h>
#include <net/sock.h>
#include "hdc.h"

#define HDC_RX_RULE_PRIO	0x40	/* before fld's, ethtool's, the catch-all */

/* The receive queues on @sd, after the send queues; nic.lock held. */
int hdc_nic_rx_up(struct hdc_dev *hd, struct snic_dev *sd)
{
	struct hdc_nic *nic = &hd->nic;
	u64 bar4 = pci_bus_address(hd->pdev, HDC_BAR_NVMEQ);
	struct snic_peer_cq_attr ca = {
		.ring_bus = bar4 + HDC_NVMEQ_NIC_RCQ,
		.dbr_bus = bar4 + HDC_NVMEQ_NIC_DBR + 12,
		.log_size = HDC_NIC_RCQ_LOG,
	};
	struct snic_peer_rq_attr ra = {
		.ring_bus = bar4 + HDC_NVMEQ_NIC_RQ,
		.dbr_bus = bar4 + HDC_NVMEQ_NIC_DBR + 8,
		.log_size = HDC_NIC_RQ_LOG,
		.type = SNIC_RQ_STRIDING,
		.log_stride_size = HDC_NIC_RX_LOG_STRIDE,
		.log_num_strides = HDC_NIC_RX_LOG_NSTR,
	};
	int ret;

	lockdep_assert_held(&nic->lock);
	if (!(hd->caps & HDC_CAP_NIC_RX))
		return -EOPNOTSUPP;
	/* The buffers and the RQ's producer record first. */
	hdc_wr(hd, HDC_REG_NIC_RX_CTRL, HDC_NIC_RX_ENABLE);
	if (!(hdc_rd(hd, HDC_REG_NIC_RX_STATUS) & 1))
		return -ENOMEM;
	ret = snic_peer_create_cq(sd, &ca, &nic->rcq);
	if (ret)
		goto disable;
	ra.cqn = nic->rcq.qn;
	ret = snic_peer_create_rq(sd, &ra, &nic->rq);
	if (ret) {
		snic_peer_destroy_cq(sd, nic->rcq.qn);
		goto disable;
	}
	nic->rx_up = true;
	return 0;
disable:
	hdc_wr(hd, HDC_REG_NIC_RX_CTRL, HDC_NIC_RX_DISABLE);
	return ret;
}

/*
 * Take the receive queues down (the rule first, so nothing more lands);
 * a receive in flight fails with HDC_ST_ENET.  nic.lock held.
 */
void hdc_nic_rx_down(struct hdc_dev *hd)
{
	struct hdc_nic *nic = &hd->nic;

	lockdep_assert_held(&nic->lock);
	if (nic->have_rule)
		snic_peer_del_rule(nic->sd, nic->rule_id);
	nic->have_rule = false;
	nic->rx_port = 0;
	if (!nic->rx_up)
		return;
	hdc_wr(hd, HDC_REG_NIC_RX_CTRL, HDC_NIC_RX_DISABLE);
	snic_peer_destroy_rq(nic->sd, nic->rq.qn);
	snic_peer_destroy_cq(nic->sd, nic->rcq.qn);
	nic->rx_up = false;
}

/*
 * @file as a source: a UDP/IPv4 socket bound to an address and port of a
 * snic port (connected: only its peer's datagrams).  Other sockets are
 * no sources (-EINVAL, as any file that is not regular; other IPv4
 * protocols -EPROTONOSUPPORT).  Fills @rx and brings
 * the engine's queues up on that port.
 */
int hdc_nic_rx_src(struct hdc_dev *hd, struct file *file,
		   struct hdc_net_rx *rx)
{
	struct socket *sock = sock_from_file(file);
	struct net_device *dev;
	struct inet_sock *inet;
	struct sock *sk;
	int ret;

	if (!sock)
		return -EINVAL;
	sk = sock->sk;
	if (sk->sk_family != AF_INET) {
		hdc_uerr(hd, "socket source is not an IPv4 socket\n");
		return -EINVAL;
	}
	/* Like a raw socket: the datagrams pass no netfilter, tc or BPF. */
	if (!capable(CAP_NET_RAW)) {
		hdc_uerr(hd, "socket sources need CAP_NET_RAW\n");
		return -EPERM;
	}
	if (sk->sk_type != SOCK_DGRAM || sk->sk_protocol != IPPROTO_UDP) {
		hdc_uerr(hd, "socket source is not UDP over IPv4\n");
		return -EPROTONOSUPPORT;
	}
	memset(rx, 0, sizeof(*rx));
	lock_sock(sk);
	inet = inet_sk(sk);
	rx->proto = HDC_NET_UDP;
	rx->dst_ip = inet->inet_rcv_saddr;
	rx->dst_port = inet->inet_sport;
	if (sk->sk_state == TCP_ESTABLISHED) {
		rx->src_ip = inet->inet_daddr;
		rx->src_port = inet->inet_dport;
	}
	release_sock(sk);
	if (!rx->dst_port || !rx->dst_ip) {
		hdc_uerr(hd, "socket source is not bound to an address and port\n");
		return -EDESTADDRREQ;
	}
	dev = ip_dev_find(sock_net(sk), rx->dst_ip);
	if (!dev) {
		hdc_uerr(hd, "%pI4 is no local address\n", &rx->dst_ip);
		return -EADDRNOTAVAIL;
	}
	ret = hdc_nic_bind(hd, dev);
	dev_put(dev);
	if (!ret && !READ_ONCE(hd->nic.rx_up)) {
		hdc_uerr(hd, "the engine has no receive queues\n");
		ret = -EOPNOTSUPP;
	}
	return ret;
}

/* Steer the receive's flow to the engine's RQ; nic.lock held. */
static int hdc_nic_rx_rule(struct hdc_dev *hd, const struct hdc_net_rx *rx)
{
	struct hdc_nic *nic = &hd->nic;
	struct snic_steer_rule r = {};
	u32 match = SNIC_MATCH_IP_PROTO | SNIC_MATCH_DST_IP |
		    SNIC_MATCH_DST_PORT;
	int ret;

	lockdep_assert_held(&nic->lock);
	if (!nic->rx_up)
		return -ENETDOWN;
	if (rx->src_ip)
		match |= SNIC_MATCH_SRC_IP | SNIC_MATCH_SRC_PORT;
	r.match = cpu_to_le32(match);
	r.priority = cpu_to_le16(HDC_RX_RULE_PRIO);
	r.dest = SNIC_DEST_RQ;
	r.actions = SNIC_ACT_COUNT;
	r.dest_id = cpu_to_le32(nic->rq.qn);
	r.ip_proto = IPPROTO_UDP;
	r.dst_ip = rx->dst_ip;
	r.dst_ip_mask = htonl(0xffffffff);
	r.dst_port = rx->dst_port;
	r.src_ip = rx->src_ip;
	r.src_ip_mask = rx->src_ip ? htonl(0xffffffff) : 0;
	r.src_port = rx->src_port;
	ret = snic_peer_add_rule(nic->sd, &r, &nic->rule_id);
	if (!ret) {
		nic->have_rule = true;
		nic->rx_port = ntohs(rx->dst_port);
	}
	return ret;
}

static void hdc_nic_rx_unrule(struct hdc_dev *hd)
{
	struct hdc_nic *nic = &hd->nic;

	mutex_lock(&nic->lock);
	if (nic->have_rule)
		snic_peer_del_rule(nic->sd, nic->rule_id);
	nic->have_rule = false;
	nic->rx_port = 0;
	mutex_unlock(&nic->lock);
}

/* Stop the engine's receive now (timeout, signal, no rule). */
static void hdc_nic_rx_abort(struct hdc_dev *hd)
{
	down_read(&hd->gone_lock);
	if (!hd->gone)
		hdc_wr(hd, HDC_REG_NIC_RX_CTRL, HDC_NIC_RX_ABORT);
	up_read(&hd->gone_lock);
}

/*
 * Run a built receive request to its end: queue it, steer the flow to
 * the engine, wait up to @timeout_ms (0: no limit).  Returns 0 or -errno;
 * req->rx_report holds what the engine reported either way.
 */
int hdc_nic_rx_exec(struct hdc_request *req, u32 timeout_ms)
{
	struct hdc_dev *hd = req->hd;
	struct hdc_nic *nic = &hd->nic;
	long drain = msecs_to_jiffies(HDC_DRAIN_TIMEOUT_MS);
	long left, tmo = timeout_ms ? msecs_to_jiffies(timeout_ms) :
			 MAX_SCHEDULE_TIMEOUT;
	int ret, why = 0;

	if (!mutex_trylock(&nic->rx_lock)) {
		hdc_uerr(hd, "another receive is running\n");
		hdc_build_cancel(req);
		return -EBUSY;
	}
	ret = hdc_build_submit(req);
	if (ret)
		goto out;
	mutex_lock(&nic->lock);
	ret = hdc_nic_rx_rule(hd, &req->rx);
	mutex_unlock(&nic->lock);
	if (ret) {
		hdc_uerr(hd, "cannot steer port %u to the engine: %d\n",
			 ntohs(req->rx.dst_port), ret);
		why = ret;
		hdc_nic_rx_abort(hd);
		tmo = 0;
	}
	left = tmo ? wait_for_completion_interruptible_timeout(&req->done, tmo)
		   : 0;
	if (left <= 0) {
		if (!why)
			why = left ? -EINTR : -ETIMEDOUT;
		hdc_nic_rx_abort(hd);
		left = wait_for_completion_timeout(&req->done, drain);
	}
	hdc_nic_rx_unrule(hd);
	if (!left) {
		dev_err(&hd->pdev->dev, "receive did not stop\n");
		ret = -EIO;
		goto out;
	}
	ret = req->err;
	if (why && (!ret || ret == -ETIMEDOUT))
		ret = why;
out:
	mutex_unlock(&nic->rx_lock);
	return ret;
}
