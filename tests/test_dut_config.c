/* The --dut-config file: every key, every error message, globs (dut_config.h, docs/dut-config.md). */
#include "check.h"

#include <stdlib.h>
#include <unistd.h>

#include "dut_config.h"
#include "iw_conn.h"
#include "iw_proto.h"

/* Writes text to a fresh temporary file; the caller unlinks it. */
static void write_tmp(char *path, size_t cap, const char *text)
{
	snprintf(path, cap, "/tmp/iwspec-dutcfg-XXXXXX");
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	size_t n = strlen(text);
	CHECK_EQ(write(fd, text, n), (long long)n);
	close(fd);
}

static int load_text(iw_dut_config *c, const char *text, iw_err *e, char *path, size_t cap)
{
	write_tmp(path, cap, text);
	int rc = iw_dut_config_load(c, path, e);
	unlink(path);
	return rc;
}

static bool has(const char *msg, const char *part)
{
	if (strstr(msg, part))
		return true;
	fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", msg, part);
	return false;
}

TEST(dut_config_defaults)
{
	iw_dut_config c;
	iw_dut_config_default(&c);
	CHECK_STR(c.dut, "ref");
	CHECK(c.profile == iw_profile_default());
	CHECK_EQ(c.role, IW_ROLE_RESPONDER);
	CHECK_EQ(c.mpa_revision, -1);
	CHECK(c.markers);
	CHECK(!c.crc_off_mode);
	CHECK_EQ(c.pd_limit, 0);
	CHECK(c.reflector);
	CHECK(c.reject);
	CHECK_EQ(c.connect_timeout_ms, 5000);
	CHECK_EQ(c.case_timeout_ms, 10000);
	CHECK_EQ(c.close_timeout_ms, 5000);
	CHECK_EQ(c.ndisabled, 0);
	CHECK_EQ(c.nmaps, 0);
	CHECK_STR(c.hostile, "");
	CHECK_STR(c.mutant, "");
	CHECK_STR(c.source, "defaults");
}

TEST(dut_config_duration)
{
	int64_t ms = -1;
	iw_err e;
	CHECK_EQ(iw_parse_duration("5s", &ms, &e), IW_OK);
	CHECK_EQ(ms, 5000);
	CHECK_EQ(iw_parse_duration("250ms", &ms, &e), IW_OK);
	CHECK_EQ(ms, 250);
	CHECK_EQ(iw_parse_duration("2m", &ms, &e), IW_OK);
	CHECK_EQ(ms, 120000);
	CHECK_EQ(iw_parse_duration("1.5s", &ms, &e), IW_OK);
	CHECK_EQ(ms, 1500);
	CHECK_EQ(iw_parse_duration("0ms", &ms, &e), IW_OK);
	CHECK_EQ(ms, 0);
	ms = 77;
	CHECK_EQ(iw_parse_duration("5", &ms, &e), IW_EINVAL);
	CHECK(has(e.msg, "'5' is not a duration"));
	CHECK(has(e.msg, "250ms"));
	CHECK_EQ(ms, 77);
	CHECK_EQ(iw_parse_duration("s", &ms, &e), IW_EINVAL);
	CHECK_EQ(iw_parse_duration("5 s", &ms, &e), IW_EINVAL);
	CHECK_EQ(iw_parse_duration("-5s", &ms, &e), IW_EINVAL);
	CHECK_EQ(iw_parse_duration("5h", &ms, &e), IW_EINVAL);
	CHECK_EQ(iw_parse_duration("99999999999s", &ms, &e), IW_EINVAL);
	CHECK(has(e.msg, "too long"));
}

TEST(dut_config_set_dut)
{
	iw_dut_config c;
	iw_err e;
	iw_dut_config_default(&c);
	CHECK_EQ(iw_dut_config_set(&c, "dut", "tcp:192.0.2.7:4000", &e), IW_OK);
	CHECK_STR(c.dut, "tcp:192.0.2.7:4000");
	CHECK_EQ(iw_dut_config_set(&c, "dut", "tcp:[::1]:4000", &e), IW_OK);
	CHECK_EQ(iw_dut_config_set(&c, "dut", "exec:'./dut --port {port}'", &e), IW_OK);
	CHECK_STR(c.dut, "exec:'./dut --port {port}'");
	CHECK_EQ(iw_dut_config_set(&c, "dut", "ref", &e), IW_OK);
	CHECK_STR(c.dut, "ref");
	CHECK_EQ(iw_dut_config_set(&c, "dut", "siw", &e), IW_EINVAL);
	CHECK_STR(e.msg, "unknown DUT 'siw': use ref, tcp:HOST:PORT or exec:'COMMAND'");
	CHECK_STR(c.dut, "ref");
	CHECK_EQ(iw_dut_config_set(&c, "dut", "tcp:host", &e), IW_EINVAL);
	CHECK(has(e.msg, "for dut"));
	CHECK(has(e.msg, "HOST:PORT"));
	CHECK_EQ(iw_dut_config_set(&c, "dut", "tcp:host:0", &e), IW_EINVAL);
	CHECK(has(e.msg, "1 to 65535"));
	CHECK_EQ(iw_dut_config_set(&c, "dut", "tcp::80", &e), IW_EINVAL);
	CHECK(has(e.msg, "host is empty"));
	CHECK_EQ(iw_dut_config_set(&c, "dut", "exec:", &e), IW_EINVAL);
	CHECK(has(e.msg, "needs a command"));
}

