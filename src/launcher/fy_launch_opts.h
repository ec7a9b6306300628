/* mpiexec command line.
 *
 * Contract: fy_launch_opts_parse() fills opts from argv (argv is kept and
 * not modified). Returns 0 to run, 1 when the caller should exit 0 (help or
 * version printed to out), -1 on error (message printed to err).
 * - The command line is one or more applications separated by a word ":"
 *   (MPMD, as the MPI standard's mpiexec has it): "[global options] [local
 *   options] program args : [local options] program args : ...". The first
 *   word that is not an option is an application's program; every word
 *   after it up to the next ":" is its arguments.
 * - Local options (-n, -env, -envlist, -envall, -wdir) describe their
 *   application; global ones (everything else, -genv, -genvlist and -x
 *   included) the job, and come before the first program: in a later
 *   application they are an error, with a message.
 * - -hosts LIST after ":" is that program's own host list (a local option
 *   there; before the first program it is the job's).
 * - Hydra's spellings are taken: -l (-prefix), -genvlist/-envlist A,B (each
 *   name as -x NAME: forwarded with mpiexec's value), -genvall/-envall (the
 *   default: the whole environment is forwarded), -gwdir DIR (the -wdir of
 *   every program that gives none), -iface NAME (o->iface), -genvnone and
 *   -envnone (app->envnone: remote ranks only, as Hydra's, whose local
 *   ranks inherit mpiexec's environment too),
 *   -outfile-pattern/-errfile-pattern P (each rank's stdout/stderr into the
 *   file P names: %r its rank, %h its host, %p its node's index, %g 0 (the
 *   job's process group: no spawning), %% a '%'; any other % is refused).
 * - Ranks are numbered through the applications in order: the first one's
 *   np ranks are 0..np-1, and so on; fy_launch_app_of() says whose a rank
 *   is (its MPI_APPNUM). np is the total.
 * - "-configfile FILE", the last word of the command line, reads the
 *   programs from FILE instead: one per line, each "[local options]
 *   program args" ('#' starts a comment line; words split at blanks,
 *   '...' and "..." keep blanks), as if joined by ":". */
#ifndef FY_LAUNCH_OPTS_H
#define FY_LAUNCH_OPTS_H
#include <stdio.h>

typedef struct fy_launch_env {
  const char *name;
  const char *value; /* NULL: forward mpiexec's own value, if set */
  int owned;         /* name was allocated (split from -x NAME=VALUE) */
} fy_launch_env_t;

typedef struct fy_launch_app {
  int np;                 /* -n; 1 when not given */
  char **argv;            /* program and arguments, NULL-terminated (the
                           * array is allocated, the words point into argv) */
  fy_launch_env_t *env;   /* -env NAME VALUE: this application's ranks only,
                           * set after the global -genv/-x */
  int nenv;
  const char *wdir;       /* -wdir DIR (relative: to mpiexec's directory);
                           * NULL: mpiexec's */
  int envnone;            /* -envnone (else the job's -genvnone; -envall
                           * undoes it): its remote ranks get none of
                           * mpiexec's variables, only -genv, -x and -env
                           * over their login environment */
  const char *hosts;      /* -hosts after ":": this program's own hosts
                           * (NULL: the job's -hosts / -f, or this host) */
} fy_launch_app_t;

typedef struct fy_launch_opts {
  int np;                 /* ranks of all applications */
  int prefix;             /* -1 not given on the command line, else 0/1 */
  const char *bind;       /* -bind-to (fy_launch_place.h), NULL if not given */
  long timeout;           /* -timeout seconds; -1 not given */
  fy_launch_env_t *env;   /* -genv / -x, in order */
  int nenv;
  const char *hosts;      /* -hosts a,b:2 (NULL: not given) */
  const char *hostfile;   /* -f FILE */
  int ppn;                /* -ppn P; 0 not given */
  const char *launcher;   /* -launcher ssh|fork; NULL not given */
  const char *launcher_exec; /* -launcher-exec CMD; NULL not given */
  const char *pmi_host;   /* -pmi-host ADDR; NULL not given */
  const char *gwdir;      /* -gwdir DIR: the -wdir of programs without one */
  const char *outfile, *errfile; /* -outfile-pattern, -errfile-pattern; NULL not given */
  int genvnone;           /* -genvnone: every program's -envnone */
  const char *iface;      /* -iface NAME: the network the hosts share (the
                           * PMI address, and the fabric's interface through
                           * FI_NET_IFACE, FI_TCP_IFACE, FI_SOCKETS_IFACE,
                           * first in env so that -genv/-x win) */
  fy_launch_app_t *apps;  /* in command-line order */
  int napps;
  char **cf_argv;         /* -configfile: the command line it makes, and */
  char *cf_text;          /* the file's words (what apps[].argv point into) */
} fy_launch_opts_t;

/* The command a -launcher kind stands for (the host and mpiexec's words
 * follow it): "" for fork (none), NULL for a kind that is not ssh, rsh,
 * slurm or fork. */
const char *fy_launcher_cmd(const char *kind);
int fy_launch_opts_parse(fy_launch_opts_t *o, int argc, char **argv, FILE *out, FILE *err);
void fy_launch_opts_free(fy_launch_opts_t *o);
/* The index of rank's application (0 .. napps-1). */
int fy_launch_app_of(const fy_launch_opts_t *o, int rank);
void fy_launch_usage(FILE *f);
#endif
