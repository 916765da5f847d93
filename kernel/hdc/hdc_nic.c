// SPDX-License-Identifier: GPL-2.0
/*
 * hdc: the engine's NIC side (docs/hdc.md, "NIC queues").  All use of
 * snic's peer-queue API is in this file: the engine's send queue and its
 * completion queue have their rings and doorbell records in the engine's
 * BAR4 (HDC_NVMEQ_NIC_*); this file creates them on the snic port the
 * first socket's route leaves by, names them to the engine
 * (HDC_REG_NIC_*) and destroys them when the engine goes away or the
 * snic does.  hdc reaches a snic as the auxiliary driver of its
 * snic.peer_hdc.N device (docs/snic.md "Binding"): probe adds the snic to
 * the ones an engine may use, remove takes every engine's queues off it
 * while the snic still works.
 *
 * A socket endpoint: a connected UDP/IPv4 socket.  Its addresses and
 * ports, the route's device and MTU and the next hop's MAC (neighbour
 * table, resolved here if needed) become the flow's header template
 * (struct hdc_net_flow); the engine sends the data in datagrams headed
 * by it, with no per-datagram host work.  The socket's own queues are not
 * used: nothing of the data passes the host's network stack.
 *
 * With the send queue come the ACK queue (a plain RQ and its CQ) in
 * BAR4, for the ACKs of TCP transfers (hdc_tcp.c), which steer their
 * flow to it, and the striding receive queues of sockets as sources
 * (HDC_NVMEQ_NIC_RQ / _RCQ, buffers in BAR2), whose receives hdc_nic_rx.c
 * runs with the steering rule made here.
 */
#include <linux/auxiliary_bus.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/file.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/net.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/arp.h>
#include <net/inet_sock.h>
#include <net/ip.h>
#include <net/neighbour.h>
#include <net/route.h>
#include <net/sock.h>
#include <d2d/snic_peer.h>
#include "hdc.h"

#define HDC_NEIGH_WAIT_MS	3000
/* Steering rules to the engine: before fld's, ethtool's, the catch-all */
#define HDC_NIC_RULE_PRIO	0x40

/* A snic bound to hdc's snic.peer_hdc driver. */
struct hdc_nic_snic {
	struct list_head node;
	struct snic_peer *snic;
};

/*
 * hdc_nic_mutex: the bound snics and the engines with queues on one; taken
 * before an engine's nic.lock.
 */
static DEFINE_MUTEX(hdc_nic_mutex);
static LIST_HEAD(hdc_nic_snics);	/* struct hdc_nic_snic */
static LIST_HEAD(hdc_nic_engines);	/* struct hdc_nic, queues up */

/* A receive queue and its CQ in BAR4 (HDC_NVMEQ_NIC_*): where and how big. */
struct hdc_nic_rq_layout {
	u32 cq_ring, cq_dbr, rq_ring, rq_dbr;
	u8 cq_log, rq_log, type, log_stride_size, log_num_strides;
};

/* TCP segments (ACKs, received data) for the engine */
static const struct hdc_nic_rq_layout hdc_nic_ack_layout = {
	.cq_ring = HDC_NVMEQ_NIC_ARCQ, .cq_dbr = HDC_NVMEQ_NIC_DBR + 20,
	.rq_ring = HDC_NVMEQ_NIC_ARQ, .rq_dbr = HDC_NVMEQ_NIC_DBR + 16,
	.cq_log = HDC_NIC_ARQ_LOG, .rq_log = HDC_NIC_ARQ_LOG,
	.type = SNIC_RQ_PLAIN,
};

/* UDP datagrams for a receive request */
static const struct hdc_nic_rq_layout hdc_nic_rx_layout = {
	.cq_ring = HDC_NVMEQ_NIC_RCQ, .cq_dbr = HDC_NVMEQ_NIC_DBR + 12,
	.rq_ring = HDC_NVMEQ_NIC_RQ, .rq_dbr = HDC_NVMEQ_NIC_DBR + 8,
	.cq_log = HDC_NIC_RCQ_LOG, .rq_log = HDC_NIC_RQ_LOG,
	.type = SNIC_RQ_STRIDING,
	.log_stride_size = HDC_NIC_RX_LOG_STRIDE,
	.log_num_strides = HDC_NIC_RX_LOG_NSTR,
};

