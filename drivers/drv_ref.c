/*
 * ref - the built-in DUT, served by a ref_server thread of the harness on loopback.
 *
 * The configuration's markers, crc = optional-off, reject and private data are capabilities
 * (dut_config.h, case.h IW_CAP_*): the DUT does them when a case asks (instruct), and
 * otherwise behaves as a default-configured endpoint: M=0, C=1, R=0, no private data; with
 * reject = yes its reflector refuses the private data "REJECTME" (MPA-6.1-R2c). Reflector,
 * hostile mode and mutant hold for every connection; an initiator's reflector greets.
 */
#include "driver.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net.h"
#include "ref_server.h"

typedef struct ref_priv {
	iw_ref_server *srv;
	iw_ref_options base;    /* the configured per-connection behaviour */
	int lfd;                /* initiator: where the DUT connects to */
	uint16_t lport;
} ref_priv;

int iw_drv_ref_perftest(int ulp)
{
	return ulp == IW_ULP_PERFTEST_SEND    ? IW_REF_PERFTEST_SEND
	       : ulp == IW_ULP_PERFTEST_WRITE ? IW_REF_PERFTEST_WRITE
	       : ulp == IW_ULP_PERFTEST_READ  ? IW_REF_PERFTEST_READ
	       : ulp == IW_ULP_PERFTEST_SEND_LAT ? IW_REF_PERFTEST_SEND_LAT
					      : IW_REF_PERFTEST_OFF;
}

static int ref_case_begin(iw_driver *d, iw_err *e)
{
	(void)e;
	/* Under ulp = perftest the runner picked the case's mode: the server plays that program on
	 * the connections of this case (each case has a driver of its own while it runs). */
	ref_priv *r = d->priv;
	if (d->cfg->ulp == IW_ULP_PERFTEST) {
		r->base.perftest = iw_drv_ref_perftest(d->ulp);
		iw_ref_server_configure(r->srv, &r->base);
	}
	return IW_OK;
}

static int ref_connect(iw_driver *d, int *fd, int64_t timeout_ms, int mss, iw_err *e)
{
	ref_priv *r = d->priv;
	if (d->cfg->role != IW_ROLE_RESPONDER)
		return iw_errf(e, IW_ESTATE, "ref: the DUT is configured as an initiator; it connects to the harness");
	iw_err ce;
	int rc = iw_net_connect("127.0.0.1", iw_ref_server_port(r->srv),
				timeout_ms > 0 ? timeout_ms : d->cfg->connect_timeout_ms, mss, fd, &ce);
	if (rc != IW_OK) /* net.h's code as it is: a reset at once is the DUT's answer (hostile rst) */
		return iw_errf(e, rc, "ref: %s", ce.msg);
	return IW_OK;
}

static int ref_accept(iw_driver *d, int *fd, int64_t timeout_ms, iw_err *e)
{
	ref_priv *r = d->priv;
	if (d->cfg->role != IW_ROLE_INITIATOR)
		return iw_errf(e, IW_ESTATE, "ref: the DUT is configured as a responder; connect to it instead");
	iw_err ce;
	/* A connection left from an earlier accept that timed out is not this one. */
	int stale;
	while (iw_net_accept(r->lfd, 0, &stale, NULL) == IW_OK)
		close(stale);
	if (iw_ref_server_dial(r->srv, "127.0.0.1", r->lport, &ce) != IW_OK)
		return iw_errf(e, IW_ESTATE, "ref: %s", ce.msg);
	if (iw_net_accept(r->lfd, timeout_ms > 0 ? timeout_ms : d->cfg->connect_timeout_ms, fd, &ce) != IW_OK)
		return iw_errf(e, IW_ESTATE, "ref: %s", ce.msg);
	return IW_OK;
}

static int ref_case_end(iw_driver *d, iw_dut_finding *f, iw_err *e)
{
	ref_priv *r = d->priv;
	(void)e;
	memset(f, 0, sizeof *f);
	iw_ref_server_configure(r->srv, &r->base);
	return IW_OK;
}

