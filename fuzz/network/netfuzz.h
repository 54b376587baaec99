/*
 * netfuzz.h - the network fuzzer of `iwspec fuzz` (docs/fuzzing-network.md).
 *
 * A run is one TCP connection to the DUT: a generated program (startup frame with mutated
 * fields, FPDUs with mutated headers, lengths, markers, CRCs, DDP placement fields, RDMAP
 * opcodes, Terminates, out-of-order segments, raw bytes, write cuts, delays, FIN or RST) is
 * sent while a connection model of a conforming DUT (iw_conn.h, role = the DUT's role, plus a
 * reflector) is fed the same octets. After the program the harness sends a FIN and reads the
 * DUT's reaction until it closes; the judge (netfuzz_judge.c) decodes it with the engine and
 * compares it with what the model allows. A disallowed reaction is a finding that names the
 * requirement it rests on; findings are confirmed by a re-run, minimised (ddmin over actions,
 * then over bytes) and written as a replayable case file with the seed and a pcap.
 *
 * Modules: netfuzz_gen.c (PRNG, programs, generator); the session and its runs behind
 * netfuzz_int.h (netfuzz_session.c, netfuzz_startup.c calibration and liveness, netfuzz_io.c,
 * netfuzz_model.c, netfuzz_render.c, netfuzz_run.c); netfuzz_judge.c (decoding and judging,
 * through suite/verify/); netfuzz_min.c (confirmation, ddmin); netfuzz_case.c (the recorded run as
 * a case) and netfuzz_out.c (case.iwt checked by replaying it, seed.txt, capture.pcap);
 * netfuzz_bench.c (the loopback baseline); steered by a guest kernel's coverage (--kernel-coverage):
 * netfuzz_kcov.c (the agent's coverage-arcs, the batch, kcov.tsv), netfuzz_corpus.c (kept
 * programs, the union of arcs), netfuzz_corpus_file.c (--corpus DIR) and netfuzz_mutate.c.
 */
#ifndef IW_NETFUZZ_H
#define IW_NETFUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "driver.h"
#include "dut_config.h"
#include "iw_conn.h"
#include "iw_err.h"
#include "mpa_fpdu.h"
#include "profile.h"
#include "rdmap.h"

/* ---- deterministic PRNG: xoshiro256** seeded by splitmix64 ---- */

typedef struct nf_rng {
	uint64_t s[4];
} nf_rng;

void nf_rng_seed(nf_rng *r, uint64_t seed);
uint64_t nf_rng_next(nf_rng *r);
/* Uniform in [0, n) (n > 0). */
uint32_t nf_rng_below(nf_rng *r, uint32_t n);
/* True with probability pct/100. */
bool nf_rng_pct(nf_rng *r, unsigned pct);

/* ---- programs ---- */

#define NF_MAX_ACTIONS  24
#define NF_POOL         16384   /* octets of raw data, private data and explicit payloads */
#define NF_PAYLOAD_MAX  70000   /* generated (pattern) payloads may be this long */
#define NF_PROG_PAYLOAD_BUDGET (24 * 1024) /* payload octets one program sends in all, so a DUT's echoes
					    * stay under its queues (generated and mutated alike) */

enum nf_act_kind {
	NF_A_FRAME,     /* the harness's startup frame (Request, or Reply to an initiator DUT) */
	NF_A_FPDU,      /* one RDMAP message in one or more FPDUs */
	NF_A_RAW,       /* octets as given */
	NF_A_SPLIT,     /* how the following sends are cut into TCP writes */
	NF_A_SLEEP,     /* a pause */
	NF_A_RESET,     /* end with RST instead of FIN */
};

/* Startup frame fields; -1 means "what a conforming sender puts there". */
typedef struct nf_frame {
	int key_octet, key_xor;     /* corrupt one key octet */
	bool other_key;             /* the other frame's key */
	int m, c, r, res, enhanced, rev, pd_length;
	int irdord;                 /* RFC 6581 block present (1) or left out (0) */
	int ird, ord;
} nf_frame;

enum nf_msg {
	NF_M_SEND, NF_M_SEND_SE, NF_M_SEND_INV, NF_M_WRITE, NF_M_READ_REQ, NF_M_READ_RESP,
	NF_M_TERMINATE, NF_M_COUNT
};

