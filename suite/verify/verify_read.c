/*
 * verify_read.c - a Read Response against the Read Request it answers (RFC5040-5.2-03; see
 * verify.h). The runner holds a DUT's whole Response to its own Request (exec_model.c); decode
 * holds each side's Responses, segment by segment, to the Requests the other side sent
 * (suite/capture/decode_reads.c).
 */
#include "verify_int.h"

/* RFC 5040 §5.2.2: a valid Read Request is answered with one Read Response to the Data Sink
 * STag and TO it named, of exactly its RDMA Read Message Size. */
#define REQ_READ_RESP "RFC5040-5.2-03"

bool iw_verify_read_resp(const iw_read_req *rr, const iw_ddp_hdr *first, uint64_t len, bool complete, iw_check *out)
{
	iw_check_begin(out);
	iw_check_applied(out, REQ_READ_RESP);
	/* The sink places it by STag and TO, so a Response elsewhere lands in another buffer or
	 * another part of it, or is refused there; one of another length leaves the Read short or
	 * writes past it. Not a fault a receiver ignores, then, but which error it reports depends
	 * on its registrations (RFC5040-5.2-07): no code is given. */
	const char *how = first->stag != rr->sink_stag ? "another STag"
			  : first->to != rr->sink_to  ? "another TO"
			  : len > rr->size           ? "more octets"
			  : complete && len < rr->size ? "fewer octets"
						       : NULL;
	if (!how)
		return true;
	return iw_check_broken(out, REQ_READ_RESP, IW_VIOL_FATAL, -1, 0, 0,
			       "a Read Response of %u octets to STag 0x%x TO 0x%llx was due (the Read Request's sink); "
			       "this one carries %s%llu octets to STag 0x%x TO 0x%llx (%s)", rr->size, rr->sink_stag,
			       (unsigned long long)rr->sink_to, complete ? "" : "at least ", (unsigned long long)len,
			       first->stag, (unsigned long long)first->to, how);
}
