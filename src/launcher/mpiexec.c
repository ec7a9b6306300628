/* mpiexec: forks N ranks with an embedded PMI-1 server (one socketpair per
 * rank, PMI_FD), forwards stdio and signals, and tears the job down when one
 * rank fails. Ranks placed on other hosts (-hosts, -f) are started through a
 * launcher command (ssh, -launcher-exec, or -launcher fork) running
 * "mpiexec --fy-proxy" there, which relays their PMI connections to the
 * same server in frames (fy_launch_frame.h). One poll() loop; signals
 * arrive through a signalfd so the loop never races with a handler. */
#include "launcher/fy_launch_hosts.h"
#include "launcher/fy_launch_slurm.h"
#include "launcher/fy_launch_io.h"
#include "launcher/fy_launch_opts.h"
#include "launcher/fy_launch_proxy.h"
#include "launcher/fy_launch_frame.h"
#include "launcher/fy_launch_guard.h"
#include "launcher/fy_launch_place.h"
#include "launcher/fy_pmi_server.h"
#include "runtime/fy_config.h"
#include "runtime/fy_pmi_wire.h"
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct rank {
  pid_t pid;
  int reaped, status;
  int out_fd, err_fd; /* read ends, -1 once at EOF */
  fy_outbuf_t out, err;
  int remote;          /* started by its host's proxy on another host */
  pid_t rpid;          /* remote: its pid there (0 until the proxy says) */
  int lost;            /* remote: its launcher ended without reporting it */
  int out_dst, err_dst; /* where its stdout and stderr go (1, 2, or a file) */
} rank_t;

/* One proxy per remote host with ranks: "mpiexec --fy-proxy" there, which
 * starts the host's ranks and multiplexes their output, pids and ends
 * onto its stdout (fy_launch_frame.h). Each has a launcher of its own
 * (ssh, a wrapper), or, with srun, one launcher step runs every host's
 * proxy: then the proxies connect back (fy_proxy_connect_main) and their
 * frames come over a socket each, while the step's own output goes to
 * one more entry past the hosts (job.group), which has no ranks. */
typedef struct proxy {
  pid_t pid;           /* the launcher's (ssh, srun, a wrapper or the proxy) */
  int reaped;
  int out_fd, err_fd;  /* frames; the launcher's own messages (-1 at EOF) */
  int ctl_fd;          /* its stdin: frames to it; EOF ends its ranks */
  int waiting;         /* connecting back: not connected yet (frames queue) */
  int sock;            /* out_fd and ctl_fd are one connection (dup'ed) */
  char *spec;          /* connecting back: its spec word, sent at connection */
  int first;           /* its first rank, the next ones through job.px_next (-1: none) */
  fy_buf_t q;          /* frames not yet written to ctl_fd */
  int broken;          /* its stream was garbled: the rest is ignored */
  fy_frame_rx_t rx;
  fy_outbuf_t raw_out, raw_err; /* what the launcher or login prints itself */
} proxy_t;

static const int fwd_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

/* stdin bytes in flight to a remote rank 0 (sent, not yet taken by it):
 * what its proxy may have to buffer */
#define STDIN_WINDOW (256u << 10)

static struct {
  int np;
  rank_t *r;
  proxy_t *px;         /* per host index; pid 0 where no launcher runs;
                        * [hosts.n]: the one launcher step of all (group) */
  int group;           /* the proxies connect back, started by one step */
  char cookie[40];     /* ... and say this, so that no one else takes their place */
  int *node_px;        /* per node id: its first host entry, whose launcher runs its ranks */
  int *px_next;        /* per rank: the next rank of the same launcher entry, or -1 (a
                        * walk of one host's ranks, not of all ranks per host) */
  int npx_alive;
  double px_deadline;  /* every rank ended: launchers still running go then */
  int px_killed;       /* ... and were sent SIGKILL */
  fy_pmi_server_t *pmi;
  char kvsname[64];
  pid_t pgid;
  const char *bind;          /* the binding (fy_launch_place.h) */
  int nalive;
  int exit_code;       /* -1 until the first failure decides it */
  int terminating;     /* SIGTERM sent to the job */
  int killed;          /* SIGKILL sent */
  double kill_at, give_up_at;
  double deadline;     /* the job's time limit (0: none) */
  long limit_s;
  int sfd;             /* signalfd */
  struct rlimit nofile; /* the limit mpiexec started with, for the ranks */
  int nofile_raised;
  /* stdin -> rank 0 */
  int in_src, in_dst;  /* -1 when closed */
  char in_buf[65536];
  size_t in_len, in_off;
  int in_px;           /* a remote rank 0: its host's proxy takes stdin, else -1 */
  size_t in_flight;    /* stdin bytes sent to it and not yet acknowledged */
  /* several hosts */
  fy_hosts_t hosts;
  int named_hosts;     /* -hosts or -f given (or a Slurm job's nodes): messages name the host */
  int slurm;           /* the hosts are a Slurm job's (fy_launch_slurm.h) */
  int lfd;             /* the listener of an srun step's proxies, -1 if none */
  struct pend {        /* accepted connections not yet tied to a rank */
    int fd;
    size_t len;
    char buf[512];     /* what arrived before the first line was complete */
  } *pend;
  int npend, cappend;
  char pmi_port[300];  /* host:port of the listener the step's proxies connect to */
} job;

