/*
 * decode_conn.c - one connection of a capture, judged direction by direction and across the
 * two (see decode_conn.h).
 */
#include "decode_conn.h"

#include <stdio.h>
#include <string.h>

#include "decode_profile.h"
#include "decode_reads.h"
#include "iw_proto.h"
#include "mpa_frame.h"

typedef struct connctx {
	const iw_decode_conn_opts *o;
	iw_conn_verdict *v;
	json_t *jc;                 /* JSON: the connection object */
} connctx;

typedef struct side {
	int dir;                    /* index into iw_pcap_conn.dir */
	const iw_pcap_stream *s;
	bool has_frame;             /* a startup frame decoded (header complete) */
	iw_mpa_frame f;
	size_t flen;
	bool frame_ok;              /* no fatal defect */
	const char *role;           /* "initiator" or "responder" */
	int ri;                     /* IW_DECODE_INI or IW_DECODE_RSP */
	bool judged;                /* its violations count (iw_decode_conn_opts) */
	json_t *items, *viols, *jnotes;
} side;

static bool json_out(const connctx *cc)
{
	return cc->o->out == IW_DECODE_OUT_JSON;
}

static bool text_out(const connctx *cc)
{
	return cc->o->out == IW_DECODE_OUT_TEXT;
}

static void dir_header(connctx *cc, const iw_pcap_conn *c, const side *sd, const char *role, bool markers, bool crc,
		       bool full)
{
	char from[64], to[64];
	iw_pcap_endpoint(c, sd->dir, from, sizeof from);
	iw_pcap_endpoint(c, !sd->dir, to, sizeof to);
	const iw_pcap_stream *s = sd->s;
	if (json_out(cc)) {
		json_t *j = json_pack("{s:s, s:s, s:s, s:I}", "role", role, "from", from, "to", to, "octets",
				      (json_int_t)s->len);
		if (s->first_frame)
			json_object_set_new(j, "frames", json_pack("[I, I]", (json_int_t)s->first_frame,
								   (json_int_t)s->last_frame));
		if (s->fin)
			json_object_set_new(j, "fin_frame", json_integer((json_int_t)s->fin_frame));
		if (s->rst)
			json_object_set_new(j, "rst_frame", json_integer((json_int_t)s->rst_frame));
		if (full) {
			json_object_set_new(j, "markers", json_boolean(markers));
			json_object_set_new(j, "crc", json_boolean(crc));
		}
		if (!sd->judged)
			json_object_set_new(j, "judged", json_false());
		json_object_set_new(j, "items", json_incref(sd->items));
		json_object_set_new(j, "violations", json_incref(sd->viols));
		if (json_array_size(sd->jnotes))
			json_object_set_new(j, "notes", json_incref(sd->jnotes));
		json_array_append_new(json_object_get(cc->jc, "directions"), j);
		return;
	}
	if (!text_out(cc))
		return;
	printf("%s %s -> %s: %zu octets", role, from, to, s->len);
	if (s->first_frame)
		printf(", frames %llu-%llu", (unsigned long long)s->first_frame, (unsigned long long)s->last_frame);
	if (s->fin)
		printf(", FIN at frame %llu", (unsigned long long)s->fin_frame);
	if (s->rst)
		printf(", RST at frame %llu", (unsigned long long)s->rst_frame);
	if (full)
		printf("; markers %s, CRC %s", markers ? "on" : "off", crc ? "on" : "off");
	if (!sd->judged)
		printf("; not judged: its violations are listed, not counted");
	printf("\n");
	if (s->retransmitted || s->out_of_order)
		printf("  (TCP: %zu retransmitted and %zu out-of-order segments put in place)\n", s->retransmitted,
		       s->out_of_order);
}

