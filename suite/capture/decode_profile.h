/*
 * decode_profile.h - which profile judges each side of a connection in a capture, and why.
 *
 * With --profile, that profile judges both sides. Without it the Request's Rev names the
 * initiator's (0 rddp-mpa-01, 1 rfc5044, 2 rfc6581; another Rev: rfc5044, the default; a
 * Request that breaks a rule there but none under another profile accepting its Rev, such as a
 * Rev 1 Request with RFC 6581's Enhanced bit, is that profile's). The responder is held to the
 * same profile unless its Reply breaks a rule there and none under a profile whose responder
 * may answer such a Request: an RFC responder may answer a Request of another revision some
 * profile speaks, or close on it (RFC 5044 §7.1.1; requirements.md §4.1, TR-03), so a Rev 0
 * Request answered with a Rev 1 Reply is an RFC 5044 responder that chose to interoperate, as
 * `iwspec run` passes it (mpa.startup.resp.rev-00-rfc), not a draft responder with a wrong Rev.
 * For the same reason a Request no Reply answers is blamed only when no RFC responder may refuse
 * it (a draft responder is assumed for a Rev 0 Request only: one that closes on Rev 1 is judged
 * by --profile rddp-mpa-01). Decode does not blame what a profile consistent with the Request
 * allows, unless the profile was given; and it says which profile judged each side and why.
 */
#ifndef IW_DECODE_PROFILE_H
#define IW_DECODE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mpa_frame.h"
#include "profile.h"

typedef struct iw_decode_profiles {
	const iw_profile *ini;      /* the initiator's */
	const iw_profile *rsp;      /* the responder's (the same unless its Reply showed another) */
	bool given;
	char why[256];              /* "rfc5044 (guessed from the Request's Rev 1; ...)" and the like */
	char brief[128];            /* the same in short, for a line per connection: "rfc5044 (Rev 1)" */
} iw_decode_profiles;

/* Before the frames are decoded: the profile given, else the one the Request's Rev names.
 * req: the initiator's octets, which begin with a Request when request is true. */
void iw_decode_profiles_guess(iw_decode_profiles *pp, const iw_profile *given, const uint8_t *req, size_t len,
			      bool request);

/* Once both frames are decoded (req valid under pp->ini): when the Reply breaks a rule of
 * pp->ini but none of a profile whose responder may answer this Request (the profile its own
 * Rev names first, then the RFCs), or is refused under pp->ini and acceptable there, that
 * profile judges the responder from now on; *f and *flen are the Reply decoded under it.
 * Returns true when the responder's profile changed. */
bool iw_decode_profiles_reply(iw_decode_profiles *pp, const iw_mpa_frame *req, const uint8_t *rep, size_t len,
			      iw_mpa_frame *f, size_t *flen);

/* A Request no Reply answers (valid under pp->ini): NULL when every profile a responder may
 * speak must answer it, else one whose responder may close on it instead (it accepts no such
 * Rev, or refuses the Request for another reason). Always NULL when the profile was given. */
const iw_profile *iw_decode_profiles_may_refuse(const iw_decode_profiles *pp, const uint8_t *req, size_t len);

#endif
