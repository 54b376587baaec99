/*
 * ref_server.h - the built-in DUT: the engine's connection model (iw_conn.h) served over TCP.
 *
 * One thread, one poll() loop, any number of connections, each with its own iw_conn. For
 * every connection the server feeds the peer's octets to the model, writes the model's
 * output, runs the reflector on delivered Sends (design.md "The DUT contract"), honours
 * iw_conn_wants_close (flush, then FIN) and closes when the peer closes. Nothing blocks:
 * sockets are non-blocking, the transmit buffer is bounded, and the server stops reading a
 * connection whose peer does not read what it is sent.
 *
 * Timeouts keep it from holding a connection forever: the startup timeout (MPA-6.1-R10a,
 * a SHOULD: the whole startup frame must arrive within it, default 5 s) and the idle timeout
 * (no octet in either direction, default 30 s).
 *
 * The reflector (design.md "The DUT contract", requirements.md REFLECTOR) echoes every
 * delivered Send as a Send with the same payload, serves RDMA Read Requests and accepts RDMA
 * Writes on its tagged buffer (TO 0, 64 KiB; STag 0x1000 + 0x100 per connection), refuses a
 * Request whose private data is "REJECTME", and, when asked, greets: its first Send advertises
 * the buffer as STag (4) | TO (8) | length (4), big-endian.
 *
 * Roles: a responder listens (host:port, port 0 = ephemeral) and accepts; an initiator
 * connects out, to host:port given in the options (reconnecting 100 ms after each
 * connection ends, unless once) or on request through iw_ref_server_dial().
 *
 * It runs in the foreground (iwspec serve: iw_ref_server_run until a signal sets *stop or
 * `once` is done) or in a background thread (the ref driver: iw_ref_server_start, then
 * iw_ref_server_free stops and joins it).
 */
#ifndef IW_REF_SERVER_H
#define IW_REF_SERVER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "iw_conn.h"
#include "iw_err.h"
#include "net.h"
#include "profile.h"
#include "ref_faults.h"

#define IW_REF_PD_MAX       1024
#define IW_REF_STAG         0x1000u     /* the reflector's tagged buffer */
#define IW_REF_STAG_LEN     65536u
#define IW_REF_REJECT_PD    "REJECTME"

/* perftest's tests the built-in DUT serves (ref_perftest.c): the bw tests, and ib_send_lat's
 * server, which answers each Send of its test connection with one of its own. */
enum iw_ref_perftest { IW_REF_PERFTEST_OFF, IW_REF_PERFTEST_SEND, IW_REF_PERFTEST_WRITE, IW_REF_PERFTEST_READ,
		       IW_REF_PERFTEST_SEND_LAT };