TEST(dut_config_set_scalars)
{
	iw_dut_config c;
	iw_err e;
	iw_dut_config_default(&c);
	CHECK_EQ(iw_dut_config_set(&c, "role", "initiator", &e), IW_OK);
	CHECK_EQ(c.role, IW_ROLE_INITIATOR);
	CHECK_EQ(iw_dut_config_set(&c, "role", "responder", &e), IW_OK);
	CHECK_EQ(c.role, IW_ROLE_RESPONDER);
	CHECK_EQ(iw_dut_config_set(&c, "role", "server", &e), IW_EINVAL);
	CHECK_STR(e.msg, "bad value 'server' for role: use responder or initiator");

	CHECK_EQ(iw_dut_config_set(&c, "profile", "rfc6581", &e), IW_OK);
	CHECK(c.profile == iw_profile_find("rfc6581"));
	CHECK_EQ(iw_dut_config_set(&c, "profile", "rfc5045", &e), IW_EINVAL);
	CHECK(has(e.msg, "'rfc5045' for profile"));
	CHECK(has(e.msg, "rfc5044"));
	CHECK(has(e.msg, "culley-mpa-02"));

	CHECK_EQ(iw_dut_config_set(&c, "mpa_revision", "2", &e), IW_OK);
	CHECK_EQ(c.mpa_revision, 2);
	CHECK_EQ(iw_dut_config_set(&c, "mpa_revision", "256", &e), IW_EINVAL);
	CHECK(has(e.msg, "'256' for mpa_revision"));
	CHECK(has(e.msg, "0 to 255"));
	CHECK_EQ(iw_dut_config_set(&c, "mpa_revision", "two", &e), IW_EINVAL);

	CHECK_EQ(iw_dut_config_set(&c, "markers", "no", &e), IW_OK);
	CHECK(!c.markers);
	CHECK_EQ(iw_dut_config_set(&c, "markers", "yes", &e), IW_OK);
	CHECK(c.markers);
	CHECK_EQ(iw_dut_config_set(&c, "markers", "maybe", &e), IW_EINVAL);
	CHECK_STR(e.msg, "bad value 'maybe' for markers: use yes or no");

	CHECK_EQ(iw_dut_config_set(&c, "crc", "optional-off", &e), IW_OK);
	CHECK(c.crc_off_mode);
	CHECK_EQ(iw_dut_config_set(&c, "crc", "required", &e), IW_OK);
	CHECK(!c.crc_off_mode);
	CHECK_EQ(iw_dut_config_set(&c, "crc", "off", &e), IW_EINVAL);
	CHECK(has(e.msg, "'off' for crc: use required or optional-off"));

	CHECK_EQ(iw_dut_config_set(&c, "private_data_limit", "256", &e), IW_OK);
	CHECK_EQ(c.pd_limit, 256);
	CHECK_EQ(iw_dut_config_set(&c, "private_data_limit", "0x200", &e), IW_OK);
	CHECK_EQ(c.pd_limit, 512);
	CHECK_EQ(iw_dut_config_set(&c, "private_data_limit", "65536", &e), IW_EINVAL);
	CHECK(has(e.msg, "'65536' for private_data_limit"));
	CHECK_EQ(iw_dut_config_set(&c, "private_data_limit", "-1", &e), IW_EINVAL);

	CHECK_EQ(iw_dut_config_set(&c, "reflector", "no", &e), IW_OK);
	CHECK(!c.reflector);
	CHECK_EQ(iw_dut_config_set(&c, "reflector", "1", &e), IW_EINVAL);
	CHECK(has(e.msg, "for reflector: use yes or no"));
	CHECK_EQ(iw_dut_config_set(&c, "reject", "no", &e), IW_OK);
	CHECK(!c.reject);
	CHECK_EQ(iw_dut_config_set(&c, "reject", "", &e), IW_EINVAL);
	CHECK(has(e.msg, "for reject"));
}

