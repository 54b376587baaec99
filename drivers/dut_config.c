#include "dut_config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "iw_conn.h"
#include "iw_proto.h"
#include "net.h"
#include "ref_faults.h"

/* Space-separated, as the case parser lists capabilities: with commas the list no longer fit an
 * iw_err's 256 octets beside the key at fault. */
#define KNOWN_KEYS "dut role profile mpa_revision markers crc private_data_limit reflector reject ulp rping_size " \
		   "connect_timeout case_timeout close_timeout first_fpdu_delay exec_host disable map hostile " \
		   "mutant raw_link wait_dut"

enum key_id {
	K_DUT, K_ROLE, K_PROFILE, K_MPA_REVISION, K_MARKERS, K_CRC, K_PD_LIMIT, K_REFLECTOR, K_REJECT,
	K_CONNECT_TIMEOUT, K_CASE_TIMEOUT, K_CLOSE_TIMEOUT, K_FIRST_FPDU_DELAY, K_EXEC_HOST, K_DISABLE, K_MAP, K_HOSTILE, K_MUTANT, K_ULP, K_RAW_LINK, K_WAIT_DUT, K_RPING_SIZE, K_COUNT
};

static const char *const key_names[K_COUNT] = {
	[K_DUT] = "dut", [K_ROLE] = "role", [K_PROFILE] = "profile", [K_MPA_REVISION] = "mpa_revision",
	[K_MARKERS] = "markers", [K_CRC] = "crc", [K_PD_LIMIT] = "private_data_limit",
	[K_REFLECTOR] = "reflector", [K_REJECT] = "reject", [K_CONNECT_TIMEOUT] = "connect_timeout",
	[K_CASE_TIMEOUT] = "case_timeout", [K_CLOSE_TIMEOUT] = "close_timeout",
	[K_FIRST_FPDU_DELAY] = "first_fpdu_delay", [K_EXEC_HOST] = "exec_host",
	[K_DISABLE] = "disable",
	[K_MAP] = "map", [K_HOSTILE] = "hostile", [K_MUTANT] = "mutant",
	[K_ULP] = "ulp", [K_RAW_LINK] = "raw_link", [K_WAIT_DUT] = "wait_dut", [K_RPING_SIZE] = "rping_size",
};

/* Values that are free text (commands, reasons) keep a '#'; the others may end in a comment. */
static bool free_text(enum key_id k) { return k == K_DUT || k == K_DISABLE || k == K_MAP; }

static int key_find(const char *key)
{
	for (int i = 0; i < K_COUNT; i++)
		if (strcmp(key_names[i], key) == 0)
			return i;
	return -1;
}

void iw_dut_config_default(iw_dut_config *c)
{
	memset(c, 0, sizeof *c);
	snprintf(c->dut, sizeof c->dut, "ref");
	c->profile = iw_profile_default();
	c->role = IW_ROLE_RESPONDER;
	c->mpa_revision = -1;
	c->markers = true;
	c->crc_off_mode = false;
	c->pd_limit = 0;
	c->reflector = true;
	c->reject = true;
	c->rping_size = IW_RPING_SIZE_DEFAULT;
	c->connect_timeout_ms = 5000;
	c->case_timeout_ms = 10000;
	c->close_timeout_ms = 5000;
	snprintf(c->exec_host, sizeof c->exec_host, "127.0.0.1");
	snprintf(c->source, sizeof c->source, "defaults");
}

