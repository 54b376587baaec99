/*
 * tcp_conns.h - the TCP connections of a capture while it is read: found by their 4-tuple,
 * each direction reassembled as it comes (tcp_reasm.h), handed to a sink when they end.
 *
 * The reader (pcap_read.c) parses each frame into an iw_tcp_pkt and passes it here. A pure SYN
 * (no ACK) for a tuple whose connection ended, or that carries another ISN once data flowed,
 * starts a new connection (a port reused). A connection ends with an RST from either side or
 * a FIN from each; it is handed out limits.linger frames later, or when a new SYN takes its
 * ports, or when the capture ends (iw_tcp_table_end). A handed-out connection leaves a
 * tombstone: its later segments (the last ACK after the linger, retransmissions, the rest of
 * an evicted connection) are counted in info->late instead of starting a connection that
 * would be judged from its middle.
 *
 * Limits (pcap_read.h iw_pcap_limits): past max_conns open connections, or max_held octets
 * held by all of them, connections are handed out early: first those that ended and wait out
 * their linger, then the least recently active ("evicted", IW_PCAP_END_EVICTED or _OVER_HELD),
 * never the one the current packet belongs to. Tombstones are kept for at most max_conns
 * connections too, oldest dropped first.
 */
#ifndef IW_TCP_CONNS_H
#define IW_TCP_CONNS_H

#include <stdbool.h>
#include <stdint.h>

#include "pcap_read.h"

/* One TCP segment as the link, IP and TCP headers give it. */
typedef struct iw_tcp_pkt {
	int family;                 /* 4 or 6 */
	const uint8_t *ip, *tcp;    /* the IP and TCP headers in the frame */
	const uint8_t *src, *dst;   /* 4 or 16 octets */
	uint16_t sport, dport;
	uint32_t seq;
	uint8_t flags;              /* TCP flags octet */
	const uint8_t *payload;
	uint32_t len;               /* payload octets captured */
	uint32_t missing;           /* payload octets the snap length cut off */
} iw_tcp_pkt;

typedef struct iw_tcp_table iw_tcp_table;

/* A table handing connections to sink and counting into info (conns, evicted, late,
 * peak_open, peak_held). NULL when out of memory. */
iw_tcp_table *iw_tcp_table_new(const iw_pcap_limits *lim, const iw_pcap_sink *sink, iw_pcap_info *info);

/* One segment, from capture frame `frame`. */
void iw_tcp_table_packet(iw_tcp_table *t, const iw_tcp_pkt *k, uint64_t frame);

/* True once an allocation the table cannot do without failed (a new connection). */
bool iw_tcp_table_nomem(const iw_tcp_table *t);

/* The capture ended: hands out every open connection, in the order they started. */
void iw_tcp_table_end(iw_tcp_table *t);

/* Frees t and whatever it still holds, handing nothing out. */
void iw_tcp_table_free(iw_tcp_table *t);

#endif
