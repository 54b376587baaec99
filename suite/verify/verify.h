/*
 * verify.h - judging a sender's octets frame by frame: what the engine decodes, held to the rules
 * a conforming sender keeps. The runner (suite/run/exec_receive.c) judges the DUT through these
 * functions, the network fuzzer (fuzz/network/netfuzz_decode.c) too, and `iwspec decode`
 * (suite/capture/decode_stream.c) each side of a capture: a sender's FPDU breaks the same
 * requirement, with the same words, wherever it is seen ("one judgment, read twice").
 *
 * Each check returns true when the rule holds, or false with the requirement ID and a sentence
 * in *out; the caller turns that into its own verdict (a case's FAIL, a fuzzer's finding, a
 * line of decode's output). Either way out->rules lists the requirements the check applied to
 * the frame (held or broken; a rule that has nothing to look at in it, such as the pad of a
 * ULPDU with none, is not listed), so a runner can say which requirements were judged on the
 * DUT's octets.
 *
 *   verify_mpa.c   one FPDU as MPA sent it (MPA-4-02, MPA-4.1-02, MPA-5.1-05, MPA-3.2-04), and a
 *                  stream the decoder refused, as the sender's rule it broke (MPA-5.2-11,
 *                  MPA-5.1-03, MPA-4.1-01)
 *   verify_ddp.c   the sender as a DDP data source, segment by segment: DV and reserved bits
 *                  (DDP-6.1-08/09), MSNs per queue (DDP-6.3-08/09), the RDMAP reserved word
 *                  (DDP-6.3-02), one message at a time (DDP-6.1-03), constant STag/QN/MSN/RsvdULP
 *                  within a message (DDP-6.2-04/08, DDP-6.3-04/07/11), TO and MO progression
 *                  (DDP-7.2-05/07), no segment after its message's L=1 segment (DDP-6.1-05), no
 *                  ULPDU below 128 octets but a message's last (MPA-5.3.2-04, a SHOULD: DDP may
 *                  post any size, MPA-3.2-05); and a ULPDU's
 *                  headers as the engine parses them (DDP-6.2-01/02, DDP-6.3-01)
 *   verify_read.c  a Read Response held to the Read Request it answers (RFC5040-5.2-03)
 *   verify_startup.c a startup frame as its sender made it (MPA-6.1.1-01/03/05/06/08, R1)
 *   verify_check.c recording what a check applied and what it found broken (verify_int.h)
 */
#ifndef IW_VERIFY_H
#define IW_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ddp.h"
#include "iw_violation.h"
#include "mpa_frame.h"
#include "mpa_rx.h"
#include "profile.h"
#include "rdmap.h"

#define IW_CHECK_MAX_RULES 12
#define IW_CHECK_MAX_MORE 2

/* A broken rule beyond the first, as iw_check holds the first. */
typedef struct iw_check_more {
	const char *req;
	enum iw_viol_kind kind;
	int layer, etype, ecode;
	char detail[240];
} iw_check_more;

/* A broken rule: its requirement ID (a static string) and what the sender did; how a receiver
 * takes it (kind: FATAL when it must refuse the segment, SENDER when it ignores the fault) and
 * the error it reports then (layer/etype/ecode as iw_violation has them, -1 when none applies).
 * A check of rules that do not depend on one another (an FPDU's pad and marker fields, a DDP
 * header's DV and reserved bits) goes on past the first broken one and records the others in
 * more[]: a judge that lists every violation (decode) reads them, one that stops at the first
 * (the runner) need not. And the rules the check applied, broken or not (static strings, in the
 * order applied). */
typedef struct iw_check {
	const char *req;
	char detail[240];
	enum iw_viol_kind kind;
	int layer, etype, ecode;
	size_t nmore;
	iw_check_more more[IW_CHECK_MAX_MORE];
	size_t nrules;
	const char *rules[IW_CHECK_MAX_RULES];
} iw_check;

/* ---- verify_mpa.c ---- */

