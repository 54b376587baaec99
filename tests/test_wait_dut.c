/*
 * test_wait_dut.c - a DUT that starts listening a moment after the run begins (iwspec run
 * --wait-dut, the configuration's wait_dut; suite/run/wait_dut.h): with the wait the run connects
 * and judges its cases, without it the run stops at the refused first connection as before; the
 * wait that runs out names itself, a signal ends it at once, and only the first connection
 * waits.
 */
#include "check.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "case.h"
#include "cli_args.h"
#include "dut_config.h"
#include "interrupt.h"
#include "net.h"
#include "ref_server.h"
#include "runner.h"

static const char CASE_TEXT[] = "id: t.wait.%d\n"
				"title: t\n"
				"requirement: MPA-6.1-R5 MUST\n"
				"role: responder\n"
				"\n"
				"connect\n"
				"send request\n"
				"expect reply r=0\n";

/* The built-in DUT on a fixed port, listening only after a delay (a lab script's DUT). */
typedef struct late_dut {
	uint16_t port;
	int hold;                   /* iw_net_free_port's hold, until the DUT listens */
	int64_t delay_ms;
	iw_ref_server *srv;
	pthread_t tid;
	bool started;
} late_dut;

static void *late_start(void *arg)
{
	late_dut *d = arg;
	struct timespec ts = {(time_t)(d->delay_ms / 1000), (long)(d->delay_ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
	iw_ref_options ro;
	iw_ref_options_default(&ro);
	ro.port = d->port;
	iw_err e;
	if (iw_ref_server_new(&d->srv, &ro, &e) != IW_OK || iw_ref_server_start(d->srv, &e) != IW_OK) {
		check_fail(__FILE__, __LINE__, "the late DUT cannot start: %s", e.msg);
		iw_ref_server_free(d->srv);
		d->srv = NULL;
	}
	return NULL;
}

static bool late_dut_begin(late_dut *d, int64_t delay_ms)
{
	iw_err e;
	memset(d, 0, sizeof *d);
	d->delay_ms = delay_ms;
	if (iw_net_free_port(&d->port, &d->hold, &e) != IW_OK) {
		check_fail(__FILE__, __LINE__, "no free port: %s", e.msg);
		return false;
	}
	if (delay_ms >= 0) {
		d->started = pthread_create(&d->tid, NULL, late_start, d) == 0;
		CHECK(d->started);
	}
	return true;
}

static void late_dut_end(late_dut *d)
{
	if (d->started)
		pthread_join(d->tid, NULL);
	iw_ref_server_free(d->srv);
	d->srv = NULL;
	if (d->hold >= 0)
		close(d->hold);
}

typedef struct said {
	int n;
	char msg[320];
} said;

static void say(void *ctx, const char *msg)
{
	said *s = ctx;
	s->n++;
	snprintf(s->msg, sizeof s->msg, "%s", msg);
}

static void opts_for(iw_run_opts *o, const late_dut *d, int64_t wait_ms, said *s)
{
	memset(o, 0, sizeof *o);
	iw_dut_config_default(&o->dut);
	snprintf(o->dut.dut, sizeof o->dut.dut, "tcp:127.0.0.1:%u", (unsigned)d->port);
	o->dut.connect_timeout_ms = 300;
	o->dut.wait_dut_ms = wait_ms;
	o->role_fixed = true;
	o->seed = 1;
	o->jobs = 1;
	o->on_wait = say;
	o->on_wait_ctx = s;
}

/* n copies of CASE_TEXT (ids t.wait.0 ..). */
static size_t parse_cases(iw_case **cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char text[sizeof CASE_TEXT + 8];
		iw_err e;
		snprintf(text, sizeof text, CASE_TEXT, (int)i);
		cases[i] = NULL;
		if (iw_case_parse(text, strlen(text), "t.iwt", &cases[i], &e) != IW_OK) {
			check_fail(__FILE__, __LINE__, "%s", e.msg);
			for (size_t k = 0; k < i; k++)
				iw_case_free(cases[k]);
			return 0;
		}
	}
	return n;
}

static void free_cases(iw_case **cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		iw_case_free(cases[i]);
}

TEST(wait_dut_key_and_option)
{
	iw_dut_config c;
	iw_err e;
	int64_t ms = -1;
	iw_dut_config_default(&c);
	CHECK_EQ(c.wait_dut_ms, 0);
	CHECK_EQ(iw_dut_config_set(&c, "wait_dut", "10s", &e), IW_OK);
	CHECK_EQ(c.wait_dut_ms, 10000);
	CHECK_EQ(iw_dut_config_set(&c, "wait_dut", "0s", &e), IW_OK);
	CHECK_EQ(c.wait_dut_ms, 0);
	CHECK_EQ(iw_dut_config_set(&c, "wait_dut", "soon", &e), IW_EINVAL);
	CHECK(strstr(e.msg, "bad value for wait_dut: 'soon' is not a duration") != NULL);
	CHECK_EQ(iw_cli_parse_wait("--wait-dut", "500ms", &ms, &e), IW_OK);
	CHECK_EQ(ms, 500);
	CHECK_EQ(iw_cli_parse_wait("--wait-dut", "abc", &ms, &e), IW_EINVAL);
	CHECK(strstr(e.msg, "--wait-dut 'abc' is not a duration") != NULL);
	CHECK_EQ(iw_cli_parse_wait("--wait-dut", "-5s", &ms, &e), IW_EINVAL);
	CHECK(strstr(e.msg, "--wait-dut '-5s': a wait cannot be negative") != NULL);
	CHECK_EQ(iw_cli_parse_wait("--wait-dut", "", &ms, &e), IW_EINVAL);
	CHECK(strstr(e.msg, "--wait-dut needs a duration") != NULL);
}

/* The DUT listens 300 ms after the run began: the run waits, connects, and judges both cases;
 * the wait is said once. */
TEST(wait_dut_connects_to_a_late_dut)
{
	late_dut d;
	if (!late_dut_begin(&d, 300))
		return;
	iw_case *cases[2];
	if (parse_cases(cases, 2) != 2) {
		late_dut_end(&d);
		return;
	}
	said s = {0};
	iw_run_opts o;
	opts_for(&o, &d, 5000, &s);
	o.wait_dut_how = "--wait-dut 5s";
	iw_run run;
	memset(&run, 0, sizeof run);
	iw_err e;
	CHECK_EQ(iw_runner_run(&o, cases, 2, &run, &e), IW_OK);
	CHECK(run.complete);
	CHECK_STR(run.stopped, "");
	CHECK_EQ(run.ncases, 2);
	CHECK_EQ(run.counts[IW_PASS], 2);
	CHECK_EQ(s.n, 1);
	char want[160];
	snprintf(want, sizeof want, "waiting up to 5 s for the DUT at 127.0.0.1:%u to listen (--wait-dut 5s)",
		 (unsigned)d.port);
	CHECK_STR(s.msg, want);
	/* The case that waited says so in its report. */
	bool noted = false;
	for (size_t i = 0; run.ncases && i < run.cases[0].nwire; i++)
		noted |= strstr(run.cases[0].wire[i].summary, "before it listened (--wait-dut 5s)") != NULL;
	CHECK(noted);
	iw_run_free(&run);
	free_cases(cases, 2);
	late_dut_end(&d);
}

/* Without the wait a late DUT stops the run at its refused first connection, as ever (a second
 * late here, so that a loaded machine's run still meets the refusal). */
TEST(wait_dut_without_it_the_run_stops)
{
	late_dut d;
	if (!late_dut_begin(&d, 1000))
		return;
	iw_case *cases[2];
	if (parse_cases(cases, 2) != 2) {
		late_dut_end(&d);
		return;
	}
	said s = {0};
	iw_run_opts o;
	opts_for(&o, &d, 0, &s);
	iw_run run;
	memset(&run, 0, sizeof run);
	iw_err e;
	int64_t t0 = iw_net_now_ms();
	CHECK_EQ(iw_runner_run(&o, cases, 2, &run, &e), IW_OK);
	CHECK(iw_net_now_ms() - t0 < 900); /* a refusal at once, not a wait */
	CHECK(!run.complete);
	CHECK(strstr(run.stopped, "cannot be reached") != NULL);
	CHECK(strstr(run.stopped, "Connection refused") != NULL);
	CHECK_EQ(run.ncases, 1);
	CHECK_EQ(run.not_started, 1);
	CHECK_EQ(s.n, 0);
	iw_run_free(&run);
	free_cases(cases, 2);
	late_dut_end(&d);
}

/* No DUT at all: the wait runs out, and the stop says so and names how it was asked for. */
TEST(wait_dut_runs_out)
{
	late_dut d;
	if (!late_dut_begin(&d, -1))
		return;
	iw_case *cases[1];
	if (parse_cases(cases, 1) != 1) {
		late_dut_end(&d);
		return;
	}
	said s = {0};
	iw_run_opts o;
	opts_for(&o, &d, 400, &s);
	iw_run run;
	memset(&run, 0, sizeof run);
	iw_err e;
	int64_t t0 = iw_net_now_ms();
	CHECK_EQ(iw_runner_run(&o, cases, 1, &run, &e), IW_OK);
	int64_t took = iw_net_now_ms() - t0;
	CHECK(took >= 400 && took < 5000);
	CHECK(!run.complete);
	char want[160];
	/* NULL wait_dut_how: the configuration's key. */
	snprintf(want, sizeof want, "the DUT at 127.0.0.1:%u refused every connection for 400 ms (wait_dut = 400ms): "
		 "is it started?", (unsigned)d.port);
	CHECK(strstr(run.stopped, want) != NULL);
	CHECK_EQ(s.n, 1);
	iw_run_free(&run);
	free_cases(cases, 1);
	late_dut_end(&d);
}

static void *interrupt_later(void *arg)
{
	(void)arg;
	struct timespec ts = {0, 300 * 1000000L};
	nanosleep(&ts, NULL);
	iw_interrupt_set(SIGINT);
	return NULL;
}

/* SIGINT ends the wait promptly; the run is interrupted, not stopped as unreachable. */
TEST(wait_dut_interrupt_ends_the_wait)
{
	late_dut d;
	if (!late_dut_begin(&d, -1))
		return;
	iw_case *cases[1];
	if (parse_cases(cases, 1) != 1) {
		late_dut_end(&d);
		return;
	}
	said s = {0};
	iw_run_opts o;
	opts_for(&o, &d, 30000, &s);
	iw_run run;
	memset(&run, 0, sizeof run);
	iw_err e;
	iw_interrupt_set(0);
	pthread_t tid;
	bool th = pthread_create(&tid, NULL, interrupt_later, NULL) == 0;
	CHECK(th);
	int64_t t0 = iw_net_now_ms();
	CHECK_EQ(iw_runner_run(&o, cases, 1, &run, &e), IW_OK);
	int64_t took = iw_net_now_ms() - t0;
	if (th)
		pthread_join(tid, NULL);
	CHECK(took < 3000);
	CHECK(!run.complete);
	CHECK_STR(run.stopped, "");
	CHECK_EQ(run.stop_signal, SIGINT);
	CHECK(run.ncases == 1 && strstr(run.cases[0].reason, "interrupted by SIGINT") != NULL);
	iw_interrupt_set(0);
	iw_run_free(&run);
	free_cases(cases, 1);
	late_dut_end(&d);
}

/* Stops the DUT when the first case has ended: the second case meets a refusal. */
static void stop_after_first(void *ctx, size_t done, size_t total, const iw_case_result *r)
{
	late_dut *d = ctx;
	(void)total;
	(void)r;
	if (done == 1) {
		iw_ref_server_free(d->srv);
		d->srv = NULL;
	}
}

/* Only the run's first connection waits: once a case has reached the DUT, a refusal is judged
 * as without the option (an ERROR after connect_timeout, not a wait, and no stop). */
TEST(wait_dut_only_the_first_connection_waits)
{
	late_dut d;
	if (!late_dut_begin(&d, 200))
		return;
	iw_case *cases[2];
	if (parse_cases(cases, 2) != 2) {
		late_dut_end(&d);
		return;
	}
	said s = {0};
	iw_run_opts o;
	opts_for(&o, &d, 20000, &s);
	o.on_result = stop_after_first;
	o.on_result_ctx = &d;
	iw_run run;
	memset(&run, 0, sizeof run);
	iw_err e;
	int64_t t0 = iw_net_now_ms();
	CHECK_EQ(iw_runner_run(&o, cases, 2, &run, &e), IW_OK);
	CHECK(iw_net_now_ms() - t0 < 10000); /* far below the 20 s wait */
	CHECK(run.complete);
	CHECK_STR(run.stopped, "");
	CHECK_EQ(run.ncases, 2);
	if (run.ncases == 2) {
		CHECK_EQ(run.cases[0].verdict, IW_PASS);
		CHECK_EQ(run.cases[1].verdict, IW_ERROR);
		CHECK(strstr(run.cases[1].reason, "cannot connect to the DUT") != NULL);
		CHECK(strstr(run.cases[1].reason, "refused every connection") == NULL);
	}
	iw_run_free(&run);
	free_cases(cases, 2);
	late_dut_end(&d);
}

/* The exec driver's DUT that does not listen yet is waited for too, beyond connect_timeout. */
TEST(wait_dut_exec_dut_that_listens_late)
{
	const char *bin = getenv("IWSPEC");
	if (!bin || access(bin, X_OK) != 0)
		bin = access("build/iwspec", X_OK) == 0 ? "build/iwspec" : NULL;
	if (!bin) {
		printf("  wait_dut_exec_dut_that_listens_late: skipped: no build/iwspec (nor $IWSPEC) to exec\n");
		return;
	}
	iw_case *cases[1];
	if (parse_cases(cases, 1) != 1)
		return;
	for (int with = 0; with < 2; with++) {
		said s = {0};
		iw_run_opts o;
		memset(&o, 0, sizeof o);
		iw_dut_config_default(&o.dut);
		snprintf(o.dut.dut, sizeof o.dut.dut, "exec:sleep 0.5; exec %s serve --quiet --port {port}", bin);
		o.dut.connect_timeout_ms = 200;
		o.dut.wait_dut_ms = with ? 10000 : 0;
		o.role_fixed = true;
		o.seed = 1;
		o.jobs = 1;
		o.on_wait = say;
		o.on_wait_ctx = &s;
		iw_run run;
		memset(&run, 0, sizeof run);
		iw_err e;
		CHECK_EQ(iw_runner_run(&o, cases, 1, &run, &e), IW_OK);
		CHECK_EQ(run.ncases, 1);
		if (with) {
			CHECK(run.complete);
			CHECK_EQ(run.counts[IW_PASS], 1);
			CHECK_EQ(s.n, 1);
			CHECK_STR(s.msg, "waiting up to 10 s for the exec: DUT to listen on its port (wait_dut = 10s)");
		} else {
			CHECK(!run.complete);
			CHECK(strstr(run.stopped, "did not accept a connection") != NULL);
			CHECK_EQ(s.n, 0);
		}
		iw_run_free(&run);
	}
	free_cases(cases, 1);
}
