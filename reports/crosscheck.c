/*
 * crosscheck.c - a run's verdicts against `iwspec decode` of each case's capture (see
 * crosscheck.h).
 */
#include "crosscheck.h"

#include <errno.h>
#include <jansson.h>
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "decode_conn.h"
#include "iw_grow.h"
#include "pcap_read.h"
#include "profile.h"
#include "report.h"

#define MAX_VIOLS 4096          /* one connection's, as `iwspec decode` holds them */
#define MAX_SEEN 64             /* distinct requirements kept per capture; past it, counted */
/* The wire log numbers perftest's comm connections from 32 (exec_perftest.c's COMM_NO), apart
 * from the case's own. */
#define COMM_CONN_BASE 32
#define MAX_COMM_CONNS 256      /* capture connections looked at for comm connections */

/* A requirement decode found broken in the DUT's octets of one capture. */
typedef struct seen {
	char req[32];
	char first[240];            /* "frame F: detail" of its first violation */
	size_t n;
	size_t after;               /* of them, in frames captured after the run's failure */
	size_t at;                  /* of them, in the octets the run failed on */
} seen;

/* Where a violation decode found lies against the run's failure. */
enum fail_pos { BEFORE_FAILURE, AT_FAILURE, AFTER_FAILURE };

/* What decode found in the DUT's octets of one capture. */
typedef struct capview {
	const iw_profile *p;        /* the case's profile, as `decode --profile` */
	int dut_side;               /* the DUT's side of each connection: 0 the client, 1 the server */
	iw_viol_list viol;
	seen s[MAX_SEEN];
	size_t ns, more;
	size_t fpdus;
	/* The run judges nothing after its first failure (the executor logs later octets "not
	 * judged after the failure"): violations decode finds after it are not held against the
	 * verdict. In the octets it failed on it stops at the first rule broken: a violation there
	 * that the run did not judge is not held against it either. Where the failure is
	 * (failure_at): on the capture's connection fail_conn (the k-th the case opened), the DUT's
	 * octets [fail_start, fail_end) of the wire entry the failure points at, when the wire
	 * log's DUT octets on it add up to the capture's (dut_total); elsewhere, and when they do
	 * not, by time: fail_us since the case's start against each frame's, t_us[f - 1]. */
	int64_t fail_us;            /* -1: no failure, every violation is compared */
	uint64_t fail_conn;         /* 0: the failure is on no connection of the capture */
	uint64_t fail_start, fail_end, dut_total;
	int64_t *t_us;
	size_t nt, capt;
	/* The capture's connection (numbered as they were opened) of the probe before the case, the
	 * wire log's connection 0 (suite/run/exec_startup.c ex_probe_served): it gives no verdict,
	 * the case's own connections do, so what decode finds on it is counted, not compared. */
	uint64_t probe_conn;
	size_t probe_violations;
	/* The same for perftest's comm connections (suite/run/exec_perftest.c, wire log connections
	 * from COMM_CONN_BASE): the means of the case, noted and not judged by the run (siw's pad
	 * octets, F1, show there on every case), so counted, not compared. comm[k]: the capture's
	 * connection k is one; a case opens a few, a retried one more. */
	bool comm[MAX_COMM_CONNS];
	size_t comm_violations;
} capview;

static const char *jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

/* The DUT's stream offset of the first octet frame f added to it, or UINT64_MAX. */
static uint64_t frame_off(const iw_pcap_stream *s, uint64_t f)
{
	for (size_t i = 0; i < s->npieces; i++)
		if (s->pieces[i].frame == f)
			return s->pieces[i].off;
	return UINT64_MAX;
}

/* Where a violation in frame fr of the DUT's stream s (of capture connection conn) lies against
 * the run's failure. by_off: the wire log's DUT octets on the failure's connection match s. */
static enum fail_pos failure_pos(const capview *cv, uint64_t conn, const iw_pcap_stream *s, bool by_off, json_int_t fr)
{
	if (cv->fail_us < 0 || fr <= 0)
		return BEFORE_FAILURE;
	if (conn == cv->fail_conn && by_off) {
		uint64_t off = frame_off(s, (uint64_t)fr);
		return off >= cv->fail_end ? AFTER_FAILURE : off >= cv->fail_start ? AT_FAILURE : BEFORE_FAILURE;
	}
	if ((size_t)fr > cv->nt)
		return BEFORE_FAILURE;
	int64_t t = cv->t_us[fr - 1];
	return t > cv->fail_us ? AFTER_FAILURE : t == cv->fail_us ? AT_FAILURE : BEFORE_FAILURE;
}

