/*
 * result.c - bookkeeping of a run's results: case slots, wire logs, verdict counts.
 *
 * The wire log is appended to while a case runs, often from the hot path of a fuzzing
 * connection, so iw_result_wire never fails: a log it cannot grow is truncated and says so,
 * and the case's verdict still stands on what the oracle saw.
 */
#include "result.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[IW_VERDICT_COUNT] = {
	[IW_PASS] = "PASS", [IW_FAIL] = "FAIL", [IW_WARN] = "WARN",
	[IW_INFO] = "INFO", [IW_SKIP] = "SKIP", [IW_ERROR] = "ERROR",
};

const char *iw_verdict_name(enum iw_verdict v)
{
	if ((unsigned)v >= IW_VERDICT_COUNT)
		return "?";
	return verdict_names[v];
}

void iw_measure_text(const iw_measure *m, int decimals, char *buf, size_t cap)
{
	if (!isfinite(m->value))
		snprintf(buf, cap, "none");
	else if (decimals >= 0)
		snprintf(buf, cap, "%.*f %s", decimals, m->value, m->unit);
	else
		snprintf(buf, cap, "%g %s", m->value, m->unit);
}

static void copy_str(char *dst, size_t cap, const char *src)
{
	if (!src)
		src = "";
	snprintf(dst, cap, "%s", src);
}

/* Room for one more entry; the +1 keeps a slot for the truncation note. */
static bool wire_reserve(iw_case_result *r)
{
	if (r->nwire < r->capwire)
		return true;
	size_t cap = r->capwire ? r->capwire * 2 : 16;
	if (cap > IW_RESULT_MAX_WIRE + 1)
		cap = IW_RESULT_MAX_WIRE + 1;
	if (cap <= r->nwire)
		return false;
	iw_wire_entry *w = realloc(r->wire, cap * sizeof *w);
	if (!w)
		return false;
	r->wire = w;
	r->capwire = cap;
	return true;
}

static void wire_note_truncated(iw_case_result *r, int64_t t_us)
{
	if (!wire_reserve(r))
		return;
	iw_wire_entry *w = &r->wire[r->nwire++];
	memset(w, 0, sizeof *w);
	w->dir = IW_NOTE;
	w->t_us = t_us;
	copy_str(w->what, sizeof w->what, "note");
	snprintf(w->summary, sizeof w->summary,
		 "wire log truncated: events past %d are not kept (see wire_dropped)", IW_RESULT_MAX_WIRE);
}

void iw_result_wire(iw_case_result *r, enum iw_wire_dir dir, int conn, int64_t t_us, const char *what,
		    const uint8_t *bytes, size_t n, const char *summary_fmt, ...)
{
	if (!r)
		return;
	/* The capture keeps the connection's life even when the wire log is full. */
	if (what && dir != IW_NOTE && (!strcmp(what, "fin") || !strcmp(what, "rst")))
		iw_result_tcp(r, what[0] == 'f' ? IW_TCP_FIN : IW_TCP_RST, dir, conn, t_us, NULL, 0);
	else if (what && !strcmp(what, "connect"))
		iw_result_tcp(r, IW_TCP_OPEN, IW_TO_DUT, conn, t_us, NULL, 0);
	if (r->nwire >= IW_RESULT_MAX_WIRE) {
		/* Notes the cut once, at the first event that does not fit (the note makes it 4097). */
		if (r->nwire == IW_RESULT_MAX_WIRE)
			wire_note_truncated(r, t_us);
		r->wire_dropped++;
		return;
	}
	if (!wire_reserve(r)) {
		r->wire_dropped++;
		return;
	}
	iw_wire_entry *w = &r->wire[r->nwire];
	memset(w, 0, sizeof *w);
	w->dir = dir;
	w->conn = conn;
	w->t_us = t_us;
	copy_str(w->what, sizeof w->what, what);
	/* The DUT's events the caller does not name (exec_wire.c names its messages). */
	if (dir == IW_FROM_DUT && what)
		copy_str(w->act, sizeof w->act, !strcmp(what, "fin") ? "FIN" : !strcmp(what, "rst") ? "RST" : "octets");
	if (summary_fmt) {
		va_list ap;
		va_start(ap, summary_fmt);
		vsnprintf(w->summary, sizeof w->summary, summary_fmt, ap);
		va_end(ap);
	}
	if (bytes && n) {
		w->bytes = malloc(n);
		if (w->bytes) {
			memcpy(w->bytes, bytes, n);
			w->nbytes = n;
		} else {
			/* The event still happened; say its octets are missing rather than drop it. */
			size_t len = strlen(w->summary);
			snprintf(w->summary + len, sizeof w->summary - len, " [%zu octets not kept: out of memory]", n);
		}
	}
	r->nwire++;
}

