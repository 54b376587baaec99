/*
 * exec_perftest.c - the harness as perftest's client (ib_send_bw, ib_write_bw, ib_read_bw with
 * -R) against a DUT that runs perftest's server, as suite/engine/perftest_msg.h describes it: a
 * comm connection before each connection of the case, and the keys on it after that
 * connection's startup frames. Against a DUT that runs perftest's client (the initiator role:
 * `ib_*_bw -R -F -n 5 HARNESS`) the harness is the server: the same comm connection, accepted,
 * each message the DUT's first and the harness's answer after it; its keys name a buffer of
 * its own, and `startup` takes the client's whole test after them (client_test).
 *
 * perftest's server listens for the test connection only once its comm connection has been
 * through the version, the system data and the MTU, so every connection a case opens to it (the
 * liveness probe's too) is preceded by a comm connection of its own, an MPA connection like any:
 * its startup frames and the DUT's Sends on it are judged as every frame is. The driver's connect
 * retries the test connection while the DUT does not listen yet. The keys follow the test
 * connection's startup frames, as perftest exchanges them after rdma_cm's ESTABLISHED, four
 * times (once more, all zero, before the test connection: the server listens for it only after
 * that); the last ones' rkey and vaddr name the DUT's buffer. perftest's server serves one client and then
 * waits on the comm connection until the end of the test: a new connection (another `startup`,
 * the liveness probe) ends the earlier comm connections first, so that a fresh server listens
 * (the exec: driver starts one when the last has exited). Two connections at once are not
 * perftest's (it provides no `second-conn`). perftest's client exits only at the end of its
 * flow, so against a client DUT ending a comm connection first takes the client there
 * (ex_perftest_end): the closing exchange after its test, or its next message before it.
 */
#include "exec_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iw_octets.h"
#include "perftest_msg.h"

/* The comm connection's number in the wire log and the pcap: apart from the case's own. */
#define COMM_NO(no) (32 + (no))
#define COMM_ATTEMPTS 16
#define COMM_RETRY_MS 500

void ex_perftest_close(hconn *h)
{
	if (!h->pt_comm)
		return;
	ex_hconn_free(h->pt_comm);
	free(h->pt_comm);
	h->pt_comm = NULL;
}

/* The harness's keys as perftest's server: they name its buffer, which the client's test Writes
 * or Reads. */
static void server_keys(uint8_t b[IW_PERFTEST_KEYS_LEN])
{
	iw_perftest_keys mine = { .out_reads = 1, .qpn = 1, .psn = 1, .rkey = IW_PERFTEST_HARNESS_RKEY,
				  .vaddr = IW_PERFTEST_HARNESS_VADDR };
	iw_perftest_keys_encode(b, &mine);
}

/* The client DUT's next message on the comm connection (x->h), n octets, and the harness's answer
 * (mine; none when nmine is 0). Failing is left to the caller to note: the end of the flow is
 * not judged. */
static bool answer(ctx *x, size_t n, const uint8_t *mine, size_t nmine, int64_t within_ms)
{
	iw_step exp, snd;
	ex_st_init(&exp, IW_EXPECT_FPDU, "perftest", 0);
	ex_st_int(&exp, "within", within_ms, IW_ARG_DURATION);
	x->h->pt_want = n;
	if (!ex_exp_message(x, &exp, false))
		return false;
	if (!nmine)
		return true;
	ex_st_init(&snd, IW_STEP_SEND_FPDU, "send", 0);
	ex_st_bytes(&snd, "data", mine, nmine);
	return ex_act_send_fpdu(x, &snd);
}

/* perftest's client exits only at the end of its flow, and the exec: driver starts the client of
 * a case's next connection (the probe's, a second `startup`'s) only once the last has exited. So
 * before a client DUT's connection is let go the harness takes the client there: after its test,
 * the closing exchange (perftest_msg.h; its first message startup took already), after which it
 * disconnects and exits; before it (the
 * probe's connection, its frames only) the client's next message, the keys it sends once the
 * Reply made its connection ESTABLISHED, after which closing the comm connection flushes the
 * receive it then waits on, and it exits. Closing sooner leaves it worse off (perftest 4.5 on
 * siw): a close while its rdma_cm connect still processes the Reply comes back as REJECTED, after
 * which perftest's retry crashed in librdmacm; a Send it posts after the close is never
 * completed, and it polls for that completion for ever. What the end shows is noted, not
 * judged: it is perftest's flow, not the case's. */
