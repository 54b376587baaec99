#include "case_schema.h"

#include <stdio.h>
#include <string.h>

#define T_I IW_T(IW_ARG_INT)
#define T_S IW_T(IW_ARG_STR)
#define T_B IW_T(IW_ARG_BYTES)
#define T_D IW_T(IW_ARG_DURATION)
#define T_W IW_T(IW_ARG_WORD)
#define T_L IW_T(IW_ARG_LIST)

#define U32_MAX_ ((int64_t)0xFFFFFFFF)

/* Integers carry their field's width so an impossible value is a parse error with a line,
 * not a silent truncation inside the encoder. */
#define INT(n, lo, hi)  { n, T_I, NULL, lo, hi, 0, 0 }
#define BIT(n)          INT(n, 0, 1)
#define U32(n)          INT(n, 0, U32_MAX_)
#define U64(n)          { n, T_I, NULL, 0, INT64_MAX, 0, IW_SPEC_U64 }
#define TO_ADV(n)       { n, T_I, NULL, 0, INT64_MAX, 0, IW_SPEC_U64 | IW_SPEC_FROM_END }
#define FROM_RECV(n, hi) { n, T_I, NULL, 0, hi, 0, IW_SPEC_FROM_RECV }
#define BYTES(n)        { n, T_B, NULL, 0, 0, 0, 0 }
#define DUR(n)          { n, T_D, NULL, 0, 0, 0, 0 }
#define WORD(n, w)      { n, T_W, w, 0, 0, 0, 0 }
#define LIST(n)         { n, T_L, NULL, 0, 0, 0, 0 }

#define N(a) (sizeof(a) / sizeof((a)[0]))

const char iw_schema_send_msgs[] = "send send_se send_inv write read_req read_resp terminate ddp";
const char iw_schema_expect_msgs[] = "send write read_req read_resp terminate greeting rping_info rping_go any fpdu";
/* iw_schema_caps is in case_needs.c, beside the table of capability names it spells. */

static const char layer_words[] = "rdmap ddp llp";

static const iw_arg_spec accept_args[] = {
	DUR("within"),
};

/* MPA Request and Reply as stimuli (MR §6.1.1; RFC 6581 IRD/ORD block). */
static const iw_arg_spec send_frame_args[] = {
	{ "key", T_B, NULL, 0, 0, 16, 0 },
	INT("key_octet", 0, 15),
	INT("key_xor", 0, 255),
	BIT("m"),
	BIT("c"),
	BIT("r"),
	INT("res", 0, 0x1F),
	BIT("enhanced"),
	INT("rev", 0, 255),
	INT("pd_length", 0, 65535),
	BYTES("pd"),
	INT("pd_size", 0, 65535),
	BIT("irdord"),
	INT("ird", 0, 0x3FFF),
	INT("ord", 0, 0x3FFF),
	BIT("p2p"),
	WORD("rtr", "none send write read"),
};

/* An RDMAP message in DDP segments in FPDUs, with the FPDU defects of iw_fpdu_mods. */
static const iw_arg_spec send_fpdu_args[] = {
	BYTES("data"),
	FROM_RECV("size", 1 << 24),
	U32("qn"),
	FROM_RECV("msn", U32_MAX_),
	FROM_RECV("mo", U32_MAX_),
	U32("stag"),
	INT("stag_of", 1, 4),
	TO_ADV("to"),
	BIT("last"),
	BIT("tagged"),
	INT("dv", 0, 3),
	INT("rsvd", 0, 15),
	INT("rv", 0, 3),
	INT("opcode", 0, 15),
	BYTES("rsvdulp"),
	U32("sink_stag"),
	U64("sink_to"),
	U32("src_stag"),
	TO_ADV("src_to"),
	U32("rsize"),
	{ "layer", T_W | T_I, layer_words, 0, 15, 0, 0 },
	INT("etype", 0, 15),
	INT("ecode", 0, 255),
	U32("inv_stag"),
	INT("inv_stag_of", 1, 4),
	INT("mulpdu", 1, 65535),
	LIST("order"),
	/* defects */
	INT("length", 0, 65535),
	U32("crc"),
	U32("crc_xor"),
	WORD("crc_order", "le be"),
	INT("corrupt", 0, 65535),
	INT("pad_fill", 0, 255),
	INT("marker_reserved", 0, 65535),
	INT("fpduptr_or", 0, 65535),
	INT("fpduptr_delta", -65535, 65535),
	BIT("no_markers"),
	WORD("marker_at", "start crc end"),
	INT("fill", 0, 255),
	INT("cut", 0, 65535),
};