static void note_seen(capview *cv, const json_t *v, enum fail_pos pos)
{
	const char *req = jstr(v, "requirement");
	if (!strcmp(req, IW_REQ_CAPTURE))
		return;                 /* about the capture, not the DUT */
	json_int_t fr = json_integer_value(json_object_get(v, "frame"));
	seen *s = NULL;
	for (size_t i = 0; i < cv->ns && !s; i++)
		if (!strcmp(cv->s[i].req, req))
			s = &cv->s[i];
	if (!s && cv->ns == MAX_SEEN) {
		cv->more++;
		return;
	}
	if (!s) {
		s = &cv->s[cv->ns++];
		memset(s, 0, sizeof *s);
		snprintf(s->req, sizeof s->req, "%s", req);
	}
	s->n++;
	s->after += pos == AFTER_FAILURE;
	s->at += pos == AT_FAILURE;
	if (pos != AFTER_FAILURE && s->n - s->after == 1) {
		if (fr)
			snprintf(s->first, sizeof s->first, "frame %lld: %s", (long long)fr, jstr(v, "detail"));
		else
			snprintf(s->first, sizeof s->first, "%s", jstr(v, "detail"));
	}
}

/* Each frame's time since the case's start (start_us, the Unix time results.json gives it),
 * into cv->t_us: the per-case pcap stamps each frame with the harness's own clock. */
static int frame_times(capview *cv, const char *path, int64_t start_us, iw_err *e)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path, err);
	if (!pc)
		return iw_errf(e, -1, "%s: %s", path, err);
	cv->nt = 0;
	struct pcap_pkthdr *h;
	const u_char *data;
	while (pcap_next_ex(pc, &h, &data) == 1) {
		if (cv->nt == cv->capt) {
			size_t c2 = iw_grow_size(cv->capt, 1024, cv->nt + 1, SIZE_MAX / sizeof *cv->t_us);
			int64_t *t = realloc(cv->t_us, c2 * sizeof *t);
			if (!t) {
				pcap_close(pc);
				return iw_errf(e, -1, "out of memory reading %s", path);
			}
			cv->t_us = t;
			cv->capt = c2;
		}
		cv->t_us[cv->nt++] = (int64_t)h->ts.tv_sec * 1000000 + h->ts.tv_usec - start_us;
	}
	pcap_close(pc);
	return 0;
}

/* results.json's "2026-11-26T19:01:24.149Z" as microseconds since the Unix epoch, or -1. */
static int64_t iso_us(const char *s)
{
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	int ms = 0;
	if (sscanf(s, "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
		   &tm.tm_sec, &ms) != 7)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return ((int64_t)timegm(&tm) * 1000 + ms) * 1000;
}

/* Where the case's FAIL, WARN or INFO happened (capview above), from the wire entry it points
 * at (failed_wire): its time, its connection (the capture numbers connections in the order the
 * harness opened them, "connect" entries), the DUT's octets on that connection before the
 * entry and to its end, and in all. fail_us -1 when the failure points at no entry. */
static void failure_at(capview *cv, const json_t *jc)
{
	cv->fail_us = -1;
	cv->fail_conn = cv->fail_start = cv->fail_end = cv->dut_total = 0;
	const json_t *fw = json_object_get(jc, "failed_wire");
	const json_t *wire = json_object_get(jc, "wire");
	if (!json_is_integer(fw) || (size_t)json_integer_value(fw) >= json_array_size(wire))
		return;
	size_t at = (size_t)json_integer_value(fw);
	const json_t *fe = json_array_get(wire, at);
	cv->fail_us = json_integer_value(json_object_get(fe, "t_us"));
	json_int_t conn = json_integer_value(json_object_get(fe, "conn"));
	uint64_t opened = 0, mine = 0;
	size_t i;
	json_t *w;
	json_array_foreach(wire, i, w) {
		bool same = json_integer_value(json_object_get(w, "conn")) == conn;
		if (!strcmp(jstr(w, "what"), "connect")) {
			opened++;
			if (same && i <= at) {
				mine = opened;
				cv->fail_start = cv->fail_end = cv->dut_total = 0;
			} else if (same) {
				break;          /* the connection's number used again: a new connection */
			}
		}
		if (!same || strcmp(jstr(w, "dir"), "from_dut"))
			continue;
		uint64_t n = (uint64_t)json_integer_value(json_object_get(w, "nbytes"));
		cv->dut_total += n;
		if (i < at)
			cv->fail_start += n;
		if (i <= at)
			cv->fail_end += n;
	}
	cv->fail_conn = mine;
	/* Entries past the log's limit are not there to add up: by time then. */
	if (json_integer_value(json_object_get(jc, "wire_dropped")))
		cv->fail_conn = 0;
}

