/*
 * case_header.c - the headers of a case (`name: value` before the first step): id, title,
 * requirement (a catalog ID and its level), role, needs, profiles, timeout and resegment.
 */
#include "case_parse_int.h"

#include <stdio.h>
#include <string.h>

#include "case_schema.h"
#include "profile.h"

static bool id_char(char ch) { return is_lower(ch) || is_digit(ch) || ch == '.' || ch == '_' || ch == '-'; }

/* Section numbers: digits, dot-separated ("6.1.1"). Returns the length read, 0 if none. */
static size_t section_len(const char *s, size_t n)
{
	size_t i = 0;
	for (;;) {
		size_t st = i;
		while (i < n && is_digit(s[i]))
			i++;
		if (i == st)
			return 0;
		if (i < n && s[i] == '.' && i + 1 < n && is_digit(s[i + 1])) {
			i++;
			continue;
		}
		return i;
	}
}

/* The end of an ID's last part, [up to two capitals]digits[a lower-case letter] ("R5", "04",
 * "T4", "R1a"), read from i; 0 when there is none. */
static size_t suffix_end(const char *s, size_t n, size_t i)
{
	size_t caps = 0;
	while (i < n && s[i] >= 'A' && s[i] <= 'Z' && caps < 2) {
		i++;
		caps++;
	}
	size_t d = i;
	while (i < n && is_digit(s[i]))
		i++;
	if (i == d)
		return 0;
	if (i < n && is_lower(s[i]))
		i++;
	return i;
}

/* A catalog ID (MPA-6.1-R5, MPAc-8.1-04, DDP-9.1-T4, ARCH-2.2-F1, MPA-6.1-R1a): PREFIX-SECTION-
 * [up to two capitals]digits[a lower-case letter]; an RFC-era row (RFC5040-4.8-03, RFC6581-9.3-F1:
 * spec/rfc-rows.md); or the bare shape of an RFC section, RFCnnnn-SECTION, which parses so that
 * the catalog check (suite/run/req_check.c) can name the rows of that section instead. Only the
 * shape is checked here: whether the ID is a row is the catalog's business. */
bool cp_req_id_ok(const char *s, size_t n)
{
	size_t i = 0;
	if (n >= 8 && memcmp(s, "RFC", 3) == 0 && is_digit(s[3])) {
		i = 3;
		while (i < n && is_digit(s[i]))
			i++;
		if (i - 3 < 4 || i - 3 > 5 || i >= n || s[i] != '-')
			return false;
		i++;
		size_t k = section_len(s + i, n - i);
		if (k == 0)
			return false;
		i += k;
		if (i == n)
			return true;
		return s[i] == '-' && suffix_end(s, n, i + 1) == n;
	}
	if (i >= n || !(s[i] >= 'A' && s[i] <= 'Z'))
		return false;
	while (i < n && ((s[i] >= 'A' && s[i] <= 'Z') || is_lower(s[i])))
		i++;
	if (i > 8 || i >= n || s[i] != '-')
		return false;
	i++;
	size_t k = section_len(s + i, n - i);
	if (k == 0)
		return false;
	i += k;
	if (i >= n || s[i] != '-')
		return false;
	return suffix_end(s, n, i + 1) == n;
}

/* The value of a header with any comment removed and spaces trimmed. */
static void header_value(const char *s, const char *end, const char **v, size_t *n)
{
	cp_skip_space(&s, end);
	const char *q = s;
	bool quoted = false;
	while (q < end) {
		if (*q == '"')
			quoted = !quoted;
		else if (*q == '\\' && quoted && q + 1 < end)
			q++;
		else if (*q == '#' && !quoted)
			break;
		q++;
	}
	while (q > s && is_space(q[-1]))
		q--;
	*v = s;
	*n = (size_t)(q - s);
}