static const iw_arg_spec send_raw_args[] = {
	{ "data", T_B, NULL, 0, 0, 0, IW_SPEC_REQUIRED },
};

static const iw_arg_spec split_args[] = {
	LIST("at"),
	INT("every", 1, 65535),
	DUR("delay"),
};

static const iw_arg_spec sleep_args[] = {
	{ "for", T_D, NULL, 0, 0, 0, IW_SPEC_REQUIRED },
};

static const iw_arg_spec expect_frame_args[] = {
	DUR("within"),
	{ "key", T_W | T_B, "request reply", 0, 0, 16, 0 },
	BIT("m"),
	BIT("c"),
	BIT("r"),
	INT("res", 0, 0x1F),
	BIT("enhanced"),
	INT("rev", 0, 255),
	INT("pd_length", 0, 65535),
	BYTES("pd"),
	INT("ird", 0, 0x3FFF),
	INT("ord", 0, 0x3FFF),
	BIT("p2p"),
	WORD("rtr", "none send write read"),
};

static const iw_arg_spec expect_fpdu_args[] = {
	DUR("within"),
	BYTES("data"),
	INT("size", 0, 1 << 24),
	/* the payload's length alone: a Read Response of a buffer whose octets the case cannot know
	 * (a fuzz finding's, the built-in DUT's buffer being shared by its connections) */
	INT("len", 0, 1 << 24),
	U32("qn"),
	U32("msn"),
	U32("mo"),
	U32("stag"),
	U64("to"),
	BIT("last"),
	INT("dv", 0, 3),
	INT("rv", 0, 3),
	INT("opcode", 0, 15),
	BIT("marker_first"),
	INT("markers", 0, 1 << 16),
	INT("fill", 0, 255),
	/* the body of a Read Request the DUT sends (rping's server reads the harness's buffer) */
	U32("sink_stag"),
	U64("sink_to"),
	U32("src_stag"),
	U64("src_to"),
	U32("rsize"),
};

static const iw_arg_spec expect_terminate_args[] = {
	DUR("within"),
	{ "layer", T_W | T_I, layer_words, 0, 15, 0, 0 },
	INT("etype", 0, 15),
	INT("ecode", 0, 255),
	BIT("m"),
	BIT("d"),
	BIT("r"),
	BIT("hdr"),
	BIT("rdma_hdr"),
};

static const iw_arg_spec expect_close_args[] = {
	DUR("within"),
	WORD("how", "fin rst any"),
	BIT("allow_data"),
};

static const iw_arg_spec expect_silence_args[] = {
	{ "for", T_D, NULL, 0, 0, 0, IW_SPEC_REQUIRED },
};

static const iw_arg_spec use_args[] = {
	{ "conn", T_I, NULL, 1, 4, 0, IW_SPEC_REQUIRED },
};

/* A connection taken to full operation; m and c are the harness's M and C bits. */
static const iw_arg_spec startup_args[] = {
	DUR("within"),
	BIT("m"),
	BIT("c"),
	INT("mss", 88, 65535),
};

/* mss: the MSS the harness advertises (TR-17); Linux's TCP takes 88 and up. */
static const iw_arg_spec connect_args[] = {
	DUR("within"),
	INT("mss", 88, 65535),
};

/* fpdus: how many sends (each step's octets, an FPDU or a frame) the plan's stream collects. */
static const iw_arg_spec segments_args[] = {
	{ "fpdus", T_I, NULL, 1, 16, 0, IW_SPEC_REQUIRED },
};

