/*
 * cmd_fuzz_kernel.c - kernel findings of `iwspec fuzz --console FILE --console-mark HOST:PORT`
 * (docs/fuzzing-network.md, "Kernel findings"). The loop marks the guest's console before each
 * run, and before it confirms, minimises or records a finding (fzk_mark); a report the console
 * shows after a mark (kernel_console.h) is tied to what that mark names, and becomes a finding
 * of kind `kernel` the first time its signature is seen:
 *
 *   DIR/kernel-N/console.txt      the report as the console has it
 *   DIR/kernel-N/seed.txt         kind, signature, the mark, the candidate cases, whether the
 *                                 report came again when a candidate was recorded
 *   DIR/kernel-N/case-*.iwt       the candidates, most likely first: the case of the finding
 *                                 being handled (already minimised) when the mark was a
 *                                 confirm/minimise/record mark, then the programs of the runs
 *                                 that were in flight (the marked run and the NF_SLOTS - 1 before
 *                                 it), each recorded once more as a case
 *
 * With --no-minimize the candidate runs are named in seed.txt and not recorded.
 *
 * The kernel that reported is tainted, so what its later runs show is weak evidence: a kernel
 * finding is confirmed by replaying its candidates on a fresh guest (tools/fuzz-siw.sh), not
 * here. The recording runs here are marked too ("kernel N record run R"), and seed.txt says
 * whether the same signature came back after one of them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atomic_file.h"
#include "cmd_fuzz.h"
#include "kernel_console.h"
#include "net.h"

#define FZK_MAX_SIGS 32
#define FZK_QUEUE 16
#define FZK_QUIET_MS 1500    /* a report with no end line is over after this much silence */
#define FZK_SETTLE_MS 2000   /* after a recording run: the kernel's deferred work (a listener torn down) */

struct fz_kernel {
	kc_console con;
	char host[IW_NET_HOST_MAX];
	uint16_t port;
	char sigs[FZK_MAX_SIGS][200];
	unsigned nsigs, nfound, repeats;
	kc_report queue[FZK_QUEUE];
	size_t nqueue;
	bool mark_failed;
};

int fzk_open(fz_kernel **out, const char *console, const char *agent, iw_err *e)
{
	*out = NULL;
	fz_kernel *k = calloc(1, sizeof *k);
	if (!k)
		return iw_errf(e, IW_ENOSPC, "out of memory");
	if (iw_net_parse_hostport(agent, k->host, sizeof k->host, &k->port, e)) {
		free(k);
		return iw_errf(e, IW_EINVAL, "--console-mark '%s': give the guest agent's HOST:PORT (%s)", agent, e->msg);
	}
	if (kc_console_open(&k->con, console, e)) {
		free(k);
		return IW_EINVAL;
	}
	*out = k;
	return IW_OK;
}

void fzk_close(fz_kernel *k)
{
	free(k);
}

unsigned fzk_found(const fz_kernel *k)
{
	return k ? k->nfound : 0;
}

unsigned fzk_repeats(const fz_kernel *k)
{
	return k ? k->repeats : 0;
}

int fzk_mark(fz_kernel *k, iw_err *e, const char *fmt, ...)
{
	if (!k)
		return IW_OK;
	char text[KC_MARK_MAX + 1];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	/* Generous: a guest without KVM answers slowly when the host is loaded. */
	return kc_mark(k->host, k->port, text, 5000, e);
}

static bool seen(const fz_kernel *k, const char *sig)
{
	for (unsigned i = 0; i < k->nsigs; i++)
		if (!strcmp(k->sigs[i], sig))
			return true;
	return false;
}

/* Reads the console into the queue; reports of a signature seen before are counted only. */
static void collect(fz_kernel *k, int64_t quiet_ms)
{
	kc_report got[8];
	size_t n = kc_console_poll(&k->con, quiet_ms, got, 8);
	for (size_t i = 0; i < n; i++) {
		if (seen(k, got[i].sig)) {
			k->repeats++;
			continue;
		}
		bool queued = false;
		for (size_t j = 0; j < k->nqueue; j++)
			queued |= !strcmp(k->queue[j].sig, got[i].sig);
		if (!queued && k->nqueue < FZK_QUEUE)
			k->queue[k->nqueue++] = got[i];
	}
}

