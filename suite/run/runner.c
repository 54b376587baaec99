/*
 * runner.c - selects what runs where: profiles, roles, capabilities, disabled cases; runs the
 * cases on --jobs worker threads, each opening its own driver for each (profile, role) pair;
 * counts.
 */
#include "runner.h"
#include "buffer_use.h"
#include "ulp_profile.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "interrupt.h"
#include "iw_conn.h"
#include "version.h"
#include "wait_dut.h"

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

/* A case that advertises an MSS (`startup mss=`, `connect mss=`): the option rides on the SYN of
 * a connection the harness opens, so only a responder DUT can be given one. */
static bool advertises_mss(const iw_case *c)
{
	for (size_t i = 0; i < c->nsteps; i++)
		if (iw_step_arg(&c->steps[i], "mss"))
			return true;
	return false;
}

bool iw_case_either_role(const iw_case *c) { return startup_only(c) && !advertises_mss(c); }

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

/* The first need the DUT does not meet: the configuration's (markers, no-CRC mode, reject,
 * private data), then its application's, by the ULP profile of its `ulp` in the case's role. */
static const char *missing_need(const iw_case *c, const iw_dut_config *d, int dut_role, char *why, size_t cap)
{
	if ((c->needs & IW_CAP_MARKERS) && !d->markers)
		return "needs markers: the DUT configuration says it cannot receive markers";
	if ((c->needs & IW_CAP_CRC_OFF) && !d->crc_off_mode)
		return "needs crc-off: the DUT has no administrator no-CRC mode";
	if ((c->needs & IW_CAP_PD) && !is_ref(d))
		return "needs pd: only the built-in DUT can be told which private data to send";
	if ((c->needs & IW_CAP_REJECT) && !d->reject)
		return "needs reject: the DUT cannot be told to reject a connection";
	iw_ulp_profile u;
	char runs[96];
	iw_ulp_profile_sized(d, dut_role, &u, runs, sizeof runs);
	if (iw_ulp_unmet(c, &u, why, cap))
		return why;
	return NULL;
}

static bool is_ref(const iw_dut_config *d) { return !strcmp(d->dut, "ref") || !strncmp(d->dut, "ref:", 4); }

/* One case to execute in a profile, and where its result goes. */
typedef struct task {
	const iw_case *c;
	const iw_profile *p;
	int role;
	size_t ri;                  /* index in run->cases */
	int64_t est_ms;             /* roughly this long (expected_ms) */
	bool started;
	bool running;
	iw_buffer_use use;          /* the octets of the shared buffer it writes and reads */
} task;

/* How long a case takes, roughly, from the waits it writes: silences and sleeps (of the longest
 * alternative of a one-of), and the DUT's startup timeout a measuring case, or one that allows
 * a slow close (within= 5 s or more), waits out (the built-in DUT's is 2 s). */
static int64_t expected_ms(iw_step *const *seq, const iw_step *steps, size_t n)
{
	int64_t ms = 0;
	for (size_t i = 0; i < n; i++) {
		const iw_step *s = seq ? seq[i] : &steps[i];
		const iw_arg *a = iw_step_arg(s, "for");
		if ((s->kind == IW_EXPECT_SILENCE || s->kind == IW_STEP_SLEEP) && a && a->type == IW_ARG_DURATION) {
			ms += a->i;
		} else if (s->kind == IW_EXPECT_MEASURE) {
			ms += 2000;
		} else if (s->kind == IW_EXPECT_CLOSE && (a = iw_step_arg(s, "within")) && a->type == IW_ARG_DURATION &&
			   a->i >= 5000) {
			ms += 2000;
		} else if (s->kind == IW_EXPECT_ONE_OF) {
			int64_t most = 0;
			for (size_t k = 0; k < s->nalts; k++) {
				int64_t alt = expected_ms(s->alts[k].seq, NULL, s->alts[k].nseq);
				most = alt > most ? alt : most;
			}
			ms += most;
		}
	}
	return ms;
}

/* Longest first, catalog order among equals: the run ends on short cases, the workers together. */
static int by_expected(const void *a, const void *b)
{
	const task *x = a, *y = b;
	if (x->est_ms != y->est_ms)
		return x->est_ms > y->est_ms ? -1 : 1;
	return x->ri < y->ri ? -1 : x->ri > y->ri;
}

/* The cases are handed out to `jobs` workers, the longest first; each worker opens its own
 * drivers, so a per-case request to the built-in DUT (instruct) never reaches another
 * worker's connections. */
