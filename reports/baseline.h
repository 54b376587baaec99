/*
 * baseline.h - expected verdicts for CI: `iwspec run --expect FILE` fails the run when a result
 * differs from the file in either direction, so a fixed known failure is noticed as surely as a
 * new one; `--write-expect FILE` writes one from a run (docs/reports.md, "Baselines").
 *
 * The file is text, one case a line:
 *
 *   # comment
 *   CASE-ID[@PROFILE] VERDICT [: [REQ-ID] {OUTCOME} note]
 *
 *   mpa.startup.resp.happy-path PASS
 *   mpa.startup.resp.rev-01 FAIL : [MPA-6.1.1-06] {Reply M=0 C=1 R=0 Rev=2} known: firmware 2.3 (ticket 4711)
 *   mpa.crc.corrupt-payload FAIL : [RFC5040-4.8-08] {Terminate LLP/0x0/0x22 (unknown MPA error)}
 *   ddp.tagged.write-then-read@rfc6581 SKIP : no reflector on this DUT
 *
 * VERDICT is PASS, FAIL, WARN, INFO, SKIP or ERROR, or several joined by '|' (FAIL|PASS: a
 * finding that shows on some runs only, a race in the DUT). A pinned reason starting with
 * "[REQ-ID]" also pins the requirement a FAIL or WARN rests on: the same verdict on another
 * requirement is a difference too (the DUT now fails for another reason); "[A|B]" allows either
 * (a race between two of the DUT's answers). "{OUTCOME}" after it
 * (or first) pins what the DUT did (iw_case_result.outcome), several joined by '|' for a race:
 * the same verdict on the same rule after other behaviour (corrupt data delivered where a
 * Terminate had the wrong code) is a difference. The rest is a note for people. An entry
 * without @PROFILE applies to every profile; one with it wins over it.
 */
#ifndef IW_BASELINE_H
#define IW_BASELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "iw_err.h"
#include "result.h"

typedef struct iw_baseline_entry {
	char id[64];
	char profile[16];           /* "" = every profile */
	enum iw_verdict verdict;    /* the first verdict written */
	unsigned accept;            /* every verdict written (VERDICT|VERDICT), as 1 << verdict */
	char verdicts[40];          /* as written, for messages */
	char req[64];               /* pinned requirement(s) as written, REQ or REQ|REQ, or "" */
	char outcomes[160];         /* pinned outcomes as written, OUTCOME|OUTCOME, or "" */
	char note[256];             /* the pinned reason as written (requirement included) */
	int line;
	bool used;                  /* matched a result (set by compare) */
} iw_baseline_entry;

/* The differences of a comparison by kind, in the order they are listed: what got worse first (a
 * verdict worse than the entry's, a case the baseline does not list that FAILs, WARNs or ERRORs),
 * then changed behaviour (the same verdict on another rule or after another outcome, a FAIL now
 * a WARN), then cases the baseline does not list that pass or SKIP and entries that did not run,
 * and last what got better (a known failure no longer fails: the baseline wants updating). A
 * lab's CI fails on the first two (--expect-fail-on regressions) or on every kind (any). */
enum iw_baseline_diff_kind {
	IW_DIFF_REGRESSION,
	IW_DIFF_CHANGED,
	IW_DIFF_UNLISTED,
	IW_DIFF_IMPROVED,
	IW_DIFF_KINDS
};

typedef struct iw_baseline {
	size_t n, cap;
	iw_baseline_entry *e;
	char name[256];             /* the file, for messages */
	size_t ndiff[IW_DIFF_KINDS];/* the last comparison's differences by kind */
} iw_baseline;

/* Parses baseline text; name is used in messages ("FILE:LINE: ..."). Errors (IW_EINVAL): an
 * unknown verdict, a missing verdict, a duplicate entry, an over-long id. The baseline is
 * empty and needs no free on error. */
int iw_baseline_parse(iw_baseline *b, const char *text, size_t len, const char *name, iw_err *e);

/* Reads and parses a file. */
int iw_baseline_load(iw_baseline *b, const char *path, iw_err *e);

void iw_baseline_free(iw_baseline *b);

/* Compares a run with the baseline. Returns the number of differences and sets *out to a
 * malloc'd array of that many malloc'd lines (free with iw_baseline_diffs_free), one per
 * difference, in the order of enum iw_baseline_diff_kind (b->ndiff counts each kind), each with
 * the result's whole reason, e.g.
 *   "mpa.startup.resp.rev-01: expected FAIL (baseline line 3), got PASS: a known failure no longer
 *    fails; update the baseline"
 * A result with no entry, and an entry no result matched, are differences too (for an
 * incomplete run the cases it did not reach are not). Returns (size_t)-1 when memory runs out. */
size_t iw_baseline_compare(iw_baseline *b, const iw_run *run, char ***out);

void iw_baseline_diffs_free(char **d, size_t n);

/* Writes the run's verdicts as a baseline (atomically): FAIL and WARN entries pin their
 * requirement and outcome, and with ERROR and SKIP give the reason as the note; @PROFILE only
 * when the run covers several profiles. */
int iw_baseline_write(const iw_run *run, const char *path, iw_err *e);

#endif