int iw_parse_duration(const char *s, int64_t *ms, iw_err *e)
{
	const char *p = s;
	int64_t whole = 0, frac = 0, fscale = 1;
	bool digits = false;
	while (isdigit((unsigned char)*p)) {
		whole = whole * 10 + (*p++ - '0');
		digits = true;
		if (whole > 100000000)
			return iw_errf(e, IW_EINVAL, "'%s' is too long a duration (at most a day)", s);
	}
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			if (fscale < 1000000) {
				frac = frac * 10 + (*p - '0');
				fscale *= 10;
			}
			p++;
			digits = true;
		}
	}
	int64_t unit;
	if (!strcmp(p, "ms"))
		unit = 1;
	else if (!strcmp(p, "s"))
		unit = 1000;
	else if (!strcmp(p, "m") || !strcmp(p, "min"))
		unit = 60000;
	else
		unit = 0;
	if (!digits || !unit)
		return iw_errf(e, IW_EINVAL, "'%s' is not a duration: use a number and a unit ms, s or m (e.g. 250ms, 5s, 2m)",
			       s);
	int64_t v = whole * unit + frac * unit / fscale;
	if (v > 86400000)
		return iw_errf(e, IW_EINVAL, "'%s' is too long a duration (at most a day)", s);
	*ms = v;
	return IW_OK;
}

static int parse_bool(const char *key, const char *v, bool *out, iw_err *e)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "on")) {
		*out = true;
		return IW_OK;
	}
	if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off")) {
		*out = false;
		return IW_OK;
	}
	return iw_errf(e, IW_EINVAL, "bad value '%s' for %s: use yes or no", v, key);
}

/* A decimal number, or hexadecimal with 0x (never octal: "010" is ten). */
static bool parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	int base = 10;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!isxdigit((unsigned char)s[0]))
		return false;
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, base);
	if (*end || errno || v > max)
		return false;
	*out = v;
	return true;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

static int set_dut(iw_dut_config *c, const char *v, iw_err *e)
{
	if (strlen(v) >= sizeof c->dut)
		return iw_errf(e, IW_EINVAL, "dut: the value is %zu characters long (at most %zu)", strlen(v),
			       sizeof c->dut - 1);
	if (!strcmp(v, "ref")) {
		/* fine */
	} else if (!strncmp(v, "tcp:", 4)) {
		char host[IW_NET_HOST_MAX];
		uint16_t port;
		iw_err pe;
		if (iw_net_parse_hostport(v + 4, host, sizeof host, &port, &pe))
			return iw_errf(e, IW_EINVAL, "bad value '%s' for dut: %s (e.g. tcp:192.0.2.7:4000)", v, pe.msg);
	} else if (!strncmp(v, "exec:", 5)) {
		const char *cmd = v + 5;
		while (isspace((unsigned char)*cmd))
			cmd++;
		if (!*cmd || !strcmp(cmd, "''"))
			return iw_errf(e, IW_EINVAL, "bad value '%s' for dut: exec: needs a command, e.g. "
				       "exec:'./mydut --listen {host}:{port}'", v);
	} else {
		return iw_errf(e, IW_EINVAL, "unknown DUT '%s': use ref, tcp:HOST:PORT or exec:'COMMAND'", v);
	}
	snprintf(c->dut, sizeof c->dut, "%s", v);
	return IW_OK;
}

/* A numeric address: {host} goes into a command line and a bind(), so no name lookups. */
static int set_exec_host(iw_dut_config *c, const char *v, iw_err *e)
{
	struct in_addr a4;
	struct in6_addr a6;
	if (strlen(v) >= sizeof c->exec_host || (inet_pton(AF_INET, v, &a4) != 1 && inet_pton(AF_INET6, v, &a6) != 1))
		return iw_errf(e, IW_EINVAL, "bad value '%s' for exec_host: use a numeric IPv4 or IPv6 address of this "
			       "host (e.g. 127.0.0.1, or the address a DUT in a VM reaches the harness at)", v);
	snprintf(c->exec_host, sizeof c->exec_host, "%s", v);
	return IW_OK;
}

static int set_timeout(const char *key, const char *v, int64_t *out, iw_err *e)
{
	int64_t ms;
	iw_err pe;
	if (iw_parse_duration(v, &ms, &pe))
		return iw_errf(e, IW_EINVAL, "bad value for %s: %s", key, pe.msg);
	if (ms <= 0)
		return iw_errf(e, IW_EINVAL, "bad value '%s' for %s: a timeout must be more than 0", v, key);
	*out = ms;
	return IW_OK;
}

