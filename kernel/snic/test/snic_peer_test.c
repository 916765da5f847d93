// SPDX-License-Identifier: GPL-2.0
/*
 * snic_peer_test: the snic peer-queue API driving queues that live in a
 * peer device's BAR.
 *
 * An ivshmem-plain device (PCI 1af4:1110) stands in for the peer: its BAR2
 * is plain shared memory.  The test places a TX CQ, an RX CQ, an SQ, an RQ,
 * their doorbell records and all frame buffers inside that BAR, creates
 * the queues on snic #0 through <d2d/snic_peer.h> - the module is the
 * auxiliary driver of snic.peer_test.N and runs when it binds the one
 * whose net_device is @if0 - and then
 *   - sends @frames UDP frames from the peer SQ to the port named @if1 (the
 *     other snic port on the hub), where a packet handler checks them;
 *   - steers UDP destination port @port on snic #0 to the peer RQ and sends
 *     @frames frames to it from @if1, checking every byte that lands in the
 *     BAR and every CQE.
 * Results are kernel log lines "snic_peer_test: PASS name" or
 * "snic_peer_test: FAIL name: why", then "snic_peer_test: DONE ...".
 * Both interfaces must be up.  Load with
 *   modprobe snic_peer_test if0=<snic #0 netdev> if1=<other port>
 * With hold=1 the queues stay until the snic's peer device goes (unbind,
 * rmmod) or the module is unloaded: its remove callback destroys them and
 * logs "snic_peer_test: REMOVE destroy_sq <errno>".
 *
 * With foreign_cq=, foreign_sq=, foreign_rq= and foreign_rule= (numbers of
 * another user's objects on snic #0, e.g. fld's from `fldctl show`) the
 * module only checks that its handle cannot reach them: not to destroy,
 * ring, read, re-rate, build a queue on or steer to.  No ivshmem needed:
 *   modprobe snic_peer_test if0=<snic #0 netdev> foreign_cq=C foreign_sq=S \
 *	foreign_rq=R foreign_rule=U
 */
#include <linux/module.h>
#include <linux/auxiliary_bus.h>
#include <linux/pci.h>
#include <linux/io.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <linux/skbuff.h>
#include <net/checksum.h>
#include <net/ip.h>
#include <d2d/snic_peer.h>

#define IVSHMEM_VENDOR		0x1af4
#define IVSHMEM_DEVICE		0x1110
#define IVSHMEM_BAR		2

#define T_LOG			6
#define T_N			BIT(T_LOG)
#define T_BUF			2048
#define OFF_TXCQ		0x00000
#define OFF_RXCQ		0x01000
#define OFF_SQ			0x02000
#define OFF_RQ			0x03000
#define OFF_DBR			0x03800	/* 4 records, 64 bytes apart */
#define OFF_TXBUF		0x04000
#define OFF_RXBUF		(OFF_TXBUF + T_N * T_BUF)
#define T_BAR_NEED		(OFF_RXBUF + T_N * T_BUF)
#define HDRS			(ETH_HLEN + sizeof(struct iphdr) + \
				 sizeof(struct udphdr))
#define MAGIC_TX		0x50454552	/* peer SQ -> if1 */
#define MAGIC_RX		0x50525830	/* if1 -> peer RQ */
#define T_TIMEOUT_MS		3000

static char *if0;
module_param(if0, charp, 0444);
MODULE_PARM_DESC(if0, "netdev of snic #0 (where the peer queues go)");
static char *if1;
module_param(if1, charp, 0444);
MODULE_PARM_DESC(if1, "netdev of the port on the other end of the wire");
static uint frames = 16;
module_param(frames, uint, 0444);
MODULE_PARM_DESC(frames, "frames each way (1..32)");
static ushort port = 7777;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "UDP destination port steered to the peer RQ");
static bool hold;
module_param(hold, bool, 0444);
MODULE_PARM_DESC(hold, "keep the queues until the snic or the module goes");
static int foreign_cq = -1, foreign_sq = -1, foreign_rq = -1, foreign_rule = -1;
module_param(foreign_cq, int, 0444);
MODULE_PARM_DESC(foreign_cq, "another user's CQ on snic #0: only check it is out of reach");
module_param(foreign_sq, int, 0444);
MODULE_PARM_DESC(foreign_sq, "another user's SQ on snic #0");
module_param(foreign_rq, int, 0444);
MODULE_PARM_DESC(foreign_rq, "another user's RQ on snic #0");
module_param(foreign_rule, int, 0444);
MODULE_PARM_DESC(foreign_rule, "another user's steering rule on snic #0");

