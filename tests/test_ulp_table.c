/*
 * Tests of `iwspec list --ulp` (suite/cli/ulp_table.c): docs/ulp-profiles.md holds exactly what
 * it writes for the case catalog, so the documented table of which cases each ULP profile runs
 * cannot go stale; and the table's counts agree with the profiles' needs check.
 */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "ulp_table.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);
	size_t k;
	while (b && (k = fread(b + n, 1, cap - n - 1, f)) > 0) {
		n += k;
		if (n + 1 == cap) {
			char *nb = realloc(b, cap *= 2);
			if (!nb)
				free(b);
			b = nb;
		}
	}
	fclose(f);
	if (b)
		b[n] = '\0';
	return b;
}

TEST(ulp_table_docs_up_to_date)
{
	iw_catalog cat;
	iw_err e = { "" };
	CHECK_EQ(iw_catalog_load(&cat, "cases", NULL, "build/run_tests", &e), IW_OK);
	char *gen = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&gen, &len);
	CHECK(f != NULL);
	if (!f) {
		iw_catalog_free(&cat);
		return;
	}
	iw_ulp_table_write(f, &cat);
	fclose(f);
	iw_catalog_free(&cat);
	char *doc = slurp("docs/ulp-profiles.md");
	CHECK(doc != NULL);
	const char *b = doc ? strstr(doc, IW_ULP_TABLE_BEGIN) : NULL;
	const char *end = doc ? strstr(doc, IW_ULP_TABLE_END) : NULL;
	CHECK(b != NULL && end != NULL && end > b);
	if (b && end && end > b) {
		size_t n = (size_t)(end - b) + strlen(IW_ULP_TABLE_END) + 1;
		bool same = n == len && memcmp(b, gen, len) == 0;
		if (!same)
			check_fail(__FILE__, __LINE__, "docs/ulp-profiles.md's generated part differs from `iwspec list --ulp`: "
				   "run `sh tools/gen-ulp-profiles.sh` after `make`");
	}
	/* What it shows is what the profiles say: the reflector runs every DDP and RDMAP case. */
	CHECK(gen && strstr(gen, "| reflector | reflector |") != NULL);
	CHECK(gen && strstr(gen, "| `ddp.untagged.msn-below-window` | either | `answer` | x |  |  |") != NULL);
	/* ... and a case that needs only `answer` is run by ib_send_lat's server (column 14) and ulp =
	 * perftest's (12), which starts ib_send_lat for it, not by ib_send_bw's (column 6), which
	 * answers nothing. */
	CHECK(gen && strstr(gen, "| `ddp.untagged.msn-below-window` | either | `answer` | x |  |  |  |  |  |  |  |  |  |  "
				 "| x |  | x |\n") != NULL);
	free(gen);
	free(doc);
}
