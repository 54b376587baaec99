/*
 * test_netfuzz.c - the network fuzzer (fuzz/network/netfuzz*.c): deterministic programs, ddmin,
 * no finding against the clean built-in DUT, a mutant found, minimised and written as a case
 * that parses and replays as the finding (its requirement, FAIL against the mutant, PASS against
 * the clean DUT), also when --time ran out before it was confirmed; a case that does what its
 * run did (the FIN right after the octets, no wait the run did not make); and the runs a crash
 * is blamed on. tests/cli/netfuzz.sh replays the written cases of several mutants and seeds with
 * `iwspec run` (`finding replays`).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case.h"
#include "check.h"
#include "exec_fixture.h"
#include "cmd_fuzz.h"
#include "net.h"
#include "netfuzz.h"

static nf_dutinfo ref_info(void)
{
	nf_dutinfo d;
	memset(&d, 0, sizeof d);
	d.profile = iw_profile_default();
	d.role = IW_ROLE_RESPONDER;
	d.crc = true;
	d.reflector = true;
	d.greeting = true;
	d.rev = d.profile->mpa_rev;
	return d;
}

TEST(netfuzz_same_seed_same_programs)
{
	nf_dutinfo d = ref_info();
	nf_prog *a = malloc(sizeof *a), *b = malloc(sizeof *b);
	CHECK(a && b);
	if (!a || !b) {
		free(a);
		free(b);
		return;
	}
	uint64_t h1 = 0, h2 = 0, h3 = 0;
	size_t kinds[8] = {0};
	for (uint64_t run = 0; run < 2000; run++) {
		nf_generate(a, &d, 42, run);
		nf_generate(b, &d, 42, run);
		CHECK_EQ(nf_prog_hash(a), nf_prog_hash(b));
		h1 = h1 * 31 + nf_prog_hash(a);
		for (size_t i = 0; i < a->n; i++)
			kinds[a->a[i].kind]++;
	}
	for (uint64_t run = 0; run < 2000; run++) {
		nf_generate(a, &d, 42, run);
		h2 = h2 * 31 + nf_prog_hash(a);
		nf_generate(b, &d, 43, run);
		h3 = h3 * 31 + nf_prog_hash(b);
	}
	CHECK_EQ(h1, h2);
	CHECK(h1 != h3); /* another seed, other programs */
	/* The generator uses every kind of action. */
	CHECK(kinds[NF_A_FRAME] > 1500);
	CHECK(kinds[NF_A_FPDU] > 2000);
	CHECK(kinds[NF_A_RAW] > 100);
	CHECK(kinds[NF_A_SPLIT] > 10);
	CHECK(kinds[NF_A_SLEEP] > 0);
	CHECK(kinds[NF_A_RESET] > 0);
	free(a);
	free(b);
}

typedef struct ddctx {
	unsigned calls;
} ddctx;

/* Fails when units 3 and 7 are both kept. */
static bool needs_3_and_7(const bool *keep, void *ctx)
{
	((ddctx *)ctx)->calls++;
	return keep[3] && keep[7];
}

TEST(netfuzz_ddmin_finds_the_minimal_subset)
{
	bool keep[20];
	for (int i = 0; i < 20; i++)
		keep[i] = true;
	ddctx c = {0};
	unsigned tests = nf_ddmin(keep, 20, needs_3_and_7, &c, 1000);
	CHECK_EQ(tests, c.calls);
	for (int i = 0; i < 20; i++)
		CHECK_EQ(keep[i], i == 3 || i == 7);
	CHECK(tests < 100);
}

