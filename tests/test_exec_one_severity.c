/*
 * test_exec_one_severity.c - one behaviour, one severity (issue 38; docs/case-language.md): what
 * the DUT did is judged on the same rule at the same level wherever a case sees it, and the
 * outcome a baseline pins is that behaviour. Catalog cases against the built-in DUT's mutants.
 */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_fixture.h"
#include "iw_conn.h"
#include "runner.h"

/* One catalog case against one mutant, and what it must rest on. */
typedef struct judged {
	const char *path, *mutant, *verdict, *req, *outcome;
} judged;

static void check_judged(const judged *j, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		iw_run run;
		run_catalog_case_mutant(j[i].path, j[i].mutant, &run);
		const iw_case_result *r = &run.cases[0];
		CHECK_STR(iw_verdict_name(r->verdict), j[i].verdict);
		CHECK_STR(r->failed_req, j[i].req);
		CHECK_STR(r->outcome, j[i].outcome);
		/* A case's weaker position binds its own steps, not the checks made on every frame. */
		CHECK(strstr(r->reason, "held as") == NULL);
		if (strcmp(iw_verdict_name(r->verdict), j[i].verdict) || strcmp(r->failed_req, j[i].req))
			printf("    %s under %s: %s\n", r->id, j[i].mutant, r->reason);
		iw_run_free(&run);
	}
}

/* The CRC not checked: the bad Send's echo is MPA-5.2-14's FAIL in the case about the
 * Terminate's code too (`instead=`), as in every CRC case; it was a WARN on MPA-7-02 there. */
TEST(one_severity_delivered_corrupt_data)
{
	static const judged j[] = {
		{"cases/mpa/5.2-crc/terminate-code-2.iwt", "crc-unchecked", "FAIL", "MPA-5.2-14", "Send"},
		{"cases/mpa/5.2-crc/corrupt-payload.iwt", "crc-unchecked", "FAIL", "MPA-5.2-14", "Send"},
	};
	check_judged(j, sizeof j / sizeof j[0]);
}

/* A Terminate with its reserved bits set breaks RFC5040-4.8-05 wherever it comes: a one-of whose
 * Terminate alternative got it rests on that rule (not on the CRC rule the case cites first),
 * and a case that holds its own steps weaker (DDP-8.2-01 held as SHOULD) FAILs on it too. */
TEST(one_severity_terminate_reserved_bits)
{
	static const judged j[] = {
		{"cases/mpa/5.2-crc/corrupt-payload.iwt", "term-rsvd-set", "FAIL", "RFC5040-4.8-05",
		 "Terminate LLP/0x0/0x02 (MPA CRC error)"},
		{"cases/mpa/5.2-crc/terminate-code-2.iwt", "term-rsvd-set", "FAIL", "RFC5040-4.8-05",
		 "Terminate LLP/0x0/0x02 (MPA CRC error)"},
		{"cases/ddp/9.1-errors/terminate-before-close.iwt", "term-rsvd-set", "FAIL", "RFC5040-4.8-05",
		 "Terminate DDP/0x1/0x00 (invalid STag)"},
	};
	check_judged(j, sizeof j / sizeof j[0]);
}
