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

/* The catalog case at path against the built-in DUT with a mutant, in a role; result in run. */
static void run_mutant(const char *path, const char *mutant, int role, iw_run *run)
{
	memset(run, 0, sizeof *run);
	char *text = case_text(path);
	CHECK(text != NULL);
	if (!text)
		return;
	iw_err e;
	iw_run_opts o;
	memset(&o, 0, sizeof o);
	iw_dut_config_default(&o.dut);
	CHECK_EQ(iw_dut_config_set(&o.dut, "mutant", mutant, &e), IW_OK);
	o.dut.profile = iw_profile_get(IW_PROFILE_RFC5044);
	o.dut.role = role;
	o.dut.case_timeout_ms = 5000;
	run_text_with(text, path, &o, run);
	free(text);
}

static void check_result(const iw_run *run, const char *verdict, const char *req, const char *outcome)
{
	const iw_case_result *r = &run->cases[0];
	CHECK_STR(iw_verdict_name(r->verdict), verdict);
	CHECK_STR(r->failed_req, req);
	CHECK_STR(r->outcome, outcome);
	if (strcmp(iw_verdict_name(r->verdict), verdict) || strcmp(r->failed_req, req))
		printf("    %s: %s\n", r->id, r->reason);
}

/* The CRC not checked: the bad Send's echo is MPA-5.2-14's FAIL in the case about the
 * Terminate's code too (`instead=`), as in every CRC case; it was a WARN on MPA-7-02 there. */
TEST(one_severity_delivered_corrupt_data)
{
	iw_run run;
	run_mutant("cases/mpa/5.2-crc/terminate-code-2.iwt", "crc-unchecked", IW_ROLE_RESPONDER, &run);
	check_result(&run, "FAIL", "MPA-5.2-14", "Send");
	iw_run_free(&run);
	run_mutant("cases/mpa/5.2-crc/corrupt-payload.iwt", "crc-unchecked", IW_ROLE_RESPONDER, &run);
	check_result(&run, "FAIL", "MPA-5.2-14", "Send");
	iw_run_free(&run);
}

/* A Terminate with its reserved bits set breaks RFC5040-4.8-05 wherever it comes: a one-of whose
 * Terminate alternative got it rests on that rule (not on the CRC rule the case cites first),
 * and a case that holds its own steps weaker (DDP-8.2-01 held as SHOULD) FAILs on it too. */
TEST(one_severity_terminate_reserved_bits)
{
	iw_run run;
	run_mutant("cases/mpa/5.2-crc/corrupt-payload.iwt", "term-rsvd-set", IW_ROLE_RESPONDER, &run);
	check_result(&run, "FAIL", "RFC5040-4.8-05", "Terminate LLP/0x0/0x02 (MPA CRC error)");
	iw_run_free(&run);
	run_mutant("cases/mpa/5.2-crc/terminate-code-2.iwt", "term-rsvd-set", IW_ROLE_RESPONDER, &run);
	check_result(&run, "FAIL", "RFC5040-4.8-05", "Terminate LLP/0x0/0x02 (MPA CRC error)");
	iw_run_free(&run);
	run_mutant("cases/ddp/9.1-errors/terminate-before-close.iwt", "term-rsvd-set", IW_ROLE_RESPONDER, &run);
	check_result(&run, "FAIL", "RFC5040-4.8-05", "Terminate DDP/0x1/0x00 (invalid STag)");
	CHECK(strstr(run.cases[0].reason, "held as") == NULL);
	iw_run_free(&run);
}