static void ctx_for(connctx *cc, side *sd, iw_decode_ctx *o, uint64_t base)
{
	memset(o, 0, sizeof *o);
	o->json = json_out(cc);
	o->quiet = cc->o->out == IW_DECODE_OUT_QUIET;
	o->items = sd->items;
	o->viols = sd->viols;
	o->viol = cc->o->viol;
	o->cap = sd->s;
	o->cap_base = base;
	/* Nor has the sender ended its stream when it sent neither FIN nor RST: the capture, or the
	 * peer (its RST, or a harness that stopped reading), ended first. */
	o->stops_early = sd->s->hole || sd->s->cut || !(sd->s->fin || sd->s->rst);
	o->terminates = &cc->v->terminates;
	o->first = &cc->v->first_by[sd->ri];
	o->unjudged = !sd->judged;
}

/* A connection not judged to its end (the reader's limits): no violation of the traffic, but
 * said wherever the verdict is. */
static void note(connctx *cc, json_t *where, const char *d)
{
	cc->v->incomplete = true;
	if (!cc->v->note[0])
		snprintf(cc->v->note, sizeof cc->v->note, "%s", d);
	if (json_out(cc))
		json_array_append_new(where, json_string(d));
	else if (text_out(cc))
		printf("  NOTE (not judged to its end): %s\n", d);
}

/* Findings about the capture and the TCP stream of one direction. */
static void stream_notes(connctx *cc, side *sd, uint64_t base)
{
	iw_decode_ctx o;
	ctx_for(cc, sd, &o, 0);
	const iw_pcap_stream *s = sd->s;
	char d[192];
	if (s->conflicts) {
		snprintf(d, sizeof d,
			 "%zu retransmitted segments carry octets that differ from the first copy (first at stream "
			 "octet %llu, frame %llu); the first copy is judged",
			 s->conflicts, (unsigned long long)s->conflict_off, (unsigned long long)s->conflict_frame);
		iw_decode_violation(&o, IW_REQ_CAPTURE, IW_VIOL_SENDER, -1, 0, 0, 0, d);
	}
	o.cap = NULL;
	uint64_t at = s->len >= base ? s->len - base : 0;
	if (s->hole) {
		if (s->hole_len)
			snprintf(d, sizeof d,
				 "%llu octets are missing from the capture after stream octet %zu (the next data is in "
				 "frame %llu): nothing past the hole is judged (%llu octets)",
				 (unsigned long long)s->hole_len, s->len, (unsigned long long)s->hole_frame,
				 (unsigned long long)s->beyond);
		else
			snprintf(d, sizeof d, "frame %llu was cut by the snap length after stream octet %zu: nothing "
					      "past it is judged", (unsigned long long)s->hole_frame, s->len);
		iw_decode_violation(&o, IW_REQ_CAPTURE, IW_VIOL_FATAL, -1, 0, 0, at, d);
	}
	if (s->cut) {
		snprintf(d, sizeof d, "the %s's stream is judged up to octet %zu only: %s (%llu more octets "
				      "captured)", sd->role, s->len,
			 s->cut == IW_PCAP_CUT_BUDGET   ? "the octets held for open connections reached --max-buffer"
			 : s->cut == IW_PCAP_CUT_PIECES ? "too many out-of-order pieces waited for a gap"
							: "out of memory",
			 (unsigned long long)s->beyond);
		note(cc, sd->jnotes, d);
	}
}

static void no_fpdus(connctx *cc, side *sd, const char *req, const char *why)
{
	if (sd->s->len <= sd->flen)
		return;
	iw_decode_ctx o;
	ctx_for(cc, sd, &o, sd->flen);
	char d[192];
	snprintf(d, sizeof d, "%zu octets follow the startup frame %s", sd->s->len - sd->flen, why);
	iw_decode_violation(&o, req, IW_VIOL_FATAL, -1, 0, 0, 0, d);
}