TEST(dut_config_set_timeouts)
{
	iw_dut_config c;
	iw_err e;
	iw_dut_config_default(&c);
	CHECK_EQ(iw_dut_config_set(&c, "connect_timeout", "250ms", &e), IW_OK);
	CHECK_EQ(c.connect_timeout_ms, 250);
	CHECK_EQ(iw_dut_config_set(&c, "case_timeout", "1m", &e), IW_OK);
	CHECK_EQ(c.case_timeout_ms, 60000);
	CHECK_EQ(iw_dut_config_set(&c, "close_timeout", "2s", &e), IW_OK);
	CHECK_EQ(c.close_timeout_ms, 2000);
	CHECK_EQ(iw_dut_config_set(&c, "close_timeout", "2", &e), IW_EINVAL);
	CHECK(has(e.msg, "for close_timeout"));
	CHECK(has(e.msg, "'2' is not a duration"));
	/* first_fpdu_delay: 0 by default (MPA lets the initiator send at once), 0 allowed, capped */
	CHECK_EQ(c.first_fpdu_delay_ms, 0);
	CHECK_EQ(iw_dut_config_set(&c, "first_fpdu_delay", "50ms", &e), IW_OK);
	CHECK_EQ(c.first_fpdu_delay_ms, 50);
	CHECK_EQ(iw_dut_config_set(&c, "first_fpdu_delay", "0ms", &e), IW_OK);
	CHECK_EQ(c.first_fpdu_delay_ms, 0);
	CHECK_EQ(iw_dut_config_set(&c, "first_fpdu_delay", "11s", &e), IW_EINVAL);
	CHECK(has(e.msg, "at most 10s"));
	CHECK_EQ(iw_dut_config_set(&c, "case_timeout", "0s", &e), IW_EINVAL);
	CHECK(has(e.msg, "'0s' for case_timeout: a timeout must be more than 0"));
	CHECK_EQ(c.case_timeout_ms, 60000);
}

TEST(dut_config_set_hostile_mutant)
{
	iw_dut_config c;
	iw_err e;
	iw_dut_config_default(&c);
	CHECK_EQ(iw_dut_config_set(&c, "hostile", "slow", &e), IW_OK);
	CHECK_STR(c.hostile, "slow");
	CHECK_EQ(iw_dut_config_set(&c, "hostile", "none", &e), IW_OK);
	CHECK_STR(c.hostile, "");
	CHECK_EQ(iw_dut_config_set(&c, "hostile", "rude", &e), IW_EINVAL);
	CHECK(has(e.msg, "for hostile"));
	CHECK(has(e.msg, "'rude'"));
	CHECK(has(e.msg, "never-close"));
	CHECK_EQ(iw_dut_config_set(&c, "mutant", "reply-c0", &e), IW_OK);
	CHECK_STR(c.mutant, "reply-c0");
	CHECK_EQ(iw_dut_config_set(&c, "mutant", "reply-c1", &e), IW_EINVAL);
	CHECK(has(e.msg, "for mutant"));
	CHECK(has(e.msg, "iwspec mutants --list"));  /* 49 names do not fit one message */
}

/* The modes of issue 14: each parses to itself, and a bad mode's message lists every one. */
TEST(dut_config_hostile_connection_modes)
{
	static const char *const modes[] = {"silent", "close", "rst", "bad-reply-stall", "drip"};
	iw_dut_config c;
	iw_err e;
	iw_dut_config_default(&c);
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		CHECK_EQ(iw_dut_config_set(&c, "hostile", modes[i], &e), IW_OK);
		CHECK_STR(c.hostile, modes[i]);
	}
	CHECK_EQ(iw_dut_config_set(&c, "hostile", "stall", &e), IW_EINVAL);
	CHECK_STR(c.hostile, "drip");
	CHECK_STR(e.msg, "bad value for hostile: unknown hostile mode 'stall' (known: none, garbage, reset-mid-frame, "
			 "slow, pd-never, endless, never-close, silent, close, rst, bad-reply-stall, drip)");
	/* In a file too; a bad one is named with its file and line. */
	char path[64];
	iw_dut_config_default(&c);
	CHECK_EQ(load_text(&c, "dut = ref\nhostile = bad-reply-stall\n", &e, path, sizeof path), IW_OK);
	CHECK_STR(c.hostile, "bad-reply-stall");
	CHECK_EQ(load_text(&c, "dut = ref\nhostile = rst-at-once\n", &e, path, sizeof path), IW_EINVAL);
	char want[160];
	snprintf(want, sizeof want, "%s:2: bad value for hostile: unknown hostile mode 'rst-at-once'", path);
	CHECK(has(e.msg, want));
	CHECK(has(e.msg, "bad-reply-stall, drip"));
}

