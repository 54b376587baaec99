/*
 * cmd_fuzz.c - `iwspec fuzz`: the network fuzzer (netfuzz.h, docs/fuzzing-network.md). Reads
 * the options and checks every one of them before any work starts (a bad --out, seed or count
 * is exit 2 before the DUT is touched), then calibrates the DUT and hands over to the loop
 * (cmd_fuzz_loop.c).
 *
 *   iwspec fuzz --dut DUT [--profile P] --seed S [--runs N] [--time T] [--out DIR]
 *               [--kernel-coverage HOST:PORT [--kernel-coverage-every N] [--corpus DIR]
 *               [--kernel-coverage-no-feedback]]
 *   iwspec fuzz --bench [--time T]
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_args.h"
#include "cmd_fuzz.h"
#include "interrupt.h"
#include "net.h"
#include "ref_faults.h"

static void usage(FILE *f)
{
	char names[160];
	iw_profile_names(names, sizeof names);
	fprintf(f,
		"usage: iwspec fuzz [--dut DUT] [--dut-config FILE] [--profile P] [--role ROLE] [--mutant NAME]\n"
		"                   [--seed S] [--runs N] [--time T] [--out DIR] [--timeout D]\n"
		"                   [--max-findings N] [--no-minimize] [--first-run R] [--progress|--no-progress]\n"
		"                   [--quiet] [--shard I/N] [--console FILE --console-mark HOST:PORT]\n"
		"                   [--kernel-coverage HOST:PORT [--kernel-coverage-every N] [--corpus DIR]\n"
		"                    [--kernel-coverage-no-feedback]]\n"
		"       iwspec fuzz --bench [--time T]\n"
		"       iwspec fuzz --console-reports FILE\n"
		"       iwspec fuzz --merge DIR... [--out OUT]\n"
		"\n"
		"Drives a DUT over TCP with randomized, structure-aware sequences (startup frames with mutated\n"
		"fields, FPDUs with mutated headers, lengths, markers, CRCs, DDP placement fields, RDMAP opcodes,\n"
		"Terminates, out-of-order segments, write cuts and delays). The engine's connection model judges\n"
		"every reaction; each finding is confirmed, minimised and written to DIR/finding-N/ as a case\n"
		"file (iwspec run --cases DIR/finding-N/case.iwt replays it), seed.txt and capture.pcap.\n"
		"It begins with a calibration: a conforming startup and a Send. A DUT that cannot complete\n"
		"a conforming startup (no startup frame, or one that never completes) stops it, with the\n"
		"engine's verdict on what the DUT sent and the requirement (exit status 3). What the\n"
		"DUT configuration declares of its application (ulp, reflector) wins over what calibration\n"
		"sees; a disagreement is said in one line before the fuzzing.\n"
		"\n"
		"  --dut DUT          ref (the built-in DUT, default), tcp:HOST:PORT or exec:'COMMAND' (as iwspec run)\n"
		"  --dut-config FILE  the DUT's declaration (docs/dut-config.md)\n"
		"  --profile P        %s\n"
		"  --role ROLE        the DUT's role: responder (default) or initiator\n"
		"  --mutant NAME      the built-in DUT with an injected fault (iwspec mutants --list names\n"
		"                     them; crash mutants run as exec:'iwspec serve --mutant NAME', so a crash\n"
		"                     is a process crash)\n"
		"  --seed S           the seed, 0..2^64-1, decimal or hex with 0x as for run (default 1):\n"
		"                     the same seed gives the same inputs\n"
		"  --runs N           stop after N runs (one TCP connection each), N >= 1\n"
		"  --time T           stop after T (e.g. 30s, 5m) of wall time, calibration included; default\n"
		"                     10s when --runs is not given. With both, whichever comes first. At T\n"
		"                     no run starts; runs still in flight get one reaction timeout, then are\n"
		"                     cut and not judged. A finding seen by then is never dropped: its\n"
		"                     confirmation, minimisation and recording have allowances of their own\n"
		"                     past T (docs/fuzzing-network.md); one a signal cuts is written as\n"
		"                     DIR/unconfirmed-N/seed.txt\n"
		"  --out DIR          the directory findings go to (default out/fuzz; created when needed)\n"
		"  --timeout D        how long the DUT may stay silent while an answer is due (default 250ms\n"
		"                     for ref, 2s otherwise; a DUT whose startup frame came slowly gets twice\n"
		"                     its longest pause). A DUT is dead only when a fresh connection is refused\n"
		"                     or sees no octet for 4 x D + 1s; one that keeps sending, however slowly,\n"
		"                     is alive\n"
		"  --max-findings N   stop after N distinct findings (default 10), N >= 1\n"
		"  --no-minimize      report findings as found\n"
		"  --first-run R      begin with run R of the seed (seed.txt names the run of a finding)\n"
		"  --shard I/N        shard I of N (from 1) of a campaign spread over machines: seed S*N + I - 1\n"
		"                     for --seed S, so the shards of one seed never make each other's runs\n"
		"  --merge DIR...     merge the shards' output directories into --out (default out/fuzz-merged):\n"
		"                     OUT/corpus/corpus.bin (the union of arcs, each kept program once) and\n"
		"                     OUT/findings.tsv (each finding once, with how many shards saw it)\n"
		"  --progress         a progress line (default on a terminal): runs/s, findings, coverage\n"
		"  --no-progress      no progress line\n"
		"  --quiet            no log of findings and notes on stderr (the summary and DIR stay)\n"
		"  --console FILE     a guest kernel's console (the file qemu writes its serial port to):\n"
		"                     a BUG, WARNING, Oops, refcount_t, KASAN or UBSAN report, an RCU stall or a\n"
		"                     hung task it shows is a finding of kind kernel (DIR/kernel-N/: the console\n"
		"                     excerpt and the runs it may come from as cases); needs --console-mark\n"
		"  --console-mark HOST:PORT  the guest's iwspec-reflector --agent: each run is marked in the\n"
		"                     console first (`mark TEXT`), so a report is tied to the run before it;\n"
		"                     a guest whose agent stops answering ends the fuzzing (exit 3 without findings)\n"
		"  --kernel-coverage HOST:PORT  the guest's agent (as --console-mark): after each run it is asked\n"
		"                     for siw.ko's arc coverage (coverage-arcs); a run that reaches arcs no run\n"
		"                     reached before is kept (in memory, up to %d programs: a new one replaces\n"
		"                     the one that brought the fewest new arcs), and half the runs then mutate a\n"
		"                     kept program instead of generating a fresh one (seed.txt of a finding\n"
		"                     says which). DIR/kcov.tsv gets a line per read (ms, runs, arcs reached,\n"
		"                     arcs in all, programs kept) and the summary \", kernel arcs H/T (K kept)\".\n"
		"                     An agent that does not answer within %d s, or answers error, is said\n"
		"                     once; the fuzzing goes on without feedback\n"
		"  --kernel-coverage-every N  ask after every N runs (1..%d, default 1): the N runs are\n"
		"                     one batch, kept together when they reach new arcs\n"
		"  --kernel-coverage-no-feedback  read and record the coverage (kcov.tsv, the union in\n"
		"                     --corpus) but keep and mutate nothing: the same campaign unsteered,\n"
		"                     to compare with\n"
		"  --corpus DIR       load the kept programs and the union of arcs from DIR/corpus.bin (when\n"
		"                     it is there) and write them back each time they change, so the next\n"
		"                     campaign or segment goes on from them (DIR is created when needed)\n"
		"  --console-reports FILE  print every kernel report of a console file as --console reads it\n"
		"                     (kind, signature and mark, tab-separated, then its lines) and exit: 0 none, 1 some\n"
		"  --bench            measure the bare loopback rate (connect + 20-octet exchange + close) and\n"
		"                     the fuzzer's rate against the built-in DUT, and print their ratio\n"
		"\n"
		"SIGINT or SIGTERM stops it: the summary so far is printed, findings written so far stay.\n"
		"\n"
		"With --merge: 0 merged, 2 a directory that is not one, or a corpus of another build, 3 a file\n"
		"that cannot be written.\n"
		"\n"
		"exit status: 0 no finding (at least one run judged), 1 findings, 2 bad usage (nothing was\n"
		"run), 3 the DUT could not be fuzzed (unreachable, no conforming startup, --time ran out during\n"
		"calibration or before any run was judged, or it stopped answering for good before any\n"
		"finding), 130 interrupted by SIGINT (143 by SIGTERM)\n",
		names, NF_CORPUS_MAX, NF_KCOV_TIMEOUT_MS / 1000, NF_KCOV_EVERY_MAX);
}

static int bad(const char *fmt, const char *a)
{
	fprintf(stderr, "iwspec fuzz: ");
	fprintf(stderr, fmt, a);
	fprintf(stderr, " (see iwspec fuzz --help)\n");
	return IW_EXIT_USAGE;
}

/* A decimal number: digits only (no sign, no blanks, no base prefix), within 64 bits. */
static bool parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		unsigned d = (unsigned)(*s - '0');
		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	return true;
}

