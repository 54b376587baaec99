/*
 * report.h - what a run leaves behind: results.json, junit.xml, report.html, one pcap per case
 * and the console lines.
 *
 * docs/reports.md describes both file formats field by field. Every writer takes the run
 * as the runner filled it and tallies the verdicts itself (run->counts may be stale).
 * Both files are written atomically (atomic_file.h): a reader sees the previous file or
 * the new one, whole. Text that came from a DUT (reasons, wire summaries, stderr) may be
 * anything: the writers replace invalid UTF-8 with U+FFFD and escape what the format
 * cannot hold, so a hostile DUT cannot break a report or a terminal.
 */
#ifndef IW_REPORT_H
#define IW_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "iw_err.h"
#include "result.h"

/* Hex of one wire entry is cut at this many characters (32 KiB of octets), flagged with
 * "truncated": true; "nbytes" still gives the entry's full length. */
#define IW_REPORT_HEX_MAX 65536

/* The usual file names inside a report directory. */
#define IW_REPORT_JSON_NAME "results.json"
#define IW_REPORT_JUNIT_NAME "junit.xml"

#define IW_REPORT_HTML_NAME "report.html"
#define IW_REPORT_PCAP_DIR "pcap"

/* Writes results.json. 0, or -1 with e naming the path and the reason. */
int iw_report_json(const iw_run *run, const char *path, iw_err *e);

/* Writes junit.xml. 0, or -1 with e naming the path and the reason. */
int iw_report_junit(const iw_run *run, const char *path, iw_err *e);

/* Writes both into dir (created when missing). 0, or -1 with the first failure in e; the
 * second file is still attempted when the first fails. */
int iw_report_write_all(const iw_run *run, const char *dir, iw_err *e);

/*
 * The certification report (docs/reports.md, "report.html"): one self-contained HTML file with
 * no network fetch and no external asset. Summary by spec and requirement family, provenance,
 * the coverage of requirements.md's wire-observable MUSTs, and every case with its requirement
 * text, expectations, outcome, decoded wire log (the offending field highlighted) and a link to
 * its pcap. An interrupted run (run->complete false) carries a visible INCOMPLETE banner.
 */
typedef struct iw_html_opts {
	bool pcap_links;            /* link each case that has a capture to pcap/<slug>.pcap */
	const char *baseline;       /* the --expect file, NULL when none was compared */
	size_t ndiffs;              /* its differences (iw_baseline_compare), shown in the report */
	char *const *diffs;
} iw_html_opts;

int iw_report_html(const iw_run *run, const iw_html_opts *o, const char *path, iw_err *e);

/* A case's name in file names and anchors: its id with anything but letters, digits and
 * ". _ -" replaced by '_', and "@PROFILE" appended when the run covers several profiles. */
const char *iw_report_case_slug(const iw_run *run, const iw_case_result *r, char *buf, size_t cap);

/* One pcap per case that opened a connection, into dir/<slug>.pcap (dir created): the
 * harness's own TCP connections as captured (r->tcp), synthesized by pcap_write.h with the
 * harness at 10.0.0.1 and the DUT at 10.0.0.2, port 4791 on the listening side, real times.
 * Returns how many files were written, or -1 with the first failure in e (the other cases are
 * still written). */
long iw_report_pcaps(const iw_run *run, const char *dir, iw_err *e);

/* One case's capture to path. 0, or -1 with e. */
int iw_report_pcap_case(const iw_case_result *r, const char *path, iw_err *e);

/*
 * One progress line per finished case: "[ 37/120] PASS  mpa.startup.req.happy-path  (12 ms)".
 * i counts the finished cases including this one (1..n). On a TTY the line is live: it
 * rewrites itself for PASS, INFO and SKIP, while FAIL, WARN and ERROR lines stay on screen;
 * verdicts are coloured unless NO_COLOR is set. Elsewhere (a log, CI) every case gets a plain
 * line. Call iw_console_progress_end before printing anything else on a TTY.
 */
void iw_console_progress(FILE *f, bool tty, size_t i, size_t n, const iw_case_result *r);
void iw_console_progress_end(FILE *f, bool tty);

/* The final summary: provenance, counts per verdict, each FAIL, WARN and ERROR case with its
 * reason and requirement, DUT findings, and the report paths under report_dir (NULL: none). */
void iw_console_summary(FILE *f, const iw_run *run, const char *report_dir);

#endif
