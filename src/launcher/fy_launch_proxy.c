/* mpiexec's remote side: see fy_launch_proxy.h. */
#include "launcher/fy_launch_proxy.h"
#include "launcher/fy_launch_place.h"
#include "launcher/fy_launch_frame.h"
#include "launcher/fy_launch_io.h"
#include "launcher/fy_launch_guard.h"
#include <dirent.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SPEC_TAG "fy5"

/* ---- encoding: NUL-separated strings, as hex ------------------------------ */

static void put_str(fy_buf_t *b, const char *s) {
  s = s ? s : "";
  fy_buf_put(b, s, strlen(s) + 1); /* (out of memory: b->oom, and no spec) */
}

static void put_int(fy_buf_t *b, long v) {
  char num[32];
  snprintf(num, sizeof num, "%ld", v);
  put_str(b, num);
}

char *fy_proxy_encode(const fy_proxy_spec_t *s) {
  fy_buf_t b = {0};
  put_str(&b, SPEC_TAG);
  put_str(&b, s->kvsname);
  put_str(&b, s->host);
  put_int(&b, s->size);
  put_int(&b, s->local_size);
  put_str(&b, s->bind);
  put_int(&b, s->kill_timeout);
  put_int(&b, s->stdin_rank);
  put_int(&b, s->nenv);
  for (int i = 0; i < s->nenv; i++) put_str(&b, s->env[i]);
  put_int(&b, s->napps);
  for (int a = 0; a < s->napps; a++) {
    const fy_proxy_app_t *x = &s->apps[a];
    put_str(&b, x->cwd);
    put_int(&b, x->inherit);
    put_int(&b, x->nenv);
    for (int i = 0; i < x->nenv; i++) put_str(&b, x->env[i]);
    put_int(&b, x->nargs);
    for (int i = 0; i < x->nargs; i++) put_str(&b, x->argv[i]);
  }
  put_int(&b, s->nranks);
  for (int i = 0; i < s->nranks; i++) {
    put_int(&b, s->rank[i]);
    put_int(&b, s->local_rank[i]);
    put_int(&b, s->app[i]);
  }
  char *hex = b.oom ? NULL : malloc(2 * b.len + 1);
  if (hex) {
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < b.len; i++) {
      hex[2 * i] = d[(unsigned char)b.p[i] >> 4];
      hex[2 * i + 1] = d[(unsigned char)b.p[i] & 15];
    }
    hex[2 * b.len] = '\0';
  }
  fy_buf_free(&b);
  return hex;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/* Decoded strings, in order; NULL on a malformed word. */
static char **decode(const char *word, int *count) {
  size_t n = strlen(word);
  if (n % 2) return NULL;
  char *raw = malloc(n / 2 + 1);
  if (!raw) return NULL;
  for (size_t i = 0; i < n / 2; i++) {
    int hi = hexval(word[2 * i]), lo = hexval(word[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      free(raw);
      return NULL;
    }
    raw[i] = (char)(hi << 4 | lo);
  }
  size_t len = n / 2;
  if (!len || raw[len - 1] != '\0') {
    free(raw);
    return NULL;
  }
  int k = 0;
  for (size_t i = 0; i < len; i++) k += raw[i] == '\0';
  char **v = calloc((size_t)k + 1, sizeof *v);
  if (!v) {
    free(raw);
    return NULL;
  }
  int j = 0;
  for (size_t i = 0; i < len; i += strlen(raw + i) + 1) v[j++] = raw + i;
  *count = k;
  return v; /* v[0] is raw: freed with it */
}

/* ---- the proxy ------------------------------------------------------------ */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}


/* The decoded specification: f[] walked with bounds checks. */
typedef struct cursor { char **f; int nf, k, bad; } cursor_t;
static const char *next_str(cursor_t *c) { return c->k < c->nf ? c->f[c->k++] : (c->bad = 1, ""); }
static int next_int(cursor_t *c, int lo, int hi) {
  const char *s = next_str(c);
  char *end;
  long v = strtol(s, &end, 10);
  if (!*s || *end || v < lo || v > hi) c->bad = 1;
  return c->bad ? lo : (int)v;
}
/* n strings from the cursor, NULL-terminated (the array only: the
 * strings stay in the decoded buffer). */
