/*
 * cmd_fuzz_loop.c - the fuzzing loop of `iwspec fuzz`: NF_SLOTS runs in flight, findings
 * confirmed, minimised, deduplicated and written with nothing in flight, a progress line, and
 * the summary, which is printed however the loop ends (runs, time, findings, a signal).
 *
 * Time (--time T): the session's deadline is T after the command began (calibration counted).
 * At T no run starts; the runs in flight get one reaction timeout more to finish and be judged,
 * then everything still waiting is cut. A finding seen by then is never dropped for lack of
 * time: confirming, minimising and recording it have allowances of their own (netfuzz_min.c),
 * and one whose confirmation a signal cuts is written as unconfirmed, with the reason.
 *
 * Blame: a crashed or dead DUT is noticed by whichever run meets it first, which need not be
 * the run that took it down: NF_SLOTS runs are in flight, and on a loaded machine the DUT may
 * read a later run's octets (and die of them) before it has answered an earlier one. Every run
 * it may have read is a candidate, the ones still in flight included, tried oldest first.
 *
 * Kernel findings (--console, cmd_fuzz_kernel.c): each run, and each confirmation,
 * minimisation and recording of a finding, is preceded by a mark in the guest's console, so
 * a report the kernel prints is tied to the run (or the finding) it followed; a report of a new
 * signature is handled, like a finding, with nothing in flight.
 *
 * Kernel coverage (--kernel-coverage, netfuzz_kcov.c): a baseline read before the first run, then
 * one after every batch of runs, made with nothing in flight (and after the findings of the batch
 * are handled), so the arcs it adds are the batch's; the programs of the next runs come from
 * nf_kcov_program (mutations of kept programs on a share of them).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_fuzz.h"
#include "interrupt.h"
#include "net.h"

#define MAX_SIGS 64
#define RING (2 * NF_SLOTS) /* programs kept: those in flight and the NF_SLOTS before them */
#define MAX_PEND 16

typedef struct fz_pend {
	uint64_t run;
	uint64_t seen;              /* the run that showed it (a crash: the run that noticed it) */
	uint64_t lo, hi;            /* a crash: the runs it may come from (fz_suspects) */
	nf_finding f;
} fz_pend;

/* The fuzzing loop's state. */
typedef struct fz {
	const nf_opts *o;
	nf_session *s;
	nf_prog *ring[RING];
	nf_prog *min;
	struct { enum nf_fkind k; char req[32]; } seen[MAX_SIGS];
	size_t nseen;
	unsigned nfound, nunconfirmed, nwritten_unconfirmed;
	int status;
	bool dut_lost;              /* the DUT stopped answering and cannot be restarted */
	bool crashy_seen;           /* a crash or dead DUT was reported or listed */
	fz_pend pend[MAX_PEND];
	size_t npend;
	uint64_t first;
	uint64_t last;              /* the last run started (valid when any_started) */
	bool any_started;
	fz_kernel *k;               /* the guest kernel's console (NULL: none) */
	nf_kcov *kc;                /* kernel-coverage feedback (NULL: none) */
	int64_t t0;
	struct { uint64_t run; unsigned n; } written[64]; /* findings written, by the run they came from */
	size_t nwritten;
} fz;

/* fz_runs for the kernel findings: a run's program while the ring keeps it, its finding. */
static const nf_prog *ring_prog(void *ctx, uint64_t run)
{
	fz *x = ctx;
	const nf_prog *p = x->ring[run % RING];
	return x->any_started && run <= x->last && p->run == run && p->n ? p : NULL;
}

static unsigned written_as(void *ctx, uint64_t run)
{
	const fz *x = ctx;
	for (size_t i = x->nwritten; i-- > 0;)
		if (x->written[i].run == run)
			return x->written[i].n;
	return 0;
}

/* A mark in the guest's console before the work it names; a guest that takes none is said once
 * here (the main loop stops on it before the next run). */
static void mark(fz *x, const char *what, uint64_t run)
{
	iw_err e;
	if (x->k && fzk_mark(x->k, &e, "fuzz %s run %llu", what, (unsigned long long)run) && x->o->log)
		fprintf(x->o->log, "%siwspec fuzz: %s\n", x->o->progress ? "\n" : "", e.msg);
}