struct peer_test {
	struct pci_dev *ivpdev;
	bool iv_enabled;
	void *base;			/* the BAR, mapped */
	u64 bus;			/* its bus address */
	struct snic_peer *snic;		/* snic #0, from its peer device */
	struct auxiliary_device *adev;
	struct net_device *nd0, *nd1;
	struct snic_peer_queue txcq, rxcq, sq, rq;
	bool have_txcq, have_rxcq, have_sq, have_rq, have_rule;
	u32 rule_id;
	u16 sq_pi, txcq_ci, rxcq_ci;
	int passed, failed;
};

/* What the packet handler on if1 saw. */
static atomic_t rx1_ok, rx1_bad, rx1_csum;
static unsigned int rx1_seen_mask;

static void t_result(struct peer_test *t, const char *name, bool ok,
		     const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (ok) {
		t->passed++;
		pr_info("snic_peer_test: PASS %s\n", name);
		return;
	}
	t->failed++;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info("snic_peer_test: FAIL %s: %pV\n", name, &vaf);
	va_end(args);
}

static u32 frame_len(u32 seq)
{
	return HDRS + 8 + (seq * 97) % 1300;
}

static u8 pattern(u32 magic, u32 seq, u32 j)
{
	return (magic + seq * 7 + j) & 0xff;
}

/* Ethernet/IPv4/UDP headers; checksums left to the caller. */
static void build_hdrs(u8 *f, const u8 *dst, const u8 *src, __be32 saddr,
		       __be32 daddr, u32 len)
{
	struct ethhdr *eth = (void *)f;
	struct iphdr *ip = (void *)(f + ETH_HLEN);
	struct udphdr *udp = (void *)(ip + 1);

	ether_addr_copy(eth->h_dest, dst);
	ether_addr_copy(eth->h_source, src);
	eth->h_proto = htons(ETH_P_IP);
	memset(ip, 0, sizeof(*ip));
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->tot_len = htons(len - ETH_HLEN);
	ip->saddr = saddr;
	ip->daddr = daddr;
	udp->source = htons(40000);
	udp->dest = htons(port);
	udp->len = htons(len - ETH_HLEN - sizeof(*ip));
	udp->check = 0;
}

static void build_payload(u8 *p, u32 magic, u32 seq, u32 n)
{
	u32 j;

	put_unaligned_be32(magic, p);
	put_unaligned_be32(seq, p + 4);
	for (j = 8; j < n; j++)
		p[j] = pattern(magic, seq, j);
}

/* Returns the sequence number, or -1 if the payload is wrong. */
static int check_payload(const u8 *p, u32 n, u32 magic)
{
	u32 seq, j;

	if (n < 8 || get_unaligned_be32(p) != magic)
		return -1;
	seq = get_unaligned_be32(p + 4);
	if (seq >= 32 || n != frame_len(seq) - HDRS)
		return -1;
	for (j = 8; j < n; j++)
		if (p[j] != pattern(magic, seq, j))
			return -1;
	return seq;
}

/* ---- if1 side: see what the peer SQ sent ---- */

static int t_pkt_rcv(struct sk_buff *skb, struct net_device *dev,
		     struct packet_type *pt, struct net_device *orig)
{
	struct udphdr uh;
	struct iphdr ih;
	u8 *buf = NULL;
	u32 n;
	int seq;

	if (skb_copy_bits(skb, 0, &ih, sizeof(ih)) ||
	    ih.protocol != IPPROTO_UDP || ih.ihl != 5 ||
	    skb_copy_bits(skb, sizeof(ih), &uh, sizeof(uh)) ||
	    uh.dest != htons(port))
		goto out;
	n = ntohs(uh.len);
	if (n < sizeof(uh) || n - sizeof(uh) > 2048 ||
	    skb->len < sizeof(ih) + n) {
		atomic_inc(&rx1_bad);
		goto out;
	}
	n -= sizeof(uh);
	buf = kmalloc(n ?: 1, GFP_ATOMIC);
	if (!buf || skb_copy_bits(skb, sizeof(ih) + sizeof(uh), buf, n)) {
		atomic_inc(&rx1_bad);
		goto out;
	}
	seq = check_payload(buf, n, MAGIC_TX);
	if (seq < 0 || (READ_ONCE(rx1_seen_mask) & BIT(seq))) {
		atomic_inc(&rx1_bad);
		goto out;
	}
	WRITE_ONCE(rx1_seen_mask, rx1_seen_mask | BIT(seq));
	atomic_inc(&rx1_ok);
	if (skb->ip_summed == CHECKSUM_UNNECESSARY)
		atomic_inc(&rx1_csum);
out:
	kfree(buf);
	kfree_skb(skb);
	return 0;
}

