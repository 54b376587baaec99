/*
 * test_netfuzz_kcov.c - the network fuzzer steered by a guest kernel's coverage
 * (--kernel-coverage, netfuzz_kcov.c, netfuzz_corpus*.c, netfuzz_mutate.c) against the built-in
 * DUT and a fake guest agent: a thread on 127.0.0.1 that answers `coverage-arcs` as the guest's
 * agent does, with a bitmap that grows by one arc at the requests the test names (so the test
 * knows which runs reached something new), or answers `error`, closes, or says nothing.
 */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "cmd_fuzz.h"
#include "net.h"
#include "netfuzz.h"

enum fake_mode { FAKE_ARCS, FAKE_ERROR, FAKE_CLOSE, FAKE_SILENT };

typedef struct fake {
	int lfd;
	uint16_t port;
	enum fake_mode mode;
	uint64_t total;
	unsigned reward[8];         /* request i (0: the baseline) sets arc j + 1 when reward[j] <= i */
	size_t nreward;
	atomic_uint requests;
	atomic_bool stop;
	pthread_t th;
} fake;

static void answer(fake *f, int fd, unsigned req)
{
	char out[4096];
	size_t n = 0;
	if (f->mode == FAKE_ERROR) {
		n = (size_t)snprintf(out, sizeof out, "error siw.ko has no coverage counters\n");
	} else if (f->mode == FAKE_ARCS) {
		uint8_t bits[64] = {0};
		bits[0] = 1; /* the boot's arc */
		for (size_t j = 0; j < f->nreward; j++)
			if (f->reward[j] <= req)
				bits[(j + 1) / 8] |= (uint8_t)(1u << ((j + 1) % 8));
		size_t octets = (size_t)(f->total + 7) / 8;
		unsigned hit = 0;
		for (size_t i = 0; i < octets; i++)
			hit += (unsigned)__builtin_popcount(bits[i]);
		n = (size_t)snprintf(out, sizeof out, "out arcs %llu %u\n", (unsigned long long)f->total, hit);
		for (size_t i = 0; i < octets; i += 64) {
			n += (size_t)snprintf(out + n, sizeof out - n, "out hex ");
			for (size_t k = i; k < octets && k < i + 64; k++)
				n += (size_t)snprintf(out + n, sizeof out - n, "%02x", bits[k]);
			n += (size_t)snprintf(out + n, sizeof out - n, "\n");
		}
		n += (size_t)snprintf(out + n, sizeof out - n, "exit 0\n");
	}
	if (n && write(fd, out, n) != (ssize_t)n)
		return;
	if (f->mode == FAKE_SILENT) {
		/* Holds the connection, answering nothing, until the client gives up. */
		char b[64];
		while (!atomic_load(&f->stop)) {
			struct pollfd p = {.fd = fd, .events = POLLIN};
			if (poll(&p, 1, 50) == 1 && read(fd, b, sizeof b) <= 0)
				break;
		}
	}
}

static void *fake_main(void *arg)
{
	fake *f = arg;
	while (!atomic_load(&f->stop)) {
		struct pollfd p = {.fd = f->lfd, .events = POLLIN};
		if (poll(&p, 1, 50) != 1)
			continue;
		int fd;
		iw_err e;
		if (iw_net_accept(f->lfd, 1000, &fd, &e))
			continue;
		char line[64];
		size_t have = 0;
		size_t got;
		while (have < sizeof line - 1 && !memchr(line, '\n', have) &&
		       iw_net_read(fd, line + have, sizeof line - 1 - have, 2000, &got, &e) == IW_NET_DATA)
			have += got;
		unsigned req = atomic_fetch_add(&f->requests, 1);
		if (have >= 14 && !memcmp(line, "coverage-arcs\n", 14))
			answer(f, fd, req);
		close(fd);
	}
	return NULL;
}

static bool fake_start(fake *f, enum fake_mode mode)
{
	f->mode = mode;
	if (!f->total)
		f->total = 61;
	atomic_init(&f->requests, 0);
	atomic_init(&f->stop, false);
	iw_err e;
	f->port = 0;
	if (iw_net_listen("127.0.0.1", &f->port, &f->lfd, &e)) {
		check_fail(__FILE__, __LINE__, "fake agent: %s", e.msg);
		return false;
	}
	return pthread_create(&f->th, NULL, fake_main, f) == 0;
}