/* An option's directory (opt: "--out", what: "the findings", eg: "out/fuzz") exists or can be
 * created: checked now, so a finding is never made and then lost. Nothing is created here. */
static int check_dir(const char *opt, const char *dir, const char *what, const char *eg)
{
	struct stat st;
	char msg[300];
	if (!*dir) {
		snprintf(msg, sizeof msg, "%s '%%s': give a directory for %s, e.g. %s %s", opt, what, opt, eg);
		return bad(msg, dir);
	}
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			snprintf(msg, sizeof msg, "%s '%%s' is a file, not a directory: give a directory for %s (it is "
				 "created if missing), e.g. %s %s", opt, what, opt, eg);
			return bad(msg, dir);
		}
		if (access(dir, W_OK | X_OK)) {
			snprintf(msg, sizeof msg, "%s '%%s': the directory is not writable: give one you can write to", opt);
			return bad(msg, dir);
		}
		return IW_EXIT_OK;
	}
	if (errno != ENOENT && errno != ENOTDIR) {
		snprintf(msg, sizeof msg, "%s '%%s': cannot be used as a directory: give another path", opt);
		return bad(msg, dir);
	}
	/* The nearest existing ancestor must be a writable directory. */
	char up[PATH_MAX];
	snprintf(up, sizeof up, "%s", dir);
	for (;;) {
		char *slash = strrchr(up, '/');
		while (slash && slash > up && slash[1] == '\0') {
			*slash = '\0';
			slash = strrchr(up, '/');
		}
		if (!slash)
			snprintf(up, sizeof up, ".");
		else if (slash == up)
			up[1] = '\0';
		else
			*slash = '\0';
		if (stat(up, &st) == 0)
			break;
		if ((errno != ENOENT && errno != ENOTDIR) || !strcmp(up, ".") || !strcmp(up, "/")) {
			snprintf(msg, sizeof msg, "%s '%%s': its parent cannot be used: give another directory", opt);
			return bad(msg, dir);
		}
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "iwspec fuzz: %s '%s': '%s' is a file, so the directory cannot be created: give "
			"another directory (see iwspec fuzz --help)\n", opt, dir, up);
		return IW_EXIT_USAGE;
	}
	if (access(up, W_OK | X_OK)) {
		fprintf(stderr, "iwspec fuzz: %s '%s': '%s' is not writable, so the directory cannot be created: "
			"give another directory (see iwspec fuzz --help)\n", opt, dir, up);
		return IW_EXIT_USAGE;
	}
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

