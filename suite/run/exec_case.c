/*
 * exec_case.c - executing one case: the context, the verdict helpers every step uses, and the
 * step loop. Actions become bytes through the engine's encoders, bytes from the DUT are decoded by
 * the engine, and each expectation is judged (exec_int.h lists the files).
 */
#include "exec_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "interrupt.h"
#include "net.h"
#include "req_level.h"
#include "ulp_profile.h"

int64_t ex_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

uint64_t ex_rng_next(ctx *x)
{
	x->rng ^= x->rng << 13;
	x->rng ^= x->rng >> 7;
	x->rng ^= x->rng << 17;
	return x->rng;
}

int64_t ex_tcase(ctx *x) { return ex_now_us() - x->t0_us; }

void ex_note(ctx *x, const char *fmt, ...)
{
	char buf[320];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	iw_result_wire(x->r, IW_NOTE, x->h->no, ex_tcase(x), "ex_note", NULL, 0, "%s", buf);
}

/* Records a broken expectation; the first one decides the verdict. */
static bool vfail(ctx *x, const char *req, bool per_frame, const char *fmt, va_list ap)
{
	if (x->failed)
		return false;
	x->failed = true;
	/* No requirement named (or a model event without one): the step's `rule=`, else the case's
	 * first. */
	if (req && !*req)
		req = NULL;
	if (!req && x->step_rule && !per_frame)
		req = x->step_rule;
	x->fail_by = per_frame && req ? EX_EVERY_FRAME : EX_BY_CASE;
	/* The startup exchange ends, for the case, when it first sends in full operation: the checks
	 * of the DUT's frame made just after both frames are in are still part of it. */
	x->fail_full_op = x->h && x->h->full_op && x->h->sent_in_full_op;
	vsnprintf(x->r->reason, sizeof x->r->reason, fmt, ap);
	snprintf(x->fail_req, sizeof x->fail_req, "%s", req ? req : (x->c->nreqs ? x->c->reqs[0].id : ""));
	ex_blame(x, x->fail_req); /* which wire entry and field the report highlights */
	return false;
}

bool ex_fail(ctx *x, const char *req, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(x, req, false, fmt, ap);
	va_end(ap);
	return false;
}

bool ex_fail_frame(ctx *x, const char *req, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(x, req, true, fmt, ap);
	va_end(ap);
	return false;
}

bool ex_short_of(ctx *x, const char *req, const char *fmt, ...)
{
	char why[sizeof x->short_reason];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	enum iw_level lvl = IW_LEVEL_MUST;
	if (!iw_req_level(req, &lvl, NULL) || lvl == IW_LEVEL_MUST)
		return ex_fail(x, req, "%s", why);
	ex_note(x, "%s (%s, below MUST: the case goes on)", why, req);
	if (!x->short_of && !x->failed) {
		x->short_of = true;
		snprintf(x->short_req, sizeof x->short_req, "%s", req);
		snprintf(x->short_reason, sizeof x->short_reason, "%s", why);
		/* Blamed now, while the offending message is the newest on the wire. */
		size_t w = x->r->fail_wire;
		char f[sizeof x->r->fail_field];
		memcpy(f, x->r->fail_field, sizeof f);
		ex_blame(x, req);
		x->short_wire = x->r->fail_wire;
		snprintf(x->short_field, sizeof x->short_field, "%s", x->r->fail_field);
		x->r->fail_wire = w;
		memcpy(x->r->fail_field, f, sizeof f);
	}
	return true;
}

void ex_unfail(ctx *x)
{
	x->failed = false;
	x->fail_by = EX_BY_CASE;
	x->fail_timed_out = x->app_late = x->app_busy = false;
	x->fail_req[0] = '\0';
	x->r->reason[0] = '\0';
	x->r->fail_wire = 0;
	x->r->fail_field[0] = '\0';
}

bool ex_skip(ctx *x, const char *fmt, ...)
{
	if (x->failed)
		return false;
	x->failed = true;
	x->skipped = true;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->r->reason, sizeof x->r->reason, fmt, ap);
	va_end(ap);
	return false;
}

static bool vherror(ctx *x, const char *contradicted, const char *fmt, va_list ap)
{
	if (x->failed)
		return false;
	x->failed = true;
	x->harness_error = true;
	x->contradicted = contradicted;
	vsnprintf(x->r->reason, sizeof x->r->reason, fmt, ap);
	return false;
}

