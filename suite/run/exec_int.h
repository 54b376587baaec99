/*
 * exec_int.h - the executor's internals, shared by its files (not a public header: the runner
 * calls iw_exec_case in runner.h). A case runs step by step in a ctx; each of its TCP
 * connections is an hconn. The files, in the order a case uses them:
 *
 *   exec_case.c     the context, note/fail/herror (the verdict), the step loop
 *   exec_io.c       connections, receiving, resegmented sending, feeding the model
 *   exec_conn_sock.c  a connection over the kernel's TCP (a socket): the usual backend
 *   exec_conn_raw.c   a connection over the raw segment path (suite/rawtcp/, --raw-link)
 *   exec_segments.c `segments` and `segment`: the next sends cut into crafted segments
 *   exec_startup.c  `startup` and `expect alive`
 *   exec_frames.c   startup frames sent and judged
 *   exec_send.c     the harness's FPDUs
 *   exec_receive.c  the DUT's FPDUs and messages judged; close and silence
 *   exec_arrivals.c the DUT's octets no expectation reads, judged as every frame is
 *   exec_model.c    `expect as-model`, `one-of`, `measure`
 */
#ifndef IW_EXEC_INT_H
#define IW_EXEC_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ddp.h"
#include "iw_conn.h"
#include "mpa_fpdu.h"
#include "mpa_frame.h"
#include "mpa_rx.h"
#include "rdmap.h"
#include "rawtcp.h"
#include "runner.h"
#include "verify.h"

#define RX_LIMIT (4u << 20)         /* octets kept from the DUT in one connection */
#define RX_FIRST (64u << 10)        /* h->in's first size: it doubles as the DUT sends, to RX_LIMIT */
#define DEFAULT_WITHIN_MS 5000
#define PRE_LIMIT (1u << 17)        /* octets sent before full operation kept to rebuild the model */
#define STARTUP_PAYLOAD "iwspec startup"

typedef struct split_cfg {
	size_t nat;
	int64_t at[16];
	size_t every;
	int64_t delay_ms;
} split_cfg;

/* A model event of full operation, with its own copy of the data (the model's pointers last only
 * until its next input, and the harness feeds it FPDU by FPDU). */
typedef struct model_ev {
	enum iw_conn_ev_kind kind;
	iw_violation viol;
	iw_read_req rreq;
	uint8_t *data;
	size_t len;
} model_ev;

typedef struct hconn hconn;
struct ctx;

/* Wire entries of a connection's latest DUT octets that a read again can still point at. */
#define EX_WIRE_RECALL 16

/* How a connection's octets travel: the seam between the executor and the TCP under it. The
 * rest of the executor calls these (through ex_conn_*) and never asks which backend it has.
 * Every call is bounded by its timeout. */
enum ex_io_rc {
	EX_IO_OK,                   /* octets moved (*got or *sent > 0) */
	EX_IO_AGAIN,                /* nothing yet within the timeout: try again (deadline permitting) */
	EX_IO_FIN,                  /* recv: the DUT closed its half and every octet before it was read */
	EX_IO_RST,                  /* the DUT reset the connection */
	EX_IO_ERR,                  /* anything else; e says what */
};

typedef struct ex_conn_ops {
	const char *name;           /* "socket", "raw" */
	/* At most cap octets of the DUT's stream, waiting at most timeout_ms for the first. */
	int (*recv)(hconn *h, uint8_t *buf, size_t cap, size_t *got, int timeout_ms, iw_err *e);
	/* Some of b's n octets (*sent); EX_IO_AGAIN when the DUT's window stayed shut (the socket
	 * waits at most 100 ms of timeout_ms, so the caller sees an interrupt; the raw path all of it). */
	int (*send)(hconn *h, const uint8_t *b, size_t n, size_t *sent, int timeout_ms, iw_err *e);
	void (*shutdown)(hconn *h); /* FIN after the last octet; the DUT's octets stay readable */
	void (*reset)(hconn *h);    /* RST, then let go */
	void (*close)(hconn *h);    /* let go (a graceful end where the backend can) */
} ex_conn_ops;

