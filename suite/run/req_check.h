/*
 * req_check.h - every requirement a case cites is a row of the requirements catalog.
 *
 * The case parser (suite/case/) checks an ID's shape only: it sits below suite/run/, where the
 * catalog table is, and a case file must parse whatever the catalog holds. The commands that load
 * cases to list or run them check the IDs against the catalog here, so a case that cites a section
 * ("RFC5040-4.8") or a mistyped row is refused before anything runs, with its file, line, the ID
 * and the closest rows, instead of reaching the report as a requirement without level or words.
 * A retired row (spec/rfc-rows.md §3) is refused with why it was retired and what replaced it.
 */
#ifndef IW_REQ_CHECK_H
#define IW_REQ_CHECK_H

#include "case.h"
#include "catalog.h"
#include "iw_err.h"

/* IW_OK when every requirement of c is a catalog row; otherwise IW_EINVAL and e says
 * "FILE:LINE: requirement: 'ID' is not a row of the requirements catalog ...; closest: ...". */
int iw_case_check_reqs(const iw_case *c, iw_err *e);

/* The same for every case of cat: the first case (in id order) with an ID that is not a row, and
 * how many more IDs of the catalog are not rows. */
int iw_catalog_check_reqs(const iw_catalog *cat, iw_err *e);

#endif