void ex_perftest_end(ctx *x, hconn *h)
{
	hconn *comm = h->pt_comm;
	bool accepted = h->got_frame_valid && h->sent_frame_valid && !h->sent_frame.r;
	if (!comm || x->dut_role != IW_ROLE_INITIATOR || !ex_conn_up(comm) || x->harness_error ||
	    (!comm->pt_tested && !accepted)) {
		ex_perftest_close(h);
		return;
	}
	hconn *saved = x->h;
	bool was_failed = x->failed;
	int64_t within = x->o->dut.close_timeout_ms > 0 ? x->o->dut.close_timeout_ms : DEFAULT_WITHIN_MS;
	x->h = comm;
	bool ok;
	const char *what;
	if (comm->pt_tested) {
		static const uint8_t report[IW_PERFTEST_REPORT_LEN];
		uint8_t keys[IW_PERFTEST_KEYS_LEN];
		server_keys(keys);
		int reports = x->o->dut.ulp == IW_ULP_PERFTEST_SEND ? 0 : IW_PERFTEST_REPORTS;
		if (comm->pt_close_keys) {
			iw_step snd;
			ex_st_init(&snd, IW_STEP_SEND_FPDU, "send", 0);
			ex_st_bytes(&snd, "data", keys, sizeof keys);
			ok = ex_act_send_fpdu(x, &snd);
		} else {
			ok = answer(x, sizeof keys, keys, sizeof keys, within);
		}
		for (int i = 0; i < reports && ok; i++)
			ok = answer(x, sizeof report, report, sizeof report, within);
		ok = ok && (!reports || answer(x, sizeof keys, keys, sizeof keys, within));
		what = reports ? "the closing exchange after its test (the keys, its 5 report values, the keys)"
			       : "the closing exchange after its test (the keys)";
	} else {
		ok = answer(x, IW_PERFTEST_KEYS_LEN, NULL, 0, within);
		what = "its keys after the connection's Reply (the comm connection's close then ends it)";
	}
	if (ok) {
		ex_note(x, "perftest's client, at the end of its connection %d: %s", h->no, what);
	} else if (!was_failed && !x->harness_error) {
		ex_note(x, "perftest's client, at the end of its connection %d, did not send %s: %.300s (noted, not "
			"judged)", h->no, what, x->r->reason);
		ex_unfail(x);
	}
	x->h = saved;
	ex_perftest_close(h);
}

/* ib_send_lat's answer to the startup Send: any Send of its own, which must be -s 65536 octets
 * long, as the profile's receives are (docs/ulp-profiles.md). A shorter one is the lab's -s, not
 * the DUT's fault: the cases would send Sends longer than its receives. */
bool ex_perftest_answer(ctx *x, const iw_step *s, const dut_msg *dm)
{
	if (dm->opcode != IW_OP_SEND)
		return ex_fail(x, NULL, "expected ib_send_lat's answer to the startup Send (a Send), the DUT sent %s",
			       iw_rdmap_op(dm->opcode)->name);
	if (dm->len < IW_PERFTEST_SIZE)
		return ex_herror(x, "line %d: ib_send_lat answered with %zu octets: it runs with -s %zu, and the cases "
				 "need its receives of -s %d: run ib_send_lat -R -s %d (docs/ulp-profiles.md)", s->line,
				 dm->len, dm->len, IW_PERFTEST_SIZE, IW_PERFTEST_SIZE);
	ex_note(x, "ib_send_lat answered the startup Send with %zu octets of its own in %zu segment%s (MSN %u)", dm->len,
		dm->nseg, dm->nseg == 1 ? "" : "s", dm->first.msn);
	return true;
}

bool ex_perftest_msg(ctx *x, const iw_step *s, const dut_msg *dm)
{
	(void)s;
	hconn *h = x->h;
	if (dm->opcode != IW_OP_SEND || dm->len != h->pt_want)
		return ex_fail(x, NULL, "perftest's comm connection: expected a Send of %zu octets, the DUT sent %s with %zu",
			       h->pt_want, iw_rdmap_op(dm->opcode)->name, dm->len);
	memcpy(h->pt_msg, dm->data, dm->len < sizeof h->pt_msg ? dm->len : sizeof h->pt_msg);
	h->pt_msg_len = dm->len;
	return true;
}

