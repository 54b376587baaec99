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
 * --repeat the whole matrix is made several times and must come out identical, with --expect it
 * must equal a matrix made before (make test's, tests/mutants.expect): the same determinism
 * check for half the runs, and a change in what the suite catches shows up in review.
 *
 * This file is the command; cmd_mutants_int.h lists the files that plan, run and judge.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_mutants_int.h"
#include "hexin.h"
#include "version.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iwspec mutants [--mutant NAME]... [--family F]... [--sample] [--profile P|all]\n"
		"                      [--report DIR] [--jobs N] [--repeat N] [--expect FILE] [--case-dir DIR]\n"
		"                      [--no-fuzz]\n"
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
		"  --expect FILE   the matrix must be identical to FILE (a mutants.txt kept from before)\n"
		"  --case-dir DIR  where the case catalog lives\n"
		"  --no-fuzz       do not fuzz the robustness mutants\n"
		"  --list          list the mutants (--markdown: as the table of docs/mutants.md)\n"
		"\n"
		"A mutant is detected when a case that cites its requirement fails against it and passes\n"
		"(or is skipped) against the clean DUT; a process-crash mutant only by a FAIL that carries\n"
		"the DUT finding, and a robustness mutant only when the fuzzer finds it too. Each failed\n"
		"case is listed with the rule its failure rests on ('=' the mutant's own: the 'blamed'\n"
		"column counts them) and what the DUT did; over all mutants, one rule after one outcome\n"
		"must have one level (one behaviour, one severity).\n"
		"\n"
		"exit status: 0 the clean DUT passed and every mutant was detected by a case citing its\n"
		"requirement (and the matrices agree), 1 otherwise (a clean FAIL or ERROR, a surviving\n"
		"mutant, a mutant caught only by cases citing other requirements, a rule judged at two\n"
		"levels after the same outcome, matrices that differ, a matrix unlike --expect's),\n"
		"2 bad usage, 3 a run could not be made or read\n");
}

static int bad(const char *fmt, const char *a)
{
	fprintf(stderr, "iwspec mutants: ");
	fprintf(stderr, fmt, a);
	fprintf(stderr, " (see iwspec mutants --help)\n");
	return IW_EXIT_USAGE;
}

/* What the command line asks besides the options of the runs: a listing, or which mutants. */
typedef struct choice {
	bool list, markdown, sample;
	const char *fams[8];
	int nfam;
} choice;

