/*
 * netfuzz_out.c - a network fuzzer finding on disk:
 *   <dir>/finding-<n>/case.iwt      a case `iwspec run --cases FILE` replays (id
 *                                   fuzz.finding.<seed>.<n>): the recorded run step for step,
 *                                   then what a conforming DUT does (netfuzz_case.c)
 *   <dir>/finding-<n>/seed.txt      seed, run index, finding, whether the case reproduces it,
 *                                   how to reproduce it (a program kernel-coverage feedback
 *                                   mutated from a kept one: which, how, and its actions)
 *   <dir>/finding-<n>/capture.pcap  the conversation (reports/pcap_write.h)
 *
 * Every case is checked before the finding is reported: replayed with `iwspec run`'s executor
 * against the DUT of the finding it must end with the finding's verdict and requirement, and
 * against a clean built-in DUT it must PASS. A case that does not is still written (it is the
 * best the language says of the run), and seed.txt and the console say what its replay did.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "interrupt.h"
#include "netfuzz_int.h"
#include "pcap_write.h"
#include "req_level.h"
#include "result.h"

static int write_pcap(nf_session *ss, const char *path, iw_err *e)
{
	const nf_trace *t = nf_session_trace(ss);
	const nf_dutinfo *d = nf_session_dut(ss);
	iw_pcap_writer *w = iw_pcap_writer_new(IW_PCAP_LINK_ETHERNET, e);
	if (!w)
		return -1;
	iw_pcap_tcp_params prm;
	iw_pcap_tcp_params_default(&prm);
	iw_pcap_tcp *c = iw_pcap_tcp_open(w, &prm, e);
	if (!c) {
		iw_pcap_writer_free(w);
		return -1;
	}
	/* The client is the side that connected: the harness for a responder DUT. */
	enum iw_pcap_dir harness = d->role == IW_ROLE_RESPONDER ? IW_PCAP_C2S : IW_PCAP_S2C;
	enum iw_pcap_dir dut = harness == IW_PCAP_C2S ? IW_PCAP_S2C : IW_PCAP_C2S;
	int rc = 0;
	for (size_t i = 0; i < t->nchunks && rc == 0; i++) {
		const nf_chunk *k = &t->chunks[i];
		rc = k->dir == 0 ? iw_pcap_tcp_data(c, harness, t->to_dut + k->off, k->len, e)
				 : iw_pcap_tcp_data(c, dut, t->from_dut + k->off, k->len, e);
	}
	if (rc == 0) {
		if (t->we_rst)
			rc = iw_pcap_tcp_rst(c, harness, e);
		else if (t->we_fin)
			rc = iw_pcap_tcp_fin(c, harness, e);
	}
	if (rc == 0 && !t->we_rst) {
		if (t->dut_rst)
			rc = iw_pcap_tcp_rst(c, dut, e);
		else if (t->dut_fin)
			rc = iw_pcap_tcp_fin(c, dut, e);
	}
	if (rc) {
		iw_pcap_writer_free(w);
		return -1;
	}
	return iw_pcap_writer_commit(w, path, e);
}

/* seed.txt: what was found, in which run of which seed, and how to reproduce it (sub: "finding"
 * or "unconfirmed"; with_case: a case.iwt was written beside it). */
