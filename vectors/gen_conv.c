/*
 * gen_conv.c - whole conversations, both directions, from TCP's first data octet to the
 * FIN: the vectors that become pcap files (Wireshark's MPA dissector only engages on a
 * connection whose data starts with the Request and the Reply).
 */
#include <string.h>

#include "rdmap.h"
#include "vec_conv.h"

/* A side's configuration: markers wanted, CRC, and a 4 KiB buffer open to remote access. */
static json_t *cfg(bool markers, uint32_t stag)
{
	json_t *c = json_pack("{s:b, s:b}", "markers", markers, "crc", 1);
	if (stag) {
		char b[24];
		json_object_set_new(c, "stags", json_pack("[{s:s, s:s, s:i, s:s}]", "stag", vec_u64hex(stag, b), "base_to",
							  "0x0", "length", 4096, "access", "rw"));
	}
	return c;
}

static conv *start(vgen *g, json_t *i, json_t *r)
{
	iw_err e;
	conv *cv = conv_new(g->p, i, r, true, &e);
	if (!cv && !g->failed) {
		iw_errf(g->e, IW_EINVAL, "conversation (%s): %s", g->p->name, e.msg);
		g->failed = true;
	}
	return cv;
}

/* Rewrites: the first octet of the DDP header is the control octet (T L Rsvd DV). */
static void set_t_bit(uint8_t *u, size_t len, void *arg)
{
	(void)arg;
	if (len)
		u[0] |= IW_DDP_T;
}

static void set_dv0(uint8_t *u, size_t len, void *arg)
{
	(void)arg;
	if (len)
		u[0] &= (uint8_t)~IW_DDP_DV_MASK;
}

static void basic(vgen *g)
{
	conv *cv = start(g, cfg(false, 0x1000), cfg(false, 0x2000));
	if (!cv)
		return;
	conv_pump(cv);
	conv_send(cv, CONV_I, IW_OP_SEND, 64);
	conv_write(cv, CONV_I, 0x2000, 0, 100);
	conv_read(cv, CONV_I, 0x1000, 0, 100, 0x2000, 0);
	conv_send(cv, CONV_I, IW_OP_SEND_SE, 5);
	conv_finish(cv, g, "A whole connection: Request and Reply (C=1, no markers), a Send echoed by the responder, an "
			   "RDMA Write, an RDMA Read and its Response, a Send with Solicited Event, FIN both ways",
		    "MPA-6.1-R1a,MPA-6.1-R2f,MPA-6.1-R4,MPA-6.1-R3d,RFC5040-4.4-01,RFC5040-5.2-03,MPA-6.2-F1", "");
}

