/*
 * ref_server_int.h - the built-in DUT's internals, shared by its files (not a public header: the
 * server's API is ref_server.h). A server holds its connections (rconn), each with its own
 * connection model, fault stage and transmit buffer. The files:
 *
 *   ref_server.c   the server made, started, stopped; dialling, accepting, the poll() loop
 *   ref_conn.c     a connection made and freed, its model, and the reflector around the model
 *   ref_conn_io.c  a connection's octets moved through the fault stage both ways; timeouts, FIN
 *   ref_rping.c    rping (docs/rping.md) as the application instead of the reflector
 *   ref_perftest.c perftest's server (ib_*_bw -R) as the application: its comm connection
 *   ref_perftest_client.c  perftest's client (ib_*_bw -R HOST) as the initiator's application
 *
 * Everything here runs on the loop's thread, but for what ref_server.h says is thread-safe
 * (the fields under mu).
 */
#ifndef IW_REF_SERVER_INT_H
#define IW_REF_SERVER_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ref_server.h"

#define TX_CAP          (64u * 1024u)   /* transmit buffer per connection */
#define MODEL_OUT_CAP   (256u * 1024u)  /* the model's output queue */
#define READ_CHUNK      16384u
#define DRAIN_MS        1000            /* after our FIN, how long unread input is discarded */
#define REDIAL_MS       100
#define MAX_DIALS       16
#define POLL_CAP_MS     100             /* so a signal's stop flag is seen promptly */
#define RS_POOL         8               /* closed connections' models kept for reuse */

enum rc_state { RC_CONNECTING, RC_OPEN, RC_DRAINING };

/* rping's side of one connection (ref_rping.c): where its flow stands and its two buffers, of
 * rping's -S each (64 unless the options say otherwise), allocated with the connection's rping
 * so that only a connection of `rping_size = 65535` carries 128 KiB. */
#define RS_RPING_SIZE 64            /* rping's default -S */
#define RS_RPING_COUNT 2            /* the client's iterations, as `rping -c -C 2` */
typedef struct rs_rping {
	int state;
	unsigned ping;
	uint32_t start_stag, rdma_stag;
	uint64_t start_to, rdma_to;
	uint32_t size;              /* -S: the length of each buffer */
	uint8_t *mem;               /* both buffers, owned (rs_rping_free) */
	uint8_t *start_buf, *rdma_buf;
} rs_rping;

/* perftest's side of one connection (ref_perftest.c): a connection whose first Send is a
 * perftest version is its comm connection, answered message by message. */
typedef struct rs_perftest {
	bool comm;                  /* a comm connection (its first Send was a version) */
	bool test;                  /* a test connection (its first Send was not) */
	unsigned step;              /* messages answered */
	int rem_version;            /* the peer's, in hundredths (perftest_msg.h) */
	/* perftest's client (initiator role, ref_perftest_client.c) */
	unsigned pair;              /* id of the run's other connection (comm <-> test); 0: none yet */
	bool full;                  /* test connection: in full operation */
	bool before_done;           /* comm: the keys before the test connection were answered */
	unsigned keys_sent, keys_got;   /* comm: keys after the test connection, sent and answered */
	unsigned iters_left;        /* test: messages of the test still to post */
	bool test_over;             /* comm: the test ended, the close of the run began */
	unsigned reports_sent;      /* comm: values of the bandwidth report sent in that close */
	uint32_t rem_rkey;          /* the server's keys: its buffer */
	uint64_t rem_vaddr;
} rs_perftest;

typedef struct rconn {
	struct rconn *next;
	unsigned id;
	int fd;
	enum rc_state st;
	bool auto_dial;             /* opened by the options' host:port (reconnects) */
	iw_conn *model;
	iw_fault_conn fault;
	struct iw_ref_server *srv;  /* for the fault stage's after-feed callback */
	iw_txbuf tx;
	uint32_t stag;              /* this connection's STag for the shared reflector buffer */
	iw_ref_options o;           /* the per-connection options it was opened with */
	bool watch_reject;          /* still looking for a REJECTME Request */
	bool app_close;             /* the application ends the connection (rping done or failed) */
	rs_rping rping;
	rs_perftest pt;
	uint8_t sbuf[IW_MPA_FRAME_HDR_LEN + IW_MPA_IRDORD_LEN + 8];
	size_t sbuf_len;
	uint64_t in_total;
	bool peer_eof;
	int64_t opened_ms, last_in_ms, last_out_ms, drain_deadline_ms, wake_ms;
	char peer[64];
} rconn;

