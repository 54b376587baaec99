/*
 * case_access.c - a parsed case: freeing it, finding a step's argument, and the names of step
 * kinds and requirement levels used in labels and reports.
 */
#include "case.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void step_clear(iw_step *st)
{
	for (size_t i = 0; i < st->nargs; i++) {
		free(st->args[i].s);
		free(st->args[i].bytes);
	}
	st->nargs = 0;
	for (size_t a = 0; a < st->nalts; a++) {
		for (size_t k = 0; k < st->alts[a].nseq; k++) {
			step_clear(st->alts[a].seq[k]);
			free(st->alts[a].seq[k]);
		}
		st->alts[a].nseq = 0;
	}
	st->nalts = 0;
}

void iw_case_free(iw_case *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nsteps && i < c->steps_cap; i++)
		step_clear(&c->steps[i]);
	free(c->steps);
	free(c);
}

const iw_arg *iw_step_arg(const iw_step *s, const char *name)
{
	if (!s || !name)
		return NULL;
	for (size_t i = 0; i < s->nargs && i < IW_CASE_MAX_ARGS; i++)
		if (strcmp(s->args[i].name, name) == 0)
			return &s->args[i];
	return NULL;
}

const char *iw_step_name(enum iw_step_kind k)
{
	switch (k) {
	case IW_STEP_CONNECT: return "connect";
	case IW_STEP_ACCEPT: return "accept";
	case IW_STEP_SEND_REQUEST: return "send request";
	case IW_STEP_SEND_REPLY: return "send reply";
	case IW_STEP_SEND_FPDU: return "send fpdu";
	case IW_STEP_SEND_RAW: return "send raw";
	case IW_STEP_SPLIT: return "split";
	case IW_STEP_SLEEP: return "sleep";
	case IW_STEP_CLOSE: return "close";
	case IW_STEP_RESET: return "reset";
	case IW_STEP_USE: return "use";
	case IW_STEP_STARTUP: return "startup";
	case IW_STEP_SEGMENTS: return "segments";
	case IW_STEP_SEGMENT: return "segment";
	case IW_EXPECT_REQUEST: return "expect request";
	case IW_EXPECT_REPLY: return "expect reply";
	case IW_EXPECT_FPDU: return "expect fpdu";
	case IW_EXPECT_TERMINATE: return "expect terminate";
	case IW_EXPECT_CLOSE: return "expect close";
	case IW_EXPECT_SILENCE: return "expect silence";
	case IW_EXPECT_ALIVE: return "expect alive";
	case IW_EXPECT_ONE_OF: return "expect one-of";
	case IW_EXPECT_MEASURE: return "measure close";
	case IW_EXPECT_AS_MODEL: return "expect as-model";
	case IW_STEP_KIND_COUNT: break;
	}
	return "unknown step";
}

const char *iw_step_label(const iw_step *s, char *buf, size_t cap)
{
	if (!buf || cap == 0)
		return "";
	if (!s) {
		snprintf(buf, cap, "(no step)");
		return buf;
	}
	if (s->kind == IW_STEP_SEND_FPDU)
		snprintf(buf, cap, "send %s", s->word);
	else if (s->kind == IW_EXPECT_FPDU)
		snprintf(buf, cap, "expect %s", s->word);
	else if (s->kind == IW_STEP_SEGMENT)
		snprintf(buf, cap, "segment %s", s->word);
	else if (s->kind == IW_STEP_SPLIT && strcmp(s->word, "none") == 0)
		snprintf(buf, cap, "split none");
	else
		snprintf(buf, cap, "%s", iw_step_name(s->kind));
	return buf;
}

const char *iw_level_name(enum iw_level l)
{
	switch (l) {
	case IW_LEVEL_MUST: return "MUST";
	case IW_LEVEL_SHOULD: return "SHOULD";
	case IW_LEVEL_MAY: return "MAY";
	case IW_LEVEL_INFO: return "INFO";
	}
	return "?";
}
