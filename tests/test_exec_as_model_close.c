/*
 * test_exec_as_model_close.c - `expect as-model` once an error is due: the echoes of the Sends
 * before it are optional (the application may not have posted them when the error ended the
 * stream), also when the DUT closes before any came; what is judged then is the Terminate.
 * Issue 39: on a slow run siw's QP went to error before the reflector's echo, and the case
 * failed on the echo, where the finding is the Terminate siw did not send (F18).
 */
#include "check.h"

#include <stdio.h>
#include <string.h>

#include "exec_fixture.h"

TEST(exec_as_model_close_after_an_error_is_judged_on_the_terminate)
{
	static const char *text = "id: test.exec.as-model-close\n"
				  "title: a close after an error, before any echo\n"
				  "requirement: DDP-6.1-10 MUST\n"
				  "requirement: DDP-9.2-01 MUST\n"
				  "role: responder\n"
				  "needs: echo\n"
				  "\n"
				  "connect\n"
				  "send request\n"
				  "expect reply\n"
				  "send send data=\"one\"\n"
				  "send send data=\"two\" dv=3\n"
				  "expect as-model within=1s\n";
	scripted_dut d = {0};
	d.reply_len = good_reply(d.reply, sizeof d.reply);
	d.close_on_data = true;
	dut_start(&d);
	iw_run run;
	run_against(&d, text, &run);
	dut_stop(&d);
	const iw_case_result *r = &run.cases[0];
	CHECK_STR(iw_verdict_name(r->verdict), "FAIL");
	CHECK(strstr(r->reason, "an echo was due") == NULL);
	CHECK(strstr(r->reason, "terminate") != NULL || strstr(r->reason, "Terminate") != NULL);
	CHECK(strstr(r->reason, "the DUT closed the connection") != NULL);
	iw_run_free(&run);
}