/* Which of the capture's connections is the probe before the case, and which are perftest's comm
 * connections: the k-th the harness opened is the capture's k-th (failure_at), the probe is the
 * wire log's connection 0, the comm connections its COMM_CONN_BASE and up. */
static void probe_at(capview *cv, const json_t *jc)
{
	uint64_t opened = 0;
	size_t i;
	json_t *w;
	json_array_foreach(json_object_get(jc, "wire"), i, w) {
		if (strcmp(jstr(w, "what"), "connect"))
			continue;
		opened++;
		json_int_t no = json_integer_value(json_object_get(w, "conn"));
		if (no == 0 && !cv->probe_conn)
			cv->probe_conn = opened;
		if (no >= COMM_CONN_BASE && opened < MAX_COMM_CONNS)
			cv->comm[opened] = true;
	}
}

/* Each connection as the reader hands it out: decoded as `iwspec decode --json` does, then
 * the DUT's direction read from the JSON (the one place decode says whose octets broke what). */
static void on_conn(void *ctx, iw_pcap_conn *c, const iw_pcap_end *end)
{
	capview *cv = ctx;
	iw_decode_conn_opts o = {.out = IW_DECODE_OUT_JSON, .profile = cv->p, .viol = &cv->viol};
	iw_conn_verdict v;
	iw_decode_conn(c, end, &o, &v);
	if (!v.json)
		return;                 /* not MPA: nothing of the DUT's was judged */
	char dut[64];
	iw_pcap_endpoint(c, cv->dut_side, dut, sizeof dut);
	const iw_pcap_stream *s = &c->dir[cv->dut_side];
	bool by_off = c->number == cv->fail_conn && s->len == cv->dut_total && !s->hole && !s->cut;
	size_t i, k;
	json_t *d, *x;
	json_array_foreach(json_object_get(v.json, "directions"), i, d) {
		if (strcmp(jstr(d, "from"), dut))
			continue;
		json_array_foreach(json_object_get(d, "items"), k, x)
			cv->fpdus += !strcmp(jstr(x, "type"), "fpdu");
		json_array_foreach(json_object_get(d, "violations"), k, x) {
			if (c->number == cv->probe_conn)
				cv->probe_violations++;
			else if (c->number < MAX_COMM_CONNS && cv->comm[c->number])
				cv->comm_violations++;
			else
				note_seen(cv, x, failure_pos(cv, c->number, s, by_off,
							       json_integer_value(json_object_get(x, "frame"))));
		}
	}
	json_decref(v.json);
}

static const seen *found(const capview *cv, const char *req)
{
	for (size_t i = 0; i < cv->ns; i++)
		if (!strcmp(cv->s[i].req, req))
			return &cv->s[i];
	return NULL;
}

/* The case's per-frame rules (results.json "judged") hold req: on how many frames, or 0. */
static json_int_t judged_frames(const json_t *jc, const char *req)
{
	size_t i;
	json_t *q;
	json_array_foreach(json_object_get(jc, "judged"), i, q)
		if (!strcmp(jstr(q, "requirement"), req))
			return json_integer_value(json_object_get(q, "frames"));
	return 0;
}