bool ex_herror(ctx *x, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vherror(x, NULL, fmt, ap);
	va_end(ap);
	return false;
}

bool ex_config_error(ctx *x, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vherror(x, key, fmt, ap);
	va_end(ap);
	return false;
}

int64_t ex_arg_i(const iw_step *s, const char *name, int64_t def)
{
	const iw_arg *a = iw_step_arg(s, name);
	return a && !a->is_pattern_any && (a->type == IW_ARG_INT || a->type == IW_ARG_DURATION) ? a->i : def;
}

int64_t ex_quiet_credit(ctx *x, int64_t bound_us)
{
	/* A step of a later alternative of a one-of, at the point where an earlier one already waited
	 * in silence: that silence counts (the step needs more than has come, and in_len grows only
	 * by waiting). */
	x->quiet_credit_us = 0;
	if (x->in_one_of && x->quiet_conn == x->h->no && x->quiet_at == x->h->in_len)
		x->quiet_credit_us = x->quiet_us < bound_us ? x->quiet_us : bound_us;
	return x->quiet_credit_us;
}

int64_t ex_within_deadline(ctx *x, const iw_step *s)
{
	int64_t w = ex_arg_i(s, "within", x->o->dut.close_timeout_ms > 0 ? x->o->dut.close_timeout_ms : DEFAULT_WITHIN_MS);
	int64_t d = ex_now_us() + w * 1000 - ex_quiet_credit(x, w * 1000);
	return d < x->deadline_us ? d : x->deadline_us;
}

static bool run_expect(ctx *x, const iw_step *s);

bool ex_run_expect(ctx *x, const iw_step *s)
{
	/* A failure that names no rule of its own rests on the step's `rule=` (inner steps of a
	 * one-of may name theirs), else on the case's first requirement. */
	const char *outer = x->step_rule;
	if (s->rule[0])
		x->step_rule = s->rule;
	bool ok = run_expect(x, s);
	x->step_rule = outer;
	return ok;
}

static bool run_expect(ctx *x, const iw_step *s)
{
	if (!ex_conn_up(x->h) && s->kind != IW_EXPECT_ALIVE)
		return ex_herror(x, "line %d: %s before connect or accept", s->line, iw_step_name(s->kind));
	switch (s->kind) {
	case IW_EXPECT_REQUEST: return ex_exp_frame(x, s, IW_MPA_REQUEST);
	case IW_EXPECT_REPLY: return ex_exp_frame(x, s, IW_MPA_REPLY);
	case IW_EXPECT_FPDU:
		if (ex_exp_message(x, s, false))
			return true;
		/* The reflector's greeting is the application's, as in `startup` (ex_startup_conn). */
		x->app_late |= !strcmp(s->word, "greeting") && x->fail_timed_out && x->fail_by == EX_BY_CASE;
		return false;
	case IW_EXPECT_TERMINATE: return ex_exp_message(x, s, true);
	case IW_EXPECT_CLOSE: return ex_exp_close(x, s);
	case IW_EXPECT_SILENCE: return ex_exp_silence(x, s);
	case IW_EXPECT_ALIVE: return ex_exp_alive(x, s);
	case IW_EXPECT_ONE_OF: return ex_exp_one_of(x, s);
	case IW_EXPECT_MEASURE: return ex_exp_measure(x, s);
	case IW_EXPECT_AS_MODEL: return ex_exp_as_model(x, s);
	default: return ex_herror(x, "line %d: %s is not an expectation", s->line, iw_step_name(s->kind));
	}
}

