/*
 * decode_pcap.c - a capture judged connection by connection as it is read: one line (or every
 * detail) per connection, then the summary (see decode_pcap.h).
 */
#include "decode_pcap.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_conn.h"

/* Room for one connection's violations; past it they are counted, not printed. */
#define MAX_VIOLS 4096

typedef struct capctx {
	const iw_decode_opts *o;
	const char *path;
	iw_viol_list viol;
	size_t mpa, conform, with_viol, no_reply, incomplete, not_mpa;
	size_t nviol;               /* violations on the sides judged: the verdict */
	size_t unjudged;            /* violations listed on the sides not judged (--side, --dut) */
	size_t viol_by[2];          /* per side (IW_DECODE_INI, IW_DECODE_RSP): violations, judged or not */
	size_t conns_by[2];         /* ... and the connections with any */
	size_t not_dut;             /* MPA connections without the DUT's endpoint (--dut) */
	size_t no_side;             /* ... with it, but on the side --side leaves out */
	size_t terminates;
	char nothing[160];          /* no MPA connection: why, for the verdict line */
	bool json_started;
	size_t json_conns;
} capctx;

/* A JSON value printed at an indentation, the way JSON_INDENT(2) lays out a whole document. */
static void put_json(const json_t *j, int indent)
{
	char *s = json_dumps(j, JSON_INDENT(2) | JSON_ENCODE_ANY);
	if (!s)
		return;
	for (const char *p = s; *p; p++) {
		putchar(*p);
		if (*p == '\n')
			printf("%*s", indent, "");
	}
	free(s);
}

static void start(void *ctx, const iw_pcap_info *info)
{
	capctx *cc = ctx;
	(void)info;
	if (!cc->o->json)
		return;
	json_t *path = json_string(cc->path);
	printf("{\n  \"capture\": ");
	put_json(path, 2);
	printf(",\n  \"connections\": [");
	json_decref(path);
	cc->json_started = true;
}

static const char *end_name(enum iw_pcap_why why)
{
	switch (why) {
	case IW_PCAP_END_CLOSED: return "closed";
	case IW_PCAP_END_REUSED: return "ports reused";
	case IW_PCAP_END_CAPTURE: return "capture ended";
	case IW_PCAP_END_EVICTED: return "evicted (--max-conns)";
	default: return "evicted (--max-buffer)";
	}
}

static void frames_of(const iw_pcap_conn *c, uint64_t *first, uint64_t *last)
{
	*first = c->first_frame;
	*last = c->dir[0].last_frame > c->dir[1].last_frame ? c->dir[0].last_frame : c->dir[1].last_frame;
	if (*last < *first)
		*last = *first;
}

/* Whether one side alone is judged (--side, --dut). */
static bool filtered(const iw_decode_opts *o)
{
	return o->side != IW_DECODE_SIDE_BOTH || o->dut.set;
}

static const char *role_name(int ri)
{
	return ri == IW_DECODE_INI ? "initiator" : "responder";
}

/* Why no side of a connection is judged, or NULL when one is: neither endpoint is the DUT, or
 * the DUT has the role --side leaves out. */
static const char *none_judged(const capctx *cc, const iw_conn_verdict *v, bool dut_in, char *buf, size_t cap)
{
	if (!dut_in) {
		snprintf(buf, cap, "neither endpoint is the DUT (%s)", cc->o->dut.text);
		return buf;
	}
	if (v->judged[IW_DECODE_INI] || v->judged[IW_DECODE_RSP])
		return NULL;
	snprintf(buf, cap, "the DUT is the %s here (--side %s)",
		 cc->o->side == IW_DECODE_SIDE_RESPONDER ? "initiator" : "responder",
		 cc->o->side == IW_DECODE_SIDE_RESPONDER ? "responder" : "initiator");
	return buf;
}

/* The one line of a connection. With one side judged, its verdict is that side's, the line says
 * whose, and the other side's violations are left to the summary (said once). */
