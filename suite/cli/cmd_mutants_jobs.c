/*
 * cmd_mutants_jobs.c - the child processes of `iwspec mutants`. Every run is `iwspec run` (or
 * `iwspec fuzz`) as a child of this process: a crashing mutant takes down only its own run, and
 * runs mostly wait on timers, so several go at once. Each run gets its own report directory and
 * log, and its DUT configuration file (docs/dut-config.md) beside them, so a run can be made
 * again by hand.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic_file.h"
#include "cmd_mutants_int.h"

double mu_now_s(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

static void add_arg(job *j, const char *a)
{
	if (j->argc < MAX_ARGS - 1)
		j->argv[j->argc++] = strdup(a);
	j->argv[j->argc] = NULL;
}

int mu_mkdirs(const char *path) { return iw_mkdir_p(path, NULL); }

/* Reports and run configurations are written whole or not at all (atomic_file.h). */
int mu_write_text(const char *path, const char *text) { return iw_write_atomic(path, text, strlen(text), NULL); }

/* One `iwspec run` of a mutant (0: clean) in a configuration and profile (-1: all). */
int mu_plan_run(job *j, const opts *o, int mutant, int rep, enum cfg cfg, int role, int profile)
{
	memset(j, 0, sizeof *j);
	j->mutant = mutant;
	j->rep = rep;
	j->cfg = cfg;
	j->profile = profile;
	const char *name = mutant ? iw_mutant_info((enum iw_mutant)mutant)->name : "clean";
	char tag[160];
	snprintf(tag, sizeof tag, "%s-%s%s%s%s", name, mu_cfg_name[cfg],
		 role < 0 ? "" : role == IW_ROLE_RESPONDER ? "-responder" : "-initiator", profile < 0 ? "" : "-",
		 profile < 0 ? "" : iw_profile_get((enum iw_profile_id)profile)->name);
	char runs[PATH_CAP];
	snprintf(runs, sizeof runs, "%s/runs%s%.0d", o->report, rep ? "-" : "", rep ? rep + 1 : 0);
	snprintf(j->dir, sizeof j->dir, "%.600s/%.300s", runs, tag);
	snprintf(j->log, sizeof j->log, "%.900s.log", j->dir);
	if (mu_mkdirs(j->dir) != 0)
		return -1;
	/* The DUT configuration of the run (docs/dut-config.md). */
	char conf[PATH_CAP], text[1024];
	snprintf(conf, sizeof conf, "%.900s.conf", j->dir);
	int t = snprintf(text, sizeof text, "# iwspec mutants: %s, %s framing\n", name, mu_cfg_name[cfg]);
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
	if (mu_write_text(conf, text) != 0)
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

int mu_plan_fuzz(job *j, const opts *o, int mutant, int rep)
{
	memset(j, 0, sizeof *j);
	j->mutant = mutant;
	j->rep = rep;
	j->fuzz = true;
	j->profile = -1;
	const char *name = iw_mutant_info((enum iw_mutant)mutant)->name;
	snprintf(j->dir, sizeof j->dir, "%.600s/runs%s%.0d/%.100s-fuzz", o->report, rep ? "-" : "", rep ? rep + 1 : 0, name);
	snprintf(j->log, sizeof j->log, "%.900s.log", j->dir);
	if (mu_mkdirs(j->dir) != 0)
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

void mu_job_free(job *j)
{
	for (int i = 0; i < j->argc; i++)
		free(j->argv[i]);
	j->argc = 0;
}

static pid_t job_start(job *j)
{
	j->t0 = mu_now_s();
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
void mu_run_jobs(job *jobs, size_t njobs, int n, bool progress)
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
			jobs[i].secs = mu_now_s() - jobs[i].t0;
			jobs[i].pid = 0;
			running--;
			done++;
			if (progress)
				fprintf(stderr, "  [%zu/%zu] %-70s %6.1f s\n", done, njobs, jobs[i].dir, jobs[i].secs);
			break;
		}
	}
}
