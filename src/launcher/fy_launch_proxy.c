/* mpiexec's remote side: see fy_launch_proxy.h. */
#include "launcher/fy_launch_proxy.h"
#include "launcher/fy_launch_place.h"
#include <dirent.h>
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

#define SPEC_TAG "fy1"

/* ---- encoding: NUL-separated strings, as hex ------------------------------ */

typedef struct sbuf { char *p; size_t len, cap; int oom; } sbuf_t;

static void put_str(sbuf_t *b, const char *s) {
  size_t l = strlen(s ? s : "") + 1;
  if (b->oom) return;
  if (b->len + l > b->cap) {
    size_t nc = b->cap ? b->cap : 1024;
    while (nc < b->len + l) nc *= 2;
    char *n = realloc(b->p, nc);
    if (!n) {
      b->oom = 1;
      return;
    }
    b->p = n;
    b->cap = nc;
  }
  memcpy(b->p + b->len, s ? s : "", l);
  b->len += l;
}

static void put_int(sbuf_t *b, long v) {
  char num[32];
  snprintf(num, sizeof num, "%ld", v);
  put_str(b, num);
}

char *fy_proxy_encode(const fy_proxy_spec_t *s) {
  sbuf_t b = {0};
  put_str(&b, SPEC_TAG);
  put_str(&b, s->pmi_port);
  put_str(&b, s->kvsname);
  put_str(&b, s->cwd);
  put_str(&b, s->host);
  put_int(&b, s->rank);
  put_int(&b, s->size);
  put_int(&b, s->local_rank);
  put_int(&b, s->local_size);
  put_int(&b, s->bind);
  put_int(&b, s->kill_timeout);
  put_int(&b, s->nenv);
  for (int i = 0; i < s->nenv; i++) put_str(&b, s->env[i]);
  put_int(&b, s->nargs);
  for (int i = 0; i < s->nargs; i++) put_str(&b, s->argv[i]);
  char *hex = b.oom ? NULL : malloc(2 * b.len + 1);
  if (hex) {
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < b.len; i++) {
      hex[2 * i] = d[(unsigned char)b.p[i] >> 4];
      hex[2 * i + 1] = d[(unsigned char)b.p[i] & 15];
    }
    hex[2 * b.len] = '\0';
  }
  free(b.p);
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

static int want_bind(int mode, int local_size) {
  if (mode >= 0) return mode;
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return 0;
  return local_size <= CPU_COUNT(&allowed);
}

static int proxy_run(char **f, int nf);

int fy_proxy_main(const char *word) {
  int nf = 0;
  char **f = decode(word, &nf);
  if (!f || nf < 12 || strcmp(f[0], SPEC_TAG)) {
    fprintf(stderr, "mpiexec --fy-proxy: malformed launch specification (a different mpiexec version on "
                    "this host?)\n");
    if (f) {
      free(f[0]);
      free(f);
    }
    return 127;
  }
  int rc = proxy_run(f, nf);
  free(f[0]); /* the decoded bytes every f[i] points into */
  free(f);
  return rc;
}

