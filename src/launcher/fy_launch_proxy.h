/* mpiexec's remote side: "mpiexec --fy-proxy SPEC" runs the ranks of one
 * job on one host (started there by ssh, srun or the -launcher-exec
 * command: one launcher per host, not per rank, as Hydra's proxies).
 *
 * Contract
 * - fy_proxy_spec_t holds what the host's ranks need: the job's
 *   size and kvsname, the host's name (for messages) and rank count,
 *   binding (fy_launch_place.h), kill timeout, the environment every rank gets,
 *   the programs (working directory, their own variables over the common
 *   ones, argv), and per rank its number, local rank and program.
 * - fy_proxy_encode() turns it into one word of hex digits, so it passes
 *   unchanged through ssh's remote shell and through exec-style wrappers
 *   (no quoting). NULL when out of memory.
 * - fy_proxy_main(spec_word) decodes it and forks every rank with the PMI
 *   environment (PMI_FD, PMI_RANK, PMI_SIZE, ...) and stdin from
 *   /dev/null, except stdin_rank, whose stdin is a pipe fed from mpiexec's;
 *   each rank's stdout and stderr come back to mpiexec as frames on the
 *   proxy's stdout (fy_launch_frame.h), with its pid and its wait status.
 *   Its PMI connection is a socket to the proxy, relayed to mpiexec's PMI
 *   server in frames too, as Hydra's proxies do: the ranks need no route
 *   to mpiexec, and mpiexec holds one connection per host, not per rank.
 *   The proxy's stdin is the control channel, frames too: signals to
 *   forward to every rank (its process group), stdin_rank's input,
 *   acknowledged as the rank takes it, and the PMI server's answers; EOF (mpiexec gone, the connection
 *   closed) ends the ranks. A terminating signal, forwarded or
 *   received, is followed by SIGKILL after the kill timeout. When a rank
 *   fails it removes the job's /dev/shm/fy-<kvsname>-* on its host (mpiexec
 *   does that only on its own). It returns 0 once every rank's end is
 *   reported; messages of its own (a program that cannot be executed) go
 *   to its stderr.
 * - fy_proxy_connect_main(addr, cookie): the proxy of a launcher that runs
 *   many hosts' proxies in one step and merges their output (one srun for
 *   a Slurm job's nodes, fy_launch_slurm.h): it connects to mpiexec at
 *   addr ("host:port", the listener it opens for the step's proxies), says
 *   "cmd=fy-proxy cookie=COOKIE node=NAME" (NAME: SLURMD_NODENAME, else
 *   the host name), reads "cmd=fy-proxy-spec len=N" and the N bytes of
 *   its host's spec word, then runs fy_proxy_main on it with the
 *   connection as both its stdin and its stdout: the same frames, over a
 *   socket of its own instead of the launcher's pipes. 127 with a message
 *   when it cannot connect or mpiexec refuses it ("cmd=fy-proxy-refused
 *   reason=..."). */
#ifndef FY_LAUNCH_PROXY_H
#define FY_LAUNCH_PROXY_H

typedef struct fy_proxy_app {
  const char *cwd;  /* "" for the login directory */
  int inherit;      /* the common variables apply (0: -envnone) */
  int nenv;
  const char **env; /* "NAME=VALUE", over the common ones */
  int nargs;
  const char **argv;
} fy_proxy_app_t;

typedef struct fy_proxy_spec {
  const char *kvsname, *host;
  int size, local_size;
  const char *bind; /* the binding (fy_launch_place.h), resolved on the host */
  long kill_timeout;
  int stdin_rank; /* the rank given mpiexec's stdin, if on this host; else -1 */
  int nenv;
  const char **env; /* "NAME=VALUE", every rank of a program that inherits */
  int napps;
  const fy_proxy_app_t *apps;
  int nranks;
  const int *rank, *local_rank, *app; /* per rank of this host */
} fy_proxy_spec_t;

char *fy_proxy_encode(const fy_proxy_spec_t *s);
int fy_proxy_main(const char *word);
int fy_proxy_connect_main(const char *addr, const char *cookie);
#endif