/* The comm connection is the means of a case, not its subject: when it does not get through,
 * the case is not judged (ERROR, saying what perftest did), never failed on the case's
 * requirement. */
static bool comm_error(ctx *x, const char *what)
{
	if (x->harness_error)
		return false;
	char r[512];
	snprintf(r, sizeof r, "%.500s", x->r->reason);
	ex_unfail(x);
	return ex_herror(x, "perftest's comm connection, its %s: %s (the case is not judged)", what, r);
}

/* One message each way on the comm connection (x->h): perftest's client sends first and its
 * server answers, so the harness's Send, then the DUT's of n octets, against a server DUT, and
 * the other way round against a client DUT (the initiator role). */
static bool exchange(ctx *x, const uint8_t *mine, size_t nmine, size_t n, int64_t within_ms, const char *what)
{
	iw_step snd, exp;
	ex_st_init(&snd, IW_STEP_SEND_FPDU, "send", 0);
	ex_st_bytes(&snd, "data", mine, nmine);
	ex_st_init(&exp, IW_EXPECT_FPDU, "perftest", 0);
	ex_st_int(&exp, "within", within_ms, IW_ARG_DURATION);
	x->h->pt_want = n;
	if (x->dut_role == IW_ROLE_INITIATOR)
		return (ex_exp_message(x, &exp, false) || comm_error(x, what)) && ex_act_send_fpdu(x, &snd);
	return ex_act_send_fpdu(x, &snd) && (ex_exp_message(x, &exp, false) || comm_error(x, what));
}

bool ex_perftest_prelude(ctx *x, hconn *h, int64_t timeout_ms)
{
	for (int i = 0; i < x->nconns; i++)
		ex_perftest_end(x, &x->conns[i]);
	ex_perftest_end(x, h);
	hconn *comm = calloc(1, sizeof *comm);
	if (!comm)
		return ex_herror(x, "out of memory opening perftest's comm connection");
	comm->fd = -1;
	comm->pt_is_comm = true;
	h->pt_comm = comm;
	int64_t within = timeout_ms > 0 ? timeout_ms : DEFAULT_WITHIN_MS;
	/* The run before (a case's earlier connection, the probe's) may not have ended yet, nor the
	 * next one listen: a comm connection reset before its Reply, or refused with R=1 (siw
	 * answers so on a port nobody listens on through rdma_cm), is tried again, a few times. */
	for (int attempt = 1;; attempt++) {
		bool opened = ex_open_into(x, comm, COMM_NO(h->no), timeout_ms, 0);
		if (opened && ex_startup_frames(x, within, 0, 1, 0))
			break;
		/* Not opened: the driver retried the refusals for the connect timeout already. */
		bool refused = comm->got_frame_valid && comm->got_frame.r && x->dut_role == IW_ROLE_RESPONDER;
		if (!opened || x->harness_error || (comm->got_frame_valid && !refused) || attempt == COMM_ATTEMPTS)
			return opened ? comm_error(x, "startup") : false;
		ex_note(x, "perftest's comm connection, attempt %d: %.300s (the run before had not ended yet); again in "
			"%d ms", attempt, x->r->reason, COMM_RETRY_MS);
		ex_unfail(x);
		ex_hconn_free(comm);
		memset(comm, 0, sizeof *comm);
		comm->fd = -1;
		comm->pt_is_comm = true;
		struct timespec ts = { 0, COMM_RETRY_MS * 1000000L };
		nanosleep(&ts, NULL);
	}
	uint8_t mine[IW_PERFTEST_VERSION_LEN];
	iw_perftest_version_encode(mine, IW_PERFTEST_VERSION);
	if (!exchange(x, mine, sizeof mine, IW_PERFTEST_VERSION_LEN, within, "version"))
		return false;
	int v = iw_perftest_version_parse(comm->pt_msg);
	if (v < IW_PERFTEST_MIN_VERSION)
		return ex_herror(x, "perftest's comm connection: the DUT's version message is not one perftest 5.70 or later "
				 "sends (%.16s)", v < 0 ? "not D.DD" : (const char *)comm->pt_msg);
	h->pt_version = v;
	h->pt_cycle = IW_PERFTEST_CYCLE_BUFFER;
	h->pt_cache = IW_PERFTEST_CACHE_LINE;
	if (v >= 532) {
		uint8_t b[IW_PERFTEST_INT_LEN];
		iw_put_be32(b, IW_PERFTEST_CYCLE_BUFFER);
		if (!exchange(x, b, sizeof b, IW_PERFTEST_INT_LEN, within, "cycle buffer"))
			return false;
		if (iw_get_be32(comm->pt_msg) > h->pt_cycle)
			h->pt_cycle = iw_get_be32(comm->pt_msg);
		iw_put_be32(b, IW_PERFTEST_CACHE_LINE);
		if (!exchange(x, b, sizeof b, IW_PERFTEST_INT_LEN, within, "cache line size"))
			return false;
		if (iw_get_be32(comm->pt_msg) > h->pt_cache)
			h->pt_cache = iw_get_be32(comm->pt_msg);
	}
	if (v >= 510) {
		uint8_t b[IW_PERFTEST_INT_LEN] = { 0 };
		size_t n = v >= 531 ? IW_PERFTEST_MTU_LEN : IW_PERFTEST_INT_LEN;
		iw_perftest_mtu_encode(b, 3);
		if (!exchange(x, b, n, n, within, "MTU"))
			return false;
	}
	/* The sync before the test connection: perftest's server listens for it only after this. */
	iw_perftest_keys none = { 0 };
	uint8_t k[IW_PERFTEST_KEYS_LEN];
	iw_perftest_keys_encode(k, &none);
	for (int i = 0; i < IW_PERFTEST_KEYS_BEFORE; i++)
		if (!exchange(x, k, sizeof k, IW_PERFTEST_KEYS_LEN, within, "keys before the test connection"))
			return false;
	return true;
}