bool fzk_pending(fz_kernel *k)
{
	if (!k)
		return false;
	collect(k, FZK_QUIET_MS);
	return k->nqueue > 0;
}

static void sleep_ms(int64_t ms)
{
	struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* Records program p once more as a case (the run is marked "kernel N record run R"), writes it
 * to path, and says whether the report of signature sig came back meanwhile. */
static int record(fz_kernel *k, nf_session *s, unsigned n, const nf_prog *p, const char *sig, const char *path,
		  bool *again, iw_err *e)
{
	*again = false;
	iw_err me;
	fzk_mark(k, &me, "kernel %u record run %llu", n, (unsigned long long)p->run);
	nf_finding f;
	memset(&f, 0, sizeof f);
	int64_t was = nf_session_allow(s, nf_session_run_bound(s));
	nf_session_record(s, true);
	nf_session_confirming(s, true); /* a DUT this run breaks is restarted (and torn down) at once */
	int rc = nf_run(s, p, &f, e);
	nf_session_confirming(s, false);
	nf_session_record(s, false);
	nf_session_set_deadline(s, was);
	if (rc)
		return rc;
	char *text = NULL;
	rc = nf_case_text(s, p, &f, n, 0, NULL, &text, e);
	if (rc)
		return rc;
	/* The id and title say what the case is: a candidate for a kernel report. */
	char id[96];
	snprintf(id, sizeof id, "id: fuzz.kernel.%llu.%u.run%llu", (unsigned long long)p->seed, n,
		 (unsigned long long)p->run);
	iw_atomic_file *af = iw_atomic_open(path, e);
	if (!af) {
		free(text);
		return IW_EINVAL;
	}
	iw_atomic_printf(af, "# iwspec fuzz: a candidate for kernel finding %u (%s): run %llu of seed %llu, as it\n"
			 "# ran; replay it on a fresh guest and watch the console (tools/fuzz-siw.sh does).\n"
			 "# The expectations below are a conforming DUT's reaction to its octets.\n",
			 n, sig, (unsigned long long)p->run, (unsigned long long)p->seed);
	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if (!strncmp(line, "id: ", 4))
			iw_atomic_printf(af, "%s\n", id);
		else if (!strncmp(line, "title: ", 7))
			iw_atomic_printf(af, "title: \"A candidate for kernel finding %u: run %llu of seed %llu\"\n", n,
					 (unsigned long long)p->run, (unsigned long long)p->seed);
		else if (!strncmp(line, "# iwspec fuzz: finding ", 23))
			; /* the network finding's headline does not apply */
		else
			iw_atomic_printf(af, "%.*s\n", (int)len, line);
		line = nl ? nl + 1 : NULL;
	}
	free(text);
	rc = iw_atomic_commit(af, e);
	/* Did it come back? The kernel may report a little after the run (a listener torn down). */
	char want[64];
	snprintf(want, sizeof want, "kernel %u record run %llu", n, (unsigned long long)p->run);
	int64_t until = iw_net_now_ms() + FZK_SETTLE_MS;
	do {
		kc_report got[8];
		sleep_ms(200);
		size_t m = kc_console_poll(&k->con, FZK_QUIET_MS, got, 8);
		for (size_t i = 0; i < m; i++) {
			if (!strcmp(got[i].sig, sig) && !strcmp(got[i].mark, want))
				*again = true;
			else if (!seen(k, got[i].sig) && k->nqueue < FZK_QUEUE)
				k->queue[k->nqueue++] = got[i];
			else
				k->repeats++;
		}
	} while (!*again && iw_net_now_ms() < until);
	return rc;
}

