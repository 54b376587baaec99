/*
 * test_netfuzz_declared.c - the network fuzzer against DUTs configured otherwise than the
 * default (issue 38, parts 3 and 4): calibration of a DUT that wants markers (it read the DUT's
 * octets with the markers the DUT asked for on ours, saw neither the echo nor the greeting, and
 * every run then reported the greeting as an extra message), and of one in its no-CRC mode; the
 * application the DUT configuration declares wins over calibration's guess and a disagreement is
 * said; a finding names in its detail no requirement but its own (a CRC the DUT never checked
 * was filed under RFC5040-4.8-01 with MPA-5.2-14 in its detail); a session that judged no run is
 * exit 3, not a pass. tests/cli/fuzz_declared.sh does the same end to end against `iwspec serve`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "exec_fixture.h"
#include "cli.h"
#include "cmd_fuzz.h"
#include "net.h"
#include "netfuzz.h"

/* A session against `iwspec serve ARGS` run by the exec: driver, with the configuration lines
 * conf ("key=value;key=value", or NULL). NULL when there is no binary to run (said) or on error. */
static nf_session *open_serve(const char *test, const char *args, const char *conf, iw_err *e)
{
	const char *bin = iwspec_binary();
	if (!bin) {
		printf("  %s: skipped: no build/iwspec (nor $IWSPEC)\n", test);
		return NULL;
	}
	nf_opts o;
	memset(&o, 0, sizeof o);
	iw_dut_config_default(&o.dut);
	snprintf(o.dut.dut, sizeof o.dut.dut, "exec:exec %s serve --port {port} --quiet %s", bin, args);
	char kv[200];
	snprintf(kv, sizeof kv, "%s", conf ? conf : "");
	for (char *save = NULL, *it = strtok_r(kv, ";", &save); it; it = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(it, '=');
		if (!eq)
			continue;
		*eq = '\0';
		if (iw_dut_config_set(&o.dut, it, eq + 1, e)) {
			check_fail(__FILE__, __LINE__, "%s: %s", test, e->msg);
			return NULL;
		}
	}
	o.seed = 1;
	o.timeout_ms = 1000; /* generous: sanitizer builds and a busy machine */
	nf_session *s = NULL;
	if (nf_session_open(&s, &o, e) != IW_OK) {
		check_fail(__FILE__, __LINE__, "%s: %s", test, e->msg);
		return NULL;
	}
	return s;
}

/* Runs seed 1's programs from run 0 for n runs: the number of findings (the first few said). */
static unsigned findings_in(nf_session *s, unsigned n, const char *test)
{
	nf_prog *p = malloc(sizeof *p);
	unsigned found = 0;
	iw_err e;
	for (uint64_t run = 0; p && run < n; run++) {
		nf_finding f;
		nf_generate(p, nf_session_dut(s), 1, run);
		if (nf_run(s, p, &f, &e) != IW_OK) {
			check_fail(__FILE__, __LINE__, "%s: run %llu: %s", test, (unsigned long long)run, e.msg);
			break;
		}
		if (f.kind != NF_F_NONE && found++ < 3)
			check_fail(__FILE__, __LINE__, "%s: run %llu: %s [%s] %s", test, (unsigned long long)run,
				   nf_fkind_name(f.kind), f.req, f.detail);
	}
	free(p);
	return found;
}

TEST(netfuzz_calibrates_a_dut_that_wants_markers)
{
	iw_err e;
	nf_session *s = open_serve("netfuzz_calibrates_a_dut_that_wants_markers", "--markers", "markers=yes", &e);
	if (!s)
		return;
	const nf_dutinfo *d = nf_session_dut(s);
	CHECK(d->markers);
	CHECK(d->seen_reflector);
	CHECK(d->seen_greeting);
	CHECK(d->reflector && d->greeting);
	CHECK(!d->ulp_declared);
	CHECK_EQ(d->ulp_note[0], '\0');
	CHECK_EQ(findings_in(s, 400, "markers"), 0);
	nf_session_close(s);
}

/* serve --crc-off answers a Request with C=1 with C=1 (MPA-6.1.1-C1): only a Request with C=0
 * shows its mode, and the model must then be in it too, or every C=0 Reply is MPA-5.2-03. */
TEST(netfuzz_calibrates_a_dut_in_its_no_crc_mode)
{
	iw_err e;
	nf_session *s = open_serve("netfuzz_calibrates_a_dut_in_its_no_crc_mode", "--crc-off", "crc=optional-off", &e);
	if (!s)
		return;
	const nf_dutinfo *d = nf_session_dut(s);
	CHECK(d->crc);     /* its answer to calibration's C=1 */
	CHECK(d->crc_off); /* its answer to C=0 */
	CHECK_EQ(findings_in(s, 400, "crc-off"), 0);
	nf_session_close(s);
	/* Declared, but in its default mode: C=0 is answered with C=1. */
	s = open_serve("netfuzz_calibrates_a_dut_in_its_no_crc_mode", "", "crc=optional-off", &e);
	if (!s)
		return;
	CHECK(!nf_session_dut(s)->crc_off);
	CHECK_EQ(findings_in(s, 200, "crc default"), 0);
	nf_session_close(s);
}

