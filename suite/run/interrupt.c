/*
 * interrupt.c - the run's stop flag, set by SIGINT or SIGTERM (interrupt.h).
 */
#include "interrupt.h"

#include <signal.h>
#include <stddef.h>

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	if (got_signal) {
		/* The second one: the user means it. Default action, at once. */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	got_signal = sig;
}

void iw_interrupt_install(void)
{
	struct sigaction sa;
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: poll() and nanosleep() must return so the flag is seen */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void iw_interrupt_uninstall(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

bool iw_interrupted(void) { return got_signal != 0; }

int iw_interrupt_signal(void) { return (int)got_signal; }

void iw_interrupt_set(int sig) { got_signal = sig; }