/* Calibrates the DUT and fuzzes it; the signal handlers are ours meanwhile. kern: the guest
 * kernel's console (NULL: none), closed here. */
static int fuzz(nf_opts *o, uint64_t first, int64_t t0, fz_kernel *kern)
{
	iw_err e;
	nf_session *s;
	/* Calibration's own connections are marked too: a report they cause is not a run's. */
	if (kern && fzk_mark(kern, &e, "fuzz calibration")) {
		fprintf(stderr, "iwspec fuzz: %s: the guest is dead or stuck\n", e.msg);
		fzk_close(kern);
		return IW_EXIT_ERROR;
	}
	iw_interrupt_install();
	int rc = nf_session_open(&s, o, &e);
	if (rc != IW_OK) {
		int sig = iw_interrupt_signal();
		iw_interrupt_uninstall();
		fprintf(stderr, "iwspec fuzz: %s\n", e.msg);
		if (sig) {
			fprintf(stderr, "iwspec fuzz: interrupted by %s during calibration: no run was made, 0 findings\n",
				sig == SIGTERM ? "SIGTERM" : "SIGINT");
			fzk_close(kern);
			return 128 + sig;
		}
		if (rc == IW_ETRUNC && o->log)
			fprintf(o->log, "iwspec fuzz: no run was made: calibration took all of --time\n");
		fzk_close(kern);
		return IW_EXIT_ERROR;
	}
	const nf_dutinfo *d = nf_session_dut(s);
	if (o->log) {
		fprintf(o->log, "iwspec fuzz: DUT %s (%s, %s): markers %s, CRC %s%s, reflector %s, greeting %s; seed %llu\n",
			o->dut.dut, d->profile->name, d->role == IW_ROLE_RESPONDER ? "responder" : "initiator",
			d->markers ? "on" : "off", d->crc ? "on" : "off",
			d->crc_off ? " (in its no-CRC mode, crc = optional-off: C=0 where the harness sends C=0)" : "",
			d->reflector ? "yes" : "no", d->greeting ? "yes" : "no", (unsigned long long)o->seed);
		if (d->ulp_note[0])
			fprintf(o->log, "iwspec fuzz: %s\n", d->ulp_note);
		if (d->slow)
			fprintf(o->log, "iwspec fuzz: the DUT is slow (up to %lld ms between the octets of its startup "
				"frame): it may stay silent for %lld ms while an answer is due\n", (long long)d->pace_ms,
				(long long)d->idle_ms);
		if (d->startup[0])
			fprintf(o->log, "iwspec fuzz: calibration: the engine rejects the DUT's startup frame: %s; the "
				"runs report it\n", d->startup);
	}
	int status = fz_loop(o, s, first, t0, kern);
	nf_session_close(s);
	iw_interrupt_uninstall();
	fzk_close(kern);
	return status;
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
		{"console", required_argument, 0, 'K'},   {"console-mark", required_argument, 0, 'A'},
		{"console-reports", required_argument, 0, 'R'},
		{"kernel-coverage", required_argument, 0, 'k'}, {"kernel-coverage-every", required_argument, 0, 'e'},
		{"kernel-coverage-no-feedback", no_argument, 0, 'f'},
		{"corpus", required_argument, 0, 'c'},
		{"shard", required_argument, 0, 's'}, {"merge", no_argument, 0, 'g'},
		{"help", no_argument, 0, 'h'},            {0, 0, 0, 0},
	};
	int64_t t0 = iw_net_now_ms(); /* --time counts from here: calibration is part of it */
	const char *dut = NULL, *config = NULL, *profile = NULL, *role = NULL, *mutant = NULL;
	const char *console = NULL, *console_mark = NULL;
	nf_kcov_cfg kcfg;
	memset(&kcfg, 0, sizeof kcfg);
	const char *every_arg = NULL;
	nf_opts o;
	memset(&o, 0, sizeof o);
	o.seed = 1;
	o.out_dir = "out/fuzz";
	o.progress = isatty(STDERR_FILENO);
	o.log = stderr;
	o.progress_out = stderr;
	o.max_findings = 10;
	bool do_bench = false, quiet = false;
	bool merge = false, out_given = false;
	unsigned shard_i = 0, shard_n = 0;
	const char *shard_arg = NULL;
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
		case 'S': {
			iw_err se;
			if (iw_cli_parse_seed("--seed", optarg, &o.seed, &se))
				return bad("%s", se.msg);
			break;
		}
		case 'F':
			if (!parse_u64(optarg, &first))
				return bad("--first-run '%s': give a decimal run number (0 is the first run)", optarg);
			break;
		case 'n':
			if (!parse_u64(optarg, &o.runs) || o.runs == 0)
				return bad("--runs '%s': give a number of runs of 1 or more (or leave --runs out and "
					   "let --time decide)", optarg);
			break;
		case 'M': {
			uint64_t v;
			if (!parse_u64(optarg, &v) || v == 0 || v > UINT_MAX)
				return bad("--max-findings '%s': give a number of findings of 1 or more", optarg);
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
		case 'o': o.out_dir = optarg; out_given = true; break;
		case 'g': merge = true; break;
		case 's': {
			char extra;
			shard_arg = optarg;
			if (sscanf(optarg, "%u/%u%c", &shard_i, &shard_n, &extra) != 2 || shard_n == 0 || shard_n > 1000000 ||
			    shard_i == 0 || shard_i > shard_n)
				return bad("--shard '%s': give I/N, shard I of N counted from 1 (e.g. --shard 2/3)", optarg);
			break;
		}
		case 'N': o.no_minimize = true; break;
		case 'P': o.progress = true; break;
		case 'Q': o.progress = false; break;
		case 'q': quiet = true; break;
		case 'B': do_bench = true; break;
		case 'K': console = optarg; break;
		case 'A': console_mark = optarg; break;
		case 'k': kcfg.agent = optarg; break;
		case 'e': {
			uint64_t v;
			if (!parse_u64(optarg, &v) || v == 0 || v > NF_KCOV_EVERY_MAX) {
				char msg[160];
				snprintf(msg, sizeof msg, "--kernel-coverage-every '%%s': give a number of runs from 1 to %d "
					 "(the programs of a batch are kept until its read)", NF_KCOV_EVERY_MAX);
				return bad(msg, optarg);
			}
			kcfg.every = (unsigned)v;
			every_arg = optarg;
			break;
		}
		case 'c': kcfg.corpus_dir = optarg; break;
		case 'f': kcfg.measure_only = true; break;
		case 'R': {
			int n = fzk_print_reports(optarg, stdout, &e);
			if (n < 0) {
				fprintf(stderr, "iwspec fuzz: %s\n", e.msg);
				return IW_EXIT_USAGE;
			}
			return n ? IW_EXIT_FAIL : IW_EXIT_OK;
		}
		case 'h': usage(stdout); return IW_EXIT_OK;
		default: return bad("unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (merge) {
		if (optind == argc)
			return bad("%s", "--merge needs the shards' output directories: iwspec fuzz --merge DIR... [--out OUT]");
		return fz_merge(argv + optind, argc - optind, out_given ? o.out_dir : "out/fuzz-merged", stdout);
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	/* Shard I of N fuzzes seed S·N + I - 1: N machines given one --seed never make each other's runs,
	 * and every shard's seed.txt names the seed that replays it. */
	if (shard_n) {
		if (o.seed > (UINT64_MAX - shard_i) / shard_n)
			return bad("--seed with --shard '%s': the shard's seed (S*N + I - 1) does not fit in 64 bits: give a "
				   "smaller --seed", shard_arg);
		o.seed = o.seed * shard_n + shard_i - 1;
		if (o.log)
			fprintf(o.log, "iwspec fuzz: shard %u/%u: seed %llu\n", shard_i, shard_n, (unsigned long long)o.seed);
	}
	/* Every run makes two connection models (ours and, in-process, the built-in DUT's) of a
	 * few hundred KiB each: keep freed memory in the heap, or every run pays page faults
	 * (docs/fuzzing-network.md, "Speed"). */
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	if (do_bench)
		return fz_bench(o.time_ms > 0 ? o.time_ms : 6000);
	int rc = check_dir("--out", o.out_dir, "the findings", "out/fuzz");
	if (rc)
		return rc;
	if (quiet)
		o.log = NULL;
	if (o.runs == 0 && o.time_ms == 0)
		o.time_ms = 10000;
	if (o.time_ms)
		o.deadline_ms = t0 + o.time_ms;
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
	fz_kernel *kern = NULL;
	if (!console != !console_mark)
		return bad("%s", console ? "--console needs --console-mark HOST:PORT (the guest's agent, which marks each "
			   "run in the console)" : "--console-mark needs --console FILE (the guest's console)");
	if (every_arg && !kcfg.agent)
		return bad("--kernel-coverage-every '%s' needs --kernel-coverage HOST:PORT (the guest's agent to ask)",
			   every_arg);
	if (kcfg.measure_only && !kcfg.agent)
		return bad("%s", "--kernel-coverage-no-feedback needs --kernel-coverage HOST:PORT (the coverage to read)");
	if (kcfg.corpus_dir && !kcfg.agent)
		return bad("--corpus '%s' needs --kernel-coverage HOST:PORT: the corpus is what its feedback keeps",
			   kcfg.corpus_dir);
	if (kcfg.corpus_dir && (rc = check_dir("--corpus", kcfg.corpus_dir, "the kept programs", "out/corpus")))
		return rc;
	if (kcfg.agent) {
		kcfg.out_dir = o.out_dir;
		if (nf_kcov_open(&o.kcov, &kcfg, &e))
			return bad("%s", e.msg);
		const nf_corpus *kc = nf_kcov_corpus(o.kcov);
		if (o.log)
			fprintf(o.log, "iwspec fuzz: kernel coverage from %s after every %u run%s; %s%s%s: %zu kept program%s, "
				"%llu/%llu arcs\n", kcfg.agent, kcfg.every ? kcfg.every : 1, kcfg.every > 1 ? "s" : "",
				kcfg.corpus_dir ? "corpus " : "no --corpus (kept in memory)", kcfg.corpus_dir ? kcfg.corpus_dir : "",
				kcfg.corpus_dir ? (kc->n || kc->arcs ? " loaded" : " (new)") : "", kc->n, kc->n == 1 ? "" : "s",
				(unsigned long long)kc->hit, (unsigned long long)kc->total);
	}
	if (console && fzk_open(&kern, console, console_mark, &e)) {
		fprintf(stderr, "iwspec fuzz: %s\n", e.msg);
		nf_kcov_close(o.kcov);
		return IW_EXIT_USAGE;
	}
	rc = fuzz(&o, first, t0, kern);
	nf_kcov_close(o.kcov);
	return rc;
}