typedef struct nf_fpdu {
	uint8_t msg;                /* enum nf_msg: the body that is built */
	bool tagged, last;
	uint8_t dv, rsvd, rv, opcode;
	uint8_t rsvdulp[5];         /* [1..4]: untagged RsvdULP ([0] is the RDMAP control octet) */
	bool rsvdulp_set;
	uint32_t qn, msn, mo;
	bool mo_set;                /* MO of every segment replaced by mo */
	bool last_set;              /* L of every segment replaced by last */
	uint32_t stag;
	bool stag_adv;              /* the STag the DUT's reflector advertised (its greeting) */
	uint64_t to;
	iw_read_req rr;
	bool rr_src_adv;            /* Read Request source = the advertised STag */
	uint8_t t_layer, t_etype, t_ecode;
	uint16_t mulpdu;            /* DDP segments of at most this (0: one segment) */
	uint8_t norder;             /* segments sent in this order (0: natural order) */
	uint8_t order[8];
	iw_fpdu_mods mods;          /* applied to every FPDU of the message */
} nf_fpdu;

typedef struct nf_action {
	uint8_t kind;               /* enum nf_act_kind */
	nf_frame fr;
	nf_fpdu fp;
	uint32_t split_every;       /* NF_A_SPLIT: 0 = one write per send */
	uint32_t sleep_us;
	/* Octets: raw data, private data of a frame, or an explicit payload (pool[off, off+len)).
	 * A payload with pattern set is generated instead (len octets, from pat). */
	uint32_t off, len;
	bool pattern;
	uint8_t pat;
} nf_action;

/* Where a program came from: nf_generate's (seed, run) alone, or a mutation of programs that
 * kernel-coverage feedback kept (netfuzz_mutate.c), which --first-run alone does not give again. */
typedef struct nf_origin {
	uint64_t from;              /* the corpus entry it was mutated from (0: generated) */
	uint64_t with;              /* a splice's other entry (0: none) */
	char how[120];              /* the mutations, e.g. "delete action 3; MSN of action 2" */
} nf_origin;

typedef struct nf_prog {
	uint64_t seed;
	uint64_t run;               /* the run index it was generated (or mutated) for */
	nf_origin origin;
	size_t n;
	nf_action a[NF_MAX_ACTIONS];
	size_t pool_len;
	uint8_t pool[NF_POOL];
} nf_prog;

/* What the generator must know about the DUT (learned by calibration). */
typedef struct nf_dutinfo {
	const iw_profile *profile;
	int role;                   /* enum iw_role of the DUT */
	bool markers;               /* the DUT's frame has M=1: FPDUs to it carry markers */
	bool crc;                   /* the DUT's frame has C=1 */
	bool crc_off;               /* it is in its administrator no-CRC mode (declared `crc =
				     * optional-off`, and a Request with C=0 is answered with C=0): so is
				     * the model, and a C=0 frame is not held against it (MPA-5.2-02) */
	bool reflector;             /* echoes Sends: the declared ulp's word, else calibration's */
	bool greeting;              /* advertises its buffer in its first Send (likewise) */
	bool ulp_declared;          /* the DUT configuration names its application (`ulp`, `reflector`) */
	bool seen_reflector;        /* what calibration saw: an echo of its Send */
	bool seen_greeting;         /* ... and a greeting before it */
	char ulp_note[300];         /* not empty: the declaration and calibration disagree, one line
				     * naming both and which is used */
	uint8_t rev;
	int64_t pace_ms;            /* the longest silence inside its startup frame (and before it) */
	int64_t idle_ms;            /* the reaction timeout the runs use: --timeout, or longer for a
				     * slow DUT (twice pace_ms) */
	bool slow;                  /* so slow that idle_ms was raised for it */
	char startup[400];          /* not empty: the engine rejects its (complete) startup frame,
				     * "detail [requirement]"; every run reports it as a `frame` finding */
} nf_dutinfo;

/* The program of run `run` of seed `seed`: depends on nothing else (same seed, same programs). */
void nf_generate(nf_prog *p, const nf_dutinfo *d, uint64_t seed, uint64_t run);

/* Payload / private data octet i of action a. */
uint8_t nf_act_octet(const nf_prog *p, const nf_action *a, size_t i);

/* Removes actions not in keep[] (n entries, true = keep) and compacts the pool. */
void nf_prog_keep(nf_prog *dst, const nf_prog *src, const bool *keep);

