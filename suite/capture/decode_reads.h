/*
 * decode_reads.h - one direction's Read Responses held to the Read Requests the other direction
 * sent, by the rule the runner holds a DUT's Responses to (verify.h iw_verify_read_resp,
 * RFC5040-5.2-03): each Response answers the oldest Request not yet answered, in order
 * (RFC5040-5.5-03), and targets its Data Sink STag from its Data Sink TO with exactly its RDMA
 * Read Message Size octets.
 *
 * In bounded memory (docs/vectors.md "Memory"): decode judges one direction whole, then the
 * other, so no list of outstanding Requests is kept. A second, silent cursor reads the other
 * direction's FPDUs, already held for its own judging, only as far as the Request the next
 * Response needs; its decoder is allocated at the first Read Response and freed with the
 * direction. A Response that comes (by capture frame) before the Request it would answer, or
 * when the other side has none left, answers no Request (RFC5040-5.2-09: a Read operation is one Request and one Response); none is claimed
 * when the other side's stream was not seen to its end (a hole, or the reader's limits).
 */
#ifndef IW_DECODE_READS_H
#define IW_DECODE_READS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode_stream.h"
#include "pcap_read.h"
#include "profile.h"
#include "rdmap.h"

/* The other direction, as its own judging reads it. */
typedef struct iw_decode_peer {
	const iw_profile *p;
	const iw_pcap_stream *s;
	size_t base;                /* where its FPDUs start: past its startup frame */
	bool markers, crc;
} iw_decode_peer;

/* NULL when out of memory (then no Response is held to anything). */
iw_decode_reads *iw_decode_reads_new(const iw_decode_peer *peer);

void iw_decode_reads_free(iw_decode_reads *r);

/* One segment of this direction (m, parsed from the FPDU at offset off of the phase o decodes):
 * when it belongs to a Read Response, held to the Read Request that Response answers. Faults go
 * to o; jf (the FPDU's JSON object, or NULL) and the details name the Request answered. */
void iw_decode_reads_segment(iw_decode_reads *r, iw_decode_ctx *o, const iw_rdmap_msg *m, uint64_t off, json_t *jf);

#endif
