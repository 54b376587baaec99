/*
 * cmd_mutants.c - `iwspec mutants`: the suite against the clean built-in DUT and against every
 * mutant (drivers/ref_faults.c), and the detection matrix.
 *
 * A conformance suite is only as good as the bugs it catches. Each mutant breaks one
 * requirement; the run proves that some case fails against it and that such a case cites
 * that requirement. Every run is `iwspec run` as a child process of this one (isolation: a
 * crashing mutant takes down only its own run; parallelism: runs mostly wait on timers), with
 * the framing, roles and profiles the mutant's table row asks for. The clean DUT is run in
 * each of those configurations too: it must pass them all, and a verdict it already has is
 * never counted as a catch. Robustness mutants are also fuzzed (`iwspec fuzz`), which must find
 * them. The matrix goes to mutants.txt and mutants.json in the report directory; with
 * --repeat the whole matrix is made several times and must come out identical.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic_file.h"
#include "cli.h"
#include "profile.h"
#include "ref_faults.h"
#include "version.h"

#define MAX_ARGS 24
#define PATH_CAP 1024
#define FUZZ_RUNS "3000"

enum cfg { CFG_DEFAULT, CFG_MARKERS, CFG_CRC_OFF, CFG_EXEC, CFG_COUNT };
static const char *const cfg_name[CFG_COUNT] = {"default", "markers", "crc-off", "exec"};

/* What a mutant's `applies` says. */
typedef struct applies {
	enum cfg cfg;
	int role;                       /* -1 both, else IW_ROLE_* */
	bool profile[IW_PROFILE_COUNT];
	bool profiles_limited;
} applies;

typedef struct job {
	int mutant;                     /* 0: the clean DUT */
	int rep;                        /* repetition, from 0 */
	enum cfg cfg;
	int profile;                    /* -1: --profile all */
	bool fuzz;
	char dir[PATH_CAP];             /* report directory of the run (fuzz: --out) */
	char log[PATH_CAP];
	char *argv[MAX_ARGS];
	int argc;
	pid_t pid;
	int status;                     /* exit status, or 128 + signal */
	double secs;
	double t0;
} job;

typedef struct verdict {
	char id[96];
	char profile[24];
	char verdict[8];
	char failed_req[32];
	bool cites;
	bool finding;
} verdict;

typedef struct vlist {
	verdict *v;
	size_t n, cap;
} vlist;

typedef struct opts {
	const char *self;
	const char *report;
	const char *case_dir;
	int jobs;
	int repeat;
	bool fuzz;
	int profile;                    /* -1 all */
	bool selected[IW_MUTANT_COUNT];
	bool any_selected;
} opts;

static double now_s(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iwspec mutants [--mutant NAME]... [--family F]... [--sample] [--profile P|all]\n"
		"                      [--report DIR] [--jobs N] [--repeat N] [--case-dir DIR] [--no-fuzz]\n"
		"       iwspec mutants --list [--markdown]\n"
		"\n"
		"Runs the conformance suite against the clean built-in DUT and against each mutant (a\n"
		"built-in DUT breaking exactly one requirement, `iwspec serve --mutant NAME`), in every\n"
		"profile, role and framing the mutant applies to, and prints the detection matrix: for\n"
		"each mutant the cases that failed (FAIL, or WARN for a SHOULD), and whether one of them\n"
		"cites the mutant's requirement. Robustness mutants are fuzzed too (`iwspec fuzz`).\n"
		"The matrix is written to DIR/mutants.txt and DIR/mutants.json, each run's reports to\n"
		"DIR/runs/.\n"
		"\n"
		"  --mutant NAME   only this mutant (repeatable; default: all)\n"
		"  --family F      only this family: startup, framing, markers, ddp, rdmap, errors, robustness\n"
		"  --sample        one mutant per family (the first of each in the table)\n"
		"  --profile P     only this profile (default all)\n"
		"  --report DIR    where the matrix and the runs go (default out/mutants)\n"
		"  --jobs N        runs at a time (default 4; each runs its cases 16 at a time)\n"
		"  --repeat N      make the whole matrix N times; the matrices must be identical\n"
		"  --case-dir DIR  where the case catalog lives\n"
		"  --no-fuzz       do not fuzz the robustness mutants\n"
		"  --list          list the mutants (--markdown: as the table of docs/mutants.md)\n"
		"\n"
		"A mutant is detected when a case that cites its requirement fails against it and passes\n"
		"(or is skipped) against the clean DUT; a process-crash mutant only by a FAIL that carries\n"
		"the DUT finding, and a robustness mutant only when the fuzzer finds it too.\n"
		"\n"
		"exit status: 0 the clean DUT passed and every mutant was detected by a case citing its\n"
		"requirement (and the matrices agree), 1 otherwise (a clean FAIL or ERROR, a surviving\n"
		"mutant, a mutant caught only by cases citing other requirements, matrices that differ),\n"
		"2 bad usage, 3 a run could not be made or read\n");
}

static int bad(const char *fmt, const char *a)
{
	fprintf(stderr, "iwspec mutants: ");
	fprintf(stderr, fmt, a);
	fprintf(stderr, " (see iwspec mutants --help)\n");
	return IW_EXIT_USAGE;
}

