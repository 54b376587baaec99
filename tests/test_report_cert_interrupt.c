/*
 * test_report_cert_interrupt.c - interruption (issue 8): the signal flag, and the runner that
 * stops before its next case and marks the run incomplete.
 */
#include "report_cert_fixture.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "dut_config.h"
#include "interrupt.h"
#include "runner.h"

/* ---- interruption ------------------------------------------------------------------ */

TEST(reportcert_interrupt_flag)
{
	iw_interrupt_set(0);
	CHECK(!iw_interrupted());
	iw_interrupt_install();
	raise(SIGTERM); /* handled: only the flag */
	CHECK(iw_interrupted());
	CHECK_EQ(iw_interrupt_signal(), SIGTERM);
	iw_interrupt_set(0);
	iw_interrupt_uninstall();
	CHECK(!iw_interrupted());
}

TEST(reportcert_runner_stops_when_interrupted)
{
	static const char text[] = "id: t.runner.interrupt\n"
				   "title: t\n"
				   "requirement: MPA-6.1-R5 MUST\n"
				   "role: responder\n"
				   "\n"
				   "connect\n"
				   "send request\n"
				   "expect reply r=0\n";
	iw_case *c = NULL;
	iw_err e;
	if (iw_case_parse(text, sizeof text - 1, "t.iwt", &c, &e) != IW_OK) {
		check_fail(__FILE__, __LINE__, "%s", e.msg);
		return;
	}
	iw_run_opts o;
	memset(&o, 0, sizeof o);
	iw_dut_config_default(&o.dut);
	iw_run *run = calloc(1, sizeof *run);
	if (!run) {
		iw_case_free(c);
		return;
	}
	/* The signal came before the first case: nothing runs, the run says it is incomplete. */
	iw_interrupt_set(SIGINT);
	iw_case *const cases[] = {c};
	CHECK_EQ(iw_runner_run(&o, cases, 1, run, &e), IW_OK);
	CHECK_EQ(run->ncases, 0);
	CHECK(!run->complete);
	CHECK_EQ(run->stop_signal, SIGINT);
	iw_run_free(run);
	/* Without one, the case runs and keeps its capture, role and expectations. */
	iw_interrupt_set(0);
	memset(run, 0, sizeof *run);
	CHECK_EQ(iw_runner_run(&o, cases, 1, run, &e), IW_OK);
	CHECK(run->complete);
	CHECK_EQ(run->ncases, 1);
	if (run->ncases == 1) {
		const iw_case_result *r = &run->cases[0];
		CHECK_EQ(r->verdict, IW_PASS);
		CHECK_STR(r->dut_role, "responder");
		CHECK(strstr(r->expected, "8: expect reply r=0") != NULL);
		CHECK(r->ntcp >= 3);
		CHECK_EQ(r->tcp_octets, 40); /* Request and Reply, 20 octets each */
		CHECK(r->ntcp && r->tcp[0].kind == IW_TCP_OPEN);
	}
	iw_run_free(run);
	free(run);
	iw_case_free(c);
}
