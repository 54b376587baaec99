/*
 * netfuzz_kcov.c - `iwspec fuzz --kernel-coverage HOST:PORT`: the fuzzer steered by a guest
 * kernel's coverage (docs/fuzzing-network.md, "Steered by kernel coverage").
 *
 * The guest's agent (the one --console-mark talks to) answers `coverage-arcs` with the arc
 * counters of siw.ko that are nonzero now:
 *
 *   out arcs TOTAL HIT
 *   out hex HEX            (at most 128 hex digits a line, in order; bit i is octet i/8, bit
 *   ...                     i%8; ceil(TOTAL/8) octets in all)
 *   exit 0
 *
 * or `error TEXT`. Counters only grow while the guest runs, so the union of every bitmap read is
 * what the campaign has reached; a run (or a batch of --kernel-coverage-every runs) whose read
 * adds arcs to it is interesting and its programs are kept (netfuzz_corpus.c); a share of the
 * later runs mutate kept programs (netfuzz_mutate.c) instead of generating fresh ones.
 *
 * A read is made with nothing in flight, so its arcs are those of the batch's runs and of the
 * findings handled meanwhile (their confirmation and minimisation run the batch's programs).
 * The first read, before any run, is a baseline: what the guest's boot and calibration reached
 * is no run's merit. Every read is bounded (NF_KCOV_TIMEOUT_MS in all): an agent that fails to
 * answer, or answers `error`, turns feedback off for the rest of the session with a note, and
 * the fuzzing goes on generating programs (a dead guest is the liveness probe's business).
 *
 * DIR/kcov.tsv (with --out) gets a line per read: ms since the command began, runs so far, arcs
 * in the union, TOTAL, programs kept, so a campaign's coverage can be plotted over its time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "net.h"
#include "netfuzz.h"

struct nf_kcov {
	char host[IW_NET_HOST_MAX];
	uint16_t port;
	unsigned every;
	int64_t timeout_ms;
	bool measure_only;          /* --kernel-coverage-no-feedback: nothing kept, nothing mutated */
	char corpus_dir[1024];      /* "" : memory only */
	char out_dir[1024];         /* "" : no kcov.tsv */
	nf_corpus c;
	nf_prog *batch[NF_KCOV_EVERY_MAX];
	size_t nbatch;
	bool loaded_union;          /* the union came from --corpus: its TOTAL is checked once */
	bool tsv_failed, save_failed;
	nf_kcov_stats st;
};

/* ---- the agent ---- */

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* One line of the answer; 1 when it was the last. */
static int on_line(const char *line, nf_arcs *out, size_t *have, bool *got_arcs, iw_err *e)
{
	if (!strncmp(line, "error", 5))
		return iw_errf(e, IW_EPROTO, "it answered '%.120s'", line);
	if (!strncmp(line, "exit ", 5)) {
		if (strcmp(line, "exit 0"))
			return iw_errf(e, IW_EPROTO, "it answered '%.60s'", line);
		if (!*got_arcs)
			return iw_errf(e, IW_EPROTO, "it ended with no 'out arcs TOTAL HIT' line");
		if (*have != (out->total + 7) / 8)
			return iw_errf(e, IW_EPROTO, "its bitmap has %zu octets where %llu arcs take %llu", *have,
				       (unsigned long long)out->total, (unsigned long long)((out->total + 7) / 8));
		return 1;
	}
	unsigned long long total, hit;
	char extra;
	if (!strncmp(line, "out arcs ", 9)) {
		if (*got_arcs || sscanf(line + 9, "%llu %llu%c", &total, &hit, &extra) != 2 || hit > total ||
		    total > NF_ARCS_MAX)
			return iw_errf(e, IW_EPROTO, "'%.80s' is not 'out arcs TOTAL HIT' (TOTAL up to %llu)", line,
				       (unsigned long long)NF_ARCS_MAX);
		out->total = total;
		out->bits = calloc((size_t)((total + 7) / 8) + 1, 1);
		if (!out->bits)
			return iw_errf(e, IW_ENOSPC, "out of memory for %llu arcs", total);
		*got_arcs = true;
		return 0;
	}
	if (!strncmp(line, "out hex ", 8)) {
		const char *h = line + 8;
		size_t n = strlen(h);
		if (!*got_arcs || n % 2 || n > 128)
			return iw_errf(e, IW_EPROTO, "'%.60s...' is not an 'out hex' line after 'out arcs' (an even number "
				       "of hex digits, at most 128)", line);
		for (size_t i = 0; i < n; i += 2) {
			int a = hexval(h[i]), b = hexval(h[i + 1]);
			if (a < 0 || b < 0)
				return iw_errf(e, IW_EPROTO, "'%.60s' has a character that is not a hex digit", line);
			if (*have >= (out->total + 7) / 8)
				return iw_errf(e, IW_EPROTO, "its bitmap is longer than %llu arcs take",
					       (unsigned long long)out->total);
			out->bits[(*have)++] = (uint8_t)(a << 4 | b);
		}
		return 0;
	}
	return iw_errf(e, IW_EPROTO, "it sent '%.60s', which is not an answer to coverage-arcs", line);
}