/* The receive queue of @l on a CQ of its own, on @snic: both or neither. */
static int hdc_nic_rq_pair_create(struct hdc_dev *hd, struct snic_peer *snic,
				  const struct hdc_nic_rq_layout *l,
				  struct snic_peer_queue *cq,
				  struct snic_peer_queue *rq)
{
	u64 bar4 = pci_bus_address(hd->pdev, HDC_BAR_NVMEQ);
	struct snic_peer_cq_attr ca = {
		.ring_bus = bar4 + l->cq_ring,
		.dbr_bus = bar4 + l->cq_dbr,
		.log_size = l->cq_log,
	};
	struct snic_peer_rq_attr ra = {
		.ring_bus = bar4 + l->rq_ring,
		.dbr_bus = bar4 + l->rq_dbr,
		.log_size = l->rq_log,
		.type = l->type,
		.log_stride_size = l->log_stride_size,
		.log_num_strides = l->log_num_strides,
	};
	int ret;

	ret = snic_peer_create_cq(snic, &ca, cq);
	if (ret)
		return ret;
	ra.cqn = cq->qn;
	ret = snic_peer_create_rq(snic, &ra, rq);
	if (ret)
		snic_peer_destroy_cq(snic, cq->qn);
	return ret;
}

static void hdc_nic_rq_pair_destroy(struct snic_peer *snic,
				    const struct snic_peer_queue *cq,
				    const struct snic_peer_queue *rq)
{
	snic_peer_destroy_rq(snic, rq->qn);
	snic_peer_destroy_cq(snic, cq->qn);
}

/* Delete the steering rule @id if @have says there is one. */
static void hdc_nic_rule_del(struct hdc_nic *nic, bool *have, u32 id)
{
	if (*have)
		snic_peer_del_rule(nic->snic, id);
	*have = false;
}

/*
 * The ACK queue (TCP ACKs to the engine) and its CQ, with the engine's
 * NIC queues; nic.lock.
 */
static int hdc_nic_ack_up(struct hdc_dev *hd, struct snic_peer *snic)
{
	struct hdc_nic *nic = &hd->nic;
	int ret;

	lockdep_assert_held(&nic->lock);
	nic->ack_up = false;
	nic->ack_rule = false;
	if (!(hd->caps & HDC_CAP_TCP))
		return 0;
	ret = hdc_nic_rq_pair_create(hd, snic, &hdc_nic_ack_layout,
				     &nic->ack_rcq, &nic->ack_rq);
	if (ret)
		goto fail;
	hdc_wr(hd, HDC_REG_NIC_ARQN, nic->ack_rq.qn);
	hdc_wr(hd, HDC_REG_NIC_ARQ_DB_LO, lower_32_bits(nic->ack_rq.db_bus));
	hdc_wr(hd, HDC_REG_NIC_ARQ_DB_HI, upper_32_bits(nic->ack_rq.db_bus));
	nic->ack_up = true;
	return 0;
fail:
	/* UDP still works; TCP destinations get ENODEV. */
	dev_warn(&hd->pdev->dev, "no NIC ACK queue for TCP: %d\n", ret);
	hdc_wr(hd, HDC_REG_NIC_ARQ_DB_LO, 0);
	hdc_wr(hd, HDC_REG_NIC_ARQ_DB_HI, 0);
	return ret;
}

/* After HDC_NIC_DISABLE: the rule of a TCP transfer, the ACK RQ, its CQ. */
static void hdc_nic_ack_down(struct hdc_dev *hd)
{
	struct hdc_nic *nic = &hd->nic;

	lockdep_assert_held(&nic->lock);
	hdc_nic_rule_del(nic, &nic->ack_rule, nic->ack_rule_id);
	if (!nic->ack_up)
		return;
	hdc_nic_rq_pair_destroy(nic->snic, &nic->ack_rcq, &nic->ack_rq);
	nic->ack_up = false;
}

