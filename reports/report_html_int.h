/*
 * report_html_int.h - the internals of report.html, shared by its files (not a public header:
 * the runner's reports call iw_report_html in report.h). Every section writes through an hctx
 * into one atomic file. The files, in the order of the document:
 *
 *   report_html.c             the document, its style, and the helpers below
 *   report_html_summary.c     #summary (by spec, by requirement family) and #baseline
 *   report_html_findings.c    #findings: the FAILs and WARNs grouped by what the DUT did
 *   report_html_provenance.c  #provenance
 *   report_html_coverage.c    #coverage: requirements.md's wire MUSTs and the cases citing them
 *   report_html_case.c        #cases: one <details> per case
 *   report_html_wire.c        a case's wire log, the failure's event and field highlighted
 */
#ifndef IW_REPORT_HTML_INT_H
#define IW_REPORT_HTML_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "atomic_file.h"
#include "report.h"

/* A fixed-size text field of a result: its octets up to the first NUL or its size. */
#define FIELD(s) (s), strnlen((s), sizeof(s))

typedef struct hctx {
	iw_atomic_file *af;
	const iw_run *run;
	const iw_html_opts *o;
	bool multi;
} hctx;

/* report_html.c. html_esc writes any text escaped for HTML text and attribute values alike
 * (the only way a DUT's or a case file's text reaches the page); html_out writes the report's
 * own markup as it is. A verdict badge; a link to a case's <details> (with its badge); a time
 * of day ("-" for none); a row of a key-value table (pre: the value keeps its lines); the name
 * of the signal that stopped a run. */
void html_esc(hctx *h, const char *s, size_t n);
void html_esc_s(hctx *h, const char *s);
void html_out(hctx *h, const char *s);
enum iw_verdict html_verdict_of(const iw_case_result *r);
void html_badge(hctx *h, enum iw_verdict v);
void html_case_link(hctx *h, const iw_case_result *r, bool with_badge);
void html_time_text(int64_t ms, char *buf, size_t cap);
void html_kv(hctx *h, const char *k, const char *v, size_t n, bool pre);

/* report_html_coverage.c. Who cites a requirement: the cases of the run that list it (each
 * case id once per profile), and those of them that ran (not skipped). */
typedef struct cite {
	size_t cases, exercised;
} cite;
cite html_cites_of(const iw_run *run, const char *req);

/* The committed list of wire-observable MUSTs that cannot be judged from the wire, with why:
 * untestable.md at the root of the case tree the run loaded (found upward from the run's case
 * files), one `ID: reason` line per requirement of the catalog (other lines are prose). */
#define IW_UNTESTABLE_MAX 512
typedef struct iw_untestable {
	bool found;
	char path[512];
	size_t n;
	char id[IW_UNTESTABLE_MAX][32];
	char reason[IW_UNTESTABLE_MAX][320];
} iw_untestable;

/* Loads the list for run into u (found false when there is none). */
void iw_untestable_load(const iw_run *run, iw_untestable *u);

/* The reason u gives for req, or NULL when it does not list it. */
const char *iw_untestable_reason(const iw_untestable *u, const char *req);

/* How the wire-observable MUSTs of the catalog stand in a run: cited by a case header, judged on
 * the wire by a case's per-frame checks, listed untestable, and none of these (uncovered). Shared
 * by report.html and results.json's summary. */
typedef struct iw_coverage {
	size_t wire, cited, exercised, judged, untestable, uncovered;
} iw_coverage;

/* The cases whose per-frame checks judged req, and the frames they judged it on. */
void iw_judged_of(const iw_run *run, const char *req, size_t *cases, size_t *frames);

void iw_coverage_count(const iw_run *run, const iw_untestable *u, iw_coverage *out);

/* The sections, each a <section> with its fixed id; #baseline only when --expect compared. */
void html_section_summary(hctx *h);
void html_section_baseline(hctx *h);
void html_section_findings(hctx *h);
void html_section_provenance(hctx *h);
void html_section_coverage(hctx *h);
void html_section_cases(hctx *h);

/* report_html_wire.c. The wire log of case r; blame_on: its failure's event and field are
 * highlighted (anchor "case-<slug>-blame"). */
void html_wire_table(hctx *h, const iw_case_result *r, const char *slug, bool blame_on);

#endif