static char **next_strs(cursor_t *c, int n) {
  char **v = calloc((size_t)n + 1, sizeof *v);
  if (!v) {
    c->bad = 1;
    return NULL;
  }
  for (int i = 0; i < n; i++) v[i] = (char *)next_str(c);
  return v;
}

typedef struct prank {
  int rank, local, app;
  pid_t pid;
  int out, err; /* read ends, -1 at EOF */
  int pmi;      /* its PMI connection (the proxy's end), -1 once closed */
  fy_buf_t pmiq; /* the PMI server's answers not yet written to it */
  int done;
  int in;       /* the stdin rank: write end of its stdin, -1 closed */
  int in_eof;   /* mpiexec's stdin ended: close in once inq is out */
  fy_buf_t inq; /* stdin bytes not yet written (at most mpiexec's window) */
} prank_t;

static struct {
  prank_t *r;
  int n, ndone, failed;
  int gone;  /* mpiexec no longer reads our stdout */
  int terminating, killed;
  double kill_at;
  long kill_timeout;
} px;

static void send_frame(int type, int rank, const void *p, size_t n) {
  if (!px.gone && fy_frame_put(1, type, rank, p, n) != 0) px.gone = 1;
}

/* What is in one of a rank's pipes now, as frames; EOF closes it. */
static void forward(prank_t *r, int *fd, int type) {
  char buf[65536];
  ssize_t n;
  while ((n = fy_read_ready(fd, buf, sizeof buf)) > 0) send_frame(type, r->rank, buf, (size_t)n);
}

/* The end of the rank's PMI connection: an empty frame says so, and the
 * answers still queued for it are dropped. */
static void close_pmi(prank_t *r) {
  send_frame(FY_FRAME_PMI, r->rank, NULL, 0);
  if (r->pmi >= 0) close(r->pmi);
  r->pmi = -1;
  r->pmiq.len = 0;
}

/* What the rank said on its PMI connection, relayed; at its end (closed,
 * or reset by a dying rank) close_pmi. */
static void forward_pmi(prank_t *r) {
  char buf[65536];
  ssize_t n;
  if (r->pmi < 0) return;
  while ((n = fy_read_ready(&r->pmi, buf, sizeof buf)) > 0) send_frame(FY_FRAME_PMI, r->rank, buf, (size_t)n);
  if (n < 0) close_pmi(r);
}

/* The PMI server's queued answers, as far as the rank's socket takes
 * them (a rank that stopped reading must not stall the proxy). */
static void feed_pmi(prank_t *r) {
  while (r->pmi >= 0 && r->pmiq.len > 0) {
    ssize_t n = send(r->pmi, r->pmiq.p, r->pmiq.len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n < 0) { /* (gone: its end comes through forward_pmi) */
      r->pmiq.len = 0;
      return;
    }
    fy_buf_drop(&r->pmiq, (size_t)n);
  }
}

static void ended(prank_t *r, int status) {
  forward(r, &r->out, FY_FRAME_OUT); /* (its output before its end) */
  forward(r, &r->err, FY_FRAME_ERR);
  forward_pmi(r); /* (an abort before the end it causes) */
  if (r->pmi >= 0) close_pmi(r); /* (held open by a process it left behind: its end all the same) */
  if (!px.gone && fy_frame_put_int(1, FY_FRAME_EXIT, r->rank, status) != 0) px.gone = 1;
  r->done = 1;
  px.ndone++;
  if (r->in >= 0) close(r->in);
  r->in = -1;
  r->inq.len = 0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) px.failed = 1;
}

static void ack(prank_t *r, size_t n) {
  if (n && !px.gone && fy_frame_put_int(1, FY_FRAME_ACK, r->rank, (int32_t)n) != 0) px.gone = 1;
}

/* Rank r's queued stdin, as far as its pipe takes it; bytes it cannot
 * take any more (it closed its stdin) are dropped, and acknowledged so
 * that mpiexec's window moves on. */
