/*
 * result_blame.c - which wire entry, and which field of it, a failure points at, so that a
 * report can highlight the offending field (result.h, iw_result_blame).
 *
 * The harness words its failures from the decoded summaries ("Reply: rev=1 expected, 2 seen",
 * "Rev 2, profile rfc5044 accepts 1..1"), so the field is the summary key the reason names;
 * when the reason names none, the requirement says which field it is about.
 */
#include "result.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

const char *iw_blame_field_for_req(const char *req)
{
	static const struct { const char *req, *field; } tab[] = {
		{"MPA-4-02", "PAD"},             {"MPA-4.1-02", "RESERVED"},      {"MPA-5.1-05", "FPDUPTR"},
		{"MPA-5.1-03", "FPDUPTR"},       {"MPA-6.1-R7", "markers"},       {"MPA-6.1.1-M1", "M"},
		{"MPA-6.1.1-M2", "M"},           {"MPA-5.2-03", "C"},             {"MPA-6.1.1-R1", "R"},
		{"MPA-6.1.1-05", "Res"},         {"MPA-6.1.1-06", "Rev"},         {"MPA-6.1.1-07", "Rev"},
		{"MPA-6.1.1-08", "PD_Length"},   {"MPA-6.1.1-01", "key"},         {"MPA-6.1.1-03", "key"},
		{"MPA-6.1-R9c", "PD_Length"},    {"MPA-3.2-04", "ULPDU_Length"},  {"MPA-5.2-14", "CRC"},
		{"DDP-6.1-08", "Rsvd"},          {"DDP-6.1-09", "DV"},            {"DDP-6.1-03", "L"},
		{"DDP-6.2-04", "RsvdULP"},       {"DDP-6.2-08", "STag"},          {"DDP-6.3-04", "RsvdULP"},
		{"DDP-6.3-07", "QN"},            {"DDP-6.3-11", "MSN"},           {"DDP-7.2-05", "MO"},
		{"DDP-7.2-07", "TO"},            {"RFC5044-7.1.1-01", "Rev"},     {"RFC5044-7.1.1-04", "PD_Length"},
		{"RFC6581-9.1-01", "PD_Length"}, {"RFC6581-6-03", "PD_Length"},
	};
	if (!req)
		return NULL;
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
		if (!strcmp(tab[i].req, req))
			return tab[i].field;
	return NULL;
}

static bool word_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Whether `key` occurs in text as a whole word followed by '=' or ' ' (case-insensitive). */
static bool names_key(const char *text, size_t tlen, const char *key, size_t klen)
{
	for (size_t i = 0; i + klen < tlen; i++) {
		if (i && word_char(text[i - 1]))
			continue;
		if (strncasecmp(text + i, key, klen) != 0)
			continue;
		char after = text[i + klen];
		if (after == '=' || after == ' ')
			return true;
	}
	return false;
}

void iw_result_blame(iw_case_result *r, const char *req)
{
	iw_result_blame_at(r, req, 0);
}

void iw_result_blame_at(iw_case_result *r, const char *req, size_t k)
{
	if (!r)
		return;
	r->fail_wire = 0;
	r->fail_field[0] = '\0';
	if (k == 0 || k > r->nwire) {
		k = r->nwire;
		while (k && r->wire[k - 1].dir == IW_NOTE)
			k--;
	}
	if (k)
		r->fail_wire = k;
	/* The reason without its "(seen: ...)" echo of the whole summary, which names every key. */
	const char *reason = r->reason;
	const char *seen = strstr(reason, "(seen:");
	size_t rlen = seen ? (size_t)(seen - reason) : strlen(reason);
	if (k) {
		const char *s = r->wire[k - 1].summary;
		/* Each "KEY=" of the summary, in order; the first the reason names wins. */
		for (const char *eq = strchr(s, '='); eq; eq = strchr(eq + 1, '=')) {
			const char *b = eq;
			while (b > s && word_char(b[-1]))
				b--;
			size_t klen = (size_t)(eq - b);
			if (klen && klen < sizeof r->fail_field && names_key(reason, rlen, b, klen)) {
				snprintf(r->fail_field, sizeof r->fail_field, "%.*s", (int)klen, b);
				return;
			}
		}
	}
	const char *f = iw_blame_field_for_req(req);
	if (f)
		snprintf(r->fail_field, sizeof r->fail_field, "%s", f);
}

void iw_result_outcome(iw_case_result *r)
{
	r->outcome[0] = '\0';
	if (r->verdict != IW_FAIL && r->verdict != IW_WARN)
		return;
	size_t k = r->fail_wire;
	if (!k || k > r->nwire)
		return;
	const iw_wire_entry *w = &r->wire[k - 1];
	bool closing = !strcmp(w->what, "fin") || !strcmp(w->what, "rst");
	if (w->dir == IW_FROM_DUT && w->act[0] && !closing) {
		snprintf(r->outcome, sizeof r->outcome, "%s", w->act);
		return;
	}
	/* The harness's last send on that connection before the entry, then the DUT's first event
	 * after it: a FIN the failure points at may follow the Terminate that was the answer. */
	size_t from = k - 1;
	while (from > 0 && !(r->wire[from].dir == IW_TO_DUT && r->wire[from].conn == w->conn))
		from--;
	for (size_t i = from; i < k; i++)
		if (r->wire[i].dir == IW_FROM_DUT && r->wire[i].conn == w->conn && r->wire[i].act[0]) {
			snprintf(r->outcome, sizeof r->outcome, "%s", r->wire[i].act);
			return;
		}
	snprintf(r->outcome, sizeof r->outcome, "silence");
}