TEST(netfuzz_prog_keep_compacts_octets)
{
	nf_dutinfo d = ref_info();
	nf_prog *p = malloc(sizeof *p), *q = malloc(sizeof *q);
	CHECK(p && q);
	if (!p || !q) {
		free(p);
		free(q);
		return;
	}
	/* A program with explicit octets in two actions. */
	uint64_t run = 0;
	size_t a1 = 0, a2 = 0;
	for (; run < 5000; run++) {
		nf_generate(p, &d, 9, run);
		size_t n = 0;
		for (size_t i = 0; i < p->n; i++)
			if (p->a[i].kind == NF_A_RAW && p->a[i].len > 4)
				(n++ ? (a2 = i) : (a1 = i));
		if (n >= 2)
			break;
	}
	CHECK(run < 5000);
	bool keep[NF_MAX_ACTIONS] = {false};
	keep[a2] = true;
	nf_prog_keep(q, p, keep);
	CHECK_EQ(q->n, 1);
	CHECK_EQ(q->pool_len, p->a[a2].len);
	CHECK_MEM(q->pool, p->pool + p->a[a2].off, p->a[a2].len);
	/* Octets: keep the first and the last of action a1. */
	bool ko[NF_POOL] = {false};
	ko[0] = ko[p->a[a1].len - 1] = true;
	nf_prog_keep_octets(q, p, a1, ko);
	CHECK_EQ(q->a[a1].len, 2);
	CHECK_EQ(nf_act_octet(q, &q->a[a1], 0), p->pool[p->a[a1].off]);
	CHECK_EQ(nf_act_octet(q, &q->a[a1], 1), p->pool[p->a[a1].off + p->a[a1].len - 1]);
	CHECK_EQ(q->a[a2].len, p->a[a2].len);
	CHECK_MEM(q->pool + q->a[a2].off, p->pool + p->a[a2].off, p->a[a2].len);
	free(p);
	free(q);
}

static nf_session *open_ref(const char *mutant, iw_err *e)
{
	nf_opts o;
	memset(&o, 0, sizeof o);
	iw_dut_config_default(&o.dut);
	if (mutant && iw_dut_config_set(&o.dut, "mutant", mutant, e))
		return NULL;
	o.seed = 1;
	o.timeout_ms = 1000; /* generous: sanitizer builds and a busy machine */
	nf_session *s = NULL;
	if (nf_session_open(&s, &o, e) != IW_OK)
		return NULL;
	return s;
}

TEST(netfuzz_clean_ref_dut_has_no_finding)
{
	iw_err e;
	nf_session *s = open_ref(NULL, &e);
	CHECK(s != NULL);
	if (!s)
		return;
	const nf_dutinfo *d = nf_session_dut(s);
	CHECK(d->reflector);
	CHECK(d->greeting);
	CHECK(!d->markers);
	nf_prog *p = malloc(sizeof *p);
	unsigned found = 0;
	for (uint64_t run = 0; p && run < 1500; run++) {
		nf_finding f;
		nf_generate(p, d, 5, run);
		CHECK_EQ(nf_run(s, p, &f, &e), IW_OK);
		if (f.kind != NF_F_NONE && found++ < 3)
			check_fail(__FILE__, __LINE__, "run %llu: %s [%s] %s", (unsigned long long)run,
				   nf_fkind_name(f.kind), f.req, f.detail);
	}
	CHECK_EQ(found, 0);
	unsigned have, total;
	nf_cov_counts(&nf_session_stats(s)->cov, &have, &total);
	CHECK(have >= total / 2);
	free(p);
	nf_session_close(s);
}

