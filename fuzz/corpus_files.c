/*
 * corpus_files.c - the seeds of the targets that parse files: DUT configurations (dut_config),
 * captures as the pcap writer makes them (pcap_read), baselines (baseline), and the case files
 * of the catalog (case_parse).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "corpus_int.h"
#include "mpa_fpdu.h"
#include "mpa_frame.h"
#include "pcap_write.h"

void cs_seeds_dut_config(out *o)
{
	static const char *const files[] = {
		"# a DUT reached over TCP\n"
		"dut = tcp:127.0.0.1:4791\nrole = initiator\nprofile = rfc6581\nmpa_revision = 2\nmarkers = no\n"
		"crc = optional-off\nprivate_data_limit = 512\nreflector = yes\nreject = no\n"
		"connect_timeout = 2s\ncase_timeout = 1.5m\nclose_timeout = 250ms\n"
		"disable = MPA-6.1-R10a* : no startup timer\n"
		"map = ddp/1/0x04 -> llp/0/0x02 : reports a CRC error for a bad DDP version\n",
		"dut = exec:'./mydut --listen {host}:{port}'\nprofile = rddp-mpa-01 # the drafts\n",
		"dut = ref\nhostile = none\nmutant = none\n",
		"profile = rfc5044\nprofile = rfc6581\n",
		"markers = perhaps\n",
		"map = rdmap/2/0x06 -> 0/0x2/255 : reason\nmap = x -> y\n",
	};
	sb s = { 0 };
	for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
		for (int mode = 0; mode < 2; mode++) {
			s.n = 0;
			sb_u8(&s, (unsigned)mode);
			sb_str(&s, files[k]);
			char name[64];
			snprintf(name, sizeof name, "%s-%zu", mode ? "set" : "file", k);
			put(o, name, &s);
		}
	}
	s.n = 0;
	sb_u8(&s, 2);
	sb_str(&s, "1.25s\nmpa.startup.* : not this DUT\nmpa.startup.key-octet-00");
	put(o, "duration-glob", &s);
	free(s.b);
}

/* Captures the pcap writer makes (reports/pcap_write.h): a startup and an FPDU over Ethernet
 * and raw IPv4, cut into small segments, ended by FIN or RST, two connections at once, and one
 * cut short inside its last record. */
void cs_seeds_pcap(out *o)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	uint8_t req[IW_MPA_FRAME_HDR_LEN], rep[IW_MPA_FRAME_HDR_LEN], fp[256], u[128];
	iw_mpa_frame f;
	size_t n;
	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	if (iw_mpa_frame_encode(&f, req, sizeof req, &n, NULL) != IW_OK)
		return;
	iw_mpa_frame_init(&f, p, IW_MPA_REPLY);
	if (iw_mpa_frame_encode(&f, rep, sizeof rep, &n, NULL) != IW_OK)
		return;
	static const uint8_t hello[] = "hello, reflector";
	size_t un = cs_ulpdu(p, IW_OP_SEND, true, 1, 0, 0, hello, sizeof hello - 1, u);
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p, false, true);
	size_t fn = 0;
	if (iw_mpa_tx_fpdu(&tx, u, un, NULL, 0, NULL, fp, sizeof fp, &fn, NULL) != IW_OK)
		return;
	static const struct {
		const char *name;
		enum iw_pcap_link link;
		uint16_t mss;
		bool rst, two, cut;
	} shapes[] = {
		{"ethernet", IW_PCAP_LINK_ETHERNET, 0, false, false, false},
		{"raw-small-mss", IW_PCAP_LINK_RAW, 7, false, false, false},
		{"rst", IW_PCAP_LINK_ETHERNET, 0, true, false, false},
		{"two-connections", IW_PCAP_LINK_ETHERNET, 16, false, true, false},
		{"cut-last-record", IW_PCAP_LINK_RAW, 0, false, false, true},
	};
	for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
		iw_pcap_writer *w = iw_pcap_writer_new(shapes[k].link, NULL);
		if (!w)
			return;
		iw_pcap_tcp *t[2] = {NULL, NULL};
		for (int c = 0; c < (shapes[k].two ? 2 : 1); c++) {
			iw_pcap_tcp_params prm;
			iw_pcap_tcp_params_default(&prm);
			prm.mss = shapes[k].mss;
			prm.client_port = (uint16_t)(prm.client_port + c);
			t[c] = iw_pcap_tcp_open(w, &prm, NULL);
		}
		for (int c = 0; c < 2 && t[c]; c++) {
			(void)iw_pcap_tcp_data(t[c], IW_PCAP_C2S, req, sizeof req, NULL);
			(void)iw_pcap_tcp_data(t[c], IW_PCAP_S2C, rep, sizeof rep, NULL);
			(void)iw_pcap_tcp_data(t[c], IW_PCAP_C2S, fp, fn, NULL);
			if (shapes[k].rst) {
				(void)iw_pcap_tcp_rst(t[c], IW_PCAP_S2C, NULL);
			} else {
				(void)iw_pcap_tcp_fin(t[c], IW_PCAP_C2S, NULL);
				(void)iw_pcap_tcp_fin(t[c], IW_PCAP_S2C, NULL);
			}
		}
		uint8_t *img = NULL;
		size_t len = 0;
		if (iw_pcap_writer_take(w, &img, &len, NULL) != 0)
			continue;
		sb s = { img, shapes[k].cut && len > 10 ? len - 10 : len, len };
		put(o, shapes[k].name, &s);
		free(img);
	}
}