TEST(dut_config_unknown_key)
{
	iw_dut_config c;
	iw_err e;
	iw_dut_config_default(&c);
	CHECK_EQ(iw_dut_config_set(&c, "marker", "yes", &e), IW_EINVAL);
	CHECK(has(e.msg, "unknown key 'marker' (known keys: dut role profile"));
	CHECK(has(e.msg, " ulp rping_size connect_timeout "));
	CHECK(has(e.msg, "raw_link wait_dut)"));
}

TEST(dut_config_raw_link)
{
	iw_dut_config c;
	iw_err e;
	iw_dut_config_default(&c);
	CHECK_EQ(iw_dut_config_set(&c, "raw_link", "iwspec-raw:iwraw0", &e), IW_OK);
	CHECK(!strcmp(c.raw_netns, "iwspec-raw") && !strcmp(c.raw_ifname, "iwraw0"));
	CHECK_EQ(iw_dut_config_set(&c, "raw_link", ":tap9", &e), IW_OK);
	CHECK(!c.raw_netns[0] && !strcmp(c.raw_ifname, "tap9"));
	CHECK_EQ(iw_dut_config_set(&c, "raw_link", "none", &e), IW_OK);
	CHECK(!c.raw_ifname[0]);
	CHECK_EQ(iw_dut_config_set(&c, "raw_link", "iwraw0", &e), IW_EINVAL);
	CHECK(has(e.msg, "write NETNS:IFNAME"));
	CHECK_EQ(iw_dut_config_set(&c, "raw_link", "ns:", &e), IW_EINVAL);
	CHECK(has(e.msg, "interface name after ':'"));
	CHECK_EQ(iw_dut_config_set(&c, "raw_link", "ns:a-name-far-too-long", &e), IW_EINVAL);
	CHECK(!c.raw_ifname[0]);
}

TEST(dut_config_disable)
{
	iw_dut_config c;
	iw_err e;
	iw_dut_config_default(&c);
	CHECK_EQ(iw_dut_config_set(&c, "disable", "TR-05* : PD limit is 256", &e), IW_OK);
	CHECK_EQ(c.ndisabled, 1);
	CHECK_STR(c.disabled[0].glob, "TR-05*");
	CHECK_STR(c.disabled[0].reason, "PD limit is 256");
	CHECK_EQ(iw_dut_config_set(&c, "disable", "TR-05", &e), IW_EINVAL);
	CHECK(has(e.msg, "for disable: a reason is required"));
	CHECK_EQ(iw_dut_config_set(&c, "disable", "TR-05 :  ", &e), IW_EINVAL);
	CHECK(has(e.msg, "reason after ':' is empty"));
	CHECK_EQ(iw_dut_config_set(&c, "disable", " : why", &e), IW_EINVAL);
	CHECK(has(e.msg, "case id or glob before ':' is empty"));
	CHECK_EQ(iw_dut_config_set(&c, "disable", "TR 05 : why", &e), IW_EINVAL);
	CHECK(has(e.msg, "contains a space"));
	CHECK_EQ(c.ndisabled, 1);
	for (int i = 1; i < IW_DUT_MAX_DISABLED; i++)
		CHECK_EQ(iw_dut_config_set(&c, "disable", "X : y", &e), IW_OK);
	CHECK_EQ(iw_dut_config_set(&c, "disable", "X : y", &e), IW_ENOSPC);
	CHECK(has(e.msg, "at most 64"));
}

TEST(dut_config_globs)
{
	iw_dut_config c;
	iw_err e;
	iw_dut_config_default(&c);
	CHECK(iw_dut_config_disabled(&c, "TR-02") == NULL);
	CHECK_EQ(iw_dut_config_set(&c, "disable", "TR-02 : exact", &e), IW_OK);
	CHECK_EQ(iw_dut_config_set(&c, "disable", "MPA-6.1-R9? : one char", &e), IW_OK);
	CHECK_EQ(iw_dut_config_set(&c, "disable", "DDP-*-T[45] : class", &e), IW_OK);
	CHECK_EQ(iw_dut_config_set(&c, "disable", "TI-* : no initiator", &e), IW_OK);
	CHECK_STR(iw_dut_config_disabled(&c, "TR-02"), "exact");
	CHECK(iw_dut_config_disabled(&c, "TR-02a") == NULL);
	CHECK(iw_dut_config_disabled(&c, "TR-0") == NULL);
	CHECK_STR(iw_dut_config_disabled(&c, "MPA-6.1-R9a"), "one char");
	CHECK(iw_dut_config_disabled(&c, "MPA-6.1-R9") == NULL);
	CHECK(iw_dut_config_disabled(&c, "MPA-6.1-R9ab") == NULL);
	CHECK_STR(iw_dut_config_disabled(&c, "DDP-9.1-T4"), "class");
	CHECK_STR(iw_dut_config_disabled(&c, "DDP-9.1-T5"), "class");
	CHECK(iw_dut_config_disabled(&c, "DDP-9.1-T3") == NULL);
	CHECK_STR(iw_dut_config_disabled(&c, "TI-08"), "no initiator");
	CHECK(iw_dut_config_disabled(&c, "ti-08") == NULL);
}

