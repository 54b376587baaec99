/*
 * fuzz_dut_config.c - the DUT configuration parser (drivers/dut_config.h,
 * docs/dut-config.md): whole files through iw_dut_config_load, single settings through
 * iw_dut_config_set, durations, and the disable globs.
 *
 * Input: [mode] then
 *   mode % 3 == 0: a configuration file, loaded by path (an unlinked temporary file read
 *                  through /proc/self/fd, so nothing is left behind);
 *   mode % 3 == 1: lines `key=value`, each given to iw_dut_config_set;
 *   mode % 3 == 2: a duration on the first line, a `disable` value on the second, and a
 *                  case id on the third, matched against it.
 *
 * Invariants:
 *  - a failure returns IW_EINVAL or IW_ENOSPC with a terminated, non-empty message; a file
 *    error names the file (path:line: ...);
 *  - after any sequence of settings the configuration stays inside its limits: a profile, a
 *    role of 0 or 1, timeouts in 1 ms..24 h, revision -1..255, at most IW_DUT_MAX_DISABLED
 *    and IW_DUT_MAX_MAPS entries, codes in their field widths, every string terminated in
 *    its array;
 *  - iw_parse_duration gives 0..86400000 ms or an error;
 *  - iw_dut_config_disabled returns NULL or one of the configured reasons.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "dut_config.h"
#include "fuzz.h"

static void check_str(const char *s, size_t cap, const char *what)
{
	FZ_CHECK(memchr(s, '\0', cap) != NULL, "%s not terminated", what);
}

static void check_err(int rc, const iw_err *e)
{
	FZ_CHECK(rc == IW_EINVAL || rc == IW_ENOSPC, "rc %d", rc);
	check_str(e->msg, sizeof e->msg, "error message");
	FZ_CHECK(e->msg[0], "empty error message");
}

static void check_config(const iw_dut_config *c)
{
	check_str(c->dut, sizeof c->dut, "dut");
	check_str(c->hostile, sizeof c->hostile, "hostile");
	check_str(c->mutant, sizeof c->mutant, "mutant");
	check_str(c->source, sizeof c->source, "source");
	FZ_CHECK(c->profile != NULL, "no profile");
	FZ_CHECK(c->role == 0 || c->role == 1, "role %d", c->role);
	FZ_CHECK(c->mpa_revision >= -1 && c->mpa_revision <= 255, "mpa_revision %d", c->mpa_revision);
	FZ_CHECK(c->pd_limit <= 65535, "private_data_limit %u", c->pd_limit);
	const int64_t t[3] = { c->connect_timeout_ms, c->case_timeout_ms, c->close_timeout_ms };
	for (int i = 0; i < 3; i++)
		FZ_CHECK(t[i] > 0 && t[i] <= 86400000, "timeout %lld ms", (long long)t[i]);
	FZ_CHECK(c->ndisabled <= IW_DUT_MAX_DISABLED && c->nmaps <= IW_DUT_MAX_MAPS, "%zu disabled, %zu maps",
		 c->ndisabled, c->nmaps);
	for (size_t i = 0; i < c->ndisabled; i++) {
		check_str(c->disabled[i].glob, sizeof c->disabled[i].glob, "disable glob");
		check_str(c->disabled[i].reason, sizeof c->disabled[i].reason, "disable reason");
		FZ_CHECK(c->disabled[i].glob[0] && c->disabled[i].reason[0], "empty disable glob or reason");
	}
	for (size_t i = 0; i < c->nmaps; i++) {
		const iw_code_map *m = &c->maps[i];
		check_str(m->reason, sizeof m->reason, "map reason");
		FZ_CHECK(m->from.layer >= 0 && m->from.layer <= 15 && m->from.etype >= 0 && m->from.etype <= 15 &&
				 m->from.ecode >= 0 && m->from.ecode <= 255 && m->to.layer >= 0 && m->to.layer <= 15 &&
				 m->to.etype >= 0 && m->to.etype <= 15 && m->to.ecode >= 0 && m->to.ecode <= 255,
			 "map code out of range");
	}
}

/* A NUL-terminated copy of [p, p + n), cut at the first NUL like a C string would be. */
static char *cstr(const uint8_t *p, size_t n)
{
	const uint8_t *z = memchr(p, '\0', n);
	if (z)
		n = (size_t)(z - p);
	char *s = malloc(n + 1);
	FZ_CHECK(s != NULL, "out of memory");
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

static int cfg_fd = -1;

static void load_file(iw_dut_config *c, const uint8_t *d, size_t n)
{
	char path[64];
	fz_as_file(&cfg_fd, "dutcfg", d, n, path);
	iw_err e;
	memset(&e, 0, sizeof e);
	int rc = iw_dut_config_load(c, path, &e);
	if (rc != IW_OK) {
		check_err(rc, &e);
		FZ_CHECK(strncmp(e.msg, path, strlen(path)) == 0, "load error does not name the file: %s", e.msg);
	} else {
		FZ_CHECK(strcmp(c->source, path) == 0, "source '%s' after loading %s", c->source, path);
	}
}

static void settings(iw_dut_config *c, const uint8_t *d, size_t n)
{
	size_t i = 0;
	for (int k = 0; i < n && k < 200; k++) {
		const uint8_t *nl = memchr(d + i, '\n', n - i);
		size_t ll = nl ? (size_t)(nl - (d + i)) : n - i;
		char *line = cstr(d + i, ll);
		i += ll + 1;
		char *eq = strchr(line, '=');
		const char *key = line, *val = "";
		if (eq) {
			*eq = '\0';
			val = eq + 1;
		}
		iw_err e;
		int rc = iw_dut_config_set(c, key, val, &e);
		if (rc != IW_OK)
			check_err(rc, &e);
		free(line);
		check_config(c);
	}
}

static void duration_and_glob(iw_dut_config *c, const uint8_t *d, size_t n)
{
	char *all = cstr(d, n);
	char *l2 = strchr(all, '\n');
	char *l3 = NULL;
	if (l2) {
		*l2++ = '\0';
		l3 = strchr(l2, '\n');
		if (l3)
			*l3++ = '\0';
	}
	int64_t ms = -1;
	iw_err e;
	int rc = iw_parse_duration(all, &ms, &e);
	if (rc == IW_OK)
		FZ_CHECK(ms >= 0 && ms <= 86400000, "duration '%s' gave %lld ms", all, (long long)ms);
	else
		check_err(rc, &e);
	if (l2) {
		rc = iw_dut_config_set(c, "disable", l2, &e);
		if (rc != IW_OK)
			check_err(rc, &e);
		check_config(c);
	}
	if (l3) {
		/* fnmatch is exponential in stars on long names: case ids are short. */
		if (strlen(l3) > 16)
			l3[16] = '\0';
		const char *why = iw_dut_config_disabled(c, l3);
		bool found = why == NULL;
		for (size_t i = 0; i < c->ndisabled && !found; i++)
			found = why == c->disabled[i].reason;
		FZ_CHECK(found, "disabled reason is not a configured one");
	}
	free(all);
}

int iw_fuzz_dut_config(const uint8_t *data, size_t size)
{
	fz f = fz_init(data, size);
	uint8_t mode = fz_u8(&f);
	size_t n;
	const uint8_t *d = fz_rest(&f, &n);
	static iw_dut_config c;
	iw_dut_config_default(&c);
	check_config(&c);
	switch (mode % 3) {
	case 0: load_file(&c, d, n); break;
	case 1: settings(&c, d, n); break;
	default: duration_and_glob(&c, d, n); break;
	}
	check_config(&c);
	return 0;
}