static int write_seed(const char *dir, const char *sub, unsigned n, const nf_prog *p, const nf_finding *f,
		      const char *status, bool with_case, iw_err *e)
{
	nf_sb s = {0};
	unsigned long long seed = p->seed, run = p->run;
	nf_sb_printf(&s, "seed: %llu\nrun: %llu\nkind: %s\nrequirement: %s\ndetail: %s\nactions: %zu\n%s\n", seed, run,
		     nf_fkind_name(f->kind), f->req, f->detail, p->n, status);
	if (p->origin.from) {
		/* Not run R's own program: --first-run R would generate another one. */
		nf_sb_printf(&s, "origin: a mutation of kept program (corpus entry) %llu", (unsigned long long)p->origin.from);
		if (p->origin.with)
			nf_sb_printf(&s, " spliced with entry %llu", (unsigned long long)p->origin.with);
		nf_sb_printf(&s, ": %s\n        (kernel-coverage feedback made it for run %llu: --first-run %llu alone gives "
			     "a fresh program, not this one)\n", p->origin.how, run, run);
		if (with_case)
			nf_sb_printf(&s, "reproduce: iwspec run --cases %s/%s-%u/case.iwt --dut ... (the minimised case)\n",
				     dir, sub, n);
		else
			nf_sb_printf(&s, "reproduce: the same seed with the same --corpus and the same feedback; the program:\n");
		for (size_t i = 0; i < p->n; i++) {
			char line[400];
			nf_action_describe(p, &p->a[i], line, sizeof line);
			nf_sb_printf(&s, "  %zu. %s\n", i + 1, line);
		}
	} else if (with_case) {
		nf_sb_printf(&s, "reproduce: iwspec fuzz --seed %llu --runs %llu ... (the same DUT options); the minimised\n"
			     "           case: iwspec run --cases %s/%s-%u/case.iwt --dut ...\n", seed, run + 1, dir, sub, n);
	} else {
		nf_sb_printf(&s, "reproduce: iwspec fuzz --seed %llu --first-run %llu --runs 1 ... (the same DUT options)\n",
			     seed, run);
	}
	char path[1200];
	snprintf(path, sizeof path, "%s/%s-%u/seed.txt", dir, sub, n);
	int rc = s.oom ? iw_errf(e, IW_ENOSPC, "out of memory writing %s", path) : iw_write_atomic(path, s.b, s.len, e);
	free(s.b);
	return rc ? IW_EINVAL : IW_OK;
}

/* The verdict a case citing req gives when the DUT breaks it: the catalog's level decides. */
static enum iw_verdict verdict_for(const char *req)
{
	enum iw_level lvl = IW_LEVEL_MUST;
	(void)iw_req_level(req, &lvl, NULL);
	return lvl == IW_LEVEL_MUST ? IW_FAIL : lvl == IW_LEVEL_SHOULD ? IW_WARN : IW_INFO;
}

/* The time a replay against the DUT of the finding may take: the case's `timeout: 30s`, or the
 * DUT's longer case timeout, and a second to start. */
static int64_t replay_bound(const nf_session *ss)
{
	int64_t t = ss->o.dut.case_timeout_ms > 30000 ? ss->o.dut.case_timeout_ms : 30000;
	return t + 1000;
}

static void replay_words(const nf_replay *r, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s%s%s: %.450s", iw_verdict_name(r->verdict), *r->failed_req ? " [" : "", r->failed_req,
		 *r->failed_req ? "]" : "", *r->reason ? r->reason : "all it expects happened");
}

/* Writes the case and checks it (see the top of the file). The stimulus is the run's in every
 * form of the case; the forms differ only in which of the reactions the judge allows they list
 * (a one-of holds six): the first a clean built-in DUT passes is written. Then the replay
 * against the DUT of the finding, with an allowance of its own as recording the run had: a
 * finding seen is checked however little of --time is left; only a signal cuts it. */
static int write_checked_case(nf_session *ss, const char *path, const nf_prog *p, const nf_finding *f, unsigned n,
			      nf_case_check *c, iw_err *e)
{
	memset(c, 0, sizeof *c);
	const char *req = nf_case_req(f->req);
	enum iw_verdict want = verdict_for(req);
	char *text = NULL;
	nf_replay clean, dut;
	memset(&clean, 0, sizeof clean);
	clean.verdict = IW_ERROR;
	bool clean_made = false;
	iw_err re;
	unsigned nforms = 1;
	for (unsigned form = 0; form < nforms; form++) {
		char *t = NULL;
		int rc = nf_case_text(ss, p, f, n, form, &nforms, &t, e);
		if (rc) {
			free(text);
			return rc;
		}
		nf_replay r;
		bool made = nf_session_replay(ss, t, true, &r, &re) == IW_OK;
		if (!made)
			snprintf(c->why, sizeof c->why, "its replay against the built-in DUT was not made: %.600s", re.msg);
		if (!text || (made && r.verdict == IW_PASS)) {
			free(text);
			text = t;
			clean = r;
			clean_made = made;
		} else {
			free(t);
		}
		if (!made || r.verdict == IW_PASS || iw_interrupted())
			break;
	}
	if (iw_write_atomic(path, text, strlen(text), e)) {
		free(text);
		return IW_EINVAL;
	}
	if (!clean_made) {
		free(text);
		return IW_OK;
	}
	int64_t was = nf_session_allow(ss, replay_bound(ss));
	int rc = nf_session_replay(ss, text, false, &dut, &re);
	nf_session_set_deadline(ss, was);
	free(text);
	if (rc) {
		snprintf(c->why, sizeof c->why, "its replay against the DUT of the finding was not made: %.600s", re.msg);
		return IW_OK;
	}
	c->checked = true;
	snprintf(c->verdict, sizeof c->verdict, "%s", iw_verdict_name(dut.verdict));
	snprintf(c->failed_req, sizeof c->failed_req, "%s", dut.failed_req);
	c->reproduces = dut.verdict == (int)want && !strcmp(dut.failed_req, req);
	c->clean_passes = clean.verdict == IW_PASS;
	char words[560];
	if (!c->reproduces) {
		replay_words(&dut, words, sizeof words);
		snprintf(c->why, sizeof c->why, "replayed against the DUT of the finding it gives %s, where the finding is %s "
			 "[%s]", words, iw_verdict_name(want), req);
	} else if (!c->clean_passes) {
		replay_words(&clean, words, sizeof words);
		snprintf(c->why, sizeof c->why, "replayed against a clean built-in DUT it gives %s, not PASS", words);
	}
	return IW_OK;
}

