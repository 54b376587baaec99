/*
 * iw_err.h - how engine functions report failure.
 *
 * Every fallible function returns an int (0 = success, negative = an IW_E* code) and
 * fills an iw_err with a message that names the problem, so callers above the engine
 * can print it without guessing. Nothing in the engine calls exit() or prints.
 */
#ifndef IW_ERR_H
#define IW_ERR_H

#include <stddef.h>

enum iw_rc {
	IW_OK = 0,
	IW_EINVAL = -1,     /* an argument or field value the caller may not pass */
	IW_ENOSPC = -2,     /* the output buffer is too small */
	IW_ETRUNC = -3,     /* the input ends before the structure does */
	IW_EPROTO = -4,     /* the input violates the protocol */
	IW_ESTATE = -5,     /* the call does not fit the object's state */
};

typedef struct iw_err {
	char msg[256];
} iw_err;

/* Formats msg into e (when e is not NULL) and returns rc, so `return iw_errf(e, IW_EINVAL, ...)` reads well. */
int iw_errf(iw_err *e, int rc, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/* Clears e (when not NULL). */
void iw_err_clear(iw_err *e);

#endif