/* What decode found, in a few words, for a disagreement line. */
static void found_list(const capview *cv, char *buf, size_t cap)
{
	size_t n = (size_t)snprintf(buf, cap, "%s", cv->ns ? "it found " : "it found nothing broken");
	for (size_t i = 0; i < cv->ns && n < cap; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", cv->s[i].req);
	if (cv->more && n < cap)
		snprintf(buf + n, cap - n, " and %zu more", cv->more);
}

typedef struct casectx {
	const char *dir;
	const char *const *skip;
	size_t nskip;
	iw_run *run;                /* for the case's file name (iw_report_case_slug) */
	iw_case_result *r;
	capview *cv;
	FILE *out;
	iw_xcheck_totals *t;
} casectx;

static void disagree(casectx *x, const char *slug, const char *req, const char *decode_said, const char *run_said)
{
	x->t->disagreements++;
	fprintf(x->out, "DISAGREE %s: %s: decode: %s; run: %s\n", slug, req, decode_said, run_said);
}

static int check_case(casectx *x, const json_t *jc, iw_err *e)
{
	const char *verdict = jstr(jc, "verdict"), *reason = jstr(jc, "reason");
	const char *failed_req = jstr(jc, "failed_requirement");
	const json_t *cap = json_object_get(jc, "capture");
	x->t->cases++;
	if (json_integer_value(json_object_get(cap, "chunks")) == 0)
		return 0;               /* no connection: nothing to read twice */
	/* A SKIP judged nothing, and says why (a capability or limit the DUT declared, a step another
	 * case judges); an ERROR is the harness's; a cut capture lacks the rest. */
	if (!strcmp(verdict, "SKIP") || !strcmp(verdict, "ERROR") || json_is_true(json_object_get(cap, "cut"))) {
		x->t->not_compared++;
		return 0;
	}
	iw_case_result *r = x->r;
	snprintf(r->id, sizeof r->id, "%s", jstr(jc, "id"));
	snprintf(r->profile, sizeof r->profile, "%s", jstr(jc, "profile"));
	char slug[160], path[1200];
	iw_report_case_slug(x->run, r, slug, sizeof slug);
	for (size_t i = 0; i < x->nskip; i++)
		if (!strcmp(x->skip[i], r->id) || !strcmp(x->skip[i], slug)) {
			x->t->skipped++;
			return 0;
		}
	snprintf(path, sizeof path, "%s/" IW_REPORT_PCAP_DIR "/%s.pcap", x->dir, slug);
	struct stat st;
	if (stat(path, &st) != 0)
		return iw_errf(e, -1, "%s: no capture for case %s (write the report with `iwspec run --pcap`)", path, slug);

	capview *cv = x->cv;
	cv->ns = cv->more = cv->fpdus = 0;
	cv->nt = 0;
	cv->p = iw_profile_find(r->profile);
	/* A PASS has no failure; a failure without a wire entry is compared whole. */
	cv->fail_us = -1;
	cv->fail_conn = 0;
	cv->probe_conn = cv->probe_violations = cv->comm_violations = 0;
	memset(cv->comm, 0, sizeof cv->comm);
	probe_at(cv, jc);
	if (failed_req[0])
		failure_at(cv, jc);
	int64_t start = iso_us(jstr(jc, "start"));
	if (start < 0)
		cv->fail_us = -1;
	if (cv->fail_us >= 0 && frame_times(cv, path, start, e) != 0)
		return -1;
	cv->dut_side = strcmp(jstr(jc, "dut_role"), "initiator") ? 1 : 0;
	iw_pcap_limits lim;
	iw_pcap_limits_default(&lim);
	iw_pcap_sink sink = {.ctx = cv, .conn = on_conn};
	char msg[512];
	if (iw_pcap_each_conn(path, &lim, &sink, NULL, msg, sizeof msg) != 0)
		return iw_errf(e, -1, "%s", msg);
	x->t->captures++;
	x->t->dut_fpdus += cv->fpdus;
	x->t->probe_violations += cv->probe_violations;
	x->t->comm_violations += cv->comm_violations;

	/* A FAIL, WARN or INFO that rests on a requirement; a PASS rests on none. */
	bool failed = failed_req[0] && (!strcmp(verdict, "FAIL") || !strcmp(verdict, "WARN") || !strcmp(verdict, "INFO"));
	char run_said[400], decode_said[400];
	for (size_t i = 0; i < cv->ns; i++) {
		const seen *s = &cv->s[i];
		x->t->dut_violations += s->n;
		x->t->after_failure += s->after;
		json_int_t jf = judged_frames(jc, s->req);
		if (s->after == s->n || (failed && (!strcmp(s->req, failed_req) || jf)))
			continue;
		if (s->after + s->at == s->n) {
			x->t->at_failure += s->at;
			continue;
		}
		snprintf(decode_said, sizeof decode_said, "the DUT broke it %zu time%s, first at %s", s->n - s->after,
			 s->n - s->after == 1 ? "" : "s", s->first);
		if (failed)
			snprintf(run_said, sizeof run_said, "%s resting on %s, and %s not among its per-frame rules", verdict,
				 failed_req, s->req);
		else if (jf)
			snprintf(run_said, sizeof run_said, "%s; its per-frame checks applied %s to %lld frame%s and found "
				 "nothing", verdict, s->req, (long long)jf, jf == 1 ? "" : "s");
		else
			snprintf(run_said, sizeof run_said, "%s; %s not judged", verdict, s->req);
		disagree(x, slug, s->req, decode_said, run_said);
	}
	if (cv->more)
		fprintf(x->out, "NOTE %s: decode found more than %d requirements broken by the DUT; %zu more not "
			"compared\n", slug, MAX_SEEN, cv->more);
	if (failed && strstr(reason, "judged on every frame")) {
		x->t->per_frame_failures++;
		if (!found(cv, failed_req)) {
			found_list(cv, decode_said, sizeof decode_said);
			snprintf(decode_said + strlen(decode_said), sizeof decode_said - strlen(decode_said),
				 " in the DUT's octets (%zu FPDUs)", cv->fpdus);
			snprintf(run_said, sizeof run_said, "%s resting on it, judged on every frame", verdict);
			disagree(x, slug, failed_req, decode_said, run_said);
		}
	}
	return 0;
}

/* results.json read whole, then parsed: jansson's file reader takes it a character at a time
 * (getc), most of the check's time on a run of 12 MB. */
static json_t *load(const char *path, json_error_t *je)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(je->text, sizeof je->text, "%s", strerror(errno));
		je->line = 0;
		return NULL;
	}
	char *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n == cap) {
			size_t c2 = cap ? cap * 2 : 1u << 20;
			char *b = realloc(buf, c2);
			if (!b)
				break;
			buf = b;
			cap = c2;
		}
		size_t k = fread(buf + n, 1, cap - n, f);
		n += k;
		if (k == 0)
			break;
	}
	bool whole = feof(f) && !ferror(f);
	fclose(f);
	json_t *root = whole ? json_loadb(buf, n, 0, je) : json_load_file(path, 0, je);
	free(buf);
	return root;
}