static int header_requirement(parser *p, const char *v, const char *end)
{
	iw_case *c = p->c;
	char b[64];
	const char *id, *lv, *nt;
	size_t nid = cp_take_word(&v, end, &id);
	size_t nlv = cp_take_word(&v, end, &lv);
	size_t nnt = cp_take_word(&v, end, &nt);
	if (nid == 0)
		return cp_err(p, "requirement: missing ID and level (e.g. `requirement: MPA-6.1-R5 MUST`)");
	cp_show(id, nid, b, sizeof b);
	if (!cp_req_id_ok(id, nid) || nid >= sizeof c->reqs[0].id)
		return cp_err(p, "requirement: '%s' is not a requirement ID (like MPA-6.1-R5, MPAc-8.1-04, "
			      "DDP-9.1-T4, ARCH-2.2-F1, RFC5040-4.8-03)", b);
	if (c->nreqs >= IW_CASE_MAX_REQS)
		return cp_limit(p, "too many requirements (limit %d)", IW_CASE_MAX_REQS);
	enum iw_level level;
	if (cp_word_is(lv, nlv, "MUST"))
		level = IW_LEVEL_MUST;
	else if (cp_word_is(lv, nlv, "SHOULD"))
		level = IW_LEVEL_SHOULD;
	else if (cp_word_is(lv, nlv, "MAY"))
		level = IW_LEVEL_MAY;
	else if (cp_word_is(lv, nlv, "INFO"))
		level = IW_LEVEL_INFO;
	else if (nlv == 0)
		return cp_err(p, "requirement: %s: missing level (MUST, SHOULD, MAY or INFO)", b);
	else
		return cp_err(p, "requirement: %s: level must be MUST, SHOULD, MAY or INFO", b);
	/* The catalog keywords "MUST NOT" and "SHOULD NOT" bind as strongly as MUST and SHOULD. */
	if (nnt && !(cp_word_is(nt, nnt, "NOT") && level <= IW_LEVEL_SHOULD))
		return cp_err(p, "requirement: %s: unexpected text after the level", b);
	if (nnt) {
		const char *more;
		if (cp_take_word(&v, end, &more))
			return cp_err(p, "requirement: %s: unexpected text after the level", b);
	}
	for (size_t i = 0; i < c->nreqs; i++)
		if (strlen(c->reqs[i].id) == nid && memcmp(c->reqs[i].id, id, nid) == 0)
			return cp_err(p, "requirement: %s cited twice", b);
	iw_case_req *r = &c->reqs[c->nreqs++];
	memcpy(r->id, id, nid);
	r->id[nid] = '\0';
	r->level = level;
	r->line = p->line;
	return 0;
}

/* The value of a capability that takes one: recv=NxS (both at least 1), write-stag=S and
 * read-stag=S (S at least 1 octet), decimal or 0x hex. */
static int need_amount(parser *p, unsigned bit, const char *name, const char *v, size_t n)
{
	char b[64];
	iw_case_needs_amounts *a = &p->c->amounts;
	uint64_t x = 0, y = 0;
	size_t used = iw_needs_parse_amount(bit, v, n, &x, &y);
	if (used == 0 || used != n)
		return cp_err(p, "needs: %s=%s: %s", name, cp_show(v, n, b, sizeof b),
			      bit == IW_CAP_RECV ? "write recv=NxS: N receives of at least S octets (e.g. recv=1x16)"
						 : "write the range in octets, at least 1 (e.g. write-stag=65536)");
	if (bit == IW_CAP_RECV) {
		a->recv_n = (uint32_t)x;
		a->recv_size = (uint32_t)y;
	} else if (bit == IW_CAP_WRITE_STAG) {
		a->write_stag = x;
	} else {
		a->read_stag = x;
	}
	return 0;
}