void iw_result_set_case(iw_case_result *r, const iw_case *c)
{
	if (!r || !c)
		return;
	copy_str(r->id, sizeof r->id, c->id);
	copy_str(r->title, sizeof r->title, c->title);
	copy_str(r->file, sizeof r->file, c->file);
	r->nreqs = c->nreqs < IW_CASE_MAX_REQS ? c->nreqs : IW_CASE_MAX_REQS;
	memcpy(r->reqs, c->reqs, r->nreqs * sizeof r->reqs[0]);
}

void iw_result_clear_wire(iw_case_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nwire; i++)
		free(r->wire[i].bytes);
	free(r->wire);
	r->wire = NULL;
	r->nwire = r->capwire = 0;
	r->wire_dropped = 0;
	for (size_t i = 0; i < r->ntcp; i++)
		free(r->tcp[i].bytes);
	free(r->tcp);
	r->tcp = NULL;
	r->ntcp = r->captcp = r->tcp_octets = 0;
	r->tcp_cut = false;
}

iw_case_result *iw_run_add(iw_run *run)
{
	if (!run)
		return NULL;
	if (run->ncases == run->capcases) {
		size_t cap = run->capcases ? run->capcases * 2 : 32;
		if (cap > SIZE_MAX / sizeof(iw_case_result))
			return NULL;
		iw_case_result *c = realloc(run->cases, cap * sizeof *c);
		if (!c)
			return NULL;
		run->cases = c;
		run->capcases = cap;
	}
	iw_case_result *r = &run->cases[run->ncases++];
	memset(r, 0, sizeof *r);
	return r;
}

void iw_run_tally(const iw_run *run, size_t counts[IW_VERDICT_COUNT])
{
	memset(counts, 0, IW_VERDICT_COUNT * sizeof counts[0]);
	if (!run)
		return;
	for (size_t i = 0; i < run->ncases; i++) {
		unsigned v = (unsigned)run->cases[i].verdict;
		counts[v < IW_VERDICT_COUNT ? v : IW_ERROR]++;
	}
}

void iw_run_incomplete_text(const iw_run *run, char *buf, size_t cap)
{
	if (!cap)
		return;
	buf[0] = '\0';
	if (run->complete)
		return;
	const char *s = run->ncases == 1 ? "" : "s";
	if (run->stopped[0])
		snprintf(buf, cap, "stopped after %zu case%s: %s", run->ncases, s, run->stopped);
	else if (run->stop_signal)
		snprintf(buf, cap, "interrupted by %s after %zu case%s",
			 run->stop_signal == SIGINT ? "SIGINT" : run->stop_signal == SIGTERM ? "SIGTERM" : "a signal",
			 run->ncases, s);
	else
		snprintf(buf, cap, "interrupted after %zu case%s", run->ncases, s);
}

void iw_run_count(iw_run *run)
{
	if (run)
		iw_run_tally(run, run->counts);
}

void iw_run_free(iw_run *run)
{
	if (!run)
		return;
	for (size_t i = 0; i < run->ncases; i++)
		iw_result_clear_wire(&run->cases[i]);
	free(run->cases);
	run->cases = NULL;
	run->ncases = run->capcases = 0;
	memset(run->counts, 0, sizeof run->counts);
}