/* "rank 2 (pid 1234)", plus " on host b" when hosts were named. */
static const char *who(int i) {
  static char buf[2][320];
  static int k;
  char *b = buf[k ^= 1];
  pid_t pid = job.r[i].remote ? job.r[i].rpid : job.r[i].pid;
  int n = pid ? snprintf(b, sizeof buf[0], "rank %d (pid %d)", i, (int)pid) : snprintf(b, sizeof buf[0], "rank %d", i);
  if (job.named_hosts && n > 0)
    snprintf(b + n, sizeof buf[0] - (size_t)n, " on host %s", job.hosts.h[job.hosts.host_of[i]].name);
  return b;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

/* The proxy entries: a host's each, and the group's launcher step. */
static int npx(void) { return job.hosts.n + (job.group ? 1 : 0); }

/* Closes x's control channel, which the proxy sees end (a connection
 * whose other half stays open for its frames ends by shutdown). */
static void ctl_close(proxy_t *x) {
  if (x->ctl_fd < 0) return;
  if (x->sock) shutdown(x->ctl_fd, SHUT_WR);
  close(x->ctl_fd);
  x->ctl_fd = -1;
}

/* ---- teardown ------------------------------------------------------------ */

/* What host h's control channel takes now of its queue; the rest waits
 * for POLLOUT (a stuck ssh must not stop mpiexec). A channel that fails
 * drops its queue: that proxy is gone. */
static void ctl_flush(proxy_t *x) {
  while (x->q.len && x->ctl_fd >= 0) {
    ssize_t n = write(x->ctl_fd, x->q.p, x->q.len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n < 0) {
      x->q.len = 0;
      return;
    }
    fy_buf_drop(&x->q, (size_t)n);
  }
}

/* Queues one frame (type < 0: the bytes p alone) for host h's proxy. */
static void ctl_send(proxy_t *x, int type, int rank, const void *p, size_t n) {
  unsigned char h[FY_FRAME_HDR];
  size_t at = x->q.len;
  if (x->ctl_fd < 0 && !x->waiting) return;
  if (type >= 0) fy_frame_hdr(h, type, rank, n);
  if ((type >= 0 && fy_buf_put(&x->q, h, sizeof h) != 0) || fy_buf_put(&x->q, p, n) != 0)
    x->q.len = at; /* (a signal or stdin chunk lost: out of memory; no half frame) */
  ctl_flush(x);
}

/* The local ranks' group and each; a remote host's proxy gets the signal
 * over its control channel (ssh would die of SIGUSR1 and forward none),
 * except SIGKILL, which goes to its launcher: the proxy then sees its
 * stdin end and kills the ranks after FERRY_KILL_TIMEOUT. */
static void signal_job(int sig) {
  if (job.pgid > 0) kill(-job.pgid, sig);
  for (int i = 0; i < job.np; i++)
    if (!job.r[i].remote && job.r[i].pid > 0 && !job.r[i].reaped) kill(job.r[i].pid, sig);
  for (int h = 0; job.px && h < npx(); h++) {
    proxy_t *x = &job.px[h];
    if (!x->pid || x->reaped) continue;
    if (sig == SIGKILL) {
      kill(x->pid, SIGKILL);
    } else {
      unsigned char b[4] = {(unsigned char)sig, 0, 0, 0}; /* (int32, little-endian) */
      ctl_send(x, FY_FRAME_SIG, 0, b, sizeof b);
    }
  }
}

static void start_teardown(void) {
  if (job.terminating) return;
  job.terminating = 1;
  signal_job(SIGTERM);
  long t = fy_config.kill_timeout < 0 ? 0 : fy_config.kill_timeout;
  job.kill_at = now() + (double)t;
  job.give_up_at = job.kill_at + 5.0;
}

/* The first failure: one message, its exit code, then the job ends. */
static void job_failed(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void job_failed(int code, const char *fmt, ...) {
  if (job.exit_code >= 0 || job.terminating) return;
  job.exit_code = code;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "mpiexec: %s%s\n", msg, job.nalive > 0 ? "; terminating the job" : "");
  fflush(stderr);
  if (job.nalive > 0) start_teardown();
}

/* ---- launch --------------------------------------------------------------- */

static void child_fail(int errpipe, int err) {
  ssize_t w = write(errpipe, &err, sizeof err);
  (void)w;
  _exit(127);
}

/* -bind-to, else FERRY_BIND; each rank's host resolves it (auto compares
 * that host's ranks and OMP_NUM_THREADS with its cores). */
static const char *binding(const fy_launch_opts_t *o) {
  if (o->bind) return o->bind;
  if (fy_bind_check(fy_config.bind) == 0) return fy_config.bind;
  fprintf(stderr, "mpiexec: FERRY_BIND=%s is not none, auto, or hwthread, core, socket or numa with an optional "
                  ":N; using auto\n", fy_config.bind);
  return "auto";
}

/* ---- remote start ----------------------------------------------------------- */

static struct {
  char **words; /* the launcher command before the host (NULL: fork) */
  int nwords;
  int group;    /* words start one step for all hosts (srun), not one per host */
  char self[4096];
  char cwd[4096];
} lch;

static int split_words(const char *cmd) {
  char *copy = strdup(cmd);
  if (!copy) return -1;
  for (char *t = strtok(copy, " \t"); t; t = strtok(NULL, " \t")) {
    char **n = realloc(lch.words, (size_t)(lch.nwords + 2) * sizeof *n);
    if (!n) return -1;
    lch.words = n;
    lch.words[lch.nwords++] = t;
  }
  if (!lch.nwords) {
    fprintf(stderr, "mpiexec: empty launcher command\n");
    return -1;
  }
  return 0;
}

/* Which launcher: -launcher-exec, -launcher, FERRY_LAUNCHER_EXEC, srun on
 * the nodes of a Slurm job (fy_launch_slurm.h), FERRY_LAUNCHER, in that
 * order. */
static int setup_launcher(const fy_launch_opts_t *o) {
  ssize_t n = readlink("/proc/self/exe", lch.self, sizeof lch.self - 1);
  if (n <= 0) {
    fprintf(stderr, "mpiexec: cannot find its own path for remote starts: %s\n", strerror(errno));
    return -1;
  }
  lch.self[n] = '\0';
  if (!getcwd(lch.cwd, sizeof lch.cwd)) lch.cwd[0] = '\0';
  const char *exec = o->launcher_exec, *kind = o->launcher;
  if (!exec && !kind) {
    if (fy_config.launcher_exec && *fy_config.launcher_exec) exec = fy_config.launcher_exec;
    else if (job.slurm && !getenv("FERRY_LAUNCHER")) exec = FY_SLURM_LAUNCHER; /* (ssh may be barred there) */
    else kind = fy_config.launcher;
  }
  /* srun: one step for every host's proxy, which connect back */
  lch.group = exec ? !strcmp(exec, FY_SLURM_LAUNCHER) : !strcmp(kind, "slurm");
  if (lch.group) return split_words(FY_SLURM_GROUP_LAUNCHER);
  if (exec) return split_words(exec);
  const char *cmd = fy_launcher_cmd(kind);
  if (!cmd) {
    fprintf(stderr, "mpiexec: FERRY_LAUNCHER=%s is not ssh, rsh, slurm or fork\n", kind);
    return -1;
  }
  return *cmd ? split_words(cmd) : 0; /* (fork: no command) */
}

/* ssh hands its words to the remote shell, and -launcher-exec commands are
 * ssh-like (as in Hydra): quote the path if needed (the spec itself is hex
 * and needs nothing). */
static char *shell_quote(const char *s) {
  if (s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_/.-+=:,")] == '\0')
    return strdup(s);
  size_t n = 3;
  for (const char *p = s; *p; p++) n += *p == '\'' ? 4 : 1;
  char *q = malloc(n), *d = q;
  if (!q) return NULL;
  *d++ = '\'';
  for (const char *p = s; *p; p++)
    if (*p == '\'') {
      memcpy(d, "'\\''", 4);
      d += 4;
    } else {
      *d++ = *p;
    }
  *d++ = '\'';
  *d = '\0';
  return q;
}

/* Variables that describe this host or this shell, not the job. */
static int host_specific(const char *kv) {
  static const char *const skip[] = {"PMI_", "MPI_LOCALRANKID=", "MPI_LOCALNRANKS=", "HOSTNAME=", "PWD=",
                                     "OLDPWD=", "SHLVL=", "_=", "SSH_", "DISPLAY=", "XAUTHORITY=", NULL};
  for (int k = 0; skip[k]; k++)
    if (!strncmp(kv, skip[k], strlen(skip[k]))) return 1;
  return 0;
}

/* Variable k (0 .. o->nenv + app->nenv - 1) of those a rank of app gets:
 * -genv and -x, then the program's -env (later entries win). Its value,
 * or NULL for one forwarded that mpiexec does not have; *name its name. */
static const char *rank_env(const fy_launch_opts_t *o, const fy_launch_app_t *app, int k, const char **name) {
  const fy_launch_env_t *x = k < o->nenv ? &o->env[k] : &app->env[k - o->nenv];
  *name = x->name;
  return x->value ? x->value : getenv(x->name);
}

/* The host entry whose launcher runs remote rank i: the first entry of
 * its node (a host named twice in the list gets one launcher). Looked up
 * per output frame: a table, not a walk of the host list. */
static int proxy_of(int i) { return job.node_px[job.hosts.h[job.hosts.host_of[i]].node]; }

/* The spec word of remote host h's proxy (heap), or NULL with a message. */
static char *host_spec(int h, const fy_launch_opts_t *o) {
  extern char **environ;
  const fy_host_t *host = &job.hosts.h[h];
  int ne = 0, nr = 0, nowned = 0, na = o->napps;
  for (char **e = environ; *e; e++) ne++;
  for (int a = 0; a < na; a++) nowned += o->nenv + o->apps[a].nenv + 1; /* its variables, its cwd */
  const char **env = calloc((size_t)ne + 1, sizeof *env);
  char **owned = calloc((size_t)nowned + 1, sizeof *owned);
  fy_proxy_app_t *apps = calloc((size_t)na, sizeof *apps);
  const char **aenv = calloc((size_t)nowned + 1, sizeof *aenv);
  int *ints = calloc((size_t)job.np * 3 + 1, sizeof *ints);
  char *spec = NULL;
  int k = 0, no = 0, nae = 0;
  if (!env || !owned || !apps || !aenv || !ints) goto fail;
  int inherit = 0; /* (the common variables only where a program takes them) */
  for (int a = 0; a < na; a++) inherit |= !o->apps[a].envnone;
  for (char **e = environ; inherit && *e; e++)
    if (!host_specific(*e)) env[k++] = *e;
  for (int a = 0; a < na; a++) {
    const fy_launch_app_t *app = &o->apps[a];
    int nx = o->nenv + app->nenv;
    apps[a].inherit = !app->envnone;
    apps[a].env = aenv + nae;
    for (int j = 0; j < nx; j++) {
      const char *name, *v = rank_env(o, app, j, &name);
      if (!v) continue;
      if (asprintf(&owned[no], "%s=%s", name, v) < 0) {
        owned[no] = NULL;
        goto fail;
      }
      aenv[nae++] = owned[no++];
      apps[a].nenv++;
    }
    if (app->wdir && asprintf(&owned[no], "%s%s%s", app->wdir[0] == '/' ? "" : lch.cwd,
                              app->wdir[0] == '/' ? "" : "/", app->wdir) < 0) {
      owned[no] = NULL;
      goto fail;
    }
    apps[a].cwd = app->wdir ? owned[no++] : lch.cwd;
    for (apps[a].nargs = 0; app->argv[apps[a].nargs];) apps[a].nargs++;
    apps[a].argv = (const char **)app->argv;
  }
  for (int i = job.px[h].first; i >= 0; i = job.px_next[i]) {
    ints[nr] = i;
    ints[job.np + nr] = job.hosts.local_rank[i];
    ints[2 * job.np + nr] = fy_launch_app_of(o, i);
    nr++;
  }
  fy_proxy_spec_t sp = {.kvsname = job.kvsname, .host = host->name, .size = job.np,
                        .local_size = host->nranks, .bind = job.bind, .kill_timeout = fy_config.kill_timeout,
                        .stdin_rank = job.in_px == h ? 0 : -1,
                        .nenv = k, .env = env, .napps = na, .apps = apps, .nranks = nr, .rank = ints,
                        .local_rank = ints + job.np, .app = ints + 2 * job.np};
  spec = fy_proxy_encode(&sp);
fail:
  if (!spec) fprintf(stderr, "mpiexec: out of memory for the remote start of the ranks on host %s\n", host->name);
  for (int j = 0; owned && j < no; j++) free(owned[j]);
  free(owned);
  free(aenv);
  free(apps);
  free(ints);
  free(env);
  return spec;
}

/* argv of the launcher for remote host h (heap; free with free_argv). */
static char **remote_argv(int h, const fy_launch_opts_t *o) {
  const char *name = job.hosts.h[h].name;
  char **argv = calloc((size_t)lch.nwords + 5, sizeof *argv);
  char *spec = argv ? host_spec(h, o) : NULL;
  if (!spec) goto fail;
  /* (one word of a command line: Linux takes at most 128 KiB) */
  if (strlen(spec) > 120000) {
    fprintf(stderr, "mpiexec: the environment and arguments of the ranks on host %s are too large to start "
                    "them remotely (%zu bytes encoded); -genvnone with -genvlist forwards only the variables "
                    "named\n", name, strlen(spec));
    goto fail;
  }
  int w = 0;
  if (lch.nwords) {
    for (int j = 0; j < lch.nwords; j++) argv[w++] = strdup(lch.words[j]);
    argv[w++] = strdup(name);
  }
  argv[w++] = lch.nwords ? shell_quote(lch.self) : strdup(lch.self);
  argv[w++] = strdup("--fy-proxy");
  argv[w++] = spec;
  spec = NULL;
  for (int j = 0; j < w; j++)
    if (!argv[j]) goto fail;
  return argv;
fail:
  if (argv)
    for (int j = 0; argv[j]; j++) free(argv[j]);
  free(argv);
  free(spec);
  return NULL;
}

static void free_argv(char **argv) {
  if (!argv) return;
  for (int j = 0; argv[j]; j++) free(argv[j]);
  free(argv);
}

/* A program's -wdir must be a directory where its local ranks start (a
 * remote rank's proxy says so on its host and stays in the login
 * directory, as when mpiexec's own directory is missing there). */
static int check_wdirs(const fy_launch_opts_t *o) {
  int checked = -1; /* (ranks come in application order) */
  for (int i = 0; i < job.np; i++) {
    int a = fy_launch_app_of(o, i);
    const char *d = o->apps[a].wdir;
    struct stat st;
    if (!d || a == checked || !job.hosts.h[job.hosts.host_of[i]].local) continue;
    checked = a;
    const char *opt = d == o->gwdir ? "-gwdir" : "-wdir";
    if (stat(d, &st) != 0) {
      fprintf(stderr, "mpiexec: %s %s: %s\n", opt, d, strerror(errno));
      return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
      fprintf(stderr, "mpiexec: %s %s: not a directory\n", opt, d);
      return -1;
    }
  }
  return 0;
}

static int spawn(int i, const fy_launch_opts_t *o, int stdin_fd, int pmi_fd, int out_w, int err_w,
                 int errpipe, char **rargv) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  /* The local ranks share a group; a launcher has its own, out of the
   * terminal's and of the ranks' (its proxy gets signals by its stdin).
   * Both sides set the group so the other ranks can join it at once. */
  pid_t group = rargv ? 0 : job.pgid;
  if (pid > 0) {
    setpgid(pid, group ? group : pid);
    return pid;
  }
  /* Child. */
  setpgid(0, group);
  prctl(PR_SET_PDEATHSIG, SIGKILL); /* mpiexec killed hard: do not linger */
  if (getppid() == 1) _exit(127);
  sigset_t all;
  sigemptyset(&all);
  sigprocmask(SIG_SETMASK, &all, NULL);
  signal(SIGPIPE, SIG_DFL);
  if (job.nofile_raised) setrlimit(RLIMIT_NOFILE, &job.nofile);
  if (dup2(stdin_fd, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0) child_fail(errpipe, errno);
  if (rargv) {
    /* The launcher (ssh, a wrapper, or the proxy itself) gets the job's
     * environment; the proxy sets the rank's. */
    execvp(rargv[0], rargv);
    child_fail(errpipe, errno);
  }
  fcntl(pmi_fd, F_SETFD, 0); /* the one fd the rank inherits */
  char num[32];
  snprintf(num, sizeof num, "%d", pmi_fd);
  setenv("PMI_FD", num, 1);
  snprintf(num, sizeof num, "%d", i);
  setenv("PMI_RANK", num, 1);
  snprintf(num, sizeof num, "%d", job.hosts.local_rank[i]);
  setenv("MPI_LOCALRANKID", num, 1);
  snprintf(num, sizeof num, "%d", job.np);
  setenv("PMI_SIZE", num, 1);
  snprintf(num, sizeof num, "%d", fy_hosts_node_size(&job.hosts, i));
  setenv("MPI_LOCALNRANKS", num, 1);
  setenv("PMI_SPAWNED", "0", 1);
  unsetenv("PMI_PORT"); /* from an outer process manager */
  unsetenv("PMI_ID");
  const fy_launch_app_t *app = &o->apps[fy_launch_app_of(o, i)];
  for (int k = 0; k < o->nenv + app->nenv; k++) {
    const char *name, *v = rank_env(o, app, k, &name);
    if (v) setenv(name, v, 1);
  }
  /* (after its environment: auto reads OMP_NUM_THREADS) */
  fy_launch_bind(job.bind, job.hosts.local_rank[i], fy_hosts_node_size(&job.hosts, i));
  /* (checked by main before any rank starts) */
  if (app->wdir && chdir(app->wdir) != 0) child_fail(errpipe, errno);
  execvp(app->argv[0], app->argv);
  child_fail(errpipe, errno);
  return -1;
}

/* Exec failure comes back through xp (its read end); success closes it
 * (CLOEXEC). 0, or the errno of the failed exec. */
static int exec_error(int xp) {
  int err = 0;
  ssize_t n;
  do n = read(xp, &err, sizeof err); while (n < 0 && errno == EINTR);
  close(xp);
  return n == (ssize_t)sizeof err ? err : 0;
}

/* The PMI server's answer to a remote rank, to the proxy that relays it. */
static void pmi_to_proxy(void *ctx, int rank, const char *p, size_t n) { ctl_send(ctx, FY_FRAME_PMI, rank, p, n); }

/* Host h's proxy is on its way, started by launcher pid: counted with its
 * ranks (their ends come from it), its stream's start marker queued. */
static void proxy_started(int h, pid_t pid) {
  proxy_t *x = &job.px[h];
  x->pid = pid;
  job.npx_alive++;
  fy_outbuf_init(&x->raw_out, 1, "");
  fy_outbuf_init(&x->raw_err, 2, "");
  ctl_send(x, -1, 0, FY_FRAME_MAGIC, FY_FRAME_MAGIC_LEN);
  for (int i = x->first; i >= 0; i = job.px_next[i])
    if (job.r[i].remote) {
      job.nalive++;
      fy_pmi_server_relay(job.pmi, i, pmi_to_proxy, x);
    }
}

/* The launcher of remote host h: its stdin a pipe that stays open while
 * mpiexec lives (the control channel), its stdout the proxy's frames. */
static int launch_host(int h, const fy_launch_opts_t *o) {
  proxy_t *x = &job.px[h];
  int cp[2], op[2], ep[2], xp[2];
  char **rargv = remote_argv(h, o);
  if (!rargv) {
    fprintf(stderr, "mpiexec: cannot build the remote start of the ranks on host %s\n", job.hosts.h[h].name);
    return -1;
  }
  if (pipe2(cp, O_CLOEXEC) < 0 || pipe2(op, O_CLOEXEC) < 0 || pipe2(ep, O_CLOEXEC) < 0 ||
      pipe2(xp, O_CLOEXEC) < 0) {
    fprintf(stderr, "mpiexec: cannot create pipes for host %s: %s\n", job.hosts.h[h].name, strerror(errno));
    free_argv(rargv);
    return -1;
  }
  pid_t pid = spawn(-1, o, cp[0], -1, op[1], ep[1], xp[1], rargv);
  free_argv(rargv);
  close(cp[0]);
  close(op[1]);
  close(ep[1]);
  close(xp[1]);
  x->ctl_fd = cp[1];
  x->out_fd = op[0];
  x->err_fd = ep[0];
  set_nonblock(x->ctl_fd);
  set_nonblock(x->out_fd);
  set_nonblock(x->err_fd);
  if (pid < 0) {
    fprintf(stderr, "mpiexec: cannot fork the launcher for host %s: %s\n", job.hosts.h[h].name, strerror(errno));
    close(xp[0]);
    return -1;
  }
  proxy_started(h, pid);
  int err = exec_error(xp[0]);
  if (err) {
    fprintf(stderr, "mpiexec: cannot execute the launcher \"%s\" for host %s: %s\n",
            lch.nwords ? lch.words[0] : lch.self, job.hosts.h[h].name, strerror(err));
    return -2;
  }
  return 0;
}

/* Every remote host's proxy in one launcher step (srun on their nodes),
 * each connecting back to mpiexec's listener for its spec (proxy_hello). */
static int launch_group(const fy_launch_opts_t *o) {
  proxy_t *g = &job.px[job.hosts.n];
  int k = 0, w = 0, rc = -1, ep[2] = {-1, -1}, xp[2] = {-1, -1}, devnull = -1;
  fy_buf_t nodes = {0};
  char **argv = calloc((size_t)lch.nwords + 8, sizeof *argv);
  unsigned char rnd[16];
  if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
    fprintf(stderr, "mpiexec: no random bytes for the proxies' cookie: %s\n", strerror(errno));
    goto out;
  }
  for (size_t j = 0; j < sizeof rnd; j++) snprintf(job.cookie + 2 * j, 3, "%02x", rnd[j]);
  for (int i = 0; i < job.np; i++) { /* (each remote rank's node, once: as launch() does) */
    int h = proxy_of(i);
    if (!job.r[i].remote || job.px[h].spec) continue;
    if (!(job.px[h].spec = host_spec(h, o))) goto out;
    if (k++) fy_buf_put(&nodes, ",", 1);
    if (fy_buf_put(&nodes, job.hosts.h[h].name, strlen(job.hosts.h[h].name) + 1) == 0)
      nodes.len--; /* (kept NUL-terminated) */
  }
  if (!argv || nodes.oom) goto oom;
  for (int j = 0; j < lch.nwords; j++) argv[w++] = strdup(lch.words[j]);
  if (asprintf(&argv[w++], "--nodes=%d", k) < 0 || asprintf(&argv[w++], "--ntasks=%d", k) < 0 ||
      asprintf(&argv[w++], "--nodelist=%s", nodes.p) < 0)
    argv[w - 1] = NULL;
  argv[w++] = strdup(lch.self);
  argv[w++] = strdup("--fy-proxy-connect");
  argv[w++] = strdup(job.pmi_port);
  argv[w++] = strdup(job.cookie);
  for (int j = 0; j < w; j++)
    if (!argv[j]) goto oom;
  if ((devnull = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0 || pipe2(ep, O_CLOEXEC) < 0 || pipe2(xp, O_CLOEXEC) < 0) {
    fprintf(stderr, "mpiexec: cannot create pipes for the launcher step: %s\n", strerror(errno));
    goto out;
  }
  /* (its own output and the proxies' messages: one stream, mpiexec's stderr) */
  pid_t pid = spawn(-1, o, devnull, -1, ep[1], ep[1], xp[1], argv);
  close(ep[1]);
  close(xp[1]);
  ep[1] = xp[1] = -1;
  g->err_fd = ep[0];
  ep[0] = -1;
  set_nonblock(g->err_fd);
  fy_outbuf_init(&g->raw_out, 1, "");
  fy_outbuf_init(&g->raw_err, 2, "");
  if (pid < 0) {
    fprintf(stderr, "mpiexec: cannot fork the launcher step: %s\n", strerror(errno));
    goto out;
  }
  job.group = 1;
  g->pid = pid;
  job.npx_alive++;
  for (int h = 0; h < job.hosts.n; h++)
    if (job.px[h].spec) {
      job.px[h].waiting = 1; /* (its frames queue until it connects) */
      proxy_started(h, pid);
    }
  int err = exec_error(xp[0]);
  xp[0] = -1;
  rc = 0;
  if (err) {
    fprintf(stderr, "mpiexec: cannot execute the launcher \"%s\": %s\n", lch.words[0], strerror(err));
    rc = -2;
  }
  goto out;
oom:
  fprintf(stderr, "mpiexec: out of memory for the launcher step\n");
out:
  for (int j = 0; j < 2; j++) {
    if (ep[j] >= 0) close(ep[j]);
    if (xp[j] >= 0) close(xp[j]);
  }
  if (devnull >= 0) close(devnull);
  for (int j = 0; argv && j < w; j++) free(argv[j]);
  free(argv);
  fy_buf_free(&nodes);
  return rc;
}

static int launch(const fy_launch_opts_t *o, int prefix) {
  int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devnull < 0) {
    fprintf(stderr, "mpiexec: cannot open /dev/null: %s\n", strerror(errno));
    return -1;
  }
  for (int i = 0; i < job.np; i++) {
    rank_t *r = &job.r[i];
    char pfx[24] = "";
    if (prefix) snprintf(pfx, sizeof pfx, "[%d] ", i);
    fy_outbuf_init(&r->out, r->out_dst, pfx);
    fy_outbuf_init(&r->err, r->err_dst, pfx);
    r->remote = !job.hosts.h[job.hosts.host_of[i]].local;
    if (r->remote) continue; /* (its host's launcher starts it, below) */
    int sp[2] = {-1, -1}, op[2], ep[2], xp[2], ip[2] = {-1, -1};
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0 || pipe2(op, O_CLOEXEC) < 0 ||
        pipe2(ep, O_CLOEXEC) < 0 || pipe2(xp, O_CLOEXEC) < 0 ||
        (i == 0 && job.in_src >= 0 && pipe2(ip, O_CLOEXEC) < 0)) {
      fprintf(stderr, "mpiexec: cannot create pipes for rank %d: %s\n", i, strerror(errno));
      close(devnull);
      return -1;
    }
    pid_t pid = spawn(i, o, ip[0] >= 0 ? ip[0] : devnull, sp[1], op[1], ep[1], xp[1], NULL);
    close(sp[1]);
    close(op[1]);
    close(ep[1]);
    close(xp[1]);
    if (ip[0] >= 0) close(ip[0]);
    if (pid < 0) {
      fprintf(stderr, "mpiexec: cannot fork rank %d: %s\n", i, strerror(errno));
      close(xp[0]);
      close(devnull);
      return -1;
    }
    if (!job.pgid) job.pgid = pid;
    r->pid = pid;
    job.nalive++;
    set_nonblock(op[0]);
    set_nonblock(ep[0]);
    set_nonblock(sp[0]);
    fy_pmi_server_attach(job.pmi, i, sp[0]);
    r->out_fd = op[0];
    r->err_fd = ep[0];
    if (ip[1] >= 0) {
      set_nonblock(ip[1]);
      job.in_dst = ip[1];
    }
    int err = exec_error(xp[0]);
    if (err) {
      fprintf(stderr, "mpiexec: cannot execute \"%s\": %s\n", o->apps[fy_launch_app_of(o, i)].argv[0],
              strerror(err));
      close(devnull);
      return -2;
    }
  }
  close(devnull);
  if (lch.group && job.hosts.any_remote) return launch_group(o);
  for (int i = 0; i < job.np; i++)
    if (job.r[i].remote && !job.px[proxy_of(i)].pid) {
      int rc = launch_host(proxy_of(i), o);
      if (rc < 0) return rc;
    }
  return 0;
}