void gen_conversations(vgen *g)
{
	const iw_profile *p = g->p;
	if (!p->startup_frames || p->id == IW_PROFILE_SEED_EXACT)
		return;
	conv *cv;
	basic(g);
	if (p->id == IW_PROFILE_RFC6581) {
		json_t *i = cfg(false, 0x1000), *r = cfg(false, 0x2000);
		json_object_set_new(i, "p2p", json_true());
		json_object_set_new(i, "rtr", json_pack("[s]", "write"));
		json_object_set_new(r, "p2p", json_true());
		if ((cv = start(g, i, r))) {
			conv_pump(cv);
			conv_send(cv, CONV_I, IW_OP_SEND, 32);
			conv_finish(cv, g, "RFC 6581 peer-to-peer: the Request offers the Write RTR, the Reply picks it, the "
					   "initiator's first FPDU is a zero-length RDMA Write, then a Send",
				    "RFC6581-9.2-02,RFC6581-9.2-03,RFC6581-9.1-01,MPA-6.1-R4", "");
		}
	}
	if (p->id != IW_PROFILE_RFC5044)
		return;

	if ((cv = start(g, cfg(true, 0x1000), cfg(true, 0x2000)))) {
		conv_pump(cv);
		for (int k = 0; k < 4; k++)
			conv_send(cv, CONV_I, IW_OP_SEND, 150 + 100 * (size_t)k);
		conv_write(cv, CONV_I, 0x2000, 0, 900);
		conv_finish(cv, g, "Markers in both directions (M=1 in Request and Reply): FPDUs cross 512-octet "
				   "boundaries both ways",
			    "MPA-6.1.1-M2,MPA-5.1-02,MPA-5.1-03,MPA-5.1-06", "");
	}
	if ((cv = start(g, cfg(false, 0x1000), cfg(true, 0x2000)))) {
		conv_pump(cv);
		for (int k = 0; k < 3; k++)
			conv_send(cv, CONV_I, IW_OP_SEND, 300);
		conv_finish(cv, g, "Markers in one direction only: the responder asked for them (M=1 in the Reply), the "
				   "initiator did not, so only the initiator sends markers",
			    "MPA-6.1.1-M1,MPA-6.1.1-M2", "");
	}
	if ((cv = start(g, cfg(false, 0), cfg(false, 0)))) {
		conv_pump(cv);
		conv_send(cv, CONV_I, IW_OP_SEND, 5000);
		conv_finish(cv, g, "A 5000-octet Send: segmented by MULPDU 1454 into four FPDUs, echoed the same way",
			    "DDP-7.2-01,DDP-7.2-05,MPA-5.3.2-02", "");
	}
	if ((cv = start(g, cfg(false, 0), cfg(false, 0)))) {
		conv_flip(cv, CONV_I, 2, 30, 0x01);
		conv_pump(cv);
		conv_send(cv, CONV_I, IW_OP_SEND, 40);
		conv_send(cv, CONV_I, IW_OP_SEND, 40);
		conv_send(cv, CONV_I, IW_OP_SEND, 40);
		conv_finish(cv, g, "A payload octet of the initiator's second FPDU flipped in transit: the responder finds "
				   "a CRC error, sends a Terminate (LLP, MPA code 2) and closes",
			    "MPA-5.2-14,MPA-7-01,MPA-7-08,MPA-7-09,RFC5040-4.8-08", "crc-mismatch");
	}
	if ((cv = start(g, cfg(false, 0x1000), cfg(false, 0x2000)))) {
		conv_pump(cv);
		conv_send(cv, CONV_I, IW_OP_SEND, 8);
		conv_read(cv, CONV_I, 0x1000, 0, 64, 0x7777, 0);
		conv_finish(cv, g, "An RDMA Read Request from an STag the responder does not have: Terminate RDMAP "
				   "0x1/0x00 with the untagged DDP header and the Read Request attached (M, D, R)",
			    "RFC5040-4.8-10,RFC5040-5.2-04", "invalid-stag");
	}
	if ((cv = start(g, cfg(false, 0), cfg(false, 0x2000)))) {
		conv_pump(cv);
		conv_send(cv, CONV_I, IW_OP_SEND, 8);
		conv_write(cv, CONV_I, 0x8888, 0, 32);
		conv_finish(cv, g, "An RDMA Write to an STag the responder does not have: Terminate DDP 0x1/0x00 with the "
				   "tagged header attached",
			    "DDP-9.1-T1,RFC5040-4.8-03,DDP-9.1-02", "invalid-stag");
	}
	if ((cv = start(g, cfg(false, 0), cfg(false, 0)))) {
		conv_rewrite(cv, CONV_I, 1, set_t_bit, NULL);
		conv_pump(cv);
		conv_send(cv, CONV_I, IW_OP_SEND, 24);
		conv_finish(cv, g, "The initiator's first Send with its T bit set (CRC valid): a tagged Send, unexpected "
				   "opcode; the responder terminates",
			    "RFC5040-4.2-05", "t-bit-mismatch");
	}
	if ((cv = start(g, cfg(false, 0), cfg(false, 0)))) {
		conv_rewrite(cv, CONV_I, 1, set_dv0, NULL);
		conv_pump(cv);
		conv_send(cv, CONV_I, IW_OP_SEND, 24);
		conv_finish(cv, g, "The initiator's first Send with DDP version 0 (CRC valid): invalid DDP version "
				   "(0x1/0x2/0x06)",
			    "DDP-6.1-10,DDP-6.1-09", "ddp-version");
	}
	json_t *r = cfg(false, 0);
	json_object_set_new(r, "reject", json_true());
	if ((cv = start(g, cfg(false, 0), r))) {
		conv_pump(cv);
		conv_finish(cv, g, "The responder rejects: Reply with R=1; neither side sends an FPDU",
			    "MPA-6.1-R2c,MPA-6.1-R2e,MPA-6.1-R3c", "");
	}
	if ((cv = start(g, cfg(false, 0), cfg(false, 0)))) {
		conv_flip(cv, CONV_I, 0, 0, 0x01);
		conv_pump(cv);
		conv_finish(cv, g, "The Request's first Key octet is wrong: the responder closes without a Reply",
			    "MPA-6.1-R5,MPA-6.1-R2b,MPA-7-06", "bad-key");
	}
}