/* Replaces action k's octets by the subset keep[] of them (explicit from now on). */
void nf_prog_keep_octets(nf_prog *dst, const nf_prog *src, size_t k, const bool *keep);

/* A one-line summary of an action, for logs and case comments. */
void nf_action_describe(const nf_prog *p, const nf_action *a, char *buf, size_t cap);

/* FNV-1a over the program's meaning (actions and used octets), for determinism tests. */
uint64_t nf_prog_hash(const nf_prog *p);

/* ---- findings ---- */

enum nf_fkind {
	NF_F_NONE,
	NF_F_CRASH,         /* the DUT process crashed or exited with a failure */
	NF_F_DEAD,          /* the DUT stopped answering: a fresh connection is refused, or gets no
			     * octet for the liveness timeout (a slow DUT that keeps sending is alive) */
	NF_F_HANG,          /* no close (or no progress) within the timeout */
	NF_F_EARLY_CLOSE,   /* the DUT closed or reset where a conforming DUT keeps the connection */
	NF_F_FRAME,         /* its startup frame is missing, malformed or wrong */
	NF_F_STREAM,        /* its octets do not decode as a conforming sender's */
	NF_F_EXTRA,         /* a message a conforming DUT does not send */
	NF_F_MISSING,       /* a message a conforming DUT sends is missing */
	NF_F_CONTENT,       /* a message with the wrong contents */
	NF_F_TERMINATE,     /* a Terminate where none is due, or with the wrong error */
	NF_F_KIND_COUNT
};

const char *nf_fkind_name(enum nf_fkind k);

typedef struct nf_finding {
	enum nf_fkind kind;
	char req[32];               /* requirement ID the finding rests on */
	char detail[320];
	bool timing;                /* depends on a timeout: confirm before reporting */
	bool previous;              /* the DUT was found dead before this run: the previous run's */
} nf_finding;

/* ---- sessions and runs ---- */

typedef struct nf_opts {
	iw_dut_config dut;
	uint64_t seed;
	uint64_t runs;              /* 0: until time_ms */
	int64_t time_ms;
	int64_t deadline_ms;        /* iw_net_now_ms() at which the session stops (0: none): every
				     * wait, calibration's too, ends there and the run in flight is
				     * abandoned unjudged; SIGINT/SIGTERM (suite/run/interrupt.h) do the same */
	const char *out_dir;        /* NULL: findings are not written */
	bool progress;
	int64_t timeout_ms;         /* how long a reaction may take (0: 250 ms for ref, 2 s otherwise) */
	unsigned max_findings;      /* stop after this many distinct findings (0: 10) */
	bool no_minimize;
	FILE *log;                  /* findings and notes (stderr by default), or NULL */
	FILE *progress_out;         /* the progress line (stderr by default) */
	struct nf_kcov *kcov;       /* kernel-coverage feedback (nf_kcov_open; NULL: none): the loop
				     * reads it, mutates kept programs and keeps the interesting ones */
} nf_opts;

/* Coverage of the model's states, event kinds and error codes. */
typedef struct nf_cov {
	uint32_t states;            /* bit per enum iw_conn_state */
	uint32_t events;            /* bit per enum iw_conn_ev_kind */
	uint64_t codes;             /* bit per row of the error-code table (nf_cov_total) */
} nf_cov;

void nf_cov_counts(const nf_cov *c, unsigned *have, unsigned *total);

/* What one run did, for judging, minimising and writing. */
typedef struct nf_chunk {
	uint8_t dir;                /* 0: harness to DUT, 1: DUT to harness */
	uint32_t off, len;          /* into the direction's octet log */
} nf_chunk;

