/*
 * rawtcp_probe.c - the raw segment path against a live DUT (tests/cli/rawtcp.sh).
 *
 * Each scenario opens its own connection through the TAP device, plays an MPA initiator (the
 * engine's connection model: it builds the Request and the FPDU and judges what comes back),
 * sends the Request and then a Send FPDU as the scenario's segment plans say, and checks that
 * the DUT answered with a valid Reply (MR §6.1, judged by suite/engine/mpa_frame.h) and echoed the
 * Send's payload octet for octet: the DUT received exactly the stream, whatever the order of
 * its segments. Every frame of a scenario goes to DIR/<scenario>.pcap.
 *
 * One line per scenario, for the script to read:
 *   scenario=NAME result=ok segs=N behind=B dupacks=D drops=R retransmits=T ms=M
 * where behind counts the data segments sent that start below the highest octet sent before
 * them (each one Wireshark should flag as out-of-order or a retransmission).
 *
 *   rawtcp_probe --netns NS --dev IF --port P [--pcap-dir DIR] [--only NAME] [--timeout-ms N]
 *
 * Exit: 0 all passed, 1 a scenario failed, 2 bad usage, 77 the setup is missing (no
 * CAP_NET_ADMIN, no /dev/net/tun, no namespace): the script turns that into SKIP.
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iw_conn.h"
#include "mpa_frame.h"
#include "raw_hdr.h"
#include "rawtcp.h"

#define PAYLOAD_LEN 700
#define MAX_STEPS 32

typedef struct probe {
	const char *netns, *dev, *pcap_dir;
	uint16_t port;
	int timeout_ms;
} probe;

/* What one scenario's frames showed, and where they go. */
typedef struct tap_log {
	pcap_t *pd;
	pcap_dumper_t *dump;
	uint32_t max_end;           /* highest sequence end of our data segments so far */
	bool any;
	unsigned segs, behind;
} tap_log;

/* Reads the harness's own frames back through raw_hdr (the pcap writer only stores them). */
static void on_frame(void *ctx, enum iw_raw_dir dir, const uint8_t *frame, size_t len, uint64_t usec)
{
	tap_log *l = ctx;
	if (l->dump) {
		struct pcap_pkthdr h;
		h.ts.tv_sec = (time_t)(usec / 1000000u);
		h.ts.tv_usec = (suseconds_t)(usec % 1000000u);
		h.caplen = h.len = (bpf_u_int32)len;
		pcap_dump((u_char *)l->dump, &h, frame);
	}
	iw_raw_frame f;
	if (dir != IW_RAW_TX || iw_raw_parse(frame, len, &f, NULL) != IW_OK || f.kind != IW_RAW_FRAME_TCP ||
	    f.tcp.len == 0)
		return;
	uint32_t end = f.tcp.seq + (uint32_t)f.tcp.len;
	l->segs++;
	if (l->any && iw_raw_seq_lt(f.tcp.seq, l->max_end))
		l->behind++;
	if (!l->any || iw_raw_seq_lt(l->max_end, end))
		l->max_end = end;
	l->any = true;
}

typedef int (*plan_fn)(iw_raw_step *s, size_t n);   /* returns the step count */

static int plan_in_order(iw_raw_step *s, size_t n)
{
	size_t k;
	iw_raw_plan_in_order(s, MAX_STEPS, &k, n, (n + 2) / 3, NULL);
	return (int)k;
}

static int plan_reverse3(iw_raw_step *s, size_t n)
{
	size_t k;
	iw_raw_plan_reverse(s, MAX_STEPS, &k, n, (n + 2) / 3, NULL);
	return (int)k;
}

static int plan_reverse4(iw_raw_step *s, size_t n)
{
	size_t k;
	iw_raw_plan_reverse(s, MAX_STEPS, &k, n, (n + 3) / 4, NULL);
	return (int)k;
}

/* Quarters q0..q3: q0, q1, q1 again, then the second half of q0 and q1 re-cut as one segment,
 * q2, q3, and the whole first half once more after it was delivered. */
