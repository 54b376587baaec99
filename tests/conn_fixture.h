/*
 * conn_fixture.h - what the connection-model tests share (tests/test_conn_*.c, defined in
 * conn_fixture.c): event logs, two models wired back to back, an independent decoder of the
 * FPDUs seen on the wire, and a hand-built peer for stimuli a conforming model never sends.
 */
#ifndef IW_TEST_CONN_FIXTURE_H
#define IW_TEST_CONN_FIXTURE_H

#include "check.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ddp.h"
#include "iw_conn.h"
#include "iw_proto.h"
#include "mpa_fpdu.h"
#include "mpa_frame.h"
#include "rdmap.h"

/* ---- event logs ---- */

#define LOG_EVENTS 512
#define LOG_DATA (1u << 20)
#define CAP_BYTES (4u << 20)

typedef struct conn_log {
	iw_conn_event ev[LOG_EVENTS];
	size_t n;
	uint8_t *data;              /* copies of Send data (ev.data is rewritten to point here) */
	size_t dlen;
} conn_log;

/* Takes every pending event of c into l, copying Send data into l->data. */
void cf_log_drain(iw_conn *c, conn_log *l);

/* How many events of kind k l holds. */
size_t cf_log_count(const conn_log *l, enum iw_conn_ev_kind k);

/* The nth event of kind k (0-based), or NULL. */
const iw_conn_event *cf_log_find(const conn_log *l, enum iw_conn_ev_kind k, size_t nth);

/* Index of the first event of kind k, or l->n. */
size_t cf_log_index(const conn_log *l, enum iw_conn_ev_kind k);

/* Empties l (events and data). */
void cf_log_reset(conn_log *l);

/* ---- a wired pair ---- */

typedef struct conn_pair {
	iw_conn *i, *r;
	conn_log li, lr;            /* events of the initiator, of the responder */
	uint8_t *cap_i2r, *cap_r2i; /* every octet moved, per direction */
	size_t n_i2r, n_r2i;
} conn_pair;

/* The default configuration of profile id in role. */
iw_conn_config cf_cfg_for(enum iw_profile_id id, enum iw_role role);

/* Two started models of these configurations (a failure to make one is recorded). */
conn_pair *cf_pair_new(const iw_conn_config *ci, const iw_conn_config *cr);

/* Two started models of profile id in default configuration. */
conn_pair *cf_pair_default(enum iw_profile_id id);

void cf_pair_free(conn_pair *pp);

/* Moves up to chunk octets (0: all) of src's output into dst, captured in cap and logged in
 * dl; returns how many moved. */
size_t cf_move1(iw_conn *src, iw_conn *dst, conn_log *dl, uint8_t *cap, size_t *ncap, size_t chunk);

/* Moves output both ways until both sides are quiet; chunk 0 moves everything at once. */
void cf_pump(conn_pair *pp, size_t chunk);

/* The two ways of moving octets the tests try: whole (0) and one octet at a time (1). */
extern const size_t cf_chunks[2];

/* ---- FPDU streams seen on the wire ---- */

typedef struct wire_seg {
	iw_ddp_hdr ddp;
	size_t ulpdu_len;
	unsigned opcode;
} wire_seg;

/* Decodes the FPDUs of a captured direction; returns how many, or (size_t)-1 on an MPA error. */
size_t cf_wire_parse(const iw_profile *p, bool markers, bool crc, const uint8_t *s, size_t n, wire_seg *out,
		     size_t max);

/* Octets of the startup frame a side sent (what comes before its FPDUs). */
size_t cf_frame_len(const iw_profile *p, size_t pd_len, bool enhanced_block);

/* ---- a hand-built peer ---- */

typedef struct fake_peer {
	const iw_profile *p;
	iw_mpa_tx tx;
	uint8_t *buf;               /* what it built and has not yet delivered (CAP_BYTES) */
	size_t len;
} fake_peer;

/* A peer of profile p sending with markers and CRC as given; free f->buf when done. */
void cf_fake_init(fake_peer *f, const iw_profile *p, bool markers, bool crc);

/* Appends a startup frame. */
void cf_fake_frame(fake_peer *f, const iw_mpa_frame *fr);

/* Appends one FPDU of header h and payload pl, with the given modifications (NULL: none). */
void cf_fake_fpdu(fake_peer *f, const iw_ddp_hdr *h, const uint8_t *pl, size_t n, const iw_fpdu_mods *mods);

/* A last untagged header of opcode on queue qn with msn, and a last tagged one to stag at to. */
iw_ddp_hdr cf_fake_untagged(const iw_profile *p, unsigned opcode, uint32_t qn, uint32_t msn);
iw_ddp_hdr cf_fake_tagged(const iw_profile *p, unsigned opcode, uint32_t stag, uint64_t to);

/* A responder model that has accepted the fake peer's default Request (M=0, C=1). */
iw_conn *cf_fake_responder(enum iw_profile_id id, fake_peer *f, conn_log *l);

/* An initiator model that has accepted the fake peer's default Reply (M=0, C=1); out_cap 0
 * keeps the default output queue. */
iw_conn *cf_fake_initiator(enum iw_profile_id id, fake_peer *f, conn_log *l, size_t out_cap);

/* Feeds what the fake peer built and drains the events; returns the octets c used. */
size_t cf_fake_deliver(fake_peer *f, iw_conn *c, conn_log *l);

/* Fills b with a pattern that differs with seed. */
void cf_pattern(uint8_t *b, size_t n, unsigned seed);

#endif