extern const ex_conn_ops ex_conn_socket;
extern const ex_conn_ops ex_conn_raw;
extern const ex_conn_ops ex_conn_reset_at_once; /* the DUT reset it before the harness had the socket */

/* One TCP connection of the case, with its own startup state and framing both ways. */
struct hconn {
	const ex_conn_ops *io;      /* NULL: not open (never opened, closed, or reset by the harness) */
	int fd, no;                 /* fd: the socket backend's */
	iw_raw_conn *raw;           /* the raw backend's */
	struct ctx *x;              /* the case, for the raw backend's frames (the case's pcap) */
	/* Octets from the DUT: in_cap grows to RX_LIMIT, and a read may move the buffer (realloc),
	 * so nothing keeps a pointer into it across ex_pump (FPDU views point into h->rx, frames
	 * drop their PD pointer: exec_frames.c). */
	uint8_t *in;
	size_t in_len, in_cur, in_cap;
	/* The wire log shows each octet of the DUT once, where it first came: a step that reads
	 * octets again (each alternative of `expect one-of`, as-model's second look at a Terminate)
	 * rewinds in_cur, and what it takes again is not logged again (exec_wire.c). Octets of `in`
	 * below in_logged are in the log; logged[] recalls the entries of the latest of them. */
	size_t in_logged;
	struct { size_t end, wire; } logged[EX_WIRE_RECALL];
	size_t nlogged;
	bool fin, rst;
	/* startup and negotiation */
	bool sent_frame_valid, got_frame_valid;
	iw_mpa_frame sent_frame, got_frame;
	bool sent_reject_pd;        /* sent_frame is a Request carrying the private data REJECTME */
	bool full_op;
	iw_mpa_tx tx;
	iw_mpa_rx *rx;
	bool rx_ready;
	uint32_t msn[4];
	/* the harness's next MSN on QN 0 when `startup` ended, from which `msn=recv+1` counts the
	 * receives the ULP profile posts (exec_send.c); 0: no startup on this connection */
	uint32_t startup_msn;
	size_t fullop_in_off;       /* where full operation began in `in` (for diagnosis) */
	bool fullop_in_valid;
	bool sent_fpdu;             /* the harness has sent an FPDU on this connection */
	bool sent_in_full_op;       /* ... or any octet since full operation began (`send raw` too) */
	size_t sent_octets;         /* everything the harness sent on this connection */
	bool sent_early;            /* octets beyond its Request before the DUT's Reply: what a
				     * responder does with them is unspecified (A6) */
	/* the reflector's advertised tagged buffer (its greeting), defaults for write/read */
	bool have_adv;
	uint32_t adv_stag;
	uint64_t adv_to;
	uint32_t adv_len;
	uint8_t *adv_mem;           /* the model's copy of that buffer (of every buffer advertised) */
	size_t adv_mem_cap;
	/* perftest's comm connection (exec_perftest.c), opened before this one; on the comm
	 * connection itself, the message it last took from the DUT and the size it waits for */
	hconn *pt_comm;
	bool pt_is_comm;            /* this is a comm connection: opened without one of its own */
	bool pt_tested;             /* comm: the client DUT's test on its connection was taken */
	bool pt_close_keys;         /* comm: ... and its keys after it, not answered yet */
	int pt_version;             /* the DUT's perftest version, in hundredths */
	uint32_t pt_cycle, pt_cache;    /* cycle buffer and cache line size both sides agreed */
	uint8_t pt_msg[64];
	size_t pt_msg_len, pt_want;
	/* the model of a conforming DUT, fed what the harness sends on this connection */
	iw_conn *model;
	bool model_m, model_c;      /* the M and C bits the model's own frame has */
	bool model_full;            /* the model reached full operation (then as-model judges FPDUs) */
	model_ev *mev;              /* its full-operation events not yet judged */
	size_t nmev, capmev;
	uint8_t *pre;               /* what was sent before full operation, to rebuild the model */
	size_t pre_len;
	bool pre_lost;
	/* coalesce: the harness's octets wait here until the next wait for the DUT */
	uint8_t *pend;
	size_t pend_len, pend_cap;
	/* data source checks of the DUT's messages */
	iw_source src;              /* the DUT as a data source: MSNs, the message being received */
	uint32_t mss;               /* TCP_MAXSEG of the socket: the EMSS for the MULPDU bound */
	bool mss_advertised;        /* the case chose the MSS (mss=): the DUT's ULPDUs are held to it */
	size_t dut_markers;         /* markers seen and checked in the DUT's FPDUs */
	/* the harness's last segment and Read Request, for the Terminate's attached headers */
	uint8_t last_hdr[IW_DDP_UNTAGGED_HDR_LEN];
	size_t last_hdr_len, last_ulpdu_len;
	uint8_t last_rr[IW_RDMAP_READ_REQ_LEN];
	bool have_last_rr;
	/* the DUT's last Read Request (rping's server reads the harness's buffer): `send read_resp`
	 * answers it unless the step names its own STag */
	iw_read_req dut_rr;
	bool have_dut_rr;
};

