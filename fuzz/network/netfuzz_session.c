/*
 * netfuzz_session.c - a fuzzing session: the DUT behind its driver (and calibrated), the
 * session's accessors, and replays of a case text against its DUT or a clean built-in one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netfuzz_int.h"
#include "interrupt.h"
#include "net.h"
#include "runner.h"

int nf_session_open(nf_session **out, const nf_opts *o, iw_err *e)
{
	*out = NULL;
	nf_session *s = calloc(1, sizeof *s);
	if (!s)
		return iw_errf(e, IW_ENOSPC, "out of memory");
	s->o = *o;
	s->c.fd = -1;
	for (int k = 0; k < NF_SLOTS; k++)
		s->slots[k].fd = -1;
	s->d.profile = o->dut.profile ? o->dut.profile : iw_profile_default();
	s->d.role = o->dut.role;
	s->is_exec = !strncmp(o->dut.dut, "exec:", 5);
	bool is_ref = !strncmp(o->dut.dut, "ref", 3);
	s->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : is_ref ? 250 : 2000;
	s->run_timeout_ms = s->d.idle_ms = s->timeout_ms;
	s->live_ms = 4 * s->timeout_ms + 1000;
	s->deadline_ms = o->deadline_ms;
	s->debug = getenv("IWSPEC_NETFUZZ_DEBUG") != NULL;
	s->adv_mem = calloc(1, NF_ADV_LEN);
	if (!s->adv_mem || nf_dec_init(&s->dec)) {
		nf_session_close(s);
		return iw_errf(e, IW_ENOSPC, "out of memory");
	}
	/* The built-in DUT runs on a thread of this process. Woken by the harness's connect, send and
	 * FIN, it preempted the harness in them (perf's sched_switch: 0.7 times a run, and the DUT
	 * slept and woke 0.9 times a run), so the runs in flight hardly overlapped (the process used
	 * about one of two cores). As SCHED_BATCH it leaves the harness running and takes the runs in
	 * flight in batches: 7 us less CPU a run in the DUT (docs/fuzzing.md, "Speed"). */
	s->o.dut.ref_batch = true;
	int rc = iw_driver_open(&s->drv, &s->o.dut, e);
	if (rc) {
		s->drv = NULL;
		nf_session_close(s);
		return rc;
	}
	rc = nf_calibrate(s, e);
	if (rc) {
		nf_session_close(s);
		return rc;
	}
	iw_conn_config_default(&s->mcfg, s->d.profile, (enum iw_role)s->d.role);
	s->mcfg.want_markers = s->d.markers;
	/* A DUT its administrator put in the no-CRC mode is modelled in that mode. */
	s->mcfg.want_crc = !s->d.crc_off;
	s->mcfg.crc_admin_off = s->d.crc_off;
	s->mcfg.out_cap = NF_MODEL_OUT;
	s->mcfg.stream = 1;
	s->mcfg.pd_id = 1;
	*out = s;
	return IW_OK;
}

void nf_session_close(nf_session *s)
{
	if (!s)
		return;
	for (int k = 0; k < NF_SLOTS; k++) {
		if (s->slots[k].fd >= 0)
			close(s->slots[k].fd);
		iw_conn_free(s->slots[k].model);
		free(s->slots[k].exp);
		free(s->slots[k].tr.to_dut);
		free(s->slots[k].tr.from_dut);
		free(s->slots[k].tr.chunks);
	}
	if (s->c.fd >= 0)
		close(s->c.fd);
	if (s->drv) {
		if (s->case_open) {
			iw_dut_finding df;
			iw_err e;
			s->drv->ops->case_end(s->drv, &df, &e);
		}
		iw_driver_close(s->drv);
	}
	iw_conn_free(s->c.model);
	iw_conn_free(s->spare);
	iw_conn_free(s->used);
	nf_dec_free(&s->dec);
	free(s->adv_mem);
	free(s->c.exp);
	free(s->rbuf);
	free(s->c.tr.to_dut);
	free(s->c.tr.from_dut);
	free(s->c.tr.chunks);
	free(s->ex.data);
	free(s);
}

const nf_dutinfo *nf_session_dut(const nf_session *s) { return &s->d; }
const nf_trace *nf_session_trace(const nf_session *s) { return &s->slots[0].tr; }
void nf_session_record(nf_session *s, bool on) { s->record = on; }
const nf_expect *nf_session_expect(const nf_session *s) { return &s->ex; }
const nf_stats *nf_session_stats(const nf_session *s) { return &s->st; }

