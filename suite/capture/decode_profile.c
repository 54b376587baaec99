/*
 * decode_profile.c - the profile of each side of a connection, and why (see decode_profile.h).
 */
#include "decode_profile.h"

#include <stdio.h>
#include <string.h>

#include "iw_proto.h"

/* The RFC profiles: a Request of their revisions may come from either (RFC 6581 accepts Rev 1
 * too), and a responder of either answers or refuses other revisions. */
static const enum iw_profile_id rfcs[] = {IW_PROFILE_RFC5044, IW_PROFILE_RFC6581};
#define NRFCS (sizeof rfcs / sizeof rfcs[0])

/* How frame buf reads under q: -1 it does not decode or a receiver of q must refuse it, else
 * the number of rules its sender broke that receivers ignore (Res bits and the like). */
static int judged(const iw_profile *q, const uint8_t *buf, size_t len, enum iw_mpa_kind kind, iw_mpa_frame *f,
		  size_t *flen)
{
	iw_violation vs[8];
	iw_viol_list l = {.v = vs, .cap = 8};
	if (iw_mpa_frame_decode(q, buf, len, f, flen, NULL) != IW_OK)
		return -1;
	return iw_mpa_frame_check(q, f, kind, &l) ? (int)(l.n + l.dropped) : -1;
}

void iw_decode_profiles_guess(iw_decode_profiles *pp, const iw_profile *given, const uint8_t *req, size_t len,
			      bool request)
{
	pp->given = given != NULL;
	if (given) {
		pp->ini = pp->rsp = given;
		snprintf(pp->why, sizeof pp->why, "%s (given)", given->name);
		snprintf(pp->brief, sizeof pp->brief, "%s (given)", given->name);
		return;
	}
	if (!request || len <= IW_MPA_FRAME_OFF_REV) {
		pp->ini = pp->rsp = iw_profile_default();
		snprintf(pp->why, sizeof pp->why, "%s (the default: no Request gives a Rev; --profile chooses another)",
			 pp->ini->name);
		snprintf(pp->brief, sizeof pp->brief, "%s (default, no Request)", pp->ini->name);
		return;
	}
	uint8_t rev = iw_mpa_frame_rev(req);
	const iw_profile *p = iw_profile_of_rev(rev);
	pp->ini = pp->rsp = p ? p : iw_profile_default();
	snprintf(pp->brief, sizeof pp->brief, "%s (%s Rev %u)", pp->ini->name, p ? "from" : "default, for", rev);
	if (!p) {
		snprintf(pp->why, sizeof pp->why,
			 "%s (the default: no profile speaks the Request's Rev %u; --profile chooses another)",
			 pp->ini->name, rev);
		return;
	}
	snprintf(pp->why, sizeof pp->why, "%s (guessed from the Request's Rev %u; --profile chooses another)", p->name,
		 rev);
	/* A Request its Rev's profile finds fault with, which another profile accepting that Rev
	 * takes as it is (a Rev 1 Request with RFC 6581's Enhanced bit), is that profile's. */
	iw_mpa_frame f;
	size_t flen = 0;
	if (judged(p, req, len, IW_MPA_REQUEST, &f, &flen) == 0)
		return;
	for (size_t i = 0; i < NRFCS; i++) {
		const iw_profile *q = iw_profile_get(rfcs[i]);
		if (q == p || !iw_profile_rev_ok(q, rev) || judged(q, req, len, IW_MPA_REQUEST, &f, &flen) != 0)
			continue;
		pp->ini = pp->rsp = q;
		snprintf(pp->why, sizeof pp->why,
			 "%s (guessed from the Request: its Rev %u, which %s also accepts, and fields that conform to %s only; "
			 "--profile chooses another)", q->name, rev, q->name, q->name);
		snprintf(pp->brief, sizeof pp->brief, "%s (from Rev %u and its fields)", q->name, rev);
		return;
	}
}

/* A responder of q may answer this Request: q answers its Rev (accepts it, or as an RFC may
 * interoperate with it) and, the Rev aside, may take it (a PD_Length within q's limit). */
static bool may_answer(const iw_profile *q, const iw_mpa_frame *req)
{
	if (!iw_profile_may_answer(q, req->rev))
		return false;
	iw_mpa_frame r = *req;
	r.rev = q->mpa_rev;
	return iw_mpa_frame_check(q, &r, IW_MPA_REQUEST, NULL);
}

bool iw_decode_profiles_reply(iw_decode_profiles *pp, const iw_mpa_frame *req, const uint8_t *rep, size_t len,
			      iw_mpa_frame *f, size_t *flen)
{
	if (pp->given || len <= IW_MPA_FRAME_OFF_REV)
		return false;
	iw_mpa_frame g;
	size_t glen = 0;
	int here = judged(pp->ini, rep, len, IW_MPA_REPLY, &g, &glen);
	if (here == 0)
		return false;
	/* The profile the Reply's Rev names first, then the RFCs: the first whose responder may
	 * answer this Request and sends this Reply as it is; failing that, one where it is at least
	 * acceptable when it is not acceptable under the initiator's. */
	uint8_t rev = iw_mpa_frame_rev(rep);
	const iw_profile *named = iw_profile_of_rev(rev), *cand[1 + NRFCS] = {named};
	size_t n = named != NULL;
	for (size_t i = 0; i < NRFCS; i++)
		if (iw_profile_get(rfcs[i]) != named)
			cand[n++] = iw_profile_get(rfcs[i]);
	const iw_profile *pick = NULL;
	for (int pass = 0; pass < 2 && !pick; pass++) {
		for (size_t i = 0; i < n && !pick; i++) {
			const iw_profile *q = cand[i];
			if (q == pp->ini || !may_answer(q, req))
				continue;
			int there = judged(q, rep, len, IW_MPA_REPLY, &g, &glen);
			if (pass == 0 ? there == 0 : (there > 0 && here < 0))
				pick = q;
		}
	}
	if (!pick)
		return false;
	*f = g;
	*flen = glen;
	pp->rsp = pick;
	size_t w = strlen(pp->why);
	snprintf(pp->why + w, sizeof pp->why - w,
		 "; the responder's %s (from its Reply, Rev %u: an %s responder may answer a Rev %u Request so)", pick->name,
		 rev, pick->mpa_doc, req->rev);
	w = strlen(pp->brief);
	snprintf(pp->brief + w, sizeof pp->brief - w, ", responder %s (Reply Rev %u)", pick->name, rev);
	return true;
}

/* True when a responder of q may close on this Request rather than answer it. */
static bool may_refuse(const iw_profile *q, const uint8_t *req, size_t len)
{
	iw_mpa_frame f;
	size_t flen = 0;
	return judged(q, req, len, IW_MPA_REQUEST, &f, &flen) < 0;
}

const iw_profile *iw_decode_profiles_may_refuse(const iw_decode_profiles *pp, const uint8_t *req, size_t len)
{
	if (pp->given || len <= IW_MPA_FRAME_OFF_REV)
		return NULL;
	uint8_t rev = iw_mpa_frame_rev(req);
	for (size_t i = 0; i < NRFCS; i++) {
		const iw_profile *q = iw_profile_get(rfcs[i]);
		if (q != pp->ini && iw_profile_may_answer(q, rev) && may_refuse(q, req, len))
			return q;
	}
	return NULL;
}
