/*
 * run_tests.c - the unit test runner: N worker processes take the tests one at a time from a
 * shared queue.
 *
 * Most tests wait on timers (a DUT's liveness timeout, a peer that drips octets), so running them
 * side by side takes the runner from half a minute to a few seconds. Workers, not a child per
 * test: under AddressSanitizer a fork and the leak check at exit cost a third of a second each,
 * which 365 children would spend. A worker that dies (a crash, a sanitizer's abort, a hang ended
 * by the watchdog) takes only the test it was running: the runner names that test and how it
 * ended, and a new worker takes its place for the tests left.
 */
#include "check.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_TESTS 1024

static struct { const char *name; check_fn fn; } tests[MAX_TESTS];
static int ntests;
static int current_failures;

void check_register(const char *name, check_fn fn)
{
	if (ntests < MAX_TESTS) {
		tests[ntests].name = name;
		tests[ntests].fn = fn;
		ntests++;
	}
}

void check_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "  %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	current_failures++;
}

const char *check_hex(const void *p, size_t n)
{
	static char bufs[4][3 * 96 + 8];
	static int k;
	char *b = bufs[k++ & 3];
	const uint8_t *u = p;
	size_t o = 0;
	for (size_t i = 0; i < n && i < 96; i++)
		o += (size_t)snprintf(b + o, sizeof bufs[0] - o, "%02x ", u[i]);
	if (n > 96)
		snprintf(b + o, sizeof bufs[0] - o, "...");
	return b;
}

size_t check_unhex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;
	int hi = -1;
	for (; *hex; hex++) {
		int v;
		char c = *hex;
		if (c >= '0' && c <= '9') v = c - '0';
		else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
		else continue;
		if (hi < 0) {
			hi = v;
		} else {
			if (n < cap)
				out[n] = (uint8_t)(hi << 4 | v);
			n++;
			hi = -1;
		}
	}
	return n;
}

/* A test that runs longer is hung: the longest (ASan, a loaded machine) take about 15 s. */
#define TEST_LIMIT_S 180
#define MAX_JOBS 64

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* What a worker tells the runner, one record per event, written at once (unbuffered) to a file
 * of its own, so the record of the test it was in survives its crash. */
typedef struct report {
	int32_t test;
	int32_t failures;   /* -1: started; 0 or more once it has ended */
	int32_t ms;         /* how long it took, once it has ended */
} report;

typedef struct worker {
	pid_t pid;
	FILE *results;      /* its records */
	FILE *out;          /* what its tests printed, shown once it has ended */
} worker;

static void usage(FILE *f)
{
	fprintf(f, "usage: run_tests [-j N] [--times] [--list] [FILTER]\n"
		   "  Runs the unit tests whose name contains FILTER (all without it) in N worker processes,\n"
		   "  and ends with the line \"N passed, N failed\". Exit 0 when none failed, 1 when one did,\n"
		   "  2 on a usage or system error.\n"
		   "  -j N      N workers (default 8; -j 1 runs the tests one after another)\n"
		   "  --times   then the ten slowest tests, with their seconds\n"
		   "  --list    print the test names and run nothing\n"
		   "  A test still running after %d s is ended and counted as failed.\n", TEST_LIMIT_S);
}

static void put(int fd, int32_t test, int32_t failures, int32_t ms)
{
	report r = {test, failures, ms};
	if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
		_exit(3);
}

/* A worker: takes test indexes from the queue until it is empty. */
static void work(int queue, int results)
{
	int32_t i;
	while (read(queue, &i, sizeof i) == (ssize_t)sizeof i) {
		put(results, i, -1, 0);
		double t0 = now_s();
		current_failures = 0;
		alarm(TEST_LIMIT_S); /* SIGALRM ends a hung test; the runner names it */
		tests[i].fn();
		alarm(0);
		fflush(NULL);
		if (current_failures)
			fprintf(stderr, "FAIL %s\n", tests[i].name);
		put(results, i, current_failures, (int32_t)((now_s() - t0) * 1000));
	}
	fflush(NULL);
	/* exit(), not _exit(): LeakSanitizer looks for leaks here. */
	exit(0);
}

