// SPDX-License-Identifier: GPL-2.0
/*
 * XDP programs for the snic native XDP guest test, one per object file
 * (built with -DXDP_MODE=...), each in section "xdp":
 *   XDP_DROP_ICMP      drop IPv4 ICMP echo requests, pass the rest
 *   XDP_ECHO_TX        answer IPv4 ICMP echo requests with XDP_TX
 *   XDP_ECHO_REDIRECT  answer them through devmap tx_port[0] (XDP_REDIRECT)
 * The answering programs turn the request into its reply in place: MAC and
 * IP addresses swapped, ICMP type 0, checksum adjusted.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

/* <linux/icmp.h> pulls in libc headers: the 4 bytes used here. */
struct icmphdr {
	__u8 type;
	__u8 code;
	__sum16 checksum;
};

#define ICMP_ECHOREPLY		0
#define ICMP_ECHO		8

#define XDP_DROP_ICMP		1
#define XDP_ECHO_TX		2
#define XDP_ECHO_REDIRECT	3

#if XDP_MODE == XDP_ECHO_REDIRECT
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} tx_port SEC(".maps");
#endif

/* The ICMP header of an IPv4 echo request in [data, end), or NULL. */
static __always_inline struct icmphdr *echo_request(void *data, void *end)
{
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);
	struct icmphdr *icmp;

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    ip->ihl != 5 || ip->protocol != IPPROTO_ICMP)
		return NULL;
	icmp = (void *)(ip + 1);
	if ((void *)(icmp + 1) > end || icmp->type != ICMP_ECHO)
		return NULL;
	return icmp;
}

#if XDP_MODE != XDP_DROP_ICMP
static __always_inline void make_reply(void *data, struct icmphdr *icmp)
{
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);
	unsigned char mac[ETH_ALEN];
	__u32 addr, sum;

	__builtin_memcpy(mac, eth->h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, mac, ETH_ALEN);
	addr = ip->saddr;
	ip->saddr = ip->daddr;
	ip->daddr = addr;
	/* Type 8 -> 0: the one's complement sum grows by 0x0800. */
	icmp->type = ICMP_ECHOREPLY;
	sum = (__u32)icmp->checksum + bpf_htons(ICMP_ECHO << 8);
	icmp->checksum = (__u16)(sum + (sum >> 16));
}
#endif

SEC("xdp")
int snic_xdp_test(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct icmphdr *icmp = echo_request(data, end);

	if (!icmp)
		return XDP_PASS;
#if XDP_MODE == XDP_DROP_ICMP
	return XDP_DROP;
#else
	make_reply(data, icmp);
#if XDP_MODE == XDP_ECHO_TX
	return XDP_TX;
#else
	return bpf_redirect_map(&tx_port, 0, XDP_DROP);
#endif
#endif
}

char _license[] SEC("license") = "GPL";