/* The rules an FPDU the decoder accepted may still break as sent: zero pad octets, marker
 * RESERVED zero and FPDUPTR a multiple of 4 (each judged, the broken ones after the first in
 * out->more). */
bool iw_verify_fpdu(const iw_fpdu *fp, iw_check *out);

/* No ULPDU is longer than 64768 octets, whatever the MSS (MPA-3.2-04). */
bool iw_verify_ulpdu_size(const iw_fpdu *fp, iw_check *out);

/* The requirement a stream the decoder refused breaks on the sender's side: a CRC error is
 * MPA-5.2-11 (the CRC the sender computes), a marker error MPA-5.1-03, or MPA-4.1-01 when the
 * refused marker has its halves swapped (FPDUPTR in RESERVED's place); anything else is the
 * decoder's own requirement. fp is the FPDU the decoder was refusing (its markers as seen), or
 * NULL. */
const char *iw_verify_stream_req(const iw_violation *err, const iw_fpdu *fp);

/* True when the decoder refused fp for its CRC and the field holds the right CRC with its octets
 * the wrong way round: the sender sent it most-significant octet first (A1: least-significant
 * first, MPA-5.2-11). fp as iw_verify_stream_req takes it. */
bool iw_verify_crc_reversed(const iw_violation *err, const iw_fpdu *fp);

/* ---- verify_ddp.c ---- */

/* The sender's state the segment rules need: the next MSN per queue and the message being
 * received. Zeroed by iw_source_init. */
typedef struct iw_source {
	uint32_t next_msn[4];       /* QN 0-3 */
	bool in_msg;                /* a message has begun and not ended with L=1 */
	iw_ddp_hdr first;           /* its first segment's header */
	unsigned opcode;
	size_t len;                 /* its payload octets so far */
	size_t nseg;                /* its segments so far */
	unsigned msn_known;         /* queues (bit QN) whose next MSN is known: all from the start */
	bool joined;                /* met mid-stream (iw_source_join) and no segment taken yet */
} iw_source;

void iw_source_init(iw_source *s);

/* A source met mid-stream (a dump that does not begin with the connection): each queue's first
 * MSN is taken as it comes, and the first segment may continue a message already under way. */
void iw_source_join(iw_source *s);

/* A sender's ULPDU parsed by the engine (iw_rdmap_parse under p) and held to the header rules its
 * sender keeps: a tagged segment has the 14-octet tagged header (DDP-6.2-01) whose RsvdULP is
 * RDMAP's control octet as RDMAP set it, its RV and an opcode that travels tagged (DDP-6.2-02);
 * an untagged segment has the 18-octet untagged header (DDP-6.3-01). A ULPDU shorter than the
 * header its T bit announces breaks the header rule of that T. Other refusals keep the engine's
 * requirement (RFC 5040's RV and opcode rules on an untagged segment). On success *m is the
 * message. */
bool iw_verify_ulpdu(const iw_profile *p, const uint8_t *ulpdu, size_t len, iw_rdmap_msg *m, iw_check *out);

/* The rules of a DDP header alone, which need no message around it: DV is the profile's
 * (DDP-6.1-09: the data source sends DV=1; a receiver refuses another with the T-appropriate
 * "invalid DDP version" code) and the reserved bits are zero (DDP-6.1-08, ignored by receivers).
 * Both judged; iw_verify_segment begins with them. For a judge that has the header of a ULPDU
 * iw_verify_ulpdu refused (an RDMAP field wrong), so these faults are named too. */
bool iw_verify_ddp_hdr(const iw_profile *p, const iw_ddp_hdr *h, iw_check *out);

/* One DDP segment a sender sent (m parsed by iw_rdmap_parse under profile p), judged against
 * the message it continues or begins. On success the segment is taken into s (a message ends with its L=1
 * segment); on failure s is left as it was. */
bool iw_verify_segment(iw_source *s, const iw_profile *p, const iw_rdmap_msg *m, iw_check *out);

