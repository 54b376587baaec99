/*
 * standalone_main.c - runs a fuzz target without libFuzzer: over the files and directories
 * named on the command line (each file is one input; directories are read one level deep),
 * or over standard input when none is named. Built with any C compiler, so the targets run
 * under gcc, under plain ASan/UBSan, and as AFL++ programs:
 *
 *   afl-clang-fast ... fuzz/standalone_main.c  ->  AFL++ persistent mode over shared memory
 *   (afl-fuzz -i seeds -o out -- ./fuzz_x); without AFL++ it reads stdin or the files given.
 *
 * Every input is copied into a buffer of exactly its size, so ASan sees an over-read.
 * Exit status 0 when every input ran; a broken invariant aborts, as under libFuzzer.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SA_MAX_INPUT (16u << 20)

static int run_buf(const uint8_t *data, size_t n)
{
	/* An exact-size copy: reading one octet past the input is an ASan error. */
	uint8_t *copy = malloc(n ? n : 1);
	if (!copy) {
		fprintf(stderr, "standalone: out of memory for %zu octets\n", n);
		return -1;
	}
	if (n)
		memcpy(copy, data, n);
	LLVMFuzzerTestOneInput(copy, n);
	free(copy);
	return 0;
}

static int read_stream(FILE *fp, uint8_t **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	uint8_t *b = malloc(cap);
	if (!b)
		return -1;
	for (;;) {
		if (n == cap) {
			if (cap >= SA_MAX_INPUT) {
				free(b);
				errno = EFBIG;
				return -1;
			}
			uint8_t *nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				return -1;
			}
			b = nb;
			cap *= 2;
		}
		size_t k = fread(b + n, 1, cap - n, fp);
		n += k;
		if (k == 0)
			break;
	}
	if (ferror(fp)) {
		free(b);
		return -1;
	}
	*out = b;
	*len = n;
	return 0;
}

static int run_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		fprintf(stderr, "standalone: %s: %s\n", path, strerror(errno));
		return -1;
	}
	uint8_t *b;
	size_t n;
	int rc = read_stream(fp, &b, &n);
	fclose(fp);
	if (rc) {
		fprintf(stderr, "standalone: %s: cannot read: %s\n", path, strerror(errno));
		return -1;
	}
	rc = run_buf(b, n);
	free(b);
	return rc;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs the regular files of a directory in name order, so runs are reproducible. */
static int run_dir(const char *path, size_t *count)
{
	DIR *d = opendir(path);
	if (!d) {
		fprintf(stderr, "standalone: %s: %s\n", path, strerror(errno));
		return -1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int rc = 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **nn = realloc(names, cap * sizeof *names);
			if (!nn) {
				rc = -1;
				break;
			}
			names = nn;
		}
		size_t l = strlen(path) + strlen(de->d_name) + 2;
		names[n] = malloc(l);
		if (!names[n]) {
			rc = -1;
			break;
		}
		snprintf(names[n], l, "%s/%s", path, de->d_name);
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, name_cmp);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
			if (run_file(names[i]))
				rc = -1;
			else
				(*count)++;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

#ifdef __AFL_FUZZ_TESTCASE_LEN
__AFL_FUZZ_INIT();
#endif

int main(int argc, char **argv)
{
	size_t count = 0;
	int rc = 0;
#ifdef __AFL_FUZZ_TESTCASE_LEN
	if (argc < 2) {
		/* AFL++ persistent mode: the test case arrives in shared memory, many per process. */
		__AFL_INIT();
		const unsigned char *buf = __AFL_FUZZ_TESTCASE_BUF;
		while (__AFL_LOOP(10000))
			run_buf(buf, (size_t)__AFL_FUZZ_TESTCASE_LEN);
		return 0;
	}
#endif
	if (argc < 2) {
		uint8_t *b;
		size_t n;
		if (read_stream(stdin, &b, &n)) {
			fprintf(stderr, "standalone: cannot read standard input: %s\n", strerror(errno));
			return 2;
		}
		rc = run_buf(b, n);
		free(b);
		return rc ? 1 : 0;
	}
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-')
			continue;       /* libFuzzer flags (-runs=...) are accepted and ignored */
		struct stat st;
		if (stat(argv[i], &st)) {
			fprintf(stderr, "standalone: %s: %s\n", argv[i], strerror(errno));
			rc = -1;
		} else if (S_ISDIR(st.st_mode)) {
			if (run_dir(argv[i], &count))
				rc = -1;
		} else if (run_file(argv[i])) {
			rc = -1;
		} else {
			count++;
		}
	}
	fprintf(stderr, "standalone: %zu input%s ran\n", count, count == 1 ? "" : "s");
	return rc ? 1 : 0;
}
