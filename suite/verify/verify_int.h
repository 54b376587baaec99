/*
 * verify_int.h - what the verifiers share (verify_check.c): a check starts empty, lists each
 * rule it applies, and records each rule it finds broken, the first in iw_check's own fields and
 * any later ones (of checks whose rules do not depend on one another) in more[].
 */
#ifndef IW_VERIFY_INT_H
#define IW_VERIFY_INT_H

#include "verify.h"

/* Empties out: no rule applied, none broken, the broken kind SENDER with no error code. */
void iw_check_begin(iw_check *out);

void iw_check_applied(iw_check *out, const char *req);

/* Records a rule broken, as a receiver takes it (kind, and the error it reports or -1s), with a
 * formatted sentence. Returns false, so a check can end with `return iw_check_broken(...)`. */
bool iw_check_broken(iw_check *out, const char *req, enum iw_viol_kind kind, int layer, int etype, int ecode,
		     const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* A sender's fault receivers ignore (no error code): the common case. */
#define iw_check_sender(out, req, ...) iw_check_broken(out, req, IW_VIOL_SENDER, -1, 0, 0, __VA_ARGS__)

#endif