/* Steer a TCP flow's segments (peer -> us) to the engine's ACK RQ. */
int hdc_nic_steer_tcp(struct hdc_dev *hd, const struct hdc_net_flow *f)
{
	const struct iphdr *iph = (const void *)(f->hdr + f->l3_off);
	const struct tcphdr *th = (const void *)(f->hdr + f->l4_off);
	struct hdc_nic *nic = &hd->nic;
	struct snic_steer_rule r = {
		.match = cpu_to_le32(SNIC_MATCH_IP_PROTO | SNIC_MATCH_SRC_IP |
				     SNIC_MATCH_DST_IP | SNIC_MATCH_SRC_PORT |
				     SNIC_MATCH_DST_PORT),
		.priority = cpu_to_le16(HDC_NIC_RULE_PRIO),
		.dest = SNIC_DEST_RQ,
		.src_ip = iph->daddr,
		.src_ip_mask = htonl(0xffffffff),
		.dst_ip = iph->saddr,
		.dst_ip_mask = htonl(0xffffffff),
		.src_port = th->dest,
		.dst_port = th->source,
		.ip_proto = IPPROTO_TCP,
	};
	int ret = -ENODEV;

	mutex_lock(&nic->lock);
	if (nic->snic && nic->ack_up && !nic->ack_rule) {
		r.dest_id = cpu_to_le32(nic->ack_rq.qn);
		ret = snic_peer_add_rule(nic->snic, &r, &nic->ack_rule_id);
		nic->ack_rule = !ret;
	}
	mutex_unlock(&nic->lock);
	if (ret)
		hdc_uerr(hd, "cannot steer the TCP flow to the engine: %d\n",
			 ret);
	return ret;
}

void hdc_nic_unsteer(struct hdc_dev *hd)
{
	struct hdc_nic *nic = &hd->nic;

	mutex_lock(&nic->lock);
	if (nic->snic)
		hdc_nic_rule_del(nic, &nic->ack_rule, nic->ack_rule_id);
	mutex_unlock(&nic->lock);
}

