/*
 * iw_conn.h - the connection model: one conforming iWARP endpoint, sans I/O.
 *
 * Feed it the bytes the peer sent (iw_conn_input) and a close (iw_conn_peer_closed); it
 * reports what a conforming endpoint does as events (iw_conn_next_event) and as the bytes it
 * would send (iw_conn_output). The built-in DUT serves it over TCP; the harness runs one next
 * to a real DUT to know what the DUT may do; the fuzzers drive it directly.
 *
 * The model follows the profile's startup rules (MR §6.1): an initiator sends a Request and
 * validates the Reply; a responder validates the Request, replies, and sends no FPDU or
 * marker before it has received and validated one FPDU (rule 4). A startup frame with a
 * fatal defect closes the connection with no Reply (MPA code 4). In full operation every
 * FPDU goes through the MPA decoder, the DDP sink and RDMAP: a Send is delivered, an RDMA
 * Write placed, a Read Request answered with Read Responses, a Terminate reported. The first
 * error (MPA, DDP or RDMAP) makes the model send one Terminate with the error's layer, type
 * and code (RFC 5040) and close; after it nothing more is placed or delivered.
 *
 * The receive buffers are allocated at init. The output queue and the arena that keeps
 * delivered Send data start small and grow on demand up to their configured limits (out_cap;
 * recv_buffers x recv_buffer_size), so a connection that moves little costs little: the
 * executor and the built-in DUT make several per case. A queue that cannot grow refuses the
 * message whole (IW_ENOSPC); an arena that cannot grow leaves ev.data pointing at the receive
 * buffer, intact until that buffer is refilled.
 */
#ifndef IW_CONN_H
#define IW_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ddp_sink.h"
#include "iw_err.h"
#include "iw_violation.h"
#include "mpa_frame.h"
#include "mpa_fpdu.h"
#include "mpa_rx.h"
#include "profile.h"
#include "rdmap.h"

enum iw_role { IW_ROLE_INITIATOR, IW_ROLE_RESPONDER };

/* RFC 6581 ready-to-receive (RTR) message types, as bits of iw_conn_config.rtr. */
enum iw_rtr { IW_RTR_SEND = 1, IW_RTR_WRITE = 2, IW_RTR_READ = 4 };

typedef struct iw_conn_config {
	const iw_profile *profile;
	enum iw_role role;
	bool want_markers;          /* M sent: this side wants markers on what it receives */
	bool want_crc;              /* C sent (default true; MPA-5.2-03) */
	bool crc_admin_off;         /* administrator asked for no CRC: only then is C=0 honoured */
	uint32_t emss;              /* effective MSS of the connection, for MULPDU (default 1460) */
	uint32_t mulpdu;            /* 0: MULPDU from emss (MPA-5.3.2-01/02); else this one, as a sender
	                             * that reduces it may (MPA-5.3.2-03); above the 18-octet header */
	const uint8_t *pd;          /* private data to send in our frame */
	size_t pd_len;
	bool reject;                /* responder: answer with R=1 (and send no FPDU) */
	uint16_t ird, ord;          /* RFC 6581 (default 16) */
	uint32_t stream, pd_id;     /* DDP stream id and protection domain of this connection */
	uint32_t recv_buffers;      /* Send buffers posted on QN 0 (default 8), reposted on delivery */
	uint32_t recv_buffer_size;  /* octets each (default 65536) */
	size_t out_cap;             /* output queue size (default 1 MiB) */
	/* RFC 6581 peer-to-peer mode. An initiator with p2p sets A in its Request and offers the
	 * RTR types in rtr; when the Reply picks one it sends that zero-length message first. A
	 * responder echoes A and picks one offered type it also has in rtr (Write, then Read, then
	 * Send). Ignored by other profiles. Defaults: p2p false, rtr all three. */
	bool p2p;
	unsigned rtr;               /* enum iw_rtr bits */
} iw_conn_config;

/* Fills cfg with the defaults noted above for profile p and role. */
void iw_conn_config_default(iw_conn_config *cfg, const iw_profile *p, enum iw_role role);

enum iw_conn_state {
	IW_CS_STARTUP,              /* waiting for the peer's Request (responder) or Reply (initiator) */
	IW_CS_AWAIT_FIRST_FPDU,     /* responder after its Reply: rule 4, sends nothing yet */
	IW_CS_FULL,                 /* full operation */
	IW_CS_REJECTED,             /* R=1 sent or received: MPA exited, no FPDUs */
	IW_CS_FAILED,               /* an error was found; Terminate queued (if any) and close */
	IW_CS_CLOSED,
};

enum iw_conn_ev_kind {
	IW_EV_FRAME_ACCEPTED,       /* the peer's Request/Reply was valid (frame fields in ev.frame) */
	IW_EV_FRAME_REJECTED,       /* the peer's frame had a fatal defect (ev.viol): MPA code 4, close */
	IW_EV_PEER_REJECT,          /* the Reply had R=1 */
	IW_EV_FULL_OPERATION,       /* this side may now send FPDUs (a responder's are held until
	                             * it has received a valid FPDU, rule 4) */
	IW_EV_SEND,                 /* an untagged Send message delivered (ev.data/len, ev.opcode) */
	IW_EV_WRITE,                /* an RDMA Write message was placed (ev.stag, ev.to, ev.len of its last segment) */
	IW_EV_READ_SERVICED,        /* a Read Request was answered (ev.rreq) */
	IW_EV_READ_DONE,            /* the Read Response for our Read Request completed */
	IW_EV_TERMINATE,            /* the peer sent a Terminate (ev.term) */
	IW_EV_ERROR,                /* this side found an error (ev.viol: requirement, layer/etype/ecode) */
	IW_EV_CLOSE,                /* this side closes the connection (after its Terminate, if any) */
	IW_EV_PEER_CLOSED,          /* the peer closed (MPA code 1) */
};

