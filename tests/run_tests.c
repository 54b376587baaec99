#include "check.h"

#include <stdarg.h>
#include <stdlib.h>

#define MAX_TESTS 1024

static struct { const char *name; check_fn fn; } tests[MAX_TESTS];
static int ntests;
static int current_failures;

void check_register(const char *name, check_fn fn)
{
	if (ntests < MAX_TESTS) {
		tests[ntests].name = name;
		tests[ntests].fn = fn;
		ntests++;
	}
}

void check_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "  %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	current_failures++;
}

const char *check_hex(const void *p, size_t n)
{
	static char bufs[4][3 * 96 + 8];
	static int k;
	char *b = bufs[k++ & 3];
	const uint8_t *u = p;
	size_t o = 0;
	for (size_t i = 0; i < n && i < 96; i++)
		o += (size_t)snprintf(b + o, sizeof bufs[0] - o, "%02x ", u[i]);
	if (n > 96)
		snprintf(b + o, sizeof bufs[0] - o, "...");
	return b;
}

size_t check_unhex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;
	int hi = -1;
	for (; *hex; hex++) {
		int v;
		char c = *hex;
		if (c >= '0' && c <= '9') v = c - '0';
		else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
		else continue;
		if (hi < 0) {
			hi = v;
		} else {
			if (n < cap)
				out[n] = (uint8_t)(hi << 4 | v);
			n++;
			hi = -1;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	int passed = 0, failed = 0;
	for (int i = 0; i < ntests; i++) {
		if (filter && !strstr(tests[i].name, filter))
			continue;
		current_failures = 0;
		tests[i].fn();
		if (current_failures) {
			fprintf(stderr, "FAIL %s\n", tests[i].name);
			failed++;
		} else {
			passed++;
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