static int plan_duplicate(iw_raw_step *s, size_t n)
{
	size_t q = n / 4;
	int k = 0;
	s[k++] = (iw_raw_step){ IW_RAW_SEND, 0, q, 0 };
	s[k++] = (iw_raw_step){ IW_RAW_SEND, q, q, 0 };
	s[k++] = (iw_raw_step){ IW_RAW_SEND, q, q, 0 };
	s[k++] = (iw_raw_step){ IW_RAW_SEND, q / 2, 2 * q - q / 2, 0 };
	s[k++] = (iw_raw_step){ IW_RAW_SEND, 2 * q, q, 0 };
	s[k++] = (iw_raw_step){ IW_RAW_SEND, 3 * q, n - 3 * q, 0 };
	s[k++] = (iw_raw_step){ IW_RAW_SEND, 0, 2 * q, 0 };
	return k;
}

/* The second third held back while the rest goes, released last. */
static int plan_hold(iw_raw_step *s, size_t n)
{
	size_t t = n / 3;
	int k = 0;
	s[k++] = (iw_raw_step){ IW_RAW_SEND, 0, t, 0 };
	s[k++] = (iw_raw_step){ IW_RAW_HOLD, t, t, 0 };
	s[k++] = (iw_raw_step){ IW_RAW_SEND, 2 * t, n - 2 * t, 0 };
	s[k++] = (iw_raw_step){ IW_RAW_RELEASE, 0, 0, 0 };
	return k;
}

/* Eighths: the second is lost and goes out after three duplicate ACKs. Six segments follow it,
 * not four: the first ACK at the hole may be the ACK of the segment before it (an advance, not
 * a duplicate), and segments queued behind a socket its reader holds may be coalesced into one
 * (two duplicate ACKs from four segments, twice in fresh-clone make test runs). */
static int plan_drop(iw_raw_step *s, size_t n)
{
	size_t x = n / 8;
	int k = 0;
	s[k++] = (iw_raw_step){ IW_RAW_SEND, 0, x, 0 };
	s[k++] = (iw_raw_step){ IW_RAW_DROP, x, x, 3 };
	for (size_t i = 2; i < 7; i++)
		s[k++] = (iw_raw_step){ IW_RAW_SEND, i * x, x, 0 };
	s[k++] = (iw_raw_step){ IW_RAW_SEND, 7 * x, n - 7 * x, 0 };
	return k;
}

/* Sixths: the second and third are not sent until two duplicate ACKs came, then go as a
 * retransmission cut elsewhere: a third of the hole, then the rest. */
static int plan_recut(iw_raw_step *s, size_t n)
{
	size_t x = n / 6;
	int k = 0;
	s[k++] = (iw_raw_step){ IW_RAW_SEND, 0, x, 0 };
	for (size_t i = 3; i < 5; i++)
		s[k++] = (iw_raw_step){ IW_RAW_SEND, i * x, x, 0 };
	s[k++] = (iw_raw_step){ IW_RAW_SEND, 5 * x, n - 5 * x, 0 };
	s[k++] = (iw_raw_step){ IW_RAW_WAIT_DUPACKS, 0, 0, 2 };
	s[k++] = (iw_raw_step){ IW_RAW_SEND, x, 2 * x / 3, 0 };
	s[k++] = (iw_raw_step){ IW_RAW_SEND, x + 2 * x / 3, 2 * x - 2 * x / 3, 0 };
	return k;
}

typedef struct scenario {
	const char *name;
	plan_fn request, fpdu;
} scenario;

static const scenario scenarios[] = {
	{ "in-order", plan_in_order, plan_in_order },
	{ "reverse", plan_reverse3, plan_reverse4 },
	{ "duplicate", plan_duplicate, plan_duplicate },
	{ "hold", plan_hold, plan_hold },
	{ "drop", plan_drop, plan_drop },
	{ "recut", plan_in_order, plan_recut },
};

/* Sends what the model has queued, as plan says. */
static int send_output(iw_raw_conn *rc, iw_conn *m, plan_fn plan, int timeout_ms, iw_err *e)
{
	size_t n;
	const uint8_t *out = iw_conn_output_peek(m, &n);
	if (n == 0)
		return iw_errf(e, IW_ESTATE, "the model queued nothing to send");
	iw_raw_step steps[MAX_STEPS];
	int k = plan(steps, n);
	int r = iw_raw_send_plan(rc, out, n, steps, (size_t)k, timeout_ms, e);
	if (r == IW_OK)
		iw_conn_output_consume(m, n);
	return r;
}