/* Returns -1 when the command goes on, else its exit status (usage, --help). */
static int parse_options(int argc, char **argv, opts *o, choice *ch)
{
	static const struct option lopts[] = {
		{"mutant", required_argument, 0, 'm'},  {"family", required_argument, 0, 'F'},
		{"sample", no_argument, 0, 's'},        {"profile", required_argument, 0, 'p'},
		{"report", required_argument, 0, 'o'},  {"jobs", required_argument, 0, 'j'},
		{"repeat", required_argument, 0, 'r'},  {"case-dir", required_argument, 0, 'd'},
		{"no-fuzz", no_argument, 0, 'Z'},       {"list", no_argument, 0, 'l'},
		{"expect", required_argument, 0, 'e'},
		{"markdown", no_argument, 0, 'M'},      {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	memset(o, 0, sizeof *o);
	o->report = "out/mutants";
	o->jobs = 4;
	o->repeat = 1;
	o->fuzz = true;
	o->profile = -1;
	memset(ch, 0, sizeof *ch);
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
			o->selected[m] = o->any_selected = true;
			break;
		}
		case 'F':
			if (!mu_family_known(optarg))
				return bad("unknown family '%s' (startup, framing, markers, ddp, rdmap, errors, robustness)",
					   optarg);
			if (ch->nfam < 8)
				ch->fams[ch->nfam++] = optarg;
			break;
		case 's': ch->sample = true; break;
		case 'p':
			if (strcmp(optarg, "all")) {
				const iw_profile *p = iw_profile_find(optarg);
				if (!p)
					return bad("unknown profile '%s'", optarg);
				o->profile = p->id;
			}
			break;
		case 'o': o->report = optarg; break;
		case 'j':
			o->jobs = atoi(optarg);
			if (o->jobs < 1 || o->jobs > 64)
				return bad("--jobs '%s': use 1 to 64", optarg);
			break;
		case 'r':
			o->repeat = atoi(optarg);
			if (o->repeat < 1 || o->repeat > 5)
				return bad("--repeat '%s': use 1 to 5", optarg);
			break;
		case 'd': o->case_dir = optarg; break;
		case 'e':
			if (access(optarg, R_OK) != 0)
				return bad("--expect '%s': no such readable file", optarg);
			o->expect = optarg;
			break;
		case 'Z': o->fuzz = false; break;
		case 'l': ch->list = true; break;
		case 'M': ch->markdown = true; break;
		case 'h': usage(stdout); return IW_EXIT_OK;
		default:
			return bad("unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	return -1;
}

/* The mutants of this command (in_run) and the parse of each one's applies; false for a table
 * row whose applies does not parse. */
static bool select_mutants(const opts *o, const choice *ch, bool *in_run, applies *ap)
{
	const char *seen_fam[8] = {0};
	int nseen = 0;
	for (int i = 1; i < IW_MUTANT_COUNT; i++) {
		const iw_fault_info *m = iw_mutant_info((enum iw_mutant)i);
		if (!mu_parse_applies(m, &ap[i])) {
			fprintf(stderr, "iwspec mutants: mutant %s: bad applies '%s'\n", m->name, m->applies);
			return false;
		}
		bool want = o->any_selected ? o->selected[i] : true;
		if (ch->nfam) {
			bool f = false;
			for (int k = 0; k < ch->nfam; k++)
				f |= !strcmp(ch->fams[k], m->family);
			want = want && f;
		}
		if (ch->sample && want) {
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
	return true;
}

typedef struct plan {
	job *jobs;
	size_t nj;
	bool cfg_used[CFG_COUNT];       /* the framings some mutant runs in: the clean DUT runs in each */
} plan;

/* The plan: per repetition, the clean DUT in each configuration used, then the mutants.
 * Returns 0, or the exit status when the runs cannot be prepared. */
static int make_plan(const opts *o, const bool *in_run, const applies *ap, plan *pl)
{
	memset(pl, 0, sizeof *pl);
	size_t jcap = (size_t)o->repeat * (IW_MUTANT_COUNT * 6 + 16), nj = 0;
	job *jobs = calloc(jcap, sizeof *jobs);
	if (!jobs)
		return IW_EXIT_ERROR;
	bool *cfg_used = pl->cfg_used;
	bool exec_prof[IW_PROFILE_COUNT] = {0};
	for (int i = 1; i < IW_MUTANT_COUNT; i++) {
		if (!in_run[i])
			continue;
		cfg_used[ap[i].cfg] = true;
		if (ap[i].cfg == CFG_EXEC)
			for (int p = 0; p < IW_PROFILE_COUNT; p++)
				exec_prof[p] |= mu_profile_applies(&ap[i], p) && (o->profile < 0 || o->profile == p);
	}
	int planerr = 0;
	for (int rep = 0; rep < o->repeat; rep++) {
		for (int cf = 0; cf < CFG_COUNT; cf++) {
			if (!cfg_used[cf])
				continue;
			if (cf == CFG_EXEC) {
				for (int p = 0; p < IW_PROFILE_COUNT; p++)
					if (exec_prof[p])
						planerr |= mu_plan_run(&jobs[nj++], o, 0, rep, CFG_EXEC, -1, p);
			} else {
				planerr |= mu_plan_run(&jobs[nj++], o, 0, rep, (enum cfg)cf, -1, o->profile);
			}
		}
		for (int i = 1; i < IW_MUTANT_COUNT; i++) {
			if (!in_run[i])
				continue;
			const applies *a = &ap[i];
			/* One run over all profiles when the mutant applies to all and the DUT is in-process;
			 * one per profile otherwise (a process DUT is started with its profile). */
			bool per_profile = a->cfg == CFG_EXEC || a->profiles_limited || o->profile >= 0;
			if (!per_profile) {
				planerr |= mu_plan_run(&jobs[nj++], o, i, rep, a->cfg, a->role, -1);
			} else {
				for (int p = 0; p < IW_PROFILE_COUNT; p++)
					if (mu_profile_applies(a, p) && (o->profile < 0 || o->profile == p))
						planerr |= mu_plan_run(&jobs[nj++], o, i, rep, a->cfg, a->role, p);
			}
			if (o->fuzz && !strcmp(iw_mutant_info((enum iw_mutant)i)->family, "robustness"))
				planerr |= mu_plan_fuzz(&jobs[nj++], o, i, rep);
		}
	}
	pl->jobs = jobs;
	pl->nj = nj;
	if (planerr) {
		fprintf(stderr, "iwspec mutants: cannot prepare the runs under %s: %s\n", o->report, strerror(errno));
		return IW_EXIT_ERROR;
	}
	return 0;
}

/* The matrices made so far: the exit status they call for, the first one's text (printed;
 * each repeat is compared with it), their JSON. */
typedef struct matrices {
	int status;
	bool identical;
	bool expected;      /* equal to --expect's matrix (true without --expect) */
	char *first_text;
	json_t *jreps;
} matrices;

/* Whether text is --expect's matrix; on a difference, its first differing line and the fix. */
static bool matches_expected(const opts *o, const char *text)
{
	uint8_t *want = NULL;
	size_t wlen = 0;
	char msg[256];
	if (iw_read_input(o->expect, 16u << 20, &want, &wlen, msg, sizeof msg) != 0) {
		fprintf(stdout, "\n--expect %s: %s\n", o->expect, msg);
		return false;
	}
	size_t tlen = strlen(text);
	bool same = wlen == tlen && !memcmp(want, text, tlen);
	if (!same) {
		/* The first line where they part. */
		size_t i = 0, line = 1, ls = 0;
		while (i < tlen && i < wlen && text[i] == (char)want[i]) {
			if (text[i] == '\n') {
				line++;
				ls = i + 1;
			}
			i++;
		}
		int gl = (int)strcspn(text + ls, "\n"), wl = 0;
		while (ls + (size_t)wl < wlen && want[ls + (size_t)wl] != '\n')
			wl++;
		fprintf(stdout,
			"\nthe matrix differs from %s, first at line %zu:\n  expected: %.*s\n  got:      %.*s\n"
			"A mutant's outcome or the cases that catch it changed. If the change is meant (a case\n"
			"added or fixed, a mutant added), keep the new matrix: cp %s/mutants.txt %s\n",
			o->expect, line, wl > 200 ? 200 : wl, (const char *)want + ls, gl > 200 ? 200 : gl, text + ls,
			o->report, o->expect);
	} else {
		fprintf(stdout, "the matrix is identical to %s\n", o->expect);
	}
	free(want);
	return same;
}

/* The matrix of repetition rep, written to mutants[-N].txt. Returns false out of memory. */
static bool one_matrix(const opts *o, const plan *pl, int rep, const bool *in_run, const applies *ap, matrices *mx)
{
	vlist clean[CFG_COUNT];
	int clean_status[CFG_COUNT];
	mresult *res = calloc(IW_MUTANT_COUNT, sizeof *res);
	if (!res)
		return false;
	if (!mu_judge(pl->jobs, pl->nj, rep, pl->cfg_used, in_run, ap, clean, clean_status, res))
		mx->status = IW_EXIT_ERROR;
	int fails = 0;
	char *text = mu_matrix_text(o, clean, clean_status, res, IW_MUTANT_COUNT, in_run, &fails);
	if (!text)
		return false;
	if (fails && mx->status == IW_EXIT_OK)
		mx->status = IW_EXIT_FAIL;
	char path[PATH_CAP];
	snprintf(path, sizeof path, "%.900s/mutants%s%.0d.txt", o->report, rep ? "-" : "", rep ? rep + 1 : 0);
	if (mu_write_text(path, text) != 0)
		fprintf(stderr, "iwspec mutants: cannot write %s: %s\n", path, strerror(errno));
	if (rep == 0) {
		fputs(text, stdout);
		mx->first_text = text;
		if (o->expect && !matches_expected(o, text)) {
			mx->expected = false;
			if (mx->status == IW_EXIT_OK)
				mx->status = IW_EXIT_FAIL;
		}
	} else {
		if (strcmp(text, mx->first_text) != 0) {
			fprintf(stdout, "\nrepeat %d gave a different matrix: compare %s/mutants.txt with %s\n", rep + 1,
				o->report, path);
			mx->identical = false;
			if (mx->status == IW_EXIT_OK)
				mx->status = IW_EXIT_FAIL;
		} else {
			fprintf(stdout, "repeat %d: the same matrix\n", rep + 1);
		}
		free(text);
	}
	json_array_append_new(mx->jreps, mu_matrix_json(clean, clean_status, res, in_run));
	mu_results_free(clean, res);
	free(res);
	return true;
}

int cmd_mutants(int argc, char **argv)
{
	opts o;
	choice ch;
	int st = parse_options(argc, argv, &o, &ch);
	if (st >= 0)
		return st;
	if (ch.list) {
		mu_print_list(ch.markdown);
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

	bool in_run[IW_MUTANT_COUNT] = {0};
	applies ap[IW_MUTANT_COUNT];
	if (!select_mutants(&o, &ch, in_run, ap))
		return IW_EXIT_ERROR;
	if (mu_mkdirs(o.report) != 0) {
		fprintf(stderr, "iwspec mutants: cannot create %s: %s\n", o.report, strerror(errno));
		return IW_EXIT_ERROR;
	}
	plan pl;
	if ((st = make_plan(&o, in_run, ap, &pl)) != 0)
		return st;
	double t0 = mu_now_s();
	fprintf(stderr, "iwspec mutants: %zu runs, %d at a time, reports under %s\n", pl.nj, o.jobs, o.report);
	/* Children report through their exit status; a broken pipe or a signal must not stop us. */
	signal(SIGPIPE, SIG_IGN);
	mu_run_jobs(pl.jobs, pl.nj, o.jobs, true);
	double took = mu_now_s() - t0;

	/* The matrices, one per repetition. */
	matrices mx = {.status = IW_EXIT_OK, .identical = true, .expected = true, .first_text = NULL, .jreps = json_array()};
	json_t *jroot = json_object();
	for (int rep = 0; rep < o.repeat; rep++)
		if (!one_matrix(&o, &pl, rep, in_run, ap, &mx))
			return IW_EXIT_ERROR;
	json_object_set_new(jroot, "format", json_integer(1));
	json_object_set_new(jroot, "tool", json_pack("{s:s,s:s}", "version", iw_version, "git_rev", iw_git_rev));
	json_object_set_new(jroot, "repeat", json_integer(o.repeat));
	json_object_set_new(jroot, "identical", json_boolean(mx.identical));
	if (o.expect)
		json_object_set_new(jroot, "expected", json_pack("{s:s,s:b}", "file", o.expect, "identical", mx.expected));
	json_object_set_new(jroot, "seconds", json_real(took));
	json_object_set_new(jroot, "matrices", mx.jreps);
	char path[PATH_CAP];
	snprintf(path, sizeof path, "%.900s/mutants.json", o.report);
	char *jtext = json_dumps(jroot, JSON_INDENT(1) | JSON_SORT_KEYS);
	if (!jtext || mu_write_text(path, jtext) != 0)
		fprintf(stderr, "iwspec mutants: cannot write %s\n", path);
	free(jtext);
	json_decref(jroot);
	free(mx.first_text);
	for (size_t k = 0; k < pl.nj; k++)
		mu_job_free(&pl.jobs[k]);
	free(pl.jobs);
	printf("\nmatrix: %s/mutants.txt, %s/mutants.json (%.0f s, %zu runs, %d at a time)\n", o.report, o.report, took,
	       pl.nj, o.jobs);
	return mx.status;
}
