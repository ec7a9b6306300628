/* MPI_THREAD_MULTIPLE: two threads per process build and free
 * communicators at the same time, each from its own parent; the context
 * agreements interleave (one offers its bitmap per round) and every
 * communicator still gets a context of its own; then the same in crossed
 * order with MPI_COMM_SELF duplicated in between. */
#include "fytest.h"
#include <pthread.h>
#include <unistd.h>

enum { ROUNDS = 300 };
static MPI_Comm parent[2];
static int rank, size;

static void *work(void *arg) {
  int t = (int)(long)arg;
  for (int i = 0; i < ROUNDS; i++) {
    MPI_Comm c;
    CHECK_OK(MPI_Comm_dup(parent[t], &c));
    int v = t * 100000 + i * 10 + rank, got = -1;
    CHECK_OK(MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, t, &got, 1, MPI_INT, (rank + size - 1) % size, t, c,
                          MPI_STATUS_IGNORE));
    CHECK(got == t * 100000 + i * 10 + (rank + size - 1) % size, "thread %d round %d got %d", t, i, got);
    CHECK_OK(MPI_Comm_free(&c));
  }
  return NULL;
}

/* Crossed order: on each process one thread duplicates its parent at
 * once, the other late, so the two agreements start in opposite orders on
 * neighbouring processes; each thread first duplicates MPI_COMM_SELF under
 * a lock the late thread of a neighbour also needs. A one-process
 * agreement must not wait for the other agreement's round (MPICH's
 * threads/comm/comm_dup_deadlock). */
static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER;
static void *crossed(void *arg) {
  int t = (int)(long)arg;
  if (t == rank % 2) usleep(200000);
  MPI_Comm self, c;
  pthread_mutex_lock(&self_lock);
  CHECK_OK(MPI_Comm_dup(MPI_COMM_SELF, &self));
  pthread_mutex_unlock(&self_lock);
  CHECK_OK(MPI_Comm_free(&self));
  CHECK_OK(MPI_Comm_dup(parent[t], &c));
  CHECK_OK(MPI_Barrier(c));
  CHECK_OK(MPI_Comm_free(&c));
  return NULL;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  fy_init("comm_threads");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (provided < MPI_THREAD_MULTIPLE) return fy_finish();
  MPI_Comm_dup(MPI_COMM_WORLD, &parent[0]);
  MPI_Comm_dup(MPI_COMM_WORLD, &parent[1]);
  pthread_t th[2];
  for (long t = 0; t < 2; t++) pthread_create(&th[t], NULL, work, (void *)t);
  for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
  for (long t = 0; t < 2; t++) pthread_create(&th[t], NULL, crossed, (void *)t);
  for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
  MPI_Comm_free(&parent[0]);
  MPI_Comm_free(&parent[1]);
  return fy_finish();
}