/* ---- the table ---- */

static const char *const families[] = {"startup", "framing", "markers", "ddp", "rdmap", "errors", "robustness"};
#define NFAMILIES (sizeof families / sizeof families[0])

/* The mutants family by family, in table order within a family; returns how many. */
static int family_order(int *order)
{
	int n = 0;
	for (size_t f = 0; f < NFAMILIES; f++)
		for (int i = 1; i < IW_MUTANT_COUNT; i++)
			if (!strcmp(iw_mutant_info((enum iw_mutant)i)->family, families[f]))
				order[n++] = i;
	return n;
}

static bool parse_applies(const iw_fault_info *m, applies *a)
{
	memset(a, 0, sizeof *a);
	a->role = -1;
	const char *s = m->applies ? m->applies : "";
	while (*s) {
		while (*s == ' ')
			s++;
		size_t n = strcspn(s, " ");
		if (!n)
			break;
		char w[48];
		snprintf(w, sizeof w, "%.*s", (int)n, s);
		s += n;
		if (!strcmp(w, "responder")) {
			a->role = IW_ROLE_RESPONDER;
		} else if (!strcmp(w, "initiator")) {
			a->role = IW_ROLE_INITIATOR;
		} else if (!strcmp(w, "markers")) {
			a->cfg = CFG_MARKERS;
		} else if (!strcmp(w, "crc-off")) {
			a->cfg = CFG_CRC_OFF;
		} else if (!strcmp(w, "exec")) {
			a->cfg = CFG_EXEC;
		} else if (!strncmp(w, "profile:", 8)) {
			const iw_profile *p = iw_profile_find(w + 8);
			if (!p)
				return false;
			a->profile[p->id] = true;
			a->profiles_limited = true;
		} else {
			return false;
		}
	}
	return true;
}

/* Profiles a run covers: every profile but seed-exact, or the ones the mutant names. */
static bool profile_applies(const applies *a, int pid)
{
	if (pid == IW_PROFILE_SEED_EXACT)
		return false;
	return !a->profiles_limited || a->profile[pid];
}

static void print_list(bool markdown)
{
	if (markdown) {
		printf("| mutant | family | requirement | runs | the built-in DUT ... |\n|---|---|---|---|---|\n");
	}
	int order[IW_MUTANT_COUNT], n = family_order(order);
	for (int k = 0; k < n; k++) {
		const iw_fault_info *m = iw_mutant_info((enum iw_mutant)order[k]);
		const char *ap = m->applies && *m->applies ? m->applies : "all";
		if (markdown)
			printf("| `%s` | %s | %s | %s | %s |\n", m->name, m->family, m->req, ap, m->desc);
		else
			printf("%-26s %-10s %-13s %-30s %s\n", m->name, m->family, m->req, ap, m->desc);
	}
}

/* ---- jobs ---- */

static void add_arg(job *j, const char *a)
{
	if (j->argc < MAX_ARGS - 1)
		j->argv[j->argc++] = strdup(a);
	j->argv[j->argc] = NULL;
}

static int mkdirs(const char *path) { return iw_mkdir_p(path, NULL); }

/* Reports and run configurations are written whole or not at all (atomic_file.h). */
static int write_text(const char *path, const char *text) { return iw_write_atomic(path, text, strlen(text), NULL); }