static bool run_step(ctx *x, const iw_step *s)
{
	if (ex_now_us() >= x->deadline_us)
		return ex_fail(x, NULL, "the case timeout (%lld ms) ran out before line %d (%s)",
			    (long long)((x->deadline_us - x->t0_us) / 1000), s->line,
			    iw_step_name(s->kind));
	/* coalesce: only sends accumulate; any other step lets what is held go out first. */
	if (s->kind != IW_STEP_SEND_REQUEST && s->kind != IW_STEP_SEND_REPLY && s->kind != IW_STEP_SEND_FPDU &&
	    s->kind != IW_STEP_SEND_RAW && !ex_flush_pending(x))
		return false;
	/* A plan of `segment` steps runs before the first step that is not one of them. */
	if (s->kind != IW_STEP_SEGMENT && !ex_seg_flush(x))
		return false;
	switch (s->kind) {
	case IW_STEP_SEGMENTS: return ex_act_segments(x, s);
	case IW_STEP_SEGMENT: return ex_act_segment(x, s);
	case IW_STEP_STARTUP: {
		int64_t within = ex_arg_i(s, "within", x->o->dut.connect_timeout_ms);
		return ex_open_conn(x, within, (int)ex_arg_i(s, "mss", 0)) &&
		       ex_startup_conn(x, within, ex_startup_m(x, s), ex_startup_c(x, s), s->line);
	}
	case IW_STEP_CONNECT:
	case IW_STEP_ACCEPT:
		if ((s->kind == IW_STEP_CONNECT) != (x->dut_role == IW_ROLE_RESPONDER))
			return ex_herror(x, "line %d: %s does not fit a DUT in the %s role", s->line, iw_step_name(s->kind),
				      x->dut_role == IW_ROLE_RESPONDER ? "responder" : "initiator");
		return ex_open_conn(x, ex_arg_i(s, "within", x->o->dut.connect_timeout_ms), (int)ex_arg_i(s, "mss", 0));
	case IW_STEP_SEND_REQUEST: return ex_act_send_frame(x, s, IW_MPA_REQUEST);
	case IW_STEP_SEND_REPLY: {
		bool ok = ex_act_send_frame(x, s, IW_MPA_REPLY);
		if (ok && !x->h->sent_frame.r && x->h->got_frame_valid)
			ex_enter_full_operation(x);
		return ok;
	}
	case IW_STEP_SEND_FPDU: return ex_act_send_fpdu(x, s);
	case IW_STEP_SEND_RAW: return ex_act_send_raw(x, s);
	case IW_STEP_SPLIT: {
		memset(&x->split, 0, sizeof x->split);
		const iw_arg *a = iw_step_arg(s, "at");
		if (a) {
			x->split.nat = a->nlist < 16 ? a->nlist : 16;
			memcpy(x->split.at, a->list, x->split.nat * sizeof a->list[0]);
		}
		x->split.every = (size_t)ex_arg_i(s, "every", 0);
		x->split.delay_ms = ex_arg_i(s, "delay", 0);
		return true;
	}
	case IW_STEP_SLEEP: {
		int64_t ms = ex_arg_i(s, "for", 0);
		int64_t left = (x->deadline_us - ex_now_us()) / 1000;
		ex_sleep_ms(ms < left ? ms : left);
		return true;
	}
	case IW_STEP_CLOSE:
		if (ex_conn_up(x->h)) {
			x->h->io->shutdown(x->h);
			iw_result_wire(x->r, IW_TO_DUT, x->h->no, ex_tcase(x), "fin", NULL, 0, "harness closed its half (FIN)");
			if (x->h->model)
				iw_conn_peer_closed(x->h->model);
		}
		return true;
	case IW_STEP_USE: {
		int64_t n = ex_arg_i(s, "conn", 1);
		if (n < 1 || n > x->nconns)
			return ex_herror(x, "line %d: use %lld: the case has opened %d connection%s", s->line, (long long)n,
				      x->nconns, x->nconns == 1 ? "" : "s");
		x->h = &x->conns[n - 1];
		return true;
	}
	case IW_STEP_RESET:
		if (ex_conn_up(x->h)) {
			x->h->io->reset(x->h);
			x->h->io = NULL;
			iw_result_wire(x->r, IW_TO_DUT, x->h->no, ex_tcase(x), "rst", NULL, 0, "harness reset the connection");
		}
		return true;
	default:
		return ex_run_expect(x, s);
	}
}

static const iw_case_req *cited_req(const iw_case *c, const char *id)
{
	for (size_t i = 0; i < c->nreqs; i++)
		if (!strcmp(c->reqs[i].id, id))
			return &c->reqs[i];
	return NULL;
}

/* The verdict of a broken requirement. Its level is the catalog's (req_level.h), or the weaker
 * one the case holds it at; the reason ends with the ID and the catalog's keyword. A case is
 * judged on what it cites and on the checks every case makes (enum ex_judge). A requirement
 * neither: broken in the startup exchange, it is a step the case needs and other cases judge
 * (the Reply of a DDP case), which leaves this case unjudged, a SKIP that names it; broken in
 * full operation, it is what the case's own expectations saw (an echo's payload read back as a
 * check that nothing was placed after an error), held against the case's first requirement,
 * the reason naming both. */