struct iw_ref_server {
	iw_ref_options o;           /* per-connection fields guarded by mu */
	pthread_mutex_t mu;
	int lfd;
	uint16_t port;
	int ctl[2];                 /* wakes the loop: stop and dial requests */
	bool stop_req;
	struct { char host[IW_NET_HOST_MAX]; uint16_t port; } dials[MAX_DIALS];
	int ndials;
	iw_ref_stats stats;
	pthread_t thr;
	bool thr_started;
	int thr_rc;
	iw_err thr_err;

	/* Loop state (the loop's thread only). */
	rconn *conns;
	int nconns;
	uint8_t *shared_mem;        /* the reflector's buffer, one for all connections (docs/reflector.md) */
	uint8_t *pt_mem;            /* perftest's buffer, one for all connections (ref_perftest.c) */
	unsigned pt_waiting;        /* perftest's client: the comm connection whose test connection the
				     * next dial is (ref_perftest_client.c); 0: none */
	/* Closed connections' models, renewed for the next ones, and their transmit buffers
	 * (TX_CAP octets): the network fuzzer's runs come and go a few at a time. */
	iw_conn *used_model[RS_POOL];
	uint8_t *used_tx[RS_POOL];
	int nused_model, nused_tx;
	unsigned next_id;
	int64_t redial_ms;
	bool once_begun;
	bool accepting;
	unsigned dial_streak;       /* auto-dial failures in a row (logged once) */
	uint8_t rbuf[READ_CHUNK];
};

/* One line on the server's log (s->o.log), about connection c when it is not NULL. */
void rs_log(iw_ref_server *s, const rconn *c, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Adds one to a counter of s->stats (under the lock: iw_ref_server_stats reads them). */
void rs_stat_add(iw_ref_server *s, uint64_t *field);

/* ref_conn.c */

/* A connection on fd, its model made from the server's options of now, put on s->conns; NULL
 * (fd left open, e filled) when it cannot be made. */
rconn *rs_conn_new(iw_ref_server *s, int fd, enum rc_state st, int64_t now, iw_err *e);

/* Closes and frees c (which the caller has taken off s->conns). */
void rs_conn_free(iw_ref_server *s, rconn *c);

/* c is connected: its clocks start, and the log and the counters hear of it. */
void rs_conn_opened(iw_ref_server *s, rconn *c, int64_t now);

/* Makes the connection's model from c->o (again, when the reflector decides to reject). */
int rs_model_new(iw_ref_server *s, rconn *c, iw_err *e);

/* The model's events: logged, and the reflector's answers to them (echo, greeting). */
void rs_drain_events(iw_ref_server *s, rconn *c);

/* The peer's octets (as the fault stage lets the model see them) into the model. */
void rs_feed(iw_ref_server *s, rconn *c, const uint8_t *data, size_t n);

/* The fault stage's after-feed callback (arg: the rconn). */
void rs_after_feed(void *arg);

/* ref_rping.c. The model's settings rping's verbs give (one 16-octet receive, IRD = ORD = 1),
 * its buffers registered, and its flow driven by the model's events. */
void rs_rping_config(const rconn *c, iw_conn_config *cfg);
int rs_rping_register(rconn *c, iw_err *e);
void rs_rping_free(rconn *c);
void rs_rping_event(iw_ref_server *s, rconn *c, const iw_conn_event *ev);

/* ref_perftest.c */
void rs_perftest_config(const rconn *c, iw_conn_config *cfg);
int rs_perftest_register(iw_ref_server *s, rconn *c, iw_err *e);
void rs_perftest_event(iw_ref_server *s, rconn *c, const iw_conn_event *ev);
struct iw_perftest_keys;
void rs_perftest_own_keys(struct iw_perftest_keys *k);    /* the keys naming the buffer */

/* ref_perftest_client.c: perftest's client, for a connection the initiator dialled. _start
 * decides whether c is a run's comm connection or its test connection; _pump posts the test's
 * messages as the model's output drains (called after each connection's events). */
void rs_perftest_client_start(iw_ref_server *s, rconn *c);
void rs_perftest_client_event(iw_ref_server *s, rconn *c, const iw_conn_event *ev);
void rs_perftest_pump(iw_ref_server *s, rconn *c);

/* ref_conn_io.c */

/* Writes what it can of c->tx; false when the connection is gone. */
bool rs_flush(iw_ref_server *s, rconn *c, int64_t now);

/* Runs the model-to-socket path and the timeouts. False when the connection must be freed. */
bool rs_conn_step(iw_ref_server *s, rconn *c, int64_t now);

/* Reads what the peer sent (c is readable). False when the connection must be freed. */
bool rs_conn_readable(iw_ref_server *s, rconn *c, int64_t now);

/* Whether the loop should poll c for input (backpressure, draining). */
bool rs_want_read(rconn *c);

#endif
