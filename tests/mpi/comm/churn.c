/* Context ids are never leaked: create and free 100 000 communicators in a
 * loop (argv[1] overrides the count), then hold thousands at once, each
 * with its own context. */
#include "fytest.h"
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fy_init("comm_churn");
  int rank, size, n = argc > 1 ? atoi(argv[1]) : 100000;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (int i = 0; i < n; i++) {
    MPI_Comm c;
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, &c);
    CHECK_OK(rc);
    if (rc) break;
    if (i % 1000 == 0) { /* now and then the communicator carries a message */
      int v = rank, got = -1;
      CHECK_OK(MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 0, &got, 1, MPI_INT, (rank + size - 1) % size,
                            0, c, MPI_STATUS_IGNORE));
      CHECK(got == (rank + size - 1) % size, "got %d", got);
    }
    CHECK_OK(MPI_Comm_free(&c));
  }
  /* Splits and frees too (a communicator per colour). */
  for (int i = 0; i < n / 10; i++) {
    MPI_Comm c;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &c));
    CHECK_OK(MPI_Comm_free(&c));
  }
  /* Thousands alive at once: still room, all distinct. */
  enum { HOLD = 4000 };
  static MPI_Comm h[HOLD];
  for (int i = 0; i < HOLD; i++) CHECK_OK(MPI_Comm_dup(i % 2 ? MPI_COMM_SELF : MPI_COMM_WORLD, &h[i]));
  int v = rank, got = -1;
  MPI_Request q[2];
  CHECK_OK(MPI_Irecv(&got, 1, MPI_INT, (rank + size - 1) % size, 0, h[HOLD - 2], &q[0]));
  CHECK_OK(MPI_Isend(&v, 1, MPI_INT, (rank + 1) % size, 0, h[HOLD - 2], &q[1]));
  CHECK_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
  CHECK(got == (rank + size - 1) % size, "got %d", got);
  for (int i = HOLD - 1; i >= 0; i--) CHECK_OK(MPI_Comm_free(&h[i]));
  return fy_finish();
}
