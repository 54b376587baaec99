/*
 * reflector.h - iwspec-reflector: docs/reflector.md's DUT-side application on the verbs API.
 *
 * It runs on the DUT host, on whatever RDMA device carries the address it uses (cxgb4, irdma,
 * siw), through librdmacm and libibverbs only. Everything on the wire (MPA negotiation, CRC,
 * markers, Terminate, Read Responses) is the device's: the program posts receives, echoes
 * Sends and advertises its buffer, nothing more, so it cannot hide what the device does.
 *
 * The pipeline, file by file:
 *   main.c         options, signals, which mode runs
 *   rfl_conn.c     one connection's verbs resources: PD, the tagged buffer's MR, CQ, QP,
 *                  receive buffers; the greeting and the echo (contract items 1-3)
 *   rfl_listen.c   --listen: the DUT as MPA responder, any number of connections at once
 *   rfl_connect.c  --connect: the DUT as MPA initiator, one connection, then exit
 *   rfl_agent.c    --agent: a TCP control port that starts `--connect` and `--listen` runs
 *                  on request (for a harness on another host that starts a DUT per case)
 *   rfl_via.c      --via: the harness-side client of --agent, for exec: DUT commands
 *
 * Functions return 0 or -1 and fill an iw_err; only main() decides the exit status.
 */
#ifndef IWSPEC_REFLECTOR_H
#define IWSPEC_REFLECTOR_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "iw_err.h"

struct rdma_cm_id;
struct rdma_conn_param;
struct ibv_context;

#define RFL_BUF_LEN (64u * 1024u)    /* the tagged buffer (contract item 1: at least 64 KiB) */
#define RFL_RECV_BUFS 8              /* receive buffers kept posted on QN 0 (item 3) */
#define RFL_RECV_LEN (64u * 1024u)   /* each as large as the largest message a case sends */
#define RFL_GREETING_LEN 16          /* STag, base TO, length: big-endian */
#define RFL_REJECT_PD "REJECTME"     /* a Request with exactly this private data is refused (item 6) */
#define RFL_REJECT_PD_LEN 8
#define RFL_MAX_CONNS 64             /* --listen: connections at once (a harness runs 8 cases at once) */
#define RFL_MAX_RD_ATOMIC 16         /* IRD/ORD offered, capped by the device's own limits */

/* Set by SIGINT/SIGTERM; every loop polls with a timeout and checks it. */
extern volatile sig_atomic_t rfl_stop;

/* Messages go to stderr, prefixed with the mode; --quiet keeps only errors. */
extern bool rfl_quiet;
void rfl_log(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

/* The one memory region all connections of this process share (contract item 2). */
typedef struct rfl_buffer {
	uint8_t *base;
	size_t len;
} rfl_buffer;

/* Maps the buffer: anonymous memory, or the memory file fd (-1: none) an --agent shares with
 * the --connect runs it starts, so that a case's second connection reads what its first placed. */
int rfl_buffer_map(rfl_buffer *b, int fd, iw_err *e);

/* One connection: its own PD, so its STag is refused on every other connection (DDP-10.3-02). */
typedef struct rfl_conn {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_mr *tagged_mr;           /* the shared buffer, remote read and write */
	struct ibv_mr *local_mr;            /* recv buffers and the greeting */
	uint8_t *local;                     /* RFL_RECV_BUFS * RFL_RECV_LEN, then the greeting */
	struct ibv_comp_channel *channel;
	struct ibv_cq *cq;
	bool has_qp;
	bool greeted;                       /* the first Send (the greeting) has been posted */
	bool broken;                        /* a completion failed: the device ended the stream */
	unsigned long echoed;
	char peer[64];
} rfl_conn;

/* Creates PD, MRs, CQ and QP on id and posts the receives; on failure nothing is left. */
int rfl_conn_create(rfl_conn *c, struct rdma_cm_id *id, const rfl_buffer *buf, iw_err *e);

/* The IRD/ORD to offer: as many as the device allows, up to RFL_MAX_RD_ATOMIC; the responder
 * never grants more Reads in flight than the initiator asked to issue. */
void rfl_conn_params(struct rdma_conn_param *p, struct ibv_context *verbs, const struct rdma_conn_param *req);

/* Posts the greeting (item 1): by the initiator on ESTABLISHED, by the responder before the echo
 * of the first Send it receives. */
int rfl_conn_greet(rfl_conn *c, iw_err *e);

/* The completion channel's fd (non-blocking), for poll(). */
int rfl_conn_fd(const rfl_conn *c);

/* Serves what completed: echoes each received Send, reposts each buffer once its echo is sent.
 * Returns -1 only for a verbs failure; a failed completion sets c->broken and is logged. */
int rfl_conn_service(rfl_conn *c, iw_err *e);

/* Destroys what rfl_conn_create made, and the cm id. */
void rfl_conn_destroy(rfl_conn *c);

/* "HOST:PORT" or "[V6]:PORT", numeric or a name, into a socket address. */
int rfl_parse_hostport(const char *s, struct sockaddr_storage *ss, char *host, size_t hcap, unsigned *port,
		       iw_err *e);

/* A plain error message from an rdma_cm or verbs call (errno), with the usual cause named. */
int rfl_sys_err(iw_err *e, const char *what);

/* Makes fd non-blocking. */
int rfl_nonblock(int fd, iw_err *e);

int rfl_listen_run(const char *bind_addr, unsigned port, int buffer_fd, iw_err *e);
int rfl_connect_run(const char *target, int buffer_fd, iw_err *e);
int rfl_agent_run(const char *self, const char *bind_addr, unsigned port, iw_err *e);
/* Asks the agent for `--connect target` or, with target NULL, `--listen listen_port`; returns
 * that run's exit status (128+N when it was killed by signal N), or -1. */
int rfl_via_run(const char *agent, const char *target, unsigned listen_port, const char *app, iw_err *e);

#endif