static void judge_failure(ctx *x, iw_case_result *r)
{
	const iw_case *c = x->c;
	const iw_case_req *cited = cited_req(c, x->fail_req);
	enum iw_level lvl = cited ? cited->level : IW_LEVEL_MUST;
	const char *kw = NULL;
	bool known = iw_req_level(x->fail_req, &lvl, &kw);
	if (x->app_busy) {
		char why[sizeof r->reason];
		snprintf(why, sizeof why, "not judged: %.900s", r->reason);
		memcpy(r->reason, why, sizeof why);
		r->verdict = IW_SKIP;
		return;
	}
	if (x->app_late) {
		char why[sizeof r->reason];
		snprintf(why, sizeof why, "not judged: the DUT's application did not take the connection to where the case "
			 "begins in time (a DUT slower than connect_timeout, or a Send it never received: iwspec cannot "
			 "tell them apart): %.800s", r->reason);
		memcpy(r->reason, why, sizeof why);
		r->verdict = IW_SKIP;
		return;
	}
	if (!cited && x->fail_by == EX_BY_CASE && (!x->fail_full_op || !c->nreqs)) {
		char why[sizeof r->reason];
		snprintf(why, sizeof why, "not judged: a step this case needs broke %s (%s), which the case does not cite and "
			 "other cases judge: %.800s", x->fail_req, kw ? kw : iw_level_name(lvl), r->reason);
		memcpy(r->reason, why, sizeof why);
		r->verdict = IW_SKIP;
		return;
	}
	if (!cited && x->fail_by == EX_BY_CASE) {
		size_t l = strlen(r->reason);
		snprintf(r->reason + l, sizeof r->reason - l, " (seen as %s, which this case checks as %s)", x->fail_req,
			 c->reqs[0].id);
		snprintf(x->fail_req, sizeof x->fail_req, "%s", c->reqs[0].id);
		cited = &c->reqs[0];
		kw = NULL;
		lvl = cited->level;
		known = iw_req_level(x->fail_req, &lvl, &kw);
	}
	/* A case may hold what it cites weaker than the catalog (a §6 position), never stronger; its
	 * own steps only: a rule the checks made on every frame found broken is held at its level,
	 * as in every other case (one behaviour, one severity). */
	bool held_weaker = cited && known && cited->level > lvl && x->fail_by == EX_BY_CASE;
	if (held_weaker || (cited && !known))
		lvl = cited->level;
	snprintf(r->failed_req, sizeof r->failed_req, "%s", x->fail_req);
	r->verdict = lvl == IW_LEVEL_MUST ? IW_FAIL : lvl == IW_LEVEL_SHOULD ? IW_WARN : IW_INFO;
	char held[48] = "";
	if (held_weaker)
		snprintf(held, sizeof held, ", held as %s by this case", iw_level_name(lvl));
	size_t l = strlen(r->reason);
	const char *by = cited ? "" : x->fail_by == EX_LIVENESS ? ", judged by the liveness probe" : ", judged on every frame";
	snprintf(r->reason + l, sizeof r->reason - l, " [requirement %s %s%s%s]", x->fail_req,
		 kw ? kw : iw_level_name(lvl), held, by);
}

/* Whether the case has an `expect alive`, among its steps or in an alternative of a one-of. */
static bool expects_alive(const iw_case *c)
{
	for (size_t i = 0; i < c->nsteps; i++) {
		const iw_step *s = &c->steps[i];
		if (s->kind == IW_EXPECT_ALIVE)
			return true;
		for (size_t a = 0; a < s->nalts; a++)
			for (size_t k = 0; k < s->alts[a].nseq; k++)
				if (s->alts[a].seq[k]->kind == IW_EXPECT_ALIVE)
					return true;
	}
	return false;
}