TEST(netfuzz_mutant_is_found_minimised_and_written)
{
	iw_err e;
	nf_session *s = open_ref("reply-res-set", &e);
	CHECK(s != NULL);
	if (!s)
		return;
	nf_prog *p = malloc(sizeof *p), *m = malloc(sizeof *m);
	nf_finding f, g, fin;
	memset(&f, 0, sizeof f);
	uint64_t run;
	for (run = 0; p && m && run < 50; run++) {
		nf_generate(p, nf_session_dut(s), 1, run);
		CHECK_EQ(nf_run(s, p, &f, &e), IW_OK);
		if (f.kind != NF_F_NONE)
			break;
	}
	CHECK_EQ(f.kind, NF_F_FRAME);
	CHECK_STR(f.req, "MPA-6.1.1-05");
	if (f.kind == NF_F_NONE || !p || !m) {
		free(p);
		free(m);
		nf_session_close(s);
		return;
	}
	CHECK_EQ(nf_confirm(s, p, &f, 3, &g, &e), NF_CONFIRMED);
	CHECK_EQ(nf_minimize(s, p, &g, 200, m, &fin, &e), IW_OK);
	CHECK_EQ(fin.kind, NF_F_FRAME);
	CHECK(m->n <= p->n);
	CHECK_EQ(m->n, 1); /* the startup frame alone shows it */
	char dir[] = "/tmp/iwspec-netfuzz-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	nf_case_check chk;
	CHECK_EQ(nf_write_finding(s, dir, 1, m, &fin, &chk, &e), IW_OK);
	/* Its case, replayed, fails on the finding's requirement, and passes on a clean DUT. */
	CHECK(chk.checked);
	CHECK(chk.reproduces);
	CHECK(chk.clean_passes);
	CHECK_STR(chk.failed_req, "MPA-6.1.1-05");
	char path[256];
	snprintf(path, sizeof path, "%s/finding-1/case.iwt", dir);
	iw_case *c = NULL;
	CHECK_EQ(iw_case_load(path, &c, &e), IW_OK);
	if (c) {
		CHECK(!strncmp(c->id, "fuzz.finding.1.", 15));
		CHECK_STR(c->reqs[0].id, "MPA-6.1.1-05");
		CHECK_EQ(c->reqs[0].level, IW_LEVEL_MUST); /* the catalog's "must(lc)" */
		CHECK(c->nsteps >= 3);
		CHECK_EQ(c->steps[0].kind, IW_STEP_CONNECT);
		iw_case_free(c);
	}
	/* A finding on a SHOULD row is written at the catalog's level, not as a MUST. */
	snprintf(fin.req, sizeof fin.req, "MPA-3.1.1-01");
	CHECK_EQ(nf_write_finding(s, dir, 2, m, &fin, NULL, &e), IW_OK);
	snprintf(path, sizeof path, "%s/finding-2/case.iwt", dir);
	c = NULL;
	CHECK_EQ(iw_case_load(path, &c, &e), IW_OK);
	if (c) {
		CHECK_STR(c->reqs[0].id, "MPA-3.1.1-01");
		CHECK_EQ(c->reqs[0].level, IW_LEVEL_SHOULD);
		iw_case_free(c);
	}
	snprintf(path, sizeof path, "%s/finding-1/capture.pcap", dir);
	CHECK(access(path, R_OK) == 0);
	snprintf(path, sizeof path, "%s/finding-1/seed.txt", dir);
	CHECK(access(path, R_OK) == 0);
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK_EQ(system(cmd), 0);
	free(p);
	free(m);
	nf_session_close(s);
}

/* A program of hand-made actions: the harness's conforming startup frame first. */
static void prog_frame(nf_prog *p)
{
	memset(p, 0, sizeof *p);
	p->seed = 9;
	p->n = 1;
	nf_frame *fr = &p->a[0].fr;
	p->a[0].kind = NF_A_FRAME;
	fr->key_octet = fr->key_xor = -1;
	fr->m = fr->c = fr->r = fr->res = fr->enhanced = fr->rev = fr->pd_length = fr->irdord = fr->ird = fr->ord = -1;
}

/* Appends a conforming message: a Send of `len` octets, or a Write of them to the STag the DUT's
 * greeting advertises. */
static void prog_msg(nf_prog *p, bool write, uint32_t len)
{
	const iw_profile *pr = iw_profile_default();
	nf_action *a = &p->a[p->n++];
	a->kind = NF_A_FPDU;
	nf_fpdu *x = &a->fp;
	x->msg = write ? NF_M_WRITE : NF_M_SEND;
	x->opcode = write ? IW_OP_WRITE : IW_OP_SEND;
	x->tagged = write;
	x->stag_adv = write;
	x->last = true;
	x->dv = pr->ddp_version;
	x->rv = pr->rdmap_version;
	x->msn = write ? 0 : 1;
	a->off = (uint32_t)p->pool_len;
	a->len = len;
	for (uint32_t i = 0; i < len; i++)
		p->pool[p->pool_len++] = (uint8_t)('a' + i % 26);
}

/* The steps of the case written for the last recorded run of p (its kinds, in order, into k). */
static size_t case_steps(nf_session *s, const nf_prog *p, enum iw_step_kind *k, size_t cap, char **text)
{
	nf_finding f;
	memset(&f, 0, sizeof f);
	f.kind = NF_F_FRAME;
	snprintf(f.req, sizeof f.req, "MPA-6.1-R2a");
	snprintf(f.detail, sizeof f.detail, "a test");
	iw_err e;
	nf_finding got;
	nf_session_record(s, true);
	CHECK_EQ(nf_run(s, p, &got, &e), IW_OK);
	nf_session_record(s, false);
	CHECK_EQ(got.kind, NF_F_NONE); /* the clean DUT: the program is one a conforming DUT copes with */
	*text = NULL;
	CHECK_EQ(nf_case_text(s, p, &f, 1, 0, NULL, text, &e), IW_OK);
	iw_case *c = NULL;
	CHECK_EQ(iw_case_parse(*text ? *text : "", *text ? strlen(*text) : 0, "finding.iwt", &c, &e), IW_OK);
	if (!c)
		return 0;
	CHECK(c->coalesce); /* written together where the run wrote them together */
	size_t n = 0;
	for (size_t i = 0; i < c->nsteps && n < cap; i++)
		k[n++] = c->steps[i].kind;
	iw_case_free(c);
	return n;
}