/* Against a client DUT: its test, which follows the keys at once (IW_PERFTEST_ITERS messages of
 * -s octets: its Sends, its Writes into the buffer the harness's keys name, or its Read Requests
 * of it, each answered with a Read Response), taken whole so that the connection is quiet when
 * the case's own steps begin, as the reflector's greeting is taken. */
static bool client_test(ctx *x, int64_t within_ms)
{
	static uint8_t zeros[IW_PERFTEST_SIZE];
	int ulp = x->o->dut.ulp;
	iw_step st;
	for (int i = 0; i < IW_PERFTEST_ITERS; i++) {
		const char *word = ulp == IW_ULP_PERFTEST_SEND ? "send" : ulp == IW_ULP_PERFTEST_WRITE ? "write" : "read_req";
		ex_st_init(&st, IW_EXPECT_FPDU, word, 0);
		ex_st_int(&st, "within", within_ms, IW_ARG_DURATION);
		if (ulp == IW_ULP_PERFTEST_READ) {
			ex_st_int(&st, "src_stag", IW_PERFTEST_HARNESS_RKEY, IW_ARG_INT);
			ex_st_int(&st, "rsize", IW_PERFTEST_SIZE, IW_ARG_INT);
		} else {
			ex_st_int(&st, "len", IW_PERFTEST_SIZE, IW_ARG_INT);
		}
		if (ulp == IW_ULP_PERFTEST_WRITE)
			ex_st_int(&st, "stag", IW_PERFTEST_HARNESS_RKEY, IW_ARG_INT);
		if (!ex_exp_message(x, &st, false))
			return false;
		if (ulp != IW_ULP_PERFTEST_READ)
			continue;
		ex_st_init(&st, IW_STEP_SEND_FPDU, "read_resp", 0);
		ex_st_bytes(&st, "data", zeros, sizeof zeros);
		if (!ex_act_send_fpdu(x, &st))
			return false;
	}
	ex_note(x, "perftest's client ran its test: %d %s of %d octets", IW_PERFTEST_ITERS,
		ulp == IW_ULP_PERFTEST_SEND ? "Sends" : ulp == IW_ULP_PERFTEST_WRITE ? "Writes" : "Read Requests answered",
		IW_PERFTEST_SIZE);
	return true;
}