void iw_exec_case(const iw_case *c, const iw_profile *p, int dut_role, const iw_run_opts *o, iw_driver *drv,
		  iw_case_result *r)
{
	ctx *x = calloc(1, sizeof *x);
	if (!x) {
		r->verdict = IW_ERROR;
		snprintf(r->reason, sizeof r->reason, "out of memory starting the case");
		return;
	}
	for (int i = 0; i < MAX_CONNS; i++)
		x->conns[i].fd = -1;
	x->h = &x->conns[0];
	x->c = c;
	x->p = p;
	x->o = o;
	x->drv = drv;
	x->r = r;
	x->dut_role = dut_role;
	x->served_before = -1;
	x->rng = (o->seed ? o->seed : 0x9E3779B97F4A7C15ull) ^ (uint64_t)strlen(c->id) * 0x100000001B3ull;
	for (const char *k = c->id; *k; k++)
		x->rng = (x->rng ^ (uint8_t)*k) * 0x100000001B3ull;
	if (!x->rng)
		x->rng = 1;
	x->t0_us = ex_now_us();
	/* A slow DUT may declare a longer case timeout than the case's own. */
	int64_t tmo = c->timeout_ms > o->dut.case_timeout_ms ? c->timeout_ms : o->dut.case_timeout_ms;
	x->deadline_us = x->t0_us + tmo * 1000;

	iw_err e;
	bool measured = false;
	for (size_t i = 0; i < c->nsteps; i++)
		x->uses_startup |= c->steps[i].kind == IW_STEP_STARTUP;
	/* Markers the DUT wants and its no-CRC mode: what the case needs, or what the run's --markers
	 * and --crc ask of the cases that open connections with `startup`, where the DUT can. */
	bool want_m = ((c->needs & IW_CAP_MARKERS) || (o->frame_markers && x->uses_startup)) && o->dut.markers;
	bool want_nocrc = ((c->needs & IW_CAP_CRC_OFF) || (o->frame_no_crc && x->uses_startup)) && o->dut.crc_off_mode;
	if (o->ulp_picked) {
		const iw_ulp_profile *m = iw_ulp_profile_of(&o->dut, dut_role);
		ex_note(x, "ulp = perftest: for this case the DUT runs %s (ulp profile %s), the first of perftest's programs "
			"that provides all it needs", m->dut_runs, m->name);
	}
	if (drv->ops->case_begin(drv, &e)) {
		ex_herror(x, "the driver could not prepare the DUT: %s", e.msg);
	} else if ((want_m || want_nocrc) && drv->ops->instruct) {
		iw_dut_instr in;
		memset(&in, 0, sizeof in);
		in.markers = want_m;
		in.crc_off = want_nocrc;
		if (iw_driver_instruct(drv, &in, &e))
			ex_herror(x, "the DUT could not be configured for the case: %s", e.msg);
		x->instr_markers = want_m;
		x->instr_crc_off = want_nocrc;
	}
	/* The no-CRC mode a C=0 frame is judged by (ex_c0_held): what the case or --crc off asked
	 * for; a DUT the harness cannot instruct per case is in the mode its administrator set for
	 * the whole run, which --crc off declares. */
	x->nocrc_mode = want_nocrc || (o->frame_no_crc && o->dut.crc_off_mode && !drv->ops->instruct);
	/* A DUT that answers no fresh connection cannot be judged on staying alive after the case:
	 * ask it once before. Its time is not taken from the case's. */
	if (!x->failed && p->startup_frames && expects_alive(c)) {
		int64_t t = ex_now_us();
		ex_probe_served(x);
		x->deadline_us += ex_now_us() - t;
	}
	/* Crafted segments need the raw segment path: without it the case cannot judge anything. */
	if (!x->failed && ex_case_needs_raw(c) && !o->dut.raw_ifname[0])
		ex_skip(x, "needs the raw segment path (its `segments` steps send crafted TCP segments): give the DUT "
			"as tcp:HOST:PORT with raw_link = NETNS:IFNAME (--raw-link), docs/raw-segments.md");
	if (!x->failed) {
		for (size_t i = 0; i < c->nsteps && !x->failed && !iw_interrupted(); i++) {
			if (c->steps[i].kind == IW_EXPECT_MEASURE)
				measured = true;
			run_step(x, &c->steps[i]);
		}
		if (!x->failed && !iw_interrupted())
			ex_seg_flush(x);
		iw_dut_finding f;
		memset(&f, 0, sizeof f);
		for (int i = 0; i < x->nconns; i++) {
			x->h = &x->conns[i];
			ex_flush_pending(x);
			/* What the DUT sent that no step took: judged as every frame is (after a failure,
			 * only shown), so no octet it sent is missing from the verdict or the wire log. */
			if (!iw_interrupted())
				ex_take_arrivals(x, "the case's end", true);
		}
		for (int i = 0; i < MAX_CONNS; i++)
			ex_hconn_close(&x->conns[i]);
		if (drv->ops->case_end(drv, &f, &e) == IW_OK && f.present) {
			r->dut_finding = true;
			snprintf(r->dut_finding_text, sizeof r->dut_finding_text, "%s%s (exit %d, signal %d)\n%s",
				 f.crashed ? "the DUT process crashed" : "the DUT process exited with a failure",
				 "", f.exit_code, f.signal, f.stderr_tail);
			const iw_ulp_profile *u = iw_ulp_profile_of(&x->o->dut, x->dut_role);
			if (f.crashed && iw_ulp_runs_tool(u)) {
				/* rping's or perftest's own crash (in its error path, say) breaks no MUST the wire
				 * shows: what the wire showed stays the verdict, and a case the crash left
				 * without one is not judged. */
				r->dut_finding = false;
				iw_result_wire(r, IW_NOTE, x->h - x->conns + 1, ex_tcase(x), "ex_note", NULL, 0,
					       "the DUT's application, %s, crashed during the case (signal %d): its own code, "
					       "not a finding of the stack under it", u->dut_runs, f.signal);
				if (!x->failed && !x->harness_error)
					ex_herror(x, "not judged: the DUT's application, %s, crashed during the case (signal %d; "
						  "its output: %.300s)", u->dut_runs, f.signal, f.stderr_tail);
			}
			/* A crash is the finding, whatever else the case saw: a step the harness could not
			 * do (a reconnect refused) or a failure it judged (a probe reset while the process
			 * was dying) came from it, and which of those came first is a matter of timing. */
			else if (f.crashed && (x->failed || x->harness_error)) {
				iw_result_wire(r, IW_NOTE, x->h - x->conns + 1, ex_tcase(x), "ex_note", NULL, 0,
					       "before the crash was seen: %.250s", r->reason);
				x->failed = false;
				x->harness_error = false;
			}
			if (!x->failed && r->dut_finding)
				ex_fail(x, NULL, "%s", r->dut_finding_text);
		}
	}
	for (int i = 0; i < MAX_CONNS; i++)
		ex_hconn_free(&x->conns[i]);
	ex_seg_free(x);
	r->duration_ms = (ex_now_us() - x->t0_us) / 1000;
	r->dut_reached = x->reached;
	r->dut_unreachable = x->unreachable && !x->reached;
	if (x->failed && !x->harness_error && x->pd_over_limit) {
		/* The configuration declares the DUT takes less private data than this case sent: its
		 * refusal is the declared deviation, not a finding. A DUT that copes still passes. */
		char why[sizeof r->reason];
		snprintf(why, sizeof why, "sent PD_Length %u, above the DUT's declared private_data_limit %u (it "
			 "failed: %.700s)", x->pd_over_limit, x->o->dut.pd_limit, r->reason);
		memcpy(r->reason, why, sizeof why);
		r->verdict = IW_SKIP;
	} else if (x->skipped) {
		r->verdict = IW_SKIP;
	} else if (x->harness_error) {
		r->verdict = IW_ERROR;
		if (x->contradicted)
			snprintf(r->dut_contradicts, sizeof r->dut_contradicts, "%s", x->contradicted);
	} else if (x->failed) {
		judge_failure(x, r);
	} else if (x->short_of) {
		/* Every MUST held; a SHOULD (or MAY) did not: judged on that row, at its level. */
		x->failed = true;
		x->fail_by = EX_EVERY_FRAME;
		snprintf(x->fail_req, sizeof x->fail_req, "%s", x->short_req);
		snprintf(r->reason, sizeof r->reason, "%s", x->short_reason);
		r->fail_wire = x->short_wire;
		snprintf(r->fail_field, sizeof r->fail_field, "%s", x->short_field);
		judge_failure(x, r);
	} else {
		r->verdict = measured || c->level == IW_LEVEL_INFO ? IW_INFO : IW_PASS;
		if (r->verdict == IW_INFO && r->nmeasures) {
			char v[32];
			iw_measure_text(&r->measures[0], 0, v, sizeof v);
			snprintf(r->reason, sizeof r->reason, "measured %s = %s", r->measures[0].name, v);
		}
	}
	iw_result_outcome(r);
	free(x);
}
