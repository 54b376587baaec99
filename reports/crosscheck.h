/*
 * crosscheck.h - one judgment, read twice: a run's verdicts held against `iwspec decode` of each
 * case's own capture (`iwspec crosscheck`, docs/reports.md "Cross-check with decode").
 *
 * A report directory written with --pcap holds results.json and pcap/<case>.pcap. For every case
 * with a capture, the capture is decoded as `iwspec decode --profile <the case's profile>` would
 * (decode_conn.h, in this process: thousands of captures take seconds), and the violations found
 * in the DUT's octets (the DUT is the server of a responder case, the client of an initiator
 * case) are held against the case's result:
 *   - a violation decode finds must be one the run judged: the requirement a FAIL, WARN or INFO
 *     rests on, or, when the case failed, one of its per-frame rules (results.json "judged"),
 *     whose checks stopped with the case; a PASS, or a failure that rests on another rule,
 *     beside it is a disagreement;
 *     a violation in the octets the run failed on, of a rule it did not judge, is counted, not
 *     compared: the run stops at the first rule broken there; so is one on the connection the
 *     runner opens before a case to see the DUT serve (the probe: no verdict rests on it), and
 *     one on perftest's comm connections (the perftest profiles: the means of the case, noted
 *     and not judged by the run);
 *   - a failure that rests on a per-frame rule (its reason says "judged on every frame") must be
 *     found by decode in the DUT's octets of that capture.
 * Cases with an ERROR, a capture cut at its limits (capture.cut) or no connection are not
 * compared, and counted as such; decode's findings about the capture itself ("capture") are not
 * the DUT's.
 */
#ifndef IW_CROSSCHECK_H
#define IW_CROSSCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "iw_err.h"

typedef struct iw_xcheck_totals {
	size_t cases;               /* cases in results.json */
	size_t captures;            /* case captures decoded */
	size_t dut_fpdus;           /* FPDUs of the DUT decode judged in them */
	size_t dut_violations;      /* violations decode found in the DUT's octets */
	size_t after_failure;       /* of them, in frames after the run's failure: not compared */
	size_t probe_violations;    /* violations decode found on the probe before a case: no verdict
				     * rests on that connection, so not compared */
	size_t comm_violations;     /* the same on perftest's comm connections */
	size_t at_failure;          /* of them, in the octets the run failed on, of a rule it did not judge
				     * there (it stops at the first broken): not compared */
	size_t per_frame_failures;  /* failures resting on a per-frame rule, looked for in the capture */
	size_t not_compared;        /* SKIP, ERROR, a cut capture */
	size_t skipped;             /* left out by name */
	size_t disagreements;
} iw_xcheck_totals;

/* Cross-checks the report directory dir, printing one line per disagreement to out (case,
 * requirement, what each side said) and adding to t. The cases skip[0..nskip) names (a case id,
 * or its file name with "@PROFILE") are left out and counted in t->skipped. 0, or -1 with e
 * when the directory cannot be read (no results.json, not valid JSON, a case's capture missing:
 * run with --pcap). */
int iw_xcheck_dir(const char *dir, const char *const *skip, size_t nskip, FILE *out, iw_xcheck_totals *t,
		  iw_err *e);

#endif
