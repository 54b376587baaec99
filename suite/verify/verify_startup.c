/*
 * verify_startup.c - a startup frame held to the rules its sender keeps (verify.h).
 */
#include <stdio.h>
#include <string.h>

#include "verify.h"

/* The sender's Rev and PD_Length rules: RFC 5044 restates the draft's with its own values (Rev 1,
 * at most 512 octets), and RFC 6581 keeps them for its frames. */
static const char *rev_rule(const iw_profile *p)
{
	return p->id == IW_PROFILE_RFC5044 || p->id == IW_PROFILE_RFC6581 ? "RFC5044-7.1.1-01" : "MPA-6.1.1-06";
}

static const char *pd_length_rule(const iw_profile *p)
{
	return p->id == IW_PROFILE_RFC5044 || p->id == IW_PROFILE_RFC6581 ? "RFC5044-7.1.1-04" : "MPA-6.1.1-08";
}

static const char *key_rule(enum iw_mpa_kind kind)
{
	return kind == IW_MPA_REPLY ? "MPA-6.1.1-03" : "MPA-6.1.1-01";
}

/* iw_mpa_frame_check is written for the receiver: it names the rule a receiver applies when it
 * refuses the frame. A frame the judged side sent broke the sender's half of that rule. */
const char *iw_verify_startup_sender_req(const iw_profile *p, const char *receiver_req, enum iw_mpa_kind kind)
{
	if (!strcmp(receiver_req, "MPA-6.1-R5") || !strcmp(receiver_req, "MPA-6.1-R8a"))
		return key_rule(kind);
	if (!strcmp(receiver_req, "MPA-6.1.1-07"))
		return rev_rule(p);
	if (!strcmp(receiver_req, "MPA-6.1-R9a"))
		return pd_length_rule(p);
	return receiver_req;
}

const iw_profile *iw_verify_reply_profile(const iw_profile *p, uint8_t request_rev, uint8_t reply_rev)
{
	if (reply_rev != request_rev || reply_rev == p->mpa_rev || !iw_profile_may_answer(p, reply_rev))
		return p;
	const iw_profile *q = iw_profile_of_rev(reply_rev);
	return q ? q : p;
}

const char *iw_verify_startup_rev_req(const iw_profile *p, uint8_t want_rev)
{
	return p->enhanced && want_rev == 2 ? "RFC6581-9.1-01" : rev_rule(p);
}

size_t iw_verify_startup_rules(const iw_profile *p, enum iw_mpa_kind kind, const char **rules, size_t cap)
{
	const char *all[] = {key_rule(kind), rev_rule(p), pd_length_rule(p), "MPA-6.1.1-05",
			     kind == IW_MPA_REQUEST ? "MPA-6.1.1-R1" : NULL, p->enhanced ? "RFC6581-9.1-01" : NULL};
	size_t k = 0;
	for (size_t i = 0; i < sizeof all / sizeof all[0] && k < cap; i++)
		if (all[i])
			rules[k++] = all[i];
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
