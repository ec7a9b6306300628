/* progress_signals: an application that owns SIGALRM and runs nanosleep,
 * malloc-heavy and printf-heavy compute loops while large receives are
 * pending (receiver-first, sender a few ms late) still works: payloads
 * right, its SIGALRM handler runs, its loops give the right results, no
 * crash or deadlock. Aimed at pef (a timer signal interrupting libc), fine
 * in every mode.
 *
 * Each round, every rank (paired with rank^1) posts K large MPI_Irecv,
 * meets its partner in MPI_Barrier, sleeps ~3 ms with nanosleep (so its own
 * sends are late for the partner), posts its MPI_Isend, runs the malloc and
 * printf loops, then MPI_Waitall and verifies. An ITIMER_REAL of 500 us
 * fires SIGALRM throughout (inside MPI calls too). The fytest watchdog uses
 * SIGALRM, so this test runs with FYTEST_TIMEOUT=0 and relies on CTest. */
#include "fytest.h"
#include <errno.h>
#include <sys/time.h>
#include <time.h>

#define K 3
#define ROUNDS 6

static volatile sig_atomic_t ticks;
static void on_alarm(int sig) {
  (void)sig;
  int e = errno;
  ticks++;
  errno = e;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* nanosleep resumed with the remaining time after every EINTR. Returns the
 * number of interruptions; *ok is cleared on any other error. */
static int sleep_resuming(long ns, int *ok) {
  struct timespec req = {ns / 1000000000L, ns % 1000000000L}, rem;
  int intr = 0;
  for (;;) {
    if (nanosleep(&req, &rem) == 0) break;
    if (errno != EINTR) { *ok = 0; break; }
    intr++;
    req = rem;
  }
  return intr;
}

static unsigned long lcg(unsigned long *s) {
  *s = *s * 6364136223846793005ul + 1442695040888963407ul;
  return *s >> 33;
}

/* Many small and some large (mmap-sized) allocations, filled, verified. */
static int malloc_loop(unsigned round) {
  enum { SLOTS = 64 };
  unsigned char *p[SLOTS] = {0};
  size_t sz[SLOTS] = {0};
  unsigned char tag[SLOTS] = {0};
  unsigned long s = 12345u + round;
  int bad = 0;
  for (int i = 0; i < 6000; i++) {
    int k = (int)(lcg(&s) % SLOTS);
    if (p[k]) {
      for (size_t j = 0; j < sz[k]; j += 97)
        if (p[k][j] != (unsigned char)(tag[k] + j)) { bad++; break; }
      if (p[k][sz[k] - 1] != (unsigned char)(tag[k] + sz[k] - 1)) bad++;
      free(p[k]);
      p[k] = NULL;
    }
    unsigned long r = lcg(&s);
    size_t n = (r % 16 == 0) ? (size_t)(256 << 10) + r % (3 << 20)  /* large: mmap */
                             : 1 + r % 2048;                          /* small: arenas */
    p[k] = malloc(n);
    if (!p[k]) return -1;
    sz[k] = n;
    tag[k] = (unsigned char)r;
    for (size_t j = 0; j < n; j += 97) p[k][j] = (unsigned char)(tag[k] + j);
    p[k][n - 1] = (unsigned char)(tag[k] + n - 1);
    if (i % 500 == 0) { /* realloc too */
      unsigned char *q = realloc(p[k], n + 4096);
      if (!q) return -1;
      p[k] = q;
      for (size_t j = 0; j < n; j += 97)
        if (q[j] != (unsigned char)(tag[k] + j)) { bad++; break; }
      sz[k] = n + 4096;
      for (size_t j = 0; j < sz[k]; j += 97) q[j] = (unsigned char)(tag[k] + j);
      q[sz[k] - 1] = (unsigned char)(tag[k] + sz[k] - 1);
    }
  }
  for (int k = 0; k < SLOTS; k++) free(p[k]);
  return bad;
}

/* Formatting into a buffer (checked against a hand-built digit string)
 * and into a FILE* on /dev/null (checked by return values). */
static int printf_loop(FILE *null, unsigned round) {
  int bad = 0;
  char buf[256], want[64];
  for (int i = 0; i < 20000; i++) {
    int v = (int)(round * 100000u) + i * 37 - 50000;
    int n = snprintf(buf, sizeof buf, "%d|%s|%05.1f|%x", v, "ferry", 2.5, 255);
    /* reference for %d without printf */
    char *w = want + sizeof want;
    *--w = 0;
    unsigned u = v < 0 ? (unsigned)(-(long)v) : (unsigned)v;
    do { *--w = (char)('0' + u % 10); u /= 10; } while (u);
    if (v < 0) *--w = '-';
    size_t wl = strlen(w);
    if (n != (int)(wl + strlen("|ferry|002.5|ff")) || strncmp(buf, w, wl) != 0 ||
        strcmp(buf + wl, "|ferry|002.5|ff") != 0)
      bad++;
    int m = fprintf(null, "line %d: %s %g\n", i, buf, (double)i / 3.0);
    if (m <= 0) bad++;
  }
  if (fflush(null) != 0 || ferror(null)) bad++;
  return bad;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("progress_signals");
  int rank = fy_rank_, size = fy_size_;
  CHECK(size % 2 == 0, "needs an even number of ranks, got %d", size);
  int partner = rank ^ 1;
  FILE *null = fopen("/dev/null", "w");
  CHECK(null != NULL, "fopen /dev/null");

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0; /* no SA_RESTART: the library must cope with EINTR */
  CHECK(sigaction(SIGALRM, &sa, NULL) == 0, "sigaction");
  struct itimerval itv = {{0, 500}, {0, 500}};
  CHECK(setitimer(ITIMER_REAL, &itv, NULL) == 0, "setitimer");

  static const size_t sizes[K] = {128 << 10, 1 << 20, 3 << 20};
  unsigned char *rbuf[K], *sbuf[K];
  for (int i = 0; i < K; i++) {
    rbuf[i] = malloc(sizes[i]);
    sbuf[i] = malloc(sizes[i]);
    CHECK(rbuf[i] && sbuf[i], "malloc");
  }
  long interrupted = 0;
  for (int round = 0; round < ROUNDS && size % 2 == 0 && null; round++) {
    MPI_Request rq[2 * K];
    for (int i = 0; i < K; i++) {
      memset(rbuf[i], 0, sizes[i]);
      fy_fill(sbuf[i], sizes[i], (unsigned)(rank * 100 + round * 10 + i));
      CHECK_OK(MPI_Irecv(rbuf[i], (int)sizes[i], MPI_BYTE, partner, 20 + i, MPI_COMM_WORLD, &rq[i]));
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* nanosleep phase: our receives are pending, the partner's sends late. */
    int ok = 1;
    double t0 = now_s();
    interrupted += sleep_resuming(3 * 1000 * 1000L, &ok);
    double slept = now_s() - t0;
    CHECK(ok, "nanosleep failed with errno other than EINTR");
    /* POSIX semantics, not performance: a resumed sleep lasts at least the request. */
    CHECK(slept >= 0.003, "resumed nanosleep returned after %.6f s < 3 ms", slept);
    for (int i = 0; i < K; i++)
      CHECK_OK(MPI_Isend(sbuf[i], (int)sizes[i], MPI_BYTE, partner, 20 + i, MPI_COMM_WORLD, &rq[K + i]));
    int mb = malloc_loop((unsigned)round);
    CHECK(mb == 0, "malloc loop: %d wrong blocks (or -1: out of memory)", mb);
    int pb = printf_loop(null, (unsigned)round);
    CHECK(pb == 0, "printf loop: %d wrong results", pb);
    CHECK_OK(MPI_Waitall(2 * K, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < K; i++) {
      size_t bad = fy_verify(rbuf[i], sizes[i], (unsigned)(partner * 100 + round * 10 + i));
      CHECK(bad == (size_t)-1, "round %d message %d: wrong at byte %zu", round, i, bad);
    }
  }
  /* The handler must have run; give a slow, oversubscribed machine time. */
  double t0 = now_s();
  while (ticks == 0 && now_s() - t0 < 5.0) {
    int ok = 1;
    sleep_resuming(1000000L, &ok);
  }
  CHECK(ticks > 0, "the application's SIGALRM handler never ran");
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  if (rank == 0) printf("rank 0: %d SIGALRM ticks, %ld nanosleep interruptions\n", (int)ticks, interrupted);
  for (int i = 0; i < K; i++) {
    free(rbuf[i]);
    free(sbuf[i]);
  }
  if (null) fclose(null);
  return fy_finish();
}