static void kernel_handle(fz *x)
{
	fz_runs r = {.prog = ring_prog, .finding = written_as, .ctx = x, .first = x->first};
	if (fzk_handle(x->k, x->s, x->o, &r) && x->status == IW_EXIT_OK)
		x->status = IW_EXIT_FAIL;
}

/* A read of the guest's kernel coverage, with nothing in flight. A failed one is said once, on
 * stderr whatever --quiet says (the campaign goes on without feedback, which its operator must
 * know), and again in the summary. */
static void kcov_read(fz *x, bool baseline)
{
	char notice[400];
	iw_err e;
	const nf_opts *o = x->o;
	int rc = nf_kcov_read(x->kc, baseline, iw_net_now_ms() - x->t0, nf_session_stats(x->s)->runs, notice,
			      sizeof notice, &e);
	if (rc)
		fprintf(stderr, "%siwspec fuzz: %s\n", o->progress ? "\n" : "", e.msg);
	if (*notice && o->log)
		fprintf(o->log, "%siwspec fuzz: %s\n", o->progress ? "\n" : "", notice);
}

static void fz_free(fz *x)
{
	for (int i = 0; i < RING; i++)
		free(x->ring[i]);
	free(x->min);
}

static bool seen_sig(const fz *x, enum nf_fkind k, const char *req)
{
	for (size_t i = 0; i < x->nseen; i++)
		if (x->seen[i].k == k && !strcmp(x->seen[i].req, req))
			return true;
	return false;
}

static void add_sig(fz *x, enum nf_fkind k, const char *req)
{
	if (x->nseen < MAX_SIGS && !seen_sig(x, k, req)) {
		x->seen[x->nseen].k = k;
		snprintf(x->seen[x->nseen++].req, sizeof x->seen[0].req, "%s", req);
	}
}

static void pend(fz *x, uint64_t run, uint64_t seen, uint64_t lo, uint64_t hi, const nf_finding *f)
{
	for (size_t i = 0; i < x->npend; i++)
		if (x->pend[i].run == run && x->pend[i].f.kind == f->kind)
			return;
	if (x->npend < MAX_PEND)
		x->pend[x->npend++] = (fz_pend){.run = run, .seen = seen, .lo = lo, .hi = hi, .f = *f};
}

void fz_suspects(uint64_t run, bool previous, uint64_t first, uint64_t last, uint64_t *lo, uint64_t *hi)
{
	*lo = run >= first + NF_SLOTS ? run - NF_SLOTS : first;
	/* Found down when run began: its octets never reached that DUT, nor did later runs'. */
	*hi = previous ? (run > *lo ? run - 1 : *lo) : last > run ? last : run;
	if (*hi - *lo >= RING)
		*lo = *hi - (RING - 1);
}

/* Finishes the run in slot k; a finding is queued for fz_handle. A crashed or dead DUT may come
 * from any program it read (fz_suspects): each is a candidate. */
static int fz_finish(fz *x, int k, uint64_t run)
{
	nf_finding f;
	iw_err e;
	if (nf_run_finish(x->s, k, &f, &e) != IW_OK) {
		fprintf(stderr, "\niwspec fuzz: %s\n", e.msg);
		x->status = IW_EXIT_ERROR;
		return IW_ESTATE;
	}
	if (f.kind == NF_F_NONE)
		return IW_OK;
	bool crashy = f.kind == NF_F_CRASH || f.kind == NF_F_DEAD;
	if (crashy) {
		uint64_t lo, hi;
		fz_suspects(run, f.previous, x->first, x->any_started ? x->last : run, &lo, &hi);
		for (uint64_t r = lo; r <= hi && !(f.previous && r == run); r++)
			pend(x, r, run, lo, hi, &f);
	} else if (!f.previous) {
		pend(x, run, run, run, run, &f);
	}
	return IW_OK;
}

/* A finding whose confirmation was cut (a signal, or a DUT that outlasted the allowance):
 * listed once per kind and requirement, with what reproduces it, and written as unconfirmed
 * (DIR/unconfirmed-N/seed.txt): nothing seen is lost. */