TEST(dut_config_map)
{
	iw_dut_config c;
	iw_err e;
	iw_dut_config_default(&c);
	CHECK_EQ(iw_dut_config_set(&c, "map", "DDP/1/0x04 -> LLP/3/0x02 : vendor quirk", &e), IW_OK);
	CHECK_EQ(c.nmaps, 1);
	CHECK_EQ(c.maps[0].from.layer, IW_LAYER_DDP);
	CHECK_EQ(c.maps[0].from.etype, 1);
	CHECK_EQ(c.maps[0].from.ecode, 4);
	CHECK_EQ(c.maps[0].to.layer, IW_LAYER_LLP);
	CHECK_EQ(c.maps[0].to.etype, 3);
	CHECK_EQ(c.maps[0].to.ecode, 2);
	CHECK_STR(c.maps[0].reason, "vendor quirk");
	CHECK_EQ(iw_dut_config_set(&c, "map", "rdmap/2/6->0/2/255:numbers", &e), IW_OK);
	CHECK_EQ(c.nmaps, 2);
	CHECK_EQ(c.maps[1].from.layer, IW_LAYER_RDMAP);
	CHECK_EQ(c.maps[1].to.layer, 0);
	CHECK_EQ(c.maps[1].to.ecode, 255);
	CHECK_STR(c.maps[1].reason, "numbers");
	CHECK_EQ(iw_dut_config_set(&c, "map", "ddp/2/5 -> ddp/2/2", &e), IW_EINVAL);
	CHECK(has(e.msg, "for map: a reason is required"));
	CHECK_EQ(iw_dut_config_set(&c, "map", "ddp/2/5 ddp/2/2 : r", &e), IW_EINVAL);
	CHECK(has(e.msg, "FROM -> TO"));
	CHECK_EQ(iw_dut_config_set(&c, "map", "ddp/2 -> ddp/2/2 : r", &e), IW_EINVAL);
	CHECK(has(e.msg, "'ddp/2' is not an error code"));
	CHECK(has(e.msg, "LAYER rdmap, ddp, llp"));
	CHECK_EQ(iw_dut_config_set(&c, "map", "tcp/2/5 -> ddp/2/2 : r", &e), IW_EINVAL);
	CHECK(has(e.msg, "'tcp/2/5'"));
	CHECK_EQ(iw_dut_config_set(&c, "map", "ddp/16/5 -> ddp/2/2 : r", &e), IW_EINVAL);
	CHECK_EQ(iw_dut_config_set(&c, "map", "ddp/2/256 -> ddp/2/2 : r", &e), IW_EINVAL);
	CHECK_EQ(iw_dut_config_set(&c, "map", "ddp/2/5 -> ddp/2/2/1 : r", &e), IW_EINVAL);
	CHECK(has(e.msg, "'ddp/2/2/1'"));
	CHECK_EQ(c.nmaps, 2);
}

TEST(dut_config_load_file)
{
	iw_dut_config c;
	iw_err e;
	char path[64];
	iw_dut_config_default(&c);
	const char *text =
		"# a siw-like DUT\n"
		"\n"
		"dut = tcp:127.0.0.1:4791\n"
		"  role = responder   # trailing comment\n"
		"profile=rfc6581\n"
		"mpa_revision = 2\n"
		"markers = no\n"
		"crc = optional-off\n"
		"private_data_limit = 256\n"
		"reflector = no\n"
		"reject = yes\n"
		"connect_timeout = 2s\n"
		"case_timeout = 15s\n"
		"close_timeout = 500ms\n"
		"disable = MPA-6.1.1-M* : no markers # in siw\n"
		"disable = TR-05 : PD limit 256\n"
		"map = ddp/2/5 -> ddp/2/2 : siw reports too long as no buffer\n"
		"map = llp/0/4 -> llp/0/4 : same\n"
		"hostile = none\n"
		"mutant = none\n";
	CHECK_EQ(load_text(&c, text, &e, path, sizeof path), IW_OK);
	CHECK_STR(c.dut, "tcp:127.0.0.1:4791");
	CHECK_EQ(c.role, IW_ROLE_RESPONDER);
	CHECK(c.profile == iw_profile_find("rfc6581"));
	CHECK_EQ(c.mpa_revision, 2);
	CHECK(!c.markers);
	CHECK(c.crc_off_mode);
	CHECK_EQ(c.pd_limit, 256);
	CHECK(!c.reflector);
	CHECK(c.reject);
	CHECK_EQ(c.connect_timeout_ms, 2000);
	CHECK_EQ(c.case_timeout_ms, 15000);
	CHECK_EQ(c.close_timeout_ms, 500);
	CHECK_EQ(c.ndisabled, 2);
	/* disable is free text: a '#' stays in the reason */
	CHECK_STR(c.disabled[0].reason, "no markers # in siw");
	CHECK_EQ(c.nmaps, 2);
	CHECK_EQ(c.maps[0].from.ecode, 5);
	CHECK_EQ(c.maps[0].to.ecode, 2);
	CHECK_STR(c.source, path);
}

