/*
 * fuzz_baseline.c - the baseline parser of `iwspec run --expect FILE` (reports/baseline.h):
 * a file a CI job keeps next to its code, edited by hand.
 *
 * Input: the baseline text.
 *
 * Invariants:
 *  - an error returns IW_EINVAL with an empty baseline and a terminated, non-empty message
 *    that starts with the file's name;
 *  - a baseline parsed has every entry's id, profile, requirement and note terminated, a
 *    non-empty id, a verdict inside the enum and a line number inside the text; no two
 *    entries share an id and a profile;
 *  - comparing it with an empty run gives exactly one difference per entry (each names a
 *    case no result matched), every line a terminated string.
 */
#include <string.h>

#include "baseline.h"
#include "fuzz.h"

#define NAME "fuzz-baseline.txt"

int iw_fuzz_baseline(const uint8_t *data, size_t size)
{
	iw_baseline b;
	iw_err e;
	memset(&e, 0, sizeof e);
	int rc = iw_baseline_parse(&b, (const char *)data, size, NAME, &e);
	if (rc != IW_OK) {
		FZ_CHECK(rc == IW_EINVAL, "rc %d", rc);
		FZ_CHECK(b.n == 0, "%zu entries after an error", b.n);
		FZ_CHECK(memchr(e.msg, '\0', sizeof e.msg) && !strncmp(e.msg, NAME, strlen(NAME)),
			 "the error does not name the file: %s", e.msg);
		return 0;
	}
	size_t lines = 1;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	for (size_t i = 0; i < b.n; i++) {
		const iw_baseline_entry *x = &b.e[i];
		FZ_CHECK(memchr(x->id, '\0', sizeof x->id) && x->id[0], "entry %zu: id", i);
		FZ_CHECK(memchr(x->profile, '\0', sizeof x->profile), "entry %zu: profile", i);
		FZ_CHECK(memchr(x->req, '\0', sizeof x->req) && memchr(x->note, '\0', sizeof x->note), "entry %zu", i);
		FZ_CHECK((unsigned)x->verdict < IW_VERDICT_COUNT, "entry %zu: verdict %d", i, (int)x->verdict);
		FZ_CHECK(x->line >= 1 && (size_t)x->line <= lines, "entry %zu: line %d of %zu", i, x->line, lines);
		for (size_t k = 0; k < i; k++)
			FZ_CHECK(strcmp(b.e[k].id, x->id) || strcmp(b.e[k].profile, x->profile),
				 "entries %zu and %zu are the same case", k, i);
	}
	iw_run run;
	memset(&run, 0, sizeof run);
	run.complete = true;
	char **diffs = NULL;
	size_t n = iw_baseline_compare(&b, &run, &diffs);
	if (n != (size_t)-1) {
		FZ_CHECK(n == b.n, "%zu differences for %zu entries and no result", n, b.n);
		for (size_t i = 0; i < n; i++)
			FZ_CHECK(diffs[i] && strlen(diffs[i]) < 4096, "difference %zu", i);
		iw_baseline_diffs_free(diffs, n);
	}
	iw_baseline_free(&b);
	return 0;
}
