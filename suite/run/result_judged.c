/*
 * result_judged.c - the requirements a case judged on the DUT's octets: each per-frame check
 * (suite/verify/) says which rules it applied, and the case's result counts them, so the coverage
 * table can count a requirement as exercised whether the case's header cites it or not.
 */
#include "result.h"

#include <stdio.h>
#include <string.h>

void iw_result_judged(iw_case_result *r, const char *const *rules, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < r->njudged && strncmp(r->judged[k].req, rules[i], sizeof r->judged[k].req))
			k++;
		if (k == r->njudged) {
			if (r->njudged == IW_RESULT_MAX_JUDGED) {
				r->judged_cut = true;
				continue;
			}
			snprintf(r->judged[k].req, sizeof r->judged[k].req, "%s", rules[i]);
			r->judged[k].frames = 0;
			r->njudged++;
		}
		r->judged[k].frames++;
	}
}
