/* fork()-based harness for the shm transport tests: n processes share a
 * pthread barrier in a MAP_SHARED anonymous mapping (the boot barrier) and a
 * scratch area; each runs fn after fy_shm_init and exits with its result. */
#ifndef SHM_HARNESS_H
#define SHM_HARNESS_H
#include "transport/shm/fy_shm.h"
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define H_SCRATCH (1u << 20)
typedef struct {
  pthread_barrier_t bar;
  _Alignas(64) unsigned char scratch[H_SCRATCH];
} h_shared_t;

static h_shared_t *h_sh;
static char h_job[96];

static int h_barrier(void) {
  int r = pthread_barrier_wait(&h_sh->bar);
  return r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD ? 0 : -1;
}

#define CHECK(c)                                                            \
  do {                                                                      \
    if (!(c)) {                                                             \
      fprintf(stderr, "[%d] %s:%d: CHECK failed: %s\n", (int)getpid(),     \
              __FILE__, __LINE__, #c);                                      \
      return 1;                                                             \
    }                                                                       \
  } while (0)

typedef int (*h_fn)(int me, int n, void *arg);

/* Runs fn in n forked processes; returns 0 if every one exited 0. If
 * expect_init_fail, checks instead that fy_shm_init fails on every rank. */
static int h_run_ex(const char *name, int n, const fy_shm_boot_t *tmpl, h_fn fn, void *arg,
                    int expect_init_fail, const char *job_override) {
  static int counter;
  h_sh = mmap(NULL, sizeof *h_sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (h_sh == MAP_FAILED) { perror("mmap"); return 1; }
  pthread_barrierattr_t a;
  pthread_barrierattr_init(&a);
  pthread_barrierattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
  pthread_barrier_init(&h_sh->bar, &a, (unsigned)n);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  if (job_override) snprintf(h_job, sizeof h_job, "%s", job_override);
  else snprintf(h_job, sizeof h_job, "ut-%d-%d-%ld", (int)getpid(), counter++, (long)ts.tv_nsec);
  pid_t pids[64];
  for (int i = 0; i < n; i++) {
    pids[i] = fork();
    if (pids[i] < 0) { perror("fork"); return 1; }
    if (pids[i] == 0) {
      alarm(120);
      fy_shm_boot_t b = tmpl ? *tmpl : (fy_shm_boot_t){0};
      b.job_id = h_job;
      b.local_rank = i;
      b.local_size = n;
      b.barrier = h_barrier;
      int rc = fy_shm_init(&b);
      if (expect_init_fail) {
        if (rc == 0) { fprintf(stderr, "[%d] init succeeded unexpectedly\n", i); _exit(1); }
        fprintf(stderr, "  (rank %d, expected) %s\n", i, fy_shm_error());
        _exit(0);
      }
      if (rc) { fprintf(stderr, "[%d] fy_shm_init: %s\n", i, fy_shm_error()); _exit(2); }
      rc = fn(i, n, arg);
      fy_shm_finalize();
      _exit(rc);
    }
  }
  /* A failed rank would leave the others waiting in a barrier: kill them. */
  int bad = 0, left = n;
  while (left > 0) {
    int st;
    pid_t p = waitpid(-1, &st, 0);
    if (p < 0) break;
    int i = 0;
    while (i < n && pids[i] != p) i++;
    if (i == n) continue;
    pids[i] = 0;
    left--;
    if (!WIFEXITED(st) || WEXITSTATUS(st)) {
      fprintf(stderr, "%s: rank %d failed (status 0x%x)\n", name, i, st);
      if (!bad)
        for (int j = 0; j < n; j++) if (pids[j] > 0) kill(pids[j], SIGKILL);
      bad = 1;
    }
  }
  pthread_barrier_destroy(&h_sh->bar);
  munmap(h_sh, sizeof *h_sh);
  printf("%-40s %s\n", name, bad ? "FAIL" : "ok");
  fflush(stdout);
  return bad;
}

static int h_run(const char *name, int n, const fy_shm_boot_t *tmpl, h_fn fn, void *arg) {
  return h_run_ex(name, n, tmpl, fn, arg, 0, NULL);
}

/* Deterministic payload byte. */
static inline unsigned char h_byte(uint64_t key, size_t i) {
  uint64_t x = key * 0x9e3779b97f4a7c15ull + i * 0xbf58476d1ce4e5b9ull;
  return (unsigned char)(x >> 56 ^ x >> 29 ^ x);
}
#endif
