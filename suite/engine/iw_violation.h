/*
 * iw_violation.h - one broken rule, as every decoder and checker reports it.
 *
 * A violation names the requirement it rests on (an ID of spec/requirements.md), what
 * kind of rule it is, and the error code the spec assigns when a receiver must report
 * it (layer/etype/ecode as a Terminate would carry them; -1 when there is none).
 */
#ifndef IW_VIOLATION_H
#define IW_VIOLATION_H

#include <stddef.h>
#include <stdint.h>

enum iw_viol_kind {
	IW_VIOL_FATAL,      /* the receiver must treat the input as an error (e.g. CRC mismatch) */
	IW_VIOL_SENDER,     /* the sender broke a rule the receiver ignores (e.g. non-zero pad) */
};

typedef struct iw_violation {
	const char *req;    /* requirement ID, e.g. "MPA-5.2-14" */
	enum iw_viol_kind kind;
	int layer;          /* enum iw_term_layer, -1 when no code applies */
	int etype;
	int ecode;
	uint64_t offset;    /* stream offset the violation was found at */
	char detail[192];   /* what was seen and what was expected */
} iw_violation;

/* A bounded list of violations that never allocates; adds past cap are counted, not kept. */
typedef struct iw_viol_list {
	iw_violation *v;
	size_t cap;
	size_t n;           /* kept */
	size_t dropped;     /* not kept for lack of room */
} iw_viol_list;

/* Appends a violation (formatted detail) and returns it, or NULL when the list is full or l is NULL. */
iw_violation *iw_viol_add(iw_viol_list *l, const char *req, enum iw_viol_kind kind, int layer, int etype,
			  int ecode, uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 8, 9)))
#endif
	;

/* "LLP/MPA/0x02 (MPA CRC error)" and the like, for messages and reports. The text is in a
 * per-thread buffer that the next call overwrites: copy it before calling again. */
const char *iw_error_name(int layer, int etype, int ecode);

#endif
