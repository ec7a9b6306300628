/* bench/shm_copy: two forked processes on the shm transport.
 *   bench_shm_copy [-s slots] [-c chunk_bytes] [-n iters_scale] [-r rounds] [-q]
 * (-q: pipelined copy only, for sweeps of -s/-c). Every figure is the best of
 * `rounds` timed rounds.
 * Prints the one-way latency of ring packets (ping-pong / 2) and the
 * bandwidth of one transfer of 64 KiB .. 16 MiB by CMA read, CMA write and
 * the pipelined copy (both processes active, buffers reused, as in a
 * bandwidth benchmark's steady state). */
#include "transport/shm/fy_shm.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  pthread_barrier_t bar;
  void *buf1;          /* rank 1's buffer address, for CMA */
  double result[64];
} shared_t;
static shared_t *sh;
static int bar(void) { int r = pthread_barrier_wait(&sh->bar); return r && r != PTHREAD_BARRIER_SERIAL_THREAD; }
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static int got;
static int cb(void *a, int s, const void *p, size_t l) { got++; return 0; }
static void wait_pkt(void) { got = 0; while (!got) fy_shm_poll(cb, NULL, 1); }
static void send_pkt(int dst, size_t len) {
  static char z[64];
  while (fy_shm_send(dst, z, len, NULL, 0, 0)) fy_shm_poll(cb, NULL, 0);
}

static double scale = 1;
static int quiet;

/* Best of `reps` rounds: the machine is shared, so the best round is the
 * closest to the figure of two otherwise idle cores. */
static int reps = 7;

static double pingpong(int me, size_t len, int iters) {
  double best = 1e30;
  for (int w = 0; w <= reps; w++) {
    bar();
    double t0 = now();
    for (int i = 0; i < iters; i++) {
      if (me == 0) { send_pkt(1, len); wait_pkt(); }
      else { wait_pkt(); send_pkt(0, len); }
    }
    double t = (now() - t0) / iters / 2 * 1e6;
    if (w && t < best) best = t;
  }
  return best;
}

static int iters_for(size_t len) {
  int it = (int)((1u << 27) / len * scale);
  return it < 2 ? 2 : it > 20000 ? 20000 : it;
}

/* rank 0 moves len bytes from/to rank 1 per iteration; rank 1 spins in the
 * ring waiting (it is "in MPI") and acknowledges each message. */
static double bw(int me, int mode, size_t len, unsigned char *src, unsigned char *dst) {
  int iters = iters_for(len);
  double t0 = 0, best = 0;
  for (int w = 0; w <= reps; w++) {
    bar();
    t0 = now();
    for (int i = 0; i < iters; i++) {
      uint64_t id = ((uint64_t)w << 40) | ((uint64_t)len << 8) | (uint64_t)i;
      if (mode == 0) {            /* CMA read by the receiver (rank 0) */
        if (me == 0) { fy_shm_cma_read(1, dst, sh->buf1, len); send_pkt(1, 0); }
        else wait_pkt();
      } else if (mode == 1) {     /* CMA write by the sender (rank 0 writes into rank 1) */
        if (me == 0) { fy_shm_cma_write(1, sh->buf1, src, len); send_pkt(1, 0); }
        else wait_pkt();
      } else {                    /* pipelined: rank 1 pushes, rank 0 pulls */
        fy_shm_pipe_t p;
        if (me == 0) {
          fy_shm_pipe_init(&p, 1, id, len);
          while (!fy_shm_pipe_pull(&p, dst, len)) {}
          send_pkt(1, 0);
        } else {
          fy_shm_pipe_init(&p, 0, id, len);
          while (!fy_shm_pipe_push(&p, src)) {}
          wait_pkt();
        }
      }
    }
    double b = (double)len * iters / (now() - t0) / 1e9;
    if (w && b > best) best = b;
  }
  return best;
}

int main(int argc, char **argv) {
  int slots = 0, opt;
  size_t chunk = 0;
  while ((opt = getopt(argc, argv, "s:c:n:r:q")) != -1) {
    if (opt == 'r') reps = atoi(optarg);
    if (opt == 's') slots = atoi(optarg);
    else if (opt == 'c') chunk = strtoul(optarg, NULL, 0);
    else if (opt == 'n') scale = atof(optarg);
    else if (opt == 'q') quiet = 1;
  }
  sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  pthread_barrierattr_t a;
  pthread_barrierattr_init(&a);
  pthread_barrierattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
  pthread_barrier_init(&sh->bar, &a, 2);
  char job[64];
  snprintf(job, sizeof job, "bench-%d", (int)getpid());
  pid_t pid[2];
  for (int me = 0; me < 2; me++) {
    if ((pid[me] = fork()) == 0) {
      fy_shm_boot_t b = {.job_id = job, .local_rank = me, .local_size = 2, .barrier = bar,
                         .pipe_slots = slots, .pipe_chunk = chunk};
      if (fy_shm_init(&b)) { fprintf(stderr, "%s\n", fy_shm_error()); _exit(1); }
      const size_t maxlen = 16u << 20;
      unsigned char *src = malloc(maxlen), *dst = malloc(maxlen);
      memset(src, 1, maxlen);
      memset(dst, 2, maxlen);
      if (me == 1) sh->buf1 = dst;
      int k = 0;
      if (!quiet) {
        double l0 = pingpong(me, 0, 20000 * scale), l8 = pingpong(me, 8, 20000 * scale);
        double l64 = pingpong(me, 64, 20000 * scale);
        if (me == 0)
          printf("ring one-way latency: 0 B %.3f us, 8 B %.3f us, 64 B %.3f us\n", l0, l8, l64);
      }
      if (me == 0) {
        printf("pipe: %d slots x %zu KiB; CMA %s\n", fy_shm_pipe_slots(), fy_shm_pipe_chunk() / 1024,
               fy_shm_cma_available() ? "available" : "not available");
        printf("%10s %12s %12s %12s  (GB/s)\n", "bytes", "cma_read", "cma_write", "pipe");
      }
      for (size_t len = 64u << 10; len <= maxlen; len *= 2, k++) {
        double r = -1, w = -1, p;
        if (!quiet && fy_shm_cma_available()) {
          r = bw(me, 0, len, src, dst);
          w = bw(me, 1, len, src, dst);
        }
        p = bw(me, 2, len, src, dst);
        if (me == 0) printf("%10zu %12.2f %12.2f %12.2f\n", len, r, w, p);
        fflush(stdout);
      }
      fy_shm_finalize();
      _exit(0);
    }
  }
  int bad = 0;
  for (int i = 0; i < 2; i++) {
    int st;
    waitpid(pid[i], &st, 0);
    bad |= !WIFEXITED(st) || WEXITSTATUS(st);
  }
  return bad;
}