/* How the connection ended, for the findings that depend on it. */
static void end_text(const iw_pcap_conn *c, const iw_pcap_end *end, char *buf, size_t cap)
{
	switch (end->why) {
	case IW_PCAP_END_CLOSED:
		if (c->dir[0].rst || c->dir[1].rst) {
			bool r0 = c->dir[0].rst && (!c->dir[1].rst || c->dir[0].rst_frame <= c->dir[1].rst_frame);
			snprintf(buf, cap, "the connection was reset (RST at frame %llu)",
				 (unsigned long long)c->dir[r0 ? 0 : 1].rst_frame);
		} else {
			snprintf(buf, cap, "the connection closed (FIN both ways, the last at frame %llu)",
				 (unsigned long long)end->frame);
		}
		break;
	case IW_PCAP_END_REUSED:
		snprintf(buf, cap, "a new connection took its ports (SYN at frame %llu)", (unsigned long long)end->frame);
		break;
	default:
		snprintf(buf, cap, "the capture ended (frame %llu) with the connection still open",
			 (unsigned long long)end->frame);
		break;
	}
}

static void evicted(connctx *cc, const iw_pcap_end *end)
{
	char d[192];
	if (end->why == IW_PCAP_END_EVICTED)
		snprintf(d, sizeof d, "evicted at frame %llu, when more than %zu connections were open at once "
				      "(--max-conns): its later segments are not judged", (unsigned long long)end->frame,
			 end->limit);
	else
		snprintf(d, sizeof d, "evicted at frame %llu, when the octets held for open connections reached %zu "
				      "(--max-buffer): its later segments are not judged", (unsigned long long)end->frame,
			 end->limit);
	note(cc, json_object_get(cc->jc, "notes"), d);
}

/* The initiator sent the Request; if both sent one, the first to send is the initiator and
 * the other is judged as the responder it should have been (Initiator/Initiator, R8a). */
static int initiator_of(const iw_pcap_conn *c, const int guess[2], bool culley)
{
	bool req0 = guess[0] == IW_MPA_REQUEST, req1 = guess[1] == IW_MPA_REQUEST;
	bool rep0 = guess[0] == IW_MPA_REPLY, rep1 = guess[1] == IW_MPA_REPLY;
	bool earlier1 = c->dir[1].first_frame && (!c->dir[0].first_frame || c->dir[1].first_frame < c->dir[0].first_frame);
	if (culley)
		return 0;
	if (req0 != req1)
		return req1 ? 1 : 0;
	if (req0)
		return earlier1 ? 1 : 0;        /* both sent a Request */
	if (rep0 != rep1)
		return rep0 ? 1 : 0;            /* only a Reply: its sender is the responder */
	return earlier1 ? 1 : 0;
}

/* The rule a responder broke by answering the initiator's invalid Request with a Reply, or
 * NULL when the answer is one it may give: a Request whose Rev it may answer (profile.h,
 * iw_profile_may_answer), or an Enhanced Request without room for its IRD/ORD block (it breaks
 * the sender's RFC6581-6-03; RFC 6581 says nothing of what its receiver does: reject, close or
 * accept).
 * Any other fault of the Request has it close without a Reply (MPA-6.1-R2b). */
static const char *answered_invalid(const iw_profile *p, const iw_mpa_frame *req)
{
	iw_violation vs[8];
	iw_viol_list l = {.v = vs, .cap = 8};
	iw_mpa_frame_check(p, req, IW_MPA_REQUEST, &l);
	for (size_t i = 0; i < l.n; i++) {
		if (vs[i].kind != IW_VIOL_FATAL)
			continue;
		if (!strcmp(vs[i].req, "MPA-6.1.1-07") && iw_profile_may_answer(p, req->rev))
			continue;
		if (!strcmp(vs[i].req, "RFC6581-6-03"))
			continue;
		return "MPA-6.1-R2b";
	}
	return l.dropped ? "MPA-6.1-R2b" : NULL;
}

/* A valid Request that nothing answered (MPA-6.1-R2a as iwspec holds it, the runner's rule too:
 * docs/case-language.md). False when that cannot be told: the connection was not seen to its end (the eviction is the finding then). */