static int copy_file(const char *from, const char *to, iw_err *e)
{
	FILE *f = fopen(from, "rb");
	if (!f)
		return iw_errf(e, IW_EINVAL, "cannot read %s", from);
	char *buf = malloc(1 << 20);
	size_t n = buf ? fread(buf, 1, 1 << 20, f) : 0;
	fclose(f);
	int rc = buf ? iw_write_atomic(to, buf, n, e) : iw_errf(e, IW_ENOSPC, "out of memory");
	free(buf);
	return rc;
}

/* Writes one kernel finding (see the top of the file). */
static void write_one(fz_kernel *k, nf_session *s, const nf_opts *o, const fz_runs *r, const kc_report *rep)
{
	unsigned n = ++k->nfound;
	snprintf(k->sigs[k->nsigs < FZK_MAX_SIGS ? k->nsigs++ : FZK_MAX_SIGS - 1], sizeof k->sigs[0], "%s", rep->sig);
	if (o->log)
		fprintf(o->log, "%siwspec fuzz: KERNEL %u (%s%s%s): %s\n", o->progress ? "\n" : "", n,
			rep->mark[0] ? "after the mark '" : "before any mark", rep->mark, rep->mark[0] ? "'" : "", rep->sig);
	if (!o->out_dir)
		return;
	char dir[1100], path[1300];
	iw_err e;
	snprintf(dir, sizeof dir, "%s/kernel-%u", o->out_dir, n);
	if (iw_mkdir_p(dir, &e)) {
		fprintf(stderr, "iwspec fuzz: cannot write kernel finding %u: %s\n", n, e.msg);
		return;
	}
	snprintf(path, sizeof path, "%s/console.txt", dir);
	if (iw_write_atomic(path, rep->excerpt, strlen(rep->excerpt), &e))
		fprintf(stderr, "iwspec fuzz: kernel finding %u: %s\n", n, e.msg);
	/* The candidates the mark names. */
	unsigned long long run = 0;
	char phase[16] = "";
	unsigned kn = 0;
	bool fuzz_run = sscanf(rep->mark, "fuzz run %llu", &run) == 1 ||
			sscanf(rep->mark, "fuzz end after run %llu", &run) == 1;
	bool handling = !fuzz_run && sscanf(rep->mark, "fuzz %15s run %llu", phase, &run) == 2 &&
			strcmp(phase, "end");
	bool recording = sscanf(rep->mark, "kernel %u record run %llu", &kn, &run) == 2;
	char cases[600] = "", notes[900] = "";
	unsigned ncases = 0;
	bool again_any = false;
	if (handling) {
		unsigned m = r->finding(r->ctx, run);
		if (m) {
			char from[1100];
			snprintf(from, sizeof from, "%s/finding-%u/case.iwt", o->out_dir, m);
			snprintf(path, sizeof path, "%s/case-finding-%u.iwt", dir, m);
			if (copy_file(from, path, &e) == IW_OK) {
				ncases++;
				snprintf(cases + strlen(cases), sizeof cases - strlen(cases), " case-finding-%u.iwt", m);
			}
		}
	}
	uint64_t lo = run, hi = run;
	if (fuzz_run)
		lo = run >= r->first + (NF_SLOTS - 1) ? run - (NF_SLOTS - 1) : r->first;
	if (fuzz_run || handling || recording)
		for (uint64_t x = hi + 1; x-- > lo;) {
			const nf_prog *p = r->prog(r->ctx, x);
			if (!p)
				continue;
			if (o->no_minimize) {
				/* Written as found: the runs are named, not recorded (--first-run R --runs 1). */
				snprintf(notes + strlen(notes), sizeof notes - strlen(notes), "run %llu may be it; ",
					 (unsigned long long)x);
				continue;
			}
			bool again = false;
			snprintf(path, sizeof path, "%s/case-run-%llu.iwt", dir, (unsigned long long)x);
			if (record(k, s, n, p, rep->sig, path, &again, &e) == IW_OK) {
				ncases++;
				snprintf(cases + strlen(cases), sizeof cases - strlen(cases), " case-run-%llu.iwt",
					 (unsigned long long)x);
			} else {
				snprintf(notes + strlen(notes), sizeof notes - strlen(notes), "run %llu not recorded: %.200s; ",
					 (unsigned long long)x, e.msg);
			}
			if (again) {
				again_any = true;
				snprintf(notes + strlen(notes), sizeof notes - strlen(notes),
					 "the report came again after run %llu was recorded; ", (unsigned long long)x);
			}
		}
	iw_atomic_file *af;
	snprintf(path, sizeof path, "%s/seed.txt", dir);
	if (!(af = iw_atomic_open(path, &e))) {
		fprintf(stderr, "iwspec fuzz: kernel finding %u: %s\n", n, e.msg);
		return;
	}
	iw_atomic_printf(af, "kind: kernel\nreport: %s\nsignature: %s\nmark: %s\nseed: %llu\n", rep->kind, rep->sig,
			 rep->mark[0] ? rep->mark : "(none: before the session's first mark)",
			 (unsigned long long)o->seed);
	iw_atomic_printf(af, "cases:%s\n", ncases ? cases : " (none: the mark names no run)");
	iw_atomic_printf(af, "seen-again-when-recorded: %s\n", again_any ? "yes" : "no");
	if (notes[0])
		iw_atomic_printf(af, "notes: %s\n", notes);
	iw_atomic_printf(af, "confirmed: not yet (replay the cases one by one on a fresh guest and watch its console for "
			 "the signature; tools/fuzz-siw.sh does)\n");
	iw_atomic_printf(af, "reproduce: iwspec run --cases %s/<case> --dut-config <the DUT's> on a freshly booted guest\n",
			 dir);
	if (iw_atomic_commit(af, &e))
		fprintf(stderr, "iwspec fuzz: kernel finding %u: %s\n", n, e.msg);
	if (o->log)
		fprintf(o->log, "iwspec fuzz:   written to %s/ (console.txt, seed.txt,%s)%s\n", dir,
			ncases ? cases : " no case", again_any ? "; it came again when a candidate was recorded" : "");
}