static void fake_stop(fake *f)
{
	atomic_store(&f->stop, true);
	pthread_join(f->th, NULL);
	close(f->lfd);
}

/* Set by a test for the campaigns it makes: --kernel-coverage-no-feedback. */
static bool campaign_measure_only;

/* A campaign of `runs` runs of seed `seed` against the built-in DUT with feedback from f; the
 * summary goes to *summary (malloc'd) unless NULL. Returns the feedback (the caller closes it). */
static nf_kcov *campaign(fake *f, uint64_t seed, uint64_t runs, unsigned every, const char *corpus, const char *out,
			 int64_t timeout_ms, int *status, char **summary)
{
	char agent[40];
	snprintf(agent, sizeof agent, "127.0.0.1:%u", f->port);
	nf_kcov_cfg cfg = {.agent = agent, .every = every, .corpus_dir = corpus, .out_dir = out, .timeout_ms = timeout_ms,
			   .measure_only = campaign_measure_only};
	nf_kcov *k = NULL;
	iw_err e;
	if (nf_kcov_open(&k, &cfg, &e)) {
		check_fail(__FILE__, __LINE__, "nf_kcov_open: %s", e.msg);
		return NULL;
	}
	nf_opts o;
	memset(&o, 0, sizeof o);
	iw_dut_config_default(&o.dut);
	o.seed = seed;
	o.runs = runs;
	o.max_findings = 10;
	o.timeout_ms = 1000;
	o.no_minimize = true;
	o.progress_out = tmpfile();
	o.kcov = k;
	nf_session *s = NULL;
	if (!o.progress_out || nf_session_open(&s, &o, &e)) {
		check_fail(__FILE__, __LINE__, "session: %s", e.msg);
		if (o.progress_out)
			fclose(o.progress_out);
		nf_kcov_close(k);
		return NULL;
	}
	*status = fz_loop(&o, s, 0, iw_net_now_ms(), NULL);
	CHECK_EQ(nf_session_stats(s)->runs, runs);
	nf_session_close(s);
	if (summary) {
		long n = ftell(o.progress_out);
		*summary = calloc((size_t)n + 1, 1);
		rewind(o.progress_out);
		if (*summary && fread(*summary, 1, (size_t)n, o.progress_out) != (size_t)n)
			**summary = '\0';
	}
	fclose(o.progress_out);
	return k;
}

static void rm_rf(const char *dir)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK_EQ(system(cmd), 0);
}

/* DIR/kcov.tsv: its header, then `reads` lines whose runs and arcs never go down, of 61 arcs in
 * all, the last at `runs` runs and `hit` arcs. */
static void check_kcov_tsv(const char *dir, unsigned reads, unsigned long long runs_end, unsigned long long hit_end)
{
	char path[300];
	snprintf(path, sizeof path, "%s/kcov.tsv", dir);
	FILE *t = fopen(path, "r");
	CHECK(t != NULL);
	if (!t)
		return;
	char line[200];
	unsigned lines = 0;
	unsigned long long last_runs = 0, last_hit = 0;
	bool header = fgets(line, sizeof line, t) && line[0] == '#' && strstr(line, "union_hit");
	CHECK(header);
	while (fgets(line, sizeof line, t)) {
		long long ms;
		unsigned long long runs, hit, total, kept;
		CHECK_EQ(sscanf(line, "%lld\t%llu\t%llu\t%llu\t%llu", &ms, &runs, &hit, &total, &kept), 5);
		CHECK(runs >= last_runs && hit >= last_hit && ms >= 0);
		CHECK_EQ(total, 61);
		last_runs = runs;
		last_hit = hit;
		lines++;
	}
	CHECK_EQ(lines, reads);
	CHECK_EQ(last_runs, runs_end);
	CHECK_EQ(last_hit, hit_end);
	fclose(t);
}

/* (a) and (d): the runs whose read brought a new arc are kept, no other; DIR/kcov.tsv has a line
 * per read; the summary line says the arcs. */