typedef struct nf_trace {
	bool record;                /* keep the chunk order (for the pcap) */
	uint8_t *to_dut;            /* every octet sent */
	size_t to_len, to_cap;
	uint8_t *from_dut;          /* every octet received */
	size_t from_len, from_cap;
	nf_chunk *chunks;
	size_t nchunks, chunk_cap;
	/* the rendered actions: octets [start, end) of to_dut per action (end = start if not sent) */
	uint32_t act_start[NF_MAX_ACTIONS], act_end[NF_MAX_ACTIONS];
	bool frame_sent;            /* the first action was a startup frame and it went out */
	iw_mpa_frame frame;         /* its fields, for the case file */
	bool we_fin, we_rst, dut_fin, dut_rst;
	size_t sent_actions;        /* actions sent before the run stopped sending */
	/* what the model answered: its whole output, and how much of it after each action */
	const uint8_t *exp;         /* valid until the slot's next run */
	size_t exp_len;
	uint32_t act_exp_end[NF_MAX_ACTIONS];
	bool act_released[NF_MAX_ACTIONS]; /* rule 4 was satisfied after the action */
	bool act_adv[NF_MAX_ACTIONS];      /* the action used the STag the DUT's greeting advertised */
	bool act_waited[NF_MAX_ACTIONS];   /* before the action the harness stopped to read the DUT's
					    * greeting (the only wait a run makes for the DUT) */
	bool markers_tx, crc;       /* the model's framing of what it sends */
} nf_trace;

typedef struct nf_session nf_session;

/* Opens the DUT (driver, and for the ref DUT the in-process server) and calibrates it: a
 * conforming startup and a Send. Fails (IW_ESTATE, e names what the DUT sent and the requirement)
 * when the DUT cannot be reached or cannot complete a conforming startup: no startup frame, or
 * one that never completes (the engine's verdict on its header when it has one); IW_ETRUNC when
 * the deadline or an interrupt came first (e says how far the DUT had got). */
int nf_session_open(nf_session **out, const nf_opts *o, iw_err *e);
void nf_session_close(nf_session *s);
const nf_dutinfo *nf_session_dut(const nf_session *s);

/* Executes a program once against the DUT and judges the reaction into f (NF_F_NONE when
 * the reaction is allowed). Crashes and failed liveness probes are detected here. */
int nf_run(nf_session *s, const nf_prog *p, nf_finding *f, iw_err *e);

/* The same in two halves, so the next run can be sent while the DUT answers this one: start
 * connects, sends the program and the FIN; finish waits for the DUT's close and judges. Up
 * to NF_SLOTS runs may be started and not yet finished; p must live until finish. A slot
 * whose start found the DUT gone finishes with a finding marked `previous`. */
#define NF_SLOTS 4
int nf_run_start(nf_session *s, const nf_prog *p, int slot, iw_err *e);
int nf_run_finish(nf_session *s, int slot, nf_finding *f, iw_err *e);

/* The trace of the last run made with nf_run (record it with nf_session_record). */
const nf_trace *nf_session_trace(const nf_session *s);
void nf_session_record(nf_session *s, bool on);

/* The expected reaction of the last run, as case-file expectations (netfuzz_out.c). */
typedef struct nf_expect {
	bool frame_due;             /* the DUT must send its startup frame */
	int frame_r, frame_rev;     /* its R and Rev */
	bool frame_c;               /* and C=1, which the judge holds it to (MPA-5.2-03) */
	bool model_closed;          /* a conforming DUT closes (error, reject, Terminate received) */
	size_t nmsg;                /* messages a conforming DUT sends (echoes, Read Responses) */
	struct { unsigned opcode; uint32_t len; uint32_t off; uint32_t stag; uint64_t to; } msg[16];
	uint8_t *data;              /* payload octets of msg[] (msg[i].off) */
	size_t data_len, data_cap;
	bool terminate;             /* and then (optionally) a Terminate with this error */
	int t_layer, t_etype, t_ecode;
	bool may_greet;             /* the DUT's reflector may greet first */
} nf_expect;
const nf_expect *nf_session_expect(const nf_session *s);

/* Counters and coverage. inconclusive: runs the deadline or an interrupt cut (not judged). */
typedef struct nf_stats {
	uint64_t runs, findings, inconclusive, restarts;
	nf_cov cov;
} nf_stats;
const nf_stats *nf_session_stats(const nf_session *s);

/* Confirmation mode: probe liveness after every run and allow 4 times the timeout. */
void nf_session_confirming(nf_session *s, bool on);

/* The deadline (nf_opts.deadline_ms) has passed or a signal asked to stop: runs started from now
 * on are abandoned at once, and confirmation and minimisation stop. */
bool nf_session_expired(const nf_session *s);

/* Milliseconds left before the deadline (INT64_MAX without one, 0 once expired). */
int64_t nf_session_time_left(const nf_session *s);

