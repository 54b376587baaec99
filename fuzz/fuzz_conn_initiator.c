/*
 * fuzz_conn_initiator.c - the connection model as an initiator (suite/engine/iw_conn.h, MR §6.1)
 * fed a whole fuzzed responder byte stream in fuzzer-chosen cuts.
 *
 * Input: the setup of connrun.h (profile, negotiation wishes, reject, RFC 6581 p2p/RTR,
 * IRD/ORD, EMSS, cut plan, private data), then the responder's octets: a Reply and FPDUs.
 * Invariants: those of connrun.c (consumption, event order, no event after close, the
 * model's own output read back and judged conforming).
 */
#include "connrun.h"

int iw_fuzz_conn_initiator(const uint8_t *data, size_t size)
{
	fz f = fz_init(data, size);
	fz_conn_setup s;
	fz_conn_setup_read(&f, IW_ROLE_INITIATOR, &s);
	size_t len;
	const uint8_t *stream = fz_rest(&f, &len);
	fz_conn_trace tr;
	fz_conn_run(&s, stream, len, NULL, 0, &tr);
	return 0;
}