/* A segment of the collected stream: FPDU `fpdu` (the fpdu-th send collected, from 0), or
 * octets [off, off+len) of the stream, or of that FPDU when both are given. */
static const iw_arg_spec segment_args[] = {
	INT("fpdu", 0, 15),
	INT("off", 0, 1 << 24),
	INT("len", 1, 65535),
	INT("dupacks", 1, 64),
};

static const iw_arg_spec within_args[] = {
	DUR("within"),
};

#define NOARGS NULL, 0
#define ARGS(a) a, N(a)

static const iw_step_schema schemas[IW_STEP_KIND_COUNT] = {
	[IW_STEP_CONNECT] = { IW_STEP_CONNECT, "connect", false, ARGS(connect_args), NULL, NULL },
	[IW_STEP_ACCEPT] = { IW_STEP_ACCEPT, "accept", false, ARGS(accept_args), NULL, NULL },
	[IW_STEP_SEND_REQUEST] = { IW_STEP_SEND_REQUEST, "send request", false, ARGS(send_frame_args), NULL, NULL },
	[IW_STEP_SEND_REPLY] = { IW_STEP_SEND_REPLY, "send reply", false, ARGS(send_frame_args), NULL, NULL },
	[IW_STEP_SEND_FPDU] = { IW_STEP_SEND_FPDU, "send <msg>", false, ARGS(send_fpdu_args), NULL, NULL },
	[IW_STEP_SEND_RAW] = { IW_STEP_SEND_RAW, "send raw", false, ARGS(send_raw_args), "data", NULL },
	[IW_STEP_SPLIT] = { IW_STEP_SPLIT, "split", false, ARGS(split_args), NULL, "none" },
	[IW_STEP_SLEEP] = { IW_STEP_SLEEP, "sleep", false, ARGS(sleep_args), "for", NULL },
	[IW_STEP_CLOSE] = { IW_STEP_CLOSE, "close", false, NOARGS, NULL, NULL },
	[IW_STEP_RESET] = { IW_STEP_RESET, "reset", false, NOARGS, NULL, NULL },
	[IW_STEP_USE] = { IW_STEP_USE, "use", false, ARGS(use_args), "conn", NULL },
	[IW_STEP_STARTUP] = { IW_STEP_STARTUP, "startup", false, ARGS(startup_args), NULL, NULL },
	[IW_STEP_SEGMENTS] = { IW_STEP_SEGMENTS, "segments", false, ARGS(segments_args), NULL, NULL },
	[IW_STEP_SEGMENT] = { IW_STEP_SEGMENT, "segment <op>", false, ARGS(segment_args), "dupacks", NULL },
	[IW_EXPECT_REQUEST] = { IW_EXPECT_REQUEST, "expect request", true, ARGS(expect_frame_args), NULL, NULL },
	[IW_EXPECT_REPLY] = { IW_EXPECT_REPLY, "expect reply", true, ARGS(expect_frame_args), NULL, NULL },
	[IW_EXPECT_FPDU] = { IW_EXPECT_FPDU, "expect <msg>", true, ARGS(expect_fpdu_args), NULL, NULL },
	[IW_EXPECT_TERMINATE] = { IW_EXPECT_TERMINATE, "expect terminate", true, ARGS(expect_terminate_args), NULL, NULL },
	[IW_EXPECT_CLOSE] = { IW_EXPECT_CLOSE, "expect close", true, ARGS(expect_close_args), NULL, NULL },
	[IW_EXPECT_SILENCE] = { IW_EXPECT_SILENCE, "expect silence", true, ARGS(expect_silence_args), "for", NULL },
	[IW_EXPECT_ALIVE] = { IW_EXPECT_ALIVE, "expect alive", true, ARGS(within_args), NULL, NULL },
	[IW_EXPECT_ONE_OF] = { IW_EXPECT_ONE_OF, "expect one-of", true, NOARGS, NULL, NULL },
	[IW_EXPECT_MEASURE] = { IW_EXPECT_MEASURE, "measure close", true, ARGS(within_args), NULL, NULL },
	[IW_EXPECT_AS_MODEL] = { IW_EXPECT_AS_MODEL, "expect as-model", true, ARGS(within_args), NULL, NULL },
};