/* Splits "A : reason" at the first ':'; both parts trimmed, the reason required. */
static int split_reason(const char *key, const char *v, char *lhs, size_t lcap, char *reason, size_t rcap,
			const char *example, iw_err *e)
{
	const char *colon = strchr(v, ':');
	if (!colon)
		return iw_errf(e, IW_EINVAL, "bad value '%s' for %s: a reason is required after ':' (e.g. %s)", v, key,
			       example);
	char tmp[512];
	size_t ln = (size_t)(colon - v);
	if (ln >= sizeof tmp)
		ln = sizeof tmp - 1;
	memcpy(tmp, v, ln);
	tmp[ln] = '\0';
	char *l = trim(tmp);
	char rtmp[512];
	snprintf(rtmp, sizeof rtmp, "%s", colon + 1);
	char *r = trim(rtmp);
	if (!*r)
		return iw_errf(e, IW_EINVAL, "bad value '%s' for %s: the reason after ':' is empty (e.g. %s)", v, key,
			       example);
	if (strlen(l) >= lcap)
		return iw_errf(e, IW_EINVAL, "bad value for %s: '%s' is longer than %zu characters", key, l, lcap - 1);
	if (strlen(r) >= rcap)
		return iw_errf(e, IW_EINVAL, "bad value for %s: the reason is longer than %zu characters", key,
			       rcap - 1);
	snprintf(lhs, lcap, "%s", l);
	snprintf(reason, rcap, "%s", r);
	return IW_OK;
}

static int set_disable(iw_dut_config *c, const char *v, iw_err *e)
{
	if (c->ndisabled == IW_DUT_MAX_DISABLED)
		return iw_errf(e, IW_ENOSPC, "disable: at most %d lines", IW_DUT_MAX_DISABLED);
	iw_disabled_case d;
	int rc = split_reason("disable", v, d.glob, sizeof d.glob, d.reason, sizeof d.reason,
			      "disable = MPA-6.1-R10a : no startup timer", e);
	if (rc)
		return rc;
	if (!d.glob[0])
		return iw_errf(e, IW_EINVAL, "bad value '%s' for disable: the case id or glob before ':' is empty "
			       "(e.g. disable = TR-05* : reason)", v);
	for (const char *p = d.glob; *p; p++)
		if (isspace((unsigned char)*p))
			return iw_errf(e, IW_EINVAL, "bad value '%s' for disable: the glob '%s' contains a space", v,
				       d.glob);
	c->disabled[c->ndisabled++] = d;
	return IW_OK;
}

static bool parse_code(char *s, iw_code *out)
{
	char *parts[3];
	int n = 0;
	for (char *tok = s;;) {
		parts[n++] = tok;
		char *sl = strchr(tok, '/');
		if (!sl || n == 3)
			break;
		*sl = '\0';
		tok = sl + 1;
	}
	if (n != 3 || strchr(parts[2], '/'))
		return false;
	for (int i = 0; i < 3; i++)
		parts[i] = trim(parts[i]);
	unsigned long layer, etype, ecode;
	if (!strcasecmp(parts[0], "rdmap"))
		layer = IW_LAYER_RDMAP;
	else if (!strcasecmp(parts[0], "ddp"))
		layer = IW_LAYER_DDP;
	else if (!strcasecmp(parts[0], "llp") || !strcasecmp(parts[0], "mpa"))
		layer = IW_LAYER_LLP;
	else if (!parse_uint(parts[0], 15, &layer))
		return false;
	if (!parse_uint(parts[1], 15, &etype) || !parse_uint(parts[2], 255, &ecode))
		return false;
	out->layer = (int)layer;
	out->etype = (int)etype;
	out->ecode = (int)ecode;
	return true;
}

