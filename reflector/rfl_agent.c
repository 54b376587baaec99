/*
 * --agent: lets a harness on another host make this host an MPA initiator. The harness starts
 * the DUT once per connection (exec: DUT commands), but its exec runs on the harness's host;
 * `iwspec-reflector --via` carries the request here. The control protocol, one line each way:
 *
 *   harness -> agent   connect HOST PORT   (run --connect HOST:PORT: the DUT as initiator)
 *                      listen PORT         (run --listen PORT on the agent's address: the DUT as
 *                                           responder, a fresh listener for each case)
 *                      rping-connect HOST PORT  (run rdma-core's `rping -c` to HOST:PORT instead,
 *                      rping-listen PORT         or `rping -s` on PORT: the rping profile,
 *                                                docs/rping.md; -S 64, the server -P, the
 *                                                client -C 2)
 *                      perftest-MODE-listen PORT  (run perftest's server `ib_MODE_bw -R -p PORT`,
 *                                                MODE send, write or read: the perftest profiles,
 *                                                docs/ulp-profiles.md; it serves one client)
 *                      perftest-send-lat-listen PORT  (run ib_send_lat's server `ib_send_lat -R
 *                                                -s 65536 -p PORT`: the perftest-send-lat profile,
 *                                                which answers each Send with one of its own)
 *                      perftest-MODE-connect HOST PORT  (run perftest's client `ib_MODE_bw -R -F -n 5
 *                                                -p PORT HOST` against the harness: the
 *                                                initiator role)
 *                      mark TEXT           (writes "iwspec-mark: TEXT" to the kernel log,
 *                                           /dev/kmsg, and answers `exit 0`: a fuzzer ties
 *                                           what the guest's console says next to its run;
 *                                           TEXT is letters, digits and " ._:-", at most 120)
 *                      coverage-arcs       (siw's coverage, when the guest runs the profiled siw:
 *                      coverage-gcda        boot.sh --coverage; each line of
 *                      coverage-reset       /sys/kernel/debug/siw_gcov/arcs or gcda as an `out`
 *                                           line, or its counters zeroed: siw_gcov.c says what
 *                                           the files hold; then `exit 0`)
 *   agent -> harness   out TEXT        (each line the run prints)
 *                      exit N | signal N | error TEXT   (last line)
 *
 * Closing the control connection stops the run (SIGTERM, SIGKILL after 2 s), as the exec driver
 * stops a DUT at the end of a case. Every run shares one memory file, so the runs of one case
 * (and of all cases) see one tagged buffer, as docs/reflector.md item 2 asks. A listener per
 * case keeps one case's damage to a device's listener (siw's, docs/interop/linux-siw.md) out of
 * the next case's verdict.
 */
#define _GNU_SOURCE /* memfd_create, pipe2 */
#include "reflector.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_LEN 512

static void send_line(int fd, const char *tag, const char *text, size_t len)
{
	char line[LINE_MAX_LEN + 16];
	int n = snprintf(line, sizeof line, "%s %.*s\n", tag, (int)(len > LINE_MAX_LEN ? LINE_MAX_LEN : len), text);
	if (n > 0)
		(void)!write(fd, line, (size_t)n);
}

/* One request: what to run. host is empty for `listen`; rping: rdma-core's rping, not ourselves. */
typedef struct request {
	char host[72];
	char port[8];
	bool rping;
	char perftest[12];          /* perftest's test: "send", "write", "read" (ib_MODE_bw) or "send-lat"
				     * (ib_send_lat); "" otherwise */
	char mark[128];             /* not empty: a `mark` request, nothing is run */
	char coverage[8];           /* not empty: "arcs", "gcda" or "reset" of siw's coverage, nothing is run */
} request;