int nf_kcov_fetch(const char *host, uint16_t port, int64_t timeout_ms, nf_arcs *out, iw_err *e)
{
	memset(out, 0, sizeof *out);
	int64_t end = iw_net_now_ms() + timeout_ms;
	int fd;
	int rc = iw_net_connect_once(host, port, timeout_ms, 0, &fd, e);
	if (rc) {
		char why[200];
		snprintf(why, sizeof why, "%.199s", e->msg);
		return iw_errf(e, rc, "the guest's agent at %s:%u: coverage-arcs: no connection: %s", host, port, why);
	}
	rc = iw_net_write_all(fd, "coverage-arcs\n", 14, timeout_ms, e);
	char buf[4096];
	size_t len = 0, have = 0;
	bool got_arcs = false;
	int done = 0;
	while (rc == IW_OK && !done) {
		char *nl;
		while (!done && rc == IW_OK && (nl = memchr(buf, '\n', len))) {
			*nl = '\0';
			if (nl > buf && nl[-1] == '\r')
				nl[-1] = '\0';
			int r = on_line(buf, out, &have, &got_arcs, e);
			if (r < 0)
				rc = r;
			done = r == 1;
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len);
		}
		if (done || rc)
			break;
		if (len == sizeof buf) {
			rc = iw_errf(e, IW_EPROTO, "it sent a line longer than %zu octets", sizeof buf);
			break;
		}
		int64_t left = end - iw_net_now_ms();
		size_t got = 0;
		int st = left > 0 ? iw_net_read(fd, buf + len, sizeof buf - len, left, &got, e) : IW_NET_TIMEOUT;
		if (st == IW_NET_DATA)
			len += got;
		else if (st < 0)
			rc = st;
		else
			rc = iw_errf(e, IW_ESTATE, "%s", st == IW_NET_TIMEOUT ? "no whole answer within the time allowed"
				     : "it closed before its answer ended");
	}
	close(fd);
	if (rc) {
		free(out->bits);
		memset(out, 0, sizeof *out);
		char why[200];
		snprintf(why, sizeof why, "%.199s", e->msg);
		return iw_errf(e, rc, "the guest's agent at %s:%u: coverage-arcs: %s", host, port, why);
	}
	for (size_t i = 0; i < have; i++)
		out->hit += (uint64_t)__builtin_popcount(out->bits[i]);
	return IW_OK;
}

/* ---- the session's feedback ---- */

int nf_kcov_open(nf_kcov **out, const nf_kcov_cfg *cfg, iw_err *e)
{
	*out = NULL;
	nf_kcov *k = calloc(1, sizeof *k);
	if (!k)
		return iw_errf(e, IW_ENOSPC, "out of memory");
	nf_corpus_init(&k->c);
	if (iw_net_parse_hostport(cfg->agent, k->host, sizeof k->host, &k->port, e)) {
		char why[200];
		snprintf(why, sizeof why, "%.199s", e->msg);
		free(k);
		return iw_errf(e, IW_EINVAL, "--kernel-coverage '%s': give the guest agent's HOST:PORT, e.g. "
			       "10.213.0.2:4790 (%s)", cfg->agent, why);
	}
	k->every = cfg->every ? cfg->every : 1;
	if (k->every > NF_KCOV_EVERY_MAX) {
		free(k);
		return iw_errf(e, IW_EINVAL, "--kernel-coverage-every %u: at most %u runs a read", cfg->every,
			       NF_KCOV_EVERY_MAX);
	}
	k->timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : NF_KCOV_TIMEOUT_MS;
	k->measure_only = cfg->measure_only;
	snprintf(k->corpus_dir, sizeof k->corpus_dir, "%s", cfg->corpus_dir ? cfg->corpus_dir : "");
	snprintf(k->out_dir, sizeof k->out_dir, "%s", cfg->out_dir ? cfg->out_dir : "");
	if (k->corpus_dir[0]) {
		bool found;
		if (nf_corpus_load(&k->c, k->corpus_dir, &found, e)) {
			free(k);
			return IW_EINVAL;
		}
		k->loaded_union = k->c.arcs != NULL;
	}
	*out = k;
	return IW_OK;
}

void nf_kcov_close(nf_kcov *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < NF_KCOV_EVERY_MAX; i++)
		free(k->batch[i]);
	nf_corpus_free(&k->c);
	free(k);
}

const nf_corpus *nf_kcov_corpus(const nf_kcov *k) { return &k->c; }
const nf_kcov_stats *nf_kcov_stats_get(const nf_kcov *k) { return &k->st; }