typedef struct pool {
	const iw_run_opts *o;
	iw_run *run;
	task *tasks;
	size_t ntasks, next;
	size_t done, total;
	bool reached;               /* some case opened a connection to the DUT */
	bool waits;                 /* wait is the run's wait for the DUT to listen (--wait-dut) */
	iw_wait_dut wait;
	char stopped[400];          /* the DUT cannot be reached: no further case starts */
	bool keep_apart;            /* the DUT's connections share one buffer: no case starts beside
				     * one whose octets of it it would change or read (buffer_use.h) */
	pthread_mutex_t mu;
	pthread_cond_t ended;       /* a case ended: one kept apart from it may start */
} pool;

static void close_drivers(iw_driver *drv[2])
{
	for (int k = 0; k < 2; k++)
		if (drv[k]) {
			const iw_dut_config *dc = drv[k]->cfg;
			iw_driver_close(drv[k]);
			free((void *)dc);
			drv[k] = NULL;
		}
}

static void progress(pool *pl, const iw_case_result *r)
{
	pthread_mutex_lock(&pl->mu);
	pl->done++;
	/* The first case to finish without ever reaching the DUT, while no case has reached it,
	 * stops the run (unless --keep-going): the rest would only wait out the same timeout. */
	pl->reached |= r->dut_reached;
	if (r->dut_unreachable && !pl->reached && !pl->o->keep_going && !pl->stopped[0])
		snprintf(pl->stopped, sizeof pl->stopped, "the DUT %.60s cannot be reached, and no case has reached it: %.160s "
			 "(%.63s)", pl->o->dut.dut, r->reason, r->id);
	if (pl->o->on_result)
		pl->o->on_result(pl->o->on_result_ctx, pl->done, pl->total, r);
	pthread_mutex_unlock(&pl->mu);
}

static void run_task(pool *pl, task *t, iw_driver *drv[2], bool reached)
{
	const iw_run_opts *o = pl->o;
	iw_case_result *r = &pl->run->cases[t->ri];
	r->start_unix_ms = unix_ms();
	/* The placeholder of prepare() goes: from here the case has a verdict of its own. */
	r->verdict = IW_PASS;
	r->reason[0] = '\0';
	if (!drv[t->role]) {
		iw_dut_config *dc = malloc(sizeof *dc);
		iw_err de;
		if (!dc) {
			snprintf(de.msg, sizeof de.msg, "out of memory");
		} else {
			*dc = o->dut;
			dc->profile = t->p;
			dc->role = t->role;
			if (iw_driver_open(&drv[t->role], dc, &de) != IW_OK) {
				free(dc);
				drv[t->role] = NULL;
			}
		}
		if (!drv[t->role]) {
			r->verdict = IW_ERROR;
			snprintf(r->reason, sizeof r->reason, "cannot open the DUT driver: %s", de.msg);
		}
	}
	if (drv[t->role]) {
		/* Until a case has reached the DUT, a refused first connection is not retried. */
		iw_run_opts *oc = malloc(sizeof *oc);
		if (oc) {
			*oc = *o;
			oc->connect_once = !o->keep_going && !reached;
			oc->wait = pl->waits && !reached ? &pl->wait : NULL;
			/* ulp = perftest: the case runs against the mode that provides what it needs, as if
			 * the configuration had named it, and the driver starts that program. */
			const iw_ulp_profile *m = iw_ulp_mode_for(iw_ulp_profile_of(&o->dut, t->role), t->c);
			if (m && m->ulp != o->dut.ulp) {
				oc->dut.ulp = m->ulp;
				oc->ulp_picked = true;
			}
			iw_driver_set_ulp(drv[t->role], oc->dut.ulp);
		}
		if (oc || o->dut.ulp != IW_ULP_PERFTEST) {
			iw_exec_case(t->c, t->p, t->role, oc ? oc : o, drv[t->role], r);
		} else {
			r->verdict = IW_ERROR;
			snprintf(r->reason, sizeof r->reason, "out of memory picking perftest's program for the case");
		}
		free(oc);
	}
	/* A case the signal cut short has no verdict: it did not finish. */
	if (iw_interrupted()) {
		r->verdict = IW_ERROR;
		snprintf(r->reason, sizeof r->reason, "interrupted by %s before the case finished: no verdict",
			 iw_interrupt_signal() == SIGTERM ? "SIGTERM" : "SIGINT");
		r->failed_req[0] = '\0';
		/* Nor does it say the DUT cannot be reached: the run ends as interrupted, not stopped. */
		r->dut_unreachable = false;
	}
	progress(pl, r);
}

