/*
 * decode_conn.h - judging one TCP connection of a capture, both directions.
 *
 * The direction that starts with a Request is the initiator's, the other the responder's.
 * The profile is the one given, or the one the Request's Rev speaks (0 rddp-mpa-01, 1 rfc5044,
 * 2 rfc6581), the responder's the one its Reply shows where that answers such a Request
 * (decode_profile.h); a missing Reply is blamed only when no such profile may refuse. Markers are on what a side sends iff the peer's frame had M=1, CRC iff either
 * frame had C=1. Both frames and every FPDU are decoded by decode_stream.h, with each
 * violation's requirement ID, stream offset and capture frame; across the two directions the
 * startup rules are checked too: no FPDU from the initiator before the Reply (MPA-6.1-R3a),
 * none from the responder before a valid FPDU arrived (MPA-6.1-R4), none after a reject
 * (MPA-6.1-R2e, R3c), no Reply to an invalid Request (MPA-6.1-R2b), and a valid Request that
 * no Reply answers by the end of the connection (its RST or FINs, a new SYN on its ports, or
 * the end of the capture) breaks MPA-6.1-R2f: the responder returns a Reply (R=0 when it
 * accepts, R=1 under R2c when it rejects; the spec words both as SHOULD and has no MUST that a
 * Reply be sent, so this is the rule the missing Reply breaks). Octets the capture lacks are
 * reported where the hole is, and nothing past it is judged (a "capture" violation).
 *
 * A connection the reader handed out early (evicted for its limits), or a direction it stopped
 * keeping, is judged as far as it was kept and carries a note saying so: not a violation of the
 * traffic, and no missing Reply is claimed for it, since the rest was not seen.
 */
#ifndef IW_DECODE_CONN_H
#define IW_DECODE_CONN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "decode_stream.h"
#include "pcap_read.h"
#include "profile.h"

/* The requirement tag of findings about the capture itself, not the traffic. */
#define IW_REQ_CAPTURE "capture"

enum iw_decode_out {
	IW_DECODE_OUT_QUIET,        /* nothing printed: the verdict only */
	IW_DECODE_OUT_TEXT,         /* every field and violation, as text */
	IW_DECODE_OUT_JSON,         /* the same as a JSON object (iw_conn_verdict.json) */
};

/* Bits of iw_decode_conn_opts.unjudged_roles, and the index of a role in the per-side fields. */
#define IW_DECODE_INI 0
#define IW_DECODE_RSP 1

typedef struct iw_decode_conn_opts {
	enum iw_decode_out out;
	const iw_profile *profile;  /* NULL: from the Request's Rev */
	iw_viol_list *viol;         /* room for the violations (emptied first) */
	/* Whose violations are listed but not judged (decode_dut.h): bit 1 << IW_DECODE_INI the
	 * initiator's, 1 << IW_DECODE_RSP the responder's (--side); bit 1 << k the sender of capture
	 * direction k, 0 the client's (--dut). 0 and 0: both sides judged. */
	unsigned unjudged_roles;
	unsigned unjudged_dirs;
} iw_decode_conn_opts;

typedef struct iw_conn_verdict {
	bool mpa;                   /* judged as MPA: a startup frame, or a profile without frames */
	char why_not[128];          /* when not: why */
	const char *profile;        /* the initiator's profile, when judged */
	const char *profile_rsp;    /* the responder's: the same, or the one its Reply showed */
	char profile_why[256];      /* which profile judged each side and why (decode_profile.h) */
	char profile_brief[128];    /* the same in short */
	char excused[224];          /* when a missing Reply is no fault: why */
	size_t fpdus[2];            /* FPDUs decoded: [0] the initiator's, [1] the responder's */
	size_t violations;          /* violations, the capture's own findings (holes) included */
	iw_decode_first first;      /* the first of them */
	const char *first_role;     /* whose stream it is in: "initiator" or "responder" */
	/* The same per side, [IW_DECODE_INI] the initiator's stream and [IW_DECODE_RSP] the
	 * responder's, and whether that side is judged (iw_decode_conn_opts); judged_violations
	 * counts the judged sides' alone: the connection's verdict. */
	size_t viols_by[2];
	iw_decode_first first_by[2];
	bool judged[2];
	size_t judged_violations;
	int ini_dir;                /* the capture direction the initiator sent (0: the client's) */
	bool no_reply;              /* a valid Request, and no Reply by the end of the connection */
	bool incomplete;            /* not judged to its end (evicted, or a direction the reader cut) */
	char note[192];             /* then: why, as the first note said */
	size_t terminates;          /* Terminate messages decoded, both ways */
	json_t *json;               /* IW_DECODE_OUT_JSON: the connection object (the caller's) */
} iw_conn_verdict;

/* Judges connection c, which the reader handed out for the reason in end. */
void iw_decode_conn(const iw_pcap_conn *c, const iw_pcap_end *end, const iw_decode_conn_opts *o,
		    iw_conn_verdict *v);

#endif
