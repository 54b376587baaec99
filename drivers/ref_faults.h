/*
 * ref_faults.h - ways the built-in DUT can misbehave on purpose.
 *
 * Hostile modes test the harness itself: a DUT that talks garbage, resets mid-frame, trickles,
 * promises private data it never sends, streams without end or never closes, says nothing at
 * all, closes or resets as soon as it is connected, or announces 65535 octets of private data
 * and stalls must each end in a verdict within the harness's timeouts, never in a hang.
 *
 * Mutants test the suite's judgement (self-validation): each breaks exactly one requirement of
 * spec/requirements.md, and a run against it must report that requirement as failed. A mutant
 * is a small transformation around the connection model - the peer's bytes rewritten before
 * the model sees them, or the model's bytes rewritten before they are sent - never a change to
 * the engine, so the engine stays the one reference.
 *
 * The fault stage sits between the model and the socket: the server hands it every chunk the
 * peer sent (iw_fault_input) and lets it move the model's output into the transmit buffer
 * (iw_fault_pump); with no fault both are plain copies. ref_fault_int.h lists its files.
 */
#ifndef IW_REF_FAULTS_H
#define IW_REF_FAULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "iw_conn.h"
#include "iw_err.h"
#include "profile.h"

enum iw_hostile {
	IW_HOSTILE_NONE,
	IW_HOSTILE_GARBAGE,
	IW_HOSTILE_RESET_MID_FRAME,
	IW_HOSTILE_SLOW,
	IW_HOSTILE_PD_NEVER,
	IW_HOSTILE_ENDLESS,
	IW_HOSTILE_NEVER_CLOSE,
	IW_HOSTILE_SILENT,
	IW_HOSTILE_CLOSE,
	IW_HOSTILE_RST,
	IW_HOSTILE_BAD_REPLY_STALL,
	IW_HOSTILE_DRIP,
	IW_HOSTILE_COUNT
};

enum iw_mutant {
	IW_MUTANT_NONE,
	IW_MUTANT_ACCEPT_BAD_KEY,
	IW_MUTANT_REPLY_WRONG_REV,
	IW_MUTANT_REPLY_RES_SET,
	IW_MUTANT_IGNORE_M,
	IW_MUTANT_REPLY_C0,
	IW_MUTANT_EARLY_FPDU,
	IW_MUTANT_TRUNCATE_PD,
	/* Message-level mutants: they re-frame FPDUs (ref_fault_reframe.c). */
	IW_MUTANT_TERM_WRONG_CODE,
	IW_MUTANT_NO_TERMINATE,
	IW_MUTANT_DELIVER_AFTER_ERROR,
	IW_MUTANT_IGNORE_BOUNDS,
	IW_MUTANT_INTEROP_CODES,
	/* Robustness mutants (the network fuzzer's targets, docs/fuzzing-network.md). */
	IW_MUTANT_CRASH_SHORT_ULPDU,    /* abort()s: run it as a process (exec:'iwspec serve ...') */
	IW_MUTANT_HANG_PARTIAL_HEADER,  /* stops reading and never closes */
	/* The mutant zoo (ref_mutants.c): one requirement each, every family of the catalog. */
	IW_MUTANT_IGNORE_C,
	IW_MUTANT_NO_STARTUP_TIMEOUT,
	IW_MUTANT_REPLY_EARLY,
	IW_MUTANT_ACCEPT_BAD_REV,
	IW_MUTANT_ACCEPT_OVERSIZED_PD,
	IW_MUTANT_IGNORE_REJECT,
	IW_MUTANT_REQUEST_REPLY_KEY,
	IW_MUTANT_PAD_NONZERO,
	IW_MUTANT_PAD_WRONG_LENGTH,
	IW_MUTANT_CRC_BIG_ENDIAN,
	IW_MUTANT_CRC_UNCHECKED,
	IW_MUTANT_IGNORE_EMSS,
	IW_MUTANT_MULPDU_UNCLAMPED,
	IW_MUTANT_MARKER_WRONG_FPDUPTR,
	IW_MUTANT_MARKER_FIRST_MISSING,
	IW_MUTANT_MARKER_DRIFT,
	IW_MUTANT_MARKERS_UNREQUESTED,
	IW_MUTANT_MARKER_RESERVED_SET,
	IW_MUTANT_CRC_SKIPS_LEADING_MARKER,
	IW_MUTANT_BOUNDS_OFF_BY_ONE,
	IW_MUTANT_TO_WRAP_UNCHECKED,
	IW_MUTANT_ACCEPT_FOREIGN_STAG,
	IW_MUTANT_MSN_START_0,
	IW_MUTANT_MO_UNCHECKED,
	IW_MUTANT_L_ON_MIDDLE,
	IW_MUTANT_QN_UNCHECKED,
	IW_MUTANT_DELIVER_OUT_OF_ORDER,
	IW_MUTANT_ZERO_LENGTH_WRITE_CHECKED,
	IW_MUTANT_READ_OUT_OF_BOUNDS,
	IW_MUTANT_UNKNOWN_OPCODE_IGNORED,
	IW_MUTANT_TERM_WRONG_LAYER,
	IW_MUTANT_SEND_INV_UNCHECKED,
	IW_MUTANT_RDMAP_VERSION_UNCHECKED,
	IW_MUTANT_PLACE_AFTER_ERROR,
	IW_MUTANT_NEVER_CLOSE,
	/* RDMAP in depth (RFC 5040 §4.2-5.5, RFC 6581's IRD). */
	IW_MUTANT_ZERO_READ_DATA,
	IW_MUTANT_READ_QUEUE_OFF_BY_ONE,
	IW_MUTANT_RREQ_QN_UNCHECKED,
	IW_MUTANT_SEND_SE_INV_UNCHECKED,
	IW_MUTANT_INVALIDATE_IGNORED,
	IW_MUTANT_MARKER_HALVES_SWAPPED,
	IW_MUTANT_MULPDU_BELOW_FLOOR,
	IW_MUTANT_TAGGED_RV_WRONG,
	/* Framing by read boundaries: caught by the raw segment path's cases (issue 16). */
	IW_MUTANT_RESYNC_ON_READ,
	/* RDMAP rules of spec/rfc-rows.md no mutant broke before (issue 29). */
	IW_MUTANT_RDMAP_RSVD_CHECKED,
	IW_MUTANT_TERM_NO_HEADERS,
	IW_MUTANT_TERM_RSVD_SET,
	/* Startup answers the runner judged only in some steps (issue: octets nobody judged). */
	IW_MUTANT_REPLY_ECHOES_R,
	IW_MUTANT_REPLY_TO_PARTIAL_REQUEST,
	IW_MUTANT_COUNT
};

