/*
 * rping_info.h - the application message of rdma-core's rping (librdmacm/examples/rping.c), as
 * it crosses the wire: every Send rping makes carries 16 octets, network order,
 *
 *     buffer address (8) | rkey (4) | size (4)
 *
 * i.e. the TO, STag and length of a tagged buffer. The client sends two per iteration: its
 * source buffer (the server RDMA Reads it) and its sink buffer (the server RDMA Writes the data
 * it read back into it). The server answers each step with a "go ahead" Send of the same size
 * whose contents rping never reads (a receive of any other size is an error to rping). Note
 * the order differs from the reflector's greeting (STag first, reflector_greeting.h).
 *
 * rping's connection parameters through rdma_cm: responder_resources = initiator_depth = 1,
 * which an RFC 6581 stack carries as IRD = ORD = 1 in the MPA private data (no other private
 * data). Its defaults: a 64-octet buffer (-S), and the client's data "rdma-ping-N: " then
 * letters, NUL-terminated in the buffer's last octet; the server writes back strlen + 1 octets.
 */
#ifndef IW_RPING_INFO_H
#define IW_RPING_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iw_octets.h"

#define IW_RPING_INFO_LEN 16
#define IW_RPING_IRD 1          /* rdma_cm responder_resources as rping sets it */
#define IW_RPING_ORD 1          /* rdma_cm initiator_depth */
#define IW_RPING_DEFAULT_SIZE 64

typedef struct iw_rping_info {
	uint64_t to;                /* the buffer's address: the TO of its STag */
	uint32_t stag;              /* rkey */
	uint32_t len;               /* size */
} iw_rping_info;

/* A Send payload length rping accepts (its single posted receive is 16 octets). */
static inline bool iw_rping_info_len_ok(size_t payload_len) { return payload_len == IW_RPING_INFO_LEN; }

static inline void iw_rping_info_parse(const uint8_t b[IW_RPING_INFO_LEN], iw_rping_info *i)
{
	i->to = iw_get_be64(b);
	i->stag = iw_get_be32(b + 8);
	i->len = iw_get_be32(b + 12);
}

static inline void iw_rping_info_encode(uint8_t b[IW_RPING_INFO_LEN], const iw_rping_info *i)
{
	iw_put_be64(b, i->to);
	iw_put_be32(b + 8, i->stag);
	iw_put_be32(b + 12, i->len);
}

/* The client's data for iteration `ping` in a buffer of `size` octets (size >= 16), as rping
 * fills it: "rdma-ping-<ping>: ", then letters from 'A' + ping (mod 58) counting up through
 * 'z' and wrapping to 'A', and a NUL in the last octet. */
void iw_rping_data(unsigned ping, uint8_t *buf, size_t size);

#endif
