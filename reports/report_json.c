/*
 * report_json.c - results.json (format in docs/reports.md).
 *
 * The file is streamed: jansson builds one case at a time, and one wire entry at a time,
 * because a fuzzing case may carry 4096 entries of up to 64 KiB of hex each and a whole run
 * built as one tree could need gigabytes. Each case is one line, so grep and diff work on it.
 */
#include "report.h"

#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "findings.h"
#include "report_html_int.h"
#include "report_text.h"
#include "req_catalog.h"

#define JSON_FLAGS (JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))

#define FIELD(s) (s), strnlen((s), sizeof(s))

typedef struct jctx {
	bool oom;
} jctx;

/* Any text: repaired to valid UTF-8, since jansson refuses anything else. */
static json_t *jtext(jctx *c, const char *s, size_t n)
{
	char *u = iw_text_utf8(s, n);
	json_t *j = u ? json_string(u) : NULL;
	free(u);
	if (!j)
		c->oom = true;
	return j;
}

static json_t *jchk(jctx *c, json_t *j)
{
	if (!j)
		c->oom = true;
	return j;
}

static void put(jctx *c, json_t *o, const char *key, json_t *v)
{
	if (!v || json_object_set_new(o, key, v) != 0)
		c->oom = true;
}

static void push(jctx *c, json_t *a, json_t *v)
{
	if (!v || json_array_append_new(a, v) != 0)
		c->oom = true;
}

static json_t *jtime(jctx *c, int64_t ms)
{
	char t[40];
	iw_text_time(ms, true, t, sizeof t);
	return jchk(c, json_string(t));
}

static const char *dir_name(enum iw_wire_dir d)
{
	switch (d) {
	case IW_TO_DUT: return "to_dut";
	case IW_FROM_DUT: return "from_dut";
	case IW_NOTE: return "note";
	}
	return "note";
}

static json_t *wire_json(jctx *c, const iw_wire_entry *w)
{
	json_t *o = jchk(c, json_object());
	if (!o)
		return NULL;
	put(c, o, "dir", jchk(c, json_string(dir_name(w->dir))));
	put(c, o, "conn", jchk(c, json_integer(w->conn)));
	put(c, o, "t_us", jchk(c, json_integer(w->t_us)));
	put(c, o, "what", jtext(c, FIELD(w->what)));
	put(c, o, "summary", jtext(c, FIELD(w->summary)));
	if (w->dir == IW_FROM_DUT)
		put(c, o, "act", jtext(c, FIELD(w->act)));
	size_t n = w->bytes ? w->nbytes : 0;
	bool cut = n > IW_REPORT_HEX_MAX / 2;
	size_t keep = cut ? IW_REPORT_HEX_MAX / 2 : n;
	char *hex = malloc(keep * 2 + 1);
	if (hex) {
		static const char digits[] = "0123456789abcdef";
		for (size_t i = 0; i < keep; i++) {
			hex[2 * i] = digits[w->bytes[i] >> 4];
			hex[2 * i + 1] = digits[w->bytes[i] & 15];
		}
		put(c, o, "hex", jchk(c, json_stringn_nocheck(hex, keep * 2)));
		free(hex);
	} else {
		c->oom = true;
	}
	put(c, o, "nbytes", jchk(c, json_integer((json_int_t)n)));
	if (cut)
		put(c, o, "truncated", json_true());
	return o;
}