/* Feeds the DUT's stream to the model until want_echo is met (or the Reply, when NULL). */
static int read_until(iw_raw_conn *rc, iw_conn *m, uint8_t *seen, size_t *seen_len, size_t seen_cap,
		      const uint8_t *want_echo, int timeout_ms, iw_err *e)
{
	for (;;) {
		iw_conn_event ev;
		while (iw_conn_next_event(m, &ev)) {
			if (ev.kind == IW_EV_FRAME_REJECTED || ev.kind == IW_EV_ERROR || ev.kind == IW_EV_PEER_REJECT)
				return iw_errf(e, IW_EPROTO, "the engine judged the DUT's octets: %s (%s)",
					       ev.kind == IW_EV_PEER_REJECT ? "Reply with R=1" : ev.viol.detail,
					       ev.viol.req ? ev.viol.req : "-");
			if (!want_echo && ev.kind == IW_EV_FULL_OPERATION)
				return IW_OK;
			if (want_echo && ev.kind == IW_EV_SEND && ev.len == PAYLOAD_LEN &&
			    memcmp(ev.data, want_echo, PAYLOAD_LEN) == 0)
				return IW_OK;
		}
		uint8_t buf[4096];
		size_t got;
		int r = iw_raw_recv(rc, buf, sizeof buf, &got, timeout_ms, e);
		if (r != IW_OK)
			return r;
		if (got == 0)
			return iw_errf(e, IW_EPROTO, "the DUT closed before %s", want_echo ? "echoing the Send" : "its Reply");
		if (*seen_len + got <= seen_cap) {
			memcpy(seen + *seen_len, buf, got);
			*seen_len += got;
		}
		iw_conn_input(m, buf, got);
	}
}

/* The Reply at the start of the DUT's stream, judged on its own by mpa_frame.h. */
static int judge_reply(const iw_profile *p, const uint8_t *seen, size_t n, iw_err *e)
{
	iw_mpa_frame f;
	size_t flen;
	if (iw_mpa_frame_decode(p, seen, n, &f, &flen, e) != IW_OK)
		return iw_errf(e, IW_EPROTO, "no complete MPA Reply at the start of the DUT's stream: %s", e->msg);
	iw_violation items[8];
	iw_viol_list v = { items, 8, 0, 0 };
	bool ok = iw_mpa_frame_check(p, &f, IW_MPA_REPLY, &v);
	if (!ok)
		return iw_errf(e, IW_EPROTO, "the DUT's Reply is not acceptable: %s (%s)", v.n ? items[0].detail : "?",
			       v.n ? items[0].req : "?");
	return IW_OK;
}

