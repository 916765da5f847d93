// SPDX-License-Identifier: GPL-2.0
/*
 * hdc: the engine's NIC side (docs/hdc.md, "NIC queues").  All use of
 * snic's peer-queue API is in this file: the engine's send queue and its
 * completion queue have their rings and doorbell records in the engine's
 * BAR4 (HDC_NVMEQ_NIC_*); this file creates them on the snic port the
 * first socket's route leaves by, names them to the engine
 * (HDC_REG_NIC_*) and destroys them when the engine goes away.
 *
 * A socket endpoint: a connected UDP/IPv4 socket.  Its addresses and
 * ports, the route's device and MTU and the next hop's MAC (neighbour
 * table, resolved here if needed) become the flow's header template
 * (struct hdc_net_flow); the engine sends the data in datagrams headed
 * by it, with no per-datagram host work.  The socket's own queues are not
 * used: nothing of the data passes the host's network stack.
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/file.h>
#include <linux/ip.h>
#include <linux/net.h>
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

/* Bring the engine's NIC queues up on @sd; nic.lock held. */
static int hdc_nic_up(struct hdc_dev *hd, struct snic_dev *sd,
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

	lockdep_assert_held(&nic->lock);
	ret = snic_peer_create_cq(sd, &ca, &nic->cq);
	if (ret)
		return ret;
	sa.cqn = nic->cq.qn;
	ret = snic_peer_create_sq(sd, &sa, &nic->sq);
	if (ret) {
		snic_peer_destroy_cq(sd, nic->cq.qn);
		return ret;
	}
	hdc_wr(hd, HDC_REG_NIC_SQN, nic->sq.qn);
	hdc_wr(hd, HDC_REG_NIC_DB_LO, lower_32_bits(nic->sq.db_bus));
	hdc_wr(hd, HDC_REG_NIC_DB_HI, upper_32_bits(nic->sq.db_bus));
	hdc_wr(hd, HDC_REG_NIC_CTRL, HDC_NIC_ENABLE);
	if (!(hdc_rd(hd, HDC_REG_NIC_STATUS) & 1)) {
		snic_peer_destroy_sq(sd, nic->sq.qn);
		snic_peer_destroy_cq(sd, nic->cq.qn);
		return -EIO;
	}
	nic->sd = sd;
	strscpy(nic->ifname, ifname, sizeof(nic->ifname));
	dev_info(&hd->pdev->dev, "NIC queues on %s: snic sq %u cq %u\n",
		 ifname, nic->sq.qn, nic->cq.qn);
	return 0;
}

void hdc_nic_init(struct hdc_dev *hd)
{
	mutex_init(&hd->nic.lock);
}

/* Stop the engine using the queues, then destroy them. */
void hdc_nic_detach(struct hdc_dev *hd)
{
	struct hdc_nic *nic = &hd->nic;

	mutex_lock(&nic->lock);
	if (nic->sd) {
		hdc_wr(hd, HDC_REG_NIC_CTRL, HDC_NIC_DISABLE);
		snic_peer_destroy_sq(nic->sd, nic->sq.qn);
		snic_peer_destroy_cq(nic->sd, nic->cq.qn);
		snic_peer_put(nic->sd);
		nic->sd = NULL;
	}
	mutex_unlock(&nic->lock);
}

