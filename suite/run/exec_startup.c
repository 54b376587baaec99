/*
 * exec_startup.c - `startup` (a connection taken through the profile's startup to the reflector's
 * greeting and an echo) and `expect alive`, built from the same steps a case could write.
 */
#include "exec_int.h"
#include "ulp_profile.h"

#include <stdio.h>
#include <string.h>

/* Steps the harness makes up itself (startup, liveness, as-model), with their arguments. */
void ex_st_init(iw_step *st, enum iw_step_kind k, const char *word, int line)
{
	memset(st, 0, sizeof *st);
	st->kind = k;
	st->line = line;
	snprintf(st->word, sizeof st->word, "%s", word);
}

void ex_st_int(iw_step *st, const char *name, int64_t v, enum iw_arg_type type)
{
	if (st->nargs == IW_CASE_MAX_ARGS)
		return;
	iw_arg *a = &st->args[st->nargs++];
	snprintf(a->name, sizeof a->name, "%s", name);
	a->type = type;
	a->i = v;
}

void ex_st_bytes(iw_step *st, const char *name, const uint8_t *b, size_t n)
{
	if (st->nargs == IW_CASE_MAX_ARGS)
		return;
	iw_arg *a = &st->args[st->nargs++];
	snprintf(a->name, sizeof a->name, "%s", name);
	a->type = IW_ARG_BYTES;
	a->bytes = (uint8_t *)b;        /* not owned: synthetic steps are never freed */
	a->nbytes = n;
}

/* The DUT application's ULP profile in this case's role (ulp_profile.h). */
static const iw_ulp_profile *ulp_of(const ctx *x) { return iw_ulp_profile_of(&x->o->dut, x->dut_role); }

/* After the frames, what the ULP profile does before its capabilities hold (ulp_profile.h):
 * the reflector's Send, greeting and echo (the harness's next MSN on QN 0 is then 2, the DUT's
 * 3, in every profile and role), rping's advertisement (next MSNs 1 and 2), or nothing. */
static bool ulp_startup(ctx *x, int64_t within_ms, int line)
{
	iw_step st;
	const iw_ulp_profile *u = ulp_of(x);
	if (u->startup == IW_ULP_START_FRAMES)
		return true;
	if (u->startup == IW_ULP_START_RPING_INFO) {
		ex_st_init(&st, IW_EXPECT_FPDU, "rping_info", line);
		ex_st_int(&st, "within", within_ms, IW_ARG_DURATION);
		if (!ex_exp_message(x, &st, false))
			return false;
		/* The profile promised the cases rping_size octets (64 unless said): a shorter buffer
		 * would make the DUT's correct refusals of what the cases write look like findings. */
		uint32_t want = x->o->dut.rping_size ? x->o->dut.rping_size : IW_RPING_SIZE_DEFAULT;
		if (x->h->have_adv && x->h->adv_len < want)
			return ex_config_error(x, "rping_size", "line %d: rping advertises %u octets, the DUT configuration says "
					       "rping_size = %u: set it to the -S the DUT's rping runs with (docs/rping.md)", line,
					       x->h->adv_len, want);
		return true;
	}
	if (u->startup == IW_ULP_START_PERFTEST)
		return ex_perftest_keys(x, within_ms);
	if (u->startup != IW_ULP_START_REFLECTOR)
		return ex_herror(x, "line %d: startup: ulp profile %s has no way to full operation iwspec speaks: %s", line,
				 u->name, u->why_not ? u->why_not : "?");
	/* An initiator DUT greets first: the harness, as responder, may send no FPDU before it has
	 * received one (MPA-6.1-R4; siw resets a connection whose Reply is followed at once by an
	 * FPDU). A responder DUT greets after the harness's first Send. */
	static const uint8_t hello[] = STARTUP_PAYLOAD;
	bool dut_first = x->dut_role == IW_ROLE_INITIATOR;
	bool ok = true;
	ex_st_init(&st, IW_EXPECT_FPDU, "greeting", line);
	ex_st_int(&st, "within", within_ms, IW_ARG_DURATION);
	ok = ok && (!dut_first || ex_exp_message(x, &st, false));
	ex_st_init(&st, IW_STEP_SEND_FPDU, "send", line);
	ex_st_bytes(&st, "data", hello, sizeof hello - 1);
	ok = ok && ex_act_send_fpdu(x, &st);
	ex_st_init(&st, IW_EXPECT_FPDU, "greeting", line);
	ex_st_int(&st, "within", within_ms, IW_ARG_DURATION);
	ok = ok && (dut_first || ex_exp_message(x, &st, false));
	ex_st_init(&st, IW_EXPECT_FPDU, "send", line);
	ex_st_bytes(&st, "data", hello, sizeof hello - 1);
	ex_st_int(&st, "within", within_ms, IW_ARG_DURATION);
	return ok && ex_exp_message(x, &st, false);
}

