/*
 * cmd_fuzz.c - `iwspec fuzz`: the network fuzzer (netfuzz.h, docs/fuzzing-network.md).
 *
 *   iwspec fuzz --dut DUT [--profile P] --seed S (--runs N | --time T) [--out DIR]
 *   iwspec fuzz --bench [--time T]
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "net.h"
#include "netfuzz.h"
#include "ref_faults.h"

#define MAX_SIGS 64

static void usage(FILE *f)
{
	char names[160];
	iw_profile_names(names, sizeof names);
	fprintf(f,
		"usage: iwspec fuzz [--dut DUT] [--dut-config FILE] [--profile P] [--role ROLE] [--mutant NAME]\n"
		"                   [--seed S] (--runs N | --time T) [--out DIR] [--timeout D]\n"
		"                   [--max-findings N] [--no-minimize] [--first-run R] [--progress|--no-progress]\n"
		"                   [--quiet]\n"
		"       iwspec fuzz --bench [--time T]\n"
		"\n"
		"Drives a DUT over TCP with randomized, structure-aware sequences (startup frames with mutated\n"
		"fields, FPDUs with mutated headers, lengths, markers, CRCs, DDP placement fields, RDMAP opcodes,\n"
		"Terminates, out-of-order segments, write cuts and delays). The engine's connection model judges\n"
		"every reaction; each finding is confirmed, minimised and written to DIR/finding-N/ as a case\n"
		"file (iwspec run --cases DIR/finding-N/case.iwt replays it), seed.txt and capture.pcap.\n"
		"\n"
		"  --dut DUT          ref (the built-in DUT, default), tcp:HOST:PORT or exec:'COMMAND' (as iwspec run)\n"
		"  --dut-config FILE  the DUT's declaration (docs/dut-config.md)\n"
		"  --profile P        %s\n"
		"  --role ROLE        the DUT's role: responder (default) or initiator\n"
		"  --mutant NAME      the built-in DUT with an injected fault (iwspec mutants --list names\n"
		"                     them; crash mutants run as exec:'iwspec serve --mutant NAME', so a crash\n"
		"                     is a process crash)\n"
		"  --seed S           the seed (default 1): the same seed gives the same inputs\n"
		"  --runs N           stop after N runs (one TCP connection each)\n"
		"  --time T           stop after T (e.g. 30s, 5m); default 10s when --runs is not given\n"
		"  --out DIR          where findings go (default out/fuzz)\n"
		"  --timeout D        how long a reaction may take (default 250ms for ref, 2s otherwise)\n"
		"  --max-findings N   stop after N distinct findings (default 10)\n"
		"  --no-minimize      report findings as found\n"
		"  --first-run R      begin with run R of the seed (seed.txt names the run of a finding)\n"
		"  --progress         a progress line (default on a terminal): runs/s, findings, coverage\n"
		"  --no-progress      no progress line\n"
		"  --quiet            no log of findings and notes on stderr (the summary and DIR stay)\n"
		"  --bench            measure the bare loopback rate (connect + 20-octet exchange + close) and\n"
		"                     the fuzzer's rate against the built-in DUT, and print their ratio\n"
		"\n"
		"exit status: 0 no finding, 1 findings, 2 bad usage, 3 the DUT could not be fuzzed\n",
		names);
}

static int bad(const char *fmt, const char *a)
{
	fprintf(stderr, "iwspec fuzz: ");
	fprintf(stderr, fmt, a);
	fprintf(stderr, " (see iwspec fuzz --help)\n");
	return IW_EXIT_USAGE;
}

static int bench(int64_t ms)
{
	iw_err e;
	/* Interleaved slices, best of each: a noisy moment hits both alike. */
	int rounds = 3;
	int64_t slice = ms / (2 * rounds);
	if (slice < 200)
		slice = 200;
	double best_bare = 0, best_fuzz = 0;
	nf_opts o;
	memset(&o, 0, sizeof o);
	iw_dut_config_default(&o.dut);
	o.seed = 1;
	nf_session *s;
	if (nf_session_open(&s, &o, &e) != IW_OK) {
		fprintf(stderr, "iwspec fuzz --bench: %s\n", e.msg);
		return IW_EXIT_ERROR;
	}
	nf_prog *p = malloc(NF_SLOTS * sizeof *p);
	uint64_t run = 0, findings = 0;
	for (int r = 0; r < rounds && p; r++) {
		double b = nf_bare_rate(slice, &e);
		if (b < 0) {
			fprintf(stderr, "iwspec fuzz --bench: %s\n", e.msg);
			free(p);
			nf_session_close(s);
			return IW_EXIT_ERROR;
		}
		if (b > best_bare)
			best_bare = b;
		int64_t t0 = iw_net_now_ms(), t1 = t0;
		uint64_t n = 0;
		bool started[NF_SLOTS] = {false};
		/* As the fuzzing loop does: two runs in flight. */
		for (uint64_t i = 0;; i++) {
			int k = (int)(i % NF_SLOTS);
			nf_finding f;
			if (started[k]) {
				started[k] = false;
				if (nf_run_finish(s, k, &f, &e) != IW_OK)
					break;
				findings += f.kind != NF_F_NONE;
				n++;
			}
			if ((t1 = iw_net_now_ms()) - t0 >= slice) {
				for (int j = 1; j < NF_SLOTS; j++) {
					int m = (k + j) % NF_SLOTS;
					if (started[m] && nf_run_finish(s, m, &f, &e) == IW_OK) {
						findings += f.kind != NF_F_NONE;
						n++;
					}
				}
				t1 = iw_net_now_ms();
				break;
			}
			nf_generate(&p[k], nf_session_dut(s), o.seed, run++);
			if (nf_run_start(s, &p[k], k, &e) != IW_OK)
				break;
			started[k] = true;
		}
		double fr = t1 > t0 ? (double)n * 1000.0 / (double)(t1 - t0) : 0;
		if (fr > best_fuzz)
			best_fuzz = fr;
	}
	unsigned have, total;
	nf_cov_counts(&nf_session_stats(s)->cov, &have, &total);
	printf("netfuzz: bare loopback (connect + 20-octet exchange + close): %.0f /s\n", best_bare);
	printf("netfuzz: fuzz runs against the built-in DUT:                  %.0f /s (%llu runs, %llu findings, "
	       "coverage %u/%u)\n", best_fuzz, (unsigned long long)run, (unsigned long long)findings, have, total);
	printf("netfuzz: ratio fuzz / bare: %.2f (target >= 0.70)\n", best_bare > 0 ? best_fuzz / best_bare : 0.0);
	free(p);
	nf_session_close(s);
	return IW_EXIT_OK;
}