/* ---- PMI over TCP for remote ranks ---------------------------------------- */

/* -iface's address on this host (IPv4 first, else IPv6 other than
 * link-local): 0, or -1 with a message. */
static int iface_addr(const char *name, char *out, size_t cap) {
  struct ifaddrs *all, *v6 = NULL, *v4 = NULL;
  if (getifaddrs(&all) != 0) {
    fprintf(stderr, "mpiexec: -iface %s: cannot list the interfaces: %s\n", name, strerror(errno));
    return -1;
  }
  for (struct ifaddrs *a = all; a; a = a->ifa_next) {
    if (!a->ifa_addr || strcmp(a->ifa_name, name)) continue;
    if (a->ifa_addr->sa_family == AF_INET && !v4) v4 = a;
    if (a->ifa_addr->sa_family == AF_INET6 && !v6 &&
        !IN6_IS_ADDR_LINKLOCAL(&((struct sockaddr_in6 *)a->ifa_addr)->sin6_addr))
      v6 = a;
  }
  struct ifaddrs *a = v4 ? v4 : v6;
  int rc = a && getnameinfo(a->ifa_addr, a->ifa_addr->sa_family == AF_INET ? sizeof(struct sockaddr_in)
                                                                             : sizeof(struct sockaddr_in6),
                            out, (socklen_t)cap, NULL, 0, NI_NUMERICHOST) == 0
               ? 0
               : -1;
  if (rc) fprintf(stderr, "mpiexec: -iface %s: no such interface with an address on this host\n", name);
  freeifaddrs(all);
  return rc;
}