/* The first case not started that may start now (with pl->mu held): the next in order, or,
 * when the run keeps cases apart, the first whose buffer octets no running case touches. */
static task *next_task(pool *pl)
{
	while (pl->next < pl->ntasks && pl->tasks[pl->next].started)
		pl->next++;
	for (size_t i = pl->next; i < pl->ntasks; i++) {
		task *t = &pl->tasks[i];
		if (t->started)
			continue;
		if (!pl->keep_apart)
			return t;
		bool apart = true;
		for (size_t k = 0; k < pl->ntasks && apart; k++)
			apart = !pl->tasks[k].running || !iw_buffer_use_conflict(&t->use, &pl->tasks[k].use);
		if (apart)
			return t;
	}
	return NULL;
}

static void *worker(void *arg)
{
	pool *pl = arg;
	iw_driver *drv[2] = {NULL, NULL};
	const iw_profile *drv_profile = NULL;
	for (;;) {
		pthread_mutex_lock(&pl->mu);
		task *t = NULL;
		/* SIGINT/SIGTERM: no further case starts (interrupt.h). A case kept apart waits for
		 * the running ones it would disturb to end. */
		while (!iw_interrupted() && !pl->stopped[0] && !(t = next_task(pl)) && pl->next < pl->ntasks)
			pthread_cond_wait(&pl->ended, &pl->mu);
		if (t)
			t->started = t->running = true;
		bool reached = pl->reached;
		pthread_mutex_unlock(&pl->mu);
		if (!t)
			break;
		/* A worker's drivers serve one profile at a time (tasks mostly come profile by profile). */
		if (t->p != drv_profile) {
			close_drivers(drv);
			drv_profile = t->p;
		}
		run_task(pl, t, drv, reached);
		pthread_mutex_lock(&pl->mu);
		t->running = false;
		pthread_cond_broadcast(&pl->ended);
		pthread_mutex_unlock(&pl->mu);
	}
	close_drivers(drv);
	return NULL;
}

/* The identity of a case's result, and SKIP with the reason when it cannot run here. */
static void prepare(const iw_run_opts *o, const iw_case *c, const iw_profile *p, bool flexible_role,
		    iw_case_result *r)
{
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
	} else if (!flexible_role && c->dut_role != o->dut.role && !iw_case_either_role(c)) {
		/* A case that opens every connection with `startup` runs against either role. */
		snprintf(why, sizeof why, "needs a DUT in the %s role%s; this DUT is %s",
			 c->dut_role == IW_ROLE_RESPONDER ? "responder" : "initiator",
			 startup_only(c) ? " (it advertises an MSS, on connections the harness opens)" : "",
			 o->dut.role == IW_ROLE_RESPONDER ? "a responder" : "an initiator");
		skip = why;
	} else {
		skip = missing_need(c, &o->dut, flexible_role ? c->dut_role : o->dut.role, why, sizeof why);
	}
	if (skip) {
		r->verdict = IW_SKIP;
		snprintf(r->reason, sizeof r->reason, "%s", skip);
	} else {
		/* Until a worker runs it: a slot no worker reached never reads as a verdict. */
		r->verdict = IW_ERROR;
		snprintf(r->reason, sizeof r->reason, "not run: the run ended before this case started");
	}
}

int iw_runner_jobs(const iw_run_opts *o)
{
	if (o->jobs > 0)
		return o->jobs;
	/* The built-in DUT takes any number of connections, and its cases mostly wait on timers;
	 * another DUT gets one case at a time unless asked. */
	return is_ref(&o->dut) ? IW_RUNNER_REF_JOBS : 1;
}

