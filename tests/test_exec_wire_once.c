/*
 * test_exec_wire_once.c - the wire log shows each of the DUT's events once, in wire order
 * (suite/run/exec_wire.c). Issue 38: against a DUT whose Terminate carries a wrong code, the
 * catalog's mpa.crc.corrupt-crc-value logged its one Terminate three times, two of them after
 * the DUT's FIN, because each alternative of `expect one-of` read it again: to a reader of
 * report.html beside a capture, a retransmission or data after FIN.
 */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_fixture.h"
#include "iw_conn.h"
#include "runner.h"

TEST(exec_wire_log_shows_a_terminate_once_before_the_fin)
{
	iw_run run;
	run_catalog_case_mutant("cases/mpa/5.2-crc/corrupt-crc.iwt", "term-wrong-code", &run);
	const iw_case_result *r = &run.cases[0];
	CHECK_STR(iw_verdict_name(r->verdict), "FAIL");
	size_t terms = 0, term_at = 0, fin_at = 0, dut_after_fin = 0;
	for (size_t i = 0; i < r->nwire; i++) {
		const iw_wire_entry *w = &r->wire[i];
		if (w->dir != IW_FROM_DUT)
			continue;
		if (!strcmp(w->what, "fin")) {
			fin_at = i + 1;
			continue;
		}
		if (fin_at && w->nbytes)
			dut_after_fin++;
		if (!strcmp(w->what, "fpdu") && strstr(w->summary, "Terminate")) {
			terms++;
			term_at = i + 1;
		}
	}
	if (terms != 1 || dut_after_fin)
		for (size_t i = 0; i < r->nwire; i++)
			printf("    %zu %d %s %s\n", i, r->wire[i].dir, r->wire[i].what, r->wire[i].summary);
	CHECK_EQ(terms, 1);             /* the DUT sent one Terminate, as tshark shows */
	CHECK(fin_at > term_at);        /* its FIN came behind it, and is logged where it came */
	CHECK_EQ(dut_after_fin, 0);     /* no data after the FIN */
	/* Each alternative judged the Terminate: the failure points at its one entry, with the field
	 * that is wrong (its code: the CRC error was found and misreported), on the rule that holds
	 * the code (RFC5040-4.8-08), not on the CRC rule (issue 38). */
	CHECK_EQ(r->fail_wire, term_at);
	CHECK_STR(r->fail_field, "Code");
	CHECK_STR(r->failed_req, "RFC5040-4.8-08");
	iw_run_free(&run);
}
