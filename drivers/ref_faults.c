/*
 * ref_faults.c - the tables of the built-in DUT's hostile modes and mutants, and their names.
 * The fault stage that carries them out is ref_fault_input.c (the peer's octets),
 * ref_fault_pump.c (ours) and ref_fault_reframe.c (FPDUs re-framed for message-level mutants).
 */
#include "ref_faults.h"

#include <stdio.h>
#include <string.h>

static const iw_fault_info hostile_tab[IW_HOSTILE_COUNT] = {
	[IW_HOSTILE_NONE] = { .name = "none", .desc = "a conforming DUT" },
	[IW_HOSTILE_GARBAGE] = { .name = "garbage",
		.desc = "answers anything with random octets, without end, until the peer has been silent for the idle timeout" },
	[IW_HOSTILE_RESET_MID_FRAME] = { .name = "reset-mid-frame",
		.desc = "sends the first half of its Reply (Request as initiator), then resets the connection (RST)" },
	[IW_HOSTILE_SLOW] = { .name = "slow",
		.desc = "sends its Reply (Request as initiator) one octet per second, then the rest at full speed" },
	[IW_HOSTILE_PD_NEVER] = { .name = "pd-never",
		.desc = "its Reply announces PD_Length 100 but carries 10 octets of private data, then nothing more" },
	[IW_HOSTILE_ENDLESS] = { .name = "endless",
		.desc = "after its Reply streams random octets without end, until the peer goes away" },
	[IW_HOSTILE_NEVER_CLOSE] = { .name = "never-close",
		.desc = "never closes: not after a bad Request, not on the peer's FIN; only the idle timeout ends it" },
	[IW_HOSTILE_SILENT] = { .name = "silent",
		.desc = "never sends an octet: reads and drops what the peer sends, open until the peer closes (or the idle timeout)" },
	[IW_HOSTILE_CLOSE] = { .name = "close",
		.desc = "closes (FIN) as soon as the connection is open, without reading or sending anything" },
	[IW_HOSTILE_RST] = { .name = "rst",
		.desc = "resets (RST: SO_LINGER 0, then close) as soon as the connection is open, without reading or sending" },
	[IW_HOSTILE_BAD_REPLY_STALL] = { .name = "bad-reply-stall",
		.desc = "reads the Request, answers a Reply header announcing PD_Length 65535 (Request as initiator), "
			"then sends nothing more and stays open" },
	[IW_HOSTILE_DRIP] = { .name = "drip",
		.desc = "sends everything one octet per second: its Reply (Request as initiator) and every FPDU after it" },
};

