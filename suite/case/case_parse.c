/*
 * case_parse.c - the case language (.iwt) into an iw_case.
 *
 * A hand-written line parser: a line is a header (`name: value`, before any step), a step
 * (leading words name it, then name=value arguments and at most one bare value), or part of
 * an `expect one-of` block. Every value is checked against the step's schema
 * (case_schema.c, by case_args.c), so the runner can trust names, types and ranges. Every error names
 * the file and line; nothing is read past the given length, and every limit of case.h is an
 * error, never an overflow. case_parse_int.h lists the files that read each part.
 */
#include "case_parse_int.h"
#include "hexin.h"
#include "iw_grow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TIMEOUT_MS 10000

static bool is_send(enum iw_step_kind k)
{
	return k == IW_STEP_SEND_REQUEST || k == IW_STEP_SEND_REPLY || k == IW_STEP_SEND_FPDU || k == IW_STEP_SEND_RAW;
}

/* A send step that may make several FPDUs (a message cut by mulpdu=, segments chosen by order=). */
static bool multi_fpdu(const iw_step *st)
{
	return st->kind == IW_STEP_SEND_FPDU && (iw_step_arg(st, "mulpdu") || iw_step_arg(st, "order"));
}

/* `segments fpdus=N` is followed by the sends that make those N FPDUs (collected, not written),
 * then the `segment` steps that send their octets; the executor runs that plan before the next
 * step and checks the count of FPDUs a mulpdu= send makes. */
static int check_segments(parser *p)
{
	const iw_case *c = p->c;
	int open_line = 0;
	int64_t want = 0, got = 0;
	bool multi = false;
	size_t nseg = 0;
	for (size_t i = 0; i <= c->nsteps; i++) {
		const iw_step *st = i < c->nsteps ? &c->steps[i] : NULL;
		p->line = st ? st->line : open_line;
		if (st)
			iw_step_label(st, p->ctx, sizeof p->ctx);
		else
			snprintf(p->ctx, sizeof p->ctx, "segments");
		bool collecting = open_line && nseg == 0 && got < want;
		if (collecting && !(st && is_send(st->kind)) && (got == 0 || !multi))
			return cp_err(p, "`segments fpdus=%lld` (line %d) collects %lld FPDUs, but %s comes after %lld: "
				      "write the sends first, then the `segment` steps", (long long)want, open_line,
				      (long long)want, st ? "this step" : "the end of the case", (long long)got);
		if (open_line && nseg == 0 && (got == want || (multi && got)) && !(st && (st->kind == IW_STEP_SEGMENT ||
		    (is_send(st->kind) && got < want))))
			return cp_err(p, "the octets `segments` (line %d) collects are never sent: add `segment` steps after "
				      "its %lld FPDU(s), e.g. `segment send fpdu=0`", open_line, (long long)want);
		if (!st)
			break;
		if (st->kind == IW_STEP_SEGMENTS) {
			open_line = st->line;
			want = iw_step_arg(st, "fpdus")->i;
			got = 0;
			nseg = 0;
			multi = false;
		} else if (open_line && nseg == 0 && got < want && is_send(st->kind)) {
			got++;
			multi |= multi_fpdu(st);
		} else if (st->kind == IW_STEP_SEGMENT) {
			if (!open_line)
				return cp_err(p, "no `segments fpdus=N` before it: write `segments fpdus=1`, then the send, "
					      "then the `segment` steps");
			const iw_arg *f = iw_step_arg(st, "fpdu");
			if (f && f->i >= want)
				return cp_err(p, "fpdu=%lld, but `segments` (line %d) collects %lld FPDU(s): fpdu=0..%lld",
					      (long long)f->i, open_line, (long long)want, (long long)want - 1);
			nseg++;
		} else if (open_line && nseg) {
			open_line = 0; /* the plan ran before this step */
		}
	}
	return 0;
}