static int run_one(const probe *pr, const scenario *sc, tap_log *log, iw_raw_stats *st, iw_err *e)
{
	const iw_profile *prof = iw_profile_default();
	iw_raw_link link;
	int r = iw_raw_tap_open(&link, pr->netns, pr->dev, e);
	if (r != IW_OK)
		return r;
	iw_raw_opts o;
	iw_raw_opts_default(&o);
	o.dut_port = pr->port;
	o.on_frame = on_frame;
	o.frame_ctx = log;
	iw_raw_conn *rc;
	r = iw_raw_connect(&rc, &link, &o, pr->timeout_ms, e);
	if (r != IW_OK)
		return r;
	iw_conn_config cfg;
	iw_conn_config_default(&cfg, prof, IW_ROLE_INITIATOR);
	static const uint8_t pd[] = "rawtcp-probe";
	cfg.pd = pd;
	cfg.pd_len = sizeof pd - 1;
	iw_conn *m = NULL;
	static uint8_t seen[65536];
	size_t seen_len = 0;
	uint8_t payload[PAYLOAD_LEN];
	for (size_t i = 0; i < sizeof payload; i++)
		payload[i] = (uint8_t)(i * 7 + 3);
	r = iw_conn_new(&m, &cfg, e);
	if (r == IW_OK)
		r = iw_conn_start(m, e);
	if (r == IW_OK)
		r = send_output(rc, m, sc->request, pr->timeout_ms, e);
	if (r == IW_OK)
		r = read_until(rc, m, seen, &seen_len, sizeof seen, NULL, pr->timeout_ms, e);
	if (r == IW_OK)
		r = judge_reply(prof, seen, seen_len, e);
	if (r == IW_OK)
		r = iw_conn_send(m, IW_OP_SEND, payload, sizeof payload, e);
	if (r == IW_OK)
		r = send_output(rc, m, sc->fpdu, pr->timeout_ms, e);
	if (r == IW_OK)
		r = read_until(rc, m, seen, &seen_len, sizeof seen, payload, pr->timeout_ms, e);
	if (r == IW_OK)
		r = iw_raw_wait_acked(rc, pr->timeout_ms, e);
	if (r == IW_OK)
		r = iw_raw_close(rc, pr->timeout_ms, e);
	else
		iw_raw_reset(rc, NULL);
	iw_raw_stats_get(rc, st);
	iw_raw_free(rc);
	iw_conn_free(m);
	return r;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int usage(void)
{
	fprintf(stderr, "usage: rawtcp_probe --netns NS --dev IF --port P [--pcap-dir DIR] [--only NAME] "
			"[--timeout-ms N]\n");
	return 2;
}

int main(int argc, char **argv)
{
	probe pr = { NULL, "iwraw0", NULL, 0, 5000 };
	const char *only = NULL;
	for (int i = 1; i < argc; i += 2) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			return usage();
		if (strcmp(a, "--netns") == 0)
			pr.netns = v;
		else if (strcmp(a, "--dev") == 0)
			pr.dev = v;
		else if (strcmp(a, "--port") == 0)
			pr.port = (uint16_t)atoi(v);
		else if (strcmp(a, "--pcap-dir") == 0)
			pr.pcap_dir = v;
		else if (strcmp(a, "--only") == 0)
			only = v;
		else if (strcmp(a, "--timeout-ms") == 0)
			pr.timeout_ms = atoi(v);
		else
			return usage();
	}
	if (!pr.port)
		return usage();
	int failed = 0, ran = 0;
	for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
		const scenario *sc = &scenarios[i];
		if (only && strcmp(only, sc->name) != 0)
			continue;
		tap_log log;
		memset(&log, 0, sizeof log);
		if (pr.pcap_dir) {
			char path[512];
			snprintf(path, sizeof path, "%s/%s.pcap", pr.pcap_dir, sc->name);
			log.pd = pcap_open_dead(DLT_EN10MB, 65535);
			log.dump = log.pd ? pcap_dump_open(log.pd, path) : NULL;
			if (!log.dump) {
				fprintf(stderr, "rawtcp_probe: cannot write %s\n", path);
				return 1;
			}
		}
		iw_err e = { "" };
		iw_raw_stats st;
		memset(&st, 0, sizeof st);
		uint64_t t0 = now_ms();
		int r = run_one(&pr, sc, &log, &st, &e);
		if (log.dump)
			pcap_dump_close(log.dump);
		if (log.pd)
			pcap_close(log.pd);
		if (r == IW_RAW_EPERM) {
			printf("SKIP: %s\n", e.msg);
			return 77;
		}
		ran++;
		printf("scenario=%s result=%s segs=%u behind=%u dupacks=%llu drops=%llu retransmits=%llu bad=%llu ms=%llu",
		       sc->name, r == IW_OK ? "ok" : "FAIL", log.segs, log.behind, (unsigned long long)st.dupacks,
		       (unsigned long long)st.drops_resent, (unsigned long long)st.retransmits,
		       (unsigned long long)st.bad_frames, (unsigned long long)(now_ms() - t0));
		if (r != IW_OK) {
			printf(" error=\"%s\"", e.msg);
			failed++;
		}
		printf("\n");
		fflush(stdout);
	}
	if (ran == 0) {
		fprintf(stderr, "rawtcp_probe: no scenario named '%s'\n", only ? only : "");
		return 2;
	}
	return failed ? 1 : 0;
}