static const iw_fault_info mutant_tab[IW_MUTANT_COUNT] = {
	[IW_MUTANT_NONE] = { .name = "none", .desc = "no requirement broken" },
	[IW_MUTANT_ACCEPT_BAD_KEY] = { "accept-bad-key", "MPA-6.1-R5",
		"accepts a Request whose Key is wrong (the Key is corrected before the model sees it)", "startup", NULL },
	[IW_MUTANT_REPLY_WRONG_REV] = { "reply-wrong-rev", "MPA-6.1.1-06", "Reply Rev = the profile's Rev + 1",
		"startup", NULL },
	[IW_MUTANT_REPLY_RES_SET] = { "reply-res-set", "MPA-6.1.1-05",
		"Reply with every Res bit set (0x1F; 0x0F under rfc6581, where 0x10 is Enhanced)", "startup", NULL },
	[IW_MUTANT_IGNORE_M] = { "ignore-m", "MPA-6.1.1-M2", "sends no markers although the Request had M=1",
		"startup", "markers" },
	[IW_MUTANT_REPLY_C0] = { "reply-c0", "MPA-5.2-03", "Reply C=0 in the default configuration", "startup", NULL },
	[IW_MUTANT_EARLY_FPDU] = { "early-fpdu", "MPA-6.1-R4",
		"sends an FPDU (a zero-length RDMA Write) right after its Reply, before receiving one", "startup", "responder" },
	[IW_MUTANT_TRUNCATE_PD] = { "truncate-pd", "MPA-6.1.1-08",
		"Reply PD_Length says 4 octets more than the private data sent", "startup",
		"profile:rfc5044" },
	[IW_MUTANT_TERM_WRONG_CODE] = { "term-wrong-code", "DDP-9.2-01",
		"every Terminate it sends carries a wrong error code (ECode XOR 0x20)", "ddp", NULL },
	[IW_MUTANT_NO_TERMINATE] = { "no-terminate", "DDP-9.1-04",
		"reports no error to the peer: its Terminates are dropped, it only closes", "errors", NULL },
	[IW_MUTANT_DELIVER_AFTER_ERROR] = { "deliver-after-error", "MPA-7-08",
		"passes the first FPDU with a bad CRC or marker on as valid and goes on delivering what follows", "errors",
		NULL },
	[IW_MUTANT_IGNORE_BOUNDS] = { "ignore-bounds", "DDP-9.1-T4",
		"places the part of an RDMA Write that fits its buffer, drops the rest, and reports nothing", "ddp", NULL },
	[IW_MUTANT_INTEROP_CODES] = { "interop-codes", "DDP-9.2-01",
		"reports errors with real stacks' codes: LLP error type 3 (cxgb4), 0x2/0x02 for a message too long "
		"and 0x1/0x01 for a TO wrap (siw)", "errors", NULL },
	[IW_MUTANT_CRASH_SHORT_ULPDU] = { "crash-short-ulpdu", "DDP-6.4-01",
		"abort()s on an FPDU whose ULPDU_Length is shorter than a DDP header (a process crash: run it as "
		"exec:'iwspec serve --mutant crash-short-ulpdu --port {port}')", "robustness",
		"exec responder profile:rddp-mpa-01 profile:rfc5044 profile:rfc6581" },
	[IW_MUTANT_HANG_PARTIAL_HEADER] = { "hang-partial-header", "MPA-5.4-04",
		"stops reading, and never closes, once a read ends inside an FPDU header", "robustness", "responder" },
	/* The mutant zoo (ref_mutants.c). */
	[IW_MUTANT_IGNORE_C] = { "ignore-c", "MPA-6.1.1-C2",
		"in its no-CRC mode ignores the peer's C=1: sends no CRCs and checks none", "startup", "crc-off" },
	[IW_MUTANT_NO_STARTUP_TIMEOUT] = { "no-startup-timeout", "MPA-6.1-R10a",
		"never times out a connection whose startup frame does not complete (only the idle timeout ends it)",
		"startup", "responder profile:rfc5044" },
	[IW_MUTANT_REPLY_EARLY] = { "reply-early", "MPA-6.1-R2a",
		"replies as soon as the Request header is in, without waiting for its private data (which it drops) "
		"when PD_Length is below 512",
		"startup", "responder" },
	[IW_MUTANT_ACCEPT_BAD_REV] = { "accept-bad-rev", "MPA-6.1.1-07",
		"accepts a startup frame whose Rev it does not support (the Rev is not checked)", "startup", NULL },
	[IW_MUTANT_ACCEPT_OVERSIZED_PD] = { "accept-oversized-pd", "MPA-6.1-R9d",
		"accepts a startup frame with more private data than the profile allows, keeping the first 512 octets",
		"startup", "profile:rfc5044 profile:rfc6581" },
	[IW_MUTANT_IGNORE_REJECT] = { "ignore-reject", "MPA-6.1-R3c",
		"as initiator, goes on to full operation (and sends FPDUs) after a Reply with R=1", "startup",
		"initiator" },
	[IW_MUTANT_REQUEST_REPLY_KEY] = { "request-reply-key", "MPA-6.1.1-01",
		"as initiator, sends the Reply key in its Request ('MPA ID Rep Frame')", "startup", "initiator" },
	[IW_MUTANT_PAD_NONZERO] = { "pad-nonzero", "MPA-4-02",
		"sends pad octets 0xFF (its CRCs cover them)", "framing", NULL },
	[IW_MUTANT_PAD_WRONG_LENGTH] = { "pad-wrong-length", "MPA-4-01",
		"pads ULPDU_Length, not 2 + ULPDU_Length, to a multiple of 4: every FPDU has the wrong pad length "
		"(without markers)", "framing", NULL },
	[IW_MUTANT_CRC_BIG_ENDIAN] = { "crc-big-endian", "MPA-5.2-11",
		"sends its CRCs most-significant octet first", "framing", NULL },
	[IW_MUTANT_CRC_UNCHECKED] = { "crc-unchecked", "MPA-5.2-14",
		"does not check CRCs: an FPDU whose CRC does not match is delivered", "framing", NULL },
	[IW_MUTANT_IGNORE_EMSS] = { "ignore-emss", "MPA-5.3.2-02",
		"sizes its FPDUs for an EMSS of 1460 whatever MSS the connection has: on a 536-octet path its "
		"ULPDUs are too long", "framing", NULL },
	[IW_MUTANT_MULPDU_UNCLAMPED] = { "mulpdu-unclamped", "MPA-5.3.2-04",
		"takes MULPDU from the formula without its floor of 128: on an 88-octet MSS its ULPDUs shrink to 70",
		"framing", NULL },
	[IW_MUTANT_MARKER_WRONG_FPDUPTR] = { "marker-wrong-fpduptr", "MPA-5.1-03",
		"markers inside its FPDUs have FPDUPTR 4 too large (markers between FPDUs stay 0)", "markers", "markers" },
	[IW_MUTANT_MARKER_FIRST_MISSING] = { "marker-first-missing", "MPA-5.1-06",
		"leaves out the marker at the start of full operation; the later markers are in place", "markers",
		"markers" },
	[IW_MUTANT_MARKER_DRIFT] = { "marker-drift", "MPA-5.1-02",
		"its marker grid slips 4 octets with every FPDU instead of staying every 512 octets", "markers",
		"markers" },
	[IW_MUTANT_MARKERS_UNREQUESTED] = { "markers-unrequested", "MPA-6.1.1-M1",
		"sends markers although the peer's frame had M=0", "markers", NULL },
	[IW_MUTANT_MARKER_RESERVED_SET] = { "marker-reserved-set", "MPA-4.1-02",
		"sends markers with RESERVED = 0xFFFF", "markers", "markers" },
	[IW_MUTANT_CRC_SKIPS_LEADING_MARKER] = { "crc-skips-leading-marker", "MPA-5.2-13",
		"computes the CRC of an FPDU that starts with a marker from its ULPDU_Length on, without the marker",
		"markers", "markers" },
	[IW_MUTANT_BOUNDS_OFF_BY_ONE] = { "bounds-off-by-one", "DDP-10.1-01",
		"accepts an RDMA Write ending one octet past its buffer (the octet past the end goes nowhere visible)",
		"ddp", NULL },
	[IW_MUTANT_TO_WRAP_UNCHECKED] = { "to-wrap-unchecked", "DDP-9.1-T5",
		"adds TO + length modulo 2^64: a Write that wraps passes the bounds check and its tail lands at the "
		"buffer start", "ddp", NULL },
	[IW_MUTANT_ACCEPT_FOREIGN_STAG] = { "accept-foreign-stag", "DDP-10.3-02",
		"places an RDMA Write carrying another connection's STag into its own buffer", "ddp", NULL },
	[IW_MUTANT_MSN_START_0] = { "msn-start-0", "DDP-6.3-09",
		"numbers the messages of every queue from MSN 0 instead of 1", "ddp", NULL },
	[IW_MUTANT_MO_UNCHECKED] = { "mo-unchecked", "DDP-9.1-U3",
		"does not check MO: a Send segment whose MO is past its buffer is written out of sight, no error",
		"ddp", NULL },
	[IW_MUTANT_L_ON_MIDDLE] = { "l-on-middle", "DDP-6.1-04",
		"sets L on the middle segments of its multi-segment messages too", "ddp", NULL },
	[IW_MUTANT_QN_UNCHECKED] = { "qn-unchecked", "DDP-9.1-U1",
		"does not check QN: a Send on an invalid queue is taken as the next Send on QN 0", "ddp", NULL },
	[IW_MUTANT_DELIVER_OUT_OF_ORDER] = { "deliver-out-of-order", "DDP-7.3-07",
		"delivers Sends in the order they arrive, not in MSN order", "ddp", NULL },
	[IW_MUTANT_ZERO_LENGTH_WRITE_CHECKED] = { "zero-length-write-checked", "DDP-7.2-10",
		"checks the STag of a zero-length RDMA Write and refuses an unknown one", "ddp", NULL },
	[IW_MUTANT_READ_OUT_OF_BOUNDS] = { "read-out-of-bounds", "RFC5040-5.2-04",
		"serves a Read Request running past its source buffer up to the buffer end instead of refusing it",
		"rdmap", NULL },
	[IW_MUTANT_UNKNOWN_OPCODE_IGNORED] = { "unknown-opcode-ignored", "RFC5040-4.2-04",
		"silently discards a message with a reserved RDMAP opcode (0xC-0xF)", "rdmap", NULL },
	[IW_MUTANT_TERM_WRONG_LAYER] = { "term-wrong-layer", "RFC5040-4.8-01",
		"its Terminates name the wrong layer (RDMAP and DDP swapped, LLP as 3)", "rdmap", NULL },
	[IW_MUTANT_SEND_INV_UNCHECKED] = { "send-inv-unchecked", "RFC5040-5.3-05",
		"takes a Send with Invalidate as a plain Send, whatever STag it names", "rdmap", NULL },
	[IW_MUTANT_RDMAP_VERSION_UNCHECKED] = { "rdmap-version-unchecked", "RFC5040-4.1-03",
		"does not check RDMAP's RV: a message of another version is taken as its own", "rdmap", NULL },
	[IW_MUTANT_PLACE_AFTER_ERROR] = { "place-after-error", "DDP-9.1-03",
		"after an error (Terminate sent) still places the RDMA Writes that follow, then closes", "errors", NULL },
	[IW_MUTANT_NEVER_CLOSE] = { "never-close", "RFC5040-6.2-02",
		"after an error sends its Terminate but never closes the connection (only the idle timeout does)",
		"errors", "profile:rfc5044" },
	[IW_MUTANT_ZERO_READ_DATA] = { "zero-read-data", "RFC5040-5.2-05",
		"answers a zero-length Read Request with the 8 octets at its source TO instead of a zero-length Read "
		"Response", "rdmap", NULL },
	[IW_MUTANT_READ_QUEUE_OFF_BY_ONE] = { "read-queue-off-by-one", "RFC5040-5.5-03",
		"serves each Read Request after the first from the source range of the Read Request before it (an "
		"off-by-one in its inbound Read queue): the responses lag one request behind", "rdmap", NULL },
	[IW_MUTANT_RREQ_QN_UNCHECKED] = { "rreq-qn-unchecked", "RFC5040-4.2-05",
		"dispatches untagged messages by opcode alone: a Read Request on QN 0 or 2 is served as one on QN 1",
		"rdmap", NULL },
	[IW_MUTANT_SEND_SE_INV_UNCHECKED] = { "send-se-inv-unchecked", "RFC5040-5.3-06",
		"takes a Send with SE and Invalidate (opcode 0x6) as a Send with SE, whatever STag it names (the plain "
		"Send with Invalidate is checked)", "rdmap", NULL },
	[IW_MUTANT_INVALIDATE_IGNORED] = { "invalidate-ignored", "DDP-9.1-T2",
		"takes a Send with Invalidate naming one of its valid STags as a plain Send: the STag is never "
		"invalidated and later Writes to it are placed (an unknown STag is still refused)", "rdmap", NULL },
	[IW_MUTANT_MARKER_HALVES_SWAPPED] = { "marker-halves-swapped", "MPA-4.1-01",
		"writes its markers FPDUPTR first, then RESERVED: inside an FPDU the distance lands in RESERVED and "
		"FPDUPTR reads 0", "markers", "markers" },
	[IW_MUTANT_MULPDU_BELOW_FLOOR] = { "mulpdu-below-floor", "MPA-5.3.2-04",
		"cuts its messages into ULPDUs of 100 octets whatever room the EMSS leaves, as if packed FPDUs had "
		"left less than 128", "framing", NULL },
	[IW_MUTANT_TAGGED_RV_WRONG] = { "tagged-rv-wrong", "DDP-6.2-02",
		"its tagged segments (Read Responses) carry RDMAP version 0 in their RsvdULP: the octet is not the "
		"one RDMAP set", "rdmap", NULL },
	[IW_MUTANT_RESYNC_ON_READ] = { "resync-on-read", "MPA-5.4.1-01",
		"frames by read boundaries after a stall: when a short read ends inside an FPDU and the next read "
		"comes 15 ms later or after a TCP hole (out-of-order segments: a held, lost or re-cut segment), it "
		"drops the partial FPDU and takes the next read to begin a new one",
		"framing", NULL },
	[IW_MUTANT_RDMAP_RSVD_CHECKED] = { "rdmap-rsvd-checked", "RFC5040-4.1-05",
		"checks the two Rsvd bits of the RDMAP Control Field: a message with them set is refused as one of "
		"another RDMAP version (Terminate 0x2/0x05)", "rdmap", NULL },
	[IW_MUTANT_TERM_NO_HEADERS] = { "term-no-headers", "RFC5040-4.8-03",
		"its Terminates carry the control word alone: M, D and R clear, no DDP segment length, no DDP or RDMA "
		"header of the message at fault", "rdmap", NULL },
	[IW_MUTANT_TERM_RSVD_SET] = { "term-rsvd-set", "RFC5040-4.8-05",
		"sets the reserved octet of its Terminates' control word (0xFF after M, D, R)", "rdmap", NULL },
	[IW_MUTANT_REPLY_ECHOES_R] = { "reply-echoes-r", "MPA-6.1.1-R1",
		"takes the R bit of the Request into its accepting Reply (R=1 to a Request with R=1), as Linux siw "
		"does, and goes on to full operation", "startup", "responder" },
	[IW_MUTANT_REPLY_TO_PARTIAL_REQUEST] = { "reply-to-partial-request", "MPA-6.1-R2a",
		"answers a Request that stopped short (its octets quiet for 1 s before the frame is complete) with a "
		"Reply and an FPDU (a zero-length RDMA Write), as a DUT seen on the wire did", "startup", "responder" },
};