/* Baselines as `iwspec run --write-expect` writes them, and by hand. */
void cs_seeds_baseline(out *o)
{
	static const char *const texts[] = {
		"# iwspec baseline\nmpa.startup.resp.happy-path PASS\nmpa.startup.resp.key-octet-00@rfc5044 FAIL : "
		"[MPA-6.1-R5] the DUT accepted a wrong key\nddp.tagged.to-wrap@rfc6581 SKIP : needs reflector\n",
		"mpa.startup.resp.request-timeout INFO\nmpa.markers.dut-first-marker WARN : [MPA-5.1-06] late\n"
		"rdmap.read.bounds ERROR : harness\n",
		"mpa.x maybe\n",
		"mpa.a PASS\nmpa.a PASS\n",
	};
	sb s = { 0 };
	for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++) {
		s.n = 0;
		sb_str(&s, texts[k]);
		char name[32];
		snprintf(name, sizeof name, "baseline-%zu", k);
		put(o, name, &s);
	}
	free(s.b);
}

/* .iwt files under dir, recursively, in name order. */
void cs_seeds_cases_dir(out *o, const char *dir, int depth)
{
	if (depth > 6)
		return;
	struct dirent **list = NULL;
	int n = scandir(dir, &list, NULL, alphasort);
	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		const char *nm = list[i]->d_name;
		if (nm[0] != '.') {
			char path[1024];
			snprintf(path, sizeof path, "%s/%s", dir, nm);
			struct stat st;
			size_t l = strlen(nm);
			if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
				cs_seeds_cases_dir(o, path, depth + 1);
			} else if (l > 4 && strcmp(nm + l - 4, ".iwt") == 0 && st.st_size <= IW_FUZZ_MAX_SEED) {
				FILE *fp = fopen(path, "rb");
				if (fp) {
					sb s = { 0 };
					uint8_t buf[4096];
					size_t k;
					while ((k = fread(buf, 1, sizeof buf, fp)) > 0)
						sb_mem(&s, buf, k);
					fclose(fp);
					/* Name the seed after its path below the cases directory. */
					char name[1024];
					memcpy(name, path, sizeof name);
					for (char *c = name; *c; c++)
						if (*c == '/')
							*c = '_';
					put(o, name, &s);
					free(s.b);
				}
			}
		}
		free(list[i]);
	}
	free(list);
}