/* The declared application wins over what calibration saw, and the disagreement is one line. */
TEST(netfuzz_declared_ulp_wins_over_calibration)
{
	iw_err e;
	nf_session *s = open_serve("netfuzz_declared_ulp_wins_over_calibration", "", "ulp=none", &e);
	if (!s)
		return;
	const nf_dutinfo *d = nf_session_dut(s);
	CHECK(d->ulp_declared);
	CHECK(d->seen_reflector && d->seen_greeting);
	CHECK(!d->reflector && !d->greeting);
	CHECK(strstr(d->ulp_note, "declares ulp = none") != NULL);
	CHECK(strstr(d->ulp_note, "calibration saw echo yes, greeting yes") != NULL);
	CHECK(strstr(d->ulp_note, "fuzzing with the declaration's") != NULL);
	CHECK(strchr(d->ulp_note, '\n') == NULL);
	nf_session_close(s);
	s = open_serve("netfuzz_declared_ulp_wins_over_calibration", "--no-reflector", "reflector=yes", &e);
	if (!s)
		return;
	d = nf_session_dut(s);
	CHECK(d->reflector && d->greeting);
	CHECK(!d->seen_reflector);
	CHECK(strstr(d->ulp_note, "declares reflector = yes") != NULL);
	nf_session_close(s);
	/* Declared and seen alike: nothing to say. */
	s = open_serve("netfuzz_declared_ulp_wins_over_calibration", "--markers", "ulp=reflector;markers=yes", &e);
	if (!s)
		return;
	d = nf_session_dut(s);
	CHECK(d->reflector && d->greeting && d->seen_greeting);
	CHECK_EQ(d->ulp_note[0], '\0');
	nf_session_close(s);
}

/* A requirement ID in a detail: the finding's own, or none (the ID is the rule the detail names). */
static bool names_only(const char *detail, const char *req)
{
	static const char *const pre[] = {"MPA-", "DDP-", "RDMAP-", "RFC50", "RFC65", "TR-"};
	for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
		for (const char *h = strstr(detail, pre[i]); h; h = strstr(h + 1, pre[i]))
			if (strncmp(h, req, strlen(req)))
				return false;
	return true;
}

/* Every finding of the built-in DUT's Terminate and CRC mutants names in its detail no row but
 * its own, and a Terminate with another error than the model's rests on the row of the model's
 * error: the CRC not checked is MPA-5.2-14, not the Terminate's layout (RFC5040-4.8-01). */
TEST(netfuzz_finding_detail_names_its_own_requirement)
{
	static const char *const mutants[] = {"crc-unchecked", "term-wrong-code", "interop-codes", "deliver-after-error"};
	bool crc_seen = false;
	nf_prog *p = malloc(sizeof *p);
	for (size_t m = 0; p && m < sizeof mutants / sizeof mutants[0]; m++) {
		nf_opts o;
		memset(&o, 0, sizeof o);
		iw_dut_config_default(&o.dut);
		iw_err e;
		CHECK_EQ(iw_dut_config_set(&o.dut, "mutant", mutants[m], &e), IW_OK);
		o.seed = 1;
		o.timeout_ms = 1000;
		nf_session *s = NULL;
		if (nf_session_open(&s, &o, &e) != IW_OK) {
			check_fail(__FILE__, __LINE__, "%s: %s", mutants[m], e.msg);
			continue;
		}
		for (uint64_t run = 0; run < 1500; run++) {
			nf_finding f;
			nf_generate(p, nf_session_dut(s), 1, run);
			if (nf_run(s, p, &f, &e) != IW_OK)
				break;
			if (f.kind == NF_F_NONE)
				continue;
			if (!names_only(f.detail, f.req))
				check_fail(__FILE__, __LINE__, "%s run %llu: %s [%s] names another row: %s", mutants[m],
					   (unsigned long long)run, nf_fkind_name(f.kind), f.req, f.detail);
			if (f.kind == NF_F_TERMINATE && strstr(f.detail, "(MPA CRC error)") &&
			    strstr(f.detail, "conforming DUT reports LLP/0x0/0x02")) {
				crc_seen = true;
				CHECK_STR(f.req, "MPA-5.2-14");
			}
		}
		nf_session_close(s);
	}
	CHECK(crc_seen); /* crc-unchecked's Terminate finding (seed 1 shows it in its first 200 runs) */
	free(p);
}

/* Fuzzing that judged no run is exit 3: `--time 5s` used to make 0 runs (calibration ended just
 * inside it) and exit 0, as if the DUT had passed. */
TEST(netfuzz_no_run_judged_is_exit_3)
{
	nf_opts o;
	memset(&o, 0, sizeof o);
	iw_dut_config_default(&o.dut);
	o.seed = 1;
	o.max_findings = 10;
	o.progress_out = tmpfile();
	iw_err e;
	nf_session *s = NULL;
	CHECK_EQ(nf_session_open(&s, &o, &e), IW_OK);
	if (!s || !o.progress_out) {
		if (o.progress_out)
			fclose(o.progress_out);
		nf_session_close(s);
		return;
	}
	/* The time is up before the first run: the loop starts none. */
	int64_t t0 = iw_net_now_ms() - 1000;
	o.deadline_ms = iw_net_now_ms();
	nf_session_set_deadline(s, o.deadline_ms);
	CHECK_EQ(fz_loop(&o, s, 0, t0, NULL), IW_EXIT_ERROR);
	CHECK_EQ(nf_session_stats(s)->runs, 0);
	nf_session_close(s);
	/* With runs to judge, a clean DUT is exit 0. */
	o.deadline_ms = 0;
	o.runs = 20;
	s = NULL;
	CHECK_EQ(nf_session_open(&s, &o, &e), IW_OK);
	if (s) {
		CHECK_EQ(fz_loop(&o, s, 0, iw_net_now_ms(), NULL), IW_EXIT_OK);
		nf_session_close(s);
	}
	fclose(o.progress_out);
}