/* A crash mutant would take the harness down with the in-process DUT: run it as a process. */
static void exec_for_crash(nf_opts *o, const char *mutant)
{
	char self[512];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		snprintf(self, sizeof self, "iwspec");
	else
		self[n] = '\0';
	/* No core file for each crash the fuzzer provokes. */
	snprintf(o->dut.dut, sizeof o->dut.dut,
		 "exec:ulimit -c 0; exec %.370s serve --port {port} --quiet --profile %.20s --mutant %.40s", self,
		 o->dut.profile->name, mutant);
	o->dut.mutant[0] = '\0';
}

#define RING (NF_SLOTS + 2) /* programs kept: those in flight and the two before them */
#define MAX_PEND 8

typedef struct fz_pend {
	uint64_t run;
	nf_finding f;
} fz_pend;

/* The fuzzing loop's state. */
typedef struct fz {
	const nf_opts *o;
	nf_session *s;
	nf_prog *ring[RING];
	nf_prog *min;
	struct { enum nf_fkind k; char req[32]; } seen[MAX_SIGS];
	size_t nseen;
	unsigned nfound;
	int status;
	fz_pend pend[MAX_PEND];
	size_t npend;
	uint64_t first;
} fz;

static void fz_free(fz *x)
{
	for (int i = 0; i < RING; i++)
		free(x->ring[i]);
	free(x->min);
}

static bool seen_sig(const fz *x, enum nf_fkind k, const char *req)
{
	for (size_t i = 0; i < x->nseen; i++)
		if (x->seen[i].k == k && !strcmp(x->seen[i].req, req))
			return true;
	return false;
}

static void add_sig(fz *x, enum nf_fkind k, const char *req)
{
	if (x->nseen < MAX_SIGS && !seen_sig(x, k, req)) {
		x->seen[x->nseen].k = k;
		snprintf(x->seen[x->nseen++].req, sizeof x->seen[0].req, "%s", req);
	}
}

