/*
 * cli.h - the iwspec subcommands. Each takes argc/argv after the subcommand name
 * (argv[0] is the subcommand) and returns the process exit status; none calls exit().
 */
#ifndef IW_CLI_H
#define IW_CLI_H

int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_vectors(int argc, char **argv);
int cmd_fuzz(int argc, char **argv);
int cmd_mutants(int argc, char **argv);
int cmd_crosscheck(int argc, char **argv);
int cmd_pcap_combine(int argc, char **argv);

/* Exit statuses shared by the subcommands (design.md "Verdicts and exit codes"). IW_EXIT_CONTRADICTS
 * is `iwspec run`'s alone: the DUT contradicted its declared configuration (markers = yes, and its
 * frames have M=0), which is neither an outage nor the harness's fault, so it has a code of its own. */
enum { IW_EXIT_OK = 0, IW_EXIT_FAIL = 1, IW_EXIT_USAGE = 2, IW_EXIT_ERROR = 3, IW_EXIT_CONTRADICTS = 4 };

#endif
