/*
 * cmd_mutants_int.h - the internals of `iwspec mutants`, shared by its files (not a public
 * header: main calls cmd_mutants in cli.h). The command plans one child `iwspec run` per mutant,
 * framing, role and profile (and an `iwspec fuzz` per robustness mutant), runs them some at a
 * time, reads each run's verdicts and makes the detection matrix. The files, in the order the
 * command uses them:
 *
 *   cmd_mutants.c         options, which mutants, the plan, one matrix per repetition
 *   cmd_mutants_table.c   the mutant table as the matrix reads it: families, where each applies
 *   cmd_mutants_jobs.c    the child runs: their DUT configuration and arguments, N at a time
 *   cmd_mutants_judge.c   a run's verdicts read, each mutant judged against the clean DUT
 *   cmd_mutants_matrix.c  the matrix as text (mutants.txt) and as JSON (mutants.json)
 */
#ifndef IW_CMD_MUTANTS_INT_H
#define IW_CMD_MUTANTS_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "profile.h"
#include "ref_faults.h"

#define MAX_ARGS 24
#define PATH_CAP 1024
#define FUZZ_RUNS "3000"

/* The framings a run can use; mu_cfg_name spells them in run names and the matrix. */
enum cfg { CFG_DEFAULT, CFG_MARKERS, CFG_CRC_OFF, CFG_EXEC, CFG_COUNT };
extern const char *const mu_cfg_name[CFG_COUNT];

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
	char outcome[64];           /* what the DUT did (results.json's outcome), or "" */
	bool held_weaker;           /* the case holds the rule below the catalog's level (a §6 position) */
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
	const char *expect;             /* --expect: the matrix must equal this file's text */
	bool fuzz;
	int profile;                    /* -1 all */
	bool selected[IW_MUTANT_COUNT];
	bool any_selected;
} opts;

enum outcome { OUT_DETECTED, OUT_SURVIVED, OUT_WRONG_REQ, OUT_NOT_RUN, OUT_BROKEN };
extern const char *const mu_outcome_name[];

typedef struct mresult {
	vlist caught;       /* FAIL/WARN against the mutant that the clean DUT does not have */
	vlist errors;       /* ERROR against the mutant */
	size_t citing;
	size_t blamed;      /* caught cases whose failure rests on the mutant's requirement */
	enum outcome out;
	bool fuzz_run, fuzz_found;
	char why[200];
	double secs;
} mresult;

/* cmd_mutants_table.c. Whether a family exists; the mutants family by family (returns how
 * many); a mutant's `applies` parsed (false: a word it does not know); whether a run in profile
 * pid shows the mutant; `iwspec mutants --list`. */
bool mu_family_known(const char *f);
int mu_family_order(int *order);
bool mu_parse_applies(const iw_fault_info *m, applies *a);
bool mu_profile_applies(const applies *a, int pid);
void mu_print_list(bool markdown);

/* cmd_mutants_jobs.c. A job is one child process: mu_plan_run an `iwspec run` of a mutant (0:
 * clean) in a framing, role (-1 both) and profile (-1 all), with its DUT configuration file
 * written beside its report directory; mu_plan_fuzz an `iwspec fuzz` of a robustness mutant.
 * Both return 0, or -1 with errno when a directory or file cannot be made. mu_run_jobs runs
 * them, at most n at a time, filling status and secs. */
double mu_now_s(void);
int mu_mkdirs(const char *path);
int mu_write_text(const char *path, const char *text);
int mu_plan_run(job *j, const opts *o, int mutant, int rep, enum cfg cfg, int role, int profile);
int mu_plan_fuzz(job *j, const opts *o, int mutant, int rep);
void mu_job_free(job *j);
void mu_run_jobs(job *jobs, size_t njobs, int n, bool progress);

/* cmd_mutants_judge.c. One repetition's verdicts: the clean DUT's in each framing used
 * (clean_status: -1 not used, 0 read, 1 unreadable) and each mutant's result in res
 * (IW_MUTANT_COUNT of them, zeroed). Returns false when a mutant's run could not be read (its
 * outcome is then BROKEN). mu_results_free frees what it filled. */
bool mu_judge(const job *jobs, size_t nj, int rep, const bool *cfg_used, const bool *in_run, const applies *ap,
	      vlist *clean, int *clean_status, mresult *res);
void mu_results_free(vlist *clean, mresult *res);

/* cmd_mutants_severity.c. Every pair of a rule and an outcome the mutants' failures rest on
 * (apart from a case holding its own steps weaker), with the levels seen (1 FAIL, 2 WARN, 3
 * both) and a case at each; sorted by rule, then outcome. Returns how many pairs (*out malloc'd,
 * the caller frees it) and sets *nsplit to those with both levels; -1 out of memory. */
typedef struct sev_pair {
	char req[32];
	char outcome[64];
	unsigned levels;
	char fail_eg[200], warn_eg[200];
} sev_pair;
long mu_severity_pairs(const mresult *res, const bool *in_run, sev_pair **out, size_t *nsplit);

/* cmd_mutants_matrix.c. The text of one matrix (no timings: repeats must give the same octets;
 * *fail_count: what makes the exit status 1), NULL out of memory; and its JSON, {"clean": [...],
 * "mutants": [...]}. */
char *mu_matrix_text(const opts *o, const vlist *clean, const int *clean_status, const mresult *res,
		     size_t nres_total, const bool *in_run, int *fail_count);
json_t *mu_matrix_json(const vlist *clean, const int *clean_status, const mresult *res, const bool *in_run);

#endif
