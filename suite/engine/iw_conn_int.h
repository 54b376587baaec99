/*
 * iw_conn_int.h - the connection model's private state, shared by its three files:
 *   iw_conn.c          lifecycle, events, output queue, input dispatch, ULP verbs
 *   iw_conn_startup.c  MPA Request/Reply (MR §6.1, RFC 5044, RFC 6581)
 *   iw_conn_rx.c       full operation: FPDU -> DDP sink -> RDMAP, errors and Terminate
 * Not part of the engine's API.
 */
#ifndef IW_CONN_INT_H
#define IW_CONN_INT_H

#include "iw_conn.h"

/* Read Requests this side may have outstanding (further capped by the negotiated ORD). */
#define IW_CONN_MAX_READS 64

/* Output kept free for the one Terminate the model may still have to send: ULPDU 18 + 4 + 2
 * + 18 + 28 = 70 octets, FPDU 76, plus at most two markers. */
#define IW_CONN_TERM_RESERVE 96

/* The buffer posted on QN 2: a Terminate body holds at most 4 + 2 + 18 + 28 octets. */
#define IW_CONN_TERM_BUF 52

/* Violations collected while judging one startup frame. */
#define IW_CONN_FRAME_VIOLS 8

typedef struct iw_conn_read {
	iw_read_req rr;
	bool internal;              /* the RFC 6581 Read RTR: completes without an event */
} iw_conn_pending_read;

struct iw_conn {
	iw_conn_config cfg;
	const iw_profile *p;
	enum iw_conn_state state;
	bool started;
	bool close_emitted;         /* IW_EV_CLOSE queued: input is over */
	bool peer_closed;
	bool tx_ready;              /* c->tx is set up (full operation was reached) */

	/* Our own startup frame (built at new, sent at start or on the Request). */
	iw_mpa_frame own;
	uint8_t *own_pd;
	size_t own_pd_cap;          /* octets allocated at own_pd (iw_conn_renew reuses them) */

	/* The peer's startup frame, collected octet by octet. */
	uint8_t *sbuf;
	size_t scap, shave, sneed;
	bool hdr_checked;
	iw_mpa_frame peer;
	iw_violation fviol[IW_CONN_FRAME_VIOLS];

	/* Negotiated. */
	iw_conn_params params;
	bool irdord_negotiated;      /* both frames carried RFC 6581's IRD/ORD block */
	unsigned rtr_chosen;        /* RFC 6581: the RTR types of this connection (enum iw_rtr bits; 0:
				     * none): the one an initiator picked, the ones a responder's Reply set */
	bool rtr_expect;            /* responder: the first message may be the RTR, no event */

	iw_mpa_tx tx;
	iw_mpa_rx *rx;              /* its own allocation: with its 64 KB FPDU body inside the
				     * struct, a sanitizer build maps every connection afresh */
	iw_fpdu fpdu;
	iw_violation rx_err;
	iw_ddp_sink sink;
	uint32_t msn_tx[3];         /* next MSN per QN we send on (DDP-6.3-09: first is 1) */

	/* Receive buffers, posted at new and reposted on delivery: one allocation each, for a
	 * sanitizer build serves blocks of 64 KB from its caches and maps a larger one afresh. */
	uint8_t *qbuf[3][IW_SINK_MAX_POSTED];
	uint32_t qsize[3], qcount[3];

	/* Copies of delivered Send data, so ev.data stays intact until the next input even when
	 * its receive buffer is reposted and refilled in the same call. Reset at each input.
	 * arena_alloc octets are allocated, at the first Send, growing on demand up to arena_cap
	 * (recv_buffers x recv_buffer_size): most connections never need the whole of it. */
	uint8_t *arena;
	size_t arena_cap, arena_alloc, arena_used;

	/* Our Read Requests awaiting their Read Response, oldest first. */
	iw_conn_pending_read reads[IW_CONN_MAX_READS];
	unsigned rd_head, rd_count;

	/* Output queue: octets [out_off, out_len) are pending; with hold set only those before
	 * hold_pos may go out (MPA-6.1-R4). */
	/* The output queue: out_alloc octets allocated, grown on demand up to out_cap (the
	 * configured limit). A peek's pointer holds until the next call that queues output. */
	uint8_t *out;
	size_t out_cap, out_alloc, out_off, out_len;
	bool hold;
	size_t hold_pos;

	/* The event ring: not zeroed at new (iw_conn_new), so it stays the struct's last fields but
	 * for its counters. */
	iw_conn_event ev[IW_CONN_MAX_EVENTS];
	unsigned ev_head, ev_count;
	size_t ev_lost;
};

/* iw_conn.c */
iw_conn_event *iw_conn_ev_push(iw_conn *c, enum iw_conn_ev_kind kind);
bool iw_conn_out_room(iw_conn *c, size_t n);
void iw_conn_close(iw_conn *c, enum iw_conn_state st);
void iw_conn_enter_full(iw_conn *c);
int iw_conn_queue_msg(iw_conn *c, const iw_ddp_hdr *base, const uint8_t *data, size_t len, size_t reserve,
		      iw_err *e);
int iw_conn_queue_send(iw_conn *c, unsigned opcode, const uint8_t *data, size_t len, size_t reserve,
		       iw_err *e);
int iw_conn_queue_write(iw_conn *c, uint32_t stag, uint64_t to, const uint8_t *data, size_t len,
			size_t reserve, iw_err *e);
int iw_conn_queue_read(iw_conn *c, const iw_read_req *rr, bool internal, size_t reserve, iw_err *e);
int iw_conn_queue_read_resp(iw_conn *c, const iw_read_req *rr, const uint8_t *src, iw_err *e);
int iw_conn_queue_terminate(iw_conn *c, const uint8_t *body, size_t len);

/* iw_conn_startup.c */
void iw_conn_build_own_frame(iw_conn *c);
int iw_conn_send_request(iw_conn *c, iw_err *e);
size_t iw_conn_startup_input(iw_conn *c, const uint8_t *data, size_t len);

/* iw_conn_rx.c */
size_t iw_conn_fpdu_input(iw_conn *c, const uint8_t *data, size_t len);
void iw_conn_fail(iw_conn *c, const iw_violation *v, const uint8_t *ulpdu, size_t ulpdu_len);

#endif
