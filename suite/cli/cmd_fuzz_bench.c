/*
 * cmd_fuzz_bench.c - `iwspec fuzz --bench`: the bare loopback rate against the fuzzer's runs
 * per second on the built-in DUT (docs/fuzzing-network.md, "Speed").
 *
 * The time is cut into at least five pairs of slices, one bare and one fuzz, their order
 * alternating (bare first, then fuzz first, ...) so that a load that rises or falls during the
 * bench hits both sides alike. Each pair gives a ratio; the figure is the median ratio with its
 * spread (lowest, highest, and the middle half), so one noisy slice moves neither. Beside each
 * slice the process's CPU time says why a figure moved: CPU per run that stays put while the rate
 * drops is another program taking the cores (load), not the fuzzer growing slower.
 *
 * IWSPEC_BENCH_ONLY=fuzz runs fuzz slices only (IWSPEC_BENCH_ONLY=bare the bare exchanges only) for
 * the whole time and prints one line: what tests/bench/netfuzz_profile.sh records with perf to say
 * where a run's time goes.
 */
/* RUSAGE_THREAD: the main thread's CPU time apart from the process's. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>

#include "cli.h"
#include "cmd_fuzz.h"
#include "net.h"

#define BENCH_MIN_PAIRS 5
#define BENCH_MAX_PAIRS 15
#define BENCH_MIN_SLICE 300 /* ms: shorter slices measure thread start-up more than runs */

/* One slice: its rate, and the CPU time (us) of the main thread and of the rest of the process
 * (the echo server's thread, or the built-in DUT's) per exchange or run. A fuzz slice also keeps
 * its slowest run (the longest a run's start and the finish of the run before it in its slot
 * held the harness: a program of many write cuts, a pause, the wait for a greeting) and the
 * share of its time the programs' own pauses (sleep actions) took. */
typedef struct slice {
	double rate, cpu_main, cpu_other, cpu_share;
	uint64_t slow_run;
	double slow_ms, pause_share;
} slice;

typedef struct cpu_mark {
	int64_t wall_ms;
	double self_us, main_us;
} cpu_mark;

static double tv_us(struct timeval tv) { return (double)tv.tv_sec * 1e6 + (double)tv.tv_usec; }

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static cpu_mark mark(void)
{
	cpu_mark m = {iw_net_now_ms(), 0, 0};
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		m.self_us = tv_us(ru.ru_utime) + tv_us(ru.ru_stime);
#ifdef RUSAGE_THREAD
	if (getrusage(RUSAGE_THREAD, &ru) == 0)
		m.main_us = tv_us(ru.ru_utime) + tv_us(ru.ru_stime);
#endif
	return m;
}

static void cpu_per(slice *sl, cpu_mark a, cpu_mark b, double n)
{
	double self = b.self_us - a.self_us, main = b.main_us - a.main_us;
	sl->cpu_main = n > 0 ? main / n : 0;
	sl->cpu_other = n > 0 ? (self - main) / n : 0;
	sl->cpu_share = b.wall_ms > a.wall_ms ? self / 1000.0 / (double)(b.wall_ms - a.wall_ms) : 0;
}

typedef struct fuzzer {
	nf_session *s;
	nf_prog *p;
	uint64_t seed, run, findings;
} fuzzer;

/* Fuzz runs for ms, as the fuzzing loop makes them (NF_SLOTS runs in flight). */
static int fuzz_slice(fuzzer *z, int64_t ms, slice *sl, iw_err *e)
{
	cpu_mark a = mark();
	int64_t t0 = a.wall_ms, t1 = t0;
	uint64_t n = 0, pause_us = 0;
	bool started[NF_SLOTS] = {false};
	int rc = IW_OK;
	sl->slow_ms = 0;
	sl->slow_run = 0;
	for (uint64_t i = 0;; i++) {
		int k = (int)(i % NF_SLOTS);
		nf_finding f;
		double s0 = now_us();
		if (started[k]) {
			started[k] = false;
			if ((rc = nf_run_finish(z->s, k, &f, e)) != IW_OK)
				break;
			z->findings += f.kind != NF_F_NONE;
			n++;
		}
		if ((t1 = iw_net_now_ms()) - t0 >= ms)
			break;
		nf_generate(&z->p[k], nf_session_dut(z->s), z->seed, z->run++);
		for (size_t j = 0; j < z->p[k].n; j++)
			if (z->p[k].a[j].kind == NF_A_SLEEP)
				pause_us += z->p[k].a[j].sleep_us;
		if ((rc = nf_run_start(z->s, &z->p[k], k, e)) != IW_OK)
			break;
		started[k] = true;
		double took = (now_us() - s0) / 1000.0;
		if (took > sl->slow_ms) {
			sl->slow_ms = took;
			sl->slow_run = z->run - 1;
		}
	}
	for (int m = 0; m < NF_SLOTS; m++) {
		nf_finding f;
		if (started[m] && nf_run_finish(z->s, m, &f, e) == IW_OK) {
			z->findings += f.kind != NF_F_NONE;
			n++;
		}
	}
	cpu_mark b = mark();
	t1 = b.wall_ms;
	sl->rate = t1 > t0 ? (double)n * 1000.0 / (double)(t1 - t0) : 0;
	sl->pause_share = t1 > t0 ? (double)pause_us / 1000.0 / (double)(t1 - t0) : 0;
	cpu_per(sl, a, b, (double)n);
	return rc;
}

