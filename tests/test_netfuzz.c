/*
 * test_netfuzz.c - the network fuzzer (fuzz/network/netfuzz*.c): deterministic programs, ddmin,
 * no finding against the clean built-in DUT, and a mutant found, minimised and written as a
 * case that parses. The replays (FAIL against the mutant, PASS against the clean DUT) are in
 * tests/cli/netfuzz.sh, which runs `iwspec run` on the written cases.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case.h"
#include "check.h"
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
	CHECK(nf_confirm(s, p, &f, 3, &g, &e));
	CHECK_EQ(nf_minimize(s, p, &g, 200, m, &fin, &e), IW_OK);
	CHECK_EQ(fin.kind, NF_F_FRAME);
	CHECK(m->n <= p->n);
	CHECK_EQ(m->n, 1); /* the startup frame alone shows it */
	char dir[] = "/tmp/iwspec-netfuzz-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	CHECK_EQ(nf_write_finding(s, dir, 1, m, &fin, &e), IW_OK);
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
	CHECK_EQ(nf_write_finding(s, dir, 2, m, &fin, &e), IW_OK);
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
