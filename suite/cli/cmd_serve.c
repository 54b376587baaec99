/*
 * cmd_serve.c - `iwspec serve`: the built-in reference DUT as a process, for harnesses of
 * other suites, for `exec:` self-tests, and to see by hand what a conforming endpoint does.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dut_config.h"
#include "iw_conn.h"
#include "ref_faults.h"
#include "driver.h"
#include "ref_server.h"

static volatile sig_atomic_t serve_stop;

static void on_signal(int sig)
{
	(void)sig;
	serve_stop = 1;
}

static void serve_usage(FILE *f)
{
	char profiles[160];
	iw_profile_names(profiles, sizeof profiles);
	fprintf(f,
		"usage: iwspec serve [--port N] [--host H] [--profile P] [--role responder|initiator]\n"
		"                    [--markers] [--crc-off] [--reject] [--no-reflector] [--no-greeting] [--rping]\n"
		"                    [--perftest send|write|read|send-lat]\n"
		"                    [--pd TEXT] [--base-to TO]\n"
		"                    [--once] [--hostile MODE] [--mutant NAME]\n"
		"                    [--startup-timeout DUR] [--idle-timeout DUR] [--quiet]\n"
		"\n"
		"Serves the built-in reference DUT (the engine's conforming endpoint) over TCP.\n"
		"A responder listens on H:N and serves every connection; an initiator connects to H:N,\n"
		"and again 100 ms after each connection has ended.\n"
		"\n"
		"options:\n"
		"  --port N             responder: port to listen on (default 0: any free port, printed),\n"
		"                       with SO_REUSEADDR: a port an earlier serve's connections left in\n"
		"                       TIME-WAIT is taken at once; one still held is refused, saying by\n"
		"                       what; initiator: port to connect to (required)\n"
		"  --host H             address to listen on or connect to (default 127.0.0.1)\n"
		"  --profile P          %s (default %s)\n"
		"  --role R             responder (default) or initiator\n"
		"  --markers            send M=1: want markers on what it receives\n"
		"  --crc-off            administrator no-CRC mode: send C=0 (CRCs stay on if the peer sends C=1)\n"
		"  --reject             answer every Request with R=1\n"
		"  --no-reflector       run no reflector (by default every Send is echoed, a 64 KiB buffer\n"
		"                       at TO 0, under an STag of its own on each connection, is open to\n"
		"                       remote read and write, and a Request with the private data\n"
		"                       REJECTME is answered with R=1; docs/reflector.md)\n"
		"  --no-greeting        the reflector does not advertise its buffer. By default its first\n"
		"                       Send does: STag (4) | TO (8) | length (4), big-endian, at once for\n"
		"                       an initiator, after the peer's first FPDU for a responder\n"
		"                       (MPA-6.1-R4). --greeting, the default, is accepted too\n"
		"  --rping              run rdma-core's rping flow instead of the reflector: rping -s as a\n"
		"                       responder, rping -c -S 64 -C 2 as an initiator (docs/rping.md)\n"
		"  --perftest MODE      play perftest's ib_MODE_bw -R (send, write or read) instead of the\n"
		"                       reflector: its server as a responder, its client as an initiator\n"
		"                       (docs/ulp-profiles.md); send-lat: ib_send_lat -R -s 65536's server,\n"
		"                       which answers each Send with one of its own (a responder only)\n"
		"  --pd TEXT            private data for its Request or Reply (at most %d octets)\n"
		"  --base-to TO         the reflector's buffer starts at this TO (default 0), as on a\n"
		"                       device that registers memory at its virtual address\n"
		"  --once               serve one connection, then exit\n"
		"  --startup-timeout D  close when the peer's startup frame makes no progress for D,\n"
		"                       or is not complete after 10 D (MPA-6.1-R10a; default 5s;\n"
		"                       units ms, s, m)\n"
		"  --idle-timeout D     close a connection silent in both directions for D (default 30s)\n"
		"  --quiet              no log of connection events on stderr\n"
		"  -h, --help           this help\n"
		"\n"
		"hostile modes (--hostile MODE, once: robustness tests of a harness):\n",
		profiles, iw_profile_default()->name, IW_REF_PD_MAX);
	for (int i = 1; i < IW_HOSTILE_COUNT; i++) {
		const iw_fault_info *h = iw_hostile_info((enum iw_hostile)i);
		fprintf(f, "  %-16s %s\n", h->name, h->desc);
	}
	fprintf(f, "\nmutants (--mutant NAME, once: a DUT breaking exactly one requirement, to validate the suite;\n"
		   "a second --mutant is refused):\n");
	for (int i = 1; i < IW_MUTANT_COUNT; i++) {
		const iw_fault_info *m = iw_mutant_info((enum iw_mutant)i);
		fprintf(f, "  %-16s %-13s %s\n", m->name, m->req, m->desc);
	}
	fprintf(f, "\nexit status: 0 served (or stopped by a signal), 1 an error, 2 bad usage\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "iwspec serve: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see iwspec serve --help)\n");
	return IW_EXIT_USAGE;
}

/* An option that takes one value given again. */
static int twice(const char *opt, const char *first, const char *again, const char *why)
{
	fprintf(stderr, "iwspec serve: %s given twice ('%s', then '%s'): the built-in DUT %s; serve one at a "
			"time, each on a port of its own (see iwspec serve --help)\n", opt, first, again ? again : "", why);
	return IW_EXIT_USAGE;
}

