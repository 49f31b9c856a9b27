/* cli/cli.h: subcommand entry points; each returns the process exit status
 * (0 ok, 1 error in the input or the scan, 2 usage). */
#ifndef RINGSCAN_CLI_H
#define RINGSCAN_CLI_H
int cmd_version(int argc, char **argv);
#endif