/* The address remote ranks connect to: -pmi-host, FERRY_PMI_HOST, the
 * address of -iface, else the source address of the route toward the
 * first remote host that resolves, else this host's name. 0, or -1 with a
 * message. */
static int pick_pmi_host(const fy_launch_opts_t *o, char *out, size_t cap) {
  const char *h = o->pmi_host ? o->pmi_host : fy_config.pmi_host;
  if (h && *h) {
    snprintf(out, cap, "%s", h);
    return 0;
  }
  if (o->iface) return iface_addr(o->iface, out, cap);
  for (int i = 0; i < job.hosts.n; i++) {
    if (job.hosts.h[i].local) continue;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM}, *res;
    if (getaddrinfo(job.hosts.h[i].name, "9", &hints, &res) != 0) continue;
    int ok = 0;
    for (struct addrinfo *ai = res; ai && !ok; ai = ai->ai_next) {
      int fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      if (fd < 0) continue;
      struct sockaddr_storage ss;
      socklen_t sl = sizeof ss;
      /* A UDP connect sends nothing; it only picks the route. */
      if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 && getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
          getnameinfo((struct sockaddr *)&ss, sl, out, (socklen_t)cap, NULL, 0, NI_NUMERICHOST) == 0)
        ok = 1;
      close(fd);
    }
    freeaddrinfo(res);
    if (ok) return 0;
  }
  if (gethostname(out, cap - 1) != 0) snprintf(out, cap, "localhost");
  out[cap - 1] = '\0';
  return 0;
}

/* MPIEXEC_PORT_RANGE (Hydra's "LOW:HIGH"): 0 with the bounds (0, 0 for
 * none given), or -1 with a message. */
static int port_range(int *lo, int *hi) {
  const char *r = fy_config.port_range;
  char *end;
  *lo = *hi = 0;
  if (!r || !*r) return 0;
  long l = strtol(r, &end, 10), h = -1;
  if (end != r && *end == ':') {
    const char *s = end + 1;
    h = strtol(s, &end, 10);
    if (end == s || *end) h = -1;
  }
  if (l < 1 || h < l || h > 65535) {
    fprintf(stderr, "mpiexec: MPIEXEC_PORT_RANGE=%s is not LOW:HIGH (ports 1-65535)\n", r);
    return -1;
  }
  *lo = (int)l;
  *hi = (int)h;
  return 0;
}

