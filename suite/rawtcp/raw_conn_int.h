/*
 * raw_conn_int.h - the connection's state, shared by raw_conn.c (handshake, receiving, ACKs,
 * close) and raw_send.c (the stream, plans, retransmission). Not for callers.
 */
#ifndef IW_RAW_CONN_INT_H
#define IW_RAW_CONN_INT_H

#include "raw_hdr.h"
#include "rawtcp.h"

enum raw_state { RAW_SYN_SENT, RAW_ESTABLISHED, RAW_RESET };

typedef struct raw_range {
	uint32_t seq;
	uint32_t len;
	unsigned dupacks;           /* drops: how many duplicate ACKs release it */
} raw_range;

struct iw_raw_conn {
	iw_raw_link link;
	iw_raw_opts o;
	uint8_t dut_mac[6];
	bool have_dut_mac;
	enum raw_state state;

	/* Sending. The stream's octets from snd_una to stream_end are kept (tx), with a flag per
	 * octet saying whether it left at least once (the timer resends only what did). */
	uint32_t iss;
	uint32_t snd_una;           /* oldest unacknowledged */
	uint32_t snd_max;           /* one past the highest octet sent */
	uint32_t stream_end;        /* one past the last octet the caller gave */
	uint32_t snd_wnd;           /* the DUT's window, from snd_una */
	uint16_t dut_mss;
	uint8_t *tx, *tx_sent;
	size_t tx_len, tx_cap;
	uint32_t tx_seq;            /* the octet tx[0] holds: kept back from snd_una while a plan
	                             * runs or a segment is held, so a duplicate of octets the DUT
	                             * has acknowledged can still be sent */
	bool plan_active;
	uint32_t plan_base;
	bool recovery;              /* a DROP went out: later ones go on the partial ACK */
	unsigned dupacks;           /* consecutive duplicate ACKs at snd_una */
	raw_range *held;            /* HOLD steps, oldest first */
	size_t nheld, held_cap;
	raw_range *drops;           /* DROP steps waiting for their duplicate ACKs */
	size_t ndrops, drops_cap;
	bool fin_sent, fin_acked;
	uint32_t fin_seq;
	uint64_t rto_at_ms;         /* 0: timer off */
	uint32_t rto_ms;
	uint16_t ip_id;

	/* Receiving: the DUT's stream in order, not yet read. */
	uint32_t rcv_nxt;
	uint8_t *rx;
	size_t rx_len, rx_cap;
	bool dut_fin;

	iw_raw_stats st;
	uint8_t frame[IW_RAW_RX_FRAME_MAX];
};

uint64_t raw_now_ms(void);

/* Sends a TCP segment of the connection: data (may be empty) at seq with flags; ACK and the
 * window are added from the receive state. */
int raw_xmit(iw_raw_conn *c, uint32_t seq, const uint8_t *data, size_t len, uint8_t flags, iw_err *e);

/* Sends a segment of the stream's kept octets [seq, seq+len). */
int raw_xmit_stream(iw_raw_conn *c, uint32_t seq, uint32_t len, iw_err *e);

/* Waits at most until deadline_ms for one frame and processes it; fires the retransmission
 * timer when it is due and still due once the frames already waiting are taken (an ACK among
 * them restarts the timer, and the call returns at once for the caller to look again). IW_OK
 * whether or not anything came; IW_RAW_ETIMEDOUT once the deadline has passed (what waits on
 * what fills in the message); link errors as they are. */
int raw_pump(iw_raw_conn *c, uint64_t deadline_ms, iw_err *e);

/* An ACK from the DUT advanced snd_una to ack: drop what it covers from tx. */
void raw_acked(iw_raw_conn *c, uint32_t ack);

/* The timer fired: resend what was sent and is not acknowledged, from snd_una, one segment. */
int raw_retransmit(iw_raw_conn *c, iw_err *e);

/* Drops whose duplicate ACKs have come go out now. */
int raw_fire_drops(iw_raw_conn *c, iw_err *e);

/* Processes every frame already waiting, without waiting. */
int raw_drain(iw_raw_conn *c, iw_err *e);

/* A TCP segment from the link, for this connection or not (raw_conn.c). */
int raw_on_tcp(iw_raw_conn *c, const iw_raw_seg *s, iw_err *e);

#endif
