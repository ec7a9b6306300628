/* Nonblocking collectives progress while a process computes: rank 2 (an
 * interior node of the binomial trees rooted at 0, and a member of every
 * ring) starts Ibcast / Ireduce / Iallreduce / Ialltoall / Igather /
 * Iscatter (the last two as trees with FERRY_COLL_GATHER=binomial, where
 * rank 2 forwards rank 3's block) and then computes without any
 * MPI call until every other rank has completed the same operation (they
 * tell it through a shared-memory counter, not through MPI). Only an agent
 * that advances collective schedules (pef, thread, interrupt) lets them
 * finish; without one the others would wait for rank 2's next MPI call and
 * the test would fail after its time limit. */
#include "../common/fytest.h"
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <time.h>

static atomic_int *done_ctr;
static int rank, size, busy;

/* Compute (no MPI) until the others are done or the limit passes. */
static int compute_until_others_done(int target) {
  double t0 = fy_now();
  volatile double x = 1.0;
  while (atomic_load(done_ctr) < target) {
    for (int i = 0; i < 10000; i++) x = x * 1.0000001 + 1e-9;
    if (fy_now() - t0 > 20.0) return 0;
  }
  return 1;
}

static void run(const char *what, int (*start)(void *, void *, int, MPI_Request *), int n) {
  int *a = malloc(sizeof(int) * n), *b = malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) a[i] = rank == 0 ? i : rank + 1;
  atomic_store(done_ctr, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Request r;
  CHECK_OK(start(a, b, n, &r));
  if (rank == busy) {
    int ok = compute_until_others_done(size - 1);
    CHECK(ok, "%s of %d ints did not complete at the other ranks while rank %d computed", what, n, busy);
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  } else {
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    atomic_fetch_add(done_ctr, 1);
  }
  free(a);
  free(b);
  MPI_Barrier(MPI_COMM_WORLD);
}

static int ibcast(void *a, void *b, int n, MPI_Request *r) {
  (void)b;
  return MPI_Ibcast(a, n, MPI_INT, 0, MPI_COMM_WORLD, r);
}
static int ireduce(void *a, void *b, int n, MPI_Request *r) {
  return MPI_Ireduce(a, b, n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, r);
}
static int iallreduce(void *a, void *b, int n, MPI_Request *r) {
  return MPI_Iallreduce(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, r);
}
static int ialltoall(void *a, void *b, int n, MPI_Request *r) {
  return MPI_Ialltoall(a, n / size, MPI_INT, b, n / size, MPI_INT, MPI_COMM_WORLD, r);
}

static int igather(void *a, void *b, int n, MPI_Request *r) {
  return MPI_Igather(a, n / size, MPI_INT, b, n / size, MPI_INT, 0, MPI_COMM_WORLD, r);
}
static int iscatter(void *a, void *b, int n, MPI_Request *r) {
  return MPI_Iscatter(a, n / size, MPI_INT, b, n / size, MPI_INT, 0, MPI_COMM_WORLD, r);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("coll_progress");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  busy = size > 2 ? 2 : size - 1;
  char name[64];
  int pid = (int)getpid();
  MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
  snprintf(name, sizeof name, "/fy_coll_progress_%d", pid);
  int fd = shm_open(name, O_CREAT | O_RDWR, 0600);
  CHECK(fd >= 0, "shm_open");
  if (ftruncate(fd, 4096) != 0) CHECK(0, "ftruncate");
  done_ctr = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) shm_unlink(name);
  if (size > 1) {
    int sizes[] = {2, 16384, 262144};
    for (int k = 0; k < 3; k++) {
      run("MPI_Ibcast", ibcast, sizes[k]);
      run("MPI_Ireduce", ireduce, sizes[k]);
      run("MPI_Iallreduce", iallreduce, sizes[k]);
      run("MPI_Ialltoall", ialltoall, sizes[k]);
      run("MPI_Igather", igather, sizes[k]);
      run("MPI_Iscatter", iscatter, sizes[k]);
    }
  }
  munmap((void *)done_ctr, 4096);
  close(fd);
  return fy_finish();
}