void nf_kcov_program(nf_kcov *k, nf_prog *p, const nf_dutinfo *d, uint64_t seed, uint64_t run)
{
	/* Half the runs: the other half keeps the generator's breadth (fresh programs still find
	 * arcs nothing kept is near, and stay reproducible from (seed, run) alone). */
	nf_rng r;
	nf_rng_seed(&r, seed ^ (run * 0xD1B54A32D192ED03ull) ^ 0x6b636f76ull);
	if (!k->measure_only && k->c.n && nf_rng_pct(&r, NF_KCOV_MUTATE_PCT)) {
		nf_mutate(p, &k->c, d, seed, run);
		k->st.mutated++;
	} else {
		nf_generate(p, d, seed, run);
	}
}

void nf_kcov_started(nf_kcov *k, const nf_prog *p)
{
	k->st.seq = (k->st.seq ^ nf_prog_hash(p)) * 0x100000001b3ull;
	if (k->st.off || k->nbatch == NF_KCOV_EVERY_MAX)
		return;
	nf_prog **b = &k->batch[k->nbatch];
	if (!*b && !(*b = malloc(sizeof **b)))
		return; /* this run cannot be kept; the others can */
	memcpy(*b, p, offsetof(nf_prog, pool) + p->pool_len);
	k->nbatch++;
}

bool nf_kcov_due(const nf_kcov *k, bool final) { return !k->st.off && k->nbatch >= (final ? 1 : k->every); }

static void tsv(nf_kcov *k, int64_t ms, uint64_t runs, char *notice, size_t cap)
{
	if (!k->out_dir[0] || k->tsv_failed)
		return;
	char path[1100];
	snprintf(path, sizeof path, "%s/kcov.tsv", k->out_dir);
	iw_err e;
	FILE *f = NULL;
	if (iw_mkdir_p(k->out_dir, &e) == 0)
		f = fopen(path, "a");
	if (f) {
		if (ftell(f) == 0)
			fprintf(f, "# ms_since_start\truns_so_far\tunion_hit\ttotal\tkept_programs\n");
		fprintf(f, "%lld\t%llu\t%llu\t%llu\t%zu\n", (long long)ms, (unsigned long long)runs,
			(unsigned long long)k->c.hit, (unsigned long long)k->c.total, k->c.n);
	}
	if (!f || fclose(f)) {
		k->tsv_failed = true;
		snprintf(notice, cap, "cannot append to %.200s: kernel coverage goes on without its time series", path);
	}
}

int nf_kcov_read(nf_kcov *k, bool baseline, int64_t ms, uint64_t runs, char *notice, size_t cap, iw_err *e)
{
	*notice = '\0';
	if (k->st.off)
		return IW_OK;
	nf_arcs a;
	int rc = nf_kcov_fetch(k->host, k->port, k->timeout_ms, &a, e);
	if (rc) {
		k->st.off = true;
		snprintf(k->st.note, sizeof k->st.note, "kernel coverage off after %llu runs: %.200s; the fuzzing went on "
			 "without feedback", (unsigned long long)runs, e->msg);
		k->nbatch = 0;
		return iw_errf(e, rc, "%s", k->st.note);
	}
	k->st.reads++;
	uint64_t was = k->c.total, fresh = 0;
	bool restarted = false;
	uint32_t *added = NULL, nadded = 0;
	rc = nf_corpus_merge_list(&k->c, a.bits, a.total, &fresh, &restarted, &added, &nadded, e);
	free(a.bits);
	if (rc) {
		free(added);
		return rc;
	}
	if (k->loaded_union && restarted)
		snprintf(notice, cap, "the union of arcs in %s/%s counts %llu arcs, the guest's siw.ko %llu (another "
			 "build of the module): a new union begins; the kept programs stay", k->corpus_dir,
			 NF_CORPUS_FILE, (unsigned long long)was, (unsigned long long)a.total);
	k->loaded_union = false;
	bool changed = fresh > 0 || restarted || was != k->c.total;
	if (fresh && !baseline && k->nbatch) {
		k->st.interesting++;
		for (size_t i = 0; i < k->nbatch && !k->measure_only; i++) {
			/* Each keeps the arcs the batch reached first: what --merge compares. */
			if (nf_corpus_keep_reach(&k->c, k->batch[i], fresh, added, nadded, NULL, e) == IW_OK)
				k->st.kept++;
		}
	}
	free(added);
	k->nbatch = 0;
	if (changed && k->corpus_dir[0] && !k->save_failed && nf_corpus_save(&k->c, k->corpus_dir, e)) {
		k->save_failed = true;
		if (!*notice)
			snprintf(notice, cap, "cannot write the corpus: %.200s; it is kept in memory only", e->msg);
	}
	char tn[300] = "";
	tsv(k, ms, runs, tn, sizeof tn);
	if (*tn && !*notice)
		snprintf(notice, cap, "%s", tn);
	return IW_OK;
}