static int bare_slice(int64_t ms, slice *sl, iw_err *e)
{
	cpu_mark a = mark();
	double r = nf_bare_rate(ms, e);
	if (r < 0)
		return IW_ESTATE;
	cpu_mark b = mark();
	sl->rate = r;
	cpu_per(sl, a, b, r * (double)(b.wall_ms - a.wall_ms) / 1000.0);
	return IW_OK;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The q-quantile (0..1) of v[0..n), by linear interpolation between the sorted values. */
static double quantile(const double *v, int n, double q)
{
	double s[BENCH_MAX_PAIRS];
	memcpy(s, v, (size_t)n * sizeof *s);
	qsort(s, (size_t)n, sizeof *s, cmp_double);
	double x = q * (n - 1);
	int i = (int)x;
	return i + 1 < n ? s[i] + (x - i) * (s[i + 1] - s[i]) : s[n - 1];
}

static void loadavg(char *b, size_t cap)
{
	double l[3];
	if (getloadavg(l, 3) == 3)
		snprintf(b, cap, "%.2f %.2f %.2f", l[0], l[1], l[2]);
	else
		snprintf(b, cap, "unknown");
}

static void column(const char *name, const slice *v, int n, size_t off, const char *fmt)
{
	double x[BENCH_MAX_PAIRS];
	for (int i = 0; i < n; i++)
		x[i] = *(const double *)((const char *)&v[i] + off);
	printf("netfuzz:   %-26s", name);
	printf(fmt, quantile(x, n, 0.5));
	printf("  (");
	printf(fmt, quantile(x, n, 0));
	printf(" - ");
	printf(fmt, quantile(x, n, 1));
	printf(")\n");
}

int fz_bench(int64_t ms)
{
	iw_err e;
	const char *only = getenv("IWSPEC_BENCH_ONLY");
	bool fuzz_only = only && !strcmp(only, "fuzz"), bare_only = only && !strcmp(only, "bare");
	if (bare_only) {
		slice sl;
		if (bare_slice(ms, &sl, &e) != IW_OK) {
			fprintf(stderr, "iwspec fuzz --bench: %s\n", e.msg);
			return IW_EXIT_ERROR;
		}
		printf("netfuzz: bare only: %.0f exchanges/s, CPU per exchange %.1f us (client) + %.1f us (echo thread)\n",
		       sl.rate, sl.cpu_main, sl.cpu_other);
		return IW_EXIT_OK;
	}
	int pairs = BENCH_MIN_PAIRS;
	while (pairs < BENCH_MAX_PAIRS && ms / (2 * (pairs + 2)) >= BENCH_MIN_SLICE)
		pairs += 2;
	int64_t slice_ms = ms / (2 * pairs);
	if (slice_ms < BENCH_MIN_SLICE)
		slice_ms = BENCH_MIN_SLICE;
	nf_opts o;
	memset(&o, 0, sizeof o);
	iw_dut_config_default(&o.dut);
	o.seed = 1;
	fuzzer z = {.seed = o.seed};
	if (nf_session_open(&z.s, &o, &e) != IW_OK) {
		fprintf(stderr, "iwspec fuzz --bench: %s\n", e.msg);
		return IW_EXIT_ERROR;
	}
	z.p = malloc(NF_SLOTS * sizeof *z.p);
	if (!z.p) {
		nf_session_close(z.s);
		fprintf(stderr, "iwspec fuzz --bench: out of memory\n");
		return IW_EXIT_ERROR;
	}
	if (fuzz_only) {
		slice sl;
		int rc = fuzz_slice(&z, ms, &sl, &e);
		if (rc == IW_OK)
			printf("netfuzz: fuzz only: %.0f runs/s, CPU per run %.1f us (harness) + %.1f us (built-in DUT)\n",
			       sl.rate, sl.cpu_main, sl.cpu_other);
		else
			fprintf(stderr, "iwspec fuzz --bench: %s\n", e.msg);
		free(z.p);
		nf_session_close(z.s);
		return rc == IW_OK ? IW_EXIT_OK : IW_EXIT_ERROR;
	}
	char la0[64], la1[64];
	loadavg(la0, sizeof la0);
	slice bare[BENCH_MAX_PAIRS], fz[BENCH_MAX_PAIRS];
	double ratio[BENCH_MAX_PAIRS];
	int rc = IW_OK;
	for (int i = 0; i < pairs && rc == IW_OK; i++) {
		/* Alternating order: bare first in even pairs, fuzz first in odd ones. */
		for (int half = 0; half < 2 && rc == IW_OK; half++) {
			if ((half == 0) == (i % 2 == 0))
				rc = bare_slice(slice_ms, &bare[i], &e);
			else
				rc = fuzz_slice(&z, slice_ms, &fz[i], &e);
		}
		if (rc == IW_OK)
			ratio[i] = bare[i].rate > 0 ? fz[i].rate / bare[i].rate : 0;
	}
	loadavg(la1, sizeof la1);
	if (rc != IW_OK) {
		fprintf(stderr, "iwspec fuzz --bench: %s\n", e.msg);
		free(z.p);
		nf_session_close(z.s);
		return IW_EXIT_ERROR;
	}
	unsigned have, total;
	nf_cov_counts(&nf_session_stats(z.s)->cov, &have, &total);
	printf("netfuzz: %d pairs of %lld ms slices, bare and fuzz in alternating order; load average %s at the "
	       "start, %s at the end\n", pairs, (long long)slice_ms, la0, la1);
	printf("netfuzz: bare = connect + 20-octet exchange + close against an echo thread; fuzz = runs against the "
	       "built-in DUT (seed %llu)\n", (unsigned long long)o.seed);
	printf("netfuzz:   pair   bare/s   fuzz/s  ratio   CPU us/exchange (client+echo)   CPU us/run (harness+DUT)"
	       "   CPU used (bare, fuzz; 2.0 = both cores)   fuzz: slowest run, pauses\n");
	for (int i = 0; i < pairs; i++)
		printf("netfuzz:   %4d %8.0f %8.0f %6.2f   %12.1f + %-12.1f     %10.1f + %-10.1f   %4.2f, %4.2f"
		       "                            run %llu %.1f ms, %.0f%%\n", i + 1,
		       bare[i].rate, fz[i].rate, ratio[i], bare[i].cpu_main, bare[i].cpu_other, fz[i].cpu_main,
		       fz[i].cpu_other, bare[i].cpu_share, fz[i].cpu_share, (unsigned long long)fz[i].slow_run,
		       fz[i].slow_ms, 100.0 * fz[i].pause_share);
	printf("netfuzz: median (lowest - highest) over the %d pairs:\n", pairs);
	column("bare loopback /s", bare, pairs, offsetof(slice, rate), "%.0f");
	column("fuzz runs /s", fz, pairs, offsetof(slice, rate), "%.0f");
	column("CPU us/exchange, client", bare, pairs, offsetof(slice, cpu_main), "%.1f");
	column("CPU us/exchange, echo", bare, pairs, offsetof(slice, cpu_other), "%.1f");
	column("CPU us/run, harness", fz, pairs, offsetof(slice, cpu_main), "%.1f");
	column("CPU us/run, built-in DUT", fz, pairs, offsetof(slice, cpu_other), "%.1f");
	/* What the rates would give if both sides were bound by CPU alone: the process's CPU time per
	 * bare exchange over its CPU time per fuzz run, pair by pair. Load moves it far less than the
	 * rates (a busy machine delays both threads, it does not make them use more CPU), so it says
	 * whether the fuzzer itself got dearer. */
	double cpur[BENCH_MAX_PAIRS];
	for (int i = 0; i < pairs; i++) {
		double f = fz[i].cpu_main + fz[i].cpu_other;
		cpur[i] = f > 0 ? (bare[i].cpu_main + bare[i].cpu_other) / f : 0;
	}
	printf("netfuzz: CPU per bare exchange / CPU per fuzz run: median %.2f (%.2f - %.2f)\n", quantile(cpur, pairs, 0.5),
	       quantile(cpur, pairs, 0), quantile(cpur, pairs, 1));
	printf("netfuzz: runs %llu, findings %llu, coverage %u/%u\n", (unsigned long long)z.run,
	       (unsigned long long)z.findings, have, total);
	printf("netfuzz: ratio fuzz / bare: median %.2f, spread %.2f - %.2f, middle half %.2f - %.2f (target: median >= "
	       "0.70)\n", quantile(ratio, pairs, 0.5), quantile(ratio, pairs, 0), quantile(ratio, pairs, 1),
	       quantile(ratio, pairs, 0.25), quantile(ratio, pairs, 0.75));
	free(z.p);
	nf_session_close(z.s);
	return IW_EXIT_OK;
}
