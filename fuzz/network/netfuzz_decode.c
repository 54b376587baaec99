/*
 * netfuzz_decode.c - the DUT's octets (and the model's) after the startup frame, decoded with
 * the engine (streaming FPDU decoder, RDMAP parser) into a list of messages and checked, FPDU
 * by FPDU, with suite/verify/'s rules of a conforming data source: the same judge as the runner's.
 */
#include "netfuzz_judge.h"
#include "verify.h"

#include <stdlib.h>
#include <string.h>

int nf_dec_init(nf_dec *d)
{
	memset(d, 0, sizeof *d);
	d->rx = malloc(sizeof *d->rx);
	d->fp = malloc(sizeof *d->fp);
	return d->rx && d->fp ? 0 : -1;
}

void nf_dec_free(nf_dec *d)
{
	free(d->rx);
	free(d->fp);
	free(d->dut.data);
	free(d->exp.data);
	memset(d, 0, sizeof *d);
}

static bool keep_data(nf_msgs *m, const uint8_t *b, size_t n)
{
	if (m->data_len + n > m->data_cap) {
		size_t cap = (m->data_len + n) * 2 + 1024;
		uint8_t *nd = realloc(m->data, cap);
		if (!nd)
			return false;
		m->data = nd;
		m->data_cap = cap;
	}
	memcpy(m->data + m->data_len, b, n);
	m->data_len += n;
	return true;
}

bool nf_decode_msgs(nf_dec *d, const iw_profile *p, const uint8_t *b, size_t n, bool markers, bool crc,
		    nf_msgs *out, nf_finding *f)
{
	out->n = out->dropped = 0;
	out->data_len = 0;
	out->partial = false;
	iw_mpa_rx_init(d->rx, p, markers, crc);
	nf_msgrec cur;
	iw_source src; /* the DUT as a data source (verify.h), the same judge as the runner's */
	iw_source_init(&src);
	while (n) {
		size_t used = 0;
		iw_violation v;
		enum iw_rx_status st = iw_mpa_rx_push(d->rx, b, n, &used, d->fp, &v);
		b += used;
		n -= used;
		if (st == IW_RX_ERROR) {
			nf_find(f, NF_F_STREAM, iw_verify_stream_req(&v, d->fp), false, "the DUT's stream is invalid at offset %llu: %s [%s]",
				(unsigned long long)v.offset, v.detail, iw_error_name(v.layer, v.etype, v.ecode));
			return false;
		}
		if (st != IW_RX_FPDU)
			break;
		const iw_fpdu *fp = d->fp;
		iw_check chk;
		if (!iw_verify_fpdu(fp, &chk) || !iw_verify_ulpdu_size(fp, &chk)) {
			nf_find(f, NF_F_STREAM, chk.req, false, "%s", chk.detail);
			return false;
		}
		iw_rdmap_msg m;
		if (!iw_verify_ulpdu(p, fp->ulpdu, fp->ulpdu_length, &m, &chk)) {
			nf_find(f, NF_F_STREAM, chk.req, false, "the DUT sent an invalid RDMAP message at %llu: %s",
				(unsigned long long)fp->start, chk.detail);
			return false;
		}
		bool first = !src.in_msg;
		if (!iw_verify_segment(&src, p, &m, &chk)) {
			nf_find(f, NF_F_STREAM, chk.req, false, "%s", chk.detail);
			return false;
		}
		if (first) {
			memset(&cur, 0, sizeof cur);
			cur.opcode = m.opcode;
			cur.tagged = m.ddp.tagged;
			cur.stag = m.ddp.stag;
			cur.to = m.ddp.to;
			cur.qn = m.ddp.qn;
			cur.msn = m.ddp.msn;
			cur.off = (uint32_t)out->data_len;
		}
		bool keep = !cur.tagged;
		if (keep && !keep_data(out, m.payload, m.payload_len))
			return true;
		cur.len += (uint32_t)m.payload_len;
		cur.nseg++;
		if (m.ddp.last) {
			cur.end = d->rx->pos;
			if (out->n < NF_MAX_MSGS)
				out->m[out->n++] = cur;
			else
				out->dropped++;
		}
	}
	out->partial = src.in_msg || iw_mpa_rx_partial(d->rx) || n > 0;
	return true;
}