static void unconfirmed(fz *x, const nf_prog *cand, const fz_pend *pd, const char *why)
{
	const nf_opts *o = x->o;
	const nf_finding *f = &pd->f;
	/* A crash or a dead DUT is one event whatever run is blamed: listed once, under the run
	 * that saw it, the runs it may come from named. */
	bool crashy = f->kind == NF_F_CRASH || f->kind == NF_F_DEAD;
	if (seen_sig(x, f->kind, f->req) || (crashy && x->crashy_seen))
		return;
	add_sig(x, f->kind, f->req);
	x->crashy_seen |= crashy;
	x->nunconfirmed++;
	char reason[400];
	if (crashy && pd->lo != pd->hi)
		snprintf(reason, sizeof reason, "%s; noticed by run %llu, it may come from any of runs %llu to %llu", why,
			 (unsigned long long)pd->seen, (unsigned long long)pd->lo, (unsigned long long)pd->hi);
	else
		snprintf(reason, sizeof reason, "%s", why);
	iw_err e;
	bool written = false;
	if (o->out_dir) {
		if (nf_write_unconfirmed(o->out_dir, x->nunconfirmed, cand, f, reason, &e) == IW_OK) {
			written = true;
			x->nwritten_unconfirmed++;
		} else {
			fprintf(stderr, "iwspec fuzz: cannot write unconfirmed finding %u: %s\n", x->nunconfirmed, e.msg);
		}
	}
	char where[300] = "";
	if (written)
		snprintf(where, sizeof where, ", written to %s/unconfirmed-%u/", o->out_dir, x->nunconfirmed);
	char again[160];
	if (cand->origin.from)
		snprintf(again, sizeof again, "a mutation of kept program %llu, not run %llu's own program: seed.txt lists "
			 "its actions", (unsigned long long)cand->origin.from, (unsigned long long)cand->run);
	else
		snprintf(again, sizeof again, "try --seed %llu --first-run %llu --runs 1", (unsigned long long)o->seed,
			 (unsigned long long)cand->run);
	if (o->log)
		fprintf(o->log, "%siwspec fuzz: run %llu: %s [%s] %s: not confirmed: %s; not reported%s (%s)\n",
			o->progress ? "\n" : "", (unsigned long long)cand->run, nf_fkind_name(f->kind), f->req, f->detail,
			reason, where, again);
}

