/*
 * test_pcap_decode.c - `iwspec decode` judging captures: harness-like traffic between two
 * connection models (conforming, then with a CRC error), the startup-order rules across the two
 * directions, and traffic between a harness-like initiator and the built-in DUT over a real
 * loopback connection.
 */
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

#include "decode_pcap.h"
#include "iw_conn.h"
#include "net.h"
#include "pcap_fixture.h"
#include "pcap_write.h"
#include "ref_server.h"

/* ---- decoding captures ---- */

/* Runs `iwspec decode` on a capture with its output in a file; returns the exit status and
 * the output (malloc'd). */
static int decode_capture(const char *pcap, bool json, char **out)
{
	iw_decode_opts o;
	iw_decode_opts_default(&o);
	o.json = json;
	o.details = true;
	return pf_decode_stdout(pcap, &o, out);
}

/* Two connection models pumped against each other, every piece recorded as a chunk. */
typedef struct recorder {
	iw_pcap_chunk ch[64];
	uint8_t *mem[64];
	size_t n;
	int pieces_a;               /* pieces the initiator sent so far */
} recorder;

static void pump(iw_conn *a, iw_conn *b, recorder *r, int flip_piece_of_a)
{
	iw_conn *c[2] = {a, b};
	bool progress = true;
	while (progress && r->n < 64) {
		progress = false;
		for (int s = 0; s < 2; s++) {
			size_t n;
			const uint8_t *o = iw_conn_output_peek(c[s], &n);
			if (!n)
				continue;
			uint8_t *copy = malloc(n);
			memcpy(copy, o, n);
			iw_conn_output_consume(c[s], n);
			if (s == 0 && r->pieces_a++ == flip_piece_of_a && n > 10)
				copy[n - 6] ^= 0x40;    /* a ULPDU octet of that FPDU: a CRC error */
			r->mem[r->n] = copy;
			r->ch[r->n].dir = s == 0 ? IW_PCAP_C2S : IW_PCAP_S2C;
			r->ch[r->n].data = copy;
			r->ch[r->n].len = n;
			r->n++;
			iw_conn_input(c[!s], copy, n);
			iw_conn_event ev;
			while (iw_conn_next_event(c[!s], &ev))
				if (ev.kind == IW_EV_SEND && s == 0)
					iw_conn_send(c[1], IW_OP_SEND, ev.data, ev.len, NULL);     /* reflector */
			while (iw_conn_next_event(c[s], &ev))
				;
			progress = true;
		}
	}
}

static void harness_like(const iw_profile *p, int flip, const char *path)
{
	iw_conn_config ci, cr;
	iw_conn_config_default(&ci, p, IW_ROLE_INITIATOR);
	iw_conn_config_default(&cr, p, IW_ROLE_RESPONDER);
	cr.want_markers = true;
	iw_conn *a = NULL, *b = NULL;
	iw_err e;
	CHECK_EQ(iw_conn_new(&a, &ci, &e), IW_OK);
	CHECK_EQ(iw_conn_new(&b, &cr, &e), IW_OK);
	static uint8_t buf[4096];
	CHECK_EQ(iw_conn_register(b, 0x1000, 0, buf, sizeof buf, IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE, &e),
		 IW_OK);
	recorder r;
	memset(&r, 0, sizeof r);
	iw_conn_start(a, &e);
	pump(a, b, &r, flip);
	static const uint8_t hello[] = "hello, responder";
	iw_conn_send(a, IW_OP_SEND, hello, sizeof hello, &e);
	pump(a, b, &r, flip);
	iw_conn_write(a, 0x1000, 0, buf, 700, &e);
	pump(a, b, &r, flip);
	iw_conn_send(a, IW_OP_SEND, hello, sizeof hello, &e);
	pump(a, b, &r, flip);
	CHECK_EQ(iw_pcap_write_conn(path, IW_PCAP_LINK_ETHERNET, NULL, r.ch, r.n, &e), 0);
	for (size_t i = 0; i < r.n; i++)
		free(r.mem[i]);
	iw_conn_free(a);
	iw_conn_free(b);
}