static int set_map(iw_dut_config *c, const char *v, iw_err *e)
{
	static const char ex[] = "map = ddp/1/0x04 -> llp/0/0x02 : reason";
	static const char how[] = "LAYER/ETYPE/ECODE with LAYER rdmap, ddp, llp or 0-15, ETYPE 0-15, ECODE 0-255";
	if (c->nmaps == IW_DUT_MAX_MAPS)
		return iw_errf(e, IW_ENOSPC, "map: at most %d lines", IW_DUT_MAX_MAPS);
	iw_code_map m;
	char codes[128];
	int rc = split_reason("map", v, codes, sizeof codes, m.reason, sizeof m.reason, ex, e);
	if (rc)
		return rc;
	char *arrow = strstr(codes, "->");
	if (!arrow)
		return iw_errf(e, IW_EINVAL, "bad value '%s' for map: expected FROM -> TO : reason (e.g. %s)", v, ex);
	*arrow = '\0';
	char from[64], to[64];
	snprintf(from, sizeof from, "%s", trim(codes));
	snprintf(to, sizeof to, "%s", trim(arrow + 2));
	char fcopy[64], tcopy[64];
	memcpy(fcopy, from, sizeof from);
	memcpy(tcopy, to, sizeof to);
	if (!parse_code(fcopy, &m.from))
		return iw_errf(e, IW_EINVAL, "bad value for map: '%s' is not an error code: use %s", from, how);
	if (!parse_code(tcopy, &m.to))
		return iw_errf(e, IW_EINVAL, "bad value for map: '%s' is not an error code: use %s", to, how);
	c->maps[c->nmaps++] = m;
	return IW_OK;
}

/* ulp: the application on the DUT the cases talk to. rping (docs/rping.md) replaces the
 * reflector, so the reflector's cases skip and nobody refuses REJECTME unless `reject` says so. */
static int set_ulp(iw_dut_config *c, const char *v, iw_err *e)
{
	if (!strcmp(v, "reflector")) {
		c->ulp = IW_ULP_REFLECTOR;
		c->reflector = true;
	} else if (!strcmp(v, "none")) {
		c->ulp = IW_ULP_NONE;
		c->reflector = false;
	} else if (!strcmp(v, "rping") || !strncmp(v, "perftest", 8)) {
		static const struct { const char *name; int ulp; } apps[] = {
			{ "rping", IW_ULP_RPING }, { "perftest-send", IW_ULP_PERFTEST_SEND },
			{ "perftest-write", IW_ULP_PERFTEST_WRITE }, { "perftest-read", IW_ULP_PERFTEST_READ },
			{ "perftest", IW_ULP_PERFTEST },
			{ "perftest-send-lat", IW_ULP_PERFTEST_SEND_LAT },
		};
		int ulp = -1;
		for (size_t i = 0; i < sizeof apps / sizeof apps[0]; i++)
			if (!strcmp(v, apps[i].name))
				ulp = apps[i].ulp;
		if (ulp < 0)
			return iw_errf(e, IW_EINVAL, "bad value '%s' for ulp: use reflector, rping "
				       "(docs/rping.md), perftest-send, perftest-write, perftest-read (ib_*_bw -R), perftest (the "
				       "one each case needs), perftest-send-lat (ib_send_lat -R -s 65536) or none: docs/ulp-profiles.md", v);
		if (c->reflector_set && c->reflector)
			return iw_errf(e, IW_EINVAL, "ulp = %s contradicts reflector = yes: a DUT that runs %s runs "
				       "no reflector (drop one of the two lines)", v, v);
		c->ulp = ulp;
		c->reflector = false;
	} else {
		return iw_errf(e, IW_EINVAL, "bad value '%s' for ulp: use reflector, rping "
			       "(docs/rping.md), perftest-send, perftest-write, perftest-read (ib_*_bw -R), perftest (the "
			       "one each case needs), perftest-send-lat (ib_send_lat -R -s 65536) or none: docs/ulp-profiles.md", v);
	}
	c->ulp_set = true;
	if (!c->reflector && !c->reject_set)
		c->reject = false;
	return IW_OK;
}