static void feed_stdin(prank_t *r) {
  while (r->in >= 0 && r->inq.len > 0) {
    ssize_t n = write(r->in, r->inq.p, r->inq.len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n < 0) {
      close(r->in);
      r->in = -1;
      break;
    }
    fy_buf_drop(&r->inq, (size_t)n);
    ack(r, (size_t)n);
  }
  if (r->in < 0) {
    ack(r, r->inq.len);
    r->inq.len = 0;
  } else if (r->in_eof && r->inq.len == 0) {
    close(r->in);
    r->in = -1;
  }
}

static void signal_ranks(int sig) {
  for (int i = 0; i < px.n; i++)
    if (!px.r[i].done && px.r[i].pid > 0) kill(-px.r[i].pid, sig);
}

/* A signal to forward (from mpiexec over stdin, or sent to the proxy);
 * the terminating ones end the ranks, by SIGKILL after the kill timeout. */
static void on_signal(int sig) {
  signal_ranks(sig);
  if (sig == SIGUSR1 || sig == SIGUSR2 || px.terminating) return;
  px.terminating = 1;
  px.kill_at = now() + (double)(px.kill_timeout < 0 ? 0 : px.kill_timeout);
}

/* Starts rank r of the program argv in directory cwd; its end is
 * reported at once when it cannot be executed. */
static void start(prank_t *r, const fy_proxy_spec_t *s, char *const *argv, int devnull) {
  int op[2] = {-1, -1}, ep[2] = {-1, -1}, xp[2] = {-1, -1}, ip[2] = {-1, -1}, sp[2] = {-1, -1};
  const fy_proxy_app_t *app = &s->apps[r->app];
  r->out = r->err = r->in = r->pmi = -1;
  if (pipe2(op, O_CLOEXEC) < 0 || pipe2(ep, O_CLOEXEC) < 0 || pipe2(xp, O_CLOEXEC) < 0 ||
      socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0 ||
      (r->rank == s->stdin_rank && pipe2(ip, O_CLOEXEC) < 0))
    goto fail;
  pid_t pid = fork();
  if (pid < 0) goto fail;
  if (pid == 0) {
    setpgid(0, 0); /* the rank and its children: one group to signal */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    if (dup2(ip[0] >= 0 ? ip[0] : devnull, 0) < 0 || dup2(op[1], 1) < 0 || dup2(ep[1], 2) < 0) _exit(127);
    char num[32];
    fcntl(sp[1], F_SETFD, 0); /* (its PMI connection: the one fd it inherits) */
    snprintf(num, sizeof num, "%d", sp[1]);
    setenv("PMI_FD", num, 1);
    snprintf(num, sizeof num, "%d", r->rank);
    setenv("PMI_RANK", num, 1);
    snprintf(num, sizeof num, "%d", r->local);
    setenv("MPI_LOCALRANKID", num, 1);
    /* mpiexec's variables unless -envnone, then the program's own */
    for (int k = 0; k < 2; k++) {
      const char *const *v = k ? app->env : s->env;
      for (int j = 0, n = k ? app->nenv : app->inherit ? s->nenv : 0; j < n; j++) {
        char *eq = strchr(v[j], '=');
        if (!eq) continue;
        *eq = '\0';
        setenv(v[j], eq + 1, 1);
      }
    }
    fy_launch_bind(s->bind, r->local, s->local_size); /* (after its environment: OMP_NUM_THREADS) */
    if (app->cwd[0] && chdir(app->cwd) != 0)
      fprintf(stderr, "mpiexec: rank %d on host %s: cannot enter the working directory %s: %s; staying in %s\n",
              r->rank, s->host, app->cwd, strerror(errno), getenv("HOME") ? getenv("HOME") : "the login directory");
    execvp(argv[0], argv);
    int e = errno;
    ssize_t w = write(xp[1], &e, sizeof e);
    (void)w;
    _exit(127);
  }
  setpgid(pid, pid);
  close(op[1]);
  close(ep[1]);
  close(xp[1]);
  close(sp[1]);
  r->pmi = sp[0];
  fcntl(r->pmi, F_SETFL, O_NONBLOCK);
  if (ip[0] >= 0) {
    close(ip[0]);
    r->in = ip[1];
    fcntl(r->in, F_SETFL, O_NONBLOCK);
  }
  r->pid = pid;
  r->out = op[0];
  r->err = ep[0];
  fcntl(r->out, F_SETFL, O_NONBLOCK);
  fcntl(r->err, F_SETFL, O_NONBLOCK);
  int e = 0;
  ssize_t n;
  do n = read(xp[0], &e, sizeof e); while (n < 0 && errno == EINTR);
  close(xp[0]);
  if (n == (ssize_t)sizeof e) {
    fprintf(stderr, "mpiexec: rank %d on host %s: cannot execute \"%s\": %s\n", r->rank, s->host, argv[0],
            strerror(e));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    ended(r, status);
    return;
  }
  return;
fail:
  fprintf(stderr, "mpiexec: rank %d on host %s: cannot start it: %s\n", r->rank, s->host, strerror(errno));
  for (int k = 0; k < 2; k++) {
    if (op[k] >= 0) close(op[k]);
    if (ep[k] >= 0) close(ep[k]);
    if (xp[k] >= 0) close(xp[k]);
    if (ip[k] >= 0) close(ip[k]);
    if (sp[k] >= 0) close(sp[k]);
  }
  r->out = r->err = r->in = r->pmi = -1;
  ended(r, 127 << 8);
}

