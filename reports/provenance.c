/*
 * provenance.c - the provenance fields of a run (provenance.h).
 */
#include "provenance.h"

#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "iw_conn.h"
#include "sha256.h"

static void add_line(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_line(char *buf, size_t cap, const char *fmt, ...)
{
	size_t len = strlen(buf);
	if (len + 1 >= cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + len, cap - len, fmt, ap);
	va_end(ap);
	len = strlen(buf);
	if (len + 1 < cap) {
		buf[len] = '\n';
		buf[len + 1] = '\0';
	}
}

static const char *yes(bool b) { return b ? "yes" : "no"; }

static void code_text(const iw_code *c, char *buf, size_t cap)
{
	snprintf(buf, cap, "%d/%d/0x%02x", c->layer, c->etype, c->ecode);
}

void iw_provenance_dut(iw_run *run, const iw_dut_config *d)
{
	char *s = run->dut_settings;
	size_t cap = sizeof run->dut_settings;
	s[0] = '\0';
	add_line(s, cap, "dut = %s", d->dut);
	add_line(s, cap, "role = %s", d->role == IW_ROLE_RESPONDER ? "responder" : "initiator");
	add_line(s, cap, "profile = %s", d->profile ? d->profile->name : "?");
	if (d->mpa_revision >= 0)
		add_line(s, cap, "mpa_revision = %d", d->mpa_revision);
	add_line(s, cap, "markers = %s", yes(d->markers));
	add_line(s, cap, "crc = %s", d->crc_off_mode ? "optional-off" : "required");
	if (d->pd_limit)
		add_line(s, cap, "private_data_limit = %u", d->pd_limit);
	add_line(s, cap, "reflector = %s", yes(d->reflector));
	add_line(s, cap, "reject = %s", yes(d->reject));
	add_line(s, cap, "connect_timeout = %lldms", (long long)d->connect_timeout_ms);
	if (d->wait_dut_ms)
		add_line(s, cap, "wait_dut = %lldms", (long long)d->wait_dut_ms);
	add_line(s, cap, "case_timeout = %lldms", (long long)d->case_timeout_ms);
	add_line(s, cap, "close_timeout = %lldms", (long long)d->close_timeout_ms);
	if (d->first_fpdu_delay_ms)
		add_line(s, cap, "first_fpdu_delay = %lldms", (long long)d->first_fpdu_delay_ms);
	if (d->hostile[0])
		add_line(s, cap, "hostile = %s", d->hostile);
	if (d->mutant[0])
		add_line(s, cap, "mutant = %s", d->mutant);
	if (d->ulp == IW_ULP_RPING && d->rping_size != IW_RPING_SIZE_DEFAULT)
		add_line(s, cap, "rping_size = %u", (unsigned)d->rping_size);
	size_t len = strlen(s);
	if (len && s[len - 1] == '\n')
		s[len - 1] = '\0';
	run->ndisabled = 0;
	for (size_t i = 0; i < d->ndisabled && run->ndisabled < IW_RUN_MAX_DISABLED; i++)
		snprintf(run->disabled[run->ndisabled++], sizeof run->disabled[0], "%s : %s", d->disabled[i].glob,
			 d->disabled[i].reason);
	run->nmaps = 0;
	for (size_t i = 0; i < d->nmaps && run->nmaps < IW_RUN_MAX_MAPS; i++) {
		char from[32], to[32];
		code_text(&d->maps[i].from, from, sizeof from);
		code_text(&d->maps[i].to, to, sizeof to);
		snprintf(run->maps[run->nmaps++], sizeof run->maps[0], "%s -> %s : %s", from, to, d->maps[i].reason);
	}
}

void iw_provenance_command(iw_run *run, int argc, char **argv)
{
	char *s = run->command;
	size_t cap = sizeof run->command, len = 0;
	/* argv[0] is the subcommand ("run"); the program name goes first. */
	len = (size_t)snprintf(s, cap, "iwspec");
	for (int i = 0; i < argc && argv[i] && len + 1 < cap; i++) {
		const char *a = argv[i];
		bool quote = !*a || strpbrk(a, " \t\n'\"\\$*?[]{}()<>|&;`") != NULL;
		int n = snprintf(s + len, cap - len, " %s%s%s", quote ? "'" : "", a, quote ? "'" : "");
		if (n < 0)
			break;
		len += (size_t)n;
		if (len >= cap)
			len = cap - 1;
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool file_sha(const char *path, char hex[65])
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	iw_sha256 s;
	iw_sha256_init(&s);
	unsigned char buf[16384];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		iw_sha256_update(&s, buf, n);
	bool ok = !ferror(f);
	fclose(f);
	uint8_t d[32];
	iw_sha256_final(&s, d);
	iw_sha256_hex(d, hex);
	return ok;
}

size_t iw_vectors_hash(const char *dir, char *hex, size_t cap)
{
	snprintf(hex, cap, "none");
	DIR *d = dir && *dir ? opendir(dir) : NULL;
	if (!d)
		return 0;
	char **names = NULL;
	size_t n = 0, ncap = 0;
	struct dirent *de;
	bool oom = false;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l < 6 || strcmp(de->d_name + l - 5, ".json") || de->d_name[0] == '.')
			continue;
		if (n == ncap) {
			size_t nc = ncap ? ncap * 2 : 64;
			char **nn = realloc(names, nc * sizeof *nn);
			if (!nn) {
				oom = true;
				break;
			}
			names = nn;
			ncap = nc;
		}
		if (!(names[n] = strdup(de->d_name))) {
			oom = true;
			break;
		}
		n++;
	}
	closedir(d);
	size_t hashed = 0;
	if (!oom && n) {
		qsort(names, n, sizeof *names, by_name);
		iw_sha256 all;
		iw_sha256_init(&all);
		bool ok = true;
		for (size_t i = 0; i < n && ok; i++) {
			char path[1024], fh[65];
			snprintf(path, sizeof path, "%s/%s", dir, names[i]);
			ok = file_sha(path, fh);
			/* The line sha256sum prints: "<hex>  <name>\n". */
			iw_sha256_update(&all, fh, 64);
			iw_sha256_update(&all, "  ", 2);
			iw_sha256_update(&all, names[i], strlen(names[i]));
			iw_sha256_update(&all, "\n", 1);
		}
		if (ok) {
			uint8_t dg[32];
			char h[65];
			iw_sha256_final(&all, dg);
			iw_sha256_hex(dg, h);
			snprintf(hex, cap, "%s", h);
			hashed = n;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return hashed;
}

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

void iw_vectors_locate(const char *case_dir, char *out, size_t cap)
{
	const char *env = getenv("IWSPEC_VECTORS");
	out[0] = '\0';
	if (env && *env) {
		snprintf(out, cap, "%s", env);
		return;
	}
	/* cases in a checkout, share/iwspec/cases once installed (make install). */
	static const char *const rel[] = {"../../vectors", "../vectors"};
	for (size_t i = 0; case_dir && *case_dir && i < 2; i++) {
		char p[1024];
		snprintf(p, sizeof p, "%s/%s", case_dir, rel[i]);
		char real[PATH_MAX];
		if (is_dir(p)) {
			snprintf(out, cap, "%s", realpath(p, real) ? real : p);
			return;
		}
	}
	if (is_dir("vectors"))
		snprintf(out, cap, "vectors");
}