/* One `iwspec run` of a mutant (0: clean) in a configuration and profile (-1: all). */
static int plan_run(job *j, const opts *o, int mutant, int rep, enum cfg cfg, int role, int profile)
{
	memset(j, 0, sizeof *j);
	j->mutant = mutant;
	j->rep = rep;
	j->cfg = cfg;
	j->profile = profile;
	const char *name = mutant ? iw_mutant_info((enum iw_mutant)mutant)->name : "clean";
	char tag[160];
	snprintf(tag, sizeof tag, "%s-%s%s%s%s", name, cfg_name[cfg], role < 0 ? "" : role == IW_ROLE_RESPONDER ? "-responder" : "-initiator",
		 profile < 0 ? "" : "-", profile < 0 ? "" : iw_profile_get((enum iw_profile_id)profile)->name);
	char runs[PATH_CAP];
	snprintf(runs, sizeof runs, "%s/runs%s%.0d", o->report, rep ? "-" : "", rep ? rep + 1 : 0);
	snprintf(j->dir, sizeof j->dir, "%.600s/%.300s", runs, tag);
	snprintf(j->log, sizeof j->log, "%.900s.log", j->dir);
	if (mkdirs(j->dir) != 0)
		return -1;
	/* The DUT configuration of the run (docs/dut-config.md). */
	char conf[PATH_CAP], text[1024];
	snprintf(conf, sizeof conf, "%.900s.conf", j->dir);
	int t = snprintf(text, sizeof text, "# iwspec mutants: %s, %s framing\n", name, cfg_name[cfg]);
	if (cfg == CFG_EXEC) {
		const char *pname = iw_profile_get((enum iw_profile_id)(profile < 0 ? IW_PROFILE_RFC5044 : profile))->name;
		t += snprintf(text + t, sizeof text - (size_t)t,
			      "dut = exec:ulimit -c 0; exec %s serve --port {port} --quiet --greeting --startup-timeout 2s "
			      "--profile %s%s%s\nmarkers = no\n",
			      o->self, pname, mutant ? " --mutant " : "", mutant ? name : "");
	} else {
		t += snprintf(text + t, sizeof text - (size_t)t, "dut = ref\n");
		if (mutant)
			t += snprintf(text + t, sizeof text - (size_t)t, "mutant = %s\n", name);
		if (cfg == CFG_CRC_OFF)
			t += snprintf(text + t, sizeof text - (size_t)t, "crc = optional-off\n");
	}
	/* The built-in DUT answers in milliseconds and closes a bad startup after 2 s: 4 s is a
	 * safe wait for a close, and a mutant that never closes costs 4 s a case, not 5. */
	t += snprintf(text + t, sizeof text - (size_t)t, "close_timeout = 4s\n");
	if (write_text(conf, text) != 0)
		return -1;
	add_arg(j, o->self);
	add_arg(j, "run");
	add_arg(j, "--no-progress");
	add_arg(j, "--dut-config");
	add_arg(j, conf);
	add_arg(j, "--report");
	add_arg(j, j->dir);
	add_arg(j, "--profile");
	add_arg(j, profile < 0 ? "all" : iw_profile_get((enum iw_profile_id)profile)->name);
	if (cfg == CFG_MARKERS) {
		add_arg(j, "--markers");
		add_arg(j, "on");
	}
	/* Runs go --jobs at a time, each with 16 cases at a time: together few enough that no case
	 * waits on the scheduler for as long as a DUT timeout. An exec DUT keeps iwspec run's
	 * default of one case at a time: with several DUT processes at once, on this loaded a
	 * machine, a case now and then saw its first connection reset before its first octet
	 * (cause not found; docs/mutants.md), and the matrix must be the same every time. */
	if (cfg != CFG_EXEC) {
		add_arg(j, "--jobs");
		add_arg(j, "16");
	}
	if (role >= 0) {
		add_arg(j, "--role");
		add_arg(j, role == IW_ROLE_RESPONDER ? "responder" : "initiator");
	}
	if (o->case_dir) {
		add_arg(j, "--case-dir");
		add_arg(j, o->case_dir);
	}
	return 0;
}

static int plan_fuzz(job *j, const opts *o, int mutant, int rep)
{
	memset(j, 0, sizeof *j);
	j->mutant = mutant;
	j->rep = rep;
	j->fuzz = true;
	j->profile = -1;
	const char *name = iw_mutant_info((enum iw_mutant)mutant)->name;
	snprintf(j->dir, sizeof j->dir, "%.600s/runs%s%.0d/%.100s-fuzz", o->report, rep ? "-" : "", rep ? rep + 1 : 0, name);
	snprintf(j->log, sizeof j->log, "%.900s.log", j->dir);
	if (mkdirs(j->dir) != 0)
		return -1;
	add_arg(j, o->self);
	add_arg(j, "fuzz");
	add_arg(j, "--mutant");
	add_arg(j, name);
	add_arg(j, "--seed");
	add_arg(j, "1");
	add_arg(j, "--runs");
	add_arg(j, FUZZ_RUNS);
	add_arg(j, "--max-findings");
	add_arg(j, "1");
	add_arg(j, "--no-progress");
	add_arg(j, "--out");
	add_arg(j, j->dir);
	return 0;
}

static void job_free(job *j)
{
	for (int i = 0; i < j->argc; i++)
		free(j->argv[i]);
	j->argc = 0;
}

static pid_t job_start(job *j)
{
	j->t0 = now_s();
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	int fd = open(j->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
	int nul = open("/dev/null", O_RDONLY);
	if (nul >= 0) {
		dup2(nul, STDIN_FILENO);
		close(nul);
	}
	execv(j->argv[0], j->argv);
	fprintf(stderr, "iwspec mutants: cannot run %s: %s\n", j->argv[0], strerror(errno));
	_exit(127);
}

/* Runs every job, at most n at a time; a line per finished run when progress is wanted. */
static void run_jobs(job *jobs, size_t njobs, int n, bool progress)
{
	size_t next = 0, done = 0;
	int running = 0;
	while (done < njobs) {
		while (running < n && next < njobs) {
			jobs[next].pid = job_start(&jobs[next]);
			if (jobs[next].pid < 0) {
				jobs[next].status = 127;
				done++;
			} else {
				running++;
			}
			next++;
		}
		int st;
		pid_t pid = waitpid(-1, &st, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (size_t i = 0; i < njobs; i++) {
			if (jobs[i].pid != pid)
				continue;
			jobs[i].status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			jobs[i].secs = now_s() - jobs[i].t0;
			jobs[i].pid = 0;
			running--;
			done++;
			if (progress)
				fprintf(stderr, "  [%zu/%zu] %-70s %6.1f s\n", done, njobs, jobs[i].dir, jobs[i].secs);
			break;
		}
	}
}

/* ---- results ---- */

static void vlist_add(vlist *l, const verdict *v)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		verdict *nv = realloc(l->v, cap * sizeof *nv);
		if (!nv)
			return;
		l->v = nv;
		l->cap = cap;
	}
	l->v[l->n++] = *v;
}