/* --name VALUE or --name=VALUE; *i advances past what was used. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, bool *matched)
{
	size_t n = strlen(name);
	const char *a = argv[*i];
	*matched = false;
	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '=') {
		*matched = true;
		return a + n + 1;
	}
	if (a[n] != '\0')
		return NULL;
	*matched = true;
	if (*i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

int cmd_serve(int argc, char **argv)
{
	iw_ref_options o;
	iw_ref_options_default(&o);
	o.log = stderr;
	bool have_port = false, no_greeting = false;
	const char *mutant = NULL, *hostile = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v;
		bool m;
		iw_err e;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			serve_usage(stdout);
			return IW_EXIT_OK;
		} else if (!strcmp(a, "--markers")) {
			o.markers = true;
		} else if (!strcmp(a, "--crc-off")) {
			o.crc_off = true;
		} else if (!strcmp(a, "--reject")) {
			o.reject = true;
		} else if (!strcmp(a, "--no-reflector")) {
			o.reflector = false;
		} else if (!strcmp(a, "--greeting")) {
			o.greeting = true;      /* the default; kept for the command lines that spell it out */
		} else if (!strcmp(a, "--no-greeting")) {
			no_greeting = true;
		} else if (!strcmp(a, "--rping")) {
			o.rping = true;         /* rping's flow instead of the reflector (docs/rping.md) */
			o.reflector = false;
		} else if ((v = opt_value(argc, argv, &i, "--perftest", &m)) || m) {
			o.perftest = iw_drv_ref_perftest(iw_driver_perftest_ulp(v));
			if (o.perftest == IW_REF_PERFTEST_OFF)
				return usage_error("--perftest takes send, write, read (ib_send_bw, ib_write_bw, ib_read_bw -R) or "
						   "send-lat (ib_send_lat -R -s 65536), "
						   "got '%s'", v ? v : "");
			o.reflector = false;
		} else if (!strcmp(a, "--once")) {
			o.once = true;
		} else if (!strcmp(a, "--quiet")) {
			o.log = NULL;
		} else if ((v = opt_value(argc, argv, &i, "--port", &m)) || m) {
			char *end;
			unsigned long p = v ? strtoul(v, &end, 10) : 0;
			if (!v || !*v || *end || p > 65535)
				return usage_error("--port needs a number from 0 to 65535, got '%s'", v ? v : "");
			o.port = (uint16_t)p;
			have_port = true;
		} else if ((v = opt_value(argc, argv, &i, "--host", &m)) || m) {
			if (!v || !*v || strlen(v) >= sizeof o.host)
				return usage_error("--host needs an address, got '%s'", v ? v : "");
			snprintf(o.host, sizeof o.host, "%s", v);
		} else if ((v = opt_value(argc, argv, &i, "--profile", &m)) || m) {
			const iw_profile *p = v ? iw_profile_find(v) : NULL;
			if (!p) {
				char names[160];
				iw_profile_names(names, sizeof names);
				fprintf(stderr, "iwspec serve: unknown profile '%s': use one of %s\n", v ? v : "", names);
				return IW_EXIT_USAGE;
			}
			o.profile = p;
		} else if ((v = opt_value(argc, argv, &i, "--role", &m)) || m) {
			if (v && !strcmp(v, "responder"))
				o.role = IW_ROLE_RESPONDER;
			else if (v && !strcmp(v, "initiator"))
				o.role = IW_ROLE_INITIATOR;
			else
				return usage_error("--role is responder or initiator, not '%s'", v ? v : "");
		} else if ((v = opt_value(argc, argv, &i, "--pd", &m)) || m) {
			if (!v || strlen(v) > IW_REF_PD_MAX)
				return usage_error("--pd needs a text of at most 1024 octets%s", "");
			o.pd_len = strlen(v);
			memcpy(o.pd, v, o.pd_len);
		} else if ((v = opt_value(argc, argv, &i, "--base-to", &m)) || m) {
			char *end = NULL;
			errno = 0;
			unsigned long long to = v ? strtoull(v, &end, 0) : 0;
			if (!v || !*v || *end || errno || v[0] == '-' || to > UINT64_MAX - IW_REF_STAG_LEN)
				return usage_error("--base-to needs a TO the 64 KiB buffer fits after, not '%s'", v ? v : "");
			o.base_to = to;
		} else if ((v = opt_value(argc, argv, &i, "--hostile", &m)) || m) {
			if (hostile)
				return twice("--hostile", hostile, v, "misbehaves in one way at a time");
			if (!v || iw_hostile_find(v, &o.hostile, &e))
				return usage_error("%s", v ? e.msg : "--hostile needs a mode");
			hostile = v;
		} else if ((v = opt_value(argc, argv, &i, "--mutant", &m)) || m) {
			/* Kept silently, the last name served a DUT the caller did not ask for: a run
			 * against it validates nothing of the first. */
			if (mutant)
				return twice("--mutant", mutant, v, "breaks exactly one requirement");
			if (!v || iw_mutant_find(v, &o.mutant, &e))
				return usage_error("%s", v ? e.msg : "--mutant needs a name");
			mutant = v;
		} else if ((v = opt_value(argc, argv, &i, "--startup-timeout", &m)) || m) {
			snprintf(e.msg, sizeof e.msg, "'%s' is no time at all: use more than 0", v ? v : "");
			if (!v || iw_parse_duration(v, &o.startup_timeout_ms, &e) || o.startup_timeout_ms <= 0)
				return usage_error("--startup-timeout: %s", v ? e.msg : "needs a duration");
		} else if ((v = opt_value(argc, argv, &i, "--idle-timeout", &m)) || m) {
			snprintf(e.msg, sizeof e.msg, "'%s' is no time at all: use more than 0", v ? v : "");
			if (!v || iw_parse_duration(v, &o.idle_timeout_ms, &e) || o.idle_timeout_ms <= 0)
				return usage_error("--idle-timeout: %s", v ? e.msg : "needs a duration");
		} else {
			return usage_error("unknown option '%s'", a);
		}
	}
	if (o.role == IW_ROLE_INITIATOR && (!have_port || o.port == 0))
		return usage_error("an initiator needs --port: the port to connect to%s", "");
	/* ib_send_lat's client is no profile (docs/ulp-profiles.md): nothing plays it. */
	if (o.role == IW_ROLE_INITIATOR && o.perftest == IW_REF_PERFTEST_SEND_LAT)
		return usage_error("--perftest send-lat plays ib_send_lat's server: a responder only%s", "");
	/* The reflector contract (docs/reflector.md): the first Send advertises the buffer, at once
	 * for an initiator (A39), after the peer's first FPDU for a responder (MPA-6.1-R4), as the
	 * ref driver's DUT does. */
	o.greeting = o.reflector && !no_greeting;

	iw_ref_server *s;
	iw_err e;
	if (iw_ref_server_new(&s, &o, &e) != IW_OK) {
		fprintf(stderr, "iwspec serve: %s\n", e.msg);
		return IW_EXIT_FAIL;
	}
	if (o.role == IW_ROLE_RESPONDER) {
		printf("iwspec serve: listening on %s:%u (%s, responder)\n", o.host, (unsigned)iw_ref_server_port(s),
		       o.profile->name);
		fflush(stdout);
	}
	struct sigaction sa, old_int, old_term;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: poll() must return so the flag is seen */
	serve_stop = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	int rc = iw_ref_server_run(s, &serve_stop, &e);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	iw_ref_server_free(s);
	if (rc != IW_OK) {
		fprintf(stderr, "iwspec serve: %s\n", e.msg);
		return IW_EXIT_FAIL;
	}
	return IW_EXIT_OK;
}