static int header_needs(parser *p, const char *v, const char *end)
{
	char b[64];
	const char *w;
	size_t n;
	bool any = false;
	while ((n = cp_take_word(&v, end, &w)) != 0) {
		const char *eq = memchr(w, '=', n);
		size_t nname = eq ? (size_t)(eq - w) : n;
		unsigned bit = iw_needs_bit(w, nname);
		if (!bit)
			return cp_err(p, "needs: unknown capability '%s' (known: %s)", cp_show(w, nname, b, sizeof b),
				      iw_schema_caps);
		char name[24];
		cp_show(w, nname, name, sizeof name);
		if (p->c->needs & bit)
			return cp_err(p, "needs: %s named twice", name);
		bool takes = (bit & IW_CAP_AMOUNTS) != 0;
		if (takes && !eq)
			return cp_err(p, "needs: %s takes a value: %s", name,
				      bit == IW_CAP_RECV ? "recv=NxS, N receives of at least S octets (e.g. recv=1x16)"
							 : "the range in octets (e.g. write-stag=65536)");
		if (!takes && eq)
			return cp_err(p, "needs: %s takes no value (the capabilities with one: recv=NxS, write-stag=S, "
				      "read-stag=S)", name);
		if (takes) {
			/* A case about the edge of what the application offers counts from it (to=end-N,
			 * size=recv+1), so it runs whatever the amount: an exact one would only skip it. */
			if (n - nname > 1 && eq[1] == '=' && bit == IW_CAP_RECV)
				return cp_err(p, "needs: recv==: a case reaches the edge of the posted receives with size=recv+1, "
					      "mo=recv or msn=recv+1, whatever their size and number (docs/case-language.md): "
					      "write recv=NxS, the least it uses");
			if (n - nname > 1 && eq[1] == '=')
				return cp_err(p, "needs: %s==: a case reaches the end of the range with to=end or "
					      "to=end-N, whatever its length (docs/case-language.md): write %s=N, the "
					      "octets it uses", name, name);
			int rc = need_amount(p, bit, name, eq + 1, n - nname - 1);
			if (rc)
				return rc;
		}
		p->c->needs |= bit;
		any = true;
	}
	if (!any)
		return cp_err(p, "needs: no capability named (known: %s)", iw_schema_caps);
	return 0;
}

static int header_profiles(parser *p, const char *v, const char *end)
{
	iw_case *c = p->c;
	char b[64], names[160];
	const char *w;
	size_t n;
	while ((n = cp_take_word(&v, end, &w)) != 0) {
		char name[32];
		cp_show(w, n, b, sizeof b);
		const iw_profile *pr = NULL;
		if (n < sizeof name) {
			memcpy(name, w, n);
			name[n] = '\0';
			pr = iw_profile_find(name);
		}
		if (!pr) {
			iw_profile_names(names, sizeof names);
			return cp_err(p, "profiles: unknown profile '%s' (known: %s)", b, names);
		}
		for (size_t i = 0; i < c->nprofiles; i++)
			if (strcmp(c->profiles[i], pr->name) == 0)
				return cp_err(p, "profiles: '%s' named twice", b);
		if (c->nprofiles >= IW_CASE_MAX_PROFILES)
			return cp_limit(p, "profiles: too many (limit %d)", IW_CASE_MAX_PROFILES);
		snprintf(c->profiles[c->nprofiles++], sizeof c->profiles[0], "%s", pr->name);
	}
	if (c->nprofiles == 0)
		return cp_err(p, "profiles: no profile named (leave the header out for every profile with "
			      "startup frames)");
	return 0;
}