/* Issue 25 item 11: a Request followed at once by the FIN was written as a case that first waited
 * for the Reply (`send request`, `expect reply`, `close`), so its replay did not do what the run
 * did. The case sends what the run sent, then the FIN, and only then expects the Reply. */
TEST(netfuzz_case_sends_the_fin_where_the_run_did)
{
	iw_err e;
	nf_session *s = open_ref(NULL, &e);
	CHECK(s != NULL);
	nf_prog *p = malloc(sizeof *p);
	if (!s || !p) {
		free(p);
		nf_session_close(s);
		return;
	}
	enum iw_step_kind k[32];
	char *text = NULL;
	/* A Request, then the FIN. */
	prog_frame(p);
	size_t n = case_steps(s, p, k, 32, &text);
	CHECK_EQ(n, 5);
	if (n == 5) {
		CHECK_EQ(k[0], IW_STEP_CONNECT);
		CHECK_EQ(k[1], IW_STEP_SEND_REQUEST);
		CHECK_EQ(k[2], IW_STEP_CLOSE);
		CHECK_EQ(k[3], IW_EXPECT_REPLY);
		CHECK_EQ(k[4], IW_EXPECT_CLOSE);
	}
	const char *req = text ? strstr(text, "\nsend request") : NULL, *fin = text ? strstr(text, "\nclose\n") : NULL;
	const char *reply = text ? strstr(text, "\nexpect reply") : NULL;
	CHECK(req && fin && reply && req < fin && fin < reply);
	free(text);
	/* A Request and a Send at once, then the FIN: nothing expected before the FIN either. */
	prog_msg(p, false, 40);
	n = case_steps(s, p, k, 32, &text);
	CHECK(n >= 6);
	if (n >= 6) {
		CHECK_EQ(k[1], IW_STEP_SEND_REQUEST);
		CHECK_EQ(k[2], IW_STEP_SEND_RAW);
		CHECK_EQ(k[3], IW_STEP_CLOSE);
		CHECK_EQ(k[4], IW_EXPECT_REPLY);
		CHECK_EQ(k[n - 1] == IW_EXPECT_CLOSE || k[n - 1] == IW_EXPECT_ONE_OF, true);
	}
	free(text);
	/* Ended with an RST instead: the RST right after the octets, and nothing expected after it. */
	p->a[p->n++].kind = NF_A_RESET;
	n = case_steps(s, p, k, 32, &text);
	CHECK_EQ(n, 4);
	if (n == 4)
		CHECK_EQ(k[3], IW_STEP_RESET);
	free(text);
	/* The one wait a run makes: for the greeting whose STag a Write needs. There, and only there,
	 * the case waits too (for the Reply and the greeting), then goes on without waiting. */
	prog_frame(p);
	prog_msg(p, false, 8);
	prog_msg(p, true, 8);
	n = case_steps(s, p, k, 32, &text);
	CHECK(n >= 9);
	if (n >= 9) {
		CHECK_EQ(k[1], IW_STEP_SEND_REQUEST);
		CHECK_EQ(k[2], IW_STEP_SEND_RAW);
		CHECK_EQ(k[3], IW_EXPECT_REPLY);
		CHECK_EQ(k[4], IW_EXPECT_FPDU); /* expect greeting */
		CHECK_EQ(k[5], IW_STEP_SEND_FPDU); /* send write, to the STag the greeting advertised */
		CHECK_EQ(k[6], IW_STEP_CLOSE);
		CHECK_EQ(k[7], IW_EXPECT_FPDU); /* the echo of the Send */
	}
	free(text);
	free(p);
	nf_session_close(s);
}

