/*
 * catalog.h - finding and selecting case files.
 *
 * Cases live in cases/SPEC/SECTION/NAME.iwt. The directory is found in this order:
 * --case-dir, $IWSPEC_CASES, ./cases, <binary>/../cases, <binary>/../share/iwspec/cases.
 * A selection is a glob on case ids (e.g. 'mpa.startup.*'), or the path of a case file or
 * directory, which is then loaded instead of the catalog.
 */
#ifndef IW_CATALOG_H
#define IW_CATALOG_H

#include <stddef.h>

#include "case.h"
#include "iw_err.h"

typedef struct iw_catalog {
	size_t n, cap;
	iw_case **cases;    /* owned, sorted by id */
	char dir[512];      /* where they came from */
} iw_catalog;

/* Loads cases. select may be NULL (all), a glob on ids, or a path. IW_EINVAL with a message
 * naming the file and line of the first case that does not parse, or a duplicate id. */
int iw_catalog_load(iw_catalog *cat, const char *case_dir, const char *select, const char *argv0, iw_err *e);
void iw_catalog_free(iw_catalog *cat);

#endif