unsigned fzk_handle(fz_kernel *k, nf_session *s, const nf_opts *o, const fz_runs *r)
{
	if (!k)
		return 0;
	unsigned before = k->nfound;
	collect(k, FZK_QUIET_MS);
	/* Writing one may queue others (seen while its candidates were recorded). */
	while (k->nqueue && k->nfound < FZK_MAX_SIGS) {
		kc_report rep = k->queue[0];
		memmove(k->queue, k->queue + 1, (k->nqueue - 1) * sizeof k->queue[0]);
		k->nqueue--;
		if (seen(k, rep.sig)) {
			k->repeats++;
			continue;
		}
		write_one(k, s, o, r, &rep);
	}
	return k->nfound - before;
}

void fzk_settle(fz_kernel *k, int64_t ms)
{
	if (!k)
		return;
	int64_t until = iw_net_now_ms() + ms;
	while (iw_net_now_ms() < until) {
		sleep_ms(200);
		collect(k, FZK_QUIET_MS);
	}
}

int fzk_print_reports(const char *path, FILE *out, iw_err *e)
{
	kc_console c;
	if (kc_console_open(&c, path, e))
		return -1;
	c.off = 0; /* all of it */
	int n = 0;
	kc_report *r = malloc(8 * sizeof *r);
	if (!r)
		return iw_errf(e, IW_ENOSPC, "out of memory");
	size_t got;
	do {
		got = kc_console_poll(&c, 0, r, 8);
		for (size_t i = 0; i < got; i++, n++) {
			fprintf(out, "report\t%s\t%s\t%s\n", r[i].kind, r[i].sig, r[i].mark);
			for (const char *l = r[i].excerpt; *l;) {
				size_t len = strcspn(l, "\n");
				fprintf(out, "    %.*s\n", (int)len, l);
				l += len + (l[len] == '\n');
			}
		}
	} while (got == 8);
	free(r);
	return n;
}
