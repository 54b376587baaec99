#include "catalog.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int add_case(iw_catalog *cat, iw_case *c, iw_err *e)
{
	for (size_t i = 0; i < cat->n; i++)
		if (!strcmp(cat->cases[i]->id, c->id)) {
			int rc = iw_errf(e, IW_EINVAL, "%s: case id '%s' is already used by %s; ids must be unique",
					 c->file, c->id, cat->cases[i]->file);
			iw_case_free(c);
			return rc;
		}
	if (cat->n == cat->cap) {
		size_t ncap = cat->cap ? cat->cap * 2 : 64;
		iw_case **nc = realloc(cat->cases, ncap * sizeof *nc);
		if (!nc) {
			iw_case_free(c);
			return iw_errf(e, IW_ENOSPC, "out of memory loading cases");
		}
		cat->cases = nc;
		cat->cap = ncap;
	}
	cat->cases[cat->n++] = c;
	return IW_OK;
}

static int load_tree(iw_catalog *cat, const char *dir, const char *glob, int depth, iw_err *e)
{
	if (depth > 8)
		return IW_OK;
	DIR *d = opendir(dir);
	if (!d)
		return iw_errf(e, IW_EINVAL, "cannot read case directory '%s': %s", dir, strerror(errno));
	struct dirent *de;
	int rc = IW_OK;
	while (rc == IW_OK && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (is_dir(path)) {
			rc = load_tree(cat, path, glob, depth + 1, e);
		} else {
			size_t n = strlen(de->d_name);
			if (n < 5 || strcmp(de->d_name + n - 4, ".iwt"))
				continue;
			iw_case *c;
			rc = iw_case_load(path, &c, e);
			if (rc)
				break;
			if (glob && fnmatch(glob, c->id, 0) != 0) {
				iw_case_free(c);
				continue;
			}
			rc = add_case(cat, c, e);
		}
	}
	closedir(d);
	return rc;
}

static int by_id(const void *a, const void *b)
{
	return strcmp((*(iw_case *const *)a)->id, (*(iw_case *const *)b)->id);
}

static bool find_dir(char *out, size_t cap, const char *case_dir, const char *argv0)
{
	const char *env = getenv("IWSPEC_CASES");
	if (case_dir) {
		snprintf(out, cap, "%s", case_dir);
		return is_dir(out);
	}
	if (env && *env) {
		snprintf(out, cap, "%s", env);
		return is_dir(out);
	}
	if (is_dir("cases")) {
		snprintf(out, cap, "cases");
		return true;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0)
		exe[n] = '\0';
	else
		snprintf(exe, sizeof exe, "%s", argv0 ? argv0 : ".");
	char *bindir = dirname(exe);
	const char *rel[] = {"../cases", "../share/iwspec/cases"};
	for (size_t i = 0; i < 2; i++) {
		snprintf(out, cap, "%s/%s", bindir, rel[i]);
		if (is_dir(out))
			return true;
	}
	return false;
}

int iw_catalog_load(iw_catalog *cat, const char *case_dir, const char *select, const char *argv0, iw_err *e)
{
	memset(cat, 0, sizeof *cat);
	int rc;
	if (select && is_file(select)) {
		iw_case *c;
		snprintf(cat->dir, sizeof cat->dir, "%s", select);
		rc = iw_case_load(select, &c, e);
		if (rc == IW_OK)
			rc = add_case(cat, c, e);
	} else if (select && is_dir(select)) {
		snprintf(cat->dir, sizeof cat->dir, "%s", select);
		rc = load_tree(cat, select, NULL, 0, e);
	} else {
		if (!find_dir(cat->dir, sizeof cat->dir, case_dir, argv0))
			return iw_errf(e, IW_EINVAL,
				       "no case directory found (looked for %s); give --case-dir DIR or set IWSPEC_CASES",
				       case_dir ? case_dir : "$IWSPEC_CASES, ./cases and next to the binary");
		rc = load_tree(cat, cat->dir, select, 0, e);
	}
	if (rc) {
		iw_catalog_free(cat);
		return rc;
	}
	qsort(cat->cases, cat->n, sizeof *cat->cases, by_id);
	return IW_OK;
}

void iw_catalog_free(iw_catalog *cat)
{
	for (size_t i = 0; i < cat->n; i++)
		iw_case_free(cat->cases[i]);
	free(cat->cases);
	memset(cat, 0, sizeof *cat);
}
