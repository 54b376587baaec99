/*
 * interrupt.h - SIGINT and SIGTERM end a run cleanly (docs/reports.md, "Interrupted runs").
 *
 * The first signal only sets a flag: the harness's waits look at it at least every 100 ms,
 * the case in progress ends (its result is kept as ERROR "interrupted"), the runner starts no
 * further case, and `iwspec run` writes its reports marked incomplete and exits 128 + the
 * signal (130 for SIGINT, 143 for SIGTERM). A second signal is not caught: it ends the process
 * at once (the reports are written atomically, so even then no half-written file is left).
 */
#ifndef IW_INTERRUPT_H
#define IW_INTERRUPT_H

#include <stdbool.h>

/* Installs the handlers for SIGINT and SIGTERM (without SA_RESTART, so blocking calls return). */
void iw_interrupt_install(void);

/* Whether a signal arrived since install (or the last reset). Async-signal-safe to call. */
bool iw_interrupted(void);

/* The signal that arrived (SIGINT, SIGTERM), 0 none. */
int iw_interrupt_signal(void);

/* Forgets a signal that arrived, and lets tests pretend one did (sig 0: clears). */
void iw_interrupt_set(int sig);

/* Restores the default dispositions. */
void iw_interrupt_uninstall(void);

#endif