/* Takes the just-opened current connection to full operation the way the role and profile say
 * (MR §6.1; none under culley-mpa-02), then to where the DUT application's capabilities hold
 * (ulp_startup): from here on the case's connections look the same in every profile and role. */
bool ex_startup_frames(ctx *x, int64_t within_ms, int m, int c, int line)
{
	iw_step st;
	bool ok = true;
	if (x->p->startup_frames) {
		if (x->dut_role == IW_ROLE_RESPONDER) {
			ex_st_init(&st, IW_STEP_SEND_REQUEST, "request", line);
			ex_st_int(&st, "m", m, IW_ARG_INT);
			ex_st_int(&st, "c", c, IW_ARG_INT);
			ok = ex_act_send_frame(x, &st, IW_MPA_REQUEST);
			ex_st_init(&st, IW_EXPECT_REPLY, "reply", line);
			ex_st_int(&st, "r", 0, IW_ARG_INT);
			ex_st_int(&st, "within", within_ms, IW_ARG_DURATION);
			ok = ok && ex_exp_frame(x, &st, IW_MPA_REPLY);
		} else {
			ex_st_init(&st, IW_EXPECT_REQUEST, "request", line);
			ex_st_int(&st, "r", 0, IW_ARG_INT);
			ex_st_int(&st, "within", within_ms, IW_ARG_DURATION);
			ok = ex_exp_frame(x, &st, IW_MPA_REQUEST);
			ex_st_init(&st, IW_STEP_SEND_REPLY, "reply", line);
			ex_st_int(&st, "m", m, IW_ARG_INT);
			ex_st_int(&st, "c", c, IW_ARG_INT);
			ok = ok && ex_act_send_frame(x, &st, IW_MPA_REPLY);
			if (ok && x->h->got_frame_valid)
				ex_enter_full_operation(x);
		}
	}
	return ok;
}

bool ex_startup_conn(ctx *x, int64_t within_ms, int m, int c, int line)
{
	bool framed = ex_startup_frames(x, within_ms, m, c, line);
	bool ok = framed && ulp_startup(x, within_ms, line);
	if (ok)
		x->h->startup_msn = x->h->msn[IW_QN_SEND];
	if (!ok && x->failed && !x->harness_error) {
		/* The application was silent past the startup time: a DUT too slow for it (a guest
		 * under load) or one that lost the Send, which the wire cannot tell apart. Neither is
		 * what the case's requirements are about (exec_case.c judge_failure). */
		x->app_late = framed && x->fail_timed_out && x->fail_by == EX_BY_CASE;
		char r[sizeof x->r->reason];
		snprintf(r, sizeof r, "startup (line %d) did not reach full operation with the %s: %.900s", line,
			 ulp_of(x)->name, x->r->reason);
		memcpy(x->r->reason, r, sizeof r);
	}
	return ok;
}

int ex_startup_m(const ctx *x, const iw_step *s) { return (int)ex_arg_i(s, "m", x->o->frame_markers ? 1 : 0); }
int ex_startup_c(const ctx *x, const iw_step *s) { return (int)ex_arg_i(s, "c", x->o->frame_no_crc ? 0 : 1); }

/* A DUT that takes connections but answers none (silent, or closing or resetting each at once)
 * fails the happy path; whether a case's stimulus took it down cannot be told, so such a DUT's
 * liveness is not judged. The probe is connection 0 of the wire log. */