/* Everything of a case but its wire log, which is streamed after it. */
static json_t *case_json(jctx *c, const iw_case_result *r)
{
	json_t *o = jchk(c, json_object());
	if (!o)
		return NULL;
	put(c, o, "id", jtext(c, FIELD(r->id)));
	put(c, o, "title", jtext(c, FIELD(r->title)));
	put(c, o, "file", jtext(c, FIELD(r->file)));
	put(c, o, "profile", jtext(c, FIELD(r->profile)));

	json_t *reqs = jchk(c, json_array());
	size_t nreqs = r->nreqs < IW_CASE_MAX_REQS ? r->nreqs : IW_CASE_MAX_REQS;
	for (size_t i = 0; reqs && i < nreqs; i++) {
		json_t *q = jchk(c, json_object());
		if (q) {
			put(c, q, "id", jtext(c, FIELD(r->reqs[i].id)));
			put(c, q, "level", jchk(c, json_string(iw_text_level(r->reqs[i].level))));
		}
		push(c, reqs, q);
	}
	put(c, o, "requirements", reqs);

	unsigned v = (unsigned)r->verdict;
	put(c, o, "verdict", jchk(c, json_string(iw_verdict_name(v < IW_VERDICT_COUNT ? r->verdict : IW_ERROR))));
	put(c, o, "reason", jtext(c, FIELD(r->reason)));
	put(c, o, "failed_requirement", r->failed_req[0] ? jtext(c, FIELD(r->failed_req)) : json_null());
	put(c, o, "dut_contradicts", r->dut_contradicts[0] ? jtext(c, FIELD(r->dut_contradicts)) : json_null());
	put(c, o, "start", jtime(c, r->start_unix_ms));
	put(c, o, "duration_ms", jchk(c, json_integer(r->duration_ms)));

	json_t *ms = jchk(c, json_array());
	size_t nm = r->nmeasures < 8 ? r->nmeasures : 8;
	for (size_t i = 0; ms && i < nm; i++) {
		const iw_measure *m = &r->measures[i];
		json_t *q = jchk(c, json_object());
		if (q) {
			put(c, q, "name", jtext(c, FIELD(m->name)));
			/* JSON has no NaN or infinity: an unmeasurable value is null. */
			put(c, q, "value", isfinite(m->value) ? jchk(c, json_real(m->value)) : json_null());
			put(c, q, "unit", jtext(c, FIELD(m->unit)));
		}
		push(c, ms, q);
	}
	put(c, o, "measures", ms);

	json_t *maps = jchk(c, json_array());
	size_t nmap = r->nmappings < 4 ? r->nmappings : 4;
	for (size_t i = 0; maps && i < nmap; i++)
		push(c, maps, jtext(c, FIELD(r->mappings[i])));
	put(c, o, "mappings", maps);

	put(c, o, "dut_finding", r->dut_finding ? jtext(c, FIELD(r->dut_finding_text)) : json_null());
	put(c, o, "dut_role", jtext(c, FIELD(r->dut_role)));
	put(c, o, "expected", jtext(c, FIELD(r->expected)));
	/* The wire entry (0-based) and field a FAIL or WARN points at. */
	bool blame = r->failed_req[0] && r->fail_wire && r->fail_wire <= r->nwire;
	put(c, o, "failed_wire", blame ? jchk(c, json_integer((json_int_t)(r->fail_wire - 1))) : json_null());
	put(c, o, "failed_field", blame && r->fail_field[0] ? jtext(c, FIELD(r->fail_field)) : json_null());
	put(c, o, "outcome", r->outcome[0] ? jtext(c, FIELD(r->outcome)) : json_null());
	json_t *cap = jchk(c, json_object());
	if (cap) {
		put(c, cap, "octets", jchk(c, json_integer((json_int_t)r->tcp_octets)));
		put(c, cap, "chunks", jchk(c, json_integer((json_int_t)r->ntcp)));
		put(c, cap, "cut", json_boolean(r->tcp_cut));
	}
	put(c, o, "capture", cap);
	put(c, o, "wire_dropped", jchk(c, json_integer((json_int_t)r->wire_dropped)));
	/* The requirements the per-frame checks applied to the DUT's octets, cited or not. */
	put(c, o, "frames_judged", jchk(c, json_integer((json_int_t)r->frames_judged)));
	json_t *judged = jchk(c, json_array());
	size_t nj = r->njudged < IW_RESULT_MAX_JUDGED ? r->njudged : IW_RESULT_MAX_JUDGED;
	for (size_t i = 0; judged && i < nj; i++) {
		json_t *q = jchk(c, json_object());
		if (q) {
			put(c, q, "requirement", jtext(c, FIELD(r->judged[i].req)));
			put(c, q, "frames", jchk(c, json_integer((json_int_t)r->judged[i].frames)));
		}
		push(c, judged, q);
	}
	put(c, o, "judged", judged);
	return o;
}

static int dump_cb(const char *buf, size_t size, void *data)
{
	return iw_atomic_write(data, buf, size);
}

/* Dumps j (which it consumes) into af; drop_last leaves the closing '}' off, so the caller
 * can append members. */
static void dump(jctx *c, iw_atomic_file *af, json_t *j, bool drop_last)
{
	if (!j || c->oom) {
		json_decref(j);
		c->oom = true;
		return;
	}
	if (!drop_last) {
		if (json_dump_callback(j, dump_cb, af, JSON_FLAGS) != 0 && iw_atomic_ok(af))
			c->oom = true;
	} else {
		char *s = json_dumps(j, JSON_FLAGS);
		size_t n = s ? strlen(s) : 0;
		if (n && s[n - 1] == '}')
			iw_atomic_write(af, s, n - 1);
		else
			c->oom = true;
		free(s);
	}
	json_decref(j);
}

