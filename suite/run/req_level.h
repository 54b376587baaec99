/*
 * req_level.h - the level a broken requirement is judged at: one source, the requirements
 * catalog (req_catalog.h), for every verdict and every reason text.
 *
 * The catalog writes keywords as the drafts do ("MUST", "MUST NOT", "must(lc)", "FACT
 * (normative)", "SHOULD", "MAY" ...). For a verdict they fold into four levels:
 *   MUST    MUST, MUST NOT, a lower-case must or required, and a FACT marked normative
 *           (the cases hold all of these as binding)
 *   SHOULD  SHOULD, SHOULD NOT, a lower-case should
 *   MAY     MAY, OPTIONAL, NOT REQUIRED, a lower-case may
 *   INFO    a plain FACT: nothing to break, only to measure
 * A case may hold a requirement it cites at a weaker level than the catalog's (a position of
 * the specification's §6, e.g. A10: an immediate reset after a rejecting Reply is a warning,
 * never a failure), never at a stronger one.
 */
#ifndef IW_REQ_LEVEL_H
#define IW_REQ_LEVEL_H

#include <stdbool.h>

#include "case.h"

/* The catalog level of id, and its keyword as the catalog writes it; false (and *lvl, *kw
 * untouched) when id is not in the catalog (the RFC5040-* sections, which the seeds do not
 * define). kw may be NULL. */
bool iw_req_level(const char *id, enum iw_level *lvl, const char **kw);

/* The level a keyword of the catalog folds into (above). */
enum iw_level iw_req_level_of_keyword(const char *kw);

#endif