static bool no_reply(connctx *cc, const iw_pcap_conn *c, const iw_pcap_end *end, const side *ini, side *rsp,
		     const iw_decode_profiles *pp)
{
	if (end->why == IW_PCAP_END_EVICTED || end->why == IW_PCAP_END_OVER_HELD)
		return false;
	/* A responder of another profile may close on this Request: silence is no fault then. */
	const iw_profile *q = iw_decode_profiles_may_refuse(pp, ini->s->data, ini->flen);
	if (q) {
		snprintf(cc->v->excused, sizeof cc->v->excused,
			 "no Reply, which is no violation here: an %s responder may refuse a Rev %u Request by closing "
			 "(--profile %s holds the responder to a Reply)", q->mpa_doc, ini->f.rev, pp->ini->name);
		if (text_out(cc))
			printf("  %s\n", cc->v->excused);
		else if (json_out(cc))
			json_array_append_new(json_object_get(cc->jc, "notes"), json_string(cc->v->excused));
		return true;
	}
	char how[96], d[192];
	end_text(c, end, how, sizeof how);
	uint64_t fq = iw_pcap_frame_of(ini->s, ini->flen - 1);
	/* Octets behind the Request: an initiator sends none before a valid Reply, and no text says
	 * what a responder does with them (requirements.md §6 A6); RFC 5044 §7.1.2 rule 9 lets it read
	 * them as Private Data beyond PD_Length and close on an improperly formatted Request. A
	 * close without a Reply is no fault then (mpa.startup.resp.extra-bytes-after-request). */
	if (ini->s->len > ini->flen && end->why == IW_PCAP_END_CLOSED) {
		snprintf(cc->v->excused, sizeof cc->v->excused,
			 "no Reply, which is no violation here: %zu octets followed the Request, and a responder may "
			 "close on them (A6; RFC 5044 §7.1.2 rule 9)", ini->s->len - ini->flen);
		if (text_out(cc))
			printf("  %s\n", cc->v->excused);
		else if (json_out(cc))
			json_array_append_new(json_object_get(cc->jc, "notes"), json_string(cc->v->excused));
		return true;
	}
	iw_decode_ctx o;
	ctx_for(cc, rsp, &o, 0);
	cc->v->no_reply = true;
	/* Octets behind the Request and the connection left open: the Reply it did not send is only
	 * what it should (MPA-6.1-R2f), as the runner holds it. */
	if (ini->s->len > ini->flen) {
		snprintf(d, sizeof d, "no Reply to the Request (frame %llu, %zu octets behind it) before %.90s",
			 (unsigned long long)fq, ini->s->len - ini->flen, how);
		iw_decode_violation(&o, "MPA-6.1-R2f", IW_VIOL_FATAL, -1, 0, 0, 0, d);
		return true;
	}
	snprintf(d, sizeof d, "no Reply to the Request (frame %llu): the responder sent nothing before %s",
		 (unsigned long long)fq, how);
	iw_decode_violation(&o, "MPA-6.1-R2a", IW_VIOL_FATAL, -1, 0, 0, 0, d);
	return true;
}

