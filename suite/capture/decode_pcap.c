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
	size_t nviol;
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

/* The one line of a connection. */
static void summary_line(const iw_pcap_conn *c, const iw_conn_verdict *v)
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
	if (!v->violations && v->excused[0])
		printf("conforms; %s", v->excused);
	else if (!v->violations)
		printf("conforms");
	else if (v->violations == 1)
		printf("1 violation, %s: %s", v->first_role, v->first.text);
	else
		printf("%zu violations, the first %s: %s", v->violations, v->first_role, v->first.text);
	if (v->incomplete)
		printf("; NOTE (not judged to its end): %s", v->note);
	printf("\n");
}

static void json_conn(capctx *cc, const iw_pcap_conn *c, const iw_pcap_end *end, iw_conn_verdict *v)
{
	if (!v->json)
		return;
	uint64_t f0, f1;
	frames_of(c, &f0, &f1);
	json_t *s = json_pack("{s:[I, I], s:[I, I], s:s, s:I, s:b, s:b, s:s}", "frames", (json_int_t)f0,
			      (json_int_t)f1, "fpdus", (json_int_t)v->fpdus[0], (json_int_t)v->fpdus[1], "verdict",
			      v->violations ? "violations" : "conforms", "violation_count", (json_int_t)v->violations,
			      "no_reply", v->no_reply, "judged_to_end", !v->incomplete, "end", end_name(end->why));
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
	};
	iw_conn_verdict v;
	iw_decode_conn(c, end, &co, &v);
	cc->terminates += v.terminates;
	if (!v.mpa) {
		cc->not_mpa++;
	} else {
		cc->mpa++;
		cc->nviol += v.violations;
		if (v.violations)
			cc->with_viol++;
		else
			cc->conform++;
		cc->no_reply += v.no_reply;
		cc->incomplete += v.incomplete;
	}
	if (o->json)
		json_conn(cc, c, end, &v);
	else if (!o->details)
		summary_line(c, &v);
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
	if (cc->mpa) {
		printf("%zu MPA connection%s: %zu conform, %zu with violations", cc->mpa, plural(cc->mpa), cc->conform,
		       cc->with_viol);
		printf(" (%zu Request%s without a Reply, MPA-6.1-R2a)", cc->no_reply, plural(cc->no_reply));
		if (cc->incomplete)
			printf("; %zu not judged to their end (evicted or cut: --max-conns, --max-buffer)", cc->incomplete);
		if (cc->not_mpa)
			printf("; %zu other TCP connection%s skipped (not MPA)", cc->not_mpa, plural(cc->not_mpa));
		printf("\n");
	}
	if (cc->mpa == 0)
		printf("nothing to judge: %s\n", cc->nothing);
	else if (cc->nviol)
		printf("%zu violation%s in %zu MPA connection%s\n", cc->nviol, plural(cc->nviol), cc->mpa, plural(cc->mpa));
	else if (cc->incomplete)
		printf("the capture conforms as far as it was judged: %zu MPA connection%s, %zu not to their end (raise "
		       "--max-conns or --max-buffer to judge them whole)\n", cc->mpa, plural(cc->mpa), cc->incomplete);
	else
		printf("the capture conforms: %zu MPA connection%s\n", cc->mpa, plural(cc->mpa));
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
	if (info->frames == 0)
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
	json_t *t = json_pack("{s:I, s:I, s:I, s:b, s:I}", "frames", (json_int_t)info->frames, "tcp_connections",
			      (json_int_t)info->conns, "violation_count", (json_int_t)cc->nviol, "conforms",
			      !error && cc->nviol == 0 && cc->mpa > 0, "terminates", (json_int_t)cc->terminates);
	json_object_set_new(t, "summary",
			    json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "mpa_connections", (json_int_t)cc->mpa,
				      "conforming", (json_int_t)cc->conform, "with_violations", (json_int_t)cc->with_viol,
				      "requests_without_reply", (json_int_t)cc->no_reply, "not_judged_to_end",
				      (json_int_t)cc->incomplete, "not_mpa", (json_int_t)cc->not_mpa, "late_segments",
				      (json_int_t)info->late, "peak_open", (json_int_t)info->peak_open));
	if (info->warning[0])
		json_object_set_new(t, "warning", json_string(info->warning));
	if (!error && cc->mpa == 0)
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
	if (cc.mpa == 0)
		nothing_why(&cc, &info);
	if (o->json)
		json_end(&cc, &info, NULL);
	else
		text_summary(&cc, &info);
	if (cc.mpa == 0) {
		if (o->json)
			fprintf(stderr, "iwspec decode: nothing to judge: %s\n", cc.nothing);
		return IW_DECODE_NO_MPA;
	}
	return cc.nviol ? IW_DECODE_VIOLATIONS : IW_DECODE_CONFORMS;
}
