#include "raw_hdr.h"

#include <string.h>

#include "iw_octets.h"

uint16_t iw_raw_csum(uint32_t sum, const uint8_t *p, size_t len)
{
	uint64_t s = sum;
	size_t i;
	for (i = 0; i + 1 < len; i += 2)
		s += iw_get_be16(p + i);
	if (i < len)
		s += (uint32_t)p[i] << 8;   /* an odd last octet is padded with a zero octet */
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)~s;
}

/* The TCP pseudo-header's sum (RFC 9293 §3.1): addresses, protocol, TCP length. */
static uint32_t pseudo_sum(const uint8_t src[4], const uint8_t dst[4], size_t tcp_len)
{
	return (uint32_t)iw_get_be16(src) + iw_get_be16(src + 2) + iw_get_be16(dst) + iw_get_be16(dst + 2) +
	       IW_RAW_IP_PROTO_TCP + (uint32_t)tcp_len;
}

static void put_eth(uint8_t *out, const uint8_t dst[6], const uint8_t src[6], uint16_t type)
{
	memcpy(out + IW_RAW_ETH_OFF_DST, dst, 6);
	memcpy(out + IW_RAW_ETH_OFF_SRC, src, 6);
	iw_put_be16(out + IW_RAW_ETH_OFF_TYPE, type);
}

size_t iw_raw_build_tcp(uint8_t *out, size_t cap, const iw_raw_seg *s)
{
	size_t opt = s->mss ? IW_RAW_TCP_OPT_MSS_LEN : 0;
	size_t tcp_len = IW_RAW_TCP_LEN + opt + s->len;
	size_t ip_len = IW_RAW_IP_LEN + tcp_len;
	size_t total = IW_RAW_ETH_LEN + ip_len;
	if (total > cap || ip_len > 0xFFFF)
		return 0;
	put_eth(out, s->dst_mac, s->src_mac, IW_RAW_ETHERTYPE_IPV4);

	uint8_t *ip = out + IW_RAW_ETH_LEN;
	memset(ip, 0, IW_RAW_IP_LEN);
	ip[IW_RAW_IP_OFF_VER_IHL] = 0x45;   /* version 4, 5 words */
	iw_put_be16(ip + IW_RAW_IP_OFF_TOTLEN, (uint16_t)ip_len);
	iw_put_be16(ip + IW_RAW_IP_OFF_ID, s->ip_id);
	iw_put_be16(ip + IW_RAW_IP_OFF_FRAG, IW_RAW_IP_FLAG_DF);
	ip[IW_RAW_IP_OFF_TTL] = 64;
	ip[IW_RAW_IP_OFF_PROTO] = IW_RAW_IP_PROTO_TCP;
	memcpy(ip + IW_RAW_IP_OFF_SRC, s->src_ip, 4);
	memcpy(ip + IW_RAW_IP_OFF_DST, s->dst_ip, 4);
	iw_put_be16(ip + IW_RAW_IP_OFF_CSUM, iw_raw_csum(0, ip, IW_RAW_IP_LEN));

	uint8_t *t = ip + IW_RAW_IP_LEN;
	memset(t, 0, IW_RAW_TCP_LEN);
	iw_put_be16(t + IW_RAW_TCP_OFF_SPORT, s->src_port);
	iw_put_be16(t + IW_RAW_TCP_OFF_DPORT, s->dst_port);
	iw_put_be32(t + IW_RAW_TCP_OFF_SEQ, s->seq);
	iw_put_be32(t + IW_RAW_TCP_OFF_ACK, s->ack);
	t[IW_RAW_TCP_OFF_DOFF] = (uint8_t)(((IW_RAW_TCP_LEN + opt) / 4) << 4);
	t[IW_RAW_TCP_OFF_FLAGS] = s->flags;
	iw_put_be16(t + IW_RAW_TCP_OFF_WIN, s->window);
	if (opt) {
		t[IW_RAW_TCP_LEN] = IW_RAW_TCP_OPT_MSS;
		t[IW_RAW_TCP_LEN + 1] = IW_RAW_TCP_OPT_MSS_LEN;
		iw_put_be16(t + IW_RAW_TCP_LEN + 2, s->mss);
	}
	if (s->len)
		memcpy(t + IW_RAW_TCP_LEN + opt, s->data, s->len);
	iw_put_be16(t + IW_RAW_TCP_OFF_CSUM, iw_raw_csum(pseudo_sum(s->src_ip, s->dst_ip, tcp_len), t, tcp_len));
	return total;
}