TEST(netfuzz_hang_is_a_finding)
{
	iw_err e;
	nf_opts o;
	memset(&o, 0, sizeof o);
	iw_dut_config_default(&o.dut);
	CHECK_EQ(iw_dut_config_set(&o.dut, "mutant", "hang-partial-header", &e), IW_OK);
	o.timeout_ms = 150;
	nf_session *s = NULL;
	CHECK_EQ(nf_session_open(&s, &o, &e), IW_OK);
	if (!s)
		return;
	/* A valid Request, then the first octets of an FPDU header and nothing more. */
	nf_prog *p = calloc(1, sizeof *p);
	if (!p) {
		nf_session_close(s);
		return;
	}
	p->n = 2;
	nf_frame *fr = &p->a[0].fr;
	p->a[0].kind = NF_A_FRAME;
	fr->key_octet = fr->key_xor = -1;
	fr->m = fr->c = fr->r = fr->res = fr->enhanced = fr->rev = fr->pd_length = fr->irdord = fr->ird = fr->ord = -1;
	p->a[1].kind = NF_A_RAW;
	p->a[1].len = 3;
	p->pool[0] = 0x00, p->pool[1] = 0x20, p->pool[2] = 0x41;
	p->pool_len = 3;
	nf_finding f;
	CHECK_EQ(nf_run(s, p, &f, &e), IW_OK);
	CHECK_EQ(f.kind, NF_F_HANG);
	CHECK(f.timing);
	nf_session_close(s);

	/* The clean DUT waits for the rest of the header, then closes on the FIN. */
	s = open_ref(NULL, &e);
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ(nf_run(s, p, &f, &e), IW_OK);
		CHECK_EQ(f.kind, NF_F_NONE);
		nf_session_close(s);
	}
	free(p);
}

/* Confirms, minimises and writes the finding f of program p the way the fuzzing loop does, in a
 * session whose --time is already spent: then checks what was written. */
static void handle_spent(nf_session *s, const nf_prog *p, const nf_finding *f, const char *kind, size_t max_actions)
{
	nf_prog *m = malloc(sizeof *m);
	CHECK(m != NULL);
	if (!m)
		return;
	iw_err e;
	nf_finding g, fin;
	/* The time ran out a moment ago, after the run that showed it and before its handling. */
	nf_session_set_deadline(s, iw_net_now_ms() - 1);
	CHECK(nf_session_expired(s));
	CHECK_EQ(nf_confirm(s, p, f, 3, &g, &e), NF_CONFIRMED);
	CHECK_STR(nf_fkind_name(g.kind), kind);
	CHECK_EQ(nf_minimize(s, p, &g, 400, m, &fin, &e), IW_OK);
	CHECK_STR(nf_fkind_name(fin.kind), kind);
	CHECK(m->n >= 1 && m->n <= max_actions);
	char dir[] = "/tmp/iwspec-netfuzz-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	nf_case_check chk;
	CHECK_EQ(nf_write_finding(s, dir, 1, m, &fin, &chk, &e), IW_OK);
	/* Its replay too is made after the time ran out, and does what the finding says. */
	CHECK(chk.checked);
	CHECK(chk.reproduces);
	char path[256];
	snprintf(path, sizeof path, "%s/finding-1/case.iwt", dir);
	iw_case *c = NULL;
	CHECK_EQ(iw_case_load(path, &c, &e), IW_OK);
	iw_case_free(c);
	snprintf(path, sizeof path, "%s/finding-1/capture.pcap", dir);
	CHECK(access(path, R_OK) == 0);
	snprintf(path, sizeof path, "%s/finding-1/seed.txt", dir);
	FILE *sf = fopen(path, "r");
	CHECK(sf != NULL);
	if (sf) {
		char text[2048];
		size_t n = fread(text, 1, sizeof text - 1, sf);
		text[n] = '\0';
		fclose(sf);
		char want[64];
		snprintf(want, sizeof want, "kind: %s\n", kind);
		CHECK(strstr(text, want) != NULL);
		CHECK(strstr(text, "case: ") != NULL);
		CHECK(strstr(text, "not written") == NULL);
	}
	/* Each step gave the session its deadline back: the fuzzing itself stays stopped. */
	CHECK(nf_session_expired(s));
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK_EQ(system(cmd), 0);
	free(m);
}

/* A finding seen just before --time ran out (on a loaded machine the whole of --time can go by
 * before the run that shows it is judged) is confirmed, minimised and written all the same:
 * it used to be dropped ("not confirmed, the time ran out first"), or confirmed and then not
 * written ("cannot write finding 1: the time ran out ... before it could be recorded"). */