int iw_xcheck_dir(const char *dir, const char *const *skip, size_t nskip, FILE *out, iw_xcheck_totals *t,
		  iw_err *e)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/" IW_REPORT_JSON_NAME, dir);
	json_error_t je;
	json_t *root = load(path, &je);
	if (!root)
		return iw_errf(e, -1, "%s: %s%s; give a report directory `iwspec run --report DIR --pcap` wrote", path,
			       je.text, je.line > 0 ? " (not valid JSON)" : "");
	const json_t *cases = json_object_get(root, "cases");
	if (!json_is_array(cases)) {
		json_decref(root);
		return iw_errf(e, -1, "%s: no \"cases\" array; is it a results.json of `iwspec run`?", path);
	}
	casectx x = {.dir = dir, .skip = skip, .nskip = nskip, .out = out, .t = t};
	x.run = calloc(1, sizeof *x.run);
	x.r = calloc(1, sizeof *x.r);
	x.cv = calloc(1, sizeof *x.cv);
	iw_violation *store = calloc(MAX_VIOLS, sizeof *store);
	int rc = 0;
	if (!x.run || !x.r || !x.cv || !store) {
		rc = iw_errf(e, -1, "out of memory cross-checking %s", dir);
		goto out;
	}
	x.cv->viol.v = store;
	x.cv->viol.cap = MAX_VIOLS;
	snprintf(x.run->profile, sizeof x.run->profile, "%s", jstr(json_object_get(root, "run"), "profile"));
	size_t i;
	json_t *jc;
	json_array_foreach(cases, i, jc) {
		if ((rc = check_case(&x, jc, e)) != 0)
			break;
	}
out:
	free(store);
	if (x.cv)
		free(x.cv->t_us);
	free(x.cv);
	free(x.r);
	free(x.run);
	json_decref(root);
	return rc;
}