static void pend(fz *x, uint64_t run, const nf_finding *f)
{
	for (size_t i = 0; i < x->npend; i++)
		if (x->pend[i].run == run && x->pend[i].f.kind == f->kind)
			return;
	if (x->npend < MAX_PEND) {
		x->pend[x->npend].run = run;
		x->pend[x->npend++].f = *f;
	}
}

/* Finishes the run in slot k; a finding is queued for fz_handle. A DUT found dead (or a crash)
 * may come from any of the recent programs: each is a candidate. */
static int fz_finish(fz *x, int k, uint64_t run)
{
	nf_finding f;
	iw_err e;
	if (nf_run_finish(x->s, k, &f, &e) != IW_OK) {
		fprintf(stderr, "\niwspec fuzz: %s\n", e.msg);
		x->status = IW_EXIT_ERROR;
		return IW_ESTATE;
	}
	if (f.kind == NF_F_NONE)
		return IW_OK;
	bool crashy = f.kind == NF_F_CRASH || f.kind == NF_F_DEAD;
	if (crashy) {
		for (uint64_t back = NF_SLOTS; back >= 1; back--)
			if (run >= x->first + back)
				pend(x, run - back, &f);
	}
	if (!f.previous)
		pend(x, run, &f);
	return IW_OK;
}

/* Confirms, minimises and writes the queued findings, oldest run first. */
static void fz_handle(fz *x)
{
	const nf_opts *o = x->o;
	iw_err e;
	for (size_t a = 0; a < x->npend; a++)
		for (size_t b = a + 1; b < x->npend; b++)
			if (x->pend[b].run < x->pend[a].run) {
				fz_pend t = x->pend[a];
				x->pend[a] = x->pend[b];
				x->pend[b] = t;
			}
	for (size_t i = 0; i < x->npend && x->nfound < o->max_findings; i++) {
		nf_finding f = x->pend[i].f;
		const nf_prog *cand = x->ring[x->pend[i].run % RING];
		if (cand->run != x->pend[i].run || !cand->n)
			continue;
		if (seen_sig(x, f.kind, f.req))
			continue;
		nf_finding got, fin;
		if (!nf_confirm(x->s, cand, &f, 3, &got, &e)) {
			if (o->log && !(f.kind == NF_F_CRASH || f.kind == NF_F_DEAD))
				fprintf(o->log, "%siwspec fuzz: run %llu: %s (%s) did not reproduce: not reported\n",
					o->progress ? "\n" : "", (unsigned long long)cand->run, f.detail, f.req);
			continue;
		}
		memcpy(x->min, cand, sizeof *x->min);
		fin = got;
		if (!o->no_minimize)
			nf_minimize(x->s, cand, &got, 400, x->min, &fin, &e);
		bool dup = seen_sig(x, fin.kind, fin.req);
		add_sig(x, f.kind, f.req);
		add_sig(x, got.kind, got.req);
		add_sig(x, fin.kind, fin.req);
		if (dup)
			continue;
		x->nfound++;
		x->status = IW_EXIT_FAIL;
		if (o->log)
			fprintf(o->log, "%siwspec fuzz: FINDING %u (run %llu, %zu -> %zu actions): %s [%s] %s\n",
				o->progress ? "\n" : "", x->nfound, (unsigned long long)cand->run, cand->n, x->min->n,
				nf_fkind_name(fin.kind), fin.req, fin.detail);
		if (o->out_dir && nf_write_finding(x->s, o->out_dir, x->nfound, x->min, &fin, &e) != IW_OK)
			fprintf(stderr, "iwspec fuzz: cannot write finding %u: %s\n", x->nfound, e.msg);
		else if (o->out_dir && o->log)
			fprintf(o->log, "iwspec fuzz:   written to %s/finding-%u/ (case.iwt, seed.txt, capture.pcap)\n",
				o->out_dir, x->nfound);
	}
	x->npend = 0;
}