static void ignore_raw(void *ctx, const char *p, size_t n) { (void)ctx, (void)p, (void)n; }

/* A frame from mpiexec: a signal, or stdin for the rank that reads it. */
static int on_ctl(void *ctx, int type, int rank, const char *p, size_t n) {
  (void)ctx;
  int32_t v;
  if (type == FY_FRAME_SIG) {
    if (fy_frame_int(p, n, &v) != 0 || v <= 0 || v >= 65) return -1;
    on_signal(v);
    return 0;
  }
  if (type != FY_FRAME_IN && type != FY_FRAME_PMI) return -1;
  for (int i = 0; i < px.n; i++) {
    prank_t *r = &px.r[i];
    if (r->rank != rank) continue;
    if (type == FY_FRAME_PMI) { /* (to a rank whose connection is gone: dropped) */
      if (r->pmi >= 0 && fy_buf_put(&r->pmiq, p, n) == 0) feed_pmi(r);
      return 0;
    }
    if (r->in < 0) { /* (gone, or never had a pipe: dropped) */
      ack(r, n);
      return 0;
    }
    if (!n) r->in_eof = 1;
    if (fy_buf_put(&r->inq, p, n) != 0) ack(r, n); /* (out of memory: dropped) */
    feed_stdin(r);
    return 0;
  }
  return -1;
}

static int proxy_run(fy_proxy_spec_t *s, char ***argvs);