/* Takes a segment iw_verify_segment refused into s as the sender meant it, for a judge that
 * reads on past a fault (decode): the message it continues (same model, opcode and STag, or QN
 * and MSN), or a new one from it, its queue's next MSN the one after its own. So one wrong MSN is
 * one violation, not one per message after it. */
void iw_source_take(iw_source *s, const iw_rdmap_msg *m);

/* ---- verify_read.c ---- */

/* A Read Response held to the Read Request it answers (RFC5040-5.2-03, as the runner and the
 * network fuzzer cite it: a valid Read Request is answered with one Read Response to the Data
 * Sink STag and TO it named, of exactly its RDMA Read Message Size; the Data Source answers the
 * Requests in the order they came, RFC5040-5.5-03). The rule the runner's model holds a DUT's
 * Responses to (suite/run/exec_model.c) and decode each side's (suite/capture/decode_reads.h).
 * first: the header of the Response's first segment; len: its payload octets so far; complete:
 * its L=1 segment is among them. A judge that sees the message whole calls it once with
 * complete; one that reads segment by segment calls it on each (a Response found wrong need not
 * be judged again). The segments' own order (each TO following on, one STag throughout) is
 * iw_verify_segment's (DDP-7.2-07, DDP-6.2-08). */
bool iw_verify_read_resp(const iw_read_req *rr, const iw_ddp_hdr *first, uint64_t len, bool complete, iw_check *out);

/* ---- verify_startup.c ---- */

/* A Request or Reply (kind: the one its sender had to send) held to the rules its sender keeps:
 * iw_mpa_frame_check's findings, appended to out, each named by the sender's rule: a wrong Key
 * (MPA-6.1-R5, or the other frame's Key, R8a) breaks MPA-6.1.1-01 in a Request and -03 in a
 * Reply; a Rev the profile refuses (MPA-6.1.1-07) breaks -06, or RFC5044-7.1.1-01 under an RFC
 * profile; a PD_Length the receiver refuses (MPA-6.1-R9a) breaks -08, or RFC5044-7.1.1-04; an
 * Enhanced frame without room for its IRD/ORD block (RFC6581-6-03), Res and R (MPA-6.1.1-05, -R1)
 * are the sender's rules already. The sentence keeps the receiver's
 * rule. The runner judges the DUT's frames and decode each side's with it, so both cite one
 * rule. False when a receiver must refuse the frame. */
bool iw_verify_startup_frame(const iw_profile *p, const iw_mpa_frame *f, enum iw_mpa_kind kind, iw_viol_list *out);

/* The sender's rule behind a receiver's under profile p (as iw_verify_startup_frame names it). */
const char *iw_verify_startup_sender_req(const iw_profile *p, const char *receiver_req, enum iw_mpa_kind kind);

/* The sender's Rev rule a frame breaks whose Rev (one the receiver accepts) is not want_rev, the
 * one its sender had to send: RFC6581-9.1-01 where that is an enhanced frame's 2, else the
 * profile's Rev rule as iw_verify_startup_sender_req names it (for the model's and a case's own
 * Rev expectations). */
const char *iw_verify_startup_rev_req(const iw_profile *p, uint8_t want_rev);

/* The profile a Reply of reply_rev is judged by, answering a Request of request_rev under p: p,
 * except for a Reply in the Request's own revision where p may answer that revision (RFC 5044
 * Appendix C.2.4's permissive responder answering an RDMAC Request in Rev 0, which
 * RFC5044-7.1.1-01 takes beside "senders MUST set this field to one"): the profile of that
 * revision. The runner and decode judge a Reply by it alike. */
const iw_profile *iw_verify_reply_profile(const iw_profile *p, uint8_t request_rev, uint8_t reply_rev);

/* The sender's rules iw_verify_startup_frame applies to a frame of this kind under p (static
 * strings, at most cap of them into rules): for a runner's list of what it judged. */
size_t iw_verify_startup_rules(const iw_profile *p, enum iw_mpa_kind kind, const char **rules, size_t cap);

#endif