int iw_runner_run(const iw_run_opts *o, iw_case *const *cases, size_t n, iw_run *run, iw_err *e)
{
	run->start_unix_ms = unix_ms();
	snprintf(run->tool_version, sizeof run->tool_version, "%s", iw_version);
	snprintf(run->git_rev, sizeof run->git_rev, "%s", iw_git_rev);
	snprintf(run->dut, sizeof run->dut, "%s", o->dut.dut);
	snprintf(run->dut_config_source, sizeof run->dut_config_source, "%s", o->dut.source);
	snprintf(run->profile, sizeof run->profile, "%s", o->all_profiles ? "all" : o->dut.profile->name);
	snprintf(run->role, sizeof run->role, "%s",
		 o->role_fixed ? (o->dut.role == IW_ROLE_RESPONDER ? "responder" : "initiator") : "per case");
	snprintf(run->seg_mode, sizeof run->seg_mode, "%s", iw_seg_mode_name(o->seg));
	snprintf(run->framing, sizeof run->framing, "markers %s, crc %s", o->frame_markers ? "on" : "off",
		 o->frame_no_crc ? "off" : "on");
	run->seed = o->seed;
	run->jobs = iw_runner_jobs(o);
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

	/* Every result slot first (run->cases does not move once the workers start), the SKIPs
	 * decided on the spot. */
	pool pl;
	memset(&pl, 0, sizeof pl);
	pl.o = o;
	pl.run = run;
	/* The wait counts from the start of the run: the lab script started the DUT with it. */
	pl.waits = o->dut.wait_dut_ms > 0;
	if (pl.waits)
		iw_wait_dut_init(&pl.wait, &o->dut, o->wait_dut_how, o->on_wait, o->on_wait_ctx);
	pl.tasks = calloc(nprof * n + 1, sizeof *pl.tasks);
	if (!pl.tasks)
		return iw_errf(e, IW_ENOSPC, "out of memory planning the run");
	size_t skipped = 0;
	for (size_t pi = 0; pi < nprof; pi++)
		for (size_t i = 0; i < n; i++) {
			const iw_case *c = cases[i];
			if (o->all_profiles && !case_profile_ok(c, profiles[pi]))
				continue;
			iw_case_result *r = iw_run_add(run);
			if (!r) {
				free(pl.tasks);
				return iw_errf(e, IW_ENOSPC, "out of memory recording results");
			}
			prepare(o, c, profiles[pi], flexible_role, r);
			pl.total++;
			if (r->verdict == IW_SKIP) {
				skipped++;
				continue;
			}
			task *t = &pl.tasks[pl.ntasks++];
			t->c = c;
			t->p = profiles[pi];
			t->role = flexible_role ? c->dut_role : o->dut.role;
			t->ri = run->ncases - 1;
			t->est_ms = expected_ms(NULL, c->steps, c->nsteps);
			iw_buffer_use_of(c, &t->use);
		}
	pl.done = skipped;

	int jobs = run->jobs;
	/* One at a time, the order changes nothing but the reading: the catalog's. */
	if (jobs > 1)
		qsort(pl.tasks, pl.ntasks, sizeof *pl.tasks, by_expected);
	if ((size_t)jobs > pl.ntasks)
		jobs = pl.ntasks ? (int)pl.ntasks : 1;
	pthread_t tid[IW_RUNNER_MAX_JOBS];
	int started = 0;
	/* The built-in DUT serves each worker from its own memory; perftest and rping give each
	 * connection its own buffer. */
	pl.keep_apart = jobs > 1 && !is_ref(&o->dut) &&
			(iw_ulp_profile_of(&o->dut, o->dut.role)->provides & IW_CAP_SHARED);
	pthread_mutex_init(&pl.mu, NULL);
	pthread_cond_init(&pl.ended, NULL);
	for (int k = 1; k < jobs; k++) {
		if (pthread_create(&tid[started], NULL, worker, &pl) != 0)
			break;  /* fewer workers: slower, not wrong */
		started++;
	}
	worker(&pl);
	for (int k = 0; k < started; k++)
		pthread_join(tid[k], NULL);
	pthread_mutex_destroy(&pl.mu);
	pthread_cond_destroy(&pl.ended);

	/* Cases an interruption kept from starting have no result: drop their slots. */
	size_t keep = 0;
	bool *drop = calloc(run->ncases + 1, sizeof *drop);
	if (drop) {
		for (size_t k = 0; k < pl.ntasks; k++)
			drop[pl.tasks[k].ri] = !pl.tasks[k].started;
		for (size_t k = 0; k < run->ncases; k++) {
			if (drop[k]) {
				iw_result_clear_wire(&run->cases[k]);
				run->not_started++;
				continue;
			}
			if (keep != k)
				run->cases[keep] = run->cases[k];
			keep++;
		}
		run->ncases = keep;
		free(drop);
	}
	free(pl.tasks);
	run->end_unix_ms = unix_ms();
	snprintf(run->stopped, sizeof run->stopped, "%s", pl.stopped);
	run->complete = !iw_interrupted() && !pl.stopped[0];
	run->stop_signal = iw_interrupt_signal();
	iw_run_count(run);
	return IW_OK;
}