int cp_parse_header(parser *p, const char *name, size_t nname, const char *v0, const char *end,
		    unsigned *seen)
{
	iw_case *c = p->c;
	char b[64];
	const char *v;
	size_t n;
	header_value(v0, end, &v, &n);
	const char *vend = v + n;
	static const struct { const char *name; unsigned bit; } once[] = {
		{ "id", H_ID }, { "title", H_TITLE }, { "role", H_ROLE }, { "needs", H_NEEDS },
		{ "profiles", H_PROFILES }, { "timeout", H_TIMEOUT }, { "resegment", H_RESEGMENT },
	};
	unsigned bit = 0;
	for (size_t i = 0; i < sizeof once / sizeof once[0]; i++)
		if (cp_word_is(name, nname, once[i].name))
			bit = once[i].bit;
	if (!bit && !cp_word_is(name, nname, "requirement"))
		return cp_err(p, "unknown header '%s:' (headers: id, title, requirement, role, needs, profiles, "
			      "timeout, resegment)", cp_show(name, nname, b, sizeof b));
	if (bit & *seen)
		return cp_err(p, "header '%s:' given twice", cp_show(name, nname, b, sizeof b));
	*seen |= bit;
	if (n == 0 && bit != H_NEEDS && bit != H_PROFILES)
		return cp_err(p, "%s: missing value", cp_show(name, nname, b, sizeof b));
	switch (bit) {
	case H_ID:
		for (size_t i = 0; i < n; i++)
			if (!id_char(v[i]))
				return cp_err(p, "id: '%s' may hold only a-z 0-9 . _ - (got '%s')", cp_show(v, n, b, sizeof b),
					      (char[]){ (v[i] >= 0x20 && v[i] < 0x7F) ? v[i] : '?', 0 });
		if (n >= sizeof c->id)
			return cp_limit(p, "id: longer than %zu characters", sizeof c->id - 1);
		memcpy(c->id, v, n);
		c->id[n] = '\0';
		return 0;
	case H_TITLE:
		if (*v == '"') {
			value val;
			const char *q = v;
			int rc = cp_lex_value(p, &q, vend, &val);
			if (rc)
				return rc;
			size_t vn = val.n;
			if (q != vend) {
				cp_value_free(&val);
				return cp_err(p, "title: text after the closing '\"'");
			}
			if (vn >= sizeof c->title || memchr(val.bytes, '\0', vn)) {
				cp_value_free(&val);
				return vn >= sizeof c->title
					       ? cp_limit(p, "title: longer than %zu characters", sizeof c->title - 1)
					       : cp_err(p, "title: contains a NUL");
			}
			memcpy(c->title, val.bytes, vn + 1);
			cp_value_free(&val);
			return 0;
		}
		if (n >= sizeof c->title)
			return cp_limit(p, "title: longer than %zu characters", sizeof c->title - 1);
		memcpy(c->title, v, n);
		c->title[n] = '\0';
		return 0;
	case H_ROLE:
		if (cp_word_is(v, n, "responder"))
			c->dut_role = 1;
		else if (cp_word_is(v, n, "initiator"))
			c->dut_role = 0;
		else
			return cp_err(p, "role: '%s' is not responder or initiator (the DUT's role)", cp_show(v, n, b, sizeof b));
		return 0;
	case H_NEEDS:
		return header_needs(p, v, vend);
	case H_PROFILES:
		return header_profiles(p, v, vend);
	case H_TIMEOUT: {
		bool is_dur = false;
		int64_t ms = 0;
		int rc = cp_parse_duration(p, v, n, &ms, &is_dur);
		if (rc)
			return rc;
		if (!is_dur || ms == 0)
			return cp_err(p, "timeout: '%s' is not a positive duration (500ms, 10s, 2m)", cp_show(v, n, b, sizeof b));
		c->timeout_ms = ms;
		return 0;
	}
	case H_RESEGMENT:
		/* Only the mode a case needs for itself: the others cut the octets anew on every run,
		 * which is the run's business (--resegment), never a case's. */
		if (!cp_word_is(v, n, "coalesce"))
			return cp_err(p, "resegment: '%s' is not coalesce (the one mode a case sets for itself; "
				      "--resegment sets the others for a whole run)", cp_show(v, n, b, sizeof b));
		c->coalesce = true;
		return 0;
	default:
		return header_requirement(p, v, vend);
	}
}

/* `name:` at the start of a line (after spaces) makes it a header. */
bool cp_is_header(const char *s, const char *end, size_t *nname)
{
	const char *q = s;
	if (q >= end || !((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_'))
		return false;
	while (q < end && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || is_digit(*q) || *q == '_' ||
			   *q == '-'))
		q++;
	if (q >= end || *q != ':')
		return false;
	*nname = (size_t)(q - s);
	return true;
}