/* A listening socket on every address of its family at a port of [lo, hi]
 * (from a place that depends on the pid, so that mpiexecs started together
 * try different ones first), or at any port when lo is 0; -1 with errno.
 * SO_REUSEADDR, so that the connections of an earlier job on the port
 * (TIME_WAIT) do not keep it; then two sockets may bind one port before
 * either listens, and the second one's listen fails: it takes the next
 * port. */
static int listen_in_range(int family, int lo, int hi, int backlog) {
  int span = lo ? hi - lo + 1 : 1;
  for (int k = 0; k < span; k++) {
    int port = lo ? lo + (int)(((long)getpid() + k) % span) : 0;
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, off = 0;
    if (fd < 0) return -1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
    struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT, .sin6_port = htons((uint16_t)port)};
    struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY), .sin_port = htons((uint16_t)port)};
    int rc = family == AF_INET6 ? bind(fd, (struct sockaddr *)&a6, sizeof a6) : bind(fd, (struct sockaddr *)&a4, sizeof a4);
    if (rc == 0 && listen(fd, backlog) == 0) return fd;
    int e = errno;
    close(fd);
    errno = e;
    if (e != EADDRINUSE) return -1;
  }
  return -1;
}

/* MPIEXEC_PORT_RANGE [lo, hi] (lo 0: none) for the ranks' fabric ports
 * too, unless set apart. */
static void fabric_ports(int lo, int hi) {
  if (lo) {
    static const char *const v[] = {"FI_NET_PORT_LOW_RANGE", "FI_NET_PORT_HIGH_RANGE", "FI_TCP_PORT_LOW_RANGE",
                                    "FI_TCP_PORT_HIGH_RANGE"};
    char num[2][16];
    snprintf(num[0], sizeof num[0], "%d", lo);
    snprintf(num[1], sizeof num[1], "%d", hi);
    for (int k = 0; k < 4; k++) setenv(v[k], num[k % 2], 0);
  }
}

/* The listener the proxies of a launcher step connect back to (the only
 * connections mpiexec takes: ranks speak PMI through their proxy), at a
 * port of MPIEXEC_PORT_RANGE [lo, hi] when one is given. */
static int open_listener(const fy_launch_opts_t *o, int lo, int hi) {
  char host[256];
  if (pick_pmi_host(o, host, sizeof host) < 0) return -1;
  /* Every address (dual stack when possible): the chosen one may be any. */
  int backlog = job.np < 128 ? 128 : job.np;
  int fd = listen_in_range(AF_INET6, lo, hi, backlog);
  if (fd < 0 && !(lo && errno == EADDRINUSE)) fd = listen_in_range(AF_INET, lo, hi, backlog);
  if (fd < 0) goto fail;
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  char port[16];
  if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0 ||
      getnameinfo((struct sockaddr *)&ss, sl, NULL, 0, port, sizeof port, NI_NUMERICSERV) != 0)
    goto fail;
  set_nonblock(fd);
  job.lfd = fd;
  snprintf(job.pmi_port, sizeof job.pmi_port, "%s:%s", host, port);
  return 0;
fail:
  fprintf(stderr, "mpiexec: cannot open the listener for the launcher step's proxies: %s%s\n", strerror(errno),
          lo ? " (every port of MPIEXEC_PORT_RANGE taken?)" : "");
  if (fd >= 0) close(fd);
  return -1;
}

