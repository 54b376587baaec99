/*
 * iw_octets.h - big-endian integers in octet buffers: every field of MPA, DDP and RDMAP is
 * big-endian (network order). One definition for the engine and for the few places outside
 * it that read a non-protocol big-endian value (the reflector's greeting, docs/reflector.md).
 */
#ifndef IW_OCTETS_H
#define IW_OCTETS_H

#include <stdint.h>

static inline uint16_t iw_get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t iw_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t iw_get_be64(const uint8_t *p)
{
	return (uint64_t)iw_get_be32(p) << 32 | iw_get_be32(p + 4);
}

static inline void iw_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void iw_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void iw_put_be64(uint8_t *p, uint64_t v)
{
	iw_put_be32(p, (uint32_t)(v >> 32));
	iw_put_be32(p + 4, (uint32_t)v);
}

#endif
