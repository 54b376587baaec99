/*
 * iw_grow.h - the next size of a buffer that grows on demand: from first (when it has nothing
 * yet) or what it has, doubled until it holds want, never past cap. Buffers start small and
 * grow because most connections and cases use a few KB of what their limit allows, and a
 * sanitizer build maps every block over 128 KB afresh. The connection model's output queue and
 * Send-data arena, the executor's buffer of DUT octets, the case parser's steps and the input
 * reader grow this way. Sizes are in any unit (octets, steps).
 */
#ifndef IW_GROW_H
#define IW_GROW_H

#include <stddef.h>

static inline size_t iw_grow_size(size_t have, size_t first, size_t want, size_t cap)
{
	size_t n = have ? have : first;
	while (n < want && n < cap)
		n = n > cap / 2 ? cap : 2 * n;
	return n < cap ? n : cap;
}

#endif