/* The proxy proper, on the decoded specification f (owned by the caller). */
static int proxy_run(char **f, int nf) {
  fy_proxy_spec_t s = {.pmi_port = f[1], .kvsname = f[2], .cwd = f[3], .host = f[4]};
  s.rank = atoi(f[5]);
  s.size = atoi(f[6]);
  s.local_rank = atoi(f[7]);
  s.local_size = atoi(f[8]);
  s.bind = atoi(f[9]);
  s.kill_timeout = atol(f[10]);
  s.nenv = atoi(f[11]);
  int k = 12;
  if (s.nenv < 0 || k + s.nenv >= nf) goto bad;
  for (int i = 0; i < s.nenv; i++, k++) {
    char *eq = strchr(f[k], '=');
    if (!eq) goto bad;
    *eq = '\0';
    setenv(f[k], eq + 1, 1);
  }
  s.nargs = atoi(f[k++]);
  if (s.nargs < 1 || k + s.nargs != nf) goto bad;
  char **argv = f + k;
  argv[s.nargs] = NULL; /* decode() left one spare slot */

  char num[32];
  setenv("PMI_PORT", s.pmi_port, 1);
  snprintf(num, sizeof num, "%d", s.rank);
  setenv("PMI_ID", num, 1);
  setenv("PMI_RANK", num, 1);
  snprintf(num, sizeof num, "%d", s.size);
  setenv("PMI_SIZE", num, 1);
  setenv("PMI_SPAWNED", "0", 1);
  snprintf(num, sizeof num, "%d", s.local_rank);
  setenv("MPI_LOCALRANKID", num, 1);
  snprintf(num, sizeof num, "%d", s.local_size);
  setenv("MPI_LOCALNRANKS", num, 1);
  unsetenv("PMI_FD");
  if (s.cwd[0] && chdir(s.cwd) != 0)
    fprintf(stderr, "mpiexec: rank %d on host %s: cannot enter the working directory %s: %s; staying in %s\n",
            s.rank, s.host, s.cwd, strerror(errno), getenv("HOME") ? getenv("HOME") : "the login directory");

  static const int fwd[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  for (size_t i = 0; i < sizeof fwd / sizeof fwd[0]; i++) sigaddset(&set, fwd[i]);
  sigprocmask(SIG_BLOCK, &set, NULL);
  int sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  int xp[2];
  int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (sfd < 0 || devnull < 0 || pipe2(xp, O_CLOEXEC) < 0) {
    fprintf(stderr, "mpiexec: rank %d on host %s: proxy setup failed: %s\n", s.rank, s.host, strerror(errno));
    return 127;
  }
  int bind = want_bind(s.bind, s.local_size);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "mpiexec: rank %d on host %s: cannot fork: %s\n", s.rank, s.host, strerror(errno));
    return 127;
  }
  if (pid == 0) {
    setpgid(0, 0); /* the rank and its children: one group to signal */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (bind) fy_launch_bind_cpu(s.local_rank);
    dup2(devnull, 0);
    execvp(argv[0], argv);
    int e = errno;
    ssize_t w = write(xp[1], &e, sizeof e);
    (void)w;
    _exit(127);
  }
  setpgid(pid, pid);
  close(xp[1]);
  int e = 0;
  ssize_t n;
  do n = read(xp[0], &e, sizeof e); while (n < 0 && errno == EINTR);
  close(xp[0]);
  if (n == (ssize_t)sizeof e) {
    fprintf(stderr, "mpiexec: rank %d on host %s: cannot execute \"%s\": %s\n", s.rank, s.host, argv[0],
            strerror(e));
    waitpid(pid, NULL, 0);
    return 127;
  }

  int stdin_open = 1, terminating = 0, killed = 0, status = 0;
  double kill_at = 0;
  for (;;) {
    struct pollfd p[2] = {{sfd, POLLIN, 0}, {0, POLLIN, 0}};
    int timeout = -1;
    if (terminating && !killed) {
      double t = kill_at - now();
      timeout = t > 0 ? (int)(t * 1000) + 1 : 0;
    }
    int rc = poll(p, stdin_open ? 2 : 1, timeout);
    if (rc < 0 && errno != EINTR) break;
    if (terminating && !killed && now() >= kill_at) {
      kill(-pid, SIGKILL);
      killed = 1;
    }
    if (rc <= 0) continue;
    if (stdin_open && p[1].revents) {
      char buf[256];
      ssize_t r = read(0, buf, sizeof buf);
      if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) {
        /* mpiexec (or the connection to it) is gone: end the rank. */
        stdin_open = 0;
        if (!terminating) {
          kill(-pid, SIGTERM);
          terminating = 1;
          kill_at = now() + (double)(s.kill_timeout < 0 ? 0 : s.kill_timeout);
        }
      }
    }
    if (p[0].revents) {
      struct signalfd_siginfo si;
      int done = 0;
      while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD) {
          pid_t w = waitpid(pid, &status, WNOHANG);
          if (w == pid) done = 1;
          continue;
        }
        kill(-pid, sig);
        if (sig == SIGUSR1 || sig == SIGUSR2) continue;
        /* mpiexec sends a signal twice (to the group and to the pid), so a
         * repeat is no reason to hurry; mpiexec's own SIGKILL ends the
         * proxy, and the rank with it (PR_SET_PDEATHSIG). */
        if (!terminating) {
          terminating = 1;
          kill_at = now() + (double)(s.kill_timeout < 0 ? 0 : s.kill_timeout);
        }
      }
      if (done) break;
    }
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fy_launch_cleanup_shm(s.kvsname); /* mpiexec cleans only its own host */
  if (WIFSIGNALED(status)) {
    /* End the same way, so that the launcher reports the signal. */
    int sig = WTERMSIG(status);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    sigprocmask(SIG_UNBLOCK, &one, NULL);
    raise(sig);
    return 128 + sig;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
bad:
  fprintf(stderr, "mpiexec --fy-proxy: malformed launch specification\n");
  return 127;
}