static void accept_all(void) {
  for (;;) {
    int fd = accept4(job.lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;
    if (job.npend == job.cappend) {
      int nc = job.cappend ? 2 * job.cappend : 16;
      struct pend *n = realloc(job.pend, (size_t)nc * sizeof *n);
      if (!n) {
        close(fd);
        return;
      }
      job.pend = n;
      job.cappend = nc;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    job.pend[job.npend].fd = fd;
    job.pend[job.npend++].len = 0;
  }
}

/* A proxy of the launcher step connecting back ("cmd=fy-proxy cookie=C
 * node=NAME", fy_proxy_connect_main): the entry of the host of that name
 * takes the connection, and the first bytes it gets are its spec; the
 * frames queued for it follow. Anything else is refused, with the reason
 * told to it and printed here. */
static void proxy_hello(int fd, const fy_pmi_msg_t *m) {
  const char *cookie = fy_pmi_msg_get(m, "cookie"), *node = fy_pmi_msg_get(m, "node"), *why = NULL;
  int h = -1;
  if (!job.group || !cookie || strcmp(cookie, job.cookie)) why = "not a proxy of this job (wrong cookie)";
  else if (!node) why = "no node name";
  for (int k = 0; !why && k < job.hosts.n && h < 0; k++)
    if (job.px[k].waiting && !strcmp(job.hosts.h[k].name, node)) h = k;
  if (!why && h < 0) why = "no proxy of this job is expected on that node, or it is connected already";
  proxy_t *x = h >= 0 ? &job.px[h] : NULL;
  fy_buf_t q = {0};
  char hdr[64];
  if (!why) {
    int n = snprintf(hdr, sizeof hdr, "cmd=fy-proxy-spec len=%zu\n", strlen(x->spec));
    fy_buf_put(&q, hdr, (size_t)n);
    fy_buf_put(&q, x->spec, strlen(x->spec));
    fy_buf_put(&q, x->q.p, x->q.len);
    if (q.oom || (x->out_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0) why = "out of resources in mpiexec";
  }
  if (why) {
    char line[160];
    int n = snprintf(line, sizeof line, "cmd=fy-proxy-refused reason=%s\n", why);
    ssize_t wr = write(fd, line, (size_t)n);
    (void)wr;
    fprintf(stderr, "mpiexec: refused a proxy's connection%s%s: %s\n", node ? " from node " : "", node ? node : "", why);
    close(fd);
    fy_buf_free(&q);
    return;
  }
  fy_buf_free(&x->q);
  x->q = q;
  free(x->spec);
  x->spec = NULL;
  x->waiting = 0;
  x->sock = 1;
  x->ctl_fd = fd;
  ctl_flush(x);
}

/* A new connection's first line must be a proxy's hello (proxy_hello):
 * only the proxies of a launcher step connect here, and they relay their
 * ranks' PMI. Returns 1 when the connection was settled (taken or
 * closed), 0 while its first line is incomplete. */
static int identify(struct pend *pc) {
  ssize_t n;
  do n = read(pc->fd, pc->buf + pc->len, sizeof pc->buf - 1 - pc->len); while (n < 0 && errno == EINTR);
  if (n < 0 && errno == EAGAIN) return 0;
  const char *why = "closed before identifying itself";
  if (n > 0) {
    pc->len += (size_t)n;
    pc->buf[pc->len] = '\0';
    char *nl = memchr(pc->buf, '\n', pc->len);
    if (!nl) {
      if (pc->len < sizeof pc->buf - 1) return 0;
      why = "first line too long";
    } else {
      fy_pmi_msg_t *m = malloc(sizeof *m);
      why = "not a proxy's hello (the ranks of this job speak PMI through their host's proxy)";
      const char *cmd = m && fy_pmi_msg_parse(m, pc->buf, (size_t)(nl - pc->buf)) == 0 ? fy_pmi_msg_get(m, "cmd") : NULL;
      if (cmd && !strcmp(cmd, "fy-proxy")) {
        proxy_hello(pc->fd, m);
        free(m);
        return 1;
      }
      free(m);
    }
  }
  fprintf(stderr, "mpiexec: refused a connection: %s\n", why);
  close(pc->fd);
  return 1;
}

static void serve_pending(void) {
  for (int k = 0; k < job.npend;)
    if (identify(&job.pend[k])) job.pend[k] = job.pend[--job.npend];
    else k++;
}

/* ---- event handling ------------------------------------------------------- */

static void drain(int *fd, fy_outbuf_t *b) {
  char buf[65536];
  ssize_t n;
  if (*fd < 0) return;
  while ((n = fy_read_ready(fd, buf, sizeof buf)) > 0) {
    fy_outbuf_feed(b, buf, (size_t)n);
    if ((size_t)n < sizeof buf) return;
  }
  if (n < 0) fy_outbuf_flush(b);
}

static void check_pmi(int i, int rc) {
  const fy_pmi_rank_state_t *st = fy_pmi_server_rank(job.pmi, i);
  if (rc < 0) job_failed(1, "%s: %s", who(i), fy_pmi_server_error(job.pmi));
  if (st->aborted && job.exit_code < 0 && !job.terminating) {
    /* What the rank said before aborting comes before our message. */
    drain(&job.r[i].out_fd, &job.r[i].out);
    drain(&job.r[i].err_fd, &job.r[i].err);
  }
  if (st->aborted)
    job_failed(st->abort_code & 0xff, "%s called abort with exit code %d", who(i), st->abort_code);
}

static void on_exit_of(int i, int status) {
  rank_t *r = &job.r[i];
  r->reaped = 1;
  r->status = status;
  job.nalive--;
  /* Read what the rank left behind first: an abort message may be there
   * (a remote rank's came before its end, in its proxy's stream). */
  const fy_pmi_rank_state_t *st = fy_pmi_server_rank(job.pmi, i);
  if (r->remote) fy_pmi_server_close(job.pmi, i);
  while (st->fd >= 0) {
    int rc = fy_pmi_server_handle(job.pmi, i);
    check_pmi(i, rc);
    if (rc == 0 && st->fd >= 0) {
      /* Nothing more readable now; the rank is gone so nothing else comes. */
      struct pollfd p = {st->fd, POLLIN, 0};
      if (poll(&p, 1, 0) <= 0) break;
    }
  }
  drain(&r->out_fd, &r->out);
  drain(&r->err_fd, &r->err);
  if (i == 0 && job.in_px >= 0) job.in_src = -1; /* (no one reads it any more) */
  if (i == 0 && job.in_dst >= 0) {
    close(job.in_dst);
    job.in_dst = -1;
  }
  if (st->aborted) return; /* already reported */
  if (WIFSIGNALED(status)) {
    int s = WTERMSIG(status);
    job_failed(128 + s, "%s killed by signal %d (%s)", who(i), s, strsignal(s));
  } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    job_failed(WEXITSTATUS(status), "%s exited with code %d%s", who(i), WEXITSTATUS(status),
               r->remote && WEXITSTATUS(status) == 255 ? " (255: also ssh's code for a failed connection)" : "");
  } else if (st->inited && !st->finalized && job.nalive > 0) {
    job_failed(1, "%s exited without calling finalize while other ranks still run", who(i));
  }
}

/* ---- output files (-outfile-pattern, -errfile-pattern) --------------------- */

/* One open file per name: ranks whose names agree share it. */
static struct ofile {
  char *name;
  int fd;
} *ofiles;
static int nofiles;

/* The file pattern names for rank i, opened (truncated) on this host;
 * -1 with a message when it cannot be. */
static int open_output(const char *pattern, const char *opt, int i) {
  char name[4096], host[256] = "";
  size_t l = 0;
  if (job.named_hosts) snprintf(host, sizeof host, "%s", job.hosts.h[job.hosts.host_of[i]].name);
  else if (gethostname(host, sizeof host - 1) != 0) snprintf(host, sizeof host, "localhost");
  for (const char *c = pattern; *c && l < sizeof name - 1; c++) {
    char v[300] = {*c, 0};
    if (*c == '%') {
      c++; /* (fy_launch_opts checked what follows) */
      if (*c == 'r') snprintf(v, sizeof v, "%d", i);
      else if (*c == 'h') snprintf(v, sizeof v, "%s", host);
      else if (*c == 'p') snprintf(v, sizeof v, "%d", job.named_hosts ? job.hosts.h[job.hosts.host_of[i]].node : 0);
      else if (*c == 'g') snprintf(v, sizeof v, "0");
    }
    int n = snprintf(name + l, sizeof name - l, "%s", v);
    l += n > 0 ? (size_t)n : 0;
  }
  if (l >= sizeof name - 1) {
    fprintf(stderr, "mpiexec: %s %s: the file name of rank %d is too long\n", opt, pattern, i);
    return -1;
  }
  for (int k = 0; k < nofiles; k++)
    if (!strcmp(ofiles[k].name, name)) return ofiles[k].fd;
  struct ofile *n = realloc(ofiles, (size_t)(nofiles + 1) * sizeof *n);
  int fd = n ? open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666) : -1;
  if (n) ofiles = n;
  if (fd < 0 || !(ofiles[nofiles].name = strdup(name))) {
    fprintf(stderr, "mpiexec: %s %s: cannot open %s for rank %d: %s\n", opt, pattern, name, i,
            strerror(fd < 0 ? errno : ENOMEM));
    if (fd >= 0) close(fd);
    return -1;
  }
  ofiles[nofiles++].fd = fd;
  return fd;
}

/* Every rank's stdout and stderr: mpiexec's own, or the files named. */
static int open_outputs(const fy_launch_opts_t *o) {
  for (int i = 0; i < job.np; i++) {
    job.r[i].out_dst = o->outfile ? open_output(o->outfile, "-outfile-pattern", i) : 1;
    job.r[i].err_dst = o->errfile ? open_output(o->errfile, "-errfile-pattern", i) : 2;
    if (job.r[i].out_dst < 0 || job.r[i].err_dst < 0) return -1;
  }
  return 0;
}

/* ---- the proxies' streams -------------------------------------------------- */

static void px_raw(void *ctx, const char *p, size_t n) { fy_outbuf_feed(&((proxy_t *)ctx)->raw_out, p, n); }

static int px_frame(void *ctx, int type, int i, const char *p, size_t n) {
  proxy_t *x = ctx;
  int32_t v = 0;
  if (i < 0 || i >= job.np || !job.r[i].remote || &job.px[proxy_of(i)] != x) return -1;
  rank_t *r = &job.r[i];
  switch (type) {
    case FY_FRAME_OUT: fy_outbuf_feed(&r->out, p, n); return 0;
    case FY_FRAME_ERR: fy_outbuf_feed(&r->err, p, n); return 0;
    case FY_FRAME_PID:
      if (fy_frame_int(p, n, &v) != 0) return -1;
      r->rpid = (pid_t)v;
      return 0;
    case FY_FRAME_ACK:
      if (fy_frame_int(p, n, &v) != 0 || v < 0 || (size_t)v > job.in_flight) return -1;
      job.in_flight -= (size_t)v;
      return 0;
    case FY_FRAME_EXIT:
      if (fy_frame_int(p, n, &v) != 0) return -1;
      if (!r->reaped) on_exit_of(i, (int)v);
      return 0;
    case FY_FRAME_PMI:
      if (!n) fy_pmi_server_close(job.pmi, i);
      else if (fy_pmi_server_rank(job.pmi, i)->fd == FY_PMI_RELAYED) check_pmi(i, fy_pmi_server_feed(job.pmi, i, p, n));
      return 0;
    default:
      return -1;
  }
}

static void on_proxy_exit(int h, int status);

/* What host h's proxy has sent: its ranks' output, pids and ends. */
static void drain_proxy(int h) {
  proxy_t *x = &job.px[h];
  char buf[65536];
  ssize_t n;
  if (x->out_fd < 0) return;
  while ((n = fy_read_ready(&x->out_fd, buf, sizeof buf)) > 0) {
    const char *why = NULL;
    if (!x->broken && fy_frame_feed(&x->rx, buf, (size_t)n, px_raw, px_frame, x, &why) != 0) {
      x->broken = 1;
      job_failed(1, "the proxy on host %s sent a garbled stream: %s", job.hosts.h[h].name, why);
    }
  }
  if (n < 0) {
    if (!x->broken) fy_frame_end(&x->rx, px_raw, x);
    fy_outbuf_flush(&x->raw_out);
    if (x->sock && !x->reaped) on_proxy_exit(h, 0); /* (a connection's end is its proxy's) */
  }
}

static void on_proxy_exit(int h, int status) {
  proxy_t *x = &job.px[h];
  x->reaped = 1;
  job.npx_alive--;
  /* The step ended: what a proxy sent before its end may still be on its
   * way over the network; the connection's end says it is all in. */
  for (double until = now() + 5.0; x->sock && x->out_fd >= 0 && now() < until;) {
    struct pollfd p = {x->out_fd, POLLIN, 0};
    if (poll(&p, 1, 50) > 0) drain_proxy(h);
  }
  drain_proxy(h);
  drain(&x->err_fd, &x->raw_err);
  fy_outbuf_flush(&x->raw_err);
  ctl_close(x);
  /* Ranks it did not report: its connection or the proxy itself failed
   * (ssh's 255), or it was killed at the end of a teardown. */
  for (int i = x->first; i >= 0; i = job.px_next[i]) {
    rank_t *r = &job.r[i];
    if (!r->remote || r->reaped) continue;
    r->lost = 1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      job_failed(1, "the %s of host %s ended without reporting the end of %s", x->sock || x->waiting ? "proxy" : "launcher",
                 job.hosts.h[h].name, who(i));
      status = 1 << 8;
    }
    on_exit_of(i, status);
  }
}

static void reap(void) {
  for (;;) {
    int status;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    for (int i = 0; i < job.np; i++)
      if (!job.r[i].remote && job.r[i].pid == pid && !job.r[i].reaped) {
        on_exit_of(i, status);
        pid = 0;
        break;
      }
    for (int h = 0; pid && h < npx(); h++)
      if (job.px[h].pid == pid && !job.px[h].reaped) on_proxy_exit(h, status);
  }
}

static void on_signal(int sig) {
  if (sig == SIGCHLD) {
    reap();
    return;
  }
  signal_job(sig);
  if (sig == SIGUSR1 || sig == SIGUSR2) return;
  if (!job.terminating) {
    fprintf(stderr, "mpiexec: received signal %d (%s); forwarded to every rank\n", sig, strsignal(sig));
    if (job.exit_code < 0) job.exit_code = 128 + sig;
    /* Ranks that catch the signal get FERRY_KILL_TIMEOUT seconds to end. */
    long t = fy_config.kill_timeout < 0 ? 0 : fy_config.kill_timeout;
    job.terminating = 1;
    job.kill_at = now() + (double)t;
    job.give_up_at = job.kill_at + 5.0;
  } else if (!job.killed) {
    /* A second interrupt: stop waiting. */
    job.kill_at = now();
  }
}