/* The case, seed.txt and the capture of the run just recorded. */
static int write_case(nf_session *ss, const char *dir, unsigned n, const nf_prog *p, const nf_finding *f,
		      nf_case_check *chk, iw_err *e)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/finding-%u/case.iwt", dir, n);
	int rc = write_checked_case(ss, path, p, f, n, chk, e);
	if (rc)
		return rc;
	char status[sizeof chk->why + 200];
	if (!chk->checked)
		snprintf(status, sizeof status, "case: not checked: %s", chk->why);
	else if (!chk->reproduces)
		snprintf(status, sizeof status, "case: the case does not reproduce the finding: %s", chk->why);
	else if (!chk->clean_passes)
		snprintf(status, sizeof status, "case: reproduces the finding (%s [%s] against the DUT of the finding), but %s",
			 chk->verdict, chk->failed_req, chk->why);
	else
		snprintf(status, sizeof status, "case: reproduces the finding: %s [%s] against the DUT of the finding, PASS "
			 "against the built-in DUT", chk->verdict, chk->failed_req);
	if (write_seed(dir, "finding", n, p, f, status, true, e))
		return IW_EINVAL;
	snprintf(path, sizeof path, "%s/finding-%u/capture.pcap", dir, n);
	if (write_pcap(ss, path, e))
		return IW_EINVAL;
	return IW_OK;
}

int nf_write_unconfirmed(const char *dir, unsigned n, const nf_prog *p, const nf_finding *f, const char *why,
			 iw_err *e)
{
	char status[400];
	snprintf(status, sizeof status, "confirmed: no: %s", why);
	return write_seed(dir, "unconfirmed", n, p, f, status, false, e);
}

int nf_write_finding(nf_session *ss, const char *dir, unsigned n, const nf_prog *p, const nf_finding *f,
		     nf_case_check *chk, iw_err *e)
{
	nf_case_check scratch;
	if (!chk)
		chk = &scratch;
	memset(chk, 0, sizeof *chk);
	/* Once more, recorded, for the capture and the expected reaction. A finding is written
	 * however little of the session's time is left: the run has an allowance of its own. */
	nf_finding again;
	int64_t was = nf_session_allow(ss, nf_session_run_bound(ss));
	nf_session_record(ss, true);
	nf_session_confirming(ss, true); /* a crash is seen (and the DUT restarted) at once */
	int rc = nf_run(ss, p, &again, e);
	nf_session_confirming(ss, false);
	nf_session_record(ss, false);
	bool cut = rc == IW_OK && nf_session_expired(ss);
	nf_session_set_deadline(ss, was);
	if (rc == IW_OK && !cut)
		return write_case(ss, dir, n, p, f, chk, e);
	/* Not recorded: what was found is still written, with how to reproduce it. */
	char why[sizeof e->msg + 40];
	snprintf(why, sizeof why, "%s", cut ? "the run that records it was cut (a signal came, or the DUT outlasted "
		 "its allowance)" : e->msg);
	snprintf(chk->why, sizeof chk->why, "no case was written: %.600s", why);
	char status[sizeof why + 40];
	snprintf(status, sizeof status, "case: not written: %s", why);
	iw_err we;
	if (write_seed(dir, "finding", n, p, f, status, false, &we))
		return iw_errf(e, IW_EINVAL, "%s", we.msg);
	return iw_errf(e, IW_ETRUNC, "no case: %s; %s/finding-%u/seed.txt says how to reproduce it", why, dir, n);
}