#define MAX_CONNS 4

/* Who judged a failure. A case fails on what it cites, and on the checks the harness makes in
 * every case: each frame the DUT sends held to the sender's rules (ex_fail_frame), and the
 * liveness probe of `expect alive` (a fresh valid startup frame is still answered). */
enum ex_judge { EX_BY_CASE, EX_EVERY_FRAME, EX_LIVENESS };

/* `segments fpdus=N`: the next N sends are collected here instead of sent, and the `segment`
 * steps after them become one plan for rawtcp's iw_raw_send_plan, run before the next step
 * of another kind (exec_segments.c). */
#define SEG_MAX_FPDUS 16
typedef struct seg_plan {
	int line;                   /* of the `segments` step; 0: no plan open */
	int64_t left;               /* sends still to collect */
	uint8_t *buf;               /* the collected octets: the plan's stream */
	size_t len, cap;
	size_t nfpdu;
	size_t fpdu_off[SEG_MAX_FPDUS], fpdu_len[SEG_MAX_FPDUS];
	size_t nsteps;
	iw_raw_step steps[IW_CASE_MAX_STEPS];
	int step_line[IW_CASE_MAX_STEPS];
} seg_plan;

typedef struct ctx {
	const iw_case *c;
	const iw_profile *p;
	const iw_run_opts *o;
	iw_driver *drv;
	iw_case_result *r;
	int dut_role;
	int64_t t0_us, deadline_us;
	int64_t send_wait_us;       /* time send_all spent waiting for the DUT to read */
	uint64_t rng;
	/* the case's connections; h is the current one */
	hconn conns[MAX_CONNS];
	int nconns;
	hconn *h;
	split_cfg split;
	/* what the DUT was asked for this case (iw_driver_instruct) */
	bool instr_markers, instr_crc_off;
	/* The DUT is in its administrator no-CRC mode for this case (crc = optional-off, and the case
	 * or the run asked for the mode): a C=0 frame is not held against it (ex_c0_held). */
	bool nocrc_mode;
	bool uses_startup;
	bool in_as_model;           /* as-model's own expectations leave the model's events alone */
	/* verdict */
	bool failed;
	bool harness_error;
	const char *contradicted;   /* with harness_error: the configuration key the DUT contradicted */
	enum ex_judge fail_by;      /* who judged the failure: the case's own steps or a check every case makes */
	bool fail_full_op;          /* the failure came in full operation, once the harness had sent in it */
	bool fail_timed_out;        /* the failure: nothing arrived before the step's deadline */
	bool fail_in_message;       /* the failure: the message the step expected came, with a field wrong
				     * (a Terminate's code): that step is the DUT's answer (ex_exp_one_of) */
	bool app_late;              /* the application's part of a `startup` that got through the frames
				     * (greeting and echo, rping's advertisement, perftest's keys), or an
				     * `expect greeting`, timed out: the case is not judged */
	bool app_busy;              /* a connection found the DUT's one-run application still in its
				     * last run (IW_DRV_ELAST_RUN) before anything failed: not judged */
	uint32_t pd_over_limit;     /* a Request's PD_Length above the DUT's declared private_data_limit */
	char fail_req[32];
	const char *step_rule;      /* the `rule=` of the expectation running, or NULL */
	/* The first rule below MUST the DUT missed (ex_short_of): the case goes on, and ends WARN (or
	 * INFO) on it when nothing else fails. */
	/* The latest octets of the DUT read again (exec_wire.c): the wire entry that showed them
	 * (1 + its index; 0 none) and the log's length then, so that a failure on them points at
	 * that entry while nothing newer than notes came since. */
	size_t reread_wire, reread_nwire;
	/* `expect one-of`: the alternatives judge one stream of the DUT's, so the silence one of them
	 * waited out at a point of it (the connection, how many octets had come, for how long) is
	 * not waited out again by the next at the same point: three alternatives wanting a Terminate
	 * that never comes take one bound, not three, and a late frame is late for all of them. */
	bool in_one_of;
	int quiet_conn;
	size_t quiet_at;
	int64_t quiet_us;
	int64_t quiet_credit_us;    /* what that silence took off the last step's bound */
	bool short_of;
	char short_req[32];
	char short_reason[512];
	size_t short_wire;          /* the wire entry and field it points at, as iw_result_blame found */
	char short_field[32];
	/* reaching the DUT */
	bool reached;               /* a connection to (or from) the DUT was opened */
	bool unreachable;           /* the case's first connection could not be opened */
	/* `expect alive`: whether a fresh connection got its startup frame before the case began
	 * (-1 not probed); a DUT that never answers cannot be judged on staying alive */
	int served_before;
	/* the case cannot be judged here (the raw segment path is missing): SKIP with r->reason */
	bool skipped;
	seg_plan seg;
} ctx;