static int check_case(parser *p, unsigned seen)
{
	iw_case *c = p->c;
	p->line = 0;
	p->ctx[0] = '\0';
	if (!(seen & H_ID))
		return cp_err(p, "missing header 'id:' (a stable name like mpa.startup.req.key-reply-key)");
	if (!(seen & H_TITLE))
		return cp_err(p, "missing header 'title:'");
	if (c->nreqs == 0)
		return cp_err(p, "missing header 'requirement:' (at least one, e.g. `requirement: MPA-6.1-R5 MUST`)");
	if (!(seen & H_ROLE))
		return cp_err(p, "missing header 'role:' (responder or initiator: the DUT's role)");
	if (c->nsteps == 0)
		return cp_err(p, "the case has no steps");
	c->level = IW_LEVEL_INFO;
	for (size_t i = 0; i < c->nreqs; i++)
		if (c->reqs[i].level < c->level)
			c->level = c->reqs[i].level;
	/* Only the DUT's role decides who opens the connection: a mismatch could never run. */
	for (size_t i = 0; i < c->nsteps; i++) {
		const iw_step *st = &c->steps[i];
		p->line = st->line;
		if (st->kind == IW_STEP_CONNECT && c->dut_role != 1)
			return cp_err(p, "connect: the harness connects only to a responder DUT (role: responder)");
		if (st->kind == IW_STEP_ACCEPT && c->dut_role != 0)
			return cp_err(p, "accept: the harness accepts only from an initiator DUT (role: initiator)");
		/* The greeting is the reflector's message: a case that expects it says so, and runs only
		 * where the application sends one. */
		if (st->kind == IW_EXPECT_FPDU && !strcmp(st->word, "greeting") && !(c->needs & IW_CAP_GREETING))
			return cp_err(p, "expect greeting: the reflector's greeting is a capability of its application: "
				       "add `needs: greeting`");
		/* `size=recv+1` and its kin count from the receives of the DUT's application, which only a
		 * case that needs some (recv=NxS) is run with. */
		if (st->kind == IW_STEP_SEND_FPDU && !(c->needs & IW_CAP_RECV))
			for (size_t k = 0; k < st->nargs; k++)
				if (st->args[k].from_recv)
					return cp_err(p, "%s=recv counts from the receives the DUT's application posts: add "
						       "`needs: recv=NxS` (the receives the case relies on)", st->args[k].name);
		/* The MSS option rides on the SYN of a connection the harness opens. */
		if (st->kind == IW_STEP_STARTUP && iw_step_arg(st, "mss") && c->dut_role != 1)
			return cp_err(p, "startup mss=: the harness advertises an MSS only on connections it opens "
				       "(role: responder)");
	}
	return check_segments(p);
}

/* Room for one more step: 8 at first, doubling up to IW_CASE_MAX_STEPS. */
static int grow_steps(iw_case *c)
{
	size_t n = iw_grow_size(c->steps_cap, 8, c->nsteps + 1, IW_CASE_MAX_STEPS);
	iw_step *ns = realloc(c->steps, n * sizeof *ns);
	if (!ns)
		return -1;
	c->steps = ns;
	c->steps_cap = n;
	return 0;
}