int fy_proxy_main(const char *word) {
  int nf = 0, rc = 127;
  char **f = decode(word, &nf);
  cursor_t c = {f, nf, 1, !f || nf < 1 || strcmp(f[0], SPEC_TAG)};
  fy_proxy_spec_t s = {0};
  fy_proxy_app_t *apps = NULL;
  char ***argvs = NULL;
  int *ints = NULL;
  if (c.bad) {
    fprintf(stderr, "mpiexec --fy-proxy: malformed launch specification (a different mpiexec version on "
                    "this host?)\n");
    goto out;
  }
  s.kvsname = next_str(&c);
  s.host = next_str(&c);
  s.size = next_int(&c, 1, 1 << 30);
  s.local_size = next_int(&c, 1, 1 << 30);
  s.bind = next_str(&c);
  if (fy_bind_check(s.bind) != 0) c.bad = 1;
  s.kill_timeout = next_int(&c, -1, 1 << 30);
  s.stdin_rank = next_int(&c, -1, s.size - 1);
  s.nenv = next_int(&c, 0, nf);
  s.env = (const char **)next_strs(&c, s.nenv);
  s.napps = next_int(&c, 1, nf);
  apps = calloc((size_t)s.napps, sizeof *apps);
  argvs = calloc((size_t)s.napps, sizeof *argvs);
  if (!apps || !argvs) goto bad;
  for (int a = 0; a < s.napps && !c.bad; a++) {
    apps[a].cwd = next_str(&c);
    apps[a].inherit = next_int(&c, 0, 1);
    apps[a].nenv = next_int(&c, 0, nf);
    apps[a].env = (const char **)next_strs(&c, apps[a].nenv);
    apps[a].nargs = next_int(&c, 1, nf);
    argvs[a] = next_strs(&c, apps[a].nargs);
    apps[a].argv = (const char **)argvs[a];
  }
  s.apps = apps;
  s.nranks = next_int(&c, 1, s.local_size);
  ints = calloc((size_t)s.nranks * 3 + 1, sizeof *ints);
  if (!ints) goto bad;
  for (int i = 0; i < s.nranks && !c.bad; i++) {
    ints[i] = next_int(&c, 0, s.size - 1);
    ints[s.nranks + i] = next_int(&c, 0, s.local_size - 1);
    ints[2 * s.nranks + i] = next_int(&c, 0, s.napps - 1);
  }
  s.rank = ints;
  s.local_rank = ints + s.nranks;
  s.app = ints + 2 * s.nranks;
  if (c.bad || c.k != nf) goto bad;
  rc = proxy_run(&s, argvs);
  goto out;
bad:
  fprintf(stderr, "mpiexec --fy-proxy: malformed launch specification\n");
out:
  for (int a = 0; apps && a < s.napps; a++) {
    free((void *)apps[a].env);
    if (argvs) free(argvs[a]);
  }
  free(apps);
  free(argvs);
  free((void *)s.env);
  free(ints);
  if (f) free(f[0]); /* the decoded bytes every f[i] points into */
  free(f);
  return rc;
}