static void summary_line(const capctx *cc, const iw_pcap_conn *c, const iw_conn_verdict *v, bool dut_in)
{
	char a[64], b[64];
	iw_pcap_endpoint(c, 0, a, sizeof a);
	iw_pcap_endpoint(c, 1, b, sizeof b);
	uint64_t f0, f1;
	frames_of(c, &f0, &f1);
	if (!v->mpa) {
		printf("connection %llu: %s <-> %s, frames %llu-%llu: not MPA (%s), skipped\n", (unsigned long long)c->number,
		       a, b, (unsigned long long)f0, (unsigned long long)f1, v->why_not);
		return;
	}
	printf("connection %llu: %s -> %s, frames %llu-%llu, FPDUs %zu+%zu, profile %s: ", (unsigned long long)c->number,
	       a, b, (unsigned long long)f0, (unsigned long long)f1, v->fpdus[0], v->fpdus[1], v->profile_brief);
	char why[160];
	if (none_judged(cc, v, dut_in, why, sizeof why)) {
		printf("not judged: %s", why);
		if (v->incomplete)
			printf("; NOTE (not judged to its end): %s", v->note);
		printf("\n");
		return;
	}
	const iw_decode_first *first = &v->first;
	const char *whose = v->first_role;
	if (filtered(cc->o) && !(v->judged[IW_DECODE_INI] && v->judged[IW_DECODE_RSP])) {
		int ri = v->judged[IW_DECODE_INI] ? IW_DECODE_INI : IW_DECODE_RSP;
		first = &v->first_by[ri];
		whose = NULL;
		printf("%s%s: ", cc->o->dut.set ? "the DUT, " : "", role_name(ri));
	}
	size_t n = v->judged_violations;
	if (!n && v->excused[0])
		printf("conforms; %s", v->excused);
	else if (!n)
		printf("conforms");
	else if (n == 1 && whose)
		printf("1 violation, %s: %s", whose, first->text);
	else if (n == 1)
		printf("1 violation: %s", first->text);
	else if (whose)
		printf("%zu violations, the first %s: %s", n, whose, first->text);
	else
		printf("%zu violations, the first: %s", n, first->text);
	if (v->incomplete)
		printf("; NOTE (not judged to its end): %s", v->note);
	printf("\n");
}

static void json_conn(capctx *cc, const iw_pcap_conn *c, const iw_pcap_end *end, iw_conn_verdict *v, bool dut_in)
{
	if (!v->json)
		return;
	uint64_t f0, f1;
	frames_of(c, &f0, &f1);
	char why[160];
	const char *none = none_judged(cc, v, dut_in, why, sizeof why);
	json_t *s = json_pack("{s:[I, I], s:[I, I], s:s, s:I, s:b, s:b, s:s}", "frames", (json_int_t)f0,
			      (json_int_t)f1, "fpdus", (json_int_t)v->fpdus[0], (json_int_t)v->fpdus[1], "verdict",
			      none ? "not judged" : v->judged_violations ? "violations" : "conforms", "violation_count",
			      (json_int_t)v->judged_violations, "no_reply", v->no_reply, "judged_to_end", !v->incomplete,
			      "end", end_name(end->why));
	json_object_set_new(s, "violations_by_side",
			    json_pack("{s:I, s:I}", "initiator", (json_int_t)v->viols_by[IW_DECODE_INI], "responder",
				      (json_int_t)v->viols_by[IW_DECODE_RSP]));
	if (filtered(cc->o)) {
		json_t *j = json_array();
		for (int ri = 0; ri < 2; ri++)
			if (v->judged[ri])
				json_array_append_new(j, json_string(role_name(ri)));
		json_object_set_new(s, "judged_sides", j);
		json_object_set_new(s, "violations_not_judged",
				    json_integer((json_int_t)(v->violations - v->judged_violations)));
		if (none)
			json_object_set_new(s, "not_judged", json_string(none));
	}
	if (v->first.set)
		json_object_set_new(s, "first", json_string(v->first.text));
	if (v->incomplete)
		json_object_set_new(s, "note", json_string(v->note));
	if (v->excused[0])
		json_object_set_new(s, "no_reply_excused", json_string(v->excused));
	json_object_set_new(v->json, "summary", s);
	printf("%s\n    ", cc->json_conns++ ? "," : "");
	put_json(v->json, 4);
	json_decref(v->json);
	v->json = NULL;
}

