#include "driver.h"

#include <stdlib.h>
#include <string.h>

int iw_driver_open(iw_driver **out, const iw_dut_config *cfg, iw_err *e)
{
	*out = NULL;
	int (*open_fn)(iw_driver *, iw_err *);
	if (!strcmp(cfg->dut, "ref"))
		open_fn = iw_drv_ref_open;
	else if (!strncmp(cfg->dut, "tcp:", 4))
		open_fn = iw_drv_tcp_open;
	else if (!strncmp(cfg->dut, "exec:", 5))
		open_fn = iw_drv_exec_open;
	else
		return iw_errf(e, IW_EINVAL, "unknown DUT '%s': use ref, tcp:HOST:PORT or exec:'COMMAND'", cfg->dut);
	if (!cfg->profile)
		return iw_errf(e, IW_EINVAL, "DUT '%s': no profile configured", cfg->dut);
	if (iw_dut_config_check(cfg, e))
		return IW_EINVAL;
	iw_driver *d = calloc(1, sizeof *d);
	if (!d)
		return iw_errf(e, IW_ENOSPC, "out of memory opening the DUT driver");
	d->cfg = cfg;
	d->ulp = cfg->ulp;
	int rc = open_fn(d, e);
	if (rc) {
		free(d);
		return rc;
	}
	*out = d;
	return IW_OK;
}

void iw_driver_close(iw_driver *d)
{
	if (!d)
		return;
	if (d->ops && d->ops->destroy)
		d->ops->destroy(d);
	free(d);
}

void iw_driver_set_ulp(iw_driver *d, int ulp) { d->ulp = ulp; }

/* perftest's programs by the word that names them on command lines ({perftest}, --perftest). */
static const struct {
	int ulp;
	const char *word;
} perftest_words[] = {
	{ IW_ULP_PERFTEST_SEND, "send" }, { IW_ULP_PERFTEST_WRITE, "write" },
	{ IW_ULP_PERFTEST_READ, "read" }, { IW_ULP_PERFTEST_SEND_LAT, "send-lat" },
};

const char *iw_driver_perftest_word(int ulp)
{
	for (size_t i = 0; i < sizeof perftest_words / sizeof perftest_words[0]; i++)
		if (perftest_words[i].ulp == ulp)
			return perftest_words[i].word;
	return NULL;
}

int iw_driver_perftest_ulp(const char *word)
{
	for (size_t i = 0; word && i < sizeof perftest_words / sizeof perftest_words[0]; i++)
		if (!strcmp(perftest_words[i].word, word))
			return perftest_words[i].ulp;
	return -1;
}

int iw_driver_instruct(iw_driver *d, const iw_dut_instr *in, iw_err *e)
{
	if (!d->ops->instruct)
		return iw_errf(e, IW_ESTATE, "the %s driver cannot pass per-case requests to the DUT; "
			       "configure the DUT itself", d->ops->name);
	return d->ops->instruct(d, in, e);
}