static const char *str_or(json_t *j, const char *key);

/* Reads a run's results.json into l (the requirement cited is req: sets cites). */
static int read_results(const char *dir, const char *req, vlist *l, char *err, size_t errcap)
{
	char path[PATH_CAP];
	snprintf(path, sizeof path, "%.1000s/results.json", dir);
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	if (!root) {
		snprintf(err, errcap, "%.300s: %.150s", path, je.text);
		return -1;
	}
	json_t *cases = json_object_get(root, "cases");
	size_t i;
	json_t *c;
	json_array_foreach(cases, i, c) {
		verdict v;
		memset(&v, 0, sizeof v);
		snprintf(v.id, sizeof v.id, "%s", str_or(c, "id"));
		snprintf(v.profile, sizeof v.profile, "%s", str_or(c, "profile"));
		snprintf(v.verdict, sizeof v.verdict, "%s", str_or(c, "verdict"));
		snprintf(v.failed_req, sizeof v.failed_req, "%s", str_or(c, "failed_requirement"));
		json_t *f = json_object_get(c, "dut_finding");
		v.finding = f && json_is_string(f);
		json_t *reqs = json_object_get(c, "requirements"), *r;
		size_t k;
		json_array_foreach(reqs, k, r) {
			const char *id = json_string_value(json_object_get(r, "id"));
			if (req && id && !strcmp(id, req))
				v.cites = true;
		}
		vlist_add(l, &v);
	}
	json_decref(root);
	return 0;
}

static const char *str_or(json_t *j, const char *key)
{
	const char *v = json_string_value(json_object_get(j, key));
	return v ? v : "";
}

static bool bad_verdict(const char *v) { return !strcmp(v, "FAIL") || !strcmp(v, "WARN"); }

static int cmp_verdict(const void *a, const void *b)
{
	const verdict *x = a, *y = b;
	int c = strcmp(x->id, y->id);
	return c ? c : strcmp(x->profile, y->profile);
}

/* qsort wants a non-NULL array even for no elements. */
static void sort_verdicts(vlist *l)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof *l->v, cmp_verdict);
}

/* A clean verdict of the same case, profile and configuration. */
static const verdict *clean_of(const vlist *clean, const verdict *v)
{
	for (size_t i = 0; i < clean->n; i++)
		if (!strcmp(clean->v[i].id, v->id) && !strcmp(clean->v[i].profile, v->profile))
			return &clean->v[i];
	return NULL;
}

enum outcome { OUT_DETECTED, OUT_SURVIVED, OUT_WRONG_REQ, OUT_NOT_RUN, OUT_BROKEN };
static const char *const outcome_name[] = {"detected", "SURVIVED", "WRONG-REQ", "not run", "BROKEN"};

typedef struct mresult {
	vlist caught;       /* FAIL/WARN against the mutant that the clean DUT does not have */
	vlist errors;       /* ERROR against the mutant */
	size_t citing;
	enum outcome out;
	bool fuzz_run, fuzz_found;
	char why[200];
	double secs;
} mresult;

