/*
 * netfuzz_judge.h - decoding a DUT's octets (and the model's) into startup frame and RDMAP
 * messages, and judging the DUT's against what the model allows. Internal to the network
 * fuzzer (netfuzz.h).
 */
#ifndef IW_NETFUZZ_JUDGE_H
#define IW_NETFUZZ_JUDGE_H

#include "mpa_rx.h"
#include "netfuzz.h"

#define NF_MAX_MSGS 64

typedef struct nf_msgrec {
	unsigned opcode;
	bool tagged;
	uint32_t stag, qn, msn;
	uint64_t to;
	uint32_t len;               /* payload octets of the whole message */
	uint32_t off;               /* its payload in nf_msgs.data (Sends and Terminates only) */
	size_t nseg;
	uint64_t end;               /* stream offset after its last FPDU */
} nf_msgrec;

typedef struct nf_msgs {
	size_t n, dropped;
	nf_msgrec m[NF_MAX_MSGS];
	uint8_t *data;
	size_t data_len, data_cap;
	bool partial;               /* the stream ends inside an FPDU or a message */
} nf_msgs;

/* Scratch the decoder needs (the MPA decoder is large: allocate once). */
typedef struct nf_dec {
	iw_mpa_rx *rx;
	iw_fpdu *fp;
	nf_msgs dut, exp;
} nf_dec;

int nf_dec_init(nf_dec *d);
void nf_dec_free(nf_dec *d);

/* Decodes an FPDU stream (the octets after the startup frame) into messages, checking the
 * rules a conforming data source follows. On the first broken rule fills f (kind STREAM) and
 * returns false; the messages before it are kept. */
bool nf_decode_msgs(nf_dec *d, const iw_profile *p, const uint8_t *b, size_t n, bool markers, bool crc,
		    nf_msgs *out, nf_finding *f);

/* What the run showed, for the judge. */
typedef struct nf_obs {
	const nf_dutinfo *dut;
	const iw_profile *p;
	/* the model */
	iw_conn *model;
	const uint8_t *exp;         /* everything the model sent */
	size_t exp_len;
	bool frame_rejected;        /* FRAME_REJECTED */
	iw_violation reject_viol;
	bool released;              /* full operation with FPDUs allowed (rule 4 satisfied) was reached */
	bool failed;                /* IW_EV_ERROR */
	iw_violation err;
	bool got_terminate;         /* the harness's Terminate was delivered */
	bool sent_r;                /* the harness's startup frame (the stream's first octets) had R=1 */
	bool sent_early;            /* ... and octets behind it before the DUT's frame could be read:
				     * what a responder does with them is unspecified (A6) */
	bool closed_before_fin;     /* the model had closed before the harness's FIN */
	/* the DUT */
	const uint8_t *got;
	size_t got_len;
	bool dut_fin, dut_rst, timed_out;
	bool early_close;           /* FIN/RST before ours while the model kept the connection */
	int early_state;            /* the model's state then */
	bool stuck_writing;         /* it stopped reading what we sent */
	bool got_overflow;          /* it sent more than the harness keeps */
} nf_obs;

/* Judges; f->kind is NF_F_NONE when the reaction is one a conforming DUT may have. Fills ex
 * with the expected reaction (for the case file) and learns the greeting's STag into *adv. */
void nf_judge(nf_dec *d, const nf_obs *o, nf_finding *f, nf_expect *ex);

/* The header of the DUT's startup frame (g: its first octets, complete frame or not) held to the
 * engine's frame check (key, Rev, PD_Length for the profile, Res bits): false with f filled
 * (kind FRAME, the sender's requirement, the engine's words) when it breaks one. Used by the
 * judge and by calibration, so both say the same. */
bool nf_judge_frame_head(const iw_profile *p, enum iw_mpa_kind kind, const uint8_t *g, size_t glen, nf_finding *f);

/* Fills a finding. */
void nf_find(nf_finding *f, enum nf_fkind k, const char *req, bool timing, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#endif