typedef struct iw_fault_info {
	const char *name;       /* the CLI and configuration spelling */
	const char *req;        /* mutants: the requirement broken; hostile modes: NULL */
	const char *desc;
	/* Mutants only (NULL for hostile modes and "none"). */
	const char *family;     /* startup, framing, markers, ddp, rdmap, errors, robustness */
	const char *applies;    /* where the mutant can show, space-separated (NULL: every profile
				 * and role, default framing): "responder" or "initiator" (the cases
				 * of that role), "markers" (run with markers both ways), "crc-off"
				 * (a DUT with a no-CRC mode), "exec" (a process DUT: it crashes),
				 * "profile:NAME" (only these profiles; repeatable) */
} iw_fault_info;

/* Table rows, index = enum value (NONE is row 0, name "none"). */
const iw_fault_info *iw_hostile_info(enum iw_hostile h);
const iw_fault_info *iw_mutant_info(enum iw_mutant m);

/* By name; "" and "none" give NONE. Unknown names are errors listing the valid ones. */
int iw_hostile_find(const char *name, enum iw_hostile *out, iw_err *e);
int iw_mutant_find(const char *name, enum iw_mutant *out, iw_err *e);

/* "garbage, reset-mid-frame, ..." for messages and --help. */
void iw_hostile_names(char *buf, size_t cap);
void iw_mutant_names(char *buf, size_t cap);

/* The transmit buffer between the fault stage and the socket: bounded, linear. */
typedef struct iw_txbuf {
	uint8_t *buf;
	size_t cap, off, len;   /* pending octets are buf[off, off + len) */
} iw_txbuf;

static inline size_t iw_txbuf_room(iw_txbuf *t)
{
	if (t->off) {
		memmove(t->buf, t->buf + t->off, t->len);
		t->off = 0;
	}
	return t->cap - t->off - t->len;
}
static inline uint8_t *iw_txbuf_tail(iw_txbuf *t) { return t->buf + t->off + t->len; }
static inline void iw_txbuf_drop(iw_txbuf *t, size_t n)
{
	t->off += n;
	t->len -= n;
	if (t->len == 0)
		t->off = 0;
}

/* One direction re-framed: FPDUs decoded, their ULPDUs rewritten or dropped by a message-level
 * mutant, and framed again with the same markers and CRC, so the stream stays consistent. */
typedef struct iw_reframe iw_reframe;

