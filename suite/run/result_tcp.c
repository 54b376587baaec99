/*
 * result_tcp.c - the TCP capture of a case: what the harness's connections carried, chunk by
 * chunk, as sent and received, for the per-case pcap (result.h).
 *
 * The wire log is the harness's decoded view and may show the same octets twice (an
 * `expect one-of` reads them once per alternative) or not at all (octets no expectation
 * consumed); a capture for Wireshark must be the byte stream itself, so it is kept apart.
 */
#include "result.h"

#include <stdlib.h>
#include <string.h>

static bool tcp_reserve(iw_case_result *r)
{
	if (r->ntcp < r->captcp)
		return true;
	size_t cap = r->captcp ? r->captcp * 2 : 32;
	if (cap > IW_RESULT_MAX_TCP_CHUNKS)
		cap = IW_RESULT_MAX_TCP_CHUNKS;
	if (cap <= r->ntcp)
		return false;
	iw_tcp_chunk *c = realloc(r->tcp, cap * sizeof *c);
	if (!c)
		return false;
	r->tcp = c;
	r->captcp = cap;
	return true;
}

void iw_result_tcp(iw_case_result *r, enum iw_tcp_kind kind, enum iw_wire_dir dir, int conn, int64_t t_us,
		   const uint8_t *bytes, size_t n)
{
	if (!r || r->tcp_cut)
		return;
	bool has_bytes = kind == IW_TCP_DATA || kind == IW_TCP_FRAME;
	if (has_bytes && (!bytes || !n))
		return;
	if (has_bytes && n > IW_RESULT_MAX_TCP_OCTETS - r->tcp_octets) {
		r->tcp_cut = true;
		return;
	}
	if (!tcp_reserve(r)) {
		r->tcp_cut = true;
		return;
	}
	iw_tcp_chunk *c = &r->tcp[r->ntcp];
	memset(c, 0, sizeof *c);
	c->kind = kind;
	c->dir = dir;
	c->conn = conn;
	c->t_us = t_us;
	if (has_bytes) {
		c->bytes = malloc(n);
		if (!c->bytes) {
			r->tcp_cut = true;
			return;
		}
		memcpy(c->bytes, bytes, n);
		c->n = n;
		r->tcp_octets += n;
	}
	r->ntcp++;
}