static json_t *tool_json(jctx *c, const iw_run *run)
{
	const char *version = run->tool_version;
#ifdef IWSPEC_VERSION
	if (!version[0])
		version = IWSPEC_VERSION;
#endif
	json_t *o = jchk(c, json_object());
	if (!o)
		return NULL;
	put(c, o, "name", json_string("iwspec"));
	put(c, o, "version", jtext(c, version, strnlen(version, sizeof run->tool_version)));
	put(c, o, "git_rev", jtext(c, FIELD(run->git_rev)));
	return o;
}

static json_t *run_json(jctx *c, const iw_run *run)
{
	json_t *o = jchk(c, json_object());
	if (!o)
		return NULL;
	put(c, o, "dut", jtext(c, FIELD(run->dut)));
	put(c, o, "dut_config_source", jtext(c, FIELD(run->dut_config_source)));
	put(c, o, "profile", jtext(c, FIELD(run->profile)));
	put(c, o, "role", jtext(c, FIELD(run->role)));
	put(c, o, "host", jtext(c, FIELD(run->host)));
	put(c, o, "seg_mode", jtext(c, FIELD(run->seg_mode)));
	put(c, o, "framing", jtext(c, FIELD(run->framing)));
	/* A 64-bit seed does not fit JSON's exact integers (2^53) nor json_int_t: a decimal string. */
	char seed[32];
	snprintf(seed, sizeof seed, "%llu", (unsigned long long)run->seed);
	put(c, o, "seed", jchk(c, json_string(seed)));
	put(c, o, "jobs", jchk(c, json_integer(run->jobs > 0 ? run->jobs : 1)));
	put(c, o, "start", jtime(c, run->start_unix_ms));
	put(c, o, "end", jtime(c, run->end_unix_ms));
	put(c, o, "complete", json_boolean(run->complete));
	put(c, o, "interrupted_by", run->stop_signal == SIGINT ? json_string("SIGINT")
				    : run->stop_signal == SIGTERM ? json_string("SIGTERM")
				    : run->stop_signal ? jchk(c, json_integer(run->stop_signal)) : json_null());
	put(c, o, "stopped", run->stopped[0] ? jtext(c, FIELD(run->stopped)) : json_null());
	put(c, o, "command", jtext(c, FIELD(run->command)));
	put(c, o, "selection", jtext(c, FIELD(run->selection)));
	json_t *vec = jchk(c, json_object());
	if (vec) {
		put(c, vec, "sha256", jtext(c, run->vectors_sha256[0] ? run->vectors_sha256 : "none",
					    run->vectors_sha256[0] ? strnlen(run->vectors_sha256, sizeof run->vectors_sha256) : 4));
		put(c, vec, "dir", jtext(c, FIELD(run->vectors_dir)));
		put(c, vec, "files", jchk(c, json_integer((json_int_t)run->nvectors)));
	}
	put(c, o, "vectors", vec);
	put(c, o, "requirements_catalog", jchk(c, json_string(iw_req_catalog_source)));
	put(c, o, "dut_settings", jtext(c, FIELD(run->dut_settings)));
	json_t *dis = jchk(c, json_array());
	for (size_t i = 0; dis && i < run->ndisabled && i < IW_RUN_MAX_DISABLED; i++)
		push(c, dis, jtext(c, FIELD(run->disabled[i])));
	put(c, o, "disabled", dis);
	json_t *maps = jchk(c, json_array());
	for (size_t i = 0; maps && i < run->nmaps && i < IW_RUN_MAX_MAPS; i++)
		push(c, maps, jtext(c, FIELD(run->maps[i])));
	put(c, o, "maps", maps);
	return o;
}

static json_t *summary_json(jctx *c, const iw_run *run)
{
	size_t n[IW_VERDICT_COUNT];
	iw_run_tally(run, n);
	json_t *o = jchk(c, json_object());
	if (!o)
		return NULL;
	put(c, o, "pass", jchk(c, json_integer((json_int_t)n[IW_PASS])));
	put(c, o, "fail", jchk(c, json_integer((json_int_t)n[IW_FAIL])));
	put(c, o, "warn", jchk(c, json_integer((json_int_t)n[IW_WARN])));
	put(c, o, "info", jchk(c, json_integer((json_int_t)n[IW_INFO])));
	put(c, o, "skip", jchk(c, json_integer((json_int_t)n[IW_SKIP])));
	put(c, o, "error", jchk(c, json_integer((json_int_t)n[IW_ERROR])));
	put(c, o, "total", jchk(c, json_integer((json_int_t)run->ncases)));
	/* The wire-observable MUSTs of the catalog, as report.html's coverage table counts them. */
	iw_untestable *u = calloc(1, sizeof *u);
	json_t *cov = jchk(c, json_object());
	if (u && cov) {
		iw_untestable_load(run, u);
		iw_coverage cv;
		iw_coverage_count(run, u, &cv);
		put(c, cov, "wire_musts", jchk(c, json_integer((json_int_t)cv.wire)));
		put(c, cov, "cited", jchk(c, json_integer((json_int_t)cv.cited)));
		put(c, cov, "judged", jchk(c, json_integer((json_int_t)cv.judged)));
		put(c, cov, "untestable", jchk(c, json_integer((json_int_t)cv.untestable)));
		put(c, cov, "uncovered", jchk(c, json_integer((json_int_t)cv.uncovered)));
		put(c, cov, "untestable_list", u->found ? jtext(c, FIELD(u->path)) : json_null());
	} else {
		c->oom = true;
	}
	free(u);
	put(c, o, "coverage", cov);
	return o;
}

