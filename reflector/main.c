/*
 * iwspec-reflector: options, signals, and which mode runs (reflector.h describes the modes).
 */
#include "reflector.h"

#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef IWSPEC_VERSION
#define IWSPEC_VERSION "unknown"
#endif

volatile sig_atomic_t rfl_stop;
bool rfl_quiet;
static const char *mode_name = "reflector";

static const char usage[] =
	"usage: iwspec-reflector --listen PORT [--bind ADDR]\n"
	"       iwspec-reflector --connect HOST:PORT\n"
	"       iwspec-reflector --agent PORT [--bind ADDR]\n"
	"       iwspec-reflector --via AGENT_HOST:PORT [--rping | --perftest MODE] --connect HOST:PORT | --listen PORT\n"
	"\n"
	"The DUT-side application of iwspec (docs/reflector.md) on any RDMA device, through\n"
	"librdmacm and libibverbs. On every connection it registers one 64 KiB buffer (the same\n"
	"memory on every connection, a different STag on each, remote read and write), sends\n"
	"STag, TO and length in its first Send, keeps 8 receive buffers posted and echoes every\n"
	"Send in order. A connection request whose private data is exactly REJECTME is refused\n"
	"with rdma_reject. MPA negotiation, CRC, markers, Terminate and Read Responses are the\n"
	"device's own: this program does not touch them.\n"
	"\n"
	"  --listen PORT       the DUT as MPA responder: accept connections on PORT until\n"
	"                      SIGINT/SIGTERM (duts: dut = tcp:ADDR:PORT, role = responder)\n"
	"  --bind ADDR         the local address to listen on (default: every address)\n"
	"  --connect HOST:PORT the DUT as MPA initiator: one connection to the harness; exits 0\n"
	"                      when it ends, whether closed, refused or reset by the peer\n"
	"  --agent PORT        a TCP control port for a harness on another host: each control\n"
	"                      connection asks for one --connect or --listen run (listening on the\n"
	"                      agent's --bind address) and gets its output and exit status back.\n"
	"                      It runs nothing but this program, or rdma-core's rping (below).\n"
	"                      Trusted networks only.\n"
	"  --via AGENT:PORT    with --connect or --listen: run it on the agent's host, print its\n"
	"                      output and exit with its status; for exec: DUT commands that start\n"
	"                      a DUT per case (duts/linux-siw.conf, duts/linux-siw-initiator.conf)\n"
	"  --rping             with --via: the agent runs rdma-core's rping instead of this\n"
	"                      program: `rping -s -P -S 64` on --listen's port, `rping -c -S 64 -C 2`\n"
	"                      to --connect's target (the rping profile, docs/rping.md); rping's\n"
	"                      error exits become 0, as its broken flow is the cases' to judge\n"
	"  --perftest MODE     with --via: the agent runs perftest's server `ib_MODE_bw -R` (MODE send,\n"
	"                      write or read) on --listen's port, or its client `ib_MODE_bw -R -F -n 5`\n"
	"                      to --connect's target, instead (the perftest profiles,\n"
	"                      docs/ulp-profiles.md); its error exits become 0 as rping's;\n"
	"                      MODE send-lat, with --listen only: `ib_send_lat -R -s 65536`\n"
	"  --quiet             print errors only\n"
	"  --help, --version\n"
	"\n"
	"Exit status: 0 done, 1 an error (message on stderr), 2 a usage error.\n";

void rfl_log(const char *fmt, ...)
{
	if (rfl_quiet)
		return;
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "iwspec-reflector %s: %s\n", mode_name, line);
}

int rfl_sys_err(iw_err *e, const char *what)
{
	int err = errno;
	const char *hint = "";
	bool stack = !strncmp(what, "rdma_create_event_channel", 25);
	switch (err) {
	case ENODEV:
		if (stack) {
			hint = " (no RDMA stack on this host: /dev/infiniband/rdma_cm needs rdma_ucm and a device;"
			       " for siw, `modprobe siw rdma_ucm` and `rdma link add siw0 type siw netdev IFACE`)";
			break;
		}
		/* fall through */
	case EADDRNOTAVAIL:
		hint = " (no RDMA device has this address: `rdma link` lists them; for siw, "
		       "`rdma link add siw0 type siw netdev IFACE`)";
		break;
	case EADDRINUSE:
		hint = " (the port is in use: another listener, or choose another port)";
		break;
	case ENOENT:
		hint = " (/dev/infiniband/rdma_cm is missing: load rdma_ucm, `modprobe rdma_ucm`)";
		break;
	case EACCES:
	case EPERM:
		hint = " (no permission for /dev/infiniband: run as root or join the rdma group)";
		break;
	case ENOMEM:
		hint = " (memory: raise `ulimit -l`, the locked-memory limit, for registration)";
		break;
	}
	return iw_errf(e, -1, "%s: %s%s", what, strerror(err), hint);
}

