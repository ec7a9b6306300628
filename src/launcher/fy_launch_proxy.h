/* mpiexec's remote side: "mpiexec --fy-proxy SPEC" runs one rank on a remote
 * host (started there by ssh or the -launcher-exec command).
 *
 * Contract
 * - fy_proxy_spec_t holds what a remote rank needs: PMI_PORT, its rank
 *   (PMI_ID = PMI_RANK), size, local rank and count on its node, kvsname,
 *   working directory, host name (for messages), binding (-1 auto, 0, 1),
 *   kill timeout, the environment to set, and the program's argv.
 * - fy_proxy_encode() turns it into one word of hex digits, so it passes
 *   unchanged through ssh's remote shell and through exec-style wrappers
 *   (no quoting). NULL when out of memory.
 * - fy_proxy_main(spec_word) decodes it, forks the program with the PMI
 *   environment and stdin from /dev/null (stdout/stderr shared with the
 *   proxy, so they travel back over the launcher), and waits. Its own stdin
 *   is the liveness channel: EOF (mpiexec gone, ssh connection closed) or a
 *   forwarded SIGINT/SIGTERM/SIGHUP/SIGQUIT ends the program (SIGTERM, then
 *   SIGKILL after the kill timeout); SIGUSR1/2 are forwarded. When the
 *   program fails it removes the job's /dev/shm/fy-<kvsname>-* on its host
 *   (mpiexec does that only on its own). It returns
 *   the program's exit code, or ends itself with the program's signal so
 *   the launcher sees the same status. */
#ifndef FY_LAUNCH_PROXY_H
#define FY_LAUNCH_PROXY_H

typedef struct fy_proxy_spec {
  const char *pmi_port, *kvsname, *cwd, *host;
  int rank, size, local_rank, local_size, bind;
  long kill_timeout;
  int nenv;
  const char **env; /* "NAME=VALUE" */
  int nargs;
  const char **argv;
} fy_proxy_spec_t;

char *fy_proxy_encode(const fy_proxy_spec_t *s);
int fy_proxy_main(const char *word);
#endif