static struct packet_type t_pt = {
	.type = cpu_to_be16(ETH_P_IP),
	.func = t_pkt_rcv,
};

/* ---- the BAR ---- */

static void *t_ptr(struct peer_test *t, u32 off)
{
	return t->base + off;
}

static u64 t_bus(struct peer_test *t, u32 off)
{
	return t->bus + off;
}

static __le32 *t_dbr(struct peer_test *t, int i)
{
	return t_ptr(t, OFF_DBR + 64 * i);
}

static int t_map_ivshmem(struct peer_test *t)
{
	resource_size_t len;
	int ret;

	t->ivpdev = pci_get_device(IVSHMEM_VENDOR, IVSHMEM_DEVICE, NULL);
	if (!t->ivpdev)
		return -ENODEV;
	/* Memory decoding on, so that the snic's DMA reaches the BAR. */
	ret = pci_enable_device_mem(t->ivpdev);
	if (ret)
		return ret;
	t->iv_enabled = true;
	len = pci_resource_len(t->ivpdev, IVSHMEM_BAR);
	if (len < T_BAR_NEED)
		return -ENOSPC;
	t->bus = pci_bus_address(t->ivpdev, IVSHMEM_BAR);
	t->base = memremap(pci_resource_start(t->ivpdev, IVSHMEM_BAR),
			   T_BAR_NEED, MEMREMAP_WB);
	if (!t->base)
		return -ENOMEM;
	memset(t->base, 0, T_BAR_NEED);
	return 0;
}

static int t_create_queues(struct peer_test *t)
{
	struct snic_peer_cq_attr ca = { .log_size = T_LOG };
	struct snic_peer_sq_attr sa = { .log_size = T_LOG };
	struct snic_peer_rq_attr ra = { .log_size = T_LOG,
					.type = SNIC_RQ_PLAIN };
	int ret;

	ca.ring_bus = t_bus(t, OFF_TXCQ);
	ca.dbr_bus = t_bus(t, OFF_DBR);
	ret = snic_peer_create_cq(t->snic, &ca, &t->txcq);
	if (ret)
		return ret;
	t->have_txcq = true;
	ca.ring_bus = t_bus(t, OFF_RXCQ);
	ca.dbr_bus = t_bus(t, OFF_DBR + 64);
	ret = snic_peer_create_cq(t->snic, &ca, &t->rxcq);
	if (ret)
		return ret;
	t->have_rxcq = true;
	sa.ring_bus = t_bus(t, OFF_SQ);
	sa.dbr_bus = t_bus(t, OFF_DBR + 128);
	sa.cqn = t->txcq.qn;
	ret = snic_peer_create_sq(t->snic, &sa, &t->sq);
	if (ret)
		return ret;
	t->have_sq = true;
	ra.ring_bus = t_bus(t, OFF_RQ);
	ra.dbr_bus = t_bus(t, OFF_DBR + 192);
	ra.cqn = t->rxcq.qn;
	ret = snic_peer_create_rq(t->snic, &ra, &t->rq);
	if (ret)
		return ret;
	t->have_rq = true;
	return 0;
}

/* Next CQE of a polled CQ in the BAR, waiting up to the test timeout. */
static struct snic_cqe *t_cq_wait(struct peer_test *t, u32 off, u16 ci)
{
	struct snic_cqe *cqe = t_ptr(t, off);
	unsigned long end = jiffies + msecs_to_jiffies(T_TIMEOUT_MS);
	u8 phase = ((ci >> T_LOG) & 1) ^ 1;

