/*
 * findings.h - a run's FAILs and WARNs grouped by what broke, for a lab reading a report.
 *
 * A DUT with one bug fails many cases the same way: siw's non-zero pad octets fail every case
 * whose echo is short. Listed case by case, seventy FAILs hide that they are ten findings. A
 * finding here is the cases that share a verdict and the signature of what the DUT did: the
 * reason with the case's particulars taken out (numbers, octets, quoted text, the step that saw
 * it). Its requirements are those the cases' verdicts rest on (failed_req), in the order first
 * seen: one behaviour (no Terminate before the close) can break a different rule in each case
 * (the rule for the error each case provokes). The console summary, results.json ("findings")
 * and report.html (#findings) show the same groups, most serious and largest first, each with
 * its cases and the first of them that has a capture.
 */
#ifndef IW_FINDINGS_H
#define IW_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "iw_err.h"
#include "result.h"

typedef struct iw_finding {
	enum iw_verdict verdict;    /* IW_FAIL or IW_WARN */
	size_t nreqs;               /* the requirements the cases rest on, each once, first seen first */
	char reqs[8][32];           /* the first 8 of them ("" never: a case without one adds none) */
	bool reqs_cut;              /* more than 8: the rest are not listed */
	char signature[256];        /* what the DUT did, e.g. "the DUT's FPDU at # has non-zero pad octets" */
	size_t ncases;
	size_t *cases;              /* indices into run->cases, in the run's order (owned) */
	size_t pcap_case;           /* 1 + index of the first case with a capture; 0 = none */
} iw_finding;

typedef struct iw_findings {
	size_t n;
	iw_finding *g;              /* owned: FAIL before WARN, then more cases first, then by signature */
} iw_findings;

/* Groups run's FAIL and WARN cases into out (zeroed first). 0, or -1 with e (out of memory;
 * out is then empty). */
int iw_findings_group(const iw_run *run, iw_findings *out, iw_err *e);

void iw_findings_free(iw_findings *f);

/* The signature of a reason of n octets (it need not be NUL-terminated): the text before
 * " [requirement", after the step context ("startup (line 12) did not reach full operation
 * ...: "), with every number, run of hex octets and quoted text replaced by '#' and every
 * parenthesised remark by "(...)", spaces folded; an `expect one-of` whose outcomes all failed
 * the same way is that one way. Always NUL-terminates buf (cap > 0). */
void iw_finding_signature(const char *reason, size_t n, char *buf, size_t cap);

#endif