/* Moves the deadline (0: none); the fuzzing loop gives the runs in flight one more timeout. */
void nf_session_set_deadline(nf_session *s, int64_t deadline_ms);

/* A finding, once seen, is handled whatever is left of --time: confirming, minimising and
 * recording it each get an allowance of their own, counted in this bound, the longest one
 * confirming run takes against a DUT that answers nothing (4 x the reaction timeout of
 * silence, the liveness probe and a second for a restart). */
int64_t nf_session_run_bound(const nf_session *s);

/* Gives the work that follows at least ms: the deadline becomes now + ms when that is later
 * (a session without a deadline keeps none). Returns the deadline it replaced, which the
 * caller puts back (nf_session_set_deadline) when the work is done. A signal still stops it. */
int64_t nf_session_allow(nf_session *s, int64_t ms);

/* What a confirmation came to. */
enum nf_confirmed {
	NF_NOT_CONFIRMED = 0,       /* the program was run `tries` times and did not show it */
	NF_CONFIRMED = 1,
	NF_CONFIRM_CUT = 2,         /* a signal came, or the allowance ran out: not known (e says) */
};

/* Confirms a finding: re-runs p until it shows a finding of the same kind (a crash of the DUT's
 * process confirms any kind: it is reported as what it is, in got), up to `tries` runs; a run
 * that found the DUT already down (got->previous, the DUT has been restarted) does not count,
 * up to `tries` of them. It has (tries + 1) x nf_session_run_bound() even when the session's time
 * is up. Returns an enum nf_confirmed; e says why when it is not NF_CONFIRMED. */
int nf_confirm(nf_session *s, const nf_prog *p, const nf_finding *want, int tries, nf_finding *got, iw_err *e);

/* Minimises p keeping a finding of the same kind: ddmin over actions, then over octets.
 * budget bounds the number of runs, and the time: the rest of the session's or, when that is
 * less, NF_MIN_ALLOW_RUNS x nf_session_run_bound() (at least NF_MIN_ALLOW_MS); when it runs
 * out, what was minimised so far is kept. The result is in out; final holds its finding. */
#define NF_MIN_ALLOW_RUNS 3
#define NF_MIN_ALLOW_MS   10000
int nf_minimize(nf_session *s, const nf_prog *p, const nf_finding *want, unsigned budget, nf_prog *out,
		nf_finding *final, iw_err *e);

/* Generic ddmin over n units: test(keep, ctx) says whether the subset still fails. keep is
 * in/out: on return it holds a 1-minimal failing subset. Returns the tests made. */
unsigned nf_ddmin(bool *keep, size_t n, bool (*test)(const bool *keep, void *ctx), void *ctx, unsigned budget);

/* What replaying a finding's case showed. nf_write_finding runs every case it writes with
 * iwspec run's executor: once against the DUT of the finding, where it must end with the
 * verdict the requirement's level gives (FAIL for a MUST) resting on the finding's requirement,
 * and once against a clean built-in DUT, where it must PASS. */
typedef struct nf_case_check {
	bool checked;               /* both replays were made (a signal may cut them) */
	bool reproduces;            /* the DUT of the finding: the finding's verdict and requirement */
	bool clean_passes;          /* the clean built-in DUT: PASS */
	char verdict[8];            /* of the replay against the DUT of the finding */
	char failed_req[32];        /* ... and the requirement it rests on ("" for none) */
	char why[700];              /* unless checked, reproduces and clean_passes: what happened */
} nf_case_check;

/* Writes <dir>/finding-<n>/{case.iwt, seed.txt, capture.pcap} for a finding of program p
 * (executed once more to record it, with an allowance of nf_session_run_bound() when the
 * session's time is up), then checks the case (nf_case_check, into chk unless NULL; each
 * replay has an allowance of the case's timeout) and says in seed.txt what the check showed.
 * When even the recording run is cut (a signal, or the allowance ran out), seed.txt is written
 * alone, saying so, and IW_ETRUNC returned. */
int nf_write_finding(nf_session *s, const char *dir, unsigned n, const nf_prog *p, const nf_finding *f,
		     nf_case_check *chk, iw_err *e);

/* Writes <dir>/unconfirmed-<n>/seed.txt for a finding seen in run p->run that could not be
 * confirmed (why: the reason): what was seen and how to reproduce it. Needs no DUT. */