/* Reads the request line, at most 5 s; 0 with rq filled, -1 with a reason in e. */
static int read_request(int cfd, request *rq, iw_err *e)
{
	char line[256];
	size_t len = 0;
	while (len < sizeof line - 1 && !memchr(line, '\n', len)) {
		struct pollfd p = {.fd = cfd, .events = POLLIN};
		if (poll(&p, 1, 5000) <= 0)
			return iw_errf(e, -1, "no request within 5 s");
		ssize_t k = read(cfd, line + len, sizeof line - 1 - len);
		if (k <= 0)
			return iw_errf(e, -1, "the control connection closed before a request");
		len += (size_t)k;
	}
	line[len] = 0;
	rq->mark[0] = 0;
	rq->coverage[0] = 0;
	static const char *const cov[] = { "arcs", "gcda", "reset" };
	for (size_t i = 0; i < 3; i++) {
		size_t k = strlen(cov[i]);
		if (!strncmp(line, "coverage-", 9) && !strncmp(line + 9, cov[i], k) && strchr("\r\n", line[9 + k]) && line[9 + k]) {
			strcpy(rq->coverage, cov[i]);
			return 0;
		}
	}
	if (!strncmp(line, "mark ", 5)) {
		/* Only what reads back unchanged on the console: no escapes, no printk level. */
		size_t n = strcspn(line + 5, "\r\n");
		if (n == 0 || n > 120 || strspn(line + 5, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ._:-") < n)
			return iw_errf(e, -1, "mark: give 1 to 120 letters, digits, spaces or ._:-");
		memcpy(rq->mark, line + 5, n);
		rq->mark[n] = 0;
		return 0;
	}
	char h[80] = "", p[16], extra;
	rq->rping = !strncmp(line, "rping-", 6);
	const char *l = rq->rping ? line + 6 : line;
	rq->perftest[0] = 0;
	/* "send-lat" before "send", which is its prefix. */
	static const char *const pt[] = { "send-lat", "send", "write", "read" };
	for (size_t i = 0; i < 4 && !rq->perftest[0] && !strncmp(line, "perftest-", 9); i++) {
		size_t k = strlen(pt[i]);
		if (!strncmp(line + 9, pt[i], k) && line[9 + k] == '-') {
			strcpy(rq->perftest, pt[i]);
			l = line + 9 + k + 1;
		}
	}
	if (sscanf(l, "listen %15s %c", p, &extra) != 1 && sscanf(l, "connect %79s %15s %c", h, p, &extra) != 2)
		return iw_errf(e, -1, "expected 'connect HOST PORT', 'listen PORT' (each may be prefixed 'rping-'), "
			       "'perftest-MODE-listen PORT', 'perftest-MODE-connect HOST PORT' (MODE send, write, "
			       "read), 'perftest-send-lat-listen PORT', 'mark TEXT' or 'coverage-arcs', 'coverage-gcda', "
			       "'coverage-reset'");
	/* A host name or address and a port number, nothing a shell or option parser could misread. */
	unsigned long port = strtoul(p, NULL, 10);
	if (h[0] == '-' || strspn(h, "0123456789abcdefABCDEF.:-_[]") != strlen(h) || strspn(p, "0123456789") != strlen(p) ||
	    strlen(h) >= sizeof rq->host || strlen(p) >= sizeof rq->port || port == 0 || port > 65535)
		return iw_errf(e, -1, "'%s %s' is not an address and a port", h, p);
	if (!strcmp(rq->perftest, "send-lat") && h[0])
		return iw_errf(e, -1, "perftest-send-lat-connect: ib_send_lat's client is not run (it would provide nothing "
			       "ib_send_bw's does not: docs/ulp-profiles.md); use perftest-send-connect");
	strcpy(rq->host, h);
	strcpy(rq->port, p);
	return 0;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* Stops the run: SIGTERM, then SIGKILL when it has not gone in 2 s. Returns its wait status. */
static int stop_child(pid_t pid)
{
	int status;
	kill(pid, SIGTERM);
	for (int i = 0; i < 200; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
		sleep_ms(10);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return status;
}

#define SIW_GCOV_DIR "/sys/kernel/debug/siw_gcov/"

/* A coverage request: the file's lines relayed as `out` lines, or (reset) its counters zeroed. */
static int relay_coverage(int cfd, const char *what)
{
	char path[64], msg[160];
	snprintf(path, sizeof path, SIW_GCOV_DIR "%s", what);
	int fd = open(path, (strcmp(what, "reset") ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
	if (fd < 0) {
		int n = snprintf(msg, sizeof msg, "%s: %s (the guest's siw is not the profiled one: boot.sh --coverage)",
				 path, strerror(errno));
		send_line(cfd, "error", msg, (size_t)n);
		return 1;
	}
	bool ok = true;
	if (!strcmp(what, "reset")) {
		ok = write(fd, "1\n", 2) == 2;
	} else {
		/* Lines of at most 140 octets (siw_gcov.c): relayed whole, one `out` line each. */
		char buf[8192], line[LINE_MAX_LEN];
		size_t len = 0;
		ssize_t k;
		while ((k = read(fd, buf, sizeof buf)) > 0) {
			for (ssize_t i = 0; i < k; i++) {
				if (buf[i] == '\n' || len == sizeof line) {
					send_line(cfd, "out", line, len);
					len = 0;
					if (buf[i] == '\n')
						continue;
				}
				line[len++] = buf[i];
			}
		}
		if (len)
			send_line(cfd, "out", line, len);
		ok = k == 0;
	}
	int err = errno;
	close(fd);
	if (!ok) {
		int n = snprintf(msg, sizeof msg, "%s: %s", path, strerror(err));
		send_line(cfd, "error", msg, (size_t)n);
		return 1;
	}
	send_line(cfd, "exit", "0", 1);
	return 0;
}

/* One control connection, in its own process: start the run, relay its output, report its end. */
static int handle(int cfd, const char *self, const char *bind_addr, int memfd)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGCHLD, &dfl, NULL);
	request rq;
	iw_err e = {{0}};
	if (read_request(cfd, &rq, &e)) {
		send_line(cfd, "error", e.msg, strlen(e.msg));
		return 1;
	}
	if (rq.coverage[0])
		return relay_coverage(cfd, rq.coverage);
	if (rq.mark[0]) {
		/* Answered only once the kernel has the line: the console shows it before anything
		 * the harness does after the answer. */
		char text[160];
		int n = snprintf(text, sizeof text, "<5>iwspec-mark: %s\n", rq.mark);
		int kfd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
		bool ok = kfd >= 0 && write(kfd, text, (size_t)n) == n;
		if (kfd >= 0)
			close(kfd);
		if (ok)
			send_line(cfd, "exit", "0", 1);
		else
			send_line(cfd, "error", "cannot write /dev/kmsg", 22);
		return ok ? 0 : 1;
	}
	char target[96], fdarg[16];
	const char *mode = rq.host[0] ? "--connect" : "--listen";
	if (rq.host[0])
		snprintf(target, sizeof target, strchr(rq.host, ':') && rq.host[0] != '[' ? "[%s]:%s" : "%s:%s", rq.host,
			 rq.port);
	else
		snprintf(target, sizeof target, "%s", rq.port);
	snprintf(fdarg, sizeof fdarg, "%d", memfd);
	int out[2];
	if (pipe2(out, O_CLOEXEC)) {
		send_line(cfd, "error", "pipe failed", 11);
		return 1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		send_line(cfd, "error", "fork failed", 11);
		return 1;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		dup2(devnull, 0);
		dup2(out[1], 1);
		dup2(out[1], 2);
		/* rping (docs/rping.md): the buffer size and count the rping cases are written for. */
		if (rq.rping && rq.host[0])
			execlp("rping", "rping", "-c", "-v", "-a", rq.host, "-p", rq.port, "-S", "64", "-C", "2", (char *)NULL);
		else if (rq.rping)
			/* -P (persistent): a case's liveness probe and its own connection overlap, and a
			 * plain rping -s tears its listener down (R=1 to the next) once its one connection ends. */
			execlp("rping", "rping", "-s", "-P", "-v", "-a", bind_addr ? bind_addr : "0.0.0.0", "-p", rq.port, "-S",
			       "64", (char *)NULL);
		else if (rq.perftest[0]) {
			/* perftest's server with its defaults (-s 65536): one client, then it exits. Its
			 * client with -n 5, perftest's least, so that a case's startup takes its whole test
			 * (docs/ulp-profiles.md), and -F: its report measures the CPU's clock, and on a
			 * loaded guest without KVM the measure is too unsteady (r^2 < 0.9), upon which,
			 * without -F, it exits ("Can't produce a report") instead of closing its run, at a
			 * time a case cannot tell from siw's own close. */
			char prog[16];
			snprintf(prog, sizeof prog, "ib_%s_bw", rq.perftest);
			/* ib_send_lat's server with -s 65536 (its default is 2: the profile's receives
			 * are 64 KiB), answering each Send with one of its own (the perftest-send-lat
			 * profile). No client of it: it would provide nothing ib_send_bw's does not. */
			if (!strcmp(rq.perftest, "send-lat"))
				execlp("ib_send_lat", "ib_send_lat", "-R", "-s", "65536", "-p", rq.port, (char *)NULL);
			else if (rq.host[0])
				execlp(prog, prog, "-R", "-F", "-n", "5", "-p", rq.port, rq.host, (char *)NULL);
			else
				execlp(prog, prog, "-R", "-p", rq.port, (char *)NULL);
		}
		else if (rq.host[0] || !bind_addr)
			execl(self, self, mode, target, "--buffer-fd", fdarg, (char *)NULL);
		else
			execl(self, self, mode, target, "--bind", bind_addr, "--buffer-fd", fdarg, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	rfl_log("run %d: %s%s%s %s", (int)pid, rq.rping ? "rping " : "", rq.perftest[0] ? "perftest " : "", mode, target);
	char acc[LINE_MAX_LEN];
	size_t acc_len = 0;
	int status = -1;
	for (;;) {
		struct pollfd p[2] = {{.fd = out[0], .events = POLLIN}, {.fd = cfd, .events = POLLIN}};
		if (poll(p, 2, 1000) < 0 && errno != EINTR)
			break;
		if (p[1].revents) {
			char junk[64];
			if (read(cfd, junk, sizeof junk) <= 0) { /* the harness ended the case */
				status = stop_child(pid);
				break;
			}
		}
		if (!p[0].revents)
			continue;
		ssize_t k = read(out[0], acc + acc_len, sizeof acc - acc_len);
		if (k <= 0)
			break;
		acc_len += (size_t)k;
		char *nl;
		while ((nl = memchr(acc, '\n', acc_len)) || acc_len == sizeof acc) {
			size_t n = nl ? (size_t)(nl - acc) : acc_len;
			send_line(cfd, "out", acc, n);
			size_t used = nl ? n + 1 : n;
			memmove(acc, acc + used, acc_len - used);
			acc_len -= used;
		}
	}
	if (acc_len)
		send_line(cfd, "out", acc, acc_len);
	if (status == -1)
		waitpid(pid, &status, 0);
	char end[32];
	if (WIFSIGNALED(status))
		snprintf(end, sizeof end, "%d", WTERMSIG(status));
	else
		snprintf(end, sizeof end, "%d", WEXITSTATUS(status));
	send_line(cfd, WIFSIGNALED(status) ? "signal" : "exit", end, strlen(end));
	rfl_log("run %d: ended, %s %s", (int)pid, WIFSIGNALED(status) ? "signal" : "exit", end);
	return 0;
}

static int listen_socket(const char *bind_addr, unsigned port, iw_err *e)
{
	char serv[8];
	snprintf(serv, sizeof serv, "%u", port);
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE, .ai_family = AF_INET}, *ai;
	if (bind_addr)
		hints.ai_family = AF_UNSPEC;
	int rc = getaddrinfo(bind_addr, serv, &hints, &ai);
	if (rc)
		return iw_errf(e, -1, "cannot resolve '%s': %s", bind_addr, gai_strerror(rc));
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 64)) {
		char what[96];
		snprintf(what, sizeof what, "control port %s:%u", bind_addr ? bind_addr : "*", port);
		rfl_sys_err(e, what);
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

int rfl_agent_run(const char *self, const char *bind_addr, unsigned port, iw_err *e)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = 0;
		self = exe;
	}
	/* not close-on-exec: the runs inherit it and map it as their tagged buffer */
	int memfd = memfd_create("iwspec-reflector-buffer", 0);
	if (memfd < 0 || ftruncate(memfd, RFL_BUF_LEN))
		return rfl_sys_err(e, "memfd_create (the buffer the runs share)");
	int lfd = listen_socket(bind_addr, port, e);
	if (lfd < 0) {
		close(memfd);
		return -1;
	}
	/* Control connections are served by children nobody waits for. */
	struct sigaction sa = {.sa_handler = SIG_DFL, .sa_flags = SA_NOCLDWAIT};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	rfl_log("control port %s:%u; runs `%s --connect` or `--listen` on request", bind_addr ? bind_addr : "*", port, self);
	while (!rfl_stop) {
		struct pollfd p = {.fd = lfd, .events = POLLIN};
		if (poll(&p, 1, 500) <= 0)
			continue;
		int cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (cfd < 0)
			continue;
		pid_t pid = fork();
		if (pid == 0) {
			close(lfd);
			_exit(handle(cfd, self, bind_addr, memfd));
		}
		if (pid < 0)
			rfl_log("fork: %s", strerror(errno));
		close(cfd);
	}
	rfl_log("stopping (signal)");
	close(lfd);
	close(memfd);
	return 0;
}