/* Confirms, minimises and writes the queued findings, oldest run first. */
static void fz_handle(fz *x)
{
	const nf_opts *o = x->o;
	iw_err e;
	for (size_t a = 0; a < x->npend; a++)
		for (size_t b = a + 1; b < x->npend; b++)
			if (x->pend[b].run < x->pend[a].run) {
				fz_pend t = x->pend[a];
				x->pend[a] = x->pend[b];
				x->pend[b] = t;
			}
	/* A crash (or dead DUT) none of its candidates shows again is said once, not dropped
	 * silently: the first such event of this batch. */
	const fz_pend *lost = NULL;
	bool crash_done = false;
	for (size_t i = 0; i < x->npend && x->nfound < o->max_findings; i++) {
		nf_finding f = x->pend[i].f;
		bool crashy = f.kind == NF_F_CRASH || f.kind == NF_F_DEAD;
		const nf_prog *cand = x->ring[x->pend[i].run % RING];
		if (cand->run != x->pend[i].run || !cand->n)
			continue;
		if (seen_sig(x, f.kind, f.req)) {
			crash_done |= crashy;
			continue;
		}
		nf_finding got, fin;
		mark(x, "confirm", cand->run);
		/* Confirmed whatever is left of --time: the confirmation has an allowance of its own. */
		int c = nf_confirm(x->s, cand, &f, 3, &got, &e);
		if (c == NF_CONFIRM_CUT) {
			unconfirmed(x, cand, &x->pend[i], e.msg);
			crash_done |= crashy;
			continue;
		}
		if (c != NF_CONFIRMED) {
			if (crashy && !lost)
				lost = &x->pend[i];
			else if (o->log && !crashy)
				fprintf(o->log, "%siwspec fuzz: run %llu: %s (%s) did not reproduce: not reported\n",
					o->progress ? "\n" : "", (unsigned long long)cand->run, f.detail, f.req);
			continue;
		}
		crash_done |= crashy;
		memcpy(x->min, cand, sizeof *x->min);
		fin = got;
		if (!o->no_minimize) {
			mark(x, "minimise", cand->run);
			nf_minimize(x->s, cand, &got, 400, x->min, &fin, &e);
		}
		bool dup = seen_sig(x, fin.kind, fin.req);
		add_sig(x, f.kind, f.req);
		add_sig(x, got.kind, got.req);
		add_sig(x, fin.kind, fin.req);
		if (dup)
			continue;
		x->nfound++;
		x->status = IW_EXIT_FAIL;
		x->crashy_seen |= fin.kind == NF_F_CRASH || fin.kind == NF_F_DEAD;
		/* Written, and its case replayed, before the finding is reported: the report says
		 * whether the case does what the finding says. */
		nf_case_check chk;
		memset(&chk, 0, sizeof chk);
		mark(x, "record", cand->run);
		if (x->nwritten < sizeof x->written / sizeof x->written[0]) {
			x->written[x->nwritten].run = cand->run;
			x->written[x->nwritten++].n = x->nfound;
		}
		int wrc = o->out_dir ? nf_write_finding(x->s, o->out_dir, x->nfound, x->min, &fin, &chk, &e) : IW_OK;
		if (o->log)
			fprintf(o->log, "%siwspec fuzz: FINDING %u (run %llu, %zu -> %zu actions): %s [%s] %s\n",
				o->progress ? "\n" : "", x->nfound, (unsigned long long)cand->run, cand->n, x->min->n,
				nf_fkind_name(fin.kind), fin.req, fin.detail);
		if (o->out_dir && wrc != IW_OK) {
			fprintf(stderr, "iwspec fuzz: cannot write finding %u: %s\n", x->nfound, e.msg);
		} else if (o->out_dir && o->log) {
			fprintf(o->log, "iwspec fuzz:   written to %s/finding-%u/ (case.iwt, seed.txt, capture.pcap)\n",
				o->out_dir, x->nfound);
			if (!chk.checked)
				fprintf(o->log, "iwspec fuzz:   the case was not checked: %s\n", chk.why);
			else if (!chk.reproduces)
				fprintf(o->log, "iwspec fuzz:   the case does not reproduce the finding: %s\n", chk.why);
			else if (!chk.clean_passes)
				fprintf(o->log, "iwspec fuzz:   the case reproduces the finding, but %s\n", chk.why);
			else
				fprintf(o->log, "iwspec fuzz:   the case reproduces it (%s [%s]) and passes on the built-in DUT\n",
					chk.verdict, chk.failed_req);
		}
	}
	if (lost && !crash_done && o->log && x->nfound < o->max_findings)
		fprintf(o->log, "%siwspec fuzz: run %llu: %s [%s] %s: no run it may come from shows it again alone: not "
			"reported\n", o->progress ? "\n" : "", (unsigned long long)lost->seen, nf_fkind_name(lost->f.kind),
			lost->f.req, lost->f.detail);
	x->npend = 0;
}