TEST(netfuzz_kcov_keeps_the_runs_that_reach_new_arcs)
{
	fake f = {.reward = {4, 8}, .nreward = 2};
	if (!fake_start(&f, FAKE_ARCS))
		return;
	char dir[] = "/tmp/iwspec-kcov-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	int status = -1;
	char *sum = NULL;
	nf_kcov *k = campaign(&f, 7, 12, 1, NULL, dir, 0, &status, &sum);
	fake_stop(&f);
	if (!k) {
		rm_rf(dir);
		return;
	}
	CHECK_EQ(status, IW_EXIT_OK);
	const nf_corpus *c = nf_kcov_corpus(k);
	const nf_kcov_stats *st = nf_kcov_stats_get(k);
	/* The baseline, then a read after each run: request i credits run i - 1. */
	CHECK_EQ(atomic_load(&f.requests), 13);
	CHECK_EQ(st->reads, 13);
	CHECK_EQ(st->interesting, 2);
	CHECK_EQ(c->n, 2);
	CHECK_EQ(c->total, 61);
	CHECK_EQ(c->hit, 3);
	if (c->n == 2) {
		CHECK_EQ(c->e[0].p->run, 3);
		CHECK_EQ(c->e[1].p->run, 7);
		CHECK_EQ(c->e[0].id, 1);
		CHECK_EQ(c->e[0].gain, 1);
		/* Run 3 came before anything was kept: the generator's program, as it ran. */
		nf_prog *g = malloc(sizeof *g);
		nf_dutinfo d;
		memset(&d, 0, sizeof d);
		d.profile = iw_profile_default();
		d.role = IW_ROLE_RESPONDER;
		CHECK(c->e[0].p->origin.from == 0);
		if (g) {
			nf_generate(g, &d, 7, 3);
			CHECK_EQ(nf_prog_hash(g), nf_prog_hash(c->e[0].p));
		}
		free(g);
	}
	CHECK(sum && strstr(sum, "fuzz: 12 runs") && strstr(sum, "states+events+error codes, kernel arcs 3/61 (2 kept)"));
	/* kcov.tsv: the header, then one line per read, runs and arcs never going down. */
	check_kcov_tsv(dir, 13, 12, 3);
	free(sum);
	nf_kcov_close(k);
	rm_rf(dir);
}

/* (b): with kept programs, runs mutate them; the same seed and agent give the same programs. */
TEST(netfuzz_kcov_mutates_kept_programs_deterministically)
{
	uint64_t seq[2] = {0, 0}, mutated[2] = {0, 0};
	size_t kept[2] = {0, 0};
	for (int i = 0; i < 2; i++) {
		fake f = {.reward = {2, 3, 5, 30}, .nreward = 4};
		if (!fake_start(&f, FAKE_ARCS))
			return;
		int status = -1;
		nf_kcov *k = campaign(&f, 11, 60, 1, NULL, NULL, 0, &status, NULL);
		fake_stop(&f);
		if (!k)
			return;
		seq[i] = nf_kcov_stats_get(k)->seq;
		mutated[i] = nf_kcov_stats_get(k)->mutated;
		kept[i] = nf_kcov_corpus(k)->n;
		/* The program kept at request 30 (run 29) came after three were kept: whether it was
		 * mutated or not, a mutated one names an entry that exists. */
		const nf_corpus *c = nf_kcov_corpus(k);
		for (size_t j = 0; j < c->n; j++)
			if (c->e[j].p->origin.from)
				CHECK(c->e[j].p->origin.from < c->e[j].id && c->e[j].p->origin.how[0]);
		nf_kcov_close(k);
	}
	CHECK_EQ(kept[0], 4);
	CHECK(mutated[0] > 10 && mutated[0] < 50); /* about half of the 57 runs after the first keep */
	CHECK_EQ(mutated[0], mutated[1]);
	CHECK_EQ(seq[0], seq[1]);
}

/* (b): nf_mutate's programs are derived from kept ones, valid for rendering, deterministic, and
 * run against the built-in DUT; a finding's seed.txt says what the program was mutated from. */
