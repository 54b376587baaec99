/*
 * verify_startup.c - a startup frame held to the rules its sender keeps (verify.h).
 */
#include <stdio.h>
#include <string.h>

#include "verify.h"

/* RFC 5044 restates the draft's sender rules for Rev and PD_Length with its own values; RFC 6581
 * keeps them for its frames and adds the IRD/ORD block. */
static bool rfc_profile(const iw_profile *p)
{
	return p->id == IW_PROFILE_RFC5044 || p->id == IW_PROFILE_RFC6581;
}

/* iw_mpa_frame_check is written for the receiver: it names the rule a receiver applies when it
 * refuses the frame. A frame the judged side sent broke the sender's half of that rule. */
const char *iw_verify_startup_sender_req(const iw_profile *p, const char *receiver_req, enum iw_mpa_kind kind)
{
	if (!strcmp(receiver_req, "MPA-6.1-R5") || !strcmp(receiver_req, "MPA-6.1-R8a"))
		return kind == IW_MPA_REPLY ? "MPA-6.1.1-03" : "MPA-6.1.1-01";
	if (!strcmp(receiver_req, "MPA-6.1.1-07"))
		return rfc_profile(p) ? "RFC5044-7.1.1-01" : "MPA-6.1.1-06";
	if (!strcmp(receiver_req, "MPA-6.1-R9a"))
		return rfc_profile(p) ? "RFC5044-7.1.1-04" : "MPA-6.1.1-08";
	if (!strcmp(receiver_req, "RFC6581-9.1-04"))
		return "RFC6581-9.1-01";
	return receiver_req;
}

const char *iw_verify_startup_rev_req(const iw_profile *p, uint8_t want_rev)
{
	if (p->enhanced && want_rev == 2)
		return "RFC6581-9.1-01";
	return rfc_profile(p) ? "RFC5044-7.1.1-01" : "MPA-6.1.1-06";
}

size_t iw_verify_startup_rules(const iw_profile *p, enum iw_mpa_kind kind, const char **rules, size_t cap)
{
	const char *all[6];
	size_t n = 0;
	all[n++] = kind == IW_MPA_REPLY ? "MPA-6.1.1-03" : "MPA-6.1.1-01";
	all[n++] = rfc_profile(p) ? "RFC5044-7.1.1-01" : "MPA-6.1.1-06";
	all[n++] = rfc_profile(p) ? "RFC5044-7.1.1-04" : "MPA-6.1.1-08";
	all[n++] = "MPA-6.1.1-05";
	if (kind == IW_MPA_REQUEST)
		all[n++] = "MPA-6.1.1-R1";
	if (p->enhanced)
		all[n++] = "RFC6581-9.1-01";
	size_t k = 0;
	for (; k < n && k < cap; k++)
		rules[k] = all[k];
	return k;
}

bool iw_verify_startup_frame(const iw_profile *p, const iw_mpa_frame *f, enum iw_mpa_kind kind, iw_viol_list *out)
{
	size_t from = out ? out->n : 0;
	bool ok = iw_mpa_frame_check(p, f, kind, out);
	for (size_t i = from; out && i < out->n; i++) {
		iw_violation *v = &out->v[i];
		const char *sender = iw_verify_startup_sender_req(p, v->req, kind);
		if (sender == v->req)
			continue;
		/* The receiver's rule stays in the sentence: it says what a peer does with the frame. */
		size_t n = strlen(v->detail);
		snprintf(v->detail + n, sizeof v->detail - n, "; a receiver refuses it, %s", v->req);
		v->req = sender;
	}
	return ok;
}