static int parse_lines(parser *p, const char *text, size_t len)
{
	iw_case *c = p->c;
	iw_step *block = NULL;      /* the open `expect one-of`, if any */
	int block_line = 0;
	unsigned seen = 0;
	size_t off = 0;
	p->line = 0;
	while (off < len) {
		const char *s = text + off;
		const char *nl = memchr(s, '\n', len - off);
		const char *end = nl ? nl : text + len;
		off = (size_t)(end - text) + (nl ? 1 : 0);
		p->line++;
		p->ctx[0] = '\0';
		if (end > s && end[-1] == '\r')
			end--;
		if ((size_t)(end - s) > IW_CASE_MAX_LINE)
			return cp_limit(p, "line is longer than %d characters", IW_CASE_MAX_LINE);
		if (memchr(s, '\0', (size_t)(end - s)))
			return cp_err(p, "NUL octet in the line");
		cp_skip_space(&s, end);
		if (s == end || *s == '#')
			continue;
		if (block) {
			const char *q = s;
			const char *w;
			size_t n = cp_take_word(&q, end, &w);
			if (cp_word_is(w, n, "end")) {
				tok t = cp_next_tok(&q, end);
				if (t.kind != TOK_END)
					return cp_err(p, "expect one-of: nothing may follow 'end'");
				if (block->nalts < 2) {
					p->line = block_line;
					return cp_err(p, "expect one-of: needs at least two alternatives ('-' lines)");
				}
				block = NULL;
				continue;
			}
			if (*s != '-')
				return cp_err(p, "expect one-of (line %d): expected an alternative ('- ...') or 'end'",
					      block_line);
			int rc = cp_parse_alt(p, block, s + 1, end);
			if (rc)
				return rc;
			continue;
		}
		size_t nname;
		if (cp_is_header(s, end, &nname)) {
			if (c->nsteps) {
				char b[64];
				return cp_err(p, "header '%s:' after the first step (headers come first)",
					      cp_show(s, nname, b, sizeof b));
			}
			int rc = cp_parse_header(p, s, nname, s + nname + 1, end, &seen);
			if (rc)
				return rc;
			continue;
		}
		if (*s == '-')
			return cp_err(p, "an alternative ('- ...') outside an `expect one-of` block");
		{
			const char *q = s, *w;
			size_t n = cp_take_word(&q, end, &w);
			if (cp_word_is(w, n, "end"))
				return cp_err(p, "'end' without an open `expect one-of` block");
		}
		if (c->nsteps >= IW_CASE_MAX_STEPS)
			return cp_limit(p, "too many steps (limit %d)", IW_CASE_MAX_STEPS);
		if (c->nsteps == c->steps_cap && grow_steps(c))
			return cp_err(p, "out of memory");
		/* No open block points into the array as it grows: a block's lines are its own. */
		iw_step *st = &c->steps[c->nsteps++];    /* counted now so a failure frees its arguments */
		memset(st, 0, sizeof *st);
		bool semi;
		int rc = cp_parse_step(p, &s, end, st, false, &semi);
		if (rc)
			return rc;
		if (st->kind == IW_EXPECT_ONE_OF) {
			block = st;
			block_line = p->line;
		}
	}
	if (block) {
		p->line = block_line;
		snprintf(p->ctx, sizeof p->ctx, "expect one-of");
		return cp_err(p, "unterminated block: missing 'end' before the end of the file");
	}
	return check_case(p, seen);
}

int iw_case_parse(const char *text, size_t len, const char *file, iw_case **out, iw_err *e)
{
	parser p;
	memset(&p, 0, sizeof p);
	p.file = file ? file : "<case>";
	p.e = e;
	if (out)
		*out = NULL;
	if (!out || (!text && len))
		return cp_err(&p, "iw_case_parse: no text or no output");
	if (len > IW_CASE_MAX_FILE)
		return cp_limit(&p, "case file is %zu octets, over the %u-octet (1 MiB) limit", len, IW_CASE_MAX_FILE);
	iw_case *c = calloc(1, sizeof *c);
	if (!c)
		return cp_err(&p, "out of memory");
	snprintf(c->file, sizeof c->file, "%s", p.file);
	c->timeout_ms = DEFAULT_TIMEOUT_MS;
	p.c = c;
	int rc = parse_lines(&p, text ? text : "", len);
	if (rc) {
		iw_case_free(c);
		return rc;
	}
	iw_err_clear(e);
	*out = c;
	return 0;
}

int iw_case_load(const char *path, iw_case **out, iw_err *e)
{
	if (out)
		*out = NULL;
	if (!path)
		return iw_errf(e, IW_EINVAL, "iw_case_load: no path");
	uint8_t *buf = NULL;
	size_t n = 0;
	char msg[sizeof e->msg];
	int rc = iw_read_input(path, IW_CASE_MAX_FILE, &buf, &n, msg, sizeof msg);
	if (rc == IW_ENOSPC)
		return iw_errf(e, IW_ENOSPC, "%s: case file is over the %u-octet (1 MiB) limit", path, IW_CASE_MAX_FILE);
	if (rc)
		return iw_errf(e, IW_EINVAL, "%s", msg);
	rc = iw_case_parse((const char *)buf, n, path, out, e);
	free(buf);
	return rc;
}
