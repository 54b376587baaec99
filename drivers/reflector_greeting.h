/*
 * reflector_greeting.h - the reflector's greeting (docs/reflector.md, contract item 1): the
 * payload of its first Send, 16 octets, big-endian: STag (4) | base TO (8) | length (4).
 * One definition for the built-in DUT that sends it, and for the runner and the network
 * fuzzer that read it.
 */
#ifndef IW_REFLECTOR_GREETING_H
#define IW_REFLECTOR_GREETING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iw_octets.h"

#define IW_GREETING_LEN 16

/* A Send's payload length that a greeting has. */
static inline bool iw_greeting_len_ok(size_t payload_len) { return payload_len == IW_GREETING_LEN; }

static inline void iw_greeting_parse(const uint8_t g[IW_GREETING_LEN], uint32_t *stag, uint64_t *base_to,
				     uint32_t *len)
{
	*stag = iw_get_be32(g);
	*base_to = iw_get_be64(g + 4);
	*len = iw_get_be32(g + 12);
}

static inline void iw_greeting_encode(uint8_t g[IW_GREETING_LEN], uint32_t stag, uint64_t base_to, uint32_t len)
{
	iw_put_be32(g, stag);
	iw_put_be64(g + 4, base_to);
	iw_put_be32(g + 12, len);
}

#endif
