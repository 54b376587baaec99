/*
 * test_fuzz_regress.c - every fuzz target's input function (fuzz/fuzz_<name>.c) run over
 * its generated seed corpus (fuzz/corpus.c, the case files included) and over the inputs
 * kept in fuzz/regressions/<target>/, in the ordinary test run and again under ASan/UBSan,
 * so a crash once found stays fixed (docs/fuzzing.md, "Regressions").
 *
 * A target reports a broken invariant by abort(), so each target runs in a child process:
 * the test names the target and the input that killed it instead of taking the runner down.
 * Inputs in fuzz/regressions-pending/ (known, unfixed findings) are not run.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../fuzz/fuzz.h"
#include "check.h"

typedef int (*fuzz_fn)(const uint8_t *, size_t);

static const struct {
	const char *name;
	fuzz_fn fn;
} targets[] = {
#define IW_FUZZ_ENTRY(n) { #n, iw_fuzz_##n },
	IW_FUZZ_TARGETS(IW_FUZZ_ENTRY)
#undef IW_FUZZ_ENTRY
};
#define NTARGETS (sizeof targets / sizeof targets[0])

/* The input being run, for the message when the child dies (async-signal-safe write). */
static char current[512];

static void on_fatal(int sig)
{
	static const char pre[] = "fuzz regression: crashed on input ";
	if (write(2, pre, sizeof pre - 1) < 0 || write(2, current, strlen(current)) < 0 || write(2, "\n", 1) < 0) {
		/* nothing more can be done in a signal handler */
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

typedef struct runctx {
	fuzz_fn fn;
	const char *target;
	int count;
} runctx;

static void run_one(runctx *r, const char *name, const uint8_t *data, size_t len)
{
	snprintf(current, sizeof current, "%s/%s", r->target, name);
	/* An exact-size copy, so ASan sees a read past the input. */
	uint8_t *copy = malloc(len ? len : 1);
	if (!copy)
		abort();
	memcpy(copy, data, len);
	r->fn(copy, len);
	free(copy);
	r->count++;
}

static void emit(void *ctx, const char *name, const uint8_t *data, size_t len)
{
	run_one(ctx, name, data, len);
}

static void run_dir(runctx *r, const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		struct stat st;
		if (stat(path, &st) || !S_ISREG(st.st_mode) || st.st_size > IW_FUZZ_MAX_SEED)
			continue;
		FILE *fp = fopen(path, "rb");
		if (!fp)
			continue;
		uint8_t *b = malloc((size_t)st.st_size + 1);
		size_t n = b ? fread(b, 1, (size_t)st.st_size, fp) : 0;
		fclose(fp);
		if (b)
			run_one(r, path, b, n);
		free(b);
	}
	closedir(d);
}

/* Runs one target over its seeds and regressions in a child; returns the child's status. */
static int run_target(size_t i, int *count)
{
	int fds[2];
	if (pipe(fds))
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fds[0]);
		signal(SIGABRT, on_fatal);
		signal(SIGSEGV, on_fatal);
		signal(SIGBUS, on_fatal);
		signal(SIGFPE, on_fatal);
		runctx r = { targets[i].fn, targets[i].name, 0 };
		struct stat st;
		const char *cases = stat("cases", &st) == 0 ? "cases" : NULL;
		iw_fuzz_seeds(targets[i].name, cases, emit, &r);
		char dir[256];
		snprintf(dir, sizeof dir, "fuzz/regressions/%s", targets[i].name);
		run_dir(&r, dir);
		if (write(fds[1], &r.count, sizeof r.count) != sizeof r.count)
			_exit(3);
		_exit(0);
	}
	close(fds[1]);
	int n = 0;
	if (read(fds[0], &n, sizeof n) != sizeof n)
		n = -1;
	close(fds[0]);
	int status = 0;
	waitpid(pid, &status, 0);
	*count = n;
	return status;
}

TEST(fuzz_regress_every_target_over_seeds_and_regressions)
{
	for (size_t i = 0; i < NTARGETS; i++) {
		int count = 0;
		int status = run_target(i, &count);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			check_fail(__FILE__, __LINE__, "fuzz target %s failed on a seed or regression input (%s %d)",
				   targets[i].name, WIFSIGNALED(status) ? "signal" : "exit",
				   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		/* Every target has generated seeds; case_parse needs cases (run from the top). */
		CHECK(count > 0);
	}
}

static void count_emit(void *ctx, const char *name, const uint8_t *data, size_t len)
{
	(void)data;
	CHECK(name && name[0]);
	CHECK(len <= IW_FUZZ_MAX_SEED);
	(*(int *)ctx)++;
}

TEST(fuzz_regress_seed_generator_knows_every_target)
{
	CHECK_EQ(NTARGETS, 16);
	for (size_t i = 0; i < NTARGETS; i++) {
		int n = 0;
		int rc = iw_fuzz_seeds(targets[i].name, NULL, count_emit, &n);
		CHECK_EQ(rc, n);
		/* Without a cases directory only case_parse has nothing to offer. */
		if (strcmp(targets[i].name, "case_parse"))
			CHECK(n > 0);
	}
	int n = 0;
	CHECK_EQ(iw_fuzz_seeds("no_such_target", NULL, count_emit, &n), -1);
	CHECK_EQ(n, 0);
}

TEST(fuzz_regress_invariant_failure_is_reported)
{
	/* A broken invariant must kill the process (abort), or the fuzzers would never see it:
	 * run the check macro on a false condition in a child. */
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 2);
		FZ_CHECK(1 == 2, "deliberate");
		_exit(0);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
}