TEST(netfuzz_kcov_mutations_are_valid_and_said_in_seed_txt)
{
	nf_corpus c;
	nf_corpus_init(&c);
	nf_dutinfo d;
	memset(&d, 0, sizeof d);
	d.profile = iw_profile_default();
	d.role = IW_ROLE_RESPONDER;
	d.crc = d.reflector = d.greeting = true;
	nf_prog *p = malloc(sizeof *p), *q = malloc(sizeof *q);
	iw_err e;
	for (uint64_t run = 0; p && run < 6; run++) {
		nf_generate(p, &d, 3, run);
		CHECK_EQ(nf_corpus_keep(&c, p, run + 1, NULL, &e), IW_OK);
	}
	nf_session *s = NULL;
	nf_opts o;
	memset(&o, 0, sizeof o);
	iw_dut_config_default(&o.dut);
	o.timeout_ms = 1000;
	CHECK_EQ(nf_session_open(&s, &o, &e), IW_OK);
	unsigned splices = 0, differ = 0, findings = 0;
	for (uint64_t run = 100; p && q && run < 400; run++) {
		nf_mutate(p, &c, &d, 3, run);
		nf_mutate(q, &c, &d, 3, run);
		CHECK_EQ(nf_prog_hash(p), nf_prog_hash(q));
		CHECK(p->origin.from >= 1 && p->origin.from <= 6 && p->origin.how[0]);
		CHECK(p->n <= NF_MAX_ACTIONS && p->pool_len <= NF_POOL);
		for (size_t i = 0; i < p->n; i++)
			CHECK(p->a[i].pattern || p->a[i].off + p->a[i].len <= p->pool_len);
		/* The startup frame stays first (after a cut at most). */
		for (size_t i = 1; i < p->n; i++)
			CHECK(p->a[i].kind != NF_A_FRAME || (i == 1 && p->a[0].kind == NF_A_SPLIT));
		splices += p->origin.with != 0;
		differ += nf_prog_hash(p) != nf_prog_hash(nf_corpus_find(&c, p->origin.from)->p);
		nf_finding f;
		if (s) {
			CHECK_EQ(nf_run(s, p, &f, &e), IW_OK);
			findings += f.kind != NF_F_NONE;
		}
	}
	CHECK(splices > 0);
	CHECK(differ > 250);
	printf("  mutated programs against the built-in DUT: %u findings in 300 runs\n", findings);
	/* seed.txt of a mutated program: which entry, how, and not --first-run. */
	char dir[] = "/tmp/iwspec-kcov-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	nf_finding f = {.kind = NF_F_EXTRA};
	snprintf(f.req, sizeof f.req, "DDP-8.2.2-01");
	nf_mutate(p, &c, &d, 3, 1000);
	CHECK_EQ(nf_write_unconfirmed(dir, 1, p, &f, "test", &e), IW_OK);
	char path[300], text[4096] = "";
	snprintf(path, sizeof path, "%s/unconfirmed-1/seed.txt", dir);
	FILE *t = fopen(path, "r");
	if (t) {
		size_t n = fread(text, 1, sizeof text - 1, t);
		text[n] = '\0';
		fclose(t);
	}
	char want[80];
	snprintf(want, sizeof want, "origin: a mutation of kept program (corpus entry) %llu", (unsigned long long)p->origin.from);
	CHECK(strstr(text, want) != NULL);
	CHECK(strstr(text, "--first-run 1000 alone gives a fresh program") != NULL);
	CHECK(strstr(text, "  1. ") != NULL);
	CHECK(strstr(text, "--first-run 1000 --runs 1") == NULL);
	rm_rf(dir);
	nf_session_close(s);
	nf_corpus_free(&c);
	free(p);
	free(q);
}

