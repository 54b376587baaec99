/*
 * ulp_profile.h - what the DUT's application provides to the cases: the ULP profiles.
 *
 * A case says what it needs of the application on the DUT (`needs:`, case.h enum iw_cap): an
 * advertised STag and its range, receives posted on QN 0, an echo of each Send, a buffer
 * shared by its connections, a second connection, the DUT's own Sends. Each application a lab
 * can run on a DUT (iwspec-reflector, rdma-core's rping, perftest, or nothing iwspec knows)
 * is one profile per DUT role: what it provides once `startup` has taken a connection to full
 * operation, and how `startup` gets there (where the application's buffer advertisement
 * arrives). The runner runs every case whose needs the DUT's profile meets and SKIPs the rest
 * naming the first missing capability; docs/ulp-profiles.md is the user's guide and holds the
 * table of which cases each profile runs (`iwspec list --ulp`).
 */
#ifndef IW_ULP_PROFILE_H
#define IW_ULP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "case.h"
#include "dut_config.h"

/* How `startup` takes a connection to the point the profile's capabilities hold. */
enum iw_ulp_startup {
	IW_ULP_START_FRAMES,        /* the startup frames alone: the harness's next MSN on QN 0 is 1 */
	IW_ULP_START_REFLECTOR,     /* frames, one Send, the reflector's greeting and its echo (next MSN 2) */
	IW_ULP_START_RPING_INFO,    /* frames, then rping's 16-octet advertisement (the client's source
				     * buffer), which becomes the connection's advertised buffer */
	IW_ULP_START_NONE,          /* no way to full operation iwspec speaks: cases with `startup` SKIP */
	IW_ULP_START_PERFTEST,      /* perftest, server or client: its comm connection before each
				     * connection, the frames, then the keys on the comm connection
				     * (exec_perftest.c); the DUT's keys name the advertised buffer; a
				     * client DUT's whole test follows, taken too */
	IW_ULP_START_PLANNED,       /* an exchange iwspec does not speak yet (none today): the
				     * profile's cases SKIP, and the table of docs/ulp-profiles.md shows
				     * what it would run */
};

typedef struct iw_ulp_profile {
	const char *name;           /* as docs/ulp-profiles.md names it: "reflector", "rping-server" */
	int ulp;                    /* enum iw_ulp of `ulp =` that selects it; -1: not selectable yet */
	int dut_role;               /* enum iw_role of the DUT; -1: either */
	const char *dut_runs;       /* what the lab runs on the DUT */
	unsigned provides;          /* enum iw_cap bits of the application (never IW_CAP_CONFIG's) */
	iw_case_needs_amounts amounts;
	enum iw_ulp_startup startup;
	const char *why_not;        /* IW_ULP_START_NONE: why `startup` cannot run, for the SKIP */
	const char *how;            /* how a case reaches the capabilities, one sentence for the docs */
	uint32_t dut_next_msn;      /* a profile that answers (IW_CAP_ANSWER): the DUT's next MSN on QN 0
				     * after startup (the reflector's 3: greeting and echo); 0 otherwise */
} iw_ulp_profile;

/* The DUT's next MSN on QN 0 after the reflector's startup, which a case's `expect send msn=`
 * is written against. */
#define IW_ULP_REFLECTOR_NEXT_MSN 3

/* Every profile, in the order of docs/ulp-profiles.md; *n gets their number. */
const iw_ulp_profile *iw_ulp_profiles(size_t *n);

/* The profile of a DUT configuration in a role (enum iw_role): its `ulp`, where `reflector = no`
 * without one says none; never NULL. ib_send_lat's client (`ulp = perftest-send-lat` in the
 * initiator role) is a profile outside the tables whose cases all SKIP saying why it is not one. */
const iw_ulp_profile *iw_ulp_profile_of(const iw_dut_config *d, int dut_role);

/* iw_ulp_profile_of's profile as d sizes it, into *out: under `rping_size` other than rping's
 * default 64 its ranges are that long and what the DUT runs says `-S N` (its dut_runs then points
 * into runs, cap octets), and it does not provide `rping`: the rping cases script -S 64's flow
 * (its data, its lengths), which an rping of another size does not follow. */
void iw_ulp_profile_sized(const iw_dut_config *d, int dut_role, iw_ulp_profile *out, char *runs, size_t cap);

/* The profile named name, or NULL. */
const iw_ulp_profile *iw_ulp_profile_find(const char *name);

/* Whether u can be selected (`ulp =`) and its `startup` run: false for a planned profile (none today). */
bool iw_ulp_profile_ready(const iw_ulp_profile *u);

/* Why case c cannot run against profile u ("needs recv=8x65536: the DUT runs rping -s (profile
 * rping-server), which provides recv=1x16"), written into why; false when u meets every need of
 * the application (the configuration's, IW_CAP_CONFIG, are the runner's to check). */
bool iw_ulp_unmet(const iw_case *c, const iw_ulp_profile *u, char *why, size_t cap);

/* Whether the DUT's application under u is a program of rdma-core's or perftest's run over the
 * stack under test (rping, ib_*_bw), not iwspec's reflector nor the DUT's own: its crash is its
 * own code's, which the wire does not show to be the stack's. */
bool iw_ulp_runs_tool(const iw_ulp_profile *u);

/* The profile c runs against under u: u itself, but under `ulp = perftest` (perftest-server,
 * perftest-client) the first of perftest's modes (read, send, write) that provides all c needs,
 * or NULL when none does (iw_ulp_unmet then says what each lacks). */
const iw_ulp_profile *iw_ulp_mode_for(const iw_ulp_profile *u, const iw_case *c);

/* Whether c opens a connection with `startup` (the profile's way to full operation). */
bool iw_case_uses_startup(const iw_case *c);

#endif
