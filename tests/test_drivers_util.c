/* Helpers of the driver tests (test_drivers.h). */
#include "test_drivers.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mpa_frame.h"
#include "net.h"

bool msg_has(const char *msg, const char *part)
{
	if (strstr(msg, part))
		return true;
	fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", msg, part);
	return false;
}

/* Reads until cap octets, end of stream, reset or ms elapsed; *st is the last status. */
size_t read_for(int fd, uint8_t *buf, size_t cap, int64_t ms, int *st)
{
	size_t got = 0;
	int64_t deadline = iw_net_now_ms() + ms;
	*st = IW_NET_TIMEOUT;
	while (got < cap) {
		int64_t left = deadline - iw_net_now_ms();
		if (left <= 0)
			break;
		size_t n;
		*st = iw_net_read(fd, buf + got, cap - got, left, &n, NULL);
		if (*st != IW_NET_DATA)
			break;
		got += n;
	}
	return got;
}

/* A Request of profile p with the given flags octet (and a key octet flipped when flip >= 0). */
void send_request(int fd, const iw_profile *p, bool m, int flip)
{
	iw_mpa_frame f;
	uint8_t buf[64];
	size_t n;
	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	f.m = m;
	CHECK_EQ(iw_mpa_frame_encode(&f, buf, sizeof buf, &n, NULL), IW_OK);
	if (flip >= 0)
		buf[flip] ^= 0x01;
	CHECK_EQ(iw_net_write_all(fd, buf, n, 10000, NULL), IW_OK);
}

void cfg_ref(iw_dut_config *c, const char *hostile, const char *mutant)
{
	iw_err e;
	iw_dut_config_default(c);
	if (hostile)
		CHECK_EQ(iw_dut_config_set(c, "hostile", hostile, &e), IW_OK);
	if (mutant)
		CHECK_EQ(iw_dut_config_set(c, "mutant", mutant, &e), IW_OK);
}

/* Opens the ref driver and connects once (DUT responder). */
iw_driver *ref_connect(const iw_dut_config *c, int *fd)
{
	iw_driver *d = NULL;
	iw_err e;
	*fd = -1;
	if (iw_driver_open(&d, c, &e) != IW_OK) {
		check_fail(__FILE__, __LINE__, "iw_driver_open: %s", e.msg);
		return NULL;
	}
	CHECK_EQ(d->ops->case_begin(d, &e), IW_OK);
	if (d->ops->connect(d, fd, AWAIT_MS, 0, &e) != IW_OK)
		check_fail(__FILE__, __LINE__, "connect: %s", e.msg);
	return d;
}

void end_case(iw_driver *d, int fd)
{
	iw_dut_finding f;
	iw_err e;
	if (fd >= 0)
		close(fd);
	if (!d)
		return;
	CHECK_EQ(d->ops->case_end(d, &f, &e), IW_OK);
	CHECK(!f.present);
	iw_driver_close(d);
}

/* Moves octets between fd and the harness-side model until an event of kind want (copied
 * to *out, with its Send payload into data) or ms elapsed. */
bool model_until(int fd, iw_conn *m, enum iw_conn_ev_kind want, int64_t ms, iw_conn_event *out,
			uint8_t *data, size_t cap)
{
	int64_t deadline = iw_net_now_ms() + ms;
	uint8_t buf[8192];
	for (;;) {
		iw_conn_event ev;
		while (iw_conn_next_event(m, &ev)) {
			if (ev.kind == want) {
				*out = ev;
				if (data && ev.data && ev.len <= cap)
					memcpy(data, ev.data, ev.len);
				return true;
			}
		}
		size_t n;
		const uint8_t *o = iw_conn_output_peek(m, &n);
		if (n) {
			if (iw_net_write_all(fd, o, n, 1000, NULL) != IW_OK)
				return false;
			iw_conn_output_consume(m, n);
		}
		int64_t left = deadline - iw_net_now_ms();
		if (left <= 0)
			return false;
		int st = iw_net_read(fd, buf, sizeof buf, left < 50 ? left : 50, &n, NULL);
		if (st == IW_NET_DATA)
			iw_conn_input(m, buf, n);
		else if (st == IW_NET_EOF || st == IW_NET_RESET)
			iw_conn_peer_closed(m);
		else if (st < 0)
			return false;
	}
}

iw_conn *harness_model(enum iw_role role, bool markers)
{
	iw_conn_config mc;
	iw_conn *m = NULL;
	iw_err e;
	iw_conn_config_default(&mc, iw_profile_default(), role);
	mc.want_markers = markers;
	CHECK_EQ(iw_conn_new(&m, &mc, &e), IW_OK);
	if (m)
		CHECK_EQ(iw_conn_start(m, &e), IW_OK);
	return m;
}
