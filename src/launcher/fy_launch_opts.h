/* mpiexec command line.
 *
 * Contract: fy_launch_opts_parse() fills opts from argv (argv is kept and
 * not modified). Returns 0 to run, 1 when the caller should exit 0 (help or
 * version printed to out), -1 on error (message printed to err). The first
 * word that is not an option is the program; every word after it belongs to
 * the program. */
#ifndef FY_LAUNCH_OPTS_H
#define FY_LAUNCH_OPTS_H
#include <stdio.h>

typedef struct fy_launch_env {
  const char *name;
  const char *value; /* NULL: forward mpiexec's own value, if set */
  int owned;         /* name was allocated (split from -x NAME=VALUE) */
} fy_launch_env_t;

typedef struct fy_launch_opts {
  int np;                 /* 1 when not given */
  int prefix;             /* -1 not given on the command line, else 0/1 */
  int bind;               /* -1 not given, 0 none, 1 core (-bind-to) */
  long timeout;           /* -timeout seconds; -1 not given */
  fy_launch_env_t *env;   /* -genv / -x, in order */
  int nenv;
  const char *hosts;      /* -hosts a,b:2 (NULL: not given) */
  const char *hostfile;   /* -f FILE */
  int ppn;                /* -ppn P; 0 not given */
  const char *launcher;   /* -launcher ssh|fork; NULL not given */
  const char *launcher_exec; /* -launcher-exec CMD; NULL not given */
  const char *pmi_host;   /* -pmi-host ADDR; NULL not given */
  char **prog_argv;       /* NULL-terminated, points into argv */
} fy_launch_opts_t;

int fy_launch_opts_parse(fy_launch_opts_t *o, int argc, char **argv, FILE *out, FILE *err);
void fy_launch_opts_free(fy_launch_opts_t *o);
void fy_launch_usage(FILE *f);
#endif