TEST(netfuzz_finding_is_written_after_the_time_ran_out)
{
	iw_err e;
	nf_session *s = open_ref("reply-res-set", &e);
	CHECK(s != NULL);
	if (!s)
		return;
	nf_prog *p = malloc(sizeof *p);
	nf_finding f;
	memset(&f, 0, sizeof f);
	for (uint64_t run = 0; p && run < 50 && f.kind == NF_F_NONE; run++) {
		nf_generate(p, nf_session_dut(s), 1, run);
		CHECK_EQ(nf_run(s, p, &f, &e), IW_OK);
	}
	CHECK_EQ(f.kind, NF_F_FRAME);
	if (p && f.kind == NF_F_FRAME)
		handle_spent(s, p, &f, "frame", 1);
	free(p);
	nf_session_close(s);
}

/* The same for a process crash (tests/cli/netfuzz.sh's crash-short-ulpdu, whose case went
 * missing on a loaded machine): run 103 of seed 1 crashes the DUT, which is restarted for each
 * run of the confirmation and the minimisation after --time is spent. */
TEST(netfuzz_crash_is_written_after_the_time_ran_out)
{
	const char *bin = iwspec_binary();
	if (!bin) {
		printf("  netfuzz_crash_is_written_after_the_time_ran_out: skipped: no build/iwspec (nor $IWSPEC)\n");
		return;
	}
	nf_opts o;
	memset(&o, 0, sizeof o);
	iw_dut_config_default(&o.dut);
	snprintf(o.dut.dut, sizeof o.dut.dut, "exec:ulimit -c 0; exec %s serve --port {port} --quiet --mutant "
		 "crash-short-ulpdu", bin);
	o.seed = 1;
	iw_err e;
	nf_session *s = NULL;
	CHECK_EQ(nf_session_open(&s, &o, &e), IW_OK);
	if (!s) {
		check_fail(__FILE__, __LINE__, "%s", e.msg);
		return;
	}
	nf_prog *p = malloc(sizeof *p);
	nf_finding f;
	memset(&f, 0, sizeof f);
	uint64_t run;
	for (run = 95; p && run < 110; run++) {
		nf_generate(p, nf_session_dut(s), 1, run);
		CHECK_EQ(nf_run(s, p, &f, &e), IW_OK);
		if (f.kind == NF_F_CRASH)
			break;
	}
	/* Noticed by run 103 itself, or by the next one: a process that takes a moment to die (the
	 * sanitizer build) still accepts run 104's connection. */
	CHECK_EQ(f.kind, NF_F_CRASH);
	CHECK(run >= 103 && run <= 105);
	if (p && f.kind == NF_F_CRASH) {
		nf_generate(p, nf_session_dut(s), 1, 103);
		f.previous = false;
		handle_spent(s, p, &f, "crash", p->n);
	}
	free(p);
	nf_session_close(s);
}

/* A crash is noticed by whichever run meets the dead DUT first. With NF_SLOTS runs in flight
 * that can be a run before the one that took it down (run 101's liveness probe, while run 103,
 * sent after it, killed the DUT): the runs still in flight are suspects too. They used not to
 * be, and on a loaded machine the crash of run 103 went unreported (run 178, 297 or 488 were
 * found instead, or nothing before --time ran out). */
TEST(netfuzz_crash_suspects_include_the_runs_in_flight)
{
	uint64_t lo, hi;
	/* Seen by run 101's probe while runs 102 to 104 were in flight. */
	fz_suspects(101, false, 0, 104, &lo, &hi);
	CHECK_EQ(lo, 101 - NF_SLOTS);
	CHECK_EQ(hi, 104);
	/* Found down when run 104 began: it never reached that DUT, nor did later runs. */
	fz_suspects(104, true, 0, 107, &lo, &hi);
	CHECK_EQ(lo, 104 - NF_SLOTS);
	CHECK_EQ(hi, 103);
	/* Not before the first run of the session (--first-run). */
	fz_suspects(12, false, 10, 15, &lo, &hi);
	CHECK_EQ(lo, 10);
	CHECK_EQ(hi, 15);
	fz_suspects(10, true, 10, 13, &lo, &hi);
	CHECK_EQ(lo, 10);
	CHECK(hi <= 10);
}