TEST(dut_config_load_over_values)
{
	iw_dut_config c;
	iw_err e;
	char path[64];
	iw_dut_config_default(&c);
	CHECK_EQ(iw_dut_config_set(&c, "disable", "A : first", &e), IW_OK);
	CHECK_EQ(load_text(&c, "markers = no\ndisable = B : second\n", &e, path, sizeof path), IW_OK);
	CHECK(!c.markers);
	CHECK(c.reflector);
	CHECK_EQ(c.ndisabled, 2);
	CHECK_STR(iw_dut_config_disabled(&c, "B"), "second");
}

TEST(dut_config_load_errors)
{
	iw_dut_config c;
	iw_err e;
	char path[64], want[160];
	iw_dut_config_default(&c);
	CHECK_EQ(load_text(&c, "# x\nmarkers = yes\nmarker = yes\n", &e, path, sizeof path), IW_EINVAL);
	snprintf(want, sizeof want, "%s:3: unknown key 'marker' (known keys: dut role", path);
	CHECK(has(e.msg, want));

	CHECK_EQ(load_text(&c, "\n\nmarkers = perhaps\n", &e, path, sizeof path), IW_EINVAL);
	snprintf(want, sizeof want, "%s:3: bad value 'perhaps' for markers: use yes or no", path);
	CHECK_STR(e.msg, want);

	CHECK_EQ(load_text(&c, "markers yes\n", &e, path, sizeof path), IW_EINVAL);
	snprintf(want, sizeof want, "%s:1: expected `key = value`, got 'markers yes'", path);
	CHECK_STR(e.msg, want);

	CHECK_EQ(load_text(&c, "profile = rfc5044\nrole = initiator\nprofile = rfc6581\n", &e, path, sizeof path),
		 IW_EINVAL);
	snprintf(want, sizeof want, "%s:3: profile is already set on line 1", path);
	CHECK(has(e.msg, want));

	CHECK_EQ(load_text(&c, "case_timeout = 10\n", &e, path, sizeof path), IW_EINVAL);
	snprintf(want, sizeof want, "%s:1: bad value for case_timeout: '10' is not a duration", path);
	CHECK(has(e.msg, want));

	CHECK_EQ(load_text(&c, "map = ddp/2/5 -> ddp/2/2\n", &e, path, sizeof path), IW_EINVAL);
	snprintf(want, sizeof want, "%s:1: bad value 'ddp/2/5 -> ddp/2/2' for map", path);
	CHECK(has(e.msg, want));

	CHECK_EQ(load_text(&c, "dut = qemu\n", &e, path, sizeof path), IW_EINVAL);
	snprintf(want, sizeof want, "%s:1: unknown DUT 'qemu': use ref, tcp:HOST:PORT or exec:'COMMAND'", path);
	CHECK_STR(e.msg, want);
	CHECK_STR(c.source, "defaults");

	CHECK_EQ(iw_dut_config_load(&c, "/nonexistent/iwspec.conf", &e), IW_EINVAL);
	CHECK(has(e.msg, "/nonexistent/iwspec.conf: cannot open"));
}

TEST(dut_config_load_long_line)
{
	iw_dut_config c;
	iw_err e;
	char path[64];
	char *text = malloc(5000);
	CHECK(text != NULL);
	if (!text)
		return;
	memset(text, 'a', 4998);
	text[4998] = '\n';
	text[4999] = '\0';
	iw_dut_config_default(&c);
	CHECK_EQ(load_text(&c, text, &e, path, sizeof path), IW_EINVAL);
	CHECK(has(e.msg, ":1: line longer than"));
	free(text);
}

