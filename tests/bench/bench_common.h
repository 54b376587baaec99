/*
 * bench_common.h - timing for the benchmarks in tests/bench/ (figures only, never pass/fail on time).
 *
 * A contender is a function that runs its work `iters` times and folds every result into a
 * value it returns; the harness sinks that value into a volatile so the compiler cannot drop
 * the work. Contenders that are compared run in alternating short slices and each keeps its
 * best slice, so a frequency change or a noisy neighbour hits both alike instead of biasing
 * one figure.
 */
#ifndef IW_BENCH_COMMON_H
#define IW_BENCH_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

typedef uint64_t (*bench_fn)(void *ctx, long iters);

typedef struct bench_case {
	const char *name;
	bench_fn fn;
	void *ctx;
	long iters;             /* per slice, set by calibration */
	double best;            /* best seconds per iteration */
} bench_case;

static volatile uint64_t bench_sink;

static inline double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Times one slice and records it; returns its length in seconds. */
static inline double bench_slice(bench_case *c)
{
	double t0 = bench_now();
	bench_sink ^= c->fn(c->ctx, c->iters);
	double dt = bench_now() - t0;
	double per = dt / (double)c->iters;
	if (c->best == 0 || per < c->best)
		c->best = per;
	return dt;
}

/* Runs the cases for about `seconds` each, in alternating slices of about 5 ms: calibration
 * (which also warms caches and branch predictors) sizes the slices, then each case keeps its
 * fastest slice. Short slices let some of them fall between other processes' time slices on
 * a busy machine, so the best one shows the undisturbed rate. */
static inline void bench_run(bench_case *cases, int n, double seconds)
{
	const double slice = 0.005;
	for (int i = 0; i < n; i++) {
		cases[i].iters = 1;
		for (;;) {
			cases[i].best = 0;
			double dt = bench_slice(&cases[i]);
			if (dt >= slice / 4) {
				cases[i].iters = (long)((double)cases[i].iters * (slice / dt)) + 1;
				break;
			}
			cases[i].iters *= 4;
		}
		cases[i].best = 0;
	}
	int reps = (int)(seconds / slice);
	for (int rep = 0; rep < reps; rep++)
		for (int i = 0; i < n; i++)
			bench_slice(&cases[i]);
}

/* Octets per second as GB/s (10^9). */
static inline double bench_gbps(const bench_case *c, double octets_per_iter)
{
	return octets_per_iter / c->best / 1e9;
}

#endif
