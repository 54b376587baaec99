/*
 * cmd_mutants_table.c - the mutant table (drivers/ref_faults.c) as `iwspec mutants` reads it:
 * the families in the matrix's order, and where each mutant can show (its `applies` words:
 * role, framing, profiles), which decides the runs it gets.
 */
#include <stdio.h>
#include <string.h>

#include "cmd_mutants_int.h"

const char *const mu_cfg_name[CFG_COUNT] = {"default", "markers", "crc-off", "exec"};

static const char *const families[] = {"startup", "framing", "markers", "ddp", "rdmap", "errors", "robustness"};
#define NFAMILIES (sizeof families / sizeof families[0])

/* The mutants family by family, in table order within a family; returns how many. */
int mu_family_order(int *order)
{
	int n = 0;
	for (size_t f = 0; f < NFAMILIES; f++)
		for (int i = 1; i < IW_MUTANT_COUNT; i++)
			if (!strcmp(iw_mutant_info((enum iw_mutant)i)->family, families[f]))
				order[n++] = i;
	return n;
}

bool mu_parse_applies(const iw_fault_info *m, applies *a)
{
	memset(a, 0, sizeof *a);
	a->role = -1;
	const char *s = m->applies ? m->applies : "";
	while (*s) {
		while (*s == ' ')
			s++;
		size_t n = strcspn(s, " ");
		if (!n)
			break;
		char w[48];
		snprintf(w, sizeof w, "%.*s", (int)n, s);
		s += n;
		if (!strcmp(w, "responder")) {
			a->role = IW_ROLE_RESPONDER;
		} else if (!strcmp(w, "initiator")) {
			a->role = IW_ROLE_INITIATOR;
		} else if (!strcmp(w, "markers")) {
			a->cfg = CFG_MARKERS;
		} else if (!strcmp(w, "crc-off")) {
			a->cfg = CFG_CRC_OFF;
		} else if (!strcmp(w, "exec")) {
			a->cfg = CFG_EXEC;
		} else if (!strncmp(w, "profile:", 8)) {
			const iw_profile *p = iw_profile_find(w + 8);
			if (!p)
				return false;
			a->profile[p->id] = true;
			a->profiles_limited = true;
		} else {
			return false;
		}
	}
	return true;
}

/* Profiles a run covers: every profile but seed-exact, or the ones the mutant names. */
bool mu_profile_applies(const applies *a, int pid)
{
	if (pid == IW_PROFILE_SEED_EXACT)
		return false;
	return !a->profiles_limited || a->profile[pid];
}

void mu_print_list(bool markdown)
{
	if (markdown) {
		printf("| mutant | family | requirement | runs | the built-in DUT ... |\n|---|---|---|---|---|\n");
	}
	int order[IW_MUTANT_COUNT], n = mu_family_order(order);
	for (int k = 0; k < n; k++) {
		const iw_fault_info *m = iw_mutant_info((enum iw_mutant)order[k]);
		const char *ap = m->applies && *m->applies ? m->applies : "all";
		if (markdown)
			printf("| `%s` | %s | %s | %s | %s |\n", m->name, m->family, m->req, ap, m->desc);
		else
			printf("%-26s %-10s %-13s %-30s %s\n", m->name, m->family, m->req, ap, m->desc);
	}
}

bool mu_family_known(const char *f)
{
	for (size_t i = 0; i < NFAMILIES; i++)
		if (!strcmp(f, families[i]))
			return true;
	return false;
}
