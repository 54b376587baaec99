/*
 * raw_hdr.h - Ethernet, ARP, IPv4 and TCP headers of the raw segment path: build and parse.
 *
 * These are not iWARP octets (the engine stays the only parser of MPA, DDP and RDMAP); they
 * are the envelope the raw path puts around the stream's octets. Every field is read and
 * written here, at the named offsets below, and nowhere else in suite/rawtcp/.
 *
 * What is built: Ethernet II frames carrying IPv4 (20-octet header, DF set, TTL 64, no
 * options) with TCP (20 octets, plus the 4-octet MSS option on a SYN), both checksums
 * computed; and ARP requests and replies for IPv4 over Ethernet. What is parsed: the same,
 * with the IPv4 header checksum and the TCP checksum verified (a frame failing either is
 * reported as such, never handed on), IP options skipped, the MSS option picked out of the
 * TCP options, and the Ethernet padding of short frames dropped (IPv4 total length rules).
 */
#ifndef IW_RAW_HDR_H
#define IW_RAW_HDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iw_err.h"

/* Ethernet II */
#define IW_RAW_ETH_OFF_DST   0
#define IW_RAW_ETH_OFF_SRC   6
#define IW_RAW_ETH_OFF_TYPE  12
#define IW_RAW_ETH_LEN       14
#define IW_RAW_ETHERTYPE_IPV4 0x0800
#define IW_RAW_ETHERTYPE_ARP  0x0806

/* ARP for IPv4 over Ethernet (RFC 826) */
#define IW_RAW_ARP_OFF_HTYPE 0
#define IW_RAW_ARP_OFF_PTYPE 2
#define IW_RAW_ARP_OFF_HLEN  4
#define IW_RAW_ARP_OFF_PLEN  5
#define IW_RAW_ARP_OFF_OPER  6
#define IW_RAW_ARP_OFF_SHA   8
#define IW_RAW_ARP_OFF_SPA   14
#define IW_RAW_ARP_OFF_THA   18
#define IW_RAW_ARP_OFF_TPA   24
#define IW_RAW_ARP_LEN       28
#define IW_RAW_ARP_REQUEST   1
#define IW_RAW_ARP_REPLY     2

/* IPv4 (RFC 791) */
#define IW_RAW_IP_OFF_VER_IHL 0
#define IW_RAW_IP_OFF_TOS     1
#define IW_RAW_IP_OFF_TOTLEN  2
#define IW_RAW_IP_OFF_ID      4
#define IW_RAW_IP_OFF_FRAG    6
#define IW_RAW_IP_OFF_TTL     8
#define IW_RAW_IP_OFF_PROTO   9
#define IW_RAW_IP_OFF_CSUM    10
#define IW_RAW_IP_OFF_SRC     12
#define IW_RAW_IP_OFF_DST     16
#define IW_RAW_IP_LEN         20
#define IW_RAW_IP_PROTO_TCP   6
#define IW_RAW_IP_FLAG_DF     0x4000
#define IW_RAW_IP_FRAG_MASK   0x3FFF  /* MF and the fragment offset: a fragment is not parsed */

/* TCP (RFC 9293) */
#define IW_RAW_TCP_OFF_SPORT  0
#define IW_RAW_TCP_OFF_DPORT  2
#define IW_RAW_TCP_OFF_SEQ    4
#define IW_RAW_TCP_OFF_ACK    8
#define IW_RAW_TCP_OFF_DOFF   12   /* data offset in the upper 4 bits, in 32-bit words */
#define IW_RAW_TCP_OFF_FLAGS  13
#define IW_RAW_TCP_OFF_WIN    14
#define IW_RAW_TCP_OFF_CSUM   16
#define IW_RAW_TCP_OFF_URG    18
#define IW_RAW_TCP_LEN        20
#define IW_RAW_TCP_OPT_END    0
#define IW_RAW_TCP_OPT_NOP    1
#define IW_RAW_TCP_OPT_MSS    2
#define IW_RAW_TCP_OPT_MSS_LEN 4

enum iw_raw_tcp_flag {
	IW_RAW_FIN = 0x01,
	IW_RAW_SYN = 0x02,
	IW_RAW_RST = 0x04,
	IW_RAW_PSH = 0x08,
	IW_RAW_ACK = 0x10,
	IW_RAW_URG = 0x20,
};

/* The largest frame either side puts on the link (a 1500-octet MTU and the Ethernet header);
 * receive buffers are bigger so an oversized frame is reported, not cut. */
#define IW_RAW_FRAME_MAX   1514
#define IW_RAW_RX_FRAME_MAX 65550

/* One TCP segment, as built or as parsed. Addresses and ports are in the order on the wire
 * (src is the sender of this segment). */
typedef struct iw_raw_seg {
	uint8_t src_mac[6], dst_mac[6];
	uint8_t src_ip[4], dst_ip[4];
	uint16_t src_port, dst_port;
	uint32_t seq, ack;
	uint8_t flags;              /* enum iw_raw_tcp_flag bits */
	uint16_t window;
	uint16_t mss;               /* build: sent as an option when non-zero; parse: 0 when absent */
	uint16_t ip_id;             /* build only */
	const uint8_t *data;        /* the segment's payload (parse: points into the frame) */
	size_t len;
} iw_raw_seg;

typedef struct iw_raw_arp {
	uint8_t eth_src[6], eth_dst[6];
	uint16_t oper;              /* IW_RAW_ARP_REQUEST or IW_RAW_ARP_REPLY */
	uint8_t sha[6], spa[4];     /* sender hardware and protocol address */
	uint8_t tha[6], tpa[4];     /* target */
} iw_raw_arp;

enum iw_raw_frame_kind {
	IW_RAW_FRAME_OTHER,         /* not IPv4/TCP or ARP (IPv6 chatter, another protocol): ignored */
	IW_RAW_FRAME_ARP,
	IW_RAW_FRAME_TCP,
};

typedef struct iw_raw_frame {
	enum iw_raw_frame_kind kind;
	iw_raw_seg tcp;             /* FRAME_TCP */
	iw_raw_arp arp;             /* FRAME_ARP */
} iw_raw_frame;

/* The Internet checksum (RFC 1071) of len octets, folded and complemented, starting from a
 * partial 32-bit sum (0, or a pseudo-header's). */
uint16_t iw_raw_csum(uint32_t sum, const uint8_t *p, size_t len);

/* Builds s as an Ethernet frame into out. Returns the frame's length, or 0 when it does not
 * fit in cap or the IPv4 total length would pass 65535. */
size_t iw_raw_build_tcp(uint8_t *out, size_t cap, const iw_raw_seg *s);

/* Builds an ARP frame (42 octets). Returns its length, or 0 when cap is below that. */
size_t iw_raw_build_arp(uint8_t *out, size_t cap, const iw_raw_arp *a);

/* Parses one Ethernet frame. IW_OK with f->kind set (FRAME_OTHER for frames the raw path does
 * not use); IW_ETRUNC for a frame shorter than its headers say; IW_EPROTO for a bad IPv4
 * header checksum, a bad TCP checksum, an IPv4 fragment or a malformed header, each named in e. */
int iw_raw_parse(const uint8_t *frame, size_t len, iw_raw_frame *f, iw_err *e);

/* Sequence-number arithmetic modulo 2^32 (RFC 9293 §3.4): a before b. */
static inline bool iw_raw_seq_lt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}
static inline bool iw_raw_seq_le(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) <= 0;
}

#endif