int nf_write_unconfirmed(const char *dir, unsigned n, const nf_prog *p, const nf_finding *f, const char *why,
			 iw_err *e);

/* The case file text for the last recorded run (exposed for tests). It does what the run did,
 * in the same order: the octets of each action (the startup frame as `send request`/`send
 * reply`, cuts as `split`, pauses as `sleep`, written together where the run wrote them
 * together: the `resegment: coalesce` header), a wait for the DUT's greeting only where the run
 * waited for it, the FIN (`close`) or RST (`reset`) right after the last octet, and only then
 * the reaction a conforming DUT has to all of it, as the judge allows it. The judge allows more
 * reactions than a one-of holds: `form` picks which (0: the likeliest), *nforms (unless NULL)
 * says how many forms there are; the stimulus is the same in all. */
int nf_case_text(nf_session *s, const nf_prog *p, const nf_finding *f, unsigned n, unsigned form, unsigned *nforms,
		 char **out, iw_err *e);

/* What a replay of a case showed. */
typedef struct nf_replay {
	int verdict;                /* enum iw_verdict */
	char failed_req[32];        /* the requirement a FAIL or WARN rests on, "" for none */
	char reason[600];
} nf_replay;

/* Runs a case text (iwspec run's executor) against the session's DUT, or against a clean
 * built-in DUT of the same profile and role. Against the session's DUT it needs the case's
 * timeout before the session's deadline (IW_ETRUNC otherwise). */
int nf_session_replay(nf_session *s, const char *text, bool clean, nf_replay *out, iw_err *e);

/* ---- steered by a guest kernel's coverage (--kernel-coverage, --corpus) ---- */

/* The kept programs and the union of every kernel arc seen (netfuzz_corpus.c). An entry's id is
 * never reused, so seed.txt can name the entry a mutated program came from. */
#define NF_CORPUS_MAX 512           /* programs kept; when full, a new one replaces the entry that
				     * brought the fewest new arcs, the oldest of those */
#define NF_ARCS_MAX   (1ull << 26)  /* arc counters an agent may announce (8 MiB of bitmap) */

typedef struct nf_kept {
	nf_prog *p;
	uint64_t id;                /* 1, 2, ... */
	uint64_t gain;              /* new arcs of the run (or batch) that brought it */
	uint32_t *reach;            /* those arcs (their indices; malloc'd, NULL when none is known):
				     * what the program reached first, which `iwspec fuzz --merge` compares */
	uint32_t nreach;
} nf_kept;

typedef struct nf_corpus {
	nf_kept e[NF_CORPUS_MAX];
	size_t n;
	uint64_t next_id;
	uint64_t total;             /* arc counters of the module (0: no union yet) */
	uint64_t hit;               /* arcs in the union */
	uint8_t *arcs;              /* the union: bit i is octet i/8, bit i%8 */
	uint64_t evicted;
} nf_corpus;

void nf_corpus_init(nf_corpus *c);
void nf_corpus_free(nf_corpus *c);
/* Keeps a copy of p (evicting as NF_CORPUS_MAX says); *id (unless NULL) is its entry's id. */
int nf_corpus_keep(nf_corpus *c, const nf_prog *p, uint64_t gain, uint64_t *id, iw_err *e);
/* The same, with the arcs its run reached first (reach[nreach], copied). */
int nf_corpus_keep_reach(nf_corpus *c, const nf_prog *p, uint64_t gain, const uint32_t *reach, uint32_t nreach,
			 uint64_t *id, iw_err *e);
const nf_kept *nf_corpus_find(const nf_corpus *c, uint64_t id);
/* Merges a bitmap of `total` arcs into the union: *fresh the arcs it had not; a bitmap of
 * another total starts a new union (*restarted, when there was one). */
int nf_corpus_merge(nf_corpus *c, const uint8_t *bits, uint64_t total, uint64_t *fresh, bool *restarted,
		    iw_err *e);
/* The same, and (unless added is NULL) the arcs the union did not have, as a malloc'd list of
 * their indices (*added NULL when there are none). */
int nf_corpus_merge_list(nf_corpus *c, const uint8_t *bits, uint64_t total, uint64_t *fresh, bool *restarted,
			 uint32_t **added, uint32_t *nadded, iw_err *e);

