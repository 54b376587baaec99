/*
 * test_fuzz_merge.c - `iwspec fuzz --merge` (suite/cli/cmd_fuzz_merge.c) on corpora written here:
 * the union of the shards' arcs; each kept program once, and none whose first-reached arcs a
 * program taken before it reached (deduplicated by what they reach); a shard whose module counts
 * other arcs left out of the union, said.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "cmd_fuzz.h"
#include "netfuzz.h"

/* A corpus in dir/corpus/: arcs `bits` of `total`, programs generated for runs[] with gains[], each
 * having reached first the arcs reach[i] lists (-1 ends a list; an empty list: not known). */
static void write_shard(const char *dir, uint64_t total, const uint8_t *bits, const uint64_t *runs,
			const uint64_t *gains, const int reach[][4], size_t n)
{
	nf_corpus *c = malloc(sizeof *c);
	nf_prog *p = malloc(sizeof *p);
	CHECK(c && p);
	if (!c || !p) {
		free(c);
		free(p);
		return;
	}
	nf_corpus_init(c);
	iw_err e;
	uint64_t fresh;
	bool restarted;
	CHECK_EQ(nf_corpus_merge(c, bits, total, &fresh, &restarted, &e), IW_OK);
	nf_dutinfo d;
	memset(&d, 0, sizeof d);
	d.profile = iw_profile_default();
	d.role = IW_ROLE_RESPONDER;
	for (size_t i = 0; i < n; i++) {
		nf_generate(p, &d, 9, runs[i]);
		uint32_t r[4];
		uint32_t nr = 0;
		while (nr < 4 && reach[i][nr] >= 0) {
			r[nr] = (uint32_t)reach[i][nr];
			nr++;
		}
		CHECK_EQ(nf_corpus_keep_reach(c, p, gains[i], r, nr, NULL, &e), IW_OK);
	}
	char sub[300];
	snprintf(sub, sizeof sub, "%s/corpus", dir);
	CHECK_EQ(mkdir(sub, 0777), 0);
	CHECK_EQ(nf_corpus_save(c, sub, &e), IW_OK);
	nf_corpus_free(c);
	free(c);
	free(p);
}

TEST(fuzz_merge_unions_arcs_and_keeps_each_program_once)
{
	char root[] = "/tmp/iwspec-merge-XXXXXX";
	CHECK(mkdtemp(root) != NULL);
	char a[300], b[300], x[300], out[300];
	snprintf(a, sizeof a, "%s/a", root);
	snprintf(b, sizeof b, "%s/b", root);
	snprintf(x, sizeof x, "%s/x", root);
	snprintf(out, sizeof out, "%s/merged", root);
	CHECK_EQ(mkdir(a, 0777), 0);
	CHECK_EQ(mkdir(b, 0777), 0);
	CHECK_EQ(mkdir(x, 0777), 0);
	/* a: run 1 reached arcs 0-2 first, run 2 arc 3. b: run 2 (a's program again) arc 4, run 3 arcs
	 * 1 and 2 (which a's run 1 reached: nothing new), run 4 none known. x: another build of the
	 * module (8 arcs), run 1 (a's program again). */
	const uint8_t bits_a[2] = {0x0f, 0x01}, bits_b[2] = {0x3c, 0x02}, bits_x[1] = {0xff};
	const uint64_t runs_a[2] = {1, 2}, gains_a[2] = {3, 1}, runs_b[3] = {2, 3, 4}, gains_b[3] = {5, 2, 1};
	const int reach_a[2][4] = {{0, 1, 2, -1}, {3, -1, -1, -1}}, reach_b[3][4] = {{4, -1, -1, -1}, {1, 2, -1, -1}, {-1, -1, -1, -1}};
	write_shard(a, 12, bits_a, runs_a, gains_a, reach_a, 2);
	write_shard(b, 12, bits_b, runs_b, gains_b, reach_b, 3);
	write_shard(x, 8, bits_x, runs_a, gains_a, reach_a, 1);
	char *dirs[3] = {a, b, x};
	FILE *log = tmpfile();
	CHECK(log != NULL);
	if (!log)
		return;
	CHECK_EQ(fz_merge(dirs, 3, out, log), IW_EXIT_OK);
	char text[2000] = "";
	rewind(log);
	size_t n = fread(text, 1, sizeof text - 1, log);
	text[n] = 0;
	fclose(log);
	CHECK(strstr(text, "counts 8 arcs where the shards before count 12") != NULL);
	/* Six programs: run 1's and run 2's twice each (one of each left out), run 3's arcs reached by
	 * run 1 first (left out), run 4 (nothing known: kept). */
	CHECK(strstr(text, "6 kept programs (2 the same program as another, 1 reaching first no arc that the programs "
			   "taken before them did not: left out), 3 in the merged corpus") != NULL);
	nf_corpus *m = malloc(sizeof *m);
	CHECK(m != NULL);
	if (m) {
		nf_corpus_init(m);
		char sub[320];
		snprintf(sub, sizeof sub, "%s/corpus", out);
		bool found = false;
		iw_err e;
		CHECK_EQ(nf_corpus_load(m, sub, &found, &e), IW_OK);
		CHECK(found);
		CHECK_EQ(m->total, 12);
		/* 0x0f|0x3c = 0x3f (6 arcs), 0x01|0x02 = 0x03 (2 arcs) */
		CHECK_EQ(m->hit, 8);
		CHECK_EQ(m->n, 3);
		uint64_t gain_of_run2 = 0;
		bool run3 = false;
		for (size_t i = 0; i < m->n; i++) {
			if (m->e[i].p->run == 2)
				gain_of_run2 = m->e[i].gain;
			run3 |= m->e[i].p->run == 3;
		}
		CHECK_EQ(gain_of_run2, 5); /* b's copy, which reached arc 4 first */
		CHECK(!run3);
		nf_corpus_free(m);
		free(m);
	}
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	CHECK_EQ(system(cmd), 0);
}