	cqe += ci & (T_N - 1);
	while ((READ_ONCE(cqe->op_own) & SNIC_CQE_OWNER) != phase) {
		if (time_after(jiffies, end))
			return NULL;
		usleep_range(500, 1000);
	}
	dma_rmb();
	return cqe;
}

/* ---- peer SQ -> if1 ---- */

static void t_post_send(struct peer_test *t, u32 seq)
{
	u32 len = frame_len(seq), off = OFF_TXBUF + seq * T_BUF;
	u8 *f = t_ptr(t, off);
	u8 wqe[2 * SNIC_WQEBB_SIZE] = {};
	struct snic_wqe_ctrl *ctrl = (void *)wqe;
	struct snic_wqe_eth *eth = (void *)(wqe + 16);
	struct snic_wqe_data *d = (void *)(wqe + 64);
	int i;

	/* Whole frame in the BAR; headers also inline, payload by DMA. */
	build_hdrs(f, t->nd1->dev_addr, t->nd0->dev_addr,
		   htonl(0x0a630001), htonl(0x0a630002), len);
	build_payload(f + HDRS, MAGIC_TX, seq, len - HDRS);
	ctrl->opcode = SNIC_WQE_ETH_SEND;
	ctrl->flags = SNIC_WQE_F_SIGNAL;
	ctrl->wqe_idx = cpu_to_le16(t->sq_pi);
	ctrl->ds_cnt = 5;	/* ctrl, eth, 32 inline bytes, one data */
	eth->cs_flags = SNIC_ETH_CS_L3 | SNIC_ETH_CS_L4;
	eth->inline_hdr_sz = cpu_to_le16(HDRS);
	memcpy(wqe + 16 + offsetof(struct snic_wqe_eth, inline_hdr), f, HDRS);
	d->byte_count = cpu_to_le32(len - HDRS);
	d->lkey = 0;
	d->addr = cpu_to_le64(t_bus(t, off + HDRS));
	for (i = 0; i < 2; i++)
		memcpy(t_ptr(t, OFF_SQ + ((t->sq_pi + i) & (T_N - 1)) *
			     SNIC_WQEBB_SIZE),
		       wqe + i * SNIC_WQEBB_SIZE, SNIC_WQEBB_SIZE);
	t->sq_pi += 2;
}

static void t_send(struct peer_test *t)
{
	u32 i, bytes = 0, good = 0, bad_cqe = 0;
	unsigned long end;
	struct snic_cqe *cqe;

	atomic_set(&rx1_ok, 0);
	atomic_set(&rx1_bad, 0);
	atomic_set(&rx1_csum, 0);
	rx1_seen_mask = 0;
	t_pt.dev = t->nd1;
	dev_add_pack(&t_pt);

	for (i = 0; i < frames; i++) {
		t_post_send(t, i);
		bytes += frame_len(i);
	}
	/* One doorbell for the batch: record first, then the register. */
	wmb();
	*t_dbr(t, 2) = cpu_to_le32(t->sq_pi);
	snic_peer_ring(t->snic, &t->sq, SNIC_DB_SQ, t->sq_pi);

	for (i = 0; i < frames; i++) {
		cqe = t_cq_wait(t, OFF_TXCQ, t->txcq_ci);
		if (!cqe)
			break;
		if (cqe->opcode == SNIC_CQE_TX &&
		    le16_to_cpu(cqe->wqe_counter) == (u16)(2 * i) &&
		    le16_to_cpu(cqe->qn) == t->sq.qn &&
		    le32_to_cpu(cqe->byte_cnt) == frame_len(i))
			good++;
		else
			bad_cqe++;
		t->txcq_ci++;
	}
	*t_dbr(t, 0) = cpu_to_le32(t->txcq_ci);
	t_result(t, "peer_tx_cqes", good == frames,
		 "%u of %u good TX CQEs, %u bad", good, frames, bad_cqe);

	end = jiffies + msecs_to_jiffies(T_TIMEOUT_MS);
	while (atomic_read(&rx1_ok) + atomic_read(&rx1_bad) < frames &&
	       time_before(jiffies, end))
		msleep(20);
	dev_remove_pack(&t_pt);
	t_result(t, "peer_tx_delivered", atomic_read(&rx1_ok) == frames,
		 "%s received %d of %u frames (%d bad)", t->nd1->name,
		 atomic_read(&rx1_ok), frames, atomic_read(&rx1_bad));
	t_result(t, "peer_tx_payload", !atomic_read(&rx1_bad),
		 "%d frames with a wrong payload", atomic_read(&rx1_bad));
	t_result(t, "peer_tx_csum_offload",
		 atomic_read(&rx1_csum) == atomic_read(&rx1_ok) &&
		 atomic_read(&rx1_ok),
		 "%d of %d frames arrived with verified checksums",
		 atomic_read(&rx1_csum), atomic_read(&rx1_ok));
}