typedef struct iw_conn_event {
	enum iw_conn_ev_kind kind;
	iw_mpa_frame frame;         /* FRAME_ACCEPTED, PEER_REJECT (pd points into the model) */
	iw_violation viol;          /* FRAME_REJECTED, ERROR */
	unsigned opcode;            /* SEND */
	uint32_t msn;               /* SEND */
	const uint8_t *data;        /* SEND: valid until the next input */
	size_t len;
	uint32_t stag;              /* WRITE */
	uint64_t to;
	iw_read_req rreq;           /* READ_SERVICED */
	iw_terminate term;          /* TERMINATE */
} iw_conn_event;

#define IW_CONN_MAX_EVENTS 64

typedef struct iw_conn iw_conn;

/* Creates a model. */
int iw_conn_new(iw_conn **out, const iw_conn_config *cfg, iw_err *e);
void iw_conn_free(iw_conn *c);

/* Makes *pc a fresh model of cfg, as iw_conn_new does, from the model it holds (whatever that
 * one's state; it is ended): its memory (the struct, the receive buffers of the same size, the
 * output queue, the frame buffer, the decoder) serves again instead of being freed and
 * allocated, which a program making a model per connection (the network fuzzer and the
 * built-in DUT: two a run) pays for every run. *pc NULL: iw_conn_new. On failure *pc is freed
 * and set to NULL. */
int iw_conn_renew(iw_conn **pc, const iw_conn_config *cfg, iw_err *e);

/* Initiator: queues the Request. Responder: nothing to do (waits for the Request). */
int iw_conn_start(iw_conn *c, iw_err *e);

/* Processes bytes from the peer. Events and output accumulate until taken. Returns octets
 * consumed (all of them, unless the model has closed: the call in which it closes returns the
 * octets up to the end of the frame or FPDU that closed it, later calls return 0). */
size_t iw_conn_input(iw_conn *c, const uint8_t *data, size_t len);

/* The peer closed its half (FIN) or reset. */
void iw_conn_peer_closed(iw_conn *c);

/* Takes the next event; false when none is pending. Up to IW_CONN_MAX_EVENTS are kept;
 * the oldest are kept when more arrive and iw_conn_events_lost() counts the rest. */
bool iw_conn_next_event(iw_conn *c, iw_conn_event *ev);
size_t iw_conn_events_lost(const iw_conn *c);

/* Bytes this side would send now. iw_conn_output_peek shows them; iw_conn_output_consume
 * removes n after they were written. */
const uint8_t *iw_conn_output_peek(const iw_conn *c, size_t *len);
void iw_conn_output_consume(iw_conn *c, size_t n);

/* True once the model wants the TCP connection closed (after flushing output). */
bool iw_conn_wants_close(const iw_conn *c);

enum iw_conn_state iw_conn_state(const iw_conn *c);

/* The negotiated parameters, valid from full operation on. */
typedef struct iw_conn_params {
	bool markers_tx, markers_rx;    /* markers on what we send / receive */
	bool crc;                       /* CRCs generated and checked */
	uint32_t mulpdu;                /* for what we send */
	uint16_t ird, ord;              /* RFC 6581 */
} iw_conn_params;
void iw_conn_params_get(const iw_conn *c, iw_conn_params *p);

/* ULP operations (full operation only; IW_ESTATE otherwise, IW_ENOSPC when the output
 * queue is full). Each segments the message by MULPDU. A responder may call them from
 * IW_EV_FULL_OPERATION on: until its first valid FPDU arrives (IW_CS_AWAIT_FIRST_FPDU) the
 * FPDUs stay in the queue, invisible to iw_conn_output_peek (MPA-6.1-R4). After a peer close
 * they still work (half-close, A38). */
int iw_conn_send(iw_conn *c, unsigned opcode, const uint8_t *data, size_t len, iw_err *e);
int iw_conn_write(iw_conn *c, uint32_t stag, uint64_t to, const uint8_t *data, size_t len, iw_err *e);
int iw_conn_read(iw_conn *c, const iw_read_req *rr, iw_err *e);

/* Local resources the peer may use: a tagged buffer (memory caller-owned) and its STag. */
int iw_conn_register(iw_conn *c, uint32_t stag, uint64_t base_to, uint8_t *mem, uint64_t len,
		     unsigned access, iw_err *e);
int iw_conn_invalidate(iw_conn *c, uint32_t stag, iw_err *e);

/* Registers a tagged buffer as given, with its own stream and protection domain: how a DUT
 * makes its sink know an STag of another connection (DDP-10.3: using it here is 0x1/0x02). */
int iw_conn_register_buf(iw_conn *c, const iw_tagged_buf *b, iw_err *e);

/* The sink, for tests and reports. */
const iw_ddp_sink *iw_conn_sink(const iw_conn *c);

#endif
