/*
 * cli_args.c - shared checks of command-line arguments (cli_args.h).
 */
#include "cli_args.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "dut_config.h"

int iw_cli_parse_seed(const char *opt, const char *s, uint64_t *out, iw_err *e)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *digits = hex ? s + 2 : s;
	bool ok = *digits != '\0';
	for (const char *p = digits; ok && *p; p++)
		ok = hex ? isxdigit((unsigned char)*p) != 0 : isdigit((unsigned char)*p) != 0;
	if (ok) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(digits, &end, hex ? 16 : 10);
		ok = !errno && !*end;
		*out = v;
	}
	if (!ok)
		return iw_errf(e, IW_EINVAL, "%s '%s' is not a seed: use a number from 0 to 18446744073709551615 "
			       "(decimal, or hex with 0x)", opt, s);
	return IW_OK;
}

int iw_cli_parse_wait(const char *opt, const char *s, int64_t *ms, iw_err *e)
{
	if (!*s)
		return iw_errf(e, IW_EINVAL, "%s needs a duration: how long to wait for the DUT to listen, e.g. %s 10s",
			       opt, opt);
	if (s[0] == '-' && (isdigit((unsigned char)s[1]) || s[1] == '.'))
		return iw_errf(e, IW_EINVAL, "%s '%s': a wait cannot be negative; give how long to wait for the DUT to "
			       "listen, e.g. %s 10s (0s: no wait)", opt, s, opt);
	iw_err pe;
	if (iw_parse_duration(s, ms, &pe))
		return iw_errf(e, IW_EINVAL, "%s %s", opt, pe.msg);
	return IW_OK;
}

int iw_cli_check_dut_config(const char *path, iw_err *e)
{
	if (!*path)
		return iw_errf(e, IW_EINVAL, "--dut-config needs a file name (docs/dut-config.md); leave the option out "
			       "to run the built-in DUT with its defaults");
	FILE *f = fopen(path, "r");
	if (!f)
		return iw_errf(e, IW_EINVAL, "--dut-config %s: cannot open: %s", path, strerror(errno));
	char line[2048];
	bool any = false;
	while (!any && fgets(line, sizeof line, f)) {
		const char *p = line;
		while (isspace((unsigned char)*p))
			p++;
		any = *p && *p != '#';
	}
	fclose(f);
	if (!any)
		return iw_errf(e, IW_EINVAL, "--dut-config %s declares nothing (no `key = value` line): a DUT "
			       "configuration says at least which DUT, e.g. `dut = tcp:HOST:PORT` (docs/dut-config.md); "
			       "leave the option out to run the built-in DUT with its defaults", path);
	return IW_OK;
}

int iw_cli_check_case_path(const char *sel, iw_err *e)
{
	size_t n = strlen(sel);
	bool path = strchr(sel, '/') || (n > 4 && !strcmp(sel + n - 4, ".iwt"));
	struct stat st;
	if (path && stat(sel, &st) != 0)
		return iw_errf(e, IW_EINVAL, "--cases %s: %s; give a case file, a directory of them, or a glob on case "
			       "ids ('iwspec list' shows them)", sel, strerror(errno));
	return IW_OK;
}

int iw_cli_check_report_dir(const char *dir, iw_err *e)
{
	iw_err me;
	if (iw_mkdir_p(dir, &me) != 0)
		return iw_errf(e, IW_EINVAL, "--report %s: %s; choose a directory that can be written", dir, me.msg);
	if (access(dir, W_OK | X_OK) != 0)
		return iw_errf(e, IW_EINVAL, "--report %s: cannot write there: %s; choose a directory that can be written",
			       dir, strerror(errno));
	return IW_OK;
}

int iw_cli_check_out_file(const char *opt, const char *path, iw_err *e)
{
	if (!*path)
		return iw_errf(e, IW_EINVAL, "%s needs a file name", opt);
	if (access(path, F_OK) == 0) {
		if (access(path, W_OK) != 0)
			return iw_errf(e, IW_EINVAL, "%s %s: cannot write it: %s", opt, path, strerror(errno));
		return IW_OK;
	}
	char dir[1024];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (access(dir, W_OK | X_OK) != 0)
		return iw_errf(e, IW_EINVAL, "%s %s: cannot create it in %s: %s", opt, path, dir, strerror(errno));
	return IW_OK;
}