/* ---- if1 -> steering rule -> peer RQ ---- */

static int t_xmit_one(struct peer_test *t, u32 seq)
{
	struct net_device *nd = t->nd1;
	u32 len = frame_len(seq);
	struct sk_buff *skb;
	struct udphdr *udp;
	struct iphdr *ip;
	u8 *f;

	skb = alloc_skb(LL_RESERVED_SPACE(nd) + len, GFP_KERNEL);
	if (!skb)
		return -ENOMEM;
	skb_reserve(skb, LL_RESERVED_SPACE(nd));
	f = skb_put(skb, len);
	build_hdrs(f, t->nd0->dev_addr, nd->dev_addr, htonl(0x0a630002),
		   htonl(0x0a630001), len);
	build_payload(f + HDRS, MAGIC_RX, seq, len - HDRS);
	skb_reset_mac_header(skb);
	skb_set_network_header(skb, ETH_HLEN);
	skb_set_transport_header(skb, ETH_HLEN + sizeof(*ip));
	ip = ip_hdr(skb);
	udp = udp_hdr(skb);
	ip_send_check(ip);
	/* Let if1's driver fill the UDP checksum when it can. */
	if (nd->features & NETIF_F_IP_CSUM) {
		skb->ip_summed = CHECKSUM_PARTIAL;
		skb->csum_start = skb_transport_header(skb) - skb->head;
		skb->csum_offset = offsetof(struct udphdr, check);
		udp->check = ~csum_tcpudp_magic(ip->saddr, ip->daddr,
						ntohs(udp->len), IPPROTO_UDP, 0);
	} else {
		udp->check = csum_tcpudp_magic(ip->saddr, ip->daddr,
					       ntohs(udp->len), IPPROTO_UDP,
					       csum_partial(udp,
							    ntohs(udp->len),
							    0));
		if (!udp->check)
			udp->check = CSUM_MANGLED_0;
	}
	skb->protocol = htons(ETH_P_IP);
	skb->dev = nd;
	return dev_queue_xmit(skb);
}