static void forward_stdin(short src_ev, short dst_ev) {
  if (job.in_len == 0 && job.in_src >= 0 && (src_ev & (POLLIN | POLLHUP | POLLERR))) {
    ssize_t n = read(job.in_src, job.in_buf, sizeof job.in_buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n <= 0) {
      job.in_src = -1; /* EOF: rank 0 sees EOF too once the buffer is out */
    } else {
      job.in_len = (size_t)n;
      job.in_off = 0;
    }
  }
  if (job.in_len > 0 && job.in_dst >= 0 && (dst_ev & (POLLOUT | POLLERR | POLLHUP))) {
    ssize_t n = write(job.in_dst, job.in_buf + job.in_off, job.in_len);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n < 0) {
      /* Rank 0 closed its stdin: stop forwarding. */
      close(job.in_dst);
      job.in_dst = -1;
      job.in_src = -1;
      job.in_len = 0;
      return;
    }
    job.in_off += (size_t)n;
    job.in_len -= (size_t)n;
  }
  if (job.in_len == 0 && job.in_src < 0 && job.in_dst >= 0) {
    close(job.in_dst);
    job.in_dst = -1;
  }
}

/* mpiexec's stdin to a remote rank 0: a chunk within the window, or its
 * end (an empty frame). */
static void stdin_to_proxy(void) {
  char buf[16384];
  size_t room = STDIN_WINDOW - job.in_flight;
  ssize_t n = read(job.in_src, buf, room < sizeof buf ? room : sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  proxy_t *x = &job.px[job.in_px];
  if (n <= 0) {
    ctl_send(x, FY_FRAME_IN, 0, NULL, 0);
    job.in_src = -1;
    return;
  }
  ctl_send(x, FY_FRAME_IN, 0, buf, (size_t)n);
  job.in_flight += (size_t)n;
}

static void loop(void) {
  int cap = 3 + 3 * job.np + 3 * npx();
  struct pollfd *p = calloc((size_t)cap, sizeof *p), *pp = NULL;
  /* 3*rank + 0 pmi / 1 out / 2 err; 3*np + 3*host + 0 frames / 1 launcher's stderr / 2 control */
  int *who = calloc((size_t)cap, sizeof *who);
  if (!p || !who) {
    fprintf(stderr, "mpiexec: out of memory\n");
    exit(1);
  }
  while (job.nalive > 0 || job.npx_alive > 0) {
    if (job.nalive == 0 && !job.px_deadline) {
      /* Every rank ended: the launchers end with their proxies; one that
       * lingers (a connection that does not close) gets a few seconds. */
      job.px_deadline = now() + 5.0;
      for (int h = 0; h < npx(); h++) ctl_close(&job.px[h]);
    }
    int n = 0;
    p[n++] = (struct pollfd){job.sfd, POLLIN, 0};
    int in_src_i = -1, in_dst_i = -1;
    if (job.in_src >= 0 && job.in_dst >= 0 && job.in_len == 0) {
      in_src_i = n;
      p[n++] = (struct pollfd){job.in_src, POLLIN, 0};
    }
    if (job.in_dst >= 0 && job.in_len > 0) {
      in_dst_i = n;
      p[n++] = (struct pollfd){job.in_dst, POLLOUT, 0};
    }
    /* (a remote rank 0: as much as its proxy acknowledged, a window ahead) */
    int in_px_i = -1;
    if (job.in_px >= 0 && job.in_src >= 0 && job.in_flight < STDIN_WINDOW && job.px[job.in_px].ctl_fd >= 0) {
      in_px_i = n;
      p[n++] = (struct pollfd){job.in_src, POLLIN, 0};
    }
    int first_rank = n;
    for (int i = 0; i < job.np; i++) {
      int fds[3] = {fy_pmi_server_rank(job.pmi, i)->fd, job.r[i].out_fd, job.r[i].err_fd};
      for (int k = 0; k < 3; k++)
        if (fds[k] >= 0) {
          who[n] = 3 * i + k;
          p[n++] = (struct pollfd){fds[k], POLLIN, 0};
        }
    }
    for (int h = 0; h < npx(); h++) {
      proxy_t *x = &job.px[h];
      int fds[3] = {x->out_fd, x->err_fd, x->q.len ? x->ctl_fd : -1};
      for (int k = 0; k < 3; k++)
        if (fds[k] >= 0) {
          who[n] = 3 * job.np + 3 * h + k;
          p[n++] = (struct pollfd){fds[k], k < 2 ? POLLIN : POLLOUT, 0};
        }
    }
    int timeout = -1;
    if (job.terminating) {
      double t = now(), until = job.killed ? job.give_up_at : job.kill_at;
      timeout = until > t ? (int)((until - t) * 1000) + 1 : 0;
    } else if (job.deadline > 0) {
      double t = now();
      timeout = job.deadline > t ? (int)((job.deadline - t) * 1000) + 1 : 0;
    }
    if (job.px_deadline && !job.px_killed) {
      double t = now();
      int left = job.px_deadline > t ? (int)((job.px_deadline - t) * 1000) + 1 : 0;
      if (timeout < 0 || left < timeout) timeout = left;
      if (left == 0) { /* (they are reaped next) */
        for (int h = 0; h < npx(); h++)
          if (job.px[h].pid && !job.px[h].reaped) kill(job.px[h].pid, SIGKILL);
        job.px_killed = 1;
      }
    }
    int rc;
    if (job.lfd >= 0) {
      /* Remote ranks: the listener and the connections not yet tied to a
       * rank, polled after the ranks' fds. */
      pp = realloc(pp, (size_t)(n + 1 + job.npend) * sizeof *pp);
      if (!pp) {
        fprintf(stderr, "mpiexec: out of memory\n");
        exit(1);
      }
      memcpy(pp, p, (size_t)n * sizeof *pp);
      pp[n] = (struct pollfd){job.lfd, POLLIN, 0};
      for (int k = 0; k < job.npend; k++) pp[n + 1 + k] = (struct pollfd){job.pend[k].fd, POLLIN, 0};
      rc = poll(pp, (nfds_t)(n + 1 + job.npend), timeout);
      int extra = 0;
      for (int k = n; k < n + 1 + job.npend; k++) extra |= pp[k].revents != 0;
      memcpy(p, pp, (size_t)n * sizeof *pp);
      if (extra) {
        accept_all();
        serve_pending();
      }
    } else {
      rc = poll(p, (nfds_t)n, timeout);
    }
    if (rc < 0 && errno != EINTR) {
      fprintf(stderr, "mpiexec: poll failed: %s\n", strerror(errno));
      break;
    }
    if (!job.terminating && job.deadline > 0 && now() >= job.deadline)
      job_failed(124, "the job did not end within its time limit of %ld s (-timeout / MPIEXEC_TIMEOUT)",
                 job.limit_s);
    if (job.terminating) {
      double t = now();
      if (!job.killed && t >= job.kill_at) {
        signal_job(SIGKILL);
        job.killed = 1;
      } else if (job.killed && t >= job.give_up_at) {
        fprintf(stderr, "mpiexec: %d rank(s) did not end after SIGKILL; giving up\n", job.nalive);
        break;
      }
    }
    if (rc <= 0) continue;
    if (p[0].revents) {
      struct signalfd_siginfo si;
      while (read(job.sfd, &si, sizeof si) == (ssize_t)sizeof si) on_signal((int)si.ssi_signo);
    }
    if (in_src_i >= 0 || in_dst_i >= 0)
      forward_stdin(in_src_i >= 0 ? p[in_src_i].revents : 0, in_dst_i >= 0 ? p[in_dst_i].revents : 0);
    if (in_px_i >= 0 && p[in_px_i].revents) stdin_to_proxy();
    for (int k = first_rank; k < n; k++) {
      if (!p[k].revents) continue;
      if (who[k] >= 3 * job.np) {
        int h = (who[k] - 3 * job.np) / 3, kind = (who[k] - 3 * job.np) % 3;
        if (kind == 0 && job.px[h].out_fd == p[k].fd) drain_proxy(h);
        else if (kind == 1 && job.px[h].err_fd == p[k].fd) drain(&job.px[h].err_fd, &job.px[h].raw_err);
        else if (kind == 2 && job.px[h].ctl_fd == p[k].fd) ctl_flush(&job.px[h]);
        continue;
      }
      int i = who[k] / 3;
      rank_t *r = &job.r[i];
      switch (who[k] % 3) {
        case 0:
          /* The fd may have been closed by on_exit_of() above. */
          if (fy_pmi_server_rank(job.pmi, i)->fd == p[k].fd) check_pmi(i, fy_pmi_server_handle(job.pmi, i));
          break;
        case 1:
          if (r->out_fd == p[k].fd) drain(&r->out_fd, &r->out);
          break;
        case 2:
          if (r->err_fd == p[k].fd) drain(&r->err_fd, &r->err);
          break;
      }
    }
  }
  free(p);
  free(pp);
  free(who);
}

int main(int argc, char **argv) {
  /* Keep fds 0-2 taken so pipes never land there. */
  for (int fd = 0; fd < 3; fd++)
    if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", fd ? O_WRONLY : O_RDONLY) < 0) return 1;
  if (argc == 3 && !strcmp(argv[1], "--fy-proxy")) return fy_proxy_main(argv[2]);
  if (argc == 4 && !strcmp(argv[1], "--fy-proxy-connect")) return fy_proxy_connect_main(argv[2], argv[3]);
  fy_config_load();
  /* Three or four fds per rank: use the whole allowance. */
  struct rlimit rl, orig;
  int raised = 0;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    orig = rl;
    rl.rlim_cur = rl.rlim_max;
    raised = setrlimit(RLIMIT_NOFILE, &rl) == 0;
  }
  fy_launch_opts_t o;
  int rc = fy_launch_opts_parse(&o, argc, argv, stdout, stderr);
  if (rc) return rc > 0 ? 0 : 2;
  int prefix = o.prefix >= 0 ? o.prefix : fy_config.output_prefix;

  memset(&job, 0, sizeof job);
  job.np = o.np;
  job.exit_code = -1;
  job.in_dst = -1;
  job.lfd = -1;
  job.named_hosts = o.hosts || o.hostfile;
  if ((o.hosts && fy_hosts_add_list(&job.hosts, o.hosts, stderr) < 0) ||
      (o.hostfile && fy_hosts_add_file(&job.hosts, o.hostfile, stderr) < 0)) {
    rc = 2;
    goto out;
  }
  if (!job.named_hosts && fy_config.slurm_alloc) {
    /* In a Slurm job (batch script, salloc) with no host named: its nodes,
     * as Hydra does, rather than every rank on the batch host. */
    char *sl = NULL;
    int in = fy_slurm_hosts(&sl, stderr);
    if (in < 0) { rc = 2; goto out; }
    if (in > 0) {
      int bad = fy_hosts_add_list(&job.hosts, sl, stderr) < 0;
      free(sl);
      if (bad) { rc = 2; goto out; }
      job.named_hosts = job.slurm = 1;
    }
  }
  {
    /* (MPMD: a program's own -hosts after the job's list) */
    int njob = job.hosts.n, *anp = calloc((size_t)o.napps, 3 * sizeof *anp);
    if (!anp) {
      fprintf(stderr, "mpiexec: out of memory\n");
      rc = 1;
      goto out;
    }
    int *first = anp + o.napps, *count = anp + 2 * o.napps, bad = 0;
    for (int a = 0; a < o.napps && !bad; a++) {
      anp[a] = o.apps[a].np;
      first[a] = job.hosts.n;
      if (o.apps[a].hosts) {
        bad = fy_hosts_add_list(&job.hosts, o.apps[a].hosts, stderr);
        job.named_hosts = 1;
      }
      count[a] = job.hosts.n - first[a];
    }
    if (!bad) bad = fy_hosts_place_apps(&job.hosts, njob, o.napps, anp, first, count, o.ppn, stderr);
    free(anp);
    if (bad < 0) { rc = 2; goto out; }
  }
  if (o.ppn && !job.named_hosts) {
    fprintf(stderr, "mpiexec: -ppn needs -hosts or -f\n");
    rc = 2;
    goto out;
  }
  job.bind = binding(&o);
  if (raised) {
    job.nofile = orig;
    job.nofile_raised = 1;
  }
  unsigned rnd = 0;
  if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd) rnd = (unsigned)time(NULL) ^ (unsigned)clock();
  snprintf(job.kvsname, sizeof job.kvsname, "kvs_%d_%08x", (int)getpid(), rnd);
  job.r = calloc((size_t)job.np, sizeof *job.r);
  job.px = calloc((size_t)job.hosts.n + 1, sizeof *job.px);
  job.node_px = malloc(((size_t)job.hosts.n + 1) * sizeof *job.node_px); /* (node ids < entries) */
  job.px_next = malloc((size_t)job.np * sizeof *job.px_next);
  job.pmi = fy_pmi_server_create(job.np, job.kvsname);
  if (!job.r || !job.px || !job.node_px || !job.px_next || !job.pmi) {
    fprintf(stderr, "mpiexec: out of memory for %d ranks\n", job.np);
    rc = 1;
    goto out;
  }
  for (int h = 0; h <= job.hosts.n; h++) {
    job.px[h].out_fd = job.px[h].err_fd = job.px[h].ctl_fd = -1;
    job.px[h].first = -1;
    job.node_px[h] = -1;
  }
  for (int h = job.hosts.n - 1; h >= 0; h--) job.node_px[job.hosts.h[h].node] = h;
  for (int i = job.np - 1; i >= 0; i--) { /* (each list in rank order) */
    proxy_t *x = &job.px[proxy_of(i)];
    job.px_next[i] = x->first;
    x->first = i;
  }
  for (int i = 0; i < job.np; i++) {
    job.r[i].out_fd = job.r[i].err_fd = -1;
    fy_pmi_server_set_appnum(job.pmi, i, fy_launch_app_of(&o, i));
  }
  if (check_wdirs(&o) < 0 || open_outputs(&o) < 0) { rc = 2; goto out; }
  if (job.named_hosts) {
    char map[FY_PMI_VAL_MAX];
    /* Too many hosts for one value: no mapping, the clients compare host names. */
    if (fy_hosts_mapping(&job.hosts, map, sizeof map) == 0) fy_pmi_server_set_mapping_string(job.pmi, map);
    else fy_pmi_server_set_mapping(job.pmi, 0);
  }
  if (job.hosts.any_remote) {
    int lo, hi;
    if (setup_launcher(&o) < 0 || port_range(&lo, &hi) < 0) { rc = 1; goto out; }
    fabric_ports(lo, hi);
    if (lch.group && open_listener(&o, lo, hi) < 0) { rc = 1; goto out; }
  }

  /* Stdin goes to rank 0, unless it is a terminal we do not own (a
   * background job would be stopped by SIGTTIN). */
  job.in_src = 0;
  if (isatty(0) && tcgetpgrp(0) != getpgrp()) job.in_src = -1;
  /* A remote rank 0 reads it through its host's proxy. */
  job.in_px = job.in_src >= 0 && !job.hosts.h[job.hosts.host_of[0]].local ? proxy_of(0) : -1;

  signal(SIGPIPE, SIG_IGN);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  /* A signal ignored on entry (nohup, a non-interactive shell's background
   * job) stays ignored, by mpiexec and by the ranks. */
  for (size_t k = 0; k < sizeof fwd_signals / sizeof fwd_signals[0]; k++) {
    struct sigaction sa;
    if (sigaction(fwd_signals[k], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN) continue;
    sigaddset(&set, fwd_signals[k]);
  }
  sigprocmask(SIG_BLOCK, &set, NULL);
  job.sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (job.sfd < 0) {
    fprintf(stderr, "mpiexec: signalfd failed: %s\n", strerror(errno));
    rc = 1;
    goto out;
  }

  job.limit_s = o.timeout >= 0 ? o.timeout : fy_config.job_timeout;
  if (job.limit_s > 0) job.deadline = now() + (double)job.limit_s;
  rc = launch(&o, prefix);
  if (rc < 0) {
    if (job.exit_code < 0) job.exit_code = rc == -2 ? 127 : 1;
    if (job.nalive > 0) {
      /* Already started ranks must not wait forever for the missing ones. */
      start_teardown();
    }
  }
  if (job.in_src >= 0 && job.in_dst >= 0) set_nonblock(job.in_dst);
  if (job.in_src >= 0 && job.in_dst < 0 && job.in_px < 0) job.in_src = -1;
  /* mpiexec killed outright: the local ranks die with it
   * (PR_SET_PDEATHSIG), and the guardian kills their group, with what
   * they started. */
  pid_t guard = job.pgid > 0 ? fy_guard_start(&job.pgid, 1) : -1;
  loop();
  fy_guard_stop(guard);

  /* Every rank is gone: what they wrote is in the pipes; take all of it. */
  for (int i = 0; i < job.np; i++) {
    rank_t *r = &job.r[i];
    drain(&r->out_fd, &r->out);
    drain(&r->err_fd, &r->err);
    fy_outbuf_flush(&r->out);
    fy_outbuf_flush(&r->err);
    if (r->out_fd >= 0) close(r->out_fd);
    if (r->err_fd >= 0) close(r->err_fd);
    fy_outbuf_free(&r->out);
    fy_outbuf_free(&r->err);
  }
  for (int h = 0; h < npx(); h++) {
    proxy_t *x = &job.px[h];
    free(x->spec);
    if (!x->pid) continue;
    drain_proxy(h);
    drain(&x->err_fd, &x->raw_err);
    fy_outbuf_flush(&x->raw_out);
    fy_outbuf_flush(&x->raw_err);
    if (x->out_fd >= 0) close(x->out_fd);
    if (x->err_fd >= 0) close(x->err_fd);
    if (x->ctl_fd >= 0) close(x->ctl_fd);
    fy_outbuf_free(&x->raw_out);
    fy_outbuf_free(&x->raw_err);
    fy_frame_rx_free(&x->rx);
    fy_buf_free(&x->q);
  }
  rc = job.exit_code < 0 ? 0 : job.exit_code;

out: /* the end of a job, or straight here from a refusal before any rank started */
  free(job.px);
  free(job.node_px);
  free(job.px_next);
  for (int k = 0; k < nofiles; k++) {
    close(ofiles[k].fd);
    free(ofiles[k].name);
  }
  free(ofiles);
  if (job.kvsname[0]) fy_launch_cleanup_shm(job.kvsname);
  fy_pmi_server_destroy(job.pmi);
  for (int k = 0; k < job.npend; k++) close(job.pend[k].fd);
  free(job.pend);
  if (job.lfd >= 0) close(job.lfd);
  fy_hosts_free(&job.hosts);
  free(lch.words);
  free(job.r);
  fy_launch_opts_free(&o);
  return rc;
}