TEST(pcap_decode_harness_like_conversation)
{
	const char *path = pf_tmp_path("conv.pcap");
	char *out = NULL;
	harness_like(iw_profile_get(IW_PROFILE_RFC5044), -1, path);
	CHECK_EQ(decode_capture(path, false, &out), 0);
	CHECK(strstr(out, "profile rfc5044") != NULL);
	CHECK(strstr(out, "MPA Request frame") != NULL);
	CHECK(strstr(out, "MPA Reply frame") != NULL);
	CHECK(strstr(out, "markers on") != NULL);        /* the initiator sends markers: M=1 in the Reply */
	CHECK(strstr(out, "RDMA Write") != NULL);
	CHECK(strstr(out, "the capture conforms") != NULL);
	free(out);

	harness_like(iw_profile_get(IW_PROFILE_RFC6581), 2, path);
	CHECK_EQ(decode_capture(path, false, &out), 1);
	CHECK(strstr(out, "profile rfc6581") != NULL);
	CHECK(strstr(out, "VIOLATION MPA-5.2-11") != NULL);   /* the sender's CRC rule, as run names it */
	CHECK(strstr(out, "(frame ") != NULL);
	CHECK(strstr(out, "LLP/0x0/0x02") != NULL);
	CHECK(strstr(out, "Terminate LLP/0x0/0x02") != NULL);   /* the responder's answer, decoded */
	free(out);

	CHECK_EQ(decode_capture(path, true, &out), 1);
	json_error_t je;
	json_t *j = json_loads(out, 0, &je);
	CHECK(j != NULL);
	if (j) {
		CHECK(json_is_false(json_object_get(j, "conforms")));
		json_t *dirs = json_object_get(json_array_get(json_object_get(j, "connections"), 0), "directions");
		CHECK_EQ(json_array_size(dirs), 2);
		json_t *v = json_array_get(json_object_get(json_array_get(dirs, 0), "violations"), 0);
		CHECK_STR(json_string_value(json_object_get(v, "requirement")), "MPA-5.2-11");
		CHECK(json_integer_value(json_object_get(v, "frame")) > 3);
		json_decref(j);
	}
	free(out);
	unlink(path);
}

/* A capture whose responder speaks before it received an FPDU, and whose initiator sends
 * FPDUs after a rejecting Reply: the rules across the two directions. */
TEST(pcap_decode_startup_order_rules)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	uint8_t req[64], rep[64], fp[128];
	size_t rql, rpl, fl;
	iw_mpa_frame f;
	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	iw_mpa_frame_encode(&f, req, sizeof req, &rql, NULL);
	iw_mpa_frame_init(&f, p, IW_MPA_REPLY);
	iw_mpa_frame_encode(&f, rep, sizeof rep, &rpl, NULL);
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p, false, true);
	uint8_t h[18] = {0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
	iw_mpa_tx_fpdu(&tx, h, sizeof h, (const uint8_t *)"hi", 2, NULL, fp, sizeof fp, &fl, NULL);
	const char *path = pf_tmp_path("order.pcap");
	iw_pcap_chunk early[] = {{IW_PCAP_C2S, req, rql}, {IW_PCAP_S2C, rep, rpl}, {IW_PCAP_S2C, fp, fl},
				 {IW_PCAP_C2S, fp, fl}};
	iw_err e;
	CHECK_EQ(iw_pcap_write_conn(path, IW_PCAP_LINK_RAW, NULL, early, 4, &e), 0);
	char *out;
	CHECK_EQ(decode_capture(path, false, &out), 1);
	CHECK(strstr(out, "VIOLATION MPA-6.1-R4") != NULL);
	free(out);

	iw_mpa_frame_init(&f, p, IW_MPA_REPLY);
	f.r = true;
	iw_mpa_frame_encode(&f, rep, sizeof rep, &rpl, NULL);
	iw_pcap_chunk rej[] = {{IW_PCAP_C2S, req, rql}, {IW_PCAP_S2C, rep, rpl}, {IW_PCAP_C2S, fp, fl}};
	CHECK_EQ(iw_pcap_write_conn(path, IW_PCAP_LINK_ETHERNET, NULL, rej, 3, &e), 0);
	CHECK_EQ(decode_capture(path, false, &out), 1);
	CHECK(strstr(out, "VIOLATION MPA-6.1-R3c") != NULL);
	free(out);

	/* No MPA at all: status 3. */
	iw_pcap_chunk http[] = {{IW_PCAP_C2S, (const uint8_t *)"GET / HTTP/1.0\r\n\r\n", 18}};
	CHECK_EQ(iw_pcap_write_conn(path, IW_PCAP_LINK_ETHERNET, NULL, http, 1, &e), 0);
	CHECK_EQ(decode_capture(path, false, &out), 3);
	CHECK(strstr(out, "not MPA") != NULL);
	free(out);
	unlink(path);
}