/* (c): the corpus and the union survive a save and a load; a corrupt or foreign file is said. */
TEST(netfuzz_kcov_corpus_round_trip_and_bad_files)
{
	nf_corpus c, l;
	nf_corpus_init(&c);
	nf_corpus_init(&l);
	nf_dutinfo d;
	memset(&d, 0, sizeof d);
	d.profile = iw_profile_default();
	d.role = IW_ROLE_RESPONDER;
	nf_prog *p = malloc(sizeof *p);
	iw_err e;
	uint8_t bits[25] = {0x81, 0, 0x10};
	uint64_t fresh;
	bool restarted;
	CHECK_EQ(nf_corpus_merge(&c, bits, 100, &fresh, &restarted, &e), IW_OK);
	CHECK_EQ(fresh, 3);
	for (uint64_t run = 0; p && run < 5; run++) {
		nf_generate(p, &d, 9, run);
		CHECK_EQ(nf_corpus_keep(&c, p, run, NULL, &e), IW_OK);
	}
	nf_mutate(p, &c, &d, 9, 77);
	CHECK_EQ(nf_corpus_keep(&c, p, 2, NULL, &e), IW_OK);
	char dir[] = "/tmp/iwspec-kcov-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	bool found = true;
	CHECK_EQ(nf_corpus_load(&l, dir, &found, &e), IW_OK);
	CHECK(!found);
	CHECK_EQ(nf_corpus_save(&c, dir, &e), IW_OK);
	CHECK_EQ(nf_corpus_load(&l, dir, &found, &e), IW_OK);
	CHECK(found);
	CHECK_EQ(l.n, 6);
	CHECK_EQ(l.next_id, c.next_id);
	CHECK_EQ(l.total, 100);
	CHECK_EQ(l.hit, 3);
	if (l.arcs)
		CHECK_MEM(l.arcs, c.arcs, 13);
	for (size_t i = 0; i < l.n && i < c.n; i++) {
		CHECK_EQ(l.e[i].id, c.e[i].id);
		CHECK_EQ(l.e[i].gain, c.e[i].gain);
		CHECK_EQ(nf_prog_hash(l.e[i].p), nf_prog_hash(c.e[i].p));
		CHECK_EQ(l.e[i].p->origin.from, c.e[i].p->origin.from);
	}
	/* A bitmap of another TOTAL starts a new union. */
	CHECK_EQ(nf_corpus_merge(&l, bits, 200, &fresh, &restarted, &e), IW_OK);
	CHECK(restarted);
	CHECK_EQ(l.total, 200);
	CHECK_EQ(l.hit, 3);
	/* Damaged copies of the file. */
	char path[300];
	snprintf(path, sizeof path, "%s/%s", dir, NF_CORPUS_FILE);
	FILE *f = fopen(path, "rb");
	static uint8_t buf[1 << 20];
	size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
	if (f)
		fclose(f);
	CHECK(n > 100);
	struct { size_t at; uint8_t x; size_t len; const char *want; } bad[] = {
		{n / 2, 0x40, n, "is corrupt (its checksum does not match): remove it or give another --corpus"},
		{0, 0x20, n, "is not an iwspec fuzz corpus"},
		{12, 0x01, n, "written by another build of iwspec"},
		{8, 0x01, n, "written by another build of iwspec"},
		{0, 0, n - 9, "is corrupt"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		uint8_t save = buf[bad[i].at];
		buf[bad[i].at] ^= bad[i].x;
		f = fopen(path, "wb");
		if (f) {
			fwrite(buf, 1, bad[i].len, f);
			fclose(f);
		}
		buf[bad[i].at] = save;
		CHECK_EQ(nf_corpus_load(&l, dir, &found, &e), IW_EINVAL);
		if (!strstr(e.msg, bad[i].want))
			check_fail(__FILE__, __LINE__, "damage %zu: '%s' lacks '%s'", i, e.msg, bad[i].want);
		CHECK_EQ(l.n, 0);
	}
	CHECK(strstr(e.msg, path) != NULL);
	/* ... and through nf_kcov_open, the way --corpus meets it. */
	nf_kcov *k = NULL;
	nf_kcov_cfg cfg = {.agent = "127.0.0.1:9", .corpus_dir = dir};
	CHECK_EQ(nf_kcov_open(&k, &cfg, &e), IW_EINVAL);
	CHECK(k == NULL);
	rm_rf(dir);
	nf_corpus_free(&c);
	nf_corpus_free(&l);
	free(p);
}

/* (c): a campaign with --corpus writes it, and the next one starts from it. */
TEST(netfuzz_kcov_next_campaign_starts_from_the_corpus)
{
	char dir[] = "/tmp/iwspec-kcov-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	fake f = {.reward = {3}, .nreward = 1};
	if (!fake_start(&f, FAKE_ARCS))
		return;
	int status;
	nf_kcov *k = campaign(&f, 5, 6, 2, dir, NULL, 0, &status, NULL);
	fake_stop(&f);
	if (!k)
		return;
	/* every 2: request 3 reads after runs 4 and 5, which are kept together. */
	CHECK_EQ(nf_kcov_corpus(k)->n, 2);
	nf_kcov_close(k);
	fake g = {.reward = {3}, .nreward = 1};
	if (!fake_start(&g, FAKE_ARCS))
		return;
	k = campaign(&g, 6, 4, 1, dir, NULL, 0, &status, NULL);
	fake_stop(&g);
	if (k) {
		/* The union came along: the same arcs are nothing new, and the kept programs are there. */
		CHECK_EQ(nf_kcov_corpus(k)->n, 2);
		CHECK_EQ(nf_kcov_corpus(k)->hit, 2);
		CHECK_EQ(nf_kcov_stats_get(k)->interesting, 0);
		CHECK(nf_kcov_stats_get(k)->mutated > 0);
		nf_kcov_close(k);
	}
	rm_rf(dir);
}

/* (e) and (f): an agent that answers error, closes, or says nothing turns feedback off once, said
 * in the summary; the campaign makes all its runs, and a silent agent costs one timeout. */
TEST(netfuzz_kcov_failing_agent_is_said_and_fuzzing_goes_on)
{
	static const struct { enum fake_mode m; const char *want; } modes[] = {
		{FAKE_ERROR, "answered 'error siw.ko has no coverage counters'"},
		{FAKE_CLOSE, "closed before its answer ended"},
		{FAKE_SILENT, "no whole answer within the time allowed"},
	};
	for (size_t i = 0; i < 3; i++) {
		fake f = {.nreward = 0};
		if (!fake_start(&f, modes[i].m))
			return;
		int status = -1;
		char *sum = NULL;
		int64_t t = iw_net_now_ms();
		nf_kcov *k = campaign(&f, 2, 10, 1, NULL, NULL, 300, &status, &sum);
		t = iw_net_now_ms() - t;
		fake_stop(&f);
		if (!k)
			return;
		CHECK_EQ(status, IW_EXIT_OK);
		const nf_kcov_stats *st = nf_kcov_stats_get(k);
		CHECK(st->off);
		CHECK_EQ(atomic_load(&f.requests), 1); /* asked once, then never again */
		if (!strstr(st->note, modes[i].want))
			check_fail(__FILE__, __LINE__, "mode %zu: note '%s'", i, st->note);
		CHECK(sum && strstr(sum, "fuzz: 10 runs") && strstr(sum, "kernel coverage off after 0 runs"));
		CHECK(t < 8000);
		free(sum);
		nf_kcov_close(k);
	}
}

/* --kernel-coverage-no-feedback: the same reads, the union and kcov.tsv grow as with feedback,
 * but nothing is kept and every run is the generator's own (the campaign to compare with). */
TEST(netfuzz_kcov_no_feedback_reads_but_keeps_and_mutates_nothing)
{
	fake f = {.reward = {2, 3, 5}, .nreward = 3};
	if (!fake_start(&f, FAKE_ARCS))
		return;
	char dir[] = "/tmp/iwspec-kcov-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	int status = -1;
	char *sum = NULL;
	campaign_measure_only = true;
	nf_kcov *k = campaign(&f, 7, 12, 1, NULL, dir, 0, &status, &sum);
	campaign_measure_only = false;
	fake_stop(&f);
	if (!k) {
		rm_rf(dir);
		return;
	}
	CHECK_EQ(status, IW_EXIT_OK);
	const nf_corpus *c = nf_kcov_corpus(k);
	const nf_kcov_stats *st = nf_kcov_stats_get(k);
	CHECK_EQ(st->reads, 13);
	CHECK_EQ(st->interesting, 3);
	CHECK_EQ(c->hit, 4); /* the baseline's arc and the three rewarded ones */
	CHECK_EQ(c->n, 0);
	CHECK_EQ(st->kept, 0);
	CHECK_EQ(st->mutated, 0);
	CHECK(sum && strstr(sum, "kernel arcs 4/61 (0 kept)"));
	check_kcov_tsv(dir, 13, 12, 4);
	free(sum);
	nf_kcov_close(k);
	rm_rf(dir);
}