/* The text of one matrix (no timings: repeats must give the same octets). */
static char *matrix_text(const opts *o, const vlist *clean, const int *clean_status, mresult *res, size_t nres_total,
			 const bool *in_run, int *fail_count)
{
	size_t cap = 1 << 16, len = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	s[0] = '\0';
#define OUT(...) do { \
		int k_ = snprintf(NULL, 0, __VA_ARGS__); \
		if (len + (size_t)k_ + 1 > cap) { \
			while (len + (size_t)k_ + 1 > cap) cap *= 2; \
			char *ns_ = realloc(s, cap); \
			if (!ns_) { free(s); return NULL; } \
			s = ns_; \
		} \
		len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__); \
	} while (0)
	int nm = 0, det = 0, surv = 0, wrong = 0, broken = 0;
	for (size_t i = 1; i < nres_total; i++)
		if (in_run[i]) {
			nm++;
			det += res[i].out == OUT_DETECTED;
			surv += res[i].out == OUT_SURVIVED;
			wrong += res[i].out == OUT_WRONG_REQ;
			broken += res[i].out == OUT_BROKEN;
		}
	OUT("iwspec mutants: %d mutant%s, profile %s\n\n", nm, nm == 1 ? "" : "s",
	    o->profile < 0 ? "all" : iw_profile_get((enum iw_profile_id)o->profile)->name);
	OUT("clean DUT (each configuration the mutants ran in):\n");
	int cfails = 0;
	for (int c = 0; c < CFG_COUNT; c++) {
		if (clean_status[c] < 0)
			continue;
		size_t pass = 0, fail = 0, warn = 0, err = 0, skip = 0, n = 0;
		for (size_t i = 0; i < clean[c].n; i++) {
			const char *v = clean[c].v[i].verdict;
			n++;
			pass += !strcmp(v, "PASS") || !strcmp(v, "INFO");
			fail += !strcmp(v, "FAIL");
			warn += !strcmp(v, "WARN");
			err += !strcmp(v, "ERROR");
			skip += !strcmp(v, "SKIP");
		}
		OUT("  %-8s %4zu cases: %zu PASS/INFO, %zu FAIL, %zu WARN, %zu ERROR, %zu SKIP%s\n", cfg_name[c], n, pass,
		    fail, warn, err, skip, clean_status[c] > 0 ? "  (a run could not be read)" : "");
		cfails += (int)(fail + err) + (clean_status[c] > 0);
		for (size_t i = 0; i < clean[c].n; i++)
			if (strcmp(clean[c].v[i].verdict, "PASS") && strcmp(clean[c].v[i].verdict, "INFO") &&
			    strcmp(clean[c].v[i].verdict, "SKIP"))
				OUT("    %-5s %s@%s [%s]\n", clean[c].v[i].verdict, clean[c].v[i].id, clean[c].v[i].profile,
				    clean[c].v[i].failed_req);
	}
	OUT("\n%-10s %-26s %-13s %-9s %6s %6s  %s\n", "family", "mutant", "requirement", "result", "failed", "citing",
	    "runs");
	int order[IW_MUTANT_COUNT], norder = family_order(order);
	(void)nres_total;
	for (int oi = 0; oi < norder; oi++) {
		size_t i = (size_t)order[oi];
		if (!in_run[i])
			continue;
		const iw_fault_info *m = iw_mutant_info((enum iw_mutant)i);
		OUT("%-10s %-26s %-13s %-9s %6zu %6zu  %s%s\n", m->family, m->name, m->req, outcome_name[res[i].out],
		    res[i].caught.n, res[i].citing, m->applies && *m->applies ? m->applies : "all",
		    res[i].fuzz_run ? (res[i].fuzz_found ? ", fuzz: found" : ", fuzz: NOT FOUND") : "");
	}
	OUT("\nsummary: %d mutants: %d detected, %d survived, %d caught only by cases citing other requirements%s; "
	    "clean DUT: %s\n",
	    nm, det, surv, wrong, broken ? " (and some could not be run)" : "", cfails ? "FAIL/ERROR" : "no FAIL, no ERROR");
	OUT("\nThe failed cases of each mutant ('+': the case cites the mutant's requirement; '!': the\n"
	    "verdict carries a DUT process finding; [the requirement the failure was attributed to]):\n");
	for (int oi = 0; oi < norder; oi++) {
		size_t i = (size_t)order[oi];
		if (!in_run[i])
			continue;
		const iw_fault_info *m = iw_mutant_info((enum iw_mutant)i);
		OUT("\n%s (%s, %s): %s\n  %s%s%s\n", m->name, m->req, m->family, outcome_name[res[i].out], m->desc,
		    res[i].why[0] ? "\n  " : "", res[i].why);
		mresult *r = &res[i];
		for (size_t k = 0; k < r->caught.n;) {
			/* One line per case, with the profiles that gave the same verdict and requirement. */
			const verdict *v = &r->caught.v[k];
			char profs[160] = "";
			size_t e = k;
			while (e < r->caught.n && !strcmp(r->caught.v[e].id, v->id)) {
				const verdict *w = &r->caught.v[e];
				if (!strcmp(w->verdict, v->verdict) && !strcmp(w->failed_req, v->failed_req) &&
				    w->finding == v->finding) {
					size_t pl = strlen(profs);
					snprintf(profs + pl, sizeof profs - pl, "%s%s", pl ? " " : "", w->profile);
				} else {
					break;
				}
				e++;
			}
			OUT("  %c%c %-5s %-50s [%s] %s\n", v->cites ? '+' : ' ', v->finding ? '!' : ' ', v->verdict, v->id,
			    v->failed_req, profs);
			k = e;
		}
		for (size_t k = 0; k < r->errors.n; k++)
			OUT("     ERROR %-50s %s\n", r->errors.v[k].id, r->errors.v[k].profile);
	}
#undef OUT
	*fail_count = surv + wrong + broken + cfails;
	return s;
}

static void json_matrix(json_t *arr, const vlist *l)
{
	for (size_t k = 0; k < l->n; k++) {
		const verdict *v = &l->v[k];
		json_array_append_new(arr, json_pack("{s:s,s:s,s:s,s:s?,s:b,s:b}", "id", v->id, "profile", v->profile,
						     "verdict", v->verdict, "failed_requirement",
						     v->failed_req[0] ? v->failed_req : NULL, "cites", v->cites, "dut_finding",
						     v->finding));
	}
}

/* ---- the command ---- */

static bool family_known(const char *f)
{
	for (size_t i = 0; i < NFAMILIES; i++)
		if (!strcmp(f, families[i]))
			return true;
	return false;
}

