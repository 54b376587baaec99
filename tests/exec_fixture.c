/*
 * exec_fixture.c - the scripted DUT and the single-case run of the executor tests (exec_fixture.h).
 */
#include "exec_fixture.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "case.h"
#include "check.h"
#include "ddp.h"
#include "driver.h"
#include "iw_conn.h"
#include "mpa_fpdu.h"
#include "mpa_frame.h"
#include "rdmap.h"
#include "runner.h"

/* Reads whatever arrives within ms; -1 on EOF or error. */
static ssize_t read_some(int fd, int ms)
{
	struct pollfd pf = {.fd = fd, .events = POLLIN};
	if (poll(&pf, 1, ms) <= 0)
		return 0;
	uint8_t b[4096];
	ssize_t n = read(fd, b, sizeof b);
	return n > 0 ? n : -1;
}

static void *dut_main(void *arg)
{
	scripted_dut *d = arg;
	int fd = accept(d->lfd, NULL, NULL);
	if (fd < 0)
		return NULL;
	if (d->mode == DUT_RESETS) {
		struct linger l = {.l_onoff = 1, .l_linger = 0};
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
	}
	if (d->mode == DUT_CLOSES || d->mode == DUT_RESETS)
		goto out;
	if (d->mode == DUT_SILENT) {
		while (read_some(fd, 3000) >= 0)
			;
		goto out;
	}
	size_t got = 0, want = d->min_read ? d->min_read : IW_MPA_FRAME_HDR_LEN;
	while (got < want) {
		ssize_t n = read_some(fd, 2000);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (write(fd, d->reply, d->reply_len) != (ssize_t)d->reply_len || d->close_after)
		goto out;
	if (d->close_on_data) {
		read_some(fd, 2000);
		goto out;
	}
	if (d->after_len) {
		if (read_some(fd, 2000) <= 0)
			goto out;
		if (d->after_delay_ms)
			poll(NULL, 0, d->after_delay_ms);
		if (write(fd, d->after, d->after_len) != (ssize_t)d->after_len)
			goto out;
	}
	while (read_some(fd, 3000) > 0)
		;
out:
	close(fd);
	return NULL;
}

void dut_start(scripted_dut *d)
{
	d->lfd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	CHECK(bind(d->lfd, (struct sockaddr *)&a, sizeof a) == 0);
	CHECK(listen(d->lfd, 1) == 0);
	socklen_t al = sizeof a;
	CHECK(getsockname(d->lfd, (struct sockaddr *)&a, &al) == 0);
	d->port = ntohs(a.sin_port);
	CHECK(pthread_create(&d->th, NULL, dut_main, d) == 0);
}

void dut_stop(scripted_dut *d)
{
	pthread_join(d->th, NULL);
	close(d->lfd);
}

size_t good_reply(uint8_t *out, size_t cap)
{
	iw_mpa_frame f;
	iw_mpa_frame_init(&f, iw_profile_get(IW_PROFILE_RFC5044), IW_MPA_REPLY);
	f.c = true;
	size_t n = 0;
	CHECK_EQ(iw_mpa_frame_encode(&f, out, cap, &n, NULL), IW_OK);
	return n;
}

size_t send_fpdu(const char *payload, uint8_t *out, size_t cap)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	iw_ddp_hdr h = {.tagged = false, .last = true, .dv = p->ddp_version, .qn = IW_QN_SEND, .msn = 1, .mo = 0};
	h.rsvdulp[0] = iw_rdmap_ctrl(p->rdmap_version, IW_OP_SEND);
	uint8_t hdr[IW_DDP_UNTAGGED_HDR_LEN];
	size_t hl;
	CHECK_EQ(iw_ddp_hdr_encode(&h, hdr, sizeof hdr, &hl, NULL), IW_OK);
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p, false, true);
	size_t n = 0;
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, hdr, hl, (const uint8_t *)payload, strlen(payload), NULL, out, cap, &n, NULL),
		 IW_OK);
	return n;
}

void run_text_with(const char *text, const char *name, iw_run_opts *o, iw_run *run)
{
	memset(run, 0, sizeof *run);
	iw_case *c = NULL;
	iw_err e;
	CHECK_EQ(iw_case_parse(text, strlen(text), name, &c, &e), IW_OK);
	o->seed = 1;
	iw_driver *drv = NULL;
	CHECK_EQ(iw_driver_open(&drv, &o->dut, &e), IW_OK);
	run->cases = calloc(1, sizeof *run->cases);
	run->ncases = run->capcases = 1;
	iw_case_result *r = &run->cases[0];
	if (c)
		iw_result_set_case(r, c);
	r->verdict = IW_PASS;
	if (drv && c)
		iw_exec_case(c, o->dut.profile, IW_ROLE_RESPONDER, o, drv, r);
	iw_driver_close(drv);
	iw_case_free(c);
}

void run_against_cfg(scripted_dut *d, const char *text, const exec_cfg *cfg, iw_run *run)
{
	iw_err e;
	iw_run_opts o;
	memset(&o, 0, sizeof o);
	iw_dut_config_default(&o.dut);
	char dut[64];
	snprintf(dut, sizeof dut, "tcp:127.0.0.1:%u", d->port);
	CHECK_EQ(iw_dut_config_set(&o.dut, "dut", dut, &e), IW_OK);
	o.dut.profile = iw_profile_get(IW_PROFILE_RFC5044);
	o.dut.role = IW_ROLE_RESPONDER;
	o.dut.case_timeout_ms = 5000;
	if (cfg) {
		o.dut.crc_off_mode = cfg->crc_off_mode;
		o.dut.reject = cfg->reject;
		o.frame_no_crc = cfg->frame_no_crc;
		if (cfg->profile)
			o.dut.profile = iw_profile_get(cfg->profile);
	}
	run_text_with(text, "test_exec.iwt", &o, run);
}

char *case_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = calloc(1, 65536);
	size_t n = buf ? fread(buf, 1, 65535, f) : 0;
	fclose(f);
	if (buf && n == 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

const char *iwspec_binary(void)
{
	const char *env = getenv("IWSPEC");
	if (env && access(env, X_OK) == 0)
		return env;
	if (access("build/iwspec", X_OK) == 0)
		return "build/iwspec";
	return NULL;
}

void run_catalog_case_mutant(const char *path, const char *mutant, iw_run *run)
{
	memset(run, 0, sizeof *run);
	char *text = case_text(path);
	CHECK(text != NULL);
	if (!text)
		return;
	iw_err e;
	iw_run_opts o;
	memset(&o, 0, sizeof o);
	iw_dut_config_default(&o.dut);
	CHECK_EQ(iw_dut_config_set(&o.dut, "mutant", mutant, &e), IW_OK);
	o.dut.profile = iw_profile_get(IW_PROFILE_RFC5044);
	o.dut.role = IW_ROLE_RESPONDER;
	o.dut.case_timeout_ms = 5000;
	run_text_with(text, path, &o, run);
	free(text);
}