#define MSG_MAX (16u << 20)

/* One DDP message of the DUT, reassembled from its segments, each segment checked against the
 * data source rules: DV and reserved bits (DDP-6.1-08/09), ULPDU size (MPA-3.2-04), MO or TO
 * progression (DDP-7.2-05/07), constant QN/MSN/STag and RsvdULP (DDP-6.3-04/07/11, DDP-6.2-04/08),
 * L only on the last segment (DDP-6.1-03/04). */
typedef struct dut_msg {
	iw_ddp_hdr first;
	unsigned rv, opcode;
	uint8_t *data;
	size_t len;
	size_t nseg;
	bool first_marker;          /* its first FPDU begins with a marker (FPDUPTR 0) */
	uint64_t first_start;       /* stream offset of its first FPDU */
	size_t markers;             /* markers inside its FPDUs, each FPDUPTR checked */
	uint16_t max_ulpdu;
} dut_msg;

/* The message words of `send <msg>` and `expect <msg>`, with the opcode and queue each means. */
typedef struct ex_msg_type {
	const char *word;
	unsigned opcode;
	bool tagged;
	int qn;
} ex_msg_type;
extern const ex_msg_type ex_msg_types[];
extern const size_t ex_nmsg_types;

/* exec_case.c. The time since the case began; a note in the wire log; the verdict: ex_fail
 * records the first broken expectation with the requirement it rests on (NULL: the case's
 * first), which the case must cite; ex_fail_frame one broken by a check the harness makes on
 * every frame the DUT sends, whatever the case (suite/verify/, the startup frame's own rules), which
 * may be one the case does not cite; ex_herror a harness or environment failure (ERROR); all
 * return false so a step can `return ex_fail(...)`. ex_arg_i reads a step's integer argument;
 * ex_within_deadline is the step's `within` bounded by the case's timeout. */