/* Traffic between a harness-like initiator and the built-in DUT, over a real loopback TCP
 * connection: what crossed the socket is written as a capture and judged. */
TEST(pcap_decode_traffic_with_the_builtin_dut)
{
	iw_ref_options ro;
	iw_ref_options_default(&ro);
	ro.markers = true;
	iw_ref_server *srv = NULL;
	iw_err e;
	if (iw_ref_server_new(&srv, &ro, &e) != IW_OK || iw_ref_server_start(srv, &e) != IW_OK) {
		check_fail(__FILE__, __LINE__, "cannot start the built-in DUT: %s", e.msg);
		iw_ref_server_free(srv);
		return;
	}
	int fd = -1;
	CHECK_EQ(iw_net_connect("127.0.0.1", iw_ref_server_port(srv), 2000, 0, &fd, &e), IW_OK);
	iw_conn_config cc;
	iw_conn_config_default(&cc, ro.profile, IW_ROLE_INITIATOR);
	iw_conn *c = NULL;
	CHECK_EQ(iw_conn_new(&c, &cc, &e), IW_OK);
	recorder r;
	memset(&r, 0, sizeof r);
	iw_conn_start(c, &e);
	static const uint8_t msg[] = "echo me, built-in DUT";
	int sends = 0, echoes = 0;
	/* The two echoes end the exchange; the deadline is a hang guard, not a pace the DUT's
	 * thread must keep on a loaded machine. */
	int64_t deadline = iw_net_now_ms() + 10000;
	bool full = false;
	while (fd >= 0 && c && iw_net_now_ms() < deadline && echoes < 2 && r.n < 60) {
		size_t n;
		const uint8_t *o = iw_conn_output_peek(c, &n);
		if (n) {
			uint8_t *copy = malloc(n);
			memcpy(copy, o, n);
			iw_conn_output_consume(c, n);
			r.mem[r.n] = copy;
			r.ch[r.n++] = (iw_pcap_chunk){IW_PCAP_C2S, copy, n};
			CHECK_EQ(iw_net_write_all(fd, copy, n, 1000, &e), IW_OK);
			continue;
		}
		uint8_t in[8192];
		size_t got = 0;
		int st = iw_net_read(fd, in, sizeof in, 200, &got, &e);
		if (st == IW_NET_DATA) {
			uint8_t *copy = malloc(got);
			memcpy(copy, in, got);
			r.mem[r.n] = copy;
			r.ch[r.n++] = (iw_pcap_chunk){IW_PCAP_S2C, copy, got};
			iw_conn_input(c, copy, got);
		} else if (st != IW_NET_TIMEOUT) {
			break;
		}
		iw_conn_event ev;
		while (iw_conn_next_event(c, &ev)) {
			full |= ev.kind == IW_EV_FULL_OPERATION;
			echoes += ev.kind == IW_EV_SEND;
		}
		if (full && sends < 2) {
			iw_conn_send(c, IW_OP_SEND, msg, sizeof msg, &e);
			sends++;
		}
	}
	CHECK_EQ(echoes, 2);
	if (fd >= 0)
		iw_net_close_fin(fd, 100);
	iw_conn_free(c);
	iw_ref_server_free(srv);
	const char *path = pf_tmp_path("dut.pcap");
	CHECK_EQ(iw_pcap_write_conn(path, IW_PCAP_LINK_ETHERNET, NULL, r.ch, r.n, &e), 0);
	for (size_t i = 0; i < r.n; i++)
		free(r.mem[i]);
	char *out;
	CHECK_EQ(decode_capture(path, false, &out), 0);
	CHECK(strstr(out, "the capture conforms: 1 MPA connection") != NULL);
	CHECK(strstr(out, "responder 10.0.0.2:4791") != NULL);
	CHECK(strstr(out, "marker@") != NULL);     /* the DUT asked for markers (M=1) */
	if (!strstr(out, "conforms"))
		fprintf(stderr, "%s\n", out);
	free(out);
	unlink(path);
}