const iw_fault_info *iw_hostile_info(enum iw_hostile h)
{
	return (unsigned)h < IW_HOSTILE_COUNT ? &hostile_tab[h] : NULL;
}

const iw_fault_info *iw_mutant_info(enum iw_mutant m)
{
	return (unsigned)m < IW_MUTANT_COUNT ? &mutant_tab[m] : NULL;
}

static void names(const iw_fault_info *tab, int n, char *buf, size_t cap)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int i = 1; i < n && o < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s%s", i > 1 ? ", " : "", tab[i].name);
}

void iw_hostile_names(char *buf, size_t cap) { names(hostile_tab, IW_HOSTILE_COUNT, buf, cap); }
void iw_mutant_names(char *buf, size_t cap) { names(mutant_tab, IW_MUTANT_COUNT, buf, cap); }

static int find(const iw_fault_info *tab, int n, const char *what, const char *name, int *out, iw_err *e)
{
	if (!name || !*name) {
		*out = 0;
		return IW_OK;
	}
	for (int i = 0; i < n; i++)
		if (strcmp(tab[i].name, name) == 0) {
			*out = i;
			return IW_OK;
		}
	char list[1200];
	names(tab, n, list, sizeof list);
	/* The mutants are too many to list in one message. */
	if (strlen(list) > 150)
		return iw_errf(e, IW_EINVAL, "unknown %s '%s' ('iwspec mutants --list' names them all)", what, name);
	return iw_errf(e, IW_EINVAL, "unknown %s '%s' (known: none, %s)", what, name, list);
}

int iw_hostile_find(const char *name, enum iw_hostile *out, iw_err *e)
{
	int v = 0;
	int rc = find(hostile_tab, IW_HOSTILE_COUNT, "hostile mode", name, &v, e);
	if (rc == IW_OK)
		*out = (enum iw_hostile)v;
	return rc;
}

int iw_mutant_find(const char *name, enum iw_mutant *out, iw_err *e)
{
	int v = 0;
	int rc = find(mutant_tab, IW_MUTANT_COUNT, "mutant", name, &v, e);
	if (rc == IW_OK)
		*out = (enum iw_mutant)v;
	return rc;
}