size_t iw_raw_build_arp(uint8_t *out, size_t cap, const iw_raw_arp *a)
{
	size_t total = IW_RAW_ETH_LEN + IW_RAW_ARP_LEN;
	if (cap < total)
		return 0;
	put_eth(out, a->eth_dst, a->eth_src, IW_RAW_ETHERTYPE_ARP);
	uint8_t *p = out + IW_RAW_ETH_LEN;
	iw_put_be16(p + IW_RAW_ARP_OFF_HTYPE, 1);   /* Ethernet */
	iw_put_be16(p + IW_RAW_ARP_OFF_PTYPE, IW_RAW_ETHERTYPE_IPV4);
	p[IW_RAW_ARP_OFF_HLEN] = 6;
	p[IW_RAW_ARP_OFF_PLEN] = 4;
	iw_put_be16(p + IW_RAW_ARP_OFF_OPER, a->oper);
	memcpy(p + IW_RAW_ARP_OFF_SHA, a->sha, 6);
	memcpy(p + IW_RAW_ARP_OFF_SPA, a->spa, 4);
	memcpy(p + IW_RAW_ARP_OFF_THA, a->tha, 6);
	memcpy(p + IW_RAW_ARP_OFF_TPA, a->tpa, 4);
	return total;
}

static int parse_arp(const uint8_t *p, size_t len, iw_raw_frame *f, iw_err *e)
{
	if (len < IW_RAW_ARP_LEN)
		return iw_errf(e, IW_ETRUNC, "ARP frame of %zu octets, an IPv4 ARP needs %d", len, IW_RAW_ARP_LEN);
	if (iw_get_be16(p + IW_RAW_ARP_OFF_HTYPE) != 1 || iw_get_be16(p + IW_RAW_ARP_OFF_PTYPE) != IW_RAW_ETHERTYPE_IPV4 ||
	    p[IW_RAW_ARP_OFF_HLEN] != 6 || p[IW_RAW_ARP_OFF_PLEN] != 4)
		return IW_OK;   /* ARP for another hardware or protocol: not ours */
	f->kind = IW_RAW_FRAME_ARP;
	f->arp.oper = iw_get_be16(p + IW_RAW_ARP_OFF_OPER);
	memcpy(f->arp.sha, p + IW_RAW_ARP_OFF_SHA, 6);
	memcpy(f->arp.spa, p + IW_RAW_ARP_OFF_SPA, 4);
	memcpy(f->arp.tha, p + IW_RAW_ARP_OFF_THA, 6);
	memcpy(f->arp.tpa, p + IW_RAW_ARP_OFF_TPA, 4);
	return IW_OK;
}

/* The MSS option among the TCP options, 0 when absent; a malformed option list is an error. */
static int parse_mss(const uint8_t *o, size_t n, uint16_t *mss, iw_err *e)
{
	size_t i = 0;
	*mss = 0;
	while (i < n) {
		uint8_t kind = o[i];
		if (kind == IW_RAW_TCP_OPT_END)
			break;
		if (kind == IW_RAW_TCP_OPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= n || o[i + 1] < 2 || i + o[i + 1] > n)
			return iw_errf(e, IW_EPROTO, "TCP option %u at option octet %zu runs past the header", kind, i);
		if (kind == IW_RAW_TCP_OPT_MSS && o[i + 1] == IW_RAW_TCP_OPT_MSS_LEN)
			*mss = iw_get_be16(o + i + 2);
		i += o[i + 1];
	}
	return IW_OK;
}