static void conn(void *ctx, iw_pcap_conn *c, const iw_pcap_end *end)
{
	capctx *cc = ctx;
	const iw_decode_opts *o = cc->o;
	iw_decode_conn_opts co = {
		.out = o->json ? IW_DECODE_OUT_JSON : o->details ? IW_DECODE_OUT_TEXT : IW_DECODE_OUT_QUIET,
		.profile = o->profile,
		.viol = &cc->viol,
		.unjudged_roles = o->side == IW_DECODE_SIDE_INITIATOR   ? 1u << IW_DECODE_RSP
				  : o->side == IW_DECODE_SIDE_RESPONDER ? 1u << IW_DECODE_INI
									: 0u,
	};
	/* --dut: the side whose endpoint is the DUT's is judged; both, when both are (give the port). */
	bool dut_in = true;
	if (o->dut.set) {
		bool m0 = iw_decode_dut_is(&o->dut, c, 0), m1 = iw_decode_dut_is(&o->dut, c, 1);
		dut_in = m0 || m1;
		co.unjudged_dirs = (m0 ? 0u : 1u) | (m1 ? 0u : 2u);
	}
	iw_conn_verdict v;
	iw_decode_conn(c, end, &co, &v);
	cc->terminates += v.terminates;
	if (!v.mpa) {
		cc->not_mpa++;
	} else {
		cc->mpa++;
		for (int ri = 0; ri < 2; ri++) {
			cc->viol_by[ri] += v.viols_by[ri];
			cc->conns_by[ri] += v.viols_by[ri] != 0;
		}
		cc->nviol += v.judged_violations;
		cc->unjudged += v.violations - v.judged_violations;
		if (!dut_in)
			cc->not_dut++;
		else if (!v.judged[IW_DECODE_INI] && !v.judged[IW_DECODE_RSP])
			cc->no_side++;
		else if (v.judged_violations)
			cc->with_viol++;
		else
			cc->conform++;
		cc->no_reply += v.no_reply;
		cc->incomplete += v.incomplete;
	}
	if (o->json)
		json_conn(cc, c, end, &v, dut_in);
	else if (!o->details)
		summary_line(cc, c, &v, dut_in);
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

static void text_summary(const capctx *cc, const iw_pcap_info *info)
{
	if (!cc->o->details && (cc->mpa || cc->not_mpa))
		printf("\n");
	printf("capture %s: %llu frames (%s), %llu TCP connection%s, at most %zu open at once\n", cc->path,
	       (unsigned long long)info->frames, info->linkname ? info->linkname : "?", (unsigned long long)info->conns,
	       plural((size_t)info->conns), info->peak_open);
	if (info->warning[0])
		printf("note: %s\n", info->warning);
	if (cc->mpa && cc->o->profile)
		printf("profile: %s for every connection (given)\n", cc->o->profile->name);
	else if (cc->mpa)
		printf("profiles: each connection's from its Request's Rev (0 rddp-mpa-01, 1 rfc5044, 2 rfc6581, any other "
		       "rfc5044), a responder's from its Reply's Rev where an RFC responder may answer such a Request so; "
		       "--profile fixes one\n");
	if (info->late)
		printf("note: %llu segment%s came after their connection was judged (a late ACK or retransmission, "
		       "or the rest of an evicted connection): not judged\n",
		       (unsigned long long)info->late, plural((size_t)info->late));
	/* One side judged: said once, here, with what the other side's violations came to. */
	bool one = filtered(cc->o);
	const char *only = cc->o->side == IW_DECODE_SIDE_RESPONDER ? "responder" : "initiator";
	const char *other = cc->o->dut.set                         ? "the other side"
			    : cc->o->side == IW_DECODE_SIDE_RESPONDER ? "the initiator"
								      : "the responder";
	char rest[160];
	if (cc->unjudged)
		snprintf(rest, sizeof rest, "%s's %zu violation%s %s listed as not judged%s", other, cc->unjudged,
			 plural(cc->unjudged), cc->unjudged == 1 ? "is" : "are", cc->o->details ? " above" : " (--details)");
	else
		snprintf(rest, sizeof rest, "%s's octets have no violation", other);
	if (cc->mpa && cc->o->dut.set)
		printf("judged: the DUT's side only (--dut %s: the endpoint it has, initiator or responder as each "
		       "connection has it%s%s%s); %s\n", cc->o->dut.text, cc->o->side ? ", and only where it is the " : "",
		       cc->o->side ? only : "", cc->o->side ? ", --side" : "", rest);
	else if (cc->mpa && one)
		printf("judged: the %s's side only (--side %s); %s\n", only, only, rest);
	if (cc->mpa) {
		printf("%zu MPA connection%s: %zu conform, %zu with violations%s", cc->mpa, plural(cc->mpa), cc->conform,
		       cc->with_viol, one ? " on the side judged" : "");
		printf(" (%zu Request%s without a Reply, MPA-6.1-R2a)", cc->no_reply, plural(cc->no_reply));
		if (cc->not_dut)
			printf("; %zu without the DUT as an endpoint, not judged", cc->not_dut);
		if (cc->no_side)
			printf("; %zu with the DUT as the %s, not judged (--side)", cc->no_side,
			       cc->o->side == IW_DECODE_SIDE_RESPONDER ? "initiator" : "responder");
		if (cc->incomplete)
			printf("; %zu not judged to their end (evicted or cut: --max-conns, --max-buffer)", cc->incomplete);
		if (cc->not_mpa)
			printf("; %zu other TCP connection%s skipped (not MPA)", cc->not_mpa, plural(cc->not_mpa));
		printf("\n");
	}
	if (cc->mpa && (cc->viol_by[0] || cc->viol_by[1] || one))
		printf("violations by side: initiator %zu in %zu connection%s, responder %zu in %zu connection%s\n",
		       cc->viol_by[IW_DECODE_INI], cc->conns_by[IW_DECODE_INI], plural(cc->conns_by[IW_DECODE_INI]),
		       cc->viol_by[IW_DECODE_RSP], cc->conns_by[IW_DECODE_RSP], plural(cc->conns_by[IW_DECODE_RSP]));
	size_t judged = cc->conform + cc->with_viol;
	const char *on = one ? " on the side judged" : "";
	if (cc->mpa == 0 || judged == 0)
		printf("nothing to judge: %s\n", cc->nothing);
	else if (cc->nviol)
		printf("%zu violation%s%s in %zu MPA connection%s\n", cc->nviol, plural(cc->nviol), on, judged, plural(judged));
	else if (cc->incomplete)
		printf("the capture conforms%s as far as it was judged: %zu MPA connection%s, %zu not to their end (raise "
		       "--max-conns or --max-buffer to judge them whole)\n", on, judged, plural(judged), cc->incomplete);
	else
		printf("the capture conforms%s: %zu MPA connection%s\n", on, judged, plural(judged));
	/* A Terminate is legal on the wire; whether the error it reports was one depends on the
	 * peer's registrations and posted buffers, which a capture does not show. */
	if (cc->terminates)
		printf("note: %zu Terminate message%s in the capture: a peer reported an error it found (%s); whether "
		       "it had to cannot be judged from the wire alone\n",
		       cc->terminates, plural(cc->terminates), cc->o->details ? "listed above" : "--details lists them");
}

/* Why a capture holds nothing to judge, said plainly: no packet at all, no TCP, or TCP
 * connections none of which is iWARP. */
static void nothing_why(capctx *cc, const iw_pcap_info *info)
{
	if (cc->mpa && cc->not_dut == cc->mpa)
		snprintf(cc->nothing, sizeof cc->nothing, "none of its %zu MPA connection%s has the DUT (%s) as an endpoint",
			 cc->mpa, plural(cc->mpa), cc->o->dut.text);
	else if (cc->mpa)
		snprintf(cc->nothing, sizeof cc->nothing, "in none of its %zu MPA connection%s is the DUT the %s (--side)",
			 cc->mpa, plural(cc->mpa), cc->o->side == IW_DECODE_SIDE_RESPONDER ? "responder" : "initiator");
	else if (info->frames == 0)
		snprintf(cc->nothing, sizeof cc->nothing, "the capture holds no packets%s",
			 info->linktype < 0 ? " (a pcapng file without an interface)" : "");
	else if (info->conns == 0)
		snprintf(cc->nothing, sizeof cc->nothing, "no TCP segment in its %llu frame%s",
			 (unsigned long long)info->frames, plural((size_t)info->frames));
	else
		snprintf(cc->nothing, sizeof cc->nothing,
			 "no iWARP (MPA) connection: none of its %llu TCP connection%s starts with an MPA Request or Reply",
			 (unsigned long long)info->conns, plural((size_t)info->conns));
}

static void json_end(const capctx *cc, const iw_pcap_info *info, const char *error)
{
	size_t judged = cc->conform + cc->with_viol;
	json_t *t = json_pack("{s:I, s:I, s:I, s:b, s:I}", "frames", (json_int_t)info->frames, "tcp_connections",
			      (json_int_t)info->conns, "violation_count", (json_int_t)cc->nviol, "conforms",
			      !error && cc->nviol == 0 && judged > 0, "terminates", (json_int_t)cc->terminates);
	json_object_set_new(t, "summary",
			    json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "mpa_connections", (json_int_t)cc->mpa,
				      "conforming", (json_int_t)cc->conform, "with_violations", (json_int_t)cc->with_viol,
				      "requests_without_reply", (json_int_t)cc->no_reply, "not_judged_to_end",
				      (json_int_t)cc->incomplete, "not_mpa", (json_int_t)cc->not_mpa, "late_segments",
				      (json_int_t)info->late, "peak_open", (json_int_t)info->peak_open));
	json_t *sum = json_object_get(t, "summary");
	json_object_set_new(sum, "violations_by_side",
			    json_pack("{s:{s:I, s:I}, s:{s:I, s:I}}", "initiator", "violations",
				      (json_int_t)cc->viol_by[IW_DECODE_INI], "connections",
				      (json_int_t)cc->conns_by[IW_DECODE_INI], "responder", "violations",
				      (json_int_t)cc->viol_by[IW_DECODE_RSP], "connections",
				      (json_int_t)cc->conns_by[IW_DECODE_RSP]));
	if (filtered(cc->o)) {
		/* What was judged: violation_count and conforms are that side's alone. */
		json_object_set_new(t, "judged", json_string(cc->o->dut.set ? "dut"
							  : cc->o->side == IW_DECODE_SIDE_RESPONDER ? "responder"
												    : "initiator"));
		if (cc->o->dut.set)
			json_object_set_new(t, "dut", json_string(cc->o->dut.text));
		if (cc->o->side)
			json_object_set_new(t, "side", json_string(cc->o->side == IW_DECODE_SIDE_RESPONDER ? "responder"
												  : "initiator"));
		json_object_set_new(t, "violations_not_judged", json_integer((json_int_t)cc->unjudged));
		json_object_set_new(sum, "without_dut", json_integer((json_int_t)cc->not_dut));
		json_object_set_new(sum, "dut_on_other_side", json_integer((json_int_t)cc->no_side));
	}
	if (info->warning[0])
		json_object_set_new(t, "warning", json_string(info->warning));
	if (!error && judged == 0)
		json_object_set_new(t, "nothing_to_judge", json_string(cc->nothing));
	if (error)
		json_object_set_new(t, "error", json_string(error));
	printf("%s]", cc->json_conns ? "\n  " : "");
	const char *key;
	json_t *val;
	json_object_foreach(t, key, val) {
		printf(",\n  \"%s\": ", key);
		put_json(val, 2);
	}
	printf("\n}\n");
	json_decref(t);
}