void ex_probe_served(ctx *x)
{
	hconn *saved = x->h;
	hconn probe;
	memset(&probe, 0, sizeof probe);
	probe.fd = -1;
	int64_t within = x->o->dut.close_timeout_ms > 0 ? x->o->dut.close_timeout_ms : DEFAULT_WITHIN_MS;
	bool ok = ex_open_into(x, &probe, 0, x->o->dut.connect_timeout_ms, 0);
	if (ok) {
		iw_step st;
		if (x->dut_role == IW_ROLE_RESPONDER) {
			ex_st_init(&st, IW_EXPECT_REPLY, "reply", 0);
			ex_st_int(&st, "within", within, IW_ARG_DURATION);
			ok = ex_act_send_frame(x, &st, IW_MPA_REQUEST) && ex_exp_frame(x, &st, IW_MPA_REPLY);
		} else {
			/* The exchange completed, as any connection of a case would: a DUT's listener or
			 * connection logic is not left with a half-started connection. */
			ex_st_init(&st, IW_EXPECT_REQUEST, "request", 0);
			ex_st_int(&st, "within", within, IW_ARG_DURATION);
			ok = ex_exp_frame(x, &st, IW_MPA_REQUEST);
			ex_st_init(&st, IW_STEP_SEND_REPLY, "reply", 0);
			ok = ok && ex_act_send_frame(x, &st, IW_MPA_REPLY);
		}
		/* Any complete frame counts: whether it is a good one is for the case to judge. */
		x->served_before = probe.got_frame_valid;
		if (!ok && !x->harness_error) {
			ex_note(x, "before the case, a fresh connection got no %s (%.200s): `expect alive` will not be judged",
				x->dut_role == IW_ROLE_RESPONDER ? "Reply" : "Request", x->r->reason);
			ex_unfail(x);
		}
		/* What came after the frame is judged and shown like any octet of the DUT; the probe
		 * itself gives no verdict (the case's own connections do), so a rule it breaks is a
		 * note. */
		if (ok && !x->harness_error && !ex_take_arrivals(x, "the probe before the case", true) &&
		    !x->harness_error) {
			ex_note(x, "before the case, the probe's connection saw: %.250s (no verdict: the case judges its own "
				"connections)", x->r->reason);
			ex_unfail(x);
		}
	}
	/* A client DUT (perftest's) exits only at the end of its flow: before the case's own
	 * connection, which is another run of it, this one must end. */
	ex_perftest_end(x, &probe);
	ex_hconn_free(&probe);
	x->h = saved;
}

/* Liveness: a fresh connection still completes startup (the case's connections are left alone);
 * with the reflector it must also greet and echo: the DUT still works, not only listens. It
 * rests on the rule that a valid startup frame is answered (MPA-6.1-R2a for a responder DUT,
 * R1a for an initiator, which must send its Request). */
bool ex_exp_alive(ctx *x, const iw_step *s)
{
	const char *req = x->dut_role == IW_ROLE_RESPONDER ? "MPA-6.1-R2a" : "MPA-6.1-R1a";
	int64_t deadline = ex_within_deadline(x, s);
	hconn *saved = x->h;
	hconn probe;
	memset(&probe, 0, sizeof probe);
	probe.fd = -1;
	bool ok = ex_open_into(x, &probe, x->nconns + 1, (deadline - ex_now_us()) / 1000, 0);
	/* A case that talks to the reflector (its `startup`, or its own greeting and echo) probes with
	 * the whole of it; others with the frames. */
	bool reflector = ulp_of(x)->startup == IW_ULP_START_REFLECTOR &&
			 (iw_case_uses_startup(x->c) || (x->c->needs & (IW_CAP_ECHO | IW_CAP_GREETING)));
	if (ok && reflector) {
		ok = ex_startup_conn(x, (deadline - ex_now_us()) / 1000, ex_startup_m(x, s), ex_startup_c(x, s), s->line);
	} else if (ok && x->p->startup_frames) {
		iw_step st;
		memset(&st, 0, sizeof st);
		st.line = s->line;
		if (x->dut_role == IW_ROLE_RESPONDER) {
			ok = ex_act_send_frame(x, &st, IW_MPA_REQUEST) && ex_exp_frame(x, &st, IW_MPA_REPLY);
		} else {
			ok = ex_exp_frame(x, &st, IW_MPA_REQUEST) && ex_act_send_frame(x, &st, IW_MPA_REPLY);
		}
	}
	/* What the DUT sent on the probe past what it judged is judged as on any connection. */
	if (ok && ex_conn_up(&probe))
		ok = ex_take_arrivals(x, "expect alive", true);
	if (!ok && !x->harness_error && x->fail_by == EX_EVERY_FRAME) {
		/* The probe's frame breaks a sender's rule: judged as such, like any frame. */
	} else if (!ok && !x->harness_error && x->served_before == 0 && ex_conn_up(&probe) && !probe.got_frame_valid) {
		ex_note(x, "liveness not judged: the fresh connection got no startup frame (%.200s), as before the case; "
			"the happy-path cases judge a DUT that answers none", x->r->reason);
		ex_unfail(x);
		ok = true;
	} else if (!ok && !x->harness_error) {
		snprintf(x->fail_req, sizeof x->fail_req, "%s", req);
		x->fail_by = EX_LIVENESS;
		x->app_late = false;    /* the probe's startup is what liveness judges */
	}
	ex_perftest_end(x, &probe);
	ex_hconn_free(&probe);
	x->h = saved;
	if (ok)
		ex_note(x, reflector ? "liveness probe: a fresh connection completed startup, greeted and echoed"
				  : "liveness probe: a fresh connection completed startup");
	return ok;
}