/* The FAILs and WARNs grouped by what broke (findings.h), most serious and largest first. */
static json_t *findings_json(jctx *c, const iw_run *run)
{
	iw_findings fs;
	iw_err fe = { "" };
	json_t *a = jchk(c, json_array());
	if (!a || iw_findings_group(run, &fs, &fe) != 0) {
		c->oom = true;
		return a;
	}
	for (size_t i = 0; i < fs.n; i++) {
		const iw_finding *f = &fs.g[i];
		json_t *o = jchk(c, json_object()), *ids = jchk(c, json_array()), *reqs = jchk(c, json_array());
		if (!o || !ids || !reqs) {
			json_decref(o);
			json_decref(ids);
			json_decref(reqs);
			break;
		}
		put(c, o, "verdict", jchk(c, json_string(iw_verdict_name(f->verdict))));
		for (size_t k = 0; k < f->nreqs; k++) {
			const iw_req_info *ri = iw_req_find(f->reqs[k]);
			json_t *rq = jchk(c, json_object());
			if (!rq)
				break;
			put(c, rq, "id", jtext(c, f->reqs[k], strlen(f->reqs[k])));
			put(c, rq, "level", ri ? jchk(c, json_string(ri->kw)) : json_null());
			push(c, reqs, rq);
		}
		put(c, o, "requirements", reqs);
		put(c, o, "requirements_cut", json_boolean(f->reqs_cut));
		put(c, o, "signature", jtext(c, f->signature, strlen(f->signature)));
		put(c, o, "count", jchk(c, json_integer((json_int_t)f->ncases)));
		for (size_t k = 0; k < f->ncases; k++)
			push(c, ids, jtext(c, FIELD(run->cases[f->cases[k]].id)));
		put(c, o, "cases", ids);
		char slug[160], pcap[200];
		if (f->pcap_case) {
			snprintf(pcap, sizeof pcap, IW_REPORT_PCAP_DIR "/%s.pcap",
				 iw_report_case_slug(run, &run->cases[f->pcap_case - 1], slug, sizeof slug));
			put(c, o, "pcap", jtext(c, pcap, strlen(pcap)));
		} else {
			put(c, o, "pcap", json_null());
		}
		push(c, a, o);
	}
	iw_findings_free(&fs);
	return a;
}

int iw_report_json(const iw_run *run, const char *path, iw_err *e)
{
	if (!run)
		return iw_errf(e, -1, "cannot write '%s': no run", path ? path : "");
	iw_atomic_file *af = iw_atomic_open(path, e);
	if (!af)
		return -1;
	jctx c = {0};
	iw_atomic_puts(af, "{\n  \"format\": 1,\n  \"tool\": ");
	dump(&c, af, tool_json(&c, run), false);
	iw_atomic_puts(af, ",\n  \"run\": ");
	dump(&c, af, run_json(&c, run), false);
	iw_atomic_puts(af, ",\n  \"summary\": ");
	dump(&c, af, summary_json(&c, run), false);
	iw_atomic_puts(af, ",\n  \"findings\": ");
	dump(&c, af, findings_json(&c, run), false);
	iw_atomic_puts(af, ",\n  \"cases\": [");
	for (size_t i = 0; i < run->ncases && !c.oom && iw_atomic_ok(af); i++) {
		const iw_case_result *r = &run->cases[i];
		iw_atomic_puts(af, i ? ",\n    " : "\n    ");
		dump(&c, af, case_json(&c, r), true);
		iw_atomic_puts(af, ", \"wire\": [");
		for (size_t k = 0; k < r->nwire && !c.oom; k++) {
			if (k)
				iw_atomic_puts(af, ", ");
			dump(&c, af, wire_json(&c, &r->wire[k]), false);
		}
		iw_atomic_puts(af, "]}");
	}
	iw_atomic_puts(af, run->ncases ? "\n  ]\n}\n" : "]\n}\n");
	if (c.oom)
		iw_atomic_fail(af, "out of memory while building the JSON");
	return iw_atomic_commit(af, e);
}