void iw_decode_opts_default(iw_decode_opts *o)
{
	memset(o, 0, sizeof *o);
	iw_pcap_limits_default(&o->limits);
}

enum iw_decode_status iw_decode_capture(const char *path, const iw_decode_opts *o)
{
	capctx cc;
	memset(&cc, 0, sizeof cc);
	cc.o = o;
	cc.path = path;
	cc.viol.v = calloc(MAX_VIOLS, sizeof *cc.viol.v);
	cc.viol.cap = cc.viol.v ? MAX_VIOLS : 0;
	iw_pcap_sink sink = {.ctx = &cc, .start = start, .conn = conn};
	iw_pcap_info info;
	char msg[512];
	int rc = iw_pcap_each_conn(path, &o->limits, &sink, &info, msg, sizeof msg);
	free(cc.viol.v);
	if (rc) {
		if (cc.json_started)
			json_end(&cc, &info, msg);
		fflush(stdout);
		fprintf(stderr, "iwspec decode: %s\n", msg);
		return IW_DECODE_UNREADABLE;
	}
	bool none = cc.conform + cc.with_viol == 0;
	if (none)
		nothing_why(&cc, &info);
	if (o->json)
		json_end(&cc, &info, NULL);
	else
		text_summary(&cc, &info);
	if (none) {
		if (o->json)
			fprintf(stderr, "iwspec decode: nothing to judge: %s\n", cc.nothing);
		return IW_DECODE_NO_MPA;
	}
	return cc.nviol ? IW_DECODE_VIOLATIONS : IW_DECODE_CONFORMS;
}
