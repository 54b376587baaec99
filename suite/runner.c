/*
 * runner.c - selects what runs where: profiles, roles, capabilities, disabled cases; opens
 * the driver for each (profile, role) pair; executes; counts.
 */
#include "runner.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "interrupt.h"
#include "iw_conn.h"
#include "report.h"

static int64_t unix_ms(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

const char *iw_seg_mode_name(enum iw_seg_mode m)
{
	switch (m) {
	case IW_SEG_OCTET: return "octet";
	case IW_SEG_RANDOM: return "random";
	case IW_SEG_COALESCE: return "coalesce";
	default: return "none";
	}
}

int iw_seg_mode_parse(const char *s, enum iw_seg_mode *m)
{
	static const enum iw_seg_mode all[] = {IW_SEG_NONE, IW_SEG_OCTET, IW_SEG_RANDOM, IW_SEG_COALESCE};
	for (size_t i = 0; i < 4; i++)
		if (!strcmp(s, iw_seg_mode_name(all[i]))) {
			*m = all[i];
			return 0;
		}
	return -1;
}

/* A case that opens every connection with `startup` is written for no particular startup: it
 * runs under culley-mpa-02 too, where there are no frames to exchange. */
static bool startup_only(const iw_case *c)
{
	bool any = false;
	for (size_t i = 0; i < c->nsteps; i++) {
		enum iw_step_kind k = c->steps[i].kind;
		if (k == IW_STEP_CONNECT || k == IW_STEP_ACCEPT || k == IW_STEP_SEND_REQUEST || k == IW_STEP_SEND_REPLY)
			return false;
		any |= k == IW_STEP_STARTUP;
	}
	return any;
}

static bool case_profile_ok(const iw_case *c, const iw_profile *p)
{
	if (c->nprofiles == 0)
		return (p->startup_frames || startup_only(c)) && p->id != IW_PROFILE_SEED_EXACT;
	for (size_t i = 0; i < c->nprofiles; i++)
		if (!strcmp(c->profiles[i], p->name))
			return true;
	return false;
}

static bool is_ref(const iw_dut_config *d);

static const char *missing_need(const iw_case *c, const iw_dut_config *d)
{
	if ((c->needs & IW_CAP_REFLECTOR) && !d->reflector)
		return "needs reflector: the DUT configuration says it runs no reflector";
	if ((c->needs & IW_CAP_MARKERS) && !d->markers)
		return "needs markers: the DUT configuration says it cannot receive markers";
	if ((c->needs & IW_CAP_CRC_OFF) && !d->crc_off_mode)
		return "needs crc-off: the DUT has no administrator no-CRC mode";
	if ((c->needs & IW_CAP_PD) && !is_ref(d))
		return "needs pd: only the built-in DUT can be told which private data to send";
	if ((c->needs & IW_CAP_REJECT) && !d->reject)
		return "needs reject: the DUT cannot be told to reject a connection";
	return NULL;
}

static bool is_ref(const iw_dut_config *d) { return !strcmp(d->dut, "ref") || !strncmp(d->dut, "ref:", 4); }

int iw_runner_run(const iw_run_opts *o, iw_case *const *cases, size_t n, iw_run *run, iw_err *e)
{
	run->start_unix_ms = unix_ms();
	snprintf(run->tool_version, sizeof run->tool_version, "%s", IWSPEC_VERSION);
	snprintf(run->git_rev, sizeof run->git_rev, "%s", IWSPEC_GIT_REV);
	snprintf(run->dut, sizeof run->dut, "%s", o->dut.dut);
	snprintf(run->dut_config_source, sizeof run->dut_config_source, "%s", o->dut.source);
	snprintf(run->profile, sizeof run->profile, "%s", o->all_profiles ? "all" : o->dut.profile->name);
	snprintf(run->role, sizeof run->role, "%s",
		 o->role_fixed ? (o->dut.role == IW_ROLE_RESPONDER ? "responder" : "initiator") : "per case");
	snprintf(run->seg_mode, sizeof run->seg_mode, "%s", iw_seg_mode_name(o->seg));
	snprintf(run->framing, sizeof run->framing, "markers %s, crc %s", o->frame_markers ? "on" : "off",
		 o->frame_no_crc ? "off" : "on");
	run->seed = o->seed;
	if (gethostname(run->host, sizeof run->host) != 0)
		snprintf(run->host, sizeof run->host, "unknown");
	/* The ref DUT plays whichever role a case needs unless --role fixed it; other DUTs have one role. */
	bool flexible_role = is_ref(&o->dut) && !o->role_fixed;
	const iw_profile *profiles[IW_PROFILE_COUNT];
	size_t nprof = 0;
	if (o->all_profiles) {
		for (int i = 0; i < IW_PROFILE_COUNT; i++)
			if (i != IW_PROFILE_SEED_EXACT)
				profiles[nprof++] = iw_profile_get((enum iw_profile_id)i);
	} else {
		profiles[nprof++] = o->dut.profile;
	}
	size_t total = 0;
	for (size_t pi = 0; pi < nprof; pi++)
		for (size_t i = 0; i < n; i++)
			total += case_profile_ok(cases[i], profiles[pi]) || !o->all_profiles;
	size_t done = 0;
	for (size_t pi = 0; pi < nprof && !iw_interrupted(); pi++) {
		const iw_profile *p = profiles[pi];
		iw_driver *drv[2] = {NULL, NULL};
		/* SIGINT/SIGTERM: no further case starts (interrupt.h). */
		for (size_t i = 0; i < n && !iw_interrupted(); i++) {
			const iw_case *c = cases[i];
			if (o->all_profiles && !case_profile_ok(c, p))
				continue;
			iw_case_result *r = iw_run_add(run);
			if (!r)
				return iw_errf(e, IW_ENOSPC, "out of memory recording results");
			snprintf(r->id, sizeof r->id, "%s", c->id);
			snprintf(r->title, sizeof r->title, "%s", c->title);
			snprintf(r->file, sizeof r->file, "%s", c->file);
			snprintf(r->profile, sizeof r->profile, "%s", p->name);
			r->nreqs = c->nreqs;
			memcpy(r->reqs, c->reqs, sizeof c->reqs);
			snprintf(r->dut_role, sizeof r->dut_role, "%s",
				 (flexible_role ? c->dut_role : o->dut.role) == IW_ROLE_RESPONDER ? "responder" : "initiator");
			iw_result_set_expected(r, c);
			r->start_unix_ms = unix_ms();
			const char *skip = NULL;
			char why[256];
			const char *dis = iw_dut_config_disabled(&o->dut, c->id);
			if (dis) {
				snprintf(why, sizeof why, "disabled by the DUT configuration: %s", dis);
				skip = why;
			} else if (!case_profile_ok(c, p)) {
				snprintf(why, sizeof why, "applies to profile%s", c->nprofiles > 1 ? "s" : "");
				for (size_t k = 0; k < c->nprofiles; k++)
					snprintf(why + strlen(why), sizeof why - strlen(why), " %s", c->profiles[k]);
				if (!c->nprofiles)
					snprintf(why + strlen(why), sizeof why - strlen(why), " with startup frames%s",
						 startup_only(c) ? " or culley-mpa-02" : "");
				snprintf(why + strlen(why), sizeof why - strlen(why), "; the DUT speaks %s", p->name);
				skip = why;
			} else if (!flexible_role && c->dut_role != o->dut.role) {
				snprintf(why, sizeof why, "needs a DUT in the %s role; this DUT is %s",
					 c->dut_role == IW_ROLE_RESPONDER ? "responder" : "initiator",
					 o->dut.role == IW_ROLE_RESPONDER ? "a responder" : "an initiator");
				skip = why;
			} else {
				skip = missing_need(c, &o->dut);
			}
			if (skip) {
				r->verdict = IW_SKIP;
				snprintf(r->reason, sizeof r->reason, "%s", skip);
			} else {
				int role = flexible_role ? c->dut_role : o->dut.role;
				if (!drv[role]) {
					iw_dut_config *dc = malloc(sizeof *dc);
					if (!dc)
						return iw_errf(e, IW_ENOSPC, "out of memory");
					*dc = o->dut;
					dc->profile = p;
					dc->role = role;
					iw_err de;
					if (iw_driver_open(&drv[role], dc, &de)) {
						free(dc);
						r->verdict = IW_ERROR;
						snprintf(r->reason, sizeof r->reason, "cannot open the DUT driver: %s", de.msg);
					}
				}
				if (drv[role])
					iw_exec_case(c, p, role, o, drv[role], r);
				/* A case the signal cut short has no verdict: it did not finish. */
				if (iw_interrupted()) {
					r->verdict = IW_ERROR;
					snprintf(r->reason, sizeof r->reason, "interrupted by %s before the case finished: no verdict",
						 iw_interrupt_signal() == SIGTERM ? "SIGTERM" : "SIGINT");
					r->failed_req[0] = '\0';
				}
			}
			done++;
			if (o->progress && o->console)
				iw_console_progress(o->console, true, done, total, r);
		}
		for (int k = 0; k < 2; k++)
			if (drv[k]) {
				const iw_dut_config *dc = drv[k]->cfg;
				iw_driver_close(drv[k]);
				free((void *)dc);
			}
	}
	run->end_unix_ms = unix_ms();
	run->complete = !iw_interrupted();
	run->stop_signal = iw_interrupt_signal();
	iw_run_count(run);
	return IW_OK;
}