/* NETNS:IFNAME, the TAP device the raw segment path uses; "none" (or empty) turns it off. */
static int set_raw_link(iw_dut_config *c, const char *v, iw_err *e)
{
	c->raw_netns[0] = c->raw_ifname[0] = '\0';
	if (!*v || !strcmp(v, "none"))
		return IW_OK;
	const char *colon = strchr(v, ':');
	if (!colon)
		return iw_errf(e, IW_EINVAL, "bad value '%s' for raw_link: write NETNS:IFNAME (the namespace holding "
			       "the TAP device, e.g. iwspec-raw:iwraw0), or :IFNAME for the harness's own namespace", v);
	size_t nl = (size_t)(colon - v), il = strlen(colon + 1);
	if (nl >= sizeof c->raw_netns)
		return iw_errf(e, IW_EINVAL, "bad value for raw_link: the namespace name is %zu characters, at most %zu",
			       nl, sizeof c->raw_netns - 1);
	if (il == 0 || il >= sizeof c->raw_ifname || strchr(colon + 1, '/') || strchr(colon + 1, ':'))
		return iw_errf(e, IW_EINVAL, "bad value '%s' for raw_link: the interface name after ':' must be 1 to %zu "
			       "characters without '/' or ':' (e.g. iwraw0)", v, sizeof c->raw_ifname - 1);
	memcpy(c->raw_netns, v, nl);
	c->raw_netns[nl] = '\0';
	memcpy(c->raw_ifname, colon + 1, il + 1);
	return IW_OK;
}