void nf_session_confirming(nf_session *s, bool on)
{
	s->probe_after = on;
	s->run_timeout_ms = on ? s->timeout_ms * 4 : s->timeout_ms;
}

int64_t nf_session_time_left(const nf_session *s)
{
	if (iw_interrupted())
		return 0;
	if (!s->deadline_ms)
		return INT64_MAX;
	int64_t left = s->deadline_ms - iw_net_now_ms();
	return left > 0 ? left : 0;
}

bool nf_session_expired(const nf_session *s) { return nf_session_time_left(s) == 0; }

void nf_session_set_deadline(nf_session *s, int64_t deadline_ms) { s->deadline_ms = deadline_ms; }

int64_t nf_session_run_bound(const nf_session *s) { return 4 * s->timeout_ms + s->live_ms + 1000; }

int64_t nf_session_allow(nf_session *s, int64_t ms)
{
	int64_t was = s->deadline_ms, until = iw_net_now_ms() + ms;
	if (was && was < until)
		s->deadline_ms = until;
	return was;
}

int nf_session_replay(nf_session *s, const char *text, bool clean, nf_replay *out, iw_err *e)
{
	memset(out, 0, sizeof *out);
	out->verdict = IW_ERROR;
	iw_case *c = NULL;
	int rc = iw_case_parse(text, strlen(text), "finding.iwt", &c, e);
	if (rc)
		return rc;
	iw_run_opts o;
	memset(&o, 0, sizeof o);
	o.dut = s->o.dut;
	o.seed = 1;
	o.seg = IW_SEG_NONE;
	/* The executor's own timeouts bound a replay; against the DUT of the finding it must fit in
	 * what is left of the session's time. */
	int64_t need = c->timeout_ms > o.dut.case_timeout_ms ? c->timeout_ms : o.dut.case_timeout_ms;
	if (!clean && nf_session_time_left(s) < need) {
		iw_case_free(c);
		return iw_errf(e, IW_ETRUNC, "less than the case's %lld ms of the time was left", (long long)need);
	}
	iw_driver *drv = s->drv;
	if (clean) {
		iw_dut_config_default(&o.dut);
		o.dut.profile = s->d.profile;
		o.dut.role = s->d.role;
		/* The clean DUT runs what the session's DUT runs (declared, or found by calibration): a
		 * case written for a DUT without a reflector expects no echo; one for a DUT in its
		 * no-CRC mode needs crc-off, which the clean DUT then takes. */
		if ((!s->d.reflector && iw_dut_config_set(&o.dut, "reflector", "no", e)) ||
		    (s->d.crc_off && iw_dut_config_set(&o.dut, "crc", "optional-off", e))) {
			iw_case_free(c);
			return IW_EINVAL;
		}
		rc = iw_driver_open(&drv, &o.dut, e);
		if (rc) {
			iw_case_free(c);
			return rc;
		}
	} else if (s->case_open) {
		/* The case begins and ends the DUT itself (an exec'd DUT is restarted). */
		iw_dut_finding df;
		iw_err ce;
		s->drv->ops->case_end(s->drv, &df, &ce);
		s->case_open = false;
		s->have_addr = false;
	}
	iw_case_result *r = calloc(1, sizeof *r);
	if (!r) {
		if (clean)
			iw_driver_close(drv);
		iw_case_free(c);
		return iw_errf(e, IW_ENOSPC, "out of memory");
	}
	iw_exec_case(c, s->d.profile, s->d.role, &o, drv, r);
	out->verdict = (int)r->verdict;
	snprintf(out->failed_req, sizeof out->failed_req, "%s", r->failed_req);
	snprintf(out->reason, sizeof out->reason, "%.599s", r->reason);
	iw_result_clear_wire(r);
	free(r);
	if (clean)
		iw_driver_close(drv);
	iw_case_free(c);
	return IW_OK;
}

const char *nf_fkind_name(enum nf_fkind k)
{
	static const char *const n[NF_F_KIND_COUNT] = {"none", "crash", "dead", "hang", "early-close", "frame",
						       "stream", "extra-message", "missing-message", "wrong-content",
						       "terminate"};
	return (unsigned)k < NF_F_KIND_COUNT ? n[k] : "?";
}