/* The proxy proper, on the decoded specification. */
static int proxy_run(fy_proxy_spec_t *s, char ***argvs) {
  char num[32];
  snprintf(num, sizeof num, "%d", s->size);
  setenv("PMI_SIZE", num, 1);
  setenv("PMI_SPAWNED", "0", 1);
  snprintf(num, sizeof num, "%d", s->local_size);
  setenv("MPI_LOCALNRANKS", num, 1);
  unsetenv("PMI_PORT"); /* (an outer process manager's: the ranks get PMI_FD) */
  unsetenv("PMI_ID");

  static const int fwd[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  for (size_t i = 0; i < sizeof fwd / sizeof fwd[0]; i++) sigaddset(&set, fwd[i]);
  sigprocmask(SIG_BLOCK, &set, NULL);
  signal(SIGPIPE, SIG_IGN); /* (mpiexec gone: a failed write says so) */
  int sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  px.r = calloc((size_t)s->nranks, sizeof *px.r);
  px.n = s->nranks;
  px.kill_timeout = s->kill_timeout;
  struct pollfd *p = calloc((size_t)(2 + 4 * s->nranks), sizeof *p);
  prank_t **who = calloc((size_t)(2 + 4 * s->nranks), sizeof *who);
  if (sfd < 0 || devnull < 0 || !px.r || !p || !who) {
    fprintf(stderr, "mpiexec: the proxy on host %s: setup failed: %s\n", s->host, strerror(errno));
    return 127;
  }
  if (fy_write_all(1, FY_FRAME_MAGIC, FY_FRAME_MAGIC_LEN) != 0) px.gone = 1;
  for (int i = 0; i < px.n; i++) {
    prank_t *r = &px.r[i];
    r->rank = s->rank[i];
    r->local = s->local_rank[i];
    r->app = s->app[i];
    start(r, s, argvs[r->app], devnull);
    if (!r->done && !px.gone && fy_frame_put_int(1, FY_FRAME_PID, r->rank, (int32_t)r->pid) != 0) px.gone = 1;
  }
  /* Killed outright, the proxy takes its ranks along (PR_SET_PDEATHSIG),
   * and the guardian their groups: what they started. */
  pid_t *groups = calloc((size_t)px.n + 1, sizeof *groups);
  for (int i = 0; groups && i < px.n; i++) groups[i] = px.r[i].done ? 0 : px.r[i].pid;
  pid_t guard = groups ? fy_guard_start(groups, px.n) : -1;
  free(groups);

  int stdin_open = 1;
  fy_frame_rx_t ctl = {0};
  while (px.ndone < px.n) {
    int n = 0;
    p[n] = (struct pollfd){sfd, POLLIN, 0};
    who[n++] = NULL;
    if (stdin_open) {
      p[n] = (struct pollfd){0, POLLIN, 0};
      who[n++] = NULL;
    }
    int first = n;
    for (int i = 0; i < px.n; i++) {
      if (px.r[i].out >= 0) {
        p[n] = (struct pollfd){px.r[i].out, POLLIN, 0};
        who[n++] = &px.r[i];
      }
      if (px.r[i].err >= 0) {
        p[n] = (struct pollfd){px.r[i].err, POLLIN, 0};
        who[n++] = &px.r[i];
      }
      if (px.r[i].in >= 0 && px.r[i].inq.len > 0) {
        p[n] = (struct pollfd){px.r[i].in, POLLOUT, 0};
        who[n++] = &px.r[i];
      }
      if (px.r[i].pmi >= 0) {
        p[n] = (struct pollfd){px.r[i].pmi, (short)(POLLIN | (px.r[i].pmiq.len ? POLLOUT : 0)), 0};
        who[n++] = &px.r[i];
      }
    }
    int timeout = -1;
    if (px.terminating && !px.killed) {
      double t = px.kill_at - now();
      timeout = t > 0 ? (int)(t * 1000) + 1 : 0;
    }
    int rc = poll(p, (nfds_t)n, timeout);
    if (rc < 0 && errno != EINTR) break;
    if (px.terminating && !px.killed && now() >= px.kill_at) {
      signal_ranks(SIGKILL);
      px.killed = 1;
    }
    if (rc <= 0) continue;
    for (int k = first; k < n; k++)
      if (p[k].revents) {
        prank_t *r = who[k];
        if (p[k].fd == r->out) forward(r, &r->out, FY_FRAME_OUT);
        else if (p[k].fd == r->err) forward(r, &r->err, FY_FRAME_ERR);
        else if (p[k].fd == r->in) feed_stdin(r);
        else if (p[k].fd == r->pmi) {
          if (p[k].revents & POLLOUT) feed_pmi(r);
          if (p[k].revents & (POLLIN | POLLHUP | POLLERR)) forward_pmi(r);
        }
      }
    if (stdin_open && p[1].revents) {
      char buf[65536];
      const char *why = NULL;
      ssize_t m = read(0, buf, sizeof buf);
      if (m > 0 && fy_frame_feed(&ctl, buf, (size_t)m, ignore_raw, on_ctl, NULL, &why) != 0) {
        fprintf(stderr, "mpiexec: the proxy on host %s: %s from mpiexec; ending its ranks\n", s->host, why);
        m = 0;
      }
      if (m == 0 || (m < 0 && errno != EINTR && errno != EAGAIN)) {
        /* mpiexec (or the connection to it) is gone: end the ranks. */
        stdin_open = 0;
        on_signal(SIGTERM);
      }
    }
    if (px.gone && !px.terminating) on_signal(SIGTERM);
    if (p[0].revents) {
      struct signalfd_siginfo si;
      while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig != SIGCHLD) {
          on_signal(sig);
          continue;
        }
        int status;
        pid_t w;
        while ((w = waitpid(-1, &status, WNOHANG)) > 0)
          for (int i = 0; i < px.n; i++)
            if (px.r[i].pid == w && !px.r[i].done) ended(&px.r[i], status);
      }
    }
  }
  fy_guard_stop(guard);
  for (int i = 0; i < px.n; i++) {
    if (px.r[i].out >= 0) close(px.r[i].out);
    if (px.r[i].err >= 0) close(px.r[i].err);
    if (px.r[i].in >= 0) close(px.r[i].in);
    if (px.r[i].pmi >= 0) close(px.r[i].pmi);
    fy_buf_free(&px.r[i].inq);
    fy_buf_free(&px.r[i].pmiq);
  }
  fy_frame_rx_free(&ctl);
  if (px.failed) fy_launch_cleanup_shm(s->kvsname); /* mpiexec cleans only its own host */
  free(p);
  free(who);
  free(px.r);
  close(devnull);
  close(sfd);
  return 0;
}