static int parse_tcp(const uint8_t *ip, size_t len, iw_raw_frame *f, iw_err *e)
{
	if (len < IW_RAW_IP_LEN)
		return iw_errf(e, IW_ETRUNC, "IPv4 packet of %zu octets, shorter than its header", len);
	size_t ihl = (size_t)(ip[IW_RAW_IP_OFF_VER_IHL] & 0x0F) * 4;
	if (ip[IW_RAW_IP_OFF_VER_IHL] >> 4 != 4 || ihl < IW_RAW_IP_LEN)
		return iw_errf(e, IW_EPROTO, "IPv4 header with version/IHL octet 0x%02x", ip[IW_RAW_IP_OFF_VER_IHL]);
	size_t total = iw_get_be16(ip + IW_RAW_IP_OFF_TOTLEN);
	if (total < ihl || total > len)
		return iw_errf(e, IW_ETRUNC, "IPv4 total length %zu, but the frame holds %zu octets after Ethernet", total, len);
	if (iw_raw_csum(0, ip, ihl) != 0)
		return iw_errf(e, IW_EPROTO, "IPv4 header checksum 0x%04x is wrong", iw_get_be16(ip + IW_RAW_IP_OFF_CSUM));
	if (ip[IW_RAW_IP_OFF_PROTO] != IW_RAW_IP_PROTO_TCP)
		return IW_OK;
	if (iw_get_be16(ip + IW_RAW_IP_OFF_FRAG) & IW_RAW_IP_FRAG_MASK)
		return iw_errf(e, IW_EPROTO, "IPv4 fragment (the raw path sends DF and takes no fragments)");
	const uint8_t *t = ip + ihl;
	size_t tcp_len = total - ihl;
	if (tcp_len < IW_RAW_TCP_LEN)
		return iw_errf(e, IW_ETRUNC, "TCP segment of %zu octets, shorter than its header", tcp_len);
	size_t doff = (size_t)(t[IW_RAW_TCP_OFF_DOFF] >> 4) * 4;
	if (doff < IW_RAW_TCP_LEN || doff > tcp_len)
		return iw_errf(e, IW_EPROTO, "TCP data offset %zu in a %zu-octet segment", doff, tcp_len);
	if (iw_raw_csum(pseudo_sum(ip + IW_RAW_IP_OFF_SRC, ip + IW_RAW_IP_OFF_DST, tcp_len), t, tcp_len) != 0)
		return iw_errf(e, IW_EPROTO, "TCP checksum 0x%04x is wrong", iw_get_be16(t + IW_RAW_TCP_OFF_CSUM));
	iw_raw_seg *s = &f->tcp;
	int rc = parse_mss(t + IW_RAW_TCP_LEN, doff - IW_RAW_TCP_LEN, &s->mss, e);
	if (rc != IW_OK)
		return rc;
	f->kind = IW_RAW_FRAME_TCP;
	memcpy(s->src_ip, ip + IW_RAW_IP_OFF_SRC, 4);
	memcpy(s->dst_ip, ip + IW_RAW_IP_OFF_DST, 4);
	s->src_port = iw_get_be16(t + IW_RAW_TCP_OFF_SPORT);
	s->dst_port = iw_get_be16(t + IW_RAW_TCP_OFF_DPORT);
	s->seq = iw_get_be32(t + IW_RAW_TCP_OFF_SEQ);
	s->ack = iw_get_be32(t + IW_RAW_TCP_OFF_ACK);
	s->flags = t[IW_RAW_TCP_OFF_FLAGS] & 0x3F;
	s->window = iw_get_be16(t + IW_RAW_TCP_OFF_WIN);
	s->ip_id = iw_get_be16(ip + IW_RAW_IP_OFF_ID);
	s->data = t + doff;
	s->len = tcp_len - doff;
	return IW_OK;
}

int iw_raw_parse(const uint8_t *frame, size_t len, iw_raw_frame *f, iw_err *e)
{
	memset(f, 0, sizeof *f);
	f->kind = IW_RAW_FRAME_OTHER;
	if (len < IW_RAW_ETH_LEN)
		return iw_errf(e, IW_ETRUNC, "frame of %zu octets, shorter than an Ethernet header", len);
	uint16_t type = iw_get_be16(frame + IW_RAW_ETH_OFF_TYPE);
	int rc = IW_OK;
	if (type == IW_RAW_ETHERTYPE_ARP)
		rc = parse_arp(frame + IW_RAW_ETH_LEN, len - IW_RAW_ETH_LEN, f, e);
	else if (type == IW_RAW_ETHERTYPE_IPV4)
		rc = parse_tcp(frame + IW_RAW_ETH_LEN, len - IW_RAW_ETH_LEN, f, e);
	if (rc != IW_OK) {
		f->kind = IW_RAW_FRAME_OTHER;
		return rc;
	}
	if (f->kind == IW_RAW_FRAME_TCP) {
		memcpy(f->tcp.dst_mac, frame + IW_RAW_ETH_OFF_DST, 6);
		memcpy(f->tcp.src_mac, frame + IW_RAW_ETH_OFF_SRC, 6);
	} else if (f->kind == IW_RAW_FRAME_ARP) {
		memcpy(f->arp.eth_dst, frame + IW_RAW_ETH_OFF_DST, 6);
		memcpy(f->arp.eth_src, frame + IW_RAW_ETH_OFF_SRC, 6);
	}
	return IW_OK;
}