int cmd_mutants(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"mutant", required_argument, 0, 'm'},  {"family", required_argument, 0, 'F'},
		{"sample", no_argument, 0, 's'},        {"profile", required_argument, 0, 'p'},
		{"report", required_argument, 0, 'o'},  {"jobs", required_argument, 0, 'j'},
		{"repeat", required_argument, 0, 'r'},  {"case-dir", required_argument, 0, 'd'},
		{"no-fuzz", no_argument, 0, 'Z'},       {"list", no_argument, 0, 'l'},
		{"markdown", no_argument, 0, 'M'},      {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	opts o;
	memset(&o, 0, sizeof o);
	o.report = "out/mutants";
	o.jobs = 4;
	o.repeat = 1;
	o.fuzz = true;
	o.profile = -1;
	bool list = false, markdown = false, sample = false;
	const char *fams[8] = {0};
	int nfam = 0;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case 'm': {
			enum iw_mutant m;
			iw_err e;
			if (iw_mutant_find(optarg, &m, &e) != IW_OK)
				return bad("%s", e.msg);
			if (m == IW_MUTANT_NONE)
				return bad("%s", "--mutant none: name a mutant (iwspec mutants --list)");
			o.selected[m] = o.any_selected = true;
			break;
		}
		case 'F':
			if (!family_known(optarg))
				return bad("unknown family '%s' (startup, framing, markers, ddp, rdmap, errors, robustness)",
					   optarg);
			if (nfam < 8)
				fams[nfam++] = optarg;
			break;
		case 's': sample = true; break;
		case 'p':
			if (strcmp(optarg, "all")) {
				const iw_profile *p = iw_profile_find(optarg);
				if (!p)
					return bad("unknown profile '%s'", optarg);
				o.profile = p->id;
			}
			break;
		case 'o': o.report = optarg; break;
		case 'j':
			o.jobs = atoi(optarg);
			if (o.jobs < 1 || o.jobs > 64)
				return bad("--jobs '%s': use 1 to 64", optarg);
			break;
		case 'r':
			o.repeat = atoi(optarg);
			if (o.repeat < 1 || o.repeat > 5)
				return bad("--repeat '%s': use 1 to 5", optarg);
			break;
		case 'd': o.case_dir = optarg; break;
		case 'Z': o.fuzz = false; break;
		case 'l': list = true; break;
		case 'M': markdown = true; break;
		case 'h': usage(stdout); return IW_EXIT_OK;
		default:
			return bad("unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	if (list) {
		print_list(markdown);
		return IW_EXIT_OK;
	}
	static char self[PATH_CAP];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
	if (sl <= 0) {
		fprintf(stderr, "iwspec mutants: cannot find its own executable: %s\n", strerror(errno));
		return IW_EXIT_ERROR;
	}
	self[sl] = '\0';
	o.self = self;

	/* Which mutants, and the parse of each one's applies. */
	bool in_run[IW_MUTANT_COUNT] = {0};
	applies ap[IW_MUTANT_COUNT];
	const char *seen_fam[8] = {0};
	int nseen = 0;
	for (int i = 1; i < IW_MUTANT_COUNT; i++) {
		const iw_fault_info *m = iw_mutant_info((enum iw_mutant)i);
		if (!parse_applies(m, &ap[i])) {
			fprintf(stderr, "iwspec mutants: mutant %s: bad applies '%s'\n", m->name, m->applies);
			return IW_EXIT_ERROR;
		}
		bool want = o.any_selected ? o.selected[i] : true;
		if (nfam) {
			bool f = false;
			for (int k = 0; k < nfam; k++)
				f |= !strcmp(fams[k], m->family);
			want = want && f;
		}
		if (sample && want) {
			bool first = true;
			for (int k = 0; k < nseen; k++)
				if (!strcmp(seen_fam[k], m->family))
					first = false;
			if (first && nseen < 8)
				seen_fam[nseen++] = m->family;
			want = first;
		}
		in_run[i] = want;
	}
	if (mkdirs(o.report) != 0) {
		fprintf(stderr, "iwspec mutants: cannot create %s: %s\n", o.report, strerror(errno));
		return IW_EXIT_ERROR;
	}

	/* The plan: per repetition, the clean DUT in each configuration used, then the mutants. */
	size_t jcap = (size_t)o.repeat * (IW_MUTANT_COUNT * 6 + 16), nj = 0;
	job *jobs = calloc(jcap, sizeof *jobs);
	if (!jobs)
		return IW_EXIT_ERROR;
	bool cfg_used[CFG_COUNT] = {0};
	bool exec_prof[IW_PROFILE_COUNT] = {0};
	for (int i = 1; i < IW_MUTANT_COUNT; i++) {
		if (!in_run[i])
			continue;
		cfg_used[ap[i].cfg] = true;
		if (ap[i].cfg == CFG_EXEC)
			for (int p = 0; p < IW_PROFILE_COUNT; p++)
				exec_prof[p] |= profile_applies(&ap[i], p) && (o.profile < 0 || o.profile == p);
	}
	int planerr = 0;
	for (int rep = 0; rep < o.repeat; rep++) {
		for (int cf = 0; cf < CFG_COUNT; cf++) {
			if (!cfg_used[cf])
				continue;
			if (cf == CFG_EXEC) {
				for (int p = 0; p < IW_PROFILE_COUNT; p++)
					if (exec_prof[p])
						planerr |= plan_run(&jobs[nj++], &o, 0, rep, CFG_EXEC, -1, p);
			} else {
				planerr |= plan_run(&jobs[nj++], &o, 0, rep, (enum cfg)cf, -1, o.profile);
			}
		}
		for (int i = 1; i < IW_MUTANT_COUNT; i++) {
			if (!in_run[i])
				continue;
			const applies *a = &ap[i];
			/* One run over all profiles when the mutant applies to all and the DUT is in-process;
			 * one per profile otherwise (a process DUT is started with its profile). */
			bool per_profile = a->cfg == CFG_EXEC || a->profiles_limited || o.profile >= 0;
			if (!per_profile) {
				planerr |= plan_run(&jobs[nj++], &o, i, rep, a->cfg, a->role, -1);
			} else {
				for (int p = 0; p < IW_PROFILE_COUNT; p++)
					if (profile_applies(a, p) && (o.profile < 0 || o.profile == p))
						planerr |= plan_run(&jobs[nj++], &o, i, rep, a->cfg, a->role, p);
			}
			if (o.fuzz && !strcmp(iw_mutant_info((enum iw_mutant)i)->family, "robustness"))
				planerr |= plan_fuzz(&jobs[nj++], &o, i, rep);
		}
	}
	if (planerr) {
		fprintf(stderr, "iwspec mutants: cannot prepare the runs under %s: %s\n", o.report, strerror(errno));
		return IW_EXIT_ERROR;
	}
	double t0 = now_s();
	fprintf(stderr, "iwspec mutants: %zu runs, %d at a time, reports under %s\n", nj, o.jobs, o.report);
	/* Children report through their exit status; a broken pipe or a signal must not stop us. */
	signal(SIGPIPE, SIG_IGN);
	run_jobs(jobs, nj, o.jobs, true);
	double took = now_s() - t0;

	/* The matrices, one per repetition. */
	int status = IW_EXIT_OK;
	bool identical = true;
	char *first_text = NULL;
	json_t *jroot = json_object();
	json_t *jreps = json_array();
	for (int rep = 0; rep < o.repeat; rep++) {
		vlist clean[CFG_COUNT];
		int clean_status[CFG_COUNT];
		memset(clean, 0, sizeof clean);
		for (int cf = 0; cf < CFG_COUNT; cf++)
			clean_status[cf] = cfg_used[cf] ? 0 : -1;
		mresult *res = calloc(IW_MUTANT_COUNT, sizeof *res);
		if (!res)
			return IW_EXIT_ERROR;
		char err[512];
		for (size_t k = 0; k < nj; k++) {
			job *j = &jobs[k];
			if (j->rep != rep)
				continue;
			if (j->mutant == 0) {
				if (read_results(j->dir, NULL, &clean[j->cfg], err, sizeof err) != 0) {
					fprintf(stderr, "iwspec mutants: clean run: %s (exit %d; see %s)\n", err, j->status, j->log);
					clean_status[j->cfg] = 1;
				}
			}
		}
		for (int cf = 0; cf < CFG_COUNT; cf++)
			sort_verdicts(&clean[cf]);
		for (size_t k = 0; k < nj; k++) {
			job *j = &jobs[k];
			if (j->rep != rep || j->mutant == 0)
				continue;
			mresult *r = &res[j->mutant];
			r->secs += j->secs;
			const iw_fault_info *m = iw_mutant_info((enum iw_mutant)j->mutant);
			if (j->fuzz) {
				r->fuzz_run = true;
				r->fuzz_found = j->status == 1;
				if (j->status != 0 && j->status != 1)
					snprintf(r->why, sizeof r->why, "the fuzz run ended with exit status %d (see %s)", j->status,
						 j->log);
				continue;
			}
			vlist l = {0};
			if (read_results(j->dir, m->req, &l, err, sizeof err) != 0) {
				snprintf(r->why, sizeof r->why, "a run could not be read: %.150s", err);
				r->out = OUT_BROKEN;
				status = IW_EXIT_ERROR;
				continue;
			}
			for (size_t q = 0; q < l.n; q++) {
				verdict *v = &l.v[q];
				if (!strcmp(v->verdict, "ERROR")) {
					vlist_add(&r->errors, v);
					continue;
				}
				if (!bad_verdict(v->verdict))
					continue;
				const verdict *cv = clean_of(&clean[j->cfg], v);
				if (cv && bad_verdict(cv->verdict))
					continue; /* the clean DUT has it too: not the mutant's doing */
				vlist_add(&r->caught, v);
			}
			free(l.v);
		}
		for (int i = 1; i < IW_MUTANT_COUNT; i++) {
			if (!in_run[i])
				continue;
			mresult *r = &res[i];
			sort_verdicts(&r->caught);
			sort_verdicts(&r->errors);
			bool exec = ap[i].cfg == CFG_EXEC;
			for (size_t q = 0; q < r->caught.n; q++)
				r->citing += r->caught.v[q].cites && (!exec || r->caught.v[q].finding);
			if (r->out == OUT_BROKEN)
				continue;
			if (r->caught.n == 0 && r->errors.n == 0)
				r->out = OUT_SURVIVED;
			else if (r->citing == 0)
				r->out = r->caught.n ? OUT_WRONG_REQ : OUT_SURVIVED;
			else
				r->out = OUT_DETECTED;
			if (r->out == OUT_DETECTED && r->fuzz_run && !r->fuzz_found) {
				r->out = OUT_SURVIVED;
				if (!r->why[0])
					snprintf(r->why, sizeof r->why, "the cases catch it, but iwspec fuzz (seed 1, %s runs) did not",
						 FUZZ_RUNS);
			}
			if (exec && r->out != OUT_DETECTED && !r->why[0])
				snprintf(r->why, sizeof r->why, "a process mutant counts only through a FAIL with the DUT finding");
		}
		int fails = 0;
		char *text = matrix_text(&o, clean, clean_status, res, IW_MUTANT_COUNT, in_run, &fails);
		if (!text)
			return IW_EXIT_ERROR;
		if (fails && status == IW_EXIT_OK)
			status = IW_EXIT_FAIL;
		char path[PATH_CAP];
		snprintf(path, sizeof path, "%.900s/mutants%s%.0d.txt", o.report, rep ? "-" : "", rep ? rep + 1 : 0);
		if (write_text(path, text) != 0)
			fprintf(stderr, "iwspec mutants: cannot write %s: %s\n", path, strerror(errno));
		if (rep == 0) {
			fputs(text, stdout);
			first_text = text;
		} else {
			if (strcmp(text, first_text) != 0) {
				fprintf(stdout, "\nrepeat %d gave a different matrix: compare %s/mutants.txt with %s\n", rep + 1,
					o.report, path);
				identical = false;
				if (status == IW_EXIT_OK)
					status = IW_EXIT_FAIL;
			} else {
				fprintf(stdout, "repeat %d: the same matrix\n", rep + 1);
			}
			free(text);
		}
		/* JSON of this repetition. */
		json_t *jm = json_array();
		for (int i = 1; i < IW_MUTANT_COUNT; i++) {
			if (!in_run[i])
				continue;
			const iw_fault_info *m = iw_mutant_info((enum iw_mutant)i);
			json_t *caught = json_array(), *errs = json_array();
			json_matrix(caught, &res[i].caught);
			json_matrix(errs, &res[i].errors);
			json_t *jo = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:I,s:I,s:o,s:o,s:f}", "name", m->name, "family",
					       m->family, "requirement", m->req, "description", m->desc, "applies",
					       m->applies && *m->applies ? m->applies : "all", "result",
					       outcome_name[res[i].out], "failed", (json_int_t)res[i].caught.n, "citing",
					       (json_int_t)res[i].citing, "caught", caught, "errors", errs, "seconds",
					       res[i].secs);
			if (res[i].fuzz_run)
				json_object_set_new(jo, "fuzz_found", json_boolean(res[i].fuzz_found));
			if (res[i].why[0])
				json_object_set_new(jo, "note", json_string(res[i].why));
			json_array_append_new(jm, jo);
		}
		json_t *jc = json_array();
		for (int cf = 0; cf < CFG_COUNT; cf++) {
			if (clean_status[cf] < 0)
				continue;
			size_t fail = 0, err2 = 0, warn = 0;
			for (size_t q = 0; q < clean[cf].n; q++) {
				fail += !strcmp(clean[cf].v[q].verdict, "FAIL");
				err2 += !strcmp(clean[cf].v[q].verdict, "ERROR");
				warn += !strcmp(clean[cf].v[q].verdict, "WARN");
			}
			json_array_append_new(jc, json_pack("{s:s,s:I,s:I,s:I,s:I,s:b}", "configuration", cfg_name[cf], "cases",
							    (json_int_t)clean[cf].n, "fail", (json_int_t)fail, "error",
							    (json_int_t)err2, "warn", (json_int_t)warn, "readable",
							    clean_status[cf] == 0));
		}
		json_array_append_new(jreps, json_pack("{s:o,s:o}", "clean", jc, "mutants", jm));
		for (int cf = 0; cf < CFG_COUNT; cf++)
			free(clean[cf].v);
		for (int i = 0; i < IW_MUTANT_COUNT; i++) {
			free(res[i].caught.v);
			free(res[i].errors.v);
		}
		free(res);
	}
	json_object_set_new(jroot, "format", json_integer(1));
	json_object_set_new(jroot, "tool", json_pack("{s:s,s:s}", "version", iw_version, "git_rev", iw_git_rev));
	json_object_set_new(jroot, "repeat", json_integer(o.repeat));
	json_object_set_new(jroot, "identical", json_boolean(identical));
	json_object_set_new(jroot, "seconds", json_real(took));
	json_object_set_new(jroot, "matrices", jreps);
	char path[PATH_CAP];
	snprintf(path, sizeof path, "%.900s/mutants.json", o.report);
	char *jtext = json_dumps(jroot, JSON_INDENT(1) | JSON_SORT_KEYS);
	if (!jtext || write_text(path, jtext) != 0)
		fprintf(stderr, "iwspec mutants: cannot write %s\n", path);
	free(jtext);
	json_decref(jroot);
	free(first_text);
	for (size_t k = 0; k < nj; k++)
		job_free(&jobs[k]);
	free(jobs);
	printf("\nmatrix: %s/mutants.txt, %s/mutants.json (%.0f s, %zu runs, %d at a time)\n", o.report, o.report, took, nj,
	       o.jobs);
	return status;
}
