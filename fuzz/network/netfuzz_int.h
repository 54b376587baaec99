/*
 * netfuzz_int.h - the network fuzzer's session and run state, shared by the files that make
 * up a session (internal to fuzz/network/; the API is netfuzz.h):
 *
 *   netfuzz_session.c  opening, closing and replaying against the session's DUT
 *   netfuzz_startup.c  calibration, the liveness probe, and what became of a DUT that failed it
 *   netfuzz_io.c       connections to the DUT and the run's socket I/O (logged, fed to the model)
 *   netfuzz_model.c    the model of a conforming DUT next to each run, and coverage
 *   netfuzz_render.c   an action's octets (startup frame, FPDUs) and the greeting's STag
 *   netfuzz_run.c      one run: start (connect, send, FIN) and finish (await the close, judge)
 *   netfuzz_case.c     the recorded run as a case (netfuzz_out.c writes it with the seed and pcap)
 *
 * Speed: the first connection goes through the driver; its peer address is kept and later
 * runs connect to it directly (no name resolution). Sockets are non-blocking and every wait is
 * a poll() bounded by the reaction timeout, counted as silence (each octet from the DUT restarts
 * it), and by the session's deadline; nothing sleeps but generated delays. The model of
 * the next run is built while the harness waits for the DUT's answer, so its cost hides in the
 * round trip. Each run ends with the harness's FIN and the DUT's close: everything the DUT
 * sent before it is its whole reaction, judged at once (netfuzz_judge.c).
 */
#ifndef IW_NETFUZZ_INT_H
#define IW_NETFUZZ_INT_H

#include <sys/socket.h>

#include "netfuzz_judge.h"

#define NF_RX_CAP      (1u << 20)
#define NF_MODEL_OUT   (256u * 1024u)  /* the built-in DUT's model queue (ref_server.c) */
#define NF_ADV_LEN     65536u
#define NF_CALIB_TEXT  "iwspec-netfuzz-calibration"
#define NF_NO_STAG     0xFFFFFF17u     /* stands for the advertised STag when none is known */

/* One run's state: several can be in flight (the next run is sent while the DUT answers this
 * one); the one being worked on is the session's `c`, the others are parked in `slots`. */
typedef struct nf_slot {
	const nf_prog *p;
	int fd;
	iw_conn *model;
	iw_mpa_tx tx;
	uint32_t split_every;
	uint32_t adv_stag;
	bool have_adv;
	uint8_t *exp;               /* everything the model sent */
	size_t exp_len, exp_cap;
	size_t sent;                /* octets of tr.to_dut written so far */
	bool reset;                 /* the run ended with our RST */
	bool gone;                  /* the DUT could not be reached: f holds what became of it */
	bool abandoned;             /* the deadline or an interrupt cut the run: it is not judged */
	nf_finding f;
	nf_obs obs;
	nf_trace tr;
} nf_slot;

struct nf_session {
	nf_opts o;
	iw_driver *drv;
	bool is_exec;
	bool case_open;
	nf_dutinfo d;
	int64_t timeout_ms;         /* the reaction timeout: silence allowed while an answer is due
				     * (--timeout, or longer for a DUT calibration found slow) */
	int64_t live_ms;            /* the liveness timeout: silence allowed on a fresh connection */
	int64_t deadline_ms;        /* nf_opts.deadline_ms */
	struct sockaddr_storage addr;
	socklen_t alen;
	bool have_addr;
	iw_conn_config mcfg;
	iw_conn *spare;
	iw_conn *used;              /* a finished run's model, to be renewed as the next spare */
	uint8_t *adv_mem;
	nf_dec dec;
	nf_expect ex;
	nf_stats st;
	nf_slot c;                  /* the run being worked on */
	nf_slot slots[NF_SLOTS];    /* parked runs */
	bool record;
	uint8_t *rbuf;
	size_t rcap;
	bool probe_after;           /* confirmation: probe liveness after every run */
	bool debug;                 /* IWSPEC_NETFUZZ_DEBUG: dump runs with findings */
	int64_t run_timeout_ms;     /* timeout_ms, 4 times that while confirming */
};

/* A run's reaction may go on while the DUT keeps sending, but not past this many times the
 * reaction timeout after the harness's FIN: a DUT that trickles octets for ever is a hang too. */
#define NF_RUN_CAP 64

/* ---- netfuzz_startup.c ---- */

/* Learns markers, CRC, reflector and greeting from a conforming startup and a Send (and, for a
 * DUT declared `crc = optional-off`, its no-CRC mode from a Request with C=0); a reflector and
 * greeting the DUT configuration declares (`ulp`, `reflector`) win over what it saw, and a
 * disagreement is noted in nf_dutinfo.ulp_note. */
int nf_calibrate(nf_session *s, iw_err *e);
enum nf_live {
	NF_ALIVE,                   /* its startup frame's header came */
	NF_DEAD,                    /* refused, or no octet for the liveness timeout, or closed */
	NF_LIVE_CUT,                /* the deadline or an interrupt came first: not judged */
};
/* Liveness: a fresh connection and a conforming startup frame; the DUT is alive once its frame
 * header is in. Progress decides, not a total time: each octet restarts the liveness timeout,
 * so a DUT that keeps delivering octets, however slowly, is alive. why (NF_DEAD) says what
 * happened. */