/* The receive queues on @snic, after the send queues; nic.lock held. */
static int hdc_nic_rx_up(struct hdc_dev *hd, struct snic_peer *snic)
{
	struct hdc_nic *nic = &hd->nic;
	int ret;

	lockdep_assert_held(&nic->lock);
	if (!(hd->caps & HDC_CAP_NIC_RX))
		return -EOPNOTSUPP;
	/* The buffers and the RQ's producer record first. */
	hdc_wr(hd, HDC_REG_NIC_RX_CTRL, HDC_NIC_RX_ENABLE);
	if (!(hdc_rd(hd, HDC_REG_NIC_RX_STATUS) & 1))
		return -ENOMEM;
	ret = hdc_nic_rq_pair_create(hd, snic, &hdc_nic_rx_layout, &nic->rcq,
				     &nic->rq);
	if (ret)
		goto disable;
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
static void hdc_nic_rx_down(struct hdc_dev *hd)
{
	struct hdc_nic *nic = &hd->nic;

	lockdep_assert_held(&nic->lock);
	hdc_nic_rule_del(nic, &nic->have_rule, nic->rule_id);
	nic->rx_port = 0;
	if (!nic->rx_up)
		return;
	hdc_wr(hd, HDC_REG_NIC_RX_CTRL, HDC_NIC_RX_DISABLE);
	hdc_nic_rq_pair_destroy(nic->snic, &nic->rcq, &nic->rq);
	nic->rx_up = false;
}

/* Bring the engine's NIC queues up on @snic; nic.lock held. */
static int hdc_nic_up(struct hdc_dev *hd, struct snic_peer *snic,
		      const char *ifname)
{
	struct hdc_nic *nic = &hd->nic;
	u64 bar4 = pci_bus_address(hd->pdev, HDC_BAR_NVMEQ);
	struct snic_peer_cq_attr ca = {
		.ring_bus = bar4 + HDC_NVMEQ_NIC_CQ,
		.dbr_bus = bar4 + HDC_NVMEQ_NIC_DBR + 4,
		.log_size = HDC_NIC_CQ_LOG,
	};
	struct snic_peer_sq_attr sa = {
		.ring_bus = bar4 + HDC_NVMEQ_NIC_SQ,
		.dbr_bus = bar4 + HDC_NVMEQ_NIC_DBR,
		.log_size = HDC_NIC_SQ_LOG,
	};
	int ret;

	lockdep_assert_held(&hdc_nic_mutex);
	lockdep_assert_held(&nic->lock);
	ret = snic_peer_create_cq(snic, &ca, &nic->cq);
	if (ret)
		return ret;
	sa.cqn = nic->cq.qn;
	ret = snic_peer_create_sq(snic, &sa, &nic->sq);
	if (ret) {
		snic_peer_destroy_cq(snic, nic->cq.qn);
		return ret;
	}
	nic->snic = snic;
	hdc_nic_ack_up(hd, snic);
	hdc_wr(hd, HDC_REG_NIC_SQN, nic->sq.qn);
	hdc_wr(hd, HDC_REG_NIC_DB_LO, lower_32_bits(nic->sq.db_bus));
	hdc_wr(hd, HDC_REG_NIC_DB_HI, upper_32_bits(nic->sq.db_bus));
	hdc_wr(hd, HDC_REG_NIC_CTRL, HDC_NIC_ENABLE);
	if (!(hdc_rd(hd, HDC_REG_NIC_STATUS) & 1)) {
		hdc_nic_ack_down(hd);
		snic_peer_destroy_sq(snic, nic->sq.qn);
		snic_peer_destroy_cq(snic, nic->cq.qn);
		nic->snic = NULL;
		return -EIO;
	}
	ret = hdc_nic_rx_up(hd, snic);
	if (ret && ret != -EOPNOTSUPP)
		dev_warn(&hd->pdev->dev, "no receive queues on %s: %d\n",
			 ifname, ret);
	list_add(&nic->node, &hdc_nic_engines);
	strscpy(nic->ifname, ifname, sizeof(nic->ifname));
	dev_info(&hd->pdev->dev, "NIC queues on %s: snic sq %u cq %u\n",
		 ifname, nic->sq.qn, nic->cq.qn);
	return 0;
}

void hdc_nic_init(struct hdc_dev *hd)
{
	mutex_init(&hd->nic.lock);
	mutex_init(&hd->nic.sw_lock);
	mutex_init(&hd->nic.rx_lock);
}

/* Stop the engine using the queues, then destroy them; both locks held. */
static void hdc_nic_down(struct hdc_nic *nic)
{
	struct hdc_dev *hd = container_of(nic, struct hdc_dev, nic);

	lockdep_assert_held(&hdc_nic_mutex);
	lockdep_assert_held(&nic->lock);
	if (!nic->snic)
		return;
	hdc_nic_rx_down(hd);
	hdc_wr(hd, HDC_REG_NIC_CTRL, HDC_NIC_DISABLE);
	hdc_nic_ack_down(hd);
	snic_peer_destroy_sq(nic->snic, nic->sq.qn);
	snic_peer_destroy_cq(nic->snic, nic->cq.qn);
	list_del(&nic->node);
	nic->snic = NULL;
}

/* The engine goes away: its NIC queues first. */
void hdc_nic_detach(struct hdc_dev *hd)
{
	mutex_lock(&hdc_nic_mutex);
	mutex_lock(&hd->nic.lock);
	hdc_nic_down(&hd->nic);
	mutex_unlock(&hd->nic.lock);
	mutex_unlock(&hdc_nic_mutex);
}

/* The engine's queues on @dev's snic (set up on first use). */
int hdc_nic_bind(struct hdc_dev *hd, struct net_device *dev)
{
	struct hdc_nic *nic = &hd->nic;
	struct hdc_nic_snic *p;
	struct snic_peer *snic = NULL;
	int ret = 0;

	if (!(hd->caps & HDC_CAP_NIC)) {
		hdc_uerr(hd, "this engine has no NIC side\n");
		return -EOPNOTSUPP;
	}
	mutex_lock(&hdc_nic_mutex);
	mutex_lock(&nic->lock);
	/* Removed: hdc_nic_detach() took the queues or is about to. */
	if (READ_ONCE(hd->gone)) {
		ret = -ENODEV;
		goto out;
	}
	if (nic->snic) {
		if (strcmp(nic->ifname, dev->name)) {
			hdc_uerr(hd, "socket routed via %s; engine NIC queues on %s\n",
				 dev->name, nic->ifname);
			ret = -EXDEV;
		}
		goto out;
	}
	list_for_each_entry(p, &hdc_nic_snics, node) {
		if (snic_peer_netdev(p->snic) == dev) {
			snic = p->snic;
			break;
		}
	}
	if (!snic) {
		hdc_uerr(hd, "socket's route leaves by %s, not a snic port\n",
			 dev->name);
		ret = -EOPNOTSUPP;
		goto out;
	}
	ret = hdc_nic_up(hd, snic, dev->name);
	if (ret)
		hdc_uerr(hd, "cannot create the NIC queues on %s: %d\n",
			 dev->name, ret);
out:
	mutex_unlock(&nic->lock);
	mutex_unlock(&hdc_nic_mutex);
	return ret;
}

/* The next hop's MAC, resolving it (ARP) if the table has none yet. */
static int hdc_nic_neigh(struct hdc_dev *hd, struct net_device *dev,
			 __be32 nexthop, u8 *ha)
{
	struct neighbour *n;
	int i;

	n = neigh_lookup(&arp_tbl, &nexthop, dev);
	if (!n) {
		n = neigh_create(&arp_tbl, &nexthop, dev);
		if (IS_ERR(n))
			return PTR_ERR(n);
	}
	for (i = 0; i < HDC_NEIGH_WAIT_MS / 20; i++) {
		if (READ_ONCE(n->nud_state) & NUD_VALID)
			break;
		neigh_event_send(n, NULL);
		if (msleep_interruptible(20))
			break;
	}
	if (!(READ_ONCE(n->nud_state) & NUD_VALID)) {
		neigh_release(n);
		hdc_uerr(hd, "no MAC address for next hop %pI4 on %s\n",
			 &nexthop, dev->name);
		return -EHOSTUNREACH;
	}
	neigh_ha_snapshot(ha, n, dev);
	neigh_release(n);
	return 0;
}

/*
 * The Ethernet and IPv4 headers of connected socket @sk's flow (@proto)
 * into @f->hdr: its addresses, TOS and TTL, routed as the socket would
 * be, with the next hop's MAC; the engine's queues are set up on the
 * route's snic port.  f->l3_off and l4_off are set, *mtu is the route's.
 */
int hdc_nic_l3(struct hdc_dev *hd, struct sock *sk, u8 proto,
	       struct hdc_net_flow *f, u32 *mtu)
{
	struct ethhdr *eth = (struct ethhdr *)f->hdr;
	struct iphdr *iph = (struct iphdr *)(f->hdr + ETH_HLEN);
	__be32 daddr, saddr, nexthop;
	__be16 sport, dport;
	struct inet_sock *inet;
	struct net_device *dev;
	struct flowi4 fl4;
	struct rtable *rt;
	u8 ha[ETH_ALEN];
	int ttl, ret;
	u8 tos;

	lock_sock(sk);
	inet = inet_sk(sk);
	daddr = inet->inet_daddr;
	saddr = inet->inet_saddr;
	sport = inet->inet_sport;
	dport = inet->inet_dport;
	tos = inet->tos;
	ttl = inet->uc_ttl;
	ret = (sk->sk_state == TCP_ESTABLISHED ||
	       (proto == IPPROTO_TCP && sk->sk_state == TCP_CLOSE_WAIT)) &&
	      daddr && dport ? 0 : -ENOTCONN;
	release_sock(sk);
	if (ret) {
		hdc_uerr(hd, "socket destination is not connected\n");
		return ret;
	}
	rt = ip_route_output_ports(sock_net(sk), &fl4, sk, daddr, saddr, dport,
				   sport, proto, RT_TOS(tos),
				   sk->sk_bound_dev_if);
	if (IS_ERR(rt)) {
		hdc_uerr(hd, "no route to %pI4\n", &daddr);
		return PTR_ERR(rt);
	}
	dev = rt->dst.dev;
	nexthop = rt_nexthop(rt, daddr);
	*mtu = dst_mtu(&rt->dst);
	if (ttl < 0)
		ttl = ip4_dst_hoplimit(&rt->dst);
	if (!saddr)
		saddr = fl4.saddr;
	dev_hold(dev);
	ip_rt_put(rt);
	ret = hdc_nic_bind(hd, dev);
	if (!ret)
		ret = hdc_nic_neigh(hd, dev, nexthop, ha);
	if (!ret && *mtu <= sizeof(*iph) + sizeof(struct tcphdr)) {
		hdc_uerr(hd, "MTU %u of %s too small\n", *mtu, dev->name);
		ret = -EMSGSIZE;
	}
	if (ret) {
		dev_put(dev);
		return ret;
	}

	memset(f, 0, sizeof(*f));
	f->l3_off = ETH_HLEN;
	f->l4_off = ETH_HLEN + sizeof(*iph);
	ether_addr_copy(eth->h_dest, ha);
	ether_addr_copy(eth->h_source, dev->dev_addr);
	eth->h_proto = htons(ETH_P_IP);
	dev_put(dev);
	iph->version = 4;
	iph->ihl = 5;
	iph->tos = tos;
	iph->id = htons(get_random_u16());
	iph->frag_off = htons(IP_DF);
	iph->ttl = ttl;
	iph->protocol = proto;
	iph->saddr = saddr;
	iph->daddr = daddr;
	((__be16 *)(f->hdr + f->l4_off))[0] = sport;
	((__be16 *)(f->hdr + f->l4_off))[1] = dport;
	return 0;
}

/*
 * @file as a destination: a connected UDP/IPv4 socket whose route leaves
 * by a snic port.  Fills @f with the flow's header template.
 */
int hdc_nic_flow(struct hdc_dev *hd, struct file *file,
		 struct hdc_net_flow *f)
{
	struct socket *sock = sock_from_file(file);
	struct sock *sk;
	u32 mtu;
	int ret;

	if (!sock)
		return -EINVAL;
	/* Like a raw socket: the datagrams pass no netfilter, tc or BPF. */
	if (!capable(CAP_NET_RAW)) {
		hdc_uerr(hd, "socket destinations need CAP_NET_RAW\n");
		return -EPERM;
	}
	sk = sock->sk;
	if (sk->sk_family != AF_INET || sk->sk_type != SOCK_DGRAM ||
	    sk->sk_protocol != IPPROTO_UDP) {
		hdc_uerr(hd, "socket destination is not UDP or TCP over IPv4\n");
		return -EPROTONOSUPPORT;
	}
	ret = hdc_nic_l3(hd, sk, IPPROTO_UDP, f, &mtu);
	if (ret)
		return ret;
	f->proto = HDC_NET_UDP;
	f->hdr_len = f->l4_off + sizeof(struct udphdr);
	f->mss = cpu_to_le16(min_t(u32, mtu - sizeof(struct iphdr) -
				   sizeof(struct udphdr), HDC_NET_MSS_MAX));
	return 0;
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

/* Steer a receive's flow (@rx) to the engine's striding RQ; nic.lock held. */
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
	r.priority = cpu_to_le16(HDC_NIC_RULE_PRIO);
	r.dest = SNIC_DEST_RQ;
	r.actions = SNIC_ACT_COUNT;
	r.dest_id = cpu_to_le32(nic->rq.qn);
	r.ip_proto = rx->proto;		/* HDC_NET_UDP/_TCP: IPPROTO_* */
	r.dst_ip = rx->dst_ip;
	r.dst_ip_mask = htonl(0xffffffff);
	r.dst_port = rx->dst_port;
	r.src_ip = rx->src_ip;
	r.src_ip_mask = rx->src_ip ? htonl(0xffffffff) : 0;
	r.src_port = rx->src_port;
	ret = snic_peer_add_rule(nic->snic, &r, &nic->rule_id);
	if (!ret) {
		nic->have_rule = true;
		nic->rx_port = ntohs(rx->dst_port);
	}
	return ret;
}

void hdc_nic_rx_unsteer(struct hdc_dev *hd)
{
	struct hdc_nic *nic = &hd->nic;

	mutex_lock(&nic->lock);
	hdc_nic_rule_del(nic, &nic->have_rule, nic->rule_id);
	nic->rx_port = 0;
	mutex_unlock(&nic->lock);
}

int hdc_nic_rx_steer(struct hdc_dev *hd, const struct hdc_net_rx *rx)
{
	int ret;

	mutex_lock(&hd->nic.lock);
	ret = hdc_nic_rx_rule(hd, rx);
	mutex_unlock(&hd->nic.lock);
	return ret;
}

/*
 * The bytes [off, off + len) of the stream of extents @x (as the engine
 * reads a source: each extent's blocks less its skip) as extents of their
 * own in @out (room for @max); the number written, or -E2BIG.
 */
D2D_VISIBLE_IF_KUNIT int hdc_ext_slice(const struct hdc_extent *x, u32 n,
				       u32 shift, u64 off, u64 len,
				       struct hdc_extent *out, u32 max)
{
	u32 i, k = 0, bs = 1u << shift;

	for (i = 0; i < n && len; i++) {
		u64 skip = le16_to_cpu(x[i].skip);
		u64 bytes = ((u64)le32_to_cpu(x[i].nlb) << shift) - skip;
		u64 first, take, end;

		if (off >= bytes) {
			off -= bytes;
			continue;
		}
		if (k == max)
			return -E2BIG;
		first = skip + off;		/* byte in the extent's blocks */
		take = min(bytes - off, len);
		end = first + take;
		out[k].lba = cpu_to_le64(le64_to_cpu(x[i].lba) + (first >> shift));
		out[k].nlb = cpu_to_le32(DIV_ROUND_UP(end, bs) - (first >> shift));
		out[k].skip = cpu_to_le16(first & (bs - 1));
		out[k].flags = x[i].flags;
		k++;
		len -= take;
		off = 0;
	}
	return k;
}

/*
 * One internal command with @dlen bytes of coherent buffer, built by
 * @fill, run to the end (at most @ms); @done (if any) sees it after,
 * if it completed.
 */
int hdc_nic_step(struct hdc_dev *hd, size_t dlen,
		 void (*fill)(struct hdc_request *r, const void *arg),
		 void (*done)(struct hdc_request *r, void *arg), void *arg,
		 unsigned int ms)
{
	struct hdc_request *r = hdc_req_alloc(hd);
	int ret;

	if (!r)
		return -ENOMEM;
	ret = hdc_req_alloc_dbuf(r, dlen);
	if (!ret) {
		fill(r, arg);
		ret = hdc_req_exec_timeout(r, ms);
		if (done && completion_done(&r->done))
			done(r, arg);
	}
	hdc_req_put(r);
	return ret;
}

struct hdc_sw_chunk {
	const struct hdc_extent *x;
	u32 n;
	u64 len;
	const struct hdc_net_flow *flow;
};

/* SSD extents -> the device buffer. */
static void hdc_sw_read(struct hdc_request *r, const void *arg)
{
	const struct hdc_sw_chunk *c = arg;

	hdc_req_nvme_src(r, c->x, c->n, c->len);
	r->cmd.dst.type = HDC_EP_DEVBUF;
	r->cmd.dst.count = cpu_to_le32(HDC_CHUNK_SIZE);
}

/* The device buffer -> the NIC. */
static void hdc_sw_send(struct hdc_request *r, const void *arg)
{
	const struct hdc_sw_chunk *c = arg;

	memcpy(r->dbuf, c->flow, sizeof(*c->flow));
	r->length = c->len;
	r->cmd.opcode = HDC_OP_TRANSFER;
	r->cmd.length = cpu_to_le64(c->len);
	r->cmd.src.type = HDC_EP_DEVBUF;
	r->cmd.src.count = cpu_to_le32(c->len);
	r->cmd.dst.type = HDC_EP_NIC;
	r->cmd.dst.addr = cpu_to_le64(r->dbuf_dma);
}

/*
 * The software-controlled peer-to-peer baseline (HDC_REQ_SW_P2P): the
 * driver, not the engine's scoreboard, runs the transfer one 64 KiB
 * chunk at a time - an SSD read into the engine's device buffer, its
 * completion interrupt, then the send of that buffer on the engine's NIC
 * queue and its completion interrupt - with the IPv4 ids running on
 * across chunks.  Returns the bytes sent or -errno.
 */
s64 hdc_nic_sw_p2p(struct hdc_dev *hd, const struct hdc_extent *x, u32 n,
		   u64 len, struct hdc_net_flow *flow)
{
	struct hdc_extent *sub;
	struct iphdr *iph = (struct iphdr *)(flow->hdr + flow->l3_off);
	u32 max = HDC_CHUNK_SIZE / 512 + 2, mss = le16_to_cpu(flow->mss);
	u64 off = 0, step = HDC_CHUNK_SIZE - HDC_CHUNK_SIZE % mss;
	int ret = 0;

	sub = kcalloc(max, sizeof(*sub), GFP_KERNEL);
	if (!sub)
		return -ENOMEM;
	mutex_lock(&hd->nic.sw_lock);
	while (off < len && !ret) {
		struct hdc_sw_chunk c = { .x = sub, .flow = flow,
					  .len = min(step, len - off) };

		ret = hdc_ext_slice(x, n, hd->nvme.lba_shift, off, c.len, sub,
				    max);
		if (ret < 0)
			break;
		c.n = ret;
		ret = hdc_nic_step(hd, c.n * sizeof(*sub), hdc_sw_read, NULL,
				   &c, HDC_EXEC_TIMEOUT_MS);
		if (!ret)
			ret = hdc_nic_step(hd, sizeof(*flow), hdc_sw_send, NULL,
					   &c, HDC_EXEC_TIMEOUT_MS);
		off += c.len;
		iph->id = htons(ntohs(iph->id) + DIV_ROUND_UP(c.len, mss));
	}
	mutex_unlock(&hd->nic.sw_lock);
	kfree(sub);
	return ret ? ret : (s64)len;
}

static int hdc_nic_probe(struct auxiliary_device *adev,
			 const struct auxiliary_device_id *id)
{
	struct hdc_nic_snic *p = kzalloc(sizeof(*p), GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	p->snic = snic_peer_dev(adev);
	auxiliary_set_drvdata(adev, p);
	mutex_lock(&hdc_nic_mutex);
	list_add(&p->node, &hdc_nic_snics);
	mutex_unlock(&hdc_nic_mutex);
	return 0;
}

/* The snic goes: every engine's queues on it first, while it works. */
static void hdc_nic_remove(struct auxiliary_device *adev)
{
	struct hdc_nic_snic *p = auxiliary_get_drvdata(adev);
	struct hdc_nic *nic, *tmp;

	mutex_lock(&hdc_nic_mutex);
	list_del(&p->node);
	list_for_each_entry_safe(nic, tmp, &hdc_nic_engines, node) {
		if (nic->snic != p->snic)
			continue;
		mutex_lock(&nic->lock);
		dev_info(&container_of(nic, struct hdc_dev, nic)->pdev->dev,
			 "NIC queues on %s removed with the snic\n", nic->ifname);
		hdc_nic_down(nic);
		mutex_unlock(&nic->lock);
	}
	mutex_unlock(&hdc_nic_mutex);
	kfree(p);
}

static const struct auxiliary_device_id hdc_nic_ids[] = {
	{ .name = "snic.peer_hdc" },
	{ }
};
MODULE_DEVICE_TABLE(auxiliary, hdc_nic_ids);

static struct auxiliary_driver hdc_nic_driver = {
	.name = "snic",
	.probe = hdc_nic_probe,
	.remove = hdc_nic_remove,
	.id_table = hdc_nic_ids,
};

int hdc_nic_register(void)
{
	return auxiliary_driver_register(&hdc_nic_driver);
}

void hdc_nic_unregister(void)
{
	auxiliary_driver_unregister(&hdc_nic_driver);
}