const iw_step_schema *iw_schema_get(enum iw_step_kind k)
{
	if ((unsigned)k >= IW_STEP_KIND_COUNT)
		return NULL;
	return &schemas[k];
}

const iw_arg_spec *iw_schema_arg(const iw_step_schema *s, const char *name, size_t n)
{
	if (!s || !name)
		return NULL;
	for (size_t i = 0; i < s->nargs; i++)
		if (strlen(s->args[i].name) == n && memcmp(s->args[i].name, name, n) == 0)
			return &s->args[i];
	return NULL;
}

bool iw_schema_word_in(const char *list, const char *w, size_t n)
{
	if (!list || !w || n == 0)
		return false;
	const char *p = list;
	while (*p) {
		while (*p == ' ')
			p++;
		const char *q = p;
		while (*q && *q != ' ')
			q++;
		if ((size_t)(q - p) == n && memcmp(p, w, n) == 0)
			return true;
		p = q;
	}
	return false;
}

void iw_schema_arg_names(const iw_step_schema *s, char *buf, size_t cap)
{
	size_t o = 0;
	if (cap == 0)
		return;
	buf[0] = '\0';
	for (size_t i = 0; s && i < s->nargs && o < cap; i++) {
		int k = snprintf(buf + o, cap - o, "%s%s", i ? ", " : "", s->args[i].name);
		if (k < 0)
			break;
		o += (size_t)k;
	}
}

size_t iw_edit_distance(const char *a, size_t na, const char *b, size_t nb)
{
	size_t row[32];
	if (na >= N(row) || nb >= N(row))
		return (size_t)-1;
	for (size_t j = 0; j <= nb; j++)
		row[j] = j;
	for (size_t i = 1; i <= na; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[nb];
}

const char *iw_schema_suggest(const iw_step_schema *s, const char *name, size_t n)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;
	for (size_t i = 0; s && i < s->nargs; i++) {
		const char *cand = s->args[i].name;
		size_t d = iw_edit_distance(name, n, cand, strlen(cand));
		if (d < best_d) {
			best_d = d;
			best = cand;
		}
	}
	/* Only a near miss is worth suggesting: one edit for short names, two for longer. */
	if (best && best_d <= (n <= 4 ? 1u : 2u))
		return best;
	return NULL;
}

static bool has(const iw_step *s, const char *name)
{
	return iw_step_arg(s, name) != NULL;
}

