/* MPI_THREAD_MULTIPLE: two threads per process free communicators and
 * windows without blocking (MPIX_Comm_ifree, MPIX_Comm_idisconnect,
 * MPIX_Win_ifree) at the same time, each over its own parent, while the
 * other thread's frees are pending: the free lists are shared, and each
 * call's first step runs while the other thread may be in a progress
 * pass. Each round sends a message on the new communicator and puts into
 * the new window before freeing them. */
#include "fytest.h"
#include <pthread.h>

enum { ROUNDS = 200 };
static MPI_Comm parent[2];
static int rank, size;

static void *work(void *arg) {
  int t = (int)(long)arg;
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int i = 0; i < ROUNDS && !fy_errs; i++) {
    MPI_Comm c;
    MPI_Win w;
    MPI_Request r[3];
    int *mem, v = t * 100000 + i * 10 + rank, got = -1;
    CHECK_OK(MPI_Comm_dup(parent[t], &c));
    CHECK_OK(MPI_Sendrecv(&v, 1, MPI_INT, right, 0, &got, 1, MPI_INT, left, 0, c, MPI_STATUS_IGNORE));
    CHECK(got == t * 100000 + i * 10 + left, "thread %d round %d got %d", t, i, got);
    CHECK_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, c, &mem, &w));
    *mem = -1;
    CHECK_OK(MPI_Win_fence(0, w));
    CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, w));
    CHECK_OK(MPI_Win_fence(0, w));
    CHECK(*mem == t * 100000 + i * 10 + left, "thread %d round %d: window holds %d", t, i, *mem);
    CHECK_OK(MPIX_Win_ifree(&w, &r[0]));
    MPI_Comm d;
    CHECK_OK(MPI_Comm_dup(c, &d));
    CHECK_OK(MPIX_Comm_idisconnect(&d, &r[1]));
    CHECK_OK(MPIX_Comm_ifree(&c, &r[2]));
    CHECK_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  fy_init("comm_ifree_threads");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &parent[0]));
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &parent[1]));
  pthread_t th[2];
  for (long t = 0; t < 2; t++) pthread_create(&th[t], NULL, work, (void *)t);
  for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
  CHECK_OK(MPI_Comm_free(&parent[0]));
  CHECK_OK(MPI_Comm_free(&parent[1]));
  return fy_finish();
}
