/*
 * run_reports.h - the end of `iwspec run`: every report file, the baseline comparison, the
 * console summary and the exit status (docs/reports.md).
 */
#ifndef IW_RUN_REPORTS_H
#define IW_RUN_REPORTS_H

#include <stdbool.h>
#include <stdio.h>

#include "baseline.h"
#include "result.h"

typedef struct iw_run_outputs {
	const char *report_dir;     /* results.json, junit.xml (always), report.html, pcap/ */
	bool html;                  /* --html */
	bool pcap;                  /* --pcap */
	const char *expect;         /* --expect FILE: the baseline to compare with, or NULL */
	const char *write_expect;   /* --write-expect FILE, or NULL */
	bool fail_on_regressions;   /* --expect-fail-on regressions: only regressions and changed
				     * behaviour make the exit status 1, not what improved or is unlisted */
} iw_run_outputs;

/* Exit status of an interrupted run: 128 + the signal (130 SIGINT, 143 SIGTERM). */
#define IW_EXIT_SIGNAL_BASE 128

/*
 * Writes the reports of run into out->report_dir (each atomically; one failing does not stop
 * the others), compares with the baseline b (NULL: none), writes --write-expect, prints the
 * summary and the differences to console. Returns the exit status:
 *   128 + signal   the run was interrupted (its reports are written, marked incomplete)
 *   3              a report could not be written, no case ran, or (without a baseline) a
 *                  harness error
 *   4              (without a baseline) every ERROR is a DUT that contradicted its declared
 *                  configuration (iw_case_result.dut_contradicts), said once on console
 *   1              a difference from the baseline (with fail_on_regressions: a regression or
 *                  changed behaviour); without one, a case failed
 *   0              otherwise
 */
int iw_run_finish(const iw_run_outputs *out, iw_baseline *b, iw_run *run, FILE *console);

#endif