enum nf_live nf_probe(nf_session *s, char *why, size_t cap);
/* The DUT did not survive (why: the probe's words): asks the driver what became of its process
 * (a crash) or says it is dead, into f, and restarts it. */
void nf_crash_check(nf_session *s, nf_finding *f, const char *req, const char *why);

/* ---- netfuzz_io.c ---- */

/* Grows *b to hold need octets (doubling); false when out of memory. */
bool nf_grow(uint8_t **b, size_t *cap, size_t need);
/* Records octets [off, off+len) of direction dir (0: to the DUT) in the run's chunk order. */
void nf_chunk_log(nf_session *s, int dir, size_t off, size_t len);
/* A connection to the DUT (through the driver the first time, then to the kept address). */
int nf_drv_connect(nf_session *s, int *fd, iw_err *e);
/* Closes fd, with an RST when rst. */
void nf_sock_close(int fd, bool rst);
/* Reads what is there (waiting up to wait_ms for the first octet). False at EOF/RST. */
bool nf_pull(nf_session *s, int wait_ms);
/* Notes a close of the DUT before the harness's FIN (early unless the model has closed too). */
void nf_note_dut_close(nf_session *s);
/* Sends all of b, reading meanwhile; false when the DUT is gone or stopped reading. */
bool nf_push_all(nf_session *s, const uint8_t *b, size_t n);
/* TCP_NODELAY on the run's socket. */
void nf_nodelay(nf_session *s);
/* Sends what is pending in one write. */
bool nf_flush(nf_session *s);
/* Logs octets, feeds them to the model and sends them (cut as the last split said). */
bool nf_emit(nf_session *s, const uint8_t *b, size_t n);
/* Reads the DUT's reaction until it closes, stops reading, overflows, falls silent for the
 * reaction timeout or keeps sending past NF_RUN_CAP times it (obs.timed_out), or the deadline
 * comes (the run is abandoned). */
void nf_await_close(nf_session *s);

/* How a progress-bounded read ended. */
enum nf_rd {
	NF_RD_DONE,                 /* the octets asked for are in */
	NF_RD_EOF,                  /* the peer closed (FIN) first */
	NF_RD_RST,                  /* the peer reset the connection (or another socket error) */
	NF_RD_IDLE,                 /* no octet for idle_ms */
	NF_RD_CUT,                  /* until_ms passed, or a signal asked to stop */
};
/* Reads from fd into b until *have reaches need. Progress-based: the wait ends after idle_ms
 * without an octet, counted from *last_ms (in: the start, e.g. when the request went out; out:
 * when the last octet came); *gap_ms (in/out) keeps the longest silence seen. until_ms (0:
 * none) and a signal (suite/run/interrupt.h) end it too. fd may be blocking: recv is non-blocking. */
enum nf_rd nf_read_progress(int fd, uint8_t *b, size_t *have, size_t need, int64_t idle_ms, int64_t until_ms,
			    int64_t *last_ms, int64_t *gap_ms);

/* Waits up to until_ms (absolute) for events on fd, in slices of at most 100 ms so that the
 * session's deadline and signals are seen. Returns the revents, 0 when the time ran out. */
short nf_wait(nf_session *s, int fd, short events, int64_t until_ms);

/* ---- netfuzz_model.c ---- */

void nf_cov_code(nf_session *s, int l, int t, int c);
/* A fresh model, started (an initiator model has its Request queued). */
iw_conn *nf_model_make(nf_session *s);
/* The model made while the DUT answered the previous run, or a new one. */
iw_conn *nf_model_take(nf_session *s);
/* A run is done with its model m: kept to be renewed (nf_model_make), or freed. */
void nf_model_done(nf_session *s, iw_conn *m);
/* Takes the model's events (the reflector answers delivered Sends) and its output. */
void nf_model_drain(nf_session *s);
void nf_model_feed(nf_session *s, const uint8_t *b, size_t n);

/* ---- netfuzz_case.c ---- */

/* A growing text (case.iwt, seed.txt); oom once memory ran out. */
typedef struct nf_sb {
	char *b;
	size_t len, cap;
	bool oom;
} nf_sb;
void nf_sb_printf(nf_sb *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The requirement a finding's case cites: the finding's, or DDP-8.2.2-01 when it names no row
 * of the catalog (a crash the model saw no error for). */
const char *nf_case_req(const char *req);

/* ---- netfuzz_render.c ---- */

bool nf_rreserve(nf_session *s, size_t n);
/* An action's octets into s->rbuf; returns their length (0 when nothing renders). */
size_t nf_render_frame(nf_session *s, const nf_prog *p, const nf_action *a);
size_t nf_render_fpdu(nf_session *s, const nf_prog *p, const nf_action *a);
/* Once the model is in full operation: our direction framed as it says. */
void nf_tx_sync(nf_session *s, bool *tx_ready);
/* Reads until the DUT's greeting is in when the program needs its STag (or gives up). Returns
 * whether it stopped to read (what was sent went out first): the case of a finding waits there
 * too. */
bool nf_want_greeting(nf_session *s);

#endif