bool iw_schema_check_step(const iw_step *s, char *msg, size_t cap)
{
	const iw_step_schema *sc = iw_schema_get(s->kind);
	if (!sc) {
		snprintf(msg, cap, "unknown step kind %d", (int)s->kind);
		return false;
	}
	for (size_t i = 0; i < sc->nargs; i++) {
		if ((sc->args[i].flags & IW_SPEC_REQUIRED) && !has(s, sc->args[i].name)) {
			if (sc->positional && strcmp(sc->positional, sc->args[i].name) == 0)
				snprintf(msg, cap, "missing %s (written `%s <value>` or %s=<value>)", sc->args[i].name,
					 sc->name, sc->args[i].name);
			else
				snprintf(msg, cap, "missing required argument '%s'", sc->args[i].name);
			return false;
		}
	}
	switch (s->kind) {
	case IW_STEP_SEND_REQUEST:
	case IW_STEP_SEND_REPLY:
		/* An XOR without an octet to apply it to is a stimulus that silently is not sent. */
		if (has(s, "key_xor") && !has(s, "key_octet")) {
			snprintf(msg, cap, "key_xor needs key_octet (the key octet, 0-15, it is applied to)");
			return false;
		}
		if (has(s, "pd") && has(s, "pd_size")) {
			snprintf(msg, cap, "pd and pd_size both give the private data: use one");
			return false;
		}
		break;
	case IW_STEP_SEND_FPDU: {
		if (has(s, "data") && has(s, "size")) {
			snprintf(msg, cap, "data and size both give the payload: use one");
			return false;
		}
		/* The end is the advertised buffer's; an STag of the case's own has none the harness knows. */
		const iw_arg *to = iw_step_arg(s, "to"), *src_to = iw_step_arg(s, "src_to");
		if (to && to->from_end && has(s, "stag")) {
			snprintf(msg, cap, "to=end counts back from the end of the DUT's advertised buffer, and stag= names "
				 "another: give to= as a number, or leave stag= out");
			return false;
		}
		if (src_to && src_to->from_end && has(s, "src_stag")) {
			snprintf(msg, cap, "src_to=end counts back from the end of the DUT's advertised buffer, and src_stag= "
				 "names another: give src_to= as a number, or leave src_stag= out");
			return false;
		}
		/* The receives are QN 0's: a tagged message, or one on another queue, lands in none. */
		static const char *const rel[] = { "size", "mo", "msn" };
		for (size_t i = 0; i < N(rel); i++) {
			const iw_arg *a = iw_step_arg(s, rel[i]);
			if (!a || !a->from_recv)
				continue;
			bool send_type = !strcmp(s->word, "send") || !strcmp(s->word, "send_se") ||
					 !strcmp(s->word, "send_inv") || !strcmp(s->word, "ddp");
			if (!send_type || has(s, "tagged") || has(s, "qn")) {
				snprintf(msg, cap, "%s=recv counts from the receives the DUT's application posts on QN 0: only an "
					 "untagged Send on QN 0 (send, send_se, send_inv, ddp, without tagged= and qn=) lands in "
					 "one", rel[i]);
				return false;
			}
		}
		break;
	}
	case IW_EXPECT_FPDU:
		if (has(s, "len") && (has(s, "data") || has(s, "size"))) {
			snprintf(msg, cap, "len is the payload's length alone; %s gives the length too: use one",
				 has(s, "data") ? "data" : "size");
			return false;
		}
		break;
	case IW_STEP_SEGMENT: {
		bool release = !strcmp(s->word, "release"), wait = !strcmp(s->word, "wait-dupacks");
		bool drop = !strcmp(s->word, "drop");
		if ((release || wait) && (has(s, "fpdu") || has(s, "off") || has(s, "len"))) {
			snprintf(msg, cap, "`segment %s` names no octets (%s): remove fpdu, off and len", s->word,
				 release ? "it sends the oldest held segment" : "it waits for the DUT's duplicate ACKs");
			return false;
		}
		if (release && has(s, "dupacks")) {
			snprintf(msg, cap, "`segment release` takes no arguments (it sends the oldest held segment)");
			return false;
		}
		if (wait && !has(s, "dupacks")) {
			snprintf(msg, cap, "missing how many duplicate ACKs: write `segment wait-dupacks 2` (or dupacks=2)");
			return false;
		}
		if (!release && !wait && !drop && has(s, "dupacks")) {
			snprintf(msg, cap, "dupacks goes with `segment drop` and `segment wait-dupacks`, not `segment %s`",
				 s->word);
			return false;
		}
		if (!release && !wait && !has(s, "fpdu") && !(has(s, "off") && has(s, "len"))) {
			snprintf(msg, cap, "which octets? write fpdu=K (the K-th send collected, from 0), off=O len=L (of "
				 "the collected stream), or fpdu=K off=O len=L (within FPDU K)");
			return false;
		}
		break;
	}
	case IW_STEP_SPLIT:
		if (strcmp(s->word, "none") == 0) {
			if (s->nargs) {
				snprintf(msg, cap, "`split none` takes no arguments (got '%s')", s->args[0].name);
				return false;
			}
		} else if (!has(s, "at") && !has(s, "every")) {
			snprintf(msg, cap, "needs at=<offsets> or every=<octets> (or `split none`)");
			return false;
		} else if (has(s, "at") && has(s, "every")) {
			snprintf(msg, cap, "at and every are two ways to cut: use one");
			return false;
		}
		break;
	default:
		break;
	}
	return true;
}
