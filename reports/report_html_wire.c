/*
 * report_html_wire.c - a case's wire log in report.html: each event with its time, connection,
 * direction and decoded summary, its octets in hex; when the case failed, the event its failure
 * points at is highlighted, with the field named in the summary and, when the engine knows the
 * layout (iw_field_span.h), the field's octets marked in the hex.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "iw_field_span.h"
#include "report_html_int.h"

/* Octets of one wire entry shown as hex; the rest is in results.json and the pcap. */
#define HTML_HEX_MAX 2048

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Where field appears in a summary as "FIELD=value" (or the bare word): [*b, *e). */
static bool find_field(const char *s, size_t n, const char *field, size_t *b, size_t *e)
{
	size_t fl = strlen(field);
	if (!fl)
		return false;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i + fl <= n; i++) {
			if (i && word_char(s[i - 1]))
				continue;
			if (strncasecmp(s + i, field, fl))
				continue;
			char after = i + fl < n ? s[i + fl] : '\0';
			if (pass == 0 && after != '=')
				continue;
			if (pass == 1 && word_char(after))
				continue;
			size_t j = i + fl;
			if (after == '=')
				while (j < n && s[j] != ' ' && s[j] != ',' && s[j] != ')' && s[j] != ';')
					j++;
			*b = i;
			*e = j;
			return true;
		}
	return false;
}

/* The octets of a field in a wire entry, when its layout is known (iw_field_span.h): startup
 * frames always, an FPDU when no marker sits inside it. */
static bool field_octets(const iw_wire_entry *w, const char *field, size_t *b, size_t *e)
{
	if (!field[0] || !w->bytes || !w->nbytes)
		return false;
	if (!strcmp(w->what, "request") || !strcmp(w->what, "reply"))
		return iw_field_span_frame(w->bytes, w->nbytes, field, b, e);
	if (!strcmp(w->what, "fpdu"))
		return iw_field_span_fpdu(w->bytes, w->nbytes, field, b, e);
	return false;
}

static void hex_dump(hctx *h, const iw_wire_entry *w, bool has_mark, size_t mb, size_t me)
{
	size_t n = w->nbytes > HTML_HEX_MAX ? HTML_HEX_MAX : w->nbytes;
	html_out(h, "<pre>");
	for (size_t i = 0; i < n; i++) {
		if (i % 16 == 0)
			iw_atomic_printf(h->af, "%s%04zx  ", i ? "\n" : "", i);
		bool in = has_mark && i >= mb && i < me;
		if (in && (i == mb || i % 16 == 0))
			html_out(h, "<mark>");
		iw_atomic_printf(h->af, "%02x", w->bytes[i]);
		bool last_in_mark = in && (i + 1 == me || i + 1 == n || (i + 1) % 16 == 0);
		if (last_in_mark)
			html_out(h, "</mark>");
		if (i + 1 < n && (i + 1) % 16)
			html_out(h, (i + 1) % 8 ? " " : "  ");
	}
	if (w->nbytes > n)
		iw_atomic_printf(h->af, "\n... %zu more octets (all in results.json and the pcap)", w->nbytes - n);
	html_out(h, "</pre>");
}

static const char *dir_text(enum iw_wire_dir d)
{
	return d == IW_TO_DUT ? "&rarr; DUT" : d == IW_FROM_DUT ? "&larr; DUT" : "note";
}

void html_wire_table(hctx *h, const iw_case_result *r, const char *slug, bool blame_on)
{
	iw_atomic_printf(h->af, "<h4>Wire log (%zu event%s", r->nwire, r->nwire == 1 ? "" : "s");
	if (r->wire_dropped)
		iw_atomic_printf(h->af, ", %zu more not kept", r->wire_dropped);
	html_out(h, ")</h4>\n<table class=\"wire\"><tr><th>#</th><th>ms</th><th>conn</th><th>dir</th><th>what</th>"
	       "<th>decoded</th><th>octets</th></tr>\n");
	char field[40];
	snprintf(field, sizeof field, "%.*s", (int)strnlen(r->fail_field, sizeof r->fail_field), r->fail_field);
	for (size_t k = 0; k < r->nwire && iw_atomic_ok(h->af); k++) {
		const iw_wire_entry *w = &r->wire[k];
		bool blamed = blame_on && r->fail_wire == k + 1;
		if (blamed) {
			html_out(h, "<tr class=\"blame\" id=\"case-");
			html_esc_s(h, slug);
			html_out(h, "-blame\">");
		} else {
			html_out(h, "<tr>");
		}
		iw_atomic_printf(h->af, "<td class=\"n\">%zu</td><td class=\"n\">%.3f</td><td class=\"n\">%d</td><td>%s</td><td>",
				 k + 1, (double)w->t_us / 1000.0, w->conn, dir_text(w->dir));
		html_esc(h, FIELD(w->what));
		html_out(h, "</td><td class=\"mono\">");
		size_t sl = strnlen(w->summary, sizeof w->summary), b = 0, e = 0;
		if (blamed && find_field(w->summary, sl, field, &b, &e)) {
			html_esc(h, w->summary, b);
			html_out(h, "<mark>");
			html_esc(h, w->summary + b, e - b);
			html_out(h, "</mark>");
			html_esc(h, w->summary + e, sl - e);
		} else {
			html_esc(h, w->summary, sl);
		}
		if (blamed)
			html_out(h, field[0] ? " <span class=\"bad\">&larr; the failure points here</span>"
					: " <span class=\"bad\">&larr; the failure points here (no single field)</span>");
		html_out(h, "</td><td class=\"oct\">");
		if (w->bytes && w->nbytes) {
			size_t mb = 0, me = 0;
			bool mark = blamed && field_octets(w, field, &mb, &me);
			iw_atomic_printf(h->af, "<details%s><summary>%zu octets</summary>", blamed ? " open" : "", w->nbytes);
			if (mark) {
				iw_atomic_printf(h->af, "<span class=\"dim\">");
				html_esc_s(h, field);
				iw_atomic_printf(h->af, ": octets %zu..%zu</span>", mb, me - 1);
			}
			hex_dump(h, w, mark, mb, me);
			html_out(h, "</details>");
		} else {
			html_out(h, "<span class=\"dim\">-</span>");
		}
		html_out(h, "</td></tr>\n");
	}
	html_out(h, "</table>\n");
}