static void t_receive(struct peer_test *t)
{
	struct snic_steer_rule rule = {};
	u32 i, good = 0, payload_ok = 0, csum_ok = 0, seen = 0;
	struct snic_rx_desc *rd = t_ptr(t, OFF_RQ);
	struct snic_cqe *cqe;
	int ret;

	for (i = 0; i < T_N; i++) {
		rd[i].byte_count = cpu_to_le32(T_BUF);
		rd[i].lkey = 0;
		rd[i].addr = cpu_to_le64(t_bus(t, OFF_RXBUF + i * T_BUF));
	}
	/* Descriptors before the record that publishes them. */
	wmb();
	*t_dbr(t, 3) = cpu_to_le32(T_N);
	snic_peer_ring(t->snic, &t->rq, SNIC_DB_RQ, T_N);

	rule.match = cpu_to_le32(SNIC_MATCH_IP_PROTO | SNIC_MATCH_DST_PORT);
	rule.priority = cpu_to_le16(0x10);
	rule.dest = SNIC_DEST_RQ;
	rule.dest_id = cpu_to_le32(t->rq.qn);
	rule.actions = SNIC_ACT_COUNT;
	rule.ip_proto = IPPROTO_UDP;
	rule.dst_port = htons(port);
	ret = snic_peer_add_rule(t->snic, &rule, &t->rule_id);
	t_result(t, "add_rule", !ret, "snic_peer_add_rule: %d", ret);
	if (ret)
		return;
	t->have_rule = true;

	for (i = 0; i < frames; i++) {
		ret = t_xmit_one(t, i);
		if (ret != NET_XMIT_SUCCESS)
			break;
	}
	t_result(t, "if1_xmit", i == frames, "dev_queue_xmit failed: %d", ret);

	/*
	 * Descriptors are used in order, but if1 may send from any of its TX
	 * queues, so the frames can arrive in any order: each must arrive
	 * once and intact.  if1's driver pads short frames to ETH_ZLEN.
	 */
	for (i = 0; i < frames; i++) {
		const u8 *buf;
		u32 seq, len;
		u16 fl;

		cqe = t_cq_wait(t, OFF_RXCQ, t->rxcq_ci);
		if (!cqe)
			break;
		t->rxcq_ci++;
		if (cqe->opcode != SNIC_CQE_RX ||
		    le16_to_cpu(cqe->qn) != t->rq.qn ||
		    le16_to_cpu(cqe->wqe_counter) != (u16)i)
			continue;
		buf = t_ptr(t, OFF_RXBUF + (i & (T_N - 1)) * T_BUF);
		seq = get_unaligned_be32(buf + HDRS + 4);
		if (seq >= frames || (seen & BIT(seq)))
			continue;
		len = frame_len(seq);
		if (le32_to_cpu(cqe->byte_cnt) != max_t(u32, len, ETH_ZLEN))
			continue;
		seen |= BIT(seq);
		good++;
		fl = le16_to_cpu(cqe->flags);
		if ((fl & (SNIC_CQE_F_L3_OK | SNIC_CQE_F_L4_OK | SNIC_CQE_F_UDP |
			   SNIC_CQE_F_IPV4)) == (SNIC_CQE_F_L3_OK |
			   SNIC_CQE_F_L4_OK | SNIC_CQE_F_UDP | SNIC_CQE_F_IPV4))
			csum_ok++;
		if (ether_addr_equal(buf, t->nd0->dev_addr) &&
		    check_payload(buf + HDRS, len - HDRS, MAGIC_RX) == seq)
			payload_ok++;
	}
	*t_dbr(t, 1) = cpu_to_le32(t->rxcq_ci);
	t_result(t, "peer_rx_cqes", good == frames,
		 "%u of %u good RX CQEs (%u seen)", good, frames, t->rxcq_ci);
	t_result(t, "peer_rx_payload", payload_ok == frames,
		 "%u of %u frames intact in the BAR", payload_ok, frames);
	t_result(t, "peer_rx_csum_flags", csum_ok == frames,
		 "%u of %u CQEs with L3_OK|L4_OK|UDP", csum_ok, frames);
}

static void t_stats(struct peer_test *t)
{
	struct snic_queue_stats qs;
	u64 bytes = 0;
	int ret;
	u32 i;

	for (i = 0; i < frames; i++)
		bytes += frame_len(i);
	ret = snic_peer_query_stats(t->snic, SNIC_STATS_SQ, t->sq.qn, &qs);
	t_result(t, "sq_stats",
		 !ret && le64_to_cpu(qs.packets) == frames &&
		 le64_to_cpu(qs.bytes) == bytes &&
		 le64_to_cpu(qs.pcie.dma_reads) >= frames,
		 "ret %d packets %llu bytes %llu (want %u, %llu) dma_reads %llu",
		 ret, le64_to_cpu(qs.packets), le64_to_cpu(qs.bytes), frames,
		 bytes, le64_to_cpu(qs.pcie.dma_reads));
	ret = snic_peer_query_stats(t->snic, SNIC_STATS_RQ, t->rq.qn, &qs);
	t_result(t, "rq_stats",
		 !ret && le64_to_cpu(qs.packets) == frames &&
		 le64_to_cpu(qs.pcie.dma_writes) >= frames,
		 "ret %d packets %llu (want %u) dma_writes %llu", ret,
		 le64_to_cpu(qs.packets), frames,
		 le64_to_cpu(qs.pcie.dma_writes));
}

static void t_cleanup(struct peer_test *t)
{
	int ret = 0, r;

	if (t->have_rule) {
		r = snic_peer_del_rule(t->snic, t->rule_id);
		ret = ret ?: r;
	}
	if (t->have_sq) {
		r = snic_peer_destroy_sq(t->snic, t->sq.qn);
		ret = ret ?: r;
	}
	if (t->have_rq) {
		r = snic_peer_destroy_rq(t->snic, t->rq.qn);
		ret = ret ?: r;
	}
	if (t->have_txcq) {
		r = snic_peer_destroy_cq(t->snic, t->txcq.qn);
		ret = ret ?: r;
	}
	if (t->have_rxcq) {
		r = snic_peer_destroy_cq(t->snic, t->rxcq.qn);
		ret = ret ?: r;
	}
	if (t->snic)
		t_result(t, "destroy", !ret, "destroy failed: %d", ret);
}