static int set_key(iw_dut_config *c, enum key_id k, const char *v, iw_err *e)
{
	const char *key = key_names[k];
	unsigned long n;
	switch (k) {
	case K_DUT:
		return set_dut(c, v, e);
	case K_ROLE:
		if (!strcmp(v, "responder"))
			c->role = IW_ROLE_RESPONDER;
		else if (!strcmp(v, "initiator"))
			c->role = IW_ROLE_INITIATOR;
		else
			return iw_errf(e, IW_EINVAL, "bad value '%s' for role: use responder or initiator", v);
		c->role_set = true;
		return IW_OK;
	case K_PROFILE: {
		const iw_profile *p = iw_profile_find(v);
		if (!p) {
			char names[160];
			iw_profile_names(names, sizeof names);
			return iw_errf(e, IW_EINVAL, "bad value '%s' for profile: use one of %s", v, names);
		}
		c->profile = p;
		return IW_OK;
	}
	case K_MPA_REVISION:
		if (!parse_uint(v, 255, &n))
			return iw_errf(e, IW_EINVAL, "bad value '%s' for mpa_revision: use a number from 0 to 255 "
				       "(0 drafts, 1 RFC 5044, 2 RFC 6581)", v);
		c->mpa_revision = (int)n;
		return IW_OK;
	case K_MARKERS:
		c->markers_set = true;
		return parse_bool(key, v, &c->markers, e);
	case K_CRC:
		if (!strcmp(v, "required"))
			c->crc_off_mode = false;
		else if (!strcmp(v, "optional-off"))
			c->crc_off_mode = true;
		else
			return iw_errf(e, IW_EINVAL, "bad value '%s' for crc: use required or optional-off "
				       "(an administrator no-CRC mode exists)", v);
		return IW_OK;
	case K_PD_LIMIT:
		if (!parse_uint(v, 65535, &n))
			return iw_errf(e, IW_EINVAL, "bad value '%s' for private_data_limit: use a number of octets "
				       "from 0 to 65535 (0: the profile's limit)", v);
		c->pd_limit = (uint32_t)n;
		return IW_OK;
	case K_REFLECTOR:
		if (parse_bool(key, v, &c->reflector, e) != IW_OK)
			return IW_EINVAL;
		if (c->reflector && c->ulp != IW_ULP_REFLECTOR && c->ulp != IW_ULP_NONE)
			return iw_errf(e, IW_EINVAL, "reflector = yes contradicts ulp = %s: a DUT that runs %s runs "
				       "no reflector (drop one of the two lines)", c->ulp == IW_ULP_RPING ? "rping" : "perftest-*",
				       c->ulp == IW_ULP_RPING ? "rping" : "perftest");
		c->reflector_set = true;
		/* Refusing REJECTME is the reflector's job (docs/reflector.md item 6): without one
		 * nobody refuses, unless the configuration says its DUT does. */
		if (!c->reflector && !c->reject_set)
			c->reject = false;
		return IW_OK;
	case K_ULP:
		return set_ulp(c, v, e);
	case K_REJECT:
		c->reject_set = true;
		return parse_bool(key, v, &c->reject, e);
	case K_CONNECT_TIMEOUT:
		return set_timeout(key, v, &c->connect_timeout_ms, e);
	case K_CASE_TIMEOUT:
		return set_timeout(key, v, &c->case_timeout_ms, e);
	case K_CLOSE_TIMEOUT:
		return set_timeout(key, v, &c->close_timeout_ms, e);
	case K_FIRST_FPDU_DELAY: {
		int64_t ms;
		iw_err pe;
		if (iw_parse_duration(v, &ms, &pe))
			return iw_errf(e, IW_EINVAL, "bad value for %s: %s", key, pe.msg);
		if (ms > 10000)
			return iw_errf(e, IW_EINVAL, "bad value '%s' for %s: at most 10s (it delays every connection)",
				       v, key);
		c->first_fpdu_delay_ms = ms;
		return IW_OK;
	}
	case K_EXEC_HOST:
		return set_exec_host(c, v, e);
	case K_DISABLE:
		return set_disable(c, v, e);
	case K_MAP:
		return set_map(c, v, e);
	case K_HOSTILE: {
		enum iw_hostile h;
		iw_err fe;
		if (iw_hostile_find(v, &h, &fe))
			return iw_errf(e, IW_EINVAL, "bad value for hostile: %s", fe.msg);
		snprintf(c->hostile, sizeof c->hostile, "%s", h == IW_HOSTILE_NONE ? "" : iw_hostile_info(h)->name);
		return IW_OK;
	}
	case K_MUTANT: {
		enum iw_mutant m;
		iw_err fe;
		if (iw_mutant_find(v, &m, &fe))
			return iw_errf(e, IW_EINVAL, "bad value for mutant: %s", fe.msg);
		snprintf(c->mutant, sizeof c->mutant, "%s", m == IW_MUTANT_NONE ? "" : iw_mutant_info(m)->name);
		return IW_OK;
	}
	case K_RAW_LINK:
		return set_raw_link(c, v, e);
	case K_RPING_SIZE:
		/* The buffers rping advertises are this long: the ranges its client offers the cases. */
		if (!parse_uint(v, IW_RPING_SIZE_MAX, &n) || n < IW_RPING_SIZE_MIN)
			return iw_errf(e, IW_EINVAL, "bad value '%s' for rping_size: use the -S the DUT's rping runs with, "
				       "a number of octets from %d to %d (rping's default %d)", v, IW_RPING_SIZE_MIN,
				       IW_RPING_SIZE_MAX, IW_RPING_SIZE_DEFAULT);
		c->rping_size = (uint32_t)n;
		return IW_OK;
	case K_WAIT_DUT: {
		/* 0 is allowed: no wait, as without the key. */
		int64_t ms;
		iw_err pe;
		if (iw_parse_duration(v, &ms, &pe))
			return iw_errf(e, IW_EINVAL, "bad value for %s: %s", key, pe.msg);
		c->wait_dut_ms = ms;
		return IW_OK;
	}
	default:
		break;
	}
	return iw_errf(e, IW_EINVAL, "unknown key '%s'", key);
}