/* The siw example of docs/dut-config.md loads as written. */
TEST(dut_config_doc_example)
{
	FILE *fp = fopen("docs/dut-config.md", "r");
	if (!fp) {
		printf("  dut_config_doc_example: skipped: docs/dut-config.md not found (run from the repository root)\n");
		return;
	}
	char line[512], text[4096] = "";
	bool in = false, done = false;
	size_t used = 0;
	while (!done && fgets(line, sizeof line, fp)) {
		if (!in && !strncmp(line, "# siw on Linux", 14))
			in = true;
		if (in && !strncmp(line, "```", 3))
			done = true;
		else if (in && used + strlen(line) < sizeof text) {
			memcpy(text + used, line, strlen(line) + 1);
			used += strlen(line);
		}
	}
	fclose(fp);
	CHECK(done);
	iw_dut_config c;
	iw_err e;
	char path[64];
	iw_dut_config_default(&c);
	int rc = load_text(&c, text, &e, path, sizeof path);
	if (rc)
		fprintf(stderr, "  %s\n", e.msg);
	CHECK_EQ(rc, IW_OK);
	CHECK_STR(c.dut, "tcp:192.0.2.10:4791");
	CHECK(c.profile == iw_profile_find("rfc6581"));
	CHECK_EQ(c.mpa_revision, 2);
	CHECK(!c.markers);
	CHECK(!c.crc_off_mode);
	CHECK_EQ(c.pd_limit, 256);
	CHECK(!c.reflector);
	CHECK_EQ(c.ndisabled, 4);
	CHECK_EQ(c.nmaps, 3);
	CHECK(iw_dut_config_disabled(&c, "mpa.startup.resp.res-bits-ignored-rfc6581") != NULL);
	CHECK(iw_dut_config_disabled(&c, "mpa.startup.resp.happy-path") == NULL);
	CHECK_EQ(c.maps[2].from.layer, IW_LAYER_RDMAP);
	CHECK_EQ(c.maps[2].to.layer, IW_LAYER_DDP);
}

/* Issue 12: without a reflector nobody refuses REJECTME, so `reflector = no` implies
 * `reject = no` (mpa.startup.resp.reject was a false MPA-6.1.1-R1 FAIL) unless the file says
 * its DUT rejects anyway, before or after the reflector line. */
TEST(dut_config_reject_follows_reflector)
{
	iw_dut_config c;
	iw_err e;
	char path[64];
	iw_dut_config_default(&c);
	CHECK_EQ(load_text(&c, "reflector = no\n", &e, path, sizeof path), IW_OK);
	CHECK(!c.reflector);
	CHECK(!c.reject);
	iw_dut_config_default(&c);
	CHECK_EQ(load_text(&c, "reject = yes\nreflector = no\n", &e, path, sizeof path), IW_OK);
	CHECK(c.reject);
	iw_dut_config_default(&c);
	CHECK_EQ(load_text(&c, "reflector = no\nreject = yes\n", &e, path, sizeof path), IW_OK);
	CHECK(c.reject);
	iw_dut_config_default(&c);
	CHECK_EQ(load_text(&c, "reflector = yes\n", &e, path, sizeof path), IW_OK);
	CHECK(c.reject);
}

/* exec_host: the address {host} stands for, numeric only, where a DUT in a VM listens or connects. */
TEST(dut_config_exec_host)
{
	iw_dut_config c;
	iw_err e;
	iw_dut_config_default(&c);
	CHECK_STR(c.exec_host, "127.0.0.1");
	CHECK_EQ(iw_dut_config_set(&c, "exec_host", "10.213.0.1", &e), IW_OK);
	CHECK_STR(c.exec_host, "10.213.0.1");
	CHECK_EQ(iw_dut_config_set(&c, "exec_host", "::1", &e), IW_OK);
	CHECK_STR(c.exec_host, "::1");
	CHECK_EQ(iw_dut_config_set(&c, "exec_host", "guest.example", &e), IW_EINVAL);
	CHECK(has(e.msg, "numeric IPv4 or IPv6 address"));
	CHECK_STR(c.exec_host, "::1");
	CHECK_EQ(iw_dut_config_set(&c, "exec_host", "", &e), IW_EINVAL);
}

