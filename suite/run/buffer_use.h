/*
 * buffer_use.h - the octets of the DUT's advertised buffer a case writes and reads.
 *
 * The reflector gives every connection an STag for one memory (its contract item 2, the
 * `shared-buffer` capability), so cases that run at once against it share that memory: a case
 * that writes 64 KiB from offset 0 (ddp.segments.all-data-sent) changes what a case beside it
 * reads back from its own range, which then fails as if the DUT had placed wrong octets. The
 * runner keeps such cases apart: it starts no case whose writes overlap what a running case
 * reads or writes, or whose reads overlap what a running case writes. The ranges come from the
 * case's steps, so no case has to say it: `send write` and `send read_req` to the advertised
 * buffer (no `stag`/`src_stag` of the harness's choosing; `stag_of` names the same memory),
 * their offsets from its TO; a wrapping TO is sent as written and names no octet of it.
 * An offset counted back from the buffer's end (`to=end-16`) is taken from IW_BUFFER_USE_END,
 * the length of the reflector's buffer (its contract's least, the built-in DUT's own): two such
 * ranges are then apart exactly when they are, and against a longer buffer one of them lies
 * higher than any offset a case writes as a number, so the answer errs towards keeping apart.
 */
#ifndef IW_BUFFER_USE_H
#define IW_BUFFER_USE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "case.h"

#define IW_BUFFER_USE_MAX 16
#define IW_BUFFER_USE_END 65536u     /* where `end` is taken to be (above) */

typedef struct iw_range {
	uint64_t lo, hi;            /* [lo, hi) offsets from the advertised TO */
} iw_range;

typedef struct iw_buffer_use {
	size_t nwrites, nreads;
	iw_range writes[IW_BUFFER_USE_MAX];
	iw_range reads[IW_BUFFER_USE_MAX];
} iw_buffer_use;

/* The ranges c writes and reads (merged where they touch; past IW_BUFFER_USE_MAX the last
 * range grows to cover the rest, so the answer errs towards keeping cases apart). */
void iw_buffer_use_of(const iw_case *c, iw_buffer_use *u);

/* Whether a and b may not run at once: one writes octets the other reads or writes. */
bool iw_buffer_use_conflict(const iw_buffer_use *a, const iw_buffer_use *b);

#endif
