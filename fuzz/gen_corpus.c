/*
 * gen_corpus.c - writes the generated seed corpora (fuzz/corpus.c) as files:
 *
 *   gen_corpus OUTDIR [CASES_DIR]     OUTDIR/<target>/<seed name> for every target
 *   gen_corpus OUTDIR CASES_DIR NAME  one target only
 *
 * CASES_DIR (cases) supplies the case_parse seeds. Existing files are overwritten;
 * nothing else in OUTDIR is touched.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

typedef struct wctx {
	char dir[1024];
	int errors;
} wctx;

static void write_seed(void *ctx, const char *name, const uint8_t *data, size_t len)
{
	wctx *w = ctx;
	char path[2048], clean[200];
	size_t k = 0;
	for (const char *c = name; *c && k + 1 < sizeof clean; c++)
		clean[k++] = (*c == '/' || *c == ' ') ? '_' : *c;
	clean[k] = '\0';
	snprintf(path, sizeof path, "%s/%s", w->dir, clean);
	FILE *fp = fopen(path, "wb");
	if (!fp || fwrite(data, 1, len, fp) != len) {
		fprintf(stderr, "gen_corpus: %s: %s\n", path, strerror(errno));
		w->errors++;
	}
	if (fp && fclose(fp)) {
		fprintf(stderr, "gen_corpus: %s: %s\n", path, strerror(errno));
		w->errors++;
	}
}

static int make_dir(const char *path)
{
	if (mkdir(path, 0777) && errno != EEXIST) {
		fprintf(stderr, "gen_corpus: mkdir %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: gen_corpus OUTDIR [CASES_DIR [TARGET]]\n");
		return 2;
	}
	const char *outdir = argv[1];
	const char *cases = argc > 2 ? argv[2] : NULL;
	const char *only = argc > 3 ? argv[3] : NULL;
	static const char *const targets[] = {
#define IW_FUZZ_NAME(n) #n,
		IW_FUZZ_TARGETS(IW_FUZZ_NAME)
#undef IW_FUZZ_NAME
	};
	if (make_dir(outdir))
		return 1;
	int errors = 0;
	for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
		if (only && strcmp(only, targets[i]))
			continue;
		wctx w = { .errors = 0 };
		snprintf(w.dir, sizeof w.dir, "%s/%s", outdir, targets[i]);
		if (make_dir(w.dir))
			return 1;
		int n = iw_fuzz_seeds(targets[i], cases, write_seed, &w);
		printf("gen_corpus: %-16s %d seeds\n", targets[i], n);
		errors += w.errors;
		if (n <= 0) {
			fprintf(stderr, "gen_corpus: no seeds for %s\n", targets[i]);
			errors++;
		}
	}
	return errors ? 1 : 0;
}
