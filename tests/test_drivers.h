/*
 * test_drivers.h - helpers shared by the tests of the DUT drivers and the built-in DUT
 * (test_drivers_*.c, defined in test_drivers_util.c). Every wait is bounded: a test that would
 * hang fails instead.
 */
#ifndef IW_TEST_DRIVERS_H
#define IW_TEST_DRIVERS_H

#include "check.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver.h"
#include "dut_config.h"
#include "iw_conn.h"
#include "profile.h"

/* How long a test waits for what the DUT must do: its octets, its close, its connection, an
 * event of the model. The awaited thing ends the wait, so this is a hang guard, far from any
 * scheduling delay: 1000 ms windows for a Reply were missed under load (a DUT thread the
 * scheduler left waiting) with the DUT right. A wait that checks the DUT says nothing keeps its
 * own short window: a late scheduler can only make such a check pass. */
#define AWAIT_MS 10000

/* Whether msg contains part (says which is missing on stderr when not). */
bool msg_has(const char *msg, const char *part);

/* Reads until cap octets, end of stream, reset or ms elapsed; *st is the last status. */
size_t read_for(int fd, uint8_t *buf, size_t cap, int64_t ms, int *st);

/* A Request of profile p with the given flags octet (and a key octet flipped when flip >= 0). */
void send_request(int fd, const iw_profile *p, bool m, int flip);

/* The default configuration of the ref DUT with a hostile mode and a mutant (NULL: none). */
void cfg_ref(iw_dut_config *c, const char *hostile, const char *mutant);

/* Opens the ref driver and connects once (DUT responder). */
iw_driver *ref_connect(const iw_dut_config *c, int *fd);

/* Closes fd, ends the case (no DUT finding expected) and closes the driver. */
void end_case(iw_driver *d, int fd);

/* Moves octets between fd and the harness-side model until an event of kind want (copied
 * to *out, with its Send payload into data) or ms elapsed. */
bool model_until(int fd, iw_conn *m, enum iw_conn_ev_kind want, int64_t ms, iw_conn_event *out, uint8_t *data,
		 size_t cap);

/* A started model of the default profile in role, wanting markers or not. */
iw_conn *harness_model(enum iw_role role, bool markers);

#endif