static void fz_progress(const fz *x, int64_t t0, bool final)
{
	const nf_opts *o = x->o;
	if (!o->progress && !final)
		return;
	const nf_stats *st = nf_session_stats(x->s);
	FILE *f = o->progress_out;
	double secs = (double)(iw_net_now_ms() - t0) / 1000.0;
	unsigned have, total;
	nf_cov_counts(&st->cov, &have, &total);
	bool tty = isatty(fileno(f));
	char extra[600] = "";
	if (final && st->inconclusive)
		snprintf(extra, sizeof extra, "; %llu run%s cut by the time limit or a signal, not judged",
			 (unsigned long long)st->inconclusive, st->inconclusive == 1 ? "" : "s");
	if (final && x->nunconfirmed)
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra), "; %u finding%s not confirmed%s",
			 x->nunconfirmed, x->nunconfirmed == 1 ? "" : "s",
			 x->nwritten_unconfirmed ? " (written as unconfirmed-N)" : "");
	char kern[80] = "", arcs[120] = "";
	if (x->k)
		snprintf(kern, sizeof kern, ", %u kernel finding%s", fzk_found(x->k), fzk_found(x->k) == 1 ? "" : "s");
	if (x->kc) {
		const nf_corpus *c = nf_kcov_corpus(x->kc);
		const nf_kcov_stats *ks = nf_kcov_stats_get(x->kc);
		snprintf(arcs, sizeof arcs, ", kernel arcs %llu/%llu (%zu kept)", (unsigned long long)c->hit,
			 (unsigned long long)c->total, c->n);
		if (final && ks->mutated)
			snprintf(extra + strlen(extra), sizeof extra - strlen(extra), "; %llu run%s mutated kept programs",
				 (unsigned long long)ks->mutated, ks->mutated == 1 ? "" : "s");
		if (final && ks->off)
			snprintf(extra + strlen(extra), sizeof extra - strlen(extra), "; %s", ks->note);
	}
	if (final && x->k && fzk_repeats(x->k))
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra), "; %u kernel report%s of a signature seen before",
			 fzk_repeats(x->k), fzk_repeats(x->k) == 1 ? "" : "s");
	/* Against a slow DUT (a guest without KVM) the rate needs its decimals. */
	double rate = secs > 0 ? (double)st->runs / secs : 0.0;
	fprintf(f, "%sfuzz: %llu runs, %.*f runs/s, %u finding%s%s, coverage %u/%u states+events+error codes%s%s%s",
		tty && !final ? "\r" : "", (unsigned long long)st->runs, rate < 10 ? 2 : 0, rate, x->nfound,
		x->nfound == 1 ? "" : "s", kern, have, total, arcs, extra, final || !tty ? "\n" : "   ");
	fflush(f);
}

/* Finishes every run still in flight, oldest first. */
static void fz_drain(fz *x, bool *started, const uint64_t *srun, uint64_t run)
{
	for (int k = 0; k < NF_SLOTS; k++) {
		int j = (int)((run + (uint64_t)k) % NF_SLOTS);
		if (started[j]) {
			started[j] = false;
			fz_finish(x, j, srun[j]);
		}
	}
}

/* A session that judged no run fuzzed nothing: it must not pass for a clean DUT (exit 0). It
 * did when calibration ended just inside --time (`--time 5s`: 0 runs, exit 0). Says why. */
static bool nothing_judged(nf_session *s, int64_t t0)
{
	const nf_stats *st = nf_session_stats(s);
	if (st->runs > st->inconclusive)
		return false;
	double secs = (double)(iw_net_now_ms() - t0) / 1000.0;
	if (st->runs)
		fprintf(stderr, "iwspec fuzz: no run was judged: the %llu made were cut by the time limit (%.1f s "
			"in all, calibration included): give it more --time\n", (unsigned long long)st->runs, secs);
	else
		fprintf(stderr, "iwspec fuzz: no run was made: calibration left no time for one (%.1f s in all): give "
			"it more --time\n", secs);
	return true;
}

