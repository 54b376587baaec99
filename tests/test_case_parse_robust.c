/*
 * Robustness of the case parser: every prefix and random mutations of a valid case parse or
 * fail cleanly, with a message and without a case, and never crash or read past the given
 * length (run under ASan/UBSan by `make test-san`).
 */
#include "check.h"

#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "case_fixture.h"

static void parse_any(const char *text, size_t len)
{
	iw_case *c = NULL;
	iw_err e;
	memset(&e, 0x55, sizeof e);     /* a message must always be written, never left as garbage */
	int rc = iw_case_parse(text, len, "fuzz.iwt", &c, &e);
	if (rc == 0) {
		if (!c)
			check_fail(__FILE__, __LINE__, "success without a case");
		iw_case_free(c);
	} else {
		if (c)
			check_fail(__FILE__, __LINE__, "error with a case");
		if (memchr(e.msg, '\0', sizeof e.msg) == NULL || strncmp(e.msg, "fuzz.iwt", 8) != 0)
			check_fail(__FILE__, __LINE__, "bad error message for input of %zu octets", len);
	}
}

TEST(case_parse_prefixes)
{
	size_t n = strlen(full_case);
	int ok = 0;
	for (size_t i = 0; i <= n; i++) {
		/* an exact-size copy so ASan sees any read past the given length */
		char *t = malloc(i ? i : 1);
		if (!t)
			return;
		memcpy(t, full_case, i);
		iw_case *c = NULL;
		iw_err e;
		if (iw_case_parse(t, i, "fuzz.iwt", &c, &e) == 0)
			ok++;
		iw_case_free(c);
		parse_any(t, i);
		free(t);
	}
	CHECK(ok > 0);          /* prefixes ending after a complete step are valid cases */
}

static uint32_t rng_state = 12345;
static uint32_t rnd(void)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return rng_state >> 8;
}

TEST(case_parse_mutations)
{
	static const char alphabet[] = "\n\r\t \"\\#;=*,-x0123456789abcdefms:.AZ\x00\x7f\xff";
	size_t n = strlen(full_case);
	int errors = 0;
	for (int iter = 0; iter < 3000; iter++) {
		size_t len = n;
		char *t = malloc(n + 16);
		if (!t)
			return;
		memcpy(t, full_case, n);
		int edits = 1 + (int)(rnd() % 8);
		for (int k = 0; k < edits; k++) {
			size_t at = rnd() % (len + 1);
			char ch = (rnd() & 1) ? alphabet[rnd() % (sizeof alphabet - 1)] : (char)(rnd() & 0xFF);
			switch (rnd() % 3) {
			case 0:         /* replace */
				if (at < len)
					t[at] = ch;
				break;
			case 1:         /* insert */
				if (len < n + 15) {
					memmove(t + at + 1, t + at, len - at);
					t[at] = ch;
					len++;
				}
				break;
			default:        /* delete */
				if (at < len) {
					memmove(t + at, t + at + 1, len - at - 1);
					len--;
				}
				break;
			}
		}
		char *exact = malloc(len ? len : 1);
		if (exact) {
			memcpy(exact, t, len);
			iw_case *c = NULL;
			iw_err e;
			if (iw_case_parse(exact, len, "fuzz.iwt", &c, &e) != 0)
				errors++;
			iw_case_free(c);
			parse_any(exact, len);
			free(exact);
		}
		free(t);
	}
	CHECK(errors > 0);      /* the mutations do reach the error paths */
}