static int ref_instruct(iw_driver *d, const iw_dut_instr *in, iw_err *e)
{
	ref_priv *r = d->priv;
	const iw_dut_config *c = d->cfg;
	if (in->markers && !c->markers)
		return iw_errf(e, IW_EINVAL, "ref: asked for markers, but the DUT configuration says markers = no");
	if (in->crc_off && !c->crc_off_mode)
		return iw_errf(e, IW_EINVAL, "ref: asked for no CRC, but the DUT configuration says crc = required");
	if (in->reject && !c->reject)
		return iw_errf(e, IW_EINVAL, "ref: asked to reject, but the DUT configuration says reject = no");
	if (in->greeting && !c->reflector)
		return iw_errf(e, IW_EINVAL, "ref: asked for a greeting, but the DUT configuration says reflector = no");
	if (in->pd_len > IW_REF_PD_MAX)
		return iw_errf(e, IW_EINVAL, "ref: %zu octets of private data asked for (at most %d)", in->pd_len,
			       IW_REF_PD_MAX);
	iw_ref_options o = r->base;
	o.markers = in->markers;
	o.crc_off = in->crc_off;
	o.reject = in->reject;
	o.greeting = r->base.greeting || in->greeting;
	o.pd_len = in->pd ? in->pd_len : 0;
	if (o.pd_len)
		memcpy(o.pd, in->pd, o.pd_len);
	iw_ref_server_configure(r->srv, &o);
	return IW_OK;
}

static void ref_destroy(iw_driver *d)
{
	ref_priv *r = d->priv;
	if (!r)
		return;
	iw_ref_server_free(r->srv);
	if (r->lfd >= 0)
		close(r->lfd);
	free(r);
	d->priv = NULL;
}

static const iw_driver_ops ref_ops = {
	.name = "ref",
	.case_begin = ref_case_begin,
	.connect = ref_connect,
	.accept = ref_accept,
	.case_end = ref_case_end,
	.destroy = ref_destroy,
	.instruct = ref_instruct,
};

int iw_drv_ref_open(iw_driver *d, iw_err *e)
{
	const iw_dut_config *c = d->cfg;
	ref_priv *r = calloc(1, sizeof *r);
	if (!r)
		return iw_errf(e, IW_ENOSPC, "ref: out of memory");
	r->lfd = -1;
	iw_ref_options *o = &r->base;
	iw_ref_options_default(o);
	o->profile = c->profile;
	o->role = c->role == IW_ROLE_INITIATOR ? IW_ROLE_INITIATOR : IW_ROLE_RESPONDER;
	o->reflector = c->reflector;
	/* The reflector advertises its buffer in its first Send (docs/reflector.md): an initiator at
	 * once (TI-07, A39), a responder once the peer's first FPDU let it speak (rule 4). */
	o->greeting = c->reflector;
	o->rping = c->ulp == IW_ULP_RPING;
	o->rping_size = c->rping_size;
	/* ulp = perftest: read until the runner picks a case's (ref_case_begin). */
	o->perftest = iw_drv_ref_perftest(c->ulp == IW_ULP_PERFTEST ? IW_ULP_PERFTEST_READ : c->ulp);
	/* The built-in DUT's startup timeout (MPA-6.1-R10a) is only measured, never judged: keep it short
	 * so the measuring cases do not dominate a run. It runs from the peer's last octet, so a case
	 * that sends its frame an octet at a time is not cut off however slowly a loaded machine
	 * schedules it (up to 10 timeouts in all, ref_server.h). */
	o->startup_timeout_ms = 2000;
	o->batch = c->ref_batch;
	o->reject_pd = c->reject;
	iw_err fe;
	if (iw_hostile_find(c->hostile, &o->hostile, &fe) != IW_OK || iw_mutant_find(c->mutant, &o->mutant, &fe) != IW_OK) {
		free(r);
		return iw_errf(e, IW_EINVAL, "ref: %s", fe.msg);
	}
	d->ops = &ref_ops;
	d->priv = r;
	int rc = iw_ref_server_new(&r->srv, o, e);
	if (rc == IW_OK && o->role == IW_ROLE_INITIATOR) {
		r->lport = 0;
		rc = iw_net_listen("127.0.0.1", &r->lport, &r->lfd, e);
	}
	if (rc == IW_OK)
		rc = iw_ref_server_start(r->srv, e);
	if (rc != IW_OK) {
		ref_destroy(d);
		d->ops = NULL;
		return rc;
	}
	return IW_OK;
}