/* The engine's queues on @dev's snic (set up on first use). */
static int hdc_nic_bind(struct hdc_dev *hd, struct net_device *dev)
{
	struct hdc_nic *nic = &hd->nic;
	struct snic_dev *sd;
	int ret = 0;

	if (!(hd->caps & HDC_CAP_NIC)) {
		hdc_uerr(hd, "this engine has no NIC side\n");
		return -EOPNOTSUPP;
	}
	mutex_lock(&nic->lock);
	if (nic->sd) {
		if (strcmp(nic->ifname, dev->name)) {
			hdc_uerr(hd, "socket routed via %s; engine NIC queues on %s\n",
				 dev->name, nic->ifname);
			ret = -EXDEV;
		}
		goto out;
	}
	sd = snic_peer_get_by_name(dev->name);
	if (!sd) {
		hdc_uerr(hd, "socket's route leaves by %s, not a snic port\n",
			 dev->name);
		ret = -EOPNOTSUPP;
		goto out;
	}
	ret = hdc_nic_up(hd, sd, dev->name);
	if (ret) {
		hdc_uerr(hd, "cannot create the NIC queues on %s: %d\n",
			 dev->name, ret);
		snic_peer_put(sd);
	}
out:
	mutex_unlock(&nic->lock);
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
 * @file as a destination: a connected UDP/IPv4 socket whose route leaves
 * by a snic port.  Fills @f with the flow's header template.
 */
int hdc_nic_flow(struct hdc_dev *hd, struct file *file,
		 struct hdc_net_flow *f)
{
	struct socket *sock = sock_from_file(file);
	struct ethhdr *eth = (struct ethhdr *)f->hdr;
	struct iphdr *iph = (struct iphdr *)(f->hdr + ETH_HLEN);
	struct udphdr *uh = (struct udphdr *)(iph + 1);
	__be32 daddr, saddr, nexthop;
	__be16 sport, dport;
	struct inet_sock *inet;
	struct net_device *dev;
	struct flowi4 fl4;
	struct rtable *rt;
	struct sock *sk;
	u8 ha[ETH_ALEN];
	int ttl, ret;
	u8 tos;
	u32 mtu;

	if (!sock)
		return -EINVAL;
	sk = sock->sk;
	if (sk->sk_family != AF_INET || sk->sk_type != SOCK_DGRAM ||
	    sk->sk_protocol != IPPROTO_UDP) {
		hdc_uerr(hd, "socket destination is not UDP over IPv4\n");
		return -EPROTONOSUPPORT;
	}
	lock_sock(sk);
	inet = inet_sk(sk);
	daddr = inet->inet_daddr;
	saddr = inet->inet_saddr;
	sport = inet->inet_sport;
	dport = inet->inet_dport;
	tos = inet->tos;
	ttl = inet->uc_ttl;
	ret = sk->sk_state == TCP_ESTABLISHED && daddr && dport ? 0 : -ENOTCONN;
	release_sock(sk);
	if (ret) {
		hdc_uerr(hd, "socket destination is not connected\n");
		return ret;
	}
	rt = ip_route_output_ports(sock_net(sk), &fl4, sk, daddr, saddr, dport,
				   sport, IPPROTO_UDP, RT_TOS(tos),
				   sk->sk_bound_dev_if);
	if (IS_ERR(rt)) {
		hdc_uerr(hd, "no route to %pI4\n", &daddr);
		return PTR_ERR(rt);
	}
	dev = rt->dst.dev;
	nexthop = rt_nexthop(rt, daddr);
	mtu = dst_mtu(&rt->dst);
	if (ttl < 0)
		ttl = ip4_dst_hoplimit(&rt->dst);
	if (!saddr)
		saddr = fl4.saddr;
	dev_hold(dev);
	ip_rt_put(rt);
	ret = hdc_nic_bind(hd, dev);
	if (!ret)
		ret = hdc_nic_neigh(hd, dev, nexthop, ha);
	if (!ret && mtu <= sizeof(*iph) + sizeof(*uh)) {
		hdc_uerr(hd, "MTU %u of %s too small\n", mtu, dev->name);
		ret = -EMSGSIZE;
	}
	if (ret) {
		dev_put(dev);
		return ret;
	}

	memset(f, 0, sizeof(*f));
	f->proto = HDC_NET_UDP;
	f->l3_off = ETH_HLEN;
	f->l4_off = ETH_HLEN + sizeof(*iph);
	f->hdr_len = f->l4_off + sizeof(*uh);
	f->mss = cpu_to_le16(min_t(u32, mtu - sizeof(*iph) - sizeof(*uh),
				   HDC_NET_MSS_MAX));
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
	iph->protocol = IPPROTO_UDP;
	iph->saddr = saddr;
	iph->daddr = daddr;
	uh->source = sport;
	uh->dest = dport;
	return 0;
}
