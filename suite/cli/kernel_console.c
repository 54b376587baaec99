/*
 * kernel_console.c - reading a guest kernel's console for reports, and marking it through the
 * guest's agent (kernel_console.h).
 */
#include "kernel_console.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net.h"

#define MARK_PREFIX "iwspec-mark: "

void kc_parser_init(kc_parser *p)
{
	memset(p, 0, sizeof *p);
}

/* The line without the printk timestamp "[   12.345678] " and trailing blanks. */
static const char *body(const char *line)
{
	const char *s = line;
	if (*s == '[') {
		const char *r = strchr(s, ']');
		if (r && r - s < 20) {
			s = r + 1;
			while (*s == ' ')
				s++;
		}
	}
	return s;
}

/* Copies the name of a symbol "name+0x1f/0x40 ..." (up to '+' or a blank) into out. */
static void symbol(const char *s, char *out, size_t cap)
{
	size_t n = strcspn(s, "+ \t[");
	if (n >= cap)
		n = cap - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

bool kc_trigger(const char *line, char *kind, size_t kind_cap, char *sig, size_t sig_cap)
{
	const char *b = body(line);
	char k[24] = "", sg[200] = "";
	const char *p;
	if (starts(b, "WARNING: CPU:") && (p = strstr(b, " at "))) {
		/* "WARNING: CPU: 1 PID: 80 at drivers/x/siw_cm.c:453 siw_cep_put+0x7b/0x90 [siw]" ->
		 * "WARNING at siw_cm.c siw_cep_put" */
		p += 4;
		const char *sp = strchr(p, ' ');
		char file[120] = "", fn[80] = "";
		size_t n = sp ? (size_t)(sp - p) : strlen(p);
		const char *slash = NULL;
		for (size_t i = 0; i < n; i++)
			if (p[i] == '/')
				slash = p + i;
		if (slash) {
			n -= (size_t)(slash + 1 - p);
			p = slash + 1;
		}
		/* The file without its line: the same WARN_ON is on another line in another kernel. */
		size_t colon = strcspn(p, ":");
		if (colon < n)
			n = colon;
		snprintf(file, sizeof file, "%.*s", (int)(n < sizeof file ? n : sizeof file - 1), p);
		if (sp)
			symbol(sp + 1, fn, sizeof fn);
		snprintf(k, sizeof k, "WARNING");
		snprintf(sg, sizeof sg, "WARNING at %s%s%s", file, fn[0] ? " " : "", fn);
	} else if (starts(b, "WARNING: ")) {
		/* lockdep and others: "WARNING: possible circular locking dependency detected" */
		snprintf(k, sizeof k, "WARNING");
		snprintf(sg, sizeof sg, "%.190s", b);
	} else if ((p = strstr(b, "BUG: KASAN: "))) {
		/* "BUG: KASAN: use-after-free in siw_cep_put+0x2c/0x90" */
		snprintf(k, sizeof k, "KASAN");
		const char *in = strstr(p, " in ");
		char fn[80] = "";
		if (in)
			symbol(in + 4, fn, sizeof fn);
		snprintf(sg, sizeof sg, "KASAN: %.*s%s%s", (int)(in ? in - (p + 12) : (ptrdiff_t)strlen(p + 12)), p + 12,
			 fn[0] ? " in " : "", fn);
	} else if (starts(b, "UBSAN: ")) {
		/* "UBSAN: array-index-out-of-bounds in drivers/x/siw_qp.c:12:3": the file's base name,
		 * without line and column */
		snprintf(k, sizeof k, "UBSAN");
		const char *in = strstr(b, " in ");
		const char *f = in ? in + 4 : "";
		const char *slash = strrchr(f, '/');
		f = slash ? slash + 1 : f;
		snprintf(sg, sizeof sg, "UBSAN: %.*s%s%.*s", (int)(in ? in - (b + 7) : (ptrdiff_t)strlen(b + 7)), b + 7,
			 in ? " in " : "", (int)strcspn(f, ":"), f);
	} else if (starts(b, "refcount_t: ")) {
		snprintf(k, sizeof k, "refcount_t");
		snprintf(sg, sizeof sg, "%.190s", b);
	} else if (starts(b, "kernel BUG at ")) {
		const char *f = b + 14;
		const char *slash = strrchr(f, '/');
		snprintf(k, sizeof k, "BUG");
		f = slash ? slash + 1 : f;
		snprintf(sg, sizeof sg, "kernel BUG at %.*s", (int)strcspn(f, ":!"), f);
	} else if ((p = strstr(b, "BUG: soft lockup"))) {
		snprintf(k, sizeof k, "soft lockup");
		snprintf(sg, sizeof sg, "soft lockup");
	} else if ((p = strstr(b, "BUG: ")) && (p == b || starts(b, "watchdog: "))) {
		/* "BUG: unable to handle page fault for address: ...", "BUG: kernel NULL pointer
		 * dereference, address: ...": the words before the address */
		snprintf(k, sizeof k, "BUG");
		size_t n = strcspn(p + 5, ":,") + 5;
		snprintf(sg, sizeof sg, "%.*s", (int)(n < 150 ? n : 150), p);
	} else if (strstr(b, "general protection fault")) {
		snprintf(k, sizeof k, "Oops");
		snprintf(sg, sizeof sg, "general protection fault");
	} else if (starts(b, "Oops: ")) {
		snprintf(k, sizeof k, "Oops");
		snprintf(sg, sizeof sg, "Oops");
	} else if (starts(b, "rcu: INFO: ") && strstr(b, "stall")) {
		snprintf(k, sizeof k, "RCU stall");
		snprintf(sg, sizeof sg, "RCU stall");
	} else if (starts(b, "INFO: task ") && strstr(b, "blocked for more than")) {
		/* "INFO: task iwspec-reflecto:123 blocked for more than 120 seconds." */
		char task[40] = "";
		size_t n = strcspn(b + 11, ":");
		snprintf(task, sizeof task, "%.*s", (int)(n < sizeof task ? n : sizeof task - 1), b + 11);
		snprintf(k, sizeof k, "hung task");
		snprintf(sg, sizeof sg, "hung task %s", task);
	} else if (starts(b, "Kernel panic")) {
		snprintf(k, sizeof k, "panic");
		snprintf(sg, sizeof sg, "%.100s", b);
	} else {
		return false;
	}
	snprintf(kind, kind_cap, "%s", k);
	snprintf(sig, sig_cap, "%s", sg);
	return true;
}

/* A function of the RDMA stack, by its name. */
static bool rdma_frame_name(const char *b)
{
	static const char *const pre[] = {"siw_", "rdma_", "iw_cm", "cm_", "cma_", "ib_", "ucma_", "iwcm_"};
	for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
		if (starts(b, pre[i]))
			return true;
	return false;
}

/* A call trace frame of the RDMA stack ("  siw_destroy_listen+0x5a/0x90 [siw]"): the function a
 * report without a place of its own (refcount_t, an RCU stall, a fault) is told apart by. */
static bool rdma_frame(const char *b, char *fn, size_t cap)
{
	while (*b == ' ' || *b == '?')
		b++;
	if (!strstr(b, "+0x") || !rdma_frame_name(b))
		return false;
	symbol(b, fn, cap);
	return true;
}

static void add_line(kc_report *r, const char *line)
{
	size_t have = strlen(r->excerpt);
	if (have + 2 < sizeof r->excerpt)
		snprintf(r->excerpt + have, sizeof r->excerpt - have, "%s\n", line);
	r->nlines++;
}

/* Ends the open report into out (when there is room). */
static size_t finish(kc_parser *p, kc_report *out, size_t *n, size_t cap)
{
	if (!p->open)
		return 0;
	/* No RDMA-stack frame in its trace (a fault inside a list helper, with the trace cut
	 * short): the work item it ran in, when the RDMA stack's ("Workqueue: siw_cm_wq
	 * siw_cm_work_handler [siw]"), places it. */
	if (p->wq_fn[0] && !strstr(p->cur.sig, " in ") && strcmp(p->cur.kind, "WARNING") && strcmp(p->cur.kind, "KASAN") &&
	    strcmp(p->cur.kind, "UBSAN") && strcmp(p->cur.kind, "hung task")) {
		size_t l = strlen(p->cur.sig);
		snprintf(p->cur.sig + l, sizeof p->cur.sig - l, " in %s", p->wq_fn);
	}
	p->wq_fn[0] = '\0';
	p->open = false;
	p->ended = false;
	if (*n < cap)
		out[*n] = p->cur;
	(*n)++;
	return 1;
}

static void one_line(kc_parser *p, kc_report *out, size_t *n, size_t cap)
{
	char *line = p->line;
	size_t len = p->line_len;
	while (len && (line[len - 1] == '\r' || line[len - 1] == ' '))
		len--;
	line[len] = '\0';
	const char *b = body(line);
	const char *m = strstr(b, MARK_PREFIX);
	if (m) {
		/* The mark names what comes next. A report being printed goes on past it (the agent
		 * writes marks from another process, between the report's lines): it keeps the mark
		 * it began under, and the mark is not part of it. */
		snprintf(p->mark, sizeof p->mark, "%s", m + strlen(MARK_PREFIX));
		return;
	}
	char kind[24], sig[200];
	bool trig = kc_trigger(line, kind, sizeof kind, sig, sizeof sig);
	/* A new report: after the end line of the one before, or well into one without such a line
	 * (an RCU stall). Within its first lines a trigger is the same report going on (a
	 * refcount_t line is followed by the WARNING that prints it), and an "Oops:" line always is: a
	 * page fault's BUG prints its address first. */
	if (p->open && trig && (p->ended || (p->cur.nlines > 3 && strcmp(kind, "Oops"))))
		finish(p, out, n, cap);
	if (!p->open && trig) {
		memset(&p->cur, 0, sizeof p->cur);
		p->open = true;
		p->ended = false;
		snprintf(p->cur.kind, sizeof p->cur.kind, "%s", kind);
		snprintf(p->cur.sig, sizeof p->cur.sig, "%s", sig);
		snprintf(p->cur.mark, sizeof p->cur.mark, "%s", p->mark);
		if (strstr(p->prev, "[ cut here ]"))
			add_line(&p->cur, p->prev);
	}
	if (p->open) {
		add_line(&p->cur, line);
		char fn[80];
		/* refcount_t, a fault, a stall or a BUG: told apart by where in the RDMA stack it was. */
		bool placeless = strcmp(p->cur.kind, "WARNING") && strcmp(p->cur.kind, "KASAN") &&
				 strcmp(p->cur.kind, "UBSAN") && strcmp(p->cur.kind, "hung task");
		if (placeless && !strstr(p->cur.sig, " in ") && rdma_frame(b, fn, sizeof fn)) {
			size_t l = strlen(p->cur.sig);
			snprintf(p->cur.sig + l, sizeof p->cur.sig - l, " in %s", fn);
		}
		if (starts(b, "Workqueue: ")) {
			/* "Workqueue: siw_cm_wq siw_cm_work_handler [siw]": the function, if the RDMA stack's */
			const char *f = strchr(b + 11, ' ');
			if (f && rdma_frame_name(f + 1))
				symbol(f + 1, p->wq_fn, sizeof p->wq_fn);
		}
		if (starts(b, "---[ end "))
			p->ended = true;
		if (p->ended || p->cur.nlines >= KC_MAX_LINES)
			finish(p, out, n, cap);
	}
	snprintf(p->prev, sizeof p->prev, "%s", line);
}

size_t kc_feed(kc_parser *p, const char *buf, size_t len, kc_report *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		char c = buf[i];
		if (c == '\n') {
			p->line[p->line_len < sizeof p->line ? p->line_len : sizeof p->line - 1] = '\0';
			if (p->line_len >= sizeof p->line)
				p->line_len = sizeof p->line - 1;
			one_line(p, out, &n, cap);
			p->line_len = 0;
			p->line_long = false;
			continue;
		}
		if (c == '\0')
			continue;
		if (p->line_len < sizeof p->line - 1)
			p->line[p->line_len++] = c;
		else
			p->line_long = true;
	}
	return n;
}

