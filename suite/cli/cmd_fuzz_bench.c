/*
 * cmd_fuzz_bench.c - `iwspec fuzz --bench`: the bare loopback rate against the fuzzer's runs
 * per second on the built-in DUT (docs/fuzzing-network.md, "Speed").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_fuzz.h"
#include "net.h"

int fz_bench(int64_t ms)
{
	iw_err e;
	/* Interleaved slices, best of each: a noisy moment hits both alike. */
	int rounds = 3;
	int64_t slice = ms / (2 * rounds);
	if (slice < 200)
		slice = 200;
	double best_bare = 0, best_fuzz = 0;
	nf_opts o;
	memset(&o, 0, sizeof o);
	iw_dut_config_default(&o.dut);
	o.seed = 1;
	nf_session *s;
	if (nf_session_open(&s, &o, &e) != IW_OK) {
		fprintf(stderr, "iwspec fuzz --bench: %s\n", e.msg);
		return IW_EXIT_ERROR;
	}
	nf_prog *p = malloc(NF_SLOTS * sizeof *p);
	uint64_t run = 0, findings = 0;
	for (int r = 0; r < rounds && p; r++) {
		double b = nf_bare_rate(slice, &e);
		if (b < 0) {
			fprintf(stderr, "iwspec fuzz --bench: %s\n", e.msg);
			free(p);
			nf_session_close(s);
			return IW_EXIT_ERROR;
		}
		if (b > best_bare)
			best_bare = b;
		int64_t t0 = iw_net_now_ms(), t1 = t0;
		uint64_t n = 0;
		bool started[NF_SLOTS] = {false};
		/* As the fuzzing loop does: two runs in flight. */
		for (uint64_t i = 0;; i++) {
			int k = (int)(i % NF_SLOTS);
			nf_finding f;
			if (started[k]) {
				started[k] = false;
				if (nf_run_finish(s, k, &f, &e) != IW_OK)
					break;
				findings += f.kind != NF_F_NONE;
				n++;
			}
			if ((t1 = iw_net_now_ms()) - t0 >= slice) {
				for (int j = 1; j < NF_SLOTS; j++) {
					int m = (k + j) % NF_SLOTS;
					if (started[m] && nf_run_finish(s, m, &f, &e) == IW_OK) {
						findings += f.kind != NF_F_NONE;
						n++;
					}
				}
				t1 = iw_net_now_ms();
				break;
			}
			nf_generate(&p[k], nf_session_dut(s), o.seed, run++);
			if (nf_run_start(s, &p[k], k, &e) != IW_OK)
				break;
			started[k] = true;
		}
		double fr = t1 > t0 ? (double)n * 1000.0 / (double)(t1 - t0) : 0;
		if (fr > best_fuzz)
			best_fuzz = fr;
	}
	unsigned have, total;
	nf_cov_counts(&nf_session_stats(s)->cov, &have, &total);
	printf("netfuzz: bare loopback (connect + 20-octet exchange + close): %.0f /s\n", best_bare);
	printf("netfuzz: fuzz runs against the built-in DUT:                  %.0f /s (%llu runs, %llu findings, "
	       "coverage %u/%u)\n", best_fuzz, (unsigned long long)run, (unsigned long long)findings, have, total);
	printf("netfuzz: ratio fuzz / bare: %.2f (target >= 0.70)\n", best_bare > 0 ? best_fuzz / best_bare : 0.0);
	free(p);
	nf_session_close(s);
	return IW_EXIT_OK;
}