/* Per-connection fault state. */
typedef struct iw_fault_conn {
	enum iw_hostile hostile;
	enum iw_mutant mutant;
	const iw_profile *profile;
	enum iw_role role;
	uint64_t rng;

	uint64_t in_pos;            /* peer octets seen */
	uint8_t in_hdr[IW_MPA_FRAME_HDR_LEN]; /* the peer's startup frame header, as received */
	uint64_t out_pos;           /* model octets taken */
	bool out_hdr_known;
	uint8_t out_hdr[IW_MPA_FRAME_HDR_LEN]; /* our startup frame header, as the model made it */
	size_t out_frame_len;       /* 20 + PD_Length of our frame, once known (0 without frames) */

	bool triggered;             /* garbage/endless: streaming has begun */
	bool stalled;               /* bad-reply-stall: its lying frame is out, nothing more will be */
	bool early_sent;
	int64_t next_slow_ms;

	/* What the server must do (read after each call). */
	bool feed_model;            /* false: the peer's bytes are not given to the model */
	bool reset_when_flushed;    /* RST once the transmit buffer has drained */
	bool fin_at_once;           /* close (FIN) as soon as the connection is open */
	bool hold_open;             /* ignore the model's close and the timeouts but idle */
	bool idle_input_only;       /* the idle timeout counts only the peer's octets */
	uint64_t injected;          /* octets added that the model did not produce */

	/* Message-level mutants: the re-framers, made when first needed (free with iw_fault_conn_free). */
	iw_reframe *rf_in, *rf_out;
	bool in_rewritten;          /* after iw_fault_input: feed in_buf[0, in_len) instead of the chunk */
	const uint8_t *in_buf;
	size_t in_len;
	bool dropped_once;          /* deliver-after-error: the one bad FPDU it hid */
	bool read_short;            /* set by the server before each read's chunks: the read took
	                             * less than its buffer (the kernel had no more then) */
	int64_t read_gap_ms;        /* set by the server too: time since the read before */
	uint32_t ooo_packets;       /* ... and the out-of-order segments its TCP has had (resync-on-read) */
	bool short_partial;         /* resync-on-read: the last read was short and ended inside an FPDU */

	/* Robustness mutants: the length chain of the peer's FPDUs, as received (before the model;
	 * no markers on its receive side, the default). */
	uint64_t trk_in_fpdu;       /* octets of the current FPDU seen (0: at an FPDU start) */
	uint32_t trk_total;         /* the current FPDU's octets, once its ULPDU_Length is in */
	uint16_t trk_len;
	uint8_t trk_len_hi;
	bool hang_armed;            /* hang-partial-header: the model gets nothing more */
	bool crash_armed;           /* crash-short-ulpdu: abort() once what is queued has gone out
				     * (the server checks it), so the Reply precedes the crash
				     * however the reads were cut */

	/* The mutant zoo (ref_mutants.c). The server points model at the connection's model before
	 * each iw_fault_input (some mutants look at its sink, or feed it FPDU by FPDU). */
	iw_conn *model;
	bool no_startup_timeout;    /* the server's startup timeout is off */
	bool direct_feed;           /* this chunk's FPDUs go to the model from the fault stage */
	void (*after_feed)(void *arg);  /* the server's event drain, called after each such FPDU (a
					 * Send event's data lasts only until the next input) */
	void *after_feed_arg;
	bool model_failed;          /* the model has found an error (seen by the fault stage) */
	uint64_t quiet_in_pos;      /* place-after-error, reply-to-partial-request: peer octets seen at quiet_since_ms */
	int64_t quiet_since_ms;
	bool partial_replied;       /* reply-to-partial-request: its Reply and FPDU are out; the model is mute */
	uint32_t pd_keep;           /* PD octets kept of the peer's frame (PD clamping mutants) */
	uint8_t clamp_buf[16384 + 32];  /* the peer's chunk with private data removed */
	uint32_t msn_next;          /* deliver-out-of-order: the next MSN handed out */
	uint32_t msn_from[16], msn_to[16];
	unsigned msn_n;
	bool out_tagged_cont;       /* l-on-middle: the last tagged segment sent was not the last */
	bool have_prev_rr;          /* read-queue-off-by-one: the source range of the last Read Request */
	uint32_t prev_src_stag, prev_size;
	uint64_t prev_src_to;
} iw_fault_conn;

/* Frees what a connection's fault state allocated (the re-framers). */
void iw_fault_conn_free(iw_fault_conn *f);

void iw_fault_conn_init(iw_fault_conn *f, enum iw_hostile h, enum iw_mutant m, const iw_profile *p,
			enum iw_role role, uint64_t seed);

/* How many of the next n octets the peer sent the next iw_fault_input may take. A mutant that
 * re-frames the peer's FPDUs must see the peer's startup frame end before any FPDU octet (the
 * model's answer to the frame says how the FPDUs are framed), so its chunks stop at the
 * frame's end: what it does then does not depend on how TCP cut the stream. */
size_t iw_fault_input_limit(const iw_fault_conn *f, size_t n);

/* Rewrites the peer's chunk in place (mutants that lie to the model). After it, f->feed_model
 * tells whether the model gets the chunk (else the fault stage may have fed it itself). */
void iw_fault_input(iw_fault_conn *f, uint8_t *data, size_t len);

/* Moves what may go out now from the model into tx (rewritten, delayed, replaced or extended
 * as the fault asks). Returns the time (iw_net_now_ms clock) the pump wants to run again, or
 * -1 when only I/O can change anything. */
int64_t iw_fault_pump(iw_fault_conn *f, iw_conn *model, iw_txbuf *tx, int64_t now_ms);

#endif