/* ---- connecting back (one launcher step for many hosts) -------------------- */

/* One line from fd, byte by byte (what follows it is the frames' stream,
 * which must stay unread): its length, or -1 at EOF, an error or a line
 * too long for cap. */
static ssize_t read_line(int fd, char *buf, size_t cap) {
  size_t n = 0;
  while (n < cap - 1) {
    ssize_t r = read(fd, buf + n, 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    if (buf[n] == '\n') {
      buf[n] = '\0';
      return (ssize_t)n;
    }
    n++;
  }
  return -1;
}

static int read_full(int fd, char *buf, size_t len) {
  for (size_t got = 0; got < len;) {
    ssize_t r = read(fd, buf + got, len - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    got += (size_t)r;
  }
  return 0;
}

int fy_proxy_connect_main(const char *addr, const char *cookie) {
  char host[256], node[256], line[512];
  const char *colon = strrchr(addr, ':');
  int fd = -1, err = 0, rc = 127;
  char *spec = NULL;
  if (gethostname(node, sizeof node - 1) != 0) snprintf(node, sizeof node, "localhost");
  node[sizeof node - 1] = '\0';
  if (getenv("SLURMD_NODENAME") && *getenv("SLURMD_NODENAME")) snprintf(node, sizeof node, "%s", getenv("SLURMD_NODENAME"));
  if (!colon || colon == addr || (size_t)(colon - addr) >= sizeof host || !colon[1]) {
    fprintf(stderr, "mpiexec --fy-proxy-connect: \"%s\" is not host:port\n", addr);
    return 127;
  }
  memcpy(host, addr, (size_t)(colon - addr));
  host[colon - addr] = '\0';
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res;
  int e = getaddrinfo(host, colon + 1, &hints, &res);
  if (e) {
    fprintf(stderr, "mpiexec: the proxy on host %s cannot resolve mpiexec's address %s: %s\n", node, host,
            gai_strerror(e));
    return 127;
  }
  for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      err = errno;
      continue;
    }
    int r;
    do r = connect(fd, ai->ai_addr, ai->ai_addrlen); while (r < 0 && errno == EINTR);
    if (r != 0) {
      err = errno;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  if (fd < 0) {
    fprintf(stderr, "mpiexec: the proxy on host %s cannot connect to mpiexec at %s: %s\n", node, addr, strerror(err));
    return 127;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  int n = snprintf(line, sizeof line, "cmd=fy-proxy cookie=%s node=%s\n", cookie, node);
  long len = -1;
  char *lp;
  if (n <= 0 || (size_t)n >= sizeof line || fy_write_all(fd, line, (size_t)n) != 0 || read_line(fd, line, sizeof line) < 0)
    goto lost;
  if (!strncmp(line, "cmd=fy-proxy-refused reason=", 28)) {
    fprintf(stderr, "mpiexec: mpiexec refused the proxy on host %s: %s\n", node, line + 28);
    goto out;
  }
  if (strncmp(line, "cmd=fy-proxy-spec len=", 22) || (len = strtol(line + 22, &lp, 10)) <= 0 || *lp ||
      len > (64l << 20) || !(spec = malloc((size_t)len + 1)) || read_full(fd, spec, (size_t)len) != 0)
    goto lost;
  spec[len] = '\0';
  /* The connection becomes the proxy's stdin and stdout. */
  if (dup2(fd, 0) < 0 || dup2(fd, 1) < 0) goto lost;
  close(fd);
  fd = -1;
  rc = fy_proxy_main(spec);
  goto out;
lost:
  fprintf(stderr, "mpiexec: the proxy on host %s lost its connection to mpiexec at %s before its start\n", node, addr);
out:
  if (fd >= 0) close(fd);
  free(spec);
  return rc;
}