void iw_decode_conn(const iw_pcap_conn *c, const iw_pcap_end *end, const iw_decode_conn_opts *opts,
		    iw_conn_verdict *v)
{
	memset(v, 0, sizeof *v);
	opts->viol->n = opts->viol->dropped = 0;
	connctx cc = {.o = opts, .v = v};
	const iw_profile *forced = opts->profile;
	side sd[2];
	memset(sd, 0, sizeof sd);
	int guess[2];
	for (int k = 0; k < 2; k++) {
		sd[k].dir = k;
		sd[k].s = &c->dir[k];
		guess[k] = !iw_decode_looks_like_frame(c->dir[k].data, c->dir[k].len) ? -1
			   : c->dir[k].data[IW_MPA_KEY_DIFF_OCTET] == 'p'              ? IW_MPA_REPLY
										       : IW_MPA_REQUEST;
	}
	bool culley = forced && !forced->startup_frames;
	char a[64], b[64];
	iw_pcap_endpoint(c, 0, a, sizeof a);
	iw_pcap_endpoint(c, 1, b, sizeof b);
	if (guess[0] < 0 && guess[1] < 0 && !culley) {
		snprintf(v->why_not, sizeof v->why_not, "neither direction starts with a startup frame%s",
			 c->handshake ? "" : "; the capture has no SYN and may start mid-connection");
		if (text_out(&cc))
			printf("connection %llu: %s <-> %s: not MPA (%s), skipped\n\n", (unsigned long long)c->number, a, b,
			       v->why_not);
		return;
	}
	v->mpa = true;
	int ini = initiator_of(c, guess, culley);
	int rsp = !ini;
	sd[ini].role = "initiator";
	sd[rsp].role = "responder";
	sd[ini].ri = IW_DECODE_INI;
	sd[rsp].ri = IW_DECODE_RSP;
	v->ini_dir = ini;
	for (int k = 0; k < 2; k++) {
		sd[k].judged = !(opts->unjudged_roles & (1u << sd[k].ri)) && !(opts->unjudged_dirs & (1u << k));
		v->judged[sd[k].ri] = sd[k].judged;
	}

	/* The initiator's profile from its Request's Rev (or the one given); the responder's the
	 * same, unless its Reply shows another that answers such a Request (decode_profile.h). */
	iw_decode_profiles pp;
	iw_decode_profiles_guess(&pp, forced, c->dir[ini].data, c->dir[ini].len, guess[ini] == IW_MPA_REQUEST);
	const iw_profile *ps[2];
	ps[ini] = ps[rsp] = pp.ini;

	/* Both frames first, silently: each direction's markers depend on the other's frame. */
	for (int k = 0; k < 2 && !culley; k++) {
		const iw_pcap_stream *s = sd[k].s;
		if (guess[k] < 0)
			continue;
		int rc = iw_mpa_frame_decode(pp.ini, s->data, s->len, &sd[k].f, &sd[k].flen, NULL);
		sd[k].has_frame = rc == IW_OK;
		if (rc == IW_OK)
			sd[k].frame_ok = iw_mpa_frame_check(pp.ini, &sd[k].f, k == ini ? IW_MPA_REQUEST : IW_MPA_REPLY, NULL);
	}
	if (!culley && sd[ini].frame_ok && sd[rsp].has_frame &&
	    iw_decode_profiles_reply(&pp, &sd[ini].f, sd[rsp].s->data, sd[rsp].s->len, &sd[rsp].f, &sd[rsp].flen)) {
		ps[rsp] = pp.rsp;
		sd[rsp].frame_ok = true;
	}
	v->profile = pp.ini->name;
	v->profile_rsp = pp.rsp->name;
	snprintf(v->profile_why, sizeof v->profile_why, "%s", pp.why);
	snprintf(v->profile_brief, sizeof v->profile_brief, "%s", pp.brief);
	bool started = culley || (sd[ini].frame_ok && sd[rsp].frame_ok);
	bool rejected = !culley && started && sd[rsp].f.r && ps[rsp]->r_bit;
	bool full = started && !rejected;
	bool mk[2], crc;
	mk[ini] = culley || sd[rsp].f.m;
	mk[rsp] = culley || sd[ini].f.m;
	crc = culley || sd[ini].f.c || sd[rsp].f.c;

	if (json_out(&cc)) {
		cc.jc = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:b, s:[]}", "connection", (json_int_t)c->number,
				  "client", a, "server", b, "profile", pp.ini->name, "responder_profile", pp.rsp->name,
				  "profile_reason", pp.why, "handshake", c->handshake, "directions");
		json_object_set_new(cc.jc, "notes", json_array());
		v->json = cc.jc;
	} else if (text_out(&cc)) {
		printf("connection %llu: %s -> %s, profile %s\n", (unsigned long long)c->number, a, b, pp.why);
		if (!c->handshake)
			printf("  (no SYN in the capture: the connection may have started before it)\n");
	}
	if (json_out(&cc))
		for (int k = 0; k < 2; k++) {
			sd[k].items = json_array();
			sd[k].viols = json_array();
			sd[k].jnotes = json_array();
		}

	uint64_t first_end[2] = {0, 0};
	for (int n = 0; n < 2; n++) {
		int k = n == 0 ? ini : rsp;
		side *x = &sd[k];
		size_t before = opts->viol->n + opts->viol->dropped;
		if (!json_out(&cc))
			dir_header(&cc, c, x, k == ini ? "initiator" : "responder", mk[k], crc, full);
		if (text_out(&cc) && full && x->s->len > x->flen)
			printf("  (FPDU offsets count from SeqStart, the first octet after the %s)\n",
			       culley ? "connection's start" : k == ini ? "Request" : "Reply");
		iw_decode_ctx o;
		ctx_for(&cc, x, &o, 0);
		if (!culley) {
			if (x->s->len == 0) {
				if (k == rsp && sd[ini].frame_ok && !x->s->hole && !x->s->cut &&
				    !no_reply(&cc, c, end, &sd[ini], x, &pp) &&
				    text_out(&cc))
					printf("  the responder sent nothing\n");
			} else if (guess[k] < 0) {
				iw_decode_violation(&o, k == ini ? "MPA-6.1-R1a" : "MPA-6.1-R2f", IW_VIOL_FATAL, IW_LAYER_LLP,
						    IW_LLP_ET_MPA, IW_MPA_E_STARTUP, 0,
						    k == ini ? "the initiator's first octets are not a Request"
							     : "the responder's first octets are not a Reply");
			} else {
				/* A Reply is judged as the runner judges it (iw_verify_reply_profile). */
				const iw_profile *fp = k == rsp && sd[ini].has_frame && sd[rsp].has_frame
							       ? iw_verify_reply_profile(ps[k], sd[ini].f.rev, sd[rsp].f.rev) : ps[k];
				iw_decode_frame(&o, fp, x->s->data, x->s->len, k == ini ? IW_MPA_REQUEST : IW_MPA_REPLY,
						true, NULL);
			}
		}
		const char *answered = k == rsp && !culley && sd[ini].has_frame && !sd[ini].frame_ok && sd[rsp].has_frame
					       ? answered_invalid(ps[rsp], &sd[ini].f) : NULL;
		if (answered)
			iw_decode_violation(&o, answered, IW_VIOL_FATAL, -1, 0, 0, 0,
					    strcmp(answered, "MPA-6.1-R2b")
						    ? "the responder accepted (R=0) an Enhanced Request without room for its "
						      "IRD/ORD block; it must reject it (R=1) or close"
						    : "the responder answered an invalid Request; it must close without a Reply");
		/* A Reply before the Request was whole, or to one that never was: the responder waits
		 * for a received and validated Request (MPA-6.1-R2a, as the runner holds it). */
		if (k == rsp && !culley && guess[ini] == IW_MPA_REQUEST && guess[rsp] == IW_MPA_REPLY && !sd[ini].s->hole &&
		    !sd[ini].s->cut) {
			const iw_pcap_stream *q = sd[ini].s;
			uint64_t f_rep = iw_pcap_frame_of(x->s, 0);
			uint64_t f_req = q->len >= sd[ini].flen && sd[ini].flen ? iw_pcap_frame_of(q, sd[ini].flen - 1) : 0;
			if (f_rep && (!f_req || f_req > f_rep)) {
				char d[192];
				if (f_req)
					snprintf(d, sizeof d, "the responder's Reply began in frame %llu, before the Request was "
						 "complete (frame %llu)", (unsigned long long)f_rep, (unsigned long long)f_req);
				else
					snprintf(d, sizeof d, "the responder sent a Reply (frame %llu) to a Request that never "
						 "completed (%zu of its %zu octets arrived)", (unsigned long long)f_rep, q->len,
						 sd[ini].flen);
				iw_decode_violation(&o, "MPA-6.1-R2a", IW_VIOL_FATAL, -1, 0, 0, 0, d);
			}
		}
		if (full) {
			ctx_for(&cc, x, &o, x->flen);
			/* Frames mark the conversation's start; without them, so does a SYN. */
			o.mid_stream = culley && !c->handshake;
			/* This side's Read Responses answer the Read Requests the other side sent. */
			iw_decode_peer peer = {.p = ps[!k], .s = sd[!k].s, .base = sd[!k].flen, .markers = mk[!k], .crc = crc};
			o.reads = iw_decode_reads_new(&peer);
			if (x->s->len > x->flen)
				v->fpdus[k == ini ? 0 : 1] = iw_decode_fpdus(&o, ps[k], mk[k], crc, 0, x->s->data + x->flen,
									    x->s->len - x->flen, &first_end[k]);
			iw_decode_reads_free(o.reads);
		} else if (rejected) {
			no_fpdus(&cc, x, k == rsp ? "MPA-6.1-R2e" : "MPA-6.1-R3c",
				 k == rsp ? "after the responder rejected the connection (R=1): no FPDU may follow"
					  : "after the Reply rejected the connection (R=1): the initiator sends no FPDU");
		} else if (!culley && x->has_frame) {
			/* An initiator that had an invalid Reply closes and sends no FPDU (R3b); one that had
			 * none never enters full operation (R3a). */
			no_fpdus(&cc, x, k == ini ? sd[rsp].has_frame && !sd[rsp].frame_ok ? "MPA-6.1-R3b" : "MPA-6.1-R3a"
					     : "MPA-6.1-R4",
				 "although the startup failed: they are not judged as FPDUs");
		}
		/* Startup order across the two directions, by capture frame. */
		if (full && k == ini && x->s->len > x->flen && sd[rsp].flen) {
			uint64_t f_first = iw_pcap_frame_of(x->s, x->flen);
			uint64_t f_reply = iw_pcap_frame_of(sd[rsp].s, sd[rsp].flen - 1);
			if (f_first && f_reply && f_first < f_reply) {
				char d[160];
				snprintf(d, sizeof d, "the initiator sent FPDU octets in frame %llu, before the Reply "
						      "completed in frame %llu", (unsigned long long)f_first,
					 (unsigned long long)f_reply);
				iw_decode_violation(&o, "MPA-6.1-R3a", IW_VIOL_FATAL, -1, 0, 0, 0, d);
			}
		}
		if (full && k == rsp && x->s->len > x->flen) {
			uint64_t f_first = iw_pcap_frame_of(x->s, x->flen);
			uint64_t f_valid = first_end[ini] ? iw_pcap_frame_of(sd[ini].s, sd[ini].flen + first_end[ini] - 1) : 0;
			if (!f_valid || f_first < f_valid) {
				char d[192];
				if (f_valid)
					snprintf(d, sizeof d, "the responder sent FPDU octets in frame %llu, before the "
							      "initiator's first valid FPDU completed in frame %llu",
						 (unsigned long long)f_first, (unsigned long long)f_valid);
				else
					snprintf(d, sizeof d, "the responder sent FPDU octets (frame %llu) but never "
							      "received a valid FPDU", (unsigned long long)f_first);
				iw_decode_violation(&o, "MPA-6.1-R4", IW_VIOL_FATAL, -1, 0, 0, 0, d);
			}
		}
		stream_notes(&cc, x, x->flen);
		if (json_out(&cc))
			dir_header(&cc, c, x, k == ini ? "initiator" : "responder", mk[k], crc, full);
		v->viols_by[x->ri] = opts->viol->n + opts->viol->dropped - before;
		if (x->judged)
			v->judged_violations += v->viols_by[x->ri];
	}
	/* The initiator's stream is judged first: its first violation is the connection's. */
	int fr = v->first_by[IW_DECODE_INI].set ? IW_DECODE_INI : IW_DECODE_RSP;
	if (v->first_by[fr].set) {
		v->first = v->first_by[fr];
		v->first_role = fr == IW_DECODE_INI ? "initiator" : "responder";
	}
	if (end->why == IW_PCAP_END_EVICTED || end->why == IW_PCAP_END_OVER_HELD)
		evicted(&cc, end);
	if (text_out(&cc))
		printf("\n");
	for (int k = 0; k < 2; k++) {
		json_decref(sd[k].items);
		json_decref(sd[k].viols);
		json_decref(sd[k].jnotes);
	}
	v->violations = opts->viol->n + opts->viol->dropped;
}