/* DIR/corpus.bin (netfuzz_corpus_file.c): written atomically; loading a missing file leaves c
 * empty (*found false); one of another build or a corrupt one is IW_EINVAL, e saying which and
 * "remove DIR or give another --corpus". */
#define NF_CORPUS_FILE "corpus.bin"
int nf_corpus_save(const nf_corpus *c, const char *dir, iw_err *e);
int nf_corpus_load(nf_corpus *c, const char *dir, bool *found, iw_err *e);

/* A mutation of a kept program (netfuzz_mutate.c): from one to three of: an action replaced by
 * the like action of a freshly generated program, deleted, duplicated or inserted from one,
 * a splice of two kept programs, one field tweaked. Depends on (seed, run) and the corpus's
 * entries alone; out->origin says what was done. c must hold a program. */
void nf_mutate(nf_prog *out, const nf_corpus *c, const nf_dutinfo *d, uint64_t seed, uint64_t run);

/* What the guest's agent answered to `coverage-arcs` (netfuzz_kcov.c). */
typedef struct nf_arcs {
	uint64_t total, hit;        /* hit: bits set in bits (the agent's HIT is not trusted) */
	uint8_t *bits;              /* ceil(total/8) octets, malloc'd */
} nf_arcs;

/* One request to the agent at host:port, every read and write bounded by timeout_ms in all. */
int nf_kcov_fetch(const char *host, uint16_t port, int64_t timeout_ms, nf_arcs *out, iw_err *e);

typedef struct nf_kcov_cfg {
	const char *agent;          /* HOST:PORT */
	unsigned every;             /* a read after this many runs (0: 1) */
	const char *corpus_dir;     /* NULL: the corpus lives in memory only */
	const char *out_dir;        /* DIR/kcov.tsv (NULL: none) */
	int64_t timeout_ms;         /* a read's bound (0: NF_KCOV_TIMEOUT_MS) */
	bool measure_only;          /* read and record (kcov.tsv, the union), keep and mutate nothing: the
				     * same campaign without feedback, to compare with */
} nf_kcov_cfg;
#define NF_KCOV_EVERY_MAX   256     /* a batch's programs are kept until its read */
#define NF_KCOV_TIMEOUT_MS  5000
#define NF_KCOV_MUTATE_PCT  50

typedef struct nf_kcov nf_kcov;
typedef struct nf_kcov_stats {
	uint64_t reads, interesting, kept, mutated;
	uint64_t seq;               /* a hash of every program started, in order (determinism) */
	bool off;                   /* feedback stopped: note says why */
	char note[300];
} nf_kcov_stats;

/* Parses the agent's address and loads the corpus (IW_EINVAL, e precise, on a bad one). */
int nf_kcov_open(nf_kcov **out, const nf_kcov_cfg *cfg, iw_err *e);
void nf_kcov_close(nf_kcov *k);
const nf_corpus *nf_kcov_corpus(const nf_kcov *k);
const nf_kcov_stats *nf_kcov_stats_get(const nf_kcov *k);
/* The program of run `run`: a mutation of a kept program on NF_KCOV_MUTATE_PCT of the runs
 * (decided by (seed, run)) once the corpus holds one, else nf_generate's. */
void nf_kcov_program(nf_kcov *k, nf_prog *p, const nf_dutinfo *d, uint64_t seed, uint64_t run);
/* A run started with p: it belongs to the batch the next read is credited to. */
void nf_kcov_started(nf_kcov *k, const nf_prog *p);
/* Feedback is on and the batch is complete (final: the session ends, and the batch holds a
 * run): read now, with nothing in flight. */
bool nf_kcov_due(const nf_kcov *k, bool final);
/* Reads the agent's coverage and credits the batch: arcs new to the union keep its programs
 * (baseline: a read before the first run, whose arcs are the boot's and calibration's, keeps
 * nothing). Appends a line to DIR/kcov.tsv. A note worth saying once goes to notice (""
 * otherwise). A failed read turns feedback off for good and returns the error, once. */
int nf_kcov_read(nf_kcov *k, bool baseline, int64_t ms, uint64_t runs, char *notice, size_t cap, iw_err *e);

/* ---- the loopback baseline ---- */

/* Connect + 20-octet exchange + close against an echo server started in this process, for
 * ms milliseconds: connections per second. */
double nf_bare_rate(int64_t ms, iw_err *e);

#endif