int64_t ex_now_us(void);
uint64_t ex_rng_next(ctx *x);
int64_t ex_tcase(ctx *x);
void ex_note(ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool ex_fail(ctx *x, const char *req, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool ex_fail_frame(ctx *x, const char *req, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool ex_herror(ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An ERROR because the DUT's octets contradict what its configuration declares (key: the
 * configuration key, "markers"): the case is not judged, and the run tells it from a harness
 * error or a DUT it cannot reach (its own exit status, docs/dut-config.md). */
bool ex_config_error(ctx *x, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The case cannot run here (a path it needs is missing): SKIP with the reason, never PASS. */
bool ex_skip(ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A rule the DUT missed whose catalog keyword is below MUST (a SHOULD: which headers a Terminate
 * attaches, say): noted in the wire log, the case goes on, so every MUST it cites is still
 * checked, and it ends WARN (INFO for a MAY) on the first such rule when nothing fails. A row the
 * catalog keys MUST is an ex_fail. Returns true when the case goes on. */
bool ex_short_of(ctx *x, const char *req, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Forgets a failure recorded by a step whose outcome turned out not to count. */
void ex_unfail(ctx *x);
int64_t ex_arg_i(const iw_step *s, const char *name, int64_t def);
int64_t ex_within_deadline(ctx *x, const iw_step *s);
/* How much of a wait of bound_us a later alternative of a one-of has already seen pass in
 * silence at this point of the DUT's stream (ctx's quiet_*): 0 outside a one-of. */
int64_t ex_quiet_credit(ctx *x, int64_t bound_us);
bool ex_run_expect(ctx *x, const iw_step *s);

/* exec_io.c. ex_pump reads from the DUT until `want` octets wait unread past the cursor, the
 * deadline passes, or the DUT closes; ex_send_cut sends as --resegment cuts it (coalesced
 * octets wait in the connection until ex_flush_pending); ex_model_feed gives the model what
 * was sent. Connections open with ex_open_conn (the next one) or ex_open_into (a given slot). */
bool ex_conn_up(const hconn *h);
void ex_hconn_close(hconn *h);
void ex_hconn_free(hconn *h);
void ex_pump(ctx *x, size_t want, int64_t deadline);
size_t ex_avail(const ctx *x);
void ex_sleep_ms(int64_t ms);
bool ex_flush_pending(ctx *x);
bool ex_send_cut(ctx *x, const uint8_t *b, size_t n);
void ex_model_feed(ctx *x, const uint8_t *b, size_t n);
void ex_model_make(ctx *x, hconn *h, bool m, bool c);
void ex_model_discard(ctx *x);
bool ex_open_into(ctx *x, hconn *h, int no, int64_t timeout_ms, int mss);
bool ex_open_conn(ctx *x, int64_t timeout_ms, int mss);

/* exec_conn_raw.c. Opens h over the raw segment path (raw_link): IW_OK; EX_RAW_JUDGED when the
 * case cannot run there and says so (SKIP without the link's permissions, IW_RAW_EPERM, or
 * for an initiator DUT; ERROR for a DUT that is not tcp:IPV4:PORT); or the connection's
 * failure (e says why), which the caller judges as it judges a refused socket. */
#define EX_RAW_JUDGED 1
int ex_raw_open(ctx *x, hconn *h, int64_t timeout_ms, int mss, iw_err *e);

/* exec_segments.c. ex_seg_collect takes a send's octets while a `segments` step collects
 * (true: taken, nothing to send); ex_seg_flush runs a pending plan (before any step that is
 * not a `segment`, and at the case's end). */
bool ex_seg_collect(ctx *x, const uint8_t *b, size_t n, bool *taken);
bool ex_act_segments(ctx *x, const iw_step *s);
bool ex_act_segment(ctx *x, const iw_step *s);
bool ex_seg_flush(ctx *x);
void ex_seg_free(ctx *x);
/* Whether the case has `segments` steps (it needs the raw segment path). */
bool ex_case_needs_raw(const iw_case *c);

/* What a take of the DUT's octets found (ex_frame_take, ex_fpdu_take): they never wait. */
enum ex_take {
	EX_TAKE_FAILED = -1,        /* a failure was recorded */
	EX_TAKE_PARTIAL = 0,        /* not complete yet (a frame: nothing consumed; FPDUs: all consumed) */
	EX_TAKE_OK = 1,             /* taken and judged */
	EX_TAKE_NOT_FRAME = 2,      /* the octets are no startup frame (logged; nothing recorded) */
};

/* exec_frames.c. The harness's Request or Reply (`send request|reply`), the DUT's judged
 * (`expect request|reply`), and the switch to full operation once both frames are valid.
 * ex_frame_take takes the DUT's startup frame from the octets already read: logged, held to
 * the sender's rules (per frame) and to its turn (a Reply before the Request is complete breaks
 * MPA-6.1-R2a), the model and full operation set up from it; *need is the frame's length when
 * known. ex_reply_r_req: the requirement a Reply with R=1 breaks where R=0 is due;
 * ex_c0_held: whether a frame's C=0 where C=1 is due counts against the DUT (MPA-5.2-03). */
const char *ex_kind_name(enum iw_mpa_kind k);
int ex_frame_take(ctx *x, enum iw_mpa_kind kind, iw_mpa_frame *f, size_t *need, iw_err *e);
const char *ex_reply_r_req(const ctx *x);
bool ex_c0_held(ctx *x);
bool ex_act_send_frame(ctx *x, const iw_step *s, enum iw_mpa_kind kind);
void ex_enter_full_operation(ctx *x);
bool ex_pattern_ok(const iw_step *s, const char *name, int64_t seen, char *why, size_t cap);
bool ex_exp_frame(ctx *x, const iw_step *s, enum iw_mpa_kind kind);

/* exec_send.c. `send <msg>` and `send raw`; the payload octet pattern an echo is checked
 * against; a Terminate layer argument as a number (-1 absent, -2 unknown word). */
int ex_layer_value(const iw_arg *a);
uint8_t ex_payload_octet(const iw_step *s, size_t i);
bool ex_act_send_fpdu(ctx *x, const iw_step *s);
bool ex_act_send_raw(ctx *x, const iw_step *s);

/* exec_receive.c. The DUT's next message, reassembled from FPDUs each judged as a data
 * source's; `expect <msg>`, `expect terminate`, `expect close`, `expect silence`. */
bool ex_read_message(ctx *x, int64_t deadline, const char *what, dut_msg *dm, iw_fpdu *fp);
/* The next FPDU of what was read (full operation set up): logged, held to suite/verify/'s
 * per-FPDU rules and to its turn (MPA-6.1-R4, R2e, R3a, R3c); ex_ulpdu_judged holds its ULPDU to
 * the per-segment rules (the message being received is h->src). ex_log_partial_fpdu shows the
 * octets of an FPDU the DUT left incomplete. */
int ex_fpdu_take(ctx *x, iw_fpdu *fp, const char *req_ctx);
bool ex_ulpdu_judged(ctx *x, const iw_fpdu *fp, iw_rdmap_msg *m, const char *what);
void ex_log_partial_fpdu(ctx *x, const char *why);
bool ex_exp_message(ctx *x, const iw_step *s, bool terminate);
bool ex_exp_close(ctx *x, const iw_step *s);
bool ex_exp_silence(ctx *x, const iw_step *s);
/* The buffer a DUT advertised (greeting, rping info) made known to the connection's model. */
void ex_adv_to_model(hconn *h);

/* exec_perftest.c. Against perftest's server (ulp = perftest-*: suite/engine/perftest_msg.h),
 * before h's connection: its comm connection to the same port, through the startup frames, the
 * version, the system data and the MTU (each a Send each way); after h's startup frames: the keys
 * on the comm connection, four times (five for ib_send_lat, then one Send and its answer on h),
 * and the DUT's become h's advertised buffer.
 * ex_perftest_msg is `expect perftest`, a Send of the size the comm connection waits for, kept;
 * ex_perftest_answer is `expect perftest_answer`, ib_send_lat's answer to the startup Send (a
 * Send of at least -s 65536 octets; a shorter one is a harness error naming the -s to use);
 * ex_perftest_close ends h's comm connection; ex_perftest_end, against a client DUT, first takes
 * it through the end of perftest's flow, so that the client exits. */
bool ex_perftest_prelude(ctx *x, hconn *h, int64_t timeout_ms);
bool ex_perftest_keys(ctx *x, int64_t within_ms);
bool ex_perftest_msg(ctx *x, const iw_step *s, const dut_msg *dm);
bool ex_perftest_answer(ctx *x, const iw_step *s, const dut_msg *dm);
void ex_perftest_close(hconn *h);
void ex_perftest_end(ctx *x, hconn *h);

/* exec_arrivals.c. The DUT's octets already read on the current connection that no expectation
 * takes (while `measure close` or `expect close allow_data=1` waits, what breaks a silence or a
 * close, what a step read past what it judged, what is left when the case ends): each startup
 * frame and FPDU judged as an expectation would (ex_frame_take, ex_fpdu_take, ex_ulpdu_judged)
 * and shown in the wire log. `where` names the step for the reason. With final, what cannot be
 * judged (an incomplete frame, the octets after a failure) is shown as it is. False when a
 * failure was recorded. */
bool ex_take_arrivals(ctx *x, const char *where, bool final);

/* exec_wire.c. The DUT's octets in[from, from + n) of the current connection into the wire log,
 * with act, what the DUT did in them in an outcome's words (iw_wire_entry.act; NULL: "octets"),
 * unless every one of them is there already (a step read them again: then x->reread_wire says
 * which entry showed them, for the blame); ex_wire_shed keeps the record right when the
 * receive buffer drops its first `by` octets; ex_blame points a failure just recorded at the
 * wire log (iw_result_blame, or the entry of octets read again). */
void ex_wire_in(ctx *x, const char *what, const char *act, size_t from, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
void ex_wire_shed(hconn *h, size_t by);
void ex_blame(ctx *x, const char *req);

/* exec_rping.c. rping's application messages (docs/rping.md, suite/engine/rping_info.h): the DUT's
 * buffer advertisement becomes the defaults of `write` and `read_req`, as a greeting does; its
 * go-ahead is a 16-octet Send; the DUT's Read Request is judged against the step and kept for
 * `send read_resp` to answer. */
bool ex_rping_info(ctx *x, const iw_step *s, const dut_msg *dm);
bool ex_rping_go(ctx *x, const iw_step *s, const dut_msg *dm);
bool ex_dut_read_req(ctx *x, const iw_step *s, const uint8_t *body, size_t len);

/* exec_startup.c. `startup` as the steps a case would write (ex_st_* build them), the M and C
 * bits the run asks for, and `expect alive` with the probe made before the case. */
void ex_st_init(iw_step *st, enum iw_step_kind k, const char *word, int line);
void ex_st_int(iw_step *st, const char *name, int64_t v, enum iw_arg_type type);
bool ex_startup_conn(ctx *x, int64_t within_ms, int m, int c, int line);
/* The startup frames alone of ex_startup_conn, and a bytes argument of a synthetic step (not owned). */
bool ex_startup_frames(ctx *x, int64_t within_ms, int m, int c, int line);
void ex_st_bytes(iw_step *st, const char *name, const uint8_t *b, size_t n);
int ex_startup_m(const ctx *x, const iw_step *s);
int ex_startup_c(const ctx *x, const iw_step *s);
bool ex_exp_alive(ctx *x, const iw_step *s);
/* Before a case with `expect alive`: does a fresh connection get the DUT's startup frame at all?
 * Sets x->served_before; its own failure is no verdict (a connection that cannot be opened is). */
void ex_probe_served(ctx *x);

/* exec_model.c. `expect as-model`, `expect one-of`, `expect measure`. */
bool ex_exp_as_model(ctx *x, const iw_step *s);
bool ex_exp_one_of(ctx *x, const iw_step *s);
bool ex_exp_measure(ctx *x, const iw_step *s);

#endif