/* Against ib_send_lat's server: one Send, as the reflector's startup sends one, and its answer,
 * so that a case begins where it begins under the reflector: the harness's next MSN on QN 0 is
 * 2 and the startup Send was delivered (the DUT's next MSN is 2, not the reflector's 3:
 * exec_receive.c translates a case's `expect send msn=`). */
static bool lat_first(ctx *x, int64_t within_ms)
{
	static const uint8_t hello[] = STARTUP_PAYLOAD;
	iw_step st;
	ex_st_init(&st, IW_STEP_SEND_FPDU, "send", 0);
	ex_st_bytes(&st, "data", hello, sizeof hello - 1);
	if (!ex_act_send_fpdu(x, &st))
		return false;
	ex_st_init(&st, IW_EXPECT_FPDU, "perftest_answer", 0);
	ex_st_int(&st, "within", within_ms, IW_ARG_DURATION);
	return ex_exp_message(x, &st, false);
}

bool ex_perftest_keys(ctx *x, int64_t within_ms)
{
	hconn *h = x->h;
	hconn *comm = h->pt_comm;
	if (!comm)
		return ex_herror(x, "perftest: no comm connection to exchange the keys on");
	/* As perftest's client the harness offers no buffer of its own: its keys say so with rkey and
	 * vaddr 0. As its server, it names one, which the client's test Writes or Reads. */
	bool client_dut = x->dut_role == IW_ROLE_INITIATOR;
	iw_perftest_keys mine = { .out_reads = 1, .qpn = 1, .psn = 1 }, k;
	uint8_t b[IW_PERFTEST_KEYS_LEN];
	if (client_dut)
		server_keys(b);
	else
		iw_perftest_keys_encode(b, &mine);
	x->h = comm;
	bool ok = true;
	/* ib_send_bw's client sends its test only after a fifth exchange (its server's receives are
	 * posted by then); its server, against the harness as client, needs only the four: its
	 * receives are posted before it waits for the fifth. ib_send_lat's server needs the fifth
	 * too (perftest_msg.h): after it, not before, it polls its receives and answers each Send. */
	bool lat = x->o->dut.ulp == IW_ULP_PERFTEST_SEND_LAT;
	int times = (client_dut && x->o->dut.ulp == IW_ULP_PERFTEST_SEND) || lat ? IW_PERFTEST_SEND_KEYS_AFTER
										  : IW_PERFTEST_KEYS_AFTER;
	for (int i = 0; i < times && ok; i++)
		ok = exchange(x, b, sizeof b, IW_PERFTEST_KEYS_LEN, within_ms, "keys");
	x->h = h;
	if (!ok)
		return false;
	iw_perftest_keys_parse(comm->pt_msg, &k);
	uint64_t range = iw_perftest_range(IW_PERFTEST_SIZE, h->pt_cycle, h->pt_cache);
	ex_note(x, "perftest %d.%02d: its keys name rkey (STag) 0x%x, vaddr (TO) 0x%llx, %llu octets to the end of "
		"its buffer", h->pt_version / 100, h->pt_version % 100, k.rkey, (unsigned long long)k.vaddr,
		(unsigned long long)range);
	h->have_adv = true;
	h->adv_stag = k.rkey;
	h->adv_to = k.vaddr;
	h->adv_len = (uint32_t)(range < UINT32_MAX ? range : UINT32_MAX);
	ex_adv_to_model(h);
	if (lat)
		return lat_first(x, within_ms);
	if (!client_dut)
		return true;
	comm->pt_tested = client_test(x, within_ms);
	if (!comm->pt_tested)
		return false;
	/* The client's keys after its test, the first message of its close, which it sends once it
	 * has polled its test's completions: until then a case's first stimulus, arriving on the
	 * heels of the test, could end its test in an error and the process with it, and siw's
	 * connection would close as the process exits (a close that is perftest's, not siw's
	 * answer to the stimulus). Answered when the run is ended (ex_perftest_end). */
	x->h = comm;
	ok = answer(x, IW_PERFTEST_KEYS_LEN, NULL, 0, within_ms) || comm_error(x, "keys after the test");
	x->h = h;
	comm->pt_close_keys = ok;
	return ok;
}