static bool t_foreign_mode(void)
{
	return foreign_cq >= 0 && foreign_sq >= 0 && foreign_rq >= 0 &&
	       foreign_rule >= 0;
}

/*
 * Another user's objects, through our handle: each call must be refused
 * with -ENOENT before it reaches the device.  Should one get through (a
 * queue or rule made), it is undone at once.
 */
static void t_run_foreign(struct peer_test *t)
{
	struct snic_peer_sq_attr sa = { .log_size = T_LOG, .cqn = foreign_cq };
	struct snic_peer_queue fsq = { .qn = foreign_sq }, q;
	struct snic_steer_rule rule = {};
	struct snic_queue_stats qs;
	u32 id;
	int ret;

	ret = snic_peer_query_stats(t->snic, SNIC_STATS_SQ, foreign_sq, &qs);
	t_result(t, "foreign_stats_refused", ret == -ENOENT,
		 "reading SQ %d's counters returned %d", foreign_sq, ret);
	ret = snic_peer_set_sq_rate(t->snic, foreign_sq, 1000000);
	t_result(t, "foreign_rate_refused", ret == -ENOENT,
		 "rate-limiting SQ %d returned %d", foreign_sq, ret);
	ret = snic_peer_create_sq(t->snic, &sa, &q);
	t_result(t, "foreign_cq_refused", ret == -ENOENT,
		 "an SQ on CQ %d: %d", foreign_cq, ret);
	if (!ret)
		snic_peer_destroy_sq(t->snic, q.qn);
	rule.match = cpu_to_le32(SNIC_MATCH_IP_PROTO | SNIC_MATCH_DST_PORT);
	rule.priority = cpu_to_le16(0x10);
	rule.dest = SNIC_DEST_RQ;
	rule.dest_id = cpu_to_le32(foreign_rq);
	rule.ip_proto = IPPROTO_UDP;
	rule.dst_port = htons(9);
	ret = snic_peer_add_rule(t->snic, &rule, &id);
	t_result(t, "foreign_rq_refused", ret == -ENOENT,
		 "steering to RQ %d: %d", foreign_rq, ret);
	if (!ret)
		snic_peer_del_rule(t->snic, id);
	rule.dest = SNIC_DEST_RSS;
	rule.dest_id = 0;
	ret = snic_peer_add_rule(t->snic, &rule, &id);
	t_result(t, "rss_dest_refused", ret == -EPERM,
		 "steering to the net_device's RSS: %d", ret);
	if (!ret)
		snic_peer_del_rule(t->snic, id);
	/* a doorbell not ours is dropped with a warning; nothing to see */
	snic_peer_ring(t->snic, &fsq, SNIC_DB_SQ, 0);
	ret = snic_peer_del_rule(t->snic, foreign_rule);
	t_result(t, "foreign_rule_kept", ret == -ENOENT,
		 "deleting rule %d returned %d", foreign_rule, ret);
	ret = snic_peer_destroy_sq(t->snic, foreign_sq);
	t_result(t, "foreign_sq_kept", ret == -ENOENT,
		 "destroying SQ %d returned %d", foreign_sq, ret);
	ret = snic_peer_destroy_rq(t->snic, foreign_rq);
	t_result(t, "foreign_rq_kept", ret == -ENOENT,
		 "destroying RQ %d returned %d", foreign_rq, ret);
	ret = snic_peer_destroy_cq(t->snic, foreign_cq);
	t_result(t, "foreign_cq_kept", ret == -ENOENT,
		 "destroying CQ %d returned %d", foreign_cq, ret);
}