int rfl_parse_hostport(const char *s, struct sockaddr_storage *ss, char *host, size_t hcap, unsigned *port,
		       iw_err *e)
{
	const char *colon = strrchr(s, ':');
	const char *h = s;
	size_t hl = colon ? (size_t)(colon - s) : 0;
	if (hl && s[0] == '[' && colon[-1] == ']') {
		h = s + 1;
		hl -= 2;
	}
	char *end;
	unsigned long p = colon ? strtoul(colon + 1, &end, 10) : 0;
	if (!colon || !hl || hl >= hcap || !colon[1] || *end || p == 0 || p > 65535)
		return iw_errf(e, -1, "'%s' is not HOST:PORT (e.g. 10.0.0.1:4791 or [fd00::1]:4791)", s);
	memcpy(host, h, hl);
	host[hl] = 0;
	char serv[8];
	snprintf(serv, sizeof serv, "%lu", p);
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai;
	int rc = getaddrinfo(host, serv, &hints, &ai);
	if (rc)
		return iw_errf(e, -1, "cannot resolve '%s': %s", host, gai_strerror(rc));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	*port = (unsigned)p;
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	rfl_stop = 1;
}

static int port_arg(const char *s, unsigned *port)
{
	char *end;
	unsigned long p = strtoul(s, &end, 10);
	if (!*s || *end || p == 0 || p > 65535) {
		fprintf(stderr, "iwspec-reflector: '%s' is not a port (1-65535)\n%s", s, usage);
		return -1;
	}
	*port = (unsigned)p;
	return 0;
}

int main(int argc, char **argv)
{
	const char *listen_arg = NULL, *connect_arg = NULL, *agent_arg = NULL, *via_arg = NULL, *bind_arg = NULL;
	int buffer_fd = -1;
	bool rping = false;
	const char *app = NULL;     /* --rping, --perftest MODE: what the agent runs instead of us */
	char app_buf[24];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **slot = NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			printf("iwspec-reflector %s\n", IWSPEC_VERSION);
			return 0;
		} else if (!strcmp(a, "--quiet")) {
			rfl_quiet = true;
			continue;
		} else if (!strcmp(a, "--rping")) {
			rping = true;
			app = "rping";
			continue;
		} else if (!strcmp(a, "--perftest") && i + 1 < argc) {
			const char *m = argv[++i];
			if (strcmp(m, "send") && strcmp(m, "write") && strcmp(m, "read") && strcmp(m, "send-lat")) {
				fprintf(stderr, "iwspec-reflector: --perftest takes send, write, read or send-lat, not '%s'\n%s",
					m, usage);
				return 2;
			}
			snprintf(app_buf, sizeof app_buf, "perftest-%s", m);
			app = app_buf;
			rping = true;       /* the same rules: only with --via */
			continue;
		} else if (!strcmp(a, "--listen")) {
			slot = &listen_arg;
		} else if (!strcmp(a, "--connect")) {
			slot = &connect_arg;
		} else if (!strcmp(a, "--agent")) {
			slot = &agent_arg;
		} else if (!strcmp(a, "--via")) {
			slot = &via_arg;
		} else if (!strcmp(a, "--bind")) {
			slot = &bind_arg;
		} else if (!strcmp(a, "--buffer-fd") && i + 1 < argc) {
			/* internal: the memory file an --agent shares with the runs it starts */
			buffer_fd = atoi(argv[++i]);
			continue;
		} else {
			fprintf(stderr, "iwspec-reflector: unknown option '%s'\n%s", a, usage);
			return 2;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "iwspec-reflector: %s needs a value\n%s", a, usage);
			return 2;
		}
		*slot = argv[++i];
	}
	int modes = !!(listen_arg && !via_arg) + !!agent_arg + !!(connect_arg && !via_arg) + !!via_arg;
	bool via_ok = !via_arg || (!!connect_arg + !!listen_arg == 1 && !bind_arg);
	bool bind_ok = !bind_arg || ((listen_arg || agent_arg) && !via_arg);
	if (rping && !via_arg) {
		fprintf(stderr, "iwspec-reflector: --rping and --perftest go with --via (the agent runs them on its host)\n%s",
			usage);
		return 2;
	}
	if (modes != 1 || !via_ok || !bind_ok) {
		fprintf(stderr, "iwspec-reflector: choose one of --listen, --connect, --agent, or --via with --connect "
				"or --listen%s\n%s",
			!bind_ok ? " (--bind goes with --listen or --agent; under --via the agent's address is used)" : "",
			usage);
		return 2;
	}

	struct sigaction sa = {.sa_handler = on_signal}; /* no SA_RESTART: poll() returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stderr, NULL, _IOLBF, 0);

	iw_err e = {{0}};
	int rc;
	unsigned port;
	if (via_arg) {
		mode_name = "via";
		if (listen_arg && port_arg(listen_arg, &port))
			return 2;
		rc = rfl_via_run(via_arg, connect_arg, listen_arg ? port : 0, app, &e);
		if (rc >= 0)
			return rc;
	} else if (listen_arg) {
		mode_name = "listen";
		if (port_arg(listen_arg, &port))
			return 2;
		rc = rfl_listen_run(bind_arg, port, buffer_fd, &e);
	} else if (agent_arg) {
		mode_name = "agent";
		if (port_arg(agent_arg, &port))
			return 2;
		rc = rfl_agent_run(argv[0], bind_arg, port, &e);
	} else {
		mode_name = "connect";
		rc = rfl_connect_run(connect_arg, buffer_fd, &e);
	}
	if (rc) {
		fprintf(stderr, "iwspec-reflector %s: %s\n", mode_name, e.msg);
		return 1;
	}
	return 0;
}