static void fz_progress(const fz *x, int64_t t0, bool final)
{
	const nf_opts *o = x->o;
	if (!o->progress && !final)
		return;
	const nf_stats *st = nf_session_stats(x->s);
	FILE *f = o->progress_out;
	double secs = (double)(iw_net_now_ms() - t0) / 1000.0;
	unsigned have, total;
	nf_cov_counts(&st->cov, &have, &total);
	bool tty = isatty(fileno(f));
	fprintf(f, "%sfuzz: %llu runs, %.0f runs/s, %u finding%s, coverage %u/%u states+events+error codes%s",
		tty && !final ? "\r" : "", (unsigned long long)st->runs, secs > 0 ? (double)st->runs / secs : 0.0,
		x->nfound, x->nfound == 1 ? "" : "s", have, total, final || !tty ? "\n" : "   ");
	fflush(f);
}

int cmd_fuzz(int argc, char **argv)
{
	static const struct option opts[] = {
		{"dut", required_argument, 0, 'D'},       {"dut-config", required_argument, 0, 'C'},
		{"profile", required_argument, 0, 'p'},   {"role", required_argument, 0, 'r'},
		{"mutant", required_argument, 0, 'm'},    {"seed", required_argument, 0, 'S'},
		{"runs", required_argument, 0, 'n'},      {"time", required_argument, 0, 't'},
		{"out", required_argument, 0, 'o'},       {"timeout", required_argument, 0, 'T'},
		{"max-findings", required_argument, 0, 'M'}, {"no-minimize", no_argument, 0, 'N'},
		{"progress", no_argument, 0, 'P'},        {"no-progress", no_argument, 0, 'Q'},
		{"quiet", no_argument, 0, 'q'},           {"bench", no_argument, 0, 'B'},
		{"first-run", required_argument, 0, 'F'},
		{"help", no_argument, 0, 'h'},            {0, 0, 0, 0},
	};
	const char *dut = NULL, *config = NULL, *profile = NULL, *role = NULL, *mutant = NULL;
	nf_opts o;
	memset(&o, 0, sizeof o);
	o.seed = 1;
	o.out_dir = "out/fuzz";
	o.progress = isatty(STDERR_FILENO);
	o.log = stderr;
	o.progress_out = stderr;
	bool do_bench = false, quiet = false;
	uint64_t first = 0;
	int c;
	optind = 1;
	opterr = 0;
	iw_err e;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'D': dut = optarg; break;
		case 'C': config = optarg; break;
		case 'p': profile = optarg; break;
		case 'r': role = optarg; break;
		case 'm': mutant = optarg; break;
		case 'S':
		case 'n':
		case 'M':
		case 'F': {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(optarg, &end, 0);
			if (errno || *end || !*optarg || optarg[0] == '-')
				return bad("'%s' is not a number", optarg);
			if (c == 'S')
				o.seed = v;
			else if (c == 'n')
				o.runs = v;
			else if (c == 'F')
				first = v;
			else
				o.max_findings = (unsigned)v;
			break;
		}
		case 't':
		case 'T': {
			int64_t ms;
			if (iw_parse_duration(optarg, &ms, &e) || ms <= 0)
				return bad("'%s' is not a duration (like 500ms, 30s, 5m)", optarg);
			if (c == 't')
				o.time_ms = ms;
			else
				o.timeout_ms = ms;
			break;
		}
		case 'o': o.out_dir = optarg; break;
		case 'N': o.no_minimize = true; break;
		case 'P': o.progress = true; break;
		case 'Q': o.progress = false; break;
		case 'q': quiet = true; break;
		case 'B': do_bench = true; break;
		case 'h': usage(stdout); return IW_EXIT_OK;
		default: return bad("unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	/* Every run makes two connection models (ours and, in-process, the built-in DUT's) of a
	 * few hundred KiB each: keep freed memory in the heap, or every run pays page faults
	 * (docs/fuzzing-network.md, "Speed"). */
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	if (do_bench)
		return bench(o.time_ms > 0 ? o.time_ms : 6000);
	if (quiet)
		o.log = NULL;
	if (o.runs == 0 && o.time_ms == 0)
		o.time_ms = 10000;
	if (o.max_findings == 0)
		o.max_findings = 10;
	iw_dut_config_default(&o.dut);
	if (config && iw_dut_config_load(&o.dut, config, &e)) {
		fprintf(stderr, "iwspec fuzz: %s\n", e.msg);
		return IW_EXIT_USAGE;
	}
	if (dut && iw_dut_config_set(&o.dut, "dut", dut, &e))
		return bad("%s", e.msg);
	if (profile && iw_dut_config_set(&o.dut, "profile", profile, &e))
		return bad("%s", e.msg);
	if (role && iw_dut_config_set(&o.dut, "role", role, &e))
		return bad("%s", e.msg);
	if (mutant) {
		if (strncmp(o.dut.dut, "ref", 3))
			return bad("--mutant '%s' applies to the built-in DUT (--dut ref)", mutant);
		if (iw_dut_config_set(&o.dut, "mutant", mutant, &e))
			return bad("%s", e.msg);
		if (!strncmp(mutant, "crash-", 6))
			exec_for_crash(&o, mutant);
	}
	nf_session *s;
	if (nf_session_open(&s, &o, &e) != IW_OK) {
		fprintf(stderr, "iwspec fuzz: %s\n", e.msg);
		return IW_EXIT_ERROR;
	}
	const nf_dutinfo *d = nf_session_dut(s);
	if (o.log)
		fprintf(o.log, "iwspec fuzz: DUT %s (%s, %s): markers %s, CRC %s, reflector %s, greeting %s; seed %llu\n",
			o.dut.dut, d->profile->name, d->role == IW_ROLE_RESPONDER ? "responder" : "initiator",
			d->markers ? "on" : "off", d->crc ? "on" : "off", d->reflector ? "yes" : "no",
			d->greeting ? "yes" : "no", (unsigned long long)o.seed);
	fz x;
	memset(&x, 0, sizeof x);
	x.o = &o;
	x.s = s;
	x.first = first;
	x.min = malloc(sizeof *x.min);
	bool oom = !x.min;
	for (int i = 0; i < RING; i++)
		oom |= !(x.ring[i] = malloc(sizeof *x.ring[i]));
	if (oom) {
		fz_free(&x);
		nf_session_close(s);
		fprintf(stderr, "iwspec fuzz: out of memory\n");
		return IW_EXIT_ERROR;
	}
	x.status = IW_EXIT_OK;
	int64_t t0 = iw_net_now_ms(), last = t0;
	bool started[NF_SLOTS] = {false};
	uint64_t srun[NF_SLOTS] = {0};
	uint64_t run;
	/* Two runs in flight: while the DUT answers one, the next one is sent. Findings are
	 * handled (confirmed, minimised, written) with nothing in flight. */
	for (run = first;; run++) {
		int k = (int)(run % NF_SLOTS);
		if (started[k]) {
			started[k] = false;
			if (fz_finish(&x, k, srun[k]) != IW_OK)
				break;
		}
		if (x.npend) {
			/* The others in flight first, oldest first, so nothing runs while it is handled. */
			for (int j = 1; j < NF_SLOTS; j++) {
				int m = (k + j) % NF_SLOTS;
				if (started[m]) {
					started[m] = false;
					fz_finish(&x, m, srun[m]);
				}
			}
			fz_handle(&x);
		}
		int64_t now = iw_net_now_ms();
		if ((o.runs && run - first >= o.runs) || (o.time_ms && now - t0 >= o.time_ms) ||
		    x.nfound >= o.max_findings || x.status == IW_EXIT_ERROR)
			break;
		if (now - last >= 500) {
			fz_progress(&x, t0, false);
			last = now;
		}
		nf_prog *p = x.ring[run % RING];
		nf_generate(p, d, o.seed, run);
		if (nf_run_start(s, p, k, &e) != IW_OK) {
			fprintf(stderr, "\niwspec fuzz: %s\n", e.msg);
			x.status = IW_EXIT_ERROR;
			break;
		}
		started[k] = true;
		srun[k] = run;
	}
	for (int k = 0; k < NF_SLOTS; k++) {
		int j = (int)((run + (uint64_t)k) % NF_SLOTS);
		if (started[j]) {
			started[j] = false;
			fz_finish(&x, j, srun[j]);
		}
	}
	if (x.npend && x.status != IW_EXIT_ERROR && x.nfound < o.max_findings)
		fz_handle(&x);
	int status = x.status;
	unsigned nfound = x.nfound;
	(void)nfound;
	fz_progress(&x, t0, true);
	fz_free(&x);
	nf_session_close(s);
	return status;
}