static int start(worker *w, int queue)
{
	FILE *out = tmpfile(), *results = tmpfile();
	if (!out || !results) {
		fprintf(stderr, "run_tests: tmpfile: %s\n", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "run_tests: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		dup2(fileno(out), 1);
		dup2(fileno(out), 2);
		work(queue, fileno(results));
	}
	w->pid = pid;
	w->results = results;
	w->out = out;
	return 0;
}

/* Shows what the worker's tests printed, counts its tests, and names the one it died in.
 * Returns false when the worker died: the runner starts another for the tests left. */
static bool finish(worker *w, int status, int32_t *ms, int *passed, int *failed)
{
	char buf[4096];
	size_t n;
	rewind(w->out);
	while ((n = fread(buf, 1, sizeof buf, w->out)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(w->out);
	report r;
	int32_t running = -1;
	rewind(w->results);
	while (fread(&r, sizeof r, 1, w->results) == 1) {
		if (r.test < 0 || r.test >= ntests)
			continue;
		if (r.failures < 0) {
			running = r.test;
			continue;
		}
		running = -1;
		ms[r.test] = r.ms;
		r.failures ? (*failed)++ : (*passed)++;
	}
	fclose(w->results);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return true;
	(*failed)++;
	if (running < 0) {
		/* Every test it took ended: LeakSanitizer, at the worker's exit, found a leak. */
		fprintf(stderr, "FAIL: a worker exited with %d after its tests (a leak report above names the test)\n",
			WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return false;
	}
	const char *name = tests[running].name;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		fprintf(stderr, "FAIL %s: still running after %d s, ended\n", name, TEST_LIMIT_S);
	else if (WIFSIGNALED(status))
		fprintf(stderr, "FAIL %s: killed by signal %d (%s)\n", name, WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		fprintf(stderr, "FAIL %s: its process exited with %d (a sanitizer's report above)\n", name,
			WEXITSTATUS(status));
	return false;
}

static int slower(const void *a, const void *b)
{
	int32_t x = ((const int32_t *)a)[0], y = ((const int32_t *)b)[0];
	return (x < y) - (x > y);
}

int main(int argc, char **argv)
{
	const char *filter = NULL;
	int jobs = 8;
	bool times = false, list = false;
	for (int a = 1; a < argc; a++) {
		if (!strncmp(argv[a], "-j", 2) && (argv[a][2] || a + 1 < argc)) {
			const char *v = argv[a][2] ? argv[a] + 2 : argv[++a];
			char *end;
			long j = strtol(v, &end, 10);
			if (*end || end == v || j < 1 || j > MAX_JOBS) {
				fprintf(stderr, "run_tests: -j wants a number of workers from 1 to %d, not '%s'\n", MAX_JOBS, v);
				return 2;
			}
			jobs = (int)j;
		} else if (!strcmp(argv[a], "--times")) {
			times = true;
		} else if (!strcmp(argv[a], "--list")) {
			list = true;
		} else if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help")) {
			usage(stdout);
			return 0;
		} else if (argv[a][0] == '-' || filter) {
			fprintf(stderr, "run_tests: unknown argument '%s'\n", argv[a]);
			usage(stderr);
			return 2;
		} else {
			filter = argv[a];
		}
	}
	/* The queue: every chosen test's index, written before any worker starts (364 of them
	 * are 1.5 KB, far below a pipe's capacity); a worker's read of one index is atomic. */
	int q[2];
	if (pipe(q) != 0) {
		fprintf(stderr, "run_tests: pipe: %s\n", strerror(errno));
		return 2;
	}
	int nwant = 0;
	for (int32_t i = 0; i < ntests; i++) {
		if (filter && !strstr(tests[i].name, filter))
			continue;
		if (list)
			printf("%s\n", tests[i].name);
		else if (write(q[1], &i, sizeof i) != (ssize_t)sizeof i)
			return 2;
		nwant++;
	}
	close(q[1]);
	if (list)
		return 0;
	if (jobs > nwant)
		jobs = nwant ? nwant : 1;
	worker w[MAX_JOBS];
	for (int k = 0; k < jobs; k++)
		if (start(&w[k], q[0]) != 0)
			return 2;
	static int32_t ms[MAX_TESTS];
	int passed = 0, failed = 0;
	for (int left = jobs; left > 0;) {
		int status;
		pid_t pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			fprintf(stderr, "run_tests: waitpid: %s\n", strerror(errno));
			return 2;
		}
		for (int k = 0; k < jobs; k++) {
			if (w[k].pid != pid)
				continue;
			/* A worker that died took one test with it; another takes the rest of the queue
			 * (it ends at once when the queue is empty). */
			if (finish(&w[k], status, ms, &passed, &failed) || start(&w[k], q[0]) != 0)
				left--;
		}
	}
	close(q[0]);
	if (times) {
		static int32_t order[MAX_TESTS][2];
		for (int i = 0; i < ntests; i++) {
			order[i][0] = ms[i];
			order[i][1] = i;
		}
		qsort(order, (size_t)ntests, sizeof order[0], slower);
		for (int k = 0; k < ntests && k < 10 && order[k][0] > 0; k++)
			printf("%6.2f s  %s\n", order[k][0] / 1000.0, tests[order[k][1]].name);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