TEST(dut_config_ulp)
{
	iw_dut_config c;
	iw_err e;
	iw_dut_config_default(&c);
	CHECK_EQ(c.ulp, IW_ULP_REFLECTOR);
	CHECK_EQ(iw_dut_config_set(&c, "ulp", "rping", &e), IW_OK);
	CHECK_EQ(c.ulp, IW_ULP_RPING);
	CHECK(!c.reflector);
	CHECK(!c.reject);           /* refusing REJECTME is the reflector's job */
	CHECK_EQ(iw_dut_config_set(&c, "reflector", "yes", &e), IW_EINVAL);
	CHECK(has(e.msg, "contradicts ulp = rping"));
	CHECK_EQ(iw_dut_config_set(&c, "ulp", "ping", &e), IW_EINVAL);
	CHECK(has(e.msg, "'ping' for ulp: use reflector"));

	iw_dut_config_default(&c);
	CHECK_EQ(iw_dut_config_set(&c, "reflector", "yes", &e), IW_OK);
	CHECK_EQ(iw_dut_config_set(&c, "ulp", "rping", &e), IW_EINVAL);
	CHECK(has(e.msg, "contradicts reflector = yes"));

	iw_dut_config_default(&c);
	CHECK_EQ(iw_dut_config_set(&c, "reject", "yes", &e), IW_OK);
	CHECK_EQ(iw_dut_config_set(&c, "ulp", "rping", &e), IW_OK);
	CHECK(c.reject);            /* a `reject` line of its own stands */
	CHECK_EQ(iw_dut_config_set(&c, "ulp", "reflector", &e), IW_OK);
	CHECK(c.reflector);
	CHECK_EQ(iw_dut_config_set(&c, "ulp", "none", &e), IW_OK);
	CHECK(!c.reflector);
	CHECK_EQ(c.ulp, IW_ULP_NONE);

	/* ib_send_lat's server, and the message naming it among the choices. */
	iw_dut_config_default(&c);
	CHECK_EQ(iw_dut_config_set(&c, "ulp", "perftest-send-lat", &e), IW_OK);
	CHECK_EQ(c.ulp, IW_ULP_PERFTEST_SEND_LAT);
	CHECK(!c.reflector);
	CHECK_EQ(iw_dut_config_set(&c, "ulp", "perftest-send-latency", &e), IW_EINVAL);
	CHECK(has(e.msg, "perftest-send-lat (ib_send_lat -R -s 65536) or none: docs/ulp-profiles.md"));
}

/* ulp = perftest: the program each case needs, which only the built-in DUT and an exec: command
 * that takes {perftest} can start per case. */
TEST(dut_config_ulp_perftest_any)
{
	iw_dut_config c;
	iw_err e;
	iw_dut_config_default(&c);
	CHECK_EQ(iw_dut_config_set(&c, "ulp", "perftest", &e), IW_OK);
	CHECK_EQ(c.ulp, IW_ULP_PERFTEST);
	CHECK(!c.reflector);
	CHECK_EQ(iw_dut_config_check(&c, &e), IW_OK);      /* dut = ref */
	CHECK_EQ(iw_dut_config_set(&c, "dut", "tcp:192.0.2.7:18515", &e), IW_OK);
	CHECK_EQ(iw_dut_config_check(&c, &e), IW_EINVAL);
	CHECK(has(e.msg, "a server you started (dut = tcp:192.0.2.7:18515) cannot: name its mode"));
	CHECK_EQ(iw_dut_config_set(&c, "dut", "exec:'iwspec-reflector --via g:4790 --perftest read --listen {port}'", &e),
		 IW_OK);
	CHECK_EQ(iw_dut_config_check(&c, &e), IW_EINVAL);
	CHECK(has(e.msg, "takes it as {perftest}"));
	CHECK_EQ(iw_dut_config_set(&c, "dut", "exec:'iwspec-reflector --via g:4790 --perftest {perftest} --listen {port}'",
				  &e), IW_OK);
	CHECK_EQ(iw_dut_config_check(&c, &e), IW_OK);
	CHECK_EQ(iw_dut_config_set(&c, "ulp", "perftest-", &e), IW_EINVAL);
	CHECK(has(e.msg, "perftest (the one each case needs"));
	/* A named mode runs against a server of its own, started or not. */
	CHECK_EQ(iw_dut_config_set(&c, "ulp", "perftest-read", &e), IW_OK);
	CHECK_EQ(iw_dut_config_set(&c, "dut", "tcp:192.0.2.7:18515", &e), IW_OK);
	CHECK_EQ(iw_dut_config_check(&c, &e), IW_OK);
}

/* rping_size: the -S of the DUT's rping, 64 unless said, within what rping takes. */
TEST(dut_config_rping_size)
{
	iw_dut_config c;
	iw_err e;
	iw_dut_config_default(&c);
	CHECK_EQ(c.rping_size, 64);
	CHECK_EQ(iw_dut_config_set(&c, "rping_size", "65535", &e), IW_OK);
	CHECK_EQ(c.rping_size, 65535);
	CHECK_EQ(iw_dut_config_set(&c, "rping_size", "26", &e), IW_OK);
	CHECK_EQ(c.rping_size, 26);
	CHECK_EQ(iw_dut_config_set(&c, "rping_size", "65536", &e), IW_EINVAL);
	CHECK(has(e.msg, "bad value '65536' for rping_size: use the -S the DUT's rping runs with, a number of octets "
			 "from 26 to 65535 (rping's default 64)"));
	CHECK_EQ(iw_dut_config_set(&c, "rping_size", "25", &e), IW_EINVAL);
	CHECK_EQ(iw_dut_config_set(&c, "rping_size", "64k", &e), IW_EINVAL);
	CHECK_EQ(c.rping_size, 26);
}
