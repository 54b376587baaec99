/*
 * ulp_table.c - `iwspec list --ulp` (ulp_table.h): the tables of docs/ulp-profiles.md, from the
 * case headers and the ULP profiles.
 */
#include "ulp_table.h"

#include <string.h>

#include "runner.h"
#include "ulp_profile.h"

static bool role_fits(const iw_case *c, const iw_ulp_profile *u)
{
	return u->dut_role < 0 || c->dut_role == u->dut_role || iw_case_either_role(c);
}

/* A planned profile (perftest, whose exchange iwspec does not speak yet) is counted as if its
 * `startup` ran: what it would run once it does. */
static bool runs(const iw_case *c, const iw_ulp_profile *u)
{
	char why[256];
	iw_ulp_profile as_if = *u;
	if (as_if.startup == IW_ULP_START_PLANNED)
		as_if.startup = IW_ULP_START_FRAMES;
	return role_fits(c, u) && !iw_ulp_unmet(c, &as_if, why, sizeof why);
}

/* DDP and RDMAP cases: their ids begin with the layer (the rping cases exercise both too, but
 * only under their own profiles, and are counted apart). */
static bool ddp_rdmap(const iw_case *c) { return !strncmp(c->id, "ddp.", 4) || !strncmp(c->id, "rdmap.", 6); }

/* A case that reaches full operation through the application, or relies on it. */
static bool full_operation(const iw_case *c)
{
	return iw_case_uses_startup(c) || (c->needs & ~(unsigned)IW_CAP_CONFIG) != 0;
}

void iw_ulp_table_write(FILE *f, const iw_catalog *cat)
{
	size_t np;
	const iw_ulp_profile *pr = iw_ulp_profiles(&np);
	size_t ndr = 0;
	for (size_t i = 0; i < cat->n; i++)
		ndr += ddp_rdmap(cat->cases[i]);
	fprintf(f, "%s\n\n", IW_ULP_TABLE_BEGIN);
	fprintf(f, "| profile | `ulp =` | the DUT runs | provides | cases run (of %zu) | DDP and RDMAP cases run (of %zu) |\n",
		cat->n, ndr);
	fprintf(f, "|---|---|---|---|---|---|\n");
	for (size_t p = 0; p < np; p++) {
		size_t n = 0, dr = 0;
		for (size_t i = 0; i < cat->n; i++)
			if (runs(cat->cases[i], &pr[p])) {
				n++;
				dr += ddp_rdmap(cat->cases[i]);
			}
		char prov[256];
		iw_needs_text(pr[p].provides, &pr[p].amounts, prov, sizeof prov);
		static const char *const ulps[] = {
			[IW_ULP_REFLECTOR] = "reflector", [IW_ULP_RPING] = "rping", [IW_ULP_NONE] = "none",
			[IW_ULP_PERFTEST_SEND] = "perftest-send", [IW_ULP_PERFTEST_WRITE] = "perftest-write",
			[IW_ULP_PERFTEST_READ] = "perftest-read", [IW_ULP_PERFTEST] = "perftest",
			[IW_ULP_PERFTEST_SEND_LAT] = "perftest-send-lat",
		};
		const char *ulp = pr[p].ulp >= 0 && (size_t)pr[p].ulp < sizeof ulps / sizeof ulps[0] && ulps[pr[p].ulp]
					  ? ulps[pr[p].ulp]
					  : "?";
		if (!iw_ulp_profile_ready(&pr[p]))
			ulp = "(planned)";
		fprintf(f, "| %s | %s | `%s` | %s | %zu | %zu |\n", pr[p].name, ulp, pr[p].dut_runs,
			*prov ? prov : "(nothing)", n, dr);
	}
	fprintf(f, "\nHow `startup` reaches what each provides:\n\n");
	for (size_t p = 0; p < np; p++)
		fprintf(f, "* **%s**: %s.\n", pr[p].name, pr[p].how);
	fprintf(f, "\nThe full-operation cases (those that open a connection with `startup` or need something of\n"
		   "the application), with what they need and the profiles that run them (x):\n\n");
	fprintf(f, "| case | role | needs |");
	for (size_t p = 0; p < np; p++)
		fprintf(f, " %zu |", p + 1);
	fprintf(f, "\n|---|---|---|");
	for (size_t p = 0; p < np; p++)
		fprintf(f, "---|");
	fprintf(f, "\n");
	for (size_t i = 0; i < cat->n; i++) {
		const iw_case *c = cat->cases[i];
		if (!full_operation(c))
			continue;
		char needs[256];
		iw_needs_text(c->needs, &c->amounts, needs, sizeof needs);
		fprintf(f, "| `%s` | %s | %s%s%s |", c->id,
			iw_case_either_role(c) ? "either" : c->dut_role ? "responder" : "initiator", *needs ? "`" : "",
			*needs ? needs : "(a connection)", *needs ? "`" : "");
		for (size_t p = 0; p < np; p++)
			fprintf(f, " %s |", runs(c, &pr[p]) ? "x" : "");
		fprintf(f, "\n");
	}
	fprintf(f, "\nColumns: ");
	for (size_t p = 0; p < np; p++)
		fprintf(f, "%s%zu %s", p ? ", " : "", p + 1, pr[p].name);
	fprintf(f, ".\n\n%s\n", IW_ULP_TABLE_END);
}