/* On snic #0 (t->snic), from the probe of its peer device. */
static void t_run(struct peer_test *t)
{
	int ret;

	ret = t_map_ivshmem(t);
	t_result(t, "ivshmem_bar", !ret,
		 "no usable ivshmem-plain BAR%d of %u bytes: %d", IVSHMEM_BAR,
		 T_BAR_NEED, ret);
	if (ret)
		return;

	t->nd0 = dev_get_by_name(&init_net, if0);
	t->nd1 = dev_get_by_name(&init_net, if1);
	if (!t->snic || !t->nd0 || !t->nd1 || !netif_running(t->nd0) ||
	    !netif_running(t->nd1)) {
		t_result(t, "interfaces_up", false, "%s and %s must be up",
			 if0, if1);
		return;
	}
	ret = t_create_queues(t);
	t_result(t, "create_queues", !ret, "create failed: %d", ret);
	if (ret)
		return;
	pr_info("snic_peer_test: BAR %#llx: txcq %u rxcq %u sq %u rq %u, sq doorbell %#llx\n",
		t->bus, t->txcq.qn, t->rxcq.qn, t->sq.qn, t->rq.qn,
		t->sq.db_bus);
	ret = snic_peer_destroy_cq(t->snic, 0xffff);
	t_result(t, "foreign_destroy_refused", ret == -ENOENT,
		 "destroying a queue not ours returned %d", ret);

	t_send(t);
	t_receive(t);
	t_stats(t);
}

static struct peer_test *the_test;	/* from init to exit */

static void t_release(struct peer_test *t)
{
	if (t->base)
		memunmap(t->base);
	if (t->iv_enabled)
		pci_disable_device(t->ivpdev);
	pci_dev_put(t->ivpdev);
	kfree(t);
}

/* Binds every snic's peer_test device; runs on the one of @if0. */
static int t_probe(struct auxiliary_device *adev,
		   const struct auxiliary_device_id *id)
{
	struct snic_peer *snic = snic_peer_dev(adev);
	struct peer_test *t = the_test;

	if (t->snic || strcmp(netdev_name(snic_peer_netdev(snic)), if0))
		return 0;
	t->snic = snic;
	t->adev = adev;
	if (t_foreign_mode()) {
		t_run_foreign(t);
		return 0;
	}
	t_run(t);
	if (!hold)
		t_cleanup(t);
	/* Netdev references would block unregistering them. */
	if (t->nd0)
		dev_put(t->nd0);
	if (t->nd1)
		dev_put(t->nd1);
	t->nd0 = NULL;
	t->nd1 = NULL;
	return 0;
}

/* snic #0 goes (unbind, rmmod snic) or we do: what is left goes first. */
static void t_remove(struct auxiliary_device *adev)
{
	struct peer_test *t = the_test;
	int ret = -ENOENT;

	if (adev != t->adev)
		return;
	if (t->have_sq) {
		ret = snic_peer_destroy_sq(t->snic, t->sq.qn);
		t->have_sq = !!ret;
	}
	if (hold) {
		pr_info("snic_peer_test: REMOVE destroy_sq %d\n", ret);
		t_cleanup(t);
	}
	t->snic = NULL;
	t->adev = NULL;
}

static const struct auxiliary_device_id t_ids[] = {
	{ .name = "snic.peer_test" },
	{ }
};
MODULE_DEVICE_TABLE(auxiliary, t_ids);

static struct auxiliary_driver t_driver = {
	.name = "snic",
	.probe = t_probe,
	.remove = t_remove,
	.id_table = t_ids,
};

static bool t_params_ok(void)
{
	if (t_foreign_mode())
		return if0;
	return if0 && if1 && frames >= 1 && frames <= 32;
}

static int __init snic_peer_test_init(void)
{
	struct peer_test *t;
	int ret;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	the_test = t;
	if (!t_params_ok()) {
		t_result(t, "params", false,
			 "need if0=, if1= and frames 1..32 (or if0= and all four foreign_*=)");
	} else {
		/* probes synchronously: the test runs in here */
		ret = auxiliary_driver_register(&t_driver);
		if (ret) {
			t_release(t);
			return ret;
		}
		t_result(t, "peer_dev", t->adev,
			 "no snic peer_test device with net_device %s", if0);
	}
	pr_info("snic_peer_test: DONE %d passed, %d failed\n", t->passed,
		t->failed);
	return 0;
}

static void __exit snic_peer_test_exit(void)
{
	struct peer_test *t = the_test;

	if (t_params_ok())
		auxiliary_driver_unregister(&t_driver);
	t_release(t);
}

module_init(snic_peer_test_init);
module_exit(snic_peer_test_exit);

MODULE_DESCRIPTION("snic peer-queue API test over an ivshmem BAR");
MODULE_AUTHOR("d2d developers");
MODULE_LICENSE("GPL");