int fz_loop(const nf_opts *o, nf_session *s, uint64_t first, int64_t t0, fz_kernel *kern)
{
	const nf_dutinfo *d = nf_session_dut(s);
	fz x;
	memset(&x, 0, sizeof x);
	x.o = o;
	x.s = s;
	x.first = first;
	x.k = kern;
	x.kc = o->kcov;
	x.t0 = t0;
	x.min = malloc(sizeof *x.min);
	bool oom = !x.min;
	for (int i = 0; i < RING; i++)
		oom |= !(x.ring[i] = malloc(sizeof *x.ring[i]));
	if (oom) {
		fz_free(&x);
		fprintf(stderr, "iwspec fuzz: out of memory\n");
		return IW_EXIT_ERROR;
	}
	x.status = IW_EXIT_OK;
	int64_t last = t0;
	bool started[NF_SLOTS] = {false};
	uint64_t srun[NF_SLOTS] = {0};
	uint64_t run;
	iw_err e;
	/* What the guest's boot and calibration reached is no run's: the baseline. */
	if (x.kc)
		kcov_read(&x, true);
	/* NF_SLOTS runs in flight: while the DUT answers one, the next ones are sent. Findings are
	 * handled (confirmed, minimised, written) with nothing in flight. */
	for (run = first;; run++) {
		int k = (int)(run % NF_SLOTS);
		if (started[k]) {
			started[k] = false;
			if (fz_finish(&x, k, srun[k]) != IW_OK)
				break;
		}
		if (x.npend || fzk_pending(x.k)) {
			/* The others in flight first, oldest first, so nothing runs while it is handled. */
			for (int j = 1; j < NF_SLOTS; j++) {
				int m = (k + j) % NF_SLOTS;
				if (started[m]) {
					started[m] = false;
					fz_finish(&x, m, srun[m]);
				}
			}
			fz_handle(&x);
			kernel_handle(&x);
		}
		if (x.kc && nf_kcov_due(x.kc, false)) {
			/* The batch's arcs are its runs' alone: nothing in flight while the guest is read. */
			fz_drain(&x, started, srun, run);
			if (x.npend || fzk_pending(x.k)) {
				fz_handle(&x);
				kernel_handle(&x);
			}
			kcov_read(&x, false);
		}
		int64_t now = iw_net_now_ms();
		if ((o->runs && run - first >= o->runs) || (o->deadline_ms && now >= o->deadline_ms) ||
		    x.nfound >= o->max_findings || x.status == IW_EXIT_ERROR || iw_interrupted())
			break;
		if (now - last >= 500) {
			fz_progress(&x, t0, false);
			last = now;
		}
		nf_prog *p = x.ring[run % RING];
		if (x.kc)
			nf_kcov_program(x.kc, p, d, o->seed, run);
		else
			nf_generate(p, d, o->seed, run);
		if (fzk_mark(x.k, &e, "fuzz run %llu", (unsigned long long)run) != IW_OK) {
			/* The guest no longer answers its agent: dead or stuck. What was found is handled;
			 * the campaign (tools/fuzz-siw.sh) boots a fresh guest. */
			fprintf(stderr, "%siwspec fuzz: %s: the guest is dead or stuck; fuzzing stops at run %llu\n",
				o->progress ? "\n" : "", e.msg, (unsigned long long)run);
			x.dut_lost = true;
			break;
		}
		if (nf_run_start(s, p, k, &e) != IW_OK) {
			/* The DUT is gone for good: what was found so far is still handled. */
			fprintf(stderr, "%siwspec fuzz: %s: fuzzing stops at run %llu\n", o->progress ? "\n" : "", e.msg,
				(unsigned long long)run);
			x.dut_lost = true;
			break;
		}
		started[k] = true;
		srun[k] = run;
		if (x.kc)
			nf_kcov_started(x.kc, p);
		x.last = run;
		x.any_started = true;
	}
	/* The runs in flight may take one reaction timeout past the deadline to be judged. */
	if (o->deadline_ms && !iw_interrupted() && iw_net_now_ms() >= o->deadline_ms)
		nf_session_set_deadline(s, o->deadline_ms + d->idle_ms);
	fz_drain(&x, started, srun, run);
	if (x.npend && x.status != IW_EXIT_ERROR && x.nfound < o->max_findings)
		fz_handle(&x);
	if (x.kc && nf_kcov_due(x.kc, true) && !iw_interrupted())
		kcov_read(&x, false);
	if (x.k && !x.dut_lost && !iw_interrupted()) {
		/* What the kernel says a little after the last run is still the last runs'. */
		mark(&x, "end after", x.any_started ? x.last : first);
		fzk_settle(x.k, 2000);
	}
	if (x.k && !iw_interrupted())
		kernel_handle(&x);
	fz_progress(&x, t0, true);
	int status = x.status;
	if (x.dut_lost && !x.nfound)
		status = IW_EXIT_ERROR;
	if (status == IW_EXIT_OK && !iw_interrupted() && nothing_judged(s, t0))
		status = IW_EXIT_ERROR;
	if (iw_interrupted()) {
		int sig = iw_interrupt_signal();
		if (o->log)
			fprintf(o->log, "iwspec fuzz: interrupted by %s: %u finding%s written so far%s%s\n",
				sig == SIGTERM ? "SIGTERM" : "SIGINT", x.nfound, x.nfound == 1 ? "" : "s",
				o->out_dir && x.nfound ? " to " : "", o->out_dir && x.nfound ? o->out_dir : "");
		status = 128 + sig;
	}
	fz_free(&x);
	return status;
}