typedef struct iw_ref_options {
	const iw_profile *profile;
	enum iw_role role;
	/* How each new connection behaves (iw_ref_server_configure changes them between cases). */
	bool markers;               /* M=1: wants markers on what it receives */
	bool crc_off;               /* administrator no-CRC mode: sends C=0, CRC off if the peer agrees */
	bool reject;                /* answers every Request with R=1 */
	bool reflector;             /* echoes Sends; 64 KiB at TO 0 open to remote read and write (one STag a connection) */
	bool greeting;              /* reflector: a greeting Send as soon as full operation is reached
				     * (a responder's waits for the peer's first FPDU, rule 4) */
	bool rping;                 /* the application is rdma-core's rping instead of the reflector
				     * (docs/rping.md): server as responder, client (-C 2) as initiator */
	uint32_t rping_size;        /* rping's -S, its buffers' length; 0: its default, 64 */
	int perftest;               /* enum iw_ref_perftest: the application is perftest's server
				     * (ib_*_bw -R, ib_send_lat -R -s 65536, suite/engine/perftest_msg.h)
				     * instead of the reflector */
	bool reject_pd;             /* reflector: a Request carrying the private data "REJECTME" gets
				     * R=1 (MPA-6.1-R2c: the application finds the PD unacceptable) */
	uint8_t pd[IW_REF_PD_MAX];  /* private data of our Request or Reply */
	size_t pd_len;
	enum iw_hostile hostile;
	enum iw_mutant mutant;
	/* Server. */
	uint64_t base_to;           /* reflector: the buffer's base TO (0; a device registers at a
				     * virtual address, which `serve --base-to` imitates) */
	int64_t startup_timeout_ms; /* MPA-6.1-R10a: a startup frame that makes no progress for this
				     * long is given up, and so is one not whole after
				     * IW_REF_STARTUP_CAP times as long; default 5000 */
	int64_t idle_timeout_ms;    /* default 30000 */
	char host[IW_NET_HOST_MAX]; /* responder: address to listen on; initiator: to connect to */
	uint16_t port;              /* responder: 0 = ephemeral; initiator: 0 = only on iw_ref_server_dial */
	bool once;                  /* serve one connection, then return */
	int max_conns;              /* connections served at once; default 64 */
	FILE *log;                  /* one line per connection event, or NULL */
	bool batch;                 /* the server thread runs as SCHED_BATCH (Linux): octets a peer
				     * in the same process sends do not make it preempt that peer, so
				     * the peer (the network fuzzer) goes on sending while the server
				     * takes what came in batches. Timing only: what it answers is
				     * the same */
} iw_ref_options;

/* How many startup timeouts a startup frame that keeps making progress may take in all. */
#define IW_REF_STARTUP_CAP 10

/* MPA-6.1-R10a as the built-in DUT applies it to a connection still in startup, opened at
 * opened_ms, whose peer last sent an octet at last_in_ms (opened_ms when it has sent none): true
 * when the frame has stalled for timeout_ms, or is not whole after IW_REF_STARTUP_CAP of them. */
bool iw_ref_startup_expired(int64_t now_ms, int64_t opened_ms, int64_t last_in_ms, int64_t timeout_ms);

/* Responder on 127.0.0.1, ephemeral port, rfc5044, reflector on (rejecting "REJECTME",
 * no greeting), everything else off. */
void iw_ref_options_default(iw_ref_options *o);

typedef struct iw_ref_stats {
	uint64_t connections;       /* accepted or connected */
	uint64_t closed_fin, closed_rst;
	uint64_t startup_timeouts, idle_timeouts;
	uint64_t dial_failures;
	int open;                   /* connections open now */
} iw_ref_stats;

typedef struct iw_ref_server iw_ref_server;

/* Creates the server; a responder is listening when this returns (so its port is known). */
int iw_ref_server_new(iw_ref_server **out, const iw_ref_options *o, iw_err *e);

/* The listening port (responder), 0 otherwise. */
uint16_t iw_ref_server_port(const iw_ref_server *s);

/* Serves in the calling thread until *stop is non-zero (may be NULL), iw_ref_server_stop(), or
 * the `once` connection has ended. Returns IW_OK, or an error (a failed `once` connection
 * attempt, a poll failure). */
int iw_ref_server_run(iw_ref_server *s, volatile sig_atomic_t *stop, iw_err *e);

/* Serves in a background thread. */
int iw_ref_server_start(iw_ref_server *s, iw_err *e);

/* Asks the loop to end (thread-safe), and joins the thread when there is one. */
void iw_ref_server_stop(iw_ref_server *s);

/* Stops, closes every connection, frees. */
void iw_ref_server_free(iw_ref_server *s);

/* Initiator: one more outgoing connection to host:port (thread-safe). */
int iw_ref_server_dial(iw_ref_server *s, const char *host, uint16_t port, iw_err *e);

/* Takes the per-connection fields of o (markers .. mutant, greeting, reject_pd, perftest) for connections opened from now on
 * (thread-safe). */
void iw_ref_server_configure(iw_ref_server *s, const iw_ref_options *o);

void iw_ref_server_stats(iw_ref_server *s, iw_ref_stats *st);

#endif