size_t kc_flush(kc_parser *p, kc_report *out)
{
	size_t n = 0;
	return finish(p, out, &n, 1);
}

int kc_mark(const char *host, uint16_t port, const char *text, int64_t timeout_ms, iw_err *e)
{
	size_t tl = strlen(text);
	if (!tl || tl > KC_MARK_MAX ||
	    strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ._:-") != tl)
		return iw_errf(e, IW_EINVAL, "mark '%s': only letters, digits and \" ._:-\", at most %d", text,
			       KC_MARK_MAX);
	int64_t end = iw_net_now_ms() + timeout_ms;
	int fd;
	int rc = iw_net_connect_once(host, port, timeout_ms, 0, &fd, e);
	if (rc)
		return iw_errf(e, rc, "the guest's agent at %s:%u takes no mark: %s", host, port, e->msg);
	char req[KC_MARK_MAX + 8];
	int rl = snprintf(req, sizeof req, "mark %s\n", text);
	rc = iw_net_write_all(fd, req, (size_t)rl, timeout_ms, e);
	char ans[128];
	size_t have = 0;
	while (rc == IW_OK && !memchr(ans, '\n', have) && have < sizeof ans - 1) {
		int64_t left = end - iw_net_now_ms();
		size_t got = 0;
		int st = left > 0 ? iw_net_read(fd, ans + have, sizeof ans - 1 - have, left, &got, e) : IW_NET_TIMEOUT;
		if (st == IW_NET_DATA)
			have += got;
		else if (st < 0)
			rc = st;
		else
			rc = iw_errf(e, IW_ESTATE, "%s", st == IW_NET_TIMEOUT ? "no answer in time" : "it closed without an answer");
	}
	close(fd);
	ans[have] = '\0';
	if (rc == IW_OK && strncmp(ans, "exit 0", 6))
		rc = iw_errf(e, IW_ESTATE, "it answered '%.*s'", (int)strcspn(ans, "\n"), ans);
	if (rc)
		return iw_errf(e, rc, "the guest's agent at %s:%u did not take the mark '%s': %s", host, port, text, e->msg);
	return IW_OK;
}

int kc_console_open(kc_console *c, const char *path, iw_err *e)
{
	memset(c, 0, sizeof *c);
	snprintf(c->path, sizeof c->path, "%s", path);
	kc_parser_init(&c->p);
	struct stat st;
	if (stat(path, &st))
		return iw_errf(e, IW_EINVAL, "--console '%s': %s (the guest's console file: boot.sh --run-dir names "
			       "its folder)", path, strerror(errno));
	c->off = (uint64_t)st.st_size;
	c->last_growth_ms = iw_net_now_ms();
	return IW_OK;
}

size_t kc_console_poll(kc_console *c, int64_t quiet_ms, kc_report *out, size_t cap)
{
	size_t n = 0;
	int fd = open(c->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		struct stat st;
		if (!fstat(fd, &st) && (uint64_t)st.st_size < c->off) {
			/* A new boot: its console from the start, nothing open carried over. */
			c->off = 0;
			kc_parser_init(&c->p);
		}
		char buf[16384];
		for (;;) {
			ssize_t k = pread(fd, buf, sizeof buf, (off_t)c->off);
			if (k <= 0)
				break;
			c->off += (uint64_t)k;
			c->last_growth_ms = iw_net_now_ms();
			size_t got = kc_feed(&c->p, buf, (size_t)k, n < cap ? out + n : out, n < cap ? cap - n : 0);
			n += got;
		}
		close(fd);
	}
	if (c->p.open && iw_net_now_ms() - c->last_growth_ms >= quiet_ms && n < cap)
		n += kc_flush(&c->p, out + n);
	return n < cap ? n : cap;
}