int iw_dut_config_set(iw_dut_config *c, const char *key, const char *value, iw_err *e)
{
	int k = key_find(key);
	if (k < 0)
		return iw_errf(e, IW_EINVAL, "unknown key '%s' (known keys: %s)", key, KNOWN_KEYS);
	return set_key(c, (enum key_id)k, value, e);
}

int iw_dut_config_load(iw_dut_config *c, const char *path, iw_err *e)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return iw_errf(e, IW_EINVAL, "%s: cannot open: %s", path, strerror(errno));
	char line[2048];
	int lineno = 0, rc = IW_OK;
	int seen[K_COUNT] = {0};
	while (fgets(line, sizeof line, fp)) {
		lineno++;
		size_t len = strlen(line);
		if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(fp)) {
			rc = iw_errf(e, IW_EINVAL, "%s:%d: line longer than %zu characters", path, lineno, sizeof line - 2);
			break;
		}
		char *s = trim(line);
		if (!*s || *s == '#')
			continue;
		char *eq = strchr(s, '=');
		if (!eq) {
			rc = iw_errf(e, IW_EINVAL, "%s:%d: expected `key = value`, got '%.80s'", path, lineno, s);
			break;
		}
		*eq = '\0';
		char *key = trim(s);
		char *val = trim(eq + 1);
		int k = key_find(key);
		if (k < 0) {
			rc = iw_errf(e, IW_EINVAL, "%s:%d: unknown key '%.40s' (known keys: %s)", path, lineno, key,
				     KNOWN_KEYS);
			break;
		}
		if (!free_text((enum key_id)k)) {
			/* A comment may follow a value that cannot contain '#'. */
			for (char *h = val; *h; h++)
				if (*h == '#' && (h == val || isspace((unsigned char)h[-1]))) {
					*h = '\0';
					val = trim(val);
					break;
				}
		}
		if (k != K_DISABLE && k != K_MAP) {
			if (seen[k]) {
				rc = iw_errf(e, IW_EINVAL, "%s:%d: %s is already set on line %d (only disable and map repeat)",
					     path, lineno, key, seen[k]);
				break;
			}
			seen[k] = lineno;
		}
		iw_err ke;
		if (set_key(c, (enum key_id)k, val, &ke) != IW_OK) {
			rc = iw_errf(e, IW_EINVAL, "%s:%d: %s", path, lineno, ke.msg);
			break;
		}
	}
	if (rc == IW_OK && ferror(fp))
		rc = iw_errf(e, IW_EINVAL, "%s: read error", path);
	fclose(fp);
	if (rc == IW_OK)
		snprintf(c->source, sizeof c->source, "%s", path);
	return rc;
}

const char *iw_dut_config_disabled(const iw_dut_config *c, const char *case_id)
{
	for (size_t i = 0; i < c->ndisabled; i++)
		if (fnmatch(c->disabled[i].glob, case_id, 0) == 0)
			return c->disabled[i].reason;
	return NULL;
}

int iw_dut_config_check(const iw_dut_config *c, iw_err *e)
{
	if (c->ulp != IW_ULP_PERFTEST)
		return IW_OK;
	if (!strncmp(c->dut, "tcp:", 4))
		return iw_errf(e, IW_EINVAL, "ulp = perftest starts the perftest program each case needs, which a server "
			       "you started (dut = %.40s) cannot: name its mode (ulp = perftest-read, -send, -write) or use "
			       "exec:'... --perftest {perftest} ...'", c->dut);
	if (!strncmp(c->dut, "exec:", 5) && !strstr(c->dut, "{perftest}"))
		return iw_errf(e, IW_EINVAL, "ulp = perftest starts the perftest program each case needs: the exec: command "
			       "takes it as {perftest} (send, write, read), e.g. 'iwspec-reflector --via AGENT --perftest "
			       "{perftest} --listen {port}'");
	return IW_OK;
}
